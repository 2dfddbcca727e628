"""The Snakemake workflow end to end on the small .test config."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import numpy as np
import yaml

from metaeval.measures import labels as M

from .conftest import FIXTURES, ROOT
from .workflow_helpers import SNAKEMAKE, _copy_of, _run, _tiny_only


pytestmark = pytest.mark.workflow

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
    from metaeval.data.files import read_result_csv

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
    """results/properties.csv is metaeval.measures.properties.check_all with the
    config's settings (the .test config's small domain)."""
    import yaml as _yaml

    from metaeval.data.files import read_result_csv
    from metaeval.measures.properties import check_all
    from metaeval.settings import PropertySettings

    work, _ = run
    block = _yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())["properties"]
    got = read_result_csv(work / "results/properties.csv").fillna("")
    want = check_all(PropertySettings.from_config(block))
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
    assert list(df.columns[2:]) == [m for m in M.DEFAULT_METRIC_IDS if m not in ("f_avg", "fnc_score")]
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
    res = subprocess.run(SNAKEMAKE + ["--lint", "-s", str(ROOT / "workflow" / "Snakefile"), "--directory", str(ROOT),
                                      "--configfile", str(ROOT / ".test" / "config.yaml"),
                                      "--config", f"data_dir={FIXTURES}"],
                         capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert "Error" not in out, out  # (--lint exits 1 when it finds a lint: the lints are read below)
    # Every lint but one fails the test: the rules declare no conda environment on purpose (metaeval is on no
    # conda channel, so --use-conda could not install it; .snakemake-workflow-catalog.yml says conda: false,
    # and an environment file missing from the installed package broke Snakemake's metadata)
    lints = re.findall(r"^\s+\* (.+?):$", res.stdout + res.stderr, flags=re.M)
    assert set(lints) <= {"Specify a conda environment or container for each rule."}, lints
    assert lints.count("Specify a conda environment or container for each rule.") == \
        (res.stdout + res.stderr).count("Lints for rule")  # each rule's only lint is that one


def test_the_top_level_snakefile_runs_the_same_workflow_with_its_profile(tmp_path):
    """``snakemake`` from the checkout's root finds the top-level Snakefile
    (the layout the design card names); it includes workflow/Snakefile, so
    it plans the same jobs as ``-s workflow/Snakefile``, with the workflow's
    profile (profiles/default is workflow/profiles/default) and a default
    target of its own (Snakemake takes none from an included file)."""
    common = ["-n", "--configfile", str(ROOT / ".test" / "config.yaml"), "--config", f"data_dir={FIXTURES}"]

    def plan(*args):
        res = subprocess.run(SNAKEMAKE + [*args, *common], capture_output=True, text=True, timeout=300, cwd=ROOT)
        out = res.stdout + res.stderr
        assert res.returncode == 0, out
        assert "Using workflow specific profile profiles/default" in out, out
        jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.M))
        return out, jobs

    out_root, root = plan()
    out_wf, wf = plan("-s", str(ROOT / "workflow" / "Snakefile"))
    assert root.pop("default") == "1" and wf.pop("all") == "1"
    assert root == wf and int(root.pop("total")) > 10
    assert (ROOT / "profiles" / "default").resolve() == (ROOT / "workflow" / "profiles" / "default").resolve()


@pytest.mark.realdata
def test_full_pipeline_on_real_data_writes_the_reproduction_report(tmp_path, data_dir):
    """`snakemake --cores 8 results/reproduction.md` from nothing (every file
    the report reads is declared), then `snakemake --cores 8` for the rest."""
    # the project's config, with fewer resamples (the assertions below do not depend on their number)
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["experiments"].update(n_splits=200, balanced_repeats=10, bootstrap_replicates=200, tukey_trials=200,
                              noise_repeats=20, criteria_replicates=50, design_draws=20)
    cfg["properties"].update(yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())["properties"])
    cfg["reproduction"]["published"] = str(ROOT / cfg["reproduction"]["published"])
    # a metric of the user's own module, registered by config, beside a default dataset's metrics (issue 31)
    from .test_custom_metrics import MODULE, worst_recall_loop

    (tmp_path / "my_metrics.py").write_text(MODULE)
    cfg["custom_metrics"] = {"worst_recall": {"function": "my_metrics.py:worst_recall", "higher_is_better": True,
                                              "range": [0, 1], "name": "min-R"}}
    cfg["datasets"]["rumoureval2017"]["metrics"] = ["default", "worst_recall"]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    cmd = SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(tmp_path / "config.yaml"),
                       "--config", f"data_dir={data_dir}", "--directory", str(tmp_path), "--cores", "8"]
    res = subprocess.run(cmd + ["results/reproduction.md"], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    first = res
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    # no raw Python warning reaches the console (numpy's, pandas', matplotlib's): said in words or prevented
    for r in (first, res):
        raw = re.findall(r"^.*\b\w+Warning\b.*$", r.stdout + r.stderr, flags=re.M)
        assert not raw, raw
    # the report of the default config: under 10 MB; in headless Chromium (1400 px) no broken image and no
    # table wider than its page, in the report, the stand-alone overview and a recommendation page
    from .test_report import measure

    rep = subprocess.run(cmd + ["--report", "results/report.html"], capture_output=True, text=True, timeout=600)
    assert rep.returncode == 0, rep.stdout + rep.stderr
    assert not re.findall(r"\(WARNING/\d\)|\w+Warning\b", rep.stdout + rep.stderr)  # docutils' and Python's
    assert (tmp_path / "results/report.html").stat().st_size < 10_000_000
    shots = tmp_path / "screenshots"
    shots.mkdir()
    for page, name in ((tmp_path / "results/report.html", "front.png"),
                       (tmp_path / "results/report/overview.html", "overview.png"),
                       (tmp_path / "results/fnc1/tables/recommendation.html", "recommendation.png"),
                       (tmp_path / "results/fnc1/tables/significance.html", "significance.png")):
        m = measure(page, tmp_path, screenshot=shots / name)
        assert m["broken"] == [] and m["wide"] == [], (page, m)
    assert measure(tmp_path / "results/fnc1/tables/recommendation.html", tmp_path)["images"] == 1
    # a figure opened in the report is an image that loads
    m = measure(tmp_path / "results/report.html", tmp_path, before=(
        "var p = 'results/fnc1/figures/recommendation.png'; app.setView({content: 'img', contentPath: "
        "results[p].data_uri, resultPath: p, navbarMode: 'resultinfo'})"))
    assert m["images"] >= 1 and m["broken"] == [], m
    # the data folder copied elsewhere (new paths, new modification times): the same contents plan no job
    copy = tmp_path / "data copy"
    shutil.copytree(data_dir, copy, copy_function=shutil.copy)
    moved = [a if not a.startswith("data_dir=") else f"data_dir={copy}" for a in cmd]
    dry = subprocess.run(moved + ["-n"], capture_output=True, text=True, timeout=300)
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout[-3000:]
    # an edited prediction file reruns its datasets' jobs only
    edited = copy / "rumoureval2017/predictions_other/theosdoor_llama3.2-3b_cot.csv"
    edited.write_bytes(edited.read_bytes().replace(b",comment\r\n", b",support\r\n", 1))
    dry = subprocess.run(moved + ["-n"], capture_output=True, text=True, timeout=300)
    planned = set(re.findall(r"wildcards: dataset=(\w+)", dry.stdout))
    assert planned == {"rumoureval2017"}, planned
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
    # SemEval-2016 Task 3's official figures, every cell of both subtasks, reproduced to the printed digits (issue 33)
    for ds, cells in (("semeval2016t3_b", 143), ("semeval2016t3_c", 158)):
        off = pd.read_csv(tmp_path / "results" / ds / "official.csv")
        assert len(off) == cells and (off.status == "match").all(), (ds, off[off.status != "match"])
    # span datasets: scores, tables and figures; experiments where enough systems are ranked
    for ds in ("semeval2020t11_tc", "semeval2020t11_tc_v1", "semeval2020t11_si", "semeval2020t11_si_synthetic"):
        for f in ("scores.csv", "tables/scores.md", "tables/scores.tex", "figures/span_scores.png"):
            assert (tmp_path / "results" / ds / f).exists(), (ds, f)
    for ds in ("semeval2020t11_tc", "semeval2020t11_si_synthetic"):
        for f in ("similarity.csv", "stability.csv", "tables/summary.md", "figures/stability.png"):
            assert (tmp_path / "results" / ds / f).exists(), (ds, f)
    assert not (tmp_path / "results/semeval2020t11_si/stability.csv").exists()  # 3 files: too few to rank
    # the custom metric: its own reference on every system, in every table of metrics and in the verdict
    res17 = tmp_path / "results/rumoureval2017"
    scores = pd.read_csv(res17 / "scores.csv").set_index("system")
    conf = pd.read_csv(res17 / "confusion.csv")
    labels = ["support", "deny", "query", "comment"]
    for system, c in conf.groupby("system"):
        gold = [labels.index(x) for x, n in zip(c["gold"], c["count"]) for _ in range(n)]
        pred = [labels.index(x) for x, n in zip(c["predicted"], c["count"]) for _ in range(n)]
        assert scores.loc[system, "worst_recall"] == pytest.approx(worst_recall_loop(gold, pred, 4), abs=1e-12)
    for name in ("intervals.csv", "significance.csv", "stability.csv", "similarity.csv", "discriminative_power.csv",
                 "chance.csv", "gameability.csv", "noise.csv", "priors.csv", "merging.csv", "design.csv",
                 "properties.csv", "recommendation.csv", "summary.csv"):
        assert "worst_recall" in (res17 / name).read_text(), name
    assert "min-R" in (res17 / "recommendation.md").read_text()
    assert "worst_recall" in (tmp_path / "results/cross_dataset/criteria.csv").read_text()


# -- a config edit reruns exactly the jobs that read the setting ------------------
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
    from metaeval.data.files import read_result_csv

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
    from metaeval.measures.spans import SPAN_METRIC_IDS

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
    # ... and the merging of the overlapping predicted spans, asked for, is said with its count (issue 48)
    assert info["warnings"] == [f"1 article file(s) in {work.parent / 'data/spans/articles'} are mentioned neither by "
                                f"the gold nor by any prediction file and are not scored ('article104.txt')",
                                f"{work.parent / 'data/spans/si/predictions/overlapping.txt'}: 12 span(s) overlap an "
                                f"earlier one and are merged with it (merge_overlapping_predictions)"]
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
    cmd = SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(tmp_path / "sharded.yaml"),
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


def test_resampling_few_groups_is_warned(run):
    """tiny_tsv has 2 targets: resampling whole targets is flagged (log and
    tables); resampling items, or 20 groups, is not."""
    import dataclasses

    from metaeval.data.config import dataset_specs, load_config
    from metaeval.methods.experiments import MIN_GROUPS
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
    from metaeval.data.config import DatasetSpec
    from metaeval.methods.experiments import Settings
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
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset
    from metaeval.methods.experiments import Settings
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
    none of them, and the error (file, line, fault) is the last thing
    printed, after Snakemake's own summary."""
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
    # (the data files are not the jobs' inputs: their contents are a param, data_fingerprint_of)
    assert "article5000.txt" not in out
    tail = res.stderr.rstrip().splitlines()[-12:]
    assert any(line.startswith("The run stopped. What went wrong:") for line in tail), tail
    assert any("close.txt:" in line and "start 9 is not before end 3" in line for line in tail), tail


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
    front page show one answer (metaeval.verdict.recommendation's), for every dataset of
    the run that has one; the summary's Table 7 is labelled a reproduction."""
    import html as H

    from metaeval.present.tables import md_escape

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

    from metaeval.data.files import read_result_csv

    work, data = run
    gold, preds, keys = _tiny_in_memory(data)
    api = metaeval_api()
    settings = api.api.settings(**yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())["experiments"])
    tiny = api.dataset(gold, preds, baselines=["majority", "all_class", "random"], **keys)  # (read once)
    res = api.meta_evaluate(tiny, properties=read_result_csv(work / "results/tiny/properties.csv"), settings=settings)
    written = res.write(tmp_path)
    # 21 tables (the design's three and the properties of the dataset's shape with them), the JSON, the page and
    # the figure (PNG, PDF)
    assert len(written) == 25
    for p in written:
        assert filecmp.cmp(p, work / "results/tiny" / p.relative_to(tmp_path), shallow=False), p.name
    from metaeval.data.files import write_csv

    design = api.size_design(tiny, settings=settings)  # the design alone: the same files
    for name, df in (("design", design.design), ("design_needed", design.needed), ("design_swaps", design.swaps)):
        (tmp_path / "alone").mkdir(exist_ok=True)
        write_csv(tmp_path / "alone" / f"{name}.csv", df)
        assert filecmp.cmp(tmp_path / "alone" / f"{name}.csv", work / f"results/tiny/{name}.csv", shallow=False)
    if res.rec.size_metrics():
        assert design.sentence(res.rec.size_metrics()) in (work / "results/tiny/recommendation.md").read_text()
    scores = api.evaluate(tiny, intervals=False)
    assert scores.reset_index().equals(read_result_csv(work / "results/tiny/scores.csv"))
    iv = api.evaluate(tiny, include_baselines=["majority", "random"], bootstrap_replicates=settings.bootstrap_replicates,
                      settings=api.api.settings(chunk_size=settings.chunk_size))
    want = read_result_csv(work / "results/tiny/intervals.csv")
    for _, row in want.iterrows():
        assert iv.loc[row["system"], row["metric"] + "_low"] == row["low"]
        assert iv.loc[row["system"], row["metric"] + "_high"] == row["high"]


def test_the_library_reads_and_resamples_a_grouped_dataset_as_the_workflow(run, tmp_path):
    """tiny_tsv (SemEval-2016 Task 6's format, a Target group column): read
    by read_files(format="semeval_tsv", group_column=...) and meta-evaluated
    with the library's defaults and the .test settings, every table it
    writes is the workflow's file, byte for byte.  The trial of issue 30:
    the library resampled whole groups whenever the data had groups, the
    workflow items, and the answers differed."""
    import filecmp

    from metaeval.data.files import read_result_csv

    work, data = run
    settings = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())["experiments"]
    preds = sorted((data / "tiny_tsv/predictions").glob("*.tsv"))
    read = metaeval_api().read_files(data / "tiny_tsv/gold.tsv", preds, format="semeval_tsv", group_column="Target",
                                     labels=["FAVOR", "NONE", "AGAINST"], ordinal=True,
                                     f_avg_classes=["FAVOR", "AGAINST"], primary_metric="f_avg", random_seed=7,
                                     name="tiny_tsv")
    assert read[0].groups is not None
    res = metaeval_api().meta_evaluate(read, properties=read_result_csv(work / "results/tiny_tsv/properties.csv"),
                                       settings=metaeval_api().api.settings(**settings))
    written = [p for p in res.write(tmp_path, figures=False) if p.suffix == ".csv"]
    assert len(written) == 21
    for p in written:
        assert filecmp.cmp(p, work / "results/tiny_tsv" / p.name, shallow=False), p.name


def _tiny_files(data, folder):
    """The tiny dataset as the command line reads it: folder/gold.csv and
    one CSV per system (returned), 'other' mapped to 'neu'."""
    gold, preds, _ = _tiny_in_memory(data)
    gold.rename("label").rename_axis("item_id").to_frame().to_csv(folder / "gold.csv")
    for s, labels in preds.items():
        labels.rename("label").rename_axis("item_id").to_frame().to_csv(folder / f"{s}.csv")
    return [folder / f"{s}.csv" for s in preds]


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
    from metaeval.data.files import read_result_csv

    work, data = run
    files = _tiny_files(data, tmp_path)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["score", str(tmp_path / "gold.csv"), *map(str, files), "--labels", "neg,neu,pos", "--ordinal",
                     "--baselines", "majority", "--replicates", "200", "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(out.getvalue()), comment="#").set_index("system")  # (the signature)
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


def test_the_command_line_design_is_the_workflow_s(run, tmp_path):
    """`metaeval design --long` on the tiny dataset's files, with the .test
    config's settings: design.csv's rows of the metrics both compute (the
    config adds weighted metrics), to the last bit; and `metaeval recommend`
    says the test-set size."""
    import io
    from contextlib import redirect_stdout

    from metaeval.cli import main
    from metaeval.data.files import read_result_csv

    work, data = run
    files = [str(f) for f in _tiny_files(data, tmp_path)]
    out = io.StringIO()
    sets = ["--set", "random_seed=7", "--set", "bootstrap_replicates=200", "--set", "design_draws=20",
            "--set", "chunk_size=64"]
    with redirect_stdout(out):
        assert main(["design", str(tmp_path / "gold.csv"), *files, "--labels", "neg,neu,pos", "--ordinal", *sets,
                     "--long", "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(out.getvalue()), comment="#")  # (the signature)
    want = read_result_csv(work / "results/tiny/design.csv")
    common = sorted(set(got["metric"]) & set(want["metric"]))
    assert len(common) >= 12
    def pick(df):
        return df[df["metric"].isin(common)].sort_values(["metric", "size"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(pick(got), pick(want), check_exact=True, check_dtype=False)


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
                assert "plots.py" not in by_pattern and "recommendation.py" not in by_pattern, m


def test_the_cross_dataset_tables_are_the_datasets_own_results(run):
    """results/cross_dataset/criteria.csv holds every dataset's
    recommendation.csv (its headline scope), row for row; the counts are
    made from them, and a metric kept on every view of a test set is never
    counted short of the best there."""
    work, _ = run
    cross = work / "results/cross_dataset"
    long = pd.read_csv(cross / "criteria.csv")
    names = list(dict.fromkeys(long["dataset"]))
    assert set(names) == {"tiny", "tiny_tsv", "spans_tc", "spans_si_synthetic", "toxic"}
    for d in names:
        mine = long[long["dataset"] == d].drop(columns=["dataset", "kind", "test_set"]).reset_index(drop=True)
        own = pd.read_csv(work / "results" / d / "recommendation.csv")
        own = own[own["scope"] == own["scope"].iloc[0]].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, own, obj=d, check_dtype=False)  # (NaN elsewhere: floats)
    assert dict(long.drop_duplicates("dataset").set_index("dataset")["kind"]) == {
        "tiny": "ordinal", "tiny_tsv": "ordinal", "spans_tc": "nominal", "spans_si_synthetic": "spans",
        "toxic": "spans"}
    rep = pd.read_csv(cross / "replicability.csv")
    judged = long[long["participant"] & long["counted"]]
    kept = judged.groupby(["kind", "criterion", "metric", "test_set"])["in_set"].all()
    counts = kept.groupby(["kind", "criterion", "metric"]).sum()
    for r in rep.itertuples():
        assert r.n_kept == counts[(r.kind, r.criterion, r.metric)]
        short = set(str(r.short_on).split("; ")) if isinstance(r.short_on, str) else set()
        for t in short:
            assert not kept[(r.kind, r.criterion, r.metric, t)], r
    md = (cross / "cross_dataset.md").read_text()
    assert "Across the 2 ordinal datasets (tiny and tiny_tsv)" in md and "## Span identification tasks" in md
    # a configured dataset without a meta-evaluation is named, with why; a metric that is no candidate on a
    # dataset (span precision alone) is marked there, and never in its top tier
    assert "Not included (no meta-evaluation): spans_si (" in md and "fewer than min_systems = 5)" in md
    assert " ‡" in md and not long[~long["candidate"]]["in_set"].any()
    assert (cross / "figures/cross_dataset.png").stat().st_size > 10_000


def test_a_custom_metric_that_fails_on_the_real_data_stops_the_run_without_a_traceback(tmp_path):
    """Issue 48: a metric that holds its contract on the probe matrices and
    returns NaN on the data (only above 1,000 items) is said as the command
    line says it: the metric, its file and function, the dataset; the run
    ends with its own summary, and no line starts with ``Traceback``."""
    rng = np.random.default_rng(48)
    data = tmp_path / "data"
    (data / "big" / "predictions").mkdir(parents=True)
    ids = [f"i{k}" for k in range(1200)]
    gold = rng.choice(["a", "b", "c"], 1200)
    pd.DataFrame({"item_id": ids, "label": gold}).to_csv(data / "big" / "gold.csv", index=False)
    for s in range(6):
        pred = np.where(rng.random(1200) < 0.4 + 0.08 * s, gold, rng.choice(["a", "b", "c"], 1200))
        pd.DataFrame({"item_id": ids, "label": pred}).to_csv(data / "big" / "predictions" / f"s{s}.csv", index=False)
    (tmp_path / "fragile.py").write_text(
        "import numpy as np\n\n"
        "def fragile(c):\n"
        "    acc = np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1))\n"
        "    return np.where(c.sum((-2, -1)) > 1000, np.nan, acc)  # fine on small matrices only\n")
    cfg = {"data_dir": str(data), "custom_metrics": {"fragile": {"function": "fragile.py:fragile",
                                                                 "higher_is_better": True, "range": [0, 1]}},
           "datasets": {"big": {"gold": "big/gold.csv", "predictions": ["big/predictions/*.csv"],
                                "labels": ["a", "b", "c"], "metrics": ["accuracy", "fragile"]}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    work = tmp_path / "work"
    work.mkdir()
    res = _run(work, data, "results/big/scores.csv", check=False, configfile=tmp_path / "c.yaml")
    out = res.stdout + res.stderr
    assert res.returncode != 0
    assert not [line for line in out.splitlines() if line.lstrip().startswith("Traceback")], out[-3000:]
    assert re.search(r"custom metric 'fragile' \(\S*fragile\.py:fragile\): expected a number where every class is in "
                     r"the gold and the predictions; found NaN on the systems of dataset 'big'", out), out[-3000:]
    tail = res.stderr.rstrip().splitlines()[-12:]
    assert any(line.startswith("The run stopped. What went wrong:") for line in tail), tail
    assert not (work / "results/big/scores.csv").exists()
