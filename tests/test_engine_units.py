"""The engine's building blocks one by one: confusion tensors (one system,
many, per group, merged classes) against loops and scikit-learn, and the
ranking conventions (orientation, pairs, competition ranks, Kendall's tau in
both passes) against scipy and loops over the pairs."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import confusion_matrix

from metaeval.engine import ranking as R
from metaeval.engine.confusion import confusion_by_group, confusion_tensor, merge_classes


# ---------------------------------------------------------------- confusion tensors
@pytest.mark.parametrize("seed", range(4))
def test_confusion_tensor_of_one_and_of_many_systems_against_sklearn(seed):
    rng = np.random.default_rng(seed)
    k, n, s = 4, 57, 3
    gold = rng.integers(0, k, n)
    preds = rng.integers(0, k, (s, n))
    many = confusion_tensor(gold, preds, k)
    assert many.shape == (s, k, k) and many.dtype == np.int64
    for i in range(s):
        want = confusion_matrix(gold, preds[i], labels=range(k)).T  # rows: predicted
        assert np.array_equal(many[i], want)
        assert np.array_equal(confusion_tensor(gold, preds[i], k), want)
        assert np.array_equal(confusion_tensor(list(gold), list(preds[i]), k), want)


def test_confusion_tensor_of_no_items_is_zero():
    assert np.array_equal(confusion_tensor([], [], 3), np.zeros((3, 3)))
    assert confusion_tensor([], np.zeros((2, 0)), 3).shape == (2, 3, 3)


@pytest.mark.parametrize("gold,pred", [([[0, 1]], [0, 1]), ([[0, 1], [1, 0]], [0, 1]), ([0, 1], [0, 1, 1]), ([0, 1], [[[0, 1]]]),
                                       ([0, 1], [[0, 1, 0]])])
def test_confusion_tensor_refuses_mismatched_shapes(gold, pred):
    msg = (f"gold must be (N,) and predictions (N,) or (S, N); got {np.shape(gold)}, {np.shape(pred)}")
    with pytest.raises(ValueError, match=re.escape(msg)):
        confusion_tensor(gold, pred, 2)


@pytest.mark.parametrize("gold,pred,msg", [
    ([0, 3, 1], [0, 1, 1], "gold codes must lie in 0..2, got range 0..3"),
    ([0, -1, 1], [0, 1, 1], "gold codes must lie in 0..2, got range -1..1"),
    ([0, 2, 1], [0, 1, 5], "predicted codes must lie in 0..2, got range 0..5"),
    ([0, 2, 1], [[0, 1, 2], [-2, 1, 1]], "predicted codes must lie in 0..2, got range -2..2"),
])
def test_confusion_tensor_refuses_codes_outside_the_classes(gold, pred, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        confusion_tensor(gold, pred, 3)
    groups = [0] * len(gold)
    with pytest.raises(ValueError, match=re.escape(msg)):
        confusion_by_group(gold, pred, groups, 1, 3)


def test_the_edges_of_the_code_ranges_are_accepted():
    # codes 0 and K-1 are classes; the largest group code G-1 is a group
    c = confusion_tensor([0, 2], [2, 0], 3)
    assert c[2, 0] == 1 and c[0, 2] == 1
    g = confusion_by_group([0, 2], [2, 0], [0, 1], 2, 3)
    assert g[1, 0, 0, 2] == 1 and g[0, 0, 2, 0] == 1


@pytest.mark.parametrize("seed", range(4))
def test_confusion_by_group_against_a_loop(seed):
    rng = np.random.default_rng(seed)
    k, n, s, g = 3, 70, 2, 4
    gold = rng.integers(0, k, n)
    preds = rng.integers(0, k, (s, n))
    groups = rng.integers(0, g - 1, n)  # the last group has no item
    got = confusion_by_group(gold, preds, groups, g, k)
    assert got.shape == (g, s, k, k) and got.dtype == np.int64
    want = np.zeros((g, s, k, k), dtype=np.int64)
    for t, sy in itertools.product(range(n), range(s)):
        want[groups[t], sy, preds[sy, t], gold[t]] += 1
    assert np.array_equal(got, want)
    # one system given as (N,): one system axis of length 1
    assert np.array_equal(confusion_by_group(gold, preds[1], groups, g, k), want[:, 1:2])
    assert np.array_equal(got.sum(0), confusion_tensor(gold, preds, k))


@pytest.mark.parametrize("dtype", [np.uint8, np.float64])
def test_codes_of_any_numeric_type_are_read_as_integers(dtype):
    """uint8 codes would wrap around in the combined code of 6 groups, 3
    systems and 5 classes (up to 469); float codes of whole numbers are the
    same classes."""
    rng = np.random.default_rng(11)
    gold, preds, groups = rng.integers(0, 5, 200), rng.integers(0, 5, (3, 200)), rng.integers(0, 6, 200)
    want = confusion_by_group(gold, preds, groups, 6, 5)
    got = confusion_by_group(gold.astype(dtype), preds.astype(dtype), groups.astype(dtype), 6, 5)
    assert np.array_equal(got, want)
    assert np.array_equal(confusion_tensor(gold.astype(dtype), preds.astype(dtype), 5), want.sum(0))


def test_confusion_by_group_refuses_group_codes_outside_the_groups():
    with pytest.raises(ValueError, match=re.escape("group codes must lie in 0..1, got range 0..2")):
        confusion_by_group([0, 1, 1], [0, 1, 1], [0, 2, 1], 2, 2)


@pytest.mark.parametrize("groups", [[0, 0, 1], [1, 0, 1], [0, 1, 2], [2, 1, 0, 0], [0, 0, 0, 1]])
def test_merge_classes_equals_merging_the_labels(groups):
    rng = np.random.default_rng(len(groups) * 10 + groups[0])
    k = len(groups)
    gold = rng.integers(0, k, 60)
    preds = rng.integers(0, k, (3, 60))
    g = np.asarray(groups)
    m = g.max() + 1
    c = confusion_tensor(gold, preds, k)
    merged = merge_classes(c, groups)
    assert merged.shape == (3, m, m) and merged.dtype == c.dtype
    assert np.array_equal(merged, confusion_tensor(g[gold], g[preds], m))
    # float counts (resampled tensors) merge as floats
    assert np.array_equal(merge_classes(c.astype(float) / 2, groups), merged / 2)


# ---------------------------------------------------------------- ranking conventions
def test_orient_rounds_negates_and_puts_undefined_last():
    s = R.orient([0.1 + 0.2, 0.3, np.nan, 0.5])
    assert s[0] == s[1] and s[2] == -np.inf and s[3] == 0.5
    assert R.orient([0.1 + 0.2, 0.3], higher_is_better=False).tolist() == [-0.3, -0.3]
    # one direction per metric (rows)
    both = R.orient([[0.2, 0.4], [0.2, 0.4]], np.array([[True], [False]]))
    assert both.tolist() == [[0.2, 0.4], [-0.2, -0.4]]
    assert R.orient([1e-13, 0.0])[0] == 0.0  # below TIE_DECIMALS: a tie
    assert R.TIE_DECIMALS == 12 and R.orient([1e-12])[0] == 1e-12
    assert R.orient(np.array([2, 1], dtype=np.int64)).dtype == np.float64


@pytest.mark.parametrize("s", [0, 1, 2, 5])
def test_system_pairs_in_the_order_of_combinations(s):
    pairs = R.system_pairs(s)
    assert pairs.dtype == np.int64 and pairs.shape == (s * (s - 1) // 2, 2)
    assert [tuple(p) for p in pairs.tolist()] == list(itertools.combinations(range(s), 2))


@pytest.mark.parametrize("seed", range(5))
def test_competition_rank_against_scipy(seed):
    key = np.random.default_rng(seed).integers(0, 5, 12).astype(float)
    assert np.array_equal(R.competition_rank(key), stats.rankdata(key, method="min"))


def _tau_loop(x, y, variant):
    nc = nd = tx = ty = 0
    s = len(x)
    for i, j in itertools.combinations(range(s), 2):
        a, b = np.sign(x[i] - x[j]) if x[i] != x[j] else 0, np.sign(y[i] - y[j]) if y[i] != y[j] else 0
        nc += a * b > 0
        nd += a * b < 0
        tx += a == 0
        ty += b == 0
    p = s * (s - 1) / 2
    if variant == "a":
        return (nc - nd) / p if p else np.nan
    den = np.sqrt((p - tx) * (p - ty))
    return (nc - nd) / den if den > 0 else np.nan


@pytest.mark.parametrize("variant", ["a", "b"])
@pytest.mark.parametrize("big", [False, True], ids=["numpy", "compiled"])
def test_kendall_tau_in_both_passes_against_a_loop(variant, big, monkeypatch):
    if big:
        monkeypatch.setattr(R, "SMALL_TAU", 0)  # every call takes the compiled pass
    rng = np.random.default_rng(7)
    s = 9
    x = rng.integers(0, 4, (30, s)).astype(float)  # many ties
    x[3] = 1.0  # a ranking that is all ties
    x[4, :3] = -np.inf  # undefined scores tie with each other
    y = rng.integers(0, 6, s).astype(float)
    got = R.kendall_tau(x, y, variant)
    assert got.shape == (30,)
    want = np.array([_tau_loop(r, y, variant) for r in x])
    assert np.allclose(got, want, equal_nan=True, atol=0, rtol=1e-15)
    assert np.isnan(got[3]) == (variant == "b")
    if variant == "b":
        for r in range(30):
            if not np.isnan(want[r]) and np.isfinite(x[r]).all():
                assert got[r] == pytest.approx(stats.kendalltau(x[r], y).statistic, abs=1e-12)


def test_both_passes_give_the_same_bits(monkeypatch):
    rng = np.random.default_rng(8)
    x = rng.integers(0, 5, (40, 12)).astype(float)
    y = rng.integers(0, 5, (40, 12)).astype(float)
    small = {v: R.kendall_tau(x, y, v) for v in "ab"}
    monkeypatch.setattr(R, "SMALL_TAU", 0)
    for v in "ab":
        assert np.array_equal(R.kendall_tau(x, y, v), small[v], equal_nan=True)
    assert R.kendall_tau(x[:, None, :], y[None, :3, :]).shape == (40, 3)


def test_the_numpy_pass_is_taken_up_to_its_bound(monkeypatch):
    x = np.arange(10.0)
    calls = []
    import metaeval.engine.kernels as K
    monkeypatch.setattr(K, "tau_rows", lambda *a: calls.append(a) or a[3].fill(0.5))
    monkeypatch.setattr(R, "SMALL_TAU", 100)  # 1 row * 10 * 10 comparisons: numpy
    assert R.kendall_tau(x, x) == 1.0 and not calls
    monkeypatch.setattr(R, "SMALL_TAU", 99)
    assert R.kendall_tau(x, x) == 0.5 and len(calls) == 1


def test_kendall_tau_refusals():
    with pytest.raises(ValueError, match=re.escape("x and y must rank the same systems, got 3 and 2")):
        R.kendall_tau([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=re.escape("tau variant must be 'a' or 'b', got 'c'")):
        R.kendall_tau([1, 2, 3], [1, 2, 3], "c")


def test_tau_matrix_against_a_loop():
    rng = np.random.default_rng(9)
    scores = rng.integers(0, 4, (5, 8)).astype(float)
    for v in "ab":
        m = R.tau_matrix(scores, v)
        want = [[_tau_loop(a, b, v) for b in scores] for a in scores]
        assert np.allclose(m, want, equal_nan=True)
    assert R.tau_matrix(scores).tolist() == R.tau_matrix(scores, "b").tolist()
