"""A leaderboard from its benchmark to its tables and page: the library's
door ``leaderboard``, which runs every stage of
``metaeval.pipeline.leaderboard_stages`` (the workflow's leaderboard jobs
run them one per job) and returns a ``LeaderboardResult``.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> tasks = np.repeat(["algebra", "biology", "law"], 200)
>>> answers = {f"m{j}": np.where(rng.random(600) < p, "A", "B") for j, p in enumerate((0.8, 0.6, 0.58, 0.3))}
>>> res = leaderboard(gold=["A"] * 600, tasks=tasks, answers=answers, aggregates=["mean_items", "median"],
...                   schemes=["items"], leaderboard_replicates=200, leaderboard_verdict_replicates=100,
...                   leaderboard_splits=50, design=False)
>>> res.table()[["system", "estimate", "rank", "simultaneous_lower", "simultaneous_upper"]].round(3)
  system  estimate  rank  simultaneous_lower  simultaneous_upper
0     m0     0.775     1                   1                   1
1     m1     0.595     2                   2                   3
2     m2     0.588     3                   2                   3
3     m3     0.330     4                   4                   4
>>> res.answer()[:60]
'Report the mean over items: kept on every criterion, items r'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import pandas as pd

from ..data.benchmark import Benchmark, read_benchmark
from ..data.leaderboard_spec import LEADERBOARD_SETTING_KEYS, LeaderboardSpec
from ..settings import Settings
from ..verdict.leaderboard import LeaderboardVerdict
from .leaderboard_stages import (benchmark_info, check_ranked, check_spec, design_stage, experiments_stage, ranks_stage,
                                 verdict_stage, verdict_table)

__all__ = ["LeaderboardResult", "analyse", "leaderboard"]


@dataclass
class LeaderboardResult:
    """Every table of a leaderboard: ``ranks`` and ``resolution`` (all
    schemes, a ``scheme`` column), ``agreement``, ``stability``,
    ``robustness``, ``gameability``, the ``verdicts`` per scheme (and
    ``verdict``, their rows), ``design`` (None when not computed)."""

    benchmark: Benchmark
    spec: LeaderboardSpec
    settings: Settings
    ranks: pd.DataFrame
    resolution: pd.DataFrame
    agreement: pd.DataFrame
    stability: pd.DataFrame
    robustness: pd.DataFrame
    gameability: pd.DataFrame
    verdicts: dict[str, LeaderboardVerdict] = field(default_factory=dict)
    task_scores: pd.DataFrame | None = None
    design: pd.DataFrame | None = None

    @property
    def verdict(self) -> pd.DataFrame:
        return pd.concat([verdict_table(v, self.spec.primary_aggregate) for v in self.verdicts.values()],
                         ignore_index=True)

    def table(self, aggregate: str | None = None, scheme: str | None = None) -> pd.DataFrame:
        """The leaderboard of one aggregate (default the primary one) under
        one scheme (default the first): systems best first, with their rank
        sets."""
        aggregate = aggregate or self.spec.primary_aggregate
        scheme = scheme or self.settings.leaderboard_schemes[0]
        r = self.ranks
        out = r[(r["aggregate"] == aggregate) & (r.scheme == scheme)].drop(columns=["scheme", "aggregate"])
        return out.reset_index(drop=True)

    def answer(self, scheme: str | None = None) -> str:
        """The verdict's sentence under one scheme (default the first)."""
        return self.verdicts[scheme or self.settings.leaderboard_schemes[0]].sentence(self.spec.primary_aggregate)

    def tables(self) -> dict[str, pd.DataFrame]:
        """The workflow's files: name -> table."""
        out = {"ranks.csv": self.ranks, "resolution.csv": self.resolution, "agreement.csv": self.agreement,
               "stability.csv": self.stability, "robustness.csv": self.robustness,
               "gameability.csv": self.gameability, "verdict.csv": self.verdict}
        if self.task_scores is not None:
            out["task_scores.csv"] = self.task_scores
        if self.design is not None:
            out["design.csv"] = self.design
        return out

    def markdown(self) -> str:
        from ..present.leaderboard import leaderboard_markdown

        return leaderboard_markdown(self.tables(), self.benchmark_info(), self.spec.primary_aggregate)

    def figure(self, aggregate: str | None = None):
        """The rank sets of one aggregate (default the primary one) under
        every scheme, one panel each (a matplotlib figure)."""
        from ..present.leaderboard import rank_sets_figure, rank_sets_title

        aggregate = aggregate or self.spec.primary_aggregate
        return rank_sets_figure(self.ranks, aggregate, list(self.settings.leaderboard_schemes),
                                rank_sets_title(self.spec.name, aggregate), self.settings.leaderboard_alpha)

    def benchmark_info(self) -> dict[str, Any]:
        """What ``dataset.json`` says of the benchmark."""
        return benchmark_info(self.benchmark, self.spec, self.settings)


def analyse(bench: Benchmark, spec: LeaderboardSpec, st: Settings, *, design: bool = True) -> LeaderboardResult:
    """Every stage on one benchmark."""
    check_spec(spec)
    parts = [ranks_stage(bench, spec, st, s) for s in st.leaderboard_schemes]
    ex = experiments_stage(bench, spec, st)
    verdicts = {s: verdict_stage(bench, spec, st, s) for s in st.leaderboard_schemes}
    return LeaderboardResult(bench, spec, st, pd.concat([p["ranks.csv"] for p in parts], ignore_index=True),
                             pd.concat([p["resolution.csv"] for p in parts], ignore_index=True),
                             ex["agreement.csv"], ex["stability.csv"], ex["robustness.csv"], ex["gameability.csv"],
                             verdicts, ex["task_scores.csv"], design_stage(bench, spec, st) if design else None)


def leaderboard(gold=None, predictions: Mapping[str, Any] | None = None, *, tasks: Sequence | None = None,
                answers: Mapping[str, Sequence] | None = None, scores: Mapping[str, Sequence[float]] | None = None,
                benchmark: Benchmark | None = None, name: str = "leaderboard", n_options: Sequence[int] | None = None,
                no_answer: str | Sequence[str] | None = None, task_column: str = "task",
                options_column: str | None = None,
                id_column: str = "item_id", label_column: str = "label", score_column: str = "score",
                input: str = "answers", aggregates: Sequence[str] | None = None,  # noqa: A002
                primary_aggregate: str = "mean_items", no_answer_scoring: str = "wrong",
                priorities: Sequence[str] = (), require: Sequence[str] = (), schemes: Sequence[str] | None = None,
                design: bool = True, **settings) -> LeaderboardResult:
    """A leaderboard's every table: which aggregate to report, which ranks
    it resolves, how many questions each task needs.

    The benchmark is given one of three ways: ``benchmark`` (a
    ``Benchmark``); in memory, ``gold`` (the right answers), ``tasks`` and
    ``answers`` (``{system: answers}``), or ``tasks`` and ``scores``
    (``{system: per-item scores}``); or from files, ``gold`` (a path: item
    id, label, task column) and ``predictions`` (``{system: path}``).
    ``settings``: the ``leaderboards`` settings by their config keys
    (``leaderboard_replicates``, ``leaderboard_alpha``, ...); ``schemes``
    is ``leaderboard_schemes``.
    """
    unknown = sorted(set(settings) - set(LEADERBOARD_SETTING_KEYS))
    if unknown:
        from ..settings import closest

        raise TypeError(f"leaderboard(): unknown setting(s) {unknown}{closest(unknown, LEADERBOARD_SETTING_KEYS)}; "
                        f"the leaderboards' settings are {', '.join(LEADERBOARD_SETTING_KEYS)}")
    if schemes is not None:
        settings["leaderboard_schemes"] = list(schemes)
    st = Settings.from_config(settings)
    if sum(x is not None for x in (benchmark, predictions, answers, scores)) > 1:
        raise TypeError("leaderboard(): give one of benchmark, predictions (files), answers or scores (a benchmark "
                        "of answers and scores together: read_benchmark per kind, or scores of every system)")
    if benchmark is None:
        if predictions is not None:
            benchmark = read_benchmark(name, gold, predictions, task_column=task_column, options_column=options_column,
                                       input=input, no_answer=no_answer, id_column=id_column,
                                       label_column=label_column, score_column=score_column)
        elif answers is not None:
            benchmark = Benchmark.from_answers(name, gold=gold, tasks=tasks, answers=answers, no_answer=no_answer,
                                               n_options=n_options)
        elif scores is not None:
            benchmark = Benchmark.from_scores(name, tasks=tasks, scores=scores, n_options=n_options)
        else:
            raise TypeError("leaderboard(): give a benchmark, answers or scores with tasks, or gold and predictions "
                            "files")
    import warnings

    check_ranked(benchmark)
    for note in benchmark.notes_scored(no_answer_scoring):  # what changed a score is said (the command line: a warning)
        warnings.warn(f"benchmark {benchmark.name!r}: {note}", UserWarning, stacklevel=2)
    has_options = benchmark.n_options is not None
    spec = LeaderboardSpec(benchmark.name, "", (), input=benchmark.kind, task_column=task_column,
                           options_column=options_column or ("n_options" if has_options else None),
                           no_answer=(None if no_answer is None else no_answer if isinstance(no_answer, str)
                                      else tuple(no_answer)), no_answer_scoring=no_answer_scoring,
                           aggregates=None if aggregates is None else tuple(aggregates),
                           primary_aggregate=primary_aggregate, priorities=tuple(priorities), require=tuple(require))
    spec.check()
    return analyse(benchmark, replace(spec), st, design=design)
