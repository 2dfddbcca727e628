"""The Model Confidence Set (metaeval.verdict.mcs) against a plain loop of METHODS
9.2, its copies, and its error rate on simulated nulls where the answer is
known (METHODS 9.2's own numbers: 12 equal candidates with paired
correlation 0.8, B = 200)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metaeval.verdict.mcs import critical_value, model_confidence_set


def plain_mcs(v, boot, alpha):
    """METHODS 9.2 written out pair by pair and replicate by replicate, each
    pair's replicates centred at their own mean (metaeval.verdict.mcs says why, and
    how it deviates from 9.2's centring at the observed difference):
    returns the set at ``alpha`` and the MCS p-value of each eliminated
    candidate (survivors: None)."""
    v = [float(x) for x in v]
    b, m = len(boot), len(v)
    alive = list(range(m))
    pv = [None] * m
    running = 0.0
    while len(alive) > 1:
        se, t, centre = {}, {}, {}
        for i in alive:
            for j in alive:
                if i == j:
                    continue
                diffs = [boot[r][i] - boot[r][j] for r in range(b)
                         if not (math.isnan(boot[r][i]) or math.isnan(boot[r][j]))]
                mean = sum(diffs) / len(diffs)
                s = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (len(diffs) - 1))
                se[i, j], centre[i, j] = s, mean
                t[i, j] = (v[i] - v[j]) / s if s > 0 else 0.0
        big_t = max(abs(x) for x in t.values())
        count, n_def = 0, 0
        for r in range(b):
            vals = [abs((boot[r][i] - boot[r][j]) - centre[i, j]) / se[i, j] for (i, j) in se
                    if se[i, j] > 0 and not (math.isnan(boot[r][i]) or math.isnan(boot[r][j]))]
            if vals:
                n_def += 1
                count += max(vals) >= big_t
        p = (1 + count) / (n_def + 1)
        if p >= alpha:
            break
        running = max(running, p)
        worst = {i: max(t[j, i] for j in alive if j != i) for i in alive}
        top = max(worst.values())
        e = min((i for i in alive if worst[i] == top), key=lambda i: (v[i], i))
        pv[e] = running
        alive.remove(e)
    return set(alive), pv


def _draw(seed, m=6, b=120, gap=0.0, rho=0.8, nan_share=0.0):
    rng = np.random.default_rng(seed)
    mu = np.linspace(0, gap, m)[rng.permutation(m)]
    common = rng.normal(size=(b, 1))
    boot = mu + np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.normal(size=(b, m))
    v = mu + 0.3 * rng.normal(size=m) * np.sqrt(1 - rho)
    if nan_share:
        boot[rng.random(boot.shape) < nan_share] = np.nan
    return v, boot


@hsettings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 7), st.sampled_from([0.0, 0.5, 2.0]), st.sampled_from([0.0, 0.05]),
       st.sampled_from([0.05, 0.2, 0.0125]))
def test_the_mcs_equals_a_plain_loop_of_methods_9_2(seed, m, gap, nan_share, alpha):
    v, boot = _draw(seed, m, 60, gap, nan_share=nan_share)
    keep, pv = plain_mcs(v, boot.tolist(), alpha)
    r = model_confidence_set(v, boot)
    assert set(np.flatnonzero(r.members(alpha)).tolist()) == keep
    for i, p in enumerate(pv):
        if p is not None:
            assert r.p_value[i] == pytest.approx(p, abs=1e-12)
        else:  # a survivor's p-value (of the elimination continued) is at least alpha
            assert r.p_value[i] >= alpha
    assert np.nanmax(r.p_value) == 1.0


def test_a_biased_bootstrap_does_not_inflate_the_critical_value():
    """Replicates whose differences sit away from the observed ones (the
    criteria's resamples are biased: fewer distinct units in a resample's
    half-splits) must not widen the set: the null distribution is centred
    at each pair's own mean, so shifting one candidate's replicates leaves
    every p-value as it was."""
    v, boot = _draw(5, 5, 300, gap=1.0)
    shifted = boot.copy()
    shifted[:, 2] -= 3.0 * boot.std()  # one candidate's resamples biased downwards
    a, b = model_confidence_set(v, boot), model_confidence_set(v, shifted)
    np.testing.assert_allclose(a.p_value, b.p_value)
    assert critical_value(v, boot, np.ones(5, bool), 0.05) == pytest.approx(
        critical_value(v, shifted, np.ones(5, bool), 0.05))


def test_the_sets_at_every_level_are_nested():
    v, boot = _draw(3, 8, 200, gap=1.5)
    r = model_confidence_set(v, boot)
    sets = [r.members(a) for a in (0.01, 0.05, 0.1, 0.3)]
    for wide, narrow in zip(sets, sets[1:]):
        assert (narrow <= wide).all()
    assert r.members(0.01).any()


@hsettings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6), st.sampled_from([0.0, 1.0, 3.0]))
def test_an_exact_copy_never_changes_the_set_and_is_kept_with_its_original(seed, m, gap):
    v, boot = _draw(seed, m, 80, gap)
    j = seed % m
    r = model_confidence_set(v, boot)
    r2 = model_confidence_set(np.append(v, v[j]), np.column_stack([boot, boot[:, j]]))
    assert np.array_equal(r2.p_value[:m], r.p_value)
    assert r2.p_value[m] == r.p_value[j]
    assert r2.copies[m] == r2.copies[j]


def test_candidates_outside_the_competition_have_no_p_value():
    v, boot = _draw(1, 4, 50)
    r = model_confidence_set(v, boot, participants=[True, False, True, True])
    assert np.isnan(r.p_value[1]) and not r.members(0.05)[1]
    v2 = v.copy()
    v2[2] = np.nan
    assert np.isnan(model_confidence_set(v2, boot).p_value[2])
    assert model_confidence_set([0.5], np.ones((10, 1))).p_value.tolist() == [1.0]


def test_a_pair_without_spread_gives_no_evidence():
    boot = np.tile([0.5, 0.4], (50, 1))  # constant differences: se 0
    r = model_confidence_set([0.5, 0.4], boot)
    assert r.members(0.05).all()


def _null_coverage(draws, m, b, rho, alpha, seed):
    kept_all = 0
    rng = np.random.default_rng(seed)
    for _ in range(draws):
        common = rng.normal(size=(b + 1, 1))
        x = np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.normal(size=(b + 1, m))
        v, boot = x[0], x[1:]  # the point values are one more draw of the same law: truly equal candidates
        kept_all += model_confidence_set(v, boot).members(alpha).all()
    return kept_all / draws


def test_truly_equal_candidates_are_all_kept_at_the_nominal_rate():
    """METHODS 9.2: 12 truly equal candidates, paired correlation 0.8, B
    200: all kept in about 93.5 % of draws at alpha 0.05.  Checked at
    1 - alpha - 3 Monte Carlo standard errors over 400 draws."""
    n, alpha = 400, 0.05
    share = _null_coverage(n, 12, 200, 0.8, alpha, seed=20210306)
    assert share >= 1 - alpha - 3 * math.sqrt(alpha * (1 - alpha) / n)


@pytest.mark.parametrize("gap,point_at_truth,named", [(3, True, 0.9), (6, False, 0.85)])
def test_a_real_advantage_is_found(gap, point_at_truth, named):
    """The truly best candidate is kept, and a gap of ``gap`` standard
    deviations of a difference names it alone: in most draws at 3 when the
    point values are their expectations (METHODS 9.2: 95 %), and at 6 when
    the point values are one more noisy draw (at 3 they are then often
    within noise of each other: 40 % of draws here)."""
    rng = np.random.default_rng(7)
    alone = best_kept = 0
    n, m, b, rho = 200, 6, 200, 0.8
    sd_diff = math.sqrt(2 * (1 - rho))
    for _ in range(n):
        mu = np.zeros(m)
        mu[0] = gap * sd_diff
        common = rng.normal(size=(b + 1, 1))
        x = mu + np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.normal(size=(b + 1, m))
        v = mu if point_at_truth else x[0]
        boot = x[1:] - x[1:].mean(axis=0) + mu  # replicates spread around the truth
        s = model_confidence_set(v, boot).members(0.05)
        best_kept += s[0]
        alone += s[0] and s.sum() == 1
    assert best_kept / n >= 0.97
    assert alone / n >= named


def test_the_critical_value_is_what_a_pair_must_reach():
    v, boot = _draw(11, 2, 400)
    c = critical_value(v, boot, [True, True], 0.05)
    se = np.std(boot[:, 0] - boot[:, 1], ddof=1)
    for d in (0.99 * c * se, 1.01 * c * se):  # just short of it, just beyond it
        v2 = np.array([v[1] + d, v[1]])
        boot2 = boot - v + v2  # the same spread around the new values
        rejected = not model_confidence_set(v2, boot2).members(0.05).all()
        assert rejected == (d > c * se)
    assert np.isnan(critical_value(v, boot, [True, False], 0.05))


def _groups_by_loop(v, b, part):
    """Candidates equal to 1e-12 on the data and every replicate (NaN equal
    to NaN only) share the smallest index of their group; -1 outside."""
    from metaeval.verdict.mcs import COPY_TOLERANCE

    x = np.vstack([v[None, :], b])
    label = [-1] * v.size
    for i in range(v.size):
        if not part[i] or label[i] >= 0:
            continue
        for j in range(v.size):
            same = all((math.isnan(x[r, i]) and math.isnan(x[r, j])) or abs(x[r, i] - x[r, j]) <= COPY_TOLERANCE
                       for r in range(x.shape[0]))
            if part[j] and label[j] < 0 and same:
                label[j] = i
    return label


@pytest.mark.parametrize("seed", range(8))
def test_copy_groups_equal_a_plain_loop(seed):
    from metaeval.verdict.mcs import copy_groups

    rng = np.random.default_rng(seed)
    m = 6
    v = rng.uniform(0.4, 0.6, m)
    b = v + rng.normal(0, 0.02, (30, m))
    b[rng.random((30, m)) < 0.05] = np.nan
    for i, j in ((1, 0), (3, 0), (5, 2)):  # copies (NaN where the original is), of index 0 too
        if rng.random() < 0.7:
            v[i], b[:, i] = v[j], b[:, j]
    if rng.random() < 0.5:
        b[:, 4], v[4] = b[:, 2], v[2]  # a copy up to where one of them is undefined
        b[3, 4] = np.nan
    part = rng.random(m) < 0.8
    assert copy_groups(v, b, part).tolist() == _groups_by_loop(v, b, part)
    assert len(set(_groups_by_loop(v, b, np.ones(m, bool)))) < m  # copies do occur
    assert copy_groups(v, b).tolist() == _groups_by_loop(v, b, np.ones(m, bool))
    as_ints = copy_groups(v, b, part.astype(int))  # 0/1 flags read as booleans
    assert as_ints.dtype == np.int64 and as_ints.tolist() == _groups_by_loop(v, b, part)


def _critical_by_loop(tstar, alpha):
    """The smallest c with (1 + #{T* >= c}) / (n + 1) < alpha, over the
    candidates c in {0} and just above each T*; inf when none."""
    n = len(tstar)
    for c in sorted([0.0] + [float(np.nextafter(t, np.inf)) for t in tstar]):
        if (1 + sum(t >= c for t in tstar)) / (n + 1) < alpha:
            return c
    return math.inf


@pytest.mark.parametrize("n, alpha", [(9, 0.05), (19, 0.05), (20, 0.05), (99, 0.05), (199, 0.01), (39, 0.05)])
def test_the_critical_value_is_the_smallest_that_rejects(n, alpha):
    """On replicates whose T*_b are known: a pair of candidates with fixed
    se gives T*_b = |centred difference| / se; the critical value is the
    definition's smallest c, inf when n is too small for alpha."""
    rng = np.random.default_rng(n)
    v = np.array([0.5, 0.45])
    b = v + rng.normal(0, [0.02, 0.03], (n, 2))
    b[n // 3, 1] = np.nan  # a replicate left out of the pair
    diff = b[:, 0] - b[:, 1]
    diff = diff[np.isfinite(diff)]
    se = np.std(diff, ddof=1)
    tstar = list(np.abs(diff - diff.mean()) / se)  # one pair: T*_b = |centred difference| / se
    want = _critical_by_loop(tstar, alpha)
    assert critical_value(v, b, [True, True], alpha) == pytest.approx(want, rel=1e-12)  # (up to an ulp)
    assert critical_value(v, b, [1, 0], alpha) != critical_value(v, b, [1, 1], alpha) or math.isnan(
        critical_value(v, b, [1, 0], alpha))
    assert math.isnan(critical_value(v, b, [True, False], alpha))  # one member: nothing to separate


def test_the_mcs_result_records_the_order_the_copies_and_the_stages():
    """Eliminations in order (copies together, the survivor last), the copy
    labels, and each stage's p-value, whose running maximum is the p-value
    of the candidates eliminated at that stage."""
    rng = np.random.default_rng(5)
    common = rng.normal(size=(400, 1))
    v = np.array([0.80, 0.60, 0.79, 0.60, np.nan])
    b = v + 0.01 * rng.normal(size=(400, 5)) + 0.02 * common
    b[:, 3] = b[:, 1]  # 3 copies 1
    r = model_confidence_set(v, b)
    assert r.copies.tolist() == [0, 1, 2, 1, -1]
    assert r.order == (1, 3, 2, 0) and len(r.stages) == 2
    assert r.p_value[1] == r.p_value[3] == r.stages[0]
    assert r.p_value[2] == max(r.stages) and r.p_value[0] == 1.0 and math.isnan(r.p_value[4])
    assert r.members(r.p_value[2]).tolist() == [True, False, True, False, False]
    assert r.members(np.nextafter(r.p_value[2], 1)).tolist() == [True, False, False, False, False]
    # one participant: no test, its p-value 1; none: nothing
    one = model_confidence_set(v, b, participants=[True, False, False, False, False])
    assert one.order == (0,) and one.stages == () and one.p_value[0] == 1.0 and np.isnan(one.p_value[1:]).all()
    none = model_confidence_set(v, b, participants=[0, 0, 0, 0, 0])
    assert none.order == () and none.stages == () and none.copies.tolist() == [-1] * 5
    assert np.isnan(none.p_value).all() and not none.members(0.0).any()
    assert r.members(0.0).tolist() == [True, True, True, True, False]  # NaN: never a member, at any level
    with pytest.raises(ValueError, match=r"^boot must be \(B, M\) with M = 5, got \(400, 4\)$"):
        model_confidence_set(v, b[:, :4])
    with pytest.raises(ValueError, match=r"^boot must be \(B, M\) with M = 5, got \(5,\)$"):
        model_confidence_set(v, b[0])


def test_tied_candidates_are_eliminated_lower_index_first():
    """The tie rule of the docstring: among candidates with the same
    ``max_j t_ji`` and the same point value, the lower index goes first (three
    equal point values: every t is 0; the replicates differ, so they are not
    copies)."""
    rng = np.random.default_rng(11)
    v = np.array([0.5, 0.5, 0.5])
    b = v + 0.01 * rng.normal(size=(300, 3))
    r = model_confidence_set(v, b)
    assert r.copies.tolist() == [0, 1, 2]
    assert r.order == (0, 1, 2)
    assert r.order[-1] == 2 and r.p_value.tolist() == [1.0, 1.0, 1.0]
    # reversed columns: the same rule on the new indices, not on the values' history
    assert model_confidence_set(v, b[:, ::-1]).order == (0, 1, 2)
