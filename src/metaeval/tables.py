"""Ranks and publication tables (Markdown and LaTeX) of score tables.

Ranking convention (used everywhere in the project): rank 1 is the best
system; lower-is-better metrics are ranked ascending; ties (scores equal to
12 decimals, see ``metaeval.ranking``) share the best (smallest) rank of
their group ("competition" ranking 1, 2, 2, 4); NaN scores rank last.  In the published-style tables, as in Scarton et al. Tables 2
and 3, only systems are ranked; baselines are shown below them unranked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import metrics as M
from .ranking import competition_rank, orient

__all__ = ["rank", "rank_table", "scores_markdown", "scores_latex"]


def rank(values, higher_is_better: bool = True) -> np.ndarray:
    """Competition ranks (1 = best) of a 1-D score vector; NaN ranks last."""
    return competition_rank(-orient(values, higher_is_better)).astype(np.int64)


def rank_table(df: pd.DataFrame, metric_ids, kind: str | None = "system") -> pd.DataFrame:
    """Ranks of the rows (restricted to ``kind`` when given) per metric."""
    rows = df if kind is None else df[df["kind"] == kind]
    out = rows[["system", "kind"]].copy()
    for mid in metric_ids:
        out[mid] = rank(rows[mid].to_numpy(), M.get(mid).higher_is_better)
    return out


def _ordered(df: pd.DataFrame, metric_ids, primary: str):
    metric_ids = [m for m in metric_ids if m in df.columns]
    m = M.get(primary)
    sysrows = df[df["kind"] == "system"].copy()
    sysrows = sysrows.assign(_r=rank(sysrows[primary].to_numpy(), m.higher_is_better)).sort_values(
        ["_r", "system"], kind="stable")
    ranks = rank_table(sysrows, metric_ids, kind=None)
    base = df[df["kind"] != "system"]
    return metric_ids, sysrows, ranks, base


def _fmt(v: float, digits: int) -> str:
    return "NaN" if np.isnan(v) else f"{v:.{digits}f}"


def scores_markdown(df: pd.DataFrame, metric_ids, primary: str, digits: int = 3, title: str = "") -> str:
    """Markdown table: systems sorted by the primary metric, each cell
    ``value (rank)``; baselines below, unranked."""
    metric_ids, sysrows, ranks, base = _ordered(df, metric_ids, primary)
    head = ["system"] + [M.get(m).name + (" *" if m == primary else "") for m in metric_ids]
    lines = []
    if title:
        lines += [f"**{title}**", ""]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * len(metric_ids)]
    for (_, row), (_, rk) in zip(sysrows.iterrows(), ranks.iterrows()):
        cells = [f"{_fmt(row[m], digits)} ({rk[m]})" for m in metric_ids]
        lines.append("| " + " | ".join([str(row["system"])] + cells) + " |")
    for _, row in base.iterrows():
        cells = [_fmt(row[m], digits) for m in metric_ids]
        lines.append("| " + " | ".join([f"*{row['system']}* (baseline)"] + cells) + " |")
    lines += ["", f"Values with the rank among systems in parentheses (1 = best; ties share the best rank). "
                  f"Sorted by the primary metric (*): {M.get(primary).name}. "
                  f"Lower is better for: {', '.join(M.get(m).name for m in metric_ids if not M.get(m).higher_is_better) or 'none'}."]
    return "\n".join(lines) + "\n"


_TEX_ESCAPE = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
               "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def _tex(s: str) -> str:
    return "".join(_TEX_ESCAPE.get(ch, ch) for ch in str(s))


def scores_latex(df: pd.DataFrame, metric_ids, primary: str, digits: int = 3, caption: str = "",
                 label: str = "") -> str:
    """LaTeX (booktabs) version of ``scores_markdown``; needs ``amssymb``
    for the blackboard F1."""
    metric_ids, sysrows, ranks, base = _ordered(df, metric_ids, primary)
    cols = "l" + "r" * len(metric_ids)
    out = [r"\begin{table*}[t]", r"\centering", r"\small", r"\resizebox{\textwidth}{!}{%",
           rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
           " & ".join(["System"] + [(r"\textbf{" + M.get(m).latex + "}") if m == primary else M.get(m).latex
                                    for m in metric_ids]) + r" \\", r"\midrule"]
    for (_, row), (_, rk) in zip(sysrows.iterrows(), ranks.iterrows()):
        cells = [f"{_fmt(row[m], digits)} ({rk[m]})" for m in metric_ids]
        out.append(" & ".join([_tex(row["system"])] + cells) + r" \\")
    if len(base):
        out.append(r"\midrule")
        for _, row in base.iterrows():
            out.append(" & ".join([r"\textit{" + _tex(row["system"]) + "}"] +
                                  [_fmt(row[m], digits) for m in metric_ids]) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}}"]
    cap = caption or "Scores, with the rank among systems in parentheses."
    out.append(rf"\caption{{{_tex(cap)} Primary metric in bold; baselines unranked.}}")
    if label:
        out.append(rf"\label{{{label}}}")
    out.append(r"\end{table*}")
    return "\n".join(out) + "\n"


def markdown_table(df: pd.DataFrame, digits: int = 3) -> str:
    """A plain Markdown table of a DataFrame (floats to ``digits``)."""
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "NaN" if np.isnan(v) else f"{v:.{digits}f}"
        return str(v)
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    sep = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body]) + "\n"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def summary_markdown(df: pd.DataFrame, title: str, n_systems: int, n_splits: int) -> str:
    """Amemiya & Sakai Table 7: group, stability rank, discrimination rank."""
    rows = df.sort_values(["stability_rank", "metric"])
    out = pd.DataFrame({
        "metric": [M.get(m).name for m in rows["metric"]],
        "similarity group": rows["group"].to_numpy(),
        "stability (mean tau)": [f"{ordinal(int(r))} ({v:.3f})" for r, v in
                                 zip(rows["stability_rank"], rows["stability_tau"])],
        "class discrimination (mean merging tau)": [f"{ordinal(int(r))} ({v:.3f})" for r, v in
                                                    zip(rows["discrimination_rank"], rows["merging_tau"])],
    })
    groups = {g: ", ".join(M.get(m).name for m in df[df["group"] == g]["metric"])
              for g in sorted(df["group"].unique())}
    lines = [f"**{title}**", "", markdown_table(out),
             f"{n_systems} systems ranked (real systems and the baselines named in the config). "
             f"Similarity groups (hierarchical clustering of 1 - Kendall's tau): "
             + "; ".join(f"{g} = {{{v}}}" for g, v in groups.items()) + ". "
             f"Stability: mean tau between the rankings on random halves over {n_splits} splits "
             "(1st = most stable). Class discrimination: mean tau between the rankings before and after "
             "merging two classes (1st = lowest tau, best at telling classes apart)."]
    return "\n".join(lines) + "\n"


def weights_markdown(long: pd.DataFrame, taus: pd.DataFrame, weight_sets: dict, labels, title: str) -> str:
    """Scarton et al. Table 4: the weighted metrics under every weight set,
    value and rank per system, then tau between the weight sets."""
    lines = [f"**{title}**", ""]
    lines.append("Weight sets (" + ", ".join(labels) + "): " +
                 "; ".join(f"{k} = " + "/".join(f"{v:g}" for v in w) for k, w in weight_sets.items()) + ".")
    lines.append("")
    for mid in long["metric"].unique():
        d = long[long["metric"] == mid]
        wide = None
        for wname in weight_sets:
            part = d[d["weight_set"] == wname].set_index("system")
            col = [f"{s:.3f}" + (f" ({int(r)})" if pd.notna(r) else "") for s, r in zip(part["score"], part["rank"])]
            if wide is None:
                wide = pd.DataFrame({"system": [f"{s}" if k == "system" else f"*{s}* (baseline)"
                                                for s, k in zip(part.index, part["kind"])]})
            wide[wname] = col
        lines += [f"*{M.get(mid).name}*", "", markdown_table(wide)]
    if len(taus):
        t = taus.assign(metric=[M.get(m).name for m in taus["metric"]])
        lines += ["Kendall's tau between the rankings under two weight sets:", "", markdown_table(t)]
    return "\n".join(lines) + "\n"
