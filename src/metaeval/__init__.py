"""metaeval: meta-evaluation of classification and span-task metrics.

The public door (``__all__``): build the data object once, with
``dataset`` (labels in memory), ``span_dataset`` (spans and texts) or
``read_files`` (files), then ask it a question: ``evaluate`` (the scores),
``compare`` (systems, with intervals), ``meta_evaluate`` (every experiment),
``recommend`` (which metric to report), ``size_design`` (how large a test
set); ``score`` scores label lists with one metric, ``register_metric``
brings a metric of your own.  Leaderboards (many systems, a benchmark of
many tasks): ``leaderboard`` (which aggregate to report, which ranks are
real, how many questions each task needs) on a ``Benchmark`` or on
``read_benchmark``'s files; ``register_aggregate`` brings an aggregate of
your own.

The library's floors, from the ground up (``docs/architecture.md`` draws the
map; ``tests/test_structure.py`` keeps it): ``engine`` (resamples, confusion
tensors, rankings), ``settings`` (every default, once), ``measures`` (the
metrics), ``data`` (files in, a dataset out), ``present`` (tables, figures,
pages), ``methods`` (the experiments), ``verdict`` (which metric to report),
``reproduction`` (the papers' tables), ``pipeline`` (the per-dataset
sequence), then ``api``, ``cli`` and ``workflow``.

``import metaeval`` is cheap: every name is imported on first use, so a
script that needs only the metrics does not load matplotlib.
"""

from importlib import import_module as _import_module
from importlib.metadata import PackageNotFoundError as _NotInstalled
from importlib.metadata import version as _version

try:
    __version__ = _version("metaeval")
except _NotInstalled:  # a source tree that is not installed
    __version__ = "0+unknown"

# the public functions and the data object, and the module each comes from
_HOME = {name: "api" for name in ("dataset", "span_dataset", "read_files", "evaluate", "compare", "recommend",
                                  "meta_evaluate", "size_design", "Dataset")}
_HOME.update(score="label_scores", register_metric="measures.custom", leaderboard="pipeline.leaderboard",
             Benchmark="data.benchmark", read_benchmark="data.benchmark", register_aggregate="measures.aggregates")
__all__ = ["__version__", *_HOME]
# the folders and modules of the library (``import metaeval.measures`` or ``metaeval.measures`` after
# ``import metaeval``)
_FLOORS = ("engine", "settings", "measures", "data", "present", "methods", "verdict", "reproduction", "pipeline",
           "api", "cli", "workflow", "label_scores")


def __getattr__(name: str):
    if name in _HOME:
        return getattr(_import_module(f".{_HOME[name]}", __name__), name)
    if name in _FLOORS:
        return _import_module(f".{name}", __name__)
    raise AttributeError(f"module 'metaeval' has no attribute {name!r}")


def __dir__():
    return sorted({*__all__, *_FLOORS})


def _submodules(package: str):
    """A folder's ``__getattr__``: its modules, imported on first use, so
    that ``metaeval.verdict.sentences.answer_sentence`` works after
    ``import metaeval`` alone (and nothing is imported before it is asked
    for)."""
    from importlib.util import find_spec

    def __getattr__(name: str):
        if not name.startswith("_") and find_spec(f"{package}.{name}") is not None:
            return _import_module(f".{name}", package)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
