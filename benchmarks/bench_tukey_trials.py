"""Benchmark: how many randomised Tukey HSD trials make discriminative power
stable to the count shown?

    python benchmarks/bench_tukey_trials.py                       # 5 seeds x 1k, 5k, 10k, 20k trials
    python benchmarks/bench_tukey_trials.py --seeds 8 --trials 1000 10000

For every dataset of ``config/config.yaml`` with classes and enough systems
(fnc1, fnc1_4class, rumoureval2017, rumoureval2019, semeval2016t6,
semeval2020t11_tc), with the pipeline's settings (``experiment_settings``)
except ``tukey_trials`` and ``tukey_seed``, it runs
``significance.run_significance`` once per (trials, seed): seeds
``tukey_seed + i``, i = 0..seeds-1.  Per dataset, metric and number of
trials it records the number of significant pairs at alpha under every seed
(min, max), the borderline pairs (``n_borderline``: p within 2.576 Monte
Carlo standard errors of alpha) and the largest |p(seed i) - p(seed 0)| over
the pairs; per dataset and trials the wall-clock time of one run (mean over
the seeds).  Results: ``benchmarks/bench_tukey_trials.csv`` (one row per
dataset, metric, trials) and the summary printed at the end.

Measured 2026-11-23 (commit 6a2260b) on the shared 2-core machine (two other engineers at
work), 5 seeds; "spread" is max - min of n_significant over the seeds,
summed over the metrics of a dataset (metrics whose count moved, in
brackets); time is one run of ``run_significance`` (scores, trials,
p-values, tables):

| dataset (pairs x metrics) | trials | spread (metrics) | borderline, mean | max abs p shift | time |
|---|---:|---:|---:|---:|---:|
| fnc1 (171 x 15) | 1,000 | 14 (9) | 33.6 | 0.0800 | 0.62 s |
| fnc1 (171 x 15) | 5,000 | 6 (6) | 15.4 | 0.0246 | 2.94 s |
| fnc1 (171 x 15) | 10,000 | 3 (3) | 12.0 | 0.0128 | 6.43 s |
| fnc1 (171 x 15) | 20,000 | 2 (2) | 7.8 | 0.0120 | 11.16 s |
| fnc1_4class (171 x 10) | 1,000 | 7 (5) | 14.4 | 0.0680 | 1.58 s |
| fnc1_4class (171 x 10) | 5,000 | 1 (1) | 3.0 | 0.0208 | 8.89 s |
| fnc1_4class (171 x 10) | 10,000 | 1 (1) | 2.0 | 0.0217 | 19.02 s |
| fnc1_4class (171 x 10) | 20,000 | 1 (1) | 1.2 | 0.0124 | 36.35 s |
| rumoureval2017 (36 x 12) | 1,000 | 7 (5) | 9.8 | 0.0570 | 0.09 s |
| rumoureval2017 (36 x 12) | 5,000 | 2 (2) | 4.0 | 0.0190 | 0.30 s |
| rumoureval2017 (36 x 12) | 10,000 | 2 (2) | 2.8 | 0.0126 | 0.58 s |
| rumoureval2017 (36 x 12) | 20,000 | 2 (2) | 2.4 | 0.0089 | 1.17 s |
| rumoureval2019 (28 x 12) | 1,000 | 0 (0) | 1.6 | 0.0630 | 0.11 s |
| rumoureval2019 (28 x 12) | 5,000 | 0 (0) | 0.0 | 0.0184 | 0.43 s |
| rumoureval2019 (28 x 12) | 10,000 | 0 (0) | 0.0 | 0.0151 | 0.87 s |
| rumoureval2019 (28 x 12) | 20,000 | 0 (0) | 0.0 | 0.0089 | 2.11 s |
| semeval2016t6 (15 x 16) | 1,000 | 2 (1) | 5.0 | 0.0440 | 0.09 s |
| semeval2016t6 (15 x 16) | 5,000 | 1 (1) | 1.4 | 0.0228 | 0.40 s |
| semeval2016t6 (15 x 16) | 10,000 | 1 (1) | 1.2 | 0.0160 | 0.84 s |
| semeval2016t6 (15 x 16) | 20,000 | 1 (1) | 1.0 | 0.0114 | 1.56 s |
| semeval2020t11_tc (190 x 17) | 1,000 | 26 (11) | 41.4 | 0.0560 | 0.31 s |
| semeval2020t11_tc (190 x 17) | 5,000 | 7 (6) | 23.2 | 0.0334 | 1.56 s |
| semeval2020t11_tc (190 x 17) | 10,000 | 10 (8) | 17.4 | 0.0203 | 3.10 s |
| semeval2020t11_tc (190 x 17) | 20,000 | 8 (7) | 14.4 | 0.0126 | 7.01 s |

Conclusion, and the default ``tukey_trials: 10000``.  Over the 82 counts
(dataset x metric): at 1,000 trials 31 counts moved between seeds, by up to 5 pairs
(p-values by up to 0.08), 106 pairs borderline on average; at 5,000, 16
counts moved, by at most 2 pairs, 47 borderline; at 10,000, 15 moved, by at
most 2 (semeval2020t11_tc's accuracy and span precision; elsewhere at most
1), 35 borderline, p-values by at most 0.022; at 20,000, 13 moved, by at most
2, 27 borderline.  No number of trials makes every count exact: a pair whose
true p-value is at alpha flips at any T, which is why ``n_borderline`` is
reported.  Why 10,000: past 5,000 the counts move by at most a pair or two
whatever T; 10,000 halves the Monte Carlo variance of 5,000 (p-value standard
error at alpha 0.0022 against 0.0031; a quarter fewer borderline pairs) for
a few seconds per dataset (the time is linear in the trials: 0.6 s to 6.4 s
on FNC-1, 1.6 s to 19 s on fnc1_4class, 25,413 items, on the loaded machine;
timed again with the machine quiet, ``--trials 1000 10000 --seeds 2``: FNC-1
0.35 s and 3.3 s, fnc1_4class 0.9 s and 9.0 s, semeval2020t11_tc 0.22 s and
1.9 s, the other three 0.07 to 0.08 s and 0.5 to 0.7 s), while 20,000
doubles the time again for 35 -> 27 borderline pairs.  It is also
elinor's default, and METHODS 5.1 asks for at least 5,000.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metaeval.methods import significance as SG  # noqa: E402
from metaeval.data.config import dataset_specs, load_config, resolve_data_dir  # noqa: E402
from metaeval.data.dataset import load_dataset  # noqa: E402
from metaeval.workflow import experiment_settings  # noqa: E402

DATASETS = ("fnc1", "fnc1_4class", "rumoureval2017", "rumoureval2019", "semeval2016t6", "semeval2020t11_tc")


def measure(ds, spec, settings, trials: int, seeds: int) -> tuple[pd.DataFrame, float]:
    """Per metric: n_significant and n_borderline under each seed, and the
    largest p-value shift against the first seed; the mean time of a run."""
    rows, times, p0 = [], [], None
    for i in range(seeds):
        st = replace(settings, tukey_trials=trials, tukey_seed=settings.tukey_seed + i)
        t = time.perf_counter()
        res = SG.run_significance(ds, spec, st)
        times.append(time.perf_counter() - t)
        p = res["p"]
        p0 = p if p0 is None else p0
        with np.errstate(invalid="ignore"):
            shift = np.nanmax(np.abs(p - p0), axis=1, initial=0.0)
        pw = res["power"]
        rows.append(pd.DataFrame({"metric": pw["metric"], "seed": i, "n_pairs": pw["n_pairs"],
                                  "n_significant": pw["n_significant"], "n_borderline": pw["n_borderline"],
                                  "p_shift": shift}))
    return pd.concat(rows, ignore_index=True), float(np.mean(times))


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, metric, trials)."""
    g = df.groupby(["dataset", "metric", "trials"], sort=False)
    out = g.agg(n_pairs=("n_pairs", "first"), sig_min=("n_significant", "min"), sig_max=("n_significant", "max"),
                borderline_mean=("n_borderline", "mean"), borderline_max=("n_borderline", "max"),
                max_p_shift=("p_shift", "max"), seconds=("seconds", "first")).reset_index()
    out["spread"] = out["sig_max"] - out["sig_min"]
    return out


def table(per_metric: pd.DataFrame) -> str:
    lines = []
    for (d, t), g in per_metric.groupby(["dataset", "trials"], sort=False):
        moved = int((g["spread"] > 0).sum())
        lines.append(f"| {d} ({int(g['n_pairs'].iloc[0])} x {len(g)}) | {t:,} | {int(g['spread'].sum())} ({moved}) | "
                     f"{g['borderline_mean'].sum():.1f} | {g['max_p_shift'].max():.4f} | "
                     f"{g['seconds'].iloc[0]:.2f} s |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--trials", nargs="+", type=int, default=[1000, 5000, 10000, 20000])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "bench_tukey_trials.csv"))
    args = ap.parse_args()
    cfg = load_config(args.config)
    data_dir = resolve_data_dir(args.data_dir or cfg["data_dir"], base=ROOT)
    specs = dataset_specs(cfg)
    frames = []
    for name in args.datasets:
        spec, settings = specs[name], experiment_settings(cfg, name)
        ds = load_dataset(spec, data_dir)
        SG.run_significance(ds, spec, replace(settings, tukey_trials=20))  # compile the kernels outside the timing
        for trials in args.trials:
            df, sec = measure(ds, spec, settings, trials, args.seeds)
            frames.append(df.assign(dataset=name, trials=trials, seconds=sec))
            print(f"{name}: {trials:,} trials, {sec:.2f} s per run", flush=True)
    per_metric = summarise(pd.concat(frames, ignore_index=True))
    per_metric.to_csv(args.out, index=False, float_format="%.6g")
    print("| dataset (pairs x metrics) | trials | spread (metrics) | borderline, mean | max abs p shift | time |")
    print("|---|---:|---:|---:|---:|---:|")
    print(table(per_metric))


if __name__ == "__main__":
    main()
