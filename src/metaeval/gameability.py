"""Gameability: can a system that never reads the task beat the real
systems on a metric, on this dataset's own test set?

A metric that a degenerate system scores well on rewards something other
than doing the task (Scarton et al. 2020 make the point by hand for the
majority class under accuracy on RumourEval).  Every metric of a dataset is
scored, on its gold, for degenerate systems:

* classification (and the classes of technique classification): each
  constant class ``all_<label>`` (exact: the confusion matrix of a constant
  prediction is ``e_i n^T``), the prior-matched guesser and the uniform
  guesser (their expected confusion matrices, ``chance.expected_confusion``);
* span identification: ``no_spans``, ``whole_text`` (one span per
  document) and ``every_token`` (every run of non-whitespace), on the
  scored documents (``spans.span_baselines``); technique classification:
  the span view of each constant class (``all_<label>``).

A metric is **gameable** on the dataset when a degenerate system scores
strictly better than the median real system (the median of the real, or
synthetic, systems' scores; values equal to ``ranking.TIE_DECIMALS``
decimals are equal).  The table gives, per metric and degenerate system,
its score, the median, and its rank among the real systems and itself
(1 = best; ties share the best rank).  The guessers' expected matrices are
not random draws: for metrics that are not linear in the confusion matrix
their score is that of the expected matrix, as for the chance levels.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from . import metrics as M
from .chance import expected_confusion, guesser_distributions
from .ranking import competition_rank, orient

__all__ = ["class_degenerates", "degenerate_scores", "gameability", "gameable", "best_degenerate",
           "gameability_markdown", "dataset_gameability"]

GUESSER_NAMES = {"prior": "prior_guesser", "uniform": "uniform_guesser"}


def class_degenerates(gold_counts, labels) -> tuple[list[str], np.ndarray]:
    """(names, (D, K, K) confusion matrices) of the degenerate classifiers on
    a test set with these gold class counts: ``all_<label>`` for every class
    (exact), then the prior-matched and the uniform guesser (expected)."""
    n = np.asarray(gold_counts, dtype=float)
    k = n.size
    if len(labels) != k:
        raise ValueError(f"{len(labels)} labels for {k} gold counts")
    q = np.concatenate([np.eye(k), guesser_distributions(n)[[1, 0]]])  # constants, prior, uniform
    names = [f"all_{lab}" for lab in labels] + [GUESSER_NAMES["prior"], GUESSER_NAMES["uniform"]]
    return names, expected_confusion(n, q)


def degenerate_scores(gold_counts, labels, metric_ids: Sequence[str], params: Mapping | None = None,
                      span_stats: Mapping[str, np.ndarray] | None = None,
                      span_metric_ids: Sequence[str] = ()) -> pd.DataFrame:
    """One row per degenerate system (``degenerate`` column), one column per
    metric.  ``gold_counts``, ``labels``: the classes (empty for span
    identification); ``span_stats``: per degenerate span system its summed
    span statistics (``spans.STATS``); a degenerate system without them (a
    guesser) has no span metric (NaN), and one without classes (``no_spans``)
    no classification metric."""
    rows: dict[str, dict[str, float]] = {}
    if len(labels) and len(metric_ids):
        names, c = class_degenerates(gold_counts, labels)
        scores = M.evaluate(c, list(metric_ids), **dict(params or {}))
        for i, name in enumerate(names):
            rows[name] = {m: float(np.asarray(scores[m])[i]) for m in metric_ids}
    if span_stats:
        from .spans import evaluate_spans

        for name, stats in span_stats.items():
            rows.setdefault(name, {}).update({m: float(v) for m, v in evaluate_spans(stats, span_metric_ids).items()})
    cols = list(metric_ids) + list(span_metric_ids)
    df = pd.DataFrame([{"degenerate": name, **{m: r.get(m, np.nan) for m in cols}} for name, r in rows.items()],
                      columns=["degenerate", *cols])
    return df


def gameability(real: pd.DataFrame, degenerate: pd.DataFrame, metric_ids: Sequence[str]) -> pd.DataFrame:
    """Long form, per metric and degenerate system: ``metric, degenerate,
    score, median_real, n_real, rank, beats_median``.  ``real``: the real
    systems' scores (a column per metric); ``rank``: the degenerate
    system's rank among the real systems and itself (1 = best, ties share
    the best rank), NaN when its score is undefined."""
    rows = []
    for mid in metric_ids:
        hib = M.get(mid).higher_is_better
        r = real[mid].to_numpy(dtype=float)
        r = r[~np.isnan(r)]
        med = float(np.median(r)) if r.size else np.nan
        for name, score in zip(degenerate["degenerate"], degenerate[mid].to_numpy(dtype=float)):
            if np.isnan(score) or not r.size:
                rank, beats = np.nan, False
            else:
                key = -orient(np.append(r, score), hib)  # competition ranks: smallest key first
                rank = int(competition_rank(key)[-1])
                beats = bool(orient(score, hib) > orient(med, hib))
            rows.append({"metric": mid, "degenerate": name, "score": score, "median_real": med, "n_real": int(r.size),
                         "rank": rank, "beats_median": beats})
    return pd.DataFrame(rows, columns=["metric", "degenerate", "score", "median_real", "n_real", "rank",
                                       "beats_median"])


def gameable(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric that a degenerate system games (``beats_median``): the
    best-ranked such system (``metric, degenerate, score, median_real,
    rank, n_real``), metrics in the table's order."""
    hit = table[table["beats_median"]]
    if hit.empty:
        return hit[["metric", "degenerate", "score", "median_real", "rank", "n_real"]]
    best = hit.sort_values(["rank"], kind="stable").groupby("metric", sort=False).head(1)
    order = {m: i for i, m in enumerate(dict.fromkeys(table["metric"]))}
    return best.sort_values("metric", key=lambda s: s.map(order), kind="stable")[
        ["metric", "degenerate", "score", "median_real", "rank", "n_real"]].reset_index(drop=True)



def best_degenerate(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric, the best-ranked degenerate system (``metric, degenerate,
    score, median_real, rank, n_real, gameable``), gameable or not."""
    t = table.dropna(subset=["rank"])
    best = t.sort_values("rank", kind="stable").groupby("metric", sort=False).head(1)
    order = {m: i for i, m in enumerate(dict.fromkeys(table["metric"]))}
    best = best.sort_values("metric", key=lambda x: x.map(order), kind="stable").reset_index(drop=True)
    return best.rename(columns={"beats_median": "gameable"})[
        ["metric", "degenerate", "score", "median_real", "rank", "n_real", "gameable"]]


def gameability_markdown(table: pd.DataFrame, title: str) -> str:
    """The gameability table of a dataset: per metric, its best degenerate
    system, that system's score against the median real system and its
    rank among the real systems; gameable metrics first."""
    from .tables import markdown_table, md_escape

    best = best_degenerate(table)
    rows = [{"metric": f"{M.get(r.metric).name} ({M.get(r.metric).direction})",
             "gameable": "**yes**" if r.gameable else "no", "best degenerate system": md_escape(r.degenerate),
             "its score": r.score, "median real system": r.median_real,
             "its rank": f"{int(r.rank)} of {int(r.n_real) + 1}"} for r in best.itertuples()]
    rows.sort(key=lambda r: r["gameable"] != "**yes**")
    n = sum(r["gameable"] == "**yes**" for r in rows)
    text = (f"# {md_escape(title)}\n\nSystems that never read the task, scored on this test set: every constant "
            f"class, the prior-matched and the uniform guesser (their expected confusion matrices), and for span "
            f"tasks no spans, the whole text as one span, every token. A metric is **gameable** here when one of "
            f"them scores better than the median real system: {n} of {len(rows)} metrics are. The rank is the "
            f"degenerate system's among the real systems and itself (1 = best).\n\n")
    return text + (markdown_table(pd.DataFrame(rows), escape=False) if rows else "No metric to judge.\n")


def dataset_gameability(ds, spec, scores: pd.DataFrame | None = None) -> pd.DataFrame:
    """The gameability table (``gameability.csv``) of a loaded dataset
    (``dataset.Dataset``) with its spec: its degenerate systems against its
    real ones (``scores``: its ``scores.csv``, or scored here)."""
    from .dataset import RANKED_KINDS, score_dataset

    deg = degenerate_scores(np.bincount(ds.gold, minlength=ds.k) if ds.k else [], spec.labels if ds.k else (),
                            spec.metrics, spec.metric_params(),
                            ds.spans.degenerate_statistics() if ds.spans is not None else None, spec.span_metrics)
    df = score_dataset(ds, spec) if scores is None else scores
    return gameability(df[df["kind"].isin(RANKED_KINDS)], deg, spec.all_metrics)
