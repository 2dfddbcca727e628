"""The criteria of the recommendation with their resamples (metaeval.verdict.criteria):
every replicate against a plain loop over the same draws (items and systems
resampled, half-splits of the distinct items, noisy golds, re-weighted
priors, merged classes, the z-tests of the power) with scikit-learn's
metrics and scipy's Kendall tau; the point values against the experiments'
own numbers; and statistical sanity on data with a known truth."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from scipy.stats import kendalltau, norm
from sklearn import metrics as skm

from metaeval.verdict import criteria as CR
from metaeval.verdict.criteria import base as CB
from metaeval.verdict.criteria import compute as CC
from metaeval.verdict.criteria.discrimination import _excess
from metaeval.verdict.criteria.noise import noisy_golds
from metaeval.methods.sensitivity import _flip_counts
from metaeval.methods import experiments as E
from metaeval.data.config import DatasetSpec
from metaeval.data.dataset import Dataset
from metaeval.engine.resample import split_masks
from metaeval.methods.sensitivity import _draws, _new_class, prior_weights

from .test_significance import _holm_loop

METRICS = ["accuracy", "macro_f1", "macro_recall", "kappa"]


def _dataset(gold, pred, ordinal=True, groups=None):
    spec = DatasetSpec.from_config("syn", dict(gold="-", predictions=[], labels=["a", "b", "c"], ordinal=ordinal,
                                               metrics=METRICS, baselines=[]))
    ds = Dataset("syn", ("a", "b", "c"), np.arange(gold.size).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(pred.shape[0])), ("system",) * pred.shape[0], pred.astype(np.int8),
                 groups=None if groups is None else groups.astype(np.int16),
                 group_names=() if groups is None else tuple(map(str, range(groups.max() + 1))))
    return spec, ds


def _noisy(rng, gold, acc, k=3):
    return np.where(rng.random(gold.size) < acc, gold, rng.integers(0, k, gold.size))


def _score(mid, g, p, w):
    """scikit-learn's metric on items with weights (a weight is how many times an item counts)."""
    keep = w > 0
    g, p, w = g[keep], p[keep], w[keep]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if mid == "accuracy":
            return skm.accuracy_score(g, p, sample_weight=w)
        if mid == "macro_f1":
            return skm.f1_score(g, p, labels=[0, 1, 2], average="macro", sample_weight=w, zero_division=0)
        if mid == "macro_recall":
            present = [c for c in range(3) if w[g == c].sum() > 0]
            return skm.recall_score(g, p, labels=present, average="macro", sample_weight=w, zero_division=0)
        if mid == "kappa":
            return skm.cohen_kappa_score(g, p, labels=[0, 1, 2], sample_weight=w)
    raise KeyError(mid)


def _tau(x, y):
    """scipy's tau-b of the rankings of systems listed with repeats; NaN when undefined."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kendalltau(x, y).statistic


def _scores(g, pred, w, systems):
    """(M, S) scores of the drawn systems, rounded as the engine ranks them."""
    return np.array([[np.round(_score(m, g, pred[s], w), 12) for s in systems] for m in METRICS])


def _merged_scores(gold, pred, w, systems, pair):
    """(M, S) scikit-learn's metrics of the two-class task with the classes of pair merged: relabel c as a,
    then renumber (a < c)."""
    a, c = pair

    def mg(x):
        y = np.where(x == c, a, x)
        return np.where(y > c, y - 1, y)

    gm, pm = mg(gold), np.array([mg(p) for p in pred])
    keep = w > 0
    sc = []
    for mid in METRICS:
        row = []
        for s in systems:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                if mid == "accuracy":
                    v = skm.accuracy_score(gm[keep], pm[s][keep], sample_weight=w[keep])
                elif mid == "macro_f1":
                    v = skm.f1_score(gm[keep], pm[s][keep], labels=[0, 1], average="macro",
                                     sample_weight=w[keep], zero_division=0)
                elif mid == "macro_recall":
                    v = skm.recall_score(gm[keep], pm[s][keep], labels=[0, 1], average="macro",
                                         sample_weight=w[keep], zero_division=0)
                else:
                    v = skm.cohen_kappa_score(gm[keep], pm[s][keep], labels=[0, 1], sample_weight=w[keep])
            row.append(np.round(v, 12))
        sc.append(row)
    return sc


def _loop(gold, pred, spec: CR.CriteriaSpec, b: int, scheme="both"):
    """Replicate b of every criterion, computed item by item: the same draws, scikit-learn and scipy."""
    n, s_all = gold.size, pred.shape[0]
    systems = CR.system_draws(s_all, [b], spec.seed)[0] if scheme == "both" else np.arange(s_all)
    w = CR.unit_draws(n, [b], spec.seed)[0].astype(float)
    masks = split_masks(n, b * spec.inner_splits + np.arange(spec.inner_splits), spec.seed,
                        stream="criteria_split")
    rank, u01 = _draws(n, [b], spec.seed, ("criteria_noise", "criteria_noise_class"))
    full = _scores(gold, pred, w, systems)
    out = {}
    taus = [[_tau(_scores(gold, pred, w * m, systems)[i], _scores(gold, pred, w * ~m, systems)[i])
             for i in range(len(METRICS))] for m in masks]
    out["stability"] = np.nanmean(np.array(taus, dtype=float), axis=0)
    merged = [[_tau(full[i], sc[i]) for i in range(len(METRICS))]
              for sc in (_merged_scores(gold, pred, w, systems, pair) for pair in spec.merge_pairs)]
    if merged:
        out["discrimination"] = np.maximum(out["stability"] - np.nanmean(np.array(merged, dtype=float), axis=0), 0)
    new = _new_class(gold, u01, 3, spec.noise_mode)[0]
    nt = []
    for rate in spec.noise_rates:
        m = int(np.rint(rate * n))
        noisy = np.where(rank[0] < m, new, gold)
        nt.append([_tau(full[i], _scores(noisy, pred, w, systems)[i]) for i in range(len(METRICS))])
    out["noise"] = np.nanmean(np.array(nt, dtype=float), axis=0)
    counts = np.array([w[gold == c].sum() for c in range(3)])
    pt = []
    for wk in prior_weights(counts, spec.prior_gammas):
        pt.append([_tau(full[i], _scores(gold, pred, w * wk[gold], systems)[i]) for i in range(len(METRICS))])
    out["priors"] = np.nanmean(np.array(pt, dtype=float), axis=0)
    return out, systems, w


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(7)
    gold = rng.choice(3, 48, p=[0.6, 0.3, 0.1])
    pred = np.stack([_noisy(rng, gold, a) for a in (0.95, 0.85, 0.8, 0.7, 0.6, 0.5, 0.35)])
    spec_d, ds = _dataset(gold, pred)
    spec = CR.CriteriaSpec(criteria=("stability", "discrimination", "power", "noise", "priors"), replicates=12,
                           inner_splits=3, seed=99, point_splits=40, split_seed=5, noise_rates=(0.05, 0.2),
                           noise_mode="neighbour", noise_repeats=3, noise_seed=8, prior_gammas=(0.0, 2.0),
                           merge_pairs=CR.adjacent_pairs(3), chunk_size=5)
    scorer = E.Scorer(ds, spec_d, np.arange(pred.shape[0]), "item")
    return gold, pred, spec, scorer


# the first replicate in the quick tier, the other eleven with the slow tests
@pytest.mark.parametrize("scheme,first", [("both", 0), ("items", 0),
                                          pytest.param("both", 1, marks=pytest.mark.slow),
                                          pytest.param("items", 1, marks=pytest.mark.slow)])
def test_every_replicate_equals_a_plain_loop_over_the_same_draws(small, scheme, first):
    """Each criterion's replicates (units and systems drawn with replacement,
    half-splits of the distinct units, a noisy gold per rate, each resample's
    own priors, adjacent merges) equal scikit-learn and scipy item by item;
    and the intervals are the percentiles of those replicates."""
    gold, pred, spec, scorer = small
    res = CR.criteria(scorer, spec, schemes=(scheme,))[scheme, "all"]
    crit = res.criteria
    shown = range(first, spec.replicates if first else 1)
    loops = {b: _loop(gold, pred, spec, b, scheme) for b in shown}
    for c in ("stability", "discrimination", "noise", "priors"):
        want = np.array([loops[b][0][c] for b in shown])
        np.testing.assert_allclose(res.boot[list(shown), crit.index(c)], want, atol=1e-12, rtol=0, err_msg=c)
    # the power: z-tests with the pair's standard error over the item resamples, Holm over the drawn pairs
    items = [CR.unit_draws(gold.size, [b], spec.seed)[0].astype(float) for b in range(spec.replicates)]
    every = np.arange(pred.shape[0])
    per_b = np.array([_scores(gold, pred, w, every) for w in items])  # (B, M, S)
    pairs = [(a, c) for a in every for c in every if a < c]
    se = {(a, c): np.std(per_b[:, :, a] - per_b[:, :, c], axis=0, ddof=1) for a, c in pairs}
    base = np.array([_scores(gold, pred, items[b], every) for b in range(spec.replicates)])
    for b, (_, systems, _) in loops.items():
        k = np.bincount(systems, minlength=pred.shape[0])
        drawn = [(a, c) for a, c in pairs if k[a] and k[c]]
        for i in range(len(METRICS)):
            p = []
            for a, c in drawn:
                d = base[b, i, a] - base[b, i, c]
                s = se[(a, c)][i]
                p.append(2 * norm.sf(abs(d) / s) if s > 0 else (1.0 if d == 0 else 0.0))
            adj = _holm_loop(p)
            num = sum(k[a] * k[c] for (a, c), q in zip(drawn, adj) if q < spec.alpha)
            den = sum(k[a] * k[c] for a, c in drawn)
            assert res.boot[b, crit.index("power"), i] == pytest.approx(num / den, abs=1e-12)
    # the interval: the point value plus the percentiles of the replicates' deviations from their median
    q = np.nanquantile(res.boot - np.nanmedian(res.boot, axis=0), [0.025, 0.975], axis=0)
    for c_i, c in enumerate(crit):
        lo, hi = CR.REGISTRY[c].range
        np.testing.assert_allclose(res.low[c_i], np.clip(res.value[c_i] + np.minimum(q[0, c_i], 0), lo, hi),
                                   atol=1e-14, rtol=0)
        np.testing.assert_allclose(res.high[c_i], np.clip(res.value[c_i] + np.maximum(q[1, c_i], 0), lo, hi),
                                   atol=1e-14, rtol=0)


# 230 half-splits: more than one chunk of 200, the later ones computing the stability only
@pytest.mark.parametrize("point_splits", [40, 230])
def test_point_values_equal_the_experiments_own(small, point_splits):
    """The point values use the experiments' splits and noisy golds: the
    stability equals stability_splits', the noise and priors those of the
    sensitivity experiment; the discrimination is the stability over every
    split minus the merged tau."""
    from dataclasses import replace

    from metaeval.methods.sensitivity import noise_sensitivity, prior_sensitivity

    gold, pred, spec, scorer = small
    spec = replace(spec, point_splits=point_splits, replicates=2)
    res = CR.criteria(scorer, spec)["both", "all"]
    spec_d, ds = _dataset(gold, pred)
    st = E.Settings(include_baselines=(), n_splits=spec.point_splits, split_seed=spec.split_seed, chunk_size=7)
    taus = E.stability_splits(ds, spec_d, st, range(spec.point_splits))["tau"]
    np.testing.assert_allclose(res.value[0], np.nanmean(taus, axis=0), atol=1e-13)
    noise = noise_sensitivity(gold, pred, 3, METRICS, spec_d.metric_params(), rates=spec.noise_rates,
                              repeats=spec.noise_repeats, seed=spec.noise_seed, mode="neighbour")
    np.testing.assert_allclose(res.value[res.criteria.index("noise")],
                               noise.groupby("metric", sort=False)["mean_tau"].mean().loc[METRICS], atol=1e-13)
    pri = prior_sensitivity(scorer.eng.total, METRICS, spec_d.metric_params(), spec.prior_gammas, ("a", "b", "c"))
    np.testing.assert_allclose(res.value[res.criteria.index("priors")],
                               pri.groupby("metric", sort=False)["tau"].mean().loc[METRICS], atol=1e-13)
    # discrimination: the stability over all the splits minus the mean tau between the ranking and the merged ones
    every, ones = np.arange(pred.shape[0]), np.ones(gold.size)
    full = _scores(gold, pred, ones, every)
    merge = [[_tau(full[i], sc[i]) for i in range(len(METRICS))]
             for sc in (_merged_scores(gold, pred, ones, every, pair) for pair in spec.merge_pairs)]
    np.testing.assert_allclose(res.value[res.criteria.index("discrimination")],
                               np.maximum(np.nanmean(taus, axis=0) - np.nanmean(merge, axis=0), 0), atol=1e-12)


def test_subsets_share_the_draws_and_a_subset_equals_its_own_scorer(small):
    """Systems left out of a subset (the baselines) change nothing but the
    systems drawn: the subset's criteria equal those of a scorer of that
    subset alone."""
    gold, pred, spec, scorer = small
    keep = np.array([0, 2, 3, 5, 6])
    both = CR.criteria(scorer, spec, subsets={"all": np.arange(7), "some": keep}, schemes=("both", "items"))
    spec_d, ds = _dataset(gold, pred[keep])
    alone = CR.criteria(E.Scorer(ds, spec_d, np.arange(keep.size), "item"), spec, schemes=("both", "items"))
    for scheme in ("both", "items"):
        np.testing.assert_allclose(both[scheme, "some"].value, alone[scheme, "all"].value, atol=1e-12)
        np.testing.assert_allclose(both[scheme, "some"].boot, alone[scheme, "all"].boot, atol=1e-12, equal_nan=True)
    # asked together or alone, a scheme's resamples are the same
    one = CR.criteria(scorer, spec, schemes=("items",))["items", "all"]
    np.testing.assert_allclose(one.boot, both["items", "all"].boot, atol=0, equal_nan=True)
    assert (one.system_draws == np.arange(7)).all()


def test_a_metric_against_itself_has_zero_paired_se_and_others_do_not(small):
    """METHODS.md's check: m1 == m2 gives D_b = 0 in every resample."""
    gold, pred, spec, scorer = small
    res = CR.criteria(scorer, spec)["both", "all"]
    se = res.paired_se()
    for c in range(len(res.criteria)):
        assert np.all(np.diag(se[c]) == 0)
        assert np.allclose(se[c], se[c].T, equal_nan=True)
    assert np.nanmax(se[0]) > 0


def test_random_systems_give_no_stability_and_little_power():
    """Systems that guess at random: every metric's stability is near 0 and
    few pairs are told apart; systems of very different quality: stability
    near 1 and most pairs told apart."""
    rng = np.random.default_rng(11)
    gold = rng.integers(0, 3, 600)
    pred = rng.integers(0, 3, (10, 600))
    spec_d, ds = _dataset(gold, pred)
    spec = CR.CriteriaSpec(criteria=("stability", "power"), replicates=50, inner_splits=10, point_splits=200)
    res = CR.criteria(E.Scorer(ds, spec_d, np.arange(10), "item"), spec)["both", "all"]
    assert np.all(np.abs(res.value[0]) < 0.15)
    assert np.all(res.value[1] < 0.2)
    assert np.all((res.low[0] < 0.05) & (res.high[0] > -0.05))  # the interval covers 0
    good = np.stack([_noisy(rng, gold, a) for a in np.linspace(0.95, 0.3, 10)])
    spec_d, ds = _dataset(gold, good)
    res = CR.criteria(E.Scorer(ds, spec_d, np.arange(10), "item"), spec)["both", "all"]
    assert np.all(res.value[0] > 0.8) and np.all(res.value[1] > 0.7)


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=2, max_size=9), st.integers(0, 2**31))
def test_tau_b_with_repeated_systems_is_the_pair_weighted_tau_b(draw, seed):
    """A ranking that lists a system k times: tau-b equals the tau-b over the
    pairs of distinct systems, each weighted by the product of their counts
    (METHODS.md 1.4), the weighting the criteria rely on."""
    from metaeval.engine.ranking import kendall_tau

    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 4, 6).astype(float), rng.integers(0, 4, 6).astype(float)
    d = np.array(draw)
    got = kendall_tau(x[d], y[d])
    k = np.bincount(d, minlength=6)
    num = dx = dy = 0.0
    for a in range(6):
        for c in range(a + 1, 6):
            wt = k[a] * k[c]
            sx, sy = np.sign(x[a] - x[c]), np.sign(y[a] - y[c])
            num += wt * sx * sy
            dx += wt * abs(sx)
            dy += wt * abs(sy)
    want = num / np.sqrt(dx * dy) if dx * dy > 0 else np.nan
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)


def test_class_discrimination_gives_a_random_ranking_no_credit():
    """A ranking that merging moves no more than the metric's own noise moves
    it scores 0, the floor: systems that guess at random (both taus near 0)
    never beat systems whose ranking a merge of two neighbouring classes
    really moves."""
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 3, 900)
    spec = CR.CriteriaSpec(criteria=("stability", "discrimination"), replicates=20, inner_splits=5, point_splits=100,
                           merge_pairs=CR.adjacent_pairs(3))
    rand = rng.integers(0, 3, (8, 900))
    spec_d, ds = _dataset(gold, rand)
    res = CR.criteria(E.Scorer(ds, spec_d, np.arange(8), "item"), spec)["both", "all"]
    assert np.all(res.value[1] >= 0) and np.all(res.boot[:, 1][~np.isnan(res.boot[:, 1])] >= 0)
    # systems that confuse 0 with 1 and 1 with 2 at independent rates: each merge leaves the ranking by the other
    # confusion alone, far from the ranking by both, which half-splits of 900 items keep
    q, r = rng.permutation(np.linspace(0.05, 0.6, 8)), rng.permutation(np.linspace(0.05, 0.6, 8))
    u = rng.random((8, 900))
    good = np.where((gold == 0) & (u < q[:, None]), 1, gold)
    good = np.where((gold == 2) & (u < r[:, None]), 1, good)
    spec_d, ds = _dataset(gold, good)
    sharp = CR.criteria(E.Scorer(ds, spec_d, np.arange(8), "item"), spec)["both", "all"]
    assert np.all(sharp.value[1] > np.nanmax(res.value[1]) + 0.3)


@given(st.integers(0, 2**31 - 1), st.floats(0.0, 0.99), st.floats(0.5, 0.999))
@hsettings(max_examples=60, deadline=None)
def test_the_interval_holds_the_point_value(seed, pile, confidence):
    """However skewed the replicates (a share ``pile`` of them at the end of
    the range, as GMR's noise tau of semeval2020t11_tc, whose interval from
    the mean's deviations was [0.9947, 0.9947] beside a value of 0.9930),
    and with undefined replicates, low <= value <= high, within the range;
    and it is the point value plus the percentiles of the deviations from
    the replicates' median (a plain loop per cell)."""
    rng = np.random.default_rng(seed)
    b, m = 200, 3
    boot = np.where(rng.random((b, 1, m)) < pile, 1.0, rng.uniform(0.5, 1.0, (b, 1, m)))
    boot[rng.random((b, 1, m)) < 0.1] = np.nan
    value = rng.uniform(0.4, 1.0, (1, m))
    r = CR.CriteriaResult([f"m{i}" for i in range(m)], ["noise"], value, boot, "items", confidence)
    assert np.all(r.low <= value) and np.all(value <= r.high)
    assert np.all(r.low >= -1) and np.all(r.high <= 1)
    a = (1 - confidence) / 2
    for i in range(m):
        x = boot[:, 0, i][~np.isnan(boot[:, 0, i])]
        d = x - np.median(x)
        lo = value[0, i] + min(np.quantile(d, a), 0)
        hi = min(value[0, i] + max(np.quantile(d, 1 - a), 0), 1.0)
        assert r.low[0, i] == pytest.approx(max(lo, -1.0), abs=1e-12)
        assert r.high[0, i] == pytest.approx(hi, abs=1e-12)


def test_tau_a_is_rescaled_to_the_pairs_of_distinct_systems_drawn():
    """A resample of systems drawn with replacement repeats some: tau-a's
    denominator counts every pair of slots, so the criteria rescale it by
    n0 / (pairs of slots holding distinct systems); NaN when every slot
    holds the same system."""
    from itertools import combinations

    rng = np.random.default_rng(6)
    draws = rng.integers(0, 5, (40, 6))
    draws[0] = 3  # one system in every slot
    got = CB._tau_a_scale(draws, 5)
    # two slots: one pair of distinct systems (scale 1) or none (NaN)
    np.testing.assert_array_equal(CB._tau_a_scale(np.array([[0, 1], [2, 2]]), 5), [1.0, np.nan])
    for b, row in enumerate(draws):
        distinct = sum(row[i] != row[j] for i, j in combinations(range(6), 2))
        assert got[b] == (pytest.approx(15 / distinct) if distinct else pytest.approx(np.nan, nan_ok=True))
    # applied to tau-a only: tau-b corrects for ties itself
    x, y = rng.normal(size=(2, 3, 6))
    scale = got[:3]
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(CB._tau(x, y, "a", scale), CB.kendall_tau(x, y, "a") * scale)
        np.testing.assert_allclose(CB._tau(x, y, "b", scale), CB.kendall_tau(x, y, "b"))


def test_accuracy_as_per_item_terms_has_accuracy_s_criteria_in_every_replicate(small):
    """The item engine's branches (metaeval.measures.items): accuracy written
    as per-item terms has, replicate by replicate and at the point, the
    confusion engine's accuracy criteria: the same half-splits, merged
    classes (the pair's terms relabelled), noisy golds (each moved item's
    terms taken from its new class) and re-weighted priors."""
    from dataclasses import replace

    from metaeval.measures.items import register_item_metric, unregister_item_metric

    gold, pred, spec, _ = small

    def terms(g, p, items):
        right = (p == g[None, :]).astype(float)
        return np.stack([right, np.ones_like(right)], axis=-1)

    register_item_metric("crit_item_acc", terms, lambda t: t[..., 0] / t[..., 1], range=(0, 1))
    try:
        spec_d, ds = _dataset(gold, pred)
        spec_d = replace(spec_d, item_metrics=("crit_item_acc",))
        scorer = E.Scorer(ds, spec_d, np.arange(pred.shape[0]), "item")
        for scheme in ("both", "items"):
            res = CR.criteria(scorer, spec, schemes=(scheme,))[scheme, "all"]
            a, i = res.metrics.index("accuracy"), res.metrics.index("crit_item_acc")
            np.testing.assert_allclose(res.boot[:, :, i], res.boot[:, :, a], atol=1e-12, equal_nan=True)
            np.testing.assert_allclose(res.value[:, i], res.value[:, a], atol=1e-12)
            # the classification metrics are the scorer's without the item metric
            alone = CR.criteria(E.Scorer(*_dataset(gold, pred)[::-1], np.arange(pred.shape[0]), "item"), spec,
                                schemes=(scheme,))[scheme, "all"]
            np.testing.assert_allclose(res.boot[:, :, :len(METRICS)], alone.boot, atol=0, equal_nan=True)
    finally:
        unregister_item_metric("crit_item_acc")


_SCORE_IDS = ("brier", "log_loss", "roc_auc_weighted")


def _score_task(without_last_class=False):
    """Five systems' probabilities of three classes (of different quality)
    on 60 items, scored by three metrics of scores alone (the gold without
    its last class: those items in class 1)."""
    from metaeval.data.score_data import ScoreView

    rng = np.random.default_rng(3)
    n, s_all, k = 60, 5, 3
    gold = rng.choice(k, n, p=[0.5, 0.3, 0.2]).astype(np.int8)
    if without_last_class:
        gold[gold == 2] = 1
    sharp = np.linspace(0.5, 4.0, s_all)[:, None, None]  # systems of different quality
    logits = sharp * np.eye(k)[gold][None] + rng.normal(size=(s_all, n, k))
    p = np.round(np.exp(logits) / np.exp(logits).sum(-1, keepdims=True), 3)
    p /= p.sum(-1, keepdims=True)
    labels = ("a", "b", "c")
    ds = Dataset("p", labels, np.array([f"i{j}" for j in range(n)]), gold, tuple(f"s{j}" for j in range(s_all)),
                 ("system",) * s_all, p.argmax(-1).astype(np.int8), scores=ScoreView(p, labels))
    # no classification metric: the confusion engine's rows are left empty and the priors read the gold itself
    spec_d = DatasetSpec(name="p", gold="g", predictions=(), labels=labels, metrics=(), score_metrics=_SCORE_IDS)
    return p, gold, E.Scorer(ds, spec_d, np.arange(s_all), "item")


def _merged_probabilities(p, gold, a, c):
    """The task with classes a and c merged: their probabilities added, the
    gold relabelled, the classes above c renumbered."""
    v = p.copy()
    v[:, :, a] += v[:, :, c]
    g = np.where(gold == c, a, gold)
    return np.delete(v, c, axis=2), np.where(g > c, g - 1, g)


def test_every_replicate_of_the_metrics_of_scores_equals_a_loop_over_the_registry():
    """The branches of the metrics of scores (metaeval.measures.scores): each
    replicate's half-splits, merged classes (the pair's probabilities
    added), noisy golds (the gold moved under the systems' scores) and
    re-weighted priors equal one call of the registry per weight vector
    and gold, and scipy's tau."""
    from metaeval.measures.scores.registry import evaluate

    p, gold, scorer = _score_task()
    n, s_all, k = p.shape[1], p.shape[0], p.shape[2]
    ids = _SCORE_IDS
    spec = CR.CriteriaSpec(criteria=("stability", "discrimination", "noise", "priors"), replicates=4,
                           inner_splits=3, seed=21, noise_rates=(0.1, 0.3), noise_mode="uniform",
                           merge_pairs=((0, 1), (1, 2)), chunk_size=3)
    both = CR.criteria(scorer, spec, schemes=("both", "items"))

    def scores(values, y, w, systems):  # (M, S) of the drawn systems, rounded as the engine ranks them
        with np.errstate(all="ignore"):
            out = evaluate(ids, values, y, None, w)
        return np.array([[np.round(out[m][s], 12) for s in systems] for m in ids])

    for scheme in ("both", "items"):
        res = both[scheme, "all"]
        assert res.metrics == list(ids)
        rows = list(range(len(ids)))
        for b in range(spec.replicates):
            systems = CR.system_draws(s_all, [b], spec.seed)[0] if scheme == "both" else np.arange(s_all)
            w = CR.unit_draws(n, [b], spec.seed)[0].astype(float)
            full = scores(p, gold, w, systems)
            masks = split_masks(n, b * spec.inner_splits + np.arange(spec.inner_splits), spec.seed,
                                stream="criteria_split")
            stab = np.nanmean([[_tau(scores(p, gold, w * m_, systems)[i], scores(p, gold, w * ~m_, systems)[i])
                                for i in range(len(ids))] for m_ in masks], axis=0)
            merge = np.nanmean([[_tau(full[i], scores(*_merged_probabilities(p, gold, a, c), w, systems)[i]) for i in range(len(ids))]
                                for a, c in spec.merge_pairs], axis=0)
            rank, u01 = _draws(n, [b], spec.seed, ("criteria_noise", "criteria_noise_class"))
            new = _new_class(gold, u01, k, spec.noise_mode)[0]
            noise = np.nanmean([[_tau(full[i], scores(p, np.where(rank[0] < int(np.rint(r * n)), new, gold), w,
                                                      systems)[i]) for i in range(len(ids))]
                                for r in spec.noise_rates], axis=0)
            counts = np.array([w[gold == j].sum() for j in range(k)])
            priors = np.nanmean([[_tau(full[i], scores(p, gold, w * wk[gold], systems)[i]) for i in range(len(ids))]
                                 for wk in prior_weights(counts, spec.prior_gammas)], axis=0)
            want = {"stability": stab, "discrimination": np.maximum(stab - merge, 0), "noise": noise,
                    "priors": priors}
            for c, v in want.items():
                np.testing.assert_allclose(res.boot[b, res.criteria.index(c), rows], v, atol=1e-12,
                                           err_msg=f"{scheme} {b} {c}")


@pytest.mark.parametrize("kw,message", [
    (dict(criteria=("stability", "beauty")), "unknown criteria ['beauty']; known: stability, discrimination"),
    (dict(criteria=("stability", "discrimination")), "discrimination needs the class pairs to merge"),
    (dict(replicates=1), "replicates must be >= 2, inner_splits and point_splits >= 1"),
    (dict(inner_splits=0), "replicates must be >= 2"),
    (dict(point_splits=0), "replicates must be >= 2")])
def test_a_spec_that_cannot_be_computed_is_refused(kw, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        CR.CriteriaSpec(**kw)
    # the edges are accepted
    CR.CriteriaSpec(replicates=2, inner_splits=1, point_splits=1, criteria=("stability", "discrimination"),
                    merge_pairs=((0, 1),))


def test_the_paired_standard_error_is_a_loop_over_the_replicates_both_define():
    """paired_se: the standard deviation (ddof 1) of Q(m1) - Q(m2) over the
    replicates where both are defined; NaN with fewer than two."""
    rng = np.random.default_rng(4)
    boot = rng.normal(size=(30, 2, 4))
    boot[rng.random(boot.shape) < 0.2] = np.nan
    boot[:, 1, 3] = np.nan
    boot[:29, 1, 2] = np.nan  # one replicate defined
    r = CR.CriteriaResult([f"m{i}" for i in range(4)], ["stability", "noise"], np.zeros((2, 4)), boot, "both")
    se = r.paired_se()
    assert se.shape == (2, 4, 4)
    for c in range(2):
        for a in range(4):
            for b in range(4):
                d = boot[:, c, a] - boot[:, c, b]
                d = d[~np.isnan(d)]
                want = np.std(d, ddof=1) if d.size > 1 else np.nan
                assert se[c, a, b] == pytest.approx(want, abs=1e-12, nan_ok=True), (c, a, b)
    np.testing.assert_array_equal(r.n_undefined, np.isnan(boot).sum(axis=0))


def test_merged_scores_carry_the_parameters_of_the_merged_task():
    """Class discrimination's merged scores: class weights add up, f_avg
    averages the merged classes its classes fall into, a one-class metric
    scores its positive class's merged class, and a custom metric written
    for three classes is undefined (NaN) on two; against scikit-learn and
    hand-merged parameters."""
    from metaeval.measures import labels as M
    from metaeval.measures.custom import register_metric, unregister_metric
    from metaeval.engine.confusion import merge_classes

    rng = np.random.default_rng(12)
    gold = rng.integers(0, 3, 150)
    acc = rng.uniform(0.2, 0.95, (5, 3))
    pred = np.where(rng.random((5, 150)) < acc[:, gold], gold, rng.integers(0, 3, (5, 150)))
    register_metric("crit_k3", lambda c: c[..., 2, 2] / np.maximum(c.sum(axis=(-2, -1)), 1), range=(0, 1), k=3)
    try:
        ids = ["accuracy", "wf1", "f1_class", "f_avg", "crit_k3"]
        spec_d = DatasetSpec.from_config("syn", dict(
            gold="-", predictions=[], labels=["a", "b", "c"], ordinal=True, metrics=ids, baselines=[],
            weights={"w": {"a": 0.5, "b": 0.3, "c": 0.2}}, positive_class="c", f_avg_classes=["a", "c"]))
        ds = Dataset("syn", ("a", "b", "c"), np.arange(150).astype(str), gold.astype(np.int8),
                     tuple(f"s{i}" for i in range(5)), ("system",) * 5, pred.astype(np.int8))
        scorer = E.Scorer(ds, spec_d, np.arange(5), "item")
        eng = CB._Engine(scorer, scorer.params)
        assert sorted(eng.ids) == sorted(ids)
        c = ds.confusion()[None]
        w = np.array([0.5, 0.3, 0.2])
        for pair in [(0, 1), (1, 2), (0, 2)]:
            g = E.merge_groups(3, pair)
            got = eng.merged(c, pair)[0]  # (M, S)
            cm = merge_classes(ds.confusion(), g)
            want = {
                "accuracy": [skm.accuracy_score(g[gold], g[p]) for p in pred],
                "f1_class": [skm.f1_score(g[gold], g[p], labels=[g[2]], average="macro") for p in pred],
                "wf1": M.get("wf1")(cm, weights=np.bincount(g, weights=w)),
                "f_avg": M.get("f_avg")(cm, f_avg_classes=sorted({int(g[0]), int(g[2])})),
            }
            for m, v in want.items():
                np.testing.assert_allclose(got[eng.ids.index(m)], v, atol=1e-12, err_msg=f"{m} {pair}")
            assert np.isnan(got[eng.ids.index("crit_k3")]).all()
        # without a merge the custom metric is defined: its row is the registry's
        np.testing.assert_allclose(eng.cls_oriented(c)[0, eng.ids.index("crit_k3")],
                                   M.get("crit_k3")(ds.confusion()), atol=1e-12)
    finally:
        unregister_metric("crit_k3")


@pytest.mark.parametrize("correction", ["holm", "bh", "none"])
def test_the_power_is_a_loop_over_the_pairs_drawn(correction):
    """pair_power: over the pairs of distinct systems drawn, each weighted by
    the product of their counts, the share a two-sided z-test separates
    after the correction over those pairs (scipy's normal, Holm and BH
    written out); a pair with an undefined score counts but is never
    separated; se 0 separates unequal scores and not equal ones."""
    from scipy.stats import false_discovery_control

    rng = np.random.default_rng(9)
    b, m, s = 6, 2, 5
    full = np.round(rng.normal(size=(b, m, s)), 1)
    full[2, 0, 3] = np.nan
    full[4, 1, 1] = full[4, 1, 2]  # equal scores ...
    pairs = [(a, c) for a in range(s) for c in range(a + 1, s)]
    se = rng.uniform(0.05, 0.6, (m, len(pairs)))
    se[1, pairs.index((1, 2))] = 0.0  # ... with se 0: p = 1
    se[0, pairs.index((0, 4))] = 0.0  # unequal scores with se 0: p = 0
    counts = rng.integers(0, 3, (b, s))
    counts[0] = [1, 0, 0, 0, 0]  # one system drawn: no pair
    counts[2, 3] = counts[4, 1] = counts[4, 2] = counts[3, 0] = counts[3, 4] = 2  # the cases above are drawn
    counts[0, 0] = 1
    got = CR.pair_power(full, se, counts, 0.05, correction)
    for r in range(b):
        for i in range(m):
            drawn = [(a, c) for a, c in pairs if counts[r, a] and counts[r, c]]
            if not drawn:
                assert np.isnan(got[r, i])
                continue
            p, defined = [], []
            for a, c in drawn:
                d, e = full[r, i, a] - full[r, i, c], se[i, pairs.index((a, c))]
                p.append(2 * norm.sf(abs(d) / e) if e > 0 else (1.0 if d == 0 else 0.0))
                defined.append(np.isfinite(d))
            q = np.full(len(drawn), np.nan)
            fam = [j for j in range(len(drawn)) if defined[j]]
            pf = [p[j] for j in fam]
            if fam:
                adj = _holm_loop(pf) if correction == "holm" else \
                    false_discovery_control(pf) if correction == "bh" else pf
                q[fam] = adj
            num = sum(counts[r, a] * counts[r, c] for (a, c), x in zip(drawn, q) if x < 0.05)
            den = sum(counts[r, a] * counts[r, c] for a, c in drawn)
            assert got[r, i] == pytest.approx(num / den, abs=1e-12), (r, i)


def test_adjacent_pairs_are_the_neighbouring_classes():
    assert CR.adjacent_pairs(4) == ((0, 1), (1, 2), (2, 3))
    assert CR.adjacent_pairs(2) == ((0, 1),)


def test_the_means_and_the_pairs_standard_errors_leave_undefined_values_out():
    """_nanmean is numpy's nanmean (NaN where nothing is defined, without a
    warning); _pair_se is the standard deviation (ddof 1) of each pair's
    difference over the replicates that define both scores, NaN below two."""
    from itertools import combinations

    rng = np.random.default_rng(13)
    x = rng.normal(size=(6, 4, 3))
    x[rng.random(x.shape) < 0.3] = np.nan
    x[:, 0, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for axis in (0, 1):
            np.testing.assert_allclose(CB._nanmean(x, axis), np.nanmean(x, axis=axis), atol=1e-14, equal_nan=True)
    full = rng.normal(size=(8, 2, 4))
    full[rng.random(full.shape) < 0.25] = np.nan
    full[:6, 1, 3] = np.nan  # two replicates define system 3 of metric 1 (fewer with the NaNs above)
    full[:, 0, 2] = np.nan
    full[:2, 0, 2] = [0.3, 0.9]
    full[:2, 0, 1] = [0.1, 0.2]
    full[2:, 0, 1] = np.nan  # the pair (1, 2) of metric 0: exactly two replicates
    got = CB._pair_se(full)
    for i in range(2):
        for j, (a, c) in enumerate(combinations(range(4), 2)):
            d = full[:, i, a] - full[:, i, c]
            d = d[~np.isnan(d)]
            want = np.std(d, ddof=1) if d.size > 1 else np.nan
            assert got[i, j] == pytest.approx(want, abs=1e-12, nan_ok=True), (i, a, c)
    assert got[0, list(combinations(range(4), 2)).index((1, 2))] == pytest.approx(np.std([0.2, 0.7], ddof=1))


def test_stratified_half_splits_keep_each_class_in_both_halves(small):
    """strata: each replicate's half-splits are the engine's stratified masks
    of the drawn items (a loop with scikit-learn and scipy over them), and
    differ from the unstratified ones."""
    gold, pred, spec, scorer = small
    from dataclasses import replace

    spec = replace(spec, criteria=("stability",), replicates=3, point_splits=5)
    res = CR.criteria(scorer, spec, schemes=("items",), strata=gold)["items", "all"]
    plain = CR.criteria(scorer, spec, schemes=("items",))["items", "all"]
    assert not np.allclose(res.boot, plain.boot, equal_nan=True)
    every = np.arange(pred.shape[0])
    for b in range(spec.replicates):
        w = CR.unit_draws(gold.size, [b], spec.seed)[0].astype(float)
        masks = split_masks(gold.size, b * spec.inner_splits + np.arange(spec.inner_splits), spec.seed, gold,
                            stream="criteria_split")
        taus = [[_tau(_scores(gold, pred, w * m, every)[i], _scores(gold, pred, w * ~m, every)[i])
                 for i in range(len(METRICS))] for m in masks]
        np.testing.assert_allclose(res.boot[b, 0], np.nanmean(np.array(taus, dtype=float), axis=0), atol=1e-12)


def test_tau_a_replicates_count_the_pairs_of_distinct_systems_drawn(small):
    """tau_variant "a": each replicate's split taus are (concordant -
    discordant) / (pairs of slots holding distinct systems) over the drawn
    systems, a loop over the slots; the point value is the experiments'
    tau-a stability."""
    from dataclasses import replace

    gold, pred, spec, scorer = small
    spec = replace(spec, criteria=("stability",), tau_variant="a", replicates=3, point_splits=10)
    res = CR.criteria(scorer, spec, schemes=("both",))["both", "all"]

    def tau_a(x, y, systems):
        num = den = 0
        for i in range(len(systems)):
            for j in range(i + 1, len(systems)):
                if systems[i] != systems[j]:
                    den += 1
                    num += np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
        return num / den if den else np.nan

    for b in range(spec.replicates):
        systems = CR.system_draws(pred.shape[0], [b], spec.seed)[0]
        assert len(set(systems)) < len(systems)  # repeats: the rescaling matters
        w = CR.unit_draws(gold.size, [b], spec.seed)[0].astype(float)
        masks = split_masks(gold.size, b * spec.inner_splits + np.arange(spec.inner_splits), spec.seed,
                            stream="criteria_split")
        taus = [[tau_a(_scores(gold, pred, w * m, systems)[i], _scores(gold, pred, w * ~m, systems)[i], systems)
                 for i in range(len(METRICS))] for m in masks]
        np.testing.assert_allclose(res.boot[b, 0], np.nanmean(np.array(taus, dtype=float), axis=0), atol=1e-12)
    spec_d, ds = _dataset(gold, pred)
    st = E.Settings(include_baselines=(), n_splits=10, split_seed=spec.split_seed, tau_variant="a")
    np.testing.assert_allclose(res.value[0], np.nanmean(E.stability_splits(ds, spec_d, st, range(10))["tau"], axis=0),
                               atol=1e-13)


def test_schemes_and_a_scorer_without_a_resampling_unit_are_refused(small):
    gold, pred, spec, scorer = small
    for schemes in ((), ("items", "systems")):
        with pytest.raises(ValueError, match=re.escape("schemes must be among 'items', 'both', got")):
            CR.criteria(scorer, spec, schemes=schemes)
    spec_d, ds = _dataset(gold, pred)
    with pytest.raises(ValueError, match=re.escape("the scorer needs a resampling unit ('item' or 'group')")):
        CR.criteria(E.Scorer(ds, spec_d, np.arange(pred.shape[0])), spec)
    with pytest.raises(ValueError, match=re.escape("subset 'few': at least two of the 7 systems, by index")):
        CR.criteria(scorer, spec, subsets={"few": [3]})
    with pytest.raises(ValueError, match="subset 'out'"):
        CR.criteria(scorer, spec, subsets={"out": [0, 7]})
    with pytest.raises(ValueError, match="subset 'neg'"):
        CR.criteria(scorer, spec, subsets={"neg": [-1, 2]})


def test_the_class_discrimination_excess_is_floored_at_zero_and_keeps_nan():
    np.testing.assert_array_equal(_excess(np.array([0.8, 0.5, np.nan, 0.4]), np.array([0.3, 0.7, 0.2, np.nan])),
                                  [0.5, 0.0, np.nan, np.nan])


def _message(call) -> str:
    with pytest.raises(ValueError) as e:
        call()
    return e.value.args[0]


def test_each_refusal_reads_whole(small):
    """The refusals' messages in full (a test that matches a prefix passes
    a message padded with anything)."""
    gold, pred, spec, scorer = small
    spec_d, ds = _dataset(gold, pred)
    assert _message(lambda: CR.criteria(E.Scorer(ds, spec_d, np.arange(pred.shape[0])), spec)) == \
        "the scorer needs a resampling unit ('item' or 'group')"
    assert _message(lambda: CR.CriteriaSpec(criteria=("discrimination",))) == \
        "discrimination needs the class pairs to merge (merge_pairs)"
    assert _message(lambda: CR.CriteriaSpec(replicates=1)) == \
        "replicates must be >= 2, inner_splits and point_splits >= 1"
    assert _message(lambda: CR.criteria(scorer, spec, subsets={"few": [3]})) == \
        "subset 'few': at least two of the 7 systems, by index"


def test_a_subset_of_two_systems_is_enough():
    rng = np.random.default_rng(3)
    gold = rng.choice(3, 30)
    pred = np.stack([_noisy(rng, gold, a) for a in (0.9, 0.7, 0.5)])
    spec_d, ds = _dataset(gold, pred)
    scorer = E.Scorer(ds, spec_d, np.arange(3), "item")
    spec = CR.CriteriaSpec(criteria=("stability",), replicates=2, inner_splits=1, point_splits=2, chunk_size=2)
    res = CR.criteria(scorer, spec, subsets={"two": [0, 2]}, schemes=("items",))["items", "two"]
    assert res.boot.shape == (2, 1, len(METRICS)) and np.isfinite(res.value).all()


def test_a_span_task_s_scorer_has_no_classes_to_merge_move_or_reweight(project_config, data_dir):
    """Discrimination, label noise and class priors each need classes: a
    scorer of span metrics alone is refused for each, by name."""
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset

    spec_d = dataset_specs(project_config)["semeval2020t11_si_synthetic"]
    ds = load_dataset(spec_d, data_dir)
    scorer = E.Scorer(ds, spec_d, np.arange(len(ds.systems)), "group")
    for crit in (("stability", "discrimination"), ("noise",), ("priors",)):
        spec = CR.CriteriaSpec(criteria=crit, replicates=2, inner_splits=1, point_splits=1, merge_pairs=((0, 1),))
        need = [c for c in crit if c != "stability"]
        assert _message(lambda: CR.criteria(scorer, spec)) == (
            f"{need[0]} needs classes, and these metrics have none (span identification has no classes to merge, "
            "flip or re-weight)"), crit


def test_the_paired_standard_error_of_exactly_two_replicates():
    boot = np.full((5, 1, 2), np.nan)
    boot[[1, 3], 0, 0] = [0.5, 0.9]
    boot[:, 0, 1] = 0.0
    se = CR.CriteriaResult(["a", "b"], ["stability"], np.zeros((1, 2)), boot, "both").paired_se()
    assert se[0, 0, 1] == pytest.approx(np.std([0.5, 0.9], ddof=1))


def test_a_custom_metric_is_defined_or_not_on_each_merge_by_its_own_parameters():
    """A merged task is scored by a custom metric only where it holds its
    contract with that merge's parameters and number of classes: a metric
    of two or more f_avg classes is undefined (NaN) where the merge leaves
    one and scored where it leaves two, whichever merge comes first; a
    metric of the first three classes is defined on four classes merged
    to three."""
    from metaeval.measures import labels as M
    from metaeval.measures.custom import register_metric, unregister_metric
    from metaeval.engine.confusion import merge_classes

    def favg_pair(c, classes):  # (the f_avg_classes, as the registry passes them)
        if len(classes) < 2:
            raise ValueError("two classes or more")
        d = np.diagonal(c, axis1=-2, axis2=-1) / np.maximum(c.sum(axis=-2), 1)
        return d[..., list(classes)].mean(-1)

    rng = np.random.default_rng(5)
    gold = rng.integers(0, 4, 120)
    pred = np.where(rng.random((4, 120)) < 0.7, gold, rng.integers(0, 4, (4, 120)))
    register_metric("crit_favg2", favg_pair, range=(0, 1), needs=["f_avg_classes"])
    register_metric("crit_first3", lambda c: c[..., 2, 2] / np.maximum(c.sum(axis=(-2, -1)), 1), range=(0, 1), k=3)
    try:
        ids = ["accuracy", "crit_favg2", "crit_first3"]
        spec_d = DatasetSpec.from_config("syn", dict(gold="-", predictions=[], labels=["a", "b", "c", "d"],
                                                     metrics=ids, baselines=[], f_avg_classes=["a", "b"]))
        ds = Dataset("syn", ("a", "b", "c", "d"), np.arange(120).astype(str), gold.astype(np.int8),
                     tuple(f"s{i}" for i in range(4)), ("system",) * 4, pred.astype(np.int8))
        scorer = E.Scorer(ds, spec_d, np.arange(4), "item")
        eng = CB._Engine(scorer, scorer.params)
        c = ds.confusion()[None]
        f, t = eng.ids.index("crit_favg2"), eng.ids.index("crit_first3")
        for pair in [(1, 2), (0, 1), (2, 3)]:  # a and b stay apart, merge, stay apart
            got = eng.merged(c, pair)[0]
            g = E.merge_groups(4, pair)
            cm = merge_classes(ds.confusion(), g)
            if pair == (0, 1):
                assert np.isnan(got[f]).all()
            else:
                np.testing.assert_allclose(got[f], favg_pair(cm, sorted({int(g[0]), int(g[1])})), atol=1e-12)
            np.testing.assert_allclose(got[t], M.get("crit_first3")(cm), atol=1e-12)
    finally:
        unregister_metric("crit_favg2")
        unregister_metric("crit_first3")


def test_the_passes_report_their_progress_chunk_by_chunk(small):
    """The point values' half-splits in chunks of 200, the replicates in
    chunks of chunk_size (or fewer, under the memory bound), each report
    the count done so far; no number depends on who listens."""
    from dataclasses import replace

    from metaeval.engine.progress import reporting

    gold, pred, spec, scorer = small
    spec = replace(spec, criteria=("stability", "power"), point_splits=450, replicates=7, chunk_size=3)
    seen = []
    with reporting(lambda done, total, what: seen.append((done, total, what))):
        res = CR.criteria(scorer, spec, schemes=("items", "both"))
    assert seen == [(200, 450, "half-splits"), (400, 450, "half-splits"), (450, 450, "half-splits"),
                    (3, 7, "criteria resamples"), (6, 7, "criteria resamples"), (7, 7, "criteria resamples")]
    seen.clear()
    with reporting(lambda done, total, what: seen.append((done, total, what))):
        one = CR.criteria(scorer, replace(spec, chunk_size=1), schemes=("items", "both"))
    assert seen[3:] == [(b, 7, "criteria resamples") for b in range(1, 8)]
    for key in res:
        assert res[key].scheme == key[0]
        np.testing.assert_array_equal(res[key].boot, one[key].boot)
        np.testing.assert_array_equal(res[key].value, one[key].value)
    # the memory bound: a chunk of replicates holds at most MAX_MASK_ELEMENTS mask cells (3 splits x 48 items each)
    seen.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(CC, "MAX_MASK_ELEMENTS", 2 * 3 * 48 + 100)
        with reporting(lambda done, total, what: seen.append((done, total, what))):
            bound = CR.criteria(scorer, spec, schemes=("items", "both"))
    assert seen[3:] == [(b, 7, "criteria resamples") for b in (2, 4, 6, 7)]
    for key in res:
        np.testing.assert_array_equal(res[key].boot, bound[key].boot)


def test_stratified_point_values_use_the_stratified_splits(small):
    """strata reach the point values too: their stability is the mean tau
    over the experiments' stratified half-splits of the full data."""
    from dataclasses import replace

    gold, pred, spec, scorer = small
    spec = replace(spec, criteria=("stability",), replicates=2, point_splits=6)
    res = CR.criteria(scorer, spec, schemes=("items",), strata=gold)["items", "all"]
    every, ones = np.arange(pred.shape[0]), np.ones(gold.size)
    masks = split_masks(gold.size, np.arange(spec.point_splits), spec.split_seed, gold)
    taus = [[_tau(_scores(gold, pred, ones * m, every)[i], _scores(gold, pred, ones * ~m, every)[i])
             for i in range(len(METRICS))] for m in masks]
    np.testing.assert_allclose(res.value[0], np.nanmean(np.array(taus, dtype=float), axis=0), atol=1e-12)


@pytest.mark.parametrize("without_last_class", [False, True])
def test_the_arrays_of_the_metrics_of_scores_are_the_registry_s_scores_of_each_changed_task(without_last_class):
    """_arrays, the scores every criterion reads, for the metrics of scores:
    per resample row, the merged task (probabilities added), each noisy
    gold (rate by rate, repeat by repeat: the rows of a resample's repeats
    side by side) and each re-weighted gold equal the registry's scores,
    oriented as the engine ranks them (higher better)."""
    from metaeval.engine.ranking import orient
    from metaeval.measures.scores.registry import evaluate

    p, gold, scorer = _score_task(without_last_class)
    n, k = p.shape[1], p.shape[2]
    spec = CR.CriteriaSpec(criteria=("stability", "discrimination", "noise", "priors"), replicates=2,
                           inner_splits=2, seed=4, noise_rates=(0.1, 0.25), noise_mode="uniform",
                           merge_pairs=((0, 1), (1, 2)), prior_gammas=(0.0, 1.5))
    eng = CB._Engine(scorer, scorer.params)
    rows = np.array([0, 1])
    w_units = CR.unit_draws(n, rows, spec.seed)
    w_units[1, gold == 2] = 0  # a resample without the last class: its prior weights have K entries all the same
    noise = noisy_golds(eng, spec, np.arange(4), 9, ("noise", "noise_class"))  # two repeats per row
    split_ids = rows[:, None] * spec.inner_splits + np.arange(spec.inner_splits)
    a = CC._arrays(eng, spec, w_units, split_ids, spec.seed, "criteria_split", {"noise": noise}, None)
    up = np.array([m != "brier" and m != "log_loss" for m in _SCORE_IDS])

    def want(values, y, w):  # (M, S) oriented
        with np.errstate(all="ignore"):
            out = evaluate(_SCORE_IDS, values, y, None, w)
        return orient(np.stack([out[m] for m in _SCORE_IDS]), up[:, None])

    assert a["discrimination"].shape == (2, 2, 3, 5) and a["noise"].shape == (2, 2, 2, 3, 5) and a["priors"].shape == (2, 2, 3, 5)
    rank, new = noise
    flips = _flip_counts(n, spec.noise_rates)
    for b in range(2):
        w = w_units[b].astype(float)
        np.testing.assert_allclose(a["full"][b], want(p, gold, w), atol=1e-12)
        for j, (x, c) in enumerate(spec.merge_pairs):
            np.testing.assert_allclose(a["discrimination"][b, j], want(*_merged_probabilities(p, gold, x, c), w), atol=1e-12)
        for j, m in enumerate(flips):
            for rep in range(2):
                r = b * 2 + rep
                noisy_gold = np.where(rank[r] < m, new[r], gold)
                np.testing.assert_allclose(a["noise"][b, j, rep], want(p, noisy_gold, w), atol=1e-12,
                                           err_msg=f"row {b}, rate {j}, repeat {rep}")
        counts = np.bincount(gold, weights=w, minlength=k)
        for j, wk in enumerate(prior_weights(counts[None], spec.prior_gammas)[0]):
            np.testing.assert_allclose(a["priors"][b, j], want(p, gold, w * wk[gold]), atol=1e-12)


def test_the_arrays_of_the_metrics_of_groups_rank_each_noisy_gold_with_the_resample_s_group_weights():
    """MAP, MRR and ROC-AUC resampled by whole groups: each noisy gold's
    scores are the registry's with every item weighted by its group's
    draw count."""
    from dataclasses import replace

    from metaeval.engine.ranking import orient
    from metaeval.measures.scores.registry import evaluate

    from .test_score_engine import _binary

    ds, spec_d, y = _binary(n=90, groups=9)
    spec_d = replace(spec_d, score_metrics=("map", "mrr", "roc_auc"))
    scorer = E.Scorer(ds, spec_d, np.arange(4), "group")
    eng = CB._Engine(scorer, scorer.params)
    spec = CR.CriteriaSpec(criteria=("stability", "noise"), replicates=2, inner_splits=1, seed=6,
                           noise_rates=(0.1, 0.3))
    w_units = CR.unit_draws(9, np.array([0, 1]), spec.seed)
    noise = noisy_golds(eng, spec, np.arange(4), spec.seed, ("criteria_noise", "criteria_noise_class"))
    a = CC._arrays(eng, spec, w_units, np.array([[0], [1]]), spec.seed, "criteria_split", {"noise": noise}, None)
    rank, new = noise  # two repeats per resample row
    values = ds.scores.values  # (S, N, 1): the positive class's scores
    ids = ["map", "mrr", "roc_auc"]
    rows = [eng.ids.index(m) for m in ids]
    for b in range(2):
        w = np.repeat(w_units[b], 10).astype(float)
        for j, m in enumerate(_flip_counts(90, spec.noise_rates)):
            for rep in range(2):
                r = 2 * b + rep
                g = np.where(rank[r] < m, new[r], ds.gold)
                with np.errstate(all="ignore"):
                    out = evaluate(ids, values, (g == 0).astype(int), ds.groups, w)
                np.testing.assert_allclose(a["noise"][b, j, rep][rows], orient(np.stack([out[x] for x in ids])),
                                           atol=1e-12, err_msg=f"row {b}, rate {j}, repeat {rep}")


def test_the_arrays_of_the_priors_re_weight_each_resample_s_gold_columns(small):
    """Class priors on the confusion engine: each resample's confusion
    tensors with gold column j multiplied by its own weight of class j."""
    from dataclasses import replace

    from metaeval.methods.scorer import oriented

    from metaeval.measures.items import register_item_metric, unregister_item_metric

    gold, pred, spec, _ = small
    pred = pred[::-1]  # the first system is not perfect: its predictions are not the gold's counts
    ids = METRICS + ["mae_macro"]  # lower is better: ranked by its negative

    def err_terms(g, p, items):
        wrong = (p != g[None, :]).astype(float)
        return np.stack([wrong, np.ones_like(wrong)], axis=-1)

    register_item_metric("crit_item_err", err_terms, lambda t: t[..., 0] / t[..., 1], higher_is_better=False,
                         range=(0, 1))
    try:
        spec_d = DatasetSpec.from_config("syn", dict(gold="-", predictions=[], labels=["a", "b", "c"], ordinal=True,
                                                     metrics=ids + ["crit_item_err"], baselines=[]))
        ds = _dataset(gold, pred)[1]
        scorer = E.Scorer(ds, spec_d, np.arange(pred.shape[0]), "item")
        spec = replace(spec, criteria=("stability", "priors"), prior_gammas=(0.5, 2.0))
        eng = CB._Engine(scorer, scorer.params)
        assert eng.ids == ids + ["crit_item_err"]
        w_units = CR.unit_draws(gold.size, np.array([0, 1, 2]), spec.seed)
        a = CC._arrays(eng, spec, w_units, np.array([[0], [1], [2]]), spec.seed, "criteria_split", {}, None)
    finally:
        unregister_item_metric("crit_item_err")
    wrong = (pred != gold[None, :])
    for b in range(3):
        c = np.stack([np.histogram2d(p_, gold, bins=(3, 3), range=((0, 3), (0, 3)), weights=w_units[b])[0]
                      for p_ in pred])  # (S, K, K): predicted x gold, each item its draw count
        counts = np.bincount(gold, weights=w_units[b], minlength=3)
        for j, wk in enumerate(prior_weights(counts[None], spec.prior_gammas)[0]):
            np.testing.assert_allclose(a["priors"][b, j, :len(ids)], oriented(c * wk[None, None, :], ids,
                                                                               scorer.params), atol=1e-12)
            w = w_units[b] * wk[gold]
            np.testing.assert_allclose(a["priors"][b, j, -1], -np.round((wrong * w).sum(1) / w.sum(), 12),
                                       atol=1e-12)


def test_equal_scores_with_no_spread_are_a_p_value_of_one_in_the_family():
    """Two systems with the same score and se 0 are a pair that is not
    separated (p = 1), and it counts in the family the correction adjusts:
    with Benjamini-Hochberg over three pairs, p-values 0.03 and 0.04 are
    adjusted to 0.06 (not separated); left out, they would be 0.04."""
    z3, z4 = norm.isf(0.03 / 2), norm.isf(0.04 / 2)
    full = np.array([[[0.0, 0.0, 1.0]]])  # (b, M, S): systems 0 and 1 tie
    se = np.array([[0.0, 1 / z3, 1 / z4]])  # pairs (0, 1), (0, 2), (1, 2)
    counts = np.ones((1, 3), dtype=np.int64)
    assert CR.pair_power(full, se, counts, 0.05, "bh")[0, 0] == 0.0
    assert CR.pair_power(full, se, counts, 0.05, "none")[0, 0] == pytest.approx(2 / 3)
    # a pair whose scores differ with se 0 is separated (p = 0): (0, 1) and (0, 2) are, (1, 2) at z / 2 is not
    full2 = np.array([[[0.0, 0.5, 1.0]]])
    assert CR.pair_power(full2, se, counts, 0.05, "none")[0, 0] == pytest.approx(2 / 3)


def test_the_discrimination_point_value_uses_the_stability_of_every_chunk_of_splits():
    """Systems ranked by how well they tell class 0 from class 1, in the
    reverse order of how well they find class 2: merging 0 and 1 reverses
    the ranking, so class discrimination is well above 0; its point value
    is the stability over all 230 splits (two chunks of the point pass)
    minus the merged tau."""
    rng = np.random.default_rng(11)
    gold = np.repeat([0, 1, 2], 60)
    pred = []
    for i in range(6):
        p = gold.copy()
        p[(gold < 2) & (rng.random(gold.size) < 0.45 - 0.07 * i)] ^= 1  # 0 <-> 1 confusions, fewer for higher i
        p[(gold == 2) & (rng.random(gold.size) < 0.05 + 0.06 * i)] = 0  # class 2 missed, more for higher i
        pred.append(p)
    pred = np.stack(pred)
    spec_d, ds = _dataset(gold, pred)
    scorer = E.Scorer(ds, spec_d, np.arange(6), "item")
    spec = CR.CriteriaSpec(criteria=("stability", "discrimination"), replicates=2, inner_splits=1, point_splits=230,
                           split_seed=3, merge_pairs=((0, 1),))
    res = CR.criteria(scorer, spec)["both", "all"]
    st = E.Settings(include_baselines=(), n_splits=230, split_seed=3)
    taus = np.nanmean(E.stability_splits(ds, spec_d, st, range(230))["tau"], axis=0)
    every, ones = np.arange(6), np.ones(gold.size)
    full = _scores(gold, pred, ones, every)
    merged = _merged_scores(gold, pred, ones, every, (0, 1))
    merge = np.array([_tau(full[i], merged[i]) for i in range(len(METRICS))])
    want = np.maximum(taus - merge, 0)
    assert (want > 0.5).all()
    np.testing.assert_allclose(res.value[1], want, atol=1e-12)
