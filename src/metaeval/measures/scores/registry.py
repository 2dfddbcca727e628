"""The metrics of scores and probabilities: one registry entry each, with the
descriptive fields of ``metrics.Metric`` (``metrics.get`` finds them), and
how the engine resamples it (``kind``):

* ``"ranked"``: a function of the items' scores and a weight vector per
  resample (ROC-AUC, its weighted and pairwise forms, average precision):
  each system is sorted once, then one compiled pass per resample;
* ``"items"``: sums of per-item terms (Brier score, log loss, ECE), so a
  resample is its weights times the terms;
* ``"groups"``: sums of per-group terms (MAP, MRR, AvgRec over a ranking
  within each group): resampled by whole groups only.

``values`` are (S, N, C): C = 1 for a binary task's positive-class score or
probability, C = K class probabilities otherwise (``scores.multiclass``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

import metaeval.measures.scores.multiclass as MC
import metaeval.measures.scores.ranking as RK

__all__ = ["ScoreMetric", "SCORE_REGISTRY", "SCORE_METRIC_IDS", "evaluate_ranked", "unit_terms", "combine",
           "n_terms", "needs_probabilities"]


@dataclass(frozen=True)
class ScoreMetric:
    """One metric of scores: the descriptive fields of ``metrics.Metric``,
    and how the engine resamples it (``kind``).

    >>> m = SCORE_REGISTRY["map"]
    >>> m.name, m.kind, m.direction, m.binary_only
    ('MAP', 'groups', 'higher', True)
    """

    id: str
    name: str
    latex: str
    higher_is_better: bool
    kind: str  # "ranked", "items" or "groups"
    reference: str = ""
    bounds: tuple[float, float] = (0.0, 1.0)
    probabilities: bool = False  # needs probabilities (in [0, 1], rows summing to 1), not any real score
    binary_only: bool = False  # a ranking of the positive class (MAP, MRR, AvgRec)
    fn: Callable[..., Any] | None = None  # "ranked": fn(values, y, weights) -> (..., S)
    # the descriptive fields every registry entry has
    ordinal: bool = False
    params: tuple[str, ...] = ()
    uses_positions: bool = False
    alias: str = ""
    default: bool = False
    source: str = ""

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"


_T3 = "Nakov et al. (SemEval-2016 Task 3), the official scorer"
_ENTRIES = [
    ScoreMetric("roc_auc", "ROC-AUC", r"ROC-AUC", True, "ranked", fn=MC.roc_auc,
                reference="Hanley & McNeil 1982; multi-class: one-vs-rest, macro (Provost & Domingos 2000)"),
    ScoreMetric("roc_auc_weighted", "ROC-AUC_prev", r"ROC-AUC$_{prev}$", True, "ranked", fn=MC.roc_auc_weighted,
                reference="Provost & Domingos 2000 (one-vs-rest, weighted by class prevalence)"),
    ScoreMetric("hand_till_m", "M_HT", r"$M_{HT}$", True, "ranked", fn=MC.hand_till_m,
                reference="Hand & Till 2001", alias="Hand & Till's M"),
    ScoreMetric("average_precision", "AP", r"AP", True, "ranked", fn=MC.average_precision,
                reference="scikit-learn's average_precision_score (step-wise, not interpolated)"),
    ScoreMetric("map", "MAP", r"MAP", True, "groups", binary_only=True, reference=_T3),
    ScoreMetric("mrr", "MRR", r"MRR", True, "groups", binary_only=True, reference=_T3),
    ScoreMetric("avg_recall", "AvgRec", r"AvgRec", True, "groups", binary_only=True, reference=_T3),
    ScoreMetric("brier", "Brier", r"Brier", False, "items", probabilities=True, bounds=(0.0, 2.0),
                reference="Brier 1950", alias="Brier score"),
    ScoreMetric("log_loss", "LogLoss", r"LogLoss", False, "items", probabilities=True, bounds=(0.0, np.inf),
                reference="Good 1952 (cross-entropy); clipped at the float64 epsilon as scikit-learn"),
    ScoreMetric("ece", "ECE", r"ECE", False, "items", probabilities=True,
                reference="Naeini, Cooper & Hauskrecht 2015; Guo et al. 2017 (top-label, 10 equal-width bins)"),
]
SCORE_REGISTRY: dict[str, ScoreMetric] = {m.id: m for m in _ENTRIES}
SCORE_METRIC_IDS: tuple[str, ...] = tuple(SCORE_REGISTRY)


def not_defined(metric_id: str, criterion: str) -> str:
    """Why a criterion of the verdict is not defined for a metric of scores
    by its definition (not for want of data), or "": the verdict judges it
    on the other criteria and says so.

    >>> not_defined("map", "priors")[:40]
    'a ranking within each group has no class'
    >>> not_defined("roc_auc", "priors")
    ''
    """
    m = SCORE_REGISTRY.get(metric_id)
    if m is not None and m.kind == "groups" and criterion == "priors":
        return "a ranking within each group has no class prior to re-weight"
    return ""


def needs_probabilities(metric_ids: Sequence[str]) -> list[str]:
    """The metrics among ``metric_ids`` that need probabilities.

    >>> needs_probabilities(["roc_auc", "brier", "ece"])
    ['brier', 'ece']
    """
    return [m for m in metric_ids if SCORE_REGISTRY[m].probabilities]


_PER_CLASS = ("roc_auc", "roc_auc_weighted", "average_precision")


def evaluate_ranked(metric_ids: Sequence[str], values, y, weights=None, *, rows: bool = False) -> dict[str, np.ndarray]:
    """``{id: (..., S)}`` of the ranked metrics of ``values`` on item weights
    (..., N); the one-vs-rest ones share one sort and pass per class
    (``rows``: each row its own system, gold and weights, ``multiclass.roc_auc``).

    >>> evaluate_ranked(["roc_auc", "average_precision"], [[0.9, 0.8, 0.3, 0.3]], [1, 0, 1, 0])
    {'roc_auc': array([0.625]), 'average_precision': array([0.75])}
    """
    out = {}
    shared = [m for m in metric_ids if m in _PER_CLASS]
    if shared:
        pc = MC.per_class(values, y, weights, rows=rows)
        out.update({m: MC.from_per_class(m, pc, y, weights, rows=rows) for m in shared})
    for m in metric_ids:
        if m not in out:
            out[m] = SCORE_REGISTRY[m].fn(values, y, weights, rows=rows)
    return {m: out[m] for m in metric_ids}


def n_terms(metric_id: str) -> int:
    """The number of summed terms of a metric of sums.

    >>> n_terms("log_loss"), n_terms("map")
    (2, 23)
    """
    m = SCORE_REGISTRY[metric_id]
    return RK.n_terms() if m.kind == "groups" else MC.n_item_terms(metric_id)


def unit_terms(metric_id: str, values, y, groups=None, n_groups: int | None = None) -> np.ndarray:
    """The terms of a metric of sums: (N, S, F) per item, or (G, S, F) per group.

    >>> unit_terms("brier", [[0.9, 0.2]], [1, 0]).shape, unit_terms("map", [[0.9, 0.2]], [1, 0], [0, 0]).shape
    ((2, 1, 2), (1, 1, 23))
    """
    m = SCORE_REGISTRY[metric_id]
    if m.kind == "items":
        return MC.item_terms(metric_id, values, y)
    if m.kind == "groups":
        v = np.asarray(values, dtype=np.float64)
        v = v[..., 0] if v.ndim == 3 else v
        return RK.terms(v, np.asarray(y) == 1, groups, n_groups)
    raise ValueError(f"{metric_id!r} is not a metric of sums")


def combine(metric_id: str, sums) -> np.ndarray:
    """The metric of its summed terms (..., S, F).

    >>> combine("log_loss", unit_terms("log_loss", [[0.5, 0.5]], [1, 0]).sum(axis=0)).round(6)
    array([0.693147])
    """
    m = SCORE_REGISTRY[metric_id]
    if m.kind == "items":
        return MC.combine_items(metric_id, sums)
    return RK.combine(sums)[metric_id]


def evaluate(metric_ids: Sequence[str], values, y, groups=None, weights=None,
             n_groups: int | None = None) -> dict[str, np.ndarray]:
    """Every listed metric of ``values`` (S, N, C) on item weights (..., N)
    (None: every item once); metrics of groups take the weight of each
    group's first item (a resample of whole groups).

    Examples
    --------
    >>> v = [[0.9, 0.8, 0.3, 0.3]]
    >>> out = evaluate(["roc_auc", "brier", "map"], v, [1, 0, 0, 1], groups=[0, 0, 1, 1])
    >>> {k: np.round(x, 4).tolist() for k, x in out.items()}  # the tie in group 1 keeps the file order
    {'roc_auc': [0.625], 'brier': [0.3075], 'map': [0.75]}
    """
    out: dict[str, np.ndarray] = {}
    within = None
    n = np.shape(y)[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    ranked = [m for m in metric_ids if SCORE_REGISTRY[m].kind == "ranked"]
    if ranked:  # (one sort and pass per class for all the one-vs-rest ones)
        out.update(evaluate_ranked(ranked, values, y, None if weights is None else w))
    for m in metric_ids:
        kind = SCORE_REGISTRY[m].kind
        if kind == "ranked":
            continue
        elif kind == "items":
            out[m] = combine(m, np.einsum("...n,nsf->...sf", w, unit_terms(m, values, y)))
        else:  # (MAP, MRR and AvgRec share their ranking statistics)
            if within is None:
                g = np.asarray(groups, dtype=np.int64)
                q = int(g.max()) + 1 if n_groups is None else n_groups
                first = np.full(q, -1)
                first[g[::-1]] = np.arange(n)[::-1]
                # a group's weight is its first item's; a group of n_groups without an item weighs 0
                wg = np.where(first >= 0, w[..., first], 0.0)
                within = np.einsum("...g,gsf->...sf", wg, unit_terms(m, values, y, g, q))
            out[m] = combine(m, within)
    return {m: out[m] for m in metric_ids}

