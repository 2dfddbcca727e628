"""Intervals, significance and discriminative power: the resampling draws,
the randomised Tukey HSD against a plain loop given the same permutations,
the paired bootstrap test and BCa against textbook loops, and statistical
properties on synthetic data with known truth."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn import metrics as skm

from metaeval.methods import experiments as E
from metaeval.methods import significance as SG
from metaeval.methods import bootstrap as SGB
from metaeval.methods import corrections as SGC
from metaeval.data.config import DatasetSpec
from metaeval.engine.confusion import confusion_tensor
from metaeval.data.dataset import Dataset
from metaeval.engine.resample import bootstrap_weights, permutations, permuted_confusion, random_keys, split_masks

from . import reference as ref

METRICS = ["accuracy", "macro_f1", "kappa", "mae_macro", "cem_ord", "gmr"]


def _dataset(gold, pred, metrics=METRICS, groups=None):
    spec = DatasetSpec.from_config("syn", dict(gold="-", predictions=[], labels=["a", "b", "c"], ordinal=True,
                                               metrics=metrics, baselines=[]))
    n = gold.size
    ds = Dataset("syn", ("a", "b", "c"), np.arange(n).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(pred.shape[0])), ("system",) * pred.shape[0], pred.astype(np.int8),
                 groups=None if groups is None else groups.astype(np.int16),
                 group_names=() if groups is None else tuple(map(str, range(groups.max() + 1))))
    return spec, ds


def _settings(**kw):
    return E.Settings(include_baselines=(), **kw)


def _noisy(rng, gold, acc, k=3):
    return np.where(rng.random(gold.size) < acc, gold, rng.integers(0, k, gold.size))


# -- the draws ------------------------------------------------------------------------
def test_selection_sampling_equals_a_plain_loop_over_the_same_keys():
    """Algorithm S with u = (key >> 32) / 2**32: item i is taken if u * left < need."""
    n, gold = 37, np.random.default_rng(1).integers(0, 3, 37)
    keys = random_keys(n, range(6), 5, "split")
    for strata in (None, gold):
        got = split_masks(n, range(6), 5, strata)
        for b in range(6):
            s = np.zeros(n, dtype=int) if strata is None else strata
            need = {c: (s == c).sum() // 2 for c in np.unique(s)}
            left = {c: (s == c).sum() for c in np.unique(s)}
            want = np.zeros(n, dtype=bool)
            for i in range(n):
                u32 = int(keys[b, i] >> np.uint64(32))  # the top 32 bits, compared exactly in integers
                if u32 * left[s[i]] < need[s[i]] << 32:
                    want[i] = True
                    need[s[i]] -= 1
                left[s[i]] -= 1
            np.testing.assert_array_equal(got[b], want)


def test_draws_are_the_same_in_any_chunk_and_column_order():
    n = 101
    pos = np.random.default_rng(2).permutation(n)
    a = split_masks(n, range(40), 3)
    b = split_masks(n, range(20, 40), 3, pos=pos, dtype=np.float32)
    np.testing.assert_array_equal(a[20:], b[:, pos].astype(bool))
    w = bootstrap_weights(n, range(30), 4)
    np.testing.assert_array_equal(w[10:], bootstrap_weights(n, range(10, 30), 4))
    assert (w.sum(axis=1) == n).all() and w.min() >= 0


def test_bootstrap_counts_are_multinomial():
    w = bootstrap_weights(50, range(20000), 9)
    # each item is drawn Binomial(50, 1/50) times: mean 1, variance 49/50
    assert abs(w.mean() - 1) < 0.01 and abs(w.var() - 49 / 50) < 0.02
    assert abs((w == 0).mean() - (49 / 50) ** 50) < 0.005


def test_cluster_bootstrap_draws_whole_groups():
    groups = np.repeat(np.arange(7), [1, 5, 2, 8, 3, 3, 4])
    w = bootstrap_weights(groups.size, range(500), 1, groups)
    for g in range(7):  # every item of a group has its group's count
        assert (w[:, groups == g] == w[:, groups == g][:, :1]).all()
    group_counts = np.stack([w[:, groups == g][:, 0] for g in range(7)], axis=1)
    assert (group_counts.sum(axis=1) == 7).all()  # 7 draws of groups per replicate
    assert not (w.sum(axis=1) == groups.size).all()  # so the item total varies


def test_permutations_are_uniform_and_counter_based():
    p = permutations(3, 3, range(30000), 2)
    seen = pd.Series([tuple(x) for x in p[:, 1]]).value_counts()
    assert len(seen) == 6 and (seen / 30000 - 1 / 6).abs().max() < 0.01
    np.testing.assert_array_equal(p[100:200], permutations(3, 3, range(100, 200), 2))
    assert not np.array_equal(p[:50, 0], p[:50, 1])  # units are permuted independently


# -- randomised Tukey HSD against a plain loop ---------------------------------------------------
def _loop_scores(g, p):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        r = skm.recall_score(g, p, labels=[0, 1, 2], average=None, zero_division=0)
        return {"accuracy": skm.accuracy_score(g, p),
                "macro_f1": skm.f1_score(g, p, labels=[0, 1, 2], average="macro", zero_division=0),
                "kappa": skm.cohen_kappa_score(g, p, labels=[0, 1, 2]),
                "mae_macro": ref.mae_macro_loop(list(g), list(p), 3),
                "cem_ord": ref.cem_ord_loop(list(g), list(p), 3),
                "gmr": 0.0 if (r == 0).any() else float(np.prod(r) ** (1 / 3))}


@pytest.mark.parametrize("use_groups", [False, True])
def test_tukey_pvalues_equal_the_plain_loop_given_the_same_permutations(use_groups):
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 3, 40)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.8, 0.6, 0.6, 0.4)])
    groups = rng.integers(0, 8, 40) if use_groups else None
    spec, ds = _dataset(gold, pred, groups=groups)
    st = _settings(tukey_trials=60, tukey_seed=11, resample_unit="group" if use_groups else "item", chunk_size=7)
    res = SG.run_significance(ds, spec, st)
    units = groups if use_groups else np.arange(40)
    perms = permutations(int(units.max()) + 1, 5, range(60), 11)
    observed = [_loop_scores(gold, pred[s]) for s in range(5)]
    ranges = {m: [] for m in METRICS}
    for t in range(60):
        permuted = np.stack([pred[perms[t, units[i]], i] for i in range(40)], axis=1)  # (S, N)
        sc = [_loop_scores(gold, permuted[s]) for s in range(5)]
        for m in METRICS:
            ranges[m].append(max(d[m] for d in sc) - min(d[m] for d in sc))
    table = res["significance"].set_index(["metric", "system_a", "system_b"])
    for m in METRICS:
        for a in range(5):
            for b in range(a + 1, 5):
                d = abs(observed[a][m] - observed[b][m])
                want = np.mean([round(r, 12) >= round(d, 12) for r in ranges[m]])
                assert table.loc[(m, f"s{a}", f"s{b}"), "p_value"] == pytest.approx(want, abs=1e-12), (m, a, b)


def test_permuted_confusion_is_the_confusion_of_the_permuted_predictions():
    rng = np.random.default_rng(4)
    gold, pred = rng.integers(0, 3, 30), rng.integers(0, 3, (4, 30))
    perms = permutations(30, 4, range(5), 8)
    got = permuted_confusion(gold, pred, 3, range(5), 8)
    for t in range(5):
        want = confusion_tensor(gold, np.stack([pred[perms[t, i], i] for i in range(30)], axis=1), 3)
        np.testing.assert_array_equal(got[t], want)


def test_identical_systems_are_never_significantly_different():
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 3, 300)
    a = _noisy(rng, gold, 0.7)
    pred = np.stack([a, a, _noisy(rng, gold, 0.4), a])
    spec, ds = _dataset(gold, pred)
    for test in ("tukey", "bootstrap"):
        res = SG.run_significance(ds, spec, _settings(tukey_trials=300, bootstrap_replicates=300,
                                                      significance_test=test))
        same = res["significance"][(res["significance"].system_a.isin(["s0", "s1", "s3"]))
                                   & (res["significance"].system_b.isin(["s0", "s1", "s3"]))]
        assert len(same) == 3 * len(METRICS) and (same["p_value"] == 1.0).all(), test


def test_discriminative_power_rises_with_the_effect_size():
    """Six systems whose accuracies step by delta: the share of pairs told
    apart grows with delta (and is small for no difference at all)."""
    rng = np.random.default_rng(6)
    gold = rng.integers(0, 3, 1000)
    shares = []
    for delta in (0.0, 0.03, 0.07, 0.13):  # accuracies 0.3 to at most 0.95
        pred = np.stack([_noisy(rng, gold, 0.3 + j * delta) for j in range(6)])
        spec, ds = _dataset(gold, pred, metrics=["accuracy", "macro_f1"])
        res = SG.run_significance(ds, spec, _settings(tukey_trials=400))
        shares.append(float(res["power"].set_index("metric").loc["accuracy", "discriminative_power"]))
    assert shares == sorted(shares) and shares[0] <= 0.2 and shares[-1] >= 0.9, shares


def test_bootstrap_pvalues_equal_a_plain_loop():
    rng = np.random.default_rng(7)
    value = rng.random((2, 4))
    boot = value + rng.normal(0, 0.1, (50, 2, 4))
    p = SG.bootstrap_pvalues(value, boot)
    for m in range(2):
        k = 0
        for a in range(4):
            for b in range(a + 1, 4):
                d = value[m, a] - value[m, b]
                db = boot[:, m, a] - boot[:, m, b]
                assert p[m, k] == pytest.approx(np.mean(np.abs(db - d) >= abs(d)), abs=1e-12)
                k += 1


# -- intervals ---------------------------------------------------------------------------
def test_percentile_intervals_are_numpy_quantiles():
    rng = np.random.default_rng(8)
    boot = rng.normal(size=(500, 3, 4))
    boot[:40, 0, 0] = np.nan  # undefined on some replicates: left out
    lo, hi = SGB.intervals(np.zeros((3, 4)), boot, 0.9)
    np.testing.assert_allclose(lo, np.nanquantile(boot, 0.05, axis=0), atol=1e-12)
    np.testing.assert_allclose(hi, np.nanquantile(boot, 0.95, axis=0), atol=1e-12)


def test_bca_equals_the_textbook_formula():
    """Efron & Tibshirani (1993) eq. 14.9-14.15, written out for one cell."""
    rng = np.random.default_rng(9)
    boot, jack = rng.gamma(2.0, size=(400, 1, 1)), rng.gamma(2.0, size=(60, 1, 1))
    theta = np.array([[1.7]])
    lo, hi = SGB.intervals(theta, boot, 0.9, "bca", jack)
    want = _bca_loop(boot[:, 0, 0], jack[:, 0, 0], 1.7, 0.9)
    assert lo[0, 0] == pytest.approx(want[0], abs=1e-12) and hi[0, 0] == pytest.approx(want[1], abs=1e-12)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_intervals_cover_the_true_value_at_the_nominal_rate(method):
    """200 independent test sets of 300 items; a system that is right with
    probability 0.7 (accuracy's true value).  The 90% interval must cover
    0.7 in about 90% of the sets.  With 200 sets the coverage estimate has a
    standard error of sqrt(0.9 * 0.1 / 200) = 0.021; percentile bootstrap
    intervals of a proportion at n = 300 undercover by about a point, so
    [0.83, 0.96] (about -3 and +3 standard errors around 0.89) fails only on
    a real fault (at a fixed seed the test is deterministic)."""
    rng = np.random.default_rng(10)
    covered = []
    for _ in range(200):
        gold = rng.integers(0, 3, 300)
        pred = np.stack([np.where(rng.random(300) < 0.7, gold, (gold + 1 + rng.integers(0, 2, 300)) % 3)])
        spec, ds = _dataset(gold, pred, metrics=["accuracy"])
        res = SGB.run_bootstrap(ds, spec, _settings(bootstrap_replicates=300, confidence=0.9,
                                                   interval_method=method, bootstrap_seed=int(rng.integers(1e9))))
        row = res["intervals"].iloc[0]
        covered.append(row["low"] <= 0.7 <= row["high"])
    assert 0.83 <= np.mean(covered) <= 0.96, np.mean(covered)


def test_interval_table_and_similarity_intervals_layout():
    rng = np.random.default_rng(11)
    gold = rng.integers(0, 3, 200)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.5, 0.3)])
    spec, ds = _dataset(gold, pred)
    res = SGB.run_bootstrap(ds, spec, _settings(bootstrap_replicates=200))
    iv = res["intervals"]
    assert list(iv.columns) == ["system", "metric", "value", "low", "high"] and len(iv) == 4 * len(METRICS)
    ok = iv.dropna()
    assert (ok["low"] <= ok["value"] + 1e-12).all() and (ok["value"] <= ok["high"] + 1e-12).all()
    sim = res["similarity"]
    assert list(sim.columns) == ["metric_a", "metric_b", "tau", "low", "high"]
    assert len(sim) == len(METRICS) * (len(METRICS) - 1) // 2
    full = E.similarity(ds.confusion(), METRICS, spec.metric_params())
    for r in sim.itertuples():
        assert r.tau == pytest.approx(full.loc[r.metric_a, r.metric_b], abs=1e-12)


def test_group_halves_take_whole_groups_and_equal_a_loop():
    """resample_unit: group: each half of a split is half of the groups
    with all their items; the taus equal those of the item masks built by
    hand from the group masks."""
    from metaeval.engine.confusion import confusion_tensor
    from metaeval.engine.ranking import kendall_tau, orient

    rng = np.random.default_rng(12)
    gold = rng.integers(0, 3, 120)
    groups = rng.integers(0, 10, 120)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.8, 0.7, 0.5, 0.4, 0.3)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "kappa"], groups=groups)
    st = _settings(n_splits=15, split_seed=3, resample_unit="group")
    res = E.stability_splits(ds, spec, st, range(15))
    gm = split_masks(10, range(15), 3)
    for b in range(15):
        x = gm[b][groups]
        for m, mid in enumerate(["accuracy", "kappa"]):
            from metaeval.measures import labels as Mt

            sx = orient(Mt.get(mid)(confusion_tensor(gold[x], pred[:, x], 3)))
            sy = orient(Mt.get(mid)(confusion_tensor(gold[~x], pred[:, ~x], 3)))
            assert res["tau"][b, m] == pytest.approx(float(kendall_tau(sx, sy)), abs=1e-12)
    assert gm.sum(axis=1).tolist() == [5] * 15


@pytest.mark.parametrize("unit", ["item", "group"])
def test_the_scorer_s_counts_equal_a_plain_loop_over_the_units(unit):
    """Scorer.counts (weights in unit order, and drawn in the engine's own
    order), Scorer.left_out_counts (the BCa jackknife) and Scorer.score
    against confusion matrices and scores rebuilt by hand from the items of
    each resample."""
    from metaeval.measures import labels as Mt

    rng = np.random.default_rng(21)
    gold = rng.integers(0, 3, 90)
    groups = rng.integers(0, 12, 90)
    groups[:12] = np.arange(12)  # every group has an item
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.5, 0.3)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "kappa", "mae_macro"], groups=groups)
    sc = E.Scorer(ds, spec, np.arange(4), unit)
    n = 90 if unit == "item" else 12
    item_unit = np.arange(90) if unit == "item" else groups
    w = bootstrap_weights(n, range(6), 5)
    got = sc.counts(w)
    drawn = sc.counts(bootstrap_weights(n, range(6), 5, pos=sc.draw_pos, dtype=np.float32), engine_order=True)
    for b in range(6):
        items = np.repeat(np.arange(90), w[b][item_unit])
        want = confusion_tensor(gold[items], pred[:, items], 3)
        np.testing.assert_array_equal(got.confusion[b], want)
        np.testing.assert_array_equal(drawn.confusion[b], want)
        for m, mid in enumerate(sc.metric_ids):
            np.testing.assert_allclose(sc.score(got)[b, m], Mt.get(mid)(want), rtol=0, atol=1e-12)
    left = np.concatenate([c.confusion for c in sc.left_out_counts(chunk=5)])
    assert left.shape[0] == n
    for u in range(n):
        keep = item_unit != u
        np.testing.assert_array_equal(left[u], confusion_tensor(gold[keep], pred[:, keep], 3))
    np.testing.assert_array_equal((sc.total - got).confusion, sc.total.confusion[None] - got.confusion)
    o, raw, m = sc.score(sc.total, oriented=True), sc.score(sc.total), sc.metric_ids.index("mae_macro")
    np.testing.assert_allclose(o[m], -raw[m], rtol=0, atol=1e-12)  # lower is better: negated
    np.testing.assert_allclose(np.delete(o, m, 0), np.delete(raw, m, 0), rtol=0, atol=1e-12)


# -- issue 18: what is computed is what is said ---------------------------------------------
def _holm_loop(p):
    """Holm (1979) written out: sort, multiply by m - j + 1, running max, cap at 1."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, run = [0.0] * len(p), 0.0
    for j, i in enumerate(order):
        run = max(run, (len(p) - j) * p[i])
        out[i] = min(1.0, run)
    return out


def test_holm_and_bh_equal_the_methods_vector_scipy_and_a_plain_loop():
    from scipy.stats import false_discovery_control

    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2])  # METHODS.md section 6
    np.testing.assert_allclose(SGC.benjamini_hochberg(p), [0.025, 0.05, 0.05, 0.025, 0.2], atol=1e-12)
    np.testing.assert_allclose(SGC.holm(p), [0.04, 0.09, 0.09, 0.025, 0.2], atol=1e-12)
    rng = np.random.default_rng(30)
    fam = np.round(rng.random((40, 12)) ** 3, 2)  # ties and small values
    fam[rng.random(fam.shape) < 0.15] = np.nan  # pairs without a p-value: out of the family
    holm, bh = SGC.holm(fam), SGC.benjamini_hochberg(fam)
    for row, h, b in zip(fam, holm, bh):
        ok = ~np.isnan(row)
        assert np.isnan(h[~ok]).all() and np.isnan(b[~ok]).all()
        np.testing.assert_allclose(h[ok], _holm_loop(list(row[ok])), atol=1e-12)
        np.testing.assert_allclose(b[ok], false_discovery_control(row[ok]), atol=1e-12)
    assert SGC.adjust(p, "none") is not None and np.array_equal(SGC.adjust(p, "none"), p)


def test_tukey_leaves_out_trials_with_an_undefined_score():
    """A trial in which a system's score is NaN is left out for that metric:
    p = (used trials whose range reaches |d|) / (used trials), a plain loop.
    Dropping the NaN scores from the trial's range instead shrinks the
    range and gives a smaller p on this fixture."""
    rng = np.random.default_rng(31)
    value = np.array([[0.50, 0.22, 0.40, np.nan], [0.9, 0.8, 0.7, 0.6]])
    permuted = 0.5 + rng.normal(0, 0.08, (400, 2, 4))
    permuted[rng.random((400, 2, 4)) < 0.3] = np.nan
    tests = SG.tukey_test(value, permuted, 0.05)
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    for m in range(2):
        used = [t for t in range(400) if not np.isnan(permuted[t, m]).any()]
        assert tests.n[m, 0] == len(used) < 400
        for k, (a, b) in enumerate(pairs):
            d = abs(value[m, a] - value[m, b])
            if np.isnan(d):
                assert np.isnan(tests.p[m, k])
                continue
            rng_t = [round(max(permuted[t, m]) - min(permuted[t, m]), 12) for t in used]
            want = sum(r >= round(d, 12) for r in rng_t) / len(used)
            assert tests.p[m, k] == pytest.approx(want, abs=1e-12), (m, a, b)
    # the old rule, NaN scores dropped from every trial's range, gives the pair (s0, s1), d = 0.28, a
    # smaller p, significant at 0.05 where the test is not (5 of the 99 trials with every score defined reach it)
    ranges = [round(max(x[~np.isnan(x)]) - min(x[~np.isnan(x)]), 12) for x in permuted[:, 0]
              if (~np.isnan(x)).sum() >= 2]
    old = sum(r >= 0.28 for r in ranges) / len(ranges)
    assert old < 0.05 <= tests.p[0, 0] < 0.06, (old, tests.p[0, 0])
    power = SG.discriminative_power(["accuracy", "kappa"], value, tests, 0.05)
    assert power["n_trials"].tolist() == [int(tests.n[0, 0]), int(tests.n[1, 0])]


def test_the_p_value_s_monte_carlo_error_and_the_borderline_pairs():
    """p_value_se = sqrt(p (1 - p) / T); a Tukey pair is borderline when
    alpha lies within 2.576 standard errors of its p-value (a plain loop);
    for Holm-adjusted bootstrap p-values, when the verdict differs between
    the p-values all moved down and all moved up by 2.576 SE."""
    rng = np.random.default_rng(32)
    gold = rng.integers(0, 3, 400)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.62, 0.6, 0.58, 0.55, 0.5, 0.45)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "macro_f1", "kappa"])
    for test in ("tukey", "bootstrap"):
        st = _settings(tukey_trials=500, bootstrap_replicates=400, significance_test=test)
        res = SG.run_significance(ds, spec, st)
        sig, power = res["significance"], res["power"].set_index("metric")
        n = 500 if test == "tukey" else 400
        assert (power["n_trials"] == n).all()
        np.testing.assert_allclose(sig["p_value_se"], np.sqrt(sig["p_value"] * (1 - sig["p_value"]) / n), atol=1e-15)
        for mid, rows in sig.groupby("metric", sort=False):
            p, se = rows["p_value"].to_numpy(), rows["p_value_se"].to_numpy()
            if test == "tukey":
                want = sum(pi - 2.576 * si < 0.05 <= pi + 2.576 * si for pi, si in zip(p, se))
                verdict = rows["p_value"]
            else:
                lo = _holm_loop([max(0.0, pi - 2.576 * si) for pi, si in zip(p, se)])
                hi = _holm_loop([min(1.0, pi + 2.576 * si) for pi, si in zip(p, se)])
                want = sum(a < 0.05 <= b for a, b in zip(lo, hi))
                verdict = rows["p_holm"]
            assert power.loc[mid, "n_borderline"] == want, (test, mid)
            assert power.loc[mid, "n_significant"] == (verdict < 0.05).sum()
        assert sum(power["n_borderline"]) > 0  # the fixture has pairs near alpha


def test_a_p_value_equal_to_alpha_is_not_significant():
    """Significant means p < alpha (Sakai's ASL < alpha): p = alpha exactly
    is neither counted in the power nor separated from the best."""
    value = np.array([[0.9, 0.8, 0.7]])  # pairs (0, 1), (0, 2), (1, 2)
    p = np.array([[0.05, 0.04, 0.5]])
    power = SG.discriminative_power(["accuracy"], value, p, 0.05).iloc[0]
    assert power["n_significant"] == 1 and power["discriminative_power"] == pytest.approx(1 / 3)
    assert power["smallest_significant_difference"] == pytest.approx(0.2)
    best = SG.best_groups(["accuracy"], ["s0", "s1", "s2"], value, p, 0.05).iloc[0]
    assert best["best"] == "s0" and best["indistinguishable_from_best"] == "s1"


def test_best_groups_negate_lower_is_better_metrics():
    """MAE: the lowest error is the best system (hand-computed), and the
    systems listed are those the test cannot separate from it."""
    value = np.array([[0.60, 0.20, 0.90, 0.25]])  # s1 best, then s3, s0, s2
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    p = np.array([[{(0, 1): 0.3, (1, 3): 0.6}.get(pr, 0.001) for pr in pairs]])
    best = SG.best_groups(["mae_macro"], ["s0", "s1", "s2", "s3"], value, p, 0.05).iloc[0]
    assert best["best"] == "s1" and best["indistinguishable_from_best"] == "s3; s0"
    assert best["n_indistinguishable"] == 2


@pytest.mark.parametrize("decimals", [None, 3])
def test_tukey_difference_required_is_the_critical_value_of_the_range(decimals):
    """Sakai's estimated difference required, for the Tukey test: a
    difference just above it is significant, one at or just below it is
    not (plain loop over the trials); the smallest significant observed
    difference is at least it.  Scores rounded to 3 decimals: ties among
    the ranges."""
    rng = np.random.default_rng(33)
    permuted = rng.normal(0.5, 0.05, (997, 1, 5))
    permuted = permuted if decimals is None else np.round(permuted, decimals)
    tests = SG.tukey_test(np.array([[0.5, 0.45, 0.4, 0.38, 0.3]]), permuted, 0.05)
    req = tests.required[0]
    ranges = [round(max(t[0]) - min(t[0]), 12) for t in permuted]

    def loop_p(d):
        return sum(r >= round(d, 12) for r in ranges) / len(ranges)

    assert loop_p(req + 1e-9) < 0.05 <= loop_p(req) and loop_p(req - 1e-9) >= 0.05
    for d in (req + 1e-9, req, req - 1e-9):  # the library's p-value agrees
        p = SG.tukey_pvalues(np.array([[d, 0.0, 0.0, 0.0, 0.0]]), permuted)[0, 0]
        assert p == pytest.approx(loop_p(d), abs=1e-12) and (p < 0.05) == (d > req + 5e-13)
    power = SG.discriminative_power(["accuracy"], np.array([[0.5, 0.45, 0.4, 0.38, 0.3]]), tests, 0.05).iloc[0]
    assert power["difference_required"] == req
    assert np.isnan(power["smallest_significant_difference"]) or power["smallest_significant_difference"] > req


def test_bootstrap_difference_required_per_pair_and_its_maximum():
    """For the paired bootstrap test, per pair: the smallest |d| significant
    given that pair's centred replicates |d_b - d| (a plain loop), and the
    metric's value is the maximum over the pairs (Sakai 2006)."""
    rng = np.random.default_rng(34)
    value = rng.random((2, 4))
    boot = value + np.round(rng.normal(0, 0.05, (300, 2, 4)), 3)
    boot[:7, 1, 2] = np.nan  # replicates where a score is undefined: left out for its pairs
    per_pair = SG.bootstrap_difference_required(value, boot, 0.05)
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    for m in range(2):
        for k, (a, b) in enumerate(pairs):
            d = value[m, a] - value[m, b]
            dist = [round(abs(x - d), 12) for x in boot[:, m, a] - boot[:, m, b] if not np.isnan(x)]

            def loop_p(x):
                return sum(e >= round(x, 12) for e in dist) / len(dist)

            r = per_pair[m, k]
            assert loop_p(r + 1e-9) < 0.05 <= loop_p(r) and loop_p(r - 1e-9) >= 0.05, (m, a, b)
    tests = SG.bootstrap_test(value, boot, 0.05, "holm")
    np.testing.assert_array_equal(tests.required, per_pair.max(axis=1))
    power = SG.discriminative_power(["accuracy", "kappa"], value, tests, 0.05)
    np.testing.assert_array_equal(power["difference_required"], per_pair.max(axis=1))
    assert (power["test"] == "bootstrap").all() and (power["correction"] == "holm").all()


@pytest.mark.parametrize("correction", ["holm", "bh", "none"])
def test_the_bootstrap_test_adjusts_over_each_metric_s_pairs(correction):
    from scipy.stats import false_discovery_control

    rng = np.random.default_rng(35)
    gold = rng.integers(0, 3, 300)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.7, 0.65, 0.6, 0.5, 0.4)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "kappa"])
    st = _settings(bootstrap_replicates=300, significance_test="bootstrap", significance_correction=correction)
    res = SG.run_significance(ds, spec, st)
    sig, power = res["significance"], res["power"].set_index("metric")
    for mid, rows in sig.groupby("metric", sort=False):
        p = rows["p_value"].to_numpy()
        np.testing.assert_allclose(rows["p_holm"], _holm_loop(list(p)), atol=1e-12)
        np.testing.assert_allclose(rows["p_bh"], false_discovery_control(p), atol=1e-12)
        used = {"holm": rows["p_holm"], "bh": rows["p_bh"], "none": rows["p_value"]}[correction]
        assert power.loc[mid, "n_significant"] == (used < 0.05).sum()
        assert power.loc[mid, "correction"] == correction and power.loc[mid, "test"] == "bootstrap"
    assert res["tests"].decisive_column == {"holm": "p_holm", "bh": "p_bh", "none": "p_value"}[correction]
    tukey = SG.run_significance(ds, spec, _settings(tukey_trials=200, significance_correction=correction))
    t = tukey["significance"]
    assert (t["p_holm"] == t["p_value"]).all() and (t["p_bh"] == t["p_value"]).all()  # family-wise already
    assert (tukey["power"]["correction"] == SGC.TUKEY_CORRECTION).all()


def test_an_unknown_correction_is_refused():
    from metaeval.data.config import ConfigError

    with pytest.raises(ConfigError, match="significance_correction"):
        E.Settings.from_config({"significance_correction": "bonferroni"})


def test_permuted_sums_equal_a_plain_loop_over_the_same_permutations():
    """The span Tukey test: in trial t, slot s sums unit u's statistics of
    system perm[t, u, s] (``resample.permutations``), a plain loop."""
    from metaeval.engine.resample import permuted_sums

    rng = np.random.default_rng(36)
    stats = rng.integers(0, 9, (11, 4, 3)).astype(float)  # (units, systems, statistics)
    perms = permutations(11, 4, range(3, 9), 17)
    got = permuted_sums(stats, range(3, 9), 17)
    for t in range(6):
        for s in range(4):
            want = [sum(stats[u, perms[t, u, s], f] for u in range(11)) for f in range(3)]
            np.testing.assert_array_equal(got[t, s], want)
    assert not np.array_equal(got[0], stats.sum(axis=0))  # the fixture permutes something


def test_every_discriminative_power_names_its_test_and_correction():
    """The summary's text, the recommendation's sentences and legend name
    the test and the correction that produced the power (from the columns
    of discriminative_power.csv carried into summary.csv)."""
    from metaeval.verdict import recommendation as R
    from metaeval.verdict import page as RP
    from metaeval.present.tables import summary_markdown

    base = pd.DataFrame({"metric": ["accuracy", "kappa"], "group": ["A", "B"], "stability_tau": [0.9, 0.8],
                         "stability_rank": [1, 2], "discriminative_power": [0.4, 0.5], "power_rank": [2, 1]})
    for test, correction, words, short in [
            ("tukey", SGC.TUKEY_CORRECTION, "randomised Tukey HSD test finds different at alpha = 0.05, family-wise",
             "Tukey HSD"),
            ("bootstrap", "holm", "paired bootstrap test finds different at alpha = 0.05, on Holm-adjusted",
             "paired bootstrap, Holm"),
            ("bootstrap", "bh", "on Benjamini-Hochberg-adjusted p-values", "paired bootstrap, Benjamini-Hochberg")]:
        df = base.assign(power_test=test, power_correction=correction)
        assert words in summary_markdown(df, "t", 6, 100)
    # the recommendation's own power criterion names its test and correction, and the experiments' test beside it
    from metaeval.verdict.criteria import CriteriaResult

    v = np.array([[0.9, 0.8], [0.4, 0.5]])
    res = {(sc, "real"): CriteriaResult(["accuracy", "kappa"], ["stability", "power"], v,
                                        np.broadcast_to(v, (20, 2, 2)).copy(), sc, 0.95, np.zeros((20, 4), dtype=int))
           for sc in ("items", "both")}
    for text in ("two-sided z-tests ..., Holm-adjusted over the pairs of each resample",
                 "two-sided z-tests ..., not adjusted"):
        rec = R.recommend(res, criteria=["stability", "power"], power_test=text)
        md = RP.recommendation_markdown(rec, "t", "ctx")
        assert f"power (discriminative power): share of system pairs a test separates ({text})" in md


def _bca_loop(b, j, theta, confidence):
    """BCa for one cell, the textbook's formula with the documented
    conventions: NaN replicates left out, a tie counts one half, the share
    clipped to [1/(2B), 1 - 1/(2B)]."""
    b = b[~np.isnan(b)]
    share = (np.sum(b < theta) + 0.5 * np.sum(b == theta)) / b.size
    share = min(max(share, 0.5 / b.size), 1 - 0.5 / b.size)
    z0 = norm.ppf(share)
    d = np.nanmean(j) - j
    den = 6 * np.nansum(d ** 2) ** 1.5
    acc = np.nansum(d ** 3) / den if den > 0 else 0.0
    a = 1 - confidence
    levels = [norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))) for z in norm.ppf([a / 2, 1 - a / 2])]
    return np.quantile(b, levels)


def test_bca_with_ties_nan_replicates_and_every_replicate_on_one_side_equals_a_loop():
    """Discrete replicates that tie with the estimate, undefined replicates,
    cells whose replicates are all below or all above it (the clipped share)
    and a constant jackknife (no acceleration), each cell against the
    textbook formula."""
    rng = np.random.default_rng(21)
    boot = np.round(rng.normal(0.5, 0.1, (300, 2, 3)), 2)  # ties with the estimate
    boot[:25, 0, 1] = np.nan
    boot[:, 1, 0] = np.abs(boot[:, 1, 0]) - 5.0  # all below
    boot[:, 1, 1] = np.abs(boot[:, 1, 1]) + 5.0  # all above
    theta = np.full((2, 3), 0.5)
    jack = rng.normal(0.5, 0.05, (40, 2, 3))
    jack[:, 0, 2] = 0.5  # no spread: acceleration 0
    jack[3, 1, 2] = np.nan
    lo, hi = SGB.intervals(theta, boot, 0.9, "bca", jack)
    for m in range(2):
        for s in range(3):
            want = _bca_loop(boot[:, m, s], jack[:, m, s], 0.5, 0.9)
            assert lo[m, s] == pytest.approx(want[0], abs=1e-12), (m, s)
            assert hi[m, s] == pytest.approx(want[1], abs=1e-12), (m, s)
    assert np.sum(boot[:, 0, 0] == 0.5) > 0


def test_interval_and_correction_refusals_say_what_is_accepted():
    with pytest.raises(ValueError, match=r"interval method must be 'percentile' or 'bca', got 'normal'"):
        SGB.intervals(np.zeros((1, 2)), np.zeros((5, 1, 2)), method="normal")
    with pytest.raises(ValueError, match=r"^BCa intervals need the jackknife scores$"):
        SGB.intervals(np.zeros((1, 2)), np.zeros((5, 1, 2)), method="bca")
    with pytest.raises(ValueError, match=r"correction must be one of \('holm', 'bh', 'none'\), got 'sidak'"):
        SGC.adjust([0.1], "sidak")
    with pytest.raises(ValueError, match=r"correction must be one of \('holm', 'bh', 'none'\), got 'sidak'"):
        SG.bootstrap_test(np.zeros((1, 3)), np.zeros((5, 1, 3)), correction="sidak")


@pytest.mark.parametrize("method", ["holm", "bh"])
def test_an_undefined_p_value_stays_undefined_and_leaves_the_family(method):
    """NaN p-values (an undefined test) are not adjusted and do not count in
    the family: the others equal the adjustment of the defined ones alone."""
    from scipy.stats import false_discovery_control

    p = np.array([[0.01, np.nan, 0.04, 0.03, np.nan, 0.2], [0.5, 0.01, np.nan, 0.02, 0.04, 0.011]])
    got = SGC.adjust(p, method)
    for r in range(2):
        ok = ~np.isnan(p[r])
        want = _holm_loop(list(p[r, ok])) if method == "holm" else false_discovery_control(p[r, ok])
        np.testing.assert_allclose(got[r, ok], want, atol=1e-15)
        assert np.isnan(got[r, ~ok]).all()


def test_bootstrap_p_values_and_required_differences_are_undefined_without_replicates():
    """A pair whose replicates are all undefined (n = 0), or whose
    difference on the data is undefined, has no p-value and no required
    difference; one defined replicate is enough for both."""
    value = np.array([[0.8, 0.6, 0.5, np.nan]])
    boot = value + np.random.default_rng(3).normal(0, 0.05, (40, 1, 4))
    boot[:, 0, 1] = np.nan  # system 1: no replicate
    boot[1:, 0, 2] = np.nan  # system 2: one replicate
    p = SG.bootstrap_pvalues(value, boot)
    req = SG.bootstrap_difference_required(value, boot, 0.05)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    for k, (a, b) in enumerate(pairs):
        d = value[0, a] - value[0, b]
        db = boot[:, 0, a] - boot[:, 0, b]
        db = db[~np.isnan(db)]
        if np.isnan(d) or db.size == 0:
            assert np.isnan(p[0, k]) and np.isnan(req[0, k]), (a, b)
        else:
            assert p[0, k] == pytest.approx(np.mean(np.abs(db - d) >= abs(d)), abs=1e-12)
            assert np.isfinite(req[0, k])
    assert np.isfinite(p[0, pairs.index((0, 2))])  # one replicate


def test_a_single_system_has_no_pair_and_no_required_difference():
    t = SG.bootstrap_test(np.array([[0.7], [0.2]]), np.zeros((10, 2, 1)) + 0.5)
    assert t.p.shape == (2, 0) and np.isnan(t.required).all() and t.required.shape == (2,)


@pytest.mark.parametrize("variant,confidence", [("b", 0.95), ("a", 0.9)])
def test_similarity_intervals_are_percentiles_of_the_replicates_taus(variant, confidence):
    """Per pair of metrics (a lower-is-better one among them): tau of the
    oriented rankings on the data, and the percentile interval of the taus
    of the replicates (scipy's tau-b, or tau-a written out)."""
    from itertools import combinations

    from scipy.stats import kendalltau

    rng = np.random.default_rng(4)
    ids = ["accuracy", "mae_micro", "macro_f1", "kappa"]
    value = rng.random((4, 6))
    boot = value + rng.normal(0, 0.15, (80, 4, 6))
    sign = np.array([1, -1, 1, 1])[:, None]

    def tau(x, y):
        if variant == "b":
            return kendalltau(x, y).statistic
        n = len(x)
        return sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i in range(n) for j in range(i + 1, n)) / (
            n * (n - 1) / 2)

    got = SGB.similarity_intervals(ids, value, boot, confidence, variant)
    for r, (a, b) in zip(got.itertuples(), combinations(range(4), 2)):
        assert (r.metric_a, r.metric_b) == (ids[a], ids[b])
        assert r.tau == pytest.approx(tau(sign[a, 0] * value[a], sign[b, 0] * value[b]), abs=1e-12)
        tb = [tau(sign[a, 0] * x[a], sign[b, 0] * x[b]) for x in boot]
        q = (1 - confidence) / 2
        assert (r.low, r.high) == pytest.approx(tuple(np.quantile(tb, [q, 1 - q])), abs=1e-12)


@pytest.mark.parametrize("unit", ["item", "group"])
def test_the_bootstrap_scores_are_a_loop_over_the_replicates_and_report_each_chunk(unit):
    """bootstrap_scores: replicate b is the scores of the units drawn by
    bootstrap_weights(units, [b], seed) (whole groups for groups), rebuilt
    item by item, whatever the chunk size; each chunk is reported; and
    run_bootstrap passes its seed, confidence and tau variant on."""
    from metaeval.measures import labels as Mt
    from metaeval.engine.progress import reporting

    rng = np.random.default_rng(22)
    gold = rng.integers(0, 3, 80)
    groups = np.repeat(np.arange(16), 5)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.5, 0.3)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "mae_macro"], groups=groups)
    sc = E.Scorer(ds, spec, np.arange(4), unit)
    seen = []
    with reporting(lambda done, total, what: seen.append((done, total, what))):
        boot = SGB.bootstrap_scores(sc, 7, 11, chunk_size=3)
    assert seen == [(3, 7, "bootstrap replicates"), (6, 7, "bootstrap replicates"), (7, 7, "bootstrap replicates")]
    n = 80 if unit == "item" else 16
    item_unit = np.arange(80) if unit == "item" else groups
    w = bootstrap_weights(n, range(7), 11)
    for b in range(7):
        items = np.repeat(np.arange(80), w[b][item_unit])
        c = confusion_tensor(gold[items], pred[:, items], 3)
        for m, mid in enumerate(sc.metric_ids):
            np.testing.assert_allclose(boot[b, m], Mt.get(mid)(c), rtol=0, atol=1e-12)
    st = _settings(bootstrap_replicates=7, bootstrap_seed=11, resample_unit=unit, confidence=0.8, tau_variant="a")
    res = SGB.run_bootstrap(ds, spec, st)
    np.testing.assert_array_equal(res["boot"], boot)
    np.testing.assert_array_equal(res["value"], sc.score(sc.total))
    assert res["systems"] == list(ds.systems) and res["metrics"] == ["accuracy", "mae_macro"]
    lo, hi = SGB.intervals(res["value"], boot, 0.8)
    np.testing.assert_array_equal(res["intervals"]["low"].to_numpy(), lo.T.ravel())
    assert res["intervals"]["system"].tolist() == [s for s in ds.systems for _ in range(2)]
    pd.testing.assert_frame_equal(res["similarity"],
                                  SGB.similarity_intervals(["accuracy", "mae_macro"], res["value"], boot, 0.8, "a"))


def test_the_tukey_run_keeps_each_trial_s_confusion_reports_its_chunks_and_tables_every_pair():
    """run_significance with the Tukey test: permuted_confusion holds each
    trial's confusion tensors (the permuted predictions', in the smallest
    integer type), every chunk is reported, alpha reaches the test's
    required difference, and the pair table is one row per metric and pair
    (difference a - b, the p-values, their Holm and BH adjustments)."""
    from metaeval.engine.progress import reporting
    from metaeval.engine.resample import count_dtype

    rng = np.random.default_rng(23)
    gold = rng.integers(0, 3, 60)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.5)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "mae_macro"])
    st = _settings(tukey_trials=9, tukey_seed=4, chunk_size=4, alpha=0.2)
    seen = []
    with reporting(lambda done, total, what: seen.append((done, total, what))):
        res = SG.run_significance(ds, spec, st)
    assert seen == [(4, 9, "Tukey trials"), (8, 9, "Tukey trials"), (9, 9, "Tukey trials")]
    kept = res["permuted_confusion"]
    assert kept.shape == (9, 3, 3, 3) and kept.dtype == count_dtype(60)
    want = permuted_confusion(gold, pred, 3, np.arange(9), 4)
    np.testing.assert_array_equal(kept, want)
    from metaeval.measures import labels as Mt

    permuted = np.stack([[[Mt.get(m)(c) for c in t] for m in res["metrics"]] for t in want])
    np.testing.assert_array_equal(res["tests"].required, SG.tukey_test(res["value"], permuted, 0.2).required)
    assert not np.array_equal(res["tests"].required, SG.tukey_test(res["value"], permuted, 0.05).required)
    table = res["significance"]
    assert list(table.columns) == ["metric", "system_a", "system_b", "difference", "p_value", "p_value_se", "p_holm",
                                   "p_bh"]
    assert table.index.tolist() == list(range(6))
    t = res["tests"]
    for r in table.itertuples():
        m, a, b = res["metrics"].index(r.metric), ds.systems.index(r.system_a), ds.systems.index(r.system_b)
        k = [(0, 1), (0, 2), (1, 2)].index((a, b))
        assert r.difference == pytest.approx(res["value"][m, a] - res["value"][m, b], abs=1e-15)
        assert (r.p_value, r.p_holm, r.p_bh) == (t.p[m, k], t.p[m, k], t.p[m, k])  # Tukey: family-wise already
        assert r.p_value_se == pytest.approx(SGC.monte_carlo_se(t.p[m, k], 9), abs=1e-15)


def test_the_quantiles_of_the_defined_replicates_are_numpy_s_at_every_level():
    """_nanquantile: numpy's linear quantile of each cell's defined
    replicates, at the ends (0 and 1) too, with one defined replicate (its
    value) or none (NaN), and at a level per cell (BCa's)."""
    rng = np.random.default_rng(24)
    boot = rng.normal(size=(9, 5))
    boot[:, 0] = np.nan  # none defined
    boot[1:, 1] = np.nan  # one
    boot[2:, 2] = np.nan  # two
    boot[[0, 4], 3] = np.nan
    for lo_q, hi_q in ((0.0, 1.0), (0.3, 0.99), (0.025, 0.975)):
        lo, hi = SGB._nanquantile(boot, [lo_q, hi_q])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_allclose(lo, np.nanquantile(boot, lo_q, axis=0), atol=1e-14, equal_nan=True)
            np.testing.assert_allclose(hi, np.nanquantile(boot, hi_q, axis=0), atol=1e-14, equal_nan=True)
    levels = np.array([0.1, 0.2, 0.5, 0.9, 1.0])
    lo, _ = SGB._nanquantile(boot, [levels, levels])
    for c in range(1, 5):
        assert lo[c] == pytest.approx(np.nanquantile(boot[:, c], levels[c]), abs=1e-14)


def test_the_bootstrap_run_draws_its_own_replicates_with_the_bootstrap_seed():
    """run_significance with the bootstrap test and no replicates given: the
    replicates of bootstrap_scores with bootstrap_seed; the result names
    its tables."""
    rng = np.random.default_rng(25)
    gold = rng.integers(0, 3, 60)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.5)])
    spec, ds = _dataset(gold, pred, metrics=["accuracy", "macro_f1"])
    st = _settings(significance_test="bootstrap", bootstrap_replicates=30, bootstrap_seed=9, chunk_size=7)
    res = SG.run_significance(ds, spec, st)
    sc = E.Scorer(ds, spec, np.arange(3), "item")
    boot = SGB.bootstrap_scores(sc, 30, 9)
    t = SG.bootstrap_test(sc.score(sc.total), boot, st.alpha, st.significance_correction)
    np.testing.assert_array_equal(res["p"], t.p)
    assert set(res) == {"significance", "best", "power", "tests", "p", "value", "systems", "metrics",
                        "permuted_confusion"}
    assert res["permuted_confusion"] is None
    pd.testing.assert_frame_equal(res["best"], SG.best_groups(res["metrics"], res["systems"], res["value"],
                                                              t.decisive, st.alpha))


def test_the_monte_carlo_error_and_the_largest_significant_count_equal_loops():
    """monte_carlo_se: sqrt(p (1 - p) / n), NaN without trials; _count_below:
    the largest count c with c / n < alpha, as the p-values are computed."""
    got = SGC.monte_carlo_se([0.5, 0.2, np.nan, 0.3], [0, 1, 4, 10])
    np.testing.assert_allclose(got, [np.nan, 0.4, np.nan, np.sqrt(0.021)], atol=1e-15, equal_nan=True)
    ns = np.arange(1, 401)
    for alpha in (0.05, 0.1, 0.01, 0.3, 0.5):
        want = [max(c for c in range(n + 1) if c / n < alpha) for n in ns]
        np.testing.assert_array_equal(SGC._count_below(alpha, ns), want)
    assert SGC._count_below(0.05, 0) == 0  # no trial: counted as one


def test_borderline_pairs_are_those_a_few_monte_carlo_errors_can_flip():
    """A pair is borderline when its p-value moved z errors down is
    significant and moved z errors up is not (each adjusted as the test's):
    the unadjusted case written out."""
    p = np.array([[0.01, 0.045, 0.06, 0.2, 0.049]])
    n = np.full(p.shape, 400)
    t = SG.PairTests("bootstrap", "none", p, n, np.array([0.1]))
    se = np.sqrt(p * (1 - p) / 400)
    want = (p - 2.576 * se < 0.05) & (0.05 <= p + 2.576 * se)
    np.testing.assert_array_equal(t.borderline(0.05), want)
    assert want.any() and not want.all()
    np.testing.assert_array_equal(t.borderline(0.05, z=1.0), (p - se < 0.05) & (0.05 <= p + se))


def test_the_tukey_test_skips_a_metric_without_defined_trials_and_counts_a_single_one():
    """A metric undefined on every trial has no p-value and no required
    difference; one defined trial is a family of one (p 0 or 1)."""
    value = np.array([[0.9, 0.5, 0.4], [0.9, 0.5, 0.4], [0.9, 0.5, 0.4]])
    permuted = np.random.default_rng(2).random((5, 3, 3))
    permuted[:, 0, 1] = np.nan  # metric 0: no trial defined
    permuted[1:, 1, 0] = np.nan  # metric 1: one trial
    t = SG.tukey_test(value, permuted, 0.05)
    assert np.isnan(t.p[0]).all() and np.isnan(t.required[0])
    r = np.ptp(permuted[0, 1])
    np.testing.assert_array_equal(t.p[1], [float(r >= d) for d in (0.4, 0.5, 0.1)])
    assert t.required[1] == pytest.approx(r) and t.n[1].tolist() == [1, 1, 1] and t.n[2].tolist() == [5, 5, 5]
