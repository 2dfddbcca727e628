"""Which metric should a dataset report?  All the evidence in one table
(Amemiya & Sakai's Table 7, extended) and a recommendation in sentences.

Criteria (each ranked over the dataset's metrics, 1 = best; ``CRITERIA``):

* stability          mean tau between the rankings on random half-splits (higher is better);
* discrimination     mean tau after merging two classes (lower is better; three classes or more);
* power              discriminative power, the share of system pairs a significance test separates;
* noise              mean tau between the clean and the noisy rankings over the noise rates;
* priors             mean tau between the original ranking and the rankings under shifted class
                     priors (only when the dataset is imbalanced: its largest class has at least
                     ``IMBALANCE_RATIO`` times the items of its smallest);
* properties         how many of the formal properties relevant to the dataset the metric has
                     (``relevant_properties``: ordinal or nominal, imbalanced or not).

Values closer than ``DECIMALS`` decimals count as equal (the ranks tie): the
experiments' own noise (1,000 splits, 100 noisy golds, 10,000 Tukey trials)
makes smaller differences meaningless.  The recommendation is the metric
with the smallest rank sum over the relevant criteria (ties broken by the
worst rank).  A metric is *separated* from the recommended one when the
recommended one is at least as good on every criterion (Pareto dominance);
otherwise the evidence is mixed and the sentences say on which criteria
each is ahead.  Ranks run over the candidates only: metrics with a value
on every criterion, span precision and recall left out.  The others are
shown with their values but no rank (span metrics beside classification
ones are not merged, noised or re-weighted; span precision or recall alone
rewards a degenerate system), so they cannot change the candidates' ranks.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from . import metrics as M
from .properties import PROPERTIES
from .ranking import competition_rank
from .tables import markdown_table, md_escape, ordinal, test_label, test_short

__all__ = ["CRITERIA", "IMBALANCE_RATIO", "DECIMALS", "FEW_SYSTEMS", "COMPONENTS", "relevant_properties", "is_imbalanced",
           "evidence", "sentences", "recommendation_markdown", "legend"]

DECIMALS = 2
IMBALANCE_RATIO = 2.0
# below this many ranked systems one swapped pair moves a tau by more than
# 2/45 = 0.044: the sentences call the recommendation tentative
FEW_SYSTEMS = 10
# shown in the table, never ranked or recommended: either alone rewards a
# degenerate system (few spans for precision, many for recall)
COMPONENTS = ("span_precision", "span_recall")

# criterion -> (value column, higher is better, name in the text)
CRITERIA = {
    "stability": ("stability_tau", True, "rank stability"),
    "discrimination": ("merging_tau", False, "class discrimination"),
    "power": ("discriminative_power", True, "discriminative power"),
    "noise": ("noise_tau", True, "robustness to label noise"),
    "priors": ("prior_tau", True, "robustness to class priors"),
    "properties": ("properties_held", True, "formal properties"),
}


def relevant_properties(ordinal_data: bool, imbalanced: bool) -> list[str]:
    """The formal properties (``metaeval.properties``) a dataset makes
    relevant: always a best value reached by perfect output only, strict
    monotonicity, independence of the test set's size and a constant
    chance level; for ordered classes Amigo et al.'s ordinal invariance and
    monotonicity, for unordered ones the exchange of classes; for
    imbalanced data Amigo et al.'s imbalance, ordered or not (they state it
    for ordinal classes, but what it asks, that an error on a small class
    cost more than the same error on a large one, is what rare unordered
    classes such as RumourEval's deny need too).  (The invariance under a
    change of one class's size is what the class-priors criterion measures
    on the data: it is not counted twice.)"""
    out = ["maximal_agreement", "monotonicity", "uniform_change", "constant_baseline"]
    out += ["ordinal_invariance", "ordinal_monotonicity"] if ordinal_data else ["class_exchange"]
    if imbalanced:
        out += ["imbalance"]
    return out


def is_imbalanced(gold_counts) -> bool:
    n = np.asarray([c for c in gold_counts if c > 0], dtype=float)
    return n.size >= 2 and n.max() >= IMBALANCE_RATIO * n.min()


def _rank(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Competition ranks at ``DECIMALS`` decimals; NaN (no value) -> NaN."""
    v = np.round(np.asarray(values, dtype=float), DECIMALS)
    key = np.where(np.isnan(v), np.inf, -v if higher_is_better else v)
    r = competition_rank(key).astype(float)
    return np.where(np.isnan(v), np.nan, r)


def evidence(summary: pd.DataFrame, noise: pd.DataFrame | None = None, priors: pd.DataFrame | None = None,
             properties: pd.DataFrame | None = None, *, ordinal_data: bool, gold_counts: Sequence[float]
             ) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The extended Table 7: one row per metric of ``summary`` (the
    experiments' ``summary.csv``) with the value and rank of every criterion
    the dataset has, ``rank_sum``, ``worst_rank`` and ``position``; sorted
    by position.  Returns (table, the criteria used, the relevant
    properties)."""
    ids = summary["metric"].tolist()
    df = pd.DataFrame({"metric": ids, "group": summary["group"].to_numpy()})
    df["stability_tau"] = summary["stability_tau"].to_numpy(dtype=float)
    if "merging_tau" in summary.columns:
        df["merging_tau"] = summary["merging_tau"].to_numpy(dtype=float)
    if "discriminative_power" in summary.columns:
        df["discriminative_power"] = summary["discriminative_power"].to_numpy(dtype=float)
        for col in ("power_test", "power_correction"):  # the test and correction that made it
            if col in summary.columns:
                df[col] = summary[col].to_numpy()
    if noise is not None:
        top = noise["rate"].max()
        df["noise_tau"] = noise.groupby("metric")["mean_tau"].mean().reindex(ids).to_numpy(dtype=float)
        df["winner_kept"] = noise[noise["rate"] == top].set_index("metric")["winner_kept"].reindex(ids).to_numpy()
    imbalanced = is_imbalanced(gold_counts)
    if priors is not None and imbalanced:
        df["prior_tau"] = priors.groupby("metric")["tau"].mean().reindex(ids).to_numpy(dtype=float)
    relevant = relevant_properties(ordinal_data, imbalanced)
    if properties is not None:
        p = properties[properties["property"].isin(relevant)]
        held = p.assign(h=p["result"] == "holds").groupby("metric")["h"].sum()
        df["properties_held"] = held.reindex(ids).to_numpy(dtype=float)
        df["properties_failed"] = [", ".join(PROPERTIES[x].name for x in
                                             p.loc[(p["metric"] == m) & (p["result"] == "fails"), "property"])
                                   for m in ids]
    # a criterion no metric has a value on (the formal properties of span metrics) is not one
    used = [c for c, (col, _, _) in CRITERIA.items() if col in df.columns and df[col].notna().any()]
    # ranked: the metrics that can be recommended, with a value on every
    # criterion; the others (span precision and recall; span metrics beside
    # classification ones, never merged or noised) keep their values but take
    # no rank, so that they cannot move the ranks of the candidates
    candidate = df[[CRITERIA[c][0] for c in used]].notna().all(axis=1) & ~df["metric"].isin(COMPONENTS)
    for c in used:
        col, higher, _ = CRITERIA[c]
        df[f"{c}_rank"] = np.nan
        df.loc[candidate, f"{c}_rank"] = _rank(df.loc[candidate, col].to_numpy(), higher)
    ranks = df[[f"{c}_rank" for c in used]]
    df["rank_sum"] = ranks.sum(axis=1).where(candidate)
    df["worst_rank"] = ranks.max(axis=1).where(candidate)
    df = df.sort_values(["rank_sum", "worst_rank", "metric"], na_position="last", ignore_index=True)
    pos = competition_rank(np.where(df["rank_sum"].isna(), np.inf, df["rank_sum"] * 1000 + df["worst_rank"]))
    df["position"] = np.where(df["rank_sum"].isna(), np.nan, pos)
    return df, used, relevant


def _name(mid: str) -> str:
    return M.get(mid).name


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _compare(a: pd.Series, b: pd.Series, used: Sequence[str]) -> tuple[list[str], list[str]]:
    """The criteria on which a is ahead of b, and those on which b is ahead."""
    ahead_a, ahead_b = [], []
    for c in used:
        ra, rb = a[f"{c}_rank"], b[f"{c}_rank"]
        if ra < rb:
            ahead_a.append(CRITERIA[c][2])
        elif rb < ra:
            ahead_b.append(CRITERIA[c][2])
    return ahead_a, ahead_b


def _value(row: pd.Series, c: str) -> str:
    col = CRITERIA[c][0]
    if c == "properties":
        return f"{int(row[col])} held"
    if c == "power":
        by = f", {test_short(row['power_test'], row['power_correction'])}" if _named_test(row) else ""
        return f"{row[col]:.0%} of pairs{by}"
    return f"tau {row[col]:.3f}"


def _named_test(row) -> bool:
    """Whether a row says which test and correction made its power."""
    return isinstance(row.get("power_test"), str) and isinstance(row.get("power_correction"), str)


def sentences(table: pd.DataFrame, used: Sequence[str], relevant: Sequence[str], primary: str | None = None,
              n_contenders: int = 3, n_systems: int | None = None) -> list[str]:
    """The recommendation in sentences, generated from the numbers: the
    metric to report and why, the metrics the evidence cannot separate from
    it (and on what each is ahead), the dataset's primary metric, the
    relevant properties the recommended metric lacks, and, with fewer than
    ``FEW_SYSTEMS`` ranked systems (``n_systems``), that its taus are
    coarse."""
    ok = table[table["rank_sum"].notna()]  # the candidates (``evidence``)
    if not len(ok):
        return ["No metric has a value on every criterion: no recommendation."]
    names = _and([CRITERIA[c][2] for c in used])
    best = ok.iloc[0]
    tied = ok[(ok["rank_sum"] == best["rank_sum"]) & (ok["worst_rank"] == best["worst_rank"])]
    out = []
    strong = [f"{CRITERIA[c][2]} ({ordinal(int(best[f'{c}_rank']))}, {_value(best, c)})" for c in used]
    if len(tied) > 1:
        out.append(f"The evidence cannot choose between {' and '.join(_name(m) for m in tied['metric'])}: they tie "
                   f"on the criteria this dataset makes relevant ({names}), rank sum {int(best['rank_sum'])} "
                   f"and worst rank {int(best['worst_rank'])} each.")
    out.append(f"Report {_name(best['metric'])}: of the {len(ok)} metrics ranked, it has the smallest sum of "
               f"ranks ({int(best['rank_sum'])}) over {names}: " + "; ".join(strong) + ".")
    dominated, mixed = [], []
    for _, other in ok.iloc[1:].iterrows():
        if other["metric"] in set(tied["metric"]):
            continue
        ahead_best, ahead_other = _compare(best, other, used)
        if ahead_other:
            mixed.append((other, ahead_best, ahead_other))
        else:
            dominated.append(other["metric"])
    if mixed:
        out.append(f"The evidence does not separate it outright from {len(mixed)} of the {len(ok) - 1} other "
                   f"metrics: each of them is ahead on at least one criterion, so the choice depends on which "
                   f"criterion matters most for the task. The closest by rank sum:")
    for other, ahead_best, ahead_other in mixed[:n_contenders]:
        out.append(f"{_name(other['metric'])} (rank sum {int(other['rank_sum'])}) is ahead on {_and(ahead_other)}"
                   + (f"; {_name(best['metric'])} on {_and(ahead_best)}." if ahead_best else "."))
    if len(mixed) > n_contenders:
        out.append("Also ahead on some criterion: " + ", ".join(_name(o['metric']) for o, _, _ in mixed[n_contenders:])
                   + ".")
    if dominated:
        out.append(f"It is at least as good on every criterion as {', '.join(_name(m) for m in dominated)}.")
    left = table["metric"][table["metric"].isin(COMPONENTS)]
    if len(left):
        out.append(f"{_and([_name(m) for m in left])} {'is' if len(left) == 1 else 'are'} not ranked: alone, "
                   f"either rewards a degenerate system (few spans for precision, many for recall).")
    partial = table[table["rank_sum"].isna() & ~table["metric"].isin(COMPONENTS)]
    if len(partial):
        missing = [CRITERIA[c][2] for c in used if partial[CRITERIA[c][0]].isna().any()]
        out.append(f"Not ranked, without a value on {_and(missing)}: {', '.join(_name(m) for m in partial['metric'])}.")
    if primary is not None and primary in set(table["metric"]) and primary != best["metric"]:
        row = table[table["metric"] == primary].iloc[0]
        if pd.notna(row["rank_sum"]):
            weak = [CRITERIA[c][2] + f" ({ordinal(int(row[f'{c}_rank']))})" for c in used
                    if row[f"{c}_rank"] > (len(ok) + 1) / 2]
            out.append(f"The dataset's primary metric, {_name(primary)}, comes {ordinal(int(row['position']))} of "
                       f"{len(ok)}" + (f"; it is in the lower half on {', '.join(weak)}." if weak else "."))
        else:
            out.append(f"The dataset's primary metric, {_name(primary)}, is not ranked (above).")
    elif primary == best["metric"]:
        out.append("This is the dataset's primary metric.")
    if "properties" in used:
        failed = best.get("properties_failed", "")
        out.append(f"Of the {len(relevant)} relevant formal properties, {_name(best['metric'])} has "
                   f"{int(best['properties_held'])}" + (f"; it lacks {failed} (counterexamples in "
                                                         f"results/properties.csv)." if failed else "."))
    if "noise" in used:
        worst = ok.sort_values("noise_tau", kind="stable").iloc[0]
        text = (f"Under label noise, {_name(worst['metric'])}'s ranking moves most (tau "
                f"{worst['noise_tau']:.3f} between the clean and the noisy rankings, the mean over the noise "
                f"rates)")
        kept = ok["winner_kept"].dropna() if "winner_kept" in ok.columns else pd.Series(dtype=float)
        if len(kept) and kept.min() >= 1:
            text += "; every metric's winner stays first in all the noisy golds at the highest rate"
        elif len(kept):
            fickle = ok.loc[kept.sort_values(kind="stable").index[0]]
            text += (f"; {_name(fickle['metric'])}'s winner changes most often (first in "
                     f"{fickle['winner_kept']:.0%} of the noisy golds at the highest rate)")
        out.append(text + ".")
    if n_systems is not None and 2 <= n_systems < FEW_SYSTEMS:
        pairs = n_systems * (n_systems - 1) // 2
        out.append(f"Only {n_systems} systems are ranked: one pair of systems swapping places moves a Kendall tau "
                   f"by 2/{pairs} = {2 / pairs:.2f}, so the tau-based criteria are coarse and this recommendation "
                   f"is tentative.")
    return out


def recommendation_markdown(table: pd.DataFrame, used: Sequence[str], relevant: Sequence[str], text: Sequence[str],
                            title: str, context: str) -> str:
    """``recommendation.md``: the sentences, what the dataset makes relevant
    (``context``), and the extended Table 7."""
    lines = [f"# {md_escape(title)}", "", *[md_escape(s) + "  " for s in text], "", md_escape(context), ""]
    show = pd.DataFrame({"position": [("" if np.isnan(p) else ordinal(int(p))) for p in table["position"]],
                         "metric": [_name(m) for m in table["metric"]], "group": table["group"]})
    for c in used:
        col = CRITERIA[c][0]
        vals = table[col].to_numpy(dtype=float)
        rk = table[f"{c}_rank"].to_numpy(dtype=float)
        fmt = (lambda v: f"{int(v)} of {len(relevant)}") if c == "properties" else (lambda v: f"{v:.3f}")
        show[CRITERIA[c][2]] = ["n/a" if np.isnan(v) else f"{fmt(v)} ({'-' if np.isnan(r) else ordinal(int(r))})"
                                for v, r in zip(vals, rk)]
    show["rank sum"] = ["" if np.isnan(v) else str(int(v)) for v in table["rank_sum"]]
    named = table[table.apply(_named_test, axis=1)] if len(table) else table
    lines += [markdown_table(show), "",
              legend(used, (named["power_test"].iloc[0], named["power_correction"].iloc[0]) if len(named) else None)]
    return "\n".join(lines) + "\n"


# what each criterion's column shows, for the table's legend
_LEGEND = {
    "stability": "rank stability: mean tau between the rankings on random halves of the test set",
    "discrimination": "class discrimination: mean tau between the rankings before and after merging two classes "
                      "(lower is better)",
    "power": "discriminative power: share of system pairs significantly different",
    "noise": "robustness to label noise: mean tau between the clean and the noisy rankings over the noise rates",
    "priors": "robustness to class priors: mean tau between the original ranking and those under shifted priors",
    "properties": "formal properties: relevant ones held (results/properties.csv)",
}


def legend(used: Sequence[str], power_test: tuple[str, str] | None = None) -> str:
    """The table's legend: the group column and the criteria shown;
    ``power_test``: (test, correction) that made the discriminative power."""
    shown = "; ".join(_LEGEND[c] + (f" at alpha ({test_label(*power_test)})" if c == "power" and power_test else "")
                      for c in used)
    return (f"Values (rank; values equal to {DECIMALS} decimals tie). Group: the metric's similarity group (metrics "
            f"in one group rank the systems alike, similarity.csv). {shown[:1].upper()}{shown[1:]}; rank sum over "
            "these criteria, position by rank sum, then worst rank. Ranked: the metrics with a value on every "
            "criterion, span precision and recall left out; (-): shown, not ranked.")
