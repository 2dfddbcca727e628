"""Every reading that can change a score is counted and said (issue 48):
ids and group values read without the spaces around them, overlapping gold
spans merged, tier fractions that do not sum to 1.  Said once per file, in
``dataset.json`` (``info``) and on the console (``warnings``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from metaeval.data.config import DatasetSpec
from metaeval.data.dataset import load_dataset, score_dataset

from .conftest import FIXTURES

LABELS = ["neg", "neu", "pos"]


@pytest.fixture
def task(tmp_path):
    rng = np.random.default_rng(480)
    ids = [f"{767732633337864193 + k}" for k in range(60)]
    gold = pd.DataFrame({"item_id": ids, "label": rng.choice(LABELS, 60), "source": ["twitter", "reddit"] * 30})
    gold.to_csv(tmp_path / "gold.csv", index=False)
    (tmp_path / "p").mkdir()
    for name in ("a", "b"):
        pred = gold[["item_id"]].assign(label=np.where(rng.random(60) < 0.7, gold["label"], rng.choice(LABELS, 60)))
        pred.to_csv(tmp_path / "p" / f"{name}.csv", index=False)
    return tmp_path


def _spec(**more):
    return DatasetSpec.from_config("d", dict(gold="gold.csv", predictions=["p/*.csv"], labels=LABELS, baselines=[],
                                             group_column="source", **more))


def test_ids_and_groups_with_spaces_around_them_are_counted_and_said_per_file(task):
    clean = score_dataset(load_dataset(_spec(), task), _spec()).set_index("system")
    gold = pd.read_csv(task / "gold.csv", dtype=str)
    gold["item_id"] = " " + gold["item_id"] + " "  # every gold id
    gold.loc[:4, "source"] = " twitter "  # five group values (three of them twitter's already)
    gold.to_csv(task / "gold.csv", index=False)
    a = pd.read_csv(task / "p" / "a.csv", dtype=str)
    a.loc[0, "item_id"] = f" {a.loc[0, 'item_id']} "
    a.to_csv(task / "p" / "a.csv", index=False)
    ds = load_dataset(_spec(), task)
    # the same items, the same groups: the same scores
    pd.testing.assert_frame_equal(score_dataset(ds, _spec()).set_index("system"), clean)
    assert ds.group_names == ("reddit", "twitter")
    g, p = str(task / "gold.csv"), str(task / "p" / "a.csv")
    assert ds.info["stripped"] == {
        g: {"ids": {"count": 60, "example": " 767732633337864193 "}, "groups": {"count": 5, "example": " twitter "}},
        p: {"ids": {"count": 1, "example": " 767732633337864193 "}}}
    said = [w for w in ds.info["warnings"] if "had spaces around" in w]
    assert said == [f"{g}: 60 item ids had spaces around them (' 767732633337864193 '), read without them (as "
                    f"'767732633337864193'); 5 group values had spaces around them (' twitter '), read without them "
                    f"(as 'twitter')",
                    f"{p}: 1 item id had spaces around it (' 767732633337864193 '), read without them (as "
                    f"'767732633337864193')"]
    json.dumps(ds.info)  # (dataset.json holds it)


def test_the_command_line_says_it_on_the_console(task):
    gold = pd.read_csv(task / "gold.csv", dtype=str)
    gold.loc[3, "item_id"] = f"{gold.loc[3, 'item_id']} "
    gold.to_csv(task / "gold.csv", index=False)
    res = subprocess.run([sys.executable, "-m", "metaeval", "score", str(task / "gold.csv"),
                          str(task / "p" / "a.csv"), str(task / "p" / "b.csv"), "--no-intervals", "--format", "csv"],
                         capture_output=True, text=True)
    assert res.returncode == 0
    assert res.stderr.count("had spaces around") == 1 and "1 item id had spaces around it" in res.stderr


def test_a_clean_file_says_nothing(task):
    ds = load_dataset(_spec(), task)
    assert ds.info["stripped"] == {} and not [w for w in ds.info["warnings"] if "spaces" in w]


def test_overlapping_gold_spans_are_merged_with_a_word(tmp_path):
    shutil.copytree(FIXTURES / "spans", tmp_path / "spans")
    raw = dict(format="semeval2020_si", gold="spans/si/gold.labels", articles="spans/articles",
               predictions=["spans/si/predictions/*.txt"], merge_overlapping_predictions=True)
    spec = DatasetSpec.from_config("si", raw)
    before = load_dataset(spec, tmp_path)
    assert not [w for w in before.info["warnings"] if "gold span(s) overlap" in w]
    merged = [w for w in before.info["warnings"] if "(merge_overlapping_predictions)" in w]
    assert len(merged) == 1 and "overlapping.txt: " in merged[0] and " span(s) overlap an earlier one and are " \
        "merged with it" in merged[0]
    gold = tmp_path / "spans/si/gold.labels"
    gold.write_text(gold.read_text() + "101\t55\t70\n101\t60\t66\n")  # two spans inside or across [50, 68)
    ds = load_dataset(spec, tmp_path)
    said = [w for w in ds.info["warnings"] if "gold span(s) overlap" in w]
    n = ds.info["n_gold_spans"]
    assert said == [f"{gold}: 2 gold span(s) overlap another and are merged with it, as the official scorer merges "
                    f"them ({n - 2:,} gold spans scored of {n:,} read)"]
    assert ds.info["n_gold_spans_scored"] == n - 2


def test_a_score_file_s_spaced_ids_are_counted_as_a_label_file_s(tmp_path):
    from metaeval.data.score_data import labels_from_scores
    from metaeval.data.readers.scores import read_scores

    (tmp_path / "s.csv").write_text("item_id,score\n a ,0.9\nb,0.2\n c,0.4\n")
    t = read_scores(tmp_path / "s.csv")
    assert t.ids == ["a", "b", "c"] and t.stripped == {"ids": {"count": 2, "example": " a "}}
    spec = DatasetSpec.from_config("d", dict(gold="g.csv", predictions=[], scores=["s.csv"], labels=["n", "y"],
                                             positive_class="y", score_threshold=0.5, metrics=["roc_auc"]))
    lt, _ = labels_from_scores(spec, t)  # a system given by its scores alone: said with its labels
    assert lt.stripped == t.stripped
