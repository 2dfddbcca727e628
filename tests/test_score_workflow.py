"""Scores in the workflow: SemEval-2016 Task 3 subtask B from the default
config, run by Snakemake with fewer resamples: the official figures
reproduced, score and label metrics judged together on one verdict page;
and a bad score file stopping its dataset with file and line, nothing of it
written."""

from __future__ import annotations

import shutil

import pandas as pd
import yaml

import pytest

from .conftest import ROOT
from .workflow_helpers import _run

# Snakemake (or pip) end to end: the second tier of tests (pytest -m 'workflow or slow'; README)
pytestmark = pytest.mark.workflow


def _config(tmp_path, datasets: dict) -> "Path":  # noqa: F821
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["datasets"] = datasets
    cfg.pop("leaderboards", None)  # (their data is not in this test's folder)
    cfg["experiments"].update(n_splits=100, balanced_repeats=5, bootstrap_replicates=100, tukey_trials=100,
                              noise_repeats=10, criteria_replicates=40, design_draws=10)
    cfg["properties"].update(yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())["properties"])
    cfg["reproduction"] = {"enabled": False}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_semeval2016_task3_in_the_workflow(tmp_path, data_dir, project_config):
    cfg = _config(tmp_path, {"semeval2016t3_b": project_config["datasets"]["semeval2016t3_b"]})
    _run(tmp_path, data_dir, "results/semeval2016t3_b/official.csv",
         "results/semeval2016t3_b/recommendation.csv", configfile=cfg)
    res = tmp_path / "results/semeval2016t3_b"
    official = pd.read_csv(res / "official.csv")
    # every official MAP, AvgRec, MRR, F1 and accuracy of the 28 runs and the IR baseline (no labels: 3 figures)
    assert len(official) == 28 * 5 + 3 and (official.status == "match").all(), official[official.status != "match"]
    page = (res / "tables/official.md").read_text()
    assert "143 of 143 official figures reproduced to the printed digits" in page
    # one verdict judges the metrics of labels and of scores together
    rec = pd.read_csv(res / "recommendation.csv")
    head = rec[rec.scope == "these_systems"]
    assert {"accuracy", "macro_f1", "roc_auc", "average_precision", "map", "mrr", "avg_recall"} <= set(head.metric)
    judged = head[head.criterion == "stability"].set_index("metric")
    assert judged.loc["map", "participant"] and judged.loc["macro_f1", "participant"]
    priors = head[head.criterion == "priors"].set_index("metric")
    assert priors.loc["map", "not_defined"] and not priors.loc["roc_auc", "not_defined"]
    assert priors.loc["roc_auc", "exempt"]  # invariant to the class priors, found on the data
    md = (res / "recommendation.md").read_text()
    assert "not defined for it" in md and "ROC-AUC" in md and "MAP" in md
    assert "**Not defined for it:** MAP, MRR and AvgRec on robustness to class priors (a ranking within each group " \
           "has no class prior to re-weight). They are judged on the other criteria." in md
    games = pd.read_csv(res / "gameability.csv")
    assert {"prior_probability", "random_score"} <= set(games.degenerate)


def test_a_bad_score_file_stops_its_dataset_with_file_and_line(tmp_path, data_dir, project_config):
    data = tmp_path / "data"
    shutil.copytree(data_dir / "semeval2016t3_b", data / "semeval2016t3_b")
    bad = data / "semeval2016t3_b/scores/Kelp-primary.csv"
    lines = bad.read_text().splitlines()
    item = lines[5].split(",")[0]
    lines[5] = f"{item},nan"
    bad.write_text("\n".join(lines) + "\n")
    cfg = _config(tmp_path, {"semeval2016t3_b": project_config["datasets"]["semeval2016t3_b"]})
    res = _run(tmp_path, data, "results/semeval2016t3_b/scores.csv", configfile=cfg, check=False)
    out = res.stdout + res.stderr
    assert res.returncode != 0
    assert f"Kelp-primary.csv:6: score of item {item!r} is NaN" in out, out[-3000:]
    assert "Traceback" not in out.split("Kelp-primary.csv:6")[0][-2000:]
    assert not (tmp_path / "results/semeval2016t3_b").exists() or not any(
        p.suffix in (".csv", ".npz", ".json") for p in (tmp_path / "results/semeval2016t3_b").rglob("*"))
