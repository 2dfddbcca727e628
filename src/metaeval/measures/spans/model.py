"""Spans in memory: per-document character ranges, merged and checked for overlaps.

Part of ``metaeval.measures.spans`` (its docstring states the conventions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


SI, TC = "si", "tc"


@dataclass
class Spans:
    """Spans of one system (or the gold) over a dataset's articles.

    ``article``: codes into the dataset's article list; ``label``: codes
    into its label list (all 0 when unlabelled); ``start``/``end``: [start, end).

    Examples
    --------
    >>> s = Spans(article=[0, 0], start=[5, 0], end=[9, 3], label=[])
    >>> len(s), s.take(s.order()).as_array().tolist()    # (article, start, end, label) rows, sorted
    (2, [[0, 0, 3, 0], [0, 5, 9, 0]])
    """

    article: np.ndarray
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray

    def __post_init__(self):
        self.article = np.asarray(self.article, dtype=np.int64)
        self.start = np.asarray(self.start, dtype=np.int64)
        self.end = np.asarray(self.end, dtype=np.int64)
        self.label = np.asarray(self.label, dtype=np.int64) if len(np.atleast_1d(self.label)) else \
            np.zeros(self.article.size, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.article.size)

    @classmethod
    def empty(cls) -> "Spans":
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, z)

    def take(self, idx) -> "Spans":
        return Spans(self.article[idx], self.start[idx], self.end[idx], self.label[idx])

    def order(self) -> np.ndarray:
        """Sort order by (article, label, start, end)."""
        return np.lexsort((self.end, self.start, self.label, self.article))

    def as_array(self) -> np.ndarray:
        return np.stack([self.article, self.start, self.end, self.label], axis=1) if len(self) else \
            np.zeros((0, 4), dtype=np.int64)

    @classmethod
    def from_array(cls, a) -> "Spans":
        a = np.asarray(a, dtype=np.int64).reshape(-1, 4)
        return cls(a[:, 0], a[:, 1], a[:, 2], a[:, 3])


def _groups(spans: Spans, by_label: bool) -> np.ndarray:
    return spans.article * (int(spans.label.max()) + 1 if len(spans) else 1) + spans.label if by_label \
        else spans.article.copy()


def _runs(spans: Spans, by_label: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, run id of each sorted span (1, 2, ...), whether it opens a new run): a run
    is a maximal chain of spans of one group (article, or article and label)
    that overlap, i.e. share at least one character."""
    g = _groups(spans, by_label)
    order = np.lexsort((spans.end, spans.start, g))
    g, s, e = g[order], spans.start[order], spans.end[order]
    if not len(order):
        return order, order, np.zeros(0, dtype=bool)
    # running maximum of the end within a group: offset the groups so that the
    # maximum never carries over from one group to the next
    big = int(e.max()) + 1
    runmax = np.maximum.accumulate((g - g.min()) * big + e)
    new = np.ones(len(order), dtype=bool)  # (the first span opens a run)
    new[1:] = (g[1:] != g[:-1]) | ((g[1:] - g.min()) * big + s[1:] >= runmax[:-1])
    return order, np.cumsum(new), new


def merge_spans(spans: Spans, by_label: bool = False) -> Spans:
    """The union of overlapping spans, per document (and per label).

    Parameters
    ----------
    spans : Spans
    by_label : bool, default False
        Merge only spans of the same label (FLC).

    Returns
    -------
    Spans
        Sorted, disjoint within a document (and label); spans that only touch
        (``end == start``) stay apart, as in the official scorer.

    Examples
    --------
    >>> s = merge_spans(Spans(article=[0, 0, 0], start=[0, 5, 12], end=[8, 10, 15], label=[]))
    >>> s.start.tolist(), s.end.tolist()
    ([0, 12], [10, 15])
    """
    if not len(spans):
        return Spans.empty()
    order, run, new = _runs(spans, by_label)
    first = np.flatnonzero(new)
    s = spans.take(order)
    return Spans(s.article[first], s.start[first], np.maximum.reduceat(s.end, first), s.label[first])


def overlapping_pairs(spans: Spans, by_label: bool = False, limit: int = 5) -> list[tuple[int, int]]:
    """Up to ``limit`` pairs of indices of spans that overlap (for error
    messages): each span that does not open a run, with the earlier span of
    its run that reaches furthest.

    Examples
    --------
    >>> overlapping_pairs(Spans(article=[0, 0], start=[0, 5], end=[8, 10], label=[]))
    [(0, 1)]
    """
    order, run, new = _runs(spans, by_label)
    out = []
    for pos in np.flatnonzero(~new)[:limit]:  # a few rows, for a message
        earlier = order[:pos][run[:pos] == run[pos]]
        out.append((int(earlier[np.argmax(spans.end[earlier])]), int(order[pos])))
    return out
