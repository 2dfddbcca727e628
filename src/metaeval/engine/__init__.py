"""The engine, below everything: confusion tensors of labels
(``confusion``), resamples of items and groups drawn as weights and their
confusion tensors (``resample``, with the compiled ``kernels``), rankings and
Kendall's tau (``ranking``), and the optional hook the long passes report
their progress to (``progress``).

It imports nothing of the rest of the project (``tests/test_structure.py``):
it knows neither datasets nor metrics.  The scores of a dataset's systems on
thousands of resamples at once are ``metaeval.methods.scorer``'s (``Scorer``),
which hands the metrics confusion tensors ``(..., K, K)`` or span statistics
``(..., F)``: the metrics never know they are scoring a resample.
"""

# the largest seed: seeds are counter-based streams of 56 bits (engine.resample draws them; metaeval.settings
# declares the seeds' range with it, and reads it here, where nothing heavy is imported)
MAX_SEED = (1 << 56) - 1


def __getattr__(name: str):  # its modules, imported on first use (as metaeval._submodules: nothing imported here)
    from importlib import import_module
    from importlib.util import find_spec

    if not name.startswith("_") and find_spec(f"{__name__}.{name}") is not None:
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
