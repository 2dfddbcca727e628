"""Benchmark: rank stability of span metrics over article half-splits.

    python benchmarks/bench_spans.py                  # both span datasets, 1,000 splits

For ``semeval2020t11_tc`` (75 articles, 1,063 spans; 20 ranked systems,
classification and span metrics) and ``semeval2020t11_si_synthetic`` (75
articles, 20 synthetic systems, span metrics):

1. The engine (``metaeval.methods.experiments.stability_splits`` with
   ``resample_unit: group``): each half takes half of the articles with all
   their spans; span metrics come from one product of the article masks with
   the per-article statistics, classification metrics from the item masks.
2. The loop a researcher would write: for each split, for each system,
   score the spans of the half's articles with a plain reimplementation of
   the official scorer (``tests/reference.py``, character sets and loops),
   then ``scipy.stats.kendalltau`` per metric.  It runs on the first
   ``--loop-splits`` splits; its time for all splits is extrapolated.

Both must give the same taus (checked on the splits both ran).  A script,
not a test: tests assert correctness only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.reference (the plain-loop references)

from metaeval.methods import experiments as E  # noqa: E402
from metaeval.measures import labels as M  # noqa: E402
from metaeval.data.config import dataset_specs, load_config, resolve_data_dir  # noqa: E402
from metaeval.data.dataset import load_dataset  # noqa: E402
from metaeval.engine.ranking import orient  # noqa: E402
from metaeval.engine.resample import split_mask  # noqa: E402
from metaeval.workflow import experiment_settings  # noqa: E402


def _rows(spans, articles):
    return [(int(a), int(lab), int(s), int(e)) for a, lab, s, e in zip(spans.article, spans.label, spans.start,
                                                                        spans.end) if articles[int(a)]]


def loop_stability(ds, spec, settings, splits):
    """Taus of the span metrics, the slow way (span metrics only)."""
    from scipy.stats import kendalltau

    from tests import reference as ref

    sel = E.select_systems(ds, settings.include_baselines)
    ids = list(spec.span_metrics)
    taus = np.empty((len(splits), len(ids)))
    for bi, b in enumerate(splits):
        half = split_mask(ds.spans.n_articles, b, settings.split_seed)
        per_half = []
        for keep in (half, ~half):
            gold = _rows(ds.spans.gold, keep)
            scores = []
            for s in sel:
                r = ref.span_scores_loop(gold, _rows(ds.spans.systems[s], keep), ds.spans.labelled)
                arts = [a for a in range(ds.spans.n_articles) if keep[a]]
                r["char_f1_macro"] = float(np.mean([r["char_f1_macro_by_article"].get(a, 1.0) for a in arts]))
                scores.append(r)
            per_half.append(scores)
        for mi, mid in enumerate(ids):
            hib = M.get(mid).higher_is_better
            taus[bi, mi] = kendalltau(orient([d[mid] for d in per_half[0]], hib),
                                      orient([d[mid] for d in per_half[1]], hib)).statistic
    return taus


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--splits", type=int, default=1000)
    ap.add_argument("--loop-splits", type=int, default=3)
    args = ap.parse_args()
    cfg = load_config(args.config)
    data_dir = resolve_data_dir(args.data_dir or cfg["data_dir"], base=ROOT)
    specs = dataset_specs(cfg)
    for name in ("semeval2020t11_tc", "semeval2020t11_si_synthetic"):
        spec, settings = specs[name], experiment_settings(cfg, name)
        ds = load_dataset(spec, data_dir)
        n_sel = len(E.select_systems(ds, settings.include_baselines))
        best = np.inf
        for _ in range(3):
            t = time.perf_counter()
            res = E.stability_splits(ds, spec, settings, range(args.splits))
            best = min(best, time.perf_counter() - t)
        t = time.perf_counter()
        loop = loop_stability(ds, spec, settings, range(args.loop_splits))
        per_split = (time.perf_counter() - t) / args.loop_splits
        cols = [list(spec.all_metrics).index(m) for m in spec.span_metrics]
        diff = np.nanmax(np.abs(res["tau"][: args.loop_splits][:, cols] - loop))
        print(f"{name}: {ds.spans.n_articles} articles, {len(ds.spans.gold)} gold spans, {n_sel} systems, "
              f"{len(spec.all_metrics)} metrics ({len(spec.span_metrics)} span metrics), {args.splits} article "
              f"half-splits")
        print(f"  engine: {best:.3f} s ({1000 * best / args.splits:.2f} ms per split)")
        print(f"  loop (span metrics only): {per_split:.2f} s per split -> {per_split * args.splits:.0f} s for "
              f"{args.splits} (extrapolated from {args.loop_splits}); speed-up {per_split * args.splits / best:,.0f}x")
        print(f"  agreement on {args.loop_splits} splits: max |tau_engine - tau_loop| = {diff:.2e} "
              f"({'OK' if diff < 1e-9 else 'MISMATCH'})")


if __name__ == "__main__":
    main()
