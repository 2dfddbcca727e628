r"""Metrics of scores and probabilities (binary tasks): threshold-free and
probabilistic, on thousands of resamples at once.

A system gives each item a real score ``s_i`` (higher: more likely
positive; for the probabilistic metrics a probability of the positive
class); the gold is ``y_i`` in {0, 1}.  A resample of the items is a weight
vector ``w`` (bootstrap counts, a half-split's 0/1 mask, item weights): every
function takes ``weights`` of shape ``(..., N)`` and returns ``(..., S)``,
the same call for one system or all of them, on the full data or on 10,000
resamples.  Rank-based metrics sort each system's scores once; a resample
then only sums its weights over the groups of tied scores in one compiled
pass (``engine.kernels.ranked_weights``): no Python loop over resamples or
items.

Conventions, decided once (each checked against scikit-learn with
``sample_weight`` in ``tests/test_score_metrics.py``):

* **ROC-AUC** (Hanley & McNeil 1982): the probability that a positive item
  scores above a negative one, ties counted one half,
  :math:`\mathrm{AUC} = \sum_g P_g (C_g + N_g / 2) / (P N)` over the groups
  g of tied scores in increasing order (:math:`P_g`, :math:`N_g`: the
  positive and negative weight of the group, :math:`C_g`: the negative
  weight below it); NaN when the resample holds no positive or no negative
  item (``sklearn.metrics.roc_auc_score`` raises there).
* **Average precision** (scikit-learn's, not the interpolated one):
  :math:`\mathrm{AP} = \sum_k (R_k - R_{k-1}) P_k` over the distinct scores
  in decreasing order, :math:`P_k` and :math:`R_k` the precision and recall
  of predicting positive every item scored at least the k-th score; NaN
  without a positive item.
* **Brier score** (Brier 1950): :math:`\sum_i w_i (p_i - y_i)^2 / \sum_i w_i`
  (lower is better).
* **Log loss**: :math:`-\sum_i w_i [y_i \log p_i + (1 - y_i) \log(1 - p_i)]
  / \sum_i w_i` with p clipped to :math:`[\epsilon, 1 - \epsilon]`,
  :math:`\epsilon` the float64 machine epsilon (scikit-learn's ``"auto"``).
* **Expected calibration error** (Naeini, Cooper & Hauskrecht 2015; Guo et
  al. 2017), binary form on the positive class's probability: ``bins``
  equal-width bins of [0, 1] (a probability of exactly 1 in the last bin),
  :math:`\mathrm{ECE} = \sum_b |\sum_{i \in b} w_i (y_i - p_i)| / \sum_i w_i`.
"""

from __future__ import annotations

import hashlib
import threading

import numpy as np

__all__ = ["roc_auc", "average_precision", "brier", "log_loss", "ece", "ranked_rows"]


def _check(scores, y, weights):
    s = np.asarray(scores, dtype=float)
    s = s[None, :] if s.ndim == 1 else s
    y = np.asarray(y)
    w = np.ones(s.shape[1]) if weights is None else np.asarray(weights, dtype=float)
    if s.ndim != 2 or y.shape[-1:] != (s.shape[1],) or (y.ndim > 1 and y.shape != w.shape):
        raise ValueError(f"scores (S, N) or (N,) and gold (N,) or one per weight row: got {s.shape}, {y.shape} "
                         f"and weights {w.shape}")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("gold: 0 or 1 per item (1: the positive class)")
    if not np.isfinite(s).all():
        raise ValueError("scores: every score finite")
    if w.shape[-1] != s.shape[1]:
        raise ValueError(f"weights (..., N) with N = {s.shape[1]}: got {w.shape}")
    return s, y.astype(float), w


# the sorts kept: {(shape, SHA-256 of the scores' bytes): rankings}, the newest last, within _KEPT_BYTES
_RANKINGS: dict = {}
_RANKINGS_LOCK = threading.Lock()
_KEPT_BYTES = 256 * 2**20


def _rankings(s: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Each system's items by decreasing score (stable) and the first
    position of each group of tied scores (and N), of the (S, N) float64
    scores ``s``.  Kept for the last score arrays (up to 256 MB of orders),
    keyed by the SHA-256 of their bytes (so a hit is the same scores): the
    criteria and the experiments score the same systems on thousands of
    weight rows, chunk after chunk, and each sort cost as much as a
    chunk's compiled pass (semeval2016t3_c)."""
    s = np.ascontiguousarray(s, dtype=np.float64)
    key = (s.shape, hashlib.sha256(s.data).digest())
    with _RANKINGS_LOCK:
        hit = _RANKINGS.pop(key, None)
        if hit is not None:
            _RANKINGS[key] = hit  # the newest again
            return hit
    out = []
    for row in s:
        order = np.argsort(-row, kind="stable")
        sv = row[order]
        starts = np.r_[np.flatnonzero(np.r_[True, sv[1:] != sv[:-1]]), sv.size].astype(np.int64)
        order = order.astype(np.int64)
        order.flags.writeable = starts.flags.writeable = False  # shared by every later call
        out.append((order, starts))
    out = tuple(out)
    with _RANKINGS_LOCK:
        _RANKINGS[key] = out
        size = lambda v: sum(o.nbytes + st.nbytes for o, st in v)  # noqa: E731
        while len(_RANKINGS) > 1 and sum(size(v) for v in _RANKINGS.values()) > _KEPT_BYTES:
            del _RANKINGS[next(iter(_RANKINGS))]  # the oldest
    return out


def _ranked(scores, y, weights) -> np.ndarray:
    """ROC-AUC and average precision of every system on every weight row:
    (..., S, 2).  Each system's items sorted once (decreasing score, stable),
    then one compiled pass per row (``engine.kernels.ranked_weights``; the
    gold once, or one per weight row)."""
    from ...engine.kernels import ranked_weights

    s, y, w = _check(scores, y, weights)
    lead = w.shape[:-1]
    rows = w.reshape(-1, w.shape[-1])
    # by item (N, B): the kernel reads an item's weight in every row at once; made once for all the systems
    cols = np.ascontiguousarray(rows.T, dtype=np.float64)
    golds = np.ascontiguousarray((y == 1).reshape(-1, y.shape[-1]).T)  # (N, 1), or one gold per weight row
    out = np.empty((rows.shape[0], s.shape[0], 2))
    rankings = _rankings(s)
    for k, (order, starts) in enumerate(rankings):  # a loop over the systems (few), never over items or resamples
        res = np.empty((rows.shape[0], 2))
        if starts.size == 2 and y.ndim == 1:  # a constant: one tie, AUC 1/2 and AP the positive share
            tp, fp = rows @ (y == 1), rows @ (y != 1)
            with np.errstate(invalid="ignore", divide="ignore"):
                res[:, 0] = np.where((tp > 0) & (fp > 0), 0.5, np.nan)
                res[:, 1] = np.where(tp > 0, tp / (tp + fp), np.nan)
        else:
            ranked_weights(cols, order, golds, starts, res)
        out[:, k] = res
    return out.reshape(*lead, s.shape[0], 2)


def ranked_rows(scores, positive, weights=None) -> np.ndarray:
    """ROC-AUC and average precision (R, 2) of rows that each have their own
    scores, gold and weights, (R, N) each (``positive`` may be (N,) for all
    rows): the systems of permuted trials, golds with label noise.  One
    compiled pass per row, which sorts it (``engine.kernels.ranked_rows``,
    rows on the threads).

    Examples
    --------
    >>> ranked_rows([[0.9, 0.8, 0.3, 0.3], [0.1, 0.8, 0.3, 0.3]], [[1, 0, 1, 0], [1, 0, 1, 0]]).tolist()
    [[0.625, 0.75], [0.125, 0.41666666666666663]]
    """
    from ...engine.kernels import ranked_rows as kernel

    s = np.ascontiguousarray(np.atleast_2d(np.asarray(scores, dtype=np.float64)))
    pos = np.ascontiguousarray(np.broadcast_to(np.asarray(positive).astype(bool), s.shape))
    w = np.ones(s.shape) if weights is None else np.ascontiguousarray(
        np.broadcast_to(np.asarray(weights, dtype=np.float64), s.shape))
    out = np.empty((s.shape[0], 2))
    kernel(s, pos, w, out)  # each row sorted in the compiled pass, rows on the threads
    return out


def roc_auc(scores, y, weights=None) -> np.ndarray:
    """ROC-AUC of each system's scores, ties counted one half.

    Parameters
    ----------
    scores : array of shape (S, N) or (N,)
        Each system's score per item (higher: more likely positive).
    y : array of shape (N,)
        The gold, 1 for the positive class, 0 for the other.
    weights : array of shape (..., N), optional
        Item weights, e.g. bootstrap counts of B resamples ``(B, N)``.

    Returns
    -------
    array of shape (..., S)
        NaN where the weights hold no positive or no negative item.

    Examples
    --------
    >>> roc_auc([0.9, 0.8, 0.3, 0.3], [1, 0, 1, 0])
    array([0.625])
    """
    return _ranked(scores, y, weights)[..., 0]


def average_precision(scores, y, weights=None) -> np.ndarray:
    """Average precision (scikit-learn's step-wise sum over the distinct
    scores), per system; NaN without a positive item.

    Examples
    --------
    >>> average_precision([0.9, 0.8, 0.3, 0.3], [1, 0, 1, 0])
    array([0.75])
    """
    return _ranked(scores, y, weights)[..., 1]


def _mean(values, w) -> np.ndarray:
    """The weighted mean over the items of each system's values: (..., S)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.einsum("...n,sn->...s", w, values) / w.sum(-1)[..., None]


def _probabilities(scores, y, weights):
    s, y, w = _check(scores, y, weights)
    if ((s < 0) | (s > 1)).any():
        raise ValueError("probabilities in [0, 1]")
    return s, y, w


def brier(scores, y, weights=None) -> np.ndarray:
    """Brier score of each system's probabilities of the positive class
    (lower is better).

    Examples
    --------
    >>> brier([0.9, 0.2], [1, 0])
    array([0.025])
    """
    p, y, w = _probabilities(scores, y, weights)
    return _mean((p - y) ** 2, w)


def log_loss(scores, y, weights=None) -> np.ndarray:
    """Log loss (cross-entropy) of each system's probabilities, clipped to
    [eps, 1 - eps] with eps the float64 machine epsilon (lower is better).

    Examples
    --------
    >>> np.round(log_loss([0.9, 0.2], [1, 0]), 6)
    array([0.164252])
    """
    p, y, w = _probabilities(scores, y, weights)
    eps = np.finfo(float).eps
    p = np.clip(p, eps, 1 - eps)
    return _mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)), w)


def ece(scores, y, weights=None, bins: int = 10) -> np.ndarray:
    """Expected calibration error with ``bins`` equal-width bins of the
    positive class's probability (lower is better).

    Examples
    --------
    >>> ece([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 1], bins=2)  # |0.3| + |0.7| over 4 items
    array([0.25])
    """
    p, y, w = _probabilities(scores, y, weights)
    if int(bins) < 1:
        raise ValueError("bins: 1 or more")
    b = np.minimum((p * bins).astype(int), bins - 1)  # (S, N): each item's bin; p = 1 in the last
    onehot = (b[..., None] == np.arange(bins)).astype(float)  # (S, N, bins)
    gap = np.einsum("...n,snb->...sb", w, onehot * (y - p)[..., None])  # per bin: sum of w (y - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(gap).sum(-1) / w.sum(-1)[..., None]
