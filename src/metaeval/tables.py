"""Ranks and publication tables (Markdown and LaTeX) of score tables.

Ranking convention (used everywhere in the project): rank 1 is the best
system; lower-is-better metrics are ranked ascending; ties share the best
(smallest) rank of their group ("competition" ranking 1, 2, 2, 4); NaN scores
rank last.  In the published-style tables, as in Scarton et al. Tables 2
and 3, only systems are ranked; baselines are shown below them unranked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from . import metrics as M

__all__ = ["rank", "rank_table", "scores_markdown", "scores_latex"]


def rank(values, higher_is_better: bool = True, axis: int = -1) -> np.ndarray:
    """Competition ranks (1 = best) along ``axis``; NaN ranks last."""
    v = np.asarray(values, dtype=np.float64)
    key = -v if higher_is_better else v
    key = np.where(np.isnan(key), np.inf, key)
    return rankdata(key, method="min", axis=axis).astype(np.int64)


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
