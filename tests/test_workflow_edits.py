"""The workflow's reruns: what a config edit, a new system, an edited
text or a change of the library plans (exactly the jobs that read what
changed), and sharded and interrupted runs that end in the same bytes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pandas as pd
import pytest
import yaml


from .conftest import ROOT
from .workflow_helpers import SNAKEMAKE, _copy_of, _csvs, _run, _tiny_only

# Snakemake (or pip) end to end: the second tier of tests (pytest -m 'workflow or slow'; README)
pytestmark = pytest.mark.workflow


def test_new_system_reruns_only_its_dataset(run, tmp_path):
    work, data = run
    work = _copy_of(work, tmp_path)
    assert "Nothing to be done" in _run(work, data, "-n").stdout
    shutil.copy(data / "tiny/predictions/sys_a.csv", data / "tiny/predictions/mysystem.csv")
    try:
        dry = _run(work, data, "-n").stdout
        assert "dataset=tiny\n" in dry.replace("dataset=tiny_tsv", "")
        assert "dataset=tiny_tsv" not in dry
        _run(work, data)
        df = pd.read_csv(work / "results/tiny/scores.csv")
        assert "mysystem" in df["system"].tolist()
    finally:
        (data / "tiny/predictions/mysystem.csv").unlink()
    assert "Nothing to be done" in _run(run[0], data, "-n").stdout


def _planned(work, data, configfile) -> set[tuple[str, str | None]]:
    """(rule, dataset) of every job a dry run plans (rule all left out)."""
    out = _run(work, data, "-n", configfile=configfile).stdout
    jobs = set()
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", out):
        m = re.match(r"(?:local)?rule (\w+):", block)
        if m and m.group(1) != "all":
            w = re.search(r"wildcards: dataset=([\w.-]+)", block)
            rule = re.sub(r"^recommendation_\w+", "recommendation", m.group(1))  # (variants by kind of dataset)
            jobs.add((rule, w.group(1) if w else None))
    return jobs


def _jobs(rules, *datasets):
    return {(r, d) for r in rules for d in datasets}


# the jobs of a dataset: scoring (tables and figures included) and the
# experiments: their computations (with one shard, the .test default, that job
# draws the half-splits itself: no stability_shard job), then one job for label
# noise and class priors (datasets with classes), the figures and tables, and
# the recommendation (its rule's variants are named "recommendation" here)
SCORE = ("score",)
EXPS = ("experiments", "recommendation")
METRIC_RULES = SCORE + EXPS
EVERYTHING = ("ingest",) + METRIC_RULES
# the span datasets of the .test config: what each one runs
SPAN_TC = ("ingest", "score_tc") + EXPS
SPAN_SI = ("ingest", "score_si")
SPAN_SYN = SPAN_SI + ("experiments_no_merging", "recommendation")
WITH_EXPS = ("tiny", "tiny_tsv", "spans_tc", "spans_si_synthetic", "toxic")


def _set(cfg, path, value):
    *head, last = path.split(".")
    for k in head:
        cfg = cfg.setdefault(k, {})
    cfg[last] = value


def _all(rules, datasets=WITH_EXPS):
    """``rules`` on every dataset that runs them ("experiments" stands for
    either variant of the rule)."""
    runs = {"tiny": EVERYTHING, "tiny_tsv": EVERYTHING + ("score_groups",), "spans_tc": SPAN_TC,
            "spans_si": SPAN_SI, "spans_si_synthetic": SPAN_SYN, "toxic": SPAN_SYN}
    out = set()
    for d in datasets:
        for r in rules:
            for variant in (r, "score_tc", "score_si") if r == "score" else \
                    (r, "experiments_no_merging") if r == "experiments" else (r,):
                if variant in runs[d]:
                    out.add((variant, d))
    return out


ALL_DATASETS = ("tiny", "tiny_tsv", "spans_tc", "spans_si", "spans_si_synthetic", "toxic")
CLASSES = ("tiny", "tiny_tsv", "spans_tc")  # the datasets with classes and a meta-evaluation


EDITS = [
    # (the front page names each dataset's primary metric)
    ("datasets.tiny.primary_metric", "accuracy", _jobs(("score", "recommendation"), "tiny") | {("overview", None)}),
    ("datasets.tiny.labels", ["pos", "neu", "neg"], _jobs(EVERYTHING, "tiny")),
    # the formal properties on the dataset's own shape read its order and its weights
    ("datasets.tiny.ordinal", False, _jobs(METRIC_RULES + ("dataset_properties",), "tiny")),
    ("datasets.tiny.weights", {"even": {"neg": 0.3, "neu": 0.4, "pos": 0.3}},
     _jobs(METRIC_RULES + ("dataset_properties",), "tiny")),
    ("datasets.tiny.extra_labels", {"other": "neg"}, _jobs(EVERYTHING, "tiny")),
    ("datasets.tiny.extra_label_policy", "drop_item", _jobs(EVERYTHING, "tiny")),
    ("datasets.tiny.label_map", {"negative": "neg"}, _jobs(EVERYTHING, "tiny")),
    ("datasets.tiny.description", "another description", set()),
    ("datasets.tiny_tsv.f_avg_classes", ["FAVOR"],
     _jobs(METRIC_RULES + ("score_groups", "dataset_properties"), "tiny_tsv")),
    # the random baselines: of the classes, and of the spans (random_spans) of span identification
    ("random_seed", 8, _all(EVERYTHING + ("score_groups",), ALL_DATASETS)),
    ("datasets.toxic.offsets_past_end", "refuse", _all(EVERYTHING, ("toxic",))),
    # the recommendation's point values use the experiments' splits and noisy golds: it reads their settings
    ("experiments.n_splits", 100, _all(EXPS) | _jobs(("recommendation",), *WITH_EXPS)),
    ("datasets.tiny.experiments.split_seed", 99, _jobs(EXPS + ("recommendation",), "tiny")),
    # a computation reruns the steps that read its files: label noise (the trials), the figures
    ("experiments.n_groups", 2, _all(EXPS)),
    # class merging: only the datasets with three classes or more read its settings
    ("experiments.balanced_repeats", 3, _all(EXPS, ("tiny", "tiny_tsv", "spans_tc"))),
    ("experiments.tau_variant", "a", _all(EXPS) | _jobs(("recommendation",), *WITH_EXPS)),
    # read by the summary pages alone (the front page's job writes them)
    ("experiments.distinct_tau", 0.5, {("overview", None)}),
    ("experiments.tukey_trials", 50, _all(EXPS)),
    # a method's steps read its whole branch of the settings tree: the correction is the significance
    # experiment's, although only its paired bootstrap test applies it (the run says so when the test is Tukey's)
    ("experiments.significance_correction", "bh", _all(EXPS)),
    # the bootstrap, and the gameability test of the scoring job (whose table the recommendation reads)
    ("experiments.bootstrap_seed", 5, _all(EXPS) | _all(SCORE, ALL_DATASETS)),
    ("datasets.spans_si.merge_overlapping_predictions", False, _all(SPAN_SI, ("spans_si",))),
    ("datasets.spans_si_synthetic.synthetic.seed", 4, _all(SPAN_SYN, ("spans_si_synthetic",))),
    ("datasets.spans_tc.span_metrics", ["span_f1", "char_f1"], _all(SPAN_TC[1:], ("spans_tc",))),
    # label noise and class priors (datasets with classes): their own job, its figures, the recommendation;
    # never the bootstrap or the significance experiment's trials (issue 20)
    ("experiments.noise_rates", [0.05], _jobs(("recommendation",), *CLASSES)),
    ("experiments.prior_gammas", [0, 4], _jobs(("recommendation",), *CLASSES)),
    ("datasets.tiny.experiments.noise_mode", "uniform", _jobs(("recommendation",), "tiny")),
    ("experiments.noise_repeats", 10, _jobs(("recommendation",), *CLASSES)),
    # the formal properties: the generic table, each dataset's own shape (n_max: its domain; the generic
    # weights are not the datasets'), the recommendations that read them, and every provenance.json
    ("properties.n_max", 4, {("properties", None)} | _jobs(("dataset_properties", "recommendation"), *CLASSES)),
    ("properties.weights", [0.4, 0.4, 0.2], {("properties", None)}),
    # the recommendation's own settings (and the correction of its z-tests, read even with the Tukey test)
    ("experiments.criteria_replicates", 30, _jobs(("recommendation",), *WITH_EXPS)),
    # the test-set size design: in the recommendation's job, from the bootstrap's file (no bootstrap, no trials)
    ("experiments.design_draws", 50, _jobs(("recommendation",), *WITH_EXPS)),
    ("experiments.design_differences", [0.03], _jobs(("recommendation",), *WITH_EXPS)),
    # the verdict's level: the sets and the gameability test (of every dataset's scoring job)
    ("experiments.verdict_alpha", 0.1, _jobs(("recommendation",), *WITH_EXPS) | _all(SCORE, ALL_DATASETS)),
    # (and the cross-dataset job, which gets the verdict's branch: the recommendations rerun anyway)
    # (the scoring jobs read the family's level alone, not the verdict's other settings: the trial of issue 30)
    ("experiments.verdict_mc_level", 0.5, _jobs(("recommendation",), *WITH_EXPS)),
    ("experiments.verdict_scope", "new_systems", _jobs(("recommendation",), *WITH_EXPS)),
    # the jobs of the half-splits: their gathering job's inputs change, and what follows it
    ("experiments.shards", 2, _all(EXPS) | {("stability_shard", d) for d in WITH_EXPS}),
    # the criteria's resamples in shards: their gathering job's inputs change
    ("experiments.criteria_shards", 2, _jobs(("recommendation",), *WITH_EXPS)
     | {("criteria_shard", d) for d in WITH_EXPS}),
    # which datasets have experiments, never a number: no computation of the others reruns (spans_si, with
    # fewer than 6 systems, gains its experiments)
    ("experiments.min_systems", 2, {("overview", None), ("experiments_no_merging", "spans_si"),
                                    ("recommendation", "spans_si")}),
    ("datasets.tiny.experiments.criteria", ["stability", "power"], _jobs(("recommendation",), "tiny")),
    # the verdict's dataset keys: the recommendation alone
    ("datasets.tiny.official_metric", "macro_f1", _jobs(("recommendation",), "tiny")),
    ("datasets.tiny.requirements", ["monotonicity"], _jobs(("recommendation",), "tiny")),
    ("datasets.tiny.paper_choices", [{"metrics": ["gmr"], "source": "a paper"}], _jobs(("recommendation",), "tiny")),
]


@pytest.mark.parametrize("path,value,expected", EDITS, ids=[e[0] for e in EDITS])
def test_a_config_edit_plans_exactly_the_jobs_that_read_it(run, tmp_path, path, value, expected):
    """Plus the provenance.json of every dataset whose resolved config or
    settings the edit touches (it records them all), and the report's front
    page when a dataset's ingestion or summary is redone."""
    work, data = run
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    _set(cfg, path, value)
    (tmp_path / "edited.yaml").write_text(yaml.safe_dump(cfg))
    touched = (path.split(".")[1],) if path.startswith("datasets.") else ALL_DATASETS
    # the recommendation reads the dataset and its gameability (scoring), beside the experiments; a dataset
    # read again reruns the formal properties of its shape (they read its class sizes)
    expected = expected | {("recommendation", d) for r, d in expected if d in WITH_EXPS and r in (
        "ingest", "score", "score_tc", "score_si")} | {("dataset_properties", d) for r, d in expected
                                                     if r == "ingest" and d in CLASSES}
    # the report's front page (with the summary pages) reads every dataset.json, summary.csv and recommendation.json
    front = {("overview", None)} if any(r in ("ingest", "recommendation", "experiments", "experiments_no_merging")
                                        for r, _ in expected) else set()
    # the cross-dataset job gathers every recommendation.csv
    cross = {("cross_dataset", None)} if any(r == "recommendation" for r, _ in expected | front) else set()
    assert _planned(work, data, tmp_path / "edited.yaml") == expected | front | cross | {
        ("provenance", d) for d in touched}




def test_a_change_of_the_library_reruns_the_steps_by_itself(run, tmp_path):
    """The library's version and source hash are a param of every rule: a
    copy of the package (found first on PYTHONPATH) plans nothing while it
    is the same, and every job once a module every step imports changes
    (data/config.py)."""

    from metaeval.workflow import code_fingerprint

    work, data = run
    shutil.copytree(ROOT / "src" / "metaeval", tmp_path / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}

    def dry():
        cmd = SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(ROOT / ".test" / "config.yaml"),
                           "--config", f"data_dir={data}", "--directory", str(work), "--cores", "2", "-n"]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env).stdout

    assert "Nothing to be done" in dry()
    with open(tmp_path / "metaeval" / "data" / "config.py", "a") as fh:
        fh.write("\n# a change\n")
    planned = dry()
    assert "Params have changed since last execution" in planned
    assert re.search(r"^total\s+(\d+)$", planned, flags=re.M).group(1) == \
        re.search(r"^total\s+(\d+)$", _run(work, data, "-n", "--forceall").stdout, flags=re.M).group(1)
    assert code_fingerprint().startswith(__import__("metaeval").__version__ + "+")


def test_a_comment_in_plots_reruns_the_drawing_not_the_computations(run, tmp_path):
    """A step's code is its module and what that imports (issue 20): a
    comment added to present/plots.py plans the jobs that draw (scoring, the
    experiments' figures, the recommendation, the properties grid) and no
    computation: no stability split, no bootstrap, no Tukey trials, no
    ingestion (the label-noise step, seconds, shares the figures' and the
    recommendation's job).  A comment in methods/sensitivity.py plans that job and
    the front page, not the bootstrap or the trials.  (The sharded layout:
    the next test.)"""
    work, data = run
    drawn = {"score", "score_tc", "score_si", "score_groups", "recommendation", "recommendation_no_merging",
             "properties", "overview", "provenance", "cross_dataset"}
    _check_plots_comment(work, data, ROOT / ".test" / "config.yaml", tmp_path, drawn,
                         {"recommendation", "recommendation_no_merging", "overview", "provenance", "cross_dataset"})


def test_a_comment_in_plots_reruns_no_stability_shard(sharded, tmp_path):
    """The same with the stability splits and the criteria resamples in
    shards (jobs of their own): a comment in plots.py plans no shard, no
    experiments job; one in methods/sensitivity.py reruns the criteria
    shards too (the noise and priors criteria run its code)."""
    work, data, conf = sharded
    _check_plots_comment(work, data, conf, tmp_path, {"score", "recommendation", "properties", "overview",
                                                      "provenance", "cross_dataset"},
                         {"recommendation", "criteria_shard", "overview", "provenance", "cross_dataset"})


def _check_plots_comment(work, data, conf, tmp_path, drawn_rules, noise_rules):

    shutil.copytree(ROOT / "src" / "metaeval", tmp_path / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}

    def planned():
        cmd = SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(conf), "--config",
                           f"data_dir={data}", "--directory", str(work), "--cores", "2", "-n"]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env).stdout
        return {m for m in re.findall(r"^(?:local)?rule (\w+):", out, flags=re.M)} - {"all"}

    assert planned() == set()
    with open(tmp_path / "metaeval" / "present" / "plots.py", "a") as fh:
        fh.write("\n# a comment\n")
    drawn = planned()
    # (provenance.json records the whole package's fingerprint: rewritten, a cheap record)
    assert drawn == drawn_rules, drawn
    assert not drawn & {"stability_shard", "criteria_shard", "experiments", "ingest", "kernels"}
    shutil.copy(ROOT / "src" / "metaeval" / "present" / "plots.py", tmp_path / "metaeval" / "present" / "plots.py")
    with open(tmp_path / "metaeval" / "methods" / "sensitivity.py", "a") as fh:
        fh.write("\n# a comment\n")
    assert planned() == noise_rules


@pytest.fixture(scope="module")
def sharded(run, tmp_path_factory):
    """The tiny dataset with --cores 8, its stability splits in 4 shards, its
    criteria resamples in 3, and chunks of 7 (the workflow's configfile,
    data and work folder)."""
    _, data = run
    base = tmp_path_factory.mktemp("sharded")
    cfg = _tiny_only(base, shards=4, chunk_size=7, criteria_shards=3)
    other = base / "other"
    other.mkdir()
    res = subprocess.run(SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(cfg), "--config",
                                      f"data_dir={data}", "--directory", str(other), "--cores", "8"],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    assert len(list((other / "results/tiny/stability").glob("shard*of4.npz"))) == 4
    assert len(list((other / "results/tiny/criteria").glob("shard*of3.npz"))) == 3
    return other, data, cfg


def test_results_are_byte_identical_across_cores_chunks_and_shards(run, sharded):
    """Every CSV of the tiny dataset: --cores 2, one shard and the .test
    chunks (the module's run) against --cores 8, 4 stability shards, 3
    criteria shards and chunks of 7 (each job a process of its own: the
    cluster path's test)."""
    work, _ = run
    other = sharded[0]
    theirs = {k: v for k, v in _csvs(work).items() if k.startswith("tiny/") or "/" not in k}
    ours = {k: v for k, v in _csvs(other).items() if not k.startswith("cross_dataset/")}  # (that run: tiny alone)
    # the tiny dataset's and the formal properties' (same settings)
    assert sorted(ours) == sorted(theirs) and len(ours) >= 14 and "properties.csv" in ours
    for k in ours:
        assert ours[k] == theirs[k], k


@pytest.fixture(scope="module")
def interruptible(run, tmp_path_factory):
    """The tiny dataset with long stability shards, and its uninterrupted run
    (the reference both interruptions are compared with)."""
    _, data = run
    base = tmp_path_factory.mktemp("interrupt")
    cfg = _tiny_only(base, n_splits=40000, chunk_size=2000, shards=2)
    cmd = SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(cfg), "--config", f"data_dir={data}",
                       "--cores", "2"]
    clean = base / "clean"
    clean.mkdir()
    res = subprocess.run(cmd + ["--directory", str(clean)], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    return cmd, clean


@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_an_interrupted_run_resumes_to_byte_identical_results(interruptible, tmp_path, how):
    """Kill snakemake while the stability shard runs; the README's command
    (after --unlock when it was killed outright) finishes the run, and the
    results are byte for byte those of an uninterrupted run."""
    import base64
    import signal
    import time

    base, clean = interruptible
    broken = tmp_path / "broken"
    broken.mkdir()
    # Ctrl-C in a terminal reaches a Snakemake whose SIGINT is at its default; a test runner started in the
    # background (`pytest &` in a script) passes SIGINT on as ignored, and Snakemake installs no handler
    proc = subprocess.Popen(base + ["--directory", str(broken)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # a running job has a marker in .snakemake/incomplete/ named by its output (base64): wait until a
    # stability shard runs (its log is written only when it ends, and a shard may end in a second)
    def decoded(name):
        try:
            return base64.urlsafe_b64decode(name.replace("+", "-").replace("/", "_") + "==").decode()
        except (ValueError, UnicodeDecodeError):
            return ""

    def shard_running():
        return any("stability/shard" in decoded(m.name) for m in (broken / ".snakemake/incomplete").glob("*"))

    deadline = time.time() + 300
    while not shard_running():
        assert time.time() < deadline and proc.poll() is None, "the shard never started"
        time.sleep(0.05)
    time.sleep(0.2)  # into the shard (20,000 splits: a few seconds)
    os.killpg(proc.pid, signal.SIGINT if how == "SIGINT" else signal.SIGKILL)
    proc.wait(timeout=120)
    # interrupted in the middle: a shard did not finish, and the run's last job (the front page) did not run
    assert len(list((broken / "results/tiny/stability").glob("shard*.npz"))) < 2
    assert not (broken / "results/report/overview.html").exists()
    if how == "SIGKILL":
        subprocess.run(base + ["--directory", str(broken), "--unlock"], capture_output=True, timeout=300)
    res = subprocess.run(base + ["--directory", str(broken)], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    assert _csvs(broken) == _csvs(clean)
    assert not [p for p in (broken / "results").rglob(".*") if p.is_file()]  # no temporary left behind


def test_an_edited_article_text_reruns_its_datasets_and_only_them(run):
    """The articles folder is one input (its files are not listed one by
    one), and the SHA-256 of its texts a param of the ingestion: an edit in
    place (the folder's time does not change) reruns the span datasets that
    read the folder, and nothing else."""

    work, data = run
    text = data / "spans/articles/article101.txt"
    folder_times = (data / "spans/articles").stat()
    old, times = text.read_text(), text.stat()
    try:
        text.write_text(old.replace("a", "b", 1))
        os.utime(text, ns=(times.st_atime_ns, times.st_mtime_ns))  # not newer: the param must do it
        os.utime(data / "spans/articles", ns=(folder_times.st_atime_ns, folder_times.st_mtime_ns))
        planned = _planned(work, data, ROOT / ".test" / "config.yaml")
        assert {d for r, d in planned if r == "ingest"} == {"spans_tc", "spans_si", "spans_si_synthetic"}
    finally:
        text.write_text(old)
        os.utime(text, ns=(times.st_atime_ns, times.st_mtime_ns))
        os.utime(data / "spans/articles", ns=(folder_times.st_atime_ns, folder_times.st_mtime_ns))
    assert not _planned(work, data, ROOT / ".test" / "config.yaml")


def test_a_dataset_added_to_the_config_joins_the_cross_dataset_tables(run, tmp_path):
    """A dataset block added to the config (here a copy of tiny under another
    name) runs its chain and appears in results/cross_dataset/, with its own
    recommendation's rows; no code."""
    work, data = run
    work = _copy_of(work, tmp_path)
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"]["tiny_again"] = dict(cfg["datasets"]["tiny"])
    (tmp_path / "more.yaml").write_text(yaml.safe_dump(cfg))
    _run(work, data, "results/cross_dataset/cross_dataset.md", configfile=tmp_path / "more.yaml")
    long = pd.read_csv(work / "results/cross_dataset/criteria.csv")
    assert "tiny_again" in set(long["dataset"])
    assert "tiny_again" in (work / "results/cross_dataset/cross_dataset.md").read_text()
    mine = long[long["dataset"] == "tiny_again"].drop(columns=["dataset", "kind", "test_set"]).reset_index(drop=True)
    own = pd.read_csv(work / "results/tiny_again/recommendation.csv")
    own = own[own["scope"] == own["scope"].iloc[0]].reset_index(drop=True)  # (the headline scope's rows)
    pd.testing.assert_frame_equal(mine, own, check_dtype=False)
    # the copy shares tiny's gold file: one test set, counted once
    assert long.loc[long["dataset"] == "tiny_again", "test_set"].iloc[0] == \
        long.loc[long["dataset"] == "tiny", "test_set"].iloc[0]
