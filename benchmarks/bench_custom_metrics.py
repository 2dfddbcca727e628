"""What a metric users bring costs the engine: 1,000 bootstrap replicates of
every system of fnc1_4class (25,413 items), scored with accuracy (built
in), the same accuracy registered as a custom metric of confusion tensors,
and accuracy written as per-item terms (``metaeval.measures.items``); the
three give the same scores.

    python benchmarks/bench_custom_metrics.py [--data-dir ../shared/data] [--replicates 1000] [--loop 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import yaml

from metaeval.data.config import dataset_specs
from metaeval.measures.custom import register_metric
from metaeval.data.dataset import load_dataset
from metaeval.engine.resample import unit_draws
from metaeval.methods.scorer import Scorer, select_systems
from metaeval.measures.items import register_item_metric

ROOT = Path(__file__).resolve().parents[1]


def acc_terms(gold, pred, items):
    right = (pred == gold[None, :]).astype(float)
    return np.stack([right, np.ones_like(right)], axis=-1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--dataset", default="fnc1_4class")
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--loop", type=int, default=3)
    a = ap.parse_args()
    register_metric("acc_custom", lambda c: np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1)), range=(0, 1))
    register_item_metric("acc_items", acc_terms, lambda t: t[..., 0] / t[..., 1], range=(0, 1))
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    spec = dataset_specs(cfg)[a.dataset]
    ds = load_dataset(spec, a.data_dir)
    sel = select_systems(ds, ())
    out = {}
    for ids in (["accuracy"], ["acc_custom"], ["acc_items"]):
        from dataclasses import replace

        sp = replace(spec, metrics=tuple(m for m in ids if m != "acc_items"),
                     item_metrics=tuple(m for m in ids if m == "acc_items"))
        times = []
        for _ in range(a.loop):
            t0 = time.perf_counter()
            sc = Scorer(ds, sp, sel, "item")
            scores = []
            for lo in range(0, a.replicates, 100):
                w = unit_draws(sc.n_units, np.arange(lo, min(lo + 100, a.replicates)), 1)
                scores.append(sc.score(sc.counts(w)))
            times.append(time.perf_counter() - t0)
        out[ids[0]] = np.concatenate(scores)
        print(f"{ids[0]:>12}: {min(times):.3f} s (best of {a.loop}; {a.replicates} replicates, {sel.size} systems, "
              f"{ds.n_items} items)")
    for k in ("acc_custom", "acc_items"):
        print(f"{k} vs accuracy: max |difference| {np.nanmax(np.abs(out[k] - out['accuracy'])):.2e}")


if __name__ == "__main__":
    main()
