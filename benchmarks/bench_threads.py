"""Benchmark: the scale benchmark on 1, 2, ... threads, beside the dense
float32 matrix product of the same shapes (issue 50).

    python benchmarks/bench_threads.py                  # 1 and 2 threads
    python benchmarks/bench_threads.py --threads 1 2 4 8 16   # a larger machine

The engine: rank stability of 100 systems on 100,000 items (three ordered
classes, every ordinal metric) over 10,000 random half-splits
(``bench_stability.big``: ``metaeval.methods.experiments.stability_splits``,
chunks of 200 splits).  The product: what the engine's counting cannot beat,
the half-splits' 0/1 weights (10,000 x 100,000, float32, in the same chunks
of 200) times the one-hot predictions of the systems (100,000 x 100 (K - 1)),
BLAS's sgemm.  Each thread count runs in a process of its own whose every
pool is that size (numba's variable, OpenMP's, OpenBLAS's and MKL's), with
a CPU spin test before it; the engine's taus are checked equal across the
thread counts (threads never change a number).  Writes
``results/benchmarks/threads.csv``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import hashlib, json, resource, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from bench_stability import synthetic
from metaeval.methods import experiments as E
from metaeval.engine.kernels import n_threads

t0 = time.perf_counter()
s = 0
for i in range(20_000_000):
    s += i
spin = time.perf_counter() - t0
n, n_sys, k, splits, chunk = 100_000, 100, 3, 10_000, 200
spec, ds = synthetic(n, n_sys, k)
settings = E.Settings(include_baselines=(), chunk_size=chunk)
E.stability_splits(ds, spec, settings, range(chunk))  # kernels loaded, BLAS warmed
t = time.perf_counter()
res = E.stability_splits(ds, spec, settings, range(splits))
engine = time.perf_counter() - t
taus = np.ascontiguousarray(res["tau"])
rng = np.random.default_rng(1)
onehot = np.zeros((n, n_sys * (k - 1)), dtype=np.float32)
pred = ds.predictions.T.astype(np.int64)
rows, cols = np.nonzero(pred < k - 1)
onehot[rows, cols * (k - 1) + pred[rows, cols]] = 1
masks = (rng.random((chunk, n)) < 0.5).astype(np.float32)
masks @ onehot
t = time.perf_counter()
for _ in range(splits // chunk):
    masks @ onehot
product = time.perf_counter() - t
print(json.dumps({"threads": n_threads(), "spin_s": spin, "engine_s": engine, "product_s": product,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "taus_sha256": hashlib.sha256(taus.tobytes()).hexdigest()}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--out", default="results/benchmarks")
    args = ap.parse_args()
    rows = []
    for t in args.threads:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
        for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(t)
        done = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "benchmarks")], env=env, capture_output=True,
                              text=True)
        if done.returncode:
            sys.exit(done.stderr[-3000:])
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{t} thread(s): engine {row['engine_s']:.1f} s, float32 product {row['product_s']:.1f} s "
              f"(engine / product {row['engine_s'] / row['product_s']:.2f}), peak {row['peak_mb']:.0f} MB, "
              f"spin {row['spin_s']:.2f} s", flush=True)
    one = next((r for r in rows if r["threads"] == 1), None)
    for r in rows:
        r["engine_over_product"] = r["engine_s"] / r["product_s"]
        r["engine_over_1_thread"] = r["engine_s"] / one["engine_s"] if one else float("nan")
    same = len({r["taus_sha256"] for r in rows}) == 1
    print("taus identical on every thread count: " + ("yes" if same else "NO"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import pandas as pd

    pd.DataFrame(rows).to_csv(out / "threads.csv", index=False)
    if not same:
        sys.exit("the thread counts disagree")


if __name__ == "__main__":
    main()
