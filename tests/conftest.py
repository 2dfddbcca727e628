"""Shared fixtures.  Real-data tests read ../shared/data (beside the
checkout) or $METAEVAL_DATA_DIR; they are skipped when it is missing,
except under CI (CI=true), where a missing data folder is a failure."""

from __future__ import annotations

import os
from pathlib import Path

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
    from metaeval.config import load_config

    return load_config(ROOT / "config" / "config.yaml")
