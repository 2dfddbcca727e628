"""Property-based tests (hypothesis): bounds, perfect prediction, invariance
to item order and to relabelling, batching."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.measures import labels as M
from metaeval.engine.confusion import confusion_tensor, merge_classes

def ALL_PARAMS(k):
    return dict(weights=np.full(k, 1.0 / k), f_avg_classes=[0, k - 1], unrelated=k - 1, positive=k - 1)


@st.composite
def labelled(draw, min_k=2, max_k=5, min_n=1, max_n=80):
    k = draw(st.integers(min_k, max_k))
    n = draw(st.integers(min_n, max_n))
    gold = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    pred = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    return k, gold, pred


def _scores(k, gold, pred):
    c = confusion_tensor(gold, pred, k)
    return M.evaluate(c, M.METRIC_IDS, **ALL_PARAMS(k))


@settings(max_examples=300, deadline=None)
@given(labelled())
def test_bounds(case):
    k, gold, pred = case
    for mid, v in _scores(k, gold, pred).items():
        if np.isnan(v):
            assert mid in {"kappa", "kappa_linear", "alpha_nominal", "alpha_ordinal", "alpha_interval"}, mid
            continue
        lo, hi = M.get(mid).bounds
        if mid in ("alpha_nominal", "alpha_ordinal", "alpha_interval"):
            lo = -np.inf  # alpha has no fixed lower bound with two coders
        if mid in ("kappa", "kappa_linear"):
            lo = -np.inf  # weighted kappa can go below -1
        assert lo - 1e-12 <= v <= hi + 1e-12, (mid, v)
    s = _scores(k, gold, pred)
    assert s["mae_micro"] <= k - 1 + 1e-12 and s["mae_macro"] <= k - 1 + 1e-12


@settings(max_examples=200, deadline=None)
@given(labelled(min_n=2))
def test_perfect_prediction_is_best(case):
    k, gold, _ = case
    s = _scores(k, gold, gold)
    present = len(np.unique(gold))
    assert s["accuracy"] == 1.0 and s["mae_micro"] == 0.0 and s["mae_macro"] == 0.0
    assert abs(s["cem_ord"] - 1.0) < 1e-12 and abs(s["fnc_score"] - 1.0) < 1e-12
    if present == k:  # per-class averages reach 1 only when every class occurs
        for mid in ("macro_f1", "macro_f1_hm", "macro_f2", "f1_weighted", "macro_recall", "gmr", "wauc",
                    "wf1", "wf2", "f_avg"):
            assert abs(s[mid] - 1.0) < 1e-12, mid
        for mid in ("informedness", "markedness"):
            assert abs(s[mid] - 1.0) < 1e-12, mid
    if present >= 2:
        for mid in ("kappa", "kappa_linear", "alpha_nominal", "alpha_ordinal", "alpha_interval", "mcc"):
            assert abs(s[mid] - 1.0) < 1e-12, mid
    if (gold == k - 1).any():  # the one-class metrics' class (positive = k - 1) occurs
        for mid in ("f1_class", "precision_class", "recall_class"):
            assert abs(s[mid] - 1.0) < 1e-12, mid


@settings(max_examples=200, deadline=None)
@given(labelled(), st.randoms(use_true_random=False))
def test_item_permutation_invariance(case, rnd):
    k, gold, pred = case
    order = list(range(len(gold)))
    rnd.shuffle(order)
    a, b = _scores(k, gold, pred), _scores(k, gold[order], pred[order])
    for mid in a:
        np.testing.assert_allclose(a[mid], b[mid], rtol=0, atol=1e-12, equal_nan=True)


# (the metrics of named classes move with their class)
NOMINAL = [m for m in M.METRIC_IDS if not M.get(m).ordinal
           and not set(M.get(m).params) & {"f_avg_classes", "unrelated", "positive"}]


@settings(max_examples=200, deadline=None)
@given(labelled(), st.randoms(use_true_random=False))
def test_nominal_metrics_invariant_to_relabelling(case, rnd):
    """Renaming the classes (permuting codes in gold, predictions and the
    weight vector alike) leaves every nominal metric unchanged."""
    k, gold, pred = case
    perm = list(range(k))
    rnd.shuffle(perm)
    perm = np.array(perm)
    w = np.random.default_rng(len(gold)).dirichlet(np.ones(k))
    w_perm = np.empty(k)
    w_perm[perm] = w
    c1 = confusion_tensor(gold, pred, k)
    c2 = confusion_tensor(perm[gold], perm[pred], k)
    a = M.evaluate(c1, NOMINAL, weights=w)
    b = M.evaluate(c2, NOMINAL, weights=w_perm)
    for mid in NOMINAL:
        np.testing.assert_allclose(a[mid], b[mid], rtol=0, atol=1e-12, equal_nan=True, err_msg=mid)


ORDINAL = [m for m in M.METRIC_IDS if M.get(m).ordinal]


@settings(max_examples=200, deadline=None)
@given(labelled())
def test_ordinal_metrics_invariant_to_order_reversal(case):
    """Reversing the class order (i -> K-1-i) preserves every distance
    between positions, so the ordinal metrics do not change."""
    k, gold, pred = case
    a = _scores(k, gold, pred)
    b = _scores(k, k - 1 - gold, k - 1 - pred)
    for mid in ORDINAL:
        np.testing.assert_allclose(a[mid], b[mid], rtol=0, atol=1e-12, equal_nan=True, err_msg=mid)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5), st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**31))
def test_batched_call_equals_one_by_one(k, s, t, seed):
    """Same numbers for a (T, S, K, K) tensor as for each (K, K) matrix."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 20, size=(t, s, k, k))
    batched = M.evaluate(c, M.METRIC_IDS, **ALL_PARAMS(k))
    for i in range(t):
        for j in range(s):
            single = M.evaluate(c[i, j], M.METRIC_IDS, **ALL_PARAMS(k))
            for mid in M.METRIC_IDS:
                np.testing.assert_allclose(batched[mid][i, j], single[mid], rtol=1e-13, atol=1e-13,
                                           equal_nan=True, err_msg=mid)


@settings(max_examples=100, deadline=None)
@given(labelled(min_k=3))
def test_merge_classes_equals_merging_labels(case):
    k, gold, pred = case
    groups = np.arange(k)
    groups[groups == k - 1] = 0  # merge the last class into the first
    groups = np.unique(groups, return_inverse=True)[1]
    merged = merge_classes(confusion_tensor(gold, pred, k), groups)
    direct = confusion_tensor(groups[gold], groups[pred], groups.max() + 1)
    np.testing.assert_array_equal(merged, direct)
