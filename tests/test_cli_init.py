"""`metaeval init` in the quick tier: the config it writes (key by key, TSV
and CSV folders), the command and the message it prints, and each refusal
(tests/test_cli.py runs the written config with Snakemake, in the second
tier)."""

from __future__ import annotations

import io
import shlex
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest
import yaml

from metaeval.cli import main
from metaeval.data.resources import snakefile

from .conftest import FIXTURES


def _run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _folder(tmp_path, name="my data", sep="\t", suffix=".tsv"):
    folder = tmp_path / name
    (folder / "predictions").mkdir(parents=True)
    src = FIXTURES / "tiny"
    pd.read_csv(src / "gold.csv").to_csv(folder / f"gold{suffix}", sep=sep, index=False)
    for f in sorted((src / "predictions").glob("*.csv")):
        pd.read_csv(f).replace({"other": "neu"}).to_csv(folder / "predictions" / f"{f.stem}{suffix}", sep=sep,
                                                          index=False)
    return folder


def test_init_of_a_tsv_folder_writes_every_key(tmp_path):
    folder = _folder(tmp_path)
    n_preds = len(list((folder / "predictions").glob("*.tsv")))
    code, out, err = _run("init", folder, "--labels", "neg,neu,pos", "--ordinal")
    assert code == 0, err
    cfg_path = folder / "metaeval.yaml"
    text = cfg_path.read_text()
    run = (f"snakemake -s {shlex.quote(str(snakefile()))} --cores 8 --configfile {shlex.quote(str(cfg_path))} "
           f"--directory {shlex.quote(str(folder / 'run'))}")
    assert text.startswith("# written by `metaeval init`; run it with\n"
                           f"#   {run}\n"
                           "# (--directory: the results go to its results/)\n"
                           "# the experiment settings: `metaeval settings`; every key: the documentation's "
                           "Configuration page\n"
                           "# (labels are in the order of the scale when ordinal is true)\n")
    cfg = yaml.safe_load(text)
    assert cfg == {"data_dir": str(folder), "datasets": {"my_data": {
        "description": "my data: written by metaeval init", "gold": "gold.tsv", "predictions": ["predictions/*.tsv"],
        "labels": ["neg", "neu", "pos"], "ordinal": True, "delimiter": "\t"}}}
    assert list(cfg["datasets"]["my_data"]) == ["description", "gold", "predictions", "labels", "ordinal",
                                                "delimiter"]
    assert out.startswith(f"wrote {cfg_path} ({n_preds} systems, labels neg, neu, pos); run it with\n  {run}\n"
                          f"(the results go to {folder / 'run' / 'results'})\n")


def test_init_of_a_csv_folder_sorts_its_labels_and_takes_a_name_and_a_file(tmp_path):
    folder = _folder(tmp_path, name="plain", sep=",", suffix=".csv")
    out_file = tmp_path / "elsewhere.yaml"
    code, out, err = _run("init", folder, "--name", "mine", "-o", out_file)
    assert code == 0, err
    cfg = yaml.safe_load(out_file.read_text())
    block = cfg["datasets"]["mine"]
    assert block["labels"] == ["neg", "neu", "pos"] and block["ordinal"] is False and "delimiter" not in block
    assert block["gold"] == "gold.csv" and block["predictions"] == ["predictions/*.csv"]
    assert not (folder / "metaeval.yaml").exists() and f"wrote {out_file} " in out
    # numeric labels are sorted as numbers and may be ordinal without --labels
    num = tmp_path / "numbers"
    (num / "predictions").mkdir(parents=True)
    (num / "gold.csv").write_text("item_id,label\n1,10\n2,9\n3,2\n4,10\n")
    (num / "predictions" / "a.csv").write_text("item_id,label\n1,10\n2,2\n3,2\n4,9\n")
    code, out, err = _run("init", num, "--ordinal")
    assert code == 0, err
    assert yaml.safe_load((num / "metaeval.yaml").read_text())["datasets"]["numbers"]["labels"] == ["2", "9", "10"]


@pytest.mark.parametrize("case,code_,words", [
    ("no folder", 1, "no such folder"),
    ("no gold", 1, "expected one gold file, gold.csv or gold.tsv, found none"),
    ("two golds", 1, "expected one gold file, gold.csv or gold.tsv, found gold.csv, gold.tsv"),
    ("no predictions", 1, "no prediction file (*.csv) found"),
    ("bad gold", 1, "gold.csv"),
    ("bad prediction", 1, "a.csv:3"),
    ("text ordinal", 2, "--ordinal needs --labels in the order of the scale: text labels have no order of their own "
                        "(found neg, pos)"),
    ("exists", 2, "exists: give --force to replace it, or -o another file"),
])
def test_init_refusals(tmp_path, case, code_, words):
    folder = tmp_path / "f"
    if case != "no folder":
        folder.mkdir()
    if case not in ("no folder", "no gold"):
        (folder / "gold.csv").write_text("item_id,label\n1,pos\n2,neg\n3,neg\n" if case != "bad gold" else
                                         "item_id,label\n1,pos\n1,neg\n")
    if case == "two golds":
        (folder / "gold.tsv").write_text("item_id\tlabel\n1\tpos\n")
    if case not in ("no folder", "no gold", "no predictions", "two golds"):
        (folder / "predictions").mkdir()
        (folder / "predictions" / "a.csv").write_text("item_id,label\n1,pos\n2,neutral\n3,neg\n"
                                                      if case == "bad prediction" else
                                                      "item_id,label\n1,pos\n2,neg\n3,pos\n")
    if case == "exists":
        (folder / "metaeval.yaml").write_text("old")
    code, out, err = _run("init", folder, *(["--ordinal"] if case == "text ordinal" else []))
    assert code == code_ and words in err, err
    where = {"no folder": folder, "no gold": folder, "two golds": folder, "no predictions": folder / "predictions"}
    if case in where:  # a problem of the folder: the file (kind) and the fault, each named
        assert err == (f"metaeval init: 1 problem in 1 file of the input data:\n  {where[case].resolve()}: 1 problem "
                       f"(1 unreadable or empty file)\n    {where[case].resolve()}: {words}\n")
    if case != "exists":
        assert not (folder / "metaeval.yaml").exists()
    else:
        assert (folder / "metaeval.yaml").read_text() == "old"
        code, _, err = _run("init", folder, "--force")
        assert code == 0 and (folder / "metaeval.yaml").read_text() != "old"


def test_init_says_when_snakemake_is_missing(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "snakemake" else real(name, *a))
    folder = _folder(tmp_path, sep=",", suffix=".csv")
    code, out, err = _run("init", folder)
    assert code == 0, err
    assert out.endswith("Snakemake is not installed here: install the workflow first with pip install "
                        "'<the metaeval checkout>[workflow]' (or pip install snakemake[reports]).\n")
    monkeypatch.setattr(importlib.util, "find_spec", real)
    code, out, _ = _run("init", folder, "--force")
    assert "Snakemake is not installed" not in out


def test_init_checks_the_files_as_the_named_dataset_with_the_given_labels(tmp_path):
    folder = tmp_path / "my data"
    (folder / "predictions").mkdir(parents=True)
    (folder / "gold.csv").write_text("item_id,label\n1,pos\n2,neg\n3,neg\n")
    (folder / "predictions" / "a.csv").write_text("item_id,label\n1,pos\n2,neutral\n3,neg\n")
    code, _, err = _run("init", folder)
    assert code == 1 and err.startswith(f"metaeval init: dataset 'my_data' (gold file {folder.resolve() / 'gold.csv'}"
                                        "): 1 problem in 1 file of the input data:")
    code, _, err = _run("init", folder, "--name", "mine")
    assert code == 1 and err.startswith("metaeval init: dataset 'mine' (gold file ")
    # the labels given are the ones checked: one the gold never uses is named as such
    (folder / "predictions" / "a.csv").write_text("item_id,label\n1,pos\n2,neu\n3,neg\n")
    code, _, err = _run("init", folder, "--labels", "neg,neu,pos")
    assert code == 1 and "label(s) 'neu' of --labels never occur in the gold" in err


def test_init_keeps_unicode_as_written(tmp_path):
    folder = tmp_path / "données"
    (folder / "predictions").mkdir(parents=True)
    (folder / "gold.csv").write_text("item_id,label\n1,négatif\n2,positif\n3,négatif\n", encoding="utf-8")
    (folder / "predictions" / "a.csv").write_text("item_id,label\n1,positif\n2,positif\n3,négatif\n", encoding="utf-8")
    code, _, err = _run("init", folder)
    assert code == 0, err
    text = (folder / "metaeval.yaml").read_text(encoding="utf-8")
    assert "données:" in text and "- négatif" in text and "\\x" not in text and "\\u" not in text
