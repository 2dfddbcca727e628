"""Behaviours no test pinned before issue 34 (found by mutating the code by
hand): each test names the behaviour and fails when it changes."""

from __future__ import annotations

import io
import warnings
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.api import _sorted_labels
from metaeval.cli import main
from metaeval.data.config import ConfigError
from metaeval.data.files import DataError
from metaeval.methods.scorer import select_systems


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(3)
    gold = rng.choice(["a", "b", "c"], 80)
    (tmp_path / "gold.csv").write_text("item_id,label\n" + "".join(f"i{k},{g}\n" for k, g in enumerate(gold)))
    for name, acc in (("s1", 0.9), ("s2", 0.6), ("s3", 0.4)):
        pred = [g if rng.random() < acc else rng.choice(["a", "b", "c"]) for g in gold]
        (tmp_path / f"{name}.csv").write_text("item_id,label\n" + "".join(f"i{k},{p}\n" for k, p in enumerate(pred)))
    return tmp_path


# -- the library's reading of labels in memory ---------------------------------------
def test_numeric_labels_are_sorted_as_numbers_text_labels_as_text():
    assert _sorted_labels(["10", "9", "2", "10"]) == ["2", "9", "10"]
    assert _sorted_labels([10, 2.5, 9]) == ["2.5", "9", "10"]
    assert _sorted_labels(["b10", "b9", "a"]) == ["a", "b10", "b9"]  # one text label: all as text
    ds, _ = metaeval.api.dataset(["10", "9", "2"], {"s": ["9", "9", "2"]}, baselines=[])
    assert ds.labels == ("2", "9", "10")


def test_a_list_gold_refuses_series_predictions_indexed_otherwise():
    """Issue 48 changed this pin: matched by position, the Series' index was
    ignored in silence; now the mix is refused with the reason."""
    gold = ["a", "b", "a"]
    pred = pd.Series(["a", "b", "b"], index=[20, 10, 30])  # an index the list gold does not have
    with pytest.raises(DataError, match=r"predictions\['s'\]: a pandas Series indexed by item id \(e.g. '20'\), "
                                        r"but the gold is a plain sequence \(list\) without ids"):
        metaeval.api.dataset(gold, {"s": pred}, baselines=[])
    ds, _ = metaeval.api.dataset(gold, {"s": pred.reset_index(drop=True)}, baselines=[])  # 0 .. N-1 in order
    assert ds.predictions.tolist() == [[0, 1, 1]] and ds.item_ids.tolist() == ["0", "1", "2"]
    with pytest.raises(DataError, match=r"predictions\['s'\]: a pandas Series indexed by item id \(e.g. '2'\)"):
        metaeval.api.dataset(gold, {"s": pred.set_axis([2, 0, 1])}, baselines=[])  # positions out of order
    # both Series: matched by index
    ds, _ = metaeval.api.dataset(pd.Series(gold, index=[10, 20, 30]), {"s": pred}, baselines=[])
    assert dict(zip(ds.item_ids.tolist(), ds.predictions[0].tolist())) == {"10": 1, "20": 0, "30": 1}


def test_two_files_giving_one_system_name_are_refused(tmp_path, files):
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "s1.csv").write_text((files / "s1.csv").read_text())
    with pytest.raises(ConfigError, match=r"two prediction files give the system name 's1': .*s1.csv and "
                                          r".*other/s1.csv"):
        metaeval.read_files(files / "gold.csv", [files / "s1.csv", tmp_path / "other" / "s1.csv"])


# -- which systems are ranked ---------------------------------------------------------
def test_generated_baselines_are_ranked_only_when_include_baselines_names_them(files):
    ds, _ = metaeval.read_files(files / "gold.csv", [files / f"s{i}.csv" for i in (1, 2, 3)])
    assert ds.systems == ("s1", "s2", "s3", "majority", "all_a", "all_b", "all_c", "random")
    assert [ds.systems[i] for i in select_systems(ds, [])] == ["s1", "s2", "s3"]
    assert [ds.systems[i] for i in select_systems(ds, ["majority", "random"])] == \
        ["s1", "s2", "s3", "majority", "random"]



def test_the_few_systems_warning_counts_two_systems(files):
    preds = [files / "s1.csv", files / "s2.csv"]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        metaeval.recommend(metaeval.read_files(files / "gold.csv", preds, baselines=[]), properties=False,
                           criteria_replicates=20, n_splits=20, settings=metaeval.api.settings(tukey_trials=50))
    few = [str(w.message) for w in said if "fewer than min_systems" in str(w.message)]
    assert few and few[0].startswith("2 ranked systems (baselines included), fewer than min_systems = 6")
    assert "(settings=metaeval.api.settings(min_systems=2) silences this)" in few[0]


# -- the command line -------------------------------------------------------------------
def test_empty_comma_entries_are_skipped(files):
    code, out, _ = _cli("score", files / "gold.csv", files / "s1.csv", "--no-intervals", "--metrics",
                        ",accuracy,,macro_f1,", "--baselines", "majority,,")
    assert code == 0
    table = pd.read_csv(io.StringIO(out), comment="#")
    assert list(table.columns) == ["system", "kind", "accuracy", "macro_f1"]
    assert list(table["system"]) == ["s1", "majority"]


def test_labels_and_label_together_are_refused(files):
    code, out, err = _cli("score", files / "gold.csv", files / "s1.csv", "--labels", "a,b,c", "--label", "a")
    assert (code, out) == (2, "")
    assert err == "metaeval score: give the classes with --labels or with --label, not both\n"
    # --label, repeated, is --labels in that order (an ordinal metric reads the order)
    runs = [_cli("score", files / "gold.csv", files / "s2.csv", "--no-intervals", "--ordinal", "--metrics",
                 "mae_macro", *args)
            for args in (["--label", "a", "--label", "c", "--label", "b"], ["--labels", "a,c,b"],
                         ["--labels", "a,b,c"])]
    assert [r[0] for r in runs] == [0, 0, 0]
    assert runs[0][1] == runs[1][1] != runs[2][1]


def test_the_alpha_option_decides_which_pairs_are_told_apart(files):
    preds = [files / f"s{i}.csv" for i in (1, 2, 3)]
    told = {}
    for alpha in ("0.05", "0.0001"):
        code, out, _ = _cli("compare", files / "gold.csv", *preds, "--metrics", "accuracy", "--trials", "200",
                            "--alpha", alpha, "--format", "csv")
        assert code == 0 and out.splitlines()[0].endswith(f"| alpha {alpha}")
        told[alpha] = pd.read_csv(io.StringIO(out), comment="#").iloc[0]
    # p-values of 200 trials are multiples of 1/200 (0: below it): one pair stays apart at 0.0001
    assert (told["0.05"]["n_significant"], told["0.0001"]["n_significant"]) == (2, 1)
    assert told["0.0001"]["indistinguishable_from_best"] == "s2"


def test_the_baselines_option_generates_exactly_the_kinds_named(files):
    code, out, _ = _cli("score", files / "gold.csv", files / "s1.csv", "--no-intervals", "--metrics", "accuracy",
                        "--baselines", "random,majority")
    table = pd.read_csv(io.StringIO(out), comment="#")
    assert code == 0 and set(table["system"]) == {"s1", "majority", "random"}
    assert dict(zip(table["system"], table["kind"])) == {"s1": "system", "majority": "baseline", "random": "baseline"}


def test_warnings_go_to_standard_error_and_the_table_to_standard_output(files):
    (files / "copy.csv").write_text((files / "gold.csv").read_text())  # a perfect system: warned
    code, out, err = _cli("score", files / "gold.csv", files / "copy.csv", "--no-intervals", "--metrics",
                          "accuracy")
    assert code == 0
    assert err.startswith("warning: dataset 'data': system 'copy' predicts every item exactly as the gold")
    assert "warning" not in out and out.startswith("# metaeval")
