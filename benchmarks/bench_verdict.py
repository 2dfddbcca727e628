"""Does the verdict predict what random halves of the test set do?  And
does the paired standard error shrink as the separation sentence assumes?

    python benchmarks/bench_verdict.py                          # rumoureval2017 and fnc1_paper, 10 halves each
    python benchmarks/bench_verdict.py --halves 20 --datasets fnc1 semeval2016t6

For each dataset (the default config's settings, no gameability veto and no
requirements: the evidence alone):

* **Halves** (issue 29, item 6).  The verdict on the whole test set (scope
  *these systems*), then on ``--halves`` random halves of its units (each
  half a test set of its own, its criteria recomputed: half-splits, noisy
  golds and resamples of the half).  Per metric: its MCS p-values on the
  whole set (the smallest over the criteria), whether the whole set keeps
  it on every criterion, and the share of halves that keep it on every
  criterion.  What the verdict claims: a metric it keeps is among the best
  with the stated confidence, so the halves (less evidence: wider sets)
  keep it too; a metric it eliminates with a small p-value may come back
  on a half (less power), not the other way round.
* **Scaling** (METHODS 9.7: check the scaling before relying on it).  The
  paired standard error of every pair of metrics on every criterion, on the
  whole set and on each half: the separation sentence takes it to grow by
  sqrt(2) on a half (``verdict.units_needed``).  Printed: the median and
  the 10-90 % range of the ratio half / whole over the pairs with a spread.

* **Seeds** (``--seeds N``).  The verdict again with ``criteria_seed`` 1
  to N: the answer and the size of each criterion's set per seed, and the
  seconds of each (the Monte Carlo error of the MCS p-values moves the
  answer when the resamples are too few).

Writes ``results/benchmarks/verdict_halves.csv`` and ``verdict_scaling.csv``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def _half(ds, keep):
    """The dataset restricted to the units ``keep`` (items)."""
    return replace(ds, item_ids=ds.item_ids[keep], gold=ds.gold[keep], predictions=ds.predictions[:, keep],
                   groups=None if ds.groups is None else ds.groups[keep])


def _se(rec, boot_of):
    """(C, M, M) paired standard errors of the headline scope's replicates."""
    b = boot_of
    d = b[:, :, :, None] - b[:, :, None, :]
    return np.nanstd(d, axis=0, ddof=1)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--datasets", nargs="+", default=["rumoureval2017", "fnc1_paper"])
    ap.add_argument("--halves", type=int, default=10)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--seeds", type=int, default=0, help="the verdict with criteria_seed 1..N too (0: not)")
    args = ap.parse_args(argv)

    from metaeval.verdict import recommendation as R
    from metaeval.verdict import sentences as RS
    from metaeval.data.config import dataset_specs, load_config, resolve_data_dir
    from metaeval.verdict.criteria import CriteriaSpec, adjacent_pairs, criteria
    from metaeval.data.dataset import RANKED_KINDS, load_dataset
    from metaeval.methods.scorer import Scorer, select_systems
    from metaeval.engine.resample import compile_kernels
    from metaeval.workflow import experiment_settings

    cfg = load_config(args.config)
    data_dir = resolve_data_dir(cfg["data_dir"], Path(args.config).parent.parent)
    compile_kernels()
    halves_rows, scale_rows = [], []
    for name in args.datasets:
        spec = dataset_specs(cfg)[name]
        st = experiment_settings(cfg, name)
        ds = load_dataset(spec, data_dir)
        if spec.span_task or st.resample_unit != "item":
            raise SystemExit(f"{name}: the halves are drawn over items (a classification dataset with items)")
        t0 = time.perf_counter()
        full = R.recommend_dataset(ds, spec, st)
        secs = time.perf_counter() - t0
        for seed in range(1, args.seeds + 1):
            t1 = time.perf_counter()
            other = R.recommend_dataset(ds, spec, replace(st, criteria_seed=seed))
            s_ = other.sets[other.headline]
            print(f"{name}: criteria_seed {seed}: {time.perf_counter() - t1:.1f} s; the same answer: "
                  f"{set(other.selected) == set(full.selected)}; kept per criterion "
                  + ", ".join(f"{c} {int(s_.members[i].sum())}" for i, c in enumerate(other.criteria)))

        def replicates(d):  # the headline scope's replicates of the real systems (for the standard errors)
            sel = select_systems(d, st.include_baselines)
            real = np.array([i for i, j in enumerate(sel) if d.kinds[j] in RANKED_KINDS])
            crit = full.criteria
            noise = dict(noise_rates=st.noise_rates, noise_repeats=st.noise_repeats, noise_seed=st.noise_seed,
                         noise_mode=("neighbour" if spec.ordinal else "uniform") if st.noise_mode == "auto"
                         else st.noise_mode) if "noise" in crit else {}
            cs = CriteriaSpec(criteria=tuple(crit), replicates=st.criteria_replicates,
                              inner_splits=st.criteria_splits, seed=st.criteria_seed, point_splits=st.n_splits,
                              split_seed=st.split_seed, merge_pairs=adjacent_pairs(spec.k)
                              if "discrimination" in crit else (), prior_gammas=st.prior_gammas,
                              chunk_size=max(1, st.chunk_size // 10), **noise)
            res = criteria(Scorer(d, spec, sel, "item"), cs, subsets={"real": real}, schemes=("items",))
            return res["items", "real"].boot

        se_full = _se(full, replicates(ds))
        rng = np.random.default_rng(args.seed)
        kept = np.zeros(len(full.metrics))
        same = 0
        for h in range(args.halves):
            keep = np.sort(rng.permutation(ds.n_items)[: ds.n_items // 2])
            half = _half(ds, keep)
            rec = R.recommend_dataset(half, spec, st)
            kept += [m in rec.selected for m in full.metrics]
            same += set(rec.selected) == set(full.selected)
            with np.errstate(invalid="ignore", divide="ignore"):
                se_half = _se(rec, replicates(half))
                ratio = se_half / se_full
                t_full = np.abs(full.value[:, :, None] - full.value[:, None, :]) / se_full
                t_half = np.abs(rec.value[:, :, None] - rec.value[:, None, :]) / se_half
                t_ratio = t_full / t_half
            ok = np.isfinite(ratio) & (se_full > 1e-9)
            for c, crit in enumerate(full.criteria):
                r = ratio[c][ok[c]]
                # |t| of the pairs the whole set does not separate well (|t| < 3), whole / half
                tr = t_ratio[c][ok[c] & (t_full[c] < 3) & (t_half[c] > 0.2) & np.isfinite(t_ratio[c])]
                scale_rows.append({"dataset": name, "half": h, "criterion": crit, "pairs": int(r.size),
                                   "median_ratio": float(np.median(r)) if r.size else np.nan,
                                   "q10": float(np.quantile(r, 0.1)) if r.size else np.nan,
                                   "q90": float(np.quantile(r, 0.9)) if r.size else np.nan,
                                   "t_ratio_median": float(np.median(tr)) if tr.size else np.nan})
        hs = full.sets[full.headline]
        for i, m in enumerate(full.metrics):
            p = hs.p_value[:, i]
            halves_rows.append({"dataset": name, "metric": m, "candidate": bool(full.candidate[i]),
                                "kept_whole": bool(hs.answer[i]), "min_mcs_p": float(np.nanmin(p))
                                if np.isfinite(p).any() else np.nan, "kept_halves": kept[i] / args.halves})
        print(f"\n{name}: {ds.n_items} items, {full.n_systems} real systems; the whole set's verdict in "
              f"{secs:.1f} s: {RS.answer_sentence(full)}")
        print(f"  the same answer on {same} of {args.halves} halves")
        t = pd.DataFrame([r for r in halves_rows if r["dataset"] == name])
        print(t[["metric", "kept_whole", "min_mcs_p", "kept_halves"]].to_string(index=False))
        s = pd.DataFrame([r for r in scale_rows if r["dataset"] == name])
        print("  paired standard error, half / whole (sqrt(2) = 1.414 assumed):")
        print(s.groupby("criterion")[["median_ratio", "q10", "q90", "t_ratio_median"]].median().round(3).to_string())
    out = ROOT / "results" / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(halves_rows).to_csv(out / "verdict_halves.csv", index=False)
    pd.DataFrame(scale_rows).to_csv(out / "verdict_scaling.csv", index=False)


if __name__ == "__main__":
    main()
