"""The library's front door: metrics given as functions, declarations or
files; a dataset read already and the keywords it no longer takes; span
tasks' keywords; the warnings a call passes on, attributed to the caller's
line; and each refusal's exact words."""

from __future__ import annotations

import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.measures import labels as M
from metaeval.api import dataset
from metaeval.measures.custom import MetricContractError, unregister_metric
from metaeval.data.files import DataError
from metaeval.measures.items import ITEM_REGISTRY, unregister_item_metric

from .test_api_results import GOLD, SYSTEMS


@pytest.fixture(autouse=True)
def _clean():
    yield
    for m in [m for m in M.REGISTRY if M.REGISTRY[m].source or m.startswith("mine")]:
        unregister_metric(m)
    for m in list(ITEM_REGISTRY):
        unregister_item_metric(m)


def _at_caller(w) -> bool:
    """The warning is attributed to the line that called the library (its
    stacklevel).  Under mutation testing every library call runs through
    mutmut's trampolines, extra frames that no stacklevel can skip: there
    the line is not checked (tools/mutation-equivalent.toml says so)."""
    return "MUTANT_UNDER_TEST" in os.environ or w.filename == __file__


def _seven(c):
    """7, out of its range, on 120 items only: the probe matrices pass, the dataset's systems do not."""
    return np.where(np.asarray(c).sum((-2, -1)) == 120, 7.0, 0.5)


def _acc_terms(gold, pred, items):
    right = (pred == gold[None, :]).astype(float)
    return np.stack([right, np.ones_like(right)], axis=-1)


def _ratio(t):
    return t[..., 0] / t[..., 1]


# ---------------------------------------------------------------- metrics given by the caller
def test_a_function_and_a_declaration_are_registered_and_scored():
    got = metaeval.evaluate(GOLD, SYSTEMS, intervals=False, baselines=[], metrics={
        "accuracy": None,
        "mine": lambda c: M.accuracy(c),
        "mine_err": {"function": lambda c: 1 - M.accuracy(c), "higher_is_better": False, "range": [0, 1],
                     "name": "error rate"}})
    assert got["mine"].tolist() == got["accuracy"].tolist()
    assert np.allclose(got["mine_err"], 1 - got["accuracy"])
    m = M.get("mine_err")
    assert m.higher_is_better is False and m.name == "error rate" and m.bounds == (0.0, 1.0)
    assert M.get("mine").higher_is_better is True


def test_functions_named_by_file_and_name(tmp_path):
    f = tmp_path / "my_metrics.py"
    f.write_text("import numpy as np\n"
                 "def err(c):\n    d = np.einsum('...ii->...', c)\n    return 1 - d / c.sum((-2, -1))\n"
                 "def terms(gold, pred, items):\n"
                 "    right = (pred == gold[None, :]).astype(float)\n"
                 "    return np.stack([right, np.ones_like(right)], axis=-1)\n"
                 "def combine(t):\n    return t[..., 0] / t[..., 1]\n")
    got = metaeval.evaluate(GOLD, SYSTEMS, intervals=False, baselines=[], metrics={
        "accuracy": None, "mine_f": {"function": f"{f}:err", "higher_is_better": False},
        "mine_t": {"terms": f"{f}:terms", "combine": f"{f}:combine", "range": [0, 1]}})
    assert np.allclose(got["mine_f"], 1 - got["accuracy"])
    assert got["mine_t"].tolist() == got["accuracy"].tolist()
    assert "mine_t" in ITEM_REGISTRY and "mine_t" not in M.REGISTRY


def test_a_metric_of_per_item_terms_by_functions():
    got = metaeval.evaluate(GOLD, SYSTEMS, intervals=False, baselines=[], metrics={
        "accuracy": None, "item_acc": {"terms": _acc_terms, "combine": _ratio, "range": [0, 1]}})
    assert got["item_acc"].tolist() == got["accuracy"].tolist()


@pytest.mark.parametrize("decl,missing", [({"terms": _acc_terms}, "combine"), ({"combine": _ratio}, "terms")])
def test_half_a_metric_of_per_item_terms_is_refused(decl, missing):
    with pytest.raises(MetricContractError, match=re.escape(f"custom metric 'half': {missing} is not callable "
                                                            "(None)")):
        metaeval.evaluate(GOLD, SYSTEMS, intervals=False, metrics={"accuracy": None, "half": decl})


def test_wrong_metric_declarations_are_named():
    from metaeval.measures.custom import KEYS

    with pytest.raises(TypeError) as e:
        metaeval.evaluate(GOLD, SYSTEMS, intervals=False, metrics={"accuracy": None, "mine": 3})
    assert str(e.value) == (f"metrics['mine']: a function, a mapping of its declaration ({', '.join(KEYS)}) or None "
                            "for a known metric, got int")
    with pytest.raises(TypeError) as e:
        metaeval.evaluate(GOLD, SYSTEMS, intervals=False, metrics={"mine": {"function": M.accuracy, "colour": 1,
                                                                            "bounds": 2}})
    assert str(e.value) == f"metrics['mine']: unknown key(s) ['bounds', 'colour']; known: {', '.join(KEYS)}"


def test_one_metric_id_as_a_string():
    got = metaeval.evaluate(GOLD, SYSTEMS, intervals=False, metrics="kappa", baselines=[])
    assert [c for c in got.columns if c != "kind"] == ["kappa"]


# ---------------------------------------------------------------- a dataset read already
def test_a_dataset_alone_is_refused():
    ds, _ = dataset(GOLD, SYSTEMS)
    with pytest.raises(TypeError) as e:
        metaeval.evaluate(ds)
    assert str(e.value) == ("gold is a Dataset alone: pass the (dataset, spec) pair that read_files(), dataset() or "
                            "span_dataset() return, as it is")


def test_a_dataset_read_already_takes_no_predictions_and_no_dataset_keywords():
    pair = dataset(GOLD, SYSTEMS)
    with pytest.raises(TypeError, match=re.escape("a dataset read already (dataset(), span_dataset(), read_files()) "
                                                  "takes no predictions")):
        metaeval.evaluate(pair, SYSTEMS)
    with pytest.raises(TypeError) as e:
        metaeval.evaluate(pair, labels=["neg", "neu", "pos"], weights={"w": {"neg": 1, "neu": 1, "pos": 1}})
    assert str(e.value) == ("'labels', 'weights': keywords of the dataset, which was read already: give them to "
                            "read_files(), dataset() or span_dataset()")
    # keywords left at None or False are no choice
    a = metaeval.evaluate(pair, labels=None, ordinal=False, intervals=False)
    assert a.equals(metaeval.evaluate(pair, intervals=False))


def test_a_choice_among_the_metrics_a_dataset_was_read_with():
    pair = dataset(GOLD, SYSTEMS, metrics=["accuracy", "kappa", "macro_f1"])
    got = metaeval.evaluate(pair, metrics=["kappa"], intervals=False)
    assert [c for c in got.columns if c != "kind"] == ["kappa"]
    with pytest.raises(TypeError) as e:
        metaeval.evaluate(pair, metrics=["kappa", "gmr", "mcc"], intervals=False)
    assert str(e.value) == ("metrics 'gmr', 'mcc': not among the metrics this dataset was read with "
                            "(accuracy, macro_f1, kappa); give metrics=[...] to read_files(), dataset() or "
                            "span_dataset() to compute them")


def test_a_keyword_the_call_does_not_take_is_sent_where_it_belongs():
    """The one-call functions name every option they take; a dataset
    keyword, a span task's keyword or an experiment setting is refused with
    the call that takes it."""
    with pytest.raises(TypeError) as e:
        metaeval.evaluate(GOLD, SYSTEMS, span_metrics=["span_f1"], real_systems=["a"], n_splits=3)
    assert str(e.value) == (
        "evaluate(): 'real_systems' is a dataset keyword: read the data once with metaeval.dataset(gold, "
        "predictions, real_systems=...) (or read_files) and pass what it returns; 'span_metrics' is a keyword of "
        "span tasks: read the data once with metaeval.span_dataset(gold, predictions, texts=..., span_metrics=...) "
        "and pass what it returns; 'n_splits' is an experiment setting: pass "
        "settings=metaeval.api.settings(n_splits=...)")
    with pytest.raises(TypeError, match=r"^compare\(\): 'chunk_size', 'n_splits' are experiment settings: pass "
                                        r"settings=metaeval\.api\.settings\(chunk_size=\.\.\., n_splits=\.\.\.\)$"):
        metaeval.compare(GOLD, SYSTEMS, chunk_size=3, n_splits=3)


def test_a_data_reader_names_a_misspelt_or_misplaced_keyword():
    with pytest.raises(TypeError, match=r"^dataset\(\): unknown keyword 'real_system' \(did you mean "
                                        r"'real_systems'\?\); the keywords: allow_unused_labels, "):
        dataset(GOLD, SYSTEMS, real_system=["a"])
    with pytest.raises(TypeError, match=r"^dataset\(\): 'n_splits' is an experiment setting: give it to the call "
                                        r"that computes \(evaluate, compare, recommend, meta_evaluate, size_design\)"):
        dataset(GOLD, SYSTEMS, n_splits=3)


def test_evaluate_lists_the_systems_it_ranks():
    """``include_baselines`` says which baselines of the data evaluate
    scores beside the systems (default: every one the data holds)."""
    pair = dataset(GOLD, SYSTEMS)
    every = metaeval.evaluate(pair, intervals=False)
    assert every.index.tolist() == list(pair[0].systems)
    assert metaeval.evaluate(pair, intervals=False, include_baselines=[]).index.tolist() == list(SYSTEMS)
    some = metaeval.evaluate(pair, include_baselines=["random"], metrics=["accuracy"], bootstrap_replicates=20)
    assert some.index.tolist() == [*SYSTEMS, "random"] and not some["accuracy_low"].isna().any()
    pd.testing.assert_frame_equal(some[["kind", "accuracy"]], every.loc[[*SYSTEMS, "random"], ["kind", "accuracy"]])


def test_an_explicit_keyword_wins_over_settings_even_at_its_default():
    pair = dataset(GOLD, SYSTEMS, metrics=["accuracy"])
    half = metaeval.api.settings(confidence=0.5, bootstrap_replicates=200)
    narrow = metaeval.evaluate(pair, settings=half)
    wide = metaeval.evaluate(pair, settings=half, confidence=0.95)  # the default, given: it is the caller's choice
    plain = metaeval.evaluate(pair, bootstrap_replicates=200)
    pd.testing.assert_frame_equal(wide, plain)
    assert (narrow["accuracy_high"] - narrow["accuracy_low"] < wide["accuracy_high"] - wide["accuracy_low"]).all()


def test_a_folder_s_modules_are_reached_from_the_package():
    import subprocess
    import sys

    code = ("import metaeval; print(metaeval.verdict.sentences.answer_sentence.__name__, "
            "metaeval.measures.scores.registry.SCORE_REGISTRY['map'].name, metaeval.engine.ranking.__name__); "
            "metaeval.verdict.nothing")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["answer_sentence", "MAP", "metaeval.engine.ranking"]
    assert "AttributeError: module 'metaeval.verdict' has no attribute 'nothing'" in out.stderr


def test_no_one_call_function_takes_arbitrary_keywords():
    import inspect

    for fn in (metaeval.evaluate, metaeval.compare, metaeval.recommend, metaeval.meta_evaluate,
               metaeval.size_design, metaeval.dataset, metaeval.span_dataset, metaeval.read_files):
        kinds = {p.kind for p in inspect.signature(fn).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds and inspect.Parameter.VAR_POSITIONAL not in kinds, fn


# ---------------------------------------------------------------- warnings reach the caller's line
def test_the_dataset_s_warnings_name_the_dataset_and_the_caller_s_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metaeval.evaluate(GOLD, {**SYSTEMS, "e": SYSTEMS["a"]}, intervals=False)
    mine = [w for w in caught if "predict exactly the same" in str(w.message)]
    assert len(mine) == 1 and str(mine[0].message).startswith("dataset 'data': systems 'a', 'e' predict exactly")
    assert _at_caller(mine[0])


def test_the_few_groups_warning_names_the_caller_s_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metaeval.compare(GOLD, SYSTEMS, tukey_trials=50, groups=[f"g{i % 5}" for i in range(120)],
                         resample_unit="group")
    few = [w for w in caught if "only 5 groups" in str(w.message)]
    assert len(few) == 1 and _at_caller(few[0])


def test_evaluate_scores_every_baseline_it_generates():
    got = metaeval.evaluate(GOLD, SYSTEMS, baselines=["majority", "random"], bootstrap_replicates=20)
    assert got.index.tolist() == ["a", "b", "c", "d", "majority", "random"]
    assert got.loc["majority", "accuracy_low"] <= got.loc["majority", "accuracy"]  # intervals for baselines too


# ---------------------------------------------------------------- the verdict's keywords and the properties
def test_recommend_passes_every_verdict_keyword_on():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = metaeval.recommend(GOLD, SYSTEMS, properties=True, requirements=["imbalance"], criteria_replicates=10,
                               official_metric="macro_f1", paper_choices=[{"source": "A paper",
                                                                           "metrics": ["accuracy"]}],
                               criteria=["stability", "noise"], verdict_alpha=0.2, verdict_scope="new_systems",
                               metrics=["accuracy", "macro_f1", "kappa"], baselines=["majority"],
                               groups=[f"g{i % 10}" for i in range(120)], resample_unit="group")
    assert [q.id for q in r.requirements if q.declared] == ["imbalance"]
    assert not r.admissible[r.metrics.index("accuracy")] and r.official.metric == "macro_f1"
    assert r.official_source == ""
    assert r.papers[0][0] == "A paper" and [s.metric for s in r.papers[0][1]] == ["accuracy"]
    assert r.criteria == ["stability", "noise"] and r.headline == "new_systems" and r.metrics == [
        "accuracy", "macro_f1", "kappa"]
    assert r.replicates == 10 and r.unit == "groups" and r.n_units == 10 and r.baselines == ["majority"]
    assert r.settings["verdict_alpha"] == 0.2 and set(r.failed) == {"accuracy", "macro_f1", "kappa"}


def test_the_properties_checked_are_those_of_the_dataset_s_shape(monkeypatch):
    from metaeval import api

    seen = []
    monkeypatch.setattr(api, "_shape_properties", lambda *a: seen.append(a) or "table")
    gold = ["a", "b", "c", "d"] * 10 + ["a"] * 5
    systems = {"s": gold[::-1]}
    ds, spec = dataset(gold, systems, ordinal=True, labels=["a", "b", "c", "d"], weights={"w": {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4}},
                       f_avg_classes=["a", "c"], unrelated_label="d", positive_class="b",
                       metrics=["accuracy", "wauc", "f_avg", "fnc_score", "f1_class"])
    assert api._properties_of(ds, spec, True) == "table"
    assert seen == [(4, True, (0.1, 0.2, 0.3, 0.4), (0, 2), 3, 1, (15, 10, 10, 10),
                     ("accuracy", "wauc", "f_avg", "fnc_score", "f1_class"))]
    assert api._properties_of(ds, spec, False) is None
    given = object()
    assert api._properties_of(ds, spec, given) is given
    ds2, spec2 = dataset(["a", "b"] * 5, {"s": ["a", "a"] * 5})
    api._properties_of(ds2, spec2, True)  # two classes: checked too
    assert seen[-1][:2] == (2, False) and seen[-1][2] is None and seen[-1][3] is None and seen[-1][6] == (5, 5)


def test_an_official_metric_without_a_source_and_with_one():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = metaeval.recommend(GOLD, SYSTEMS, properties=False, criteria_replicates=5, official_metric="kappa")
        sourced = metaeval.recommend(GOLD, SYSTEMS, properties=False, criteria_replicates=5, official_metric="kappa",
                                     official_source="the task's page")
    assert plain.official.metric == "kappa" and plain.official_source == ""
    assert sourced.official.metric == "kappa" and sourced.official_source == "the task's page"
    none = metaeval.recommend(GOLD, SYSTEMS, properties=False, criteria_replicates=5)
    assert none.official is None


# ---------------------------------------------------------------- dataset(): every keyword, every refusal
def test_every_keyword_of_dataset_reaches_the_spec():
    gold = ["A ", "b", "c", "d"] * 10 + ["a"] * 4
    systems = {"s": ["b", "a", "c", "d"] * 11, "base": ["a"] * 44}
    ds, spec = dataset(gold, systems, labels=["a", "b", "c", "d", "e"], ordinal=True,
                       metrics=["accuracy", "wauc", "f_avg", "fnc_score", "f1_class"],
                       weights={"w": {"a": .1, "b": .2, "c": .3, "d": .2, "e": .2}}, f_avg_classes=["a", "c"],
                       unrelated_label="d", positive_class="b", baselines=["majority"], baseline_systems=["base"],
                       primary_metric="wauc", allow_unused_labels=True, label_map={"A": "a"},
                       normalize_labels="strip", random_seed=7, name="mine")
    assert (spec.name, spec.labels, spec.ordinal, spec.metrics) == (
        "mine", ("a", "b", "c", "d", "e"), True, ("accuracy", "wauc", "f_avg", "fnc_score", "f1_class"))
    assert spec.weights == {"w": (0.1, 0.2, 0.3, 0.2, 0.2)} and spec.default_weights == "w"
    assert (spec.f_avg_classes, spec.unrelated_label, spec.positive_class) == (("a", "c"), "d", "b")
    assert (spec.baselines, spec.primary_metric, spec.allow_unused_labels) == (("majority",), "wauc", True)
    assert (spec.label_map, spec.normalize_labels, spec.random_seed) == ({"A": "a"}, ("strip",), 7)
    assert ds.name == "mine" and ds.systems == ("s", "base", "majority")
    assert ds.kinds == ("system", "baseline", "baseline")  # a system named in baseline_systems is a baseline
    assert ds.gold[:5].tolist() == [0, 1, 2, 3, 0]  # "A " stripped, then mapped to "a"
    ds2, spec2 = dataset(gold, systems, labels=["a", "b", "c", "d", "e"], allow_unused_labels=True,
                         label_map={"A": "a"}, normalize_labels=["strip"])
    assert spec2.normalize_labels == ("strip",) and not spec2.ordinal and spec2.name == "data"


@pytest.mark.parametrize("kw,err,msg", [
    (dict(predictions={"s": ["a"] * 9}), "DataError",
     "predictions['s']: 9 labels for 10 gold items (plain sequences are matched to the gold by position; pass pandas "
     "Series or dicts keyed by item id, gold included, to match by id)"),
    (dict(predictions=3), "TypeError",
     "predictions: a mapping of system name to labels, or a DataFrame with one column per system"),
    (dict(predictions={}), "ValueError", "predictions: no system given"),
    (dict(predictions={"s": ["a"] * 10}, groups=["g"] * 9), "DataError", "groups: 9 groups for 10 gold items"),
    (dict(predictions={"s": ["a"] * 10}, groups=["g"] * 9 + [None]), "DataError", "groups: no group for item '9'"),
    (dict(predictions={"s": ["a"] * 10}, groups=["g"] * 8 + ["", "h"]), "DataError", "groups: no group for item '8'"),
    (dict(predictions={"s": ["a"] * 10}, groups=["g"] * 9 + [" "]), "DataError", "groups: no group for item '9'"),
    (dict(predictions={"s": ["a"] * 10}, baseline_systems=["zz"]), "ValueError",
     "baseline_systems: ['zz'] are not systems of predictions (['s'])"),
    (dict(predictions={"s": ["a"] * 10}, ordinal=True), "ValueError",
     "ordinal=True needs labels in the order of the scale (labels=[...]): text labels have no order of their own"),
])
def test_dataset_refusals_say_what_is_wrong(kw, err, msg):
    with pytest.raises(Exception) as e:
        dataset(["a", "b"] * 5, **kw)
    assert type(e.value).__name__ == err and msg in str(e.value)
    if err == "DataError":
        assert str(e.value).startswith("dataset 'data': 1 problem in 1 input:")


def test_groups_given_as_an_array_or_a_series():
    gold = ["a", "b"] * 5
    want = [f"g{i % 3}" for i in range(10)]
    for groups in (want, np.array(want), pd.Series(want)):
        ds, _ = dataset(gold, {"s": gold}, groups=groups)
        assert [ds.group_names[c] for c in ds.groups] == want


# ---------------------------------------------------------------- span_dataset(): every keyword, every refusal
SPAN_TEXTS = {"d1": "Vote now, or lose.", "d2": "They always lie."}
SPAN_GOLD = [("d1", 0, 5), ("d2", 3, 9)]


def test_every_keyword_of_span_dataset_reaches_the_spec():
    from metaeval.api import span_dataset

    ds, spec = span_dataset(SPAN_GOLD, {"a": [("d1", 0, 4), ("d1", 2, 8)], "b": [("d2", 3, 9)]}, texts=SPAN_TEXTS,
                            span_metrics=["span_f1", "char_f1"], baselines=[], baseline_systems=["b"],
                            primary_metric="char_f1", random_seed=3, name="sp", offsets_past_end="refuse",
                            merge_overlapping_predictions=True)
    assert (spec.name, spec.span_metrics, spec.baselines, spec.primary_metric, spec.random_seed) == (
        "sp", ("span_f1", "char_f1"), (), "char_f1", 3)
    assert (spec.offsets_past_end, spec.merge_overlapping_predictions, spec.span_format) == (
        "refuse", True, "semeval2020_si")
    assert ds.systems == ("a", "b") and ds.kinds == ("system", "baseline")
    assert ds.info["overlapping_spans_merged"] == {"a": 1, "b": 0}
    # texts as a sequence: document ids 0, 1, ...
    ds2, spec2 = span_dataset([("0", 0, 5), ("1", 3, 9)], {"a": [("1", 3, 9)]},
                              texts=[SPAN_TEXTS["d1"], SPAN_TEXTS["d2"]])
    assert ds2.spans.n_articles == 2 and spec2.name == "data" and spec2.offsets_past_end == "wrong"


@pytest.mark.parametrize("bad,err,msg", [
    (dict(predictions=[("d1", 0, 4)]), TypeError, "predictions: a mapping of system name to spans"),
    (dict(predictions={}), ValueError, "predictions: no system given"),
    (dict(texts="abc"), TypeError, "texts: a mapping of document id to text, or a sequence of texts"),
    (dict(baseline_systems=["zz"]), ValueError, "baseline_systems: ['zz'] are not systems of predictions (['a'])"),
])
def test_span_dataset_refusals_say_what_is_wrong(bad, err, msg):
    from metaeval.api import span_dataset

    kw = dict(predictions={"a": [("d1", 0, 4)]}, texts=SPAN_TEXTS)
    kw.update(bad)
    with pytest.raises(err) as e:
        span_dataset(SPAN_GOLD, kw.pop("predictions"), **kw)
    assert str(e.value) == msg


# ---------------------------------------------------------------- read_files(): columns, keywords, refusals
def _files(tmp_path):
    (tmp_path / "gold.csv").write_text("id,lab,grp\n" + "".join(f"i{i},{'ab'[i % 2]},g{i % 3}\n" for i in range(12)))
    (tmp_path / "sysA.csv").write_text("id,lab\n" + "".join(f"i{i},a\n" for i in range(12)))
    (tmp_path / "sysB.csv").write_text("id,lab\n" + "".join(f"i{i},{'ab'[(i // 2) % 2]}\n" for i in range(12)))
    return tmp_path / "gold.csv", [tmp_path / "sysA.csv", tmp_path / "sysB.csv"]


def test_every_keyword_of_read_files_reaches_the_dataset(tmp_path):
    from metaeval.api import read_files

    gold, preds = _files(tmp_path)
    ds, spec = read_files(gold, preds, id_column="id", label_column="lab", group_column="grp", name="mine",
                          labels=["a", "b"], metrics=["accuracy", "kappa"], baselines=["majority"], random_seed=4)
    assert (spec.name, spec.labels, spec.metrics, spec.baselines, spec.random_seed) == (
        "mine", ("a", "b"), ("accuracy", "kappa"), ("majority",), 4)
    assert ds.systems == ("sysA", "sysB", "majority") and ds.group_names == ("g0", "g1", "g2")
    assert ds.groups.tolist() == [0, 1, 2] * 4 and ds.gold.tolist() == [0, 1] * 6
    plain, pspec = read_files(gold, preds, id_column="id", label_column="lab")
    assert plain.groups is None and pspec.name == "data" and {"majority", "random"} <= set(pspec.baselines)


def test_read_files_refusals_say_what_is_wrong(tmp_path):
    from metaeval.api import read_files

    gold, preds = _files(tmp_path)
    with pytest.raises(ValueError) as e:
        read_files(gold, preds, id_column="id", label_column="lab", format="xml")
    assert str(e.value) == ("read_files: unknown format 'xml'; known: csv, semeval_tsv, semeval2020_si, "
                            "semeval2020_tc, semeval2021_tsd")
    with pytest.raises(TypeError) as e:
        read_files(gold, preds, id_column="id", label_column="lab", labls=["a"])
    assert str(e.value).startswith("read_files(): unknown keyword 'labls' (did you mean 'labels'?); the keywords: "
                                   "allow_unused_labels, articles, baseline_systems, baselines, documents, ")
    with pytest.raises(TypeError) as e:  # a keyword of span files for label files
        read_files(gold, preds, id_column="id", label_column="lab", span_metrics=["span_f1"])
    assert str(e.value).startswith("read_files: 'span_metrics': keyword(s) of span files (format=semeval2020_si, "
                                   "...); those of label files: allow_unused_labels, baseline_systems, ")
    with pytest.raises(TypeError, match=r"^read_files\(\): 'bootstrap_replicates' is an experiment setting: give it "
                                        r"to the call that computes"):
        read_files(gold, preds, id_column="id", label_column="lab", bootstrap_replicates=10)
    with pytest.raises(ValueError) as e:
        read_files(gold, [], id_column="id", label_column="lab")
    assert str(e.value) == "predictions: no system given (give prediction files, or scores=[...])"
    with pytest.raises(TypeError, match=re.escape("read_files: span_format is the old name of format: give format "
                                                  "alone")):
        read_files(gold, preds, format="csv", span_format="semeval2020_si")


def _score_files(tmp_path):
    (tmp_path / "gold.csv").write_text("id,lab,g\na,x,1\nb,y,1\nc,z,2\nd,x,2\n")
    (tmp_path / "sys.csv").write_text("id,px,py,pz\na,0.5,0.3,0.2\nb,0.2,0.5,0.2\nc,0.1,0.1,0.8\nd,0.6,0.2,0.2\n")
    return tmp_path / "gold.csv", [tmp_path / "sys.csv"]


def test_every_keyword_of_read_files_with_scores_reaches_the_dataset(tmp_path):
    from metaeval.api import read_files

    gold, scores = _score_files(tmp_path)
    cols = {"columns": {"x": "px", "y": "py", "z": "pz"}}
    ds, spec = read_files(gold, scores=scores, id_column="id", label_column="lab", group_column="g",
                          score_format=cols, normalize_probabilities=True, metrics=["log_loss", "accuracy"],
                          name="pr", random_seed=9, baselines=["majority"],
                          weights={"w": {"x": .2, "y": .3, "z": .5}})
    assert (spec.name, spec.labels, spec.score_metrics, spec.metrics) == ("pr", ("x", "y", "z"), ("log_loss",),
                                                                          ("accuracy",))
    assert spec.normalize_probabilities and spec.random_seed == 9 and spec.weights == {"w": (0.2, 0.3, 0.5)}
    assert spec.score_format["columns"] == cols["columns"] and spec.score_format["id_column"] == "id"
    assert (spec.gold_format["id_column"], spec.gold_format["label_column"], spec.gold_format["group_column"]) == (
        "id", "lab", "g")
    assert ds.systems == ("sys", "majority") and ds.group_names == ("1", "2")
    assert ds.scores.values[0, 1].tolist() == pytest.approx([2 / 9, 5 / 9, 2 / 9])  # row b normalised
    # the labels in the caller's order, a tolerance instead of normalising, the csv format named
    ds2, spec2 = read_files(gold, scores=scores, id_column="id", label_column="lab", score_format=cols,
                            probability_tolerance=0.2, labels=["z", "y", "x"], metrics=["log_loss"], format="csv")
    assert (spec2.name, spec2.labels, spec2.probability_tolerance, ds2.groups) == ("data", ("z", "y", "x"), 0.2, None)
    assert not spec2.normalize_probabilities and spec2.random_seed == 20200101
    assert ds2.scores.values[0, 1].tolist() == pytest.approx([0.2, 0.5, 0.2])  # as read: within the tolerance
    with pytest.raises(DataError, match="the class probabilities sum to 0.9"):
        read_files(gold, scores=scores, id_column="id", label_column="lab", score_format=cols, metrics=["log_loss"])


def test_a_score_threshold_turns_one_score_per_item_into_labels(tmp_path):
    from metaeval.api import read_files

    (tmp_path / "gold.csv").write_text("item_id,label\na,pos\nb,neg\nc,neg\nd,pos\n")
    (tmp_path / "s.csv").write_text("item_id,score\na,0.9\nb,0.4\nc,0.6\nd,0.2\n")
    ds, spec = read_files(tmp_path / "gold.csv", scores=[tmp_path / "s.csv"], labels=["pos", "neg"],
                          positive_class="pos", score_threshold=0.5, metrics=["roc_auc"], baselines=[])
    assert spec.score_threshold == 0.5 and [ds.labels[c] for c in ds.predictions[0]] == ["pos", "neg", "pos", "neg"]


# ---------------------------------------------------------------- small rules of the front door
@pytest.mark.parametrize("missing", [None, pd.NA, pd.NaT, float("nan")])
def test_every_kind_of_missing_gold_label_is_named(missing):
    with pytest.raises(DataError) as e:
        dataset(["a", "b", "a", missing], {"s": ["a"] * 4})
    assert "gold: 1 problem (1 empty id(s), label(s) or group(s))\n    gold: no label for item '3'" in str(e.value)


def test_a_missing_predicted_label_is_named():
    with pytest.raises(DataError) as e:
        dataset(["a", "b"], {"s": ["a", None]})
    assert str(e.value).endswith("predictions['s']: 1 problem (1 empty id(s), label(s) or group(s))\n"
                                 "    predictions['s']: no label for item '1'")


def test_a_text_instead_of_labels_is_refused_with_its_start():
    with pytest.raises(TypeError) as e:
        metaeval.evaluate(GOLD, {"a": "pos neg neu and a long text that goes on and on and on"})
    assert str(e.value) == ("predictions['a']: a sequence of labels, one per item, not a text "
                            "('pos neg neu and a long text that goes on')")


def test_numeric_labels_are_sorted_as_numbers():
    assert dataset(["10", "9", "2", "10"], {"s": ["2"] * 4})[0].labels == ("2", "9", "10")
    assert dataset([10, 9, 2, 10], {"s": [2] * 4})[0].labels == ("2", "9", "10")
    assert dataset(["b", "a", "c"], {"s": ["a"] * 3})[0].labels == ("a", "b", "c")


def test_unknown_keywords_are_named_with_the_known_ones():

    with pytest.raises(TypeError) as e:
        metaeval.evaluate(GOLD, SYSTEMS, bootstrap_replicate=3, qqqqq=1)
    assert str(e.value) == (
        "evaluate(): unknown keyword 'bootstrap_replicate' (did you mean 'bootstrap_replicates'?); unknown keyword "
        "'qqqqq'; the experiment settings, each with its default and meaning: `metaeval settings`, or the "
        "documentation's Configuration page")
    # a misspelt setting the call does not name is matched among every setting
    with pytest.raises(TypeError, match="unknown keyword 'n_split' \\(did you mean 'n_splits'\\?\\)"):
        metaeval.evaluate(GOLD, SYSTEMS, n_split=3)


def test_settings_must_be_a_settings_object():
    with pytest.raises(TypeError) as e:
        metaeval.evaluate(GOLD, SYSTEMS, settings=3)
    assert str(e.value) == "settings= takes the experiment settings (metaeval.api.settings(...)), got int"


def test_a_settings_object_and_explicit_keywords():
    """The settings object's fields, then the keywords the caller gave (a
    keyword given at its default is the caller's choice too: it overrides
    the object's), tuples read as the config's lists."""
    from metaeval.api import settings
    from metaeval.settings import default_of

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = settings(criteria_replicates=7)
        kw = dict(properties=False, baselines=["majority"])
        assert metaeval.recommend(GOLD, SYSTEMS, settings=s, **kw).replicates == 7
        assert metaeval.recommend(GOLD, SYSTEMS, settings=s, criteria_replicates=9, **kw).replicates == 9
        assert metaeval.recommend(GOLD, SYSTEMS, settings=s, criteria_replicates=default_of("criteria_replicates"),
                                  **kw).replicates == default_of("criteria_replicates") != 7
        r = metaeval.recommend(GOLD, SYSTEMS, criteria=("stability", "power"), criteria_replicates=5, **kw)
    assert r.criteria == ["stability", "power"]


def test_the_few_systems_warning_from_two_systems_on():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metaeval.recommend(GOLD, {"a": SYSTEMS["a"], "b": SYSTEMS["b"]}, baselines=[], properties=False,
                           criteria_replicates=5)
    few = [w for w in caught if "ranked systems" in str(w.message)]
    assert len(few) == 1 and _at_caller(few[0])
    assert str(few[0].message) == (
        "2 ranked systems (baselines included), fewer than min_systems = 6: the workflow does not meta-evaluate such "
        "a dataset; the criteria compare rankings of so few systems that the answer is tentative "
        "(settings=metaeval.api.settings(min_systems=2) silences this)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metaeval.recommend(GOLD, {"a": SYSTEMS["a"], "b": SYSTEMS["b"]}, baselines=[], properties=False,
                           criteria_replicates=5, settings=metaeval.api.settings(min_systems=2))
    assert not [w for w in caught if "ranked systems" in str(w.message)]


def _pandas_scores(gold: pd.Series, systems: dict) -> dict:
    """Accuracy and macro-F1 of each system on the data aligned by pandas
    (the reference: the index says which item is which)."""
    from sklearn.metrics import accuracy_score, f1_score

    out = {}
    for name, pred in systems.items():
        g, p = gold.align(pd.Series(pred), join="inner")
        out[name] = (accuracy_score(g, p), f1_score(g, p, average="macro"))
    return out


def test_labels_with_ids_are_matched_by_id_and_a_mix_is_refused_with_the_reason():
    """Issue 48: a Series or dict is matched by its ids; plain sequences by
    position; a mix that would match by position in silence is refused."""
    rng = np.random.default_rng(48)
    ids = [f"t{i}" for i in range(300)]
    gold = pd.Series(rng.choice(list("abc"), 300), index=ids)
    noisy = {name: gold.where(rng.random(300) < keep, pd.Series(rng.choice(list("abc"), 300), index=ids))
             for name, keep in (("A", 0.75), ("B", 0.4))}
    shuffled = {name: s.sample(frac=1, random_state=i) for i, (name, s) in enumerate(noisy.items())}
    want = _pandas_scores(gold, shuffled)
    for g, p in ((gold, shuffled), (gold.to_dict(), {k: v.to_dict() for k, v in shuffled.items()}),
                 (gold.sample(frac=1, random_state=9), shuffled)):
        got = metaeval.evaluate(g, p, metrics=["accuracy", "macro_f1"], intervals=False, baselines=[])
        for name, (acc, f1) in want.items():
            assert got.loc[name, "accuracy"] == pytest.approx(acc, abs=1e-12)
            assert got.loc[name, "macro_f1"] == pytest.approx(f1, abs=1e-12)
    # a list gold with id-indexed Series, a Series gold with lists in another order: refused, with the reason
    with pytest.raises(DataError, match=r"predictions\['A'\]: a pandas Series indexed by item id \(e.g. 't\d+'\), "
                                        r"but the gold is a plain sequence \(list\) without ids: matching them by "
                                        r"position would ignore the index"):
        metaeval.evaluate(list(gold), shuffled, intervals=False)
    with pytest.raises(DataError, match=r"predictions\['A'\]: a plain sequence \(list\) without ids, but the gold "
                                        r"is indexed by item id \(e.g. 't0'\)"):
        metaeval.evaluate(gold, {k: list(v) for k, v in shuffled.items()}, intervals=False)
    with pytest.raises(DataError, match=r"groups: a pandas Series indexed by item id \(e.g. 'x0'\), but the gold is "
                                        r"a plain sequence"):
        metaeval.api.dataset(list(gold), {k: list(v.reindex(ids)) for k, v in shuffled.items()},
                             groups=pd.Series(["x", "y"] * 150, index=[f"x{i}" for i in range(300)]))
    # a dict gold: its keys are ids, not labels
    ds, spec = metaeval.api.dataset(gold.to_dict(), shuffled)
    assert spec.labels == ("a", "b", "c") and ds.info["matched_by"] == "item id"
    # a default RangeIndex in order is the positions a plain sequence's items have: matched either way
    plain_gold = gold.reset_index(drop=True)
    pos = {k: v.reindex(ids).reset_index(drop=True) for k, v in shuffled.items()}
    mixed = metaeval.evaluate(plain_gold, {"A": pos["A"].to_numpy(), "B": pos["B"].sample(frac=1, random_state=1)},
                              metrics=["accuracy", "macro_f1"], intervals=False, baselines=[])
    for name, (acc, f1) in want.items():
        assert mixed.loc[name, "accuracy"] == pytest.approx(acc, abs=1e-12)
    ds, _ = metaeval.api.dataset(plain_gold, {"A": pos["A"].to_numpy()})
    assert ds.info["matched_by"] == "position (the ids are the positions 0 .. N-1, in order)"
    # a shuffled frame (the trial): its index is 0 .. N-1 out of order, its column's values in the frame's order;
    # by id would pair the wrong rows (accuracy 0.31 for 0.83), so the mix is refused, both ways round
    frame = pd.DataFrame({"label": plain_gold, "pred": pos["A"]}).sample(frac=1, random_state=7)
    with pytest.raises(DataError, match=r"predictions\['m'\]: a plain sequence \(ndarray\) without ids, but the gold is "
                                        r"indexed by item id \(e.g. '\d+', not in the order 0 .. N-1\)"):
        metaeval.evaluate(frame["label"], {"m": frame["pred"].to_numpy()}, intervals=False)
    with pytest.raises(DataError, match=r"predictions\['pred'\]: a pandas Series indexed by item id"):
        metaeval.evaluate(frame["label"].tolist(), frame[["pred"]], intervals=False)
    by_rows = metaeval.evaluate(frame["label"].tolist(), {"m": frame["pred"].tolist()}, metrics=["accuracy"],
                                intervals=False, baselines=[])
    assert by_rows.loc["m", "accuracy"] == pytest.approx(want["A"][0], abs=1e-12)
    ds, _ = metaeval.api.dataset(list(plain_gold), {"A": list(pos["A"])})
    assert ds.info["matched_by"] == "position"
    # groups with ids follow their ids, not their order
    groups = pd.Series(np.where(np.arange(300) % 2, "x", "y"), index=ids)
    ds, _ = metaeval.api.dataset(gold, shuffled, groups=groups.sample(frac=1, random_state=4))
    assert [ds.group_names[g] for g in ds.groups[:4]] == ["y", "x", "y", "x"]
    ds, _ = metaeval.api.dataset(gold, shuffled, groups=groups.tolist())  # a plain sequence: in the gold's order
    assert [ds.group_names[g] for g in ds.groups[:4]] == ["y", "x", "y", "x"]


def test_an_empty_gold_is_said_as_such():
    with pytest.raises(DataError, match=r"gold: no items \(a pandas Series of length 0\): give one gold label per "
                                        r"item"):
        metaeval.evaluate(pd.Series([], dtype=object), {"a": pd.Series([], dtype=object)})


def test_the_comparison_carries_the_power_table():
    c = metaeval.compare(GOLD, SYSTEMS, metrics=["accuracy", "kappa"], tukey_trials=50)
    assert set(c.power["metric"]) == {"accuracy", "kappa"} and c.alpha == 0.05


# ---------------------------------------------------------------- what a call resamples and ranks (_prepare)
def test_a_span_task_is_resampled_by_document():
    from metaeval.api import _prepare, span_dataset

    pair = span_dataset(SPAN_GOLD, {"a": [("d1", 0, 4)], "b": [("d2", 3, 9)]}, texts=SPAN_TEXTS)
    _, _, st = _prepare(pair, None, {})
    assert st.resample_unit == "group" and st.stratified is False
    _, _, st = _prepare(pair, None, {"resample_unit": "group"})
    assert st.resample_unit == "group"
    with pytest.raises(ValueError) as e:
        _prepare(pair, None, {"resample_unit": "item"})
    assert str(e.value) == "resample_unit: a span dataset is resampled by document ('group')"
    with pytest.raises(TypeError) as e:
        _prepare(SPAN_GOLD, {"a": [("d1", 0, 4)]}, {"texts": SPAN_TEXTS, "groups": ["x"]})
    assert str(e.value) == "groups and ordinal are not keywords of span tasks (their unit is the document)"
    with pytest.raises(TypeError, match="^groups and ordinal are not keywords of span tasks"):
        _prepare(SPAN_GOLD, {"a": [("d1", 0, 4)]}, {"texts": SPAN_TEXTS, "ordinal": True})


def test_metrics_ranking_within_groups_resample_whole_groups(tmp_path):
    from metaeval.api import _prepare, read_files

    (tmp_path / "gold.csv").write_text("item_id,label,q\n" + "".join(f"i{i},{'pn'[i % 2]},q{i % 4}\n"
                                                                    for i in range(16)))
    (tmp_path / "s.csv").write_text("item_id,score\n" + "".join(f"i{i},{(i * 7 % 16) / 16}\n" for i in range(16)))
    pair = read_files(tmp_path / "gold.csv", scores=[tmp_path / "s.csv"], labels=["p", "n"], positive_class="p",
                      group_column="q", score_threshold=0.5, metrics=["map", "brier"], baselines=[])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, _, st = _prepare(pair, None, {})
    assert st.resample_unit == "group"
    with pytest.raises(ValueError) as e:
        _prepare(pair, None, {"resample_unit": "item"})
    assert str(e.value) == ("resample_unit: ['map'] rank the items within each group, so a resample draws whole "
                            "groups ('group')")
    plain = read_files(tmp_path / "gold.csv", scores=[tmp_path / "s.csv"], labels=["p", "n"], positive_class="p",
                       score_threshold=0.5, metrics=["brier"], baselines=[])
    assert _prepare(plain, None, {})[2].resample_unit == "item"


def test_which_baselines_a_call_ranks():
    from metaeval.api import _prepare

    pair = dataset(GOLD, SYSTEMS, baselines=["majority", "random"])
    assert _prepare(pair, None, {}, include_all_baselines=True)[2].include_baselines == ("majority", "random")
    assert _prepare(pair, None, {"include_baselines": ["random"]},
                    include_all_baselines=True)[2].include_baselines == ("random",)
    default = _prepare(pair, None, {})[2].include_baselines
    assert default == metaeval.api.settings().include_baselines
    # generated for the call: every baseline of the task unless the call names them
    ds, _, _ = _prepare(GOLD, SYSTEMS, {}, all_baselines=True)  # all_class: one system per class
    assert set(ds.systems) - set(SYSTEMS) == {"majority", "random", "all_neg", "all_neu", "all_pos"}
    ds, _, _ = _prepare(GOLD, SYSTEMS, {"baselines": ["majority"]}, all_baselines=True)
    assert set(ds.systems) - set(SYSTEMS) == {"majority"}
    ds, _, _ = _prepare(GOLD, SYSTEMS, {})
    assert set(ds.systems) == set(SYSTEMS)


def test_span_baselines_of_a_call():
    from metaeval.api import _prepare

    ds, _, _ = _prepare(SPAN_GOLD, {"a": [("d1", 0, 4)]}, {"texts": SPAN_TEXTS}, all_baselines=True)
    assert set(ds.systems) - {"a"} == set(metaeval.data.config.SPAN_BASELINE_KINDS)
    tc = [("d1", "fear", 0, 5), ("d2", "doubt", 3, 9)]
    ds, _, _ = _prepare(tc, {"b": [("d1", "fear", 0, 5), ("d2", "fear", 3, 9)]}, {"texts": SPAN_TEXTS},
                        all_baselines=True)
    assert set(ds.systems) - {"b"} == {"majority", "random", "all_doubt", "all_fear"}


def test_dataset_keys_left_at_their_defaults_are_no_choice():
    pair = dataset(GOLD, SYSTEMS)
    a = metaeval.evaluate(pair, intervals=False, labels=None, ordinal=False, weights=None)
    assert a.equals(metaeval.evaluate(pair, intervals=False))
    with pytest.raises(TypeError, match="^'ordinal': keywords of the dataset"):
        metaeval.evaluate(pair, intervals=False, ordinal=True)


@pytest.mark.parametrize("kw,msg", [
    (dict(ordinal="yes"), "ordinal: expected True or False, got 'yes'"),
    (dict(weights=3), "weights: expected a mapping of label to weight, or of set name to such a mapping, got 3"),
    (dict(f_avg_classes=5), "f_avg_classes: expected a list of labels, got 5"),
    (dict(unrelated_label=["a"]), "unrelated_label: expected one label, got ['a']"),
    (dict(baselines="majority"), "baselines: expected a list of baseline kinds (e.g. ['majority', 'random']; [] for "
                                 "none), got 'majority'"),
    (dict(baseline_systems=3), "baseline_systems: expected a list of system names, got 3"),
    (dict(primary_metric=3), "primary_metric: expected a metric id, got 3"),
    (dict(allow_unused_labels="no"), "allow_unused_labels: expected True or False, got 'no'"),
    (dict(label_map=3), "label_map: expected a mapping of label as written to label, got 3"),
    (dict(normalize_labels=3), "normalize_labels: expected a list of 'strip' and / or 'case', got 3"),
    (dict(random_seed=-1), "random_seed: expected an integer >= 0, got -1"),
    (dict(labels=3), "labels: expected a list of labels, got 3"),
])
def test_a_dataset_keyword_of_the_wrong_type_is_named(kw, msg):
    with pytest.raises(TypeError) as e:
        dataset(GOLD, SYSTEMS, **kw)
    assert str(e.value) == msg


def test_the_dataset_s_custom_metrics_are_held_to_their_contract_on_its_systems():
    from metaeval.measures.custom import register_metric

    register_metric("mine_bad", _seven, range=(0, 1))
    with pytest.raises(MetricContractError) as e:
        dataset(GOLD, SYSTEMS, metrics=["accuracy", "mine_bad"])
    assert "expected values in its range [0, 1]; found 7 on the systems of dataset 'data' (matrix 0" in str(e.value)
    # a metric with a parameter is checked with the dataset's
    register_metric("mine_w", lambda c, weights: M.wauc(c, weights), needs=["weights"], range=(0, 1))
    ds, spec = dataset(GOLD, SYSTEMS, metrics=["mine_w"], weights={"neg": 0.2, "neu": 0.3, "pos": 0.5})
    assert spec.metrics == ("mine_w",)


def test_a_metric_of_per_item_terms_sees_the_item_ids():
    seen = []

    def terms(gold, pred, items):
        seen.append(list(items))
        return _acc_terms(gold, pred, items)

    ids = [f"q{i}" for i in range(120)]
    got = metaeval.evaluate(pd.Series(GOLD, index=ids), {k: pd.Series(v, index=ids) for k, v in SYSTEMS.items()},
                            intervals=False, baselines=[], metrics={"item_acc": {"terms": terms, "combine": _ratio}})
    assert seen and all(s == ids for s in seen) and got["item_acc"].tolist() == pytest.approx([5 / 6, 2 / 3, 2 / 3,
                                                                                              5 / 6])
    bad = {"terms": terms, "combine": lambda t: t[..., 0] * 0 + 7.0, "range": [0, 1]}
    with pytest.raises(MetricContractError, match="on the systems of dataset 'data'"):
        dataset(GOLD, SYSTEMS, metrics={"item_bad": bad})


def test_many_groups_are_coded_without_overflow():
    n = 2 ** 15 + 10  # more groups than int16 codes
    gold = ["a", "b"] * (n // 2)
    ds, _ = dataset(gold, {"s": gold}, groups=[f"g{i:06d}" for i in range(n)])
    assert ds.groups.dtype == np.int32 and ds.groups.max() == n - 1 and ds.group_names[ds.groups[-1]] == f"g{n - 1:06d}"
    few, _ = dataset(gold[:10], {"s": gold[:10]}, groups=[f"g{i % 3}" for i in range(10)])
    assert few.groups.dtype == np.int16


ORDERED = dict(labels=["neg", "neu", "pos"], ordinal=True, metrics=["accuracy", "mae_macro", "wauc"],
               weights={"neg": 0.2, "neu": 0.5, "pos": 0.3})


def test_recommend_and_compare_take_the_ordered_classes_and_the_weights():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = metaeval.recommend(GOLD, SYSTEMS, properties=False, criteria_replicates=5, baselines=["majority"],
                               groups=[f"g{i % 10}" for i in range(120)], resample_unit="group", **ORDERED)
    assert r.metrics == ["accuracy", "wauc", "mae_macro"] and r.unit == "groups" and r.baselines == ["majority"]
    c = metaeval.compare(GOLD, SYSTEMS, tukey_trials=60, alpha=0.2, baselines=["majority"],
                         significance_correction="bh", **ORDERED)
    assert set(c.pairs["metric"]) == {"accuracy", "wauc", "mae_macro"} and c.alpha == 0.2
    assert {"majority"} <= set(c.pairs["system_a"]) | set(c.pairs["system_b"])
    from metaeval.methods.corrections import TUKEY_CORRECTION

    assert (c.test, c.correction) == ("tukey", TUKEY_CORRECTION)  # family-wise already: no correction asked for
    b = metaeval.compare(GOLD, SYSTEMS, significance_test="bootstrap", bootstrap_replicates=40,
                         significance_correction="bh", baselines=[], metrics=["accuracy"])
    assert (b.test, b.correction) == ("bootstrap", "bh")
    assert set(b.pairs["system_a"]) | set(b.pairs["system_b"]) == set(SYSTEMS)


def test_compare_needs_two_systems():
    two = metaeval.compare(GOLD, {"a": SYSTEMS["a"], "b": SYSTEMS["b"]}, baselines=[], tukey_trials=50,
                           metrics=["accuracy"])
    assert len(two.pairs) == 1
    with pytest.raises(ValueError) as e:
        metaeval.compare(GOLD, {"a": SYSTEMS["a"]}, baselines=[], tukey_trials=50)
    assert str(e.value) == "compare needs at least two systems (or a system and a baseline: baselines=[...])"
    one_and_baseline = metaeval.compare(GOLD, {"a": SYSTEMS["a"]}, baselines=["majority"], tukey_trials=50,
                                        metrics=["accuracy"])
    assert len(one_and_baseline.pairs) == 1


def test_meta_evaluate_computes_the_properties_unless_told_not_to():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = metaeval.meta_evaluate(GOLD, SYSTEMS, n_splits=10, tukey_trials=50, bootstrap_replicates=20,
                                   criteria_replicates=5, metrics=["accuracy", "kappa"])
        off = metaeval.meta_evaluate(GOLD, SYSTEMS, n_splits=10, tukey_trials=50, bootstrap_replicates=20,
                                     criteria_replicates=5, metrics=["accuracy", "kappa"], properties=False)
    assert r.rec.failed and set(r.rec.failed) == {"accuracy", "kappa"}
    assert not off.rec.failed
    assert set(r.rec.baselines) == {"majority", "random"}  # every baseline generated, the workflow's ranked


@pytest.mark.parametrize("bad,kind", [(5, "int"), (None, "NoneType"), ((x for x in "ab"), "generator")])
def test_labels_that_are_no_sequence_are_refused_by_name(bad, kind):
    with pytest.raises(TypeError) as e:
        dataset(["a", "b"], {"s": bad})
    assert str(e.value) == f"predictions['s']: a sequence of labels, one per item (a list, array or Series), got {kind}"
    with pytest.raises(TypeError, match=r"^gold: a sequence of labels, one per item \(a list, array or Series\), got int$"):
        dataset(5, {"s": ["a"]})


def test_an_empty_prediction_sequence_is_one_of_the_wrong_length():
    with pytest.raises(DataError, match=re.escape("predictions['s']: 0 labels for 2 gold items")):
        dataset(["a", "b"], {"s": []})


def test_a_declaration_without_a_function_is_refused():
    with pytest.raises(MetricContractError, match=re.escape("custom metric 'mine': the function is not callable "
                                                            "(None)")):
        metaeval.evaluate(["a", "b"], {"s": ["a", "b"]}, metrics={"mine": {"range": [0, 1]}})


def test_settings_objects_reach_every_one_call_function():
    s = metaeval.api.settings(n_splits=12, bootstrap_replicates=25, criteria=("stability", "power"),
                              criteria_replicates=5, design_draws=4)
    assert s.criteria == ("stability", "power")  # a tuple, read as the config's list
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = metaeval.meta_evaluate(GOLD, SYSTEMS, properties=False, tukey_trials=50, settings=s)
        d = metaeval.size_design(GOLD, SYSTEMS, metrics=["accuracy"], settings=s)
    assert r.settings.n_splits == 12 and len(r["stability_splits"]) == 12 and r.rec.criteria == ["stability", "power"]
    assert d.design["metric"].unique().tolist() == ["accuracy"]
    d2 = metaeval.size_design(GOLD, SYSTEMS, metrics=["accuracy"], settings=metaeval.api.settings(design_draws=4,
                                                                                               bootstrap_replicates=60))
    assert not d.design["mdd_low"].equals(d2.design["mdd_low"])  # 25 replicates, not 60: the settings were read


def test_evaluate_takes_ordered_classes_and_an_interval_method():
    pct = metaeval.evaluate(GOLD, SYSTEMS, labels=["neg", "neu", "pos"], ordinal=True, metrics=["mae_macro"],
                            bootstrap_replicates=200, baselines=[])
    bca = metaeval.evaluate(GOLD, SYSTEMS, labels=["neg", "neu", "pos"], ordinal=True, metrics=["mae_macro"],
                            bootstrap_replicates=200, baselines=[], interval_method="bca")
    assert "mae_macro" in pct.columns and pct["mae_macro"].equals(bca["mae_macro"])
    assert not pct["mae_macro_low"].equals(bca["mae_macro_low"])


def test_the_comparison_line_of_one_metric():
    c = metaeval.compare(GOLD, SYSTEMS, metrics=["accuracy"], tukey_trials=50, baselines=[])
    assert repr(c) == "Comparison(tukey test, alpha 0.05: 6 pairs of systems x 1 metrics; .pairs, .best, .power)"


def test_score_files_with_a_gold_in_a_named_format_and_no_labels_given(tmp_path):
    """The gold's labels are read as the format says, whatever the file's
    ending (a SemEval-2016 Task 6 gold named .txt was refused as an unknown
    file type when the labels were not given)."""
    from metaeval.api import read_files

    (tmp_path / "gold.txt").write_text("ID\tTarget\tStance\na\tt\tx\nb\tt\ty\nc\tt\tz\nd\tt\tx\n")
    (tmp_path / "sys.csv").write_text("ID,px,py,pz\na,0.5,0.3,0.2\nb,0.2,0.6,0.2\nc,0.1,0.1,0.8\nd,0.6,0.2,0.2\n")
    ds, spec = read_files(tmp_path / "gold.txt", scores=[tmp_path / "sys.csv"], format="semeval_tsv",
                          score_format={"columns": {"x": "px", "y": "py", "z": "pz"}, "id_column": "ID"},
                          metrics=["log_loss"], baselines=[])
    assert ds.labels == ("x", "y", "z") and spec.gold_format["label_column"] == "Stance"
    assert ds.scores.values[0, 1].tolist() == pytest.approx([0.2, 0.6, 0.2])
    same = read_files(tmp_path / "gold.txt", scores=[tmp_path / "sys.csv"], format="semeval_tsv", labels=["x", "y", "z"],
                      score_format={"columns": {"x": "px", "y": "py", "z": "pz"}, "id_column": "ID"},
                      metrics=["log_loss"], baselines=[])
    assert np.array_equal(same[0].scores.values, ds.scores.values)


def test_score_files_with_custom_metrics_and_a_faulty_gold(tmp_path):
    from metaeval.api import read_files

    gold, scores = _score_files(tmp_path)
    cols = {"columns": {"x": "px", "y": "py", "z": "pz"}}
    ds, spec = read_files(gold, scores=scores, id_column="id", label_column="lab", score_format=cols,
                          normalize_probabilities=True, baselines=[],
                          metrics={"log_loss": None, "accuracy": None, "mine_acc": lambda c: M.accuracy(c)})
    assert spec.score_metrics == ("log_loss",) and set(spec.metrics) == {"accuracy", "mine_acc"}
    (tmp_path / "bad.csv").write_text("id,wrong\na,x\n")
    with pytest.raises(DataError) as e:
        read_files(tmp_path / "bad.csv", scores=scores, id_column="id", label_column="lab", score_format=cols,
                   name="mine")
    assert str(e.value).startswith(f"dataset 'mine' (gold {tmp_path / 'bad.csv'}): 1 problem")


def test_score_files_beside_prediction_files(tmp_path):
    from metaeval.api import read_files

    gold, scores = _score_files(tmp_path)
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "sys.csv").write_text("id,lab\na,z\nb,y\nc,y\nd,x\n")  # not the scores' argmax
    ds, spec = read_files(gold, [tmp_path / "labels" / "sys.csv"], scores=scores, id_column="id", label_column="lab",
                          score_format={"columns": {"x": "px", "y": "py", "z": "pz"}}, normalize_probabilities=True,
                          metrics=["accuracy", "log_loss"], baselines=[])
    assert ds.systems == ("sys",)
    assert [ds.labels[c] for c in ds.predictions[0]] == ["z", "y", "y", "x"]  # the file's labels, not the argmax


@pytest.mark.parametrize("kw,msg", [
    (dict(requirements=["bogus"]), "datasets.data.requirements: 'bogus' is not a formal property; known: "),
    (dict(official_metric="nope"), "datasets.data.official_metric: 'nope' is not a metric id"),
    (dict(paper_choices=[{"source": "x", "metrics": ["nope"]}]), "datasets.data.paper_choices[0]: 'nope' is not a "
                                                                 "metric id"),
    (dict(requirements=["ordinal_invariance"]), "datasets.data.requirements: 'ordinal_invariance' is a property of "
                                                "ordered classes; this dataset's are unordered (ordinal: false)"),
])
def test_the_verdict_keywords_are_checked_as_the_config_s(kw, msg):
    from metaeval.data.config import ConfigError

    with pytest.raises(ConfigError) as e:
        metaeval.recommend(GOLD, SYSTEMS, criteria_replicates=5, **kw)
    assert str(e.value).startswith(msg)


def test_ordered_classes_accept_their_requirements():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = metaeval.recommend(GOLD, SYSTEMS, criteria_replicates=5, labels=["neg", "neu", "pos"], ordinal=True,
                               requirements=["ordinal_invariance"], metrics=["accuracy", "mae_macro"])
    assert [q.id for q in r.requirements if q.declared] == ["ordinal_invariance"]


def test_read_files_takes_one_file_or_a_glob_pattern_as_the_config_does(tmp_path):
    from metaeval import read_files

    (tmp_path / "gold.csv").write_text("item_id,label\n1,pos\n2,neg\n3,neg\n")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "one.csv").write_text("item_id,label\n1,pos\n2,neg\n3,pos\n")
    (tmp_path / "p" / "two.csv").write_text("item_id,label\n1,neg\n2,neg\n3,neg\n")
    ds, _ = read_files(tmp_path / "gold.csv", str(tmp_path / "p" / "*.csv"), baselines=[])
    assert ds.systems == ("one", "two")
    ds, _ = read_files(tmp_path / "gold.csv", tmp_path / "p" / "two.csv", baselines=[])
    assert ds.systems == ("two",)
    ds, _ = read_files(tmp_path / "gold.csv", [tmp_path / "p" / "two.csv", str(tmp_path / "p" / "o*.csv")],
                       baselines=[])
    assert ds.systems == ("two", "one")
    with pytest.raises(Exception) as e:
        read_files(tmp_path / "gold.csv", str(tmp_path / "q" / "*.csv"))
    assert str(e.value) == f"read_files: no prediction file matches {str(tmp_path / 'q' / '*.csv')!r}"
