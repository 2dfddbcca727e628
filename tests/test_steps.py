"""The job scripts' plumbing: a finished step ends its process at once, with
its outputs, log and printed text complete; a failing step exits non-zero."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# A job script as Snakemake runs it: a fresh process, a ``snakemake`` object,
# run_step last.  os._exit is wrapped to record that the process ended there
# (skipping the interpreter's teardown); an exit handler removes a temporary
# folder, as matplotlib's does (it must still run).
SCRIPT = """
import atexit, os, shutil, sys, tempfile
from pathlib import Path
from types import SimpleNamespace
from metaeval.data.files import DataError
from metaeval.workflow.steps import note, run_step, timed

out = Path(sys.argv[1])
real_exit = os._exit

def recorded_exit(code):
    (out / "os_exit").write_text(str(code))
    real_exit(code)

os._exit = recorded_exit
scratch = tempfile.mkdtemp(dir=out, prefix="scratch-")
atexit.register(shutil.rmtree, scratch)
smk = SimpleNamespace(log=[str(out / "logs" / "job.log")], rule="demo", wildcards={{"dataset": "d"}})

def step():
    with timed("writing"):
        (out / "result.csv").write_text("a,b\\n1,2\\n")
    note("read 3 items of 2 systems")
    print("printed by the step", end="")  # buffered: a pipe, no newline
    {fault}

run_step(smk, step)
"""


def _run(tmp_path: Path, fault: str = "pass", trace: bool = False) -> subprocess.CompletedProcess:
    script = tmp_path / "job.py"
    body = textwrap.dedent(SCRIPT.format(fault=fault))
    if trace:  # as under a debugger or coverage
        body = "import sys; sys.settrace(lambda *a: None)\n" + body
    script.write_text(body)
    return subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True)


def test_a_finished_step_ends_its_process_with_everything_written(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "result.csv").read_text() == "a,b\n1,2\n"
    # the log says which job, what it did and how long it took
    log = (tmp_path / "logs" / "job.log").read_text()
    assert re.fullmatch(r"rule demo \(dataset=d\)\n  writing: \d+\.\d\d s\n  read 3 items of 2 systems\n"
                        r"ok: done in \d+\.\d s\n", log), log
    assert r.stdout == "printed by the step"  # flushed before the process ended
    assert (tmp_path / "os_exit").read_text() == "0"  # ended at once: no interpreter teardown
    assert not list(tmp_path.glob("scratch-*"))  # but the exit handlers ran


def test_under_a_tracer_the_process_exits_normally(tmp_path):
    r = _run(tmp_path, trace=True)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "os_exit").exists()
    assert not list(tmp_path.glob("scratch-*"))


@pytest.mark.parametrize("fault, code, needle", [
    ("from metaeval.data.files import Problem; raise DataError([Problem('gold.csv', 3, 'no label')], \"dataset 'd'\")", 1,
     "gold.csv:3: no label"),
    ("raise RuntimeError('a bug')", 1, "RuntimeError: a bug"),
    ("from metaeval.measures.custom import MetricContractError; raise MetricContractError(\"custom metric 'm' "
     "(m.py:m): expected a number where every class is in the gold and the predictions; found NaN on the systems "
     "of dataset 'd'\")", 1, "custom metric 'm' (m.py:m): expected a number"),
])
def test_a_failing_step_exits_non_zero_and_says_why(tmp_path, fault, code, needle):
    r = _run(tmp_path, fault=fault)
    assert r.returncode == code
    assert needle in r.stderr
    # a fault of the input or of a custom metric is said as the command line says it; only a bug has a traceback
    assert ("Traceback" in r.stderr) == ("RuntimeError" in fault)
    assert needle in (tmp_path / "logs" / "job.log").read_text()
