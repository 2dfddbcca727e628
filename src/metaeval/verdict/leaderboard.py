"""The verdict on a leaderboard's aggregates: which aggregate to report,
with the error rate controlled, by the same rule as the verdict on metrics
(``metaeval.verdict.evidence``: per criterion the Model Confidence Set of
the admissible candidates on shared replicates, Bonferroni over the
criteria that count, the intersection; ``metaeval.verdict.tradeoff``: the
candidates kept on the most criteria, declared priorities, the trade-off).

Candidates: the aggregates (``metaeval.measures.aggregates``).  Criteria
(``metaeval.methods.leaderboards.experiments.CRITERIA``): rank stability,
adjacent pairs resolved, robustness to one system more or less (the
aggregates independent of the other systems by construction are exempt:
exactly 1, no uncertainty), resistance to degenerate systems.  A
requirement the user may declare: ``independent_of_others`` (only
aggregates whose systems' values depend on their own scores alone).

Null hypothesis of each criterion's set: the candidate's criterion value
equals the best candidate's (the MCS's equal predictive ability), tested on
the replicates of the stated resampling scheme.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from ..data.benchmark import Benchmark
from ..measures import aggregates as A
from ..methods.leaderboards.experiments import CRITERIA, criteria_replicates
from ..methods.leaderboards.resampling import SCHEME_TEXT
from .evidence import EvidenceSets, evidence_sets
from .tradeoff import Decision, decide, passes, trade_off
from ..settings import default_of

__all__ = ["REQUIREMENTS", "LeaderboardVerdict", "leaderboard_verdict"]

# what a user may require of every candidate, and which aggregates meet it
REQUIREMENTS = {"independent_of_others": lambda agg: A.get(agg).independent}


@dataclass(frozen=True)
class LeaderboardVerdict:
    """The verdict of one scheme: the candidates ``aggregates``, the
    criteria's point values ``value`` (C, A) and replicates ``boot``
    (B, C, A), the evidence ``sets``, the ``decision`` and the
    ``tradeoff`` (``[(criteria, answer mask)]`` when no candidate is kept on
    every criterion), the ``scheme``, and the requirements declared."""

    aggregates: tuple[str, ...]
    criteria: tuple[str, ...]
    value: np.ndarray
    boot: np.ndarray
    sets: EvidenceSets
    decision: Decision
    tradeoff: list
    scheme: str
    required: tuple[str, ...]

    @property
    def answer(self) -> list[str]:
        return [a for a, keep in zip(self.aggregates, self.decision.answer) if keep]

    def table(self, confidence: float | None = None) -> pd.DataFrame:
        """Per criterion and aggregate: the value, its percentile interval
        over the replicates, whether the aggregate takes part, and whether
        the criterion's set keeps it (``confidence``: default 1 - the
        verdict's alpha)."""
        confidence = 1 - self.sets.alpha if confidence is None else confidence
        lo, hi = np.nanquantile(self.boot, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
        rows = []
        for c, crit in enumerate(self.criteria):
            for a, agg in enumerate(self.aggregates):
                rows.append({"criterion": crit, "aggregate": agg, "value": self.value[c, a], "low": lo[c, a],
                             "high": hi[c, a], "takes_part": bool(self.sets.participants[c, a]),
                             "kept": bool(self.sets.members[c, a] or not self.sets.participants[c, a]),
                             "p_value": self.sets.p_value[c, a], "counted": bool(self.sets.counted[c])})
        out = pd.DataFrame(rows)
        out.attrs["scheme"] = SCHEME_TEXT[self.scheme]
        return out

    def sentence(self, primary: str | None = None) -> str:
        """The answer first, in one sentence an organiser can act on: one
        aggregate to report.  When the evidence keeps several, the
        ``primary`` one (the leaderboard's own) if it is among them, else
        the first of them in the table's order, with the others it cannot
        be told from; when ``primary`` is eliminated, the criteria that
        eliminate it; when no criterion counts (every aggregate alike on
        every one), the ``primary`` one by convention, said so.

        >>> from types import SimpleNamespace as NS
        >>> v = LeaderboardVerdict(("mean_items", "median"), ("stability", "resolution"), np.zeros((2, 2)),
        ...     np.zeros((1, 2, 2)), NS(admissible=np.ones(2, bool), participants=np.ones((2, 2), bool),
        ...     members=np.array([[1, 1], [1, 0]], bool), counted=np.ones(2, bool)),
        ...     NS(answer=np.array([True, False]), kind="all", k=2, c=2), [], "items", ())
        >>> v.sentence("median")
        'Report the mean over items: kept on every criterion, items resampled within each task (the tasks fixed); the median over tasks is eliminated on adjacent pairs resolved.'
        """
        how = {"all": "kept on every criterion", "k_of_c": f"kept on {self.decision.k} of {self.decision.c} criteria "
               "(no aggregate is kept on all)", "priorities": "under the declared priorities",
               "none": ""}[self.decision.kind]
        kept = list(self.answer)
        if not kept:
            return "No aggregate: " + ("none meets the requirements." if not self.sets.admissible.any()
                                       else "no criterion separates them.")
        head = primary if primary in kept else kept[0]
        if not self.sets.counted.any():  # every aggregate alike on every criterion (as with two systems): no evidence
            return (f"Report the {A.get(head).name} by convention: every aggregate behaves alike on every criterion, "
                    f"{SCHEME_TEXT[self.scheme]}, so the evidence cannot choose.")
        others = [A.get(a).name for a in kept if a != head]
        text = f"Report the {A.get(head).name}: {how}, {SCHEME_TEXT[self.scheme]}"
        if others:
            text += ("; the evidence does not separate it from the " + (", ".join(others[:-1]) + " and " if
                                                                          len(others) > 1 else "") + others[-1]
                     + " (any of them serves)")
        if primary is not None and primary in self.aggregates and primary not in kept:
            i = self.aggregates.index(primary)
            out = [CRITERIA.get(c, c) for c, ok in zip(self.criteria, passes(self.sets)[:, i]) if not ok]
            why = " and ".join(out) if out else "the declared requirements"
            text += f"; the {A.get(primary).name} is eliminated on {why}"
        text += "."
        if self.tradeoff:
            parts = [" or ".join(CRITERIA[c] for c in crits) + " first: "
                     + ", ".join(A.get(a).name for a, k in zip(self.aggregates, ans) if k)
                     for crits, ans in self.tradeoff]
            text += " The trade-off: " + "; ".join(parts) + "."
        return text


def leaderboard_verdict(bench: Benchmark, agg_ids: Sequence[str] | None = None, *, scheme: str = "items",
                        replicates: int = default_of("leaderboard_verdict_replicates"),
                        n_splits: int = default_of("leaderboard_splits"), seed: int = default_of("leaderboard_seed"),
                        alpha: float = default_of("leaderboard_alpha"),
                        priorities: Sequence[str] = (), require: Sequence[str] = (),
                        no_answer_scoring: str = "wrong", rank_replicates: int | None = None,
                        family: str = "simultaneous") -> LeaderboardVerdict:
    """The verdict on ``agg_ids`` (default every registered aggregate the
    benchmark can compute) under ``scheme``.  ``rank_replicates`` and
    ``family``: the leaderboard's rank sets (``leaderboard_replicates``,
    ``leaderboard_family``), from which the resolution criterion's point
    value is taken, as the leaderboard's table counts it (default the
    verdict's ``replicates``, simultaneous).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> theta = np.linspace(0.3, 0.7, 6)
    >>> tasks = np.repeat(np.arange(4), 150)
    >>> scores = {f"s{j}": (rng.random(600) < t).astype(float) for j, t in enumerate(theta)}
    >>> b = Benchmark.from_scores("toy", tasks=tasks, scores=scores)
    >>> v = leaderboard_verdict(b, ["mean_items", "median"], replicates=200, n_splits=50)
    >>> v.answer, v.decision.kind     # 600 items: the evidence does not separate them
    (['mean_items', 'median'], 'all')
    >>> v.sentence("mean_items")
    'Report the mean over items: kept on every criterion, items resampled within each task (the tasks fixed); the evidence does not separate it from the median over tasks (any of them serves).'
    """
    if agg_ids is None:
        agg_ids = [a for a in A.AGGREGATES if A.get(a).feature in bench.feature_names]
    unknown = sorted(set(require) - set(REQUIREMENTS))
    if unknown:
        raise ValueError(f"unknown requirement(s) {unknown}; known: {', '.join(REQUIREMENTS)}")
    bad = sorted(set(priorities) - set(CRITERIA))
    if bad:
        raise ValueError(f"unknown criteria in priorities {bad}; known: {', '.join(CRITERIA)}")
    agg_ids = list(agg_ids)
    value, boot, crits = criteria_replicates(bench, agg_ids, scheme=scheme, replicates=replicates, n_splits=n_splits,
                                             seed=seed, alpha=alpha, no_answer_scoring=no_answer_scoring,
                                             rank_replicates=rank_replicates, family=family)
    admissible = np.array([all(REQUIREMENTS[r](a) for r in require) for a in agg_ids], dtype=bool)
    exempt = np.zeros(value.shape, dtype=bool)
    exempt[crits.index("robustness")] = [A.get(a).independent for a in agg_ids]
    sets = evidence_sets(value, boot, admissible, alpha, exempt=exempt, criteria=tuple(crits))
    return LeaderboardVerdict(tuple(agg_ids), tuple(crits), value, boot, sets, decide(sets, priorities),
                              trade_off(sets), scheme, tuple(require))
