"""Bad input gets an error naming file, line or item, and the fault; what
can be read unambiguously (BOM, CRLF, spaces, blank lines) is read."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from metaeval.data.config import ConfigError, DatasetSpec
from metaeval.data.dataset import load_dataset
from metaeval.data.files import DataError
from metaeval.data.readers.labels import read_table
from metaeval.workflow import ingest

from .conftest import FIXTURES

RAW = dict(gold="tiny/gold.csv", predictions=["tiny/predictions/*.csv"], labels=["neg", "neu", "pos"],
           ordinal=True, extra_labels={"other": "neu"})


@pytest.fixture
def data(tmp_path):
    shutil.copytree(FIXTURES / "tiny", tmp_path / "tiny")
    return tmp_path


def _spec(**kw):
    return DatasetSpec.from_config("tiny", {**RAW, **kw})


def _write(path: Path, text: str, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))


def _lines(path: Path):
    return path.read_text().splitlines()


def _fails(data, *needles, **spec_kw):
    with pytest.raises(DataError) as e:
        load_dataset(_spec(**spec_kw), data)
    msg = str(e.value)
    for n in needles:
        assert n in msg, f"{n!r} not in:\n{msg}"
    return msg


def test_good_fixture_loads(data):
    ds = load_dataset(_spec(), data)
    assert ds.n_items == 40 and ds.systems[:4] == ("sys_a", "sys_b", "sys_c", "sys_d")
    assert ds.item_ids.dtype.kind == "U"


def test_missing_item(data):
    p = data / "tiny/predictions/sys_b.csv"
    lines = _lines(p)
    del lines[5]
    _write(p, "\n".join(lines) + "\n")
    _fails(data, "sys_b.csv", "1 gold item(s) have no prediction", "'id004'")


def test_item_not_in_gold(data):
    p = data / "tiny/predictions/sys_b.csv"
    _write(p, p.read_text() + "zzz,neg\n")
    _fails(data, "sys_b.csv:42", "item 'zzz' is not in the gold file")


def test_duplicated_item(data):
    p = data / "tiny/predictions/sys_c.csv"
    lines = _lines(p)
    lines.insert(3, lines[1])
    _write(p, "\n".join(lines) + "\n")
    _fails(data, "sys_c.csv:4", "duplicated item 'id000' (first seen on line 2)")


def test_label_outside_label_set(data):
    p = data / "tiny/predictions/sys_a.csv"
    lines = _lines(p)
    lines[2] = lines[2].split(",")[0] + ",NEG"
    _write(p, "\n".join(lines) + "\n")
    _fails(data, "sys_a.csv:3", "predicted label 'NEG'", "did you mean 'neg'?")


def test_extra_label_policy_error(data):
    _fails(data, "predicted label 'other'", extra_label_policy="error")


@pytest.mark.parametrize("content,needle", [("", "empty file"), ("\n\n  \n", "empty file"),
                                            ("item_id,label\n", "no data rows after the header")])
def test_empty_file(data, content, needle):
    _write(data / "tiny/predictions/sys_d.csv", content)
    _fails(data, "sys_d.csv", needle)


@pytest.mark.parametrize("header", ["id,label", "item_id;label", "item_id,stance"])
def test_wrong_header(data, header):
    p = data / "tiny/predictions/sys_d.csv"
    lines = _lines(p)
    _write(p, "\n".join([header] + lines[1:]) + "\n")
    _fails(data, "sys_d.csv:1", "missing or wrong header")


def test_missing_header(data):
    p = data / "tiny/predictions/sys_d.csv"
    _write(p, "\n".join(_lines(p)[1:]) + "\n")
    _fails(data, "sys_d.csv:1", "missing or wrong header", "found 'id000'")


def test_ragged_row(data):
    p = data / "tiny/predictions/sys_d.csv"
    lines = _lines(p)
    lines[7] += ",extra"
    _write(p, "\n".join(lines) + "\n")
    _fails(data, "sys_d.csv:8", "expected 2 fields as in the header, found 3")


def test_not_utf8(data):
    p = data / "tiny/predictions/sys_d.csv"
    _write(p, p.read_text().replace("id001", "id\xe9"), encoding="latin-1")
    _fails(data, "sys_d.csv", "not valid UTF-8")


def test_bom_crlf_spaces_and_blank_lines_are_read(data):
    """A BOM, CRLF, blank lines and spaces around ids and header names are
    read; spaces around labels only when the config says so."""
    p = data / "tiny/predictions/sys_a.csv"
    before = load_dataset(_spec(), data).predictions[0].copy()
    lines = _lines(p)
    text = "\ufeff" + "\r\n".join([" item_id , label "] + [f"  {ln.replace(',', ' ,')}" for ln in lines[1:]]) + "\r\n\r\n"
    _write(p, text)
    np.testing.assert_array_equal(load_dataset(_spec(), data).predictions[0], before)
    _write(p, text.replace(",neg", ", neg "))
    _fails(data, "predicted label ' neg ' of item 'id000'", "only by surrounding spaces", "normalize_labels: [strip]")
    np.testing.assert_array_equal(load_dataset(_spec(normalize_labels=["strip"]), data).predictions[0], before)


def test_labels_differing_in_case_are_refused_unless_mapped(data):
    before = load_dataset(_spec(), data).predictions[2].copy()
    p = data / "tiny/predictions/sys_c.csv"
    _write(p, p.read_text().replace(",neg\n", ",NEG\n").replace(",pos\n", ",Pos \n"))
    _fails(data, "predicted label 'NEG'", "did you mean 'neg'? it differs only in case",
           "predicted label 'Pos '", "normalize_labels: [strip, case]")
    got = load_dataset(_spec(normalize_labels=["case", "strip"]), data).predictions[2]
    np.testing.assert_array_equal(got, before)


def test_long_numeric_ids_stay_exact_strings(data):
    """18-digit tweet ids differ in their last digits, which a float would lose."""
    ids = [f"9027467945761833{i:02d}" for i in range(40)]
    for f in [data / "tiny/gold.csv", *sorted((data / "tiny/predictions").glob("*.csv"))]:
        lines = _lines(f)
        _write(f, "\n".join([lines[0]] + [ids[k] + ln[ln.index(","):] for k, ln in enumerate(lines[1:])]) + "\n")
    ds = load_dataset(_spec(), data)
    assert ds.item_ids.tolist() == ids and len(set(ds.item_ids)) == 40


def test_gold_faults_are_reported_too(data):
    g = data / "tiny/gold.csv"
    lines = _lines(g)
    lines[3] = lines[3].replace(lines[3].split(",")[1], "bad")
    lines.append(lines[1])
    _write(g, "\n".join(lines) + "\n")
    msg = _fails(data, "gold.csv:42", "duplicated item 'id000'")
    assert "gold.csv" in msg


def test_gold_label_outside_set(data):
    g = data / "tiny/gold.csv"
    lines = _lines(g)
    lines[3] = ",".join([lines[3].split(",")[0], "bad", "x"])
    _write(g, "\n".join(lines) + "\n")
    _fails(data, "gold.csv:4", "gold label 'bad' of item 'id002'")


def test_every_bad_file_is_listed_at_once(data):
    _write(data / "tiny/predictions/sys_c.csv", "")
    _write(data / "tiny/predictions/sys_d.csv", "foo,bar\n1,2\n")
    msg = _fails(data, "sys_c.csv", "sys_d.csv:1")
    assert "2 problems in 2 files" in msg


def test_ids_are_strings(tmp_path):
    p = tmp_path / "x.csv"
    _write(p, "item_id,label\n007,a\n7,b\n1e3,a\n")
    t = read_table(p)
    assert t.ids == ["007", "7", "1e3"] and not t.problems


def test_glob_matching_nothing_is_a_config_error(data):
    with pytest.raises(ConfigError, match="matches no file"):
        load_dataset(_spec(predictions=["tiny/nothing/*.csv"]), data)


def test_absolute_paths_are_used_as_they_are(data, tmp_path):
    """config/README: gold and prediction paths are relative to data_dir,
    or absolute."""
    rel = load_dataset(_spec(), data)
    spec = _spec(gold=str(data / "tiny/gold.csv"), predictions=[str(data / "tiny/predictions/*.csv")])
    ds = load_dataset(spec, tmp_path / "elsewhere")  # data_dir does not matter then
    assert ds.systems == rel.systems and (ds.predictions == rel.predictions).all() and (ds.gold == rel.gold).all()


def test_bad_input_removes_previous_results_and_writes_nothing(data, tmp_path):
    out = tmp_path / "results" / "tiny"
    ingest(_spec(), data, out / "data.npz", out / "dataset.json", results_dir=out)
    (out / "scores.csv").write_text("stale")
    _write(data / "tiny/predictions/sys_a.csv", "")
    with pytest.raises(DataError):
        ingest(_spec(), data, out / "data.npz", out / "dataset.json", results_dir=out)
    assert not out.exists()


@pytest.mark.parametrize("kw,needle", [
    (dict(labels=["a", "a"]), "labels"),
    (dict(weights={"w": {"neg": 0.5, "neu": 0.5}}), "one weight per label"),
    (dict(weights={"w": {"neg": 0.5, "neu": 0.5, "pos": 0.5}}), "sum to 1"),
    (dict(extra_labels={"other": "nope"}), "not in labels"),
    (dict(primary_metric="cem_ord", ordinal=False), "primary_metric"),
    (dict(f_avg_classes=["zzz"]), "f_avg_classes"),
    (dict(extra_label_policy="ignore"), "extra_label_policy"),
])
def test_config_errors_name_the_key(kw, needle):
    with pytest.raises(ConfigError, match=needle):
        _spec(**kw)


# -- error reports: every file, true counts, the cause -----------------------------
def test_error_report_names_every_file_with_its_true_count(data):
    """A truncated gold file: every prediction file has the same 30 items
    that the gold lacks.  All 14 files are named, each with its count, and
    the gold is named as the likely culprit."""
    for i in range(10):
        shutil.copy(data / "tiny/predictions/sys_a.csv", data / f"tiny/predictions/more_{i}.csv")
    g = data / "tiny/gold.csv"
    _write(g, "\n".join(_lines(g)[:11]) + "\n")  # header + 10 of 40 items
    msg = _fails(data, "420 problems in 14 files")
    for f in sorted((data / "tiny/predictions").glob("*.csv")):
        assert f"{f}: 30 problems (30 item(s) not in the gold file)" in msg, f.name
    assert "every prediction file has the same 30 item(s) that are not in the gold file" in msg
    assert "the gold file is the likely culprit" in msg and str(g) in msg
    assert msg.count("... and 27 more in this file") == 14  # examples are capped per file, not the report


def test_error_report_summary_line_comes_before_the_examples(data):
    p = data / "tiny/predictions/sys_b.csv"
    lines = _lines(p)
    bad = [f"zz{i:03d},neg" for i in range(8)]
    _write(p, "\n".join(lines[:1] + lines[31:] + bad) + "\n")  # 30 items missing, 8 foreign
    msg = _fails(data, f"{p}: 38 problems (30 gold item(s) with no prediction, 8 item(s) not in the gold file)")
    block = msg.split(f"{p}: 38 problems")[1].splitlines()
    assert "30 gold item(s) have no prediction, e.g. 'id000'" in block[1]
    assert "... and 6 more in this file" in block[4]
    assert "likely culprit" not in msg  # one file only: nothing to say about the gold


def test_the_same_missing_items_in_every_file_point_at_the_gold(data):
    g = data / "tiny/gold.csv"
    _write(g, g.read_text() + "id900,neg,x\nid901,pos,x\n")
    msg = _fails(data, "every prediction file lacks the same 2 gold item(s) (e.g. 'id900', 'id901')",
                 "the gold file is the likely culprit")
    assert "8 problems in 4 files" in msg


def test_ids_mangled_by_a_spreadsheet_are_recognised(data):
    p = data / "tiny/predictions/sys_c.csv"
    lines = _lines(p)
    lines[1] = "9.027467945761833e+17,neg"
    _write(p, "\n".join(lines) + "\n")
    _fails(data, "look like floating-point numbers (e.g. '9.027467945761833e+17')", "spreadsheet")
    from metaeval.data.readers.labels import looks_like_float
    assert looks_like_float("1.2e+17") and looks_like_float("12.0") and looks_like_float("5E3")
    assert not looks_like_float("007") and not looks_like_float("id1e5") and not looks_like_float("1.5")


def test_a_broken_gold_is_reported_before_the_predictions(data):
    _write(data / "tiny/gold.csv", "id,lab\n1,neg\n")
    msg = _fails(data, "missing or wrong header", "Note: the prediction files are checked once the gold file can be read")
    assert "Likely cause" not in msg


def test_header_naming_a_column_twice_is_refused(data):
    p = data / "tiny/predictions/sys_a.csv"
    lines = _lines(p)
    _write(p, "\n".join(["item_id,label,label"] + [ln + ",x" for ln in lines[1:]]) + "\n")
    _fails(data, "sys_a.csv:1", "header repeats column(s) 'label'")


# -- labels ---------------------------------------------------------------------------
def test_a_label_the_gold_never_uses_is_refused_unless_allowed(data):
    msg = _fails(data, "'neutral-ish'", "datasets.tiny.labels never occur in the gold", "allow_unused_labels",
                 labels=["neg", "neu", "pos", "neutral-ish"])
    assert "dataset 'tiny'" in msg
    ds = load_dataset(_spec(labels=["neg", "neu", "pos", "neutral-ish"], allow_unused_labels=True), data)
    assert ds.info["unused_labels"] == ["neutral-ish"] and ds.k == 4
    assert load_dataset(_spec(), data).info["unused_labels"] == []


def test_label_map_applies_to_predicted_labels(data):
    before = load_dataset(_spec(), data)
    p = data / "tiny/predictions/sys_c.csv"
    _write(p, p.read_text().replace(",neg\n", ",negative\n").replace(",pos\n", ",POS\n"))
    after = load_dataset(_spec(label_map={"negative": "neg", "POS": "pos"}), data)
    np.testing.assert_array_equal(after.predictions, before.predictions)
    _fails(data, "predicted label 'negative'")  # and without the map it is refused


def test_drop_item_removes_every_item_any_system_gave_an_extra_label(data):
    mapped = load_dataset(_spec(), data)
    dropped = load_dataset(_spec(extra_label_policy="drop_item"), data)
    other = set()
    for f in sorted((data / "tiny/predictions").glob("*.csv")):
        other |= {ln.split(",")[0] for ln in _lines(f)[1:] if ln.endswith(",other")}
    assert len(other) > 1 and dropped.info["items_dropped_by_policy"] == len(other)
    assert set(dropped.item_ids) == set(mapped.item_ids) - other
    keep = ~np.isin(mapped.item_ids, sorted(other))
    np.testing.assert_array_equal(dropped.gold, mapped.gold[keep])
    n_real = 4
    np.testing.assert_array_equal(dropped.predictions[:n_real], mapped.predictions[:n_real][:, keep])
    assert dropped.info["extra_label_predictions"] == mapped.info["extra_label_predictions"]


def test_predictions_for_dropped_gold_rows_are_ignored(data):
    g = data / "tiny/gold.csv"
    lines = _lines(g)
    lines[5] = lines[5].split(",")[0] + ",skip,x"  # id004 is not scored
    _write(g, "\n".join(lines) + "\n")
    p = data / "tiny/predictions/sys_a.csv"
    _write(p, p.read_text().replace("id004,neu", "id004,nonsense"))
    ds = load_dataset(_spec(drop_gold_labels=["skip"]), data)
    assert ds.n_items == 39 and "id004" not in set(ds.item_ids)
    assert ds.info["dropped_gold_labels"] == {"skip": 1}


@pytest.mark.parametrize("kw,needle", [
    (dict(metrics=["accuracy", "cem_ord"], ordinal=False, primary_metric="accuracy"),
     "'cem_ord' needs ordered classes"),
    (dict(metrics=["fnc_score"], primary_metric="fnc_score"), "'fnc_score' needs the dataset key 'unrelated_label'"),
    (dict(metrics=["wf2", "accuracy"]), "'wf2' needs the dataset key 'weights'"),
])
def test_a_metric_asked_for_that_does_not_apply_is_refused(kw, needle):
    with pytest.raises(ConfigError, match="datasets.tiny.metrics") as e:
        _spec(**kw)
    assert needle in str(e.value)


def test_a_gold_file_cut_mid_row_is_called_truncated_and_blamed(data):
    """Cut the gold file in the middle of a row; the prediction files list
    their items in different orders.  The cut row is named as a truncation,
    and the items every file has beyond the gold point at the gold."""
    g = data / "tiny/gold.csv"
    text = g.read_text()
    _write(g, text[: text.index("id030")] + "id030,ne")
    p = data / "tiny/predictions/sys_c.csv"
    lines = _lines(p)
    _write(p, "\n".join([lines[0]] + lines[1:][::-1]) + "\n")  # reversed order
    msg = _fails(data, "the last line is incomplete: the file may be truncated",
                 "every prediction file has the same 10 item(s) that are not in the gold file",
                 "the gold file is the likely culprit")
    assert "id030' is not in the gold file" in msg and "gold item(s) with no prediction" not in msg


def test_every_kind_of_fault_in_one_file_is_counted(data):
    p = data / "tiny/predictions/sys_b.csv"
    lines = _lines(p)
    lines[3] = lines[3].split(",")[0] + ",neutral"
    lines[4] = lines[4].split(",")[0] + ",Neutral"
    lines.append(lines[7])  # a duplicated item
    _write(p, "\n".join(lines) + "\n")
    _fails(data, f"{p}: 3 problems (2 label(s) outside the label set, 1 duplicated item(s))")


def test_missing_items_are_shown_with_their_gold_lines(data):
    p = data / "tiny/predictions/sys_b.csv"
    _write(p, "\n".join(_lines(p)[:-2]) + "\n")
    _fails(data, "2 gold item(s) have no prediction, e.g. 'id038' (gold line 40), 'id039' (gold line 41)")


def test_the_unused_label_is_summed_up_as_such(data):
    _fails(data, "(1 label(s) the gold never uses)", labels=["neg", "neu", "pos", "maybe"])


def test_a_submission_identical_to_the_gold_is_flagged(data, tmp_path, capsys):
    g = data / "tiny/gold.csv"
    _write(data / "tiny/predictions/copy.csv", "item_id,label\n" + "".join(
        ln.split(",")[0] + "," + ln.split(",")[1] + "\n" for ln in _lines(g)[1:]))
    out = tmp_path / "r"
    ds = ingest(_spec(), data, out / "data.npz", out / "dataset.json")
    assert ds.info["warnings"] == ["system 'copy' predicts every item exactly as the gold: a suspicious perfect "
                                   "score (is the file a copy of the gold?)"]
    assert "WARNING: dataset 'tiny': system 'copy' predicts every item" in capsys.readouterr().err


def test_two_files_with_one_system_name_are_refused(data):
    (data / "tiny/more").mkdir()
    shutil.copy(data / "tiny/predictions/sys_a.csv", data / "tiny/more/sys_a.csv")
    with pytest.raises(ConfigError, match="two files give the system name 'sys_a'"):
        load_dataset(_spec(predictions=["tiny/predictions/*.csv", "tiny/more/*.csv"]), data)


def test_a_missing_gold_file_or_article_folder_is_named_by_its_config_key(data):
    """Checked when the workflow starts (``path_problems``): the config key,
    the path and data_dir, instead of Snakemake's "missing input" for a rule."""
    from metaeval.workflow import path_problems

    assert path_problems(_spec(), data) == []
    (data / "tiny/gold.csv").unlink()
    msgs = path_problems(_spec(), data)
    assert msgs == [f"datasets.tiny.gold: no file {str(data / 'tiny/gold.csv')!r} (the path is relative to "
                    f"data_dir = {str(data)!r}). Check the path, or data_dir."]
    spans = DatasetSpec.from_config("si", dict(format="semeval2020_si", gold="spans/si/gold.labels",
                                               articles="spans/articles", predictions=["spans/si/predictions/*.txt"],
                                               merge_overlapping_predictions=True))
    assert path_problems(spans, FIXTURES) == []
    shutil.copytree(FIXTURES / "spans/si", data / "spans/si")
    msgs = path_problems(spans, data)
    assert msgs == [f"datasets.si.articles: no folder {str(data / 'spans/articles')!r} (the path is relative to "
                    f"data_dir = {str(data)!r}). Check the path, or data_dir."]
    absolute = _spec(gold=str(data / "tiny/gold.csv"))  # deleted above; data_dir plays no part
    assert path_problems(absolute, data) == [f"datasets.tiny.gold: no file {str(data / 'tiny/gold.csv')!r}. "
                                             "Check the path."]


def test_unknown_config_keys_are_named_with_the_closest_known_one():
    """The workflow checks config keys before the schema does (whose error
    for a typo prints the whole schema); the project's own configs pass."""
    import yaml

    from metaeval.data.config import unknown_keys

    root = FIXTURES.parents[1]
    schema = yaml.safe_load((root / "workflow/schemas/config.schema.yaml").read_text())
    for cfg in (root / "config/config.yaml", root / ".test/config.yaml"):
        assert unknown_keys(yaml.safe_load(cfg.read_text()), schema) == [], cfg
    cfg = {"experimnets": {}, "properties": {"n_maxx": 3},
           "datasets": {"mine": {**RAW, "ordnial": True, "weights": {"w": {"neg": 1}},
                                 "experiments": {"n_splpits": 3}, "zzzz": 1}}}
    assert unknown_keys(cfg, schema) == [
        "experimnets: unknown key (did you mean 'experiments'?)",
        "properties.n_maxx: unknown key (did you mean 'n_max'?)",
        "datasets.mine.ordnial: unknown key (did you mean 'ordinal'?)",
        "datasets.mine.experiments.n_splpits: unknown key (did you mean 'n_splits'?)",
        "datasets.mine.zzzz: unknown key; known here: " + ", ".join(sorted(schema["$defs"]["dataset"]["properties"])),
    ]


def test_a_key_in_the_wrong_place_says_where_it_belongs():
    """An experiment setting at dataset level (or a dataset key at the top)
    is not a typo: the message says which block it belongs to."""
    import yaml

    from metaeval.data.config import unknown_keys

    schema = yaml.safe_load((FIXTURES.parents[1] / "workflow/schemas/config.schema.yaml").read_text())
    cfg = {"n_splits": 5, "datasets": {"mine": {**RAW, "resample_unit": "group", "experiments": {"ordinal": True}}}}
    got = unknown_keys(cfg, schema)
    assert got[0].startswith("n_splits: unknown key here: it belongs under 'experiments' or "
                             "'datasets.<name>.experiments' (experiment settings go in")
    assert got[1].startswith("datasets.mine.resample_unit: unknown key here: it belongs under 'experiments' or "
                             "'datasets.<name>.experiments'")
    assert got[2] == "datasets.mine.experiments.ordinal: unknown key here: it belongs under 'datasets.<name>'"


def test_labels_that_yaml_reads_as_numbers_or_booleans(tmp_path):
    """``labels: [0, 1]`` means the labels "0" and "1"; ``[false, true]``
    lost its spelling (false? False? no?): refused, with the advice to quote."""
    import yaml

    from metaeval.data.config import ConfigError, DatasetSpec, label_scalars, load_config

    cfg = yaml.safe_load("datasets:\n  d:\n    gold: g.csv\n    predictions: p/*.csv\n    labels: [0, 1, 2.5]\n"
                         "    label_map: {1: 0}\n    weights: {w: {0: 0.5, 1: 0.25, 2.5: 0.25}}\n")
    assert label_scalars(cfg) == []
    d = cfg["datasets"]["d"]
    assert d["labels"] == ["0", "1", "2.5"] and d["label_map"] == {"1": "0"} and set(d["weights"]["w"]) == {"0", "1", "2.5"}
    spec = DatasetSpec.from_config("d", d)
    assert spec.labels == ("0", "1", "2.5")
    bad = yaml.safe_load("datasets:\n  d:\n    labels: [false, true]\n    f_avg_classes: [yes]\n")
    msgs = label_scalars(bad)
    assert len(msgs) == 3 and msgs[0].startswith("datasets.d.labels: False was read by YAML as a boolean")
    assert "quote it as the data files spell it, e.g. 'false' or 'False'" in msgs[0]
    f = tmp_path / "c.yaml"
    f.write_text("datasets:\n  d: {gold: g.csv, predictions: [], labels: [no, yes]}\n")
    with pytest.raises(ConfigError, match="read by YAML as a boolean"):
        load_config(f)


def test_copies_of_a_baseline_or_of_each_other_are_said_and_files_can_be_baselines(data):
    """A supplied file equal to the generated majority baseline, or two
    equal files, would be ranked twice without a word; an organiser's
    baseline file can be marked as a baseline, and renamed."""
    import pandas as pd

    gold = pd.read_csv(data / "tiny/gold.csv")
    major = gold["label"].value_counts().idxmax()
    pd.DataFrame({"item_id": gold["item_id"], "label": major}).to_csv(data / "tiny/predictions/baseline_false.csv",
                                                                       index=False)
    shutil.copy(data / "tiny/predictions/sys_a.csv", data / "tiny/predictions/sys_a_again.csv")
    ds = load_dataset(_spec(), data)
    groups = sorted(sorted(g) for g in ds.info["identical_systems"])
    assert groups == [[f"all_{major}", "baseline_false", "majority"], ["sys_a", "sys_a_again"]]
    assert sum("predict exactly the same on every item" in w for w in ds.info["warnings"]) == 2
    # the advice names the unmarked files (a generated baseline cannot be marked)
    assert any("if 'baseline_false' is a baseline, mark it with baseline_systems" in w for w in ds.info["warnings"])
    assert any("if 'sys_a', 'sys_a_again' are baselines, mark them" in w for w in ds.info["warnings"])
    assert dict(zip(ds.systems, ds.kinds))["baseline_false"] == "system"
    ds = load_dataset(_spec(baseline_systems=["baseline_*"], display_names={"sys_a_again": "sys_a (rerun)"}), data)
    # a file already marked is never told to be marked
    copy = next(w for w in ds.info["warnings"] if "'baseline_false'" in w and "exactly the same" in w)
    assert "baseline_systems" not in copy and "name at most one of them in include_baselines" in copy
    kinds = dict(zip(ds.systems, ds.kinds))
    assert kinds["baseline_false"] == "baseline" and kinds["sys_a (rerun)"] == "system"
    assert ds.info["supplied_baselines"] == ["baseline_false"]
    from metaeval.methods.scorer import select_systems

    sel = [ds.systems[i] for i in select_systems(ds, ("majority",))]
    assert "baseline_false" not in sel and "majority" in sel
    assert "baseline_false" in [ds.systems[i] for i in select_systems(ds, ("baseline_false",))]


def test_the_units_have_the_nouns_of_the_data():
    """Titles and sentences name the units as the data do (posts, threads,
    articles), not "items" for everything (issue 32)."""
    from metaeval.data.config import DatasetSpec

    spec = DatasetSpec.from_config("r", {"gold": "g.csv", "predictions": [], "labels": ["a", "b"],
                                         "unit_names": {"items": "posts", "groups": "threads"}})
    assert spec.unit_noun("item") == "posts" and spec.unit_noun("group") == "threads"
    plain = DatasetSpec.from_config("p", {"gold": "g.csv", "predictions": [], "labels": ["a", "b"]})
    assert plain.unit_noun("item") == "items" and plain.unit_noun("group") == "groups"
    tc = DatasetSpec.from_config("t", {"gold": "g.labels", "predictions": [], "format": "semeval2020_tc",
                                       "labels": ["x", "y"], "articles": "texts"})
    tsd = DatasetSpec.from_config("s", {"gold": "g.csv", "predictions": [], "format": "semeval2021_tsd"})
    assert tc.unit_noun("group") == "articles" and tsd.unit_noun("group") == "posts"
    with pytest.raises(ConfigError, match="unit_names"):
        DatasetSpec.from_config("e", {"gold": "g.csv", "predictions": [], "labels": ["a", "b"],
                                      "unit_names": {"items": " "}})
