"""Benchmark: the rank-stability experiment, engine vs the straightforward loop.

    python benchmarks/bench_stability.py                 # FNC-1, 1,000 splits
    python benchmarks/bench_stability.py --sweep         # + scaling sweep
    python benchmarks/bench_stability.py --big           # + 100k items x 100 systems x 10k splits

1. The engine (``metaeval.methods.experiments.stability_splits``): per-split
   confusion tensors from one matrix product, every metric and every
   Kendall's tau one vectorised call.
2. The loop a researcher would write: for each split, for each system,
   score X and Y with scikit-learn / krippendorff / a hand-written CEM^ORD on
   the label arrays, then ``scipy.stats.kendalltau`` per metric.  The loop is
   slow, so it runs on the first ``--loop-splits`` splits; its time for all
   splits is extrapolated (it is linear in the number of splits).

Both use the project's tie convention (scores rounded to 12 decimals,
``metaeval.engine.ranking.orient``); the script checks that they agree to 1e-9 on
the splits both ran, and prints the times and the ratio.  The sweep writes
``results/benchmarks/scaling.csv`` and ``scaling.png``.  A script, not a
test: tests assert correctness only.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.reference (the plain-loop references)

from metaeval.methods import experiments as E  # noqa: E402
from metaeval.data.config import DatasetSpec, dataset_specs, load_config, resolve_data_dir  # noqa: E402
from metaeval.data.dataset import Dataset, load_dataset  # noqa: E402
from metaeval.engine.ranking import orient  # noqa: E402
from metaeval.engine.resample import split_mask  # noqa: E402
from metaeval.measures import labels as M  # noqa: E402


def loop_scores(gold, pred, k, metric_ids, params):
    """Every metric of one system on one item subset, the slow way."""
    import krippendorff
    from scipy.stats import gmean
    from sklearn import metrics as skm

    from tests import reference as ref

    labels = list(range(k))
    g, p = gold.tolist(), pred.tolist()
    out = {}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for mid in metric_ids:
            if mid == "accuracy":
                v = skm.accuracy_score(gold, pred)
            elif mid in ("macro_f1", "macro_f2"):
                v = skm.fbeta_score(gold, pred, beta=1 if mid == "macro_f1" else 2, labels=labels,
                                    average="macro", zero_division=0)
            elif mid == "macro_f1_hm":
                pm = skm.precision_score(gold, pred, labels=labels, average="macro", zero_division=0)
                rm = skm.recall_score(gold, pred, labels=labels, average="macro", zero_division=0)
                v = 2 * pm * rm / (pm + rm) if pm + rm else 0.0
            elif mid == "f1_weighted":
                v = skm.f1_score(gold, pred, labels=labels, average="weighted", zero_division=0)
            elif mid == "macro_recall":
                v = skm.recall_score(gold, pred, labels=labels, average="macro", zero_division=0)
            elif mid == "gmr":
                r = skm.recall_score(gold, pred, labels=labels, average=None, zero_division=0)
                v = 0.0 if (r == 0).any() else gmean(r)
            elif mid in ("kappa", "kappa_linear"):
                v = skm.cohen_kappa_score(gold, pred, labels=labels, weights=None if mid == "kappa" else "linear")
            elif mid.startswith("alpha_"):
                v = krippendorff.alpha(np.vstack([gold, pred]).astype(float), value_domain=labels,
                                       level_of_measurement=mid.split("_")[1])
            elif mid == "mae_micro":
                v = skm.mean_absolute_error(gold, pred)
            elif mid == "mae_macro":
                v = ref.mae_macro_loop(g, p, k)
            elif mid == "cem_ord":
                v = ref.cem_ord_loop(g, p, k)
            elif mid in ("wf1", "wf2"):
                f = skm.fbeta_score(gold, pred, beta=1 if mid == "wf1" else 2, labels=labels, average=None,
                                    zero_division=0)
                v = float(np.dot(params["weights"], f))
            elif mid == "wauc":
                v = float(np.dot(params["weights"], ref.auc_loop(g, p, k)))
            elif mid == "f_avg":
                v = float(np.mean(skm.f1_score(gold, pred, labels=params["f_avg_classes"], average=None,
                                               zero_division=0)))
            elif mid == "fnc_score":
                v = ref.fnc_score_loop(g, p, params["unrelated"])
            else:
                raise KeyError(mid)
            out[mid] = float(v)
    return out


def loop_stability(ds: Dataset, spec: DatasetSpec, settings, splits):
    from scipy.stats import kendalltau

    sel = E.select_systems(ds, settings.include_baselines)
    params = spec.metric_params()
    taus = np.empty((len(splits), len(spec.metrics)))
    for bi, b in enumerate(splits):
        mask = split_mask(ds.n_items, b, settings.split_seed, ds.gold if settings.stratified else None)
        sx = [loop_scores(ds.gold[mask], ds.predictions[s][mask], ds.k, spec.metrics, params) for s in sel]
        sy = [loop_scores(ds.gold[~mask], ds.predictions[s][~mask], ds.k, spec.metrics, params) for s in sel]
        for mi, mid in enumerate(spec.metrics):
            hib = M.get(mid).higher_is_better
            taus[bi, mi] = kendalltau(orient([d[mid] for d in sx], hib),
                                      orient([d[mid] for d in sy], hib)).statistic  # tau-b
    return taus


def engine_time(ds, spec, settings, n_splits, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        res = E.stability_splits(ds, spec, settings, range(n_splits))
        best = min(best, time.perf_counter() - t)
    return best, res


def synthetic(n, s, k=3, seed=0):
    rng = np.random.default_rng(seed)
    gold = rng.choice(k, size=n, p=[0.3, 0.6, 0.1][:k] if k == 3 else None)
    acc = rng.uniform(0.3, 0.9, size=(s, 1))
    pred = np.where(rng.random((s, n)) < acc, gold, rng.integers(0, k, (s, n)))
    labels = ("a", "b", "c", "d", "e")[:k]
    spec = DatasetSpec.from_config("synthetic", dict(gold="-", predictions=[], labels=list(labels), ordinal=True))
    ds = Dataset("synthetic", labels, np.arange(n).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(s)), ("system",) * s, pred.astype(np.int8))
    return spec, ds


def sweep(out_dir: Path):
    settings = E.Settings(include_baselines=())
    rows = []
    base = SWEEP_BASE
    grid = {"items": [2000, 4000, 8000, 16000, 32000, 64000],
            "systems": [5, 10, 20, 40, 80, 160],
            "splits": [250, 500, 1000, 2000, 4000, 8000]}
    for axis, values in grid.items():
        for v in values:
            p = {**base, axis: v}
            spec, ds = synthetic(p["items"], p["systems"])
            t, _ = engine_time(ds, spec, settings, p["splits"], repeat=1 if p["splits"] > 2000 else 2)
            rows.append({"varied": axis, **p, "seconds": t})
            print(f"  {axis:8s} {v:6d}: {t:7.3f} s", flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(out_dir / "scaling.csv", index=False)
    plot_scaling(df, out_dir, base)
    return df


def plot_scaling(df: pd.DataFrame, out_dir: Path, base: dict):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12.5, 4))
    colours = {"items": "#0072B2", "systems": "#D55E00", "splits": "#009E73"}
    for ax, (axis, d) in zip(axes, df.groupby("varied", sort=False)):
        x, y = d[axis].to_numpy(float), d["seconds"].to_numpy()
        ax.plot(x, y, "o", color=colours[axis], label="measured", zorder=3)
        xs = np.linspace(0, x.max(), 200)
        # least-squares fit of a fixed cost plus a linear term (and, for
        # systems, a term in the number of system pairs compared by tau)
        cols = [np.ones_like(x), x] + ([x * (x - 1) / 2] if axis == "systems" else [])
        coef = np.linalg.lstsq(np.stack(cols, 1), y, rcond=None)[0]
        fit = coef[0] + coef[1] * xs + (coef[2] * xs * (xs - 1) / 2 if axis == "systems" else 0)
        label = "fit a + b*n" + (" + c*n(n-1)/2" if axis == "systems" else "")
        ax.plot(xs, fit, "--", color="0.35", label=label)
        ax.set_xlim(0, x.max() * 1.05)
        ax.set_ylim(0, y.max() * 1.15)
        ax.set_xlabel(f"number of {axis} (n)")
        ax.set_ylabel("seconds (all metrics, all splits)")
        others = ", ".join(f"{k}={v}" for k, v in base.items() if k != axis)
        ax.set_title(f"varying {axis} ({others})", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle("Rank-stability engine on synthetic data (K = 3, 15 metrics, 2 cores): measured cost")
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(out_dir / f"scaling.{ext}", dpi=150)
    plt.close(fig)


SWEEP_BASE = dict(items=8000, systems=20, splits=1000)


def big():
    """100,000 items x 100 systems x 10,000 splits: time and peak memory."""
    spec, ds = synthetic(100_000, 100)
    settings = E.Settings(include_baselines=(), chunk_size=200)
    t = time.perf_counter()
    E.stability_splits(ds, spec, settings, range(10_000))
    dt = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"100k items x 100 systems x 10k splits: {dt:.1f} s, peak resident memory {peak:.0f} MB")
    return dt, peak


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--data-dir", default=None, help="the data folder (default: the config's data_dir)")
    ap.add_argument("--dataset", default="fnc1")
    ap.add_argument("--splits", type=int, default=1000)
    ap.add_argument("--loop-splits", type=int, default=5)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--plot-only", action="store_true", help="redraw scaling.png from scaling.csv")
    ap.add_argument("--out", default="results/benchmarks")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.plot_only:
        plot_scaling(pd.read_csv(out / "scaling.csv"), out, SWEEP_BASE)
        return

    cfg = load_config(args.config)
    spec = dataset_specs(cfg)[args.dataset]
    from metaeval.workflow import experiment_settings
    settings = experiment_settings(cfg, args.dataset)
    if settings.tau_variant != "b":
        sys.exit("the loop uses scipy.stats.kendalltau, i.e. tau-b: run with tau_variant b")
    ds = load_dataset(spec, resolve_data_dir(args.data_dir or cfg["data_dir"], base=ROOT))
    n_sys = len(E.select_systems(ds, settings.include_baselines))
    print(f"{args.dataset}: {ds.n_items} items, {n_sys} systems, {len(spec.metrics)} metrics, "
          f"{args.splits} splits", flush=True)

    t_engine, res = engine_time(ds, spec, settings, args.splits)
    print(f"engine: {t_engine:.3f} s for {args.splits} splits ({1e3 * t_engine / args.splits:.2f} ms per split)")

    t = time.perf_counter()
    taus = loop_stability(ds, spec, settings, list(range(args.loop_splits)))
    t_loop = (time.perf_counter() - t) / args.loop_splits
    diff = np.nanmax(np.abs(taus - res["tau"][: args.loop_splits]))
    same_nan = np.array_equal(np.isnan(taus), np.isnan(res["tau"][: args.loop_splits]))
    print(f"loop:   {t_loop:.3f} s per split -> {t_loop * args.splits:.0f} s for {args.splits} splits "
          f"(extrapolated from {args.loop_splits})")
    print(f"agreement on {args.loop_splits} splits: max |tau_engine - tau_loop| = {diff:.2e}"
          f" ({'OK' if diff <= 1e-9 and same_nan else 'MISMATCH'})")
    ratio = t_loop * args.splits / t_engine
    print(f"speed-up: {ratio:,.0f}x")
    pd.DataFrame([{"dataset": args.dataset, "items": ds.n_items, "systems": n_sys, "metrics": len(spec.metrics),
                   "splits": args.splits, "engine_s": t_engine, "loop_s_per_split": t_loop,
                   "loop_s_extrapolated": t_loop * args.splits, "speedup": ratio, "max_abs_diff": diff}]
                 ).to_csv(out / "stability.csv", index=False)
    if diff > 1e-9 or not same_nan:
        sys.exit("engine and loop disagree")
    if args.sweep:
        print("scaling sweep (synthetic data, K = 3, all 15 ordinal metrics):")
        sweep(out)
    if args.big:
        big()


if __name__ == "__main__":
    main()
