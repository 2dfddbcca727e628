r"""Classification metrics as pure, vectorised functions of confusion tensors.

Every metric takes a confusion tensor ``c`` of shape ``(..., K, K)`` where

    c[..., i, j] = number of items the system predicted as class i
                   whose gold class is j

(the notation of Amemiya & Sakai, Table 1: rows are predictions, columns
are gold), and returns an array of shape ``(...)``.  One system, all systems
or all systems on 10,000 resampled splits are therefore scored by the same
call, without any Python loop over items, systems or splits.

Notation used throughout (all computed along the last two axes), for the
classes i, j, k:

* :math:`c_{ij}` = ``c[..., i, j]``; :math:`c_{kk}` the true positives of class k
* :math:`c_{i\cdot} = \sum_j c_{ij}`: the items predicted as i (``pred``)
* :math:`c_{\cdot j} = \sum_i c_{ij}`: the items whose gold class is j (``gold``)
* :math:`N = \sum_{ij} c_{ij}`
* :math:`P_k = c_{kk} / c_{k\cdot}`: the precision of class k
* :math:`R_k = c_{kk} / c_{\cdot k}`: its recall
* :math:`FPR_k = (c_{k\cdot} - c_{kk}) / (N - c_{\cdot k})`: its false positive rate

Conventions (decided once here, tested in ``tests/test_metrics_conventions.py``)
------------------------------------------------------------------------------
* **Label order.**  Class ``k`` is the k-th label of the dataset's label
  list.  Metrics that read numeric class values (MAE, linear kappa, interval
  alpha) use the positions ``0 .. K-1`` of that order, or the strictly
  increasing ``positions`` passed as a parameter; alpha^ORD and CEM^ORD use
  only the order and the gold counts.
* **Zero division in per-class ratios.**  A class never predicted has
  precision 0; a class absent from the gold has recall 0; an F-score whose
  denominator ``(1+b^2) tp + b^2 fn + fp`` is 0 (class absent from both gold
  and predictions) is 0.  This is scikit-learn's ``zero_division=0``.  The
  FPR of a class that every gold item belongs to (no negatives) is 0.
* **Macro averages** run over all K classes, present or not (as
  scikit-learn does when ``labels=`` lists every class), except MAE^M,
  which averages over the classes present in the gold (its per-class term
  is undefined otherwise).
* **Undefined scores are NaN**, never a silent number: every metric on an
  empty matrix (N = 0); kappa when its chance disagreement is 0; Krippendorff's
  alpha when the expected disagreement is 0 (all 2N values in one class).
* **AUC from hard labels.**  A hard classifier gives one ROC point
  (FPR_c, R_c) per class; the area under the polygon (0,0), (FPR_c, R_c),
  (1,1), (1,0) is ``AUC_c = (1 + R_c - FPR_c) / 2`` (Scarton et al. 2020).
* **CEM^ORD proximities** are computed from the gold distribution ``c_.j``
  of the very matrix being scored (so a half-split is scored with the
  half's own distribution), with Sakai's smoothing ``max(0.5, K_ij)``.
* **Krippendorff's alpha** treats gold and system as two coders over the
  same N items (no missing values): the coincidence matrix is ``c + c^T``.
* **Class weights** (wAUC, wF-beta) are used as given; the config loader
  requires them to be non-negative and to sum to 1.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterable, Mapping

import numpy as np

from ..settings import closest  # noqa: F401  (the metrics' messages name the closest id; M.closest)

__all__ = [
    "Metric",
    "REGISTRY",
    "METRIC_IDS",
    "get",
    "applicable_metrics",
    "why_not_applicable",
    "evaluate",
    "accuracy",
    "precision_recall",
    "fbeta_per_class",
    "macro_fbeta",
    "macro_f1_hm",
    "f1_weighted",
    "macro_recall",
    "gmr",
    "auc_per_class",
    "wauc",
    "weighted_fbeta",
    "kappa",
    "kappa_linear",
    "krippendorff_alpha",
    "mae_macro",
    "mae_micro",
    "cem_ord",
    "f_avg",
    "fnc_score",
    "mcc",
    "informedness",
    "markedness",
    "fbeta_class",
    "precision_class",
    "recall_class",
    "DEFAULT_METRIC_IDS",
    "ALIASES",
    "canonical",
]


# --------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------
def _as_confusion(c) -> np.ndarray:
    c = np.asarray(c, dtype=np.float64)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2]:
        raise ValueError(f"confusion tensor must have shape (..., K, K), got {c.shape}")
    return c


# The margins of the tensor that ``evaluate`` scores, computed once for all its metrics (each needs them: a
# third of the time of scoring 15 metrics on (200, 100, 3, 3) half-splits went to computing them again); held
# with the tensor itself, so that no other array matches, and read-only, so that no metric changes another's.
_KEPT_MARGINS: ContextVar[tuple | None] = ContextVar("metaeval_margins", default=None)


def _margins(c: np.ndarray):
    """(tp, pred, gold, N) of a confusion tensor [predicted, gold]."""
    kept = _KEPT_MARGINS.get()
    if kept is not None and kept[0] is c:
        return kept[1]
    return _margins_of(c)


def _margins_of(c: np.ndarray):
    tp = np.diagonal(c, axis1=-2, axis2=-1)
    # einsum, not .sum(axis): numpy reduces a short last axis (K = 3) of a
    # long stack of matrices several times slower
    pred = np.einsum("...ij->...i", c)
    gold = np.einsum("...ij->...j", c)
    n = np.einsum("...j->...", gold)
    return tp, pred, gold, n


def _ratio(num, den, fill=0.0):
    """num / den with ``fill`` where den == 0 (no warning)."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    out = np.full(num.shape, fill, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _positions(k: int, positions=None) -> np.ndarray:
    """Numeric values of the K ordered classes: 0 .. K-1, or ``positions``
    (K strictly increasing numbers, e.g. the values of a Likert scale)."""
    if positions is None:
        return np.arange(k, dtype=np.float64)
    pos = np.asarray(positions, dtype=np.float64)
    if pos.shape != (k,) or not np.all(np.diff(pos) > 0):
        raise ValueError(f"positions must be {k} strictly increasing numbers, got {positions!r}")
    return pos


def _abs_distance(k: int, positions=None) -> np.ndarray:
    pos = _positions(k, positions)
    return np.abs(pos[:, None] - pos[None, :])


def _check_weights(weights, k: int) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,):
        raise ValueError(f"weights must have one entry per class ({k}), got shape {w.shape}")
    if not np.isfinite(w).all():  # a NaN weight would make every weighted score NaN without a word
        raise ValueError(f"weights must be finite numbers, got {w.tolist()}")
    return w


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------
def accuracy(c) -> np.ndarray:
    r"""Accuracy: the share of items whose predicted class is the gold class.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)
        NaN where N = 0.

    Notes
    -----
    .. math:: Acc = \frac{1}{N} \sum_k c_{kk}

    Equals ``sklearn.metrics.accuracy_score`` (tested).

    References
    ----------
    Amemiya & Sakai (DEIM), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> float(accuracy(c))
    0.6
    >>> accuracy([c, c.T]).tolist()  # many matrices, one call
    [0.6, 0.6]
    """
    c = _as_confusion(c)
    tp, _, _, n = _margins(c)
    return _ratio(tp.sum(-1), n, np.nan)


def precision_recall(c):
    r"""Per-class precision and recall.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    (ndarray, ndarray), each of shape (..., K)
    P_c and R_c.

    Notes
    -----
    .. math:: P_k = \frac{c_{kk}}{c_{k\cdot}}, \qquad R_k = \frac{c_{kk}}{c_{\cdot k}}

    over the items predicted k and the gold items of class k.  A class never
    predicted has :math:`P_k = 0`; a class absent from the gold has
    :math:`R_k = 0` (scikit-learn's ``zero_division=0``).

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> p, r = precision_recall(c)
    >>> p.round(4).tolist(), r.round(4).tolist()
    ([0.6667, 0.3333, 0.75], [0.6667, 0.5, 0.6])
    """
    c = _as_confusion(c)
    tp, pred, gold, _ = _margins(c)
    return _ratio(tp, pred), _ratio(tp, gold)


def fbeta_per_class(c, beta: float = 1.0) -> np.ndarray:
    r"""Per-class F-beta.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    beta : float, default 1.0
        Weight of recall: beta > 1 favours recall.

    Returns
    -------
    ndarray, shape (..., K)

    Notes
    -----
    .. math:: F_{\beta,k} = \frac{(1 + \beta^2) P_k R_k}{\beta^2 P_k + R_k}
        = \frac{(1 + \beta^2)\, tp_k}{(1 + \beta^2)\, tp_k + \beta^2 fn_k + fp_k}

    0 when the denominator is 0 (scikit-learn's ``zero_division=0``).

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> fbeta_per_class(c).round(4).tolist()
    [0.6667, 0.4, 0.6667]
    >>> fbeta_per_class(c, beta=2.0).round(4).tolist()
    [0.6667, 0.4545, 0.625]
    """
    c = _as_confusion(c)
    tp, pred, gold, _ = _margins(c)
    b2 = float(beta) ** 2
    fp = pred - tp
    fn = gold - tp
    return _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)


def macro_fbeta(c, beta: float = 1.0) -> np.ndarray:
    r"""Macro F-beta: the mean over the K classes of the per-class F-beta.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    beta : float, default 1.0

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    .. math:: \text{macro-}F_\beta = \frac{1}{K} \sum_{k=1}^{K} F_{\beta,k}

    over all K classes, present or not (the calligraphic :math:`\mathcal{F}_1`
    of Amemiya & Sakai for :math:`\beta = 1`; scikit-learn's
    ``f1_score(average="macro", labels=all classes)``).  Registry ids
    ``macro_f1`` and ``macro_f2``.

    References
    ----------
    Amemiya & Sakai (DEIM), section 3; Scarton, Silva & Bontcheva (AACL 2020), section 2.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(macro_fbeta(c)), 4)
    0.5778
    >>> round(float(macro_fbeta(c, beta=2.0)), 4)
    0.5821
    """
    return fbeta_per_class(c, beta).mean(axis=-1)


def macro_f1_hm(c) -> np.ndarray:
    r"""F1 of the macro averages: the harmonic mean of macro-precision and macro-recall.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)
        0 when P^M = R^M = 0.

    Notes
    -----
    .. math:: \mathbb{F}_1 = \frac{2 P^M R^M}{P^M + R^M}, \qquad
        P^M = \frac{1}{K} \sum_k P_k, \quad R^M = \frac{1}{K} \sum_k R_k

    the F1 of the means of the per-class precisions and recalls (Amemiya &
    Sakai's blackboard F1).  It differs from the mean of the per-class F1
    (``macro_fbeta``).

    References
    ----------
    Opitz & Burst (2019), "Macro F1 and Macro F1"; Amemiya & Sakai (DEIM), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(macro_f1_hm(c)), 4)
    0.5861
    """
    p, r = precision_recall(c)
    pm, rm = p.mean(-1), r.mean(-1)
    return _ratio(2 * pm * rm, pm + rm)


def f1_weighted(c) -> np.ndarray:
    r"""Support-weighted F1: per-class F1 weighted by the gold share of each class.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)
        NaN where N = 0.

    Notes
    -----
    .. math:: F1_{Wtd} = \sum_k \frac{c_{\cdot k}}{N} F_{1,k}

    (scikit-learn's ``average="weighted"``).

    References
    ----------
    Kaushal, Saha & Ganguly (2021), F1_Wtd.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(f1_weighted(c)), 4)
    0.6133
    """
    c = _as_confusion(c)
    _, _, gold, n = _margins(c)
    f = fbeta_per_class(c, 1.0)
    return _ratio((gold * f).sum(-1), n, np.nan)


def macro_recall(c) -> np.ndarray:
    r"""Macro-averaged recall (balanced accuracy when every class is in the gold).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    .. math:: R^M = \frac{1}{K} \sum_k R_k

    References
    ----------
    Amemiya & Sakai (DEIM), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(macro_recall(c)), 4)
    0.5889
    """
    return precision_recall(c)[1].mean(axis=-1)


def gmr(c) -> np.ndarray:
    r"""Geometric mean of the per-class recalls.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    .. math:: GMR = \left( \prod_k R_k \right)^{1/K}

    0 as soon as one class has recall 0, so a system
    that never predicts a class scores 0 (the RumourEval 2017 accuracy winner,
    which never predicts ``deny``).

    References
    ----------
    Scarton, Silva & Bontcheva (AACL 2020), section 2.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(gmr(c)), 4)
    0.5848
    >>> float(gmr([[5, 5], [0, 0]]))  # class 1 never predicted
    0.0
    """
    r = precision_recall(c)[1]
    return np.prod(r, axis=-1) ** (1.0 / r.shape[-1])


def auc_per_class(c) -> np.ndarray:
    r"""Per-class AUC of a hard classifier (one ROC point per class).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (..., K)

    Notes
    -----
    The ROC polygon (0,0), :math:`(FPR_k, R_k)`, (1,1), (1,0) has the area

    .. math:: AUC_k = \frac{1 + R_k - FPR_k}{2}, \qquad FPR_k = \frac{fp_k}{N - c_{\cdot k}}

    (:math:`FPR_k = 0` when the class has no negatives).

    References
    ----------
    Scarton, Silva & Bontcheva (AACL 2020), section 2.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> auc_per_class(c).round(4).tolist()
    [0.7619, 0.625, 0.7]
    """
    c = _as_confusion(c)
    tp, pred, gold, n = _margins(c)
    recall = _ratio(tp, gold)
    fpr = _ratio(pred - tp, n[..., None] - gold)
    return (1.0 + recall - fpr) / 2.0


def wauc(c, weights) -> np.ndarray:
    r"""Weighted AUC: the class-weighted sum of the per-class AUCs.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    weights : array_like, shape (K,)
        Class weights, used as given (the config requires them to sum to 1).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    .. math:: \mathrm{wAUC} = \sum_k w_k \, AUC_k

    (``auc_per_class``).

    References
    ----------
    Scarton, Silva & Bontcheva (AACL 2020), section 2.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(wauc(c, [0.5, 0.3, 0.2])), 4)
    0.7085
    """
    c = _as_confusion(c)
    w = _check_weights(weights, c.shape[-1])
    return (auc_per_class(c) * w).sum(-1)


def weighted_fbeta(c, weights, beta: float = 1.0) -> np.ndarray:
    r"""Weighted F-beta: the class-weighted sum of the per-class F-beta.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    weights : array_like, shape (K,)
        Class weights, used as given.
    beta : float, default 1.0

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    .. math:: \mathrm{w}F_\beta = \sum_k w_k \, F_{\beta,k}

    (registry ids ``wf1``, ``wf2``).

    References
    ----------
    Scarton, Silva & Bontcheva (AACL 2020), section 2.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(weighted_fbeta(c, [0.5, 0.3, 0.2])), 4)
    0.5867
    """
    c = _as_confusion(c)
    w = _check_weights(weights, c.shape[-1])
    return (fbeta_per_class(c, beta) * w).sum(-1)


def _weighted_kappa(c: np.ndarray, w: np.ndarray) -> np.ndarray:
    """kappa = 1 - sum w_ij c_ij / sum w_ij e_ij, e_ij = c_i. c_.j / N."""
    _, pred, gold, n = _margins(c)
    observed = (w * c).sum((-2, -1))
    expected = _ratio(np.einsum("ij,...i,...j->...", w, pred, gold), n, np.nan)
    return 1.0 - _ratio(observed, expected, np.nan)


def kappa(c) -> np.ndarray:
    r"""Cohen's kappa: agreement beyond chance between gold and predictions.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)
        NaN when the chance disagreement is 0 (gold and predictions all of one class).

    Notes
    -----
    .. math:: \kappa = 1 - \frac{\sum_{ij} w_{ij} c_{ij}}{\sum_{ij} w_{ij} e_{ij}}
        = \frac{p_o - p_e}{1 - p_e}

    with :math:`w_{ij} = [i \neq j]`, :math:`e_{ij} = c_{i\cdot} c_{\cdot j} / N`,
    :math:`p_o = \sum_k c_{kk} / N` and :math:`p_e = \sum_k c_{k\cdot} c_{\cdot k} / N^2`.
    Equals ``sklearn.metrics.cohen_kappa_score`` (tested).

    References
    ----------
    Cohen (1960), "A coefficient of agreement for nominal scales".

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(kappa(c)), 4)
    0.3846
    """
    c = _as_confusion(c)
    k = c.shape[-1]
    return _weighted_kappa(c, 1.0 - np.eye(k))


def kappa_linear(c, positions=None) -> np.ndarray:
    r"""Linearly weighted kappa (ordered classes).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    positions : array_like of K increasing numbers, optional
        The numeric values of the ordered classes (default 0 .. K-1).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    As ``kappa`` with the weights :math:`w_{ij} = \lvert x_i - x_j \rvert` on the class positions x:

    .. math:: \kappa_{\mathrm{lin}} = 1 - \frac{\sum_{ij} \lvert x_i - x_j \rvert \, c_{ij}}
        {\sum_{ij} \lvert x_i - x_j \rvert \, e_{ij}}

    Equals ``cohen_kappa_score(weights="linear")`` (tested).

    References
    ----------
    Amemiya & Sakai (DEIM), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(kappa_linear(c)), 4)
    0.4565
    """
    c = _as_confusion(c)
    return _weighted_kappa(c, _abs_distance(c.shape[-1], positions))


def krippendorff_alpha(c, level: str = "nominal", positions=None) -> np.ndarray:
    r"""Krippendorff's alpha with gold and system as two coders.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    level : {"nominal", "ordinal", "interval"}, default "nominal"
        The level of measurement.
    positions : array_like of K increasing numbers, optional
        The numeric values of the ordered classes (default 0 .. K-1).
        Only the interval level reads them.

    Returns
    -------
    ndarray, shape (...)
        NaN when the expected disagreement is 0.

    Notes
    -----
    With the coincidences :math:`o = c + c^T`, the value counts
    :math:`n_v = c_{v\cdot} + c_{\cdot v}` and :math:`n = 2N`:

    .. math:: \alpha = 1 - (n - 1) \frac{\sum_{uv} o_{uv} d_{uv}}{\sum_{uv} n_u n_v d_{uv}}

    with the squared distance :math:`d_{uv}` of the level: nominal
    :math:`[u \neq v]`; interval :math:`(x_u - x_v)^2`; ordinal
    :math:`\big(\sum_{g=u}^{v} n_g - (n_u + n_v)/2\big)^2`, i.e.
    :math:`(m_v - m_u)^2` with the mid-rank :math:`m_g = \sum_{h \le g} n_h - n_g / 2`.
    Equals the ``krippendorff`` package (tested).

    References
    ----------
    Krippendorff (2011), "Computing Krippendorff's alpha-reliability";
    Amemiya & Sakai (DEIM), section 3 (alpha^ORD, alpha^INT).

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(krippendorff_alpha(c)), 4)
    0.4109
    >>> round(float(krippendorff_alpha(c, "ordinal")), 4)
    0.532
    >>> round(float(krippendorff_alpha(c, "interval")), 4)
    0.543
    """
    c = _as_confusion(c)
    k = c.shape[-1]
    o = c + np.swapaxes(c, -1, -2)
    nv = o.sum(axis=-1)
    n = nv.sum(axis=-1)
    if level == "nominal":
        d = np.broadcast_to(1.0 - np.eye(k), c.shape)
    elif level == "interval":
        pos = _positions(k, positions)
        d = np.broadcast_to((pos[:, None] - pos[None, :]) ** 2, c.shape)
    elif level == "ordinal":
        mid = np.cumsum(nv, axis=-1) - nv / 2.0
        d = (mid[..., :, None] - mid[..., None, :]) ** 2
    else:
        raise ValueError(f"unknown level of measurement {level!r}")
    observed = (o * d).sum((-2, -1))
    expected = np.einsum("...u,...v,...uv->...", nv, nv, d)
    return 1.0 - _ratio((n - 1.0) * observed, expected, np.nan)


def mae_macro(c, positions=None) -> np.ndarray:
    r"""Macro-averaged mean absolute error (ordered classes; lower is better).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    positions : array_like of K increasing numbers, optional
        The numeric values of the ordered classes (default 0 .. K-1).

    Returns
    -------
    ndarray, shape (...)
        NaN where N = 0.

    Notes
    -----
    .. math:: MAE^M = \frac{1}{\lvert C \rvert} \sum_{j \in C}
        \frac{\sum_i \lvert x_i - x_j \rvert \, c_{ij}}{c_{\cdot j}}

    the mean running over the classes C present in the gold.

    References
    ----------
    Baccianella, Esuli & Sebastiani (2009), "Evaluation measures for ordinal
    regression"; Amemiya & Sakai (DEIM), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(mae_macro(c)), 4)
    0.4778
    """
    c = _as_confusion(c)
    _, _, gold, _ = _margins(c)
    err = (_abs_distance(c.shape[-1], positions) * c).sum(axis=-2)  # per gold class j
    present = gold > 0
    per_class = _ratio(err, gold)
    return _ratio((per_class * present).sum(-1), present.sum(-1), np.nan)


def mae_micro(c, positions=None) -> np.ndarray:
    r"""Micro-averaged mean absolute error (ordered classes; lower is better).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    positions : array_like of K increasing numbers, optional
        The numeric values of the ordered classes (default 0 .. K-1).

    Returns
    -------
    ndarray, shape (...)
        NaN where N = 0.

    Notes
    -----
    .. math:: MAE^\mu = \frac{1}{N} \sum_{ij} \lvert x_i - x_j \rvert \, c_{ij}

    References
    ----------
    Amemiya & Sakai (DEIM), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> float(mae_micro(c))
    0.5
    """
    c = _as_confusion(c)
    _, _, _, n = _margins(c)
    return _ratio((_abs_distance(c.shape[-1], positions) * c).sum((-2, -1)), n, np.nan)


def cem_proximity(gold_counts) -> np.ndarray:
    r"""CEM^ORD proximities of every (predicted, gold) pair of classes.

    Parameters
    ----------
    gold_counts : array_like, shape (..., K)
        The gold count c_.j of each class.

    Returns
    -------
    ndarray, shape (..., K, K)
        ``prox[..., i, j]`` for prediction i and gold j.

    Notes
    -----
    .. math::

        \mathrm{prox}_{ij} = -\log_2 \frac{\max(0.5, K_{ij})}{N}

        K_{ij} = \frac{c_{\cdot i}}{2} + \begin{cases}
            \sum_{l=i+1}^{j} c_{\cdot l} & i \le j \\
            \sum_{l=j}^{i-1} c_{\cdot l} & i > j
        \end{cases}

    (Amigo et al. 2020, with Sakai's :math:`\max(0.5, \cdot)` smoothing).

    References
    ----------
    Amigo, Gonzalo, Mizzaro & Carrillo-de-Albornoz (ACL 2020), "An effectiveness
    metric for ordinal classification".

    Examples
    --------
    >>> cem_proximity([3, 2, 5]).round(3).tolist()
    [[2.737, 1.515, 0.234], [1.322, 3.322, 0.737], [0.415, 1.152, 2.0]]
    """
    g = np.asarray(gold_counts, dtype=np.float64)
    k = g.shape[-1]
    cum = np.cumsum(g, axis=-1)
    n = cum[..., -1]
    gi, gj = g[..., :, None], g[..., None, :]
    ci, cj = cum[..., :, None], cum[..., None, :]
    upper = cj - ci + gi / 2.0  # i <= j
    lower = ci - cj + gj - gi / 2.0  # i > j
    i_le_j = np.arange(k)[:, None] <= np.arange(k)[None, :]
    kij = np.where(i_le_j, upper, lower)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.log2(np.maximum(0.5, kij) / n[..., None, None])


def cem_ord(c) -> np.ndarray:
    r"""CEM^ORD, the closeness evaluation measure for ordinal classification.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)
        NaN where N = 0.

    Notes
    -----
    .. math:: CEM^{ORD} = \frac{\sum_{ij} \mathrm{prox}_{ij} \, c_{ij}}{\sum_j \mathrm{prox}_{jj} \, c_{\cdot j}}

    (``cem_proximity``), the proximities taken from the gold distribution of
    ``c`` itself: a half-split is scored with the half's own distribution.

    References
    ----------
    Amigo et al. (ACL 2020); Amemiya & Sakai (DEIM), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(cem_ord(c)), 4)
    0.7339
    """
    c = _as_confusion(c)
    _, _, gold, n = _margins(c)
    prox = cem_proximity(gold)
    with np.errstate(invalid="ignore"):  # prox is inf only when N = 0
        num = np.where(c > 0, prox * c, 0.0).sum((-2, -1))
        den = (np.diagonal(prox, axis1=-2, axis2=-1) * gold).sum(-1)
    out = _ratio(num, den, np.nan)
    return np.where(n > 0, out, np.nan)


def f_avg(c, classes) -> np.ndarray:
    r"""Mean F1 over a subset of classes (SemEval-2016 Task 6's official F_avg).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    classes : sequence of int
        The class indices averaged over (FAVOR and AGAINST in SemEval-2016).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    .. math:: F_{\mathrm{avg}} = \frac{1}{\lvert A \rvert} \sum_{k \in A} F_{1,k}

    over the classes A, e.g. :math:`(F_{1,\mathrm{FAVOR}} + F_{1,\mathrm{AGAINST}}) / 2`.

    References
    ----------
    Mohammad et al. (SemEval-2016 Task 6), "Detecting stance in tweets".

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(f_avg(c, [0, 2])), 4)
    0.6667
    """
    idx = np.asarray(classes, dtype=np.intp)
    if idx.size == 0:
        raise ValueError("f_avg needs at least one class")
    return fbeta_per_class(c, 1.0)[..., idx].mean(-1)


def fnc_score(c, unrelated: int) -> np.ndarray:
    r"""The official FNC-1 weighted score, as a fraction of the best possible score.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    unrelated : int
        Index of the ``unrelated`` class.

    Returns
    -------
    ndarray, shape (...)
        NaN where N = 0.

    Notes
    -----
    Per item (the official ``scorer.py``): +0.25 when gold and prediction are
    both ``unrelated`` or both related; +0.75 more when the gold is related and
    the prediction exactly right.  Divided by the maximum,
    0.25 #unrelated + 1.0 #related:

    .. math:: FNC = \frac{\sum_{ij} s_{ij} c_{ij}}{\sum_j s_{jj} c_{\cdot j}}

    with :math:`s_{ij}` the points of prediction i for gold j (0.25, 1 or 0).

    References
    ----------
    Fake News Challenge FNC-1, official scorer.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(fnc_score(c, unrelated=2)), 4)
    0.64
    """
    c = _as_confusion(c)
    k = c.shape[-1]
    u = int(unrelated)
    related = np.ones(k, dtype=bool)
    related[u] = False
    s = 0.25 * (related[:, None] & related[None, :]).astype(float)
    s[u, u] = 0.25
    s[np.arange(k)[related], np.arange(k)[related]] = 1.0
    _, _, gold, _ = _margins(c)
    return _ratio((s * c).sum((-2, -1)), (np.diagonal(s) * gold).sum(-1), np.nan)


def mcc(c) -> np.ndarray:
    r"""Matthews correlation coefficient; for K > 2 classes Gorodkin's R_K.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)
        In [-1, 1]; 0 when the predictions or the gold are all of one class
        (the denominator is 0: no correlation can be measured, scikit-learn's
        convention); NaN on an empty matrix.

    Notes
    -----
    .. math:: R_K = \frac{N \sum_k c_{kk} - \sum_k c_{k\cdot} c_{\cdot k}}
        {\sqrt{\big(N^2 - \sum_k c_{k\cdot}^2\big) \big(N^2 - \sum_k c_{\cdot k}^2\big)}}

    the Pearson correlation of the one-hot gold and prediction vectors; for
    K = 2 it is Matthews'
    :math:`(TP \cdot TN - FP \cdot FN) / \sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}`.
    Equals ``sklearn.metrics.matthews_corrcoef`` (tested).

    References
    ----------
    Matthews (1975), Biochimica et Biophysica Acta 405(2); Gorodkin (2004),
    "Comparing two K-category assignments by a K-category correlation
    coefficient", Computational Biology and Chemistry 28(5-6).

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(mcc(c)), 4)
    0.3908
    """
    c = _as_confusion(c)
    tp, pred, gold, n = _margins(c)
    cov = n * tp.sum(axis=-1) - np.einsum("...k,...k->...", pred, gold)
    den = np.sqrt((n * n - np.einsum("...k,...k->...", pred, pred)) * (n * n - np.einsum("...k,...k->...", gold, gold)))
    return np.where(n > 0, _ratio(cov, den), np.nan)


def _one_vs_rest(c):
    """Per-class (tp, fp, fn, tn) of a confusion tensor, each (..., K)."""
    tp, pred, gold, n = _margins(c)
    return tp, pred - tp, gold - tp, n[..., None] - pred - gold + tp


def informedness(c) -> np.ndarray:
    r"""Informedness (bookmaker informedness; Youden's J for two classes).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)
        In [-1, 1]; 0 for a constant or random predictor; NaN on an empty matrix.

    Notes
    -----
    .. math:: Inf = \frac{1}{K} \sum_k (R_k - FPR_k)

    the mean over the classes of each class's one-vs-rest informedness
    :math:`TPR_k + TNR_k - 1` (:math:`R_k = 0` for a class absent from the
    gold, :math:`FPR_k = 0` for a class every item belongs to).
    For K = 2 with both classes in the gold, both classes have the same
    value, Youden's J, which equals
    ``sklearn.metrics.balanced_accuracy_score(adjusted=True)``; for K > 2
    this macro form differs from scikit-learn's adjusted balanced accuracy
    (which rescales R^M by its chance level 1/K).  Tested against a plain
    loop and, for K = 2, against scikit-learn.

    References
    ----------
    Youden (1950), "Index for rating diagnostic tests", Cancer 3(1);
    Powers (2011), "Evaluation: from precision, recall and F-measure to ROC,
    informedness, markedness and correlation", JMLT 2(1), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(informedness(c)), 4)
    0.3913
    """
    c = _as_confusion(c)
    tp, fp, fn, tn = _one_vs_rest(c)
    j = _ratio(tp, tp + fn) - _ratio(fp, fp + tn)
    return np.where(c.sum(axis=(-2, -1)) > 0, j.mean(axis=-1), np.nan)


def markedness(c) -> np.ndarray:
    r"""Markedness: informedness with the roles of gold and predictions swapped.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.

    Returns
    -------
    ndarray, shape (...)
        In [-1, 1]; NaN on an empty matrix.

    Notes
    -----
    .. math:: Mk = \frac{1}{K} \sum_k (P_k + NPV_k - 1), \qquad NPV_k = \frac{tn_k}{tn_k + fn_k}

    with :math:`NPV_k` the one-vs-rest negative predictive value
    (:math:`P_k = 0` for a class never predicted, :math:`NPV_k = 0` for a
    class every item is predicted as).  For
    K = 2 with both classes in the gold and the predictions, both classes
    have the same value and MCC^2 = INF * MK.  Tested against a plain loop.

    References
    ----------
    Powers (2011), "Evaluation: from precision, recall and F-measure to ROC,
    informedness, markedness and correlation", JMLT 2(1), section 3.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(markedness(c)), 4)
    0.377
    """
    c = _as_confusion(c)
    tp, fp, fn, tn = _one_vs_rest(c)
    m = _ratio(tp, tp + fp) + _ratio(tn, tn + fn) - 1.0
    return np.where(c.sum(axis=(-2, -1)) > 0, m.mean(axis=-1), np.nan)


def _of_class(c, positive, per_class) -> np.ndarray:
    """``per_class(c)[..., positive]`` of confusion tensors, NaN on an empty matrix."""
    c = _as_confusion(c)
    k = c.shape[-1]
    if isinstance(positive, (bool, np.bool_)) or not isinstance(positive, (int, np.integer)) \
            or not 0 <= int(positive) < k:
        raise ValueError(f"positive must be a class index in 0..{k - 1}, got {positive!r}")
    return np.where(c.sum(axis=(-2, -1)) > 0, per_class(c)[..., int(positive)], np.nan)


def fbeta_class(c, positive, beta: float = 1.0) -> np.ndarray:
    r"""F-beta of one named class (a binary task's usual official score).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    positive : int
        The index of the class (the dataset key ``positive_class``).
    beta : float, default 1.0
        Weight of recall.

    Returns
    -------
    ndarray, shape (...)
        ``fbeta_per_class(c, beta)[..., positive]``; NaN on an empty matrix.

    Notes
    -----
    .. math:: F_\beta = \frac{(1 + \beta^2)\, tp}{(1 + \beta^2)\, tp + \beta^2 fn + fp}

    of the class, 0 when it is absent from both gold and predictions.  Equals
    ``sklearn.metrics.fbeta_score(..., pos_label=positive, average="binary")``
    for two classes and ``average=None`` at the class for more (tested).

    References
    ----------
    van Rijsbergen (1979), Information Retrieval, ch. 7; e.g. SemEval-2016
    Task 3 and SemEval-2019 Task 6A report the F1 of one class.

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(fbeta_class(c, positive=1)), 4)
    0.4
    """
    return _of_class(c, positive, partial(fbeta_per_class, beta=beta))


def precision_class(c, positive) -> np.ndarray:
    """Precision of one named class, P_c = tp_c / c_c. (0 when the class is never predicted).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    positive : int
        The index of the class (the dataset key ``positive_class``).

    Returns
    -------
    ndarray, shape (...)
        NaN on an empty matrix.  Equals ``sklearn.metrics.precision_score``
        with ``pos_label`` (tested).

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(precision_class(c, positive=2)), 4)
    0.75
    """
    return _of_class(c, positive, lambda x: precision_recall(x)[0])


def recall_class(c, positive) -> np.ndarray:
    """Recall of one named class, R_c = tp_c / c_.c (0 when the class is absent from the gold).

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    positive : int
        The index of the class (the dataset key ``positive_class``).

    Returns
    -------
    ndarray, shape (...)
        NaN on an empty matrix.  Equals ``sklearn.metrics.recall_score`` with
        ``pos_label`` (tested).

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> round(float(recall_class(c, positive=2)), 4)
    0.6
    """
    return _of_class(c, positive, lambda x: precision_recall(x)[1])



# --------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """One entry of the metric registry.

    ``params`` names the keyword arguments the metric needs from the dataset
    (``weights``: class-weight vector; ``f_avg_classes``: class indices;
    ``unrelated``, ``positive``: class index); a metric whose parameters a dataset does not
    provide is not applicable to it.  ``uses_positions``: the metric reads
    the numeric class positions (MAE, linear kappa, interval alpha) and takes
    an optional ``positions`` parameter (default 0 .. K-1).

    Examples
    --------
    >>> m = REGISTRY["kappa"]
    >>> m.name, m.direction, m.bounds
    ('kappa', 'higher', (-1.0, 1.0))
    >>> float(m([[5, 1], [1, 3]]))
    0.5833333333333333
    """

    id: str
    name: str
    latex: str
    fn: Callable[..., np.ndarray]
    higher_is_better: bool
    ordinal: bool = False
    params: tuple[str, ...] = ()
    reference: str = ""
    bounds: tuple[float, float] = (0.0, 1.0)
    uses_positions: bool = False
    # the name people also know the metric by (said beside ``name`` in sentences)
    alias: str = ""
    # among the candidates a dataset judges when its config lists no ``metrics:`` (the papers' set);
    # the others are computed when listed by id
    default: bool = True
    # where a custom metric's function comes from (``file.py:name``; ``metaeval.measures.custom``); empty for
    # the built-in ones
    source: str = ""

    def __call__(self, c, **params) -> np.ndarray:
        kwargs = {}
        for p in self.params:
            if params.get(p) is None:
                raise ValueError(f"metric {self.id!r} needs parameter {p!r} (the dataset key {_PARAM_KEY[p]!r})")
            kwargs[_PARAM_ARG[p]] = params[p]
        if self.uses_positions and params.get("positions") is not None:
            kwargs["positions"] = params["positions"]
        # float64 (..., K, K) for every function, a custom one included (a no-op on the engine's tensors)
        return self.fn(_as_confusion(c), **kwargs)

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"


# dataset-level parameter name -> keyword of the metric function
_PARAM_ARG = {"weights": "weights", "f_avg_classes": "classes", "unrelated": "unrelated", "positive": "positive"}

_SCARTON = "Scarton, Silva & Bontcheva (AACL 2020), section 2"
_AMEMIYA = "Amemiya & Sakai (DEIM), section 3"

_ENTRIES = [
    Metric("accuracy", "Acc", r"Acc", accuracy, True, reference=_AMEMIYA),
    Metric("macro_f1", "macro-F1", r"macro-$F_1$", partial(macro_fbeta, beta=1.0), True,
           reference=_AMEMIYA + " (calligraphic F1); " + _SCARTON),
    Metric("macro_f1_hm", "F1(P^M,R^M)", r"$\mathbb{F}_1$", macro_f1_hm, True,
           reference=_AMEMIYA + " (blackboard F1); Opitz & Burst 2019"),
    Metric("macro_f2", "macro-F2", r"macro-$F_2$", partial(macro_fbeta, beta=2.0), True, reference=_SCARTON),
    Metric("f1_weighted", "F1_Wtd", r"$F1_{Wtd}$", f1_weighted, True, reference="Kaushal et al. 2021"),
    Metric("macro_recall", "R^M", r"$R^M$", macro_recall, True, reference=_AMEMIYA, alias="balanced accuracy"),
    Metric("gmr", "GMR", r"GMR", gmr, True, reference=_SCARTON),
    Metric("wauc", "wAUC", r"wAUC", wauc, True, params=("weights",), reference=_SCARTON),
    Metric("wf1", "wF1", r"w$F_1$", partial(weighted_fbeta, beta=1.0), True, params=("weights",),
           reference=_SCARTON),
    Metric("wf2", "wF2", r"w$F_2$", partial(weighted_fbeta, beta=2.0), True, params=("weights",),
           reference=_SCARTON),
    Metric("kappa", "kappa", r"$\kappa$", kappa, True, reference="Cohen 1960", bounds=(-1.0, 1.0)),
    Metric("kappa_linear", "kappa_lin", r"$\kappa_{lin}$", kappa_linear, True, ordinal=True,
           reference=_AMEMIYA + " (weighted kappa, w_ij = |i-j|)", bounds=(-1.0, 1.0), uses_positions=True),
    Metric("alpha_nominal", "alpha^NOM", r"$\alpha^{NOM}$", partial(krippendorff_alpha, level="nominal"), True,
           reference="Krippendorff 2011", bounds=(-1.0, 1.0)),
    Metric("alpha_ordinal", "alpha^ORD", r"$\alpha^{ORD}$", partial(krippendorff_alpha, level="ordinal"), True,
           ordinal=True, reference=_AMEMIYA, bounds=(-1.0, 1.0)),
    Metric("alpha_interval", "alpha^INT", r"$\alpha^{INT}$", partial(krippendorff_alpha, level="interval"),
           True, ordinal=True, reference=_AMEMIYA, bounds=(-1.0, 1.0), uses_positions=True),
    Metric("mae_macro", "MAE^M", r"$MAE^M$", mae_macro, False, ordinal=True, reference=_AMEMIYA,
           bounds=(0.0, np.inf), uses_positions=True),
    Metric("mae_micro", "MAE^mu", r"$MAE^\mu$", mae_micro, False, ordinal=True, reference=_AMEMIYA,
           bounds=(0.0, np.inf), uses_positions=True),
    Metric("cem_ord", "CEM^ORD", r"$CEM^{ORD}$", cem_ord, True, ordinal=True,
           reference=_AMEMIYA + "; Amigo et al. (ACL 2020)"),
    Metric("f_avg", "F_avg", r"$F_{avg}$", f_avg, True, params=("f_avg_classes",),
           reference="Mohammad et al. (SemEval-2016 Task 6)"),
    Metric("fnc_score", "FNC score", r"FNC score", fnc_score, True, params=("unrelated",),
           reference="Fake News Challenge FNC-1 official scorer"),
    # the metrics people expect beside the papers' ones: computed when listed in ``metrics:`` (``default=False``
    # keeps the papers' candidate set, and so their reproductions and verdicts, as they were)
    Metric("mcc", "MCC", r"MCC", mcc, True, reference="Matthews 1975; Gorodkin 2004 (R_K)", bounds=(-1.0, 1.0),
           alias="R_K", default=False),
    Metric("informedness", "Informedness", r"Inf", informedness, True, reference="Youden 1950; Powers 2011",
           bounds=(-1.0, 1.0), alias="Youden's J", default=False),
    Metric("markedness", "Markedness", r"Mk", markedness, True, reference="Powers 2011", bounds=(-1.0, 1.0),
           default=False),
    Metric("f1_class", "F1(class)", r"$F_1^{c}$", partial(fbeta_class, beta=1.0), True, params=("positive",),
           reference="van Rijsbergen 1979", default=False),
    Metric("precision_class", "P(class)", r"$P^{c}$", precision_class, True, params=("positive",),
           reference="van Rijsbergen 1979", default=False),
    Metric("recall_class", "R(class)", r"$R^{c}$", recall_class, True, params=("positive",),
           reference="van Rijsbergen 1979", default=False),
]

REGISTRY: dict[str, Metric] = {m.id: m for m in _ENTRIES}
METRIC_IDS: tuple[str, ...] = tuple(REGISTRY)
# the metrics of per-item terms users register (metaeval.measures.items: not functions of confusion tensors)
ITEM_REGISTRY: dict = {}
# the candidates a dataset judges when its config lists no ``metrics:``
DEFAULT_METRIC_IDS: tuple[str, ...] = tuple(m.id for m in _ENTRIES if m.default)
# in a list of metric ids (the config's ``metrics:``, ``--metrics``), the default candidates that apply to the
# dataset: ``[default, mcc, my_metric]`` judges those beside the papers' set
DEFAULT_ENTRY = "default"

# other names people know a metric by: accepted wherever an id is (config, library, command line), and read as
# the id (its tables' columns carry the id)
ALIASES: dict[str, str] = {"balanced_accuracy": "macro_recall"}


def canonical(metric_id: str) -> str:
    """The registry id of a metric id or of another name of it.

    >>> canonical("balanced_accuracy"), canonical("macro_f1")
    ('macro_recall', 'macro_f1')
    """
    return ALIASES.get(metric_id, metric_id)


def get(metric_id: str) -> Metric:
    """The registry entry of a metric id.

    Parameters
    ----------
    metric_id : str
        A classification metric id (``METRIC_IDS``) or a span metric id
        (``spans.SPAN_METRIC_IDS``: its ``spans.SpanMetric``, with the same
        descriptive fields).

    Returns
    -------
    Metric or metaeval.measures.spans.SpanMetric

    Raises
    ------
    KeyError
        For an unknown id, listing the known ones.

    Examples
    --------
    >>> m = get("mae_macro")
    >>> m.name, m.direction, m.ordinal
    ('MAE^M', 'lower', True)
    >>> get("span_f1").name
    'span-F1'
    >>> get("balanced_accuracy").id   # another name (``ALIASES``)
    'macro_recall'
    """
    try:
        return REGISTRY[canonical(metric_id)]
    except KeyError:
        from .spans import SPAN_REGISTRY  # a module of the same floor: span metrics on span statistics

        if metric_id in SPAN_REGISTRY:
            return SPAN_REGISTRY[metric_id]
        if metric_id in ITEM_REGISTRY:
            return ITEM_REGISTRY[metric_id]
        from .scores.registry import SCORE_REGISTRY  # metrics of scores and probabilities, same floor

        if metric_id in SCORE_REGISTRY:
            return SCORE_REGISTRY[metric_id]
        known = tuple(REGISTRY) + tuple(SPAN_REGISTRY) + tuple(ITEM_REGISTRY) + tuple(SCORE_REGISTRY)
        raise KeyError(f"unknown metric {metric_id!r}{closest([metric_id], known + tuple(ALIASES))}; known: "
                       f"{', '.join(known)} (and {', '.join(f'{a} for {i}' for a, i in ALIASES.items())})") from None


def applicable_metrics(ordinal: bool, params: Mapping[str, object] | None = None,
                       only: Iterable[str] | None = None) -> list[str]:
    """The metric ids, in registry order, that apply to a dataset.

    Parameters
    ----------
    ordinal : bool
        Whether the classes are ordered (ordinal metrics need it).
    params : mapping, optional
        The dataset's metric parameters (``weights``, ``f_avg_classes``,
        ``unrelated``): a parameterised metric needs its parameter.
    only : iterable of str, optional
        Restrict to these ids; default the papers' candidates
        (``DEFAULT_METRIC_IDS``: the metrics added beside them, such as
        ``mcc``, are computed only when named).

    Returns
    -------
    list of str

    Examples
    --------
    >>> applicable_metrics(ordinal=False)
    ['accuracy', 'macro_f1', 'macro_f1_hm', 'macro_f2', 'f1_weighted', 'macro_recall', 'gmr', 'kappa', 'alpha_nominal']
    >>> applicable_metrics(ordinal=True, only=["accuracy", "cem_ord", "wauc"])
    ['accuracy', 'cem_ord']
    """
    params = params or {}
    chosen = set(DEFAULT_METRIC_IDS if only is None else map(canonical, only))
    unknown = chosen - set(REGISTRY)
    if unknown:
        raise KeyError(f"unknown metric(s) {sorted(unknown)}{closest(unknown, REGISTRY)}; known: "
                       f"{', '.join(REGISTRY)}")
    return [m.id for m in REGISTRY.values() if m.id in chosen and why_not_applicable(m.id, ordinal, params) is None]


# the dataset key that provides each parameter (for messages)
_PARAM_KEY = {"weights": "weights", "f_avg_classes": "f_avg_classes", "unrelated": "unrelated_label",
              "positive": "positive_class"}


def why_not_applicable(metric_id: str, ordinal: bool, params: Mapping[str, object] | None = None) -> str | None:
    """Why a metric cannot be computed on a dataset (None when it can).

    Parameters
    ----------
    metric_id : str
    ordinal : bool
    params : mapping, optional
        As ``applicable_metrics``.

    Returns
    -------
    str or None

    Examples
    --------
    >>> why_not_applicable("cem_ord", ordinal=False)
    'needs ordered classes (the dataset has ordinal: false)'
    >>> why_not_applicable("wauc", ordinal=False)
    "needs the dataset key 'weights'"
    >>> why_not_applicable("accuracy", ordinal=False) is None
    True
    """
    m = get(metric_id)
    params = params or {}
    if m.ordinal and not ordinal:
        return "needs ordered classes (the dataset has ordinal: false)"
    missing = [p for p in m.params if params.get(p) is None]
    if missing:
        return "needs " + " and ".join(f"the dataset key {_PARAM_KEY[p]!r}" for p in missing)
    return None


def evaluate(c, metric_ids: Iterable[str], **params) -> dict[str, np.ndarray]:
    """Score confusion tensors with several metrics at once.

    Parameters
    ----------
    c : array_like, shape (..., K, K)
        Confusion tensor(s), ``c[..., i, j]`` = items predicted i whose gold class is j.
    metric_ids : iterable of str
        Registry ids (``METRIC_IDS``).
    **params
        The dataset-level parameters the metrics need: ``weights``,
        ``f_avg_classes``, ``unrelated``, ``positive``, ``positions``.

    Returns
    -------
    dict of str to ndarray
        ``{metric_id: scores of shape (...)}``.

    Raises
    ------
    ValueError
        For a span metric id (span metrics score span statistics:
        ``metaeval.measures.spans.evaluate_spans``).

    Examples
    --------
    >>> from metaeval.engine.confusion import confusion_tensor
    >>> gold = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    >>> pred = [0, 0, 1, 1, 2, 2, 2, 2, 0, 1]
    >>> c = confusion_tensor(gold, pred, 3)  # c[i, j]: predicted i, gold j
    >>> s = evaluate([c, c.T], ["accuracy", "kappa", "wauc"], weights=[0.5, 0.3, 0.2])
    >>> {k: v.round(4).tolist() for k, v in s.items()}
    {'accuracy': [0.6, 0.6], 'kappa': [0.3846, 0.3846], 'wauc': [0.7085, 0.7012]}
    """
    metric_ids = list(metric_ids)
    spans = [m for m in metric_ids if m not in REGISTRY and isinstance(get(m), Metric) is False]
    if spans:
        raise ValueError(f"{spans} are span metrics: they score span statistics "
                         f"(metaeval.measures.spans.evaluate_spans), not confusion tensors")
    c = _as_confusion(c)
    margins = _margins_of(c)
    for a in margins:
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    kept = _KEPT_MARGINS.set((c, margins))
    try:
        with np.errstate(invalid="ignore", divide="ignore"):
            return {mid: REGISTRY[mid](c, **params) for mid in metric_ids}
    finally:
        _KEPT_MARGINS.reset(kept)
