"""Benchmark: each step of one chunk of rank stability, alone (issue 50).

    python benchmarks/bench_stability_steps.py            # 1 thread
    python benchmarks/bench_stability_steps.py --stratified

The scale benchmark's data (``bench_stability.synthetic``: 100,000 items,
100 systems, three ordered classes, every ordinal metric), one chunk of 200
half-splits, each step timed alone on one thread, best of 7, in seconds per
1,000 splits: the draw of the halves, their counts (the confusion tensors),
the metrics of both halves, Kendall's tau between them and the tier taus;
beside them the float32 product of the chunk's shapes (what the counting
cannot beat).  This machine's timings move up to 2x from one minute to the
next: compare versions alternately, with the spin test printed first.
"""

from __future__ import annotations

import argparse
import sys
import time
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stratified", action="store_true", help="stratified halves (the default: random)")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()

    from bench_stability import synthetic
    from metaeval.engine.kernels import threads
    from metaeval.engine.ranking import kendall_tau
    from metaeval.engine.resample import split_masks
    from metaeval.methods import experiments as E
    from metaeval.methods.scorer import Scorer

    t0 = time.perf_counter()
    s = 0
    for i in range(20_000_000):
        s += i
    print(f"spin {time.perf_counter() - t0:.2f} s")
    n, n_sys, k, chunk = 100_000, 100, 3, 200
    spec, ds = synthetic(n, n_sys, k)
    settings = E.Settings(include_baselines=(), chunk_size=chunk, stratified=args.stratified)
    sel = E.select_systems(ds, settings.include_baselines)
    scorer = Scorer(ds, spec, sel, settings.resample_unit)
    tiers = E._tiers(scorer.score(scorer.total, oriented=True), E.tier_sizes(len(sel), settings.tier_fractions))
    strata = ds.gold if settings.stratified else None
    idx = np.arange(chunk)

    def per_1000(f) -> float:
        return min(timeit.repeat(f, number=1, repeat=args.repeat)) * 1000 / chunk

    def draw():
        return split_masks(scorer.n_units, idx, settings.split_seed, strata, pos=scorer.draw_pos, dtype=np.float32)

    with threads(1):
        w = draw()
        half = scorer.counts(w, engine_order=True)
        rest = scorer.total - half
        x, y = scorer.score(half, oriented=True), scorer.score(rest, oriented=True)

        def tier():
            for members in tiers:
                kendall_tau(np.take_along_axis(x, members[None], axis=-1),
                            np.take_along_axis(y, members[None], axis=-1), settings.tau_variant)

        onehot = np.zeros((n, n_sys * (k - 1)), dtype=np.float32)
        masks = (np.random.default_rng(1).random((chunk, n)) < 0.5).astype(np.float32)
        steps = {
            "draw": draw,
            "counts": lambda: scorer.counts(w, engine_order=True),
            "metrics (both halves)": lambda: (scorer.score(half, oriented=True), scorer.score(rest, oriented=True)),
            "tau": lambda: kendall_tau(x, y, settings.tau_variant),
            "tier taus": tier,
            "float32 product": lambda: masks @ onehot,
        }
        for name, f in steps.items():
            f()
            print(f"{name:24s} {per_1000(f):.3f} s per 1,000 splits", flush=True)


if __name__ == "__main__":
    main()
