"""The experiments on a leaderboard's aggregates, each under a stated
resampling scheme (``resampling.SCHEMES``), and the criteria the verdict
judges them by, on shared replicates.

* ``agreement``: Kendall's tau-b between the aggregates' rankings of the
  systems (Amemiya & Sakai's ranking similarity).
* ``stability``: Kendall's tau between the rankings of the two halves of
  random half-splits of the scheme (half the items of every task; half the
  tasks; or both), averaged over the splits.
* ``resolution``: the rank confidence sets of every aggregate (``ranks``),
  the tie bands, and the share of adjacent pairs resolved.
* ``robustness``: removing one system at a time (equivalently, adding it to
  the others' leaderboard): the share of the other systems' pairs whose
  order reverses.  Means over items or tasks never reverse (each system's
  score is its own); rank-based aggregates can (Arrow's independence of
  irrelevant alternatives fails for them).
* ``gameability``: degenerate systems added one at a time: a *specialist*
  perfect on one task and at chance on the others (the best task for the
  gamer), and, for answers, a *constant* answer (the best single letter);
  the share of the real systems each beats.

The verdict's criteria (``criteria_replicates``), higher is better for all:
rank stability (the tau of the halves), resolution (the share of adjacent
pairs resolved, by the pairs' t against the simultaneous critical value of
the benchmark itself), robustness (1 - the mean reversal share) and
gameability (1 - the share of real systems the best degenerate beats);
each replicate computes every criterion on the same resample of the
scheme, so the Model Confidence Sets compare the aggregates paired.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ...data.benchmark import Benchmark
from ...engine.ranking import kendall_tau, orient, tau_matrix
from ...measures import aggregates as A
from .ranks import pair_stats, rank_sets, tie_bands
from .resampling import SCHEME_TEXT, Resampler, aggregate_scores
from ...settings import LEADERBOARD_CRITERIA, default_of

__all__ = ["CRITERIA", "oriented", "task_scores", "agreement", "stability", "resolution", "robustness", "gameability",
           "degenerates", "criteria_replicates"]

# the verdict's criteria of aggregates, in the tables' order, with their names
CRITERIA = LEADERBOARD_CRITERIA  # (metaeval.settings: the one place the criteria's words are written)


def _directions(agg_ids) -> np.ndarray:
    return np.array([A.get(a).higher_is_better for a in agg_ids])[:, None]


def oriented(totals, agg_ids: Sequence[str]) -> np.ndarray:
    """(..., A, S): every aggregate, negated where lower is better."""
    return orient(aggregate_scores(totals, agg_ids), _directions(agg_ids))


def task_scores(bench: Benchmark, *, no_answer_scoring: str = "wrong") -> pd.DataFrame:
    """Each system's mean per-item score on each task (systems by the mean
    over items, best first, ties in the benchmark's order; tasks as columns,
    with their number of items in the header's ``(n)``).

    >>> b = Benchmark.from_scores("t", tasks=["x", "x", "y"], scores={"a": [1, 0, 1], "b": [1, 1, 0]})
    >>> task_scores(b).round(2).to_dict("records")
    [{'system': 'a', 'x (2)': 0.5, 'y (1)': 1.0, 'all (3)': 0.67}, {'system': 'b', 'x (2)': 1.0, 'y (1)': 0.0, 'all (3)': 0.67}]
    """
    t = bench.totals(no_answer_scoring)
    m = t.means("score")  # (S, T)
    overall = t.sums[..., 0].sum(axis=-1) / t.items.sum()
    out = pd.DataFrame(m, columns=[f"{name} ({int(n)})" for name, n in zip(bench.task_names, t.items)])
    out.insert(0, "system", list(bench.systems))
    out[f"all ({bench.n_items})"] = overall
    return out.iloc[np.argsort(-overall, kind="stable")].reset_index(drop=True)


def agreement(bench: Benchmark, agg_ids: Sequence[str], *, no_answer_scoring: str = "wrong") -> pd.DataFrame:
    """Kendall's tau-b between every two aggregates' rankings of the systems."""
    x = oriented(bench.totals(no_answer_scoring), agg_ids)
    return pd.DataFrame(tau_matrix(x), index=list(agg_ids), columns=list(agg_ids))


def _stability_taus(r: Resampler, agg_ids, splits, seed, base=None) -> np.ndarray:
    """(B, A): the tau between the halves of each split (times ``base``,
    a draw, when given: the halves of a replicate)."""
    x, y = r.halves(splits, seed)
    if base is not None:
        x, y = base * x, base * y
    return kendall_tau(oriented(r.totals_of(x), agg_ids), oriented(r.totals_of(y), agg_ids))


def stability(bench: Benchmark, agg_ids: Sequence[str], *, scheme: str = "items",
              n_splits: int = default_of("leaderboard_splits"), seed: int = default_of("leaderboard_seed"), no_answer_scoring: str = "wrong", chunk: int = 200) -> pd.DataFrame:
    """Per aggregate, the mean and SD over ``n_splits`` random half-splits of
    Kendall's tau-b between the two halves' rankings."""
    r = Resampler(bench, scheme, no_answer_scoring)
    taus = np.concatenate([_stability_taus(r, agg_ids, np.arange(lo, min(n_splits, lo + chunk)), seed)
                           for lo in range(0, n_splits, chunk)])  # chunks: memory only
    out = pd.DataFrame({"tau_mean": np.nanmean(taus, axis=0), "tau_sd": np.nanstd(taus, axis=0, ddof=1),
                        "n_splits": n_splits, "scheme": scheme}, index=pd.Index(list(agg_ids), name="aggregate"))
    out.attrs["scheme"] = SCHEME_TEXT[scheme]
    return out


def resolution(bench: Benchmark, agg_ids: Sequence[str], *, scheme: str = "items",
               replicates: int = default_of("leaderboard_replicates"), seed: int = default_of("leaderboard_seed"),
               alpha: float = default_of("leaderboard_alpha"), family: str = default_of("leaderboard_family"),
               no_answer_scoring: str = "wrong") -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(ranks, summary)``: per aggregate and system, the estimate with its
    percentile interval over the replicates, the rank, the rank sets of both
    families and the percentile interval of bootstrap ranks; per aggregate, the share of adjacent pairs resolved in
    ``family`` and of all pairs (discriminative power), the tie bands, and
    the critical values."""
    from .ranks import percentile_rank_intervals, point_ranks

    r = Resampler(bench, scheme, no_answer_scoring)
    point = oriented(r.total, agg_ids)  # (A, S)
    reps = np.concatenate([oriented(t, agg_ids) for _, t in r.chunks(replicates, seed)])  # (B, A, S)
    reps_a = np.moveaxis(reps, 0, -2)  # (A, B, S)
    sets = {f: rank_sets(point, reps_a, alpha=alpha, family=f) for f in ("marginal", "simultaneous")}
    p_lo, p_hi = percentile_rank_intervals(reps_a, alpha=alpha)
    rank = point_ranks(point)
    sign_ = np.where(_directions(agg_ids)[:, 0], 1.0, -1.0)[:, None, None]
    # each system's value with its percentile interval over the replicates (the scheme's)
    v_lo, v_hi = np.nanquantile(sign_ * reps_a, [alpha / 2, 1 - alpha / 2], axis=1)  # (A, S) each
    rows, summary = [], []
    sign = np.where(_directions(agg_ids)[:, 0], 1.0, -1.0)
    for a, agg in enumerate(agg_ids):
        order = np.argsort(-point[a], kind="stable")
        res = sets[family].resolved[a][np.ix_(order, order)]
        adjacent = np.diagonal(res, offset=1)
        bands = tie_bands(point[a], sets[family].resolved[a])
        for j in order:
            lo_, hi_ = sorted((v_lo[a, j], v_hi[a, j]))
            rows.append({"aggregate": agg, "system": bench.systems[j], "estimate": sign[a] * point[a, j],
                         "estimate_low": lo_, "estimate_high": hi_, "rank": int(rank[a, j]),
                         "marginal_lower": int(sets["marginal"].lower[a, j]),
                         "marginal_upper": int(sets["marginal"].upper[a, j]),
                         "simultaneous_lower": int(sets["simultaneous"].lower[a, j]),
                         "simultaneous_upper": int(sets["simultaneous"].upper[a, j]),
                         "percentile_lower": int(p_lo[a, j]), "percentile_upper": int(p_hi[a, j])})
        p = len(order)
        summary.append({"aggregate": agg, "adjacent_pairs": adjacent.size,
                        "adjacent_resolved": int(adjacent.sum()),
                        "share_resolved": float(adjacent.mean()) if adjacent.size else np.nan,
                        # Sakai's discriminative power: the share of all pairs told apart
                        "pairs_resolved": float(np.triu(res, 1).sum() / max(p * (p - 1) / 2, 1)),
                        "tie_bands": "; ".join("{" + ", ".join(bench.systems[i] for i in b) + "}" for b in bands),
                        "critical_simultaneous": float(sets["simultaneous"].critical[a]),
                        "family": family, "scheme": scheme, "replicates": replicates, "alpha": alpha})
    ranks = pd.DataFrame(rows)
    out = pd.DataFrame(summary).set_index("aggregate")
    ranks.attrs["scheme"] = out.attrs["scheme"] = SCHEME_TEXT[scheme]
    return ranks, out


# ------------------------------------------------------------------------------------------------------------
# robustness to one system more or less
# with more systems than this, the robustness criterion removes this many, spread evenly over the ranking (the
# cost of one removal is a leaderboard of S - 1 systems and its S^2 pairs)
MAX_REMOVALS = 30
MAX_ELEMENTS = 1 << 24  # pair or task statistics held at once (float64: 128 MB)
MAX_DEGENERATES = 5  # the verdict's replicates follow this many best-placed degenerates per aggregate


def removals(point: np.ndarray, limit: int = MAX_REMOVALS) -> np.ndarray:
    """The systems whose removal the robustness criterion tries: every one,
    or ``limit`` of them spread evenly over the ranking by ``point`` (S,).

    >>> removals(np.arange(100.0), limit=5).tolist()
    [99, 74, 49, 25, 0]
    """
    s = point.shape[-1]
    if s <= limit:
        return np.arange(s)
    order = np.argsort(-point, kind="stable")
    return order[np.unique(np.linspace(0, s - 1, limit).round().astype(np.int64))]


def _reversals(totals, agg_ids, removed=None) -> np.ndarray:
    """(..., A, R): for the removal of each system of ``removed`` (default
    all S), the number of the other systems' pairs whose strict order
    reverses (a tie made or broken counts half), in blocks of removals that
    bound memory.  An aggregate independent of the other systems by
    construction (declared, and held to it by its contract) reverses none."""
    full = oriented(totals, agg_ids)  # (..., A, S)
    s = full.shape[-1]
    removed = np.arange(s) if removed is None else np.asarray(removed)
    lead = full.shape[:-2]
    out = np.zeros(lead + (len(agg_ids), removed.size))
    keep = np.array([[k for k in range(s) if k != r] for r in removed]).reshape(removed.size, s - 1)  # indices
    n_tasks = totals.sums.shape[-2]
    per = max(1, MAX_ELEMENTS // max(1, int(np.prod(lead)) * s * max(s, n_tasks)))
    counts = {}
    for a, agg in enumerate(agg_ids):  # a loop over the aggregates, and memory-bound blocks of removals
        ag = A.get(agg)
        if ag.independent:
            continue
        x = totals.means(ag.feature)
        sign = 1.0 if ag.higher_is_better else -1.0
        if ag.of_ranks is not None and ag.feature not in counts:
            counts[ag.feature] = A.beaten_tied(x)
        for lo in range(0, removed.size, per):
            k = keep[lo:lo + per]
            xk = np.take(x, k, axis=-2)  # (..., R_b, S - 1, T)
            cp = totals.copies[..., None, :]
            if ag.of_ranks is not None:  # removing r moves each count by one comparison with r: no sort again
                beaten, tied = counts[ag.feature]
                xr = np.nan_to_num(np.take(x, removed[lo:lo + per], axis=-2)[..., None, :], nan=-np.inf)
                xk_ = np.nan_to_num(xk, nan=-np.inf)
                after = sign * ag.of_ranks(np.take(beaten, k, axis=-2) - (xr < xk_),
                                           np.take(tied, k, axis=-2) - (xr == xk_), copies=cp, n=s - 1)
            else:
                after = sign * ag(xk, copies=cp, items=totals.items[..., None, :])  # (..., R_b, S - 1)
            before = np.take(full[..., a, :], k, axis=-1)  # (..., R_b, S - 1): the full scores of the same systems
            changed = np.abs(np.sign(before[..., :, None] - before[..., None, :])
                             - np.sign(after[..., :, None] - after[..., None, :])) / 2
            out[..., a, lo:lo + per] = changed.sum(axis=(-2, -1)) / 2  # each unordered pair counted once
    return out


def _reversal_share(totals, agg_ids, removed=None) -> np.ndarray:
    """(..., A): the mean over removals of the share of the remaining
    pairs whose order reverses."""
    s = totals.sums.shape[-3]
    return _reversals(totals, agg_ids, removed).mean(axis=-1) / max((s - 1) * (s - 2) / 2, 1)


def robustness(bench: Benchmark, agg_ids: Sequence[str], *, no_answer_scoring: str = "wrong") -> pd.DataFrame:
    """Per aggregate: the mean share of the other systems' pairs whose order
    reverses when one system is removed (every system, or ``MAX_REMOVALS``
    spread over the ranking of the first aggregate), the worst system to remove,
    whether no removal reversed any pair here (``independent_of_others``)
    and whether the aggregate is independent of the others by construction
    (``independent``, declared)."""
    t = bench.totals(no_answer_scoring)
    removed = removals(oriented(t, agg_ids[:1])[0])
    flips = _reversals(t, agg_ids, removed)  # (A, R)
    share = _reversal_share(t, agg_ids, removed)
    rows = []
    for a, agg in enumerate(agg_ids):
        worst = int(np.argmax(flips[a]))
        rows.append({"aggregate": agg, "reversal_share": float(share[a]), "reversals_worst": float(flips[a, worst]),
                     "worst_removed": bench.systems[removed[worst]] if flips[a, worst] > 0 else "",
                     "removals": int(removed.size),
                     "independent_of_others": bool(np.all(flips[a] == 0)), "independent": A.get(agg).independent})
    return pd.DataFrame(rows).set_index("aggregate")


# ------------------------------------------------------------------------------------------------------------
# gameability
def degenerates(bench: Benchmark) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(names, right, unanswered)`` of the degenerate systems: one
    specialist per task (right on every item of the task, and on the others
    at chance: a random guess among the options, 1/n_options, or 0 when the
    number of options is unknown), and for answers one constant answer per
    gold label (right where the gold is that label)."""
    n = bench.n_items
    guess = (1.0 / bench.n_options) if bench.n_options is not None else np.zeros(n)
    names, rows = [], []
    for t, task in enumerate(bench.task_names):
        names.append(f"specialist in {task}")
        rows.append(np.where(bench.tasks == t, 1.0, guess))
    gold = bench.labels
    if gold is not None:
        for lab in sorted(set(gold)):
            names.append(f"constant {lab!r}")
            rows.append((np.asarray(gold) == lab).astype(np.float64))
    right = np.array(rows).reshape(len(rows), n)
    return names, right, np.zeros(right.shape, dtype=bool)


def _beaten_by_degenerates(r_real: Resampler, r_deg: Resampler, w, agg_ids) -> np.ndarray:
    """(B, A, D): the share of real systems each degenerate beats (strictly;
    a tie half) when added alone, on the weights ``w`` of both resamplers."""
    real = r_real.totals_of(w)
    deg = r_deg.totals_of(w)
    s, d = real.sums.shape[-3], deg.sums.shape[-3]
    out = np.empty((real.sums.shape[0], len(agg_ids), d))
    counts = {}  # per feature, the real systems' counts of systems beaten and tied per task (one sort)
    for a, agg in enumerate(agg_ids):  # each aggregate on D leaderboards of S + 1 systems
        ag = A.get(agg)
        xr, xd = real.means(ag.feature), deg.means(ag.feature)  # (B, S, T), (B, D, T)
        if ag.of_ranks is not None:  # adding a system moves each count by one comparison: no sort again
            if ag.feature not in counts:
                counts[ag.feature] = A.beaten_tied(xr)
            beaten, tied = counts[ag.feature]
            xr_, xd_ = np.nan_to_num(xr[:, None], nan=-np.inf), np.nan_to_num(xd[:, :, None], nan=-np.inf)
            cp = real.copies[:, None, :]
            v_real = ag.of_ranks(beaten[:, None] + (xd_ < xr_), tied[:, None] + (xd_ == xr_), copies=cp, n=s + 1)
            v_g = ag.of_ranks((xr_ < xd_).sum(axis=-2)[..., None, :], (xr_ == xd_).sum(axis=-2)[..., None, :],
                              copies=cp, n=s + 1)
            v = np.concatenate([v_real, v_g], axis=-1)  # (B, D, S + 1)
        else:
            x = np.concatenate([np.broadcast_to(xr[:, None], (xr.shape[0], d) + xr.shape[1:]), xd[:, :, None]],
                               axis=-2)  # (B, D, S + 1, T)
            v = ag(x, copies=real.copies[:, None, :], items=real.items[:, None, :])  # (B, D, S + 1)
        v = v if ag.higher_is_better else -v
        g = v[..., -1:]
        out[:, a] = ((g > v[..., :-1]) + 0.5 * (g == v[..., :-1])).mean(axis=-1)
    return out


def _with_degenerates(bench: Benchmark, no_answer_scoring: str):
    names, right, unanswered = degenerates(bench)
    deg = Benchmark(bench.name, bench.item_ids, bench.tasks, bench.task_names, tuple(names), right, unanswered,
                    bench.n_options, bench.kind)
    return names, deg


def gameability(bench: Benchmark, agg_ids: Sequence[str], *, no_answer_scoring: str = "wrong") -> pd.DataFrame:
    """Per aggregate and degenerate system: the share of the real systems it
    beats when added alone, and its rank among them."""
    names, deg = _with_degenerates(bench, no_answer_scoring)
    rr, rd = Resampler(bench, "items", no_answer_scoring), Resampler(deg, "items", no_answer_scoring)
    ones = _ones(bench)
    share = _beaten_by_degenerates(rr, rd, ones, agg_ids)[0]  # (A, D)
    rows = [{"aggregate": agg, "degenerate": nm, "beats_share": float(share[a, k]),
             "rank": int(1 + round((1 - share[a, k]) * bench.n_systems))}
            for a, agg in enumerate(agg_ids) for k, nm in enumerate(names)]
    return pd.DataFrame(rows)


def _ones(bench: Benchmark):
    from .resampling import Weights

    return Weights(np.ones((1, bench.n_items)), None)


# ------------------------------------------------------------------------------------------------------------
# the verdict's criteria
def criteria_replicates(bench: Benchmark, agg_ids: Sequence[str], *, scheme: str = "items",
                        replicates: int = default_of("leaderboard_verdict_replicates"),
                        n_splits: int = default_of("leaderboard_splits"), seed: int = default_of("leaderboard_seed"),
                        alpha: float = default_of("leaderboard_alpha"),
                        no_answer_scoring: str = "wrong", rank_replicates: int | None = None,
                        family: str = "simultaneous") -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(value, boot, criteria)``: the criteria of every aggregate on the
    benchmark (C, A) and on ``replicates`` shared resamples of ``scheme``
    (B, C, A), for ``verdict.evidence_sets``.

    Point values: stability averaged over ``n_splits`` half-splits;
    resolution the share of adjacent pairs resolved by the rank sets of
    ``family`` on ``rank_replicates`` replicates (default ``replicates``;
    the leaderboard's own, ``resolution``'s: the same draws, so the same
    share as its table); robustness and gameability on the benchmark.
    Replicate b: one resample; its stability the tau of one half-split of
    it; its resolution the share of its adjacent pairs whose |difference| /
    se exceeds the benchmark's critical value (of the pair's upper system in
    the marginal family; se and critical values those of the point value);
    robustness and gameability on it (the removals of ``removals``; the
    ``MAX_DEGENERATES`` degenerates best placed on the benchmark for each
    aggregate)."""
    r = Resampler(bench, scheme, no_answer_scoring)
    names, deg = _with_degenerates(bench, no_answer_scoring)
    point_game = _beaten_by_degenerates(r, Resampler(deg, "items", no_answer_scoring), _ones(bench), agg_ids)[0]
    # the replicates follow the degenerates best placed on the benchmark itself (MAX_DEGENERATES per aggregate,
    # the union): the criterion is the best one's share, and the others are far behind it
    best = np.unique(np.argsort(-point_game, axis=-1, kind="stable")[:, :MAX_DEGENERATES])
    names = [names[i] for i in best]
    deg = Benchmark(bench.name, bench.item_ids, bench.tasks, bench.task_names, tuple(names), deg.right[best],
                    deg.unanswered[best], bench.n_options, bench.kind)
    rd = Resampler(deg, scheme, no_answer_scoring)
    crits = list(CRITERIA)
    point_scores = oriented(r.total, agg_ids)  # (A, S)
    boot = np.empty((replicates, len(crits), len(agg_ids)))
    full = np.empty((replicates, len(agg_ids), bench.n_systems))
    removed = removals(point_scores[0])
    d = len(names)
    per = max(1, min(100, (1 << 22) // max(1, bench.n_items),
                     MAX_ELEMENTS // max(1, (d + 1) * bench.n_systems * bench.n_tasks)))
    for lo in range(0, replicates, per):  # chunks of replicates: memory only
        idx = np.arange(lo, min(replicates, lo + per))
        w = r.draw(idx, seed)
        t = r.totals_of(w)
        full[idx] = oriented(t, agg_ids)
        boot[idx, 0] = _stability_taus(r, agg_ids, idx, seed, base=w)
        boot[idx, 2] = 1 - _reversal_share(t, agg_ids, removed)
        boot[idx, 3] = 1 - _beaten_by_degenerates(r, rd, w, agg_ids).max(axis=-1)
    # the rank sets of the point value: on the leaderboard's own replicates (its first `replicates` are these)
    n_rank = replicates if rank_replicates is None else int(rank_replicates)
    reps = full[:n_rank]
    if n_rank > replicates:
        reps = np.concatenate([reps] + [oriented(t, agg_ids) for _, t in r.chunks(n_rank, seed, start=replicates)])
    reps = np.moveaxis(reps, 0, -2)  # (A, B, S)
    sets = rank_sets(point_scores, reps, alpha=alpha, family=family)
    _, se, _ = pair_stats(point_scores, reps)  # (A, S, S)
    order = np.argsort(-full, axis=-1, kind="stable")  # each replicate's own order
    hi, lo_ = order[..., :-1], order[..., 1:]  # (B, A, S - 1): its adjacent pairs
    gap = np.take_along_axis(full, hi, axis=-1) - np.take_along_axis(full, lo_, axis=-1)
    a_ = np.arange(len(agg_ids))[None, :, None]
    pair_se = se[a_, hi, lo_]
    crit = np.asarray(sets.critical)
    crit = crit[a_, hi] if crit.ndim == 2 else crit[None, :, None]  # marginal: the upper system's row
    with np.errstate(invalid="ignore", divide="ignore"):
        t_adj = np.where(pair_se > 0, gap / pair_se, np.where(gap > 0, np.inf, 0.0))
    boot[:, 1] = (t_adj > crit).mean(axis=-1)
    value = np.empty((len(crits), len(agg_ids)))
    value[0] = np.nanmean(np.concatenate([_stability_taus(r, agg_ids, np.arange(k, min(n_splits, k + 100)), seed)
                                          for k in range(0, n_splits, 100)]), axis=0)
    o = np.argsort(-point_scores, axis=-1, kind="stable")
    res = np.take_along_axis(np.take_along_axis(sets.resolved, o[:, :, None], axis=1), o[:, None, :], axis=2)
    value[1] = np.diagonal(res, offset=1, axis1=1, axis2=2).mean(axis=-1)
    value[2] = 1 - _reversal_share(r.total, agg_ids, removed)
    value[3] = 1 - point_game.max(axis=-1)
    return value, boot, crits
