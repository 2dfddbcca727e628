"""Classification metrics as pure, vectorised functions of confusion tensors.

Every metric takes a confusion tensor ``c`` of shape ``(..., K, K)`` where

    c[..., i, j] = number of items the system predicted as class i
                   whose gold class is j

(the notation of Amemiya & Sakai, Table 1: rows are predictions, columns
are gold), and returns an array of shape ``(...)``.  One system, all systems
or all systems on 10,000 resampled splits are therefore scored by the same
call, without any Python loop over items, systems or splits.

Notation used throughout (all computed along the last two axes):

    tp_c    = c[c, c]               true positives of class c
    c_i.    = sum_j c[i, j]         items predicted as i        (``pred``)
    c_.j    = sum_i c[i, j]         items whose gold class is j (``gold``)
    N       = sum_ij c[i, j]
    P_c     = tp_c / c_c.           precision
    R_c     = tp_c / c_.c           recall
    FPR_c   = (c_c. - tp_c) / (N - c_.c)

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

from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterable, Mapping

import numpy as np

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
]


# --------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------
def _as_confusion(c) -> np.ndarray:
    c = np.asarray(c, dtype=np.float64)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2]:
        raise ValueError(f"confusion tensor must have shape (..., K, K), got {c.shape}")
    return c


def _margins(c: np.ndarray):
    """(tp, pred, gold, N) of a confusion tensor [predicted, gold]."""
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
    return w


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------
def accuracy(c) -> np.ndarray:
    """Accuracy = sum_j c_jj / N.  NaN when N = 0."""
    c = _as_confusion(c)
    tp, _, _, n = _margins(c)
    return _ratio(tp.sum(-1), n, np.nan)


def precision_recall(c):
    """Per-class precision P_c = tp_c / c_c. and recall R_c = tp_c / c_.c.

    Returns two arrays of shape (..., K).  A class never predicted has
    P_c = 0; a class absent from the gold has R_c = 0.
    """
    c = _as_confusion(c)
    tp, pred, gold, _ = _margins(c)
    return _ratio(tp, pred), _ratio(tp, gold)


def fbeta_per_class(c, beta: float = 1.0) -> np.ndarray:
    """Per-class F-beta, shape (..., K).

    F_b,c = (1 + b^2) P_c R_c / (b^2 P_c + R_c)
          = (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp),
    0 when the denominator is 0 (scikit-learn's ``zero_division=0``).
    """
    c = _as_confusion(c)
    tp, pred, gold, _ = _margins(c)
    b2 = float(beta) ** 2
    fp = pred - tp
    fn = gold - tp
    return _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)


def macro_fbeta(c, beta: float = 1.0) -> np.ndarray:
    """Macro F-beta = mean over the K classes of F_b,c (calligraphic F1 for b=1)."""
    return fbeta_per_class(c, beta).mean(axis=-1)


def macro_f1_hm(c) -> np.ndarray:
    """Blackboard F1 = f1(P^M, R^M), the harmonic mean of macro-precision and
    macro-recall (Opitz & Burst 2019; Amemiya & Sakai's second macro-F1).
    0 when P^M = R^M = 0."""
    p, r = precision_recall(c)
    pm, rm = p.mean(-1), r.mean(-1)
    return _ratio(2 * pm * rm, pm + rm)


def f1_weighted(c) -> np.ndarray:
    """Support-weighted F1 = sum_c (c_.c / N) F1_c (Kaushal et al.'s F1_Wtd,
    scikit-learn's ``average='weighted'``).  NaN when N = 0."""
    c = _as_confusion(c)
    _, _, gold, n = _margins(c)
    f = fbeta_per_class(c, 1.0)
    return _ratio((gold * f).sum(-1), n, np.nan)


def macro_recall(c) -> np.ndarray:
    """Macro-averaged recall R^M = mean_c R_c (balanced accuracy when every
    class occurs in the gold)."""
    return precision_recall(c)[1].mean(axis=-1)


def gmr(c) -> np.ndarray:
    """Geometric mean of the per-class recalls, GMR = (prod_c R_c)^(1/K)
    (Scarton et al. 2020).  0 as soon as one class has recall 0."""
    r = precision_recall(c)[1]
    return np.prod(r, axis=-1) ** (1.0 / r.shape[-1])


def auc_per_class(c) -> np.ndarray:
    """Per-class AUC of a hard classifier, AUC_c = (1 + R_c - FPR_c) / 2,
    with FPR_c = fp_c / (N - c_.c) (0 when the class has no negatives)."""
    c = _as_confusion(c)
    tp, pred, gold, n = _margins(c)
    recall = _ratio(tp, gold)
    fpr = _ratio(pred - tp, n[..., None] - gold)
    return (1.0 + recall - fpr) / 2.0


def wauc(c, weights) -> np.ndarray:
    """Weighted AUC = sum_c w_c AUC_c (Scarton et al. 2020)."""
    c = _as_confusion(c)
    w = _check_weights(weights, c.shape[-1])
    return (auc_per_class(c) * w).sum(-1)


def weighted_fbeta(c, weights, beta: float = 1.0) -> np.ndarray:
    """Weighted F-beta = sum_c w_c F_b,c (Scarton et al. 2020: wF1, wF2)."""
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
    """Cohen's kappa (unweighted: w_ij = 1 - [i = j]).  NaN when the chance
    disagreement is 0 (e.g. gold and predictions all of one class)."""
    c = _as_confusion(c)
    k = c.shape[-1]
    return _weighted_kappa(c, 1.0 - np.eye(k))


def kappa_linear(c, positions=None) -> np.ndarray:
    """Linearly weighted kappa, w_ij = |x_i - x_j| on the class positions x
    (0 .. K-1 unless ``positions`` are given; ordinal)."""
    c = _as_confusion(c)
    return _weighted_kappa(c, _abs_distance(c.shape[-1], positions))


def krippendorff_alpha(c, level: str = "nominal", positions=None) -> np.ndarray:
    """Krippendorff's alpha with gold and system as two coders.

    Coincidences o = c + c^T, value counts n_v = c_v. + c_.v, n = 2N:

        alpha = 1 - (n - 1) sum_{u,v} o_uv d_uv / sum_{u,v} n_u n_v d_uv

    with the squared distance d_uv of the level of measurement:
    nominal ``[u != v]``; interval ``(x_u - x_v)^2`` on the class positions
    x (0..K-1 unless ``positions`` are given; the other levels ignore them);
    ordinal ``(sum_{g=u..v} n_g - (n_u + n_v)/2)^2``, which equals
    ``(m_v - m_u)^2`` with the mid-rank m_g = cumsum(n)_g - n_g / 2.
    NaN when the expected disagreement is 0.
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
    """Macro-averaged MAE (Baccianella et al. 2009), lower is better:
    MAE^M = (1/|C|) sum_j (sum_i |x_i - x_j| c_ij) / c_.j, the mean running
    over the classes present in the gold; x = class positions (0 .. K-1
    unless ``positions`` are given).  NaN when N = 0."""
    c = _as_confusion(c)
    _, _, gold, _ = _margins(c)
    err = (_abs_distance(c.shape[-1], positions) * c).sum(axis=-2)  # per gold class j
    present = gold > 0
    per_class = _ratio(err, gold)
    return _ratio((per_class * present).sum(-1), present.sum(-1), np.nan)


def mae_micro(c, positions=None) -> np.ndarray:
    """Micro-averaged MAE = sum_ij |x_i - x_j| c_ij / N on the class
    positions x (0 .. K-1 unless ``positions`` are given), lower is better.
    NaN when N = 0."""
    c = _as_confusion(c)
    _, _, _, n = _margins(c)
    return _ratio((_abs_distance(c.shape[-1], positions) * c).sum((-2, -1)), n, np.nan)


def cem_proximity(gold_counts) -> np.ndarray:
    """CEM^ORD proximities prox_ij (predicted i, gold j), shape (..., K, K).

    K_ij = c_.i / 2 + sum_{l=i+1..j} c_.l          (i <= j)
    K_ij = c_.i / 2 + sum_{l=j..i-1} c_.l          (i > j)
    prox_ij = -log2(max(0.5, K_ij) / N)

    (Amigo et al. 2020, with Sakai's max{0.5, .} smoothing.)
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
    """CEM^ORD = sum_ij prox_ij c_ij / sum_j prox_jj c_.j (Amigo et al. 2020),
    proximities from the gold distribution of ``c`` itself.  NaN when N = 0."""
    c = _as_confusion(c)
    _, _, gold, n = _margins(c)
    prox = cem_proximity(gold)
    with np.errstate(invalid="ignore"):  # prox is inf only when N = 0
        num = np.where(c > 0, prox * c, 0.0).sum((-2, -1))
        den = (np.diagonal(prox, axis1=-2, axis2=-1) * gold).sum(-1)
    out = _ratio(num, den, np.nan)
    return np.where(n > 0, out, np.nan)


def f_avg(c, classes) -> np.ndarray:
    """Mean F1 over a subset of classes, e.g. SemEval-2016 Task 6's official
    F_avg = (F1_FAVOR + F1_AGAINST) / 2.  ``classes``: class indices."""
    idx = np.asarray(classes, dtype=np.intp)
    if idx.size == 0:
        raise ValueError("f_avg needs at least one class")
    return fbeta_per_class(c, 1.0)[..., idx].mean(-1)


def fnc_score(c, unrelated: int) -> np.ndarray:
    """Official FNC-1 weighted score as a fraction of the best possible score.

    Per item (official ``scorer.py``): +0.25 when gold and prediction are both
    ``unrelated`` or both related; +0.75 more when gold is related and the
    prediction is exactly right.  Score / max, with
    max = 0.25 * #unrelated + 1.0 * #related.  ``unrelated``: class index.
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


# --------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """One entry of the metric registry.

    ``params`` names the keyword arguments the metric needs from the dataset
    (``weights``: class-weight vector; ``f_avg_classes``: class indices;
    ``unrelated``: class index); a metric whose parameters a dataset does not
    provide is not applicable to it.  ``uses_positions``: the metric reads
    the numeric class positions (MAE, linear kappa, interval alpha) and takes
    an optional ``positions`` parameter (default 0 .. K-1).
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

    def __call__(self, c, **params) -> np.ndarray:
        kwargs = {}
        for p in self.params:
            if params.get(p) is None:
                raise ValueError(f"metric {self.id!r} needs parameter {p!r}")
            kwargs[_PARAM_ARG[p]] = params[p]
        if self.uses_positions and params.get("positions") is not None:
            kwargs["positions"] = params["positions"]
        return self.fn(c, **kwargs)

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"


# dataset-level parameter name -> keyword of the metric function
_PARAM_ARG = {"weights": "weights", "f_avg_classes": "classes", "unrelated": "unrelated"}

_SCARTON = "Scarton, Silva & Bontcheva (AACL 2020), section 2"
_AMEMIYA = "Amemiya & Sakai (DEIM), section 3"

_ENTRIES = [
    Metric("accuracy", "Acc", r"Acc", accuracy, True, reference=_AMEMIYA),
    Metric("macro_f1", "macro-F1", r"$\mathcal{F}_1$", partial(macro_fbeta, beta=1.0), True,
           reference=_AMEMIYA + " (calligraphic F1); " + _SCARTON),
    Metric("macro_f1_hm", "F1(P^M,R^M)", r"$\mathbb{F}_1$", macro_f1_hm, True,
           reference=_AMEMIYA + " (blackboard F1); Opitz & Burst 2019"),
    Metric("macro_f2", "macro-F2", r"macro-$F_2$", partial(macro_fbeta, beta=2.0), True, reference=_SCARTON),
    Metric("f1_weighted", "F1_Wtd", r"$F1_{Wtd}$", f1_weighted, True, reference="Kaushal et al. 2021"),
    Metric("macro_recall", "R^M", r"$R^M$", macro_recall, True, reference=_AMEMIYA),
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
]

REGISTRY: dict[str, Metric] = {m.id: m for m in _ENTRIES}
METRIC_IDS: tuple[str, ...] = tuple(REGISTRY)


def get(metric_id: str) -> Metric:
    """The registry entry of a metric id; span metric ids give their
    ``spans.SpanMetric`` (the same descriptive fields: name, direction...)."""
    try:
        return REGISTRY[metric_id]
    except KeyError:
        from .spans import SPAN_REGISTRY  # a module of the same floor: span metrics on span statistics

        if metric_id in SPAN_REGISTRY:
            return SPAN_REGISTRY[metric_id]
        raise KeyError(f"unknown metric {metric_id!r}; known: {', '.join(METRIC_IDS + tuple(SPAN_REGISTRY))}") \
            from None


def applicable_metrics(ordinal: bool, params: Mapping[str, object] | None = None,
                       only: Iterable[str] | None = None) -> list[str]:
    """Metric ids, in registry order, that apply to a dataset: ordinal-only
    metrics need ``ordinal=True``; parameterised metrics need their
    parameters in ``params``; ``only`` restricts to a chosen subset."""
    params = params or {}
    chosen = set(METRIC_IDS if only is None else only)
    unknown = chosen - set(METRIC_IDS)
    if unknown:
        raise KeyError(f"unknown metric(s) {sorted(unknown)}; known: {', '.join(METRIC_IDS)}")
    return [m.id for m in _ENTRIES if m.id in chosen and why_not_applicable(m.id, ordinal, params) is None]


# the dataset key that provides each parameter (for messages)
_PARAM_KEY = {"weights": "weights", "f_avg_classes": "f_avg_classes", "unrelated": "unrelated_label"}


def why_not_applicable(metric_id: str, ordinal: bool, params: Mapping[str, object] | None = None) -> str | None:
    """Why a metric cannot be computed on a dataset (None when it can)."""
    m = get(metric_id)
    params = params or {}
    if m.ordinal and not ordinal:
        return "needs ordered classes (the dataset has ordinal: false)"
    missing = [p for p in m.params if params.get(p) is None]
    if missing:
        return "needs " + " and ".join(f"the dataset key {_PARAM_KEY[p]!r}" for p in missing)
    return None


def evaluate(c, metric_ids: Iterable[str], **params) -> dict[str, np.ndarray]:
    """Score a confusion tensor (..., K, K) with several metrics at once.

    Returns ``{metric_id: array of shape (...)}``.  ``params`` are the
    dataset-level parameters (``weights``, ``f_avg_classes``, ``unrelated``).
    """
    metric_ids = list(metric_ids)
    spans = [m for m in metric_ids if m not in REGISTRY and isinstance(get(m), Metric) is False]
    if spans:
        raise ValueError(f"{spans} are span metrics: they score span statistics "
                         f"(metaeval.spans.evaluate_spans), not confusion tensors")
    c = _as_confusion(c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {mid: REGISTRY[mid](c, **params) for mid in metric_ids}
