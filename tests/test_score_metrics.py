"""Metrics of scores and probabilities (metaeval.score_metrics) against
scikit-learn with sample_weight and against plain loops: random scores with
ties, bootstrap weights (a resample is a weight vector), all resamples in
one call; the conventions where a resample has no positive item."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm

from metaeval.measures.scores import binary as SM


def _data(seed, n=60, systems=4, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.random((systems, n))
    if ties:  # scores on a coarse grid: many ties
        s = np.round(s * 8) / 8
    return s, y, rng


@pytest.mark.parametrize("seed", range(6))
def test_each_metric_equals_scikit_learn_on_every_system_and_resample(seed):
    s, y, rng = _data(seed)
    w = rng.multinomial(len(y), np.full(len(y), 1 / len(y)), size=30).astype(float)  # 30 bootstrap replicates
    w[:, :2] = np.maximum(w[:, :2], 1)  # every replicate holds both classes
    got = {"auc": SM.roc_auc(s, y, w), "ap": SM.average_precision(s, y, w), "brier": SM.brier(s, y, w),
           "log": SM.log_loss(s, y, w)}
    assert all(v.shape == (30, 4) for v in got.values())
    for b in range(30):
        for k in range(4):
            sw = w[b]
            assert got["auc"][b, k] == pytest.approx(skm.roc_auc_score(y, s[k], sample_weight=sw), abs=1e-12)
            assert got["ap"][b, k] == pytest.approx(skm.average_precision_score(y, s[k], sample_weight=sw),
                                                     abs=1e-12)
            assert got["brier"][b, k] == pytest.approx(skm.brier_score_loss(y, s[k], sample_weight=sw), abs=1e-12)
            assert got["log"][b, k] == pytest.approx(skm.log_loss(y, s[k], sample_weight=sw, labels=[0, 1]),
                                                     abs=1e-12)


def test_one_system_and_no_weights_give_the_full_data_s_value():
    s, y, _ = _data(7, systems=1)
    assert SM.roc_auc(s[0], y).shape == (1,)
    assert SM.roc_auc(s[0], y)[0] == pytest.approx(skm.roc_auc_score(y, s[0]), abs=1e-12)
    assert SM.average_precision(s, y)[0] == pytest.approx(skm.average_precision_score(y, s[0]), abs=1e-12)


def _ece_loop(p, y, w, bins):
    total, gap = sum(w), [0.0] * bins
    for pi, yi, wi in zip(p, y, w):
        b = min(int(pi * bins), bins - 1)
        gap[b] += wi * (yi - pi)
    return sum(abs(g) for g in gap) / total


@pytest.mark.parametrize("bins", [1, 5, 10, 15])
def test_ece_equals_a_plain_loop_with_the_same_bins(bins):
    s, y, rng = _data(3, ties=False)
    s[0, :3] = [0.0, 1.0, 0.5]  # the edges: 1 falls in the last bin
    w = rng.integers(0, 3, (5, len(y))).astype(float)
    got = SM.ece(s, y, w, bins=bins)
    for b in range(5):
        for k in range(s.shape[0]):
            assert got[b, k] == pytest.approx(_ece_loop(s[k], y, w[b], bins), abs=1e-12)


def test_a_resample_without_one_class_is_nan_not_an_error():
    s, y, _ = _data(1)
    w = np.ones((2, len(y)))
    w[0, y == 1] = 0  # no positive item
    w[1, y == 0] = 0  # no negative item
    auc, ap = SM.roc_auc(s, y, w), SM.average_precision(s, y, w)
    assert np.isnan(auc).all() and np.isnan(ap[0]).all() and (ap[1] == 1).all()


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="0 or 1"):
        SM.roc_auc([0.1, 0.2], [0, 2])
    with pytest.raises(ValueError, match="finite"):
        SM.roc_auc([0.1, np.nan], [0, 1])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        SM.brier([0.1, 1.2], [0, 1])
    with pytest.raises(ValueError, match="weights"):
        SM.roc_auc([0.1, 0.2], [0, 1], np.ones(3))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.booleans(), st.integers(0, 3)), min_size=2, max_size=30))
def test_auc_is_the_share_of_positive_negative_pairs_ordered_right(rows):
    """The definition, pair by pair (ties one half), on any weights."""
    s = np.array([r[0] for r in rows], float)
    y = np.array([int(r[1]) for r in rows])
    w = np.array([r[2] for r in rows], float)
    pos, neg = (y == 1) & (w > 0), (y == 0) & (w > 0)
    got = SM.roc_auc(s, y, w)[0]
    if not pos.any() or not neg.any():
        assert np.isnan(got)
        return
    num = sum(w[i] * w[j] * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
              for i in np.flatnonzero(pos) for j in np.flatnonzero(neg))
    assert got == pytest.approx(num / (w[pos].sum() * w[neg].sum()), abs=1e-12)
    # invariant to a monotone transform of the scores
    assert SM.roc_auc(np.exp(s), y, w)[0] == pytest.approx(got, abs=1e-12)


def test_a_constant_system_takes_the_shortcut_and_equals_scikit_learn():
    """A system with one score for every item (a degenerate system) is summed, not walked: same numbers."""
    s, y, rng = _data(3)
    s[1] = 0.3
    w = rng.integers(0, 3, (5, len(y))).astype(float)
    w[:, :2] = 1
    auc, ap = SM.roc_auc(s, y, w), SM.average_precision(s, y, w)
    for b in range(5):
        assert auc[b, 1] == 0.5 == pytest.approx(skm.roc_auc_score(y, s[1], sample_weight=w[b]))
        assert ap[b, 1] == pytest.approx(skm.average_precision_score(y, s[1], sample_weight=w[b]), abs=1e-12)
    no_pos = SM.roc_auc(s, y, (y == 0)[None].astype(float))
    assert np.isnan(no_pos).all() and np.isnan(SM.average_precision(s, y, (y == 0)[None].astype(float))).all()


def test_each_refusal_names_its_fault_in_full():
    cases = [
        (lambda: SM.roc_auc([0.1, 0.2, 0.3], [0, 1]),
         "scores (S, N) or (N,) and gold (N,) or one per weight row: got (1, 3), (2,) and weights (3,)"),
        (lambda: SM.roc_auc(np.zeros((2, 3, 4)), [0, 1, 0]),
         "scores (S, N) or (N,) and gold (N,) or one per weight row: got (2, 3, 4), (3,) and weights (3,)"),
        (lambda: SM.roc_auc([0.1, 0.2, 0.3], [[0, 1, 1], [1, 0, 1]]),  # a gold per row needs its weight rows
         "scores (S, N) or (N,) and gold (N,) or one per weight row: got (1, 3), (2, 3) and weights (3,)"),
        (lambda: SM.roc_auc([0.1, 0.2], [0, 2]), "gold: 0 or 1 per item (1: the positive class)"),
        (lambda: SM.roc_auc([0.1, np.inf], [0, 1]), "scores: every score finite"),
        (lambda: SM.log_loss([0.1, -0.2], [0, 1]), "probabilities in [0, 1]"),
        (lambda: SM.roc_auc([0.1, 0.2], [0, 1], np.ones((2, 3))), "weights (..., N) with N = 2: got (2, 3)"),
        (lambda: SM.ece([0.1, 0.2], [0, 1], bins=0), "bins: 1 or more"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert e.value.args[0] == message


def test_a_constant_system_counts_weights_below_one_and_its_nan_rows():
    """The shortcut of a constant system: a positive weight of 0.5 is a
    positive class (AUC 1/2, AP its share), a row without a positive is NaN
    (AUC and AP), a row without a negative is NaN (AUC) and AP 1."""
    s = np.full(4, 0.3)
    y = np.array([1, 0, 0, 1])
    w = np.array([[0.5, 0.5, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.5, 0.0, 0.0, 0.25], [1.0, 1.0, 1.0, 1.0]])
    auc, ap = SM.roc_auc(s, y, w)[:, 0], SM.average_precision(s, y, w)[:, 0]
    np.testing.assert_array_equal(auc, [0.5, np.nan, np.nan, 0.5])
    np.testing.assert_array_equal(ap, [0.5, np.nan, 1.0, 0.5])
    # the same through the walk over tied groups (a second, non-constant system beside it)
    both = SM.average_precision(np.stack([s, [0.9, 0.1, 0.2, 0.8]]), y, w)
    np.testing.assert_array_equal(both[:, 0], ap)


def test_a_constant_system_with_one_gold_per_weight_row():
    """Label noise gives each weight row its own gold: a constant system
    is then walked, row by row, as any other."""
    s = np.full(5, 0.7)
    y = np.array([[1, 0, 0, 1, 1], [0, 0, 0, 0, 1]])
    w = np.ones((2, 5))
    np.testing.assert_array_equal(SM.roc_auc(s, y, w)[:, 0], [0.5, 0.5])
    np.testing.assert_allclose(SM.average_precision(s, y, w)[:, 0], [0.6, 0.2])


def test_true_false_scores_are_the_scores_one_and_zero():
    """A system's yes/no decisions read as scores (booleans) rank, score
    and calibrate as 1 and 0."""
    s, y, rng = _data(4, systems=2)
    b = s > 0.5
    w = rng.integers(0, 3, (3, len(y))).astype(float)
    for f in (SM.roc_auc, SM.average_precision, SM.brier, SM.log_loss, SM.ece):
        np.testing.assert_array_equal(f(b, y, w), f(b.astype(float), y, w), err_msg=f.__name__)
    np.testing.assert_array_equal(SM.ranked_rows(b, y), SM.ranked_rows(b.astype(float), y))


def test_the_mean_metrics_take_one_weight_vector_or_any_stack_of_them():
    """Brier, log loss and ECE on weights (N,), (B, N) and (A, B, N): each
    row its own weighted mean, as scikit-learn's with sample_weight."""
    s, y, rng = _data(5, systems=3, ties=False)
    w3 = rng.integers(0, 4, (2, 3, len(y))).astype(float)
    w3[..., :2] = 1
    for f, ref in ((SM.brier, skm.brier_score_loss), (SM.log_loss, skm.log_loss)):
        assert f(s, y).shape == (3,)
        np.testing.assert_allclose(f(s, y), [ref(y, s[k]) for k in range(3)], rtol=1e-12)
        got = f(s, y, w3)
        assert got.shape == (2, 3, 3)
        for a in range(2):
            for b in range(3):
                np.testing.assert_allclose(got[a, b], [ref(y, s[k], sample_weight=w3[a, b]) for k in range(3)],
                                           rtol=1e-12)
    got = SM.ece(s, y, w3)
    for a in range(2):
        for b in range(3):
            np.testing.assert_allclose(got[a, b], [_ece_loop(s[k], y, w3[a, b], 10) for k in range(3)], rtol=1e-12)
    np.testing.assert_allclose(SM.ece(s, y), [_ece_loop(s[k], y, np.ones(len(y)), 10) for k in range(3)],
                               rtol=1e-12)


def test_ranked_rows_gives_auc_and_ap_per_row_as_the_resampled_metrics():
    s, y, rng = _data(6, systems=3)
    w = rng.integers(0, 3, (3, len(y))).astype(float)
    w[:, :2] = 1
    got = SM.ranked_rows(s, np.broadcast_to(y, s.shape), w)
    assert got.shape == (3, 2)
    for r in range(3):
        assert got[r, 0] == pytest.approx(SM.roc_auc(s[r], y, w[r])[0], abs=1e-12)
        assert got[r, 1] == pytest.approx(SM.average_precision(s[r], y, w[r])[0], abs=1e-12)
    # integer weights, and labels read as true where non-zero
    np.testing.assert_array_equal(SM.ranked_rows(s, y, w.astype(int)), got)


def test_a_probability_of_one_falls_in_the_last_bin():
    """p = 1 is in the last bin, not past it: a negative item given
    probability 1 is a calibration gap of 1."""
    for bins in (1, 2, 10):
        assert SM.ece([1.0], [0], bins=bins)[0] == 1.0
        assert SM.ece([1.0, 0.0], [0, 1], bins=bins)[0] == (0.0 if bins == 1 else 1.0)  # one bin: they cancel
