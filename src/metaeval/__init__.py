"""metaeval: meta-evaluation of classification metrics.

The library behind the Snakemake workflow (see README.md).  Its modules, from
the ground floor up:

* ``metrics``: the metric registry, pure functions of confusion tensors (..., K, K)
* ``custom_metrics``: metrics users bring (``metaeval.register_metric``, the
  config's ``custom_metrics``), held to their declared contract
* ``engine``: confusion tensors of items and of item subsets
  (``engine.confusion``, ``engine.resample``), rankings and Kendall's tau
  (``engine.ranking``), the scores of the systems on thousands of resamples
  at once (``engine.Scorer``); below every method
* ``io``: readers that name file, line and fault; atomic result writers
* ``config``, ``dataset``: dataset specs checked up front; a dataset in memory
* ``tables``, ``plots``: Markdown/LaTeX tables and figures
* ``experiments``: similarity, stability, merging, weights, summary
* ``significance``: bootstrap intervals, randomised Tukey HSD, discriminative power
* ``chance``: chance levels from the expected confusion matrices of guessers
* ``gameability``: degenerate systems scored on a dataset's own test set
* ``sensitivity``, ``properties``: label noise and class priors; formal properties
* ``criteria``: every criterion of the recommendation with its resamples of
  the items (these systems) and of items and systems (BOOT-BOTH: new systems)
* ``mcs``, ``verdict``: the Model Confidence Set per criterion, Bonferroni
  over the criteria, the answer as their intersection
* ``recommendation``: which metric to report: the verdict, the requirements, the
  task's official metric
* ``spans``: span formats and span metrics (SemEval-2020 Task 11)
* ``reproduce``, ``report``: the papers' tables next to ours; HTML pages
* ``api``: ``evaluate``, ``compare``, ``recommend``, ``meta_evaluate``
  (``metaeval.evaluate``, ``metaeval.compare``, ``metaeval.recommend``, ``metaeval.meta_evaluate``):
  labels (or spans and texts: ``metaeval.span_dataset``) in memory, pandas out
* ``steps``, ``workflow``: the steps the Snakemake rules run

``import metaeval`` is cheap: each module is imported on first use
(``metaeval.metrics``), so a script that needs only the metrics does not load
matplotlib.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("metaeval")
except PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["__version__", "score", "register_metric", "evaluate", "compare", "recommend", "meta_evaluate", "size_design", "read_files", "span_dataset", "api", "cli", "metrics", "engine", "io", "config", "dataset", "tables",
           "plots", "experiments", "significance", "chance", "spans", "report", "reproduce", "steps", "workflow",
           "gameability", "sensitivity", "properties", "criteria", "mcs", "verdict", "recommendation", "crossdata",
           "design", "settings", "declare", "pipeline", "label_scores", "custom_metrics"]

# the one-call functions of ``metaeval.api`` (plain labels in, pandas out); ``metaeval.recommend`` is the
# function (its module, ``metaeval.recommend`` until issue 30, is ``metaeval.recommendation``)
_API = frozenset({"evaluate", "compare", "recommend", "meta_evaluate", "size_design", "read_files", "span_dataset"})
_MODULES = frozenset(__all__) - {"__version__", "score", "register_metric"} - _API
# modules that moved (issue 30): their old names work for one release, with a DeprecationWarning
_MOVED = frozenset({"confusion", "resample", "kernels", "ranking"})


def __getattr__(name: str):
    if name == "score":  # one call on label lists (metaeval.label_scores)
        return importlib.import_module(".label_scores", __name__).score
    if name == "register_metric":  # a metric users bring (metaeval.custom_metrics)
        return importlib.import_module(".custom_metrics", __name__).register_metric
    if name in _API:  # (by name, like the modules: importing metaeval imports none of them)
        return getattr(importlib.import_module(".api", __name__), name)
    if name in _MOVED:  # the shim warns and hands over the module's new home
        return importlib.import_module(f".{name}", __name__)
    if name in _MODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'metaeval' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _MODULES | _API | {"score", "register_metric"})
