"""Which metric holds up across tasks?  Cross-dataset meta-evaluation, read
from the per-dataset recommendations (it never recomputes them).

Every dataset's recommendation gives, per criterion and metric, a value
with its interval, the metric's membership of the criterion's top tier and
the p-value of its tier test (``recommend.tier_pvalues``: the null
hypothesis that the metric is as good as the best, against the alternative
that it is worse; closed upwards like the tier, so a metric marked in a top
tier is never counted short of the best there).  Across the datasets of one kind of task (``nominal``
classes, ``ordinal`` classes, ``spans``):

* **Tables** per criterion: metric x dataset, value, interval and top tier.
* **Counts** per metric and criterion: on how many datasets it is scored,
  in the top tier, and the *replicability count* of Dror, Baumer,
  Bogomolov & Reichart (2017): from the datasets' tier-test p-values, the
  partial conjunction p-values p^{u/N} (Bonferroni: (N - u + 1) p_(u);
  Fisher: the chi-square combination of the N - u + 1 largest), made
  monotone, and k_hat = the number of u with p^{u/N} <= alpha: with
  confidence 1 - alpha the metric falls short of the best on at least
  k_hat of the N datasets (Bonferroni holds under any dependence; Fisher
  needs independent datasets).  Which datasets: Holm's procedure.  A
  metric that holds up has k_hat 0.
* **A recommendation per kind of task**: the metrics of the datasets' K0
  (the per-dataset Pareto sets) scored on every dataset of the kind, and
  their tier vectors over every (dataset, criterion); the answer is the
  metrics whose tier vector no other metric's vector dominates (the last
  step of Tiered Pareto Selection, over datasets).  An exact copy of a
  metric gets the copy's tiers on every dataset, and a metric worse than
  another on every criterion of every dataset is in no K0, so, as for one
  dataset, neither changes the answer (METHODS.md 8; tested).  When every
  candidate has the same tier vector, the answer is the set, and says so.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from . import metrics as M

__all__ = ["KINDS", "dataset_kind", "gather", "partial_conjunction", "replicability", "cross_recommendation",
           "cross_tables", "cross_answer"]

KINDS = ("nominal", "ordinal", "spans")


def dataset_kind(spec) -> str:
    """``spans`` for a span task (technique classification too),
    ``ordinal`` for ordered classes, ``nominal`` otherwise.

    >>> from types import SimpleNamespace
    >>> dataset_kind(SimpleNamespace(span_task=None, ordinal=True))
    'ordinal'
    """
    return "spans" if spec.span_task else ("ordinal" if spec.ordinal else "nominal")


def gather(recommendations: Mapping[str, pd.DataFrame], kinds: Mapping[str, str]) -> pd.DataFrame:
    """The datasets' ``recommendation.csv`` tables in one long table with
    ``dataset`` and ``kind`` first, the datasets in the given order.

    >>> import pandas as pd
    >>> rec = pd.DataFrame({"criterion": ["stability"], "metric": ["accuracy"], "value": [0.9]})
    >>> gather({"a": rec}, {"a": "nominal"}).columns.tolist()
    ['dataset', 'kind', 'criterion', 'metric', 'value']
    """
    frames = [df.assign(dataset=name, kind=kinds[name])[["dataset", "kind", *df.columns]]
              for name, df in recommendations.items()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["dataset", "kind"])


def partial_conjunction(p, alpha: float = 0.05, method: str = "bonferroni") -> tuple[int, np.ndarray]:
    """Dror et al.'s (2017) replicability count of N p-values, one per
    dataset: ``(k_hat, monotone partial conjunction p-values)``.

    Parameters
    ----------
    p : array_like, shape (N,)
        Each dataset's p-value of the same null hypothesis (NaN: left out).
    alpha : float
    method : {"bonferroni", "fisher"}

    Returns
    -------
    (int, ndarray)
        k_hat: with confidence 1 - alpha the effect holds in at least k_hat
        datasets; the p^{u/N}, u = 1..N, made non-decreasing.

    Notes
    -----
    With the p-values sorted, p_(1) <= ... <= p_(N): Bonferroni
    p^{u/N} = (N - u + 1) p_(u); Fisher p^{u/N} = P(chi2_{2(N-u+1)} >=
    -2 sum_{i=u..N} ln p_(i)); then p*_u = max(p*_{u-1}, p^{u/N}) and
    k_hat = #{u : p*_u <= alpha}.

    References
    ----------
    Dror, Baumer, Bogomolov & Reichart (2017), "Replicability analysis for
    natural language processing: testing significance with multiple
    datasets", TACL 5; Benjamini & Heller (2008), "Screening for partial
    conjunction hypotheses", Biometrics 64(4).

    Examples
    --------
    The check vector of METHODS.md section 4:

    >>> p = [0.168, 0.297, 0.357, 0.019, 0.218, 0.001]
    >>> partial_conjunction(p, 0.05, "bonferroni")[0], partial_conjunction(p, 0.05, "fisher")[0]
    (1, 2)
    """
    from scipy.special import chdtrc  # chi2.sf without importing scipy.stats (half a second)

    p = np.sort(np.asarray(p, dtype=np.float64)[~np.isnan(np.asarray(p, dtype=np.float64))])
    n = p.size
    if n == 0:
        return 0, np.zeros(0)
    u = np.arange(1, n + 1)
    if method == "bonferroni":
        pc = np.minimum(1.0, (n - u + 1) * p)
    elif method == "fisher":
        with np.errstate(divide="ignore"):
            logs = np.log(p)
        tail = np.cumsum(logs[::-1])[::-1]  # sum_{i=u..N} ln p_(i)
        pc = chdtrc(2 * (n - u + 1), -2 * tail)
    else:
        raise ValueError(f"method must be 'bonferroni' or 'fisher', got {method!r}")
    pc = np.maximum.accumulate(pc)
    return int((pc <= alpha).sum()), pc


def _holm_set(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's rejections (a boolean per p-value; NaN never rejected)."""
    from .significance import holm

    return np.asarray(holm(p)) <= alpha


def replicability(long: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per kind of task, criterion and metric: ``n_datasets`` (scored),
    ``n_top_tier`` (marked in the top tier), ``top_tier_share``,
    ``k_short_bonferroni``, ``k_short_fisher`` (Dror et al.'s counts of the
    datasets on which the metric falls short of the best, from the tier
    tests' p-values), ``short_on`` (Holm's datasets) and
    ``n_recommended`` (datasets whose answer names it).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "kind": ["nominal"] * 4, "criterion": ["stability"] * 4,
    ...                      "metric": ["accuracy", "macro_recall"] * 2, "value": [0.8, 0.9, 0.7, 0.9],
    ...                      "low": [0.7, 0.8, 0.6, 0.8], "high": [0.9, 1.0, 0.8, 1.0],
    ...                      "top_tier": [False, True, False, True], "k0": [True] * 4,
    ...                      "tier": [False, True, False, True], "tier_p": [0.01, 0.5, 0.02, 0.5],
    ...                      "recommended": [False, True, False, True]})
    >>> replicability(long)[["metric", "n_top_tier", "k_short_bonferroni", "short_on"]]
             metric  n_top_tier  k_short_bonferroni short_on
    0      accuracy           0                   2     a; b
    1  macro_recall           2                   0
    """
    rows = []
    for (kind, crit, mid), g in long.groupby(["kind", "criterion", "metric"], sort=False):
        g = g[np.isfinite(g["value"].to_numpy(dtype=float))]
        p = g["tier_p"].to_numpy(dtype=float)
        kb = partial_conjunction(p, alpha, "bonferroni")[0]
        kf = partial_conjunction(p, alpha, "fisher")[0]
        short = g["dataset"].to_numpy()[_holm_set(p, alpha)] if len(p) else []
        rows.append({"kind": kind, "criterion": crit, "metric": mid, "n_datasets": len(g),
                     "n_top_tier": int(g["top_tier"].astype(bool).sum()),
                     "top_tier_share": g["top_tier"].astype(bool).mean() if len(g) else np.nan,
                     "k_short_bonferroni": kb, "k_short_fisher": kf, "short_on": "; ".join(map(str, short)),
                     "n_recommended": int(g["recommended"].astype(bool).sum())})
    return pd.DataFrame(rows)


def cross_recommendation(long: pd.DataFrame) -> pd.DataFrame:
    """Per kind of task, each metric scored on every dataset of the kind
    and in the K0 of at least one: ``n_datasets``, ``tier_share`` (the share
    of its (dataset, criterion) pairs in K0's top tier), ``n_recommended``,
    ``dominated_by`` (a metric whose tier vector dominates its own, if
    any) and ``selected``.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "kind": ["nominal"] * 4, "criterion": ["stability"] * 4,
    ...                      "metric": ["accuracy", "macro_recall"] * 2, "value": [0.8, 0.9, 0.7, 0.9],
    ...                      "low": [0.7, 0.8, 0.6, 0.8], "high": [0.9, 1.0, 0.8, 1.0],
    ...                      "top_tier": [False, True, False, True], "k0": [True] * 4,
    ...                      "tier": [False, True, False, True], "tier_p": [0.01, 0.5, 0.02, 0.5],
    ...                      "recommended": [False, True, False, True]})
    >>> cross_recommendation(long)[["metric", "tier_share", "dominated_by", "selected"]]
             metric  tier_share  dominated_by  selected
    0      accuracy         0.0  macro_recall     False
    1  macro_recall         1.0                    True
    """
    out = []
    for kind, g in long.groupby("kind", sort=False):
        datasets = list(dict.fromkeys(g["dataset"]))
        scored = g.groupby("metric")["dataset"].nunique()
        in_k0 = g[g["k0"].astype(bool)].groupby("metric").size()
        eligible = [m for m in dict.fromkeys(g["metric"]) if scored.get(m, 0) == len(datasets) and m in in_k0.index]
        cells = list(dict.fromkeys(zip(g["dataset"], g["criterion"])))
        tiers = g.assign(tier=g["tier"].astype(bool)).set_index(["metric", "dataset", "criterion"])["tier"]
        vec = np.array([[bool(tiers.get((m, d, c), False)) for d, c in cells] for m in eligible], dtype=bool)
        for i, m in enumerate(eligible):
            geq = (vec >= vec[i]).all(axis=1) & (vec != vec[i]).any(axis=1)
            dom = [eligible[j] for j in np.flatnonzero(geq)]
            out.append({"kind": kind, "metric": m, "n_datasets": len(datasets),
                        "tier_share": vec[i].mean() if vec.shape[1] else np.nan,
                        "n_recommended": int(g[(g["metric"] == m)].groupby("dataset")["recommended"].any().sum()),
                        "dominated_by": dom[0] if dom else "", "selected": not dom})
    return pd.DataFrame(out, columns=["kind", "metric", "n_datasets", "tier_share", "n_recommended", "dominated_by",
                                      "selected"])


def cross_answer(rec: pd.DataFrame, kind: str, datasets: Sequence[str]) -> str:
    """The answer sentence of one kind of task.

    >>> import pandas as pd
    >>> rec = pd.DataFrame({"kind": ["nominal"] * 2, "metric": ["macro_recall", "accuracy"], "n_datasets": [2, 2],
    ...                     "tier_share": [1.0, 0.5], "n_recommended": [2, 0], "dominated_by": ["", "macro_recall"],
    ...                     "selected": [True, False]})
    >>> cross_answer(rec, "nominal", ["a", "b"])
    'Across the 2 nominal datasets (a and b): report R^M (in the top tier of 100% of their criteria; recommended on 2 of 2); with so few datasets the answer across tasks is tentative.'
    """
    r = rec[(rec["kind"] == kind) & rec["selected"]]
    word = {"spans": "span"}.get(kind, kind)
    where = f"the {len(datasets)} {word} dataset{'s' if len(datasets) != 1 else ''} ({_and(list(datasets))})"
    if r.empty:
        return f"Across {where}: no metric is scored on every dataset and in a Pareto set of one of them."
    names = [M.get(m).name for m in r["metric"]]
    alls = rec[rec["kind"] == kind]
    same = len(r) == len(alls) and len(r) > 1
    parts = [f"{n} (in the top tier of {s:.0%} of their criteria; recommended on {k} of {len(datasets)})"
             for n, s, k in zip(names, r["tier_share"], r["n_recommended"])]
    head = (f"Across {where}: the evidence does not separate " if same or len(r) > 1 else f"Across {where}: report ")
    text = head + _and(parts, "or" if len(r) > 1 else "and")
    if len(datasets) < 3:
        text += "; with so few datasets the answer across tasks is tentative"
    return text + "."


def _and(items, word: str = "and") -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1] if items else ""


def cross_tables(long: pd.DataFrame, rep: pd.DataFrame, rec: pd.DataFrame, alpha: float,
                 skipped: Mapping[str, str] | None = None) -> str:
    """The Markdown page: per kind the answer, then per criterion the
    metric x dataset table (``✔ value [low, high]``: top tier; ``(N
    undefined)``: resamples left out of the interval; ``‡``: not a
    candidate there), then the counts and the replicability of the
    shortfalls.  ``skipped``: the configured datasets without a
    meta-evaluation, with why (said under the introduction).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "kind": ["nominal"] * 4, "criterion": ["stability"] * 4,
    ...                      "metric": ["accuracy", "macro_recall"] * 2, "value": [0.8, 0.9, 0.7, 0.9],
    ...                      "low": [0.7, 0.8, 0.6, 0.8], "high": [0.9, 1.0, 0.8, 1.0],
    ...                      "top_tier": [False, True, False, True], "k0": [True] * 4,
    ...                      "tier": [False, True, False, True], "tier_p": [0.01, 0.5, 0.02, 0.5],
    ...                      "recommended": [False, True, False, True]})
    >>> page = cross_tables(long, replicability(long), cross_recommendation(long), 0.05)
    >>> page.splitlines()[0], "Across the 2 nominal datasets (a and b): report R^M" in page
    ('# Across datasets: which metric holds up', True)
    """
    from .recommend import CRITERIA
    from .tables import markdown_table, md_escape

    lines = ["# Across datasets: which metric holds up", "",
             "Each dataset's recommendation, gathered (never recomputed): per kind of task, per criterion, "
             "each metric's value with its 95 % interval on every dataset (✔: top tier). *Short on* counts the "
             "datasets on which the metric demonstrably falls short of the best (Dror et al. 2017's "
             f"replicability count over the datasets' tier tests, Bonferroni, at alpha {alpha:g}: with that "
             "confidence it falls short on at least that many; Fisher's count in brackets assumes independent "
             "datasets). A metric that holds up is in the top tier everywhere and short on none. "
             "*(N undefined)*: resamples in which the criterion is undefined, left out of the interval (as on the "
             "dataset's own page). *‡*: not a candidate on that dataset (gameable there, span precision or recall "
             "alone, or too often undefined: the dataset's page says why), so never in its top tier.", ""]
    if skipped:
        lines += ["Not included (no meta-evaluation): " + "; ".join(f"{md_escape(d)} ({md_escape(w)})"
                                                                    for d, w in skipped.items()) + ".", ""]
    for kind in [k for k in KINDS if k in set(long["kind"])]:
        g = long[long["kind"] == kind]
        datasets = list(dict.fromkeys(g["dataset"]))
        lines += [f"## {({'spans': 'span'}.get(kind, kind)).capitalize()} tasks", "", f"**{md_escape(cross_answer(rec, kind, datasets))}**", ""]
        for crit in dict.fromkeys(g["criterion"]):
            gc = g[g["criterion"] == crit]
            metrics_ = list(dict.fromkeys(gc["metric"]))
            table = []
            for m in metrics_:
                row = {"metric": M.get(m).name}
                for d in datasets:
                    x = gc[(gc["metric"] == m) & (gc["dataset"] == d)]
                    if x.empty or not np.isfinite(float(x["value"].iloc[0])):
                        row[d] = "n/a"
                        continue
                    x = x.iloc[0]
                    mark = "✔ " if bool(x["top_tier"]) else ""
                    row[d] = (f"{mark}{int(x['value'])}" if crit == "properties" else
                              f"{mark}{x['value']:.3f} [{x['low']:.3f}, {x['high']:.3f}]")
                    n_nan = x.get("n_undefined")
                    if n_nan is not None and pd.notna(n_nan) and int(n_nan) > 0:
                        row[d] += f" ({int(n_nan)} undefined)"
                    if "candidate" in x and not bool(x["candidate"]):
                        row[d] += " ‡"
                r = rep[(rep["kind"] == kind) & (rep["criterion"] == crit) & (rep["metric"] == m)].iloc[0]
                row["top tier"] = f"{r['n_top_tier']} of {r['n_datasets']}"
                row["short on"] = f"{r['k_short_bonferroni']} [{r['k_short_fisher']}]"
                table.append(row)
            lines += [f"### {CRITERIA.get(crit, crit)}", "", markdown_table(pd.DataFrame(table), escape=True), ""]
        rk = rec[rec["kind"] == kind]
        if len(rk):
            t = pd.DataFrame({"metric": [M.get(m).name for m in rk["metric"]],
                              "share of (dataset, criterion) in the top tier": rk["tier_share"].to_numpy(),
                              "recommended on": [f"{k} of {n}" for k, n in zip(rk["n_recommended"],
                                                                             rk["n_datasets"])],
                              "a metric with every tier of its and more": [M.get(d).name if d else ""
                                                                           for d in rk["dominated_by"]]})
            lines += ["### The selection across these datasets", "", markdown_table(t), ""]
    return "\n".join(lines)
