"""The experiment steps: computations only, written as CSV and NPZ files
(the figures and tables are drawn from them by ``workflow.figures``, so
that a figure's look never reruns a computation): rank stability (its
shards), ranking agreement, class merging, bootstrap intervals,
significance, class weights (label noise and class priors: ``workflow.sensitivity``)."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..data.config import DatasetSpec
from ..data.dataset import Dataset
from ..data.files import atomic_path, write_csv, write_text
from .steps import note as log_note, timed, warn
from .common import write_markdown


def few_groups_note(spec: DatasetSpec, settings, data_npz) -> str | None:
    """``experiments.few_groups_note`` of a dataset file."""
    from ..methods.experiments import few_groups_note as note

    return note(spec, settings, Dataset.load(data_npz))


def write_kernels(out_txt) -> None:
    """The kernels job: compile the engine's kernels into numba's cache
    (``resample.compile_kernels``) and list the compiled signatures."""
    from ..engine.resample import compile_kernels

    import numba

    sigs = compile_kernels()
    write_text(out_txt, f"numba {numba.__version__}: the kernels of metaeval.engine.kernels, compiled and cached\n"
               + "".join(f"{s}\n" for s in sigs))

def shard_splits(settings, shard: int, n_shards: int) -> np.ndarray:
    """The split indices of one shard (contiguous, as even as possible)."""
    return np.array_split(np.arange(settings.n_splits), n_shards)[shard]

def run_stability_shard(spec: DatasetSpec, settings, data_npz, shard: int, n_shards: int, out_npz):
    from ..methods.experiments import stability_splits

    ds = Dataset.load(data_npz)
    idx = shard_splits(settings, shard, n_shards)
    res = stability_splits(ds, spec, settings, idx)
    log_note(f"shard {shard + 1} of {n_shards}: {idx.size} half-splits ({idx[:1].tolist()} to {idx[-1:].tolist()}) "
             f"of {settings.n_splits}, seed {settings.split_seed}")
    with atomic_path(out_npz) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **res)

def run_weights(spec: DatasetSpec, settings, data_npz, out_csv, out_tau, out_md, out_html=None):
    """weights.csv (long form), weights_tau.csv, tables/weights.md (and .html)."""
    from ..methods.experiments import weight_sensitivity
    from ..present.tables import weights_markdown

    ds = Dataset.load(data_npz)
    long, taus = weight_sensitivity(ds, spec, settings)
    log_note(f"{len(spec.weights)} weight sets ({', '.join(spec.weights)}) of {len(ds.systems)} systems")
    write_csv(out_csv, long)
    write_csv(out_tau, taus)
    title = f"{spec.name}: weighted metrics under every class-weight set"
    write_markdown(out_md, weights_markdown(long, taus, spec.weights, spec.labels, title), out_html, title)


def _save_npz(path, **arrays) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)


def run_experiments(spec: DatasetSpec, settings, data_npz, shard_paths, out: Mapping[str, str]) -> None:
    """The experiments job of a dataset, one after the other on one loaded
    dataset: ranking agreement, rank stability (gathering the shards, or
    drawing the splits when there are none), class merging (when ``out``
    has ``merging``), bootstrap intervals (their replicates in
    ``bootstrap.npz``), significance and discriminative power (the Tukey
    trials' confusion tensors in ``trials.npz``, when ``out`` has it, for
    the label-noise step), and the Table-7 summary.  Files only: the
    figures and tables are ``run_experiment_figures``'."""
    from ..methods import experiments as E
    from ..pipeline.stages import experiment_tables

    note = few_groups_note(spec, settings, data_npz)
    if note:
        warn(note)
    ds = Dataset.load(data_npz)
    sel = E.select_systems(ds, settings.include_baselines)
    ranked_base = [ds.systems[i] for i in sel if ds.kinds[i] == "baseline"]
    log_note(f"{len(sel)} ranked systems (baselines among them: {', '.join(ranked_base) or 'none'}), "
             f"{len(spec.all_metrics)} metrics, resampling "
             f"{spec.unit_noun(settings.resample_unit)}; Kendall's tau-{settings.tau_variant}")
    parts = []
    for p in shard_paths:
        with np.load(p, allow_pickle=False) as z:
            parts.append({k: z[k] for k in z.files})
    tables, arrays = experiment_tables(ds, spec, settings, stability_parts=parts or None, merging="merging" in out,
                                       timed=timed)
    for name, df in tables.items():
        write_csv(out[_OUT[name]], df)
    _save_npz(out["bootstrap"], boot=arrays["boot"], value=arrays["value"],
              systems=np.array(arrays["systems"], dtype=str), metrics=np.array(arrays["metrics"], dtype=str))
    if "trials" in out:  # the label-noise step scores these trials again on noisy golds
        kept = arrays["permuted"]
        _save_npz(out["trials"], permuted=kept if kept is not None else np.zeros((0,), dtype=np.int8))


# the experiments rule's output of each table of the stage (metaeval.pipeline.experiment_tables)
_OUT = {"similarity.csv": "similarity", "similarity_groups.csv": "groups", "stability.csv": "stability",
        "stability_splits.csv": "stability_splits", "merging.csv": "merging",
        "merging_balanced.csv": "merging_balanced", "intervals.csv": "intervals",
        "similarity_intervals.csv": "similarity_intervals", "significance.csv": "significance",
        "significance_best.csv": "significance_best", "discriminative_power.csv": "power",
        "summary.csv": "summary"}
