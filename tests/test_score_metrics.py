"""Metrics of scores and probabilities (metaeval.score_metrics) against
scikit-learn with sample_weight and against plain loops: random scores with
ties, bootstrap weights (a resample is a weight vector), all resamples in
one call; the conventions where a resample has no positive item."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm

from metaeval.scores import binary as SM


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
