"""The refusals a user met without learning what to fix (issue 48): each
names the input the user gave and what to do."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stderr

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.data.config import ConfigError
from metaeval.data.files import DataError

from .test_cli import _run

LABELS = ["comment", "deny", "query", "support"]


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    base = tmp_path_factory.mktemp("refusals")
    rng = np.random.default_rng(48)
    ids = [f"i{k}" for k in range(100)]
    gold = rng.choice(LABELS, 100)
    pd.DataFrame({"item_id": ids, "label": gold}).to_csv(base / "gold.csv", index=False)
    for name, keep in (("a", 0.8), ("b", 0.6)):
        pred = np.where(rng.random(100) < keep, gold, rng.choice(LABELS, 100))
        pd.DataFrame({"item_id": ids, "label": pred}).to_csv(base / f"{name}.csv", index=False)
    pd.DataFrame({"item_id": ids, "label": "query"}).to_csv(base / "one_class.csv", index=False)
    cyrillic = np.where(gold == "query", "qu\u0435ry", gold)  # a Cyrillic е: printed, it looks like "query"
    pd.DataFrame({"item_id": ids, "label": cyrillic}).to_csv(base / "cyrillic.csv", index=False)
    (base / "folder").mkdir()
    return base


def test_empty_standard_input_is_named_as_such_not_as_a_temporary_file(task):
    res = subprocess.run([sys.executable, "-m", "metaeval", "score", "-", str(task / "a.csv")], input="",
                         capture_output=True, text=True)
    assert res.returncode == 1 and res.stdout == ""
    assert "standard input ('-'): empty: nothing was piped in" in res.stderr and "/tmp" not in res.stderr
    bad = (task / "gold.csv").read_text().splitlines()
    bad[1] = "i0"  # a row of the wrong width: named in the copy's own name, stdin.csv
    res = subprocess.run([sys.executable, "-m", "metaeval", "score", "-", str(task / "a.csv")],
                         input="\n".join(bad) + "\n", capture_output=True, text=True)
    assert res.returncode == 1 and "    stdin.csv:2: expected 2 fields as in the header, found 1" in res.stderr
    assert "/stdin.csv" not in res.stderr


def test_an_empty_metric_list_says_so(task):
    code, out, err = _run("score", task / "gold.csv", task / "a.csv", "--metrics", "")
    assert code == 2 and out == ""
    assert err == ("metaeval score: --metrics: an empty list: name at least one metric id (`metaeval metrics` lists "
                   "them), or leave it out for the default metrics\n")
    for empty in ([], "", " "):
        with pytest.raises(ConfigError, match=r"metrics: an empty list: name at least one metric id"):
            metaeval.evaluate(list("abab") * 10, {"x": list("abba") * 10}, metrics=empty)


def test_prediction_files_after_an_option_are_prediction_files(task):
    want = _run("score", task / "gold.csv", task / "a.csv", task / "b.csv", "--no-intervals", "--format", "csv")
    got = _run("score", task / "gold.csv", task / "a.csv", "--no-intervals", task / "b.csv", "--format", "csv")
    assert want[0] == got[0] == 0 and got[1] == want[1] and "\nb,system," in got[1]
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as e:
        main(["score", str(task / "gold.csv"), str(task / "a.csv"), "--no-intervals", str(task / "b.csv"), "--bogus"])
    assert e.value.code == 2 and err.getvalue().endswith("error: unrecognized arguments: --bogus\n")


def test_a_folder_given_as_a_file_is_called_a_folder(task):
    code, _, err = _run("score", task / "folder", task / "a.csv")
    assert code == 1 and f"{task / 'folder'}: a folder, not a file: give the path of the file itself" in err
    assert "unknown file type" not in err


def test_a_gold_of_one_class_blames_the_gold_not_an_option_never_given(task):
    code, _, err = _run("score", task / "one_class.csv", task / "a.csv")
    assert code == 1 and "every gold label is 'query': a score needs two classes or more; if the task has " \
        "others, name every class with --labels and give --set allow_unused_labels=true" in err
    with pytest.raises(DataError, match=r"every gold label is 'query': .* name every class with labels=\[...\] and "
                                        r"allow_unused_labels=True"):
        metaeval.evaluate(["query"] * 10, {"x": ["query"] * 10})
    # the advice works: the classes named, the unused ones allowed
    data = metaeval.dataset(["query"] * 10, {"x": ["query"] * 9 + ["deny"]}, labels=["deny", "query"],
                            allow_unused_labels=True, metrics=["accuracy"])
    got = metaeval.evaluate(data, intervals=False)
    assert got.loc["x", "accuracy"] == 0.9


def test_a_label_with_a_lookalike_character_is_spelled_out(task):
    code, _, err = _run("score", task / "gold.csv", task / "cyrillic.csv")
    assert code == 1
    assert ("predicted label 'qu\u0435ry' of item" in err and "(it differs from 'query' only in U+0435 CYRILLIC "
            "SMALL LETTER IE, a character that looks like the ASCII one in its place: fix the file, or add a "
            "label_map entry)") in err
    with pytest.raises(DataError, match=r"it holds U\+00E9 LATIN SMALL LETTER E WITH ACUTE, and the label set is "
                                        r"plain ASCII"):
        metaeval.evaluate(["a", "b"] * 5, {"x": ["a", "b\u00e9"] * 5})


@pytest.mark.parametrize("twin,how", [("support ", "surrounding spaces"), ("SUPPORT", "case"),
                                      ("supp\u043ert", "a lookalike character (U+043E CYRILLIC SMALL LETTER O)")])
def test_gold_labels_that_read_as_one_class_are_refused_not_split(tmp_path, twin, how):
    """The trial: without --labels, a gold holding 'support' and 'support '
    scored two classes (macro-F1 0.47 for about 0.9), in silence."""
    rng = np.random.default_rng(7)
    gold = rng.choice(LABELS, 80)
    spaced = np.where((gold == "support") & (np.arange(80) % 2 == 1), twin, gold)
    ids = [f"i{k}" for k in range(80)]
    pd.DataFrame({"item_id": ids, "label": spaced}).to_csv(tmp_path / "gold.csv", index=False)
    pd.DataFrame({"item_id": ids, "label": gold}).to_csv(tmp_path / "a.csv", index=False)
    code, out, err = _run("score", tmp_path / "gold.csv", tmp_path / "a.csv", "--no-intervals")
    assert code == 1 and out == ""
    assert f"the gold labels 'support' and {twin!r} differ only by {how}: read as two classes they would split " \
           f"one" in err
    with pytest.raises(DataError, match="differ only by"):
        metaeval.evaluate(list(spaced), {"a": list(gold)})
    (tmp_path / "predictions").mkdir()
    (tmp_path / "a.csv").rename(tmp_path / "predictions" / "a.csv")
    code, _, err = _run("init", tmp_path)  # init reads the classes the same way
    assert code == 1 and "differ only by" in err and not (tmp_path / "metaeval.yaml").exists()
    # the labels named: the user's declaration that they are classes (here 'support ' is then not one of them)
    with pytest.raises(DataError, match=r"is not one of"):
        metaeval.evaluate(list(spaced), {"a": list(gold)}, labels=LABELS)


def test_strip_without_the_classes_named_reads_the_classes_stripped(tmp_path):
    gold = ["support ", "support", "deny", "query", "comment"] * 20
    clean = [g.strip() for g in gold]
    got = metaeval.evaluate(metaeval.dataset(gold, {"a": clean}, normalize_labels=["strip"], metrics=["accuracy"]),
                            intervals=False)
    assert got.loc["a", "accuracy"] == 1.0
    # case: the gold's spelling is the class's (predictions in another case are read as it) ...
    upper = [c.upper() for c in clean]
    got = metaeval.evaluate(metaeval.dataset(clean, {"a": upper}, normalize_labels=["case"], metrics=["accuracy"]),
                            intervals=False)
    assert got.loc["a", "accuracy"] == 1.0
    # ... unless the gold spells a label two ways: then the classes must be named
    with pytest.raises(DataError, match=r"'DENY' and 'deny' differ only by case: .* name the classes with "
                                        r"labels=\[...\] and normalize_labels=\['case'\]"):
        metaeval.dataset(upper[:3] + clean[3:], {"a": clean}, normalize_labels=["case"])


def test_score_refuses_labels_that_read_as_one_class():
    with pytest.raises(ValueError, match=r"hold the labels 'b ' and 'b', which differ only by surrounding spaces"):
        metaeval.score(["a", "b ", "b", "a"] * 5, ["a", "b", "b", "a"] * 5, "macro_f1")
    with pytest.raises(ValueError, match=r"'qu\u0435ry' reads as 'query' \(a lookalike character"):
        metaeval.score(["query", "deny"] * 5, ["qu\u0435ry", "deny"] * 5, "macro_f1", labels=["query", "deny"])
    assert metaeval.score(["a", "b"] * 5, ["a", "b "] * 5, "accuracy", labels=["a", "b", "b "]) == 0.5  # declared


def test_empty_standard_input_for_a_prediction_shows_that_case(task):
    res = subprocess.run([sys.executable, "-m", "metaeval", "score", str(task / "gold.csv"), "-"], input="",
                         capture_output=True, text=True)
    assert res.returncode == 1 and "(e.g. `metaeval score gold.csv - < system.csv`;" in res.stderr


def test_init_says_what_the_reading_normalised(tmp_path):
    ids = [f"i{k}" for k in range(40)]
    labels = (LABELS * 10)[:40]
    (tmp_path / "predictions").mkdir()
    pd.DataFrame({"item_id": [f" {i} " for i in ids], "label": labels}).to_csv(tmp_path / "gold.csv", index=False)
    pd.DataFrame({"item_id": ids, "label": labels}).to_csv(tmp_path / "predictions" / "a.csv", index=False)
    code, out, err = _run("init", tmp_path)
    assert code == 0, err
    assert "warning: " in out and "40 item ids had spaces around them (' i0 '), read without them (as 'i0')" in out
