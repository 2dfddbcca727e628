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

import json
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..settings import CRITERION_NAMES, default_of
from ..present.tables import format_p, markdown_table, md_escape, plural
from .criteria import REGISTRY
from .criteria.priors import IMBALANCE_RATIO
from .tradeoff import Decision, decide, if_first, trade_off
from .evidence import (EvidenceSets, SCHEME, SCOPES, closest_pair, evidence_sets, paired_interval, systems_needed,
                       units_needed)

__all__ = ["CRITERIA", "IMBALANCE_RATIO", "COMPONENTS", "MAX_UNDEFINED", "FEW_SYSTEMS",
           "PRIORS_PROPERTY", "SCOPE_NAMES", "relevant_properties", "is_imbalanced", "applicable_criteria",
           "Requirement", "Standing", "Recommendation", "recommend", "answer_sentence", "headline_sentence",
           "answer_notes", "tradeoff_lines", "requirements_line", "sets_line", "grid_table", "numbers_table",
           "criteria_table", "systems_count", "ranked_systems_line", "MAX_WORDS", "recommendation_markdown",
           "recommendation_html", "recommendation_long", "recommendation_json", "dataset_context",
           "recommend_dataset", "recommendation_figure", "display_name"]

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


def _game_text(g: Mapping, alpha: float = default_of("alpha")) -> str:
    """How a degenerate system games a metric, in words (its Holm p-value
    never rounded onto the gameability test's level, the family's alpha)."""
    better = "higher" if M.get(g["metric"]).higher_is_better else "lower"
    p = g.get("p_holm")
    return (f"the degenerate system {g['degenerate']} scores {g['score']:.3f} against the median real system's "
            f"{g['median_real']:.3f} ({better} is better)"
            + (f", p = {format_p(p, (alpha,))} (Holm)" if p is not None and np.isfinite(p) else ""))


def _and(items: Sequence[str], word: str = "and") -> str:
    items = list(items)
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


# ---------------------------------------------------------------------------
# what people read
# ---------------------------------------------------------------------------
def _num(x: float) -> str:
    return f"{x:.3f}" if np.isfinite(x) else "n/a"


# the longest first sentence (words): the answer must be read at a glance, on a page and on the front page
MAX_WORDS = 40


def _words(text: str) -> int:
    return len(text.split())


def _p(rec: Recommendation, p: float, scope: str | None = None) -> str:
    """An MCS p-value, by the project's rule (``tables.format_p``), never
    rounded onto or across the criterion's level nor the family's."""
    s = rec.sets[scope or rec.headline]
    return format_p(p, (s.alpha_c, s.alpha))


def _names(mids: Sequence[str], word: str = "and") -> str:
    return _and([_name(m) for m in mids], word)


def _loss(st: Standing, crit: str) -> str:
    """``macro-F1 better by 0.176 [0.114, 0.239]``: who beats a metric on a
    criterion that eliminates it, by how much, with the interval at the
    criterion's level."""
    x = st.criteria[crit]
    return f"{_name(x['best'])} better by {_num(x['d'])} [{_num(x['low'])}, {_num(x['high'])}]"


def _official_clause(rec: Recommendation) -> str:
    """Where the official metric stands in the headline scope, in a few words."""
    o = rec.official
    if o is None:
        return ""
    name = display_name(o.metric)
    if o.status == "not computed":
        return f"the official {name} is not computed on this dataset ({o.why})"
    if o.status == "vetoed":
        return f"the official {name} is vetoed as gameable"
    if o.status == "excluded":
        return f"the official {name} cannot be a candidate ({o.why})"
    border = " (borderline gameable)" if any(g["metric"] == o.metric for g in rec.borderline) else ""
    out = [(c, x) for c, x in o.criteria.items() if not x["kept"]]
    if o.status == "answer":
        if rec.selected == [o.metric]:
            return "it is the official metric" + border
        if out:  # in an answer of k of C, or the priorities' one
            return (f"the official {name} is in the answer, not kept on {_and([CRITERIA[c] for c, _ in out])}"
                    + border)
        return f"the official {name} is kept too" + border
    if not out:
        return f"the official {name} is not in the answer"
    c, x = min(out, key=lambda cx: cx[1]["p"])
    more = f" and {len(out) - 1} more" if len(out) > 1 else ""
    return f"the official {name} is eliminated on {CRITERIA[c]}{more} ({_loss(o, c)}){border}"


def _scope_answer(rec: Recommendation, scope: str) -> str:
    """The answer of a scope other than the headline's, as a clause."""
    s = rec.sets[scope]
    d = rec.decision(scope)
    ans = rec.answer(scope)
    n_c = int(s.admissible.sum())
    where = SCOPE_NAMES[scope]
    if n_c == 0 and rec.admissible.any():  # every candidate ill-defined in this scope
        return (f"no metric can be judged for {where}: its criteria are undefined in more than "
                f"{rec.settings['max_undefined']:.0%} of the resamples (too few distinct "
                "systems or units drawn)")
    if d.c == 0:
        return (f"no criterion separates the {plural(n_c, 'candidate')} for {where}" if n_c > 1 else
                f"{_name(ans[0]) if ans else 'no metric'} is the only candidate")
    if d.kind == "k_of_c":
        return (f"no metric is kept on {_all_c(d.c)} for {where}; kept on {d.k}: "
                + (_names(ans) if len(ans) <= 8 else plural(len(ans), "metric")))
    if d.kind == "priorities":
        return f"under the declared priorities, {_names(ans, 'or')} for {where}"
    if len(ans) == 1:
        return f"{display_name(ans[0])} alone for {where}"
    if not s.separable:
        return f"the evidence does not separate the {plural(len(ans), 'candidate')} for {where}"
    return (f"the evidence keeps {len(ans)} of the {plural(n_c, 'candidate')} on every criterion for {where}"
            + (f": {_names(ans)}" if len(ans) <= 8 else ""))


def sets_line(rec: Recommendation, scope: str | None = None) -> str:
    """Who each criterion keeps, and the candidates kept on all criteria but one."""
    scope = scope or rec.headline
    s = rec.sets[scope]
    parts = []
    for c in np.flatnonzero(s.counted):
        kept = [rec.metrics[i] for i in np.flatnonzero(s.members[c])]
        n_in = int(s.participants[c].sum())
        parts.append(f"{CRITERIA[rec.criteria[c]]}: " + (_and([_name(x) for x in kept]) if len(kept) <= 4 else
                                                         f"{len(kept)} of {n_in}"))
    return f"Kept per criterion ({SCOPE_NAMES[scope]}): " + "; ".join(parts) + "."


def _all_c(c: int) -> str:
    """``both criteria``, ``all 5 criteria``."""
    return "both criteria" if c == 2 else f"all {c} criteria"


def _list(mids: Sequence[str], most: int = 4) -> str:
    """``A, B or C`` for a few metrics, ``one of 7 (A, B, ...)`` beyond ``most``."""
    return _names(mids, "or") if len(mids) <= most else f"one of {len(mids)} (listed below)"


def _first_sentence(rec: Recommendation) -> list[str]:
    """The candidates for the first sentence, the fullest first (``answer_sentence`` takes the first that fits)."""
    if not rec.criteria:
        return ["No metric can be recommended: none of the configured criteria counts on this dataset (the "
                "criteria that do not count, and why, are below)"]
    if not rec.candidate.any():
        return ["No metric can be recommended: every metric is excluded (below)"]
    if not rec.admissible.any():
        return ["No metric can be recommended: no candidate meets the declared requirements (below)"]
    s, d = rec.sets[rec.headline], rec.decision()
    ans = rec.answer()
    n_c = int(s.admissible.sum())
    counted = [rec.criteria[c] for c in np.flatnonzero(s.counted)]
    if n_c == 0:
        return [_scope_answer(rec, rec.headline)]
    if d.kind == "none":
        return ["No metric can be recommended (below)"]
    if d.c == 0:
        return [f"No criterion separates the {plural(n_c, 'candidate')}: report any of them" if n_c > 1 else
                f"Report {_name(ans[0])}: the only candidate"]
    if d.kind == "k_of_c":
        trade = rec.tradeoff()
        in_best = all(m in ans for _, metrics in trade for m in metrics)
        each = f" (each kept on {d.k} of {d.c})" if in_best else ""
        def clauses(most):
            parts = [f"{_list(metrics, most)} if {_and([CRITERIA[c] for c in cs], 'or')} "
                     + ("matters more" if i == 0 else "does") for i, (cs, metrics) in enumerate(trade)]
            return ", ".join(parts[:-1]) + ", or " + parts[-1] if len(parts) > 1 else parts[0]
        head = f"No metric is kept on {_all_c(d.c)}; report "
        if len(trade) >= 2:
            return [head + clauses(most) + each for most in (8, 4, 2, 1)] + [head + clauses(1)]
        # one criterion eliminates every metric kept on the most: they are the answer, and it the price
        cs, metrics = trade[0] if trade else ([], [])
        base = f"No metric is kept on {_all_c(d.c)}; report {_list(ans)} (kept on {d.k})"
        if not trade:
            return [base]
        return [f"No metric is kept on {_all_c(d.c)}; report {_list(ans, most)} (kept on {d.k}), or "
                f"{_list(metrics, most)} if {_and([CRITERIA[c] for c in cs], 'or')} matters more"
                for most in (8, 4, 2)] + [base]
    if d.kind == "priorities":
        first = d.sequential.order[0]
        skipped = list(d.sequential.skipped)
        rest = (f"; {_and([CRITERIA[c] for c in skipped])} skipped (would leave nothing)" if skipped else "")
        sep = " (the evidence does not separate them)" if len(ans) > 1 else ""
        return [f"Under the declared priorities ({CRITERIA[first]} first), report {_list(ans, most)}{sep}{rest}"
                for most in (8, 4)] + [
                f"Under the declared priorities ({CRITERIA[first]} first), report {_list(ans)}{sep}",
                f"Under the declared priorities, report {_list(ans, 2)}"]
    # the metrics kept on every criterion
    crit = _and([CRITERIA[c] for c in counted])
    if len(ans) == 1:
        how = "the only candidate kept on every criterion" if n_c > 1 else "the only candidate"
        return [f"Report {display_name(ans[0])}: {how} ({crit})", f"Report {display_name(ans[0])}: {how}"]
    if not s.separable:
        if len(ans) <= 4:
            return [f"Report {_names(ans, 'or')}: the evidence does not separate them (each is kept on every "
                    "criterion)"]
        return [f"The evidence does not separate the {plural(len(ans), 'candidate')}: every one is kept on every "
                "criterion (report any; the table lists them)"]
    if len(ans) <= 4:
        return [f"Report {_names(ans, 'or')}: each is kept on every criterion ({crit}), and the evidence does not "
                "separate them", f"Report {_names(ans, 'or')}: each is kept on every criterion, and the evidence "
                "does not separate them"]
    out = [i for i in np.flatnonzero(s.admissible & ~d.answer)]
    by: dict[tuple, list[str]] = {}
    for i in out:  # metrics eliminated on the same criteria together
        where_i = tuple(CRITERIA[rec.criteria[c]] for c in np.flatnonzero(s.counted)
                        if s.participants[c, i] and not s.members[c, i])
        by.setdefault(where_i, []).append(_name(rec.metrics[i]))
    lost = "; ".join(f"{_and(names)} on {_and(list(cr))}" for cr, names in by.items())
    return [f"Report any of {_names(ans, 'or')}: the evidence keeps these {len(ans)} of the "
            f"{plural(n_c, 'candidate')} on every criterion and eliminates only {lost}",
            f"Report any of {_names(ans, 'or')}: the evidence keeps these {len(ans)} of the "
            f"{plural(n_c, 'candidate')} on every criterion",
            f"The evidence keeps {len(ans)} of the {plural(n_c, 'candidate')} on every criterion (the table lists "
            "them)"]


def headline_sentence(rec: Recommendation) -> str:
    """The first sentence, at most ``MAX_WORDS`` words: the metrics to
    report (or the set) and, when no metric is kept on every criterion, the
    trade-off between the criteria (``tradeoff``)."""
    settings = getattr(rec, "settings", {})
    declared = list(settings.get("requirements", ()))
    options = _first_sentence(rec)
    if settings.get("headline", default_of("verdict_scope")) != SCOPES[0]:  # the scope chosen to head the page: said
        options = [f"For {SCOPE_NAMES[rec.headline]}: " + o[0].lower() + o[1:] for o in options]
    if declared and rec.admissible.any():  # the requirement narrowed the candidates before the evidence: said
        lead = (f"Among the metrics that meet the declared requirement{'s' if len(declared) > 1 else ''} "
                f"({_and(declared)}), ")
        options = [lead + o[0].lower() + o[1:] for o in options]
    # the fullest that fits, else the shortest (a requirement or a scope is never dropped to fit)
    text = next((o for o in options if _words(o) <= MAX_WORDS), min(options, key=_words))
    return text[0].upper() + text[1:] + "."


def answer_notes(rec: Recommendation) -> list[str]:
    """The sentences after the first: where the official metric stands, the
    other scope's answer when it differs, and a caution when few systems are
    ranked."""
    out = []
    off = _official_clause(rec)
    if off:
        out.append(off[0].upper() + off[1:] + ".")
    other = [sc for sc in SCOPES if sc != rec.headline and sc in rec.sets]
    if other and set(rec.answer(other[0])) != set(rec.selected):
        o = rec.sets[other[0]]
        ans = rec.answer(other[0])
        n_o = int(o.admissible.sum())
        d = rec.decision(other[0])
        short = ("not judged (ill-defined: too few distinct systems drawn)" if n_o == 0 else
                 f"all {len(ans)} kept" if ans and not o.separable else
                 f"{len(ans)} of {n_o} kept on {d.k} of {d.c} criteria" if d.kind == "k_of_c" else
                 f"{len(ans)} of {n_o} kept" if len(ans) > 1 else (display_name(ans[0]) if ans else "none kept"))
        out.append(f"For new systems: {short}." if other[0] == "new_systems" else
                   f"For {SCOPE_NAMES[other[0]]}: {short}.")
    if rec.n_systems and rec.n_systems < FEW_SYSTEMS:
        out.append(f"Tentative: {plural(rec.n_systems, 'real system')}.")
    return out


def answer_sentence(rec: Recommendation) -> str:
    """The answer as a paragraph: the first sentence (``headline_sentence``,
    at most 40 words), then ``answer_notes``."""
    return " ".join([headline_sentence(rec)] + answer_notes(rec))


def tradeoff_lines(rec: Recommendation) -> list[str]:
    """The trade-off, right under the answer: when no metric is kept on
    every criterion, the metrics kept on the most, each with the criteria
    that eliminate it and who beats it there (the difference, with its
    interval at the criterion's level); which answer each priority gives;
    how to declare one.  With declared priorities, the criteria applied and
    skipped.  Markdown lines; none when the answer needs no trade-off."""
    d = rec.decision()
    if d.kind not in ("k_of_c", "priorities") and not (rec.priorities and d.kind == "all"):
        return []
    if d.kind == "all":
        s = rec.sets[rec.headline]
        counted = {rec.criteria[c] for c in np.flatnonzero(s.counted)}
        ignored = [c for c in rec.priorities if c not in counted]
        applied = [c for c in rec.priorities if c in counted]
        text = (f"The declared priorities ({_and([CRITERIA.get(c, c) for c in applied])}) change nothing: the metrics "
                "kept on every criterion are the answer in every order." if applied else "")
        if ignored:
            text += (" " if text else "") + f"Declared but not counted here: {_and([CRITERIA.get(c, c) for c in ignored])}."
        return [md_escape(text), ""]
    lines = []
    best = [m for m, x in zip(rec.metrics, tradeoff_k_of_c(rec)) if x]
    lines += ["**The trade-off.** " + md_escape(f"The metrics kept on {d.k} of the {d.c} criteria, and where each "
                                                 "is eliminated:")]
    for m in best[:8]:
        st = rec.standings.get(m)
        lost = [c for c, x in (st.criteria.items() if st else []) if not x["kept"]]
        lines.append("- " + md_escape(f"{_name(m)}: not {_and([f'{CRITERIA[c]} ({_loss(st, c)})' for c in lost])}"))
    if len(best) > 8:
        lines.append("- " + md_escape(f"and {len(best) - 8} more (the table below)"))
    lines.append("")
    if d.kind == "priorities":
        seq = d.sequential
        declared = [c for c in rec.priorities if c not in seq.not_counted]
        text = (f"Under the declared priorities ({_and([CRITERIA[c] for c in declared])}, then the table's order): "
                f"{_names(rec.answer(), 'or')}" + (" (the evidence does not separate them)" if len(rec.answer()) > 1
                                                    else "")
                + ". Applied in turn: " + _and([CRITERIA[c] for c in seq.applied])
                + (f"; skipped, since its set would leave nothing: {_and([CRITERIA[c] for c in seq.skipped])}"
                   if seq.skipped else "")
                + (f"; declared but not counted here: {_and([CRITERIA.get(c, c) for c in seq.not_counted])}"
                   if seq.not_counted else "") + ".")
        return lines + [md_escape(text), ""]
    trade = rec.tradeoff()
    if trade:
        lines.append(md_escape(" ".join(f"If {_and([CRITERIA[c] for c in cs], 'or')} matters more: "
                                        f"{_names(ms, 'or')}." for cs, ms in trade)))
        lines.append("")
    firsts = rec.if_first()
    example = trade[0][0][0] if trade else next(iter(firsts), "stability")
    lines += [md_escape(f"To decide, declare which criterion matters most for this task: priorities: [{example}] in "
                        "the dataset's block of the config (library: priorities=[...]; command line: --priority "
                        f"{example}). Criteria: {', '.join(rec.criteria)}."), ""]
    return lines


def if_first_lines(rec: Recommendation) -> list[str]:
    """What each criterion put first gives (the others then in the table's
    order), one short line each: shown when no priorities are declared and
    no metric is kept on every criterion."""
    if rec.priorities or rec.decision().kind != "k_of_c":
        return []
    firsts = rec.if_first()
    if len(firsts) < 2:
        return []
    return ([md_escape("Each criterion put first (the others then in the table's order), as priorities would "
                       "declare it:")]
            + ["- " + md_escape(f"{c} first: {_names(ms, 'or')}") for c, ms in firsts.items()] + [""])


def tradeoff_k_of_c(rec: Recommendation, scope: str | None = None) -> np.ndarray:
    """(M,): the metrics kept on the most criteria of a scope (``tradeoff.k_of_c``)."""
    from .tradeoff import k_of_c

    return k_of_c(rec.sets[scope or rec.headline])[0]


def requirements_line(rec: Recommendation) -> str:
    """The requirements in one line: which are declared, and how many of
    those offered would change the answer (the details are further down)."""
    if not rec.requirements:
        return ""
    declared = [r.id for r in rec.requirements if r.declared]
    change = [r.id for r in rec.requirements if not r.declared and set(r.answer) != set(rec.selected)
              and [x for x in list(r.fails) + list(r.unchecked) if x in rec.metrics
                   and rec.candidate[rec.metrics.index(x)]]]
    head = (f"Requirements: {_and(declared)} declared (the answer meets {'it' if len(declared) == 1 else 'them'})"
            if declared else "Requirements: none declared")
    n_off = len(rec.requirements) - len(declared)
    if not n_off:
        return head + "."
    which = ("it" if n_off == 1 else "both" if n_off == 2 else f"all {n_off}") if len(change) == n_off else \
        f"{len(change)} of the {n_off}"
    return (head + (f"; {which} offered would change the answer ({_and(change)}): see Requirements below."
                    if change else "; declaring any of those offered would not change the answer (Requirements "
                                   "below)."))


def _requirement_line(rec: Recommendation, r: Requirement) -> tuple[str, str]:
    """(the requirement's name, what holds it and the answer if required)."""
    from ..measures.properties import PROPERTIES

    p = PROPERTIES[r.id]
    what = "invariance to class priors: " if r.id == PRIORS_PROPERTY else ""
    head = f"{what}{p.name}"
    fails = [display_name(x) for x in r.fails]
    body = (f"({r.id}; {p.source}; {'declared' if r.declared else 'not declared'}) "
            + (f"fails for {_and(fails)}" if fails else "every metric checked holds it" if r.unchecked
               else "every metric holds it")
            + (f"; not checked for {_and([display_name(x) for x in r.unchecked])} (the properties are of confusion "
               f"matrices), so requiring it leaves {'them' if len(r.unchecked) > 1 else 'it'} out"
               if r.unchecked else ""))
    if r.declared:
        tail = "the answer above meets it"
    elif not [x for x in list(r.fails) + list(r.unchecked) if rec.candidate[rec.metrics.index(x)]]:
        tail = "requiring it changes nothing" + (" (no candidate fails it)" if r.fails else "")
    elif set(r.answer) == set(rec.selected):
        tail = "if required, the same answer" + ("" if r.answer else " (no metric)")
    else:  # the sets recomputed among the metrics that meet it: the best among them, not the best of all
        n_meet = int(sum(rec.admissible[rec.metrics.index(x)] for x in r.holds))
        tail = (f"if required (the sets recomputed among the {plural(n_meet, 'candidate')} that "
                f"{'meets' if n_meet == 1 else 'meet'} it): "
                + (_and([display_name(x) for x in r.answer], "or") or "no metric"))
    return head, f"{body}; {tail}."


def _standing_text(st: Standing, rec: Recommendation | None = None) -> str:
    name = display_name(st.metric)
    if st.status in ("not computed", "vetoed", "excluded"):
        return f"{name} is {st.status}" + (f" ({st.why})" if st.why else "")
    out = [f"{CRITERIA[c]} ({_loss(st, c)}, p = {_p(rec, x['p']) if rec else format_p(x['p'])})"
           for c, x in st.criteria.items() if not x["kept"]]
    if not out:
        return f"{name} is kept on every criterion"
    return ((f"{name} is in the answer, " if st.status == "answer" else f"{name} is ")
            + f"eliminated on {_and(out)} (each difference with its interval at the criterion's level, "
            "1 - alpha / C)")


def _about(n: float) -> str:
    """A number to two significant figures (an extrapolation is no finer)."""
    if n < 100:
        return f"{n:,.0f}"
    k = 10 ** (len(str(int(n))) - 2)
    return f"{int(round(n / k) * k):,}"


def _separation_line(rec: Recommendation) -> str | None:
    s = rec.separation
    if not s:
        return None
    if s["d"] == 0:  # (two metrics whose criterion values coincide: nothing to extrapolate)
        return (f"The two closest members of the answer, {_name(s['better'])} and {_name(s['worse'])}, have the same "
                f"value on {CRITERIA[s['criterion']]}: no number of test {rec.unit} or of systems would separate "
                "them.")
    parts = []
    n = s.get("units_needed")
    if n is not None:
        how = (f"the paired standard error shrinks as n^-{s['exponent']:.2f} here, measured on a random half of "
               f"the {rec.unit}" if s.get("exponent_measured") else "the paired standard error taken to shrink as "
               "one over the square root of n, not measured here")
        if np.isfinite(n):
            parts.append(f"at about {_about(n)} test {rec.unit} with these systems ({how})")
        else:
            parts.append(f"with no number of test {rec.unit} ({how})")
    if s.get("systems_needed") is not None:
        m = s["systems_needed"]
        parts.append(f"with about {_about(m)} systems at this test-set size (an upper estimate: the systems' part of "
                     "the variance taken to shrink as 1/S)" if np.isfinite(m) else
                     "with no number of systems at this test-set size (the test set's own noise is too large)")
    return (f"The two closest members of the answer, {_name(s['better'])} and {_name(s['worse'])}, differ by "
            f"{_num(s['d'])} on {CRITERIA[s['criterion']]} (t = {s['t']:.2f}, critical value {s['critical']:.2f}); "
            "that difference, if it held, would separate them " + ", or ".join(parts) + ".")


def _order(rec: Recommendation, scope: str) -> list[int]:
    """The metrics in the tables' order: the answer first, then the
    candidates by the number of criteria they are kept on, then the rest."""
    from .tradeoff import kept_count

    d, n = rec.decision(scope), kept_count(rec.sets[scope])
    return sorted(range(len(rec.metrics)), key=lambda i: (not d.answer[i], not rec.candidate[i], -n[i], i))


def _status(rec: Recommendation, scope: str, i: int, short: bool = False) -> str:
    """A metric's status in a scope, in words (``short``: for the grid)."""
    from .tradeoff import kept_count

    s, d = rec.sets[scope], rec.decision(scope)
    mid = rec.metrics[i]
    n = int(kept_count(s)[i])
    if d.answer[i]:
        one = d.answer.sum() == 1
        word = "recommended" if one else "in the answer"
        return word if d.kind in ("all", "none") else f"{word} (kept on {n} of {d.c})"
    if mid in rec.excluded:
        why = rec.excluded[mid]
        return ("gameable" if why.startswith("gameable") else "excluded") if short else "excluded: " + why
    if not rec.admissible[i]:
        failed_req = [r.id for r in rec.requirements if r.declared and mid in r.fails]
        if short:
            return "fails a requirement" if failed_req else "not checked for a requirement"
        return ("fails a declared requirement (" + _and(failed_req) + ")") if failed_req else \
            ("not checked for a declared requirement (" + _and([r.id for r in rec.requirements if r.declared])
             + ": its properties are of confusion matrices)")
    if not s.admissible[i]:
        return "ill-defined here" if short else "not judged in this scope (its criteria are ill-defined here)"
    lost = [rec.criteria[c] for c in np.flatnonzero(s.counted) if s.participants[c, i] and not s.members[c, i]]
    if short:
        return f"kept on {n} of {d.c}"
    return f"kept on {n} of {d.c}; eliminated on " + _and([CRITERIA[c] for c in lost])


# the grid's marks
KEPT, OUT, APART = "✔", "✘", "–"


def grid_table(rec: Recommendation, scope: str | None = None) -> pd.DataFrame:
    """The verdict at a glance: per metric (the answer first) and criterion
    that counts, ✔ kept, ✘ eliminated, – not judged (invariant by
    construction, or the criterion is not defined for it), empty for a
    metric that is not a candidate; and its status.  Columns are the
    criteria's ids (those ``priorities`` takes)."""
    scope = scope or rec.headline
    s = rec.sets[scope]
    rows = []
    for i in _order(rec, scope):
        row = {"metric": display_name(rec.metrics[i])}
        for c_i, c in enumerate(rec.criteria):
            if not rec.admissible[i]:  # not a candidate, or failing a declared requirement
                cell = ""
            elif rec.undefined is not None and rec.undefined[c_i, i] or rec.exempt[c_i, i]:
                cell = APART
            elif not s.participants[c_i, i]:
                cell = ""
            else:
                cell = KEPT if s.members[c_i, i] or not s.counted[c_i] else OUT
            row[c] = cell
        row["status"] = _status(rec, scope, i, short=True)
        rows.append(row)
    return pd.DataFrame(rows, columns=["metric", *rec.criteria, "status"])


def numbers_table(rec: Recommendation, scope: str | None = None) -> pd.DataFrame:
    """Per metric (the grid's order): each criterion's value with the
    scope's interval, ✔ when kept, its MCS p-value."""
    scope = scope or rec.headline
    s = rec.sets[scope]
    rows = []
    lo, hi, nan = rec.low[scope], rec.high[scope], rec.n_undefined[scope]
    for i in _order(rec, scope):
        mid = rec.metrics[i]
        row = {"metric": display_name(mid)}
        for c_i, c in enumerate(rec.criteria):
            v = rec.value[c_i, i]
            cell = _num(v) + (f" [{lo[c_i, i]:.3f}, {hi[c_i, i]:.3f}]" if np.isfinite(lo[c_i, i]) else "")
            if nan[c_i, i] > 0:  # resamples left out of the interval: said, not hidden
                cell += f" ({int(nan[c_i, i])} of {rec.replicates} undefined)"
            if rec.undefined is not None and rec.undefined[c_i, i]:
                cell = "not defined for it"
            elif rec.exempt[c_i, i]:
                cell += " exempt (invariant)"
            elif s.participants[c_i, i] and s.counted[c_i]:
                cell = (f"{KEPT} " if s.members[c_i, i] else "") + cell + f" p={_p(rec, s.p_value[c_i, i], scope)}"
            row[CRITERIA[c]] = cell
        rows.append(row)
    return pd.DataFrame(rows)


def criteria_table(rec: Recommendation, scope: str | None = None) -> pd.DataFrame:
    """Per metric (the answer first): each criterion's value with the
    scope's interval, ✔ when kept, its MCS p-value; its status; the offered
    properties it fails on this dataset's shape (the numbers table of the
    page with the grid's status, for the command line)."""
    scope = scope or rec.headline
    out = numbers_table(rec, scope)
    order = _order(rec, scope)
    out["status"] = [_status(rec, scope, i) for i in order]
    out["fails (properties)"] = [(", ".join(rec.failed[rec.metrics[i]]) or "none") if rec.metrics[i] in rec.failed
                                 else "n/a" for i in order]
    return out


def method_paragraph(rec: Recommendation) -> str:
    s = rec.settings
    a_c = s["alpha_c"][rec.headline]
    return (
        f"**Method.** Each criterion is computed on the real systems; its {s['confidence']:.0%} interval "
        f"is the point value plus the percentiles of the deviations of {rec.replicates} resamples from their median "
        "(the resamples are biased: a resample's half-splits hold fewer distinct units), every metric on the same "
        "resamples. Two "
        f"scopes: *these systems* ({_SCOPE_HOW['these_systems'].format(unit=rec.unit)}) and *new systems* "
        f"({_SCOPE_HOW['new_systems'].format(unit=rec.unit)}; Deutsch, Dror & Roth 2021). Per criterion, the Model "
        "Confidence Set (Hansen, Lunde & Nason 2011, range statistic) keeps the candidates the evidence cannot tell "
        "from the best (null hypothesis of each step: every candidate still in has the same expected value; the "
        "candidate most beaten is eliminated while the test rejects); ✔ marks them, p is each metric's MCS p-value, "
        "and a metric is eliminated only when the upper end of its p-value's 95% Monte Carlo interval is below the "
        "level (the resamples leave no doubt). "
        f"Each set is taken at alpha {s['verdict_alpha']:g} over the criteria that count (Bonferroni: "
        f"{a_c:.3g} each), so that with probability at least {1 - s['verdict_alpha']:.0%} every set "
        "holds its criterion's best at once; the answer is the metrics kept on every criterion. When no metric "
        "is, the answer is the metrics kept on the most criteria, and the trade-off says which to take if one "
        "criterion matters more; declared priorities (`datasets.<name>.priorities`) intersect the sets in their "
        "order, skipping a criterion whose set would leave nothing. Both are read off the same sets, so they add "
        "no test and keep the error control. More candidates "
        "can only widen a set; a copy of a metric changes nothing. Differences are given with their interval at "
        "the criterion's level, from the paired standard error of the resamples. Gameable metrics (a degenerate "
        "system significantly better than the median real system: gameability.csv) are never candidates; "
        "borderline ones are said. Requirements (formal properties, checked on this dataset's own shape: "
        "properties.csv of the dataset) restrict the candidates only when declared (`datasets.<name>.requirements`).")


def recommendation_markdown(rec: Recommendation, title: str, context: str, figure: str | None = None) -> str:
    """``recommendation.md``: the answer first (at most 40 words, then where
    the official metric stands), the trade-off when the criteria disagree,
    the requirements in one line, the grid (kept or not per metric and
    criterion) and the figure; then the numbers with their intervals, the
    requirements, the other scope, the papers' choices, what is left out
    and why, and the method."""
    lines = [f"# {md_escape(title)}", "", md_escape(answer_sentence(rec)), ""]
    lines += tradeoff_lines(rec)
    req = requirements_line(rec)
    if req:
        lines += [md_escape(req), ""]
    if rec.criteria:
        lines += [md_escape(f"At a glance ({SCOPE_NAMES[rec.headline]}): {KEPT} kept, {OUT} eliminated, {APART} not "
                            "judged (invariant by construction, or not defined for it); a blank: not a candidate."), ""]
        lines += [markdown_table(grid_table(rec)), ""]
        lines += if_first_lines(rec)
    if figure and rec.criteria:
        lines += [f"![criteria with intervals]({figure})", ""]
    if rec.criteria:
        used = _and([CRITERIA[c] for c in rec.criteria])
        lines += ["## The numbers", "",
                  f"Criteria that count here: {used} (higher is better for each; {SCOPE_NAMES[rec.headline]}: "
                  f"the value, its {rec.settings['confidence']:.0%} interval, {KEPT} kept, p its MCS p-value).", ""]
        lines += [markdown_table(numbers_table(rec)), ""]
    lines += ["## Details", ""]
    other = [s for s in SCOPES if s != rec.headline and s in rec.sets]
    for scope in other:
        lines += [md_escape(f"{SCOPE_NAMES[scope].capitalize()} ({_SCOPE_HOW[scope].format(unit=rec.unit)}): "
                            + _scope_answer(rec, scope) + "."), ""]
    if rec.criteria:
        lines += [md_escape(sets_line(rec)), ""]
        hs = rec.sets[rec.headline]
        decisive = [rec.criteria[c] for c in np.flatnonzero(hs.counted) if (hs.participants[c] & ~hs.members[c]).any()]
        if decisive == ["priors"] and rec.exempt[rec.criteria.index("priors")].any():
            inv = [_name(m) for m, e in zip(rec.metrics, rec.exempt[rec.criteria.index("priors")]) if e]
            lines += [md_escape(f"Robustness to class priors is the only criterion that eliminates a metric here; the "
                                f"metrics invariant to the priors by construction ({_and(inv)}) are not judged on it. "
                                "Requiring that invariance (uniform_class_change) would leave only them."), ""]
    sep = _separation_line(rec)
    if sep:
        lines += [md_escape(sep), ""]
    if rec.official is not None:
        src = f" ({rec.official_source})" if rec.official_source else ""
        lines += [md_escape(f"Official metric{src}: {_standing_text(rec.official, rec)}."), ""]
    else:
        lines += ["No official metric is configured (`datasets.<name>.official_metric`).", ""]
    for source, standings in rec.papers:
        chosen = _and([display_name(st.metric) for st in standings])
        differ = sorted({c for st in standings for c in st.eliminated_on()}, key=list(CRITERIA).index)
        lines += [md_escape(f"{source} chose {chosen} on these data; here " + "; ".join(_standing_text(st, rec)
                                                                                    for st in standings)
                            + (f" (the answers differ on {_and([CRITERIA[c] for c in differ])})" if differ else "")
                            + "."), ""]
    if rec.with_baselines is not None:
        same = set(rec.with_baselines) == set(rec.selected)
        lines += [md_escape(f"With the ranked baselines ({_and(rec.baselines)}) among the systems (a variant; the "
                            "answer is decided on the real systems): "
                            + ("the same answer." if same else
                               (_and([display_name(x) for x in rec.with_baselines], "or") or "no metric") + ".")), ""]
    from .evidence import mc_upper

    floor = float(mc_upper(1.0 / (rec.replicates + 1), rec.replicates, rec.sets[rec.headline].mc_level))
    if rec.criteria and floor >= rec.sets[rec.headline].alpha_c:
        lines += [md_escape(f"With {rec.replicates} resamples no metric can be eliminated: the smallest MCS p-value, "
                            f"1/{rec.replicates + 1}, is not below the level {rec.sets[rec.headline].alpha_c:.3g} "
                            f"beyond Monte Carlo doubt (upper end {floor:.3g}). Raise criteria_replicates (500 by "
                            "default)."), ""]
    if rec.n_systems and rec.n_systems < FEW_SYSTEMS:
        lines += [md_escape(f"Only {plural(rec.n_systems, 'real system')} {'is' if rec.n_systems == 1 else 'are'} "
                            "ranked: one swapped pair moves a tau by "
                            f"{2 / (rec.n_systems * (rec.n_systems - 1) / 2):.2f}, so the tau-based criteria are "
                            "coarse and the answer tentative."), ""]
    lines += [md_escape(context), ""]
    if rec.requirements:
        lines += ["## Requirements", ""]
        lines += [f"- **{md_escape(h)}** {md_escape(t)}" for h, t in (_requirement_line(rec, r)
                                                                      for r in rec.requirements)]
        lines += ["", "(Requirements are formal properties checked on this dataset's shape, its properties.csv; "
                      "only declared ones, `datasets.<name>.requirements`, restrict the answer.)", ""]
    not_cand = [(m, rec.excluded[m]) for m in rec.metrics if m in rec.excluded and m not in
                {g["metric"] for g in rec.gameable}]
    if not_cand:
        lines += ["**Not candidates:** " + "; ".join(f"{md_escape(_name(m))}: {md_escape(w)}" for m, w in not_cand)
                  + ".", ""]
    a_game = rec.settings["verdict_alpha"]  # the gameability test's level
    if rec.gameable:
        lines += ["**Gameable on this test set** (never candidates): "
                  + "; ".join(f"{md_escape(_name(g['metric']))}: {md_escape(_game_text(g, a_game))}" for g in rec.gameable)
                  + ".", ""]
    if rec.borderline:
        lines += ["**Borderline** (a degenerate system beats the median real system here, not significantly; not "
                  "vetoed): " + "; ".join(f"{md_escape(_name(g['metric']))}: {md_escape(_game_text(g, a_game))}"
                                          for g in rec.borderline) + ".", ""]
    if rec.undefined is not None and rec.undefined.any():  # "not defined for it" in the table: why
        from ..measures.scores.registry import not_defined

        by_why: dict[tuple[str, str], list[str]] = {}
        for c_i, c in enumerate(rec.criteria):
            for i in np.flatnonzero(rec.undefined[c_i]):
                by_why.setdefault((CRITERIA[c], not_defined(rec.metrics[i], c)), []).append(_name(rec.metrics[i]))
        lines += ["**Not defined for it:** " + "; ".join(
            f"{_and(ms)} on {crit} ({md_escape(why)})" for (crit, why), ms in by_why.items())
            + ". They are judged on the other criteria.", ""]
    if rec.left_out:
        by_reason: dict[str, list[str]] = {}
        for c, w in rec.left_out.items():
            by_reason.setdefault(w, []).append(CRITERIA.get(c, c))
        lines += ["Criteria that do not count here: " + "; ".join(f"{_and(cs)}: {md_escape(w)}"
                                                                for w, cs in by_reason.items()) + ".", ""]
    if rec.notes:
        lines += ["**Not used:** " + "; ".join(md_escape(n) for n in rec.notes) + ".", ""]
    if rec.set_aside:
        lines += [md_escape("Not counted as real systems by the gameability test, since they predict exactly what a "
                            f"degenerate system predicts: {_and(rec.set_aside)} (the criteria still rank them: they "
                            "are submitted systems)."), ""]
    lines += [md_escape(ranked_systems_line(rec)), "", method_paragraph(rec)]
    if rec.criteria:
        lines += ["", "Legend: " + "; ".join(f"{c} ({CRITERIA[c]}): "
                                             + REGISTRY[c].legend.format(power_test=rec.settings["power_test"]).replace(
                                                 " ()", "") for c in rec.criteria) + "."]
    return "\n".join(lines) + "\n"


def recommendation_html(rec: Recommendation, title: str, context: str, png: bytes | None = None) -> str:
    """``tables/recommendation.html``: the page of ``recommendation_markdown``
    for browsers (the names typeset, the grid's marks coloured, the tables'
    cells wrapping so that the page fits 1,280 px), the figure ``png``
    inside it as a data URI (a relative path does not resolve in
    Snakemake's report, which shows the page apart from the results
    folder)."""
    import base64

    from ..present.report import html_page

    inline = "data:image/png;base64," + base64.b64encode(png).decode("ascii") if png else None
    return html_page(recommendation_markdown(rec, title, context, inline), title, wrap=True)


def systems_count(rec: Recommendation) -> str:
    """The ranked systems in words, as every page counts them: ``17 real
    systems + 2 baselines`` (the baselines are ranked in the variant only)."""
    real = rec.n_systems - rec.n_synthetic
    parts = [plural(real, "real system")] + ([plural(rec.n_synthetic, "synthetic system")] if rec.n_synthetic else [])
    return " + ".join(parts + ([plural(len(rec.baselines), "baseline")] if rec.baselines else []))


def ranked_systems_line(rec: Recommendation) -> str:
    """Which systems the verdict ranks (real, synthetic) and which only its variant (the baselines)."""
    return (f"Ranked systems: {systems_count(rec)}"
            + (f"; the baselines ({_and(rec.baselines)}) are ranked in the variant only." if rec.baselines else
               "."))


def recommendation_long(rec: Recommendation) -> pd.DataFrame:
    """``recommendation.csv``: one row per scope, criterion and metric: the
    point value, the scope's interval, ``participant`` (judged on the
    criterion), ``in_set`` (kept: ``mcs_p_upper >= level``), ``mcs_p`` (its
    MCS p-value) and ``mcs_p_upper`` (the upper end of its 95 % Monte Carlo
    interval: an elimination must not be a matter of the resamples drawn),
    ``level`` (the criterion's level, verdict_alpha over the
    criteria that count), ``replicates`` (the resamples: the p-values'
    resolution is 1 / (replicates + 1)), ``answer`` (in the scope's answer:
    kept on every criterion, or when none is, on the most, or under the
    declared priorities), ``kept_on`` (the criteria that count on which the
    metric is not eliminated, of ``criteria_counted``; -1 for a metric that
    is not a candidate) and ``recommended`` (in the headline answer)."""
    from .tradeoff import kept_count

    rows = []
    for scope in [rec.headline] + [s for s in SCOPES if s != rec.headline and s in rec.sets]:
        s = rec.sets[scope]
        d = rec.decision(scope)
        n_kept = kept_count(s)
        for c_i, c in enumerate(rec.criteria):
            for i, mid in enumerate(rec.metrics):
                part = bool(s.participants[c_i, i])
                rows.append({"scope": scope, "criterion": c, "metric": mid, "value": rec.value[c_i, i],
                             "low": rec.low[scope][c_i, i], "high": rec.high[scope][c_i, i], "better": "higher",
                             "n_undefined": int(rec.n_undefined[scope][c_i, i]),
                             "candidate": bool(rec.candidate[i]), "admissible": bool(rec.admissible[i]),
                             "exempt": bool(rec.exempt[c_i, i]), "participant": part,
                             "counted": bool(s.counted[c_i]), "in_set": bool(s.members[c_i, i]),
                             "mcs_p": float(s.p_value[c_i, i]) if part else np.nan,
                             "mcs_p_upper": float(s.p_upper[c_i, i]) if part and s.p_upper is not None else np.nan,
                             "level": s.alpha_c,
                             "replicates": rec.replicates,
                             "answer": bool(d.answer[i]), "kept_on": int(n_kept[i]),
                             "criteria_counted": d.c, "recommended": mid in rec.selected,
                             "not_defined": bool(rec.undefined is not None and rec.undefined[c_i, i])})
    return pd.DataFrame(rows, columns=["scope", "criterion", "metric", "value", "low", "high", "better",
                                       "n_undefined", "candidate", "admissible", "exempt", "participant", "counted",
                                       "in_set", "mcs_p", "mcs_p_upper", "level", "replicates", "answer",
                                       "kept_on", "criteria_counted", "recommended", "not_defined"])


def _standing_json(st: Standing | None):
    if st is None:
        return None
    return {"metric": st.metric, "status": st.status, "why": st.why or None,
            "criteria": {c: {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in x.items()}
                         for c, x in st.criteria.items()}}


def recommendation_json(rec: Recommendation, **extra) -> str:
    """``recommendation.json`` (``extra``: more keys, e.g. a warning on the
    resampling to repeat on the summary page)."""
    hs = rec.sets[rec.headline]
    evidence = [rec.criteria[c] for c in np.flatnonzero(hs.counted)
                if (hs.participants[c] & ~hs.members[c]).any()]
    d = rec.decision()
    out = {
        "recommended": list(rec.selected),
        "answer": answer_sentence(rec),
        "headline": headline_sentence(rec),
        # how the answer was reached: all (kept on every criterion), k_of_c (none is: kept on the most, k of C),
        # priorities (the declared priorities' sequential intersection), none
        "answer_kind": d.kind,
        "kept_on": {"k": d.k, "of": d.c},
        "priorities": list(rec.priorities),
        "priorities_applied": list(d.sequential.applied) if d.sequential else None,
        "priorities_skipped": list(d.sequential.skipped) if d.sequential else None,
        "priorities_not_counted": list(d.sequential.not_counted) if d.sequential else None,
        "tradeoff": [{"criteria": cs, "answer": ms} for cs, ms in rec.tradeoff()],
        "if_first": rec.if_first(),
        "headline_scope": rec.headline,
        "separable": rec.separable,
        "official_metric": None if rec.official is None else {**_standing_json(rec.official),
                                                              "source": rec.official_source or None},
        "requirements": [r.id for r in rec.requirements if r.declared],
        "requirements_offered": {r.id: {"fails": r.fails, "answer_if_required": r.answer, "declared": r.declared,
                                        **({"not_checked": r.unchecked} if r.unchecked else {})}
                                 for r in rec.requirements},
        "evidence": evidence,
        "sets": {scope: {rec.criteria[c]: [rec.metrics[i] for i in np.flatnonzero(s.members[c])]
                         for c in np.flatnonzero(s.counted)} for scope, s in rec.sets.items()},
        "answers": {scope: rec.answer(scope) for scope in rec.sets},
        "alpha_per_criterion": {scope: s.alpha_c for scope, s in rec.sets.items()},
        "papers": [{"source": src, "metrics": [_standing_json(st) for st in sts]} for src, sts in rec.papers],
        "with_baselines": rec.with_baselines,
        "baselines_ranked_in_variant": list(rec.baselines),
        "separation": None if rec.separation is None else {k: (float(v) if isinstance(v, (float, np.floating))
                                                               and np.isfinite(v) else (None if isinstance(
                                                                   v, (float, np.floating)) else v))
                                                           for k, v in rec.separation.items()},
        "gameable": [{"metric": g["metric"], "degenerate": g["degenerate"], "score": float(g["score"]),
                      "median_real": float(g["median_real"]), "p_holm": _finite(g.get("p_holm"))}
                     for g in rec.gameable],
        "borderline": [{"metric": g["metric"], "degenerate": g["degenerate"], "score": float(g["score"]),
                        "median_real": float(g["median_real"]), "p_holm": _finite(g.get("p_holm"))}
                       for g in rec.borderline],
        "excluded": rec.excluded,
        "failed_properties": {m: f for m, f in rec.failed.items() if f},
        "criteria": list(rec.criteria),
        "criteria_left_out": rec.left_out,
        "n_systems": rec.n_systems,
        "n_synthetic": rec.n_synthetic,
        "systems": systems_count(rec),
        "n_units": rec.n_units,
        "unit": rec.unit,
        "settings": rec.settings,
        **extra,
    }
    return json.dumps(out, indent=2, allow_nan=False) + "\n"


def _finite(x):
    return float(x) if x is not None and np.isfinite(x) else None


def recommendation_figure(rec: Recommendation, name: str):
    """The criteria figure: one panel per criterion, every metric's value
    and its interval (headline scope), the metrics kept filled, the answer
    in bold."""
    from ..present.plots import criteria_plot, message_figure

    if not rec.criteria:
        return message_figure(f"{name}: no criterion counts on this dataset", answer_sentence(rec))
    conf = rec.settings["confidence"]
    long = recommendation_long(rec)
    long = long[long["scope"] == rec.headline].copy()
    long["candidate"] = long["admissible"]  # a metric failing a declared requirement is greyed too
    level = 100 * (1 - rec.sets[rec.headline].alpha_c)
    from ..present.notation import mathtext

    d = rec.decision()
    how = {"k_of_c": f", each kept on {d.k} of {d.c}", "priorities": " under the declared priorities"}.get(d.kind, "")
    return criteria_plot(long, {m: mathtext(m) for m in rec.metrics},
                         f"{name}: the criteria with their {conf:.0%} intervals ({SCOPE_NAMES[rec.headline]}; filled: "
                         f"kept in the criterion's {level:.4g}% confidence set; highlighted: the answer{how})",
                         rec.selected, CRITERIA)


def dataset_context(ds, spec) -> str:
    """The sentence under the answer: the kind of task, its classes and
    whether they are imbalanced."""
    if spec.span_task == "si":
        return f"{spec.name}: span identification."
    counts = np.bincount(ds.gold, minlength=ds.k)
    noun = "spans" if spec.span_task == "tc" else (spec.unit_names or {}).get("items", "items")
    return (f"{spec.name}: {'technique ' if spec.span_task == 'tc' else ''}classification, {ds.k} "
            f"{'ordered' if spec.ordinal else 'unordered'} classes, "
            + ("imbalanced" if is_imbalanced(counts) else "not imbalanced")
            + f" (largest class {counts.max():,} {noun}, smallest {counts[counts > 0].min():,}; imbalanced "
            f"means a ratio of {IMBALANCE_RATIO:g} or more).")


def recommend_dataset(ds, spec, settings, *, properties: pd.DataFrame | None = None,
                      gameability: pd.DataFrame | None = None,
                      requirements: Sequence[str] | None = None,
                      priorities: Sequence[str] | None = None) -> Recommendation:
    """The recommendation of a loaded dataset (``dataset.Dataset``) with its
    spec and experiment settings (``experiments.Settings``): the criteria
    (``criteria.criteria``) of its real systems in both scopes, and of all
    its ranked systems (baselines included: the variant) when it ranks
    baselines; then ``recommend``.  ``properties``: the dataset's own
    ``properties.csv`` (``properties.dataset_settings``); ``gameability``:
    its ``gameability.csv``; ``requirements``: the declared requirements
    (default the spec's ``requirements``); ``priorities``: the declared
    order of the criteria (default the spec's ``priorities``)."""
    from .criteria import CriteriaSpec
    from .criteria import criteria as compute
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
    res = compute(scorer, cs, subsets=subsets, schemes=("items", "both"), strata=strata,
                  confidence=settings.confidence, only=only)
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
