"""Label noise and class priors (metaeval.methods.sensitivity) against plain loops:
noisy golds rebuilt item by item, taus from scipy, Tukey tests on the whole
noisy gold, re-weighted confusion matrices checked by their margins."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from metaeval.measures import labels as M
from metaeval.methods import sensitivity as S
from metaeval.engine.confusion import confusion_tensor
from metaeval.engine.ranking import orient
from metaeval.engine.resample import SubsetConfusion, permuted_confusion
from metaeval.methods.significance import discriminative_power, tukey_pvalues

RATES = (0.01, 0.05, 0.2)
IDS = ["accuracy", "macro_f1", "kappa", "macro_recall", "gmr", "mae_macro", "cem_ord", "alpha_ordinal"]


def _case(seed=0, n=400, k=3, s=6):
    rng = np.random.default_rng(seed)
    gold = rng.choice(k, n, p=[0.6, 0.3, 0.1] if k == 3 else None)
    pred = np.where(rng.random((s, n)) < np.linspace(0.4, 0.9, s)[:, None], gold, rng.integers(0, k, (s, n)))
    return gold, pred, k


@pytest.mark.parametrize("mode", S.NOISE_MODES)
def test_noisy_confusion_is_the_confusion_of_the_noisy_gold(mode):
    gold, pred, k = _case(k=4)
    eng = SubsetConfusion(gold, pred, k)
    c = S.noisy_confusion(eng, RATES, np.arange(5), 11, mode)
    for ri, rate in enumerate(RATES):
        noisy = S.noisy_labels(gold, k, rate, np.arange(5), 11, mode)
        for r in range(5):
            assert (noisy[r] != gold).sum() == round(rate * gold.size)
            want = np.stack([confusion_tensor(noisy[r], p, k) for p in pred])
            assert np.array_equal(c[ri, r], want)


def test_flips_go_where_the_mode_says_and_are_nested():
    gold, _, k = _case(k=5, n=3000)
    uni = S.noisy_labels(gold, k, 0.3, np.arange(4), 3, "uniform")
    nb = S.noisy_labels(gold, k, 0.3, np.arange(4), 3, "neighbour")
    moved = uni != gold[None]
    assert moved.sum(axis=1).tolist() == [900] * 4  # every flip changes the class
    assert (np.abs(nb - gold[None])[nb != gold[None]] == 1).all()  # neighbours only
    # uniform: the K-1 other classes about equally often
    share = np.bincount(((uni - gold[None]) % k)[moved], minlength=k)[1:] / moved.sum()
    assert np.allclose(share, 1 / (k - 1), atol=0.03)
    # common random numbers: the flips of a lower rate are among those of a higher one
    low = S.noisy_labels(gold, k, 0.1, np.arange(4), 3, "uniform") != gold[None]
    assert (moved | ~low).all()
    # and the draws are the seed's: another seed, other flips
    assert not np.array_equal(uni, S.noisy_labels(gold, k, 0.3, np.arange(4), 4, "uniform"))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.integers(1, 60), st.integers(1, 1000), st.integers(0, 2**32 - 1), st.data())
def test_partial_flip_ranks_equal_the_stable_sort(r, n, key_range, seed, data):
    """The ranks of the ``upto`` smallest keys (the flips of every rate up to
    the largest) equal those of a stable sort of the whole row, ties (a small
    key range) broken by the index, and the rest stay out of every flip."""
    keys = np.random.default_rng(seed).integers(0, key_range, (r, n)).astype(np.uint64)
    upto = data.draw(st.integers(0, n))
    full = np.empty((r, n), dtype=np.int64)
    np.put_along_axis(full, np.argsort(keys, axis=1, kind="stable"), np.arange(n)[None, :].repeat(r, 0), axis=1)
    got = S._flip_rank(keys, upto)
    for m in range(upto + 1):
        assert np.array_equal(got < m, full < m)
    assert np.array_equal(np.where(full < upto, full, n), got)


def test_noise_taus_equal_scipy_on_rebuilt_golds():
    gold, pred, k = _case(seed=2)
    params = {}
    df = S.noise_sensitivity(gold, pred, k, IDS, params, rates=RATES, repeats=12, seed=5, mode="uniform")
    clean = {m: M.evaluate(np.stack([confusion_tensor(gold, p, k) for p in pred]), [m])[m] for m in IDS}
    for ri, rate in enumerate(RATES):
        noisy = S.noisy_labels(gold, k, rate, np.arange(12), 5, "uniform")
        for m in IDS:
            hib = M.get(m).higher_is_better
            taus, kept = [], []
            for g in noisy:
                sc = M.evaluate(np.stack([confusion_tensor(g, p, k) for p in pred]), [m])[m]
                taus.append(kendalltau(orient(clean[m], hib), orient(sc, hib)).statistic)
                best_clean = orient(clean[m], hib) == orient(clean[m], hib).max()
                kept.append((best_clean & (orient(sc, hib) == orient(sc, hib).max())).any())
            row = df[(df["metric"] == m) & (df["rate"] == rate)].iloc[0]
            assert row["mean_tau"] == pytest.approx(np.nanmean(taus), abs=1e-12)
            assert row["winner_kept"] == pytest.approx(np.mean(kept))


def test_results_do_not_depend_on_the_chunking():
    gold, pred, k = _case(seed=3)
    a = S.noise_sensitivity(gold, pred, k, IDS, {}, rates=RATES, repeats=20, seed=9, chunk_size=3)
    b = S.noise_sensitivity(gold, pred, k, IDS, {}, rates=RATES, repeats=20, seed=9, chunk_size=200)
    assert a.equals(b)


@pytest.mark.parametrize("grouped", [False, True])
def test_power_under_noise_equals_a_tukey_test_on_the_whole_noisy_gold(grouped):
    """The experiment permutes only the flipped items' counts; a plain Tukey
    test on the rebuilt noisy gold must give the same power."""
    gold, pred, k = _case(seed=4, n=300)
    units = np.random.default_rng(0).integers(0, 40, gold.size) if grouped else None
    df = S.noise_sensitivity(gold, pred, k, IDS, {}, rates=RATES, repeats=3, seed=7, power_repeats=2,
                             tukey_trials=200, tukey_seed=13, alpha=0.05, units=units, chunk_size=64)

    def power(g):
        trials = np.arange(200)
        perm = permuted_confusion(g, pred, k, trials, 13, units)
        value = np.stack([M.evaluate(np.stack([confusion_tensor(g, p, k) for p in pred]), [m])[m] for m in IDS])
        permuted = np.stack([M.evaluate(perm, [m])[m] for m in IDS], axis=1)
        return discriminative_power(IDS, value, tukey_pvalues(value, permuted), 0.05)["discriminative_power"]

    clean = power(gold).to_numpy()
    golds = S.noisy_labels(gold, k, max(RATES), np.arange(2), 7, "uniform")
    want = np.mean([power(g).to_numpy() for g in golds], axis=0)
    got = df[df["rate"] == max(RATES)].set_index("metric").loc[IDS]
    assert np.allclose(got["power_noisy"], want, atol=1e-12)
    assert np.allclose(df.set_index("metric").loc[IDS, "power_clean"].groupby(level=0, sort=False).first(), clean)
    assert df.loc[df["rate"] < max(RATES), "power_noisy"].isna().all()  # measured at the highest rate only
    # the significance experiment's trials, handed over, give the same numbers
    perm = permuted_confusion(gold, pred, k, np.arange(200), 13, units)
    again = S.noise_sensitivity(gold, pred, k, IDS, {}, rates=RATES, repeats=3, seed=7, power_repeats=2,
                                tukey_trials=200, tukey_seed=13, alpha=0.05, units=units, chunk_size=64,
                                permuted_clean=perm, power_clean=clean)
    assert again.equals(df)


def test_prior_weights_reach_the_target_distribution():
    n = np.array([60.0, 30.0, 0.0, 10.0])
    for gamma in (0.0, 0.5, 1.0, 2.0):
        w = S.prior_weights(n, [gamma])[0]
        shifted = n * w
        pi = n[n > 0] / n.sum()
        want = pi ** gamma / (pi ** gamma).sum()
        assert shifted.sum() == pytest.approx(n.sum())  # N is kept
        assert shifted[2] == 0  # an absent class stays absent
        assert np.allclose(shifted[n > 0] / n.sum(), want)
    assert np.allclose(S.prior_weights(n, [1.0])[0][n > 0], 1.0)


def test_recall_based_metrics_do_not_move_under_prior_shifts():
    gold, pred, k = _case(seed=6)
    # two more systems: always the majority class 0 (accuracy 0.6, R^M 1/3), and one right on classes
    # 1 and 2 but on a fifth of class 0 only (accuracy about 0.52, R^M about 0.73)
    right = np.where((gold != 0) | (np.arange(gold.size) % 5 == 0), gold, 1)
    pred = np.vstack([pred, np.zeros_like(gold), right])
    c = np.stack([confusion_tensor(gold, p, k) for p in pred])
    df = S.prior_sensitivity(c, IDS, {}, [0.0, 0.5, 1.0, 3.0], ["a", "b", "c"])
    # per-class recall R_j = c_jj / c_.j does not change when column j is scaled
    for m in ("macro_recall", "gmr", "mae_macro"):
        assert (df.loc[df["metric"] == m, "tau"] == 1.0).all(), m
    assert (df.loc[df["gamma"] == 1.0, "tau"] == 1.0).all()  # gamma 1: the test set itself
    # accuracy weighs classes by their size: balancing the classes reorders these systems
    assert df.loc[(df["metric"] == "accuracy") & (df["gamma"] == 0.0), "tau"].iloc[0] < 1.0
    bal = df[(df["metric"] == "accuracy") & (df["gamma"] == 0.0)].iloc[0]
    assert bal["majority_share"] == pytest.approx(1 / 3)
    # balanced accuracy is accuracy on the balanced re-weighting
    w = S.prior_weights(c[0].sum(axis=0), [0.0])[0]
    assert np.allclose(M.accuracy(c * w[None, None, :]), M.macro_recall(c))


def test_bad_settings_are_refused():
    gold, pred, k = _case()
    with pytest.raises(ValueError, match="rates"):
        S.noise_sensitivity(gold, pred, k, IDS, {}, rates=(1.5,), repeats=2, seed=1)
    with pytest.raises(ValueError, match="mode"):
        S.noisy_labels(gold, k, 0.1, [0], 1, "sideways")


# -- issue 18: faults the suite let through -------------------------------------------------------
def test_the_number_of_flips_is_rounded_not_truncated():
    """Catches the number of flipped labels truncated instead of rounded (0.29 x 100: 29, not 28)."""
    assert 0.29 * 100 < 29 and 0.57 * 100 < 57  # in floating point: truncation would give 28 and 56
    gold = np.arange(100) % 3
    pred = np.vstack([gold, (gold + 1) % 3, np.zeros(100, dtype=np.int64)])
    for rate, want in ((0.29, 29), (0.57, 57)):
        noisy = S.noisy_labels(gold, 3, rate, np.arange(6), 2, "uniform")
        assert (noisy != gold[None]).sum(axis=1).tolist() == [want] * 6
        c = S.noisy_confusion(SubsetConfusion(gold, pred, 3), [rate], np.arange(6), 2, "uniform")
        # the perfect system's noisy matrix has exactly `want` items off the diagonal
        off = c[0, :, 0].sum(axis=(-2, -1)) - np.trace(c[0, :, 0], axis1=-2, axis2=-1)
        assert off.tolist() == [want] * 6
    df = S.noise_sensitivity(gold, pred, 3, ["accuracy"], {}, rates=(0.29, 0.57), repeats=2, seed=2)
    assert df["flipped"].tolist() == [29, 57]


def test_class_priors_are_shifted_from_the_gold_counts():
    """Catches the class priors taken from a system's predicted marginal instead of the gold counts."""
    # gold counts a: 6, b: 3, c: 1; no system predicts with the gold's marginal
    gold = np.array([0] * 6 + [1] * 3 + [2])
    pred = np.array([[0] * 10,                              # predicted 10, 0, 0
                     [0, 0, 0, 0, 1, 1, 1, 1, 2, 2],        # 4, 4, 2
                     [0, 0, 0, 2, 2, 2, 1, 1, 1, 1]])       # 3, 4, 3
    c = np.stack([confusion_tensor(gold, p, 3) for p in pred])
    df = S.prior_sensitivity(c, ["accuracy", "macro_recall"], {}, [0.0, 1.0, 2.0], ["a", "b", "c"])
    acc = df[df["metric"] == "accuracy"].set_index("gamma")
    # by hand: pi = (0.6, 0.3, 0.1); pi^2 = (0.36, 0.09, 0.01) / 0.46
    assert acc.loc[0.0, "distribution"] == "a:0.333 b:0.333 c:0.333"
    assert acc.loc[1.0, "distribution"] == "a:0.600 b:0.300 c:0.100"
    assert acc.loc[2.0, "distribution"] == "a:0.783 b:0.196 c:0.022"
    assert acc.loc[[0.0, 1.0, 2.0], "majority_share"].tolist() == pytest.approx([1 / 3, 0.6, 0.36 / 0.46])
    # balanced (gamma 0) accuracy is the mean recall over the gold classes: the tau between the original
    # accuracies and the mean recalls, computed by a plain loop
    accs, recalls = [], []
    for p in pred:
        accs.append(np.mean(p == gold))
        recalls.append(np.mean([np.mean(p[gold == j] == j) for j in range(3)]))
    assert acc.loc[0.0, "tau"] == pytest.approx(kendalltau(accs, recalls).statistic)


# ---------------------------------------------------------------- small rules, each pinned
def test_the_noisy_golds_of_a_seed_are_the_published_ones():
    gold = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]
    assert S.noisy_labels(gold, 3, 0.3, [0, 1], 5).tolist() == [[0, 1, 0, 2, 1, 2, 0, 1, 2, 1],
                                                                 [1, 1, 2, 0, 1, 1, 0, 1, 2, 2]]
    assert S.noisy_labels(gold, 3, 0.3, [0], 5, mode="neighbour").tolist() == [[0, 1, 1, 1, 1, 2, 0, 1, 2, 1]]
    assert np.array_equal(S.noisy_labels(gold, 3, 0.3, [0, 1], 5, "uniform"), S.noisy_labels(gold, 3, 0.3, [0, 1], 5))


def test_exactly_the_rounded_share_is_flipped_and_two_classes_suffice():
    gold = np.arange(40) % 2
    for rate in (0.0, 0.1, 0.5, 1.0):
        noisy = S.noisy_labels(gold, 2, rate, range(6), 3)
        assert ((noisy != gold).sum(axis=1) == round(rate * 40)).all()
    for k in (0, 1):
        with pytest.raises(ValueError, match="^label noise needs at least two classes$"):
            S.noisy_labels([0, 0], k, 0.1, [0], 1)
    with pytest.raises(ValueError) as e:
        S.noisy_labels(gold, 2, 1.5, [0], 1)
    assert str(e.value) == "noise rates must lie in [0, 1], got [1.5]"
    with pytest.raises(ValueError, match=r"got \[-0\.1\]"):
        S.noisy_labels(gold, 2, -0.1, [0], 1)


def test_a_neighbour_flip_of_an_end_class_goes_inwards():
    k, n = 4, 400
    gold = np.arange(n) % k
    new = S._new_class(gold, np.random.default_rng(0).random((3, n)), k, "neighbour")
    assert (np.abs(new - gold[None, :]) == 1).all()
    assert (new[:, gold == 0] == 1).all() and (new[:, gold == k - 1] == k - 2).all()
    inner = new[:, gold == 1]
    assert (inner == 0).any() and (inner == 2).any()  # both neighbours of an inner class
    u = np.full((1, 4), 0.5)  # u = 0.5 steps up
    assert S._new_class(np.array([1, 1, 2, 2]), u, k, "neighbour").tolist() == [[2, 2, 3, 3]]
    with pytest.raises(ValueError, match="noise mode must be one of"):
        S._new_class(gold, u, k, "sideways")


def test_the_summary_of_taus():
    t = S._tau_summary(np.array([0.5, np.nan, 0.7, 0.9]))
    assert list(t) == ["mean_tau", "sd_tau", "q025", "q975", "n_undefined"]
    assert t["mean_tau"] == pytest.approx(0.7) and t["sd_tau"] == pytest.approx(0.2)  # ddof 1
    assert t["q025"] == pytest.approx(np.quantile([0.5, 0.7, 0.9], 0.025))
    assert t["q975"] == pytest.approx(np.quantile([0.5, 0.7, 0.9], 0.975)) and t["n_undefined"] == 1
    one = S._tau_summary(np.array([0.4, np.nan]))
    assert one["mean_tau"] == 0.4 and np.isnan(one["sd_tau"]) and one["q025"] == one["q975"] == 0.4
    none = S._tau_summary(np.array([np.nan, np.nan]))
    assert all(np.isnan(none[x]) for x in ("mean_tau", "sd_tau", "q025", "q975")) and none["n_undefined"] == 2


def test_prior_weights_of_many_golds_at_once():
    golds = np.array([[6, 3, 1], [2, 0, 8], [5, 5, 5]])
    gammas = [0.0, 0.5, 1.0, 2.0]
    got = S.prior_weights(golds, gammas)
    assert got.shape == (3, 4, 3)
    for b, g in enumerate(golds):
        assert np.allclose(got[b], S.prior_weights(g, gammas))
    w = S.prior_weights([2, 0, 8], gammas)
    assert (w[:, 1] == 0).all()  # a class absent from the gold keeps weight 0
    assert np.allclose((w * [2, 0, 8]).sum(axis=1), 10)  # the weighted items still number N
    assert np.allclose(w[2], 1.0 * np.array([1, 0, 1]))  # gamma 1: the gold's own prior


def test_prior_sensitivity_with_a_parameter_and_both_taus():
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 3, 200)
    preds = np.where(rng.random((6, 200)) < 0.6, gold, rng.integers(0, 3, (6, 200)))
    preds[5] = preds[4]  # two systems alike: ties, so tau-a and tau-b differ
    c = confusion_tensor(gold, preds, 3)
    params = {"weights": [0.2, 0.3, 0.5]}
    b = S.prior_sensitivity(c, ["accuracy", "wauc", "mae_macro"], params, [0.0, 2.0], ["x", "y", "z"])
    a = S.prior_sensitivity(c, ["accuracy", "wauc", "mae_macro"], params, [0.0, 2.0], ["x", "y", "z"], "a")
    assert b["metric"].tolist() == ["accuracy"] * 2 + ["wauc"] * 2 + ["mae_macro"] * 2
    assert (a["tau"] < b["tau"]).all()  # the tied pair counts in tau-a's denominator only
    w = S.prior_weights(c[0].sum(axis=0), [0.0, 2.0])
    for gi in range(2):
        shifted = c * w[gi][None, None, :]
        for mid in ("accuracy", "wauc", "mae_macro"):
            x = orient(M.get(mid)(c, **params), M.get(mid).higher_is_better)
            y = orient(M.get(mid)(shifted, **params), M.get(mid).higher_is_better)
            row = b[(b["metric"] == mid) & (b["gamma"] == [0.0, 2.0][gi])].iloc[0]
            assert row["tau"] == pytest.approx(kendalltau(x, y).statistic, nan_ok=True)


@pytest.mark.parametrize("ordinal,mode,want", [(True, "auto", "neighbour"), (False, "auto", "uniform"),
                                               (True, "uniform", "uniform")])
def test_dataset_sensitivity_passes_every_setting_on(ordinal, mode, want):
    from metaeval.api import dataset
    from metaeval.methods.scorer import select_systems
    from metaeval.methods.experiments import Settings

    rng = np.random.default_rng(8)
    labels = ["lo", "mid", "hi"]
    gold = rng.choice(labels, 90)
    systems = {f"s{i}": np.where(rng.random(90) < 0.5 + 0.05 * i, gold, rng.choice(labels, 90)) for i in range(5)}
    ds, spec = dataset(list(gold), {k: list(v) for k, v in systems.items()}, labels=labels, ordinal=ordinal,
                       groups=[f"g{i % 9}" for i in range(90)], baselines=["majority", "random"],
                       metrics=["accuracy", "macro_f1", "wauc"] + (["mae_macro"] if ordinal else []),
                       weights={"lo": 0.2, "mid": 0.3, "hi": 0.5})
    st = Settings.from_config({"noise_mode": mode, "noise_rates": [0.1, 0.2], "noise_repeats": 4, "noise_seed": 7,
                               "tau_variant": "a", "noise_power_repeats": 2, "tukey_trials": 60, "tukey_seed": 3,
                               "alpha": 0.1, "resample_unit": "group", "include_baselines": ["majority"],
                               "prior_gammas": [0.0, 2.0], "chunk_size": 3})
    noise, priors = S.dataset_sensitivity(ds, spec, st)
    sel = select_systems(ds, ["majority"])
    assert len(sel) == 6
    ids, params = list(spec.metrics), spec.metric_params()
    want_noise = S.noise_sensitivity(ds.gold, ds.predictions[sel], 3, ids, params, rates=[0.1, 0.2], repeats=4,
                                     seed=7, mode=want, tau_variant="a", power_repeats=2, tukey_trials=60,
                                     tukey_seed=3, alpha=0.1, units=ds.groups, chunk_size=3)
    want_priors = S.prior_sensitivity(ds.confusion()[sel], ids, params, [0.0, 2.0], labels, "a")
    assert noise.equals(want_noise) and priors.equals(want_priors)
    other = S.noise_sensitivity(ds.gold, ds.predictions[sel], 3, ids, params, rates=[0.1, 0.2], repeats=4, seed=7,
                                mode="neighbour" if want == "uniform" else "uniform", tau_variant="a",
                                power_repeats=2, tukey_trials=60, tukey_seed=3, alpha=0.1, units=ds.groups,
                                chunk_size=3)
    assert not noise.equals(other)  # the mode matters on these data
