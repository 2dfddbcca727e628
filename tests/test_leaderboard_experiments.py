"""The experiments on a leaderboard's aggregates and their verdict
(``metaeval.methods.leaderboards.experiments``,
``metaeval.verdict.leaderboard``), against scipy's Kendall tau, plain loops
and hand-made leaderboards; the verdict on a null of exchangeable systems."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau

from metaeval.data.benchmark import Benchmark
from metaeval.measures import aggregates as A
from metaeval.methods.leaderboards import experiments as E
from metaeval.methods.leaderboards.resampling import Resampler
from metaeval.methods.leaderboards.simulate import simulated_correctness
from metaeval.verdict.leaderboard import leaderboard_verdict

AGGS = ["mean_items", "mean_tasks", "mean_rank", "borda", "win_rate", "geometric", "median"]


def _bench(seed=0, s=6, t=5, n=40):
    rng = np.random.default_rng(seed)
    theta = rng.uniform(0.2, 0.8, s)
    tasks = np.repeat(np.arange(t), n)
    return Benchmark.from_scores("toy", tasks=tasks, scores={f"s{j}": (rng.random(t * n) < theta[j]).astype(float)
                                                             for j in range(s)})


def test_agreement_is_scipys_kendall_tau_b():
    b = _bench()
    tab = E.agreement(b, AGGS)
    t = b.totals()
    vals = {a: A.evaluate(t.means(), [a], copies=t.copies, items=t.items)[a] * (1 if A.get(a).higher_is_better else -1)
            for a in AGGS}
    for a in AGGS:
        for c in AGGS:
            assert tab.loc[a, c] == pytest.approx(kendalltau(vals[a], vals[c]).statistic, abs=1e-12)


def test_stability_halves_and_taus_by_a_loop():
    b = _bench(1)
    r = Resampler(b, "items")
    x, y = r.halves([0, 1, 2], 4)
    task_of = np.sort(b.tasks)  # the columns are in task order
    for row in range(3):
        assert np.array_equal(np.bincount(task_of, weights=x.items[row]), [20] * 5)  # half of every task
        assert np.array_equal(x.items[row] + y.items[row], np.ones(b.n_items))
    out = E.stability(b, ["mean_items"], scheme="items", n_splits=3, seed=4)
    x_cols = r.order  # item of each column
    taus = []
    for row in range(3):
        half = np.zeros(b.n_items, bool)
        half[x_cols[x.items[row] == 1]] = True
        taus.append(kendalltau(b.right[:, half].mean(axis=1), b.right[:, ~half].mean(axis=1)).statistic)
    assert out.loc["mean_items", "tau_mean"] == pytest.approx(np.mean(taus), abs=1e-12)
    tx, ty = Resampler(b, "tasks").halves([0], 4)
    assert tx.tasks.sum() == 2 and np.array_equal(tx.tasks + ty.tasks, np.ones((1, 5)))


def test_borda_fails_independence_and_the_means_do_not():
    """Removing C from a leaderboard of four turns two of Borda's orders
    into ties (by hand), and changes no order of the means."""
    s = {"A": [0.5, 0.6, 0.9], "B": [0.7, 0.6, 0.5], "C": [0.5, 0.9, 0.2], "D": [0.8, 0.6, 0.0]}
    b = Benchmark.from_scores("iia", tasks=np.arange(3), scores=s)
    t = b.totals()
    # systems beaten per task: (0, 2, 0, 3), (0, 0, 3, 0), (3, 2, 1, 0): A 3, B 4, C 4, D 3
    assert A.get("borda")(t.means(), copies=t.copies, items=t.items).tolist() == [3, 4, 4, 3]
    wo = b.without(["C"]).totals()
    # without C: (0, 1, 2), (0, 0, 0), (2, 1, 0): A 2, B 2, D 2: A < B and B > D become ties (half each)
    assert A.get("borda")(wo.means(), copies=wo.copies, items=wo.items).tolist() == [2, 2, 2]
    rob = E.robustness(b, ["mean_tasks", "borda"])
    assert rob.loc["mean_tasks", "reversal_share"] == 0 and rob.loc["mean_tasks", "independent_of_others"]
    # a plain loop over the removals, each recomputed from the benchmark without that system
    full = A.get("borda")(t.means(), copies=t.copies, items=t.items)
    loop = []
    for r in range(4):
        keep = [k for k in range(4) if k != r]
        bt = b.without([b.systems[r]]).totals()
        w = A.get("borda")(bt.means(), copies=bt.copies, items=bt.items)
        loop.append(sum(abs(np.sign(full[keep][i] - full[keep][j]) - np.sign(w[i] - w[j])) / 2
                        for i in range(3) for j in range(i + 1, 3)))
    assert loop[2] == 1.0  # removing C: two halves
    assert rob.loc["borda", "reversal_share"] == pytest.approx(np.mean(loop) / 3)
    assert not rob.loc["borda", "independent_of_others"]


def test_gameability_specialist_by_hand():
    b = Benchmark.from_answers("g", gold=["A", "B", "C", "D"] * 3, tasks=np.repeat(["x", "y", "z"], 4),
                               answers={"good": ["A", "B", "C", "D"] * 2 + ["A"] * 4,
                                        "poor": ["B"] * 12}, n_options=[4] * 12)
    g = E.gameability(b, ["mean_items"])
    spec = g[g.degenerate == "specialist in x"].iloc[0]
    # specialist: 4 right + 8 items at 1/4 = 6 / 12 = 0.5; good 9/12 = 0.75, poor 3/12 = 0.25: beats one of two
    assert spec.beats_share == 0.5
    const = g[g.degenerate == "constant 'A'"].iloc[0]  # 3 / 12 = 0.25: ties poor
    assert const.beats_share == 0.25


@pytest.mark.parametrize("rank_replicates, family", [(None, "simultaneous"), (300, "simultaneous"), (80, "marginal"),
                                                     (300, "marginal")])
def test_criteria_point_resolution_is_the_rank_sets_share(rank_replicates, family):
    """The verdict's resolution criterion counts the pairs the leaderboard's
    table counts (its replicates and family, more or fewer than the
    verdict's own): the page's evidence and its table agree."""
    b = _bench(2, s=8, t=4, n=100)
    aggs = ["mean_items", "median", "borda"]
    value, boot, crits = E.criteria_replicates(b, aggs, replicates=120, n_splits=40, rank_replicates=rank_replicates,
                                               family=family)
    _, summary = E.resolution(b, aggs, replicates=rank_replicates or 120, family=family)
    assert value[crits.index("resolution")].tolist() == summary["share_resolved"].tolist()
    assert boot.shape == (120, 4, 3) and np.isfinite(boot).all()
    assert 0 < value[crits.index("resolution")].max() < 1  # (a case that tests something: some pairs, not all)


def test_requirement_leaves_out_the_rank_aggregates():
    b = _bench(3, s=5, t=4, n=60)
    v = leaderboard_verdict(b, AGGS, replicates=100, n_splits=20, require=["independent_of_others"])
    assert v.sets.admissible.tolist() == [A.get(a).independent for a in AGGS]
    assert not set(v.answer) & {"mean_rank", "borda", "win_rate"}
    with pytest.raises(ValueError, match="unknown requirement"):
        leaderboard_verdict(b, AGGS, require=["fair"])


@pytest.mark.slow
def test_exchangeable_systems_keep_every_aggregate():
    """The null: 12 systems whose per-item correctness is exchangeable by
    construction (one true accuracy); no criterion has a real difference
    between the aggregates' resolution, so the verdict keeps them all on
    most null benchmarks (each set errs at most alpha / C)."""
    kept = []
    for seed in range(4):
        x, tasks = simulated_correctness(np.full(12, 0.4), n_tasks=14, items_per_task=60, rho=0.5, sims=1, seed=seed)
        b = Benchmark.from_scores("null", tasks=tasks, scores={f"s{j}": x[0, j] for j in range(12)})
        aggs = [a for a in A.BUILT_IN if A.get(a).feature == "score"]  # every built-in one (no options here)
        v = leaderboard_verdict(b, aggs, replicates=300, n_splits=100, seed=seed)
        kept.append(v.decision.answer.all())
    assert sum(kept) >= 3


def test_design_needs_follow_the_measured_exponent():
    """Each unresolved adjacent pair's need is n (c / |t|)^(1 / e); on
    independent items (and tasks drawn alike) the measured exponent is about
    1/2, the textbook rate; the pairs listed are those unresolved under the
    items or the tasks scheme (resolved under both: not listed)."""
    from metaeval.methods.leaderboards.design import design
    from metaeval.methods.leaderboards.experiments import resolution

    rng = np.random.default_rng(5)
    theta = [0.6, 0.58, 0.4, 0.39, 0.2]
    tasks = np.repeat(np.arange(16), 100)
    shift = rng.normal(0, 0.05, 16)[tasks]  # tasks differ in difficulty
    b = Benchmark.from_scores("d", tasks=tasks, scores={f"s{j}": (rng.random(1600) < np.clip(t + shift, 0, 1))
                                                        .astype(float) for j, t in enumerate(theta)})
    out = design(b, ["mean_items"], replicates=400, halves=12)
    for scheme in ("items", "tasks"):  # each scheme's unresolved pairs are the rows it does not resolve
        _, summary = resolution(b, ["mean_items"], scheme=scheme, replicates=400)
        assert (~out[f"resolved_{scheme}"]).sum() == (summary.loc["mean_items", "adjacent_pairs"]
                                                      - summary.loc["mean_items", "adjacent_resolved"])
    assert not (out.resolved_items & out.resolved_tasks).any()
    r0 = out.iloc[0]  # each exponent within 3 of its standard errors of 1/2 (and the items' within 0.1)
    assert abs(r0.exponent_items - 0.5) < max(3 * r0.exponent_items_se, 0.02) and abs(r0.exponent_items - 0.5) < 0.1
    assert abs(r0.exponent_tasks - 0.5) < 3 * r0.exponent_tasks_se + 0.05
    for _, r in out.iterrows():
        if r.resolved_items:  # listed for the tasks: the questions are enough already
            assert r.questions_per_task_needed == r.questions_per_task_now
            continue
        assert r.questions_per_task_needed == pytest.approx(
            r.questions_per_task_now * (r.critical_items / r.t_items) ** (1 / r.exponent_items))
        assert r.questions_per_task_needed > r.questions_per_task_now  # unresolved: more are needed


def test_design_lists_a_pair_the_tasks_leave_unresolved():
    """Systems whose strengths vary by task: the items resolve their pair
    and the 16 tasks do not; the design lists it with the tasks it needs
    (the questions "resolved already"), as a maintainer asking how many
    tasks would settle it needs."""
    from metaeval.methods.leaderboards.design import design

    rng = np.random.default_rng(7)
    tasks = np.repeat(np.arange(16), 200)
    theta = np.array([0.6, 0.52, 0.3])[:, None] + rng.normal(0, 0.2, (3, 16))
    b = Benchmark.from_scores("h", tasks=tasks, scores={f"s{j}": (rng.random(3200) < np.clip(theta[j][tasks], 0.02,
                                                                                               0.98)).astype(float)
                                                        for j in range(3)})
    out = design(b, ["mean_items"], replicates=300, halves=4)
    row = out[out.resolved_items & ~out.resolved_tasks]
    assert len(row) == 1 and (row.ahead.iloc[0], row.behind.iloc[0]) == ("s1", "s2")
    assert row.questions_per_task_needed.iloc[0] == row.questions_per_task_now.iloc[0] == 200
    assert row.tasks_needed.iloc[0] > 16
    from metaeval.present.leaderboard import leaderboard_markdown
    import metaeval

    res = metaeval.leaderboard(benchmark=b, leaderboard_replicates=300, leaderboard_verdict_replicates=40,
                               leaderboard_splits=20, leaderboard_design_halves=4, aggregates=["mean_items"])
    md = leaderboard_markdown(res.tables(), res.benchmark_info(), "mean_items")
    assert "| mean over items | s1 | s2 |" in md and "| resolved already |" in md


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_system_more_or_less_equals_recomputing_the_leaderboard(seed):
    """The rank aggregates' counts moved by one comparison (a degenerate
    added, a system removed) against the leaderboard recomputed from its
    scores, with many ties."""
    from metaeval.methods.leaderboards.experiments import _beaten_by_degenerates, _reversals, _with_degenerates

    rng = np.random.default_rng(seed)
    s, t = 6, 4
    scores = {f"s{j}": rng.integers(0, 3, t * 5) / 2 for j in range(s)}  # coarse: ties everywhere
    b = Benchmark.from_scores("x", tasks=np.repeat(np.arange(t), 5), scores=scores)
    aggs = ["mean_rank", "borda", "win_rate", "median"]
    names, deg = _with_degenerates(b, "wrong")
    rr, rd = Resampler(b, "items"), Resampler(deg, "items")
    w = rr.draw([0, 1], 3)
    got = _beaten_by_degenerates(rr, rd, w, aggs)  # (B, A, D)
    real, dg = rr.totals_of(w), rd.totals_of(w)
    for bi in range(2):
        for a, agg in enumerate(aggs):
            for d in range(len(names)):
                m = np.concatenate([real.means()[bi], dg.means()[bi, d:d + 1]])
                v = A.get(agg)(m, copies=real.copies[bi], items=real.items[bi])
                v = v if A.get(agg).higher_is_better else -v
                assert got[bi, a, d] == pytest.approx(((v[-1] > v[:-1]) + 0.5 * (v[-1] == v[:-1])).mean())
    tot = b.totals()
    flips = _reversals(tot, aggs)  # (A, S)
    for a, agg in enumerate(aggs):
        sign = 1 if A.get(agg).higher_is_better else -1
        full = sign * A.get(agg)(tot.means(), copies=tot.copies, items=tot.items)
        for r in range(s):
            keep = [k for k in range(s) if k != r]
            after = sign * A.get(agg)(tot.means()[keep], copies=tot.copies, items=tot.items)
            want = sum(abs(np.sign(full[keep][i] - full[keep][j]) - np.sign(after[i] - after[j])) / 2
                       for i in range(s - 1) for j in range(i + 1, s - 1))
            assert flips[a, r] == pytest.approx(want), (agg, r)


def test_the_page_stays_readable_with_many_bands_and_pairs():
    from metaeval.present.leaderboard import MAX_BANDS, _bands

    text = "; ".join(f"{{s{i}, s{i + 1}}}" for i in range(0, 40, 2))
    short = _bands(text)
    assert short.count("{") == MAX_BANDS and short.endswith(f"; and {20 - MAX_BANDS} more")
    assert _bands("") == "none" and _bands("{a, b}") == "{a, b}"


def test_no_criterion_counting_says_the_answer_is_a_convention():
    """When every aggregate behaves alike on every criterion (no criterion
    counts: two systems, say), every aggregate is trivially kept; the answer
    says it reports the primary one by convention, not on the evidence."""
    from types import SimpleNamespace as NS

    from metaeval.methods.leaderboards.resampling import caution, few_systems_note
    from metaeval.verdict.leaderboard import LeaderboardVerdict

    sets = NS(admissible=np.ones(2, bool), participants=np.ones((2, 2), bool), members=np.ones((2, 2), bool),
              counted=np.zeros(2, bool))
    v = LeaderboardVerdict(("mean_items", "median"), ("stability", "resolution"), np.zeros((2, 2)),
                           np.zeros((1, 2, 2)), sets, NS(answer=np.array([True, True]), kind="all", k=2, c=0), [],
                           "tasks", ())
    text = v.sentence("median")
    assert text == ("Report the median over tasks by convention: every aggregate behaves alike on every criterion, "
                    "tasks resampled (each with all its items), so the evidence cannot choose.")
    assert "kept on every criterion" not in text
    b = _bench(s=2)
    real = leaderboard_verdict(b, AGGS, replicates=60, n_splits=20)
    if not real.sets.counted.any():  # (the usual case with two systems)
        assert "by convention" in real.sentence("mean_items")
    assert "tentative" in few_systems_note(2) and few_systems_note(6) is None
    assert caution(30, 8, ["items", "tasks"]) is None
    both = caution(4, 3, ["items", "tasks"])
    assert both.startswith("With 3 systems") and "With 4 tasks" in both
    assert caution(4, 3, ["items"]) == few_systems_note(3)
