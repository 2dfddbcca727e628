"""The leaderboards in the workflow (``workflow/rules/leaderboards.smk``):
a run of a config with a dataset and a leaderboard on the fixtures; a new
prediction file reruns that leaderboard's jobs and no other, and its
leaderboard, rank sets and verdict take the new system in; a leaderboard
setting reruns the steps that read it and not the reading of the data; a
bad file stops the run with its file, line and fault, and writes nothing."""

from __future__ import annotations

import html
import json
import re
import shutil

import pandas as pd
import pytest
import yaml

from .conftest import FIXTURES, ROOT
from .workflow_helpers import _copy_of, _run

pytestmark = pytest.mark.workflow

LEADERBOARD = {"description": "120 questions in 4 tasks, 5 models (a fixture written for the tests)",
               "gold": "tiny_lb/gold.csv", "predictions": ["tiny_lb/predictions/*.csv"],
               "options_column": "n_options", "no_answer": "none",
               "experiments": {"leaderboard_replicates": 100, "leaderboard_verdict_replicates": 60,
                               "leaderboard_splits": 50, "leaderboard_design_halves": 2}}


def _config(tmp, **leaderboard):
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {"tiny": cfg["datasets"]["tiny"]}
    cfg["leaderboards"] = {"tiny_lb": {**LEADERBOARD, **leaderboard}}
    path = tmp / "lb.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture(scope="module")
def lb_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("lb")
    data = base / "data"
    shutil.copytree(FIXTURES, data)
    work = base / "work"
    work.mkdir()
    cfg = _config(base)
    _run(work, data, configfile=cfg)
    return work, data, cfg


def _planned(work, data, cfg) -> set[tuple[str, str]]:
    out = _run(work, data, "-n", configfile=cfg).stdout
    jobs = set()
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", out):
        m = re.match(r"(?:local)?rule (\w+):", block)
        if m and m.group(1) != "all":
            w = re.search(r"wildcards: (\w+)=([\w.-]+)", block)
            jobs.add((m.group(1), w.group(2) if w else ""))
    return jobs


def test_the_run_writes_the_leaderboard(lb_run):
    work, _, _ = lb_run
    res = work / "results" / "tiny_lb"
    for f in ("leaderboard.md", "leaderboard.html", "leaderboard.tex", "figures/rank_sets.png", "ranks_items.csv",
              "ranks_tasks.csv", "ranks_both.csv", "verdict_items.csv", "design.csv", "dataset.json"):
        assert (res / f).is_file(), f
    md = (res / "leaderboard.md").read_text()
    assert md.index("## The answer") < md.index("## The leaderboard")  # the answer first
    assert "**Caution.** With 5 systems, the criteria compare rankings of very few systems" in md
    assert "With 4 tasks, resampling tasks draws few distinct samples" in md
    assert "![The rank sets of the mean over items under each resampling scheme](figures/rank_sets.png)" in md
    assert '<img src="figures/rank_sets.png"' in (res / "leaderboard.html").read_text()
    ranks = pd.read_csv(res / "ranks_items.csv")
    assert set(ranks["system"]) == {f"model_{c}" for c in "abcde"}
    assert (ranks["simultaneous_lower"] <= ranks["rank"]).all() and (ranks["rank"] <= ranks["simultaneous_upper"]).all()
    # the front page gives the leaderboard's answer beside the dataset's, and links its page
    front = json.loads((res / "leaderboard.json").read_text())
    verdict = pd.read_csv(res / "verdict_items.csv")
    assert front["answers"]["items"] == verdict["sentence"].iloc[0].replace(
        ", items resampled within each task (the tasks fixed)", "")
    overview = (work / "results/report/overview.html").read_text()
    assert overview.index("Which metric, per dataset") < overview.index("Which aggregate, per leaderboard")
    assert html.escape(front["headline"]) in overview
    assert '<a href="../tiny_lb/leaderboard.html">(the leaderboard)</a>' in overview
    assert '<a href="../tiny_lb/figures/rank_sets.png">' in overview


def test_a_new_prediction_file_reruns_only_its_leaderboard(lb_run, tmp_path):
    work, data, cfg = lb_run
    assert "Nothing to be done" in _run(work, data, "-n", configfile=cfg).stdout
    new = data / "tiny_lb/predictions/model_f.csv"
    shutil.copy(data / "tiny_lb/predictions/model_b.csv", new)
    try:
        planned = _planned(work, data, cfg)
        # no job of the dataset tiny; the front page, which gives the leaderboard's answer
        assert planned and {w for _, w in planned} == {"tiny_lb", ""}, planned
        assert {r for r, w in planned if not w} == {"overview"}
        assert {r for r, w in planned if w} == {"leaderboard_data", "leaderboard_ranks", "leaderboard_experiments",
                                                "leaderboard_verdict", "leaderboard_design", "leaderboard_page"}
        _run(work, data, configfile=cfg)
        res = work / "results" / "tiny_lb"
        assert "model_f" in set(pd.read_csv(res / "ranks_items.csv")["system"])
        assert "model_f" in (res / "leaderboard.md").read_text()
        # model_f answers as model_b does: the two are never resolved
        r = pd.read_csv(res / "ranks_items.csv")
        r = r[r["aggregate"] == "mean_items"].set_index("system")
        assert r.loc["model_f", "estimate"] == r.loc["model_b", "estimate"]
        assert r.loc["model_f", "simultaneous_lower"] == r.loc["model_b", "simultaneous_lower"]
    finally:
        new.unlink()
    _run(work, data, configfile=cfg)  # back as it was, for the other tests
    assert "Nothing to be done" in _run(work, data, "-n", configfile=cfg).stdout


def test_a_leaderboard_setting_reruns_what_reads_it(lb_run, tmp_path):
    work, data, _ = lb_run
    cfg = _config(tmp_path, experiments={**LEADERBOARD["experiments"], "leaderboard_alpha": 0.1})
    planned = _planned(work, data, cfg)
    assert {r for r, _ in planned} == {"leaderboard_ranks", "leaderboard_experiments", "leaderboard_verdict",
                                       "leaderboard_design", "leaderboard_page", "overview"}  # not the data's reading
    assert {w for r, w in planned if r != "overview"} == {"tiny_lb"}


def test_a_bad_prediction_file_stops_the_run_and_names_it(lb_run, tmp_path):
    _, data, _ = lb_run
    bad_data = tmp_path / "data"
    shutil.copytree(data, bad_data)
    with open(bad_data / "tiny_lb/predictions/model_a.csv", "a") as f:
        f.write("q999,A\n")
    work = tmp_path / "work"
    work.mkdir()
    res = _run(work, bad_data, "results/tiny_lb/leaderboard.md", configfile=_config(tmp_path), check=False)
    assert res.returncode != 0
    assert re.search(r"model_a\.csv:\d+: item 'q999' is not in the gold file", res.stderr + res.stdout)
    assert not (work / "results/tiny_lb/benchmark.npz").exists()
    assert not (work / "results/tiny_lb/leaderboard.md").exists()


def test_a_config_of_leaderboards_alone_runs_no_metric_properties(lb_run, tmp_path):
    """The formal properties are of classification metrics: a config with
    leaderboards and no dataset checks them only when it names
    ``properties:`` itself."""
    _, data, _ = lb_run
    work = tmp_path / "work"
    work.mkdir()
    for block, want in (({}, False), ({"properties": {"enabled": True}}, True)):
        cfg = tmp_path / "only.yaml"
        cfg.write_text(yaml.safe_dump({"leaderboards": {"tiny_lb": LEADERBOARD}, **block}))
        rules = {r for r, _ in _planned(work, data, cfg)}
        assert {"leaderboard_data", "leaderboard_page", "overview"} <= rules
        assert ("properties" in rules) is want, rules
        assert not rules & {"ingest", "score", "experiments", "recommendation", "cross_dataset"}


def test_a_failed_rerun_leaves_no_page_of_the_previous_input(lb_run, tmp_path):
    """A bad file added to a leaderboard that ran: its data job fails, and
    its tables, its page and the front page are gone (nothing left telling
    of the previous input as if it were current); the dataset's results
    stay."""
    work, data, cfg = lb_run
    other = _copy_of(work, tmp_path)
    other_data = tmp_path / "data"
    shutil.copytree(data, other_data)
    (other_data / "tiny_lb/predictions/model_z.csv").write_text("item_id,label\nq999,A\n")
    res = _run(other, other_data, configfile=cfg, check=False)
    assert res.returncode != 0
    lb = other / "results" / "tiny_lb"
    assert not (lb / "benchmark.npz").exists()
    for f in ("leaderboard.md", "leaderboard.html", "leaderboard.json", "figures/rank_sets.png", "ranks_items.csv",
              "verdict_both.csv", "design.csv", "task_scores.csv"):  # the tables of the previous input too
        assert not (lb / f).exists(), f
    assert not (other / "results/report/overview.html").exists()
    assert (other / "results/tiny/recommendation.csv").is_file()
