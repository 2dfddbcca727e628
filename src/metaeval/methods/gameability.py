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

The table gives, per metric and degenerate system, its score, the median
real system's (the median of the real, or synthetic, systems' scores;
values equal to ``ranking.TIE_DECIMALS`` decimals are equal), whether it
beats it, and its rank among the real systems and itself (1 = best; ties
share the best rank).  The guessers' expected matrices are not random
draws: for metrics that are not linear in the confusion matrix their score
is that of the expected matrix, as for the chance levels.

**A test, not a point comparison** (METHODS 9.4).  Null hypothesis, per
metric and degenerate system g: g scores no better than the median real
system.  On B resamples that draw the test units and the real systems
together (``gameability_test``), ``D*_b = v*_b(g) - median_s v*_b(s)`` in
the metric's own direction, and the one-sided p-value ``(1 + #{b : D*_b <=
0}) / (B + 1)``; Holm's adjustment over the metric's degenerate systems.
Verdict per row: ``gameable`` (adjusted p below alpha), ``borderline`` (g
beats the median on the test set, not significantly) or ``not gameable``;
a metric is vetoed when one of its rows is gameable.  A real system that
predicts exactly what a degenerate system predicts (every item; for span
identification the same statistics in every document) is *not* a real
system for the median: it would make the metric look less gameable.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..measures.chance import expected_confusion, guesser_distributions
from ..engine.progress import report
from ..engine.ranking import competition_rank, orient
from ..settings import default_of

__all__ = ["class_degenerates", "degenerate_scores", "gameability", "gameable", "best_degenerate",
           "gameability_markdown", "dataset_gameability", "gameability_test", "identical_to_degenerate", "VERDICTS"]

# the verdict of a row (metric, degenerate system) of gameability.csv, worst first
# ("not computed": a degenerate system the metric has no score for, e.g. a guesser's expected span statistics
# or the expected terms of a metric of per-item terms)
VERDICTS = ("gameable", "borderline", "not gameable", "not computed")

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
        from ..measures.spans import evaluate_spans

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


_GAME_COLUMNS = ["metric", "degenerate", "score", "median_real", "rank", "n_real", "p_value", "p_holm", "verdict"]


def _verdicts(table: pd.DataFrame) -> pd.Series:
    """The verdict of each row (a table without the test: its point comparison only)."""
    if "verdict" in table.columns:
        return table["verdict"]
    return table["beats_median"].map({True: "borderline", False: "not gameable"})


def gameable(table: pd.DataFrame, verdict: str = "gameable") -> pd.DataFrame:
    """Per metric with a row of this ``verdict`` (default ``gameable``: a
    degenerate system significantly better than the median real system):
    its most significant such row (smallest adjusted p, then best rank),
    metrics in the table's order; columns ``metric, degenerate, score,
    median_real, rank, n_real, p_value, p_holm, verdict``."""
    t = table.assign(verdict=_verdicts(table))
    for col in ("p_value", "p_holm"):
        if col not in t.columns:
            t[col] = np.nan
    hit = t[t["verdict"] == verdict]
    if hit.empty:
        return hit[_GAME_COLUMNS].reset_index(drop=True)
    # (a sort on several keys is stable in pandas; each metric keeps its first row; one row per metric is then
    # put in the table's order)
    best = hit.sort_values(["p_holm", "rank"]).drop_duplicates("metric")
    order = {m: i for i, m in enumerate(dict.fromkeys(table["metric"]))}
    return best.sort_values("metric", key=lambda x: x.map(order))[_GAME_COLUMNS].reset_index(drop=True)



def best_degenerate(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric, its worst row (``VERDICTS`` order: gameable, borderline,
    not gameable; then the smallest adjusted p, then the best rank):
    ``metric, degenerate, score, median_real, rank, n_real, p_value,
    p_holm, verdict``."""
    t = table.dropna(subset=["rank"]).assign(verdict=lambda x: _verdicts(x))
    for col in ("p_value", "p_holm"):
        if col not in t.columns:
            t[col] = np.nan
    t = t.assign(_v=t["verdict"].map({v: i for i, v in enumerate(VERDICTS)}))
    best = t.sort_values(["_v", "p_holm", "rank"]).drop_duplicates("metric")
    order = {m: i for i, m in enumerate(dict.fromkeys(table["metric"]))}
    return best.sort_values("metric", key=lambda x: x.map(order))[_GAME_COLUMNS].reset_index(drop=True)


def gameability_markdown(table: pd.DataFrame, title: str, alpha: float = default_of("verdict_alpha")) -> str:
    """The gameability table of a dataset: per metric, its best degenerate
    system, that system's score against the median real system and its
    rank among the real systems; gameable metrics first."""
    from ..present.tables import format_p, markdown_table, md_escape

    best = best_degenerate(table)  # (its rows have a rank: never "not computed")
    rank = {v: i for i, v in enumerate(VERDICTS)}
    best = best.sort_values("verdict", key=lambda v: v.map(rank), kind="stable")  # worst first, ties in table order
    shown = {"gameable": "**gameable**", "borderline": "borderline", "not gameable": "no"}
    rows = [{"metric": f"{M.get(r.metric).name} ({M.get(r.metric).direction})",
             "gameable": shown[r.verdict], "degenerate system": md_escape(r.degenerate),
             "its score": r.score, "median real system": r.median_real,
             "its rank": f"{int(r.rank)} of {int(r.n_real) + 1}",
             "p (Holm)": "" if pd.isna(r.p_holm) else format_p(r.p_holm, (alpha,))} for r in best.itertuples()]
    n = sum(r["gameable"] == "**gameable**" for r in rows)
    nb = sum(r["gameable"] == "borderline" for r in rows)
    setaside = sorted({x for v in table.get("set_aside", pd.Series(dtype=str)).dropna() for x in str(v).split("; ")
                       if x})
    text = (f"# {md_escape(title)}\n\nSystems that never read the task, scored on this test set: every constant "
            f"class, the prior-matched and the uniform guesser (their expected confusion matrices), and for span "
            f"tasks no spans, the whole text as one span, every token; for the metrics of scores, the constant classes' "
            f"one-hot scores, the test set's class prior as every item's probability (prior_probability) and a "
            f"random score per item (random_score). A metric is **gameable** here when one of "
            f"them scores significantly better than the median real system (null hypothesis: no better; one-sided "
            f"test over resamples of the test set and the real systems, Holm-adjusted over the metric's degenerate "
            f"systems): {n} of {len(rows)} metrics are; *borderline* ({nb}): a degenerate system beats the median "
            f"on this test set, not significantly (not vetoed). The row shown is the metric's worst; its rank is "
            f"the degenerate system's among the real systems and itself (1 = best).")
    if setaside:
        text += (" Not counted as real systems, since they predict exactly what a degenerate system predicts: "
                 + ", ".join(md_escape(x) for x in setaside) + ".")
    text += "\n\n"
    return text + (markdown_table(pd.DataFrame(rows), escape=False) if rows else "No metric to judge.\n")


def identical_to_degenerate(ds) -> dict[str, str]:
    """``{real system: degenerate system}`` for the real (or synthetic)
    systems that predict exactly what a degenerate system predicts: one
    class for every item (``all_<label>``; with scores, one score too), or, for span identification,
    the same span statistics as ``no_spans``, ``whole_text`` or
    ``every_token`` in every document."""
    from ..data.dataset import RANKED_KINDS

    out = {}
    real = [i for i, k in enumerate(ds.kinds) if k in RANKED_KINDS]
    if ds.k and ds.predictions.size:
        for i in real:
            p = ds.predictions[i]
            # with scores, a system is degenerate only if its scores are constant too (they may still rank)
            v = ds.scores.values[i] if getattr(ds, "scores", None) is not None else None
            if p.size and (p == p[0]).all() and (v is None or (v == v[0]).all()):
                out[ds.systems[i]] = f"all_{ds.labels[int(p[0])]}"
    elif ds.spans is not None and ds.spans.degenerate:
        from ..measures.spans import span_statistics

        sv = ds.spans
        stats = sv.statistics(np.array(real, dtype=np.int64))  # (R, A, F); none for no real system
        for name, sp in sv.degenerate.items():
            d = span_statistics(sv.gold, sp, sv.n_articles, sv.labelled)
            for j, i in enumerate(real):
                if ds.systems[i] not in out and np.array_equal(stats[j], d):
                    out[ds.systems[i]] = name
    return out


def _constant_item_terms(ds, spec, units=None):
    """The terms of the metrics of per-item terms for the ``all_<label>``
    systems (exact: a constant prediction per item), summed per unit
    (``units``: a code per item; None: every item its own unit): ((U, K, F),
    the slice of each metric), or None without such metrics.  (The
    guessers' expected scores are not the metrics of expected sums: they are
    left out, as for span metrics.)"""
    if not spec.item_metrics or not ds.k:
        return None
    from ..measures.items import item_statistics

    const = np.repeat(np.arange(ds.k)[:, None], ds.gold.size, axis=1)
    terms, slices = item_statistics(spec.item_metrics, ds.gold, const, ds.item_ids)  # (K, N, F)
    terms = terms.transpose(1, 0, 2)
    if units is not None:
        per = np.zeros((int(np.max(units)) + 1,) + terms.shape[1:])
        np.add.at(per, np.asarray(units, dtype=np.int64), terms)
        terms = per
    return terms, slices


def _degenerate_unit_stats(ds, spec):
    """(names, per-unit statistics (A, D, F) of the span degenerates) or None."""
    if ds.spans is None or not ds.spans.degenerate or not spec.span_metrics:
        return None
    from ..measures.spans import span_statistics

    sv = ds.spans
    names = list(sv.degenerate)
    return names, np.stack([span_statistics(sv.gold, sv.degenerate[n], sv.n_articles, sv.labelled) for n in names],
                           axis=1)


def gameability_test(ds, spec, *, unit: str, replicates: int, seed: int, chunk: int = 100,
                     same: dict | None = None) -> pd.DataFrame:
    """The gameability test (METHODS 9.4) of a loaded dataset: per metric
    and degenerate system, ``p_value`` (one-sided, H0: the degenerate system
    scores no better than the median real system) and ``p_holm`` (Holm over
    the metric's degenerate systems), from ``replicates`` resamples that
    draw the test units (``unit``: ``item`` or ``group``; stream
    ``bootstrap`` of ``seed``) and, independently, the real systems (stream
    ``systems``) with replacement; the real systems identical to a
    degenerate system are left out (``identical_to_degenerate``).

    Returns a long table ``metric, degenerate, p_value, p_holm, n_real,
    set_aside`` (``set_aside``: those systems, ``; ``-joined), with NaN
    p-values when fewer than two real systems are left.  ``chunk``:
    replicates per engine call (memory only: the p-values do not depend on
    it); ``same``: ``identical_to_degenerate(ds)`` if known already."""
    from ..data.dataset import RANKED_KINDS
    from .scorer import Scorer
    from ..engine.ranking import TIE_DECIMALS
    from ..engine.resample import system_draws, unit_draws
    from .corrections import holm
    from ..measures.spans import evaluate_spans

    same = identical_to_degenerate(ds) if same is None else same
    real = np.array([i for i, (s_, k) in enumerate(zip(ds.systems, ds.kinds)) if k in RANKED_KINDS and s_ not in same],
                    dtype=np.intp)
    metric_ids = list(spec.all_metrics)
    cls_ids, span_ids = list(spec.metrics), list(spec.span_metrics)
    names_cls = class_degenerates(np.ones(ds.k), spec.labels)[0] if ds.k and (cls_ids or spec.item_metrics) else []
    span_deg = _degenerate_unit_stats(ds, spec)
    score_deg = _score_degenerates(ds, spec)
    names = list(dict.fromkeys(list(names_cls) + (span_deg[0] if span_deg else []) +
                               (score_deg[0] if score_deg else [])))
    rows = []
    if real.size < 2:
        for mid in metric_ids:
            rows += [{"metric": mid, "degenerate": g, "p_value": np.nan, "p_holm": np.nan, "n_real": int(real.size),
                      "set_aside": "; ".join(sorted(same))} for g in names]
        return pd.DataFrame(rows)
    scorer = Scorer(ds, spec, real, unit)
    item_deg = _constant_item_terms(ds, spec, scorer.item_unit)
    hib = np.array([M.get(m).higher_is_better for m in metric_ids])
    below = np.zeros((len(metric_ids), len(names)), dtype=np.int64)  # replicates with D*_b <= 0
    defined = np.zeros((len(metric_ids), len(names)), dtype=np.int64)
    for lo in range(0, replicates, chunk):  # a chunk of replicates at a time (memory)
        rb = np.arange(lo, min(lo + chunk, replicates))
        w = unit_draws(scorer.n_units, rb, seed)
        counts = scorer.counts(w)
        sc = scorer.score(counts)  # (b, M, S)
        draws = system_draws(real.size, rb, seed)  # (b, S)
        drawn = np.take_along_axis(sc, draws[:, None, :], axis=-1)
        with np.errstate(invalid="ignore"):
            med = np.round(np.nanmedian(drawn, axis=-1), TIE_DECIMALS)  # (b, M)
        deg = np.full((rb.size, len(metric_ids), len(names)), np.nan)
        if names_cls:
            gold = counts.confusion[:, 0].sum(axis=-2)  # (b, K): every system has the resample's gold
            c = _expected_degenerates(gold)  # (b, D, K, K)
            ev = M.evaluate(c, cls_ids, **spec.metric_params())
            for mi, mid in enumerate(metric_ids):
                if mid in ev:
                    deg[:, mi, :len(names_cls)] = np.asarray(ev[mid], dtype=np.float64)
        if item_deg is not None:  # the all_<label> systems (the first K degenerates)
            from ..measures.items import evaluate_items

            u, k, f = item_deg[0].shape
            ev = evaluate_items((w.astype(np.float64) @ item_deg[0].reshape(u, k * f)).reshape(-1, k, f), item_deg[1])
            for mi, mid in enumerate(metric_ids):
                if mid in ev:
                    deg[:, mi, :k] = ev[mid]
        if span_deg:
            st = np.einsum("ba,adf->bdf", w.astype(np.float64), span_deg[1])  # units are the documents
            ev = evaluate_spans(st, span_ids)
            cols = [names.index(n) for n in span_deg[0]]
            for mi, mid in enumerate(metric_ids):
                if mid in ev:
                    deg[:, mi, cols] = np.asarray(ev[mid], dtype=np.float64)
        if score_deg:  # the degenerate scores on the resample's items (metaeval.measures.scores.degenerates)
            ev = _score_degenerate_metrics(spec, score_deg, scorer.item_weights(w).astype(np.float64))
            cols = [names.index(n) for n in score_deg[0]]
            for mi, mid in enumerate(metric_ids):
                if mid in ev:
                    deg[:, mi, cols] = ev[mid]
        with np.errstate(invalid="ignore"):
            d = np.round(deg, TIE_DECIMALS) - med[:, :, None]
            d = np.where(hib[None, :, None], d, -d)
        ok = ~np.isnan(d)
        below += (ok & (d <= 0)).sum(axis=0)
        defined += ok.sum(axis=0)
        report(lo + rb.size, replicates, "gameability resamples")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(defined > 0, (1 + below) / (defined + 1), np.nan)
    for mi, mid in enumerate(metric_ids):
        adj = np.asarray(holm(p[mi]), dtype=float)
        rows += [{"metric": mid, "degenerate": g, "p_value": p[mi, j], "p_holm": adj[j], "n_real": int(real.size),
                  "set_aside": "; ".join(sorted(same))} for j, g in enumerate(names)]
    return pd.DataFrame(rows)


def _score_degenerates(ds, spec):
    """(names, values (D, N, C), gold, groups) of the degenerate systems of
    scores (``scores.degenerates``), or None without metrics of scores."""
    if not spec.score_metrics or ds.scores is None:
        return None
    from ..measures.scores.degenerates import degenerate_values

    one = ds.scores.values.shape[2] == 1
    pos = ds.labels.index(spec.positive_class) if one else None
    names, values = degenerate_values(ds.gold, ds.labels, pos, spec.random_seed)
    gold = (ds.gold == pos).astype(np.int64) if one else ds.gold.astype(np.int64)
    return names, values, gold, ds.groups, len(ds.group_names) if ds.groups is not None else None


def _score_degenerate_metrics(spec, score_deg, weights=None) -> dict:
    """``{id: (..., D)}`` of the degenerate systems of scores on item weights (..., N)."""
    from ..measures.scores.registry import evaluate

    _, values, gold, groups, n_groups = score_deg
    with np.errstate(invalid="ignore", divide="ignore"):
        return evaluate(spec.score_metrics, values, gold, groups, weights, n_groups)


def _expected_degenerates(gold: np.ndarray) -> np.ndarray:
    """(..., D, K, K): ``class_degenerates``' matrices for gold counts (..., K):
    the constant classes, then the prior-matched and the uniform guesser."""
    gold = np.asarray(gold, dtype=np.float64)
    k = gold.shape[-1]
    total = gold.sum(axis=-1, keepdims=True)
    prior = gold / np.where(total > 0, total, 1.0)  # no gold: a zero row, multiplied by the zero gold below
    q = np.concatenate([np.broadcast_to(np.eye(k), gold.shape[:-1] + (k, k)), prior[..., None, :],
                        np.full(gold.shape[:-1] + (1, k), 1.0 / k)], axis=-2)  # (..., D, K)
    return q[..., :, :, None] * gold[..., None, None, :]


def dataset_gameability(ds, spec, scores: pd.DataFrame | None = None, *, unit: str | None = None,
                        replicates: int = default_of("bootstrap_replicates"), seed: int = default_of("bootstrap_seed"),
                        alpha: float = default_of("verdict_alpha")) -> pd.DataFrame:
    """The gameability table (``gameability.csv``) of a loaded dataset
    (``dataset.Dataset``) with its spec: its degenerate systems against its
    real ones (``scores``: its ``scores.csv``, or scored here), the real
    systems identical to a degenerate system left out of the median; with
    ``unit`` (``item`` or ``group``), the test of ``gameability_test`` on
    ``replicates`` resamples of ``seed`` at ``alpha``: columns ``p_value``,
    ``p_holm``, ``verdict`` and ``set_aside``."""
    from ..data.dataset import RANKED_KINDS, score_dataset

    deg = degenerate_scores(np.bincount(ds.gold, minlength=ds.k) if ds.k else [], spec.labels if ds.k else (),
                            spec.metrics, spec.metric_params(),
                            ds.spans.degenerate_statistics() if ds.spans is not None else None, spec.span_metrics)
    item_deg = _constant_item_terms(ds, spec)
    if item_deg is not None:  # the all_<label> systems' scores of the metrics of per-item terms; NaN for guessers
        from ..measures.items import evaluate_items

        ev = evaluate_items(item_deg[0].sum(axis=0), item_deg[1])
        if deg.empty:
            deg = pd.DataFrame({"degenerate": [f"all_{lab}" for lab in spec.labels]})
        for mid in spec.item_metrics:
            deg[mid] = deg["degenerate"].map(dict(zip([f"all_{lab}" for lab in spec.labels], ev[mid]))).astype(float)
    score_deg = _score_degenerates(ds, spec)
    if score_deg:  # the degenerate scores' values of the metrics of scores, on the whole test set
        ev = _score_degenerate_metrics(spec, score_deg)
        if deg.empty:
            deg = pd.DataFrame({"degenerate": score_deg[0]})
        missing = [n for n in score_deg[0] if n not in set(deg["degenerate"])]
        if missing:
            deg = pd.concat([deg, pd.DataFrame({"degenerate": missing})], ignore_index=True)
        for mid in spec.score_metrics:
            deg[mid] = deg["degenerate"].map(dict(zip(score_deg[0], ev[mid]))).astype(float)
    df = score_dataset(ds, spec) if scores is None else scores
    same = identical_to_degenerate(ds)
    real = df[df["kind"].isin(RANKED_KINDS) & ~df["system"].isin(list(same))]
    table = gameability(real, deg, spec.all_metrics)
    if unit is None:
        return table
    test = gameability_test(ds, spec, unit=unit, replicates=replicates, seed=seed, same=same)
    table = table.merge(test.drop(columns=["n_real"]), on=["metric", "degenerate"], how="left")
    sig = table["p_holm"].to_numpy(dtype=float) < alpha
    table["verdict"] = np.where(table["score"].isna(), "not computed",
                                np.where(sig & table["beats_median"].astype(bool), "gameable",
                                         np.where(table["beats_median"].astype(bool), "borderline", "not gameable")))
    table["set_aside"] = table["set_aside"].fillna("")
    return table
