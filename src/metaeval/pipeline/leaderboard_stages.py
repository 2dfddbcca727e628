"""The stages of a leaderboard, one per workflow job: each takes the
benchmark (``metaeval.data.benchmark``), its spec
(``metaeval.data.leaderboard_spec``) and its settings (the ``leaderboards``
branch) and returns tables named by the workflow's files; every table
states its resampling scheme (a ``scheme`` column).  No page or figure code
here: editing those reruns no computation."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..data.benchmark import Benchmark
from ..data.leaderboard_spec import LEADERBOARD_SETTING_KEYS, LeaderboardSpec
from ..methods.leaderboards import design as D
from ..methods.leaderboards import experiments as E
from ..methods.leaderboards.resampling import SCHEME_TEXT, caution
from ..settings import ConfigError, Settings
from ..verdict.leaderboard import REQUIREMENTS, LeaderboardVerdict, leaderboard_verdict

__all__ = ["check_spec", "check_ranked", "ranks_stage", "experiments_stage", "verdict_stage", "design_stage", "verdict_table",
           "benchmark_shape", "benchmark_info"]


def check_spec(spec: LeaderboardSpec) -> LeaderboardSpec:
    """The verdict's priorities and requirements of ``spec``, checked."""
    from ..settings import closest

    for key, known in (("priorities", E.CRITERIA), ("require", REQUIREMENTS)):
        bad = sorted(set(getattr(spec, key)) - set(known))
        if bad:
            raise ConfigError(f"leaderboards.{spec.name}.{key}: unknown {bad}{closest(bad, known)}; known: "
                              f"{', '.join(known)}")
    return spec


def _with_scheme(df: pd.DataFrame, scheme: str) -> pd.DataFrame:
    df = df.copy()
    df.insert(0, "scheme", scheme)
    return df


def check_ranked(bench: Benchmark) -> Benchmark:
    """Refuse a benchmark of fewer than 2 systems (nothing to rank), naming
    its files when it was read from files."""
    if bench.n_systems >= 2:
        return bench
    from ..data.files import DataError, Problem

    where = ", ".join(map(str, (bench.info.get("predictions") or {}).values())) or "predictions"
    raise DataError([Problem(where, None, f"{bench.n_systems} system(s): a leaderboard ranks at least 2", "file")],
                    f"benchmark {bench.name!r}")


def ranks_stage(bench: Benchmark, spec: LeaderboardSpec, st: Settings, scheme: str) -> dict[str, pd.DataFrame]:
    """``ranks.csv`` (per aggregate and system: estimate, rank, marginal and
    simultaneous rank sets, percentile interval of bootstrap ranks) and
    ``resolution.csv`` (per aggregate: adjacent pairs resolved, tie bands)
    of one scheme."""
    ranks, summary = E.resolution(bench, spec.aggregate_ids(), scheme=scheme, replicates=st.leaderboard_replicates,
                                  seed=st.leaderboard_seed, alpha=st.leaderboard_alpha, family=st.leaderboard_family,
                                  no_answer_scoring=spec.no_answer_scoring)
    summary = summary.reset_index()
    return {"ranks.csv": _with_scheme(ranks, scheme),
            "resolution.csv": summary[["scheme"] + [c for c in summary if c != "scheme"]]}


def experiments_stage(bench: Benchmark, spec: LeaderboardSpec, st: Settings) -> dict[str, pd.DataFrame]:
    """``agreement.csv`` (Kendall tau-b between the aggregates' rankings),
    ``stability.csv`` (per aggregate and scheme), ``robustness.csv``,
    ``gameability.csv`` and ``task_scores.csv`` (each system's mean per
    task; on the benchmark itself)."""
    aggs = spec.aggregate_ids()
    kw = {"no_answer_scoring": spec.no_answer_scoring}
    stab = pd.concat([E.stability(bench, aggs, scheme=s, n_splits=st.leaderboard_splits, seed=st.leaderboard_seed, **kw)
                      for s in st.leaderboard_schemes])
    return {"agreement.csv": E.agreement(bench, aggs, **kw).rename_axis("aggregate").reset_index(),
            "stability.csv": stab.reset_index(),
            "robustness.csv": E.robustness(bench, aggs, **kw).reset_index(),
            "gameability.csv": E.gameability(bench, aggs, **kw),
            "task_scores.csv": E.task_scores(bench, **kw)}


def verdict_stage(bench: Benchmark, spec: LeaderboardSpec, st: Settings, scheme: str) -> LeaderboardVerdict:
    """The verdict on the aggregates under one scheme."""
    return leaderboard_verdict(bench, spec.aggregate_ids(), scheme=scheme,
                               replicates=st.leaderboard_verdict_replicates, n_splits=st.leaderboard_splits,
                               seed=st.leaderboard_seed, alpha=st.leaderboard_alpha, priorities=spec.priorities,
                               require=spec.require, no_answer_scoring=spec.no_answer_scoring,
                               rank_replicates=st.leaderboard_replicates, family=st.leaderboard_family)


def verdict_table(v: LeaderboardVerdict, primary: str | None = None) -> pd.DataFrame:
    """``verdict.csv``'s rows of one scheme: every criterion and aggregate,
    and the answer (``answer``) with the sentence (``sentence``)."""
    t = v.table(1 - v.sets.alpha)
    t.insert(0, "scheme", v.scheme)
    t["answer"] = t["aggregate"].isin(v.answer)
    t["decision"] = v.decision.kind
    t["sentence"] = v.sentence(primary)
    return t


def design_stage(bench: Benchmark, spec: LeaderboardSpec, st: Settings) -> pd.DataFrame:
    """``design.csv``: the questions per task and the tasks that would
    resolve each unresolved adjacent pair."""
    return D.design(bench, spec.aggregate_ids(), replicates=st.leaderboard_replicates, seed=st.leaderboard_seed,
                    alpha=st.leaderboard_alpha, family=st.leaderboard_family, halves=st.leaderboard_design_halves,
                    no_answer_scoring=spec.no_answer_scoring)


def benchmark_shape(bench: Benchmark, spec: LeaderboardSpec) -> dict[str, Any]:
    """What ``dataset.json`` says of the benchmark: its shape, the missing
    answers and how they are scored, and what changed a score (notes)."""
    import numpy as np

    return {"name": bench.name, "description": spec.description, "kind": bench.kind, "systems": list(bench.systems),
            "n_items": bench.n_items,
            "tasks": {t: int(c) for t, c in zip(bench.task_names, np.bincount(bench.tasks, minlength=bench.n_tasks))},
            "no_answers": {s: int(k) for s, k in zip(bench.systems, bench.no_answers)},
            "no_answer_scoring": spec.no_answer_scoring, "notes": list(bench.notes_scored(spec.no_answer_scoring))}


def benchmark_info(bench: Benchmark, spec: LeaderboardSpec, st: Settings) -> dict[str, Any]:
    """``benchmark_shape`` with the aggregates, the settings and the
    schemes the tables state (and a caution when the systems or the tasks
    are few)."""
    return {**benchmark_shape(bench, spec), "aggregates": spec.aggregate_ids(),
            "primary_aggregate": spec.primary_aggregate,
            "schemes": {s: SCHEME_TEXT[s] for s in st.leaderboard_schemes},
            "caution": caution(bench.n_tasks, bench.n_systems, st.leaderboard_schemes),
            "settings": {k: getattr(st, k) for k in LEADERBOARD_SETTING_KEYS}}
