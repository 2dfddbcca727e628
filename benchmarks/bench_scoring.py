"""Benchmark: scoring every system of every configured dataset on every metric.

    python benchmarks/bench_scoring.py [--config config/config.yaml] [--repeat 20]

Prints, per dataset, the time to read and check the files (I/O), to build
the (S, K, K) confusion tensor from the coded labels, and to compute all
metrics; writes results/benchmarks/scoring.csv.  A script, not a test:
tests assert correctness, this measures speed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from metaeval.measures import labels as M
from metaeval.data.config import dataset_specs, load_config, resolve_data_dir
from metaeval.engine.confusion import confusion_tensor
from metaeval.data.dataset import load_dataset

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--out", default="results/benchmarks/scoring.csv")
    args = ap.parse_args()
    cfg = load_config(args.config)
    data_dir = resolve_data_dir(args.data_dir or cfg["data_dir"], base=ROOT)
    rows = []
    for name, spec in dataset_specs(cfg).items():
        t = time.perf_counter()
        ds = load_dataset(spec, data_dir)
        t_io = time.perf_counter() - t
        params = spec.metric_params()
        t_conf = best_of(lambda: confusion_tensor(ds.gold, ds.predictions, ds.k), args.repeat)
        c = ds.confusion()
        t_metrics = best_of(lambda: M.evaluate(c, spec.metrics, **params), args.repeat)
        rows.append(dict(dataset=name, items=ds.n_items, systems=len(ds.systems), metrics=len(spec.metrics),
                         read_and_check_s=round(t_io, 4), confusion_ms=round(1e3 * t_conf, 3),
                         all_metrics_ms=round(1e3 * t_metrics, 3),
                         compute_ms=round(1e3 * (t_conf + t_metrics), 3)))
    df = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
