"""Helpers of the workflow's tests: a Snakemake run of a config on the
test fixtures, a copy of a run, configs of the tiny dataset alone."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from .conftest import ROOT

SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def _run(workdir: Path, data: Path, *extra, check=True, configfile=None):
    cmd = SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile",
                       str(configfile or ROOT / ".test" / "config.yaml"),
                       "--config", f"data_dir={data}", "--directory", str(workdir), "--cores", "2", *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if check and res.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{res.stdout}\n{res.stderr}")
    return res


def _copy_of(work: Path, tmp_path: Path) -> Path:
    """The module's run copied with Snakemake's records (times kept): a test
    that changes the data reruns in the copy, and the module's run is left as
    it was (its data files are restored with their times afterwards)."""
    other = tmp_path / "copy"
    shutil.copytree(work, other, symlinks=True)
    return other


def _tiny_only(tmp_path, name="tiny.yaml", **experiments):
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {"tiny": cfg["datasets"]["tiny"]}
    cfg["experiments"].update(experiments)
    (tmp_path / name).write_text(yaml.safe_dump(cfg))
    return tmp_path / name


def _csvs(work):
    root = work / "results"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.csv"))}
