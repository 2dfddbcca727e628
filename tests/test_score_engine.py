"""The metrics of scores on the engine (metaeval.methods.scorer.Scorer):
every way a method resamples them equals a plain loop over the resamples
with scikit-learn or the registry's functions: bootstrap weights (items and
groups, in the engine's column order too), permuted trials of the
randomised test, the jackknife, label noise, re-weighted classes and merged
classes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from metaeval.data.config import DatasetSpec
from metaeval.data.dataset import Dataset
from metaeval.engine.resample import bootstrap_weights, permutations
from metaeval.methods.scorer import Scorer
from metaeval.data.score_data import ScoreView
from metaeval.measures.scores.registry import evaluate


def _binary(seed=0, n=90, systems=4, groups=9):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, n).astype(np.int8)
    g = np.repeat(np.arange(groups), n // groups).astype(np.int16)
    scores = np.round(rng.random((systems, n, 1)) * 6) / 6  # ties
    pred = (scores[:, :, 0] < 0.5).astype(np.int8)  # class 0 is the positive one ("pos")
    ds = Dataset(name="d", labels=("pos", "neg"), item_ids=np.array([f"i{j}" for j in range(n)]), gold=gold,
                 systems=tuple(f"s{k}" for k in range(systems)), kinds=("system",) * systems, predictions=pred,
                 groups=g, group_names=tuple(f"q{j}" for j in range(groups)),
                 scores=ScoreView(scores, ("pos",)))
    spec = DatasetSpec(name="d", gold="g", predictions=(), labels=("pos", "neg"), positive_class="pos",
                       metrics=("accuracy",), score_metrics=("roc_auc", "average_precision", "map", "mrr",
                                                             "avg_recall", "brier", "log_loss", "ece"),
                       gold_format={"group_column": "q"})
    return ds, spec, (gold == 0).astype(int)


def _probs(seed=1, n=120, systems=3, k=3):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, n).astype(np.int8)
    p = rng.dirichlet(np.ones(k), size=(systems, n))
    labels = tuple("abc"[:k])
    ds = Dataset(name="p", labels=labels, item_ids=np.array([f"i{j}" for j in range(n)]), gold=gold,
                 systems=tuple(f"s{j}" for j in range(systems)), kinds=("system",) * systems,
                 predictions=p.argmax(-1).astype(np.int8), scores=ScoreView(p, labels))
    spec = DatasetSpec(name="p", gold="g", predictions=(), labels=labels, metrics=("accuracy",),
                       score_metrics=("roc_auc", "roc_auc_weighted", "hand_till_m", "average_precision", "brier",
                                      "log_loss", "ece"))
    return ds, spec


def _ref(ds, spec, y, ids, weights):
    return evaluate(ids, ds.scores.values, y, ds.groups, weights,
                    len(ds.group_names) if ds.groups is not None else None)


def test_group_resamples_equal_the_registry_on_item_weights():
    ds, spec, y = _binary()
    sc = Scorer(ds, spec, np.arange(4), unit="group")
    w = bootstrap_weights(9, np.arange(6), 3).astype(np.float64)
    got = sc.score(sc.counts(w))
    ref = _ref(ds, spec, y, spec.score_metrics, w[:, ds.groups])
    for m in spec.score_metrics:
        assert np.allclose(got[:, sc.metric_ids.index(m)], ref[m], atol=1e-12, equal_nan=True), m


def test_item_resamples_in_the_engine_s_column_order_equal_the_registry():
    ds, spec, y = _binary()
    spec2 = DatasetSpec(**{**spec.__dict__, "score_metrics": ("roc_auc", "average_precision", "brier", "ece")})
    sc = Scorer(ds, spec2, np.arange(4), unit="item")
    w = bootstrap_weights(ds.n_items, np.arange(5), 7, pos=sc.draw_pos).astype(np.float64)
    got = sc.score(sc.counts(w, engine_order=True))
    items = w[:, sc.draw_pos]  # item i's weight is in column pos[i]
    ref = _ref(ds, spec2, y, spec2.score_metrics, items)
    for m in spec2.score_metrics:
        assert np.allclose(got[:, sc.metric_ids.index(m)], ref[m], atol=1e-12), m
    for b in range(5):  # and scikit-learn on the replicate itself
        for s in range(4):
            assert got[b, sc.metric_ids.index("roc_auc"), s] == pytest.approx(
                skm.roc_auc_score(y, ds.scores.values[s, :, 0], sample_weight=items[b]), abs=1e-12)


def test_a_rank_metric_within_groups_refuses_item_resampling():
    ds, spec, _ = _binary()
    with pytest.raises(Exception, match="resample_unit: group"):
        Scorer(ds, spec, np.arange(4), unit="item")


@pytest.mark.parametrize("unit", ["item", "group"])
def test_permuted_trials_equal_a_loop_over_permuted_scores(unit):
    ds, spec, y = _binary()
    spec2 = spec if unit == "group" else DatasetSpec(**{**spec.__dict__,
                                                         "score_metrics": ("roc_auc", "average_precision", "brier")})
    sc = Scorer(ds, spec2, np.arange(4), unit=unit)
    trials = np.arange(7)
    got = sc.score(sc.permuted_counts(trials, 11))
    units = ds.groups.astype(int) if unit == "group" else np.arange(ds.n_items)
    perm = permutations(int(units.max()) + 1, 4, trials, 11)
    v = ds.scores.values
    for t in trials:
        pv = np.stack([v[perm[t, units, s], np.arange(ds.n_items)] for s in range(4)])  # slot s: system perm[s]
        ref = evaluate(spec2.score_metrics, pv, y, ds.groups, None, len(ds.group_names))
        for m in spec2.score_metrics:
            assert np.allclose(got[t, sc.metric_ids.index(m)], ref[m], atol=1e-12), (t, m)


def test_the_jackknife_leaves_each_group_out():
    ds, spec, y = _binary()
    sc = Scorer(ds, spec, np.arange(4), unit="group")
    jk = np.concatenate([sc.score(c) for c in sc.left_out_counts(chunk=4)])
    for u in range(9):
        ref = _ref(ds, spec, y, spec.score_metrics, (ds.groups != u).astype(float))
        for m in spec.score_metrics:
            assert np.allclose(jk[u, sc.metric_ids.index(m)], ref[m], atol=1e-12), (u, m)


def test_label_noise_moves_the_gold_under_the_scores():
    ds, spec, y = _binary()
    sc = Scorer(ds, spec, np.arange(4), unit="group")
    rng = np.random.default_rng(5)
    gold_rows = np.where(rng.random((6, ds.n_items)) < 0.2, 1 - ds.gold, ds.gold)
    w_units = bootstrap_weights(9, np.arange(6), 2).astype(np.float64)
    got = sc.noisy_score_scores(w_units[:, ds.groups], gold_rows, w_units)
    for r in range(6):
        ref = evaluate(spec.score_metrics, ds.scores.values, (gold_rows[r] == 0).astype(int), ds.groups,
                       w_units[r][ds.groups], 9)
        for m in spec.score_metrics:
            assert np.allclose(got[m][r], ref[m], atol=1e-12), (r, m)


def test_class_weights_and_merged_classes_of_probabilities_equal_scikit_learn():
    ds, spec = _probs()
    sc = Scorer(ds, spec, np.arange(3), unit="item")
    wk = np.array([[2.0, 1.0, 0.5], [1.0, 1.0, 3.0]])
    rows = wk[:, ds.gold]  # each item weighted by its gold class's factor
    got = sc.score_by_items(rows)
    p = ds.scores.values
    for r in range(2):
        for s in range(3):
            assert got["brier"][r, s] == pytest.approx(
                skm.brier_score_loss(ds.gold, p[s], labels=range(3), sample_weight=rows[r]), abs=1e-12)
            assert got["log_loss"][r, s] == pytest.approx(
                skm.log_loss(ds.gold, p[s], labels=range(3), sample_weight=rows[r]), abs=1e-12)
            assert got["roc_auc_weighted"][r, s] == pytest.approx(skm.roc_auc_score(
                ds.gold, p[s], multi_class="ovr", average="weighted", sample_weight=rows[r]), abs=1e-12)
    v, g = sc.merged_score_values((0, 2))  # class c into a: the columns added, the gold relabelled
    assert v.shape == (3, ds.n_items, 2) and np.allclose(v[:, :, 0], p[:, :, 0] + p[:, :, 2])
    assert np.array_equal(g, np.where(ds.gold == 2, 0, ds.gold))
    merged = sc.score_by_items(np.ones((1, ds.n_items)), v, g)
    for s in range(3):
        assert merged["roc_auc"][0, s] == pytest.approx(skm.roc_auc_score(g, v[s, :, 1]), abs=1e-12)
        # the multi-class Brier score (summed over the classes) of the merged task: twice the binary form
        assert merged["brier"][0, s] == pytest.approx(
            skm.brier_score_loss(g, v[s], labels=[0, 1], scale_by_half=False), abs=1e-12)


def test_rows_of_their_own_equal_one_call_per_row():
    from metaeval.measures.scores import multiclass as MC

    ds, spec = _probs()
    rng = np.random.default_rng(3)
    v = ds.scores.values[[0, 1, 2, 0]]
    y = np.stack([ds.gold, rng.integers(0, 3, ds.n_items), ds.gold, ds.gold])
    w = rng.integers(0, 3, (4, ds.n_items)).astype(float)
    for f in (MC.roc_auc, MC.roc_auc_weighted, MC.hand_till_m, MC.average_precision):
        got = f(v, y, w, rows=True)
        for r in range(4):
            assert got[r] == pytest.approx(f(v[r][None], y[r], w[r])[0], abs=1e-12), (f.__name__, r)


def _official_ranking_metrics(scores, y, groups, depth=10):
    """MAP, MRR and AvgRec by a plain loop over the groups, as SemEval-2016
    Task 3's scorer defines them (stable sort by decreasing score, depth
    10, AP over the relevant items retrieved, AvgRec over k = 1..depth)."""
    aps, rrs, hits, mins = [], [], np.zeros(depth), np.zeros(depth)
    for g in sorted(set(groups)):
        idx = [i for i in range(len(y)) if groups[i] == g]
        ranked = sorted(idx, key=lambda i: -scores[i])  # (sorted is stable: ties keep the gold order)
        top = ranked[:depth]
        rel = [y[i] for i in top]
        prec = [sum(rel[:r + 1]) / (r + 1) for r in range(len(rel)) if rel[r]]
        aps.append(sum(prec) / len(prec) if prec else 0.0)
        first = next((r + 1 for r in range(len(rel)) if rel[r]), None)
        rrs.append(1 / first if first else 0.0)
        n_rel = sum(y[i] for i in idx)
        for k in range(1, depth + 1):
            hits[k - 1] += sum(y[i] for i in ranked[:k])
            mins[k - 1] += min(k, n_rel)
    avg = float(np.mean(hits / mins)) if (mins > 0).all() else float("nan")
    return {"map": float(np.mean(aps)), "mrr": float(np.mean(rrs)), "avg_recall": avg}


def test_ranking_metrics_of_summed_terms_equal_a_loop_over_the_groups():
    """terms then combine (the engine's path: sums of per-group statistics)
    against the official definitions by a loop, on groups of 3 to 14 items
    with ties, groups without a relevant item and deeper than 10 items."""
    from metaeval.measures.scores.ranking import combine, terms

    rng = np.random.default_rng(7)
    sizes = rng.integers(3, 15, 12)
    groups = np.repeat(np.arange(12), sizes)
    n = groups.size
    y = (rng.random(n) < 0.35).astype(int)
    y[groups == 3] = 0  # a group without a relevant item
    scores = np.round(rng.random((3, n)) * 5) / 5  # ties
    got = combine(terms(scores, y, groups).sum(axis=0))
    for s in range(3):
        want = _official_ranking_metrics(scores[s].tolist(), y.tolist(), groups.tolist())
        for m in ("map", "mrr", "avg_recall"):
            assert got[m][s] == pytest.approx(want[m], abs=1e-12), (m, s)


def _group_walk(weights, positive, values):
    """AUC and AP of weighted items walked group by group of tied values,
    from the top, in plain Python: every group, one item or many, adds
    ng (tp + pg / 2) to the AUC's sum and pg tp / (tp + fp) to AP's (the
    compiled passes' arithmetic, without their path for a lone item)."""
    tp = fp = auc = ap = 0.0
    order = sorted(range(len(values)), key=lambda i: -values[i])
    k = 0
    while k < len(order):
        v, pg, ng = values[order[k]], 0.0, 0.0
        while k < len(order) and values[order[k]] == v:
            i = order[k]
            if positive[i]:
                pg += weights[i]
            else:
                ng += weights[i]
            k += 1
        auc += ng * (tp + 0.5 * pg)
        tp += pg
        fp += ng
        if tp + fp > 0.0:
            ap += pg * tp / (tp + fp)
    return (auc / (tp * fp) if tp > 0 and fp > 0 else np.nan), (ap / tp if tp > 0 else np.nan)


@pytest.mark.parametrize("ties", [True, False])
def test_the_passes_path_for_a_lone_item_keeps_the_bits_of_the_group_walk(ties):
    """A score that no other item has skips the group arithmetic (and AP's
    division for a negative): the same bits as the walk by groups, with
    counts and with real weights, for one system and for rows of their own."""
    from metaeval.engine import kernels as K

    rng = np.random.default_rng(11 + ties)
    n, b = 120, 6
    values = rng.random(n).round(1) if ties else rng.random(n)
    positive = rng.random(n) < 0.3
    order = np.argsort(-values, kind="stable")
    sv = values[order]
    starts = np.r_[np.flatnonzero(np.r_[True, sv[1:] != sv[:-1]]), n].astype(np.int64)
    for counts, w in ((True, rng.integers(0, 3, (b, n)).astype(float)), (False, rng.random((b, n)))):
        want = np.array([_group_walk(row, positive, values) for row in w])
        got = np.empty((b, 2))
        K.ranked_weights(w.T.copy(), order, positive[:, None].copy(), starts, got)
        np.testing.assert_array_equal(got, want)
        golds = rng.random((b, n)) < 0.3  # a gold per weight row (label noise)
        K.ranked_weights(w.T.copy(), order, golds.T.copy(), starts, got)
        np.testing.assert_array_equal(got, [_group_walk(row, g, values) for row, g in zip(w, golds)])
        if counts or not ties:  # (ranked_rows sorts each row itself: tied real weights add in another order)
            K.ranked_rows(np.tile(values, (b, 1)), np.tile(positive, (b, 1)), w, got)
            np.testing.assert_array_equal(got, want)


def test_the_sorts_kept_are_those_of_the_same_scores_and_within_their_budget(monkeypatch):
    """binary._rankings: the same scores (another array, the same bytes)
    reuse the kept sort; other scores (one value changed) are sorted again,
    and equal a fresh stable sort; the oldest sorts go past the budget."""
    from metaeval.measures.scores import binary as B

    monkeypatch.setattr(B, "_RANKINGS", {})
    rng = np.random.default_rng(2)
    s = rng.random((3, 50)).round(1)
    first = B._rankings(s)
    assert B._rankings(s.copy()) is first
    t = s.copy()
    t[1, 7] += 0.05
    second = B._rankings(t)
    assert second is not first
    for row, (order, starts) in zip(t, second):
        np.testing.assert_array_equal(order, np.argsort(-row, kind="stable"))
        sv = row[order]
        assert starts[-1] == row.size and all(sv[a] == sv[b - 1] for a, b in zip(starts[:-1], starts[1:]))
    monkeypatch.setattr(B, "_KEPT_BYTES", 1)  # room for the newest only
    B._rankings(rng.random((3, 50)))
    assert len(B._RANKINGS) == 1
