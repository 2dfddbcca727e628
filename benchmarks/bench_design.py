"""Benchmark: the test-set size design (metaeval.methods.design) and the cross-dataset
tables (metaeval.verdict.crossdata) on the default datasets.

    python benchmarks/bench_design.py              # every dataset with a meta-evaluation (needs results/)
    python benchmarks/bench_design.py --loop 3     # and 3 draws of the plain loop on rumoureval2017

For each dataset with a meta-evaluation: the seconds of
``design.dataset_design`` with the config's settings (the minimum detectable
difference for every size, the swap experiment's disjoint subsets), in this
process, from the bootstrap replicates of ``results/<dataset>/bootstrap.npz``
(run ``snakemake --cores 8`` first).  With ``--loop D``: the seconds per
draw of the plain loop a researcher would write (every subset rebuilt,
every system scored with scikit-learn, the swaps counted pair by pair) on
rumoureval2017's accuracy and macro-F1, and the speed-up for the engine's
draws, with the same counts.  Then the cross-dataset step
(``crossdata.gather``, ``replicability``, ``cross_recommendation``) on every
``recommendation.csv``.  Writes ``results/benchmarks/design.csv``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--loop", type=int, default=0, help="draws of the plain loop to time (0: none)")
    args = ap.parse_args(argv)

    from metaeval.verdict import crossdata as X
    from metaeval.methods import design as D
    from metaeval.data.config import dataset_specs, load_config
    from metaeval.data.dataset import Dataset
    from metaeval.methods.scorer import Scorer, select_systems
    from metaeval.data.files import read_result_csv
    from metaeval.workflow import experiment_settings

    cfg = load_config(args.config)
    results = ROOT / "results"
    rows, recs, kinds = [], {}, {}
    for name, spec in dataset_specs(cfg).items():
        if not (results / name / "bootstrap.npz").exists():
            continue
        st = experiment_settings(cfg, name)
        ds = Dataset.load(results / name / "data.npz")
        with np.load(results / name / "bootstrap.npz") as z:
            value, boot = z["value"], z["boot"]
        D.dataset_design(ds, spec, st, value, boot)  # warm (imports, kernels)
        t0 = time.perf_counter()
        design, _, _ = D.dataset_design(ds, spec, st, value, boot)
        dt = time.perf_counter() - t0
        n_sizes = int(design["swap_rate"].notna().sum() / design["metric"].nunique())
        rows.append({"dataset": name, "units": int(design.loc[design["fraction"] == 1.0, "size"].iloc[0]),
                     "systems": int(value.shape[1]), "metrics": int(value.shape[0]), "swap_sizes": n_sizes,
                     "draws": st.design_draws, "seconds": round(dt, 3)})
        print(f"{name:30s} {rows[-1]['units']:>6} units {value.shape[1]:>3} systems {value.shape[0]:>3} metrics, "
              f"{n_sizes} swap sizes x {st.design_draws} draws: {dt:6.3f} s", flush=True)
        if (results / name / "recommendation.csv").exists():
            recs[name] = read_result_csv(results / name / "recommendation.csv")
            kinds[name] = X.dataset_kind(spec)
    if args.loop:
        from dataclasses import replace

        from sklearn import metrics as skm

        from metaeval.engine.ranking import system_pairs
        from metaeval.engine.resample import random_keys

        name = "rumoureval2017"
        spec = replace(dataset_specs(cfg)[name], metrics=("accuracy", "macro_f1"))
        st = experiment_settings(cfg, name)
        ds = Dataset.load(results / name / "data.npz")
        sel = select_systems(ds, st.include_baselines)
        sc = Scorer(ds, spec, sel, "item")
        n = ds.n_items
        grid = D.size_grid(n, D.spec_of(st))
        sizes = grid[2 * grid <= n]
        t0 = time.perf_counter()
        eng = D.swap_curves(sc, sizes, replace(D.spec_of(st), draws=args.loop))
        t_eng = (time.perf_counter() - t0) / args.loop
        gold, pred = ds.gold, ds.predictions[sel]
        labels = list(range(ds.k))
        pairs = system_pairs(len(sel))
        rank = np.argsort(np.argsort(random_keys(n, range(args.loop), st.design_seed, "design"), axis=1), axis=1)
        swaps = np.zeros((2, sizes.size), dtype=np.int64)
        t0 = time.perf_counter()
        for h in range(args.loop):
            for i, size in enumerate(sizes):
                t1, t2 = rank[h] < size, (rank[h] >= size) & (rank[h] < 2 * size)
                for m, score in enumerate((skm.accuracy_score, lambda g, p: skm.f1_score(
                        g, p, labels=labels, average="macro", zero_division=0))):
                    v1 = np.array([score(gold[t1], p[t1]) for p in pred])
                    v2 = np.array([score(gold[t2], p[t2]) for p in pred])
                    d1, d2 = np.round(v1[pairs[:, 0]] - v1[pairs[:, 1]], 12), np.round(v2[pairs[:, 0]] - v2[pairs[:, 1]], 12)
                    swaps[m, i] += int((d1 * d2 <= 0).sum())
        t_loop = (time.perf_counter() - t0) / args.loop
        same = np.array_equal(swaps, eng["swaps"].sum(axis=-1))
        rows.append({"dataset": f"{name} plain loop (2 metrics, per draw)", "units": n, "systems": len(sel),
                     "metrics": 2, "swap_sizes": int(sizes.size), "draws": 1, "seconds": round(t_loop, 3)})
        print(f"plain loop, {name}, 2 metrics, {sizes.size} sizes: {t_loop:.2f} s per draw against the engine's "
              f"{t_eng * 1000:.1f} ms ({t_loop / t_eng:,.0f}x); the same swap counts: {'OK' if same else 'MISMATCH'}")
    t0 = time.perf_counter()
    long = X.gather(recs, kinds)
    X.replicability(long, 0.05)
    X.cross_recommendation(long)
    dt = time.perf_counter() - t0
    rows.append({"dataset": f"cross-dataset tables ({len(recs)} datasets)", "units": len(long), "systems": 0,
                 "metrics": int(long["metric"].nunique()), "swap_sizes": 0, "draws": 0, "seconds": round(dt, 3)})
    print(f"cross-dataset tables of {len(recs)} datasets ({len(long):,} rows): {dt:.3f} s")
    out = results / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "design.csv", index=False)


if __name__ == "__main__":
    main()
