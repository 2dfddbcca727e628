"""Per-document sufficient statistics of a system's spans against the gold (``STATS``).

Part of ``metaeval.measures.spans`` (its docstring states the conventions).
"""

from __future__ import annotations

import numpy as np

from .model import Spans, merge_spans


STATS = ("n_pred", "n_gold", "sum_p", "sum_r", "sum_max", "sum_min", "exact", "char_tp", "char_pred",
         "char_gold", "article_char_f1", "n_articles")
_I = {name: i for i, name in enumerate(STATS)}


def row_keys(*cols) -> np.ndarray:
    """Row ids of equal tuples across the given columns (np.unique on rows)."""
    if not len(cols[0]):
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)[1].ravel()


def _equal_key_pairs(ka: np.ndarray, kb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j) with ka[i] == kb[j] (an equi-join, vectorised)."""
    order = np.argsort(kb, kind="stable")
    sb = kb[order]
    lo, hi = np.searchsorted(sb, ka, "left"), np.searchsorted(sb, ka, "right")
    cnt = hi - lo
    ia = np.repeat(np.arange(ka.size), cnt)
    within = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    return ia, order[np.repeat(lo, cnt) + within]


def span_statistics(gold: Spans, pred: Spans, n_articles: int, labelled: bool) -> np.ndarray:
    """Per-document sufficient statistics of one system's spans against the gold.

    Parameters
    ----------
    gold, pred : Spans
        As scored (merged as the task requires: ``merge_spans``).
    n_articles : int
        The number of documents A (codes 0 .. A-1).
    labelled : bool
        δ on the label (FLC), else δ ≡ 1 (SI).

    Returns
    -------
    ndarray, shape (A, len(STATS))
        Per document, the columns of ``STATS``: predicted and gold span counts,
        the sums of C(s, t, h) for h = |s|, |t|, max and min, exact matches, the
        characters in both, in predictions and in gold, the document's
        character F1 and 1 (the document count).  Every span metric is a
        function of their sum over documents, so a resample of documents is
        scored from a weighted sum.

    Examples
    --------
    >>> gold = Spans(article=[0, 1], start=[0, 2], end=[10, 6], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> st = span_statistics(gold, pred, 2, labelled=False)
    >>> dict(zip(STATS, st[0].round(2).tolist()))["sum_p"], st.shape
    (0.5, (2, 12))
    """
    a = n_articles
    out = np.zeros((a, len(STATS)))
    out[:, _I["n_pred"]] = np.bincount(pred.article, minlength=a)
    out[:, _I["n_gold"]] = np.bincount(gold.article, minlength=a)
    out[:, _I["n_articles"]] = 1.0
    lab = int(max(gold.label.max(initial=0), pred.label.max(initial=0))) + 1 if labelled else 1
    key = (lambda s: s.article * lab + s.label) if labelled else (lambda s: s.article)
    # partial overlap: every (predicted, gold) pair of an article (and label)
    ip, ig = _equal_key_pairs(key(pred), key(gold))
    inter = np.maximum(0, np.minimum(pred.end[ip], gold.end[ig]) - np.maximum(pred.start[ip], gold.start[ig]))
    ls, lt = (pred.end - pred.start)[ip], (gold.end - gold.start)[ig]
    art = pred.article[ip]
    for name, h in (("sum_p", ls), ("sum_r", lt), ("sum_max", np.maximum(ls, lt)), ("sum_min", np.minimum(ls, lt))):
        out[:, _I[name]] = np.bincount(art, weights=inter / h, minlength=a)
    # exact matches, counted as a multiset: min(count in gold, count predicted) per span
    g_lab = gold.label if labelled else np.zeros(len(gold), dtype=np.int64)
    p_lab = pred.label if labelled else np.zeros(len(pred), dtype=np.int64)
    ids = row_keys(np.concatenate([gold.article, pred.article]), np.concatenate([gold.start, pred.start]),
                np.concatenate([gold.end, pred.end]), np.concatenate([g_lab, p_lab]))
    if ids.size:
        k = int(ids.max()) + 1
        both = np.minimum(np.bincount(ids[:len(gold)], minlength=k), np.bincount(ids[len(gold):], minlength=k))
        art_of = np.zeros(k, dtype=np.int64)
        art_of[ids] = np.concatenate([gold.article, pred.article])
        out[:, _I["exact"]] = np.bincount(art_of, weights=both, minlength=a)
    # characters: the union of each side (per label when labelled) is disjoint
    # intervals, so the sum of pairwise overlaps is the size of the intersection
    mg, mp = merge_spans(gold, labelled), merge_spans(pred, labelled)
    jp, jg = _equal_key_pairs(key(mp), key(mg))
    ov = np.maximum(0, np.minimum(mp.end[jp], mg.end[jg]) - np.maximum(mp.start[jp], mg.start[jg]))
    out[:, _I["char_tp"]] = np.bincount(mp.article[jp], weights=ov, minlength=a)
    out[:, _I["char_pred"]] = np.bincount(mp.article, weights=mp.end - mp.start, minlength=a)
    out[:, _I["char_gold"]] = np.bincount(mg.article, weights=mg.end - mg.start, minlength=a)
    tp, pc, gc = out[:, _I["char_tp"]], out[:, _I["char_pred"]], out[:, _I["char_gold"]]
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(pc + gc > 0, 2 * tp / (pc + gc), 1.0)  # both empty: 1 (SemEval-2021 Task 5)
    out[:, _I["article_char_f1"]] = f1
    return out
