"""Test-set size design (metaeval.methods.design): the swap experiment against a
plain loop over the same subsets, the predicted power against the share of
real system pairs found significant on real half-size subsets, and the
formulas against each other."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from metaeval.methods import design as D
from metaeval.methods import experiments as E
from metaeval.engine.ranking import system_pairs
from metaeval.engine.resample import bootstrap_weights, random_keys

from .test_significance import _dataset, _noisy


def test_the_swap_counts_equal_a_plain_loop_over_the_same_subsets():
    """Every draw's disjoint subsets rebuilt by hand from the same keys,
    every system scored with scikit-learn, the swaps (d1 d2 <= 0) binned by
    |d1| and counted: the same counts as the engine's."""
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 3, 60)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.8, 0.6, 0.55, 0.4)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "macro_f1"])
    sc = E.Scorer(ds, spec, np.arange(5), "item")
    dspec = D.DesignSpec(draws=7, seed=11, bin_width=0.05)
    sizes = np.array([5, 12, 30])
    got = D.swap_curves(sc, sizes, dspec, chunk_size=3)
    pairs = system_pairs(5)
    swaps = np.zeros_like(got["swaps"])
    comps = np.zeros_like(got["comparisons"])
    rank = np.argsort(np.argsort(random_keys(60, range(7), 11, "design"), axis=1), axis=1)
    for h in range(7):
        for i, n in enumerate(sizes):
            t1, t2 = rank[h] < n, (rank[h] >= n) & (rank[h] < 2 * n)
            assert t1.sum() == t2.sum() == n and not (t1 & t2).any()
            for m, score in enumerate((skm.accuracy_score,
                                       lambda g, p: skm.f1_score(g, p, labels=[0, 1, 2], average="macro",
                                                                 zero_division=0))):
                v1 = np.array([score(gold[t1], p[t1]) for p in pred])
                v2 = np.array([score(gold[t2], p[t2]) for p in pred])
                for a, b in pairs:
                    d1, d2 = round(v1[a] - v1[b], 12), round(v2[a] - v2[b], 12)
                    k = min(int(np.floor(abs(d1) / 0.05)), got["swaps"].shape[-1] - 1)
                    comps[m, i, k] += 1
                    swaps[m, i, k] += d1 * d2 <= 0
    np.testing.assert_array_equal(got["comparisons"], comps)
    np.testing.assert_array_equal(got["swaps"], swaps)
    assert got["swaps"].sum() > 0


def test_two_identical_systems_swap_always_and_a_huge_gap_never():
    rng = np.random.default_rng(4)
    gold = rng.integers(0, 3, 200)
    good = gold.copy()
    bad = (gold + 1) % 3
    spec, ds = _dataset(gold, np.stack([good, good, bad]), metrics=["accuracy"])
    got = D.swap_curves(E.Scorer(ds, spec, np.arange(3), "item"), [10, 50], D.DesignSpec(draws=20))
    by_pair = got["swaps"].sum(axis=-1)[0]  # (sizes,): all pairs pooled
    # pairs: (good, good) ties always (a tie is a swap); (good, bad) and (good, bad) never swap
    assert (by_pair == 20).all() and (got["comparisons"].sum(axis=-1)[0] == 60).all()


def test_the_minimum_detectable_difference_and_the_size_needed_agree():
    sigma = np.array([0.3, 0.8])
    sizes = np.array([50, 400, 3000])
    mdd = D.min_detectable_difference(sigma, sizes, 0.05, 0.8)
    for i in range(2):
        for j, n in enumerate(sizes):
            assert D.size_needed(sigma[i], mdd[i, j], 0.05, 0.8) == n  # the size of a difference gives it back
    # the z-test's power at the MDD is the design's power (a pair at exactly that difference)
    p = D.predicted_power(mdd[:, :1], sigma[:, None], sizes[:1])
    np.testing.assert_allclose(p[:, 0], 0.8, atol=1e-3)
    from scipy.stats import norm

    assert mdd[0, 0] == pytest.approx((norm.ppf(0.975) + norm.ppf(0.8)) * 0.3 / np.sqrt(50), rel=1e-12)


@pytest.mark.realdata
def test_the_power_predicted_at_half_size_is_the_share_found_on_real_halves(data_dir, project_config):
    """rumoureval2017 (1,049 items, its ranked systems, four metrics): the
    power the design predicts for 524 items (from the whole test set's
    bootstrap variance, scaled by 1/n) equals, within Monte Carlo error, the
    share of system pairs that a z-test finds significant on 120 random
    half-size subsets, each with its own variance (a bootstrap of the
    half)."""
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.bootstrap import run_bootstrap
    from metaeval.workflow import experiment_settings

    spec = dataset_specs(project_config)["rumoureval2017"]
    ds = load_dataset(spec, data_dir)
    st = experiment_settings(project_config, "rumoureval2017")
    from dataclasses import replace

    spec = replace(spec, metrics=("accuracy", "macro_f1", "macro_recall", "kappa"))
    sel = E.select_systems(ds, st.include_baselines)
    sc = E.Scorer(ds, spec, sel, "item")
    b = run_bootstrap(ds, spec, replace(st, bootstrap_replicates=2000))
    n_all, half = ds.n_items, ds.n_items // 2
    sigma = D.pair_sigma(b["value"], b["boot"], n_all)
    pairs = system_pairs(len(sel))
    d = b["value"][:, pairs[:, 0]] - b["value"][:, pairs[:, 1]]
    predicted = D.predicted_power(d, sigma, [half])[:, 0]  # (M,)
    z = 1.959963984540054
    shares = []
    rank = np.argsort(np.argsort(random_keys(n_all, range(120), 99, "design"), axis=1), axis=1)
    for h in range(120):  # halves: a test's loop over the resamples it checks
        items = np.flatnonzero(rank[h] < half)
        w = np.zeros((200, n_all), dtype=np.float32)
        w[:, items] = bootstrap_weights(half, range(200), 1000 + h)
        v = sc.score(sc.counts(rank[h:h + 1] < half))[0]  # (M, S) on the half
        bs = sc.score(sc.counts(w))  # (200, M, S) the half's own bootstrap
        dh = v[:, pairs[:, 0]] - v[:, pairs[:, 1]]
        se = (bs[:, :, pairs[:, 0]] - bs[:, :, pairs[:, 1]]).std(axis=0, ddof=1)
        shares.append(np.nanmean(np.abs(dh) > z * se, axis=1))
    shares = np.array(shares)  # (halves, M)
    measured, mc_se = shares.mean(axis=0), shares.std(axis=0, ddof=1) / np.sqrt(len(shares))
    print("predicted", predicted.round(4), "measured", measured.round(4), "Monte Carlo se", mc_se.round(4))
    assert (np.abs(measured - predicted) <= 3 * mc_se).all(), (predicted, measured, mc_se)


def test_the_design_of_a_grouped_dataset_counts_groups():
    rng = np.random.default_rng(8)
    gold = rng.integers(0, 3, 240)
    groups = np.repeat(np.arange(40), 6)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.5, 0.45)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy"], groups=groups)
    st = E.Settings(include_baselines=(), resample_unit="group", bootstrap_replicates=300, design_draws=30)
    from metaeval.methods.bootstrap import run_bootstrap

    b = run_bootstrap(ds, spec, st)
    design, needed, swaps = D.dataset_design(ds, spec, st, b["value"], b["boot"])
    assert set(swaps["size"]) == set(design["size"]) and swaps["comparisons"].sum() > 0
    assert design.loc[design["fraction"] == 1.0, "size"].tolist() == [40] and set(design["unit"]) == {"groups"}
    measured = design.dropna(subset=["swap_rate"])
    assert measured["size"].max() <= 20 and len(measured) >= 3
    assert (np.diff(design["min_detectable_difference"].to_numpy()) < 0).all()  # falls with the size


def test_a_difference_beyond_the_metrics_range_is_said_not_plotted():
    """On a handful of items the formula gives an MDD wider than the
    metric's range (accuracy: above 1); design.csv marks it
    (within_range False), the sentence says no difference the metric can
    have is detected, the table says 'beyond its range', and the figure's
    line starts where the MDD fits (the trial found 1.27 for accuracy on
    20 items, unflagged, and a y-axis to 2)."""
    from metaeval.measures import labels as M
    from metaeval.present.plots import design_plot
    from metaeval.methods.bootstrap import run_bootstrap
    from metaeval.present.tables import design_markdown

    rng = np.random.default_rng(3)
    gold = rng.integers(0, 3, 20)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.6, 0.5, 0.4, 0.35)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "kappa", "mae_macro"])
    st = E.Settings(include_baselines=(), bootstrap_replicates=300, design_draws=20)
    b = run_bootstrap(ds, spec, st)
    design, needed, _ = D.dataset_design(ds, spec, st, b["value"], b["boot"])
    width = design["metric"].map(lambda m: np.diff(M.get(m).bounds)[0])
    assert (design["within_range"] == (design["min_detectable_difference"] <= width)).all()
    assert not design["within_range"].all() and design["within_range"].any()
    assert design.loc[design["metric"] == "mae_macro", "within_range"].all()  # unbounded: never beyond
    small = design[(design["metric"] == "accuracy") & (design["size"] == design["size"].min())]
    assert not small["within_range"].item()
    tiny = design.assign(fraction=np.where(design["size"] == design["size"].min(), 1.0, 0.5))
    assert "cannot separate systems with power 0.8" in D.design_sentence(tiny, needed, "accuracy", "Acc")
    assert "beyond its range" in design_markdown(tiny, needed)
    fig = design_plot(design)
    line = fig.axes[0].get_lines()[[t.get_text() for t in fig.axes[1].get_legend().get_texts()].index("Acc")]
    assert min(line.get_xdata()) > design["size"].min() and max(line.get_ydata()) <= 1.0


@pytest.mark.parametrize("key,value", [("design_power", 1.5), ("design_points", 1), ("design_draws", 0),
                                       ("design_differences", [-0.01]), ("design_differences", []),
                                       ("design_min_fraction", 0), ("design_max_factor", 0.5),
                                       ("design_bin_width", 0)])
def test_a_bad_design_setting_is_refused_with_its_key_and_value(key, value):
    """The library names the key and the value (the trial found one
    message listing every constraint, whichever was broken)."""
    import re

    from metaeval.api import settings
    from metaeval.data.config import ConfigError

    with pytest.raises(ConfigError, match=rf"^experiments\.{key} must be .*, got {re.escape(repr(value))}$"):
        settings(**{key: value})


def test_a_pooled_mdd_above_its_quartile_pairs_is_said():
    """The brackets of the design table are the pairs at the first and third
    quartiles of the variance, not an interval of the pooled MDD: where the
    pooled value lies above them (GMR on 14 classes: most pairs never vary),
    the row and the paragraph say so; a value inside its bracket has no note."""
    from metaeval.present.tables import design_markdown

    design = pd.DataFrame({"metric": ["gmr", "accuracy"], "size": [75, 75], "fraction": [1.0, 1.0],
                           "min_detectable_difference": [0.122, 0.053], "mdd_low": [0.0, 0.034],
                           "mdd_high": [0.0, 0.066], "within_range": [True, True], "power": [0.14, 0.77],
                           "unit": "articles", "alpha": 0.05, "target_power": 0.8})
    needed = pd.DataFrame({"metric": ["gmr", "accuracy"], "difference": [0.05, 0.05], "needed": [447, 85],
                           "needed_low": [0, 36], "needed_high": [0, 130]})
    md = design_markdown(design, needed)
    rows = {line.split("|")[1].strip(): line for line in md.splitlines() if line.startswith("| ") and "MDD" not in line}
    assert "(above the quartile pairs)" in rows["GMR"] and "above the quartile" not in rows["Acc"]
    assert "*Above the quartile pairs*" in md
    assert "Above the quartile" not in design_markdown(design[design.metric == "accuracy"],
                                                        needed[needed.metric == "accuracy"])


# -- design.csv and design_needed.csv against a plain re-computation --------------------
def _grid_by_hand(n, min_fraction, max_factor, points):
    lo = max(2, math.ceil(min_fraction * n))
    hi = max(lo + 1, round(max_factor * n))
    steps = [round(lo * (hi / lo) ** (i / (points - 1))) for i in range(points)]
    return sorted(set(steps) | {n})


@pytest.mark.parametrize("n", [7, 60, 1234])
def test_the_size_grid_is_geometric_from_a_fraction_to_a_factor_with_the_test_set_s_size(n):
    spec = D.DesignSpec(min_fraction=0.05, max_factor=3.0, points=6)
    assert D.size_grid(n, spec).tolist() == _grid_by_hand(n, 0.05, 3.0, 6)
    assert D.size_grid(n, spec).dtype == np.int64
    assert D.size_grid(10, D.DesignSpec(min_fraction=0.01, max_factor=0.1, points=3)).tolist() == [2, 3, 10]


def test_the_design_settings_reach_the_design_spec():
    st = E.Settings(alpha=0.01, design_power=0.9, design_min_fraction=0.1, design_max_factor=2.0, design_points=5,
                    design_draws=17, design_seed=3, design_bin_width=0.02, design_differences=[0.03, 0.01])
    assert D.spec_of(st) == D.DesignSpec(alpha=0.01, power=0.9, min_fraction=0.1, max_factor=2.0, points=5,
                                         draws=17, seed=3, bin_width=0.02, differences=(0.03, 0.01))


def test_the_design_tables_equal_a_plain_re_computation():
    """Every column of design.csv but the swap fits, and every row of
    design_needed.csv, rebuilt from the scores and replicates with scipy's
    normal distribution, at a non-default alpha, power and set of
    differences (a user's own differences, not the defaults)."""
    from scipy.stats import norm

    from metaeval.measures import labels as M
    from metaeval.methods.bootstrap import run_bootstrap

    rng = np.random.default_rng(21)
    gold = rng.integers(0, 3, 90)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.75, 0.7, 0.5)])
    metric_ids = ["accuracy", "macro_f1", "mae_macro"]
    spec, ds = _dataset(gold, pred, metrics=metric_ids)
    st = E.Settings(include_baselines=(), bootstrap_replicates=200, design_draws=12, alpha=0.1, design_power=0.7,
                    design_points=5, design_differences=[0.2, 0.07, 0.005])
    b = run_bootstrap(ds, spec, st)
    value, boot = b["value"], b["boot"]
    design, needed, swaps = D.dataset_design(ds, spec, st, value, boot)
    n, z = 90, norm.ppf(1 - 0.1 / 2) + norm.ppf(0.7)
    grid = _grid_by_hand(n, st.design_min_fraction, st.design_max_factor, 5)
    pairs = [(a, c) for a in range(4) for c in range(a + 1, 4)]
    assert design["metric"].tolist() == [m for m in metric_ids for _ in grid]
    assert design["size"].tolist() == grid * 3
    for m, mid in enumerate(metric_ids):
        sig = []
        for a, c in pairs:
            d = boot[:, m, a] - boot[:, m, c]
            d = d[np.isfinite(d)]
            sig.append(np.sqrt(n * np.var(d, ddof=1)))
        sig = np.array(sig)
        pooled = np.sqrt(np.mean(sig ** 2))
        q1, q3 = np.quantile(sig, [0.25, 0.75])
        rows = design[design["metric"] == mid]
        width = np.diff(M.get(mid).bounds)[0]
        for (_, r), size in zip(rows.iterrows(), grid):
            assert r["fraction"] == size / n
            assert r["min_detectable_difference"] == pytest.approx(z * pooled / np.sqrt(size), rel=1e-9)
            assert r["mdd_low"] == pytest.approx(z * q1 / np.sqrt(size), rel=1e-9)
            assert r["mdd_high"] == pytest.approx(z * q3 / np.sqrt(size), rel=1e-9)
            assert r["within_range"] == bool(z * pooled / np.sqrt(size) <= width)
            crit = norm.ppf(1 - 0.1 / 2)
            power = np.mean([norm.cdf(abs(value[m, a] - value[m, c]) * np.sqrt(size) / s - crit)
                             + norm.cdf(-abs(value[m, a] - value[m, c]) * np.sqrt(size) / s - crit)
                             for (a, c), s in zip(pairs, sig)])
            assert r["power"] == pytest.approx(power, rel=1e-9)
            assert (r["unit"], r["alpha"], r["target_power"]) == ("items", 0.1, 0.7)
            measured = 2 * size <= n
            assert np.isnan(r["power_measured"]) != measured and np.isnan(r["swap_rate"]) != measured
        got = needed[needed["metric"] == mid]
        assert got["difference"].tolist() == [0.2, 0.07, 0.005]
        for (_, r), delta in zip(got.iterrows(), [0.2, 0.07, 0.005]):
            assert r["needed"] == math.ceil((z * pooled / delta) ** 2 - 1e-9)
            assert r["needed_low"] == math.ceil((z * q1 / delta) ** 2 - 1e-9)
            assert r["needed_high"] == math.ceil((z * q3 / delta) ** 2 - 1e-9)
            assert (r["sigma"], r["n_units"], r["alpha"], r["power"]) == (pytest.approx(pooled), n, 0.1, 0.7)
    # the measured columns are the swap experiment's, at the sizes of at most half the units
    assert sorted(set(swaps["size"])) == grid and set(design.dropna(subset=["swap_rate"])["size"]) == \
        {s for s in grid if 2 * s <= n}


def test_the_separated_share_counts_differences_beyond_the_critical_difference():
    """power_measured: the share of comparisons on T1 whose |d1| exceeds
    z sigma_ab / sqrt(n), each pair with its own sigma (a plain loop over
    the same subsets)."""
    from scipy.stats import norm

    rng = np.random.default_rng(5)
    gold = rng.integers(0, 3, 80)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.6)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy"])
    sc = E.Scorer(ds, spec, np.arange(3), "item")
    dspec = D.DesignSpec(draws=9, seed=2, alpha=0.2)
    sigma = np.array([[0.3, 0.5, 0.8]])
    sizes = np.array([10, 25, 40])
    got = D.swap_curves(sc, sizes, dspec, sigma, chunk_size=4)
    rank = np.argsort(np.argsort(random_keys(80, range(9), 2, "design"), axis=1), axis=1)
    want = np.zeros(3, dtype=int)
    for h in range(9):
        for i, size in enumerate(sizes):
            t1 = rank[h] < size
            acc = np.array([np.mean(p[t1] == gold[t1]) for p in pred])
            for p_i, (a, c) in enumerate(system_pairs(3)):
                want[i] += abs(round(acc[a] - acc[c], 12)) > norm.ppf(0.9) * sigma[0, p_i] / np.sqrt(size)
    assert got["separated"][0].tolist() == want.tolist() and want.sum() > 0
    assert D.swap_curves(sc, sizes, dspec, None, chunk_size=4)["separated"].sum() == 0


@pytest.mark.parametrize("n, shown", [(7, 7), (99, 99), (100, 100), (149, 150), (4049, 4000), (12501, 13000),
                                      (987654, 990000)])
def test_the_size_a_sentence_gives_keeps_two_significant_digits(n, shown):
    assert D._round(n) == shown


def test_the_size_sentence_names_the_largest_difference_below_the_mdd_and_its_size():
    design = pd.DataFrame({"metric": ["m", "m"], "size": [500, 1000], "fraction": [0.5, 1.0],
                           "min_detectable_difference": [0.09, 0.0634], "unit": ["groups", "groups"]})
    needed = pd.DataFrame({"metric": ["m"] * 4 + ["other"], "difference": [0.1, 0.05, 0.02, 0.01, 0.055],
                           "needed": [300, 1618, 10113, 40450, 5], "power": [0.9] * 5, "unit": ["groups"] * 5})
    assert D.design_sentence(design, needed, "m", "Acc") == (
        "with 1,000 groups, Acc separates systems that differ by 0.063 with power 0.9; to separate 0.05 about "
        "1,600 groups are needed")
    assert D._fmt(0.0634) == "0.063" and D._fmt(0.1234) == "0.12" and D._fmt(0.1) == "0.10"
    # nothing below the MDD: the first half only; no row at the full size, or an undefined MDD: no sentence
    assert D.design_sentence(design, needed[needed["difference"] > 0.07], "m", "Acc") == \
        "with 1,000 groups, Acc separates systems that differ by 0.063 with power 0.9"
    assert D.design_sentence(design.assign(fraction=0.5), needed, "m", "Acc") == ""
    nan = design.assign(min_detectable_difference=[0.1, np.nan])
    assert D.design_sentence(nan, needed, "m", "Acc") == ""
    # the same two digits for the MDD and the difference: one more digit for the MDD
    close = design.assign(min_detectable_difference=[0.1, 0.0503])
    assert "differ by 0.0503 with power 0.9; to separate 0.05 about" in D.design_sentence(close, needed, "m", "Acc")


def _fit_by_hand(sizes, w, c, grid):
    """One bin's swap-rate fit: log(w / c) on the size, weighted by c
    (numpy's polyfit with weights sqrt(c)), its normal interval; the pooled
    rate when fewer than two sizes have swaps or the rate does not fall."""
    if c.sum() == 0:
        return [(math.nan,) * 3] * len(grid)
    if w.sum() == 0:
        return [(0.0,) * 3] * len(grid)
    use = (w > 0) & (c > 0)
    r = w.sum() / c.sum()
    if use.sum() < 2:
        return [(r,) * 3] * len(grid)
    x, y, wt = sizes[use].astype(float), np.log(w[use] / c[use]), c[use].astype(float)
    slope, icept = np.polyfit(x, y, 1, w=np.sqrt(wt))
    if slope >= 0:
        half = 1.96 * math.sqrt(r * (1 - r) / c.sum())
        return [(r, max(r - half, 0.0), min(r + half, 1.0))] * len(grid)
    n_use = int(use.sum())
    W = wt / wt.sum()
    resid = y - (icept + slope * x)
    s2 = (W * resid ** 2).sum() * n_use / max(n_use - 2, 1) if n_use > 2 else 0.0
    X = np.stack([np.ones_like(x), x], axis=1)
    cov = s2 * np.linalg.inv(X.T @ np.diag(W) @ X) / n_use
    out = []
    for n in grid:
        mu = icept + slope * n
        se = math.sqrt(np.array([1.0, n]) @ cov @ np.array([1.0, n]))
        out.append((min(math.exp(mu), 1.0), min(math.exp(mu - 1.96 * se), 1.0), min(math.exp(mu + 1.96 * se), 1.0)))
    return out


def _fits_against_the_hand(sizes, grid, cases):
    """``_fit`` of the bins ``cases`` ({name: (swaps per size, comparisons
    per size)}) equals ``_fit_by_hand`` bin by bin; its (rate, low, high)."""
    swaps = np.array([v[0] for v in cases.values()]).T  # (sizes, bins)
    comps = np.array([v[1] for v in cases.values()]).T
    rate, low, high = D._fit(sizes, swaps, comps, grid)
    for k, name in enumerate(cases):
        want = np.array(_fit_by_hand(sizes, swaps[:, k], comps[:, k], grid))
        np.testing.assert_allclose(np.stack([rate[k], low[k], high[k]], axis=1), want, rtol=1e-9, atol=1e-12,
                                   err_msg=name)
    return rate, low, high


def test_the_swap_rate_fits_equal_a_weighted_least_squares_by_hand():
    sizes = np.array([5, 10, 20, 40])
    grid = np.array([5, 10, 20, 40, 80, 160])
    cases = {  # bin: (swaps per size, comparisons per size)
        "falls": ([30, 18, 7, 2], [100, 100, 100, 100]),
        "falls, unequal weights": ([12, 9, 3, 1], [40, 80, 60, 20]),
        "two points": ([10, 4, 0, 0], [50, 50, 50, 50]),
        "one point": ([3, 0, 0, 0], [20, 20, 20, 20]),
        "rises": ([2, 5, 9, 20], [100, 100, 100, 100]),
        "flat": ([10, 10, 10, 10], [100, 100, 100, 100]),
        "never swaps": ([0, 0, 0, 0], [30, 30, 30, 30]),
        "never compared": ([0, 0, 0, 0], [0, 0, 0, 0]),
    }
    rate, low, high = _fits_against_the_hand(sizes, grid, cases)
    assert (low[0] < rate[0]).all() and (rate[0] < high[0]).all()  # the interval has width where it is fitted


def test_power_measured_is_the_share_of_comparisons_beyond_the_critical_difference():
    """dataset_design passes each pair's sigma to the swap experiment:
    power_measured = separated / comparisons at the measured sizes."""
    from metaeval.methods.bootstrap import run_bootstrap

    rng = np.random.default_rng(9)
    gold = rng.integers(0, 3, 80)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.95, 0.6, 0.5)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy"])
    st = E.Settings(include_baselines=(), bootstrap_replicates=200, design_draws=10, design_points=6,
                    chunk_size=3)
    b = run_bootstrap(ds, spec, st)
    design, _, _ = D.dataset_design(ds, spec, st, b["value"], b["boot"])
    sc = E.Scorer(ds, spec, np.arange(3), "item")
    measured = design.dropna(subset=["power_measured"])
    sizes = measured["size"].to_numpy()
    assert sizes.tolist() == [s for s in D.size_grid(80, D.spec_of(st)) if 2 * s <= 80]  # 40 = half: measured
    swap = D.swap_curves(sc, sizes, D.spec_of(st), D.pair_sigma(b["value"], b["boot"], 80))
    comps = swap["comparisons"][0].sum(axis=-1)
    np.testing.assert_allclose(measured["power_measured"], swap["separated"][0] / comps)
    np.testing.assert_allclose(measured["swap_rate"], swap["swaps"][0].sum(axis=-1) / comps)
    assert measured["power_measured"].iloc[-1] > 0


def test_pair_sigma_leaves_out_undefined_replicates_pair_by_pair():
    rng = np.random.default_rng(12)
    value = np.array([[0.7, 0.6, 0.5], [0.3, 0.2, 0.25]])
    boot = value + rng.normal(0, 0.03, (40, 2, 3))
    boot[[1, 5, 7], 0, 1] = np.nan
    boot[:, 1, 2] = np.nan
    boot[0, 1, 2] = 0.2  # one defined replicate: no variance
    got = D.pair_sigma(value, boot, 250)
    for m in range(2):
        for p, (a, c) in enumerate(system_pairs(3)):
            d = boot[:, m, a] - boot[:, m, c]
            d = d[np.isfinite(d)]
            want = math.sqrt(250 * np.var(d, ddof=1)) if d.size > 1 else math.nan
            assert got[m, p] == pytest.approx(want, rel=1e-12, nan_ok=True), (m, a, c)
    assert np.isnan(got[1, 1]) and np.isnan(got[1, 2]) and np.isfinite(got[1, 0])


def test_the_swap_fits_and_the_swaps_table_are_the_bins_fits_weighted_by_the_differences():
    """design.csv's swap_rate_fit (low, high): per size, the bins' fits
    weighted by how that size's comparisons fall into the bins (beyond the
    largest size measured: that size's); design_swaps.csv: a row per metric,
    bin with comparisons and size, with the measured rate and the bin's fit."""
    rng = np.random.default_rng(4)
    value = np.array([[0.8, 0.7, 0.65]])
    boot = value + rng.normal(0, 0.02, (300, 1, 3))
    sizes = np.array([2, 18])  # the grid of 40 units: 2, 6, 18, 40, 53, 160
    comps = np.zeros((1, 2, 64), dtype=np.int64)
    swaps = np.zeros_like(comps)
    comps[0, :, 0], comps[0, :, 2], comps[0, :, 63] = [30, 10], [10, 30], [0, 3]
    swaps[0, :, 0], swaps[0, :, 2], swaps[0, :, 63] = [12, 2], [4, 1], [0, 0]
    swap = {"sizes": sizes, "swaps": swaps, "comparisons": comps, "separated": np.array([[7, 11]])}
    spec = D.DesignSpec(points=5, bin_width=0.05)
    design, needed, table = D.design_tables(["accuracy"], value, boot, 40, swap, spec)
    grid = D.size_grid(40, spec)
    rate, low, high = D._fit(sizes, swaps[0], comps[0], grid)
    for g, n in enumerate(grid):
        i = {2: 0, 18: 1}.get(int(n), 1 if n > 18 else None)
        row = design.iloc[g]
        if i is None:
            assert np.isnan(row["swap_rate_fit"]) and np.isnan(row["swap_fit_low"]) and np.isnan(row["swap_fit_high"])
            continue
        w = comps[0, i] / comps[0, i].sum()
        for col, fit in (("swap_rate_fit", rate), ("swap_fit_low", low), ("swap_fit_high", high)):
            assert row[col] == pytest.approx(np.nansum(w * np.nan_to_num(fit[:, g])), rel=1e-12)
    assert design["swap_rate_fit"].dtype == np.float64 and set(design["unit"]) == {"items"}
    measured = design[design["size"].isin(sizes)]
    np.testing.assert_allclose(measured["power_measured"], np.array([7, 11]) / comps[0].sum(axis=-1))
    np.testing.assert_allclose(measured["swap_rate"], swaps[0].sum(axis=-1) / comps[0].sum(axis=-1))
    # the swaps table: the bins with a comparison at some size (0, 2 and the last one, which holds the rest)
    assert list(table.columns) == ["metric", "bin_low", "bin_high", "size", "comparisons", "swap_rate",
                                   "swap_rate_fit", "swap_fit_low", "swap_fit_high"]
    assert table["metric"].unique().tolist() == ["accuracy"]
    assert sorted(set(table["bin_low"])) == pytest.approx([0.0, 0.1, 63 * 0.05])
    for _, r in table.iterrows():
        k = int(round(r["bin_low"] / 0.05))
        assert r["bin_high"] == (pytest.approx((k + 1) * 0.05) if k < 63 else np.inf)
        g = list(grid).index(r["size"])
        i = {2: 0, 18: 1}.get(int(r["size"]))
        c = comps[0, i, k] if i is not None else 0
        assert r["comparisons"] == c
        assert r["swap_rate"] == (pytest.approx(swaps[0, i, k] / c) if c else pytest.approx(np.nan, nan_ok=True))
        assert (r["swap_rate_fit"], r["swap_fit_low"], r["swap_fit_high"]) == pytest.approx(
            (rate[k, g], low[k, g], high[k, g]), nan_ok=True)
    assert len(table) == 3 * len(grid)
    # sizes needed are whole numbers (a nullable integer column when every one is defined)
    assert str(needed["needed"].dtype) == "Int64" and str(needed["needed_low"].dtype) == "Int64"
    nan = D.design_tables(["accuracy"], value, np.full_like(boot, np.nan), 40, swap, spec)[1]
    assert nan["needed"].isna().all() and nan["needed"].dtype == np.float64


def test_the_swap_experiment_s_arrays_and_its_refusals():
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 3, 30)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.6)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy"])
    sc = E.Scorer(ds, spec, np.arange(2), "item")
    got = D.swap_curves(sc, [1, 15], D.DesignSpec(draws=3))
    assert got["swaps"].shape == got["comparisons"].shape == (1, 2, 64)  # 64 bins, the last holds the rest
    assert {got[k].dtype for k in ("sizes", "swaps", "comparisons", "separated")} == {np.dtype(np.int64)}
    assert (int(got["draws"]), int(got["n_pairs"])) == (3, 1)
    for bad in ([0, 5], [16]):
        with pytest.raises(ValueError, match=r"^swap sizes must lie in \[1, 15\] \(disjoint halves of 30 units\)$"):
            D.swap_curves(sc, bad, D.DesignSpec(draws=3))


def test_the_size_sentence_s_edges():
    design = pd.DataFrame({"metric": ["m"], "size": [1000], "fraction": [1.0], "min_detectable_difference": [0.05],
                           "unit": ["items"], "within_range": [True]})
    needed = pd.DataFrame({"metric": ["m", "m"], "difference": [0.05, 0.02], "needed": [1000, 6200],
                           "power": [0.9, 0.9], "unit": ["items", "items"]})
    # a difference equal to the MDD is not "smaller": the next one is named
    assert D.design_sentence(design, needed, "m", "Acc").endswith("to separate 0.02 about 6,200 items are needed")
    # no size needed at all: the design's default power is said
    assert D.design_sentence(design, needed.iloc[:0], "m", "Acc") == \
        "with 1,000 items, Acc separates systems that differ by 0.05 with power 0.8"
    assert "cannot separate" in D.design_sentence(design.assign(within_range=[False]), needed, "m", "Acc")
    # the note gathers the sentences of the metrics named, or says nothing
    note = D.design_note(design.assign(metric="accuracy"), needed.assign(metric="accuracy"), ["accuracy", "gmr"])
    assert note == ("Test-set size: with 1,000 items, Acc separates systems that differ by 0.05 with power 0.9; to "
                    "separate 0.02 about 6,200 items are needed (a two-sided z-test at the experiments' alpha; "
                    "design.csv).")
    assert D.design_note(design, needed, ["accuracy"], where="x") is None
    assert D.design_note(design.assign(metric="macro_f1"), needed.assign(metric="macro_f1"), ["macro_f1"],
                         where="t.csv").endswith("alpha; t.csv).")


def test_the_formulas_defaults_are_alpha_005_and_power_08():
    from scipy.stats import norm

    z = norm.ppf(0.975) + norm.ppf(0.8)
    assert D.min_detectable_difference(0.5, [100])[0] == pytest.approx(z * 0.05)
    assert D.size_needed(0.5, 0.1) == math.ceil((z * 5) ** 2)


def test_the_swap_rate_fits_in_another_order_of_bins_and_with_steep_falls():
    """The bins in another order (an empty bin first: each bin is fitted on
    its own), a bin with a single swap, one with three sizes where a swap is
    seen at two, a fall so steep that the fit exceeds 1 at the smallest
    size (capped), and comparisons in single digits."""
    sizes = np.array([2, 4, 8, 16])
    grid = np.array([1, 2, 4, 8, 16, 32])
    cases = {
        "never compared": ([0, 0, 0, 0], [0, 0, 0, 0]),
        "never swaps": ([0, 0, 0, 0], [1, 1, 1, 1]),
        "one swap": ([1, 0, 0, 0], [3, 3, 3, 3]),
        "steep": ([9, 3, 1, 0], [9, 9, 9, 9]),
        "three points": ([5, 4, 2, 0], [6, 5, 4, 1]),
        "noisy fall": ([40, 35, 8, 9], [50, 60, 40, 90]),
    }
    rate, low, high = _fits_against_the_hand(sizes, grid, cases)
    steep = list(cases).index("steep")
    assert rate[steep, 0] == 1.0 and high[steep, 0] == 1.0  # exp(mu) > 1 at size 1: capped
    assert (high[list(cases).index("noisy fall")] > rate[list(cases).index("noisy fall")]).all()


def test_the_predicted_power_with_no_spread_and_undefined_pairs():
    """A pair with sigma 0 is separated for sure when d differs from 0 and
    at the test's own level alpha when d is 0 (Phi(-z) twice); a pair with
    an undefined d or sigma is left out of the mean."""
    from scipy.stats import norm

    alpha = 0.1
    got = D.predicted_power([[0.0, 0.2, np.nan, 0.1]], [[0.0, 0.0, 0.5, np.nan]], [10, 1000], alpha)
    assert got.shape == (1, 2)
    np.testing.assert_allclose(got[0], [(alpha + 1.0) / 2] * 2, rtol=1e-12)
    d, s = 0.05, 0.4
    z = norm.ppf(1 - alpha / 2)
    want = [norm.cdf(d * np.sqrt(n) / s - z) + norm.cdf(-d * np.sqrt(n) / s - z) for n in (10, 1000)]
    np.testing.assert_allclose(D.predicted_power([[-d]], [[s]], [10, 1000], alpha)[0], want, rtol=1e-12)
    assert D.predicted_power([[0.1]], [[1]], np.array([4], dtype=np.int64), alpha).dtype == np.float64
