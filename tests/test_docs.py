"""The documentation: the site builds with `mkdocs build --strict` (broken
links, unknown pages, API references that do not resolve all fail), and
every code example of its pages runs: the Python blocks (```python, a
page's blocks in order in one process) and the command lines of the
console blocks (```console, lines starting with `$ metaeval`).  The
docstrings' examples run as doctests (`--doctest-modules`, pyproject)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def _blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)


def _with_data(code: str, data_dir: Path) -> str:
    """The examples read the data from ../shared/data beside the checkout,
    as a user's checkout has it; the tests from wherever it is."""
    return code.replace("../shared/data", str(data_dir))


def test_the_site_builds_strictly(tmp_path):
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "meta_evaluate" in api and "Examples" in api  # the reference is generated from the docstrings


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    missing = [str(p.relative_to(DOCS)) for p in PAGES if str(p.relative_to(DOCS)) not in nav]
    assert not missing


@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p, "python")], ids=lambda p: str(p.relative_to(DOCS)))
def test_the_python_examples_of_a_page_run(page, data_dir):
    code = "\n".join(_blocks(page, "python"))
    res = subprocess.run([sys.executable, "-c", _with_data(code, data_dir)], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, f"{page.name}:\n{res.stderr[-3000:]}"
    assert res.stdout.strip()  # the examples print what they show


@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p, "console")], ids=lambda p: str(p.relative_to(DOCS)))
def test_the_command_lines_of_a_page_run(page, data_dir):
    lines = [line[2:] for block in _blocks(page, "console") for line in block.splitlines() if line.startswith("$ ")]
    assert lines
    for line in lines:
        assert line.startswith("metaeval "), line
        command = f"{shlex.quote(sys.executable)} -m metaeval.cli {_with_data(line[len('metaeval '):], data_dir)}"
        res = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, f"{line}\n{res.stderr[-3000:]}"
        assert res.stdout.strip()


def test_the_readme_is_short_and_its_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    assert links and all((ROOT / link).exists() for link in links if "://" not in link), links
    for question, page in (("every format", "docs/your-data.md"), ("experiments", "docs/experiments/index.md"),
                           ("recommendation", "docs/recommendation.md")):  # a new user's three questions
        assert f"]({page})" in readme, question


@pytest.mark.parametrize("module", ["metrics", "spans", "significance", "properties", "api", "ranking", "confusion",
                                    "chance", "resample", "design", "crossdata"])
def test_every_public_function_has_a_runnable_example(module):
    """The public API's docstrings (what the reference pages show) each
    carry an example, which --doctest-modules runs."""
    import importlib
    import inspect

    m = importlib.import_module(f"metaeval.{module}")
    lacking = [n for n in m.__all__ if (inspect.isfunction(getattr(m, n, None)) or inspect.isclass(getattr(m, n, None)))
               and ">>>" not in (getattr(m, n).__doc__ or "")]
    assert not lacking


def test_the_metrics_page_lists_every_id_with_its_function_and_other_names():
    """Issue 31: every metric id links to the function that computes it
    (an anchor of the generated reference), and every other name is said."""
    import re

    from metaeval import metrics as M

    page = (DOCS / "metrics.md").read_text(encoding="utf-8")
    rows = {}
    for line in page.splitlines():
        m = re.match(r"\| \[(`[^]]+`)\]\(reference/metrics\.md#metaeval\.metrics\.(\w+)\)", line)
        if m:
            for mid in re.findall(r"`(\w+)`", m.group(1)):
                rows[mid] = m.group(2)
    assert set(rows) == set(M.METRIC_IDS)
    for mid, fn in rows.items():
        target = M.get(mid).fn
        assert getattr(target, "func", target).__name__ == fn, mid  # (functools.partial: its function)
    for alias in M.ALIASES:
        assert f"`{alias}`" in page
