"""Which metric should a dataset report?  One answer, with its uncertainty,
that copies of a metric and metrics worse on every criterion cannot sway.

This module alone decides: the summary, the report's front page and
``recommendation.md/.csv/.json`` all show what ``recommend`` returns.
(Amemiya & Sakai's Table-7 rank sum, ``experiments.table7``, is shown as a
reproduction of their paper, never as a recommendation: a rank sum is a
Borda count, and adding a copy of a metric or a metric worse on every
criterion can change its winner; METHODS.md 8.)

**Criteria** (``metaeval.criteria``; higher is better for each): rank
stability, class discrimination (ordered classes only), discriminative power,
robustness to label noise, robustness to class priors (imbalanced data
only), and the number of the relevant formal properties the metric has
(``relevant_properties``; exact, no resampling).  Each resampled criterion
has a point value and a 95 % percentile interval from BOOT-BOTH
(Deutsch, Dror & Roth 2021): the test units and the systems resampled
together, every metric on the same resamples.

**Candidates.**  A metric can be recommended unless (each rule looks at that
metric alone, so that no rule lets one metric's presence change another's
fate): a degenerate system beats the median real system on it on this test
set (``metaeval.gameability``); it is span precision or recall alone
(``COMPONENTS``); it has no value on a criterion; or a criterion is undefined
in more than ``max_undefined`` of the resamples (ill-defined at this sample
size, METHODS.md 1.4).

**Tiered Pareto Selection** (METHODS.md 8, with paired tiers):

1. K0: the candidates that no candidate beats strictly on every criterion
   (point values).
2. For each criterion c, b_c is the best of K0, and x is in the top tier T_c
   when x is within ``min_difference[c]`` of b_c or a one-sided paired test
   at ``tier_alpha`` cannot tell b_c from x: ``v(b_c) - v(x) <= z_(1-alpha) *
   se(v(b_c) - v(x))``, the standard error of the paired difference over the
   shared resamples (against every b_c when several tie).  No family-size
   correction (it would make a tier depend on the number of metrics).  The
   tier is then closed upwards: every x of K0 at least as good as a member
   is a member.
3. The answer is the set of the members of K0 whose tier vector no other
   member's tier vector dominates.  When every member of K0 is in every top
   tier, the answer is K0 and the text says the evidence does not separate
   them.

Adding an exact copy of a metric, or a metric strictly worse than another on
every criterion, or removing such a metric, never changes the answer
(METHODS.md 8 proves both for margins that depend on b_c alone; a paired
margin depends on b_c and x alone, which keeps both proofs, and the upward
closure depends on K0's values only).

**How firm.**  The answer is also given without the baselines among the
ranked systems (when the configuration ranks any), and its
``system_resample_share``: the share of BOOT-SYSTEMS resamples (the systems
drawn again, the test set kept) in which the same rule, with the same paired
standard errors, gives the same set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from . import metrics as M
from .experiments import ALL_CRITERIA as _SETTINGS_CRITERIA
from .tables import markdown_table, md_escape

__all__ = ["CRITERIA", "ALL_CRITERIA", "IMBALANCE_RATIO", "COMPONENTS", "MAX_UNDEFINED", "FEW_SYSTEMS",
           "relevant_properties",
           "is_imbalanced", "applicable_criteria", "tiered_pareto", "Recommendation", "recommend", "answer_sentence",
           "recommendation_markdown", "recommendation_long", "recommendation_json", "dataset_context",
           "recommend_dataset", "recommendation_figure"]

IMBALANCE_RATIO = 2.0
# a criterion undefined in more than this share of the resamples is ill-defined at this sample size
MAX_UNDEFINED = 0.05
# below this many ranked real systems one swapped pair moves a Kendall tau by more than 2/45 = 0.044
FEW_SYSTEMS = 10
# never recommended: either alone rewards a degenerate system (few spans for precision, many for recall)
COMPONENTS = ("span_precision", "span_recall")

# criterion -> name in the text
CRITERIA = {
    "stability": "rank stability",
    "discrimination": "class discrimination",
    "power": "discriminative power",
    "noise": "robustness to label noise",
    "priors": "robustness to class priors",
    "properties": "formal properties",
}
ALL_CRITERIA = tuple(CRITERIA)
assert ALL_CRITERIA == _SETTINGS_CRITERIA, "experiments.ALL_CRITERIA and recommend.CRITERIA name the same criteria"

# what each criterion's value is, for the legend
_LEGEND = {
    "stability": "mean Kendall tau between the rankings on the two halves of random half-splits of the test set",
    "discrimination": "the split-half tau minus the mean tau between the ranking before and after merging two "
                      "adjacent classes: how much more a merge moves the ranking than the metric's own noise does",
    "power": "share of system pairs a test separates ({power_test})",
    "noise": "mean tau between the rankings on the gold and on a noisy gold, over the noise rates",
    "priors": "mean tau between the ranking and the rankings with the items re-weighted to shifted class priors "
              "(a metric of the per-class recalls alone, such as R^M, GMR or MAE^M, is invariant by construction: "
              "1 exactly, with no interval)",
    "properties": "relevant formal properties held (results/properties.csv; exact, no interval)",
}


def relevant_properties(ordinal_data: bool, imbalanced: bool) -> list[str]:
    """The formal properties (``metaeval.properties``) a dataset makes
    relevant: always a best value reached by perfect output only, strict
    monotonicity, independence of the test set's size and a constant
    chance level; for ordered classes Amigo et al.'s ordinal invariance and
    monotonicity, for unordered ones the exchange of classes; for
    imbalanced data Amigo et al.'s imbalance, ordered or not (they state it
    for ordinal classes, but what it asks, that an error on a small class
    cost more than the same error on a large one, is what rare unordered
    classes such as RumourEval's deny need too).  (The invariance under a
    change of one class's size is what the class-priors criterion measures
    on the data: it is not counted twice.)"""
    out = ["maximal_agreement", "monotonicity", "uniform_change", "constant_baseline"]
    out += ["ordinal_invariance", "ordinal_monotonicity"] if ordinal_data else ["class_exchange"]
    if imbalanced:
        out += ["imbalance"]
    return out


def is_imbalanced(gold_counts) -> bool:
    n = np.asarray([c for c in gold_counts if c > 0], dtype=float)
    return n.size >= 2 and n.max() >= IMBALANCE_RATIO * n.min()


def applicable_criteria(wanted: Sequence[str], *, has_classes: bool, k: int, ordinal_data: bool, imbalanced: bool,
                        has_properties: bool) -> tuple[list[str], dict[str, str]]:
    """The criteria of ``wanted`` this dataset has, and why each other one
    is left out."""
    why = {}
    if not has_classes:
        for c in ("discrimination", "noise", "priors", "properties"):
            why[c] = "span identification has no classes to merge, flip or re-weight, and no formal properties"
    else:
        if k < 3:
            why["discrimination"] = "merging the two classes of a two-class task leaves one class"
        elif not ordinal_data:
            why["discrimination"] = ("the classes are unordered: merging two of them is not a coarsening of a scale, "
                                     "so no direction of change is better (merging.csv still shows it)")
        if not imbalanced:
            why["priors"] = f"the classes are balanced (largest under {IMBALANCE_RATIO:g} times the smallest)"
        if not has_properties:
            why["properties"] = "the formal properties are not computed (properties.enabled: false)"
    for c in ALL_CRITERIA:
        if c not in wanted and c not in why:
            why[c] = "not among the configured criteria (experiments.criteria)"
    return [c for c in wanted if c not in why], why


def _z(alpha: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(1 - alpha))


def tiered_pareto(value: np.ndarray, se: np.ndarray, candidate: np.ndarray, delta: np.ndarray,
                  alpha: float = 0.05) -> dict[str, np.ndarray]:
    """Tiered Pareto Selection over the leading axes.

    ``value`` (..., C, M): criterion values, higher is better; ``se`` (C, M,
    M) or (..., C, M, M): the standard error of the paired difference
    ``value[c, i] - value[c, j]``; ``candidate`` (M,) or (..., M); ``delta``
    (C,): the smallest meaningful difference per criterion; ``alpha``: the
    one-sided level of the tier test.  Returns ``k0`` (..., M), ``tiers``
    (..., C, M) and ``selected`` (..., M), all boolean (False outside K0),
    and ``marks`` (..., C, M): the tiers extended to every candidate at
    least as good as a member (what the outputs show).
    A NaN value is worse than every number.
    """
    v = np.where(np.isnan(value), -np.inf, np.asarray(value, dtype=np.float64))
    cand = np.broadcast_to(np.asarray(candidate, dtype=bool), v.shape[:-2] + v.shape[-1:])
    se = np.broadcast_to(np.asarray(se, dtype=np.float64), v.shape + v.shape[-1:])
    delta = np.asarray(delta, dtype=np.float64)[:, None]
    # 1. K0: no candidate strictly better on every criterion
    better = (v[..., :, :, None] > v[..., :, None, :]).all(axis=-3)  # (..., y, x): y beats x on every c
    k0 = cand & ~(better & cand[..., :, None]).any(axis=-2)
    # 2. the top tier of each criterion
    vk = np.where(k0[..., None, :], v, -np.inf)
    best = vk.max(axis=-1, keepdims=True)  # (..., C, 1)
    is_best = k0[..., None, :] & (v == best)  # (..., C, M)
    with np.errstate(invalid="ignore"):
        gap = v[..., :, :, None] - v[..., :, None, :]  # (..., C, b, x): v(b) - v(x)
        margin = np.maximum(delta[..., None], _z(alpha) * np.nan_to_num(se, nan=0.0))
        near = (gap <= margin) | ~is_best[..., :, :, None]  # x within the margin of every best b
    near = near.all(axis=-2) & np.isfinite(v)
    t0 = k0[..., None, :] & near
    floor = np.where(t0, v, np.inf).min(axis=-1, keepdims=True)
    tiers = k0[..., None, :] & (v >= floor)
    # for the reader, the same test for every candidate (one outside K0, beaten on every criterion by another,
    # can still be as good as the best on one; the best of K0 is the best of all), closed upwards likewise;
    # the selection uses K0's tiers alone
    shown = np.where(cand[..., None, :] & near, v, np.inf).min(axis=-1, keepdims=True)
    marks = cand[..., None, :] & (v >= np.minimum(floor, shown))
    # 3. the members of K0 whose tier vector no other member's dominates
    ti = tiers.swapaxes(-1, -2)  # (..., M, C)
    geq = (ti[..., :, None, :] >= ti[..., None, :, :]).all(axis=-1)  # (..., y, x): I(y) >= I(x)
    ne = (ti[..., :, None, :] != ti[..., None, :, :]).any(axis=-1)
    dominated = (geq & ne & k0[..., :, None]).any(axis=-2)
    return {"k0": k0, "tiers": tiers, "marks": marks, "selected": k0 & ~dominated}


@dataclass
class Recommendation:
    """What ``recommend`` returns; every output is drawn from it."""

    metrics: list[str]
    criteria: list[str]
    value: np.ndarray  # (C, M)
    low: np.ndarray
    high: np.ndarray
    n_undefined: np.ndarray  # (C, M) resamples, -1: exact criterion
    replicates: int
    tiers: np.ndarray  # (C, M)
    k0: np.ndarray  # (M,)
    candidate: np.ndarray  # (M,)
    selected: list[str]
    excluded: dict[str, str]  # metric -> why it cannot be recommended
    left_out: dict[str, str]  # criterion -> why it does not count here
    gameable: list[dict]
    without_baselines: list[str] | None
    baselines: list[str]  # the baselines among the ranked systems
    system_resample_share: float
    selection_share: dict[str, float]  # per metric: share of system resamples selecting it
    n_systems: int
    settings: dict = field(default_factory=dict)
    paired_se: np.ndarray | None = None  # (C, M, M) the tier tests' standard errors
    marks: np.ndarray | None = None  # (C, M) the top tiers as shown: every candidate at least as good as a member
    n_ranked_real: int | None = None  # the real (or synthetic) systems among the ranked ones
    notes: list[str] = field(default_factory=list)  # settings given that do not apply here, said not dropped

    @property
    def separable(self) -> bool:
        """False when every member of K0 is in every top tier."""
        return not (self.tiers[:, self.k0].all() and self.k0.sum() > 1)


def _properties_row(metrics, properties: pd.DataFrame | None, relevant) -> np.ndarray:
    if properties is None:
        return np.full(len(metrics), np.nan)
    p = properties[properties["property"].isin(relevant)]
    held = p.assign(h=p["result"] == "holds").groupby("metric")["h"].sum()
    return held.reindex(metrics).to_numpy(dtype=float)


def _table(res, crit: Sequence[str], props: np.ndarray):
    """(C, M) value, low, high, n_undefined, and the (C, M, M) paired se of
    the criteria ``crit`` (the properties row exact)."""
    m = len(res.metrics)
    rows = {c: i for i, c in enumerate(res.criteria)}
    value, low, high, nan = (np.full((len(crit), m), np.nan) for _ in range(4))
    se = np.zeros((len(crit), m, m))
    pse = res.paired_se()
    for i, c in enumerate(crit):
        if c == "properties":
            value[i] = low[i] = high[i] = props
            nan[i] = -1
        else:
            j = rows[c]
            value[i], low[i], high[i], nan[i], se[i] = res.value[j], res.low[j], res.high[j], res.n_undefined[j], pse[j]
    return value, low, high, nan, se


def recommend(both, systems=None, without=None, *, criteria: Sequence[str], left_out: Mapping[str, str] | None = None,
              properties: pd.DataFrame | None = None, relevant: Sequence[str] = (), gameable: pd.DataFrame | None = None,
              baselines: Sequence[str] = (), min_difference: Mapping[str, float] | None = None,
              tier_alpha: float = 0.05, max_undefined: float = MAX_UNDEFINED,
              power_test: str = "two-sided z-tests of each pair's difference over its bootstrap standard error, "
                                "at alpha 0.05, Holm-adjusted over the pairs") -> Recommendation:
    """The answer from the criteria's point values and resamples.

    ``both``: the BOOT-BOTH ``criteria.CriteriaResult`` of the ranked
    systems; ``systems``: their BOOT-SYSTEMS result (for
    ``system_resample_share``; None: not computed); ``without``: the
    BOOT-BOTH result without the baselines (None when no baseline is
    ranked); ``criteria``: those that count (``applicable_criteria``), with
    ``left_out`` saying why the others do not; ``properties``:
    ``properties.csv`` (``relevant``: the properties that count);
    ``gameable``: ``gameability.gameable`` of the dataset;
    ``baselines``: the baselines among the ranked systems."""
    metrics = list(both.metrics)
    crit = [c for c in criteria if c != "properties" or properties is not None]
    delta = np.array([float((min_difference or {}).get(c, 0.0)) for c in crit])
    props = _properties_row(metrics, properties, relevant)
    value, low, high, nan, se = _table(both, crit, props)
    excluded = {}
    games = [] if gameable is None else gameable.to_dict("records")
    game_of = {g["metric"]: g for g in games}
    for i, mid in enumerate(metrics):
        if mid in COMPONENTS:
            excluded[mid] = "span precision or recall alone rewards a degenerate system (few spans, or many)"
        elif mid in game_of:
            g = game_of[mid]
            excluded[mid] = f"gameable: {_game_text(g)}"
        elif np.isnan(value[:, i]).any():
            excluded[mid] = "no value on " + _and([CRITERIA[c] for c, v in zip(crit, value[:, i]) if np.isnan(v)])
        else:
            bad = [CRITERIA[c] for c, n in zip(crit, nan[:, i]) if n > max_undefined * both.boot.shape[0]]
            if bad:
                excluded[mid] = (f"{_and(bad)} undefined in more than {max_undefined:.0%} of the resamples "
                                 "(ill-defined at this sample size)")
    candidate = np.array([m not in excluded for m in metrics])
    tps = tiered_pareto(value, se, candidate, delta, tier_alpha)
    selected = [m for m, s in zip(metrics, tps["selected"]) if s]

    wo = None
    if without is not None:
        v2, _, _, _, se2 = _table(without, crit, props)
        wo = [m for m, s in zip(metrics, tiered_pareto(v2, se2, candidate, delta, tier_alpha)["selected"]) if s]

    share, per_metric = np.nan, {}
    if systems is not None:
        v_b, _, _, _, _ = _table_boot(systems, crit, props)
        sel_b = tiered_pareto(v_b, se, candidate, delta, tier_alpha)["selected"]  # (B, M)
        share = float((sel_b == tps["selected"]).all(axis=-1).mean())
        per_metric = {m: float(sel_b[:, i].mean()) for i, m in enumerate(metrics) if candidate[i]}
    settings = {"criteria": crit, "min_difference": {c: float(d) for c, d in zip(crit, delta)},
                "tier_alpha": tier_alpha, "max_undefined": max_undefined, "replicates": int(both.boot.shape[0]),
                "confidence": both.confidence, "power_test": power_test}
    n_sys = int(both.system_draws.shape[1]) if both.system_draws is not None else 0
    notes = [f"min_difference for {CRITERIA.get(c, c)} is not used: the criterion does not count here"
             + (f" ({(left_out or {})[c]})" if c in (left_out or {}) else "")
             for c, d in (min_difference or {}).items() if c not in crit and d]
    return Recommendation(metrics, crit, value, low, high, nan, int(both.boot.shape[0]), tps["tiers"], tps["k0"],
                          candidate, selected, excluded, dict(left_out or {}), games, wo, list(baselines), share,
                          per_metric, n_sys, settings, se, tps["marks"], n_sys - len(baselines), notes)


def _table_boot(res, crit, props):
    """(B, C, M) replicate values of ``crit`` (the properties row exact)."""
    rows = {c: i for i, c in enumerate(res.criteria)}
    b = res.boot.shape[0]
    out = np.empty((b, len(crit), len(res.metrics)))
    for i, c in enumerate(crit):
        out[:, i] = props[None, :] if c == "properties" else res.boot[:, rows[c]]
    return out, None, None, None, None


def _name(mid: str) -> str:
    return M.get(mid).name


def _game_text(g: Mapping) -> str:
    """How a degenerate system games a metric, in words."""
    better = "higher" if M.get(g["metric"]).higher_is_better else "lower"
    return (f"the degenerate system {g['degenerate']} scores {g['score']:.3f}, better than the median real "
            f"system's {g['median_real']:.3f} ({better} is better), rank {int(g['rank'])} of {int(g['n_real']) + 1}")


def _dominator(rec: Recommendation, i: int) -> str:
    """A candidate strictly ahead of metric i on every criterion (the one
    ahead on most by the largest summed margin)."""
    v = np.where(np.isnan(rec.value), -np.inf, rec.value)
    ahead = rec.candidate & (v > v[:, [i]]).all(axis=0)
    j = np.flatnonzero(ahead)
    return rec.metrics[int(j[np.argmax((v[:, j] - v[:, [i]]).sum(axis=0))])]


def _and(items: Sequence[str], word: str = "and") -> str:
    items = list(items)
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def answer_sentence(rec: Recommendation) -> str:
    """The first sentence: the answer and how firm it is."""
    if not rec.criteria:
        return ("No metric can be recommended: none of the configured criteria counts on this dataset (the "
                "criteria that do not count, and why, are below).")
    if not rec.selected:
        return "No metric can be recommended: " + ("every metric is excluded (below)." if rec.excluded else
                                                   "no metric has a value on every criterion.")
    names = _and([_name(m) for m in rec.selected], "or")
    n_c = len(rec.criteria)
    idx = [rec.metrics.index(m) for m in rec.selected]
    top = rec.tiers[:, idx]
    if not rec.separable:
        head = (f"The evidence does not separate {names}: each is in the top tier of all {n_c} criteria, so any of "
                "them can be reported (not separable at this resolution)")
    elif len(idx) == 1:
        head = f"Report {names}: in the top tier of {int(top[:, 0].sum())} of {n_c} criteria"
        if int(rec.candidate.sum()) == 1 and rec.excluded:  # say that it won by elimination
            head += (f", the only candidate left ({len(rec.excluded)} other metric"
                     f"{'s are' if len(rec.excluded) > 1 else ' is'} excluded, below)")
    elif (top == top[:, :1]).all():
        head = (f"{names[0].upper()}{names[1:]}: the evidence does not separate them; each is in the top tier of the "
                f"same {int(top[:, 0].sum())} of {n_c} criteria")
    else:
        by_tiers: dict[tuple, list[str]] = {}  # metrics with the same own top tiers said once
        for j, m in enumerate(rec.selected):
            mine = tuple(CRITERIA[c] for c_i, c in enumerate(rec.criteria) if top[c_i, j] and not top[c_i].all())
            by_tiers.setdefault(mine, []).append(_name(m))
        own = [f"{_and(ms)} on {_and(list(mine))}" for mine, ms in by_tiers.items()]
        together = int(top.all(axis=1).sum())
        head = (f"{names[0].upper()}{names[1:]}: the evidence does not separate them; "
                + (f"together in the top tier of {together} of {n_c} criteria, " if together else "")
                + "and in top tiers not all of them reach (" + "; ".join(own) + ")")
    parts = [head]
    if rec.separable:  # which criteria separate the candidates at all (the others hold them all in the top tier)
        sep = [c for c in rec.criteria if not rec.tiers[rec.criteria.index(c), rec.k0].all()]
        if sep and all(c == "properties" for c in sep):
            parts.append("only the formal properties, which have no interval, separate the candidates")
        elif sep and 2 * len(sep) <= len(rec.criteria):
            parts.append(f"the candidates are separated on {_and([CRITERIA[c] for c in sep])} only")
        elif sep and len(sep) < len(rec.criteria):  # name the fewer: the criteria that hold every candidate
            same = [CRITERIA[c] for c in rec.criteria if c not in sep]
            parts.append(f"every candidate is in the top tier of {_and(same)}")
    if not rec.baselines:
        parts.append("no baseline among the ranked systems")
    if rec.baselines:
        if rec.without_baselines is None:
            pass
        elif set(rec.without_baselines) == set(rec.selected):
            parts.append("the same without the baselines")
        else:
            parts.append(f"but without the baselines ({_and(rec.baselines)}) among the ranked systems the answer is "
                         + (_and([_name(m) for m in rec.without_baselines], "or") or "none"))
    if not np.isnan(rec.system_resample_share):
        if len(rec.selected) > 1 or rec.system_resample_share < 1:  # how often each of it is selected at all
            held = ("in the system resamples " + ", ".join(f"{_name(m)} is selected in "
                                                           f"{rec.selection_share.get(m, 0):.0%}" for m in rec.selected)
                    + f", this exact answer in {rec.system_resample_share:.0%}")
            if rec.system_resample_share < 0.5:
                always = all(rec.selection_share.get(m, 0) == 1 for m in rec.selected)
                it = "it" if len(rec.selected) == 1 else "them"
                held += (f" (other metrics join {it} in the other resamples)" if always else
                         f" (other metrics often join or replace {it} when the systems change)")
        else:
            held = "the same answer in 100% of system resamples"
        parts.append(held)
    if rec.n_ranked_real is not None and 2 <= rec.n_ranked_real < FEW_SYSTEMS:
        parts.append(f"only {rec.n_ranked_real} real systems are ranked, so the tau-based criteria are coarse and "
                     "the answer tentative")
    return "; ".join(parts) + "."


def _fmt(c: str, v: float) -> str:
    if np.isnan(v):
        return "n/a"
    return f"{int(v)}" if c == "properties" else f"{v:.3f}"


def criteria_table(rec: Recommendation) -> pd.DataFrame:
    """Per metric (candidates of K0 first, in the answer's order): each
    criterion's value, interval and tier (``*`` top tier), and its status."""
    order = sorted(range(len(rec.metrics)), key=lambda i: (rec.metrics[i] not in rec.selected, not rec.k0[i],
                                                             not rec.candidate[i], -rec.marks[:, i].sum(), i))
    rows = []
    for i in order:
        mid = rec.metrics[i]
        row = {"metric": _name(mid)}
        for c_i, c in enumerate(rec.criteria):
            v, lo, hi = rec.value[c_i, i], rec.low[c_i, i], rec.high[c_i, i]
            cell = _fmt(c, v)
            if c != "properties" and not np.isnan(lo):
                cell += f" [{lo:.3f}, {hi:.3f}]"
            n_nan = int(rec.n_undefined[c_i, i])
            if n_nan > 0:  # resamples left out of the interval (METHODS.md 1.4: said, not hidden)
                cell += f" ({n_nan} of {rec.replicates} undefined)"
            if rec.marks[c_i, i]:
                cell = "✔ " + cell  # a top tier (a Markdown table cell escapes emphasis)
            row[CRITERIA[c]] = cell
        if mid in rec.selected:
            status = "recommended"
        elif mid in rec.excluded:
            status = "excluded: " + rec.excluded[mid]
        elif not rec.k0[i]:
            status = f"{_name(_dominator(rec, i))} is ahead of it on every criterion"
        else:
            status = f"top tier on {int(rec.tiers[:, i].sum())} of {len(rec.criteria)}; another's tiers contain its"
        row["status"] = status
        rows.append(row)
    return pd.DataFrame(rows)


def method_paragraph(rec: Recommendation) -> str:
    s = rec.settings
    deltas = {c: d for c, d in s.get("min_difference", {}).items() if d}
    return (
        f"**Method.** Every criterion's interval is the {s.get('confidence', 0.95):.0%} percentile interval of "
        f"{rec.replicates} resamples that draw the test units and the systems together (BOOT-BOTH; Deutsch, Dror & "
        "Roth 2021, TACL 9), every metric on the same resamples; the value is that of the full data (a resample's "
        "half-splits hold fewer distinct items, so resampled stabilities sit below it, alike for every metric). A "
        f"metric is in a criterion's top tier (✔) when a one-sided paired test at alpha {s.get('tier_alpha', 0.05):g} "
        "cannot tell it from the best candidate (null hypothesis: the metric is as good as the best; rejected when "
        "the difference of the two metrics' values exceeds z times the standard error of that difference over the "
        "shared resamples)"
        + (" or within the smallest meaningful difference (" + ", ".join(f"{CRITERIA[c]} {d:g}"
                                                                           for c, d in deltas.items()) + ")"
           if deltas else "")
        + ", and so is every candidate at least as good. The answer is the Tiered Pareto Selection (docs/recommendation.md): "
        "the candidates that no candidate beats on every criterion, then those whose set of top tiers no other's "
        "contains. Adding a copy of a metric, or a metric worse than another on every criterion, cannot change it, "
        "unlike a rank sum (Amemiya & Sakai's Table 7, shown in the summary as a reproduction). Gameable metrics (a "
        "degenerate system beats the median real system: gameability.csv) are never recommended. "
        "The share of system resamples redraws the systems only and applies the same rule.")


def recommendation_markdown(rec: Recommendation, title: str, context: str, figure: str | None = None) -> str:
    """``recommendation.md``: the answer first, then the criteria table,
    the figure, what is left out and why, and the method."""
    lines = [f"# {md_escape(title)}", "", md_escape(answer_sentence(rec)), "", md_escape(context), ""]
    if rec.criteria:  # (with none, there is no table to show)
        used = _and([CRITERIA[c] for c in rec.criteria])
        lines += [f"Criteria that count here: {used} (higher is better for each; ✔: top tier).", ""]
        lines += [markdown_table(criteria_table(rec)), ""]
    if figure and rec.criteria:
        lines += [f"![criteria with intervals]({figure})", ""]
    if rec.gameable:
        lines += ["**Gameable on this test set** (never recommended): "
                  + "; ".join(f"{md_escape(_name(g['metric']))}: {md_escape(_game_text(g))}" for g in rec.gameable)
                  + ".", ""]
    if rec.left_out:
        by_reason = {}
        for c, w in rec.left_out.items():
            by_reason.setdefault(w, []).append(CRITERIA[c])
        lines += ["Criteria that do not count here: " + "; ".join(f"{_and(cs)}: {md_escape(w)}"
                                                                for w, cs in by_reason.items()) + ".", ""]
    if rec.notes:
        lines += ["**Not used:** " + "; ".join(md_escape(n) for n in rec.notes) + ".", ""]
    if any(v > 0 for v in rec.selection_share.values()):
        top = sorted(rec.selection_share.items(), key=lambda kv: -kv[1])[:6]
        lines += ["Selected in the system resamples: " + ", ".join(f"{md_escape(_name(m))} {s:.0%}" for m, s in top
                                                                    if s > 0) + ".", ""]
    base = (f"Ranked systems: {rec.n_systems}, the baselines {md_escape(_and(rec.baselines))} among them."
            if rec.baselines else f"Ranked systems: {rec.n_systems}, no baseline among them.")
    lines += [base, "", method_paragraph(rec)]
    if rec.criteria:
        lines += ["", "Legend: " + "; ".join(f"{CRITERIA[c]}: "
                                             + _LEGEND[c].format(power_test=rec.settings.get("power_test", "")).replace(
                                                 " ()", "") for c in rec.criteria) + "."]
    return "\n".join(lines) + "\n"


def tier_pvalues(rec: Recommendation, closed: bool = True) -> np.ndarray:
    """(C, M) the one-sided p-value of each metric's top-tier decision.

    The tier test of x against a best member b of K0 (null hypothesis: x
    is as good as b on the criterion; alternative: worse): p = 1 when
    v(b) - v(x) <= ``min_difference`` (within the smallest meaningful
    difference, the test keeps x whatever its error), else p = 1 -
    Phi((v(b) - v(x)) / se(v(b) - v(x))) (an exact criterion, se 0: p = 0);
    when several members tie for the best, the smallest of their p-values
    (x must be kept against every one).  x is kept when p >=
    ``tier_alpha``: exactly ``tiered_pareto``'s test.

    ``closed`` (the default, ``recommendation.csv``'s ``tier_p``): the
    largest p-value of the candidates (and x itself) whose value is at most
    x's, the p-value of the tier closed upwards, so that a candidate is
    marked in the top tier (``top_tier``) exactly when this p >=
    ``tier_alpha``; the cross-dataset replicability counts read it
    (``crossdata``), so a metric marked in a top tier is never counted
    short of the best there.  NaN without a value.
    """
    from scipy.special import ndtr

    v = np.where(np.isnan(rec.value), -np.inf, rec.value)
    delta = np.array([rec.settings.get("min_difference", {}).get(c, 0.0) for c in rec.criteria])[:, None, None]
    vk = np.where(rec.k0[None, :], v, -np.inf)
    best = vk.max(axis=1, keepdims=True)
    is_best = rec.k0[None, :] & (v == best)  # (C, M)
    se = rec.paired_se if rec.paired_se is not None else np.zeros(v.shape + v.shape[-1:])
    se = np.nan_to_num(np.broadcast_to(se, v.shape + v.shape[-1:]), nan=0.0)
    gap = v[:, :, None] - v[:, None, :]  # (C, b, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(gap <= delta, 1.0, np.where(se > 0, 1 - ndtr(gap / np.where(se > 0, se, 1.0)), 0.0))
    p = np.where(is_best[:, :, None], p, np.inf).min(axis=1)  # (C, M)
    p = np.where(np.isfinite(rec.value) & np.isfinite(p), p, np.nan)
    if closed:
        cand = np.asarray(rec.candidate, dtype=bool)
        below = (cand[None, :, None] & (v[:, :, None] <= v[:, None, :])) | np.eye(v.shape[1], dtype=bool)
        p = np.where(np.isfinite(rec.value), np.where(below, np.nan_to_num(p, nan=-np.inf)[:, :, None],
                                                      -np.inf).max(axis=1), np.nan)
    return p


def recommendation_long(rec: Recommendation) -> pd.DataFrame:
    """``recommendation.csv``: one row per criterion and metric: the value
    and its interval, ``top_tier`` (the marks shown: K0's tier closed
    upwards over every candidate), ``k0`` and ``tier`` (K0's own tier, what
    the selection reads) and ``tier_p`` (``tier_pvalues``)."""
    rows = []
    tp = tier_pvalues(rec)
    for c_i, c in enumerate(rec.criteria):
        for i, mid in enumerate(rec.metrics):
            rows.append({"criterion": c, "metric": mid, "value": rec.value[c_i, i], "low": rec.low[c_i, i],
                         "high": rec.high[c_i, i], "better": "higher", "top_tier": bool(rec.marks[c_i, i]),
                         "n_undefined": int(rec.n_undefined[c_i, i]) if rec.n_undefined[c_i, i] >= 0 else None,
                         "candidate": bool(rec.candidate[i]), "recommended": mid in rec.selected,
                         "k0": bool(rec.k0[i]), "tier": bool(rec.tiers[c_i, i]), "tier_p": tp[c_i, i]})
    df = pd.DataFrame(rows, columns=["criterion", "metric", "value", "low", "high", "better", "top_tier",
                                     "n_undefined", "candidate", "recommended", "k0", "tier", "tier_p"])
    df["n_undefined"] = df["n_undefined"].astype("Int64")
    return df


def recommendation_json(rec: Recommendation, **extra) -> str:
    """``recommendation.json`` (``extra``: more keys, e.g. a warning on the
    resampling to repeat on the summary page)."""
    out = {
        "recommended": list(rec.selected),
        "answer": answer_sentence(rec),
        "separable": rec.separable,
        "without_baselines": rec.without_baselines,
        "baselines_ranked": list(rec.baselines),
        "system_resample_share": None if np.isnan(rec.system_resample_share) else rec.system_resample_share,
        "selection_share": rec.selection_share,
        "gameable": [{"metric": g["metric"], "degenerate": g["degenerate"], "score": float(g["score"]),
                      "median_real": float(g["median_real"]), "rank": int(g["rank"]), "n_real": int(g["n_real"])}
                     for g in rec.gameable],
        "excluded": rec.excluded,
        "criteria": list(rec.criteria),
        "criteria_left_out": rec.left_out,
        "top_tiers": {c: [m for m, t in zip(rec.metrics, rec.marks[i]) if t] for i, c in enumerate(rec.criteria)},
        "n_systems": rec.n_systems,
        "settings": rec.settings,
        **extra,
    }
    return json.dumps(out, indent=2, allow_nan=False) + "\n"


def recommendation_figure(rec: Recommendation, name: str):
    """The criteria figure: one panel per criterion, every metric's value
    and interval, the top tiers filled, the answer in bold."""
    from .plots import criteria_plot, message_figure

    if not rec.criteria:
        return message_figure(f"{name}: no criterion counts on this dataset", answer_sentence(rec))
    conf = rec.settings.get("confidence", 0.95)
    return criteria_plot(recommendation_long(rec), {m: _name(m) for m in rec.metrics},
                         f"{name}: the criteria with their {conf:.0%} intervals (filled: top tier)", rec.selected,
                         CRITERIA)


def dataset_context(ds, spec) -> str:
    """The sentence under the answer: the kind of task, its classes and
    whether they are imbalanced."""
    if spec.span_task == "si":
        return f"{spec.name}: span identification."
    counts = np.bincount(ds.gold, minlength=ds.k)
    return (f"{spec.name}: {'technique ' if spec.span_task == 'tc' else ''}classification, {ds.k} "
            f"{'ordered' if spec.ordinal else 'unordered'} classes, "
            + ("imbalanced" if is_imbalanced(counts) else "not imbalanced")
            + f" (largest class {counts.max():,} items, smallest {counts[counts > 0].min():,}; imbalanced "
            f"means a ratio of {IMBALANCE_RATIO:g} or more).")


def recommend_dataset(ds, spec, settings, *, properties: pd.DataFrame | None = None,
                      gameability: pd.DataFrame | None = None) -> Recommendation:
    """The recommendation of a loaded dataset (``dataset.Dataset``) with its
    spec and experiment settings (``experiments.Settings``): the criteria
    (``criteria.criteria``) of its ranked systems, with and without the
    baselines, BOOT-BOTH and BOOT-SYSTEMS, then ``recommend``.
    ``properties``: ``properties.csv``; ``gameability``: the dataset's
    ``gameability.csv`` (long form; its gameable metrics are excluded)."""
    from .criteria import CriteriaSpec, adjacent_pairs
    from .criteria import criteria as compute
    from .dataset import RANKED_KINDS
    from .experiments import Scorer, select_systems
    from .gameability import gameable

    sel = select_systems(ds, settings.include_baselines)
    scorer = Scorer(ds, spec, sel, settings.resample_unit)
    has_classes = bool(scorer.cls_ids)
    counts = np.bincount(ds.gold, minlength=ds.k) if has_classes else np.array([])
    imbalanced = has_classes and is_imbalanced(counts)
    crit, left_out = applicable_criteria(settings.criteria, has_classes=has_classes, k=spec.k,
                                         ordinal_data=bool(spec.ordinal), imbalanced=imbalanced,
                                         has_properties=properties is not None)
    extra = {}
    if "noise" in crit:  # (a span identification step is not given the noise settings)
        extra.update(noise_rates=settings.noise_rates, noise_repeats=settings.noise_repeats,
                     noise_seed=settings.noise_seed,
                     noise_mode=settings.noise_mode if settings.noise_mode != "auto" else
                     ("neighbour" if spec.ordinal else "uniform"))
    if "priors" in crit:
        extra["prior_gammas"] = settings.prior_gammas
    cs = CriteriaSpec(criteria=tuple(c for c in crit if c != "properties"), replicates=settings.criteria_replicates,
                      inner_splits=settings.criteria_splits, seed=settings.criteria_seed,
                      point_splits=settings.n_splits, split_seed=settings.split_seed,
                      tau_variant=settings.tau_variant, alpha=settings.alpha,
                      correction=settings.significance_correction,
                      merge_pairs=adjacent_pairs(spec.k) if "discrimination" in crit else (),
                      chunk_size=max(1, settings.chunk_size // 10), **extra)
    strata = ds.gold if settings.stratified else None
    real = np.array([i for i, j in enumerate(sel) if ds.kinds[j] in RANKED_KINDS])
    baselines = [ds.systems[j] for j in sel if ds.kinds[j] not in RANKED_KINDS]
    subsets = {"all": np.arange(sel.size)}
    if baselines and real.size >= 2:
        subsets["without"] = real
    res = compute(scorer, cs, subsets=subsets, schemes=("both", "systems"), strata=strata,
                  confidence=settings.confidence)
    relevant = relevant_properties(bool(spec.ordinal), imbalanced) if has_classes else []
    games = gameable(gameability) if gameability is not None else None
    adjusted = {"holm": ", Holm-adjusted over the pairs of each resample", "bh": ", Benjamini-Hochberg-adjusted "
                "over the pairs of each resample", "none": ", not adjusted"}[settings.significance_correction]
    power_test = (f"two-sided z-tests of each pair's difference over its bootstrap standard error (null "
                  f"hypothesis: the two systems score alike in expectation), at alpha "
                  f"{settings.alpha:g}{adjusted}; the experiments' discriminative_power.csv uses "
                  f"{'the randomised Tukey HSD' if settings.significance_test == 'tukey' else 'the paired bootstrap test'}"
                  ", too costly to repeat in every resample")
    return recommend(res["both", "all"], res["systems", "all"], res.get(("both", "without")), criteria=crit,
                     left_out=left_out,
                     properties=properties, relevant=relevant, gameable=games, baselines=baselines,
                     min_difference=settings.min_difference, tier_alpha=settings.tier_alpha, power_test=power_test)
