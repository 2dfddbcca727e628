"""The label-noise and class-priors step (datasets with classes): its own
job, which reads the significance experiment's Tukey trials from their
file, so that a noise setting reruns neither the bootstrap nor the trials."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..data.config import DatasetSpec
from ..data.dataset import Dataset
from ..data.files import read_result_csv, write_csv
from .steps import timed


def run_sensitivity(spec: DatasetSpec, settings, data_npz, out: Mapping[str, str], trials_npz=None,
                    power_csv=None) -> None:
    """Label noise and class priors (``metaeval.methods.sensitivity``):
    ``noise.csv`` and ``priors.csv``.  ``trials_npz``, ``power_csv``: the
    significance experiment's Tukey trials and discriminative power, reused
    (the same trials, seed and units) instead of drawn again."""
    from ..pipeline.stages import sensitivity_power
    from ..methods.sensitivity import dataset_sensitivity

    ds = Dataset.load(data_npz)
    permuted = power = None
    if trials_npz and settings.significance_test == "tukey":
        with np.load(trials_npz, allow_pickle=False) as z:
            permuted = z["permuted"] if z["permuted"].ndim == 4 else None
        power = sensitivity_power(spec, settings, permuted, read_result_csv(power_csv) if power_csv else None)
    mode = settings.noise_mode if settings.noise_mode != "auto" else ("neighbour" if spec.ordinal else "uniform")
    with timed(f"label noise (rates {', '.join(f'{r:g}' for r in settings.noise_rates)}, "
               f"{settings.noise_repeats} repeats, {mode} noise; the significance experiment's "
               f"{'trials reused' if permuted is not None else 'trials drawn again'}) and class priors (gammas "
               f"{', '.join(f'{g:g}' for g in settings.prior_gammas)})"):
        noise, priors = dataset_sensitivity(ds, spec, settings, permuted, power)
    write_csv(out["noise"], noise)
    write_csv(out["priors"], priors)
