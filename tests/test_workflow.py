"""The Snakemake workflow end to end on the small .test config."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import numpy as np
import yaml

from metaeval import metrics as M

from .conftest import FIXTURES, ROOT

pytestmark = pytest.mark.workflow

SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def _run(workdir: Path, data: Path, *extra, check=True, configfile=None):
    cmd = SNAKEMAKE + ["-s", str(ROOT / "Snakefile"), "--configfile",
                       str(configfile or ROOT / ".test" / "config.yaml"),
                       "--config", f"data_dir={data}", "--directory", str(workdir), "--cores", "2", *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if check and res.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{res.stdout}\n{res.stderr}")
    return res


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    base = tmp_path_factory.mktemp("wf")
    data = base / "data"
    shutil.copytree(FIXTURES, data)
    work = base / "work"
    work.mkdir()
    _run(work, data)
    return work, data


EXPECTED = ["scores.csv", "confusion.csv", "dataset.json", "tables/scores.md", "tables/scores.tex",
            "figures/confusion.png", "figures/confusion.pdf"]


def test_all_outputs(run):
    work, _ = run
    for ds in ("tiny", "tiny_tsv"):
        for f in EXPECTED:
            p = work / "results" / ds / f
            assert p.is_file() and p.stat().st_size > 0, p
    assert (work / "results/tiny_tsv/scores_by_group.csv").is_file()
    assert not (work / "results/tiny/scores_by_group.csv").exists()
    for ds in ("tiny", "tiny_tsv"):
        for f in EXPERIMENTS:
            p = work / "results" / ds / f
            assert p.is_file() and p.stat().st_size > 0, p
    assert (work / "results/tiny/tables/weights.md").exists() is False  # one weight set: nothing to compare
    for f in ("properties.csv", "tables/properties.md", "tables/properties.tex", "tables/properties.html",
              "figures/properties.png", "figures/properties.pdf"):
        assert (work / "results" / f).stat().st_size > 0, f
    for ds in ("tiny", "tiny_tsv", "spans_tc"):  # label noise, priors, recommendation: datasets with classes
        for f in ("noise.csv", "priors.csv", "tables/sensitivity.md", "tables/sensitivity.html", "figures/noise.png",
                  "figures/noise.pdf", "figures/priors.png", "figures/priors.pdf", "recommendation.csv",
                  "recommendation.md", "tables/recommendation.html"):
            assert (work / "results" / ds / f).stat().st_size > 0, (ds, f)
    assert not (work / "results/spans_si_synthetic/noise.csv").exists()  # span identification: no classes
    assert (work / "results/spans_si_synthetic/recommendation.md").exists()


def test_label_noise_reuses_the_significance_experiment_s_trials(run):
    """The clean discriminative power in noise.csv is the significance
    experiment's (the same Tukey trials, handed over, not redrawn)."""
    from metaeval.io import read_result_csv

    work, _ = run
    for ds in ("tiny", "tiny_tsv"):
        noise = read_result_csv(work / f"results/{ds}/noise.csv")
        power = read_result_csv(work / f"results/{ds}/discriminative_power.csv").set_index("metric")
        clean = noise.groupby("metric", sort=False)["power_clean"].first()
        assert np.allclose(clean.to_numpy(), power.loc[clean.index, "discriminative_power"].to_numpy())
        top = noise[noise["rate"] == noise["rate"].max()]
        assert top["power_noisy"].notna().all() and noise.loc[noise["rate"] < noise["rate"].max(),
                                                                "power_noisy"].isna().all()
        assert noise["power_repeats"].eq(1).all()
        assert "is measured on 1 noisy gold at the highest rate" in (work / f"results/{ds}/tables/sensitivity.md"
                                                                       ).read_text()


def test_properties_in_the_workflow_are_the_library_s(run):
    """results/properties.csv is metaeval.properties.check_all with the
    config's settings (the .test config's small domain)."""
    import yaml as _yaml

    from metaeval.io import read_result_csv
    from metaeval.properties import check_all, settings_from

    work, _ = run
    block = _yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())["properties"]
    got = read_result_csv(work / "results/properties.csv").fillna("")
    want = check_all(settings_from(block))
    assert got[["metric", "property", "result", "counterexample"]].astype(str).values.tolist() == \
        want[["metric", "property", "result", "counterexample"]].astype(str).values.tolist()
    md = (work / "results/tables/properties.md").read_text()
    assert "all 783 with at most 5 items and" in md and "(60 mostly right, of up to 200 items" in md


EXPERIMENTS = ["similarity.csv", "similarity_groups.csv", "figures/similarity.png", "figures/similarity.pdf",
               "stability.csv", "stability_splits.csv", "figures/stability.png", "figures/stability.pdf",
               "merging.csv", "merging_balanced.csv", "figures/merging.png", "figures/merging.pdf",
               "summary.csv", "tables/summary.md", "tables/significance.md", "tables/significance.html"]


def test_experiment_outputs_layout(run):
    work, _ = run
    sim = pd.read_csv(work / "results/tiny/similarity.csv", index_col="metric")
    assert list(sim.index) == list(sim.columns) and (abs(sim.to_numpy().diagonal() - 1) < 1e-12).all()
    stab = pd.read_csv(work / "results/tiny/stability.csv")
    assert list(stab.columns[:5]) == ["metric", "mean_tau", "sd_tau", "q025", "q975"]
    assert {"tau_top", "tau_middle", "tau_bottom"} <= set(stab.columns) and (stab["n_splits"] == 200).all()
    merge = pd.read_csv(work / "results/tiny/merging.csv")
    assert set(merge["pair"]) == {"neg+neu", "neg+pos", "neu+pos", "mean"}
    assert "mean" in set(pd.read_csv(work / "results/tiny/merging_balanced.csv")["pair"])
    assert "| metric | similarity group |" in (work / "results/tiny/tables/summary.md").read_text()


def test_scores_csv_layout(run):
    work, _ = run
    df = pd.read_csv(work / "results/tiny/scores.csv", dtype={"system": str})
    assert list(df.columns[:2]) == ["system", "kind"]
    assert list(df.columns[2:]) == [m for m in M.METRIC_IDS if m not in ("f_avg", "fnc_score")]
    assert df["system"].tolist() == ["sys_a", "sys_b", "sys_c", "sys_d", "majority", "all_neg", "all_neu",
                                     "all_pos", "random"]
    assert df["kind"].tolist() == ["system"] * 4 + ["baseline"] * 5
    conf = pd.read_csv(work / "results/tiny/confusion.csv")
    assert list(conf.columns) == ["system", "predicted", "gold", "count"]
    assert (conf.groupby("system")["count"].sum() == 40).all()
    tsv = pd.read_csv(work / "results/tiny_tsv/scores.csv")
    assert "f_avg" in tsv.columns and "wf1" not in tsv.columns


def test_tables_have_values_and_ranks(run):
    work, _ = run
    md = (work / "results/tiny/tables/scores.md").read_text()
    assert "| sys_a |" in md and "(1)" in md and "*majority* (baseline)" in md
    tex = (work / "results/tiny/tables/scores.tex").read_text()
    assert r"\begin{tabular}" in tex and r"sys\_a" in tex


def _copy_of(work: Path, tmp_path: Path) -> Path:
    """The module's run copied with Snakemake's records (times kept): a test
    that changes the data reruns in the copy, and the module's run is left as
    it was (its data files are restored with their times afterwards)."""
    other = tmp_path / "copy"
    shutil.copytree(work, other, symlinks=True)
    return other


def test_a_failed_job_takes_the_front_page_and_recommendations_with_it(run, tmp_path):
    """A job that fails (here on a damaged data file, not a bad input) loses
    its outputs; the front page and the recommendations made from them must
    go too, not stay behind looking valid."""
    work, data = run
    work = _copy_of(work, tmp_path)
    npz = work / "results/tiny/data.npz"
    npz.write_bytes(b"not a zip file")  # newer than everything made from it: those jobs rerun and fail
    res = _run(work, data, check=False)
    assert res.returncode != 0
    assert not (work / "results/tiny/summary.csv").exists()
    assert not (work / "results/report/overview.html").exists()
    for f in ("recommendation.md", "recommendation.json", "recommendation.csv", "tables/summary.md",
              "figures/recommendation.png"):  # the recommendation made from the damaged dataset goes
        assert not (work / f"results/tiny/{f}").exists(), f
    assert (work / "results/tiny_tsv/summary.csv").exists()  # the other datasets' own results stay
    assert (work / "results/tiny_tsv/recommendation.md").exists()  # and so does their recommendation


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


def test_bad_input_stops_with_clear_message_and_no_stale_results(run, tmp_path):
    work, data = run
    work = _copy_of(work, tmp_path)
    bad = data / "tiny/predictions/sys_b.csv"
    good, times = bad.read_text(), bad.stat()
    lines = good.splitlines()
    lines[3] = lines[3].split(",")[0] + ",maybe"
    bad.write_text("\n".join(lines) + "\n")
    try:
        res = _run(work, data, check=False)
        assert res.returncode != 0
        out = res.stdout + res.stderr
        assert "sys_b.csv:4" in out and "predicted label 'maybe'" in out
        assert not (work / "results/tiny").exists()  # no stale table left looking valid
        assert (work / "results/tiny_tsv/scores.csv").exists()  # other datasets untouched
    finally:
        bad.write_text(good)
        os.utime(bad, ns=(times.st_atime_ns, times.st_mtime_ns))
    _run(work, data, "results/tiny/scores.csv")  # the mended file is read again
    assert (work / "results/tiny/scores.csv").exists()
    assert "Nothing to be done" in _run(run[0], data, "-n").stdout


def test_missing_data_dir_is_a_clear_error(tmp_path):
    res = _run(tmp_path, tmp_path / "nowhere", "-n", check=False)
    assert res.returncode != 0
    assert "data_dir" in res.stdout + res.stderr and "is not a folder" in res.stdout + res.stderr


def test_lint_is_clean():
    # the small config and its fixtures: linting needs no shared data
    res = subprocess.run(SNAKEMAKE + ["--lint", "-s", str(ROOT / "Snakefile"), "--directory", str(ROOT),
                                      "--configfile", str(ROOT / ".test" / "config.yaml"),
                                      "--config", f"data_dir={FIXTURES}"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Lints for" not in res.stdout + res.stderr


@pytest.mark.realdata
def test_full_pipeline_on_real_data_writes_the_reproduction_report(tmp_path, data_dir):
    """`snakemake --cores 8 results/reproduction.md` from nothing (every file
    the report reads is declared), then `snakemake --cores 8` for the rest."""
    # the project's config, with fewer resamples (the assertions below do not depend on their number)
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["experiments"].update(n_splits=200, balanced_repeats=10, bootstrap_replicates=200, tukey_trials=200,
                              noise_repeats=20)
    cfg["properties"].update(yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())["properties"])
    cfg["reproduction"]["published"] = str(ROOT / cfg["reproduction"]["published"])
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    cmd = SNAKEMAKE + ["-s", str(ROOT / "Snakefile"), "--configfile", str(tmp_path / "config.yaml"),
                       "--config", f"data_dir={data_dir}", "--directory", str(tmp_path), "--cores", "8"]
    res = subprocess.run(cmd + ["results/reproduction.md"], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    cells = pd.read_csv(tmp_path / "results/reproduction.csv")
    scarton = cells[cells.table.isin(["scarton2020_table2", "scarton2020_table3"])
                    & (cells.status != "not reproducible")]
    assert len(scarton) == 42 and (scarton.status == "match").all()
    md = (tmp_path / "results/reproduction.md").read_text()
    assert "## Summary" in md and "## Amemiya & Sakai's conclusions" in md
    # the groups are compared with the paper's stated groups and with the
    # clusters of the paper's own Table 2 (Rand 0.64 between those two)
    assert md.count("which agrees with the stated groups on 64% of the 28 pairs") == 2
    fnc1 = md.split("**fnc1**")[1]
    assert "0.92 against the clusters of the paper's Table 2" in fnc1
    assert "0.75 against the clusters of the paper's Table 2" in md.split("**fnc1_paper**")[1].split("**fnc1**")[0]
    n_files = len(list((data_dir / "fnc1" / "predictions").glob("*.csv")))
    assert f"**fnc1** ({n_files + 2} ranked systems" in md
    for ds in ("fnc1", "fnc1_paper", "fnc1_4class", "rumoureval2017", "rumoureval2019", "semeval2016t6"):
        assert (tmp_path / "results" / ds / "tables/summary.md").exists(), ds
    assert (tmp_path / "results/rumoureval2019/tables/weights.md").exists()
    # span datasets: scores, tables and figures; experiments where enough systems are ranked
    for ds in ("semeval2020t11_tc", "semeval2020t11_tc_v1", "semeval2020t11_si", "semeval2020t11_si_synthetic"):
        for f in ("scores.csv", "tables/scores.md", "tables/scores.tex", "figures/span_scores.png"):
            assert (tmp_path / "results" / ds / f).exists(), (ds, f)
    for ds in ("semeval2020t11_tc", "semeval2020t11_si_synthetic"):
        for f in ("similarity.csv", "stability.csv", "tables/summary.md", "figures/stability.png"):
            assert (tmp_path / "results" / ds / f).exists(), (ds, f)
    assert not (tmp_path / "results/semeval2020t11_si/stability.csv").exists()  # 3 files: too few to rank


# -- a config edit reruns exactly the jobs that read the setting ------------------
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
    ("datasets.tiny.ordinal", False, _jobs(METRIC_RULES, "tiny")),
    ("datasets.tiny.weights", {"even": {"neg": 0.3, "neu": 0.4, "pos": 0.3}}, _jobs(METRIC_RULES, "tiny")),
    ("datasets.tiny.extra_labels", {"other": "neg"}, _jobs(EVERYTHING, "tiny")),
    ("datasets.tiny.extra_label_policy", "drop_item", _jobs(EVERYTHING, "tiny")),
    ("datasets.tiny.label_map", {"negative": "neg"}, _jobs(EVERYTHING, "tiny")),
    ("datasets.tiny.description", "another description", set()),
    ("datasets.tiny_tsv.f_avg_classes", ["FAVOR"], _jobs(METRIC_RULES + ("score_groups",), "tiny_tsv")),
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
    # only the paired bootstrap test reads the correction (the Tukey test's p-values are family-wise)
    ("experiments.significance_correction", "bh", _jobs(("recommendation",), *WITH_EXPS)),
    ("experiments.bootstrap_seed", 5, _all(EXPS)),
    ("datasets.spans_si.merge_overlapping_predictions", False, _all(SPAN_SI, ("spans_si",))),
    ("datasets.spans_si_synthetic.synthetic.seed", 4, _all(SPAN_SYN, ("spans_si_synthetic",))),
    ("datasets.spans_tc.span_metrics", ["span_f1", "char_f1"], _all(SPAN_TC[1:], ("spans_tc",))),
    # label noise and class priors (datasets with classes): their own job, its figures, the recommendation;
    # never the bootstrap or the significance experiment's trials (issue 20)
    ("experiments.noise_rates", [0.05], _jobs(("recommendation",), *CLASSES)),
    ("experiments.prior_gammas", [0, 4], _jobs(("recommendation",), *CLASSES)),
    ("datasets.tiny.experiments.noise_mode", "uniform", _jobs(("recommendation",), "tiny")),
    ("experiments.noise_repeats", 10, _jobs(("recommendation",), *CLASSES)),
    # the formal properties do not depend on any dataset: one job, the
    # recommendations (the front page's job) that count them, and every
    # provenance.json (which records their settings)
    ("properties.n_max", 4, {("properties", None)} | _jobs(("recommendation",), "tiny", "tiny_tsv", "spans_tc")),
    ("properties.weights", [0.4, 0.4, 0.2],
     {("properties", None)} | _jobs(("recommendation",), "tiny", "tiny_tsv", "spans_tc")),
    # the recommendation's own settings (and the correction of its z-tests, read even with the Tukey test)
    ("experiments.criteria_replicates", 30, _jobs(("recommendation",), *WITH_EXPS)),
    ("experiments.tier_alpha", 0.1, _jobs(("recommendation",), *WITH_EXPS)),
    ("experiments.min_difference", {"stability": 0.01}, _jobs(("recommendation",), *WITH_EXPS)),
    ("datasets.tiny.experiments.criteria", ["stability", "power"], _jobs(("recommendation",), "tiny")),
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
    # the recommendation reads the dataset and its gameability (scoring), beside the experiments
    expected = expected | {("recommendation", d) for r, d in expected if d in WITH_EXPS and r in (
        "ingest", "score", "score_tc", "score_si")}
    # the report's front page (with the summary pages) reads every dataset.json, summary.csv and recommendation.json
    front = {("overview", None)} if any(r in ("ingest", "recommendation", "experiments", "experiments_no_merging")
                                        for r, _ in expected) else set()
    assert _planned(work, data, tmp_path / "edited.yaml") == expected | front | {("provenance", d) for d in touched}




def test_job_scripts_read_no_config():
    """Settings reach a job only as rule params (which Snakemake records)."""
    for script in (ROOT / "workflow" / "scripts").glob("*.py"):
        text = script.read_text()
        assert "smk.config" not in text and "snakemake.config" not in text, script.name


# -- file names ------------------------------------------------------------------
ODD_NAMES = ["a|b", "*y*", "$\\x$", "NA"]


@pytest.fixture(scope="module")
def odd(tmp_path_factory):
    """The tiny dataset with its four systems renamed to names that mean
    something to Markdown, LaTeX, mathtext and pandas."""
    base = tmp_path_factory.mktemp("odd")
    data = base / "data"
    shutil.copytree(FIXTURES / "tiny", data / "tiny")
    for old, new in zip(sorted((data / "tiny/predictions").glob("*.csv")), ODD_NAMES):
        old.rename(old.with_name(new + ".csv"))
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {"tiny": cfg["datasets"]["tiny"]}
    (base / "odd.yaml").write_text(yaml.safe_dump(cfg))
    work = base / "work"
    work.mkdir()
    _run(work, data, configfile=base / "odd.yaml")
    return work, data, base / "odd.yaml"


def test_odd_file_names_work_as_system_names_everywhere(odd):
    from markdown_it import MarkdownIt

    work, _, _ = odd
    d = work / "results/tiny"
    from metaeval.io import read_result_csv

    assert read_result_csv(d / "scores.csv")["system"].tolist()[:4] == sorted(ODD_NAMES)
    html = MarkdownIt("commonmark").enable("table").render((d / "tables/scores.md").read_text())
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    ncols = len(read_result_csv(d / "scores.csv").columns) - 1
    assert all(len(re.findall(r"<t[dh]", r)) == ncols for r in rows)
    body = html.split("<tbody>")[1]
    assert "<em>*y*</em>" not in body and "<em>y</em>" not in body and "*y*" in body
    assert r"a\textbar{}b" in (d / "tables/scores.tex").read_text()
    for f in ("figures/confusion.png", "figures/confusion.pdf", "tables/summary.md", "figures/similarity.png"):
        assert (d / f).stat().st_size > 0, f


@pytest.mark.parametrize("name", ["sys_{v2}", "sys_<v2>", "bad\nname"])
def test_file_names_snakemake_cannot_take_stop_the_run_up_front(odd, name):
    work, data, cfg = odd
    p = data / "tiny/predictions" / f"{name}.csv"
    shutil.copy(data / "tiny/predictions/NA.csv", p)
    try:
        res = _run(work, data, "-n", check=False, configfile=cfg)
        out = res.stdout + res.stderr
        assert res.returncode != 0
        assert repr(str(p)) in out and "Rename it" in out, out
    finally:
        p.unlink()


# -- two classes -------------------------------------------------------------------
def test_two_class_dataset_skips_merging_and_says_why(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / "tiny", data / "tiny")
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {"binary": {"gold": "tiny/gold.csv", "predictions": ["tiny/predictions/*.csv"],
                                  "labels": ["neg", "pos"], "label_map": {"neu": "pos"},
                                  "extra_labels": {"other": "pos"}, "ordinal": True}}
    (tmp_path / "bin.yaml").write_text(yaml.safe_dump(cfg))
    work = tmp_path / "work"
    work.mkdir()
    _run(work, data, configfile=tmp_path / "bin.yaml")
    d = work / "results/binary"
    assert (d / "tables/summary.md").exists() and not (d / "merging.csv").exists()
    md = (d / "tables/summary.md").read_text()
    assert "class discrimination" not in md.split("\n\n")[1] and "merging them leaves a single class" in md
    assert "nan" not in md.lower()
    assert "merging_tau" not in pd.read_csv(d / "summary.csv").columns


# -- the reproduction report ------------------------------------------------------
@pytest.fixture
def with_report(tmp_path):
    """The .test config with a one-cell published table on the tiny dataset."""
    pub = tmp_path / "published"
    pub.mkdir()
    (pub / "toy.csv").write_text("# A toy published table for the tests: majority accuracy on tiny.\n"
                                 "system,Acc\nmajority,0.450\n")
    (pub / "tables.yaml").write_text(yaml.safe_dump({
        "systems": {"toy": {"majority": "majority"}}, "metrics": {"toy": {"Acc": "accuracy"}}, "reasons": {},
        "tables": [{"id": "toy", "title": "Toy table", "file": "toy.csv", "paper": "toy", "kind": "scores",
                    "dataset": "tiny", "decimals": 3}]}))
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {"tiny": cfg["datasets"]["tiny"]}
    cfg["reproduction"] = {"enabled": True, "published": str(pub / "tables.yaml")}
    (tmp_path / "repro.yaml").write_text(yaml.safe_dump(cfg))
    data = tmp_path / "data"
    shutil.copytree(FIXTURES, data)
    work = tmp_path / "work"
    work.mkdir()
    return work, data, tmp_path / "repro.yaml"


def test_report_target_from_nothing_and_no_stale_report_after_bad_input(with_report):
    work, data, cfg = with_report
    _run(work, data, "results/reproduction.md", configfile=cfg)
    cells = pd.read_csv(work / "results/reproduction.csv")
    assert cells["status"].tolist() == ["match"]
    _run(work, data, configfile=cfg)
    bad = data / "tiny/predictions/sys_b.csv"
    bad.write_text("item_id,label\n")
    res = _run(work, data, check=False, configfile=cfg)
    assert res.returncode != 0
    assert not (work / "results/tiny").exists()
    assert not (work / "results/reproduction.md").exists() and not (work / "results/reproduction.csv").exists()


def test_result_files_are_not_private(run):
    work, _ = run
    mask = os.umask(0)
    os.umask(mask)
    for f in ("results/tiny/scores.csv", "results/tiny/figures/confusion.png", "results/tiny/dataset.json"):
        assert (work / f).stat().st_mode & 0o777 == 0o666 & ~mask, f


# -- span datasets -------------------------------------------------------------------
def test_span_datasets_have_the_same_outputs_as_every_dataset(run):
    from metaeval.spans import SPAN_METRIC_IDS

    work, _ = run
    r = work / "results"
    tc = pd.read_csv(r / "spans_tc/scores.csv")
    assert list(tc.columns[:3]) == ["system", "kind", "accuracy"] and list(tc.columns[-8:]) == list(SPAN_METRIC_IDS)
    assert tc["system"].tolist()[:4] == ["team_a", "team_b", "team_c", "team_d"]
    si = pd.read_csv(r / "spans_si/scores.csv")
    assert list(si.columns) == ["system", "kind", *SPAN_METRIC_IDS] and len(si) == 2 + 4
    assert si["kind"].tolist() == ["system"] * 2 + ["baseline"] * 4  # no_spans, whole_text, every_token, random_spans
    # one SI file has overlapping spans, merged (each pair into [start, end - 1) of a gold span)
    info = __import__("json").loads((r / "spans_si/dataset.json").read_text())
    assert info["overlapping_spans_merged"]["overlapping"] == 12
    # article104 has no gold span and no prediction: not scored, and said
    assert info["warnings"] == [f"1 article file(s) in {work.parent / 'data/spans/articles'} are mentioned neither by "
                                f"the gold nor by any prediction file and are not scored ('article104.txt')"]
    assert info["documents"]["n"] == 3 and info["n_articles"] == 3
    assert si.set_index("system").loc["overlapping", "span_recall"] < 1
    for d, figs in (("spans_tc", ["confusion", "span_scores", "similarity", "stability", "merging"]),
                    ("spans_si", ["span_scores"]), ("spans_si_synthetic", ["span_scores", "similarity", "stability"])):
        for f in figs:
            assert (r / d / "figures" / f"{f}.png").stat().st_size > 0, (d, f)
    assert not (r / "spans_si/figures/confusion.png").exists() and not (r / "spans_si/similarity.csv").exists()
    assert not (r / "spans_si_synthetic/merging.csv").exists()
    syn = pd.read_csv(r / "spans_si_synthetic/scores.csv")
    assert set(syn["kind"]) == {"synthetic", "baseline"}  # generated systems are marked as such, and ranked
    stab = pd.read_csv(r / "spans_si_synthetic/stability.csv")
    assert set(stab["metric"]) == set(SPAN_METRIC_IDS) and (stab["n_systems"] == 8).all()
    md = (r / "spans_si_synthetic/tables/summary.md").read_text()
    assert "synthetic systems" in md and "span identification has no classes to merge" in md
    summ = pd.read_csv(r / "spans_tc/summary.csv").set_index("metric")
    assert summ.loc["span_f1", "discrimination_rank"] != summ.loc["span_f1", "discrimination_rank"]  # NaN: not merged
    assert summ.loc["accuracy", "discrimination_rank"] >= 1


def test_a_malformed_span_file_stops_its_dataset_with_file_and_line(run, tmp_path):
    work, data = run
    work = _copy_of(work, tmp_path)
    bad = data / "spans/tc/predictions/team_b.txt"
    good, times = bad.read_text(), bad.stat()
    lines = good.splitlines()
    a, lab, s_, e = lines[2].split("\t")
    lines[2] = "\t".join([a, lab, e, s_])  # start after end
    lines[4] = lines[4].replace("Doubt", "Doubting").replace("Loaded_Language", "Doubting")
    bad.write_text("\n".join(lines) + "\n")
    try:
        res = _run(work, data, check=False)
        out = res.stdout + res.stderr
        assert res.returncode != 0
        assert f"{bad}:3: start {e} is not before end {s_}" in out
        assert f"{bad}:5: unknown technique 'Doubting'" in out
        assert not (work / "results/spans_tc").exists() and (work / "results/spans_si/scores.csv").exists()
        # no stale log left looking valid either: only the failed ingestion's, which says why
        logs = {f.name for f in (work / "results/logs/spans_tc").iterdir()}
        assert logs == {"ingest.log"} and (work / "results/logs/spans_si/score.log").exists()
        assert (work / "results/logs/spans_tc/ingest.log").read_text().startswith("ERROR in rule ingest")
    finally:
        bad.write_text(good)
        os.utime(bad, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert "Nothing to be done" in _run(run[0], data, "-n").stdout


def test_a_change_of_the_library_reruns_the_steps_by_itself(run, tmp_path):
    """The library's version and source hash are a param of every rule: a
    copy of the package (found first on PYTHONPATH) plans nothing while it
    is the same, and every job once a module every step imports changes
    (config.py)."""
    import os

    from metaeval.workflow import code_fingerprint

    work, data = run
    shutil.copytree(ROOT / "src" / "metaeval", tmp_path / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}

    def dry():
        cmd = SNAKEMAKE + ["-s", str(ROOT / "Snakefile"), "--configfile", str(ROOT / ".test" / "config.yaml"),
                           "--config", f"data_dir={data}", "--directory", str(work), "--cores", "2", "-n"]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env).stdout

    assert "Nothing to be done" in dry()
    with open(tmp_path / "metaeval" / "config.py", "a") as fh:
        fh.write("\n# a change\n")
    planned = dry()
    assert "Params have changed since last execution" in planned
    assert re.search(r"^total\s+(\d+)$", planned, flags=re.M).group(1) == \
        re.search(r"^total\s+(\d+)$", _run(work, data, "-n", "--forceall").stdout, flags=re.M).group(1)
    assert code_fingerprint().startswith(__import__("metaeval").__version__ + "+")


@pytest.mark.parametrize("shards", [1, 2])
def test_a_comment_in_plots_reruns_the_drawing_not_the_computations(run, tmp_path, shards):
    """A step's code is its module and what that imports (issue 20): a
    comment added to plots.py plans the jobs that draw (scoring, the
    experiments' figures, the recommendation, the properties grid) and no
    computation: no stability shard or split, no bootstrap, no Tukey trials,
    no ingestion (the label-noise step, seconds, shares the figures' and
    the recommendation's job).  A comment in sensitivity.py plans that job
    and the front page, not the bootstrap or the trials."""
    work, data = run
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["experiments"]["shards"] = shards
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(cfg))
    if shards > 1:  # the sharded layout, run once with the package as installed
        _run(work, data, configfile=conf)
    try:
        _check_plots_comment(work, data, conf, tmp_path)
    finally:
        if shards > 1:
            _run(work, data)  # the run the other tests read, as it was


def _check_plots_comment(work, data, conf, tmp_path):
    import os

    shutil.copytree(ROOT / "src" / "metaeval", tmp_path / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}

    def planned():
        cmd = SNAKEMAKE + ["-s", str(ROOT / "Snakefile"), "--configfile", str(conf), "--config",
                           f"data_dir={data}", "--directory", str(work), "--cores", "2", "-n"]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env).stdout
        return {m for m in re.findall(r"^(?:local)?rule (\w+):", out, flags=re.M)} - {"all"}

    assert planned() == set()
    with open(tmp_path / "metaeval" / "plots.py", "a") as fh:
        fh.write("\n# a comment\n")
    drawn = planned()
    # (provenance.json records the whole package's fingerprint: rewritten, a cheap record)
    assert drawn == {"score", "score_tc", "score_si", "score_groups", "recommendation", "recommendation_no_merging",
                     "properties", "overview", "provenance"}, drawn
    shutil.copy(ROOT / "src" / "metaeval" / "plots.py", tmp_path / "metaeval" / "plots.py")
    with open(tmp_path / "metaeval" / "sensitivity.py", "a") as fh:
        fh.write("\n# a comment\n")
    assert planned() == {"recommendation", "recommendation_no_merging", "overview", "provenance"}


def test_the_cluster_path_gives_byte_identical_results(run, tmp_path):
    """The sharded stability experiment through snakemake-executor-plugin-
    cluster-generic and a stand-in submit script (profiles/local-cluster):
    every job is a separate process, and the merged results are byte for byte
    those of the local run (one shard)."""
    import os

    work, data = run
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["experiments"].update(shards=3)
    (tmp_path / "sharded.yaml").write_text(yaml.safe_dump(cfg))
    other = tmp_path / "cluster"
    other.mkdir()
    submitted = tmp_path / "submitted.txt"
    cmd = SNAKEMAKE + ["-s", str(ROOT / "Snakefile"), "--configfile", str(tmp_path / "sharded.yaml"),
                       "--config", f"data_dir={data}", "--directory", str(other),
                       "--workflow-profile", str(ROOT / "profiles" / "local-cluster"),
                       "--cluster-generic-submit-cmd", str(ROOT / "profiles" / "local-cluster" / "submit.sh"),
                       "results/tiny/stability.csv", "results/tiny/stability_splits.csv"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                         env={**os.environ, "METAEVAL_SUBMITTED": str(submitted)})
    assert res.returncode == 0, res.stdout + res.stderr
    pids = submitted.read_text().split()
    assert len(pids) == len(set(pids)) >= 5  # ingest, 3 shards, experiments: each its own process
    assert len(list((other / "results/tiny/stability").glob("shard*of3.npz"))) == 3
    for f in ("stability.csv", "stability_splits.csv", "similarity.csv", "intervals.csv", "significance.csv"):
        assert (other / "results/tiny" / f).read_bytes() == (work / "results/tiny" / f).read_bytes(), f


def _tiny_only(tmp_path, name="tiny.yaml", **experiments):
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {"tiny": cfg["datasets"]["tiny"]}
    cfg["experiments"].update(experiments)
    (tmp_path / name).write_text(yaml.safe_dump(cfg))
    return tmp_path / name


def _csvs(work):
    root = work / "results"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.csv"))}


def test_results_are_byte_identical_across_cores_chunks_and_shards(run, tmp_path):
    """Every CSV of the tiny dataset: --cores 2, one shard and the .test
    chunks (the module's run) against --cores 8, 4 shards and chunks of 7
    (3 shards, each job a process of its own: the cluster path's test)."""
    work, data = run
    cfg = _tiny_only(tmp_path, shards=4, chunk_size=7)
    other = tmp_path / "other"
    other.mkdir()
    res = subprocess.run(SNAKEMAKE + ["-s", str(ROOT / "Snakefile"), "--configfile", str(cfg), "--config",
                                      f"data_dir={data}", "--directory", str(other), "--cores", "8"],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    theirs = {k: v for k, v in _csvs(work).items() if k.startswith("tiny/") or "/" not in k}
    ours = _csvs(other)  # the tiny dataset's and the formal properties' (same settings)
    assert sorted(ours) == sorted(theirs) and len(ours) >= 14 and "properties.csv" in ours
    for k in ours:
        assert ours[k] == theirs[k], k


def test_the_paired_bootstrap_test_and_bca_intervals_run_in_the_workflow(run, tmp_path):
    """significance_test: bootstrap reads the bootstrap's replicates (its
    settings must reach the job) and the summary names the test."""
    work, data = run
    cfg = _tiny_only(tmp_path, significance_test="bootstrap", interval_method="bca")
    other = tmp_path / "other"
    other.mkdir()
    _run(other, data, configfile=cfg)
    d = other / "results/tiny"
    assert "the paired bootstrap test finds different" in (d / "tables/summary.md").read_text()
    assert "95% BCa bootstrap intervals, 200 replicates" in (d / "tables/intervals.md").read_text()
    sig = pd.read_csv(d / "significance.csv")
    assert sig["p_value"].between(0, 1).all() and sig["metric"].nunique() >= 10


@pytest.fixture(scope="module")
def interruptible(run, tmp_path_factory):
    """The tiny dataset with long stability shards, and its uninterrupted run
    (the reference both interruptions are compared with)."""
    _, data = run
    base = tmp_path_factory.mktemp("interrupt")
    cfg = _tiny_only(base, n_splits=40000, chunk_size=2000, shards=2)
    cmd = SNAKEMAKE + ["-s", str(ROOT / "Snakefile"), "--configfile", str(cfg), "--config", f"data_dir={data}",
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
    import os
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


def test_resampling_few_groups_is_warned(run):
    """tiny_tsv has 2 targets: resampling whole targets is flagged (log and
    tables); resampling items, or 20 groups, is not."""
    import dataclasses

    from metaeval.config import dataset_specs, load_config
    from metaeval.experiments import MIN_GROUPS
    from metaeval.workflow import experiment_settings, few_groups_note

    work, data = run
    cfg = load_config(ROOT / ".test" / "config.yaml")
    cfg["data_dir"] = str(data)
    spec = dataset_specs(cfg)["tiny_tsv"]
    item = experiment_settings(cfg, "tiny_tsv")
    group = dataclasses.replace(item, resample_unit="group")
    npz = work / "results/tiny_tsv/data.npz"
    assert few_groups_note(spec, item, npz) is None
    note = few_groups_note(spec, group, npz)
    assert "has only 2 groups" in note and f"at least {MIN_GROUPS} groups" in note


# -- issue 18: faults the suite let through (library calls, no Snakemake run) ---------------------
@pytest.mark.parametrize("shards", [1, 2])
def test_only_datasets_with_three_classes_read_the_class_merging_settings(shards):
    """Catches two-class datasets recording (and rerunning on) balanced_repeats / balanced_seed they never read."""
    from metaeval.config import DatasetSpec
    from metaeval.experiments import Settings
    from metaeval.workflow import step_params

    settings = Settings.from_config({"shards": shards})
    merging = {"balanced_repeats", "balanced_seed"}
    for labels, merges in ((["neg", "pos"], False), (["neg", "neu", "pos"], True), (list("abcd"), True)):
        spec = DatasetSpec.from_config("d", {"gold": "g.csv", "predictions": ["p/*.csv"], "labels": labels})
        params = step_params(spec, settings)
        read = {step: merging & set(p["settings"]) for step, p in params.items()}
        if merges:  # the experiments job merges classes: it reads both, and nothing else does
            assert read == {step: (merging if step == "experiments" else set()) for step in params}, labels
            assert params["experiments"]["settings"]["balanced_repeats"] == 100
        else:
            assert not any(read.values()), read
            assert "noise_rates" in params["recommendation"]["settings"]  # two classes: label noise still read
            assert "noise_rates" not in params["experiments"]["settings"]  # (its own job since issue 20)


@pytest.mark.parametrize("ordinal", [True, False])
def test_noise_mode_auto_flips_to_neighbours_for_ordered_classes_only(tmp_path, ordinal):
    """Catches noise_mode: auto swapped (it must flip to neighbours for ordinal classes, uniformly for nominal)."""
    from metaeval.config import DatasetSpec
    from metaeval.dataset import Dataset
    from metaeval.experiments import Settings
    from metaeval.workflow import run_sensitivity

    # gold in the outer classes a and c only; every label flipped (rate 1).  Neighbour noise must send every
    # item to b (the only neighbour of a and of c); uniform noise sends each to b or to the other outer class.
    n = 200
    gold = np.array([0, 2] * (n // 2))
    perfect = gold.copy()
    opposite = np.where(np.arange(n) < n // 2, gold, 2 - gold)  # right on half, the other outer class on half
    all_b = np.ones(n, dtype=np.int64)
    labels = ("a", "b", "c")
    spec = DatasetSpec.from_config("toy", {"gold": "-", "predictions": [], "labels": list(labels),
                                           "ordinal": ordinal, "metrics": ["accuracy"]})
    ds = Dataset("toy", labels, np.array([str(i) for i in range(n)]), gold.astype(np.int8),
                 ("perfect", "opposite", "all_b"), ("system",) * 3,
                 np.vstack([perfect, opposite, all_b]).astype(np.int8))
    ds.save(tmp_path / "data.npz")
    settings = Settings.from_config({"include_baselines": [], "noise_rates": [1.0], "noise_repeats": 5,
                                     "noise_power_repeats": 0, "prior_gammas": [1.0]})
    out = {k: str(tmp_path / f) for k, f in
           [("noise", "noise.csv"), ("priors", "priors.csv"), ("sensitivity_md", "s.md"), ("noise_png", "n.png"),
            ("noise_pdf", "n.pdf"), ("priors_png", "p.png"), ("priors_pdf", "p.pdf")]}
    run_sensitivity(spec, settings, tmp_path / "data.npz", out)
    row = pd.read_csv(out["noise"]).iloc[0]
    # clean accuracies: perfect 1 > opposite 0.5 > all_b 0.
    # neighbour noise (every gold b): perfect 0 = opposite 0 < all_b 1 in every repeat; by hand, tau-b of
    # (1, 0.5, 0) and (0, 0, 1): 0 concordant, 2 discordant pairs, one tie: -2 / sqrt(3 x 2)
    # uniform noise: all_b about 0.5 > opposite about 0.25 > perfect 0: tau -1
    if ordinal:
        assert row["mode"] == "neighbour"
        assert row["mean_tau"] == pytest.approx(-2 / np.sqrt(6)) and row["sd_tau"] == pytest.approx(0, abs=1e-12)
        assert row["winner_kept"] == 0
    else:
        assert row["mode"] == "uniform"
        assert row["mean_tau"] == pytest.approx(-1)


def test_a_toxic_spans_task_added_by_config_alone(run):
    """SemEval-2021 Task 5's own files (gold CSV, submissions as they are):
    scored as its official scorer does, the experiments run, and what
    changes a score is said in dataset.json, the console and the log."""
    import json

    from .reference import tsd_score_files

    work, data = run
    r = work / "results/toxic"
    df = pd.read_csv(r / "scores.csv").set_index("system")
    for f in sorted((data / "tsd/predictions").glob("*.txt")):
        name = "team_x" if f.stem == "__435053" else f.stem
        assert df.loc[name, "char_f1_macro"] == pytest.approx(tsd_score_files(f, data / "tsd/gold.csv"), abs=1e-12)
    assert df.loc["organisers_baseline", "kind"] == "baseline" and df.loc["no_spans", "kind"] == "baseline"
    info = json.loads((r / "dataset.json").read_text())
    assert info["offsets_past_end"]["files"]["past_end"]["characters"] == 5
    assert info["predicts_no_spans"] == ["silent"] and len(info["identical_systems"]) == 2
    stab = pd.read_csv(r / "stability.csv")
    assert (stab["n_systems"] == 6).all()  # 7 files, one marked as a baseline
    log = (work / "results/logs/toxic/ingest.log").read_text()
    assert log.startswith("rule ingest (dataset=toxic)\n  read tsd/gold.csv: 12 gold spans in 12 documents; "
                          "6 system(s), 0 synthetic, 5 baseline(s)") and "ok: done in" in log
    assert "WARNING: dataset 'toxic': system 'past_end': 5 character(s)" in log
    exp = (work / "results/logs/toxic/experiments.log").read_text()
    assert "rank stability (200 half-splits" in exp and re.search(r"significance \(randomised Tukey HSD.*\d s", exp)


def test_a_failure_on_many_documents_is_short_and_printed_last(tmp_path):
    """A span dataset of hundreds of article files: the job listings name
    the folder, not every file, and the error (file, line, fault) is the
    last thing printed, after Snakemake's own summary."""
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / "spans", data / "spans")
    for i in range(300):
        (data / f"spans/articles/article5{i:03d}.txt").write_text("another article\n")
    bad = data / "spans/si/predictions/close.txt"
    bad.write_text(bad.read_text() + "101\t9\t3\n")
    cfg = {"data_dir": str(data), "datasets": {"many": {
        "format": "semeval2020_si", "gold": "spans/si/gold.labels", "articles": "spans/articles",
        "predictions": ["spans/si/predictions/*.txt"], "merge_overlapping_predictions": True}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    work = tmp_path / "work"
    work.mkdir()
    res = _run(work, data, check=False, configfile=tmp_path / "c.yaml")
    out = res.stdout + res.stderr
    assert res.returncode != 0
    assert len(out) < 12_000, len(out)  # was 170 to 217 KB with every article file listed, twice
    assert "article5000.txt" not in out and "spans/articles" in out
    tail = res.stderr.rstrip().splitlines()[-12:]
    assert any(line.startswith("The run stopped. What went wrong:") for line in tail), tail
    assert any("close.txt:" in line and "start 9 is not before end 3" in line for line in tail), tail


def test_an_edited_article_text_reruns_its_datasets_and_only_them(run):
    """The articles folder is one input (its files are not listed one by
    one), and the SHA-256 of its texts a param of the ingestion: an edit in
    place (the folder's time does not change) reruns the span datasets that
    read the folder, and nothing else."""
    import os

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


def test_the_warnings_of_a_run_are_repeated_at_its_end(run, tmp_path):
    """Warnings printed among hundreds of lines of job listings are easy to
    miss: the run ends with them, with the dataset each one is about."""
    work, data = run
    work = _copy_of(work, tmp_path)
    res = _run(work, data, "--forcerun", "ingest", "--until", "ingest")
    tail = res.stderr[res.stderr.rindex("Warnings of this run"):]
    assert "spans_si: dataset 'spans_si': 1 article file(s)" in tail
    assert "toxic: dataset 'toxic': system 'silent' predicts no spans" in tail


def test_the_same_answer_on_every_page_that_names_a_metric(run):
    """The summary page, recommendation.md, recommendation.json and the
    front page show one answer (metaeval.recommend's), for every dataset of
    the run that has one; the summary's Table 7 is labelled a reproduction."""
    import html as H

    from metaeval.tables import md_escape

    work, _ = run
    front = (work / "results/report/overview.html").read_text(encoding="utf-8")
    n = 0
    for js in sorted((work / "results").glob("*/recommendation.json")):
        d = js.parent
        answer = json.loads(js.read_text())["answer"]
        assert (d / "recommendation.md").read_text().splitlines()[2] == md_escape(answer)
        summary = (d / "tables/summary.md").read_text()
        assert f"(the whole argument: recommendation.md): {md_escape(answer)}" in summary
        assert "reproduction of that paper, not as a recommendation" in summary
        assert H.escape(answer, quote=True) in front
        n += 1
    assert n >= 4


# -- issue 20: the library API computes what the workflow's steps compute ------------------------
def _tiny_in_memory(data):
    gold = pd.read_csv(data / "tiny/gold.csv", dtype=str).set_index("item_id")["label"]
    preds = {f.stem: pd.read_csv(f, dtype=str).set_index("item_id")["label"].replace({"other": "neu"})
             for f in sorted((data / "tiny/predictions").glob("*.csv"))}
    keys = dict(labels=["neg", "neu", "pos"], ordinal=True, weights={"even": {"neg": 0.4, "neu": 0.2, "pos": 0.4}},
                primary_metric="macro_f1", random_seed=7, name="tiny")
    return gold, preds, keys


def test_the_api_writes_the_workflow_s_files_byte_for_byte(run, tmp_path):
    """meta_evaluate on the tiny dataset's labels in memory, with the .test
    config's settings: every table it writes, the recommendation's JSON,
    page and figure are the workflow's files, byte for byte; evaluate's
    scores and intervals are scores.csv and intervals.csv."""
    import filecmp

    from metaeval.io import read_result_csv

    work, data = run
    gold, preds, keys = _tiny_in_memory(data)
    settings = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())["experiments"]
    res = metaeval_api().meta_evaluate(gold, preds, properties=read_result_csv(work / "results/properties.csv"),
                                       **keys, **settings)
    written = res.write(tmp_path)
    assert len(written) == 21  # 17 tables, the JSON, the page and the figure (PNG, PDF)
    for p in written:
        assert filecmp.cmp(p, work / "results/tiny" / p.relative_to(tmp_path), shallow=False), p.name
    scores = metaeval_api().evaluate(gold, preds, intervals=False, baselines=["majority", "all_class", "random"],
                                     **keys)
    assert scores.reset_index().equals(read_result_csv(work / "results/tiny/scores.csv"))
    iv = metaeval_api().evaluate(gold, preds, baselines=["majority", "all_class", "random"],
                                 include_baselines=["majority", "random"], **keys,
                                 **{k: settings[k] for k in ("bootstrap_replicates", "chunk_size")})
    want = read_result_csv(work / "results/tiny/intervals.csv")
    for _, row in want.iterrows():
        assert iv.loc[row["system"], row["metric"] + "_low"] == row["low"]
        assert iv.loc[row["system"], row["metric"] + "_high"] == row["high"]


def metaeval_api():
    import metaeval

    return metaeval


def test_the_command_line_prints_the_workflow_s_scores_and_intervals(run, tmp_path):
    """`metaeval score` on the tiny dataset's files (its 'other' predictions
    mapped to 'neu' beforehand, as the config's extra_labels does): the
    scores and intervals of every real system and majority baseline are
    those of the workflow's scores.csv and intervals.csv."""
    import io
    from contextlib import redirect_stdout

    from metaeval.cli import main
    from metaeval.io import read_result_csv

    work, data = run
    gold, preds, _ = _tiny_in_memory(data)
    gold.rename("label").rename_axis("item_id").to_frame().to_csv(tmp_path / "gold.csv")
    files = []
    for s, labels in preds.items():
        labels.rename("label").rename_axis("item_id").to_frame().to_csv(tmp_path / f"{s}.csv")
        files.append(tmp_path / f"{s}.csv")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["score", str(tmp_path / "gold.csv"), *map(str, files), "--labels", "neg,neu,pos", "--ordinal",
                     "--baselines", "majority", "--replicates", "200", "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(out.getvalue())).set_index("system")
    scores = read_result_csv(work / "results/tiny/scores.csv").set_index("system")
    iv = read_result_csv(work / "results/tiny/intervals.csv")
    common = [c for c in scores.columns if c in got.columns and c != "kind"]
    assert len(common) >= 12
    for system in ["sys_a", "sys_b", "sys_c", "sys_d", "majority"]:
        for m in common:
            assert got.loc[system, m] == pytest.approx(scores.loc[system, m], abs=1e-15)
            row = iv[(iv["system"] == system) & (iv["metric"] == m)].iloc[0]
            assert got.loc[system, f"{m}_low"] == pytest.approx(row["low"], abs=1e-15)
            assert got.loc[system, f"{m}_high"] == pytest.approx(row["high"], abs=1e-15)


def test_a_step_s_code_is_every_module_it_imports():
    """params._imports reads imports by pattern (a run starts in 0.06 s
    instead of 2.4 s): its closure of every step's modules contains the
    closure found by parsing the modules (ast), and the computations'
    closures hold no drawing code."""
    import ast

    from metaeval.workflow import params as P

    root = Path(P.__file__).resolve().parents[1]

    def parsed(path):
        out = set()
        pkg = path.relative_to(root).with_suffix("").parts[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("metaeval")):
                base = (pkg[:len(pkg) - (node.level - 1)] if node.level > 1 else pkg) if node.level else ()
                mod = tuple((node.module or "").split(".")[0 if node.level else 1:])
                for parts in [base + mod] + [base + mod + (a.name,) for a in node.names]:
                    parts = tuple(p for p in parts if p)
                    for cand in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts) / "__init__.py"):
                        if cand.is_file():
                            out.add(cand)
        return out

    def closure(module, imports):
        todo, files = [root.joinpath(*module.split(".")).with_suffix(".py")], set()
        while todo:
            f = todo.pop()
            if f not in files:
                files.add(f)
                todo.extend(imports(f) - files)
        return {f.relative_to(root).as_posix() for f in files}

    for modules in set(P.STEP_MODULES.values()):
        for m in modules.split("+"):
            by_pattern = closure(m, lambda f: set(P._imports(f, root)))
            assert closure(m, parsed) <= by_pattern, m
            if m in ("workflow.experiments", "workflow.sensitivity", "workflow.reading"):
                assert "plots.py" not in by_pattern and "recommend.py" not in by_pattern, m
