"""The scoring engine's counts of every kind of metric (confusion tensors,
span statistics, sums of per-item terms) against loops over units: resamples
given as unit weights, the jackknife's left-out units, the complement of a
half, repeated rows; the terms of per-item metrics under another gold, by
class and with two classes merged; and the engine's refusals."""

from __future__ import annotations

import re

import numpy as np
import pytest

from metaeval.measures import labels as M
from metaeval.data.config import ConfigError, DatasetSpec
from metaeval.data.dataset import Dataset
from metaeval.engine.confusion import confusion_tensor
from metaeval.methods.scorer import Counts, Scorer
from metaeval.measures.items import ITEM_REGISTRY, register_item_metric, unregister_item_metric

from .conftest import FIXTURES


def cost_terms(gold, pred, items):
    """A cost per item that tells the classes apart (|p - g| + 1 if wrong)
    and weighs the items by their ids (1, 2 or 3): the item ids reach it."""
    w = np.array([1.0 + int(str(i)[1:]) % 3 for i in items])
    wrong = (pred != gold[None, :]).astype(float)
    return np.stack([w * wrong * (np.abs(pred - gold[None, :]) + 1.0), np.broadcast_to(w, wrong.shape)], axis=-1)


def mean_cost(t):
    return t[..., 0] / t[..., 1]


@pytest.fixture(autouse=True)
def _item_metric():
    register_item_metric("cost_t", cost_terms, mean_cost, range=(0, 3), higher_is_better=False)
    yield
    for m in list(ITEM_REGISTRY):
        unregister_item_metric(m)


def _items(seed=0, n=60, s=3, k=4, groups=None):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, n).astype(np.int8)
    pred = np.where(rng.random((s, n)) < 0.5, gold, rng.integers(0, k, (s, n))).astype(np.int8)
    labels = tuple("abcd"[:k])
    g = None if groups is None else (np.arange(n) % groups).astype(np.int16)
    ds = Dataset(name="d", labels=labels, item_ids=np.array([f"i{j}" for j in range(n)]), gold=gold,
                 systems=tuple(f"s{j}" for j in range(s)), kinds=("system",) * s, predictions=pred,
                 groups=g, group_names=None if groups is None else tuple(f"g{j}" for j in range(groups)))
    spec = DatasetSpec(name="d", gold="g", predictions=(), labels=labels, metrics=("accuracy",),
                       item_metrics=("cost_t",))
    return ds, spec


def _terms(gold, pred):
    return cost_terms(np.asarray(gold), np.asarray(pred), [f"i{j}" for j in range(len(gold))])  # (S, N, 2)


# ---------------------------------------------------------------- per-item terms
@pytest.mark.parametrize("groups", [None, 7])
def test_item_sums_of_resamples_and_of_left_out_units_against_loops(groups):
    ds, spec = _items(groups=groups)
    sc = Scorer(ds, spec, np.arange(3), unit="item" if groups is None else "group")
    n_units = ds.n_items if groups is None else groups
    unit = np.arange(ds.n_items) if groups is None else ds.groups
    t = _terms(ds.gold, ds.predictions)  # (S, N, F)
    w = np.random.default_rng(1).integers(0, 3, (5, n_units))
    got = sc.counts(w)
    for b in range(5):
        want = np.einsum("n,snf->sf", w[b][unit].astype(float), t)
        assert np.allclose(got.items[b], want)
        assert np.array_equal(got.confusion[b], sum(w[b][u] * confusion_tensor(ds.gold[unit == u],
                                                                                ds.predictions[:, unit == u], 4)
                                                    for u in range(n_units)))
    total = t.sum(1)
    assert np.allclose(sc.total.items, total)
    left = np.concatenate([c.items for c in sc.left_out_counts(chunk=3)])
    assert left.shape == (n_units, 3, 2)
    for u in range(n_units):
        assert np.allclose(left[u], total - t[:, unit == u].sum(1))
    if groups is None:  # weights drawn into the engine's column order
        assert np.allclose(sc.counts(w[:, sc.eng.order], engine_order=True).items, got.items)


@pytest.mark.parametrize("groups", [None, 5])
def test_item_terms_by_gold_and_by_class_against_loops(groups):
    ds, spec = _items(seed=2, groups=groups)
    sc = Scorer(ds, spec, np.arange(3), unit="item" if groups is None else "group")
    by_gold = sc.item_terms_by_gold()  # (N, S, K, F)
    assert by_gold.shape == (ds.n_items, 3, 4, 2)
    for j in range(4):
        assert np.allclose(by_gold[:, :, j], _terms(np.full(ds.n_items, j), ds.predictions).transpose(1, 0, 2))
    assert sc.item_terms_by_gold() is by_gold  # computed once
    by_class = sc.item_class_stats()  # (U, S, K, F): each unit's terms by gold class
    unit = np.arange(ds.n_items) if groups is None else ds.groups
    n_units = ds.n_items if groups is None else groups
    assert by_class.shape == (n_units, 3, 4, 2)
    t = _terms(ds.gold, ds.predictions)
    for u in range(n_units):
        for j in range(4):
            items = (unit == u) & (ds.gold == j)
            assert np.allclose(by_class[u, :, j], t[:, items].sum(1))
    assert sc.item_class_stats() is by_class


@pytest.mark.parametrize("groups", [None, 6])
@pytest.mark.parametrize("pair", [(1, 3), (3, 0)])
def test_item_merged_stats_relabel_the_second_class_as_the_first(groups, pair):
    ds, spec = _items(seed=3, groups=groups)
    sc = Scorer(ds, spec, np.arange(3), unit="item" if groups is None else "group")
    a, b = sorted(pair)
    gold = np.where(ds.gold == b, a, ds.gold)
    pred = np.where(ds.predictions == b, a, ds.predictions)
    t = _terms(gold, pred)  # (S, N, F)
    got = sc.item_merged_stats(pair)
    unit = np.arange(ds.n_items) if groups is None else ds.groups
    n_units = ds.n_items if groups is None else groups
    assert got.shape == (n_units, 3, 2)
    for u in range(n_units):
        assert np.allclose(got[u], t[:, unit == u].sum(1))
    assert not np.allclose(got.sum(0), _terms(ds.gold, ds.predictions).sum(1))  # the merge changes the costs
    assert sc.item_merged_stats(pair) is got  # computed once per pair


# ---------------------------------------------------------------- span statistics
def _spans():
    from metaeval.data.dataset import load_dataset

    spec = DatasetSpec.from_config("toxic", dict(format="semeval2021_tsd", gold="tsd/gold.csv",
                                                 predictions=["tsd/predictions/*.txt"]))
    return spec, load_dataset(spec, FIXTURES)


def test_span_statistics_of_resamples_and_of_left_out_articles_against_loops():
    spec, ds = _spans()
    assert len(ds.systems) >= 3
    select = np.array([0, 2])  # a selection of the systems: the statistics are theirs
    sc = Scorer(ds, spec, select, unit="group")
    per = ds.spans.statistics(select).transpose(1, 0, 2)  # (A, S, F)
    a = per.shape[0]
    assert sc.n_units == a and sc.counts().spans is sc.total.spans and sc.n_systems == len(select)
    w = np.random.default_rng(4).integers(0, 3, (4, a))
    got = sc.counts(w)
    assert got.spans.shape == (4, len(select), per.shape[2])
    for b in range(4):
        assert np.allclose(got.spans[b], sum(w[b, u] * per[u] for u in range(a)))
    left = np.concatenate([c.spans for c in sc.left_out_counts(chunk=2)])
    for u in range(a):
        assert np.allclose(left[u], per.sum(0) - per[u])
    from metaeval.engine.resample import permuted_sums
    from metaeval.measures.spans import evaluate_spans

    scores = sc.score(got)  # (B, M, S): the span metrics of the resamples' statistics
    want = evaluate_spans(got.spans, spec.span_metrics)
    for j, m in enumerate(sc.metric_ids):
        assert np.allclose(scores[:, j], want[m], equal_nan=True), m
    assert np.array_equal(sc.permuted_counts([0, 1, 2], 3).spans, permuted_sums(per, [0, 1, 2], 3))
    half = (np.arange(a) % 2).astype(float)[None, :]
    rest = sc.total - sc.counts(half)
    assert np.allclose(rest.spans, sc.counts(1 - half).spans)
    assert rest.confusion is None and rest.items is None


def test_span_metrics_are_resampled_by_article():
    spec, ds = _spans()
    with pytest.raises(ConfigError, match=re.escape("dataset 'toxic': span metrics are resampled by article "
                                                    "(resample_unit: group)")):
        Scorer(ds, spec, np.arange(len(ds.systems)), unit="item")


def test_group_resamples_need_two_groups():
    ds, spec = _items(groups=1)
    with pytest.raises(ConfigError) as e:
        Scorer(ds, spec, np.arange(3), unit="group")
    assert str(e.value) == ("dataset 'd': resample_unit 'group' needs at least 2 groups; it has 1 ('g0'), so every "
                            "resample would be the whole data (use resample_unit: item)")
    ds, spec = _items()
    with pytest.raises(ConfigError, match=re.escape("dataset 'd': resample_unit 'group' needs a group column")):
        Scorer(ds, spec, np.arange(3), unit="group")


# ---------------------------------------------------------------- Counts
def _counts(rng, with_ranked=False):
    return Counts(rng.random((2, 3, 4, 4)), rng.random((2, 3, 5)), rng.random((2, 3, 2)), rng.random((2, 3, 6)),
                  rng.random((2, 7)), rng.random((2, 3, 2)) if with_ranked else None)


def test_counts_subtract_every_kind_and_repeat_every_row():
    rng = np.random.default_rng(5)
    x, y = _counts(rng), _counts(rng)
    d = x - y
    for f in ("confusion", "spans", "items", "scores", "weights"):
        assert np.allclose(getattr(d, f), getattr(x, f) - getattr(y, f)), f
    assert d.ranked is None
    none = Counts(None, None) - Counts(None, None)
    assert all(getattr(none, f) is None for f in ("confusion", "spans", "items", "scores", "weights", "ranked"))
    src = _counts(rng, with_ranked=True)
    rep = src.repeat(3)
    for f in ("confusion", "spans", "items", "scores", "weights", "ranked"):
        v = getattr(rep, f)
        assert v.shape[0] == 6 and np.array_equal(v, np.repeat(getattr(src, f), 3, axis=0)), f
    assert Counts(None, None).repeat(2) == Counts(None, None)


@pytest.mark.parametrize("which", ["self", "other"])
def test_permuted_scores_have_no_complement(which):
    rng = np.random.default_rng(6)
    plain, permuted = _counts(rng), _counts(rng, with_ranked=True)
    a, b = (permuted, plain) if which == "self" else (plain, permuted)
    with pytest.raises(ValueError, match="^counts of permuted scores have no complement$"):
        a - b


# ---------------------------------------------------------------- metrics of scores
def test_every_auc_of_a_binary_task_permuted_by_group_is_the_auc():
    """Whole groups permuted on a binary task merge pre-sorted blocks: every
    rank metric there is the positive class's AUC or AP."""
    from .test_score_engine import _binary

    ds, spec, _ = _binary()
    ids = ("roc_auc", "roc_auc_weighted", "hand_till_m", "average_precision")
    spec = DatasetSpec(**{**spec.__dict__, "score_metrics": ids})
    sc = Scorer(ds, spec, np.arange(4), unit="group")
    r = sc.permuted_counts(np.arange(5), 3).ranked  # (T, S, 4)
    assert r.shape == (5, 4, 4)
    assert np.array_equal(r[..., 1], r[..., 0]) and np.array_equal(r[..., 2], r[..., 0])
    assert not np.allclose(r[..., 3], r[..., 0])
    again = sc.permuted_counts(np.arange(5), 3).ranked  # the sorted blocks are kept and give the same
    assert np.array_equal(again, r)


@pytest.mark.parametrize("k,pair", [(3, (0, 1)), (3, (2, 1)), (3, (0, 2))])
def test_merged_score_values_renumber_the_classes_above_the_merged_one(k, pair):
    from .test_score_engine import _probs

    ds, spec = _probs(k=k)
    sc = Scorer(ds, spec, np.arange(3), unit="item")
    a, b = sorted(pair)
    v, g = sc.merged_score_values(pair)
    p = ds.scores.values
    keep = [c for c in range(k) if c != b]
    want = p[:, :, keep].copy()
    want[:, :, a] += p[:, :, b]
    assert np.allclose(v, want)
    relabel = np.array([keep.index(a) if c == b else keep.index(c) for c in range(k)])
    assert np.array_equal(g, relabel[ds.gold])


def test_merged_score_values_of_a_binary_task_are_none():
    from .test_score_engine import _binary

    ds, spec, _ = _binary()
    assert Scorer(ds, spec, np.arange(4), unit="group").merged_score_values((0, 1)) is None


def test_ranked_metrics_of_the_complement_of_a_half():
    """total - half is the other half for the metrics of ranks too: their
    item weights are subtracted like every count."""
    from .test_score_engine import _binary

    ds, spec, _ = _binary()
    sc = Scorer(ds, spec, np.arange(4), unit="group")
    half = (np.arange(9) % 2).astype(float)[None, :]
    rest = sc.score(sc.total - sc.counts(half))
    assert np.allclose(rest, sc.score(sc.counts(1 - half)), equal_nan=True)
    assert not np.allclose(rest, sc.score(sc.total), equal_nan=True)


def test_the_whole_set_scores_of_metrics_of_scores_without_resamples():
    from metaeval.measures.scores.registry import evaluate

    from .test_score_engine import _binary

    ds, spec, y = _binary()
    sc = Scorer(ds, spec, np.arange(4), unit=None)
    got = sc.score(sc.total)
    ref = evaluate(spec.score_metrics, ds.scores.values, y, ds.groups, None, len(ds.group_names))
    for m in spec.score_metrics:
        assert np.allclose(got[sc.metric_ids.index(m)], ref[m], atol=1e-12), m
    with pytest.raises(ValueError, match="^a scorer of the whole set \\(unit None\\) has no resamples$"):
        sc.counts(np.ones((1, ds.n_items)))


def test_metrics_of_scores_alone_and_in_any_order():
    """A dataset with metrics of scores only, in an order that puts a
    metric of sums before those ranking within groups (which share one
    block of statistics)."""
    from metaeval.measures.scores.registry import evaluate

    from .test_score_engine import _binary

    ds, spec, y = _binary()
    ids = ("brier", "mrr", "ece", "map", "avg_recall", "roc_auc")
    spec = DatasetSpec(**{**spec.__dict__, "metrics": (), "score_metrics": ids})
    sc = Scorer(ds, spec, np.arange(4), unit="group")
    assert sc.n_systems == 4 and sc.metric_ids == list(ids)
    w = np.random.default_rng(7).integers(0, 3, (4, 9)).astype(float)
    got = sc.score(sc.counts(w))
    ref = evaluate(ids, ds.scores.values, y, ds.groups, w[:, ds.groups], 9)
    for m in ids:
        assert np.allclose(got[:, sc.metric_ids.index(m)], ref[m], atol=1e-12, equal_nan=True), m


def test_metrics_of_scores_need_the_systems_scores():
    ds, spec = _items()
    spec = DatasetSpec(**{**spec.__dict__, "score_metrics": ("brier",)})
    with pytest.raises(ConfigError) as e:
        Scorer(ds, spec, np.arange(3), unit="item")
    assert str(e.value) == "dataset 'd': metrics of scores ['brier'] need the systems' scores"


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("unit", ["item", "group"])
def test_permuted_ranked_metrics_of_probabilities_against_a_loop(unit, k):
    """Several classes: each trial's slots take a unit's scores from the
    permuted systems and are ranked again, in batches bounded by memory."""
    from metaeval.engine.resample import permutations
    from metaeval.measures.scores.registry import evaluate_ranked

    from .test_score_engine import _probs

    ds, spec = _probs(n=60, k=k)  # two classes: a probability per class, not one score per item
    groups = (np.arange(60) % 6).astype(np.int16)
    ds = Dataset(**{**ds.__dict__, "groups": groups, "group_names": tuple(f"g{j}" for j in range(6))})
    ids = ("roc_auc", "average_precision")
    spec = DatasetSpec(**{**spec.__dict__, "score_metrics": ids})
    sc = Scorer(ds, spec, np.arange(3), unit=unit)
    trials = np.arange(4)
    got = sc.permuted_counts(trials, 5).ranked  # (T, S, 2)
    units = groups.astype(int) if unit == "group" else np.arange(60)
    perm = permutations(int(units.max()) + 1, 3, trials, 5)
    assert ds.scores.values.shape[2] == k
    v = ds.scores.values
    for t in trials:
        pv = np.stack([v[perm[t, units, s], np.arange(60)] for s in range(3)])
        ref = evaluate_ranked(list(ids), pv, ds.gold.astype(np.int64), None)
        for j, m in enumerate(ids):
            assert np.allclose(got[t, :, j], ref[m], atol=1e-12), (t, m)
    assert np.array_equal(sc._permuted_ranked(trials, 5, max_bytes=1), got)  # one trial a batch


def test_select_systems_of_none_is_an_empty_index():
    from metaeval.methods.scorer import select_systems

    ds, _ = _items()
    ds = Dataset(**{**ds.__dict__, "kinds": ("baseline",) * 3})
    sel = select_systems(ds, [])
    assert sel.dtype == np.intp and sel.size == 0 and ds.predictions[sel].shape == (0, ds.n_items)
    assert select_systems(ds, ["s1"]).tolist() == [1]


def test_two_groups_are_enough_to_resample():
    ds, spec = _items(groups=2)
    assert Scorer(ds, spec, np.arange(3), unit="group").n_units == 2


def seven(c):
    return np.full(np.shape(c)[:-2], 7.0)


def seven_of_terms(t):
    return t[..., 0] * 0 + 7.0


@pytest.mark.parametrize("kind", ["confusion", "items"])
def test_a_custom_metric_is_held_to_its_contract_on_the_dataset_s_systems(kind):
    from metaeval.measures.custom import MetricContractError, register_metric, unregister_metric

    ds, spec = _items()
    if kind == "confusion":
        register_metric("bad_c", seven, range=(0, 1))
        spec = DatasetSpec(**{**spec.__dict__, "metrics": ("accuracy", "bad_c"), "item_metrics": ()})
    else:
        register_item_metric("bad_i", cost_terms, seven_of_terms, range=(0, 1))
        spec = DatasetSpec(**{**spec.__dict__, "item_metrics": ("bad_i",)})
    want = ("custom metric 'bad_c' (seven): expected values in its range [0, 1]; found 7 on the systems of "
            "dataset 'd' (matrix 0, predicted x gold: [[10, 2, 1, 2], [2, 6, 4, 2], [2, 1, 10, 0], [0, 3, 4, 11]])"
            if kind == "confusion" else
            "custom metric 'bad_i' (cost_terms, seven_of_terms): expected finite values in its range [0, 1]; found 7 on "
            "the systems of dataset 'd' (system 0)")
    try:
        with pytest.raises(MetricContractError) as e:
            Scorer(ds, spec, np.arange(3), unit="item")
        assert str(e.value) == want
    finally:
        if kind == "confusion":
            unregister_metric("bad_c")


def test_item_resamples_of_ranked_metrics_in_item_order():
    """Weights in item order (not drawn into the engine's columns) reach the
    rank metrics as they are."""
    from metaeval.measures.scores.registry import evaluate

    from .test_score_engine import _binary

    ds, spec, y = _binary()
    spec = DatasetSpec(**{**spec.__dict__, "score_metrics": ("roc_auc", "brier")})
    sc = Scorer(ds, spec, np.arange(4), unit="item")
    w = np.random.default_rng(8).integers(0, 3, (3, ds.n_items)).astype(float)
    got = sc.score(sc.counts(w))
    ref = evaluate(spec.score_metrics, ds.scores.values, y, None, w)
    for m in spec.score_metrics:
        assert np.allclose(got[:, sc.metric_ids.index(m)], ref[m], atol=1e-12), m


def test_score_by_items_of_the_named_metrics_only():
    from .test_score_engine import _probs

    ds, spec = _probs()
    sc = Scorer(ds, spec, np.arange(3), unit="item")
    w = np.ones((2, ds.n_items))
    assert set(sc.score_by_items(w, ids=["brier"])) == {"brier"}
    assert set(sc.score_by_items(w)) == {m for m in spec.score_metrics}


def test_a_dataset_of_per_item_metrics_only():
    ds, spec = _items()
    spec = DatasetSpec(**{**spec.__dict__, "metrics": ()})
    sc = Scorer(ds, spec, np.arange(3), unit="item")
    assert sc.metric_ids == ["cost_t"] and sc.n_systems == 3
    w = np.ones((2, ds.n_items))
    got = sc.counts(w)
    assert got.confusion is None and np.allclose(got.items[0], _terms(ds.gold, ds.predictions).sum(1))


def test_counts_without_per_item_metrics_have_none():
    from .test_score_engine import _binary

    ds, spec, _ = _binary()
    sc = Scorer(ds, spec, np.arange(4), unit="group")
    got = sc.counts(np.ones((1, 9)))
    assert got.items is None and got.spans is None


def test_a_custom_metric_with_a_parameter_is_checked_with_the_dataset_s_parameters():
    from metaeval.measures.custom import register_metric, unregister_metric

    ds, spec = _items()
    register_metric("w_check", lambda c, weights: M.wauc(c, weights), needs=["weights"], range=(0, 1))
    try:
        spec = DatasetSpec(**{**spec.__dict__, "metrics": ("accuracy", "w_check"),
                              "weights": {"w": (0.1, 0.2, 0.3, 0.4)}, "default_weights": "w"})
        sc = Scorer(ds, spec, np.arange(3), unit="item")
        assert np.allclose(sc.score(sc.total)[1], M.wauc(sc.eng.total, [0.1, 0.2, 0.3, 0.4]))
    finally:
        unregister_metric("w_check")


def test_the_jackknife_of_rank_metrics_leaves_each_item_out():
    from metaeval.measures.scores.registry import evaluate

    from .test_score_engine import _binary

    ds, spec, y = _binary(n=30, groups=3)
    spec = DatasetSpec(**{**spec.__dict__, "score_metrics": ("roc_auc", "average_precision", "brier")})
    sc = Scorer(ds, spec, np.arange(4), unit="item")
    jk = np.concatenate([sc.score(c) for c in sc.left_out_counts(chunk=7)])
    assert jk.shape[0] == 30
    for u in range(30):
        w = np.ones(30)
        w[u] = 0
        ref = evaluate(spec.score_metrics, ds.scores.values, y, None, w)
        for m in spec.score_metrics:
            assert np.allclose(jk[u, sc.metric_ids.index(m)], ref[m], atol=1e-12), (u, m)
