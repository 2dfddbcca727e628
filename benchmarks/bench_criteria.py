"""Cost of the recommendation's criteria (metaeval.verdict.criteria) on the default
datasets, and the plain loop it replaces.

    python benchmarks/bench_criteria.py                 # every default dataset, the engine
    python benchmarks/bench_criteria.py --loop 2        # and 2 resamples of the plain loop on semeval2016t6

For each dataset with a meta-evaluation: the seconds of
``recommend.recommend_dataset`` (the criteria of the three (scheme,
systems) pairs the verdict uses: items only and items with systems on the
real systems, the variant with the baselines on its headline scope; the
unit exponent of the separation sentence; the Model Confidence Sets) with
the default settings (``criteria_replicates`` 500 resamples,
``criteria_splits`` 4 half-splits each), in this process (the compiled
kernels loaded once before).  With ``--loop R``: the seconds per resample of the
plain loop of ``tests/test_criteria.py`` (scikit-learn's metrics and scipy's
tau, item by item; three classes) on semeval2016t6's four metrics, for comparison.
Writes ``results/benchmarks/criteria.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--loop", type=int, default=0, help="resamples of the plain loop to time (0: none)")
    args = ap.parse_args(argv)

    from metaeval.data.config import dataset_specs, load_config, resolve_data_dir
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.scorer import select_systems
    from metaeval.verdict.recommendation import recommend_dataset
    from metaeval.engine.resample import compile_kernels
    from metaeval.methods.gameability import dataset_gameability
    from metaeval.workflow import experiment_settings

    cfg = load_config(args.config)
    data_dir = resolve_data_dir(cfg["data_dir"], Path(args.config).parent.parent)
    compile_kernels()
    rows = []
    for name, spec in dataset_specs(cfg).items():
        st = experiment_settings(cfg, name)
        ds = load_dataset(spec, data_dir)
        sel = select_systems(ds, st.include_baselines)
        if sel.size < st.min_systems:
            continue
        games = dataset_gameability(ds, spec)
        t0 = time.perf_counter()
        rec = recommend_dataset(ds, spec, st, gameability=games)
        dt = time.perf_counter() - t0
        rows.append({"dataset": name, "items": ds.n_items, "systems": int(sel.size),
                     "metrics": len(rec.metrics), "criteria": len(rec.criteria), "replicates": rec.replicates,
                     "seconds": round(dt, 2)})
        print(f"{name:32s} {ds.n_items:>6} items {sel.size:>3} systems {len(rec.metrics):>3} metrics "
              f"{len(rec.criteria)} criteria: {dt:6.2f} s", flush=True)
    if args.loop:
        sys.path.insert(0, str(ROOT))
        import numpy as np

        from metaeval.verdict.criteria import CriteriaSpec
        from tests.test_criteria import METRICS, _loop  # the reference of the tests

        spec = dataset_specs(cfg)["semeval2016t6"]
        ds = load_dataset(spec, data_dir)
        st = experiment_settings(cfg, "semeval2016t6")
        sel = select_systems(ds, st.include_baselines)
        cs = CriteriaSpec(criteria=("stability", "power", "noise", "priors"), inner_splits=st.criteria_splits)
        t0 = time.perf_counter()
        for b in range(args.loop):
            _loop(np.asarray(ds.gold, dtype=np.int64), np.asarray(ds.predictions[sel], dtype=np.int64), cs, b)
        per = (time.perf_counter() - t0) / args.loop
        rows.append({"dataset": f"semeval2016t6 plain loop ({len(METRICS)} metrics, per resample)",
                     "items": ds.n_items, "systems": int(sel.size), "metrics": len(METRICS), "criteria": 4,
                     "replicates": 1, "seconds": round(per, 2)})
        print(f"plain loop, semeval2016t6, {len(METRICS)} metrics: {per:.2f} s per resample "
              f"({per * st.criteria_replicates:.0f} s for {st.criteria_replicates})")
    out = ROOT / "results" / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "criteria.csv", index=False)


if __name__ == "__main__":
    main()
