"""The package as a user installs it: `pip install <checkout>` (here
without dependencies, into a folder of its own: the test environment has
them), then, from a folder outside the checkout, `metaeval init` and the
command it prints produce results: the wheel carries the workflow."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pandas as pd

import pytest

from .conftest import FIXTURES, ROOT

# Snakemake (or pip) end to end: the second tier of tests (pytest -m 'workflow or slow'; README)
pytestmark = pytest.mark.workflow


def test_pip_install_then_init_and_the_printed_command_produce_results(tmp_path):
    site = tmp_path / "site"
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                          str(ROOT)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (site / "metaeval" / "_workflow" / "Snakefile").is_file()
    assert (site / "metaeval" / "_workflow" / "schemas" / "config.schema.yaml").is_file()
    assert (site / "metaeval-0.1.0.dist-info" / "licenses" / "LICENSE").is_file()
    # a user's folder: gold.csv and predictions/*.csv
    data = tmp_path / "elsewhere" / "my data"
    (data / "predictions").mkdir(parents=True)
    (data / "gold.csv").write_text((FIXTURES / "tiny" / "gold.csv").read_text())
    for f in sorted((FIXTURES / "tiny" / "predictions").glob("*.csv")):
        (data / "predictions" / f.name).write_text(f.read_text().replace(",other", ",neu"))
    env = {**os.environ, "PYTHONPATH": str(site)}  # the installed copy, not the checkout's src/
    res = subprocess.run([sys.executable, "-m", "metaeval", "init", str(data)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path / "elsewhere", env=env)
    assert res.returncode == 0, res.stderr
    command = next(line.strip() for line in res.stdout.splitlines() if line.strip().startswith("snakemake "))
    argv = shlex.split(command)
    assert argv[argv.index("-s") + 1] == str(site / "metaeval" / "_workflow" / "Snakefile")
    argv[argv.index("--cores") + 1] = "2"
    res = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, timeout=900,
                         cwd=tmp_path / "elsewhere", env=env)
    assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
    scores = pd.read_csv(data / "run" / "results" / "my_data" / "scores.csv")
    assert {"sys_a", "sys_b", "sys_c", "sys_d"} <= set(scores["system"])
    assert (data / "run" / "results" / "my_data" / "tables" / "scores.md").is_file()
    # the installed workflow was run, not the checkout's
    assert str(ROOT / "workflow") not in res.stdout + res.stderr
