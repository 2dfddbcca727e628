"""Chance levels (metaeval.measures.chance): the expected confusion matrices of the
three guessers, values proved by hand, a sampling check, and the majority
guesser against the majority baseline on real data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.measures import labels as M
from metaeval.measures.chance import GUESSERS, above_chance, chance_scores, expected_confusion, guesser_distributions
from metaeval.data.config import dataset_specs
from metaeval.data.dataset import load_dataset, score_dataset

counts = st.lists(st.integers(1, 500), min_size=2, max_size=6)
NOMINAL = ["accuracy", "macro_f1", "macro_f1_hm", "macro_recall", "f1_weighted", "gmr", "kappa"]


def _level(df, guesser, metric):
    return float(df.loc[df["guesser"] == guesser, metric].iloc[0])


@settings(max_examples=200, deadline=None)
@given(counts)
def test_levels_proved_by_hand(n):
    """With p_j = n_j / N and K classes:
    uniform: accuracy = 1/K, every recall 1/K (so R^M = GMR = 1/K);
    prior: accuracy = sum p_j^2, precision_j = recall_j = p_j, so F1_j = p_j,
    macro-F1 = 1/K and support-weighted F1 = sum p_j^2;
    both: kappa = 0 (the observed agreement is the chance agreement);
    majority: accuracy = max p_j, R^M = 1/K, GMR = 0."""
    n = np.asarray(n)
    p, k = n / n.sum(), n.size
    df = chance_scores(n, NOMINAL)
    assert _level(df, "uniform", "accuracy") == pytest.approx(1 / k)
    assert _level(df, "uniform", "macro_recall") == pytest.approx(1 / k)
    assert _level(df, "uniform", "gmr") == pytest.approx(1 / k)
    assert _level(df, "prior", "accuracy") == pytest.approx(np.sum(p ** 2))
    assert _level(df, "prior", "macro_f1") == pytest.approx(1 / k)
    assert _level(df, "prior", "f1_weighted") == pytest.approx(np.sum(p ** 2))
    for g in ("uniform", "prior"):
        assert _level(df, g, "kappa") == pytest.approx(0.0, abs=1e-12)
    assert _level(df, "majority", "accuracy") == pytest.approx(p.max())
    assert _level(df, "majority", "macro_recall") == pytest.approx(1 / k)
    assert _level(df, "majority", "gmr") == 0.0


def test_uniform_macro_f1_by_hand():
    """Uniform guesser, counts (1, 3): precision_j = p_j, recall_j = 1/2;
    F1 = 2 p r / (p + r): class 0: 2 * .25 * .5 / .75 = 1/3, class 1: 2 * .75 * .5 / 1.25 = 0.6."""
    df = chance_scores([1, 3], ["macro_f1"])
    assert _level(df, "uniform", "macro_f1") == pytest.approx((1 / 3 + 0.6) / 2)


def test_expected_confusion_is_the_mean_of_sampled_guessers():
    """E[c_ij] = q_i n_j: the mean confusion matrix of 20,000 seeded draws
    of each random guesser is within 4 standard errors of it."""
    rng = np.random.default_rng(7)
    n = np.array([30, 50, 20])
    gold = np.repeat(np.arange(3), n)
    expected = expected_confusion(n)
    for g, q in zip(GUESSERS[:2], guesser_distributions(n)[:2]):
        draws = 20_000
        pred = rng.choice(3, size=(draws, gold.size), p=q)
        c = np.zeros((draws, 3, 3))
        for j in range(3):  # count per gold class, all draws at once
            c[:, :, j] = (pred[:, gold == j, None] == np.arange(3)).sum(axis=1)
        se = np.sqrt(q[:, None] * (1 - q[:, None]) * n[None, :] / draws)  # binomial counts
        assert np.all(np.abs(c.mean(axis=0) - expected[GUESSERS.index(g)]) <= 4 * se + 1e-12), g


def test_majority_breaks_ties_by_label_order_and_checks_its_input():
    assert guesser_distributions([5, 7, 7])[2].tolist() == [0.0, 1.0, 0.0]
    for bad in ([], [0, 0], [3, -1], [[1, 2]]):
        with pytest.raises(ValueError):
            guesser_distributions(bad)
    with pytest.raises(ValueError):
        expected_confusion([1, 2, 3], q=[0.5, 0.5])


def test_above_chance_is_positive_when_better_in_the_metrics_direction():
    """MAE is lower-is-better: a system with a lower MAE than chance is above it."""
    chance = pd.DataFrame({"guesser": list(GUESSERS), "accuracy": [0.3, 0.4, 0.5], "mae_macro": [0.9, 0.8, 1.0]})
    scores = pd.DataFrame({"system": ["s"], "kind": ["system"], "accuracy": [0.6], "mae_macro": [0.5]})
    a = above_chance(scores, chance, ["accuracy", "mae_macro"]).set_index("metric")
    assert a.loc["accuracy", "above_uniform"] == pytest.approx(0.3)
    assert a.loc["accuracy", "above_majority"] == pytest.approx(0.1)
    assert a.loc["mae_macro", "above_uniform"] == pytest.approx(0.4)
    assert a.loc["mae_macro", "above_majority"] == pytest.approx(0.5)
    assert list(a.columns[:3]) == ["system", "kind", "score"]


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["fnc1", "fnc1_4class", "rumoureval2017", "rumoureval2019", "semeval2016t6",
                                  "semeval2020t11_tc"])
def test_majority_guesser_scores_as_the_majority_baseline(name, project_config, data_dir):
    """The majority guesser's confusion matrix is not random: its chance
    level is the majority baseline's score on every metric of the dataset."""
    spec = dataset_specs(project_config)[name]
    ds = load_dataset(spec, data_dir)
    chance = chance_scores(np.bincount(ds.gold, minlength=spec.k), spec.metrics, spec.metric_params())
    base = score_dataset(ds, spec).set_index("system").loc["majority"]
    for mid in spec.metrics:
        assert _level(chance, "majority", mid) == pytest.approx(float(base[mid]), abs=1e-12, nan_ok=True), mid


def test_every_metric_takes_an_expected_confusion_matrix():
    """Real-valued (not integer) confusion matrices are scored by every
    metric of the registry, with values in its documented range."""
    n = np.array([120, 40, 15, 300])
    c = expected_confusion(n)
    ids = [m for m in M.REGISTRY if m not in ("f_avg", "fnc_score")]
    out = M.evaluate(c, ids, weights=[0.4, 0.4, 0.15, 0.05], positive=1)
    for mid in ids:
        v = np.asarray(out[mid], dtype=float)
        assert v.shape == (3,) and np.isfinite(v[:2]).all(), mid


@pytest.mark.parametrize("bad", [[], [[1, 2]], [1, -1], [0, 0]])
def test_gold_counts_are_checked_with_their_value_named(bad):
    with pytest.raises(ValueError) as e:
        guesser_distributions(bad)
    assert str(e.value).startswith("gold_counts must be K >= 1 non-negative counts with a positive sum, got array(")


def test_one_class_and_q_of_another_number_of_classes():
    assert guesser_distributions([5]).tolist() == [[1.0], [1.0], [1.0]]
    with pytest.raises(ValueError) as e:
        expected_confusion([6, 3, 1], [0.5, 0.5])
    assert str(e.value) == "q has 2 classes, gold_counts 3"
    c = expected_confusion([6, 3, 1])
    assert c.shape == (3, 3, 3) and np.allclose(c.sum((-2, -1)), 10)
    assert np.allclose(expected_confusion([6, 3, 1], [[1, 0, 0], [0, 0, 1]])[1], [[0, 0, 0], [0, 0, 0], [6, 3, 1]])


def test_chance_levels_of_metrics_with_parameters():
    df = chance_scores([6, 3, 1], ["accuracy", "wauc", "f1_class"], {"weights": [0.2, 0.3, 0.5], "positive": 2})
    assert df["guesser"].tolist() == list(GUESSERS) and list(df.columns) == ["guesser", "accuracy", "wauc", "f1_class"]
    assert df["wauc"].tolist() == pytest.approx([0.5, 0.5, 0.5])  # no guesser ranks a class above another
    assert df["f1_class"].iloc[2] == 0.0 and df["f1_class"].iloc[1] == pytest.approx(0.1)
    assert df["accuracy"].dtype == np.float64


def test_above_chance_of_no_metric_and_of_several_systems():
    scores = pd.DataFrame({"system": ["a", "b"], "kind": ["system", "baseline"], "accuracy": [0.7, 0.5]})
    empty = above_chance(scores, chance_scores([6, 3, 1], ["accuracy"]), [])
    assert empty.empty and list(empty.columns) == ["system", "kind", "metric", "score", "chance_uniform",
                                                   "above_uniform", "chance_prior", "above_prior",
                                                   "chance_majority", "above_majority"]
    a = above_chance(scores, chance_scores([6, 3, 1], ["accuracy"]), ["accuracy"])
    assert a["kind"].tolist() == ["system", "baseline"] and a["chance_majority"].tolist() == [0.6, 0.6]
    assert a["above_majority"].tolist() == pytest.approx([0.1, -0.1])


def test_classes_without_gold_items_and_a_single_item_are_valid():
    q = guesser_distributions([6, 0, 1])
    assert q[1].tolist() == pytest.approx([6 / 7, 0, 1 / 7]) and q[2].tolist() == [1, 0, 0]
    assert guesser_distributions([1]).tolist() == [[1.0], [1.0], [1.0]]
    assert guesser_distributions([0, 1]).tolist()[2] == [0.0, 1.0]


def test_above_chance_numbers_its_rows():
    scores = pd.DataFrame({"system": ["a", "b"], "kind": ["system", "system"], "accuracy": [0.7, 0.5],
                           "kappa": [0.2, 0.1]})
    a = above_chance(scores, chance_scores([6, 3, 1], ["accuracy", "kappa"]), ["accuracy", "kappa"])
    assert a.index.tolist() == [0, 1, 2, 3] and a["metric"].tolist() == ["accuracy", "accuracy", "kappa", "kappa"]
