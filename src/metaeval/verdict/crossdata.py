"""Which metric holds up across tasks?  Cross-dataset meta-evaluation, read
from the per-dataset recommendations (it never recomputes them).

Every dataset's recommendation gives, per criterion and metric, a value
with its interval, whether the metric is in the criterion's Model
Confidence Set and its MCS p-value (``recommend``: the null hypothesis
that the metric is among the best on that criterion; the set at level a
holds the metrics whose p-value is at least a).  The rows of each
dataset's headline scope are read.  Across the datasets of one kind of
task (``nominal`` classes, ``ordinal`` classes, ``spans``):

* **The dataset's level.**  A dataset takes each criterion's set at
  ``level = alpha / C`` (Bonferroni over its C criteria); its MCS p-value
  on the scale of alpha is ``min(1, p alpha / level)``, so that a metric
  kept on a dataset (``p >= level``) is never counted short of the best
  there.
* **Test sets count once.**  Datasets that share a test set (the same gold
  file, or the same ``test_set`` key: FNC-1's views) are one test set: a
  metric's p-value there is the Bonferroni combination of its views,
  ``min(1, k min_i p_i)`` over the k views that judge it (short on the test
  set when short on one of its views).
* **Tables** per criterion: metric x dataset, value, interval and
  membership of the set.
* **Counts** per metric and criterion: on how many test sets it is judged
  and kept, and the *replicability count* of Dror, Baumer, Bogomolov &
  Reichart (2017): from the test sets' p-values, the partial conjunction
  p-values p^{u/N} (Bonferroni: (N - u + 1) p_(u); Fisher: the chi-square
  combination of the N - u + 1 largest), made monotone, and k_hat = the
  number of u with p^{u/N} <= alpha: with confidence 1 - alpha the metric
  falls short of the best on at least k_hat of the N test sets
  (Bonferroni holds under any dependence; Fisher needs independent test
  sets).  Which ones: Holm's procedure.  A metric that holds up has k_hat
  0 on every criterion.
* **The answer per kind of task**: the metrics judged on every test set of
  the kind and shown short (Bonferroni k_hat >= 1) on none of its criteria;
  when every metric is shown short somewhere, none is named.  A copy of a
  metric gets the copy's p-values, so it cannot change the answer; adding
  a metric can only widen each dataset's sets (MCS).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..settings import default_of
from ..data.config import dataset_kind  # noqa: F401  (where a spec's kind of task is said)

__all__ = ["KINDS", "dataset_kind", "gather", "partial_conjunction", "pvalues_by_test_set", "replicability",
           "cross_recommendation", "cross_tables", "cross_answer"]

KINDS = ("nominal", "ordinal", "spans")


def gather(recommendations: Mapping[str, pd.DataFrame], kinds: Mapping[str, str],
           test_sets: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The datasets' ``recommendation.csv`` tables (their headline scope's
    rows, when they have a ``scope`` column: the first scope listed) in one
    long table with ``dataset``, ``kind`` and ``test_set`` first, the
    datasets in the given order.

    >>> import pandas as pd
    >>> rec = pd.DataFrame({"criterion": ["stability"], "metric": ["accuracy"], "value": [0.9]})
    >>> gather({"a": rec}, {"a": "nominal"}).columns.tolist()
    ['dataset', 'kind', 'test_set', 'criterion', 'metric', 'value']
    """
    frames = []
    for name, df in recommendations.items():
        if "scope" in df.columns and len(df):
            df = df[df["scope"] == df["scope"].iloc[0]]
        ts = (test_sets or {}).get(name, name)
        frames.append(df.assign(dataset=name, kind=kinds[name], test_set=ts)[["dataset", "kind", "test_set",
                                                                              *df.columns]])
    return (pd.concat(frames, ignore_index=True) if frames else
            pd.DataFrame(columns=["dataset", "kind", "test_set"]))


def partial_conjunction(p, alpha: float = default_of("alpha"), method: str = "bonferroni") -> tuple[int, np.ndarray]:
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
    from ..methods.corrections import holm

    return np.asarray(holm(p)) <= alpha


def _judged(g: pd.DataFrame) -> pd.Series:
    """Rows where the metric is judged on the criterion (a participant of
    a counted criterion; older tables without those columns: a value)."""
    if "participant" in g.columns:
        return g["participant"].astype(bool) & g.get("counted", pd.Series(True, index=g.index)).astype(bool)
    return pd.Series(np.isfinite(g["value"].to_numpy(dtype=float)), index=g.index)


def pvalues_by_test_set(long: pd.DataFrame, alpha: float = default_of("alpha")) -> pd.DataFrame:
    """Per kind, criterion, metric and test set: ``p`` (each view's MCS
    p-value, the upper end of its Monte Carlo interval when the table has
    it, on the scale of ``alpha``: ``min(1, mcs_p alpha / level)``,
    combined over the views that judge the metric: ``min(1, k min p)``),
    ``kept`` (kept by every such view), ``views`` (how many) and
    ``datasets`` (their names).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"dataset": ["a", "b"], "kind": ["ordinal"] * 2, "test_set": ["t", "t"],
    ...                      "criterion": ["power"] * 2, "metric": ["accuracy"] * 2, "value": [0.8, 0.7],
    ...                      "in_set": [True, False], "mcs_p": [0.4, 0.01]})
    >>> pvalues_by_test_set(long)[["test_set", "p", "kept", "views"]]
      test_set     p   kept  views
    0        t  0.02  False      2
    """
    g = long[_judged(long)]
    rows = []
    for (kind, crit, mid, ts), x in g.groupby(["kind", "criterion", "metric", "test_set"], sort=False):
        # the upper end of the Monte Carlo interval where there is one: the p-value the dataset's sets are read at
        p = x["mcs_p_upper" if "mcs_p_upper" in x.columns else "mcs_p"].to_numpy(dtype=float)
        if "level" in x.columns:
            p = np.minimum(1.0, p * alpha / x["level"].to_numpy(dtype=float))
        p = p[np.isfinite(p)]
        rows.append({"kind": kind, "criterion": crit, "metric": mid, "test_set": ts,
                     "p": min(1.0, p.size * p.min()) if p.size else np.nan,
                     "kept": bool(x["in_set"].astype(bool).all()), "views": int(len(x)),
                     "datasets": "; ".join(map(str, x["dataset"]))})
    return pd.DataFrame(rows, columns=["kind", "criterion", "metric", "test_set", "p", "kept", "views", "datasets"])


def replicability(long: pd.DataFrame, alpha: float = default_of("alpha")) -> pd.DataFrame:
    """Per kind of task, criterion and metric: ``n_test_sets`` (judged),
    ``n_kept`` (kept on every view of the test set), ``kept_share``,
    ``k_short_bonferroni``, ``k_short_fisher`` (Dror et al.'s counts of the
    test sets on which the metric falls short of the best, from their MCS
    p-values), ``short_on`` (Holm's test sets) and ``n_recommended``
    (test sets whose every dataset's answer names it: datasets sharing a
    test set count once, as for ``n_kept``).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "kind": ["nominal"] * 4,
    ...                      "test_set": ["a", "a", "b", "b"], "criterion": ["stability"] * 4,
    ...                      "metric": ["accuracy", "macro_recall"] * 2, "value": [0.8, 0.9, 0.7, 0.9],
    ...                      "in_set": [False, True, False, True], "mcs_p": [0.01, 1.0, 0.02, 1.0],
    ...                      "recommended": [False, True, False, True]})
    >>> replicability(long)[["metric", "n_kept", "k_short_bonferroni", "short_on"]]
             metric  n_kept  k_short_bonferroni short_on
    0      accuracy       0                   2     a; b
    1  macro_recall       2                   0
    """
    ts = pvalues_by_test_set(long, alpha)
    rec = (long.drop_duplicates(["kind", "metric", "dataset"])
           .assign(recommended=lambda x: x["recommended"].astype(bool))
           .groupby(["kind", "metric", "test_set"])["recommended"].all()
           .groupby(["kind", "metric"]).sum()) if len(long) else pd.Series(dtype=int)
    rows = []
    for (kind, crit, mid), g in ts.groupby(["kind", "criterion", "metric"], sort=False):
        p = g["p"].to_numpy(dtype=float)
        kb = partial_conjunction(p, alpha, "bonferroni")[0]
        kf = partial_conjunction(p, alpha, "fisher")[0]
        short = g["test_set"].to_numpy()[_holm_set(p, alpha)] if len(p) else []
        rows.append({"kind": kind, "criterion": crit, "metric": mid, "n_test_sets": len(g),
                     "n_kept": int(g["kept"].sum()), "kept_share": g["kept"].mean() if len(g) else np.nan,
                     "k_short_bonferroni": kb, "k_short_fisher": kf, "short_on": "; ".join(map(str, short)),
                     "n_recommended": int(rec.get((kind, mid), 0))})
    return pd.DataFrame(rows, columns=["kind", "criterion", "metric", "n_test_sets", "n_kept", "kept_share",
                                       "k_short_bonferroni", "k_short_fisher", "short_on", "n_recommended"])


def cross_recommendation(long: pd.DataFrame, rep: pd.DataFrame | None = None, alpha: float = default_of("alpha")) -> pd.DataFrame:
    """Per kind of task and metric judged on every test set of the kind:
    ``n_test_sets``, ``kept_share`` (the share of its (test set,
    criterion) pairs on which every view keeps it), ``n_recommended``,
    ``short_on`` (the criteria on which Dror's Bonferroni count is at least
    one: it falls short of the best somewhere, with confidence 1 - alpha)
    and ``selected`` (short on none).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "kind": ["nominal"] * 4,
    ...                      "test_set": ["a", "a", "b", "b"], "criterion": ["stability"] * 4,
    ...                      "metric": ["accuracy", "macro_recall"] * 2, "value": [0.8, 0.9, 0.7, 0.9],
    ...                      "in_set": [False, True, False, True], "mcs_p": [0.01, 1.0, 0.02, 1.0],
    ...                      "recommended": [False, True, False, True]})
    >>> cross_recommendation(long)[["metric", "kept_share", "short_on", "selected"]]
             metric  kept_share    short_on  selected
    0      accuracy         0.0   stability     False
    1  macro_recall         1.0                  True
    """
    rep = replicability(long, alpha) if rep is None else rep
    ts = pvalues_by_test_set(long, alpha)
    out = []
    cand = "admissible" if "admissible" in long.columns else ("candidate" if "candidate" in long.columns else None)
    for kind, g in ts.groupby("kind", sort=False):
        lk = long[long["kind"] == kind]
        sets = list(dict.fromkeys(lk["test_set"]))
        judged_on = g.groupby("metric")["test_set"].nunique()
        for mid in dict.fromkeys(g["metric"]):
            if judged_on.get(mid, 0) < len(sets):
                continue
            r = rep[(rep["kind"] == kind) & (rep["metric"] == mid)]
            short = [c for c, k in zip(r["criterion"], r["k_short_bonferroni"]) if k > 0]
            # a metric that is no candidate on a dataset (vetoed as gameable, failing a declared requirement) is not
            # an answer across the datasets, however it fares on the others
            out_on = sorted(set(lk.loc[(lk["metric"] == mid) & ~lk[cand].astype(bool), "dataset"])) if cand else []
            x = g[g["metric"] == mid]
            out.append({"kind": kind, "metric": mid, "n_test_sets": len(sets), "kept_share": x["kept"].mean(),
                        "n_recommended": int(r["n_recommended"].max()) if len(r) else 0,
                        "short_on": "; ".join(short), "not_a_candidate_on": "; ".join(out_on),
                        "selected": not short and not out_on})
    return pd.DataFrame(out, columns=["kind", "metric", "n_test_sets", "kept_share", "n_recommended", "short_on",
                                      "not_a_candidate_on", "selected"])


def cross_answer(rec: pd.DataFrame, kind: str, datasets: Sequence[str], test_sets: Sequence[str] | None = None,
                 exempt: set | None = None) -> str:
    """The answer sentence of one kind of task.

    >>> import pandas as pd
    >>> rec = pd.DataFrame({"kind": ["nominal"] * 2, "metric": ["macro_recall", "accuracy"], "n_test_sets": [2, 2],
    ...                     "kept_share": [1.0, 0.5], "n_recommended": [2, 0], "short_on": ["", "stability"],
    ...                     "selected": [True, False]})
    >>> cross_answer(rec, "nominal", ["a", "b"])
    'Across the 2 nominal datasets (a and b): R^M (balanced accuracy) is shown short of the best on none of 2 test sets (kept on 100% of the criteria that judge it; in the answer of 2 of 2 test sets); with so few test sets the answer across tasks is tentative.'
    """
    from .recommendation import display_name

    r = rec[(rec["kind"] == kind) & rec["selected"]]
    word = {"spans": "span"}.get(kind, kind)
    n_sets = len(set(test_sets)) if test_sets is not None else len(datasets)
    where = f"the {len(datasets)} {word} dataset{'s' if len(datasets) != 1 else ''} ({_and(list(datasets))})"
    if n_sets < len(datasets):
        where += f", {n_sets} test set{'s' if n_sets != 1 else ''}"
    alls = rec[rec["kind"] == kind]
    if alls.empty:
        return f"Across {where}: no metric is judged on every test set."
    if r.empty:
        return (f"Across {where}: every metric judged on every test set falls short of the best on some criterion "
                "of some test set; none is named.")
    parts = [(display_name(m), f"kept on {s:.0%} of the criteria that judge it; in the answer of {k} of "
                                f"{n_sets} test sets")
             for m, s, k in zip(r["metric"], r["kept_share"], r["n_recommended"])]
    if len(parts) > 4:  # the names, and the ones kept most often
        top = r["kept_share"].max()
        best = [display_name(m) for m in r.loc[r["kept_share"] == top, "metric"]]
        text = (f"Across {where}: {len(parts)} of the {len(alls)} metrics judged on every test set are shown short "
                f"of the best on none ({_and([n for n, _ in parts])})")
        text += (f"; all are kept on {top:.0%} of the criteria that judge them" if len(best) == len(parts) else
                 f"; {_and(best)} {'is' if len(best) == 1 else 'are'} kept on {top:.0%} of the criteria that judge "
                 f"{'it' if len(best) == 1 else 'them'}")
    elif len(parts) == 1:
        text = f"Across {where}: {parts[0][0]} is shown short of the best on none of {n_sets} test sets ({parts[0][1]})"
    else:
        text = (f"Across {where}: {_and([f'{n} ({d})' for n, d in parts])} are shown short of the best on none of "
                f"{n_sets} test sets")
    if exempt is not None:
        free = [display_name(m) for m in r["metric"] if m in exempt]
        if free:
            text += (f"; {_and(free)} {'is' if len(free) == 1 else 'are'} not judged on the class priors "
                     "(invariant by construction)")
    if n_sets < 3:
        text += "; with so few test sets the answer across tasks is tentative"
    return text + "."


def _smallest_count_p(g: pd.DataFrame, alpha: float, mc_level: float = default_of("verdict_mc_level")
                      ) -> float | None:
    """The smallest p-value the replicability count of one kind can reach
    for any metric: the smallest MCS p-value a dataset can give, 1 /
    (replicates + 1) read at the upper end of its Monte Carlo interval
    (``verdict.mc_upper`` at ``mc_level``, as the datasets' sets are), on
    alpha's scale and over the views of a test set (``pvalues_by_test_set``),
    times the test sets that judge the metric (the Bonferroni count's first
    step: a metric judged on one test set is multiplied by 1, not by all of
    the kind's).  None without the columns.

    Examples
    --------
    >>> import pandas as pd
    >>> g = pd.DataFrame({"dataset": ["a", "b", "a"], "test_set": ["a", "b", "a"], "criterion": ["power"] * 3,
    ...                   "metric": ["accuracy", "accuracy", "fnc_score"], "value": [0.7, 0.6, 0.5],
    ...                   "replicates": [500] * 3,
    ...                   "level": [0.0125] * 3})
    >>> round(_smallest_count_p(g, 0.05), 4)  # fnc_score, judged on one test set
    0.0236
    """
    if not {"replicates", "level"} <= set(g.columns) or g.empty:
        return None
    from .evidence import mc_upper

    per = g.drop_duplicates("dataset")
    b = per["replicates"].to_numpy(float)
    smallest = np.array([float(mc_upper(1.0 / (n + 1), int(n), mc_level)) for n in b])  # (a loop over datasets)
    p = pd.Series(np.minimum(1.0, alpha / per["level"].to_numpy(float) * smallest), index=per["dataset"])
    views = per.groupby("test_set")["dataset"].transform("size").to_numpy()
    floor_ts = (p * views).groupby(per["test_set"].to_numpy()).min()  # per test set
    j = g[_judged(g)].drop_duplicates(["criterion", "metric", "test_set"])
    if j.empty:
        return None
    per_metric = j.assign(f=j["test_set"].map(floor_ts)).groupby(["criterion", "metric"])["f"].agg(["min", "size"])
    return float((per_metric["min"] * per_metric["size"]).min())


def _and(items, word: str = "and") -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1] if items else ""


def cross_tables(long: pd.DataFrame, rep: pd.DataFrame, rec: pd.DataFrame, alpha: float,
                 skipped: Mapping[str, str] | None = None, mc_level: float = default_of("verdict_mc_level")) -> str:
    """The Markdown page: per kind the answer, then per criterion the
    metric x dataset table (``✔ value [low, high]``: kept; ``(N
    undefined)``: resamples left out of the interval; ``‡``: not a
    candidate there; ``exempt``: invariant to the priors), then the counts
    and the replicability of the shortfalls.  ``skipped``: the configured
    datasets without a meta-evaluation, with why; ``mc_level``: the
    datasets' ``verdict_mc_level`` (the smallest attainable count).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "kind": ["nominal"] * 4,
    ...                      "test_set": ["a", "a", "b", "b"], "criterion": ["stability"] * 4,
    ...                      "metric": ["accuracy", "macro_recall"] * 2, "value": [0.8, 0.9, 0.7, 0.9],
    ...                      "low": [0.7, 0.8, 0.6, 0.8], "high": [0.9, 1.0, 0.8, 1.0],
    ...                      "in_set": [False, True, False, True], "mcs_p": [0.01, 1.0, 0.02, 1.0],
    ...                      "recommended": [False, True, False, True]})
    >>> rep = replicability(long)
    >>> page = cross_tables(long, rep, cross_recommendation(long, rep), 0.05)
    >>> page.splitlines()[0], "R^M (balanced accuracy) is shown short of the best on none" in page
    ('# Across datasets: which metric holds up', True)
    """
    from .recommendation import CRITERIA
    from ..present.tables import format_p, markdown_table, md_escape

    lines = ["# Across datasets: which metric holds up", "",
             "Each dataset's recommendation, gathered (never recomputed): per kind of task, per criterion, "
             "each metric's value with its 95 % interval on every dataset (✔: kept in the criterion's Model "
             "Confidence Set, the metrics the evidence cannot tell from the best). *Short on* counts the test sets "
             "on which the metric demonstrably falls short of the best (Dror et al. 2017's replicability count over "
             f"the test sets' MCS p-values, each taken on the scale of alpha {alpha:g} (times the number of its "
             "dataset's criteria, the dataset's own Bonferroni), then Bonferroni over the test sets: with that "
             "confidence it falls short on at least that many; Fisher's count in brackets assumes independent test "
             "sets). Datasets that share a "
             "test set count once (a metric is short there when short on one of its views: Bonferroni over the "
             "views). A metric that holds up is short on none. *(N undefined)*: resamples in which the criterion "
             "is undefined, left out of the interval. *‡*: not a candidate on that dataset (gameable there, span "
             "precision or recall alone, too often undefined, or failing a declared requirement: the dataset's page "
             "says why), never an answer across the datasets. *exempt*: invariant to the class priors by "
             "construction, not judged on them.", ""]
    shared = long.drop_duplicates("dataset").groupby("test_set")["dataset"].apply(list)
    shared = {t: ds for t, ds in shared.items() if len(ds) > 1}
    if shared:
        lines += ["Datasets sharing a test set: " + "; ".join(f"{_and(ds)} ({md_escape(t)})" for t, ds in
                                                            shared.items()) + ".", ""]
    if skipped:
        lines += ["Not included (no meta-evaluation): " + "; ".join(f"{md_escape(d)} ({md_escape(w)})"
                                                                    for d, w in skipped.items()) + ".", ""]
    for kind in [k for k in KINDS if k in set(long["kind"])]:
        g = long[long["kind"] == kind]
        datasets = list(dict.fromkeys(g["dataset"]))
        sets = list(dict.fromkeys(g["test_set"]))
        free = set(g.loc[g["exempt"].astype(bool), "metric"]) if "exempt" in g.columns else set()
        lines += [f"## {({'spans': 'span identification'}.get(kind, kind)).capitalize()} tasks", "",
                  f"**{md_escape(cross_answer(rec, kind, datasets, sets, free))}**", ""]
        floor = _smallest_count_p(g, alpha, mc_level)
        if floor is not None and floor > alpha:
            lines += [f"(With these resamples no metric can be counted short on any test set: the smallest "
                      f"attainable p-value of any metric's count is {format_p(floor, (alpha,))} > {alpha:g}. More "
                      "`criteria_replicates` would allow it.)",
                      ""]
        for crit in dict.fromkeys(g["criterion"]):
            gc = g[g["criterion"] == crit]
            table = []
            for m in dict.fromkeys(gc["metric"]):
                row = {"metric": M.get(m).name}
                for d in datasets:
                    x = gc[(gc["metric"] == m) & (gc["dataset"] == d)]
                    if x.empty or not np.isfinite(float(x["value"].iloc[0])):
                        row[d] = "n/a"
                        continue
                    x = x.iloc[0]
                    mark = "✔ " if bool(x.get("in_set", False)) else ""
                    row[d] = f"{mark}{x['value']:.3f} [{x['low']:.3f}, {x['high']:.3f}]"
                    n_nan = x.get("n_undefined")
                    if n_nan is not None and pd.notna(n_nan) and int(n_nan) > 0:
                        row[d] += f" ({int(n_nan)} undefined)"
                    if "exempt" in x and bool(x["exempt"]):
                        row[d] += " exempt"
                    if not bool(x.get("admissible", x.get("candidate", True))):
                        row[d] += " ‡"
                r = rep[(rep["kind"] == kind) & (rep["criterion"] == crit) & (rep["metric"] == m)]
                if len(r):
                    r = r.iloc[0]
                    row["kept"] = f"{r['n_kept']} of {r['n_test_sets']}"
                    row["short on"] = f"{r['k_short_bonferroni']} [{r['k_short_fisher']}]"
                else:
                    row["kept"], row["short on"] = "not judged", ""
                table.append(row)
            lines += [f"### {CRITERIA.get(crit, crit)}", "", markdown_table(pd.DataFrame(table), escape=True), ""]
        rk = rec[rec["kind"] == kind]
        if len(rk):
            t = pd.DataFrame({"metric": [M.get(m).name for m in rk["metric"]],
                              "share of (test set, criterion) kept": rk["kept_share"].to_numpy(),
                              "in the answer on": [f"{k} of {len(sets)} test sets" for k in rk["n_recommended"]],
                              "shown short on": [s or "none" for s in rk["short_on"]],
                              # ‡ on a dataset (e.g. gameable there) is never an answer across the datasets
                              "not a candidate on": [f"{o} ‡" if o else "" for o in rk["not_a_candidate_on"]]})
            lines += ["### The metrics judged on every test set", "", markdown_table(t), ""]
    return "\n".join(lines)
