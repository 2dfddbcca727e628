"""How many questions per task, and how many tasks, would resolve each
adjacent pair the leaderboard leaves unresolved, at its observed
difference.

For an unresolved adjacent pair (j ahead of k) of an aggregate, with
difference ``d``, paired standard error ``se`` under a scheme and the
family's critical value ``c`` (``ranks``: ``|d| / se <= c``), the pair is
resolved once ``se`` falls to ``|d| / c``.  The standard error shrinks with
the data as ``n^-e``; the exponent ``e`` is measured, as the verdict's
test-set design measures it (``metaeval.verdict.evidence.units_needed``),
on the benchmark's own halves: the median over the aggregate's pairs of
``log2(se_half / se_full)``, averaged over ``halves`` random halves, each
standard error in units of the spread of the systems' values on its data
(a total such as the Borda count grows with the tasks; a mean does not).

* questions per task: the items within each task resampled, a half keeping
  half the items of every task; needed ``n_t (c / |t|)^(1 / e)``;
* tasks: the tasks resampled (each with its items), a half keeping half the
  tasks; needed ``T (c / |t|)^(1 / e)``.

The difference is taken as fixed (its observed value; a smaller true
difference needs more), the critical value as at the current number of
systems.  An exponent below ``MIN_EXPONENT`` means more data would not
measurably shrink the error: the need is infinite, and said so.
"""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import pandas as pd

from ...data.benchmark import Benchmark
from ...engine.resample import split_masks
from ...measures import aggregates as A
from .ranks import pair_stats, rank_sets
from .resampling import aggregate_replicates
from ...settings import default_of

__all__ = ["MIN_EXPONENT", "se_exponent", "design"]

MIN_EXPONENT = 0.05  # as the verdict's design: below it the error does not measurably shrink


def _oriented(point, reps, agg_ids):
    sign = np.where([A.get(a).higher_is_better for a in agg_ids], 1.0, -1.0)[:, None]
    return point * sign, reps * sign


def _se(bench: Benchmark, agg_ids, scheme: str, replicates: int, seed: int) -> np.ndarray:
    """(A, S, S): the paired standard errors under ``scheme``, each
    aggregate's in units of the spread (SD) of its systems' values: scale
    free, so that a total (the Borda count, which grows with the tasks) and
    a mean scale alike."""
    point, reps = _oriented(*aggregate_replicates(bench, agg_ids, scheme=scheme, replicates=replicates, seed=seed),
                            agg_ids)
    spread = point.std(axis=-1)[:, None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return pair_stats(point, np.moveaxis(reps, 0, -2))[1] / spread


def se_exponent(bench: Benchmark, agg_ids: Sequence[str], *, by: str = "items",
                replicates: int = default_of("leaderboard_replicates"), seed: int = default_of("leaderboard_seed"),
                halves: int = default_of("leaderboard_design_halves"), se_full: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(e, se_e)``, each (A,): the exponent e of ``se ~ n^-e`` for each
    aggregate, with n the questions per task (``by="items"``) or the tasks
    (``by="tasks"``), and its standard error over the halves (with few
    tasks it is large: a cluster bootstrap of a few tasks estimates its
    standard error roughly).

    >>> rng = np.random.default_rng(0)
    >>> b = Benchmark.from_scores("t", tasks=np.repeat(np.arange(4), 200),
    ...                           scores={s: (rng.random(800) < p) for s, p in zip("abc", (0.3, 0.5, 0.7))})
    >>> e, se = se_exponent(b, ["mean_items"], replicates=400)
    >>> float(np.round(e[0], 1)), bool(se[0] < 0.05)   # independent items: 1/2
    (0.5, True)
    """
    scheme = "items" if by == "items" else "tasks"
    full = _se(bench, agg_ids, scheme, replicates, seed) if se_full is None else se_full  # (in spread units)
    off = ~np.eye(bench.n_systems, dtype=bool)
    logs = []
    for h in range(halves):  # a few halves of the benchmark, each resampled as a whole (not a loop over resamples)
        if by == "items":
            keep = split_masks(bench.n_items, [h], seed, bench.tasks, stream="leaderboard_split")[0]
        else:
            task_half = split_masks(bench.n_tasks, [h], seed, stream="leaderboard_task_split")[0]
            keep = task_half[bench.tasks]
        half = _se(bench.items(keep), agg_ids, scheme, replicates, seed + 1 + h)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.log2(half[:, off] / full[:, off])
        with warnings.catch_warnings():  # an aggregate without a finite ratio (no spread) is NaN: said by its value
            warnings.simplefilter("ignore", RuntimeWarning)
            logs.append(np.nanmedian(np.where(np.isfinite(ratio), ratio, np.nan), axis=-1))
    logs = np.array(logs)
    return logs.mean(axis=0), logs.std(axis=0, ddof=1) / np.sqrt(len(logs)) if len(logs) > 1 else np.full(
        logs.shape[1], np.nan)


def design(bench: Benchmark, agg_ids: Sequence[str], *, replicates: int = default_of("leaderboard_replicates"),
           seed: int = default_of("leaderboard_seed"), alpha: float = default_of("leaderboard_alpha"),
           family: str = default_of("leaderboard_family"), halves: int = default_of("leaderboard_design_halves"), no_answer_scoring: str = "wrong") -> pd.DataFrame:
    """One row per aggregate and adjacent pair unresolved when the items
    within tasks are resampled or when the tasks are (a pair resolved under
    one and not the other is listed, its need under the first "resolved
    already"): the difference, its paired SE and t under
    each scheme, the critical values, whether the scheme resolves it
    already (``resolved_<scheme>``: then the need is what there is), the
    measured exponents, and the questions per task and the tasks that would
    resolve it (the other of the two kept as it is)."""
    rows = []
    n_per_task = bench.n_items / bench.n_tasks
    out = {}
    for scheme, by in (("items", "items"), ("tasks", "tasks")):
        if scheme == "tasks" and bench.n_tasks < 4:
            continue  # halves of fewer than 2 tasks cannot be resampled
        point, reps = _oriented(*aggregate_replicates(bench, agg_ids, scheme=scheme, replicates=replicates, seed=seed,
                                                      no_answer_scoring=no_answer_scoring), agg_ids)
        reps_a = np.moveaxis(reps, 0, -2)
        sets = rank_sets(point, reps_a, alpha=alpha, family=family)
        d, se, _ = pair_stats(point, reps_a)
        with np.errstate(invalid="ignore", divide="ignore"):
            e, e_se = se_exponent(bench, agg_ids, by=by, replicates=replicates, seed=seed, halves=halves,
                                  se_full=se / point.std(axis=-1)[:, None, None])
        out[scheme] = (point, sets, d, se, e, e_se)
    point, sets, d, se, e, _ = out["items"]
    for a, agg in enumerate(agg_ids):
        order = np.argsort(-point[a], kind="stable")
        for j, k in zip(order[:-1], order[1:]):
            if all(o[1].resolved[a, j, k] for o in out.values()):  # resolved under every scheme: nothing to design
                continue
            row = {"aggregate": agg, "ahead": bench.systems[j], "behind": bench.systems[k],
                   "difference": float(abs(d[a, j, k]))}
            for scheme, (p_, s_, d_, se_, e_, e_se) in out.items():
                c = float(np.reshape(s_.critical, (len(agg_ids), -1))[a, 0 if family == "simultaneous" else j])
                t = abs(d_[a, j, k]) / se_[a, j, k] if se_[a, j, k] > 0 else np.inf
                now = n_per_task if scheme == "items" else bench.n_tasks
                resolved = bool(s_.resolved[a, j, k])  # (the pair may be resolved under one scheme only)
                need = (float(now) if resolved else np.inf if d_[a, j, k] == 0 or not e_[a] > MIN_EXPONENT
                        or not np.isfinite(t) else float(now * (c / t) ** (1.0 / e_[a])))
                name = "questions_per_task" if scheme == "items" else "tasks"
                row.update({f"se_{scheme}": float(se_[a, j, k]), f"t_{scheme}": float(t),
                            f"critical_{scheme}": c, f"resolved_{scheme}": resolved,
                            f"exponent_{scheme}": float(e_[a]), f"exponent_{scheme}_se": float(e_se[a]),
                            f"{name}_now": float(now), f"{name}_needed": need})
            rows.append(row)
    # every column even when every adjacent pair is resolved already (no row: the file keeps its header)
    columns = ["aggregate", "ahead", "behind", "difference"]
    for scheme in out:
        name = "questions_per_task" if scheme == "items" else "tasks"
        columns += [f"se_{scheme}", f"t_{scheme}", f"critical_{scheme}", f"resolved_{scheme}", f"exponent_{scheme}",
                    f"exponent_{scheme}_se", f"{name}_now", f"{name}_needed"]
    out_df = pd.DataFrame(rows, columns=columns)
    out_df.attrs.update(family=family, alpha=alpha, replicates=replicates)
    return out_df
