"""ROC-AUC and average precision of every run of a SemEval-2016 Task 3
folder on bootstrap replicates of its items: the engine's call
(``metaeval.measures.scores.registry.evaluate_ranked``: both metrics from one sort
per system and one compiled pass per replicate) per chunk of replicates, against scikit-learn in a loop over the
replicates (``sample_weight`` = the replicate's counts), side by side in one
run; the loop is timed on a few replicates and scaled, and both give the
same values on those.  Drawing the replicates (numpy's multinomial) is
timed apart: both sides take the same weights.

    python benchmarks/bench_score_metrics.py [--data-dir ../shared/data] [--folder semeval2016t3_c]
        [--replicates 10000] [--loop-replicates 20] [--chunk 1000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.measures.scores.registry import evaluate_ranked

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--folder", default="semeval2016t3_c")
    ap.add_argument("--replicates", type=int, default=10_000)
    ap.add_argument("--loop-replicates", type=int, default=20)
    ap.add_argument("--chunk", type=int, default=1000)
    a = ap.parse_args()
    from sklearn.metrics import average_precision_score, roc_auc_score

    d = Path(a.data_dir) / a.folder
    gold = pd.read_csv(d / "gold.csv", dtype=str)
    y = (gold["label"] == "true").to_numpy().astype(int)
    files = sorted((d / "scores").glob("*.csv"))
    scores = np.stack([pd.read_csv(f, dtype={"item_id": str}).set_index("item_id").loc[gold["item_id"], "score"]
                       .to_numpy(float) for f in files])
    n = len(y)
    rng = np.random.default_rng(20261127)

    def replicates(b):
        return rng.multinomial(n, np.full(n, 1 / n), size=b).astype(float)

    engine = draw = 0.0
    for start in range(0, a.replicates, a.chunk):
        t0 = time.perf_counter()
        w = replicates(min(a.chunk, a.replicates - start))
        t1 = time.perf_counter()
        evaluate_ranked(["roc_auc", "average_precision"], scores, y, w)
        draw, engine = draw + t1 - t0, engine + time.perf_counter() - t1

    w = replicates(a.loop_replicates)
    t0 = time.perf_counter()
    ref = np.array([[[roc_auc_score(y, s, sample_weight=wb), average_precision_score(y, s, sample_weight=wb)]
                     for s in scores] for wb in w])
    loop = (time.perf_counter() - t0) / a.loop_replicates * a.replicates
    both = evaluate_ranked(["roc_auc", "average_precision"], scores, y, w)
    got = np.stack([both["roc_auc"], both["average_precision"]], axis=-1)
    diff = float(np.nanmax(np.abs(got - ref)))
    print(f"{a.folder}: {len(files)} systems, {n:,} items, {a.replicates:,} replicates (drawn in {draw:.1f} s, "
          f"apart)")
    print(f"engine: {engine:.2f} s; scikit-learn in a loop: {loop:.0f} s (timed on {a.loop_replicates} replicates, "
          f"scaled): {loop / engine:,.0f}x; largest difference {diff:.1e}")


if __name__ == "__main__":
    main()
