"""A leaderboard's aggregates on thousands of resamples at once, under
three schemes, stated on every table:

* ``items``: the items within each task (the stratified bootstrap: each
  task keeps its number of questions; the tasks are fixed, as a benchmark
  that will always hold these tasks);
* ``tasks``: the tasks (the cluster bootstrap: which tasks the benchmark
  happens to hold; each drawn task with all its items);
* ``both``: the tasks, then the items within each drawn task (two-stage).

Null of the intervals: none; they are percentile bootstrap intervals of a
resampling scheme whose unit is stated, and the rank sets built on them
(``ranks``) test the pairwise differences.

A replicate's per-task sums are the item weights (B, N) times the per-item
scores: one matrix product per task (the items of a task are contiguous in
the engine's column order), the same call for one replicate or ten
thousand, in chunks that bound memory.  Under ``tasks`` no item weight is
drawn: a task drawn m times has m times its sums.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from ...data.benchmark import Benchmark
from ...engine.resample import bootstrap_weights, bootstrap_within, split_masks
from ...measures import aggregates as A
from ...measures.aggregates import TaskTotals
from ...settings import LEADERBOARD_SCHEMES, default_of

__all__ = ["SCHEMES", "SCHEME_TEXT", "MIN_TASKS", "MIN_SYSTEMS", "few_tasks_note", "few_systems_note", "caution",
           "Weights", "Resampler", "aggregate_scores", "aggregate_replicates"]

SCHEMES = ("items", "tasks", "both")
SCHEME_TEXT = LEADERBOARD_SCHEMES  # what each scheme resamples, as tables and pages state it (metaeval.settings)
MAX_ELEMENTS = 1 << 24  # weights per chunk (B x N float64: 128 MB)
# with fewer tasks than this, resampling tasks draws few distinct samples (as resampling few item groups does:
# metaeval.methods.experiments.MIN_GROUPS), and the intervals of the tasks and both schemes come out too narrow
MIN_TASKS = 20


def few_tasks_note(n_tasks: int, schemes) -> str | None:
    """A caution when a scheme resamples tasks and there are fewer than
    ``MIN_TASKS`` of them (None otherwise).

    >>> few_tasks_note(14, ["items", "tasks"])[:60]
    'With 14 tasks, resampling tasks draws few distinct samples: '
    """
    if n_tasks >= MIN_TASKS or not set(schemes) & {"tasks", "both"}:
        return None
    return (f"With {n_tasks} tasks, resampling tasks draws few distinct samples: the intervals and rank sets of the "
            f"tasks and both schemes are too narrow (read them as a lower bound of the uncertainty over tasks; "
            f"{MIN_TASKS} tasks or more are needed for them to hold).")


# with fewer systems than this, a dataset has no meta-evaluation (its min_systems default): a leaderboard's verdict
# on the aggregates is given, but as tentative (its criteria compare rankings of very few systems)
MIN_SYSTEMS = default_of("min_systems")


def few_systems_note(n_systems: int) -> str | None:
    """A caution when the leaderboard ranks fewer than ``MIN_SYSTEMS``
    systems (None otherwise).

    >>> few_systems_note(2)[:72]
    'With 2 systems, the criteria compare rankings of very few systems: the v'
    """
    if n_systems >= MIN_SYSTEMS:
        return None
    return (f"With {n_systems} systems, the criteria compare rankings of very few systems: the verdict on the "
            f"aggregates is tentative ({MIN_SYSTEMS} systems or more, as for a dataset's meta-evaluation); the "
            "rank sets and intervals hold whatever the number of systems.")


def caution(n_tasks: int, n_systems: int, schemes) -> str | None:
    """The cautions every page of a leaderboard states (``few_systems_note``,
    ``few_tasks_note``), in one text, or None."""
    notes = [n for n in (few_systems_note(n_systems), few_tasks_note(n_tasks, schemes)) if n]
    return " ".join(notes) or None


@dataclass(frozen=True)
class Weights:
    """Resample weights of a benchmark: ``items`` (B, N), each item's
    weight in task order, or None; ``tasks`` (B, T), each task's draws, or
    None (then every item of a drawn task counts as often as its task).
    Multiplying two (a draw and a half's mask) multiplies both parts."""

    items: np.ndarray | None
    tasks: np.ndarray | None

    def __mul__(self, other: "Weights") -> "Weights":
        def mul(a, b):
            return b if a is None else a if b is None else a * b

        return Weights(mul(self.items, other.items), mul(self.tasks, other.tasks))


class Resampler:
    """The per-task sums of a benchmark's resamples (``TaskTotals`` with a
    leading replicate axis), for one scheme and seed.

    Examples
    --------
    >>> b = Benchmark.from_scores("toy", tasks=["x", "x", "y"], scores={"a": [1, 0, 1], "b": [0, 0, 1]})
    >>> r = Resampler(b, "items")
    >>> t = r.totals(range(4), seed=1)
    >>> t.sums.shape, t.items.tolist()[0], t.copies.tolist()[0]     # (B, S, T, F); x keeps 2 items, y 1
    ((4, 2, 2, 1), [2.0, 1.0], [1.0, 1.0])
    """

    def __init__(self, bench: Benchmark, scheme: str, no_answer_scoring: str = "wrong"):
        if scheme not in SCHEMES:
            raise ValueError(f"scheme is one of {', '.join(SCHEMES)}, got {scheme!r}")
        if scheme != "items" and bench.n_tasks < 2:
            raise ValueError(f"benchmark {bench.name!r}: resampling tasks needs at least 2 tasks; it has "
                             f"{bench.n_tasks} (use the scheme 'items')")
        self.bench, self.scheme = bench, scheme
        x = bench.features(no_answer_scoring)  # (S, N, F)
        self.features = bench.feature_names
        self.order = np.argsort(bench.tasks, kind="stable")  # items task by task: the engine's columns
        self.pos = np.empty_like(self.order)
        self.pos[self.order] = np.arange(self.order.size)
        s, n, f = x.shape
        self._x = np.ascontiguousarray(x[:, self.order].transpose(1, 0, 2).reshape(n, s * f))  # (N, S*F)
        self.start = np.searchsorted(bench.tasks[self.order], np.arange(bench.n_tasks + 1))
        self.n_items = np.diff(self.start).astype(np.float64)  # (T,)
        self.total = bench.totals(no_answer_scoring)

    def draw(self, replicates: Sequence[int], seed: int) -> Weights:
        """The weights of the replicates ``replicates`` (B of them): item
        weights in task order, or (``tasks``) task draws only."""
        reps = np.asarray(list(replicates) if not isinstance(replicates, np.ndarray) else replicates, dtype=np.int64)
        if self.scheme == "tasks":
            return Weights(None, bootstrap_weights(self.bench.n_tasks, reps, seed, dtype=np.float64,
                                                   stream="clusters"))
        w = bootstrap_within(self.bench.tasks, reps, seed, two_stage=self.scheme == "both", pos=self.pos,
                             dtype=np.float64)  # (B, N), in task order
        return Weights(w, None)

    def halves(self, splits: Sequence[int], seed: int) -> tuple[Weights, Weights]:
        """The two halves X and Y of each random half-split of the scheme:
        ``items``, half the items of every task (``split_masks``
        stratified by task); ``tasks``, half the tasks; ``both``, half the
        tasks with half of each one's items, against the other tasks with
        the other items.  Masks, to multiply a draw's weights with."""
        idx = np.asarray(list(splits) if not isinstance(splits, np.ndarray) else splits, dtype=np.int64)
        t = self.bench.n_tasks
        items = tasks = None
        if self.scheme != "tasks":
            items = split_masks(self.bench.n_items, idx, seed, self.bench.tasks, pos=self.pos, dtype=np.float64,
                                stream="leaderboard_split")
        if self.scheme != "items":
            tasks = split_masks(t, idx, seed, dtype=np.float64, stream="leaderboard_task_split")
        if self.scheme == "both":
            task_of = np.repeat(np.arange(t), np.diff(self.start))  # each column's task (task order)
            x = items * tasks[:, task_of]
            y = (1 - items) * (1 - tasks[:, task_of])
            return Weights(x, None), Weights(y, None)
        if self.scheme == "items":
            return Weights(items, None), Weights(1 - items, None)
        return Weights(None, tasks), Weights(None, 1 - tasks)

    def totals_of(self, w: Weights) -> TaskTotals:
        """The per-task sums of weights ``w``: one product per task for item
        weights, the whole tasks' sums times their draws for task draws."""
        s, t, f = self.bench.n_systems, self.bench.n_tasks, len(self.features)
        if w.items is None:
            copies = w.tasks
            return TaskTotals(copies[:, None, :, None] * self.total.sums[None], copies * self.n_items, copies,
                              self.features)
        items_w = w.items if w.tasks is None else w.items * w.tasks[:, np.repeat(np.arange(t), np.diff(self.start))]
        b = items_w.shape[0]
        sums = np.empty((b, t, s * f))
        for k in range(t):  # one product per task (a loop over tasks, not items or replicates)
            lo, hi = self.start[k], self.start[k + 1]
            sums[:, k] = items_w[:, lo:hi] @ self._x[lo:hi]
        items = np.add.reduceat(items_w, self.start[:-1], axis=1)
        sums = sums.reshape(b, t, s, f).transpose(0, 2, 1, 3)
        return TaskTotals(sums, items, items / self.n_items, self.features)

    def totals(self, replicates: Sequence[int], seed: int) -> TaskTotals:
        """The per-task sums of the replicates ``replicates`` (B of them)."""
        return self.totals_of(self.draw(replicates, seed))

    def chunks(self, replicates: int, seed: int, start: int = 0) -> Iterator[tuple[np.ndarray, TaskTotals]]:
        """``(indices, totals)`` of replicates start..replicates-1 in chunks
        whose weights fit ``MAX_ELEMENTS``: the same numbers whatever the
        chunk (each replicate's draw depends on its index and the seed)."""
        per = max(1, MAX_ELEMENTS // max(1, self.bench.n_items, self.bench.n_systems * self.bench.n_tasks * 4))
        for lo in range(start, replicates, per):
            idx = np.arange(lo, min(replicates, lo + per))
            yield idx, self.totals(idx, seed)


def aggregate_scores(totals: TaskTotals, agg_ids: Sequence[str]) -> np.ndarray:
    """(..., A, S): every aggregate of ``totals``."""
    chance = totals.means("chance") if "chance" in totals.features else None
    out = A.evaluate(totals.means("score"), agg_ids, copies=totals.copies, items=totals.items, chance=chance)
    return np.stack([out[a] for a in agg_ids], axis=-2)


def aggregate_replicates(bench: Benchmark, agg_ids: Sequence[str], *, scheme: str = "items",
                         replicates: int = default_of("leaderboard_replicates"),
                         seed: int = default_of("leaderboard_seed"), no_answer_scoring: str = "wrong") -> tuple[np.ndarray, np.ndarray]:
    """``(point, reps)``: every aggregate of every system on the benchmark
    (A, S) and on ``replicates`` resamples of ``scheme`` (B, A, S).

    Examples
    --------
    >>> b = Benchmark.from_scores("toy", tasks=["x", "x", "y", "y"], scores={"a": [1, 0, 1, 1], "b": [0, 0, 1, 0]})
    >>> point, reps = aggregate_replicates(b, ["mean_items"], replicates=50, seed=3)
    >>> point.tolist(), reps.shape
    ([[0.75, 0.25]], (50, 1, 2))
    """
    unknown = [a for a in agg_ids if a not in A.AGGREGATES]
    if unknown:
        raise KeyError(f"unknown aggregate(s) {unknown}; known: {', '.join(A.AGGREGATES)}")
    missing = [a for a in agg_ids if A.get(a).feature not in bench.feature_names]
    if missing:
        raise ValueError(f"benchmark {bench.name!r}: {missing} read the chance-corrected score, which needs each "
                         "item's number of options (the options column)")
    r = Resampler(bench, scheme, no_answer_scoring)
    point = aggregate_scores(r.total, agg_ids)
    reps = np.empty((replicates, len(agg_ids), bench.n_systems))
    for idx, t in r.chunks(replicates, seed):
        reps[idx] = aggregate_scores(t, agg_ids)
    return point, reps
