"""Benchmark: bootstrap intervals and the randomised Tukey HSD test, engine
vs the straightforward loop.

    python benchmarks/bench_significance.py          # FNC-1: 1,000 replicates and 1,000 trials
    python benchmarks/bench_significance.py --big    # + 100k items x 100 systems x 1,000 Tukey trials

1. The engine (``metaeval.methods.significance``): the confusion tensors of every
   bootstrap replicate from one matrix product of the replicates' item counts
   with the one-hot predictions; the permuted systems of every Tukey trial
   counted by a compiled pass; every metric one vectorised call.
2. The loop a researcher would write: for each replicate (trial), rebuild
   the resampled (permuted) label arrays and score every system with
   scikit-learn / krippendorff / hand-written CEM^ORD, then take quantiles
   (ranges).  It uses the same draws (``resample.bootstrap_weights``,
   ``resample.permutations``), runs on the first ``--loop`` of them, and its
   time for all of them is extrapolated (it is linear in their number).

The script checks that both give the same scores on the replicates both ran
(and so the same intervals and p-values given the same draws) and prints the
times and the ratios.  A script, not a test: tests assert correctness only.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_stability import loop_scores, synthetic  # noqa: E402

from metaeval.methods import experiments as E  # noqa: E402
from metaeval.methods import significance as SG  # noqa: E402
from metaeval.methods import bootstrap as SGB  # noqa: E402
from metaeval.data.config import dataset_specs, load_config, resolve_data_dir  # noqa: E402
from metaeval.data.dataset import load_dataset  # noqa: E402
from metaeval.engine.resample import bootstrap_weights, permutations  # noqa: E402
from metaeval.workflow import experiment_settings  # noqa: E402


def best_of(fn, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def loop_bootstrap(ds, spec, settings, replicates):
    sel = E.select_systems(ds, settings.include_baselines)
    params = spec.metric_params()
    w = bootstrap_weights(ds.n_items, replicates, settings.bootstrap_seed)
    out = np.empty((len(replicates), len(spec.metrics), len(sel)))
    for b in range(len(replicates)):
        idx = np.repeat(np.arange(ds.n_items), w[b])
        for j, s in enumerate(sel):
            sc = loop_scores(ds.gold[idx], ds.predictions[s][idx], ds.k, spec.metrics, params)
            out[b, :, j] = [sc[m] for m in spec.metrics]
    return out


def loop_tukey(ds, spec, settings, trials):
    sel = E.select_systems(ds, settings.include_baselines)
    params = spec.metric_params()
    perms = permutations(ds.n_items, len(sel), trials, settings.tukey_seed)
    pred = ds.predictions[sel]
    out = np.empty((len(trials), len(spec.metrics), len(sel)))
    for t in range(len(trials)):
        permuted = pred[perms[t].T, np.arange(ds.n_items)[None, :]]  # slot s, item i: pred[perm[t, i, s], i]
        for j in range(len(sel)):
            sc = loop_scores(ds.gold, permuted[j], ds.k, spec.metrics, params)
            out[t, :, j] = [sc[m] for m in spec.metrics]
    return out


def fnc1(args):
    cfg = load_config(args.config)
    data_dir = resolve_data_dir(args.data_dir or cfg["data_dir"], base=ROOT)
    spec, settings = dataset_specs(cfg)["fnc1"], experiment_settings(cfg, "fnc1")
    ds = load_dataset(spec, data_dir)
    scorer, systems = SGB._scorer(ds, spec, settings)
    print(f"fnc1: {ds.n_items} items, {len(systems)} ranked systems, {len(spec.metrics)} metrics")
    SGB.bootstrap_scores(scorer, 5, settings.bootstrap_seed)  # compile the kernels outside the timing
    scorer.permuted_counts(range(2), settings.tukey_seed)
    t_boot, boot = best_of(lambda: SGB.bootstrap_scores(scorer, settings.bootstrap_replicates,
                                                       settings.bootstrap_seed, settings.chunk_size))
    t_tukey, perm = best_of(lambda: np.concatenate([
        scorer.score(scorer.permuted_counts(range(lo, min(lo + settings.chunk_size, settings.tukey_trials)),
                                            settings.tukey_seed))
        for lo in range(0, settings.tukey_trials, settings.chunk_size)]))
    n = args.loop
    t = time.perf_counter()
    lb = loop_bootstrap(ds, spec, settings, range(n))
    loop_b = (time.perf_counter() - t) / n * settings.bootstrap_replicates
    t = time.perf_counter()
    lt = loop_tukey(ds, spec, settings, range(n))
    loop_t = (time.perf_counter() - t) / n * settings.tukey_trials
    db = np.nanmax(np.abs(boot[:n] - lb))
    dt = np.nanmax(np.abs(perm[:n] - lt))
    print(f"bootstrap, {settings.bootstrap_replicates} replicates: engine {t_boot:.2f} s; loop {loop_b:.0f} s "
          f"(extrapolated from {n}); speed-up {loop_b / t_boot:,.0f}x; max |score difference| {db:.1e}")
    print(f"Tukey HSD, {settings.tukey_trials} trials: engine {t_tukey:.2f} s; loop {loop_t:.0f} s "
          f"(extrapolated from {n}); speed-up {loop_t / t_tukey:,.0f}x; max |score difference| {dt:.1e}")
    ok = db < 1e-9 and dt < 1e-9
    print("same scores on the shared draws, so the same intervals and p-values:", "OK" if ok else "MISMATCH")


def big():
    spec, ds = synthetic(100_000, 100)
    settings = E.Settings(include_baselines=(), tukey_trials=1000)
    scorer, _ = SGB._scorer(ds, spec, settings)
    scorer.permuted_counts(range(2), 1)
    t = time.perf_counter()
    res = SG.run_significance(ds, spec, settings)
    dt = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Tukey HSD, 100k items x 100 systems x 1,000 trials, {len(spec.metrics)} metrics: {dt:.1f} s, "
          f"peak resident memory {peak:.0f} MB ({len(res['significance'])} pair p-values)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--loop", type=int, default=3, help="replicates / trials the loop runs")
    ap.add_argument("--big", action="store_true")
    args = ap.parse_args()
    fnc1(args)
    if args.big:
        big()


if __name__ == "__main__":
    main()
