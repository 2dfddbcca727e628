"""The test-set size design step (``metaeval.methods.design``): in the
recommendation's job, after the experiments, from the bootstrap
experiment's replicates (``bootstrap.npz``) and the dataset."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..data.config import DatasetSpec
from ..data.dataset import Dataset
from ..data.files import write_csv
from .steps import timed


def run_design(spec: DatasetSpec, settings, data_npz, bootstrap_npz, out: Mapping[str, str]) -> None:
    """``design.csv``, ``design_needed.csv`` and ``design_swaps.csv``
    (``design.dataset_design``)."""
    from ..methods.design import dataset_design

    ds = Dataset.load(data_npz)
    with np.load(bootstrap_npz, allow_pickle=False) as z:
        value, boot = z["value"], z["boot"]
    with timed(f"test-set size design (power {settings.design_power:g} at alpha {settings.alpha:g}; "
               f"{settings.design_draws} pairs of disjoint subsets per size, seed {settings.design_seed})"):
        design, needed, swaps = dataset_design(ds, spec, settings, value, boot)
    write_csv(out["design"], design)
    write_csv(out["design_needed"], needed)
    write_csv(out["design_swaps"], swaps)
