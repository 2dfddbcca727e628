r"""Metrics of class probabilities (K >= 2 classes) on thousands of
resamples at once, built on the binary ones (``scores.binary``): a system's
output is ``P`` (S, N, C), with C = 1 (the positive class's score or
probability of a binary task) or C = K (one probability per class, in the
dataset's label order); a resample is a weight vector (..., N).

Conventions (each checked against scikit-learn in
``tests/test_score_metrics.py``):

* **One-vs-rest ROC-AUC**: the AUC of class k's column against "gold is k",
  averaged over the classes, unweighted (``roc_auc``, scikit-learn's
  ``multi_class="ovr", average="macro"``) or weighted by each class's
  (resampled) prevalence (``roc_auc_weighted``, ``average="weighted"``).
  NaN when a resample lacks a class.  With C = 1 both are the binary AUC.
* **Hand & Till's M** (2001): the mean over the K(K-1)/2 pairs of classes
  of :math:`(A(i|j) + A(j|i)) / 2`, :math:`A(i|j)` the AUC of column i on
  the items of classes i and j, i positive (scikit-learn's
  ``multi_class="ovo"``).  With C = 1 it is the binary AUC.
* **Average precision**: binary, or the unweighted mean of each class's
  one-vs-rest AP (scikit-learn's ``average_precision_score`` of the
  binarised gold, ``average="macro"``).
* **Brier score**: binary :math:`(p - y)^2` of the positive class, range
  [0, 1]; multi-class :math:`\sum_k (p_k - y_k)^2` (Brier 1950), range
  [0, 2]: scikit-learn's ``brier_score_loss`` (not halved).
* **Log loss**: :math:`-\log p_{y}` with p clipped to
  :math:`[\epsilon, 1 - \epsilon]`, :math:`\epsilon` the float64 machine
  epsilon; no renormalisation after clipping (scikit-learn's ``log_loss``).
* **ECE**: binary, of the positive class's probability (``scores.binary``);
  multi-class, top-label (Guo et al. 2017): the confidence
  :math:`\max_k p_k`, correct when the argmax (first on ties) is the gold,
  in ``bins`` equal-width bins of [0, 1].

The probabilistic metrics are sums of per-item terms (``item_terms``,
``combine_items``), so a resample's value is its weights times the terms.
"""

from __future__ import annotations

import numpy as np

import metaeval.measures.scores.binary as B

__all__ = ["roc_auc", "roc_auc_weighted", "hand_till_m", "average_precision", "item_terms", "combine_items",
           "n_item_terms", "brier", "log_loss", "ece"]

BINS = 10  # ECE's equal-width bins


def _as3(values) -> np.ndarray:
    p = np.asarray(values, dtype=np.float64)
    if p.ndim == 1:
        p = p[None, :, None]
    elif p.ndim == 2:
        p = p[:, :, None]
    if p.ndim != 3:
        raise ValueError(f"values (S, N, C), (S, N) or (N,): got shape {np.shape(values)}")
    return p


def _weights(w, n: int) -> np.ndarray:
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    if w.shape[-1] != n:
        raise ValueError(f"weights (..., N) with N = {n}: got {w.shape}")
    return w


def _binary_auc(rows: bool):
    """The binary ROC-AUC: of systems on weight rows (``binary.roc_auc``),
    or of rows with their own order (``binary.ranked_rows``)."""
    if rows:
        return lambda s, pos, w: B.ranked_rows(s, pos, w)[:, 0]
    return B.roc_auc


def per_class(values, y, weights=None, *, rows: bool) -> np.ndarray:
    """(..., S, C, 2): the binary ROC-AUC and AP of each class's column
    against "gold is that class" (C = 1: of the positive class, y in
    {0, 1}), both from one sort and one pass (``rows``: (R, C, 2))."""
    p, y = _as3(values), np.asarray(y)
    cols = [(p[:, :, 0], y == 1)] if p.shape[2] == 1 else [(p[:, :, k], y == k) for k in range(p.shape[2])]
    if rows:
        return np.stack([B.ranked_rows(v, pos, weights) for v, pos in cols], axis=-2)
    return np.stack([B._ranked(v, pos, weights) for v, pos in cols], axis=-2)


def _ovr(values, y, weights, which: int, rows: bool):
    return per_class(values, y, weights, rows=rows)[..., which]


def from_per_class(metric: str, pc, y, weights=None, *, rows: bool) -> np.ndarray:
    """``roc_auc``, ``roc_auc_weighted`` or ``average_precision`` of the
    per-class values ``pc`` of ``per_class``."""
    with np.errstate(invalid="ignore"):
        if metric == "average_precision":
            return pc[..., 1].mean(-1)
        if metric == "roc_auc" or pc.shape[-2] == 1:
            return pc[..., 0].mean(-1)
    share = _prevalence(y, pc.shape[-2], weights, np.shape(y)[-1])
    return (pc[..., 0] * (share if rows else share[..., None, :])).sum(-1)


def roc_auc(values, y, weights=None, *, rows: bool = False) -> np.ndarray:
    """ROC-AUC, binary or one-vs-rest macro-averaged: (..., S).

    ``rows``: ``values`` (R, N, C), ``y`` and ``weights`` (R, N) give one
    value per row, each row its own system, gold and weights (``(R,)``).

    Examples
    --------
    >>> P = [[[.7, .2, .1], [.2, .5, .3], [.1, .2, .7], [.3, .4, .3], [.5, .1, .4]]]
    >>> roc_auc(P, [0, 1, 2, 0, 2])
    array([0.94444444])
    """
    with np.errstate(invalid="ignore"):
        return _ovr(values, y, weights, 0, rows).mean(-1)


def _prevalence(y, k: int, weights, n: int) -> np.ndarray:
    """(..., K): each class's share of the (weighted) items (y (N,) or per row (R, N))."""
    w = _weights(weights, n)
    onehot = (np.asarray(y)[..., None] == np.arange(k)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if onehot.ndim == 3:  # a gold per row
            return np.einsum("rn,rnk->rk", np.broadcast_to(w, onehot.shape[:2]), onehot) / \
                np.broadcast_to(w, onehot.shape[:2]).sum(-1)[:, None]
        return (w @ onehot) / w.sum(-1)[..., None]


def roc_auc_weighted(values, y, weights=None, *, rows: bool = False) -> np.ndarray:
    """ROC-AUC, binary or one-vs-rest weighted by class prevalence: (..., S).

    Examples
    --------
    >>> P = [[[.7, .2, .1], [.2, .5, .3], [.1, .2, .7], [.3, .4, .3], [.5, .1, .4]]]
    >>> roc_auc_weighted(P, [0, 1, 2, 0, 2])
    array([0.93333333])
    """
    p = _as3(values)
    per = _ovr(p, y, weights, 0, rows)
    if p.shape[2] == 1:
        return per[..., 0]
    share = _prevalence(y, p.shape[2], weights, p.shape[1])
    share = share if rows else share[..., None, :]  # (R, K) or (..., 1, K)
    return (per * share).sum(-1)


def hand_till_m(values, y, weights=None, *, rows: bool = False) -> np.ndarray:
    """Hand & Till's M (multi-class AUC over pairs of classes): (..., S).

    Examples
    --------
    >>> P = [[[.7, .2, .1], [.2, .5, .3], [.1, .2, .7], [.3, .4, .3], [.5, .1, .4]]]
    >>> hand_till_m(P, [0, 1, 2, 0, 2])
    array([0.95833333])
    """
    p, y, fn = _as3(values), np.asarray(y), _binary_auc(rows)
    if p.shape[2] == 1:
        return fn(p[:, :, 0], y == 1, weights)
    k, n = p.shape[2], p.shape[1]
    w = _weights(weights, n)
    if rows or y.ndim > 1:  # rows of their own: K(K-1) passes, each on every row at once
        total = 0.0
        for i in range(k):
            for j in range(k):
                if i != j:
                    total = total + fn(p[:, :, i], y == i, w * np.isin(y, (i, j)))
        return total / (k * (k - 1))
    return _pairwise(p, y, w).sum(axis=(-2, -1)) / (k * (k - 1))


def _pairwise(p, y, w) -> np.ndarray:
    """(..., S, K, K): A(i|j) of every system on every weight row, the
    diagonal 0: one sort and one compiled pass per system and class
    (``engine.kernels.pairwise_auc``).  A class column that is one score on
    every item (the degenerate systems of gameability: a one-hot label, the
    prior) ties every item: A(i|j) is 1/2 wherever classes i and j both
    have weight, which the pass would find (num = w_j (0 + w_i / 2) over
    w_i w_j: exactly 1/2), without walking the items."""
    from ...engine.kernels import pairwise_auc

    s_, n, k = p.shape
    lead = w.shape[:-1]
    rows = np.ascontiguousarray(w.reshape(-1, n), dtype=np.float64)
    out = np.zeros((rows.shape[0], s_, k, k))
    res = np.empty((rows.shape[0], k))
    y = np.asarray(y, dtype=np.int64)
    present = None
    for s in range(s_):  # loops over the systems and classes (few), never over items or resamples
        for i in range(k):
            col = p[s, :, i]
            order = np.argsort(-col, kind="stable")
            sv = col[order]
            starts = np.r_[np.flatnonzero(np.r_[True, sv[1:] != sv[:-1]]), sv.size].astype(np.int64)
            if starts.size == 2:  # a constant column
                if present is None:  # (R, K): the rows that weigh each class (weights are never negative)
                    present = (rows @ (y[:, None] == np.arange(k)[None, :])) > 0
                res[:] = np.where(present[:, [i]] & present, 0.5, np.nan)
            else:
                pairwise_auc(rows, order.astype(np.int64), y[order], starts, i, k, res)
            res[:, i] = 0.0
            out[:, s, i] = res
    return out.reshape(*lead, s_, k, k)


def average_precision(values, y, weights=None, *, rows: bool = False) -> np.ndarray:
    """Average precision, binary or one-vs-rest macro-averaged: (..., S).

    Examples
    --------
    >>> P = [[[.7, .2, .1], [.2, .5, .3], [.1, .2, .7], [.3, .4, .3], [.5, .1, .4]]]
    >>> average_precision(P, [0, 1, 2, 0, 2])
    array([0.94444444])
    """
    with np.errstate(invalid="ignore"):
        return _ovr(values, y, weights, 1, rows).mean(-1)


# -- the probabilistic metrics: sums of per-item terms ---------------------------------------------------------
def n_item_terms(metric: str, bins: int = BINS) -> int:
    """The number of terms per item of a probabilistic metric.

    >>> n_item_terms("brier"), n_item_terms("ece")
    (2, 11)
    """
    return {"brier": 2, "log_loss": 2, "ece": bins + 1}[metric]


def item_terms(metric: str, values, y, bins: int = BINS) -> np.ndarray:
    """(N, S, F): each item's terms of ``metric`` (brier, log_loss, ece); the
    last term is 1 (the item's count).

    >>> item_terms("brier", [[0.9, 0.2]], [1, 0]).tolist()  # per item: (p - y)^2 and 1
    [[[0.009999999999999995, 1.0]], [[0.04000000000000001, 1.0]]]
    """
    p, y = _as3(values), np.asarray(y)
    s, n, c = p.shape
    if c == 1:  # binary: the positive class's probability
        q, yy = p[:, :, 0], (y == 1).astype(np.float64)[None, :]
        if metric == "brier":
            t = (q - yy) ** 2
        elif metric == "log_loss":
            eps = np.finfo(np.float64).eps
            q = np.clip(q, eps, 1 - eps)
            t = -(yy * np.log(q) + (1 - yy) * np.log(1 - q))
        else:
            conf, gap = q, yy - q
    else:
        onehot = (y[:, None] == np.arange(c)).astype(np.float64)[None]  # (1, N, K)
        if metric == "brier":
            t = ((p - onehot) ** 2).sum(-1)
        elif metric == "log_loss":
            eps = np.finfo(np.float64).eps
            t = -np.log(np.clip(p[:, np.arange(n), y], eps, 1 - eps))
        else:  # top-label
            conf = p.max(-1)
            gap = (p.argmax(-1) == y[None, :]).astype(np.float64) - conf
    if metric == "ece":
        if int(bins) < 1:
            raise ValueError("bins: 1 or more")
        b = np.minimum((conf * bins).astype(np.int64), bins - 1)  # a confidence of exactly 1 in the last bin
        out = np.zeros((n, s, bins + 1))
        np.put_along_axis(out[:, :, :bins], b.T[:, :, None], gap.T[:, :, None], axis=-1)
        out[:, :, bins] = 1.0
        return out
    if metric not in ("brier", "log_loss"):
        raise ValueError(f"not a metric of per-item terms: {metric!r}")
    return np.stack([t.T, np.ones((n, s))], axis=-1)


def combine_items(metric: str, sums) -> np.ndarray:
    """The metric of summed terms (..., S, F).

    >>> combine_items("brier", item_terms("brier", [[0.9, 0.2]], [1, 0]).sum(axis=0))
    array([0.025])
    """
    t = np.asarray(sums, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if metric == "ece":
            return np.abs(t[..., :-1]).sum(-1) / t[..., -1]
        return t[..., 0] / t[..., -1]


def _weighted(metric, values, y, weights, bins=BINS):
    t = item_terms(metric, values, y, bins)  # (N, S, F)
    w = _weights(weights, t.shape[0])
    return combine_items(metric, np.einsum("...n,nsf->...sf", w, t))


def brier(values, y, weights=None) -> np.ndarray:
    """Brier score, binary (positive class) or multi-class (sum over classes): (..., S).

    Examples
    --------
    >>> brier([[[.7, .2, .1], [.2, .5, .3]]], [0, 1])  # (.09 + .04 + .01 + .04 + .25 + .09) / 2
    array([0.26])
    """
    return _weighted("brier", values, y, weights)


def log_loss(values, y, weights=None) -> np.ndarray:
    """Log loss, clipped at the float64 epsilon: (..., S).

    Examples
    --------
    >>> np.round(log_loss([[[.5, .25, .25], [.25, .5, .25]]], [0, 1]), 6)
    array([0.693147])
    """
    return _weighted("log_loss", values, y, weights)


def ece(values, y, weights=None, bins: int = BINS) -> np.ndarray:
    """Expected calibration error (binary: positive class; multi-class:
    top-label), ``bins`` equal-width bins: (..., S).

    Examples
    --------
    >>> ece([[[.7, .2, .1], [.6, .1, .3]]], [0, 2], bins=2)  # one bin: |(1 - .7) + (0 - .6)| / 2
    array([0.15])
    """
    return _weighted("ece", values, y, weights, bins)
