"""Issue 49: a new criterion, reader or metric is one module and one
registration; the verdict, the tables, the page and the figure read the
registries, so nothing else is edited."""

from __future__ import annotations

import numpy as np
import pytest

import metaeval
from metaeval.settings import ALL_CRITERIA, CRITERION_NAMES
from metaeval.verdict.criteria import REGISTRY, register_criterion, unregister_criterion
from metaeval.verdict.recommendation import recommendation_figure, recommendation_long, recommendation_markdown

from . import toy_criterion


def _ordinal_task(seed=3, n=240, systems=7):
    rng = np.random.default_rng(seed)
    labels = ["low", "mid", "high"]
    gold = rng.integers(0, 3, n)
    preds = {}
    for s in range(systems):  # each system right on a share of the items, otherwise a neighbouring class
        right = rng.random(n) < 0.45 + 0.06 * s
        preds[f"sys{s}"] = [labels[g if r else min(2, max(0, g + rng.choice([-1, 1])))] for g, r in zip(gold, right)]
    return [labels[g] for g in gold], preds


@pytest.fixture
def toy():
    register_criterion(toy_criterion.CRITERION)
    yield toy_criterion.CRITERION
    unregister_criterion(toy_criterion.CRITERION.id)


def test_a_toy_criterion_by_one_module_and_one_registration(toy):
    gold, preds = _ordinal_task()
    rec = metaeval.recommend(gold, preds, labels=["low", "mid", "high"], ordinal=True, properties=False,
                             metrics=["accuracy", "macro_f1", "mae_macro"], criteria=(*ALL_CRITERIA, toy.id),
                             criteria_replicates=40, n_splits=40, min_systems=6)
    assert toy.id in rec.criteria
    # the tables: recommendation.csv's long form holds a row per metric with its interval
    long = recommendation_long(rec)
    rows = long[long["criterion"] == toy.id]
    assert sorted(rows["scope"]) == ["new_systems"] * 3 + ["these_systems"] * 3  # three metrics, both scopes
    assert rows["value"].between(-1, 1).all() and (rows["low"] <= rows["value"]).all()
    # the page names it and gives its legend
    page = recommendation_markdown(rec, "toy", "")
    assert toy.name in page and toy.legend in page
    # the figure has its panel, titled with its name
    fig = recommendation_figure(rec, "toy")
    assert toy.name in [ax.get_title() for ax in fig.axes]
    # the value is what the module says: the mean tau between the full ranking and the first halves
    assert CRITERION_NAMES[toy.id] == toy.name and REGISTRY[toy.id] is toy


def test_an_unregistered_criterion_is_refused_by_name():
    gold, preds = _ordinal_task()
    assert "half_agreement" not in REGISTRY
    with pytest.raises(Exception, match="half_agreement"):
        metaeval.recommend(gold, preds, labels=["low", "mid", "high"], ordinal=True, properties=False,
                           metrics=["accuracy"], criteria=("stability", "half_agreement"), criteria_replicates=5,
                           n_splits=5, min_systems=6)


def test_a_criterion_s_declaration_is_checked(toy):
    class Bad(toy_criterion.HalfAgreement):
        id = "bad"
        range = (1.0, 0.0)

    with pytest.raises(ValueError, match="low < high"):
        register_criterion(Bad())
    with pytest.raises(ValueError, match="registered already"):
        register_criterion(type("Again", (toy_criterion.HalfAgreement,), {})())
    with pytest.raises(ValueError, match="a name"):
        register_criterion(type("Nameless", (toy_criterion.HalfAgreement,), {"id": "two words"})())
    assert "bad" not in REGISTRY and REGISTRY[toy.id] is toy
