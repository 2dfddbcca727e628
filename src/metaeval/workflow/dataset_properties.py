"""The formal properties of one dataset's own shape (``metaeval.measures.properties``):
the requirements its recommendation offers and checks."""

from __future__ import annotations

from typing import Mapping

from ..data.files import write_csv
from .steps import note as log_note

# the keys of the config's properties block a dataset's shape reads: the domain (its weights, F_avg classes and
# unrelated class are the dataset's own)
DOMAIN_KEYS = ("n_max", "random", "random_n_max", "random_sparse_n_max", "seed")


def run_dataset_properties(spec, block: Mapping | None, data_npz, out_csv) -> None:
    """The formal properties on one dataset's own shape (its number of
    classes, ordered or not, its default class weights, F_avg classes and
    FNC-1 unrelated class, its gold class sizes: ``properties.dataset_settings``)
    for its classification metrics: the dataset's ``properties.csv``, which
    its recommendation reads as requirements.  ``block``: the config's
    ``properties`` (the domain's sizes and seed)."""
    import numpy as np

    from ..data.dataset import Dataset
    from ..measures.properties import check_all, dataset_settings
    from ..settings import PropertySettings
    from ..measures.matrices import domain_matrices

    from ..measures.custom import check_registered

    ds = Dataset.load(data_npz)
    # a custom metric that breaks its contract on the systems' matrices has no result anywhere
    check_registered(spec.metrics, ds.confusion(), spec.metric_params(), where=f"the systems of dataset {spec.name!r}")
    sizes = np.bincount(ds.gold, minlength=ds.k)
    settings = dataset_settings(spec, sizes, PropertySettings.from_config(block))
    df = check_all(settings, list(spec.metrics))
    write_csv(out_csv, df)
    log_note(f"checked {df['metric'].nunique()} metrics against {df['property'].nunique()} properties on "
             f"{len(domain_matrices(settings)):,} matrices of {settings.k} {'ordered' if settings.ordinal else 'unordered'}"
             f" classes (class sizes {', '.join(map(str, sizes))}; weights "
             f"{', '.join(f'{w:g}' for w in settings.weights)})")
