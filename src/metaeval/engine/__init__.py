"""The engine below every method: confusion tensors of labels
(``confusion``), resamples of items and groups drawn as weights and their
confusion tensors (``resample``, with the compiled ``kernels``), rankings and
Kendall's tau (``ranking``), and the scores of a dataset's systems on the
whole test set or on thousands of resamples at once (``scoring``: ``Counts``,
``Scorer``, ``select_systems``); the optional hook the long passes report
their progress to (``progress``).

The metrics never know they are scoring a resample: the engine hands them
confusion tensors ``(..., K, K)`` or span statistics ``(..., F)``.

``Counts``, ``Scorer``, ``select_systems``, ``directions`` and ``oriented``
are importable from here (``from metaeval.engine import Scorer``); the
submodules are imported on first use, so that ``metaeval.dataset`` can read
``metaeval.engine.confusion`` while ``metaeval.engine.scoring`` reads the
dataset.
"""

from __future__ import annotations

import importlib

__all__ = ["Counts", "Scorer", "select_systems", "directions", "oriented",
           "confusion", "resample", "kernels", "ranking", "scoring", "progress"]

_SCORING = frozenset({"Counts", "Scorer", "select_systems", "directions", "oriented"})
_MODULES = frozenset({"confusion", "resample", "kernels", "ranking", "scoring", "progress"})


def __getattr__(name: str):
    if name in _SCORING:
        return getattr(importlib.import_module(".scoring", __name__), name)
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'metaeval.engine' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
