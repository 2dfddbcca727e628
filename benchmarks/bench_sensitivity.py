"""Benchmark: label noise, class priors and the formal property checks.

    python benchmarks/bench_sensitivity.py            # FNC-1 + the property checks of the default config
    python benchmarks/bench_sensitivity.py --big      # + 100k items x 100 systems

1. Label noise (``metaeval.methods.sensitivity.noise_sensitivity``) on FNC-1 with
   the pipeline's settings: 4 rates x 100 noisy golds, tau per metric, and
   the discriminative power on the clean gold and one noisy gold of the
   highest rate (Tukey HSD, 1,000 trials; the pipeline reuses the clean
   trials of the significance experiment, this script computes them).  Against the loop a
   researcher would write: for each noisy gold (``noisy_labels``, the same
   draws), score every system with scikit-learn / krippendorff /
   hand-written CEM^ORD and take ``scipy.stats.kendalltau`` per metric.  The
   loop runs on the first ``--loop`` noisy golds of each rate; its time for
   all of them is extrapolated; the taus must agree.
2. Class priors (``prior_sensitivity``): 4 prior exponents, every metric.
3. The formal properties (``metaeval.measures.properties.check_all``) with the
   config's ``properties`` settings: every metric x every property.

A script, not a test: tests assert correctness only.
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

from bench_significance import best_of  # noqa: E402
from bench_stability import loop_scores, synthetic  # noqa: E402

from metaeval.methods import experiments as E  # noqa: E402
from metaeval.methods import sensitivity as S  # noqa: E402
from metaeval.data.config import dataset_specs, load_config, resolve_data_dir  # noqa: E402
from metaeval.data.dataset import load_dataset  # noqa: E402
from metaeval.engine.ranking import orient  # noqa: E402
from metaeval.workflow import experiment_settings  # noqa: E402


def noise_kwargs(settings, mode, power=True):
    return dict(rates=settings.noise_rates, repeats=settings.noise_repeats, seed=settings.noise_seed, mode=mode,
                tau_variant=settings.tau_variant, power_repeats=settings.noise_power_repeats if power else 0,
                tukey_trials=settings.tukey_trials, tukey_seed=settings.tukey_seed, alpha=settings.alpha,
                chunk_size=settings.chunk_size)


def fnc1(args):
    from scipy.stats import kendalltau

    cfg = load_config(args.config)
    data_dir = resolve_data_dir(args.data_dir or cfg["data_dir"], base=ROOT)
    spec, settings = dataset_specs(cfg)["fnc1"], experiment_settings(cfg, "fnc1")
    ds = load_dataset(spec, data_dir)
    sel = E.select_systems(ds, settings.include_baselines)
    pred, ids, params = ds.predictions[sel], list(spec.metrics), spec.metric_params()
    mode = "neighbour"
    print(f"fnc1: {ds.n_items} items, {len(sel)} ranked systems, {len(ids)} metrics; "
          f"{len(settings.noise_rates)} rates x {settings.noise_repeats} noisy golds ({mode})")
    S.noise_sensitivity(ds.gold, pred, ds.k, ids, params, **{**noise_kwargs(settings, mode), "repeats": 2})  # compile
    t_tau, df = best_of(lambda: S.noise_sensitivity(ds.gold, pred, ds.k, ids, params,
                                                     **noise_kwargs(settings, mode, power=False)))
    t_all, _ = best_of(lambda: S.noise_sensitivity(ds.gold, pred, ds.k, ids, params, **noise_kwargs(settings, mode)))
    print(f"label noise, taus: {t_tau:.2f} s; with the discriminative power on the clean gold and "
          f"{settings.noise_power_repeats} noisy gold(s) of the highest rate ({settings.tukey_trials} Tukey trials "
          f"each): {t_all:.2f} s")
    dirs = {m: E.M.get(m).higher_is_better for m in ids}
    clean = {m: orient([loop_scores(ds.gold, p, ds.k, [m], params)[m] for p in pred], dirs[m]) for m in ids}
    n = args.loop
    t = time.perf_counter()
    diff = 0.0
    for rate in settings.noise_rates:
        golds = S.noisy_labels(ds.gold, ds.k, rate, np.arange(n), settings.noise_seed, mode)
        taus = {m: [] for m in ids}
        for g in golds:
            sc = [loop_scores(g, p, ds.k, ids, params) for p in pred]
            for m in ids:
                taus[m].append(kendalltau(clean[m], orient([x[m] for x in sc], dirs[m])).statistic)
        # the engine's taus of the same noisy golds
        eng = S.noise_sensitivity(ds.gold, pred, ds.k, ids, params,
                                  **{**noise_kwargs(settings, mode, power=False), "rates": (rate,), "repeats": n})
        for m in ids:
            diff = max(diff, abs(eng.set_index("metric").loc[m, "mean_tau"] - np.mean(taus[m])))
    loop = (time.perf_counter() - t) / n * settings.noise_repeats
    print(f"the loop (scikit-learn per system and noisy gold, scipy's kendalltau): {loop:.0f} s for the taus "
          f"(extrapolated from {n} noisy golds per rate); speed-up {loop / t_tau:,.0f}x; "
          f"max |mean tau difference| {diff:.1e}")
    c = ds.confusion()[sel]
    t_pri, _ = best_of(lambda: S.prior_sensitivity(c, ids, params, settings.prior_gammas, spec.labels))
    print(f"class priors, {len(settings.prior_gammas)} exponents: {t_pri * 1000:.1f} ms")


def properties(args):
    from metaeval.measures import properties as P
    from metaeval.measures import matrices as PM
    from metaeval.workflow import property_settings

    cfg = load_config(args.config)
    s = P.PropertySettings.from_config(property_settings(cfg.get("properties")))
    n = len(PM.domain_matrices(s))
    t, df = best_of(lambda: P.check_all(s), repeat=2)
    print(f"formal properties: {len(df)} checks ({df['metric'].nunique()} metrics x {df['property'].nunique()} "
          f"properties) on {n:,} matrices, {int(df['comparisons'].sum()):,} matrix pairs: {t:.2f} s")


def big():
    spec, ds = synthetic(100_000, 100)
    settings = E.Settings(include_baselines=())
    ids = list(spec.metrics)
    S.noise_sensitivity(ds.gold, ds.predictions, ds.k, ids, {}, rates=(0.1,), repeats=2, seed=1)
    t = time.perf_counter()
    S.noise_sensitivity(ds.gold, ds.predictions, ds.k, ids, {}, rates=settings.noise_rates,
                        repeats=settings.noise_repeats, seed=settings.noise_seed, chunk_size=settings.chunk_size)
    dt = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"label noise, 100k items x 100 systems, {len(settings.noise_rates)} rates x {settings.noise_repeats} "
          f"noisy golds, {len(ids)} metrics: {dt:.1f} s, peak resident memory {peak:.0f} MB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--loop", type=int, default=2, help="noisy golds per rate the loop runs")
    ap.add_argument("--big", action="store_true")
    args = ap.parse_args()
    fnc1(args)
    properties(args)
    if args.big:
        big()


if __name__ == "__main__":
    main()
