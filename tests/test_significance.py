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

from metaeval import experiments as E
from metaeval import significance as SG
from metaeval.config import DatasetSpec
from metaeval.confusion import confusion_tensor
from metaeval.dataset import Dataset
from metaeval.resample import (bootstrap_weights, permutations, permuted_confusion, random_keys, split_masks)

from . import reference as ref

METRICS = ["accuracy", "macro_f1", "kappa", "mae_macro", "cem_ord", "gmr"]


def _dataset(gold, pred, metrics=METRICS, groups=None):
    k = 3
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
    lo, hi = SG.intervals(np.zeros((3, 4)), boot, 0.9)
    np.testing.assert_allclose(lo, np.nanquantile(boot, 0.05, axis=0), atol=1e-12)
    np.testing.assert_allclose(hi, np.nanquantile(boot, 0.95, axis=0), atol=1e-12)


def test_bca_equals_the_textbook_formula():
    """Efron & Tibshirani (1993) eq. 14.9-14.15, written out for one cell."""
    rng = np.random.default_rng(9)
    boot, jack = rng.gamma(2.0, size=(400, 1, 1)), rng.gamma(2.0, size=(60, 1, 1))
    theta = np.array([[1.7]])
    lo, hi = SG.intervals(theta, boot, 0.9, "bca", jack)
    b, j = boot[:, 0, 0], jack[:, 0, 0]
    z0 = norm.ppf((np.sum(b < 1.7) + 0.5 * np.sum(b == 1.7)) / b.size)
    d = j.mean() - j
    acc = np.sum(d ** 3) / (6 * np.sum(d ** 2) ** 1.5)
    levels = [norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))) for z in norm.ppf([0.05, 0.95])]
    want = np.quantile(b, levels)
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
        res = SG.run_bootstrap(ds, spec, _settings(bootstrap_replicates=300, confidence=0.9,
                                                   interval_method=method, bootstrap_seed=int(rng.integers(1e9))))
        row = res["intervals"].iloc[0]
        covered.append(row["low"] <= 0.7 <= row["high"])
    assert 0.83 <= np.mean(covered) <= 0.96, np.mean(covered)


def test_interval_table_and_similarity_intervals_layout():
    rng = np.random.default_rng(11)
    gold = rng.integers(0, 3, 200)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.5, 0.3)])
    spec, ds = _dataset(gold, pred)
    res = SG.run_bootstrap(ds, spec, _settings(bootstrap_replicates=200))
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
    from metaeval.confusion import confusion_tensor
    from metaeval.ranking import kendall_tau, orient

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
            from metaeval import metrics as Mt

            sx = orient(Mt.get(mid)(confusion_tensor(gold[x], pred[:, x], 3)))
            sy = orient(Mt.get(mid)(confusion_tensor(gold[~x], pred[:, ~x], 3)))
            assert res["tau"][b, m] == pytest.approx(float(kendall_tau(sx, sy)), abs=1e-12)
    assert gm.sum(axis=1).tolist() == [5] * 15
