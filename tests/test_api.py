"""The library API (metaeval.api): labels in memory, pandas out, the
workflow's checks and computations (tests/test_workflow.py compares its
tables with the workflow's, byte for byte)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score

import metaeval
from metaeval import api
from metaeval.api import dataset, read_files
from metaeval.data.config import ConfigError
from metaeval.data.files import DataError

RNG = np.random.default_rng(5)
LABELS = ["neg", "neu", "pos"]
GOLD = list(RNG.choice(LABELS, 90))
SYSTEMS = {name: [g if RNG.random() < acc else RNG.choice(LABELS) for g in GOLD]
           for name, acc in (("a", 0.8), ("b", 0.6), ("c", 0.4))}


def test_evaluate_equals_scikit_learn_and_its_intervals_a_plain_loop_over_the_same_draws():
    from metaeval.engine.resample import bootstrap_weights

    got = metaeval.evaluate(GOLD, SYSTEMS, metrics=["accuracy", "macro_f1"], bootstrap_replicates=50,
                            bootstrap_seed=3)
    assert list(got.index) == ["a", "b", "c"] and got.index.name == "system"
    assert list(got.columns) == ["kind", "accuracy", "accuracy_low", "accuracy_high", "macro_f1", "macro_f1_low",
                                 "macro_f1_high"]
    for s, pred in SYSTEMS.items():
        assert got.loc[s, "accuracy"] == pytest.approx(accuracy_score(GOLD, pred), abs=1e-15)
        assert got.loc[s, "macro_f1"] == pytest.approx(f1_score(GOLD, pred, average="macro", labels=LABELS),
                                                       abs=1e-15)
    # the percentile interval of a plain loop over the engine's own draws (counts per item)
    w = bootstrap_weights(len(GOLD), np.arange(50), 3)
    g, p = np.array(GOLD), np.array(SYSTEMS["b"])
    reps = [np.repeat(g == p, row.astype(int)).mean() for row in w]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    assert got.loc["b", "accuracy_low"] == pytest.approx(lo, abs=1e-12)
    assert got.loc["b", "accuracy_high"] == pytest.approx(hi, abs=1e-12)


def test_evaluate_takes_a_dataframe_or_series_by_id_and_adds_baselines():
    gold = pd.Series(GOLD, index=[f"i{k}" for k in range(len(GOLD))])
    frame = pd.DataFrame({s: pd.Series(v, index=gold.index) for s, v in SYSTEMS.items()}).iloc[::-1]  # other order
    got = metaeval.evaluate(gold, frame, intervals=False, baselines=["majority"])
    want = metaeval.evaluate(GOLD, SYSTEMS, intervals=False, baselines=["majority"])
    pd.testing.assert_frame_equal(got, want)
    assert got.loc["majority", "kind"] == "baseline"


def test_compare_gives_every_pair_and_the_best_group():
    c = metaeval.compare(GOLD, SYSTEMS, metrics=["accuracy"], tukey_trials=500)
    assert len(c.pairs) == 3 and set(c.pairs.columns) >= {"system_a", "system_b", "difference", "p_value"}
    assert c.best.loc[0, "best"] == "a" and c.test == "tukey"
    boot = metaeval.compare(GOLD, SYSTEMS, metrics=["accuracy"], significance_test="bootstrap",
                            significance_correction="bh", bootstrap_replicates=200)
    assert boot.test == "bootstrap" and boot.correction == "bh"


def test_recommend_names_a_metric_and_the_baselines_it_ranked():
    from metaeval.api import recommend
    from metaeval.verdict.sentences import answer_sentence

    more = {**SYSTEMS, **{f"s{k}": [g if RNG.random() < 0.3 + 0.1 * k else RNG.choice(LABELS) for g in GOLD]
                          for k in range(4)}}
    rec = recommend(GOLD, more, labels=LABELS, ordinal=True, criteria=["stability", "power"], properties=False,
                    criteria_replicates=20, n_splits=50,
                    settings=metaeval.api.settings(criteria_splits=2, tukey_trials=100))
    assert rec.selected and set(rec.baselines) == {"majority", "random"}
    assert answer_sentence(rec).split(":")[0]


@pytest.mark.parametrize("predictions, where, fault", [
    ({"a": GOLD[:-1]}, "predictions['a']", "89 labels for 90 gold items"),
    ({"a": ["neg"] * 89 + ["bad"]}, "predictions['a']", "predicted label 'bad' of item '89' is not one of"),
    ({"a": [None] + GOLD[1:]}, "predictions['a']", "no label for item '0'"),
])
def test_bad_labels_are_refused_with_the_system_and_the_item(predictions, where, fault):
    with pytest.raises(DataError) as e:
        dataset(GOLD, predictions)
    assert where in str(e.value) and fault in str(e.value)


def test_items_matched_by_index_are_checked_like_a_file():
    gold = pd.Series(GOLD[:5], index=list("vwxyz"))
    with pytest.raises(DataError) as e:
        dataset(gold, {"a": pd.Series(GOLD[:5], index=list("vwxyq"))})
    msg = str(e.value)
    assert "item 'q' is not in the gold" in msg and "1 gold item(s) have no prediction, e.g. 'z'" in msg
    assert "line None" not in msg  # labels in memory have no lines
    with pytest.raises(DataError, match="duplicated item 'v'"):
        dataset(gold, {"a": pd.Series(GOLD[:6], index=list("vwxyzv"))})


def test_settings_and_dataset_keys_are_checked_as_in_the_config():
    with pytest.raises(ValueError, match="ordinal=True needs labels"):
        dataset(GOLD, SYSTEMS, ordinal=True)
    with pytest.raises(ConfigError, match="unknown metric"):
        dataset(GOLD, SYSTEMS, metrics=["acuracy"])
    with pytest.raises(TypeError, match="'bootstrap_replicate' \\(did you mean 'bootstrap_replicates'\\?\\)"):
        metaeval.evaluate(GOLD, SYSTEMS, bootstrap_replicate=10)
    with pytest.raises(TypeError, match="'metric' \\(did you mean 'metrics'\\?\\)"):
        metaeval.evaluate(GOLD, SYSTEMS, metric=["accuracy"])
    with pytest.raises(ConfigError, match="experiments.bootstrap_replicates: expected an integer, got '10'"):
        metaeval.evaluate(GOLD, SYSTEMS, bootstrap_replicates="10")
    with pytest.raises(ValueError, match="compare needs at least two systems"):
        metaeval.compare(GOLD, {"a": SYSTEMS["a"]})
    with pytest.raises(DataError, match="never occur in the gold"):
        dataset(GOLD, SYSTEMS, labels=LABELS + ["other"])
    with pytest.raises(DataError, match="89 groups for 90 gold items"):
        dataset(GOLD, SYSTEMS, groups=["t"] * 89)


def test_groups_resample_whole_groups_when_asked_and_items_by_default():
    """As in the workflow, a dataset with groups resamples items unless
    resample_unit is "group" (the trial of issue 30: the library resampled
    groups by default, the workflow items, and rumoureval2019's answer
    differed)."""
    groups = [f"t{k % 12}" for k in range(len(GOLD))]
    ds, _ = dataset(GOLD, SYSTEMS, groups=groups)
    assert len(ds.group_names) == 12
    by_group = metaeval.evaluate(GOLD, SYSTEMS, groups=groups, metrics=["accuracy"], bootstrap_replicates=100,
                                 resample_unit="group")
    by_item = metaeval.evaluate(GOLD, SYSTEMS, metrics=["accuracy"], bootstrap_replicates=100)
    default = metaeval.evaluate(GOLD, SYSTEMS, groups=groups, metrics=["accuracy"], bootstrap_replicates=100)
    assert not np.allclose(by_group["accuracy_low"], by_item["accuracy_low"])
    pd.testing.assert_frame_equal(default, by_item)
    # a plain loop: each replicate draws 12 groups with replacement, every item of a group drawn with it
    from metaeval.engine.resample import bootstrap_weights

    w = bootstrap_weights(12, np.arange(100), 20210303)
    g, p, codes = np.array(GOLD), np.array(SYSTEMS["a"]), ds.groups
    reps = [np.repeat(g == p, row[codes].astype(int)).mean() for row in w]
    assert by_group.loc["a", "accuracy_low"] == pytest.approx(np.quantile(reps, 0.025), abs=1e-12)


def test_the_random_baseline_is_the_workflow_s_by_default():
    """The API's random_seed default is the project config's (20200101):
    the same data give the workflow's random baseline."""
    import yaml

    from .conftest import ROOT

    seed = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["random_seed"]
    got = metaeval.evaluate(GOLD, SYSTEMS, intervals=False, baselines=["random"], metrics=["accuracy"])
    want = metaeval.evaluate(dataset(GOLD, SYSTEMS, baselines=["random"], metrics=["accuracy"], random_seed=seed),
                             intervals=False)
    other = metaeval.evaluate(dataset(GOLD, SYSTEMS, baselines=["random"], metrics=["accuracy"],
                                      random_seed=seed + 1), intervals=False)
    assert got.loc["random", "accuracy"] == want.loc["random", "accuracy"] != other.loc["random", "accuracy"]


# -- span tasks in memory ----------------------------------------------------------------
SPANS = Path(__file__).parent / "fixtures" / "spans"


def _rows(path, tc: bool):
    """The spans of a file as tuples, offsets as integers (as a user holds them)."""
    out = []
    for line in Path(path).read_text().splitlines():
        f = line.split("\t")
        out.append((f[0], f[1], int(f[2]), int(f[3])) if tc else (f[0], int(f[1]), int(f[2])))
    return out


def _texts():
    return {p.stem[len("article"):]: p.read_text(encoding="utf-8") for p in (SPANS / "articles").glob("article*.txt")}


@pytest.mark.parametrize("task", ["si", "tc"])
def test_spans_in_memory_give_the_tables_of_the_span_files(task):
    """span_dataset (tuples or a DataFrame, and the texts) is the workflow's
    reading of the span files, number for number: the scores with their
    intervals, the pairwise tests and, for TC, every experiment's table."""
    from metaeval.api import read_files, span_dataset

    tc = task == "tc"
    files = sorted((SPANS / task / "predictions").glob("*.txt"))
    gold = _rows(SPANS / task / "gold.labels", tc)
    preds = {f.stem: _rows(f, tc) for f in files}
    labels = sorted({r[1] for r in gold}) if tc else None
    keys = dict(labels=labels) if tc else dict(merge_overlapping_predictions=True)
    from_files = read_files(SPANS / task / "gold.labels", files, format=f"semeval2020_{task}",
                            articles=SPANS / "articles", documents="all_articles", baselines=[], **keys)
    in_memory = span_dataset(gold, preds, texts=_texts(), baselines=[], **keys)
    frame = span_dataset(pd.DataFrame(gold, columns=["document", "label", "start", "end"] if tc else
                                      ["document", "start", "end"]), preds, texts=_texts(), baselines=[], **keys)
    for data in (in_memory, frame):
        pd.testing.assert_frame_equal(metaeval.evaluate(data, bootstrap_replicates=100),
                                      metaeval.evaluate(from_files, bootstrap_replicates=100))
    if tc:  # gold and predictions straight to the call, with the texts
        direct = metaeval.evaluate(gold, preds, texts=_texts(), bootstrap_replicates=100, labels=labels,
                                   baselines=[])
        pd.testing.assert_frame_equal(direct, metaeval.evaluate(from_files, bootstrap_replicates=100))
    if tc:  # four systems: every experiment
        few = metaeval.api.settings(noise_repeats=5)
        a = metaeval.meta_evaluate(in_memory, properties=False, n_splits=50, tukey_trials=200,
                                   bootstrap_replicates=100, criteria_replicates=20, settings=few)
        b = metaeval.meta_evaluate(from_files, properties=False, n_splits=50, tukey_trials=200,
                                   bootstrap_replicates=100, criteria_replicates=20, settings=few)
        assert set(a.tables) == set(b.tables) and "significance.csv" in a.tables
        for name in a.tables:
            pd.testing.assert_frame_equal(a.tables[name], b.tables[name], obj=name)
        assert a.recommendation == b.recommendation


def test_spans_in_memory_are_checked_row_by_row():
    from metaeval.api import span_dataset

    texts = {"d1": "Vote now, or lose.", "d2": "They always lie."}
    gold = [("d1", 0, 5), ("d2", 3, 9)]
    with pytest.raises(DataError) as e:
        span_dataset(gold, {"a": [("d1", 0, 4), ("d1", 6, 5), ("d3", 0, 2), ("d2", 2.5, 4), ("d1", 0)]}, texts=texts)
    msg = str(e.value)
    assert "predictions['a'] row 1: start 6 is not before end 5" in msg
    assert "predictions['a'] row 2: article 'd3' is not in the texts" in msg
    assert "predictions['a'] row 3: offsets must be integers" in msg
    assert "5 problems" not in msg and "4 problems" in msg  # row 4's width is a fault of its own
    assert "predictions['a'] row 4: expected a span (document, start, end), found ('d1', 0)" in [
        str(p) for p in e.value.problems]
    with pytest.raises(DataError, match=r"predictions\['a'\] row 1: span \[2, 8\) of article 'd1' overlaps the span "
                                        r"\[0, 4\) on row 0"):
        span_dataset(gold, {"a": [("d1", 0, 4), ("d1", 2, 8)]}, texts=texts)
    merged = span_dataset(gold, {"a": [("d1", 0, 4), ("d1", 2, 8)]}, texts=texts, merge_overlapping_predictions=True)
    assert merged[0].info["overlapping_spans_merged"] == {"a": 1}
    with pytest.raises(DataError, match=r"predictions\['a'\] row 0: end 40 is beyond the end of article 'd1'"):
        span_dataset(gold, {"a": [("d1", 0, 40)]}, texts=texts, offsets_past_end="refuse")
    past = span_dataset(gold, {"a": [("d1", 0, 40)]}, texts=texts)[0]
    assert past.info["offsets_past_end"]["files"]["a"]["characters"] == 22
    # technique classification: a label outside the techniques, a span that is not a gold span
    tgold = [("d1", "fear", 0, 5), ("d2", "doubt", 3, 9)]
    with pytest.raises(DataError, match=r"predictions\['b'\] row 1: unknown technique 'hope'"):
        span_dataset(tgold, {"b": [("d1", "fear", 0, 5), ("d2", "hope", 3, 9)]}, texts=texts)
    with pytest.raises(DataError, match=r"predictions\['b'\] row 1: span \[3, 8\) of article 'd2' is not a gold span"):
        span_dataset(tgold, {"b": [("d1", "fear", 0, 5), ("d2", "doubt", 3, 8)]}, texts=texts)
    with pytest.raises(DataError, match=r"predictions\['b'\]: no column 'label'"):
        span_dataset(pd.DataFrame(tgold, columns=["document", "label", "start", "end"]),
                     {"b": pd.DataFrame([("d1", 0, 5)], columns=["document", "start", "end"])}, texts=texts)
    with pytest.raises(TypeError, match="'merge_overlapping_predictions' is a keyword of span tasks: read the data "
                                        "once with metaeval.span_dataset"):
        metaeval.evaluate(GOLD, SYSTEMS, merge_overlapping_predictions=True)


def test_wrong_shapes_of_input_are_named():
    with pytest.raises(TypeError, match="not a DataFrame: pass its label column"):
        metaeval.evaluate(pd.DataFrame({"label": GOLD}), SYSTEMS)
    with pytest.raises(TypeError, match=r"predictions\['a'\]: a sequence of labels, one per item, not a text"):
        metaeval.evaluate(GOLD, {"a": "pos neg"})
    with pytest.raises(TypeError, match="spans\\? a span task needs the documents' texts"):
        metaeval.evaluate([("d1", 0, 4)], {"a": [("d1", 0, 3)]})
    from metaeval.api import read_files

    with pytest.raises(TypeError, match="did you mean 'labels'"):
        read_files(SPANS / "tc" / "gold.labels", [], labls=["x"])
    with pytest.raises(TypeError, match="did you mean 'merge_overlapping_predictions'"):
        read_files(SPANS / "si" / "gold.labels", [], format="semeval2020_si", articles=SPANS / "articles",
                   merge_overlaping_predictions=True)


def test_span_files_are_read_with_the_config_s_defaults_as_in_memory():
    """read_files on span files: the random baselines seeded by the config's
    random_seed as in memory, the TC gold's techniques as its labels, and a
    DataFrame with a `technique` column read as technique classification."""
    from metaeval.api import read_files, span_dataset

    files = sorted((SPANS / "si" / "predictions").glob("*.txt"))
    ff = read_files(SPANS / "si" / "gold.labels", files, format="semeval2020_si", articles=SPANS / "articles",
                    documents="all_articles", merge_overlapping_predictions=True)
    assert {"no_spans", "whole_text", "every_token", "random_spans"} <= set(ff[0].systems)
    mem = span_dataset(_rows(SPANS / "si" / "gold.labels", False), {f.stem: _rows(f, False) for f in files},
                       texts=_texts(), merge_overlapping_predictions=True, baselines=["random_spans"])
    a = metaeval.evaluate(ff, intervals=False).loc["random_spans"]
    b = metaeval.evaluate(mem, intervals=False).loc["random_spans"]
    pd.testing.assert_series_equal(a, b)
    tc_files = sorted((SPANS / "tc" / "predictions").glob("*.txt"))
    tc = read_files(SPANS / "tc" / "gold.labels", tc_files, format="semeval2020_tc", articles=SPANS / "articles")
    gold = _rows(SPANS / "tc" / "gold.labels", True)
    assert tc[1].labels == tuple(sorted({r[1] for r in gold}))
    cols = ["document", "technique", "start", "end"]
    frame = span_dataset(pd.DataFrame(gold, columns=cols),
                         {f.stem: pd.DataFrame(_rows(f, True), columns=cols) for f in tc_files}, texts=_texts())
    assert frame[1].span_task == "tc"
    pd.testing.assert_frame_equal(metaeval.evaluate(frame, intervals=False),
                                  metaeval.evaluate(span_dataset(gold, {f.stem: _rows(f, True) for f in tc_files},
                                                                 texts=_texts()), intervals=False))


def test_fewer_ranked_systems_than_min_systems_are_said():
    with pytest.warns(UserWarning, match="fewer than min_systems = 6: the workflow does not meta-evaluate"):
        metaeval.api.recommend(GOLD, SYSTEMS, properties=False, criteria_replicates=10, n_splits=20)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metaeval.api.recommend(GOLD, SYSTEMS, properties=False, criteria_replicates=10, n_splits=20,
                               settings=metaeval.api.settings(min_systems=5))


def test_a_metric_list_without_accuracy_sorts_by_its_first_metric():
    """The primary metric only orders tables: a list of metrics that leaves
    out the default (accuracy) takes its first one, as the config does."""
    from metaeval.data.config import DatasetSpec

    got = metaeval.evaluate(GOLD, SYSTEMS, metrics=["macro_f1", "kappa"], intervals=False)
    assert list(got.columns) == ["kind", "macro_f1", "kappa"]
    spec = DatasetSpec.from_config("x", {"gold": "g", "labels": LABELS, "metrics": ["kappa", "macro_f1"]})
    assert spec.primary_metric == "kappa"
    with pytest.raises(ConfigError, match="primary_metric: 'accuracy' is not among"):
        DatasetSpec.from_config("x", {"gold": "g", "labels": LABELS, "metrics": ["kappa"], "primary_metric": "accuracy"})


def test_the_one_call_functions_list_their_parameters_and_take_a_settings_object():
    """``inspect.signature`` (and help(), and an editor) shows the keywords
    people change, with the workflow's defaults (issue 30: every function
    was ``(gold, predictions=None, **kwargs)``); ``settings=`` carries the
    rest, and an explicit keyword that differs from its default overrides
    it; the same keyword given twice is refused."""
    import inspect

    import metaeval
    from metaeval.settings import default_of

    for name, must in [("evaluate", {"labels", "groups", "metrics", "confidence", "bootstrap_replicates",
                                     "settings"}),
                       ("compare", {"significance_test", "alpha", "tukey_trials", "settings"}),
                       ("recommend", {"requirements", "official_metric", "criteria", "verdict_alpha",
                                      "verdict_scope", "criteria_replicates", "settings"}),
                       ("size_design", {"design_power", "design_differences", "settings"}),
                       ("meta_evaluate", {"n_splits", "tukey_trials", "verdict_alpha", "settings"})]:
        params = inspect.signature(getattr(metaeval, name)).parameters
        assert must <= set(params), (name, must - set(params))
        for p in params.values():
            if p.name in ("confidence", "alpha", "tukey_trials", "verdict_alpha", "n_splits"):
                assert p.default == default_of(p.name), (name, p.name)
    gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
               "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20}
    base = api.settings(bootstrap_replicates=50, confidence=0.8)
    a = api.evaluate(gold, systems, metrics=["accuracy"], settings=base)
    b = api.evaluate(gold, systems, metrics=["accuracy"], bootstrap_replicates=50, confidence=0.8)
    pd.testing.assert_frame_equal(a, b)
    c = api.evaluate(gold, systems, metrics=["accuracy"], settings=base, confidence=0.5)  # overrides it
    pd.testing.assert_frame_equal(c, api.evaluate(gold, systems, metrics=["accuracy"], bootstrap_replicates=50,
                                                  confidence=0.5))
    assert (c["accuracy_high"] - c["accuracy_low"] < a["accuracy_high"] - a["accuracy_low"]).all()
    with pytest.raises(TypeError, match="settings= takes the experiment settings"):
        api.evaluate(gold, systems, settings={"confidence": 0.8})


def test_read_files_format_is_the_configs_key_and_span_format_its_old_name(tmp_path):
    """Catches ``format=`` ignored (a .txt file of SemEval-2016 Task 6's
    format read by its ending and refused), its columns not applied, or the
    old name dropped without a warning."""
    gold = tmp_path / "gold.txt"
    gold.write_text("ID\tTarget\tTweet\tStance\n1\tt1\tx\tFAVOR\n2\tt1\ty\tAGAINST\n3\tt2\tz\tNONE\n")
    run = tmp_path / "run_a.txt"
    run.write_text("ID\tTarget\tTweet\tStance\n1\tt1\tx\tFAVOR\n2\tt1\ty\tFAVOR\n3\tt2\tz\tNONE\n")
    ds, spec = read_files(gold, [run], format="semeval_tsv", baselines=[])
    assert ds.systems == ("run_a",) and ds.predictions.tolist() == [[1, 1, 2]]  # AGAINST FAVOR NONE
    assert ds.gold.tolist() == [1, 0, 2] and ds.groups is None  # groups only when asked for
    ds = read_files(gold, [run], format="semeval_tsv", group_column="Target", baselines=[])[0]
    assert [ds.group_names[g] for g in ds.groups] == ["t1", "t1", "t2"]
    with pytest.raises(ValueError, match="unknown format 'semeval_csv'"):
        read_files(gold, [run], format="semeval_csv")
    files = sorted((SPANS / "si" / "predictions").glob("*.txt"))
    with pytest.warns(FutureWarning, match="span_format is now called format"):
        old = read_files(SPANS / "si" / "gold.labels", files, span_format="semeval2020_si",
                         articles=SPANS / "articles", baselines=["no_spans"], merge_overlapping_predictions=True)
    new = read_files(SPANS / "si" / "gold.labels", files, format="semeval2020_si", articles=SPANS / "articles",
                     baselines=["no_spans"], merge_overlapping_predictions=True)
    assert old[1] == new[1] and old[0].systems == new[0].systems


def test_a_dataset_read_already_names_what_it_cannot_take(tmp_path):
    """The trial of issue 30: dataset keywords with a read dataset were
    refused as "experiments.metrics: unknown setting", and a Dataset alone
    (``read_files(...)[0]``) as a mapping of predictions."""
    (tmp_path / "gold.csv").write_text("item_id,label\n1,pos\n2,neg\n3,neg\n4,pos\n")
    (tmp_path / "a.csv").write_text("item_id,label\n1,pos\n2,neg\n3,pos\n4,pos\n")
    data = read_files(tmp_path / "gold.csv", [tmp_path / "a.csv"], baselines=[])
    with pytest.raises(TypeError, match="'labels': keywords of the dataset, which was read already: give them to "
                                        "read_files"):
        metaeval.evaluate(data, labels=["neg", "pos"], intervals=False)
    with pytest.raises(TypeError, match=r"gold is a Dataset alone: pass the \(dataset, spec\) pair"):
        metaeval.evaluate(data[0], intervals=False)
    assert list(metaeval.evaluate(data, intervals=False).index) == ["a"]


def test_a_dataset_read_already_takes_a_choice_of_its_metrics():
    """`evaluate(read_files(...), metrics=[...])`, as docs/library.md shows:
    the metrics are chosen among those the dataset was read with (other
    names taken); a metric it was not read with is refused with where to ask
    for it (not "unknown setting")."""
    from .conftest import FIXTURES

    data = read_files(FIXTURES / "tiny" / "gold.csv", sorted((FIXTURES / "tiny" / "predictions").glob("*.csv")),
                      label_map={"other": "neu"})
    out = metaeval.evaluate(data, metrics=["accuracy", "balanced_accuracy"], intervals=False)
    whole = metaeval.evaluate(data, intervals=False)
    assert [c for c in out.columns if c != "kind"] == ["accuracy", "macro_recall"]
    assert out[["accuracy", "macro_recall"]].equals(whole[["accuracy", "macro_recall"]])
    with pytest.raises(TypeError, match="'mcc': not among the metrics this dataset was read with"):
        metaeval.evaluate(data, metrics=["mcc"])
