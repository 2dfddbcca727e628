"""The criteria_shard step: a part of the recommendation's criteria
resamples (``criteria_shards`` >= 2), in a module of its own so that its
code fingerprint holds the verdict's computation and not the figures'
(a figure's look reruns no shard)."""

from __future__ import annotations

from ..data.config import DatasetSpec
from ..data.dataset import Dataset
from .steps import note as log_note


def run_criteria_shard(spec: DatasetSpec, settings, data_npz, shard: int, n_shards: int, out_npz) -> None:
    """A criteria_shard job: its part of the criteria's resamples
    (``verdict.recommendation.criteria_shard``) as an NPZ file."""
    import numpy as np

    from ..data.files import atomic_path
    from ..verdict.recommendation import criteria_shard

    part = criteria_shard(Dataset.load(data_npz), spec, settings, shard, n_shards)
    rows = part["rows"]
    log_note(f"shard {shard + 1} of {n_shards}: {rows.size} of the criteria's {settings.criteria_replicates} "
             f"resamples" + (f" ({rows[0]} to {rows[-1]})" if rows.size else "") + f", seed {settings.criteria_seed}")
    with atomic_path(out_npz) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **part)
