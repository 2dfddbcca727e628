"""A light, optional progress hook for the long passes.

The passes that loop over chunks of resamples (bootstrap replicates, Tukey
permutations, stability half-splits, the criteria's resamples, the design's
subsets) call ``report(done, total, what)`` once per chunk.  Nothing
listens by default: ``report`` then reads one context variable and returns,
and no number depends on whether anyone listens.  The command line listens
to draw its progress line; a library user can too:

>>> from metaeval.engine.progress import reporting
>>> seen = []
>>> with reporting(lambda done, total, what: seen.append((done, total, what))):
...     report(50, 100, "bootstrap replicates")
>>> seen
[(50, 100, 'bootstrap replicates')]
>>> report(100, 100, "bootstrap replicates")  # no one listens: nothing happens

The callback runs in the thread of the computation, between two chunks:
it should be quick (store the numbers; draw elsewhere).  A context variable
holds it, so that concurrent computations (threads, tasks) each report to
their own listener, or to none.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

__all__ = ["report", "reporting"]

Callback = Callable[[int, int, str], None]

_LISTENER: ContextVar[Callback | None] = ContextVar("metaeval_progress", default=None)


def report(done: int, total: int, what: str = "") -> None:
    """Say that ``done`` of ``total`` units of work of the pass ``what``
    (e.g. ``"bootstrap replicates"``) are done, to the listener of
    ``reporting``, if any."""
    listener = _LISTENER.get()
    if listener is not None:
        listener(int(done), int(total), what)


@contextmanager
def reporting(callback: Callback | None) -> Iterator[None]:
    """Within the block, the passes report ``callback(done, total, what)``
    after each chunk (None: to no one)."""
    token = _LISTENER.set(callback)
    try:
        yield
    finally:
        _LISTENER.reset(token)
