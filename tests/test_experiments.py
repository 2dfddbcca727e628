"""The meta-evaluation engine: Kendall's tau, subset confusion tensors,
determinism, and a small hand-computed example for each experiment."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from metaeval.methods import experiments as E
from metaeval.measures import labels as M
from metaeval.data.config import ConfigError, DatasetSpec
from metaeval.engine.confusion import confusion_tensor, merge_classes
from metaeval.data.dataset import Dataset
from metaeval.data.systems import make_baselines
from metaeval.engine.ranking import competition_rank, kendall_tau, orient
from metaeval.engine.resample import SubsetConfusion, balanced_masks, split_mask, split_masks


# -- Kendall's tau ------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**31), st.sampled_from([2, 3, 100]), st.sampled_from(["a", "b"]))
def test_tau_matches_scipy_with_and_without_ties(n, seed, levels, variant):
    """levels=2 or 3 forces many ties; 100 almost none."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, n).astype(float)
    y = rng.integers(0, levels, n).astype(float)
    ours = kendall_tau(x, y, variant)
    ref = kendalltau(x, y, variant="b").statistic
    if variant == "a":  # tau-a = (n_c - n_d) / all pairs, from scipy's tau-b
        iu = np.triu_indices(n, 1)
        ref = np.sum(np.sign(x[iu[0]] - x[iu[1]]) * np.sign(y[iu[0]] - y[iu[1]])) / (n * (n - 1) / 2)
    if np.isnan(ref):
        assert np.isnan(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-12)


def test_tau_is_vectorised_over_leading_axes():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, size=(7, 5, 9)).astype(float)
    y = rng.integers(0, 4, size=(7, 5, 9)).astype(float)
    t = kendall_tau(x, y)
    for i in range(7):
        for j in range(5):
            ref = kendalltau(x[i, j], y[i, j]).statistic
            assert (np.isnan(t[i, j]) and np.isnan(ref)) or t[i, j] == pytest.approx(ref, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 14), st.integers(1, 6), st.integers(0, 2**31), st.sampled_from([2, 3, 100]),
       st.sampled_from(["a", "b"]))
def test_tau_numpy_pass_equals_compiled_kernel_bitwise(n, rows, seed, levels, variant):
    """kendall_tau answers small problems in NumPy and large ones with the
    compiled kernel: the two must agree to the last bit, ties, -inf (an
    undefined score) and NaN included."""
    from metaeval.engine.kernels import tau_rows
    from metaeval.engine.ranking import _tau_small

    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, (rows, n)).astype(float)
    y = rng.integers(0, levels, (rows, n)).astype(float)
    x[rng.random(x.shape) < 0.1] = -np.inf
    y[rng.random(y.shape) < 0.05] = np.nan
    out = np.empty(rows)
    tau_rows(x, y, variant == "b", out)
    small = _tau_small(x, y, variant == "b")
    np.testing.assert_array_equal(small, out)


def test_tau_takes_the_kernel_above_the_small_size(monkeypatch):
    """The same answer from both passes through kendall_tau itself."""
    import metaeval.engine.ranking as R

    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, (40, 30)).astype(float)
    y = rng.integers(0, 5, (40, 30)).astype(float)
    small = R.kendall_tau(x, y)
    monkeypatch.setattr(R, "SMALL_TAU", 0)
    np.testing.assert_array_equal(R.kendall_tau(x, y), small)
    ref = [kendalltau(a, b).statistic for a, b in zip(x, y)]
    np.testing.assert_allclose(small, ref, atol=1e-12)


def test_small_tau_does_not_start_numba():
    """Jobs that compare a few rankings must not pay numba's start-up."""
    import subprocess
    import sys

    code = ("import sys, numpy as np; from metaeval.engine.ranking import kendall_tau, tau_matrix; "
            "kendall_tau(np.arange(20.0), np.arange(20.0)[::-1]); tau_matrix(np.random.rand(15, 30)); "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_orient_rounds_noise_into_ties_and_sends_nan_last():
    o = orient([0.3, 0.1 + 0.2, np.nan, 0.5], higher_is_better=True)
    assert o[0] == o[1] and o[2] == -np.inf
    assert orient([1.0, 2.0], higher_is_better=False).tolist() == [-1.0, -2.0]
    assert competition_rank(np.array([3.0, 1.0, 1.0, 2.0])).tolist() == [4, 1, 1, 3]


# -- subset confusion tensors ---------------------------------------------------
def _random_data(seed, n=300, s=6, k=3):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, n)
    pred = np.where(rng.random((s, n)) < 0.6, gold, rng.integers(0, k, (s, n)))
    return gold, pred


@pytest.mark.parametrize("max_bytes", [256 * 2**20, 1])  # one block; one system per block
def test_subset_confusion_equals_direct_counting(max_bytes):
    gold, pred = _random_data(1)
    eng = SubsetConfusion(gold, pred, 3, max_bytes=max_bytes)
    masks = split_masks(gold.size, range(20), seed=5)
    cx = eng.confusion(masks)
    for b in range(20):
        np.testing.assert_array_equal(cx[b], confusion_tensor(gold[masks[b]], pred[:, masks[b]], 3))
        np.testing.assert_array_equal(eng.total - cx[b], confusion_tensor(gold[~masks[b]], pred[:, ~masks[b]], 3))


def test_split_masks_are_halves_and_stratified_halves_keep_proportions():
    gold, _ = _random_data(2, n=301)
    m = split_masks(301, range(50), seed=1)
    assert (m.sum(1) == 150).all()
    counts = np.bincount(gold, minlength=3)
    ms = split_masks(301, range(50), seed=1, strata=gold)
    for row in ms:
        np.testing.assert_array_equal(np.bincount(gold[row], minlength=3), counts // 2)
    # the split of index b depends only on (seed, b)
    np.testing.assert_array_equal(split_mask(301, 17, 1), m[17])
    assert not np.array_equal(split_mask(301, 17, 2), m[17])


def test_balanced_masks_take_the_smallest_class_size():
    gold = np.array([0] * 50 + [1] * 20 + [2] * 7)
    masks = balanced_masks(gold, range(10), seed=3)
    for row in masks:
        assert np.bincount(gold[row], minlength=3).tolist() == [7, 7, 7]


# -- a small dataset -------------------------------------------------------------
def _dataset(seed=0, n=400, s=8, k=3):
    gold, pred = _random_data(seed, n=n, s=s, k=k)
    # vary quality per system so rankings are not all ties
    rng = np.random.default_rng(seed + 1)
    for i in range(s):
        flip = rng.random(n) < i / (s + 2)
        pred[i] = np.where(flip, rng.integers(0, k, n), gold)
    labels = tuple("abcde"[:k])
    names, base = make_baselines(gold, k, labels, ("majority", "random"), seed=4)
    spec = DatasetSpec.from_config("toy", dict(gold="-", predictions=[], labels=list(labels), ordinal=True,
                                               weights={"even": dict.fromkeys(labels, 1 / k),
                                                        "skew": dict(zip(labels, [0.6, 0.3, 0.1][:k]))}))
    ds = Dataset("toy", labels, np.array([str(i) for i in range(n)]), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(s)) + tuple(names), ("system",) * s + ("baseline",) * len(names),
                 np.vstack([pred, base]).astype(np.int8))
    return spec, ds


def test_stability_is_bit_identical_across_chunk_sizes_and_shards():
    spec, ds = _dataset()
    st_ = E.Settings(n_splits=60, split_seed=11)
    one = E.stability_splits(ds, spec, st_, range(60), chunk_size=60)
    small = E.stability_splits(ds, spec, st_, range(60), chunk_size=7)
    np.testing.assert_array_equal(one["tau"], small["tau"])
    np.testing.assert_array_equal(one["tier_tau"], small["tier_tau"])
    shards = [E.stability_splits(ds, spec, st_, idx, chunk_size=5) for idx in np.array_split(np.arange(60), 4)[::-1]]
    summ1, per1 = E.stability_summary([one], 60)
    summ4, per4 = E.stability_summary(shards, 60)
    pd.testing.assert_frame_equal(summ1, summ4, check_exact=True)
    pd.testing.assert_frame_equal(per1, per4, check_exact=True)
    with pytest.raises(ValueError, match="exactly once"):
        E.stability_summary(shards[:3], 60)


def test_stability_equals_the_straightforward_loop():
    """Per split: select the items, score every system on X and Y one by
    one, tau per metric with scipy."""
    spec, ds = _dataset(seed=3, n=120, s=5)
    st_ = E.Settings(n_splits=15, split_seed=2)
    res = E.stability_splits(ds, spec, st_, range(15))
    sel = E.select_systems(ds, st_.include_baselines)
    params = spec.metric_params()
    for b in range(15):
        mask = split_mask(ds.n_items, b, 2)
        for mi, mid in enumerate(spec.metrics):
            hib = M.get(mid).higher_is_better
            sx = [float(M.get(mid)(confusion_tensor(ds.gold[mask], ds.predictions[s][mask], 3), **params)) for s in sel]
            sy = [float(M.get(mid)(confusion_tensor(ds.gold[~mask], ds.predictions[s][~mask], 3), **params))
                  for s in sel]
            ref = kendalltau(orient(sx, hib), orient(sy, hib)).statistic
            assert (np.isnan(ref) and np.isnan(res["tau"][b, mi])) or res["tau"][b, mi] == pytest.approx(ref, abs=1e-12)


def test_tier_sizes():
    assert E.tier_sizes(14) == [5, 5, 4]
    assert sum(E.tier_sizes(19)) == 19 and E.tier_sizes(19) == [7, 7, 5]
    assert E.tier_sizes(6) == [2, 2, 2]


def test_tiers_by_hand():
    """Systems 0..5 ranked 0 > 1 > ... > 5 on the full set; tier taus are
    taus restricted to {0,1}, {2,3}, {4,5}."""
    full = np.array([[6.0, 5, 4, 3, 2, 1], [1.0, 2, 3, 4, 5, 5]])  # a second metric: reversed, a tie kept in order
    tiers = E._tiers(full, [2, 2, 2])
    # per tier, every metric's members (metric x tier size)
    assert [t.tolist() for t in tiers] == [[[0, 1], [4, 5]], [[2, 3], [3, 2]], [[4, 5], [1, 0]]]


# -- similarity -------------------------------------------------------------------
def test_similarity_by_hand():
    # 3 systems, K=2: accuracy ranks A > B > C; MAE^mu (lower better) ranks the same;
    # macro recall differs for one pair
    c = np.array([
        [[8, 1], [0, 1]],   # A: acc .9
        [[5, 0], [3, 2]],   # B: acc .7
        [[4, 2], [4, 0]],   # C: acc .4
    ])
    sim = E.similarity(c, ["accuracy", "mae_micro", "macro_recall"], {})
    assert sim.loc["accuracy", "mae_micro"] == pytest.approx(1.0)  # lower-is-better oriented
    acc = M.accuracy(c)
    mr = M.macro_recall(c)
    assert sim.loc["accuracy", "macro_recall"] == pytest.approx(kendalltau(acc, mr).statistic)
    groups, order = E.cluster_groups(sim, n_groups=2)
    assert groups["accuracy"] == groups["mae_micro"] and set(order) == set(sim.index)


def test_cluster_groups_letters_by_size():
    ids = ["m1", "m2", "m3", "m4"]
    tau = np.array([[1, .9, .1, .1], [.9, 1, .1, .1], [.1, .1, 1, .95], [.1, .1, .95, 1]], float)
    tau[2:, :2] = tau[:2, 2:] = 0.0
    g, _ = E.cluster_groups(pd.DataFrame(tau, index=ids, columns=ids), n_groups=2)
    assert g["m1"] == g["m2"] == "A" and g["m3"] == g["m4"] == "B"


# -- merging ----------------------------------------------------------------------
def test_merge_groups_take_the_lowest_position():
    assert E.merge_groups(3, (0, 1)).tolist() == [0, 0, 1]
    assert E.merge_groups(3, (1, 2)).tolist() == [0, 1, 1]
    assert E.merge_groups(3, (0, 2)).tolist() == [0, 1, 0]
    assert E.merge_groups(4, (1, 3)).tolist() == [0, 1, 2, 1]


def test_merged_params():
    p = E.merged_params({"weights": np.array([.4, .4, .15, .05]), "f_avg_classes": [0, 2], "unrelated": 3},
                        E.merge_groups(4, (2, 3)))
    np.testing.assert_allclose(p["weights"], [.4, .4, .2])
    assert p["f_avg_classes"] == [0, 2] and p["unrelated"] is None
    # the one-class metrics score the merged class their positive class falls into, renumbered
    for pair, positive, want in [((0, 1), 2, 1), ((0, 1), 1, 0), ((1, 2), 3, 2), ((0, 3), 3, 0), ((2, 3), 1, 1)]:
        assert E.merged_params({"positive": positive}, E.merge_groups(4, pair))["positive"] == want
    assert "positive" not in E.merged_params({}, E.merge_groups(3, (0, 1)))


@pytest.mark.parametrize("positive", ["a", "b", "c"])
def test_merging_a_one_class_metric_scores_the_merged_class_of_its_positive_class(positive):
    """f1_class of the positive class, after two classes are merged, is
    scikit-learn's F1 of the merged class the positive class falls into
    (it was a traceback: the positive class's index was out of range)."""
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(2)
    gold = rng.integers(0, 3, 200)
    acc = rng.uniform(0.2, 0.95, (8, 3))  # each system right on each class at its own rate: rankings differ
    pred = np.where(rng.random((8, 200)) < acc[:, gold], gold, rng.integers(0, 3, (8, 200)))
    spec = DatasetSpec.from_config("one", dict(gold="-", predictions=[], labels=["a", "b", "c"], ordinal=True,
                                               metrics=["f1_class"], positive_class=positive, baselines=[]))
    ds = Dataset("one", ("a", "b", "c"), np.arange(200).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(8)), ("system",) * 8, pred.astype(np.int8))
    df = E.merging(ds, spec, E.Settings(include_baselines=()))
    k = "abc".index(positive)
    before = [f1_score(gold, p, labels=[k], average="macro") for p in pred]
    taus = []
    for pair in [(0, 1), (1, 2), (0, 2)]:
        g = E.merge_groups(3, pair)
        after = [f1_score(g[gold], g[p], labels=[g[k]], average="macro") for p in pred]
        got = df[(df.metric == "f1_class") & (df.pair == "abc"[pair[0]] + "+" + "abc"[pair[1]])]["tau"].item()
        want = kendalltau(before, after).statistic
        assert got == pytest.approx(want, abs=1e-12), pair
        taus.append(want)
    assert min(taus) < 0.9  # the merges move the rankings: a wrong merged class would show


def test_merging_equals_merging_the_labels_and_rescoring():
    spec, ds = _dataset(seed=5)
    st_ = E.Settings()
    df = E.merging(ds, spec, st_)
    sel = E.select_systems(ds, st_.include_baselines)
    params = spec.metric_params()
    for pair in [(0, 1), (1, 2), (0, 2)]:
        g = E.merge_groups(3, pair)
        merged_c = confusion_tensor(g[ds.gold], g[ds.predictions[sel]], 2)  # relabel, then count
        np.testing.assert_array_equal(merged_c, merge_classes(ds.confusion()[sel], g))
        mp = E.merged_params(params, g)
        for mid in spec.metrics:
            hib = M.get(mid).higher_is_better
            before = orient(M.get(mid)(ds.confusion()[sel], **params), hib)
            after = orient(M.get(mid)(merged_c, **mp), hib)
            ref = kendalltau(before, after).statistic
            got = df[(df.metric == mid) & (df.pair == f"{ds.labels[pair[0]]}+{ds.labels[pair[1]]}")]["tau"].item()
            assert (np.isnan(ref) and np.isnan(got)) or got == pytest.approx(ref, abs=1e-12), (mid, pair)
    means = df[df.pair == "mean"].set_index("metric")["tau"]
    per = df[df.pair != "mean"].groupby("metric")["tau"].mean()
    pd.testing.assert_series_equal(means.sort_index(), per.sort_index(), check_names=False)


def test_merging_by_hand():
    """Two systems: A confuses a<->b only, B confuses a<->c only.  Merging
    a+b makes A perfect: the accuracy ranking flips (tau -1); merging a+c
    makes B perfect: flips back to the original order only if B was ahead."""
    gold = np.array([0, 0, 1, 1, 2, 2])
    a = np.array([1, 0, 0, 1, 2, 2])  # two a<->b errors
    b = np.array([2, 0, 1, 1, 0, 2])  # two a<->c errors
    c = np.stack([confusion_tensor(gold, a, 3), confusion_tensor(gold, b, 3)])
    pairs, tau = E._merge_taus(c, ["accuracy", "mae_micro"], {}, "b")
    # accuracy: A = B = 4/6 originally (tie) -> tau-b undefined
    assert np.isnan(tau[0, 0])
    # MAE^mu: A = 2/6, B = 4/6 (a<->c costs 2): A ahead; merging a+c: B's
    # errors vanish -> B ahead -> tau = -1; merging a+b: A perfect -> tau = +1
    assert pairs == [(0, 1), (0, 2), (1, 2)]
    assert tau[0, 1] == 1.0 and tau[1, 1] == -1.0


def test_merging_balanced_repeats_and_determinism():
    spec, ds = _dataset(seed=6)
    st1 = E.Settings(balanced_repeats=12, balanced_seed=9, chunk_size=12)
    st2 = E.Settings(balanced_repeats=12, balanced_seed=9, chunk_size=5)
    a, b = E.merging_balanced(ds, spec, st1), E.merging_balanced(ds, spec, st2)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert (a["repeats"] == 12).all() and (a["class_size"] == np.bincount(ds.gold).min()).all()


# -- weights and summary ------------------------------------------------------------
def test_weight_sensitivity_by_hand():
    spec, ds = _dataset(seed=7)
    long, taus = E.weight_sensitivity(ds, spec, E.Settings())
    c = ds.confusion()
    skew = spec.metric_params("skew")["weights"]
    got = long[(long.metric == "wf2") & (long.weight_set == "skew")].set_index("system")["score"]
    np.testing.assert_allclose(got.loc[list(ds.systems)].to_numpy(), M.weighted_fbeta(c, skew, beta=2.0))
    assert set(taus["metric"]) == {"wauc", "wf1", "wf2"} and len(taus) == 3
    ranks = long[(long.metric == "wf1") & (long.weight_set == "even") & (long.kind == "system")]["rank"]
    assert sorted(ranks.tolist())[0] == 1 and long[long.kind == "baseline"]["rank"].isna().all()


def test_summary_ranks():
    groups = pd.Series({"m1": "A", "m2": "B", "m3": "A"})
    stab = pd.DataFrame({"metric": ["m1", "m2", "m3"], "mean_tau": [0.5, 0.9, 0.7]})
    merge = pd.DataFrame({"metric": ["m1", "m2", "m3"], "pair": "mean", "tau": [0.1, 0.3, 0.2]})
    s = E.summary(groups, stab, merge).set_index("metric")
    assert s["stability_rank"].to_dict() == {"m1": 3, "m2": 1, "m3": 2}
    assert s["discrimination_rank"].to_dict() == {"m1": 1, "m2": 3, "m3": 2}


def test_stability_hand_example():
    """4 items, systems A (always right), B (right on items 0, 1), C (right
    on items 2, 3), accuracy only.  A half {0, 1} or {2, 3} gives accuracies
    (1, 1, 0) on one half and (1, 0, 1) on the other: tau-b = -1/2.  Any
    other half gives (1, .5, .5) on both halves: tau-b = 1."""
    gold = np.array([0, 1, 0, 1])
    pred = np.array([[0, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1]])
    spec = DatasetSpec.from_config("hand", dict(gold="-", predictions=[], labels=["x", "y"],
                                                metrics=["accuracy"]))
    ds = Dataset("hand", ("x", "y"), np.array(["0", "1", "2", "3"]), gold.astype(np.int8), ("A", "B", "C"),
                 ("system",) * 3, pred.astype(np.int8))
    st_ = E.Settings(n_splits=30, split_seed=1, include_baselines=())
    res = E.stability_splits(ds, spec, st_, range(30))
    seen = set()
    for b in range(30):
        half = frozenset(np.flatnonzero(split_mask(4, b, 1)).tolist())
        expected = -0.5 if half in ({0, 1}, {2, 3}) else 1.0
        seen.add(expected)
        assert res["tau"][b, 0] == expected, (b, half)
    assert seen == {-0.5, 1.0}


def test_random_keys_are_counter_based_and_uniform():
    from metaeval.engine.resample import random_keys

    k = random_keys(50, np.arange(10), seed=3)
    np.testing.assert_array_equal(k[7:9], random_keys(50, [7, 8], seed=3))  # chunk-independent
    assert not np.array_equal(random_keys(50, [7], seed=4), k[7:8])
    # every item lands in X about half of the time, pairs of items a quarter
    m = split_masks(40, range(4000), seed=9)
    freq = m.mean(0)
    assert np.abs(freq - 0.5).max() < 0.04
    co = (m[:, :, None] & m[:, None, :]).mean(0)[np.triu_indices(40, 1)]
    # exact for a uniform half of 40: P(i, j in X) = (20/40)(19/39)
    assert abs(co.mean() - 0.5 * 19 / 39) < 0.005 and np.abs(co - 0.5 * 19 / 39).max() < 0.04


# -- the generator's streams are independent by construction ---------------------
@pytest.mark.parametrize("d", [1, 2, 3, 5, 1 << 20])
def test_related_seeds_do_not_give_the_same_draws(d):
    """With hash(seed ^ b), seed s at split b and seed s ^ d at split b ^ d
    would coincide (20210301 and 20210302 differ by 3)."""
    from metaeval.engine.resample import random_keys

    s = 20210301
    for b in range(8):
        assert not np.array_equal(random_keys(64, [b], s), random_keys(64, [b ^ d], s ^ d)), b
    assert not np.array_equal(split_masks(100, range(16), 20210301), split_masks(100, [b ^ 3 for b in range(16)], 20210302))


def test_split_and_balanced_streams_differ_for_the_same_seed():
    from metaeval.engine.resample import random_keys

    for b in range(4):
        keys = {stream: random_keys(50, [b], 7, stream).tobytes() for stream in ("split", "balanced", "bootstrap")}
        assert len(set(keys.values())) == 3, b
    with pytest.raises(ValueError, match="seed"):
        random_keys(5, [0], 1 << 56)
    with pytest.raises(ConfigError, match="split_seed"):
        E.Settings.from_config({"split_seed": -1})


# -- tiers, spread, the systems ranked -------------------------------------------
@pytest.mark.parametrize("fractions", [E.PAPER_TIERS, (1, 1, 1), (0.5, 0.3, 0.2)])
def test_tier_sizes_partition_every_number_of_systems(fractions):
    f = np.asarray(fractions, float) / np.sum(fractions)
    for n in range(1, 120):
        sizes = E.tier_sizes(n, fractions)
        assert sum(sizes) == n, (n, sizes)  # tiers never overlap nor leave a system out
        assert np.all(np.abs(np.array(sizes) - f * n) < 1), (n, sizes)  # largest remainder: within 1 of the share
    assert E.tier_sizes(10) == [4, 3, 3] and E.tier_sizes(13) == [5, 4, 4] and E.tier_sizes(21) == [8, 7, 6]


def test_every_tier_has_a_tau_with_ten_systems():
    spec, ds = _dataset(seed=3, s=8)  # 8 systems + majority + random = 10 ranked
    res = E.stability_splits(ds, spec, E.Settings(n_splits=20), range(20))
    summ, _ = E.stability_summary([res], 20)
    assert summ["n_systems"].eq(10).all()
    assert summ[["tau_top", "tau_middle", "tau_bottom"]].notna().all().all()


def test_stability_sd_is_the_sample_standard_deviation():
    parts = [{"splits": np.arange(4), "tau": np.array([[0.2], [0.4], [0.9], [np.nan]]),
              "tier_tau": np.zeros((4, 1, 3)), "metrics": np.array(["accuracy"]), "n_systems": np.array(5)}]
    summ, per = E.stability_summary(parts, 4)
    ok = np.array([0.2, 0.4, 0.9])
    assert summ.loc[0, "sd_tau"] == pytest.approx(np.std(ok, ddof=1), abs=1e-15)
    assert summ.loc[0, "mean_tau"] == pytest.approx(0.5) and summ.loc[0, "n_undefined"] == 1
    assert summ.loc[0, "q025"] == pytest.approx(np.quantile(ok, 0.025))


def test_select_systems_takes_only_the_named_baselines():
    gold = np.array([0, 1, 2, 1, 0, 2], dtype=np.int8)
    names, base = make_baselines(gold, 3, ("a", "b", "c"), ("majority", "all_class", "random"), seed=1)
    ds = Dataset("t", ("a", "b", "c"), np.array(list("012345")), gold, ("s1", "s2") + tuple(names),
                 ("system",) * 2 + ("baseline",) * len(names), np.vstack([gold, gold, base]).astype(np.int8))
    pick = lambda inc: [ds.systems[i] for i in E.select_systems(ds, inc)]  # noqa: E731
    assert pick(["majority", "random"]) == ["s1", "s2", "majority", "random"]
    assert pick([]) == ["s1", "s2"]
    assert pick(["all_b"]) == ["s1", "s2", "all_b"]


# -- summary: two classes, distinct groups ----------------------------------------
def test_summary_without_merging_has_no_discrimination_columns():
    groups = pd.Series({"m1": "A", "m2": "B"})
    stab = pd.DataFrame({"metric": ["m1", "m2"], "mean_tau": [0.5, 0.9]})
    s = E.summary(groups, stab, None)
    assert list(s.columns) == ["metric", "group", "stability_tau", "stability_rank"]
    from metaeval.present.tables import summary_markdown

    md = summary_markdown(s.assign(metric=["accuracy", "kappa"]), "t", 6, 100)
    assert "class discrimination" not in md.split("\n\n")[1] and "merging them leaves a single class" in md


def test_group_separation_says_when_groups_are_not_distinct():
    ids = ["accuracy", "kappa", "gmr", "macro_f1"]
    tau = np.array([[1, .99, .97, .98], [.99, 1, .97, .98], [.97, .97, 1, .975], [.98, .98, .975, 1]])
    sim = pd.DataFrame(tau, index=ids, columns=ids)
    groups, _ = E.cluster_groups(sim, 3)
    sep = E.group_separation(sim, groups)
    assert len(sep) == 3 and (sep["mean_tau"] >= 0.97).all()
    assert sep["mean_tau"].is_monotonic_decreasing
    from metaeval.present.tables import summary_markdown

    summ = E.summary(groups, pd.DataFrame({"metric": ids, "mean_tau": [.5, .6, .7, .8]}), None)
    assert "The groups are not distinct" in summary_markdown(summ, "t", 9, 10, sep, 0.9)
    assert "Every two groups are distinct" in summary_markdown(summ, "t", 9, 10, sep, 0.999)
    part = summary_markdown(summ, "t", 9, 10, sep.assign(mean_tau=[0.95, 0.5, 0.4]), 0.9)
    assert f"Not distinct: groups {sep.group_a[0]} and {sep.group_b[0]}" in part


def test_balanced_class_size_counts_the_classes_present():
    spec, ds = _dataset(seed=6, k=3)
    gold = ds.gold.copy()
    gold[gold == 2] = 1  # class 2 absent from the gold
    ds2 = Dataset(ds.name, ds.labels, ds.item_ids, gold, ds.systems, ds.kinds, ds.predictions)
    mb = E.merging_balanced(ds2, spec, E.Settings(balanced_repeats=2))
    assert (mb["class_size"] == np.bincount(gold)[:2].min()).all() and (mb["class_size"] > 0).all()


def test_summary_says_on_how_many_splits_a_metric_is_undefined():
    from metaeval.present.tables import summary_markdown

    groups = pd.Series({"accuracy": "A", "gmr": "A", "kappa": "B"})
    stab = pd.DataFrame({"metric": ["accuracy", "gmr", "kappa"], "mean_tau": [0.8, 1.0, np.nan],
                         "n_splits": 1000, "n_undefined": [0, 448, 1000]})
    md = summary_markdown(E.summary(groups, stab, None), "t", 20, 1000)
    assert "2nd (0.800) |" in md and "1st (1.000; undefined on 448 of 1000 splits)" in md
    assert "n/a (undefined on all 1000 splits)" in md


@pytest.mark.workflow
def test_kernels_compile_cold_with_the_jobs_threads(tmp_path):
    """The workflow's kernels job on a fresh install: numba imported first,
    OMP_NUM_THREADS = 1 (Snakemake's value for a one-thread job), an empty
    numba cache: every kernel compiles, and the engine runs on one thread."""
    import os
    import subprocess
    import sys

    code = ("import numba\nfrom metaeval.engine.resample import compile_kernels\n"
            "from metaeval.engine.kernels import n_threads\n"
            "assert len(compile_kernels()) >= 6\nassert n_threads() == 1\n")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_NUM_THREADS", None)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr
