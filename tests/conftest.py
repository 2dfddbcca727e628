"""Shared fixtures.  Real-data tests read ../shared/data (beside the
checkout) or $METAEVAL_DATA_DIR; they are skipped when it is missing,
except under CI (CI=true), where a missing data folder is a failure."""

from __future__ import annotations

import os
from pathlib import Path

import shutil

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _data_dir() -> Path:
    return Path(os.environ.get("METAEVAL_DATA_DIR", ROOT.parent / "shared" / "data")).resolve()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    d = _data_dir()
    if not d.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"shared data folder {d} is missing (set METAEVAL_DATA_DIR)")
        pytest.skip(f"shared data folder {d} not available")
    return d


@pytest.fixture(scope="session")
def project_config() -> dict:
    from metaeval.data.config import load_config

    return load_config(ROOT / "config" / "config.yaml")


@pytest.fixture(scope="session")
def run(tmp_path_factory):
    """The .test config run once on a copy of the fixtures (the work folder
    and the data folder), shared by the workflow's test modules: a test that
    changes it restores it, or works on a copy (``workflow_helpers._copy_of``)."""
    from .workflow_helpers import _run

    base = tmp_path_factory.mktemp("wf")
    data = base / "data"
    shutil.copytree(FIXTURES, data)
    work = base / "work"
    work.mkdir()
    _run(work, data)
    return work, data


# The longest test files first: with one file per worker at a time
# (--dist=loadfile), the suite ends when its longest file does, so those
# start at once and the short ones fill the other cores.
_LONGEST_FIRST = ("test_workflow_edits.py", "test_workflow.py", "test_report.py", "test_criteria.py",
                  "test_experiments.py", "test_metrics_reference.py")


def pytest_collection_modifyitems(items):
    def rank(item):
        name = item.path.name
        return _LONGEST_FIRST.index(name) if name in _LONGEST_FIRST else len(_LONGEST_FIRST)

    items.sort(key=rank)  # stable: the order within a file is kept
