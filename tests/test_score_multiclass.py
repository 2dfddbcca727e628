"""Metrics of class probabilities and of rankings within groups
(metaeval.measures.scores.multiclass, .ranking, .registry) against independent
references: scikit-learn (multi-class ROC-AUC, Hand & Till's M, average
precision, Brier score, log loss), a plain loop over the items (top-label
ECE), a plain loop over each group's sorted list written from the SemEval-2016
Task 3 scorer's definition (MAP, MRR, AvgRec); bootstrap replicates as
integer weights equal the items repeated."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm
from sklearn.preprocessing import label_binarize

from metaeval.measures.scores import multiclass as MC
from metaeval.measures.scores import ranking as RK
from metaeval.measures.scores import registry as REG

from .test_score_metrics import _ece_loop  # the binary ECE as a plain loop


def _probs(seed, n=80, systems=3, k=4, ties=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    p = rng.dirichlet(np.ones(k), size=(systems, n))
    if ties:
        p = np.round(p * 4) / 4
        p = p / p.sum(-1, keepdims=True)
    return p, y, rng


def _replicates(rng, n, b, k, y):
    w = rng.multinomial(n, np.full(n, 1 / n), size=b)
    w[:, :k] = np.maximum(w[:, :k], 1)  # every replicate holds every class
    return w


@pytest.mark.parametrize("seed,ties", [(0, False), (1, True), (2, False), (3, True)])
def test_multiclass_metrics_equal_scikit_learn_on_items_repeated_by_their_weights(seed, ties):
    p, y, rng = _probs(seed, ties=ties)
    k = p.shape[2]
    w = _replicates(rng, len(y), 8, k, y)
    got = {m: f(p, y, w) for m, f in [("ovr", MC.roc_auc), ("ovr_w", MC.roc_auc_weighted),
                                      ("m", MC.hand_till_m), ("ap", MC.average_precision),
                                      ("brier", MC.brier), ("log", MC.log_loss)]}
    for b in range(len(w)):
        idx = np.repeat(np.arange(len(y)), w[b])  # the replicate as items repeated
        yb = y[idx]
        for s in range(p.shape[0]):
            pb = p[s, idx]
            assert got["ovr"][b, s] == pytest.approx(skm.roc_auc_score(yb, pb, multi_class="ovr"), abs=1e-12)
            assert got["ovr_w"][b, s] == pytest.approx(
                skm.roc_auc_score(yb, pb, multi_class="ovr", average="weighted"), abs=1e-12)
            assert got["m"][b, s] == pytest.approx(skm.roc_auc_score(yb, pb, multi_class="ovo"), abs=1e-12)
            assert got["ap"][b, s] == pytest.approx(
                skm.average_precision_score(label_binarize(yb, classes=range(k)), pb), abs=1e-12)
            assert got["brier"][b, s] == pytest.approx(skm.brier_score_loss(yb, pb, labels=range(k)), abs=1e-12)
            assert got["log"][b, s] == pytest.approx(skm.log_loss(yb, pb, labels=range(k)), abs=1e-12)


def test_weighted_brier_and_log_loss_equal_scikit_learn_with_sample_weight():
    p, y, rng = _probs(5)
    w = rng.random((4, len(y)))
    for b in range(4):
        for s in range(p.shape[0]):
            assert MC.brier(p, y, w)[b, s] == pytest.approx(
                skm.brier_score_loss(y, p[s], labels=range(4), sample_weight=w[b]), abs=1e-12)
            assert MC.log_loss(p, y, w)[b, s] == pytest.approx(
                skm.log_loss(y, p[s], labels=range(4), sample_weight=w[b]), abs=1e-12)


def _top_label_ece_loop(p, y, w, bins):
    gap, total = [0.0] * bins, 0.0
    for row, yi, wi in zip(p, y, w):
        conf = max(row)
        pred = list(row).index(conf)
        b = min(int(conf * bins), bins - 1)
        gap[b] += wi * ((1.0 if pred == yi else 0.0) - conf)
        total += wi
    return sum(abs(g) for g in gap) / total


@pytest.mark.parametrize("bins", [1, 5, 10, 15])
def test_top_label_ece_equals_a_plain_loop(bins):
    p, y, rng = _probs(11, ties=True)
    w = rng.integers(0, 3, (3, len(y))).astype(float)
    got = MC.ece(p, y, w, bins=bins)
    for b in range(3):
        for s in range(p.shape[0]):
            assert got[b, s] == pytest.approx(_top_label_ece_loop(p[s], y, w[b], bins), abs=1e-12)


def test_binary_columns_give_the_binary_metrics():
    """C = 1 (a binary task's positive-class probability) is the binary metric."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 50)
    q = rng.random((2, 50))
    for f, ref in [(MC.roc_auc, skm.roc_auc_score), (MC.roc_auc_weighted, skm.roc_auc_score),
                   (MC.hand_till_m, skm.roc_auc_score), (MC.average_precision, skm.average_precision_score),
                   (MC.brier, skm.brier_score_loss)]:
        assert f(q, y)[1] == pytest.approx(ref(y, q[1]), abs=1e-12)
    assert MC.ece(q, y)[0] == pytest.approx(_ece_loop(q[0], y, np.ones(len(y)), 10), abs=1e-12)


def test_a_resample_without_a_class_gives_nan_not_a_number_from_fewer_classes():
    p, y, _ = _probs(4, k=3)
    w = (y != 2).astype(float)[None, :]
    assert np.isnan(MC.roc_auc(p, y, w)).all() and np.isnan(MC.hand_till_m(p, y, w)).all()
    assert np.isfinite(MC.brier(p, y, w)).all()


# -- rankings within groups: the SemEval-2016 Task 3 scorer's definitions, as a plain loop ------------------------
def _scorer_loop(scores, y, groups, depth=10):
    """MAP, MRR and AvgRec as the official scorer defines them, one group at a time."""
    aps, rrs = [], []
    hits = np.zeros(depth)
    rel_cut = np.zeros(depth)
    for q in sorted(set(groups)):
        items = [i for i in range(len(y)) if groups[i] == q]  # in file order
        ranked = sorted(items, key=lambda i: -scores[i])  # stable: ties keep the file order
        top = ranked[:depth]
        found, precs, rr = 0, [], 0.0
        for r, i in enumerate(top, 1):
            if y[i]:
                found += 1
                precs.append(found / r)
                rr = rr or 1.0 / r
        aps.append(sum(precs) / found if found else 0.0)
        rrs.append(rr)
        total = sum(y[i] for i in items)
        for k in range(1, depth + 1):
            hits[k - 1] += sum(y[i] for i in top[:k])
            rel_cut[k - 1] += min(k, total)
    return np.mean(aps), np.mean(rrs), np.mean(hits / rel_cut)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6), st.booleans())
def test_map_mrr_avg_recall_equal_the_scorer_s_loop(seed, n_groups, coarse):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_groups)
    groups = np.repeat(np.arange(n_groups), sizes)
    rng.shuffle(groups)  # the groups' items interleaved in the file
    y = rng.random(groups.size) < 0.3
    y[0] = True
    s = rng.random(groups.size)
    if coarse:
        s = np.round(s * 3)  # many ties: the file order decides
    got = RK.combine(RK.terms(s, y, groups).sum(axis=0))
    ref = _scorer_loop(s, y, groups)
    assert got["map"][0] == pytest.approx(ref[0], abs=1e-12)
    assert got["mrr"][0] == pytest.approx(ref[1], abs=1e-12)
    assert got["avg_recall"][0] == pytest.approx(ref[2], abs=1e-12)


def test_group_weights_equal_the_groups_repeated():
    rng = np.random.default_rng(8)
    groups = np.repeat(np.arange(6), 12)
    y = rng.random(groups.size) < 0.25
    y[::12] = True
    s = rng.random((2, groups.size))
    t = RK.terms(s, y, groups)  # (G, S, F)
    w = np.array([2.0, 0, 1, 1, 3, 0])
    got = RK.combine(np.einsum("g,gsf->sf", w, t))
    keep = np.repeat(np.arange(6), w.astype(int))
    for k in range(2):
        aps = [RK.combine(t[g, k])["map"] for g in keep]
        assert got["map"][k] == pytest.approx(np.mean(aps), abs=1e-12)


def test_the_depth_cut_and_groups_without_a_relevant_item():
    # group 0: the relevant item at rank 11 is not retrieved (AP 0, RR 0); group 1 has none (AP 0)
    s = np.r_[np.arange(11, 0, -1), [3.0, 2.0]]
    y = np.r_[np.zeros(10), 1, 0, 0].astype(bool)
    g = np.r_[np.zeros(11), 1, 1]
    got = RK.combine(RK.terms(s, y, g).sum(axis=0))
    assert got["map"][0] == 0 and got["mrr"][0] == 0 and got["avg_recall"][0] == 0
    got = RK.combine(RK.terms(s, np.zeros(13, bool), g).sum(axis=0))
    assert got["map"][0] == 0 and np.isnan(got["avg_recall"][0])


def test_registry_entries_are_found_by_metrics_get():
    from metaeval.measures import labels as M

    for m in REG.SCORE_METRIC_IDS:
        entry = M.get(m)
        assert entry.id == m and entry.direction in ("higher", "lower")
    assert [m for m in REG.SCORE_METRIC_IDS if not REG.SCORE_REGISTRY[m].higher_is_better] == [
        "brier", "log_loss", "ece"]


def test_a_criterion_undefined_by_definition_is_the_priors_of_a_ranking_within_groups():
    from metaeval.verdict.criteria import REGISTRY as CRITERIA

    for m in REG.SCORE_METRIC_IDS + ("accuracy", "unknown"):
        for c in CRITERIA:
            why = REG.not_defined(m, c)
            if m in ("map", "mrr", "avg_recall") and c == "priors":
                assert why == "a ranking within each group has no class prior to re-weight"
            else:
                assert why == "", (m, c)


def test_evaluate_ranked_shares_one_pass_and_equals_each_metric_alone():
    """The one-vs-rest metrics share one sort per class; each equals its
    own function, on the full data, on weight rows, and with ``rows``
    (every row its own system, gold and weights)."""
    p, y, rng = _probs(11, systems=3, k=3, ties=True)
    w = _replicates(rng, len(y), 4, 3, y).astype(float)
    ids = ["hand_till_m", "roc_auc", "average_precision", "roc_auc_weighted"]
    for weights in (None, w):
        got = REG.evaluate_ranked(ids, p, y, weights)
        assert list(got) == ids
        for m in ids:
            np.testing.assert_allclose(got[m], REG.SCORE_REGISTRY[m].fn(p, y, weights), atol=1e-12, err_msg=m)
    yr = np.stack([y, np.roll(y, 1), np.roll(y, 2)])  # (R, N): a gold per row
    got = REG.evaluate_ranked(ids, p, yr, w[:3], rows=True)
    for m in ids:
        want = [REG.SCORE_REGISTRY[m].fn(p[r:r + 1], yr[r], w[r])[0] for r in range(3)]
        np.testing.assert_allclose(got[m], want, atol=1e-12, err_msg=m)


def test_metrics_of_sums_are_their_terms_combined_and_others_are_refused():
    p, y, rng = _probs(12, systems=2, k=3)
    w = rng.integers(0, 3, len(y)).astype(float)
    for m in ("brier", "log_loss", "ece"):
        t = REG.unit_terms(m, p, y)
        assert t.shape == (len(y), 2, REG.n_terms(m))
        np.testing.assert_allclose(REG.combine(m, np.einsum("n,nsf->sf", w, t)), REG.evaluate([m], p, y, None, w)[m],
                                   atol=1e-12)
    assert REG.combine("brier", REG.unit_terms("brier", p, y).sum(0)) == pytest.approx(MC.brier(p, y))
    assert REG.combine("log_loss", REG.unit_terms("log_loss", p, y).sum(0)) == pytest.approx(MC.log_loss(p, y))
    assert REG.combine("ece", REG.unit_terms("ece", p, y).sum(0)) == pytest.approx(MC.ece(p, y))
    with pytest.raises(ValueError) as e:
        REG.unit_terms("roc_auc", p, y)
    assert e.value.args[0] == "'roc_auc' is not a metric of sums"


def test_metrics_of_groups_take_two_or_three_dimensional_scores_and_any_number_of_groups():
    rng = np.random.default_rng(13)
    groups = np.repeat(np.arange(4), 6)
    y = (rng.random(groups.size) < 0.4).astype(int)
    y[::6] = 1
    s = rng.random((2, groups.size))
    t2 = REG.unit_terms("map", s, y, groups)
    np.testing.assert_array_equal(REG.unit_terms("map", s[..., None], y, groups), t2)
    np.testing.assert_array_equal(t2, RK.terms(s, y == 1, groups))
    assert REG.unit_terms("map", s, y, groups, 6).shape == (6, 2, RK.n_terms())
    # the relevant items are the gold 1s: the negatives' ranking is another MAP
    flipped = RK.combine(RK.terms(s, y == 0, groups).sum(0))["map"]
    assert not np.allclose(RK.combine(t2.sum(0))["map"], flipped)
    # evaluate: groups named or counted, weights per item read at each group's first item
    ids = ["map", "mrr", "avg_recall"]
    want = RK.combine(t2.sum(0))
    for n_groups in (None, 4, 6):  # groups 4 and 5 hold no item: they weigh nothing
        got = REG.evaluate(ids, s[..., None], y, groups, None, n_groups)
        for m in ids:
            np.testing.assert_allclose(got[m], want[m], atol=1e-12, err_msg=m)
    gw = np.array([2.0, 0.0, 1.0, 3.0])  # a resample of whole groups, as item weights
    got = REG.evaluate(ids, s, y, groups, np.repeat(gw, 6))
    want = RK.combine(np.einsum("g,gsf->sf", gw, t2))
    for m in ids:
        np.testing.assert_allclose(got[m], want[m], atol=1e-12, err_msg=m)


def test_binary_scores_in_any_of_the_three_shapes_give_the_binary_metrics():
    """(N,), (S, N) and (S, N, 1) are one binary task: every metric equals
    the binary module's (and scikit-learn's log loss, with its clipping)."""
    from metaeval.measures.scores import binary as B

    rng = np.random.default_rng(21)
    y = rng.integers(0, 2, 50)
    s = np.round(rng.random((2, 50)), 1)  # ties
    s[0, :3] = [0.0, 1.0, 1.0]  # probabilities 0 and 1: the clipped log loss
    w = rng.integers(0, 3, (3, 50)).astype(float)
    w[:, :4] = 1
    for v in (s, s[..., None]):
        np.testing.assert_allclose(MC.roc_auc(v, y, w), B.roc_auc(s, y, w), atol=1e-12)
        np.testing.assert_allclose(MC.roc_auc_weighted(v, y, w), B.roc_auc(s, y, w), atol=1e-12)
        np.testing.assert_allclose(MC.hand_till_m(v, y, w), B.roc_auc(s, y, w), atol=1e-12)
        np.testing.assert_allclose(MC.average_precision(v, y, w), B.average_precision(s, y, w), atol=1e-12)
        np.testing.assert_allclose(MC.log_loss(v, y, w), B.log_loss(s, y, w), rtol=1e-12)
        np.testing.assert_allclose(MC.brier(v, y, w), B.brier(s, y, w), rtol=1e-12)
        np.testing.assert_allclose(MC.ece(v, y, w), B.ece(s, y, w), atol=1e-12)
        for k in range(2):
            assert MC.log_loss(v, y)[k] == pytest.approx(skm.log_loss(y, s[k], labels=[0, 1]), rel=1e-12)
    assert MC.roc_auc(s[0], y)[0] == pytest.approx(skm.roc_auc_score(y, s[0]))
    ids = ["roc_auc", "roc_auc_weighted", "average_precision", "hand_till_m"]
    for weights in (w, None):
        got = REG.evaluate_ranked(ids, s, y, weights)
        for m in ids:
            want = (B.average_precision if m == "average_precision" else B.roc_auc)(s, y, weights)
            np.testing.assert_allclose(got[m], want, atol=1e-12, err_msg=m)


def test_a_probability_of_one_is_clipped_as_scikit_learn_s():
    eps = np.finfo(np.float64).eps
    assert MC.log_loss([[[1.0, 0.0, 0.0]]], [0])[0] == -np.log(1 - eps) > 0
    assert MC.log_loss([[[1.0, 0.0, 0.0]]], [1])[0] == -np.log(eps)
    assert MC.log_loss([[[1.0, 0.0, 0.0]]], [0])[0] == pytest.approx(
        skm.log_loss([0], [[1.0, 0.0, 0.0]], labels=[0, 1, 2]), rel=1e-12)


def test_top_label_confidence_of_one_is_in_the_last_bin():
    """A wrong answer given with confidence 1 and a right one at 0.85:
    bins 9 and 8 hold a gap of -1 and 0.15 (ECE 1.15 / 2), not one bin."""
    p = [[[1.0, 0.0, 0.0], [0.85, 0.1, 0.05]]]
    assert MC.ece(p, [1, 0])[0] == pytest.approx(1.15 / 2)
    assert MC.ece(p, [1, 0])[0] == pytest.approx(_top_label_ece_loop(np.array(p[0]), np.array([1, 0]), np.ones(2), 10))


def test_hand_till_m_with_a_gold_per_weight_row_is_each_row_s_own():
    """Label noise gives each weight row its own gold: M of each row equals
    M of that row's gold and weights alone (the pairwise pass of one gold)."""
    p, y, rng = _probs(14, n=40, systems=2, k=3, ties=True)
    ys = np.stack([y, np.roll(y, 3), rng.permutation(y)])
    w = rng.integers(0, 3, (3, len(y))).astype(float)
    w[:, :6] = 1
    got = MC.hand_till_m(p, ys, w)
    for b in range(3):
        np.testing.assert_allclose(got[b], MC.hand_till_m(p, ys[b], w[b]), atol=1e-12)


def test_each_refusal_of_the_metrics_of_probabilities_reads_whole():
    cases = [
        (lambda: MC.roc_auc(np.zeros((1, 2, 3, 4)), [0, 1]), "values (S, N, C), (S, N) or (N,): got shape (1, 2, 3, 4)"),
        (lambda: MC.brier([[[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]], [0, 1, 1], np.ones(2)),
         "weights (..., N) with N = 3: got (2,)"),
        (lambda: MC.ece([[[0.5, 0.5]]], [0], bins=0), "bins: 1 or more"),
        (lambda: MC.item_terms("mae", [[[0.5, 0.5]]], [0]), "not a metric of per-item terms: 'mae'"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert e.value.args[0] == message


def test_one_hot_predictions_as_booleans_are_probabilities_of_zero_and_one():
    """A label system's predictions, one-hot (True/False), read as the
    probabilities 1 and 0 by every metric."""
    p, y, rng = _probs(15, n=40, systems=2, k=3)
    hot = p.argmax(-1)[..., None] == np.arange(3)
    w = rng.integers(0, 3, (2, len(y))).astype(float)
    for f in (MC.roc_auc, MC.roc_auc_weighted, MC.hand_till_m, MC.average_precision, MC.brier, MC.log_loss, MC.ece):
        np.testing.assert_array_equal(f(hot, y, w), f(hot.astype(float), y, w), err_msg=f.__name__)


def test_a_constant_class_column_gives_what_the_compiled_pass_gives():
    """``_pairwise`` answers a constant column (the gameability's one-hot
    and prior systems) without walking the items: the same bits as the
    compiled pass, NaN where a resample lacks a class."""
    from metaeval.engine.kernels import pairwise_auc

    rng = np.random.default_rng(1)
    n, k = 300, 4
    y = rng.integers(0, k, n)
    p = np.stack([np.broadcast_to(np.eye(k)[i], (n, k)) for i in range(k)]
                 + [np.broadcast_to(np.bincount(y, minlength=k) / n, (n, k)), rng.dirichlet(np.ones(k), n)])
    w = rng.integers(0, 3, (40, n)).astype(float)
    w[5, y == 3] = 0.0  # a resample without class 3
    w[6] = 0.0          # nor any class
    w[7] = rng.random(n)  # weights that are not counts
    got = MC._pairwise(p, y, w)
    want = np.zeros_like(got)
    res = np.empty((w.shape[0], k))
    for s in range(p.shape[0]):
        for i in range(k):
            order = np.argsort(-p[s, :, i], kind="stable")
            sv = p[s, order, i]
            starts = np.r_[np.flatnonzero(np.r_[True, sv[1:] != sv[:-1]]), n].astype(np.int64)
            pairwise_auc(w, order, y[order], starts, i, k, res)
            res[:, i] = 0.0
            want[:, s, i] = res
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[5, :5, :, 3][:, :3]).all() and np.isnan(got[6, :, 0, 1]).all()
