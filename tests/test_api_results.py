"""What the one-call functions return: the result objects' tables, names,
one-line summaries and the files ``MetaEvaluation.write`` leaves (each
file against the library's own writer of it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import metaeval
from metaeval.api import MetaEvaluation

GOLD = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
SYSTEMS = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20, "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
           "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20, "d": ["pos", "neg", "neg", "neg", "neu", "neg"] * 20}


@pytest.fixture(scope="module")
def result():
    return metaeval.meta_evaluate(GOLD, SYSTEMS, properties=False, n_splits=30, tukey_trials=100,
                                  bootstrap_replicates=50, criteria_replicates=10, groups=[f"g{i % 8}" for i in
                                                                                           range(120)],
                                  resample_unit="group")


def test_the_tables_by_name(result):
    names = list(result.tables)
    assert result.keys() == [n.removesuffix(".csv") for n in names] and "scores" in result.keys()
    assert result["scores"] is result.tables["scores.csv"] and result["scores.csv"] is result["scores"]
    with pytest.raises(KeyError) as e:
        result["stabilty"]
    assert e.value.args[0] == f"no table 'stabilty' (did you mean 'stability'?); the tables: {', '.join(result.keys())}"
    with pytest.raises(KeyError) as e:
        result["zzz.csv"]
    assert e.value.args[0] == f"no table 'zzz.csv'; the tables: {', '.join(result.keys())}"
    assert repr(result) == f"MetaEvaluation('data': {', '.join(names)}; {result.recommendation})"


def test_write_leaves_the_workflow_s_files(result, tmp_path):
    from metaeval.data.files import write_csv
    from metaeval.present.notation import plain_markdown
    from metaeval.verdict.page import recommendation_json, recommendation_markdown

    folder = tmp_path / "new" / "folder"  # made, parents too
    paths = result.write(folder, figures=False)
    assert paths == [folder / n for n in result.tables] + [folder / "recommendation.json", folder / "recommendation.md"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in paths)
    ref = tmp_path / "ref.csv"
    for name, df in result.tables.items():
        write_csv(ref, df)
        assert (folder / name).read_bytes() == ref.read_bytes(), name
    want = recommendation_json(result.rec, resample_note=result.notes.get("resample"),
                               test_set_size=result.notes.get("test_set_size"))
    assert (folder / "recommendation.json").read_text() == want
    assert json.loads(want)  # and it is JSON
    md = plain_markdown(recommendation_markdown(result.rec, "data: which metric to report",
                                                result.notes.get("context", ""), None))
    assert "<sub>" not in md and "𝔽₁" in md  # plain text: the names in Unicode
    assert (folder / "recommendation.md").read_text() == md
    assert "figures/recommendation.png" not in md and result.notes["context"] in md


def test_write_with_the_figure(result, tmp_path):
    from metaeval.present.notation import plain_markdown
    from metaeval.verdict.page import recommendation_markdown

    paths = result.write(tmp_path, figures=True)
    assert [p.relative_to(tmp_path).as_posix() for p in paths[-4:]] == [
        "recommendation.json", "recommendation.md", "figures/recommendation.png", "figures/recommendation.pdf"]
    assert (tmp_path / "figures" / "recommendation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "figures" / "recommendation.pdf").read_bytes()[:5] == b"%PDF-"
    md = plain_markdown(recommendation_markdown(result.rec, "data: which metric to report",
                                                result.notes.get("context", ""), "figures/recommendation.png"))
    assert (tmp_path / "recommendation.md").read_text() == md and "figures/recommendation.png" in md


def test_the_size_design_s_summary_line_and_sentence():
    from metaeval.methods.design import design_note

    d = metaeval.size_design(GOLD, SYSTEMS, metrics=["accuracy", "kappa"], bootstrap_replicates=50,
                             settings=metaeval.api.settings(design_draws=10))
    sizes = sorted(set(d.design["size"]))
    assert repr(d) == (f"SizeDesign(120 items, 2 metrics, {len(sizes)} sizes from {sizes[0]} to {sizes[-1]}; "
                       ".design, .needed, .swaps, .summary, .sentence())")
    assert d.sentence("kappa") == d.sentence(["kappa"]) == design_note(d.design, d.needed, ["kappa"], "design.csv")
    assert d.sentence(["accuracy", "kappa"], "here.csv") == design_note(d.design, d.needed, ["accuracy", "kappa"],
                                                                        "here.csv")
    assert "here.csv" in d.sentence(["accuracy", "kappa"], "here.csv")
    assert isinstance(d.summary, pd.DataFrame) and len(d.summary) == 2


def test_the_size_design_of_groups_counts_groups_with_thousands_separated():
    gold = GOLD * 10
    systems = {k: v * 10 for k, v in SYSTEMS.items()}
    d = metaeval.size_design(gold, systems, metrics=["accuracy"], bootstrap_replicates=30,
                             settings=metaeval.api.settings(design_draws=5))
    assert re.match(r"SizeDesign\(1,200 items, 1 metrics, \d+ sizes from [\d,]+ to [\d,]+;", repr(d))
    assert "4,800" in repr(d)  # four times the test set, the largest size
    g = metaeval.size_design(GOLD, SYSTEMS, metrics=["accuracy"], bootstrap_replicates=30,
                             groups=[f"g{i % 12}" for i in range(120)], resample_unit="group",
                             settings=metaeval.api.settings(design_draws=5))
    assert repr(g).startswith("SizeDesign(12 groups, 1 metrics,")


def test_the_comparison_s_summary_line():
    c = metaeval.compare(GOLD, SYSTEMS, metrics=["accuracy", "kappa"], tukey_trials=100)
    n_sys = len(set(c.pairs["system_a"]) | set(c.pairs["system_b"]))
    assert repr(c) == (f"Comparison(tukey test, alpha 0.05: {n_sys * (n_sys - 1) // 2} pairs of systems x 2 metrics; "
                       ".pairs, .best, .power)")
    b = metaeval.compare(GOLD, SYSTEMS, metrics=["accuracy"], significance_test="bootstrap", bootstrap_replicates=50, alpha=0.1)
    assert repr(b).startswith("Comparison(bootstrap test, alpha 0.1: ")


def test_a_result_without_tables_has_no_keys():
    r = MetaEvaluation("toy", {}, None, None, None)
    assert r.keys() == []
    with pytest.raises(KeyError, match=re.escape("no table 'scores'; the tables: ")):
        r["scores"]


def test_every_keyword_of_meta_evaluate_reaches_the_run():
    with pytest.warns(UserWarning):
        r = metaeval.meta_evaluate(
            GOLD, SYSTEMS, labels=["neg", "neu", "pos"], ordinal=True, groups=[f"g{i % 8}" for i in range(120)],
            metrics=["accuracy", "mae_macro", "wauc"], weights={"scarton": {"neg": 0.2, "neu": 0.5, "pos": 0.3}},
            baselines=["majority"], properties=False, n_splits=30, tukey_trials=100, bootstrap_replicates=50,
            criteria=["stability", "power"], verdict_alpha=0.1, verdict_scope="new_systems", criteria_replicates=12,
            criteria_seed=5, resample_unit="group", official_metric="accuracy", official_source="the task")
    st, spec = r.settings, r.spec
    assert (st.n_splits, st.tukey_trials, st.bootstrap_replicates, st.criteria, st.verdict_alpha, st.verdict_scope,
            st.criteria_replicates, st.criteria_seed, st.resample_unit) == (
        30, 100, 50, ("stability", "power"), 0.1, "new_systems", 12, 5, "group")
    assert spec.labels == ("neg", "neu", "pos") and spec.ordinal and set(spec.metrics) == {"accuracy", "mae_macro",
                                                                                            "wauc"}
    assert spec.weights == {"scarton": (0.2, 0.5, 0.3)}
    assert (spec.official_metric, spec.official_source) == ("accuracy", "the task")
    assert r.name == spec.name == "data"
    scores = r["scores"]
    assert scores["system"].tolist() == ["a", "b", "c", "d", "majority"]
    assert {"accuracy", "mae_macro", "wauc"} <= set(scores.columns)
    assert len(r["stability_splits"]) == 30
    assert "group" in r.notes["resample"] and r.notes["test_set_size"]
    assert set(r.rec.criteria) == {"stability", "power"} and r.rec.headline == "new_systems"
    assert r.rec.official.metric == "accuracy" and r.rec.official_source == "the task"
    assert r.rec.replicates == 12


def test_meta_evaluate_needs_two_ranked_systems():
    with pytest.raises(ValueError, match=re.escape("1 ranked system(s): the experiments compare rankings of systems")):
        metaeval.meta_evaluate(GOLD, {"a": SYSTEMS["a"]}, baselines=[], properties=False)
    r = metaeval.meta_evaluate(GOLD, {"a": SYSTEMS["a"], "b": SYSTEMS["b"]}, baselines=[], properties=False,
                               n_splits=10, tukey_trials=50, bootstrap_replicates=20, criteria_replicates=5,
                               settings=metaeval.api.settings(min_systems=2))
    assert r["scores"]["system"].tolist() == ["a", "b"]


def test_every_keyword_of_size_design_reaches_the_tables():
    kw = dict(labels=["neg", "neu", "pos"], ordinal=True, metrics=["accuracy", "mae_macro", "wauc"],
              weights={"w": {"neg": .2, "neu": .5, "pos": .3}}, design_power=0.9, design_differences=[0.05, 0.2],
              alpha=0.1, bootstrap_replicates=30, groups=[f"g{i % 12}" for i in range(120)],
              resample_unit="group", settings=metaeval.api.settings(design_draws=5))
    with pytest.warns(UserWarning):
        d = metaeval.size_design(GOLD, SYSTEMS, baselines=["majority"], **kw)
        other = metaeval.size_design(GOLD, SYSTEMS, baselines=["majority", "random"], **kw)
    assert set(d.design["metric"]) == set(d.needed["metric"]) == {"accuracy", "mae_macro", "wauc"}
    assert sorted(set(d.needed["difference"])) == [0.05, 0.2]
    assert set(d.needed["alpha"]) == {0.1} and set(d.needed["power"]) == {0.9}
    assert set(d.design["alpha"]) == {0.1} and set(d.design["target_power"]) == {0.9}
    assert set(d.design["unit"]) == {"groups"} and d.design.loc[d.design["fraction"] == 1.0, "size"].iloc[0] == 12
    assert not d.needed["needed"].equals(other.needed["needed"])  # the systems ranked: the baselines asked for
    assert set(d.swaps["metric"]) == {"accuracy", "mae_macro", "wauc"}


def test_write_makes_the_figure_by_default_and_writes_over_a_folder(result, tmp_path, monkeypatch):
    from metaeval.verdict import page

    named = []
    real = page.recommendation_figure
    monkeypatch.setattr(page, "recommendation_figure", lambda rec, name: named.append(name) or real(rec, name))
    first = result.write(tmp_path)
    again = result.write(tmp_path)  # the same folder again, figures/ included
    assert first == again and first[-1] == tmp_path / "figures" / "recommendation.pdf"
    assert named == ["data", "data"]


def test_write_passes_the_test_set_size_sentence_on(tmp_path):
    from metaeval.verdict.page import recommendation_json

    with pytest.warns(UserWarning):
        r = metaeval.meta_evaluate(GOLD, SYSTEMS, properties=False, n_splits=20, tukey_trials=60,
                                   bootstrap_replicates=30, criteria=["stability", "power"], criteria_replicates=8,
                                   metrics=["accuracy", "kappa", "macro_f1"], groups=[f"g{i % 8}" for i in range(120)],
                                   resample_unit="group")
    size = r.notes["test_set_size"]
    assert size and r.notes["resample"]
    r.write(tmp_path, figures=False)
    text = (tmp_path / "recommendation.json").read_text()
    assert text == recommendation_json(r.rec, resample_note=r.notes["resample"], test_set_size=size)
    assert text != recommendation_json(r.rec, resample_note=r.notes["resample"], test_set_size=None)


def test_write_says_where_it_cannot_write_before_writing_anything(result, tmp_path, monkeypatch):
    """A folder (or its figures/) where no file can be made: refused with
    the folder named, and nothing written, rather than half the files."""
    import metaeval.data.files as IO

    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    real = IO.can_create
    monkeypatch.setattr(IO, "can_create", lambda f: Path(f) != out / "figures" and real(f))
    with pytest.raises(PermissionError) as e:
        result.write(out)
    assert str(e.value) == f"MetaEvaluation.write: no file can be written in {out / 'figures'}; nothing was written"
    assert sorted(p.name for p in out.rglob("*")) == ["figures"]
    result.write(out, figures=False)  # without the figure, figures/ is not needed
    assert (out / "recommendation.md").is_file()
    # a folder to be made is judged by the nearest folder that exists
    monkeypatch.setattr(IO, "can_create", lambda f: Path(f) != tmp_path and real(f))
    with pytest.raises(PermissionError, match=f"no file can be written in {tmp_path}; nothing"):
        result.write(tmp_path / "new" / "deeper", figures=False)
    assert not (tmp_path / "new").exists()


def test_the_answer_names_the_metrics_as_the_pages_do(result):
    """The trial: the library said ``R^M``, ``kappa`` where the pages and the
    command line say ``Rᴹ``, ``κ``; now one spelling (notation.plain_markdown)."""
    from metaeval.present.notation import plain_markdown
    from metaeval.verdict.sentences import answer_sentence

    from dataclasses import replace

    from .test_recommend import _verdict

    named = replace(result, rec=_verdict([[0.5] * 5 + [0.9, 0.5], [0.5] * 5 + [0.9, 0.5]]))
    raw = answer_sentence(named.rec)
    assert "R^M" in raw  # (the ids' plain spelling, which the answer must not show)
    assert named.recommendation == plain_markdown(raw)
    assert "^" not in named.recommendation and "Rᴹ" in named.recommendation
