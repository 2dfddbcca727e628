"""The verdict (metaeval.verdict.evidence): METHODS 9.6's checks on real data.

(a) Null calibration: metrics exchangeable by construction (accuracy with
i.i.d. random positive item weights of mean 1, one weight vector per
metric) are all kept in at least 1 - alpha - 3 Monte Carlo standard errors
of the draws; (b) power: a metric with a real advantage (accuracy on every
item, against accuracy on random tenths of the items) is named; (c) a copy
never changes the answer; (d) the per-criterion sets are the MCS of a plain
loop (tests/test_mcs.py checks the MCS itself against METHODS 9.2 written
out).  The criteria come from the project's own engine (metaeval.verdict.criteria)
on the real data: a test scorer weighs the items."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metaeval.verdict import criteria as CR
from metaeval.methods.scorer import Scorer
from metaeval.verdict.evidence import (Separation, closest_pair, evidence_sets, mc_upper, paired_interval,
                                       systems_needed, units_needed)

from metaeval.verdict.mcs import critical_value

from .test_mcs import plain_mcs


class WeightedScorer(Scorer):
    """A scorer whose items carry fixed positive weights: every count
    (resamples, halves, noisy golds) is the unit draws times the weights,
    so accuracy becomes an item-weighted accuracy and the resamples stay
    the engine's own (the draws depend on the seed and the number of units
    alone: every weight vector sees the same resamples)."""

    def __init__(self, ds, spec, select, unit, weights):
        super().__init__(ds, spec, select, unit)
        self.w = np.asarray(weights, dtype=np.float64)

    def counts(self, unit_weights=None, *, engine_order=False):
        u = np.ones((1, self.n_units)) if unit_weights is None else np.asarray(unit_weights, dtype=np.float64)
        return super().counts(u * self.w[None, :])

    def item_weights(self, unit_weights):
        return super().item_weights(unit_weights) * self.w[None, :]


def _real(project_config, data_dir, name):
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import RANKED_KINDS, load_dataset

    spec = replace(dataset_specs(project_config)[name], metrics=("accuracy",))
    ds = load_dataset(spec, data_dir)
    return spec, ds, np.array([i for i, k in enumerate(ds.kinds) if k in RANKED_KINDS])


def _stacked(ds, spec, real, weights, cs):
    """(C, M) values and (B, C, M) replicates of accuracy under each weight vector."""
    vals, boots = [], []
    for w in weights:
        r = CR.criteria(WeightedScorer(ds, spec, real, "item", w), cs, schemes=("items",))["items", "all"]
        vals.append(r.value[:, 0])
        boots.append(r.boot[:, :, 0])
    return np.stack(vals, axis=1), np.stack(boots, axis=2)


@pytest.mark.slow
@pytest.mark.realdata
def test_null_calibration_exchangeable_metrics_are_all_kept(project_config, data_dir):
    """METHODS 9.6 (a) on rumoureval2017's real systems: 8 metrics, each
    accuracy with its own i.i.d. Exponential(1) item weights, so that no
    metric is better than another by construction; over 60 draws (new
    weights, new resamples) all 8 are kept on every criterion in at least
    1 - alpha - 3 Monte Carlo SE of them (measured: 100 of 100 draws)."""
    spec, ds, real = _real(project_config, data_dir, "rumoureval2017")
    crits = ("stability", "power", "noise")
    cs = CR.CriteriaSpec(criteria=crits, replicates=100, inner_splits=4, point_splits=40, noise_rates=(0.05, 0.1),
                         noise_repeats=4, chunk_size=25)
    draws, alpha, kept = 60, 0.05, 0
    for d in range(draws):
        rng = np.random.default_rng([29, d])
        v, b = _stacked(ds, spec, real, [rng.exponential(1.0, ds.n_items) for _ in range(8)],
                        replace(cs, seed=1000 + d))
        kept += evidence_sets(v, b, np.ones(8, bool), alpha, criteria=crits).answer.all()
    assert kept / draws >= 1 - alpha - 3 * math.sqrt(alpha * (1 - alpha) / draws)


@pytest.mark.slow
@pytest.mark.realdata
def test_power_a_metric_with_a_real_advantage_is_named(project_config, data_dir):
    """METHODS 9.6 (b) on fnc1's 17 real systems: accuracy on every item
    against 7 accuracies each on a random tenth of the items (the same
    metric with a tenth of the evidence): the full one is kept in every
    draw and named alone in at least 9 of 10 (measured: 10 of 10)."""
    spec, ds, real = _real(project_config, data_dir, "fnc1")
    crits = ("stability", "power")
    # 200 resamples: the smallest p-value, 1/201, is below the level 0.025 beyond Monte Carlo doubt (1/101 is not)
    cs = CR.CriteriaSpec(criteria=crits, replicates=200, inner_splits=4, point_splits=40, chunk_size=25)
    kept = alone = 0
    for d in range(10):
        rng = np.random.default_rng([30, d])
        ws = [np.ones(ds.n_items)] + [(rng.random(ds.n_items) < 0.1).astype(float) for _ in range(7)]
        v, b = _stacked(ds, spec, real, ws, replace(cs, seed=2000 + d))
        ans = evidence_sets(v, b, np.ones(8, bool), 0.05, criteria=crits).answer
        kept += ans[0]
        alone += ans[0] and ans.sum() == 1
    assert kept == 10 and alone >= 9


def _draw(seed, c=3, m=5, b=120):
    rng = np.random.default_rng(seed)
    mu = rng.normal(0, 0.05, (c, m))
    boot = mu + 0.03 * rng.normal(size=(b, 1, 1)) + 0.03 * rng.normal(size=(b, c, m))
    v = mu + 0.01 * rng.normal(size=(c, m))
    return v, boot


@hsettings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 4))
def test_a_copy_never_changes_the_answer_and_is_kept_with_its_original(seed, j):
    """METHODS 9.6 (c) at the level of the verdict: a metric duplicated
    (its values and replicates on every criterion) changes no set, no
    Bonferroni count and no answer, and the copy is kept exactly when its
    original is."""
    v, b = _draw(seed)
    s = evidence_sets(v, b, np.ones(5, bool), 0.05, criteria=("a", "b", "c"))
    v2, b2 = np.concatenate([v, v[:, [j]]], axis=1), np.concatenate([b, b[:, :, [j]]], axis=2)
    s2 = evidence_sets(v2, b2, np.ones(6, bool), 0.05, criteria=("a", "b", "c"))
    assert np.array_equal(s2.answer[:5], s.answer) and s2.answer[5] == s.answer[j]
    assert np.array_equal(s2.members[:, :5], s.members) and s2.alpha_c == s.alpha_c


@hsettings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_each_set_is_the_plain_mcs_at_the_bonferroni_level(seed):
    """METHODS 9.6 (d) and 9.3: each criterion's MCS p-values are the plain
    loop's (run to the end) over the admissible candidates; a candidate is
    kept when the upper end of its p-value's 95 % Monte Carlo interval
    reaches alpha / C (p + 1.96 sqrt(p (1 - p) / B), written out here); the
    answer is the candidates kept on every criterion."""
    v, b = _draw(seed)
    adm = np.array([True, True, False, True, True])
    s = evidence_sets(v, b, adm, 0.05, criteria=("a", "b", "c"))
    assert s.alpha_c == pytest.approx(0.05 / 3)
    idx = np.flatnonzero(adm)
    for c in range(3):
        last, pv = plain_mcs(v[c, idx], b[:, c, idx].tolist(), 1.0 + 1e-9)  # every elimination
        for k, i in enumerate(idx):
            p = 1.0 if k in last else pv[k]
            assert s.p_value[c, i] == pytest.approx(p, abs=1e-12)
            upper = min(1.0, p + 1.959963984540054 * math.sqrt(p * (1 - p) / b.shape[0]))
            assert s.members[c, i] == (upper >= 0.05 / 3)
    assert np.array_equal(s.answer, adm & s.members.all(axis=0))


@pytest.mark.parametrize("level", [0.0, 0.5, 0.99])
def test_the_monte_carlo_level_is_the_margin_an_elimination_must_clear(level):
    """verdict_mc_level: a candidate is kept when p + z sqrt(p (1 - p) / B)
    reaches alpha / C, z the normal quantile of (1 + level) / 2 (0: the
    p-value itself), written out here; a higher level keeps more."""
    from statistics import NormalDist

    v, b = _draw(1)
    adm = np.ones(5, bool)
    s = evidence_sets(v, b, adm, 0.05, criteria=("a", "b", "c"), mc_level=level)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    part = ~np.isnan(s.p_value)
    upper = np.minimum(1.0, s.p_value + z * np.sqrt(s.p_value * (1 - s.p_value) / b.shape[0]))
    assert np.allclose(s.p_upper[part], upper[part], rtol=0, atol=1e-12) and s.mc_level == level
    assert np.array_equal(s.members[part], (upper >= s.alpha_c)[part])
    default = evidence_sets(v, b, adm, 0.05, criteria=("a", "b", "c"))
    assert (s.members <= default.members).all() if level >= 0.95 else (s.members >= default.members).all()


def test_the_monte_carlo_level_reaches_the_verdict_from_the_settings():
    """The setting goes from the settings (library keyword, config) to
    every evidence set of the recommendation."""
    import metaeval

    gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20, "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
               "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20}
    rec = metaeval.recommend(gold, systems, properties=False, criteria_replicates=20, baselines=[],
                             criteria=["stability"], n_splits=20,
                             settings=metaeval.api.settings(verdict_mc_level=0.0, min_systems=3))
    for sets in rec.sets.values():
        assert sets.mc_level == 0.0
        part = ~np.isnan(sets.p_value)
        assert np.array_equal(sets.p_upper[part], sets.p_value[part])


def test_an_exempt_metric_is_not_judged_on_that_criterion_and_bonferroni_counts_the_criteria_that_count():
    rng = np.random.default_rng(3)
    v = np.array([[0.9, 0.5, 0.89], [1.0, 0.7, 0.4]])
    b = v + 0.01 * rng.normal(size=(300, 2, 3))
    exempt = np.array([[False, False, False], [True, False, False]])
    s = evidence_sets(v, b, np.ones(3, bool), 0.05, exempt, criteria=("stability", "priors"))
    assert not s.participants[1, 0] and np.isnan(s.p_value[1, 0])
    assert s.answer[0]  # not judged on priors, kept on stability
    assert not s.answer[1] and not s.answer[2]  # beaten on stability; beaten on priors
    # a criterion with one distinct participant is not tested, nor counted by Bonferroni
    s1 = evidence_sets(v, b, np.array([True, False, True]), 0.05, np.array([[False] * 3, [True, False, True]]),
                       criteria=("stability", "priors"))
    assert s1.counted.tolist() == [True, False] and s1.alpha_c == 0.05


def test_no_metric_is_named_when_the_sets_do_not_meet():
    rng = np.random.default_rng(4)
    v = np.array([[0.9, 0.5], [0.5, 0.9]])
    b = v + 0.01 * rng.normal(size=(300, 2, 2))
    s = evidence_sets(v, b, np.ones(2, bool), 0.05, criteria=("stability", "power"))
    assert not s.answer.any() and s.members.tolist() == [[True, False], [False, True]]


def test_the_units_and_systems_that_would_separate_a_pair():
    """The observed |t| times sqrt(n'/n) reaches the critical value at n'
    units; with the systems' share of the variance over S' systems, the
    difference reaches it at S' systems."""
    sep = Separation(0, "power", 0, 1, d=0.03, se=0.02, t=1.5, critical=2.5)
    n = units_needed(sep, 800)
    assert sep.t * math.sqrt(n / 800) == pytest.approx(sep.critical)
    s_ = systems_needed(sep, se_items=0.005, se_both=0.02, n_systems=12)
    assert sep.d / math.sqrt(0.005 ** 2 + (0.02 ** 2 - 0.005 ** 2) * 12 / s_) == pytest.approx(sep.critical)
    assert systems_needed(sep, se_items=0.015, se_both=0.02, n_systems=12) == math.inf  # items alone too noisy


def test_closest_pair_is_the_answer_pair_nearest_its_critical_value():
    rng = np.random.default_rng(5)
    v = np.array([[0.80, 0.79, 0.70, 0.795], [0.5, 0.5, 0.5, 0.5]])
    b = v + 0.02 * rng.normal(size=(400, 2, 4)) + 0.02 * rng.normal(size=(400, 1, 1))
    s = evidence_sets(v, b, np.ones(4, bool), 0.05, criteria=("stability", "power"))
    p = closest_pair(s, v, b)
    best = max(r for r in ((abs(paired_interval(v[c], b[:, c], i, j, 0.95)[0])
                            / paired_interval(v[c], b[:, c], i, j, 0.95)[3] / s.critical[c], c, i, j)
                           for c in np.flatnonzero(s.counted)
                           for i in np.flatnonzero(s.answer) for j in np.flatnonzero(s.answer) if i < j) if r[0] < 1)
    assert (p.c, {p.i, p.j}) == (best[1], {best[2], best[3]})
    assert v[p.c, p.i] >= v[p.c, p.j]
    assert p.t < p.critical


def test_closest_pair_skips_pairs_already_separated():
    """A pair in the answer whose |t| reaches the critical value is kept only
    within the Monte Carlo doubt (more resamples decide it, not more items):
    it is not the pair the separation sentence is about (helper trial of
    issue 29: 't = 4.14, critical value 3.77 ... about 830 test items' with
    1,049 items)."""
    from dataclasses import replace

    rng = np.random.default_rng(5)
    v = np.array([[0.80, 0.70]])
    b = v + 0.01 * rng.normal(size=(400, 1, 2))
    s = evidence_sets(v, b, np.ones(2, bool), 0.05, criteria=("stability",))
    assert not s.answer[1]  # eliminated: |t| is about 7
    forced = replace(s, answer=np.ones(2, bool))  # as if the Monte Carlo margin had kept it
    assert closest_pair(forced, v, b) is None
    v3 = np.array([[0.80, 0.70, 0.799]])
    b3 = v3 + 0.01 * rng.normal(size=(400, 1, 3)) + 0.01 * rng.normal(size=(400, 1, 1))
    s3 = replace(evidence_sets(v3, b3, np.ones(3, bool), 0.05, criteria=("stability",)), answer=np.ones(3, bool))
    p = closest_pair(s3, v3, b3)
    assert {p.i, p.j} == {0, 2} and abs(p.t) < p.critical


# -- the verdict's small functions against plain loops ----------------------------------
def test_the_paired_interval_is_the_normal_interval_of_the_paired_differences():
    """se: the sample standard deviation (ddof 1) of the replicates'
    differences where both are defined; the interval d -+ z se at the level."""
    from scipy.stats import norm

    rng = np.random.default_rng(2)
    boot = np.array([0.6, 0.55, 0.3]) + rng.normal(0, [0.03, 0.02, 0.05], (50, 3))
    boot[[3, 9], 1] = np.nan
    value = [0.61, 0.54, 0.31]
    for (i, j), level in (((0, 1), 0.95), ((1, 0), 0.8), ((2, 0), 0.5)):
        diffs = [b[i] - b[j] for b in boot if not (np.isnan(b[i]) or np.isnan(b[j]))]
        mean = sum(diffs) / len(diffs)
        se = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (len(diffs) - 1))
        z = norm.ppf(0.5 + level / 2)
        d = value[i] - value[j]
        got = paired_interval(value, boot, i, j, level)
        assert got == pytest.approx((d, d - z * se, d + z * se, se), rel=1e-12)
    # one defined replicate: no spread
    one = np.array([[0.5, 0.4], [np.nan, 0.3]])
    d, lo, hi, se = paired_interval([0.5, 0.4], one, 0, 1, 0.95)
    assert d == pytest.approx(0.1) and math.isnan(se) and math.isnan(lo) and math.isnan(hi)
    # integer inputs are differences of floats all the same
    assert paired_interval([1, 0], np.array([[1, 0], [2, 0], [1, 1]]), 0, 1, 0.95)[3] == pytest.approx(1.0)


def test_the_monte_carlo_upper_end_of_a_p_value():
    from scipy.stats import norm

    p = np.array([0.0, 0.01, 0.3, 1.0, np.nan])
    for b, level in ((500, 0.95), (37, 0.99), (10_000, 0.5)):
        z = norm.ppf(0.5 + level / 2)
        want = [min(1.0, x + z * math.sqrt(x * (1 - x) / b)) if not math.isnan(x) else math.nan for x in p]
        np.testing.assert_allclose(mc_upper(p, b, level), want, rtol=1e-12)
    assert mc_upper([0.5], 0, 0.95)[0] == pytest.approx(min(1.0, 0.5 + norm.ppf(0.975) * 0.5))  # no resample: B = 1
    assert mc_upper([1.0000000001], 100, 0.95)[0] == 1.0  # a p-value a hair above 1 (rounding): no NaN, capped
    assert mc_upper([0, 1], 100, 0.95).dtype == np.float64


def _closest_by_loop(sets, value, boot):
    """Every pair of distinct answer members on every counted criterion: the
    largest |d| / se / critical below 1 (the first such pair on ties)."""
    best, best_ratio = None, -1.0
    for c in range(len(sets.criteria)):
        if not sets.counted[c] or not np.isfinite(sets.critical[c]) or sets.critical[c] <= 0:
            continue
        members = [i for i in range(value.shape[1]) if sets.answer[i] and sets.participants[c, i]]
        for a in range(len(members)):
            for z in range(a + 1, len(members)):
                i, j = members[a], members[z]
                if value[c, j] > value[c, i]:
                    i, j = j, i
                diffs = boot[:, c, i] - boot[:, c, j]
                diffs = diffs[~np.isnan(diffs)]
                se = np.std(diffs, ddof=1)
                if not se > 0:
                    continue
                ratio = abs(value[c, i] - value[c, j]) / se / sets.critical[c]
                if best_ratio < ratio < 1:
                    best_ratio, best = ratio, (c, i, j)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_the_closest_pair_is_the_loop_s_over_every_pair_and_criterion(seed):
    rng = np.random.default_rng(seed)
    m = 5
    value = rng.uniform(0.4, 0.6, (3, m))
    boot = value + rng.normal(0, rng.uniform(0.01, 0.06, (1, 3, m)), (300, 3, m))
    s = evidence_sets(value, boot, np.ones(m, bool), 0.05, criteria=("stability", "power", "noise"))
    got = closest_pair(s, value, boot)
    want = _closest_by_loop(s, value, boot)
    assert (None if got is None else (got.c, got.i, got.j)) == want
    if got is not None:
        d, _, _, se = paired_interval(value[got.c], boot[:, got.c], got.i, got.j, 0.95)
        assert (got.d, got.se, got.t, got.critical) == pytest.approx((d, se, d / se, s.critical[got.c]))
        assert got.criterion == s.criteria[got.c] and got.d >= 0


def test_the_closest_pair_skips_a_copy_and_needs_two_members():
    rng = np.random.default_rng(1)
    value = np.array([[0.8, 0.8, 0.79]])
    base = value + rng.normal(0, 0.02, (400, 1, 3))
    base[:, :, 1] = base[:, :, 0]  # 1 is a copy of 0: never paired with it
    s = evidence_sets(value, base, [True, True, True], 0.05, criteria=("stability",))
    got = closest_pair(s, value, base)
    assert got is not None and {got.i, got.j} == {0, 2}
    alone = evidence_sets(value, base, [True, True, False], 0.05, criteria=("stability",))
    assert closest_pair(alone, value, base) is None  # only a copy of one metric is left


def test_evidence_sets_without_criteria_keep_no_answer_and_check_their_input():
    s = evidence_sets(np.zeros((0, 3)), np.zeros((10, 0, 3)), [1, 1, 0], 0.05, criteria=())
    assert s.answer.tolist() == [False, False, False] and s.answer.dtype == bool
    assert s.admissible.tolist() == [True, True, False] and s.admissible.dtype == bool
    with pytest.raises(ValueError, match=r"^boot must be \(B, 2, 3\), got \(10, 3, 2\)$"):
        evidence_sets(np.zeros((2, 3)), np.zeros((10, 3, 2)), [True] * 3, 0.05)
    with pytest.raises(ValueError, match=r"^boot must be \(B, 2, 3\), got \(2, 3\)$"):
        evidence_sets(np.zeros((2, 3)), np.zeros((2, 3)), [True] * 3, 0.05)


def test_evidence_sets_keep_the_family_s_level_and_read_0_1_flags_as_booleans():
    rng = np.random.default_rng(3)
    value = np.array([[0.8, 0.8, 0.6], [0.5, 0.5, 0.5]])
    boot = value + 0.01 * rng.normal(size=(300, 2, 3))
    s = evidence_sets(value, boot, [1, 1, 1], 0.1, exempt=[[0, 0, 0], [0, 0, 1]], criteria=("stability", "power"))
    assert (s.alpha, s.alpha_c, s.criteria) == (0.1, 0.05, ("stability", "power"))
    assert s.participants.tolist() == [[True, True, True], [True, True, False]]
    assert s.answer.tolist() == [True, True, False] and s.answer.dtype == bool and s.members.dtype == bool
    assert s.counted.dtype == bool and s.counted.tolist() == [True, True]


def test_the_critical_value_is_that_of_the_kept_participants_only():
    """A candidate exempt from a criterion (no MCS p-value there) is not
    among the members whose range statistic gives the critical value."""
    rng = np.random.default_rng(8)
    value = np.array([[0.8, 0.79, 0.78, 0.2]])
    boot = value + rng.normal(0, [0.01, 0.02, 0.03, 0.3], (500, 1, 4))
    s = evidence_sets(value, boot, [True] * 4, 0.05, exempt=[[False, False, False, True]], criteria=("stability",))
    kept = s.members[0] & s.participants[0]
    assert not s.participants[0, 3] and kept[:3].all()
    assert s.critical[0] == critical_value(value[0], boot[:, 0], kept, 0.05)
    assert s.critical[0] != critical_value(value[0], boot[:, 0], [True] * 4, 0.05)


def test_the_closest_pair_reads_copies_among_the_answer_only_and_every_criterion():
    """A member that copies a candidate outside the answer is still paired
    (copies are looked for among the answer's members); a criterion with
    fewer than two members is passed over, not the end of the search; equal
    values name the first metric ahead."""
    rng = np.random.default_rng(2)
    value = np.array([[0.9, 0.9, 0.85], [0.6, 0.6, 0.58]])
    boot = value + rng.normal(0, 0.02, (400, 2, 3))
    boot[:, :, 1] = boot[:, :, 0]  # 1 copies 0, which is not admissible
    s = evidence_sets(value, boot, [False, True, True], 0.05, criteria=("stability", "power"))
    got = closest_pair(s, value, boot)
    assert got is not None and {got.i, got.j} == {1, 2}
    # on the first criterion one member of the answer takes part (1 is exempt, 2 is out of the answer:
    # eliminated on the second): that criterion is passed over, and the second one still searched
    value = np.array([[0.8, 0.5, 0.79], [0.6, 0.59, 0.2]])
    boot = value + rng.normal(0, 0.02, (400, 2, 3))
    s = evidence_sets(value, boot, [True, True, True], 0.05, exempt=[[False, True, False], [False, False, False]],
                      criteria=("stability", "power"))
    assert s.counted.all() and s.answer.tolist() == [True, True, False]
    got = closest_pair(s, value, boot)
    assert got is not None and (got.criterion, got.i, got.j) == ("power", 0, 1)
    # equal values: the lower index is named ahead, d = 0 (t 0)
    value = np.array([[0.7, 0.7]])
    boot = value + rng.normal(0, 0.02, (300, 1, 2))
    s = evidence_sets(value, boot, [True, True], 0.05, criteria=("stability",))
    got = closest_pair(s, value, boot)
    assert (got.i, got.j, got.d, got.t) == (0, 1, 0.0, 0.0)


def test_the_units_and_systems_needed_at_their_edges():
    sep = Separation(0, "stability", 0, 1, 1.0, 0.5, 2.0, 2.5)
    assert units_needed(sep, 100) == pytest.approx(100 * (2.5 / 2.0) ** 2)  # a difference of 1 is a difference
    zero = Separation(0, "stability", 0, 1, 0.0, 0.02, 0.0, 2.5)
    assert units_needed(zero, 1000) == math.inf  # no difference: no size separates it
    assert units_needed(sep, 1000, exponent=0.05) == math.inf  # at MIN_EXPONENT: more units would not help
    assert math.isfinite(units_needed(sep, 1000, exponent=0.0501))
    # the units' part alone exactly at the critical difference: no number of systems brings it below
    edge = Separation(0, "power", 0, 1, 0.05, 0.02, 2.5, 2.5)
    assert systems_needed(edge, 0.05 / 2.5, 0.05, 10) == math.inf


def test_a_criterion_that_is_not_counted_gives_p_1_and_no_critical_value():
    rng = np.random.default_rng(4)
    value = np.array([[0.5, 0.5, 0.5], [0.9, 0.89, 0.6]])
    boot = value + rng.normal(0, 0.02, (200, 2, 3))
    boot[:, 0, :] = boot[:, 0, :1]  # the first criterion: all three the same on every resample (one copy group)
    s = evidence_sets(value, boot, [True] * 3, 0.05, criteria=("stability", "power"))
    assert s.counted.tolist() == [False, True]
    assert s.p_value[0].tolist() == [1.0, 1.0, 1.0] and s.p_upper[0].tolist() == [1.0, 1.0, 1.0]
    assert math.isnan(s.critical[0]) and s.critical.dtype == np.float64 and math.isfinite(s.critical[1])
    assert s.alpha_c == 0.05  # one counted criterion: no Bonferroni share for the other


def test_the_monte_carlo_upper_end_with_one_resample_and_the_paired_se_of_two():
    from scipy.stats import norm

    assert mc_upper([0.01], 1, 0.95)[0] == pytest.approx(0.01 + norm.ppf(0.975) * math.sqrt(0.0099))
    d, lo, hi, se = paired_interval([0.5, 0.4], np.array([[0.5, 0.4], [0.6, 0.4]]), 0, 1, 0.95)
    assert se == pytest.approx(np.std([0.1, 0.2], ddof=1)) and lo < d < hi
