"""The Snakemake workflow end to end on the small .test config."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
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


EXPERIMENTS = ["similarity.csv", "similarity_groups.csv", "figures/similarity.png", "figures/similarity.pdf",
               "stability.csv", "stability_splits.csv", "figures/stability.png", "figures/stability.pdf",
               "merging.csv", "merging_balanced.csv", "figures/merging.png", "figures/merging.pdf",
               "summary.csv", "tables/summary.md"]


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


def test_sharded_stability_is_identical(run, tmp_path):
    work, data = run
    other = tmp_path / "sharded"
    other.mkdir()
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["experiments"].update(shards=3, chunk_size=17)
    (tmp_path / "sharded.yaml").write_text(yaml.safe_dump(cfg))
    _run(other, data, "results/tiny/stability.csv", "results/tiny/stability_splits.csv",
         configfile=tmp_path / "sharded.yaml")
    assert len(list((other / "results/tiny/stability").glob("shard*of3.npz"))) == 3
    for f in ("stability.csv", "stability_splits.csv"):
        assert (other / "results/tiny" / f).read_bytes() == (work / "results/tiny" / f).read_bytes(), f


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


def test_new_system_reruns_only_its_dataset(run):
    work, data = run
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
        _run(work, data)


def test_bad_input_stops_with_clear_message_and_no_stale_results(run):
    work, data = run
    bad = data / "tiny/predictions/sys_b.csv"
    good = bad.read_text()
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
        _run(work, data)
    assert (work / "results/tiny/scores.csv").exists()


def test_missing_data_dir_is_a_clear_error(tmp_path):
    res = _run(tmp_path, tmp_path / "nowhere", "-n", check=False)
    assert res.returncode != 0
    assert "data_dir" in res.stdout + res.stderr and "is not a folder" in res.stdout + res.stderr


def test_lint_is_clean():
    res = subprocess.run(SNAKEMAKE + ["--lint", "-s", str(ROOT / "Snakefile"), "--directory", str(ROOT)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Lints for" not in res.stdout + res.stderr


@pytest.mark.realdata
def test_full_pipeline_on_real_data_writes_the_reproduction_report(tmp_path, data_dir):
    """`snakemake --cores 8` with the project's config, from nothing."""
    cmd = SNAKEMAKE + ["-s", str(ROOT / "Snakefile"), "--configfile", str(ROOT / "config" / "config.yaml"),
                       "--directory", str(tmp_path), "--cores", "8", "--config", f"data_dir={data_dir}"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    cells = pd.read_csv(tmp_path / "results/reproduction.csv")
    scarton = cells[cells.table.isin(["scarton2020_table2", "scarton2020_table3"])
                    & (cells.status != "not reproducible")]
    assert len(scarton) == 42 and (scarton.status == "match").all()
    md = (tmp_path / "results/reproduction.md").read_text()
    assert "## Summary" in md and "## Amemiya & Sakai's conclusions" in md
    for ds in ("fnc1", "fnc1_paper", "fnc1_4class", "rumoureval2017", "rumoureval2019", "semeval2016t6"):
        assert (tmp_path / "results" / ds / "tables/summary.md").exists(), ds
    assert (tmp_path / "results/rumoureval2019/tables/weights.md").exists()
