"""Issue 49: a new criterion, reader or metric is one module and one
registration; the verdict, the tables, the page and the figure read the
registries, so nothing else is edited."""

from __future__ import annotations

import numpy as np
import pytest

import metaeval
from metaeval.settings import ALL_CRITERIA, CRITERION_NAMES
from metaeval.verdict.criteria import REGISTRY, register_criterion, unregister_criterion
from metaeval.verdict.page import recommendation_figure, recommendation_long, recommendation_markdown

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
                             criteria_replicates=40, n_splits=40, settings=metaeval.api.settings(min_systems=6))
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
    # the registry holds it under its id and the settings name it as the module does
    assert CRITERION_NAMES[toy.id] == toy.name and REGISTRY[toy.id] is toy


def test_an_unregistered_criterion_is_refused_by_name():
    gold, preds = _ordinal_task()
    assert "half_agreement" not in REGISTRY
    with pytest.raises(Exception, match="half_agreement"):
        metaeval.recommend(gold, preds, labels=["low", "mid", "high"], ordinal=True, properties=False,
                           metrics=["accuracy"], criteria=("stability", "half_agreement"), criteria_replicates=5,
                           n_splits=5, settings=metaeval.api.settings(min_systems=6))


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


def test_a_toy_metric_by_one_module_and_one_registration():
    """The toy metric, registered once, is a metric like the others: in the
    scores with intervals, in the criteria, the tables, the page and the
    figure of the recommendation."""
    from metaeval.measures.custom import register_metric, unregister_metric

    from . import toy_metric

    spec = dict(toy_metric.METRIC)
    register_metric(spec.pop("id"), spec.pop("fn"), **spec)
    try:
        gold, preds = _ordinal_task()
        got = metaeval.evaluate(gold, preds, labels=["low", "mid", "high"], ordinal=True,
                                metrics=["accuracy", "worst_recall"], bootstrap_replicates=50)
        assert {"worst_recall", "worst_recall_low", "worst_recall_high"} <= set(got.columns)
        codes = {"low": 0, "mid": 1, "high": 2}
        for system, labels in preds.items():  # the value is the module's function of the system's confusion matrix
            c = np.zeros((3, 3))
            np.add.at(c, ([codes[x] for x in labels], [codes[x] for x in gold]), 1)
            assert got.loc[system, "worst_recall"] == pytest.approx(float(toy_metric.worst_recall(c)), abs=1e-12)
        rec = metaeval.recommend(gold, preds, labels=["low", "mid", "high"], ordinal=True, properties=False,
                                 metrics=["accuracy", "worst_recall"], criteria_replicates=30, n_splits=30,
                                 settings=metaeval.api.settings(min_systems=6))
        assert "worst_recall" in set(recommendation_long(rec)["metric"])
        assert "min R" in recommendation_markdown(rec, "toy", "")
        fig = recommendation_figure(rec, "toy")
        assert any("min R" in t.get_text() for ax in fig.axes for t in ax.get_yticklabels())
    finally:
        unregister_metric("worst_recall")


@pytest.fixture
def psv():
    from metaeval.data.readers import register_reader, unregister_reader

    from . import toy_reader

    register_reader(toy_reader.SUFFIX, toy_reader.read_psv)
    yield toy_reader
    unregister_reader(toy_reader.SUFFIX)


def _psv_files(folder, gold, preds):
    folder.mkdir(exist_ok=True)
    (folder / "gold.psv").write_text("".join(f"{i}|{g}\n" for i, g in enumerate(gold)))
    for name, labels in preds.items():
        (folder / f"{name}.psv").write_text("".join(f"{i}|{x}\n" for i, x in enumerate(labels)))
    return folder


def test_a_toy_reader_by_one_module_and_one_registration(psv, tmp_path):
    """The toy format, registered once, is read by its ending by the
    library (``read_files``, ``read_labels``) and the command line, with
    its faults named by file and line."""
    import subprocess
    import sys

    from metaeval.data.files import DataError
    from metaeval.data.readers.labels import read_labels

    gold, preds = _ordinal_task(systems=3, n=60)
    folder = _psv_files(tmp_path / "psv", gold, preds)
    ds, spec = metaeval.read_files(folder / "gold.psv", sorted(str(p) for p in folder.glob("sys*.psv")),
                                   labels=["low", "mid", "high"], ordinal=True)
    assert list(ds.systems[:3]) == ["sys0", "sys1", "sys2"] and ds.n_items == 60
    got = metaeval.evaluate((ds, spec), metrics=["accuracy"], intervals=False)
    assert got.loc["sys0", "accuracy"] == pytest.approx(np.mean([g == p for g, p in zip(gold, preds["sys0"])]))
    # a fault, named with its file and line
    (folder / "sys2.psv").write_text("0|low\n1 low\n")
    assert [(p.line, p.message) for p in read_labels(folder / "sys2.psv").problems] == [
        (2, "expected 'id|label', got '1 low'")]
    with pytest.raises(DataError, match=r"sys2\.psv.*line 2"):
        metaeval.read_files(folder / "gold.psv", [folder / "sys2.psv"], labels=["low", "mid", "high"])
    # the command line reads it too, in a process that registers it first
    code = ("import sys; sys.path.insert(0, %r); import toy_reader; from metaeval.data.readers import register_reader;"
            " register_reader('.psv', toy_reader.read_psv); from metaeval.cli import main;"
            " sys.exit(main(['score', %r, %r, '--no-intervals', '--metrics', 'accuracy', '--format', 'csv']))"
            % (str(psv.__file__).rsplit("/", 1)[0], str(folder / "gold.psv"), str(folder / "sys0.psv")))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if not line.startswith("#")]  # (a signature line first)
    assert rows[0] == "system,kind,accuracy" and rows[1].startswith("sys0,")


def test_an_ending_without_a_reader_is_named_with_those_that_have_one(tmp_path):
    from metaeval.data.readers.labels import read_labels

    (tmp_path / "g.psv").write_text("0|a\n")
    assert [p.message for p in read_labels(tmp_path / "g.psv").problems] == [
        "unknown file type '.psv': expected one of .csv, .tsv, .jsonl, .ndjson, .parquet"]
    from metaeval.data.readers import register_reader

    with pytest.raises(ValueError, match="lower-case ending"):
        register_reader("psv", lambda *a, **k: None)
    with pytest.raises(ValueError, match="have a reader already"):
        register_reader(".csv", lambda *a, **k: None)
