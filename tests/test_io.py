"""Bad input gets an error naming file, line or item, and the fault; what
can be read unambiguously (BOM, CRLF, spaces, blank lines) is read."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from metaeval.config import ConfigError, DatasetSpec
from metaeval.dataset import load_dataset
from metaeval.io import DataError, read_table
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
    p = data / "tiny/predictions/sys_a.csv"
    before = load_dataset(_spec(), data).predictions[0].copy()
    lines = _lines(p)
    text = "\ufeff" + "\r\n".join([" item_id , label "] + [f"  {ln.replace(',', ' , ')}  " for ln in lines[1:]]) + "\r\n\r\n"
    _write(p, text)
    np.testing.assert_array_equal(load_dataset(_spec(), data).predictions[0], before)


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
