"""Which metric should a dataset report?  The verdict of the evidence, with
its error rate controlled, the requirements the user declares, and the
task's own metric in view (METHODS 9).

This module alone decides: the summary, the report's front page and
``recommendation.md/.csv/.json`` all show what ``recommend`` returns.
(Amemiya & Sakai's Table-7 rank sum, ``experiments.table7``, is shown as a
reproduction of their paper, never as a recommendation.)

**Evidence** (``metaeval.verdict.criteria``; higher is better for each): rank
stability, class discrimination (ordered classes of three or more),
discriminative power, robustness to label noise, robustness to class priors
(imbalanced data; the metrics invariant to the priors by construction are
exempt from it).  Each has a point value on the full data and replicates in
two **scopes**: *these systems* (the test units resampled, the systems
kept) and *new systems* (units and systems resampled together, BOOT-BOTH).
The criteria are computed on the *real* systems: ranked baselines are a
stated variant, never the headline.

**Candidates.**  A metric can be recommended unless (each rule looks at that
metric alone): the gameability test vetoes it (a degenerate system
significantly better than the median real system, ``metaeval.methods.gameability``);
it is span precision or recall alone (``COMPONENTS``); it has no value on a
criterion; or a criterion is undefined in more than ``max_undefined`` of a
scope's resamples.  A declared **requirement** (a formal property, checked
on this dataset's own shape: ``properties.dataset_settings``) removes the
metrics that fail it; requirements not declared are shown with who holds
them and the answer if they were required, and decide nothing.

**The verdict** (``metaeval.verdict.evidence``): per scope and criterion, the Model
Confidence Set of the candidates, Bonferroni over the criteria that count;
the answer is the intersection.  The headline is the scope of
``verdict_scope`` (default *these systems*: the question of choosing the
metric for this leaderboard); both are shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..settings import CRITERION_NAMES, default_of
from ..present.tables import format_p
from .criteria import REGISTRY
from .criteria.priors import IMBALANCE_RATIO
from .tradeoff import Decision, decide, if_first, trade_off
from .evidence import (EvidenceSets, SCHEME, SCOPES, closest_pair, evidence_sets, paired_interval, systems_needed,
                       units_needed)

__all__ = ["CRITERIA", "IMBALANCE_RATIO", "COMPONENTS", "MAX_UNDEFINED", "FEW_SYSTEMS", "PRIORS_PROPERTY", "SCOPE_NAMES",
           "relevant_properties", "is_imbalanced", "applicable_criteria", "Requirement", "Standing",
           "Recommendation", "recommend", "recommend_dataset", "display_name"]

# a criterion undefined in more than this share of the resamples is ill-defined at this sample size
MAX_UNDEFINED = 0.05
# below this many ranked real systems one swapped pair moves a Kendall tau by more than 2/45 = 0.044
FEW_SYSTEMS = 10
# never recommended: either alone rewards a degenerate system (few spans for precision, many for recall)
COMPONENTS = ("span_precision", "span_recall")
# the formal property that is invariance to class priors: a change of one class's size changes nothing
PRIORS_PROPERTY = "uniform_class_change"

# criterion -> name in the text: the registry's (metaeval.verdict.criteria; a registered criterion joins it)
CRITERIA = CRITERION_NAMES

SCOPE_NAMES = {"these_systems": "these systems", "new_systems": "new systems"}
_SCOPE_HOW = {"these_systems": "the test {unit} resampled, the systems kept",
              "new_systems": "the test {unit} and the systems resampled together"}



def display_name(mid: str) -> str:
    """A metric's name for people: its short name and, where it has one,
    the name it is also known by (``R^M (balanced accuracy)``)."""
    m = M.get(mid)
    alias = getattr(m, "alias", "")
    return f"{m.name} ({alias})" if alias else m.name


def _name(mid: str) -> str:
    return M.get(mid).name


def _and(items: Sequence[str], word: str = "and") -> str:
    items = list(items)
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


# ---------------------------------------------------------------------------
# what people read
# ---------------------------------------------------------------------------
def _game_text(g: Mapping, alpha: float = default_of("alpha")) -> str:
    """How a degenerate system games a metric, in words (its Holm p-value
    never rounded onto the gameability test's level, the family's alpha)."""
    better = "higher" if M.get(g["metric"]).higher_is_better else "lower"
    p = g.get("p_holm")
    return (f"the degenerate system {g['degenerate']} scores {g['score']:.3f} against the median real system's "
            f"{g['median_real']:.3f} ({better} is better)"
            + (f", p = {format_p(p, (alpha,))} (Holm)" if p is not None and np.isfinite(p) else ""))


def relevant_properties(ordinal_data: bool, imbalanced: bool) -> list[str]:
    """The formal properties (``metaeval.measures.properties``) offered as
    requirements on a dataset: always a best value reached by perfect
    output only, strict monotonicity, independence of the test set's size,
    a constant chance level and invariance to class priors
    (``uniform_class_change``); for ordered classes Amigo et al.'s ordinal
    invariance and monotonicity, for unordered ones the exchange of classes;
    for imbalanced data Amigo et al.'s imbalance (they state it for ordinal
    classes, but what it asks, that an error on a small class cost more
    than the same error on a large one, is what rare unordered classes such
    as RumourEval's deny need too)."""
    out = ["maximal_agreement", "monotonicity", "uniform_change", "constant_baseline", PRIORS_PROPERTY]
    out += ["ordinal_invariance", "ordinal_monotonicity"] if ordinal_data else ["class_exchange"]
    if imbalanced:
        out += ["imbalance"]
    return out


def is_imbalanced(gold_counts) -> bool:
    n = np.asarray([c for c in gold_counts if c > 0], dtype=float)
    return n.size >= 2 and n.max() >= IMBALANCE_RATIO * n.min()


def applicable_criteria(wanted: Sequence[str], *, has_classes: bool, k: int, ordinal_data: bool,
                        imbalanced: bool) -> tuple[list[str], dict[str, str]]:
    """The evidence criteria of ``wanted`` this dataset has, and why each
    other one is left out (each criterion says when it does not count:
    ``Criterion.left_out``)."""
    unknown = [c for c in wanted if c not in REGISTRY]
    if unknown:
        raise ValueError(f"criteria {unknown}: not a criterion; the criteria: {', '.join(REGISTRY)}")
    why = {}
    for c, crit in REGISTRY.items():
        reason = crit.left_out(has_classes=has_classes, k=k, ordinal_data=ordinal_data, imbalanced=imbalanced)
        if reason is None and c not in wanted:
            reason = "not among the configured criteria (experiments.criteria)"
        if reason is not None:
            why[c] = reason
    return [c for c in wanted if c not in why], why


@dataclass
class Requirement:
    """A formal property as a requirement: ``declared`` by the user or only
    offered; the candidates that meet it (``holds``: the property holds, or
    is not applicable to them, on this dataset's shape) and those that fail
    it, and the headline answer if it were required (``answer``)."""

    id: str
    declared: bool
    holds: list[str]
    fails: list[str]
    answer: list[str]
    # the metrics the properties were not checked for (metrics of per-item terms, span metrics): they cannot be
    # shown to meet it, so requiring it leaves them out
    unchecked: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        from ..measures.properties import PROPERTIES

        return PROPERTIES[self.id].name


@dataclass
class Standing:
    """Where one metric stands in one scope: ``status`` (``answer``: in the
    answer; ``eliminated``: a candidate not kept on some criterion;
    ``vetoed``, ``excluded`` or ``not computed``: not a candidate, with
    ``why``), and per criterion it takes part in (``criteria``): ``kept``,
    its MCS p-value ``p`` and, where it is eliminated, the best kept metric
    ``best`` with the difference ``d`` and its interval ``[low, high]`` at
    the criterion's level (1 - alpha / C)."""

    metric: str
    status: str
    why: str = ""
    criteria: dict = field(default_factory=dict)

    def eliminated_on(self) -> list[str]:
        return [c for c, x in self.criteria.items() if not x["kept"]]


@dataclass
class Recommendation:
    """What ``recommend`` returns; every output is drawn from it."""

    metrics: list[str]
    criteria: list[str]
    value: np.ndarray  # (C, M) point values (full data, real systems)
    low: dict  # scope -> (C, M) interval of the scope's replicates (criteria.CriteriaResult)
    high: dict
    n_undefined: dict  # scope -> (C, M) resamples where undefined
    replicates: int
    candidate: np.ndarray  # (M,) not vetoed nor excluded
    admissible: np.ndarray  # (M,) candidates meeting the declared requirements
    exempt: np.ndarray  # (C, M) not judged on a criterion (invariant to the priors)
    sets: dict  # scope -> verdict.EvidenceSets
    headline: str  # the scope of the answer
    selected: list[str]  # the headline answer
    excluded: dict[str, str]  # metric -> why it cannot be a candidate
    left_out: dict[str, str]  # criterion -> why it does not count here
    gameable: list[dict]  # vetoed: the gameability test's worst row per metric
    borderline: list[dict]  # a degenerate system beats the median on the test set, not significantly
    requirements: list[Requirement]
    official: Standing | None
    official_source: str
    papers: list[tuple[str, list[Standing]]]  # (source, the standings of the metrics it chose)
    with_baselines: list[str] | None  # the headline answer with the ranked baselines among the systems
    baselines: list[str]
    n_systems: int  # ranked real systems
    n_units: int
    unit: str  # "items", "groups", "documents"
    separation: dict | None  # the answer's closest pair and what would separate it
    failed: dict[str, list[str]]  # metric -> offered properties it fails on this dataset's shape
    settings: dict = field(default_factory=dict)
    n_synthetic: int = 0  # of the n_systems, generated ones (metaeval.measures.spans.synthetic_systems)
    set_aside: list[str] = field(default_factory=list)  # real systems identical to a degenerate one (gameability)
    notes: list[str] = field(default_factory=list)
    # (C, M) criteria a metric's definition leaves undefined (scores.registry.not_defined: MAP has no class prior):
    # judged on the others, said on the page
    undefined: np.ndarray | None = None
    # the declared priorities (criteria, in order; metaeval.verdict.tradeoff) and, per scope, how its answer was reached
    priorities: list[str] = field(default_factory=list)
    decisions: dict = field(default_factory=dict)  # scope -> tradeoff.Decision
    standings: dict = field(default_factory=dict)  # admissible metric -> its Standing in the headline scope

    def size_metrics(self) -> list[str]:
        """The metrics the test-set size sentence speaks of: the answer when
        it has one to three metrics, else the official metric when it is a
        candidate."""
        if 1 <= len(self.selected) <= 3:
            return list(self.selected)
        o = self.official
        return [o.metric] if o is not None and o.status in ("answer", "eliminated") else []

    def answer(self, scope: str | None = None) -> list[str]:
        """The answer of a scope (default the headline's): the metrics kept
        on every criterion; when none is, those kept on the most criteria,
        or the declared priorities' answer (``decision``)."""
        return [m for m, a in zip(self.metrics, self.decision(scope).answer) if a]

    def decision(self, scope: str | None = None) -> Decision:
        """How a scope's answer was reached (``tradeoff.decide``)."""
        scope = scope or self.headline
        if scope not in self.decisions:
            self.decisions[scope] = decide(self.sets[scope], self.priorities)
        return self.decisions[scope]

    def if_first(self, scope: str | None = None) -> dict[str, list[str]]:
        """Per criterion that counts, the answer with it put first (the
        others in the table's order): what each single priority gives."""
        return {c: [m for m, a in zip(self.metrics, ans) if a]
                for c, ans in if_first(self.sets[scope or self.headline]).items()}

    def tradeoff(self, scope: str | None = None) -> list[tuple[list[str], list[str]]]:
        """When no metric is kept on every criterion: ``[(criteria, the
        answer with any of them first), ...]`` for the criteria that
        eliminate a metric kept on the most criteria."""
        return [(list(cs), [m for m, a in zip(self.metrics, ans) if a])
                for cs, ans in trade_off(self.sets[scope or self.headline])]

    @property
    def separable(self) -> bool:
        """False when every candidate is kept on every criterion of the headline scope."""
        return self.sets[self.headline].separable


# ---------------------------------------------------------------------------
# the verdict
# ---------------------------------------------------------------------------
def _rows(res, crit: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(C, M) point values and (B, C, M) replicates of ``crit``."""
    idx = [list(res.criteria).index(c) for c in crit]
    return res.value[idx], res.boot[:, idx]


def _standing(mid: str, metrics, sets: EvidenceSets, value, boot, excluded, vetoed, not_computed,
              exempt, answer) -> Standing:
    if mid in not_computed:
        return Standing(mid, "not computed", not_computed[mid])
    if mid in vetoed:
        return Standing(mid, "vetoed", vetoed[mid])
    if mid in excluded:
        return Standing(mid, "excluded", excluded[mid])
    i = metrics.index(mid)
    if not sets.admissible[i]:
        return Standing(mid, "excluded", "fails a declared requirement")
    out = {}
    for c in np.flatnonzero(sets.counted):
        crit = sets.criteria[c]
        if exempt[c, i]:
            continue
        kept = bool(sets.members[c, i])
        row = {"kept": kept, "p": float(sets.p_value[c, i])}
        if not kept:  # the best kept metric, and by how much it is better
            cand = np.flatnonzero(sets.members[c])
            j = int(cand[np.argmax(value[c, cand])])
            d, lo, hi, _ = paired_interval(value[c], boot[:, c], j, i, 1 - sets.alpha_c)
            row.update(best=metrics[j], d=d, low=lo, high=hi)
        out[crit] = row
    return Standing(mid, "answer" if answer[i] else "eliminated", "", out)


def recommend(results, *, criteria: Sequence[str], left_out: Mapping[str, str] | None = None,
              properties: pd.DataFrame | None = None, offered: Sequence[str] = (),
              requirements: Sequence[str] = (), gameability: pd.DataFrame | None = None,
              baselines: Sequence[str] = (), alpha: float = default_of("alpha"), headline: str = default_of("verdict_scope"),
              official: str | None = None, official_source: str = "", not_computed: Mapping[str, str] | None = None,
              papers: Sequence[Mapping] = (), n_units: int = 0, unit: str = "items",
              max_undefined: float = MAX_UNDEFINED, power_test: str = "", n_synthetic: int = 0,
              mc_level: float = default_of("verdict_mc_level"), priorities: Sequence[str] = ()) -> Recommendation:
    """The verdict from the criteria's point values and replicates.

    ``results``: ``{(scheme, subset): criteria.CriteriaResult}`` with the
    schemes ``items`` and ``both`` of the subset ``real`` (the real
    systems) and, when baselines are ranked, the subset ``all``;
    ``criteria``: the evidence criteria that count (``applicable_criteria``),
    ``left_out`` saying why the others do not; ``properties``: the
    dataset's ``properties.csv`` (its own shape); ``offered``: the
    properties offered as requirements (``relevant_properties``),
    ``requirements`` the declared ones; ``gameability``: the dataset's
    ``gameability.csv``; ``alpha``: the family's level (``verdict_alpha``);
    ``headline``: the scope of the answer; ``official``,
    ``official_source``: the task's own metric; ``not_computed``: metric
    -> why it is not computed here (an official or paper metric the dataset
    cannot compute); ``papers``: ``({"metrics": ..., "source": ...}, ...)``;
    ``mc_level``: the Monte Carlo doubt an elimination must be beyond
    (``verdict_mc_level``, ``verdict.mc_upper``); ``priorities``: the
    criteria in the order the user declares them (``tradeoff.decide``: the
    answer when no metric is kept on every criterion)."""
    from ..methods.gameability import gameable as game_rows

    real = {sc: results[sc, "real"] for sc in ("items", "both") if (sc, "real") in results}
    first = next(iter(real.values()))
    metrics = list(first.metrics)
    crit = [c for c in criteria if c in first.criteria]
    m = len(metrics)
    value = _rows(first, crit)[0]
    boots = {scope: _rows(real[SCHEME[scope]], crit)[1] for scope in SCOPES if SCHEME[scope] in real}
    if headline not in boots:
        raise ValueError(f"the headline scope {headline!r} needs the {SCHEME[headline]!r} resamples")

    # the candidates
    excluded: dict[str, str] = {}
    vetoed_rows = [] if gameability is None else game_rows(gameability).to_dict("records")
    border_rows = [] if gameability is None else game_rows(gameability, "borderline").to_dict("records")
    vetoed = {g["metric"]: f"gameable: {_game_text(g, alpha)}"
              for g in vetoed_rows}

    from ..measures.scores.registry import not_defined

    undefined = np.array([[bool(not_defined(mid, c)) for mid in metrics] for c in crit], dtype=bool).reshape(
        len(crit), m)

    def ill_defined(b, i):  # the criteria undefined in too many of a scope's resamples
        return [CRITERIA[c] for ci, (c, n) in enumerate(zip(crit, np.isnan(b[:, :, i]).sum(0)))
                if n > max_undefined * b.shape[0] and not undefined[ci, i]]

    for i, mid in enumerate(metrics):
        if mid in COMPONENTS:
            excluded[mid] = "span precision or recall alone rewards a degenerate system (few spans, or many)"
        elif mid in vetoed:
            excluded[mid] = vetoed[mid]
        elif np.isnan(value[~undefined[:, i], i]).any():
            excluded[mid] = "no value on " + _and([CRITERIA[c] for ci, (c, v) in enumerate(zip(crit, value[:, i]))
                                                   if np.isnan(v) and not undefined[ci, i]])
        elif ill_defined(boots[headline], i):
            excluded[mid] = (f"{_and(ill_defined(boots[headline], i))} undefined in more than {max_undefined:.0%} of "
                             f"the resamples of {SCOPE_NAMES[headline]} (ill-defined at this sample size)")
    # in the other scope, a metric ill-defined there is not judged there (said with that scope's answer)
    ill = {scope: np.array([bool(ill_defined(b, i)) for i in range(m)]) for scope, b in boots.items()}
    candidate = np.array([mid not in excluded for mid in metrics])

    # the requirements, on this dataset's shape
    held = _held(properties, metrics)
    checked = {mid for mid, _ in held}  # the metrics the properties were checked for (not span metrics)
    failed = {mid: [p for p in offered if held.get((mid, p)) is False] for mid in metrics if mid in checked}
    missing = [r for r in requirements if not any((mid, r) in held for mid in metrics)]
    if missing:
        raise ValueError(f"requirements {missing}: the formal properties of this dataset's shape are not "
                         "available (properties.enabled: false, or properties=False)")
    # a metric the properties were not checked for (a metric of per-item terms) cannot be shown to meet one
    unchecked = [mid for mid in metrics if checked and mid not in checked]
    meets = {r: np.array([held.get((mid, r), True) is not False and mid not in unchecked for mid in metrics])
             for r in list(offered) + list(requirements)}
    declared = np.ones(m, bool)
    for r in requirements:
        declared &= meets[r]
    admissible = candidate & declared

    # exempt from the priors criterion: invariant to the class priors by construction
    exempt = np.zeros((len(crit), m), bool)
    if "priors" in crit:
        c = crit.index("priors")
        # without the property (no properties, or a metric they do not cover: a metric of scores), the data
        # decide: exactly 1 on the data and on every resample of every scope
        by_data = (value[c] == 1) & np.all([np.all((b[:, c] == 1) | np.isnan(b[:, c]), axis=0)
                                            for b in boots.values()], axis=0)
        exempt[c] = [held[(mid, PRIORS_PROPERTY)] is True if (mid, PRIORS_PROPERTY) in held else bool(by_data[i])
                     for i, mid in enumerate(metrics)]
    judged_apart = exempt | undefined  # not judged on a criterion: invariant to it, or it is not defined for them

    sets = {scope: evidence_sets(value, b, admissible & ~ill[scope], alpha, judged_apart, crit, mc_level)
            for scope, b in boots.items()}
    hs, hb = sets[headline], boots[headline]
    priorities = list(priorities)
    unknown = [c for c in priorities if c not in CRITERIA]
    if unknown:
        raise ValueError(f"priorities {unknown}: not a criterion; the criteria: {', '.join(CRITERIA)}")
    decisions = {scope: decide(x, priorities) for scope, x in sets.items()}
    selected = [mid for mid, a in zip(metrics, decisions[headline].answer) if a]

    reqs = []
    for r in dict.fromkeys(list(requirements) + list(offered)):
        ok = meets[r]
        ans = decide(evidence_sets(value, hb, admissible & ok, alpha, judged_apart, crit, mc_level), priorities).answer
        reqs.append(Requirement(r, r in requirements, [mid for mid, x in zip(metrics, ok) if x and candidate[
            metrics.index(mid)]], [mid for mid, x in zip(metrics, ok) if not x and mid not in unchecked],
                                [mid for mid, a in zip(metrics, ans) if a], [m_ for m_ in unchecked]))

    nc = dict(not_computed or {})

    def standing(mid):
        return _standing(mid, metrics, hs, value, hb, excluded, vetoed, nc, judged_apart,
                         decisions[headline].answer) if mid in metrics or mid in nc \
            else Standing(mid, "not computed", "not among this dataset's metrics")

    off = standing(official) if official else None
    # every admissible metric's standing: where it is eliminated, by whom and by how much (the trade-off's numbers)
    standings = {mid: standing(mid) for mid, a in zip(metrics, admissible) if a}
    paper_rows = [(str(p["source"]), [standing(mid) for mid in p["metrics"]]) for p in papers]

    with_b = None
    if (SCHEME[headline], "all") in results and baselines:
        ball = results[SCHEME[headline], "all"]
        bv, bb = _rows(ball, crit)
        with_b = [mid for mid, a in zip(metrics, decide(evidence_sets(bv, bb, admissible, alpha, judged_apart, crit,
                                                                      mc_level), priorities).answer) if a]

    # the real systems ranked (the items scheme's, when both scopes are there)
    n_sys = int(first.system_draws.shape[1]) if first.system_draws is not None else 0
    separation = None
    pair = closest_pair(hs, value, hb) if hs.answer.sum() >= 2 else None
    if pair is not None:  # (the units' exponent: 1/2 until recommend_dataset measures it on the data)
        separation = {"criterion": pair.criterion, "c": pair.c, "better": metrics[pair.i], "worse": metrics[pair.j],
                      "i": pair.i, "j": pair.j, "d": pair.d, "se": pair.se, "t": pair.t, "critical": pair.critical,
                      "exponent": 0.5, "exponent_measured": False,
                      # (no test-set size given: no number of units to scale)
                      "units_needed": units_needed(pair, n_units) if n_units > 0 else None}
        if set(boots) >= {"these_systems", "new_systems"}:
            c = pair.c
            se_i = paired_interval(value[c], boots["these_systems"][:, c], pair.i, pair.j, 0.95)[3]
            se_b = paired_interval(value[c], boots["new_systems"][:, c], pair.i, pair.j, 0.95)[3]
            separation["systems_needed"] = systems_needed(pair, se_i, se_b, n_sys)

    rows_of = {scope: [list(real[SCHEME[scope]].criteria).index(c) for c in crit] for scope in boots}
    lows = {scope: real[SCHEME[scope]].low[rows_of[scope]] for scope in boots}
    highs = {scope: real[SCHEME[scope]].high[rows_of[scope]] for scope in boots}
    nans = {scope: np.isnan(b).sum(axis=0) for scope, b in boots.items()}
    settings = {"criteria": crit, "verdict_alpha": alpha, "alpha_c": {s: x.alpha_c for s, x in sets.items()},
                "headline": headline, "max_undefined": max_undefined, "replicates": int(first.boot.shape[0]),
                "confidence": first.confidence, "power_test": power_test, "requirements": list(requirements),
                "priorities": priorities}
    aside = sorted({x for v in ([] if gameability is None or "set_aside" not in gameability.columns
                                else gameability["set_aside"].dropna()) for x in str(v).split("; ") if x})
    return Recommendation(metrics, crit, value, lows, highs, nans, int(first.boot.shape[0]), candidate, admissible,
                          exempt, sets, headline, selected, excluded, dict(left_out or {}), vetoed_rows, border_rows,
                          reqs, off, official_source, paper_rows, with_b, list(baselines), n_sys, int(n_units), unit,
                          separation, failed, settings, int(n_synthetic), aside, undefined=undefined,
                          priorities=priorities, decisions=decisions, standings=standings)


def _held(properties: pd.DataFrame | None, metrics) -> dict[tuple[str, str], bool]:
    """(metric, property) -> True (holds, or not applicable), False (fails)."""
    if properties is None or not len(properties):
        return {}
    p = properties[properties["metric"].isin(metrics)]
    return {(r.metric, r.property): r.result != "fails" for r in p.itertuples(index=False)}


def _criteria_setup(ds, spec, settings) -> dict:
    """What the criteria of a dataset's recommendation are computed on: the
    scorer of its ranked systems, the criteria that apply (and those left
    out), their ``CriteriaSpec``, the subsets of systems (``real``, and
    ``all`` with the ranked baselines), the strata and the (scheme, subset)
    pairs computed.  ``recommend_dataset`` and ``criteria_shard`` share it,
    so a shard draws exactly the replicates the whole would."""
    from .criteria import CriteriaSpec
    from ..data.dataset import RANKED_KINDS
    from ..methods.scorer import Scorer, select_systems

    sel = select_systems(ds, settings.include_baselines)
    scorer = Scorer(ds, spec, sel, settings.resample_unit)
    has_classes = bool(scorer.cls_ids)
    counts = np.bincount(ds.gold, minlength=ds.k) if has_classes else np.array([])
    imbalanced = has_classes and is_imbalanced(counts)
    crit, left_out = applicable_criteria(settings.criteria, has_classes=has_classes, k=spec.k,
                                         ordinal_data=bool(spec.ordinal), imbalanced=imbalanced)
    extra = {}  # the settings each criterion reads (a span identification step is not given the noise settings)
    for c in crit:
        extra.update(REGISTRY[c].spec_settings(settings, spec))
    cs = CriteriaSpec(criteria=tuple(crit), replicates=settings.criteria_replicates,
                      inner_splits=settings.criteria_splits, seed=settings.criteria_seed,
                      point_splits=settings.n_splits, split_seed=settings.split_seed,
                      tau_variant=settings.tau_variant, alpha=settings.alpha,
                      correction=settings.significance_correction,
                      chunk_size=max(1, settings.chunk_size // 4), **extra)
    strata = ds.gold if settings.stratified else None
    real = np.array([i for i, j in enumerate(sel) if ds.kinds[j] in RANKED_KINDS])
    baselines = [ds.systems[j] for j in sel if ds.kinds[j] not in RANKED_KINDS]
    if real.size < 2:
        raise ValueError(f"dataset {spec.name!r}: {real.size} real system(s) ranked; the verdict compares rankings "
                         "of real systems (at least two)")
    subsets = {"real": real}
    if baselines:
        subsets["all"] = np.arange(sel.size)
    # both scopes of the real systems; the variant with the baselines in the headline scope only
    only = {("items", "real"), ("both", "real"), (SCHEME[settings.verdict_scope], "all")}
    return dict(sel=sel, scorer=scorer, has_classes=has_classes, imbalanced=imbalanced, crit=crit,
                left_out=left_out, cs=cs, strata=strata, baselines=baselines, subsets=subsets, only=only)


def criteria_shard(ds, spec, settings, shard: int, n_shards: int) -> dict:
    """Shard ``shard`` of ``n_shards`` of a dataset's criteria resamples
    (``criteria.replicate_rows`` of ``criteria.replicate_shards``' part): the
    workflow runs the shards side by side and the recommendation gathers
    them (``recommend_dataset(..., criteria_parts=...)``), the same bits as
    one job drawing them all."""
    from .criteria.compute import replicate_rows, replicate_shards

    st = _criteria_setup(ds, spec, settings)
    parts = replicate_shards(st["cs"], st["scorer"].n_units, n_shards)
    rows = parts[shard] if shard < len(parts) else np.zeros(0, dtype=np.int64)
    return replicate_rows(st["scorer"], st["cs"], rows, subsets=st["subsets"], schemes=("items", "both"),
                          strata=st["strata"], only=st["only"])


def recommend_dataset(ds, spec, settings, *, properties: pd.DataFrame | None = None,
                      gameability: pd.DataFrame | None = None,
                      requirements: Sequence[str] | None = None,
                      priorities: Sequence[str] | None = None,
                      criteria_parts: Sequence[Mapping] | None = None) -> Recommendation:
    """The recommendation of a loaded dataset (``dataset.Dataset``) with its
    spec and experiment settings (``experiments.Settings``): the criteria
    (``criteria.criteria``) of its real systems in both scopes, and of all
    its ranked systems (baselines included: the variant) when it ranks
    baselines; then ``recommend``.  ``properties``: the dataset's own
    ``properties.csv`` (``properties.dataset_settings``); ``gameability``:
    its ``gameability.csv``; ``requirements``: the declared requirements
    (default the spec's ``requirements``); ``priorities``: the declared
    order of the criteria (default the spec's ``priorities``);
    ``criteria_parts``: the criteria's resamples drawn already
    (``criteria_shard`` of every shard)."""
    from .criteria import criteria as compute

    st = _criteria_setup(ds, spec, settings)
    sel, scorer, has_classes, imbalanced = st["sel"], st["scorer"], st["has_classes"], st["imbalanced"]
    crit, left_out, cs, strata, baselines = st["crit"], st["left_out"], st["cs"], st["strata"], st["baselines"]
    res = compute(scorer, cs, subsets=st["subsets"], schemes=("items", "both"), strata=strata,
                  confidence=settings.confidence, only=st["only"],
                  parts=None if criteria_parts is None else [dict(p) for p in criteria_parts])
    offered = relevant_properties(bool(spec.ordinal), imbalanced) if has_classes and properties is not None else []
    adjusted = {"holm": ", Holm-adjusted over the pairs of each resample", "bh": ", Benjamini-Hochberg-adjusted "
                "over the pairs of each resample", "none": ", not adjusted"}[settings.significance_correction]
    power_test = (f"two-sided z-tests of each pair's difference over its bootstrap standard error (null "
                  f"hypothesis: the two systems score alike in expectation), at alpha "
                  f"{settings.alpha:g}{adjusted}; the experiments' discriminative_power.csv uses "
                  f"{'the randomised Tukey HSD' if settings.significance_test == 'tukey' else 'the paired bootstrap test'}"
                  ", too costly to repeat in every resample")
    params = spec.metric_params() if has_classes else {}
    named = ([spec.official_metric] if spec.official_metric else []) + [x for p in spec.paper_choices
                                                                        for x in p["metrics"]]
    not_computed = {}
    needs = {"unrelated": "an unrelated class, which this dataset's classes do not have",
             "weights": "class weights, which this dataset does not set",
             "f_avg_classes": "the classes it averages, which this dataset does not set",
             "positive": "a named class (positive_class), which this dataset does not set"}
    for mid in named:
        if mid not in spec.all_metrics:
            m_ = M.REGISTRY.get(mid)
            missing = [p for p in (m_.params if m_ else ()) if params.get(p) is None]
            if m_ is not None and m_.ordinal and not spec.ordinal:
                not_computed[mid] = "it needs ordered classes; this dataset's are unordered"
            elif missing:
                not_computed[mid] = "it needs " + _and([needs.get(p, p) for p in missing])
            else:
                not_computed[mid] = "not a metric of this kind of task"
    unit = ("documents" if spec.span_task else "groups") if settings.resample_unit == "group" else "items"
    n_syn = int(sum(ds.kinds[j] == "synthetic" for j in sel))
    rec = recommend(res, criteria=crit, left_out=left_out, properties=properties, offered=offered,
                    requirements=tuple(spec.requirements if requirements is None else requirements),
                    gameability=gameability, baselines=baselines, alpha=settings.verdict_alpha, mc_level=settings.verdict_mc_level,
                    headline=settings.verdict_scope, official=spec.official_metric,
                    official_source=spec.official_source, not_computed=not_computed, papers=spec.paper_choices,
                    n_units=int(scorer.n_units), unit=unit, power_test=power_test, n_synthetic=n_syn,
                    priorities=tuple(spec.priorities if priorities is None else priorities))
    if rec.separation is not None and not spec.span_task:
        _measure_unit_exponent(rec, ds, spec, settings, sel, cs, res["items", "real"].boot, strata is not None)
    return rec


def _measure_unit_exponent(rec: Recommendation, ds, spec, settings, sel, cs, boot, stratified: bool) -> None:
    """How the paired standard error of the separation's criterion shrinks
    with the test units, measured on this dataset: its criteria on a random
    half of the units (items, or whole groups; seeded by criteria_seed),
    the median over the candidates' pairs of se(half) / se(all) = (n /
    n_half)^exponent; the units needed recomputed with it."""
    from dataclasses import replace

    from .criteria import criteria as compute
    from ..data.dataset import RANKED_KINDS
    from ..methods.scorer import Scorer
    from .evidence import Separation

    s = rec.separation
    rng = np.random.default_rng([int(settings.criteria_seed), 29])
    if settings.resample_unit == "group":
        g = len(ds.group_names)
        kept_groups = np.sort(rng.permutation(g)[: g // 2])
        keep = np.flatnonzero(np.isin(ds.groups, kept_groups))
        code = np.full(g, -1)
        code[kept_groups] = np.arange(kept_groups.size)
        half = replace(ds, item_ids=ds.item_ids[keep], gold=ds.gold[keep], predictions=ds.predictions[:, keep],
                       groups=code[ds.groups[keep]].astype(ds.groups.dtype),
                       group_names=tuple(ds.group_names[i] for i in kept_groups))
        n_full, n_half = g, kept_groups.size
    else:
        keep = np.sort(rng.permutation(ds.n_items)[: ds.n_items // 2])
        half = replace(ds, item_ids=ds.item_ids[keep], gold=ds.gold[keep], predictions=ds.predictions[:, keep],
                       groups=None if ds.groups is None else ds.groups[keep])
        n_full, n_half = ds.n_items, keep.size
    if n_half < 2 or len(np.unique(half.gold)) < len(np.unique(ds.gold)):
        return
    real = np.array([i for i, j in enumerate(sel) if ds.kinds[j] in RANKED_KINDS])
    c_name = s["criterion"]
    try:  # (200 resamples: a ratio of standard errors, not a test)
        res = compute(Scorer(half, spec, sel, settings.resample_unit),
                      replace(cs, criteria=(c_name,), replicates=min(cs.replicates, 200)),
                      subsets={"real": real}, schemes=("items",), strata=half.gold if stratified else None)
    except ValueError:  # a half too small for the criterion
        return
    hb = res["items", "real"].boot[:, 0]
    fb = boot[:, list(rec.criteria).index(c_name)]
    cand = np.flatnonzero(rec.candidate)
    ratios = []
    for a_ in range(cand.size):
        for z_ in range(a_ + 1, cand.size):
            i, j = cand[a_], cand[z_]
            se_f, se_h = np.nanstd(fb[:, i] - fb[:, j], ddof=1), np.nanstd(hb[:, i] - hb[:, j], ddof=1)
            if se_f > 1e-9 and np.isfinite(se_h):
                ratios.append(se_h / se_f)
    if not ratios:
        return
    ratio = float(np.median(ratios))
    exponent = float(np.log(ratio) / np.log(n_full / n_half)) if ratio > 0 else 0.0
    pair = Separation(s["c"], c_name, s["i"], s["j"], s["d"], s["se"], s["t"], s["critical"])
    s.update(exponent=exponent, exponent_measured=True, se_ratio_half=ratio,
             units_needed=units_needed(pair, rec.n_units, exponent))
