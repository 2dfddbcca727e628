"""Rank confidence sets (``metaeval.methods.leaderboards.ranks``) against
a plain loop of METHODS.md section 10, on random and real replicates; the
replicates of the three schemes against an independent loop with NumPy's
own draws on mmlu_pro; coverage on simulated leaderboards with known ranks,
and a null of exchangeable systems."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from metaeval.data.benchmark import Benchmark, read_benchmark
from metaeval.methods.leaderboards.ranks import percentile_rank_intervals, point_ranks, rank_sets, tie_bands
from metaeval.methods.leaderboards.resampling import Resampler, aggregate_replicates

MMLU = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlu_pro"


def loop_sets(theta, reps, alpha, family, stepdown):
    """The method as written, one pair and one replicate at a time."""
    p, b = len(theta), len(reps)
    d = [[theta[j] - theta[k] for k in range(p)] for j in range(p)]
    diffs = [[[reps[r][j] - reps[r][k] for r in range(b)] for k in range(p)] for j in range(p)]
    se = [[float(np.std(diffs[j][k], ddof=1)) if j != k else math.nan for k in range(p)] for j in range(p)]
    mean = [[float(np.mean(diffs[j][k])) for k in range(p)] for j in range(p)]
    q = min(b, max(1, math.ceil((1 - alpha) * b - 1e-9)))  # the ceil((1 - alpha) B)-th order statistic

    def crit(pairs):
        stats = [max((abs((diffs[j][k][r] - mean[j][k]) / se[j][k]) for j, k in pairs), default=0.0)
                 for r in range(b)]
        return sorted(stats)[q - 1]

    def t(j, k):
        return d[j][k] / se[j][k]

    if family == "marginal":
        c = []
        for j in range(p):
            active = [k for k in range(p) if k != j]
            cj = crit([(j, k) for k in active])
            while stepdown:
                rejected = [k for k in active if abs(t(j, k)) > cj]
                if not rejected:
                    break
                active = [k for k in active if k not in rejected]
                if not active:
                    break
                cj = crit([(j, k) for k in active])
            c.append(cj)
    else:
        active = [(j, k) for j in range(p) for k in range(p) if j != k]
        cs = crit(active)
        while stepdown:
            rejected = [(j, k) for j, k in active if abs(t(j, k)) > cs]
            if not rejected:
                break
            active = [pk for pk in active if pk not in rejected]
            if not active:
                break
            cs = crit(active)
        c = [cs] * p
    lower = [1 + sum(t(k, j) > c[j] for k in range(p) if k != j) for j in range(p)]
    upper = [p - sum(t(j, k) > c[j] for k in range(p) if k != j) for j in range(p)]
    return np.array(lower), np.array(upper), np.array(c)


@pytest.mark.parametrize("family", ["marginal", "simultaneous"])
@pytest.mark.parametrize("stepdown", [False, True])
def test_rank_sets_equal_the_plain_loop_on_random_replicates(family, stepdown):
    rng = np.random.default_rng(7)
    for trial in range(4):
        p = 6
        theta = np.sort(rng.random(p))[::-1] * rng.choice([0.05, 0.2, 1.0])
        reps = theta + rng.normal(0, 0.02, (120, p)) + rng.normal(0, 0.02, (120, 1))  # correlated systems
        s = rank_sets(theta, reps, family=family, stepdown=stepdown)
        lo, hi, c = loop_sets(theta, reps, 0.05, family, stepdown)
        assert s.lower.tolist() == lo.tolist() and s.upper.tolist() == hi.tolist(), trial
        np.testing.assert_allclose(np.broadcast_to(s.critical, (p,)), c, rtol=1e-10)
    # every leaderboard of a batch as if alone
    thetas = rng.random((3, 5))
    reps = thetas[:, None, :] + rng.normal(0, 0.1, (3, 80, 5))
    batch = rank_sets(thetas, reps, family=family, stepdown=stepdown)
    for r in range(3):
        one = rank_sets(thetas[r], reps[r], family=family, stepdown=stepdown)
        assert batch.lower[r].tolist() == one.lower.tolist() and batch.upper[r].tolist() == one.upper.tolist()


def test_rank_sets_properties():
    rng = np.random.default_rng(3)
    theta = np.array([0.6, 0.59, 0.4, 0.39, 0.1])
    reps = theta + rng.normal(0, 0.01, (500, 5))
    single = rank_sets(theta, reps, family="simultaneous", stepdown=False)
    step = rank_sets(theta, reps, family="simultaneous")
    marg = rank_sets(theta, reps, family="marginal")
    r = point_ranks(theta)
    for s in (single, step, marg):  # every set holds the estimated rank and lies in 1..p
        assert (s.lower <= r).all() and (r <= s.upper).all() and (s.lower >= 1).all() and (s.upper <= 5).all()
    # the stepdown and the marginal family only narrow the single-step simultaneous sets
    assert (step.lower >= single.lower).all() and (step.upper <= single.upper).all()
    assert (marg.lower >= single.lower).all() and (marg.upper <= single.upper).all()
    assert step.critical <= single.critical
    # identical systems are never resolved; a system far from all is alone
    same = rank_sets(np.array([0.5, 0.5, 0.9]), np.array([[0.5, 0.5, 0.9], [0.4, 0.4, 0.91], [0.6, 0.6, 0.88]]))
    assert same.lower.tolist() == [2, 2, 1] and same.upper.tolist() == [3, 3, 1]


def test_tie_bands_and_percentile_intervals():
    res = np.zeros((5, 5), bool)
    theta = np.array([0.1, 0.9, 0.5, 0.49, 0.48])  # order: 1, 2, 3, 4, 0
    for a, b in [(1, 2), (1, 3), (1, 4), (1, 0), (2, 0), (3, 0), (4, 0), (2, 4)]:
        res[a, b] = res[b, a] = True
    assert tie_bands(theta, res) == [[2, 3], [3, 4]]
    reps = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 0.0], [3.0, 1.0]])
    lo, hi = percentile_rank_intervals(reps, alpha=0.5)
    assert lo.tolist() == [1, 1] and hi.tolist() == [1, 2]  # ranks 2, 1, 1, 1 and 1, 2, 2, 2


@pytest.fixture(scope="module")
def mmlu():
    preds = {p.stem: p for p in sorted((MMLU / "predictions").glob("*.csv"))}
    return read_benchmark("mmlu_pro", MMLU / "gold.csv", preds, task_column="category", options_column="n_options",
                          no_answer="none")


def numpy_replicates(bench, scheme, replicates, seed):
    """Mean-over-items replicates by a loop over replicates and tasks with
    NumPy's own generator (independent of the engine's draws)."""
    rng = np.random.default_rng(seed)
    x = bench.features("wrong")[..., 0]  # (S, N)
    members = [np.flatnonzero(bench.tasks == t) for t in range(bench.n_tasks)]
    out = np.empty((replicates, bench.n_systems))
    for r in range(replicates):
        tasks = range(bench.n_tasks) if scheme == "items" else rng.integers(0, bench.n_tasks, bench.n_tasks)
        idx = [m if scheme == "tasks" else m[rng.integers(0, m.size, m.size)] for m in (members[t] for t in tasks)]
        idx = np.concatenate(idx)
        out[r] = x[:, idx].mean(axis=1)
    return out


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["items", "tasks", "both"])
def test_rank_sets_on_mmlu_pro_equal_an_independent_loop(mmlu, scheme):
    """The engine's replicates and the sets built on them against NumPy's
    draws and the plain loop: the same sets but for pairs within Monte
    Carlo error of the critical value; SEs of the differences within 10 %."""
    point, reps = aggregate_replicates(mmlu, ["mean_items"], scheme=scheme, replicates=1000, seed=0)
    ref = numpy_replicates(mmlu, scheme, 1000, 11)
    theta = point[0]
    np.testing.assert_allclose(theta, mmlu.right.mean(axis=1), atol=1e-12)
    d_engine = reps[:, 0, :, None] - reps[:, 0, None, :]
    d_ref = ref[:, :, None] - ref[:, None, :]
    off = ~np.eye(12, dtype=bool)
    z = np.where(off, d_engine - d_engine.mean(axis=0), 0) / np.where(off, d_engine.std(axis=0), 1)
    mc = np.sqrt(((z ** 4).mean(axis=0)[off] - 1) / (4 * 1000))  # the Monte Carlo SD of s / sigma, B draws
    if scheme == "items":  # the SE is known exactly: sum_t (n_t / N)^2 var_t(x_j - x_k) / n_t (ddof 0)
        x, n = mmlu.features("wrong")[..., 0], mmlu.n_items
        var = sum((m.sum() / n) ** 2 * (x[:, None, m] - x[None, :, m]).var(axis=-1) / m.sum()
                  for m in (mmlu.tasks == t for t in range(mmlu.n_tasks)))
        ratio = d_engine.std(axis=0, ddof=1)[off] / np.sqrt(var)[off]
        assert np.all(np.abs(ratio - 1) < 4.5 * mc), ratio
    ratio = d_engine.std(axis=0, ddof=1)[off] / d_ref.std(axis=0, ddof=1)[off]
    assert np.all(np.abs(ratio - 1) < 5 * np.sqrt(2) * mc), ratio  # two estimates, each with its own error
    with np.errstate(invalid="ignore", divide="ignore"):
        t_ref = np.abs((theta[:, None] - theta[None, :]) / d_ref.std(axis=0, ddof=1))
    for family in ("marginal", "simultaneous"):
        ours = rank_sets(theta, reps[:, 0], family=family)
        lo, hi, c = loop_sets(theta, ref, 0.05, family, True)
        assert np.all(np.abs(np.broadcast_to(ours.critical, (12,)) - c) < 0.35)
        # a pair decided differently must lie within Monte Carlo error of the boundary in one of the two
        # (|t| / c within 15 % of 1): the pairs of a system whose bounds differ
        near_ours = np.abs(np.abs(ours.t) / np.broadcast_to(np.reshape(ours.critical, (-1, 1)), (12, 12)) - 1) < 0.15
        near_ref = np.abs(t_ref / c[:, None] - 1) < 0.15
        borderline = off & (near_ours | near_ref)
        differ = (lo != ours.lower) | (hi != ours.upper)
        assert not differ[~borderline.any(axis=1)].any(), (scheme, family, lo, ours.lower, hi, ours.upper)


@pytest.mark.realdata
def test_mmlu_pro_items_within_tasks_resolves_all_but_two_bands(mmlu):
    """METHODS.md section 10's check: items within the 14 categories, B 1000,
    seed 0: the simultaneous single-step critical value 3.18 (here within
    Monte Carlo error: its SD over blocks of 1,000 replicates is about
    0.05), ranks 1-6 resolved, bands {7, 8} and {9, 10}, 11 and 12 resolved."""
    point, reps = aggregate_replicates(mmlu, ["mean_items"], scheme="items", replicates=1000, seed=0)
    theta = point[0]
    single = rank_sets(theta, reps[:, 0], family="simultaneous", stepdown=False)
    assert abs(float(single.critical) - 3.18) < 0.15
    order = np.argsort(-theta)
    assert single.lower[order].tolist() == [1, 2, 3, 4, 5, 6, 7, 7, 9, 9, 11, 12]
    assert single.upper[order].tolist() == [1, 2, 3, 4, 5, 6, 8, 8, 10, 10, 11, 12]
    names = [[mmlu.systems[i] for i in band] for band in tie_bands(theta, single.resolved)]
    assert names == [["Mistral-7B-v0.1", "Mistral-7B-v0.2-hf"], ["Yi-6b-Chat", "Qwen1.5-7B-Chat"]]
    # unadjusted sets (each pair at alpha, no family): here the same, as METHODS says
    unadjusted = rank_sets(theta, reps[:, 0], family="marginal", alpha=0.05)
    assert unadjusted.lower.tolist() == single.lower.tolist()


def test_resampler_chunks_do_not_change_the_replicates():
    rng = np.random.default_rng(0)
    b = Benchmark.from_scores("toy", tasks=rng.integers(0, 4, 60), scores={s: rng.random(60) for s in "abc"},
                              n_options=rng.integers(2, 5, 60))
    for scheme in ("items", "tasks", "both"):
        r = Resampler(b, scheme)
        whole = r.totals(range(10), 5)
        part = r.totals([3, 4], 5)
        np.testing.assert_allclose(part.sums, whole.sums[3:5])
        assert (whole.copies.sum(axis=1) == 4).all()  # 4 tasks drawn per replicate
        # per-task sums of a replicate = its item weights times the scores, task by task (a plain loop)
        if scheme != "tasks":
            from metaeval.engine.resample import bootstrap_within

            w = bootstrap_within(b.tasks, [7], 5, two_stage=scheme == "both")[0]
            x = b.features()
            ref = np.array([[[(w[b.tasks == t] * x[s, b.tasks == t, f]).sum() for f in range(2)]
                             for t in range(4)] for s in range(3)])
            np.testing.assert_allclose(r.totals([7], 5).sums[0], ref, rtol=1e-12)


@pytest.mark.slow
def test_rank_sets_cover_the_true_ranks_and_the_percentile_intervals_are_reported():
    """On leaderboards with near ties whose true ranks are known (400
    simulated benchmarks): the rank sets' coverage is at least the nominal
    level minus 3 Monte Carlo SE (marginal sets: every system's own;
    simultaneous sets: the whole ranking); the percentile intervals of
    bootstrap ranks under-cover the near-tied systems."""
    from metaeval.methods.leaderboards.simulate import rank_coverage

    cov = rank_coverage(sims=400, replicates=500, seed=1)
    se = np.sqrt(0.95 * 0.05 / 400)
    assert cov.loc["rank sets, marginal", "worst_system"] >= 0.95 - 3 * se
    assert cov.loc["rank sets, simultaneous", "simultaneous"] >= 0.95 - 3 * se
    pct = cov.loc["percentile of bootstrap ranks"]
    assert pct["worst_system"] < 0.95 - 3 * se and pct["simultaneous"] < 0.95 - 3 * se  # what it shows


@pytest.mark.slow
def test_exchangeable_systems_are_resolved_at_the_nominal_rate():
    """The null: 12 systems of one true accuracy; the simultaneous family
    resolves any pair in at most alpha of the benchmarks (+ 3 MC SE)."""
    from metaeval.methods.leaderboards.simulate import exchangeable_null

    null = exchangeable_null(sims=400, replicates=500, seed=2)
    se = np.sqrt(0.05 * 0.95 / 400)
    assert null.loc["simultaneous", "any_pair_resolved"] <= 0.05 + 3 * se
    assert null.loc["simultaneous", "adjacent_resolved"] <= 0.05


def test_point_ranks_are_scipys_min_ranks_of_the_negated_scores():
    from scipy.stats import rankdata

    rng = np.random.default_rng(4)
    x = rng.integers(0, 4, (50, 9)).astype(float)  # many ties
    np.testing.assert_array_equal(point_ranks(x), rankdata(-x, method="min", axis=-1))
    lo, hi = percentile_rank_intervals(x[None], alpha=0.2)  # 50 replicates of one leaderboard
    ref = rankdata(-x, method="min", axis=-1)
    np.testing.assert_array_equal(lo[0], np.quantile(ref, 0.1, axis=0, method="inverted_cdf"))
    np.testing.assert_array_equal(hi[0], np.quantile(ref, 0.9, axis=0, method="inverted_cdf"))
