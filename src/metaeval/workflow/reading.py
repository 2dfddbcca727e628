"""The ingestion step: every input file of a dataset read and checked,
the coded labels written (``data.npz``, ``dataset.json``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..data.config import DatasetSpec
from ..data.dataset import Dataset, load_dataset
from ..data.files import DataError, atomic_path, write_text
from .steps import note as log_note, warn


def ingest(spec: DatasetSpec, data_dir, out_npz, out_json, results_dir=None, logs_dir=None,
           log=None) -> Dataset:
    """Read and check every input file of a dataset; write the coded labels.

    On bad input, every previous result of the dataset (``results_dir``)
    and the logs of its other jobs (``logs_dir``, all but this job's
    ``log``) are removed before the ``DataError`` propagates, so no stale
    table or log is left looking valid (the workflow's ``onerror`` then
    removes the reports that summarise it).
    """
    try:
        ds = load_dataset(spec, data_dir)
    except DataError:
        if results_dir is not None and Path(results_dir).is_dir():
            shutil.rmtree(results_dir)
        if logs_dir is not None and Path(logs_dir).is_dir():
            keep = Path(log).resolve() if log else None
            for f in Path(logs_dir).iterdir():
                if f.is_file() and f.resolve() != keep:
                    f.unlink()
        raise
    with atomic_path(out_npz) as tmp:
        ds.save(tmp)
    write_text(out_json, json.dumps(ds.info, indent=2) + "\n")
    log_note(_read_summary(spec, ds))
    for w in ds.info.get("warnings", []):  # to the job's log and the console
        warn(f"dataset {spec.name!r}: {w}")
    return ds

def _read_summary(spec: DatasetSpec, ds: Dataset) -> str:
    """One line for the ingestion's log: what was read."""
    info, kinds = ds.info, list(ds.kinds)
    what = (f"{info['n_gold_spans']:,} gold spans in {info['n_articles']:,} documents"
            + (f", {ds.n_items:,} items in {ds.k} classes" if ds.k else "")) if spec.span_task else \
        f"{ds.n_items:,} items in {ds.k} classes"
    base = [s for s, k in zip(ds.systems, kinds) if k == "baseline"]
    return (f"read {spec.gold}: {what}; {kinds.count('system')} system(s), {kinds.count('synthetic')} synthetic, "
            f"{len(base)} baseline(s) ({', '.join(base) or 'none'}); {len(info.get('warnings', []))} warning(s)")
