"""Metrics of per-item terms (issue 31, item 2): accuracy written as per-item
terms is accuracy in every table (the item engine agrees with the confusion
engine on every resample, split, permutation, noisy gold and re-weighted
prior); an item-weighted metric equals a plain loop; the contract is held
on the dataset's items."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.measures.custom import MetricContractError
from metaeval.measures.items import ITEM_REGISTRY, register_item_metric, unregister_item_metric


def acc_terms(gold, pred, items):
    right = (pred == gold[None, :]).astype(float)
    return np.stack([right, np.ones_like(right)], axis=-1)


def ratio(t):
    return t[..., 0] / t[..., 1]


@pytest.fixture(autouse=True)
def _clean():
    yield
    for m in list(ITEM_REGISTRY):
        unregister_item_metric(m)


def _data(seed=1, n=300, groups=False, skew=False):
    rng = np.random.default_rng(seed)
    p = [0.7, 0.2, 0.1] if skew else None
    g = rng.choice(["a", "b", "c"], n, p=p)
    ids = [f"i{i}" for i in range(n)]
    systems = {f"s{i}": pd.Series(np.where(rng.random(n) < 0.35 + 0.1 * i, g, rng.choice(["a", "b", "c"], n)),
                                  index=ids) for i in range(6)}
    grp = [f"g{i % 25}" for i in range(n)] if groups else None
    return pd.Series(g, index=ids), systems, grp


@pytest.mark.parametrize("groups", [False, True])
def test_accuracy_as_per_item_terms_is_accuracy_in_every_table(groups):
    """Every criterion (stability, power, label noise, class priors),
    scores, intervals, tests, similarity and stability: the item engine's
    numbers are the confusion engine's, column for column."""
    gold, systems, grp = _data(groups=groups, skew=True)
    extra = dict(groups=grp, resample_unit="group") if groups else {}
    few = metaeval.api.settings(min_systems=4, prior_gammas=[0, 2], noise_rates=[0.05, 0.1], noise_repeats=3)
    res = metaeval.meta_evaluate(gold, systems, metrics={
        "accuracy": None, "macro_recall": None,
        "item_acc": {"terms": acc_terms, "combine": ratio, "range": [0, 1]}},
        n_splits=40, tukey_trials=200, bootstrap_replicates=200, criteria_replicates=60,
        properties=False, **extra, settings=few)
    t = res.tables
    scores = t["scores.csv"]
    assert scores["item_acc"].tolist() == scores["accuracy"].tolist()
    for name, key in (("intervals.csv", ["system"]), ("significance.csv", ["a", "b"]),
                      ("discriminative_power.csv", []), ("stability.csv", []), ("recommendation.csv", ["scope",
                                                                                                         "criterion"])):
        df = t[name]
        if "metric" not in df.columns:
            continue
        a = df[df["metric"] == "accuracy"].drop(columns="metric").reset_index(drop=True)
        b = df[df["metric"] == "item_acc"].drop(columns="metric").reset_index(drop=True)
        assert len(a) and len(a) == len(b), name
        num = [c for c in a.columns if a[c].dtype.kind == "f"]
        np.testing.assert_allclose(b[num].to_numpy(float), a[num].to_numpy(float), rtol=0, atol=1e-12,
                                   equal_nan=True, err_msg=name)
    rec = t["recommendation.csv"]
    assert set(rec["criterion"]) >= {"stability", "power", "noise", "priors"}
    assert rec.loc[rec["metric"] == "item_acc", "candidate"].all()


def test_an_item_weighted_metric_equals_a_plain_loop_and_its_bootstrap_is_a_loop_over_resamples():
    gold, systems, _ = _data(seed=4, n=120)
    weight = {i: 1.0 + (int(i[1:]) % 4) for i in gold.index}

    def terms(g, p, items):
        a = np.array([weight[i] for i in items])
        return np.stack([(p == g[None, :]) * a, np.broadcast_to(a, p.shape)], axis=-1)

    register_item_metric("w_acc", terms, ratio, range=(0, 1), name="weighted Acc")
    got = metaeval.evaluate(gold, systems, metrics=["accuracy", "w_acc"], bootstrap_replicates=300, baselines=[])
    a = np.array([weight[i] for i in gold.index])
    for s, p in systems.items():
        assert got.loc[s, "w_acc"] == pytest.approx(float((a * (p.to_numpy() == gold.to_numpy())).sum() / a.sum()),
                                                     abs=1e-12)
    assert metaeval.measures.labels.get("w_acc").name == "weighted Acc"


def test_the_contract_is_held_on_the_dataset_s_items():
    gold, systems, _ = _data(n=60)
    cases = {
        "terms of shape": (lambda g, p, i: p.astype(float), ratio),
        "expected finite terms": (lambda g, p, i: acc_terms(g, p, i) / 0, ratio),
        "one score per system": (acc_terms, lambda t: t),
        "in its range": (acc_terms, lambda t: 2 + ratio(t)),
        "terms raised KeyError": (lambda g, p, i: {}["x"], ratio),
        "same scores for a stack": (acc_terms, lambda t: ratio(t) if t.ndim == 2 else 0 * ratio(t)),
    }
    for fault, (terms, combine) in cases.items():
        register_item_metric("mine", terms, combine, range=(0, 1))
        with pytest.raises(MetricContractError, match=f"custom metric 'mine'.*{fault}.*the systems of dataset"):
            metaeval.evaluate(gold, systems, metrics=["accuracy", "mine"])
    with pytest.raises(MetricContractError, match="a built-in metric has this id"):
        register_item_metric("accuracy", acc_terms, ratio)
    metaeval.register_metric("conf", lambda c: c.trace(axis1=-2, axis2=-1) / c.sum((-2, -1)), range=(0, 1))
    try:
        with pytest.raises(MetricContractError, match="a metric of confusion matrices has this id"):
            register_item_metric("conf", acc_terms, ratio)
    finally:
        metaeval.measures.custom.unregister_metric("conf")


def test_score_takes_the_item_ids_from_a_series_index():
    weight = {"a": 1.0, "b": 3.0, "c": 1.0}

    def terms(g, p, items):
        w = np.array([weight[i] for i in items])
        return np.stack([(p == g[None, :]) * w, np.broadcast_to(w, p.shape)], axis=-1)

    register_item_metric("w_acc", terms, ratio)
    y_true = pd.Series(["x", "y", "y"], index=["a", "b", "c"])
    y_pred = pd.Series(["x", "x", "y"], index=["a", "b", "c"])
    assert metaeval.score(y_true, y_pred, "w_acc") == pytest.approx(2 / 5)
    assert metaeval.score(list(y_true), list(y_pred), "w_acc", items=["a", "b", "c"]) == pytest.approx(2 / 5)


def test_gameability_says_not_computed_where_a_degenerate_system_has_no_score():
    """The guessers' expected terms are not computed for a metric of
    per-item terms: its rows say so instead of "not gameable"."""
    gold, systems, _ = _data(n=120)
    res = metaeval.meta_evaluate(gold, systems, metrics={"accuracy": None, "item_acc": {
        "terms": acc_terms, "combine": ratio, "range": [0, 1]}}, n_splits=20, tukey_trials=100,
        bootstrap_replicates=100, criteria_replicates=30, properties=False,
        settings=metaeval.api.settings(min_systems=4))
    g = res.tables["gameability.csv"]
    rows = g[g["metric"] == "item_acc"].set_index("degenerate")
    assert rows.loc["prior_guesser", "verdict"] == rows.loc["uniform_guesser", "verdict"] == "not computed"
    assert rows.loc["all_a", "score"] == pytest.approx(g[(g["metric"] == "accuracy") &
                                                         (g["degenerate"] == "all_a")]["score"].iloc[0])
    assert (g[g["metric"] == "accuracy"]["verdict"] != "not computed").all()


def test_the_scores_per_group_hold_an_item_metric_to_its_contract(tmp_path):
    from metaeval.workflow.scoring import score_groups

    gold, systems, grp = _data(n=90, groups=True)
    register_item_metric("bad", acc_terms, lambda t: 2 + ratio(t), range=(0, 1))
    ds, spec = metaeval.api.dataset(gold, systems, groups=grp, metrics=["accuracy"])
    ds.save(tmp_path / "data.npz")
    from dataclasses import replace

    with pytest.raises(MetricContractError, match="custom metric 'bad'.*expected finite values in its range"):
        score_groups(replace(spec, item_metrics=("bad",)), tmp_path / "data.npz", tmp_path / "g.csv")
    assert not (tmp_path / "g.csv").exists()


def test_the_terms_of_several_metrics_side_by_side():
    """Each metric's terms in its own slice of the last axis, in the order
    asked; evaluate_items scores each from its slice; no metric: no terms."""
    from metaeval.measures.items import evaluate_items, item_statistics

    def three(gold, pred, items):
        right = (pred == gold[None, :]).astype(float)
        return np.stack([right, np.ones_like(right), 2 * right], axis=-1)

    register_item_metric("acc2", acc_terms, ratio, range=(0, 1))
    register_item_metric("acc3", three, lambda t: t[..., 2] / (2 * t[..., 1]), range=(0, 1))
    gold, pred = np.array([0, 1, 1, 2]), np.array([[0, 1, 0, 2], [1, 1, 1, 1]])
    terms, slices = item_statistics(["acc3", "acc2"], gold, pred, ["a", "b", "c", "d"])
    assert terms.shape == (2, 4, 5) and slices == {"acc3": slice(0, 3), "acc2": slice(3, 5)}
    np.testing.assert_array_equal(terms[..., :3], three(gold, pred, None))
    np.testing.assert_array_equal(terms[..., 3:], acc_terms(gold, pred, None))
    ev = evaluate_items(terms.sum(axis=1).astype(int), slices)
    assert ev["acc3"].tolist() == ev["acc2"].tolist() == [0.75, 0.5]
    none, empty = item_statistics([], gold, pred, None)
    assert none.shape == (2, 4, 0) and empty == {}
    one, _ = item_statistics([], gold, pred[0], None)
    assert one.shape == (1, 4, 0)
