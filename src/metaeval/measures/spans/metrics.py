"""Span metrics: functions of summed statistics ``(..., len(STATS))``, and their registry.

Part of ``metaeval.measures.spans`` (its docstring states the conventions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from .statistics import STATS, _I


def _prf(num_p, den_p, num_r, den_r) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P, R, F1 with the official scorer's conventions (module docstring)."""
    with np.errstate(invalid="ignore", divide="ignore"):  # (the divisions by 0 are discarded by np.where)
        p = np.where(den_p > 0, num_p / den_p, 0.0)
        r = np.where(den_r > 0, num_r / den_r, 0.0)
        f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)  # (0 when either is 0)
    return p, r, np.where((den_p == 0) & (den_r == 0), 1.0, f)


def _st(x, name):
    return np.asarray(x, dtype=float)[..., _I[name]]


def _from_stats(which: int, num_p: str, den_p: str, num_r: str, den_r: str, x) -> np.ndarray:
    """P (0), R (1) or F1 (2) of summed statistics ``x``: ``num_p / den_p``
    and ``num_r / den_r`` (``_prf``'s conventions)."""
    return _prf(_st(x, num_p), _st(x, den_p), _st(x, num_r), _st(x, den_r))[which]


def span_precision(x) -> np.ndarray:
    """Span precision with partial overlap (the official SI / FLC precision).

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    P(S, T) = sum_{s in S, t in T} C(s, t, |s|) / |S|, with
    C(s, t, h) = |s ∩ t| / h (times δ on the label for FLC), S the predicted
    and T the gold spans of every document; 0 when |S| = 0.

    References
    ----------
    Da San Martino, Barrón-Cedeño & Nakov, SemEval-2020 Task 11 evaluation
    note, eq. 2.

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> float(span_precision(x))   # the 5 of its 10 characters that are gold
    0.5
    """
    return _from_stats(0, "sum_p", "n_pred", "sum_r", "n_gold", x)


def span_recall(x) -> np.ndarray:
    """Span recall with partial overlap (the official SI / FLC recall).

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    R(S, T) = sum_{s in S, t in T} C(s, t, |t|) / |T|, micro over all
    documents (a gold document with no prediction still counts in |T|); 0
    when |T| = 0.

    References
    ----------
    SemEval-2020 Task 11 evaluation note, eq. 3.

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> float(span_recall(x))      # half of one of the two gold spans
    0.25
    """
    return _from_stats(1, "sum_p", "n_pred", "sum_r", "n_gold", x)


def span_f1(x) -> np.ndarray:
    """Span F1 with partial overlap: the official score of SemEval-2020 Task 11 SI.

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    F1 = 2 P R / (P + R) of ``span_precision`` and ``span_recall``; 0 when P
    or R is 0, and 1 when both sides are empty (no predicted and no gold
    span).  Equals a plain-loop reimplementation of the official scorer
    (tested).

    References
    ----------
    SemEval-2020 Task 11 evaluation note, eq. 4.

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(span_f1(x)), 4)
    0.3333
    """
    return _from_stats(2, "sum_p", "n_pred", "sum_r", "n_gold", x)


def span_f1_exact(x) -> np.ndarray:
    """Exact-match span F1: a span counts only if it equals a gold span.

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    P = #exact / |S|, R = #exact / |T| (matches counted as a multiset:
    start, end and, for FLC, label equal), F1 their harmonic mean (the
    seqeval / CoNLL convention).

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> float(span_f1_exact(x))    # [5, 15) is no gold span
    0.0
    """
    return _from_stats(2, "exact", "n_pred", "exact", "n_gold", x)


def span_f1_max(x) -> np.ndarray:
    """Span F1 with the overlap over the longer span of each pair.

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    As ``span_f1`` with C(s, t, max(|s|, |t|)) in both P and R (the official
    scorer's unused ``compute_score_max``).

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(span_f1_max(x)), 4)
    0.3333
    """
    return _from_stats(2, "sum_max", "n_pred", "sum_max", "n_gold", x)


def span_f1_min(x) -> np.ndarray:
    """Span F1 with the overlap over the shorter span of each pair (not bounded by 1).

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    As ``span_f1`` with C(s, t, min(|s|, |t|)) in both P and R (the official
    scorer's unused ``compute_score_min``).  A span that overlaps several
    others scores each overlap in full, so one span covering a whole text
    scores above every real system: the metric rewards degenerate systems
    (``gameability``).

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(span_f1_min(x)), 4)
    0.3333
    >>> whole = Spans(article=[0], start=[0], end=[30], label=[])
    >>> float(span_f1_min(span_statistics(gold, whole, 1, False).sum(axis=0)))   # above 1
    1.3333333333333333
    """
    return _from_stats(2, "sum_min", "n_pred", "sum_min", "n_gold", x)


def char_f1(x) -> np.ndarray:
    """Character F1: the characters inside predicted spans against those inside gold spans.

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    P = |chars(S) ∩ chars(T)| / |chars(S)|, R = ... / |chars(T)| over all
    documents (per label for FLC), F1 their harmonic mean.

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(char_f1(x)), 4)     # 5 shared characters of 10 predicted and 20 gold
    0.3333
    """
    return _from_stats(2, "char_tp", "char_pred", "char_tp", "char_gold", x)


def char_f1_macro(x) -> np.ndarray:
    """Character F1 per document, averaged over the documents (SemEval-2021 Task 5).

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)
        NaN when no document is scored.

    Notes
    -----
    The mean over the documents of each document's character F1, which is 1
    when gold and prediction are both empty and 0 when only one is: the
    official score of Toxic Spans Detection (equal to a plain loop of the
    task's scorer, tested).

    References
    ----------
    Pavlopoulos et al. (SemEval-2021 Task 5), "Toxic Spans Detection".

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(char_f1_macro(x)), 4)
    0.3333
    """
    n = _st(x, "n_articles")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, _st(x, "article_char_f1") / n, np.nan)


@dataclass(frozen=True)
class SpanMetric:
    """A span metric (the same descriptive fields as ``metrics.Metric``).

    Examples
    --------
    >>> m = SPAN_REGISTRY["span_f1"]
    >>> m.name, m.direction
    ('span-F1', 'higher')
    """

    id: str
    name: str
    latex: str
    fn: Callable[[np.ndarray], np.ndarray]
    higher_is_better: bool = True
    reference: str = ""
    bounds: tuple[float, float] = (0.0, 1.0)
    ordinal: bool = False
    params: tuple[str, ...] = ()
    alias: str = ""
    # as the other registries' entries (metaeval metrics' table): every span metric is a candidate of a span
    # dataset that lists no metrics, and none comes from a user's file
    default: bool = True
    source: str = ""

    def __call__(self, stats) -> np.ndarray:
        return self.fn(stats)

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"


_NOTE = "Da San Martino et al., SemEval-2020 Task 11 evaluation note, eqs. 1-4"
_SCORER = "official SI scorer (task-SI_scorer.py), compute_score_{}"
_ENTRIES = [
    SpanMetric("span_precision", "span-P", r"span-$P$", span_precision, reference=_NOTE + " (eq. 2)"),
    SpanMetric("span_recall", "span-R", r"span-$R$", span_recall, reference=_NOTE + " (eq. 3)"),
    SpanMetric("span_f1", "span-F1", r"span-$F_1$", span_f1, reference=_NOTE + " (eq. 4): the official score"),
    SpanMetric("span_f1_exact", "span-F1 exact", r"span-$F_1^{exact}$", span_f1_exact,
               reference="exact-match span F1 (seqeval / CoNLL convention): a predicted span counts only if "
                         "start, end (and label) equal a gold span's"),
    SpanMetric("span_f1_max", "span-F1 max", r"span-$F_1^{max}$", span_f1_max,
               reference=_SCORER.format("max") + ": C(s, t, max(|s|, |t|)) in P and R"),
    SpanMetric("span_f1_min", "span-F1 min", r"span-$F_1^{min}$", span_f1_min,
               reference=_SCORER.format("min") + ": C(s, t, min(|s|, |t|)) in P and R; not bounded by 1: a span "
                         "that overlaps several others scores each overlap in full", bounds=(0.0, np.inf)),
    SpanMetric("char_f1", "char-F1", r"char-$F_1$", char_f1,
               reference="character-level F1 over all articles (characters in a predicted span vs in a gold span)"),
    SpanMetric("char_f1_macro", "char-F1 (per document)", r"char-$F_1^{doc}$", char_f1_macro,
               reference="character F1 per document (article, post), averaged over the documents; 1 for a document where both "
                         "sides are empty (SemEval-2021 Task 5, Toxic Spans)"),
]
SPAN_REGISTRY: dict[str, SpanMetric] = {m.id: m for m in _ENTRIES}
SPAN_METRIC_IDS: tuple[str, ...] = tuple(SPAN_REGISTRY)


def evaluate_spans(stats, metric_ids: Iterable[str]) -> dict[str, np.ndarray]:
    """Score summed span statistics with several span metrics at once.

    Parameters
    ----------
    stats : array_like, shape (..., len(STATS))
        Span statistics summed over the scored documents.
    metric_ids : iterable of str
        Span metric ids (``SPAN_METRIC_IDS``).

    Returns
    -------
    dict of str to ndarray

    Examples
    --------
    >>> from metaeval.measures.spans import Spans, span_statistics
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, 1, labelled=False).sum(axis=0)
    >>> {k: round(float(v), 4) for k, v in evaluate_spans(x, ["span_precision", "span_recall", "span_f1"]).items()}
    {'span_precision': 0.5, 'span_recall': 0.25, 'span_f1': 0.3333}
    """
    stats = np.asarray(stats, dtype=float)
    if stats.shape[-1] != len(STATS):
        raise ValueError(f"span statistics must end in an axis of {len(STATS)} ({', '.join(STATS)}), got {stats.shape}")
    return {m: SPAN_REGISTRY[m](stats) for m in metric_ids}
