"""Ranks and publication tables (Markdown and LaTeX) of score tables.

Ranking convention (used everywhere in the project): rank 1 is the best
system; lower-is-better metrics are ranked ascending; ties (scores equal to
12 decimals, see ``metaeval.engine.ranking``) share the best (smallest) rank of
their group ("competition" ranking 1, 2, 2, 4); NaN scores rank last.  In the published-style tables, as in Scarton et al. Tables 2
and 3, only systems are ranked; baselines are shown below them unranked.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..measures import labels as M
from .notation import latex as latex_name
from ..engine.ranking import competition_rank, orient
from ..settings import default_of

__all__ = ["rank", "rank_table", "test_label", "test_short", "scores_markdown", "groups_markdown", "scores_latex", "md_escape", "format_p", "plural", "tex_escape", "markdown_table", "latex_table",
           "properties_markdown", "properties_latex", "counterexample_text",
           "sensitivity_markdown"]

# Markdown escaping, decided once: a name from the data (system names are
# file names, labels come from the files) is escaped only where Markdown
# (CommonMark, GitHub's tables, strikethrough and math) would read it, so that
# `a|b` stays one cell and `*y*` is not italic, while text such as an interval
# `[0.486, 0.710]`, `IP&M` or `p < 0.001` stays as written: the .md outputs
# are read as plain text too (issue 47).
_MD_ALWAYS = frozenset("\\`*|")
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);")


def md_escape(text) -> str:
    """``text`` with the characters Markdown would read backslash-escaped,
    and nothing else: backslash, backtick, ``*`` and ``|`` always; ``_``
    where it could open or close emphasis (not between two letters or
    digits); ``[`` and ``]`` when the text holds a link's ``](`` or ``][``;
    ``<`` before a letter, ``/``, ``!`` or ``?`` (a tag); ``&`` that starts
    an entity (``&amp;``); ``~`` and ``$`` when the text holds two (a
    strikethrough, a formula); ``#`` or ``>`` first, ``+`` or ``-`` and a
    space first (a heading, a quote, a list item).

    Examples
    --------
    >>> md_escape("sys_a"), md_escape("a|b"), md_escape("*y*")
    ('sys_a', 'a\\\\|b', '\\\\*y\\\\*')
    >>> md_escape("IP&M, [0.486, 0.710], p < 0.001")
    'IP&M, [0.486, 0.710], p < 0.001'
    >>> md_escape("<img src=x>"), md_escape("a&amp;b"), md_escape("[x](y)")
    ('\\\\<img src=x>', 'a\\\\&amp;b', '\\\\[x\\\\](y)')
    """
    s = str(text)
    links = "](" in s or "][" in s
    entities = {m.start() for m in _ENTITY.finditer(s)}
    pairs = {ch for ch in "~$" if s.count(ch) >= 2}
    out = []
    for i, ch in enumerate(s):
        if ch == "_":
            intraword = 0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum()
            out.append("_" if intraword else "\\_")
        elif ch in _MD_ALWAYS or ch in pairs or (ch in "[]" and links) or i in entities \
                or (ch == "<" and i + 1 < len(s) and (s[i + 1].isalpha() or s[i + 1] in "/!?")) \
                or (i == 0 and (ch in "#>" or (ch in "+-" and s[1:2] == " "))):
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def format_p(p, levels=(default_of("alpha"),)) -> str:
    """A p-value for people, by one rule everywhere: three significant
    digits, never rounded onto or across one of ``levels`` (more digits until
    the printed value lies on p's side of each: 0.04995 prints 0.04995, not
    0.05), and ``< 0.001`` below 0.001 (unless a level lies between);
    ``n/a`` for None or NaN.

    Examples
    --------
    >>> format_p(0.04995), format_p(0.0519), format_p(1.0), format_p(0.0004), format_p(0.05)
    ('0.04995', '0.0519', '1', '< 0.001', '0.05')
    >>> format_p(0.01249, levels=(0.0125,)), format_p(0.0125004, levels=(0.0125,))
    ('0.01249', '0.0125004')
    """
    if p is None:
        return "n/a"
    p = float(p)
    if not np.isfinite(p):
        return "n/a"
    lv = [float(x) for x in levels if x is not None and np.isfinite(x)]
    if p < 0.001 and not any(p < x <= 0.001 for x in lv):
        return "< 0.001"
    for digits in range(3, 17):
        text = f"{p:.{digits}g}"
        v = float(text)
        if all((v < x) == (p < x) and (v != x or p == x) for x in lv):
            return text
    return repr(p)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and the noun in the right number: ``1 candidate``, ``2
    candidates`` (``many``: an irregular plural).

    >>> plural(1, "candidate"), plural(3, "candidate"), plural(2, "criterion", "criteria")
    ('1 candidate', '3 candidates', '2 criteria')
    """
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


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
    ranked = df["kind"].isin(("system", "synthetic"))  # dataset.RANKED_KINDS
    sysrows = df[ranked].copy()
    sysrows = sysrows.assign(_r=rank(sysrows[primary].to_numpy(), m.higher_is_better)).sort_values(
        ["_r", "system"], kind="stable")
    ranks = rank_table(sysrows, metric_ids, kind=None)
    base = df[~ranked]
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
        lines.append("| " + " | ".join([md_escape(row["system"])] + cells) + " |")
    for _, row in base.iterrows():
        cells = [_fmt(row[m], digits) for m in metric_ids]
        lines.append("| " + " | ".join([f"*{md_escape(row['system'])}* (baseline)"] + cells) + " |")
    lines += ["", f"Values with the rank among systems in parentheses (1 = best; ties share the best rank). "
                  f"Sorted by the primary metric (*): {M.get(primary).name}. "
                  f"Lower is better for: {', '.join(M.get(m).name for m in metric_ids if not M.get(m).higher_is_better) or 'none'}."]
    return "\n".join(lines) + "\n"


# < > | are not in the default (OT1) font encoding: spelled out, they print
# as themselves in any LaTeX set-up.
# [ ] * are braced: after a row's \\ a cell that starts with [ would be read
# as the \\'s optional argument, and one that starts with * as \\*.
_TEX_ESCAPE = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
               "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
               "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "[": "{[}", "]": "{]}", "*": "{*}"}


def tex_escape(s) -> str:
    """``s`` as LaTeX text: every special character escaped."""
    return "".join(_TEX_ESCAPE.get(ch, ch) for ch in str(s))


_tex = tex_escape


def scores_latex(df: pd.DataFrame, metric_ids, primary: str, digits: int = 3, caption: str = "",
                 label: str = "") -> str:
    """LaTeX (booktabs) version of ``scores_markdown``; needs ``amssymb``
    for the blackboard F1."""
    metric_ids, sysrows, ranks, base = _ordered(df, metric_ids, primary)
    cols = "l" + "r" * len(metric_ids)
    out = [r"\begin{table*}[t]", r"\centering", r"\small", r"\resizebox{\textwidth}{!}{%",
           rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
           " & ".join(["System"] + [(r"\textbf{" + latex_name(m) + "}") if m == primary else latex_name(m)
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


def markdown_table(df: pd.DataFrame, digits: int = 3, escape: bool = True) -> str:
    """A plain Markdown table of a DataFrame (floats to ``digits``).  Text
    cells are escaped (``md_escape``) unless ``escape=False``, for callers
    whose cells carry intended markup and escape their names themselves."""
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "NaN" if np.isnan(v) else f"{v:.{digits}f}"
        return md_escape(v) if escape else str(v)
    head = "| " + " | ".join(cell(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body]) + "\n"


def latex_table(df: pd.DataFrame, digits: int = 3, caption: str = "", label: str = "") -> str:
    """A booktabs LaTeX table of a DataFrame (floats to ``digits``; every
    text cell escaped, the metrics' names in it typeset:
    ``notation.typeset_latex``; needs ``booktabs`` and ``amssymb``)."""
    from .notation import typeset_latex

    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "--" if np.isnan(v) else f"{v:.{digits}f}"
        return typeset_latex(tex_escape(v), tex_escape)
    cols = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) else "l" for c in df.columns)
    out = [r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
           " & ".join(tex_escape(c) for c in df.columns) + r" \\", r"\midrule"]
    out += [" & ".join(cell(v) for v in row) + r" \\" for row in df.itertuples(index=False)]
    out += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        out.append(rf"\caption{{{typeset_latex(tex_escape(caption), tex_escape)}}}")
    if label:
        out.append(rf"\label{{{label}}}")
    out.append(r"\end{table}")
    return "\n".join(out) + "\n"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _stability_cell(rank_, tau, undefined, n) -> str:
    """Rank and mean tau; the splits on which the metric ranks no system
    (every score tied or undefined) are said, as they leave the mean to the
    other splits."""
    if n and undefined >= n:
        return f"n/a (undefined on all {int(n)} splits)"
    cell = f"{ordinal(int(rank_))} ({tau:.3f}"
    return cell + (f"; undefined on {int(undefined)} of {int(n)} splits)" if undefined else ")")


_TEST_NAMES = {"tukey": "randomised Tukey HSD", "bootstrap": "paired bootstrap test (shift method)"}
_CORRECTION_NAMES = {"holm": "Holm-adjusted p-values", "bh": "Benjamini-Hochberg-adjusted p-values",
                     "none": "unadjusted p-values, no correction for the number of pairs"}


def test_label(test: str, correction: str, trials: int | None = None) -> str:
    """The test and the multiplicity correction behind a discriminative
    power, in words (``discriminative_power.csv``'s ``test`` and
    ``correction``): "randomised Tukey HSD, 10,000 trials; family-wise by
    the range statistic".  ``trials``: the trials (replicates) drawn."""
    name = _TEST_NAMES.get(test, test)
    if trials:
        name += f", {int(trials):,} {'trials' if test == 'tukey' else 'replicates'}"
    corr = ("family-wise by the range statistic" if test == "tukey"
            else _CORRECTION_NAMES.get(correction, correction))
    return f"{name}; {corr}"


def test_short(test: str, correction: str) -> str:
    """``test_label`` in a few words, for sentences: "Tukey HSD",
    "paired bootstrap, Holm"."""
    if test == "tukey":
        return "Tukey HSD"
    return "paired bootstrap, " + {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "unadjusted"}.get(
        correction, correction)


def summary_markdown(df: pd.DataFrame, title: str, n_systems: int, n_splits: int,
                     separation: pd.DataFrame | None = None, distinct_tau: float = 0.9,
                     systems: str = "real systems and the baselines named in the config",
                     no_merging: str = "the task has two classes, and merging them leaves a single class, "
                                       "on which every system ties", alpha: float = default_of("alpha"),
                     test: str = "tukey", correction: str = "none", table7: pd.DataFrame | None = None) -> str:
    """Amemiya & Sakai Table 7: group, stability rank, discrimination rank.

    ``table7``: ``experiments.table7`` of ``df``: its rank sum is shown as
    their reading of the table, reproduced (a column, never a
    recommendation).

    ``separation``: mean tau between every two similarity groups
    (``experiments.group_separation``); groups whose metrics agree at a mean
    tau of at least ``distinct_tau`` are reported as not distinct.  Without
    a ``merging_tau`` column (two-class task) the table says why.
    """
    rows = df.sort_values(["stability_rank", "metric"])
    cols = {
        "metric": [M.get(m).name for m in rows["metric"]],
        "similarity group": rows["group"].to_numpy(),
        "stability (mean tau)": [_stability_cell(r, v, u, n) for r, v, u, n in zip(
            rows["stability_rank"], rows["stability_tau"],
            rows.get("stability_undefined", pd.Series(0, index=rows.index)),
            rows.get("stability_splits", pd.Series(0, index=rows.index)))],
    }
    merging = "merging_tau" in df.columns
    if "power_rank" in df.columns:
        cols["discriminative power (share of pairs)"] = [
            "n/a" if pd.isna(v) else f"{ordinal(int(r))} ({v:.3f})"
            for r, v in zip(rows["power_rank"], rows["discriminative_power"])]
    if merging:
        cols["class discrimination (mean merging tau)"] = [
            "n/a (not merged)" if pd.isna(r) else f"{ordinal(int(r))} ({v:.3f})"
            for r, v in zip(rows["discrimination_rank"], rows["merging_tau"])]
    if table7 is not None:
        rs = table7.set_index("metric")["rank_sum"]
        cols["rank sum (Table 7)"] = ["" if pd.isna(rs.get(m)) else str(int(rs.get(m))) for m in rows["metric"]]
    groups = {g: ", ".join(M.get(m).name for m in df[df["group"] == g]["metric"])
              for g in sorted(df["group"].unique())}
    text = (f"{n_systems} systems ranked ({systems}). "
            f"Similarity groups (hierarchical clustering of 1 - Kendall's tau): "
            + "; ".join(f"{g} = {{{v}}}" for g, v in groups.items()) + ". ")
    if separation is not None and len(separation):
        close = separation[separation["mean_tau"] >= distinct_tau]
        if len(close) == len(separation):
            text += (f"The groups are not distinct: the metrics of any two groups agree at a mean tau of at "
                     f"least {separation['mean_tau'].min():.3f} (>= {distinct_tau:g}; rankings that agree at "
                     f"tau >= 0.9 are usually taken as equivalent, Voorhees 2000), so the split into "
                     f"{len(groups)} groups is an artefact of asking the clustering for {len(groups)}. ")
        elif len(close):
            text += "Not distinct: " + "; ".join(
                f"groups {r.group_a} and {r.group_b} (mean tau between their metrics {r.mean_tau:.3f} "
                f">= {distinct_tau:g})" for r in close.itertuples()) + ". "
        else:
            text += (f"Every two groups are distinct (mean tau between their metrics at most "
                     f"{separation['mean_tau'].max():.3f} < {distinct_tau:g}). ")
    text += (f"Stability: mean tau between the rankings on random halves over {n_splits} splits "
             "(1st = most stable). ")
    if "power_rank" in df.columns:
        if "power_test" in df.columns:  # the test and correction that made the power (discriminative_power.csv)
            test, correction = df["power_test"].iloc[0], df["power_correction"].iloc[0]
        how = "the randomised Tukey HSD test" if test == "tukey" else "the paired bootstrap test"
        after = (", family-wise over all pairs by its range statistic" if test == "tukey" else
                 f", on {_CORRECTION_NAMES.get(correction, correction)}"
                 + (" over each metric's pairs" if correction in ("holm", "bh") else ""))
        note = "" if test == "tukey" else "not comparable with the Tukey test's power; "
        text += (f"Discriminative power: the share of system pairs that {how} finds different at "
                 f"alpha = {alpha:g}{after} ({note}1st = the most pairs told apart). ")
    if merging:
        text += ("Class discrimination: mean tau between the rankings before and after merging two classes "
                 "(1st = lowest tau, best at telling classes apart: Amemiya & Sakai's reading, which a metric that "
                 "ranks at random would win; the recommendation judges the change against the metric's own "
                 "split-half noise).")
        if df["discrimination_rank"].isna().any():
            text += (" Span metrics are not merged (they score spans, whose techniques the merge would have to "
                     "rewrite in every file): n/a.")
    else:
        text += f"Class discrimination is not measured: {no_merging}."
    if table7 is not None:
        text += (" Rank sum (Table 7): the sum of a metric's ranks on these criteria, Amemiya & Sakai's reading of "
                 "their Table 7, reproduced here as a reproduction of that paper, not as a recommendation: a rank "
                 "sum changes its winner when a copy of a metric, or a metric worse on every criterion, is added.")
    return "\n".join([f"**{md_escape(title)}**", "", markdown_table(pd.DataFrame(cols)), text]) + "\n"


# a per-group table with more groups shows each system's worst and best group instead (scores_by_group.csv has them all)
MAX_GROUP_COLUMNS = 30


def groups_markdown(df: pd.DataFrame, primary: str, title: str, digits: int = 3) -> str:
    """Kaushal et al.'s per-target table: the primary metric of every system
    in every item group, with the mean over the groups (``mean``, their
    avgF1) and the mean weighted by group size (``weighted_mean``, their
    avg_wF1); systems sorted by the mean, baselines below."""
    m = M.get(primary)
    groups = list(dict.fromkeys(df["group"]))
    wide = df.pivot_table(index=["system", "kind"], columns="group", values=primary, sort=False, dropna=False)
    wide = wide.reindex(columns=groups).reset_index()
    ranked = wide["kind"].isin(("system", "synthetic"))  # dataset.RANKED_KINDS
    key = -orient(wide["mean"].to_numpy(dtype=float), m.higher_is_better)
    order = np.lexsort((wide["system"].to_numpy(dtype=str), np.nan_to_num(key, nan=np.inf), ~ranked.to_numpy()))
    wide = wide.iloc[order]
    names = {"mean": "mean", "weighted_mean": "weighted mean"}
    out = pd.DataFrame({"system": [md_escape(s) if k in ("system", "synthetic") else f"*{md_escape(s)}* (baseline)"
                                   for s, k in zip(wide["system"], wide["kind"])]})
    better = "higher" if m.higher_is_better else "lower"
    own = [g for g in groups if g not in names]
    if len(own) > MAX_GROUP_COLUMNS:  # (70 questions: a column each would be unreadable, and heavy in the report)
        vals = wide[own].to_numpy(dtype=float)
        o = orient(vals, m.higher_is_better)
        for g in names:
            out[names[g]] = [_fmt(v, digits) for v in wide[g].to_numpy(dtype=float)]
        for col, pick in (("worst group", np.nanargmin), ("best group", np.nanargmax)):
            at = [pick(r) if np.isfinite(r).any() else -1 for r in o]
            out[col] = [f"{_fmt(vals[i, j], digits)} ({md_escape(own[j])})" if j >= 0 else "" for i, j in
                        enumerate(at)]
        return (f"**{md_escape(title)}**\n\n" + markdown_table(out, escape=False) +
                f"\n{m.name} over {len(own)} groups ({better} is better): the unweighted mean over the groups, the "
                "mean weighted by the number of items of each group, and each system's worst and best group. Sorted "
                "by the mean. Every group and every metric is in scores_by_group.csv.\n")
    for g in groups:
        out[names.get(g, md_escape(g))] = [_fmt(v, digits) for v in wide[g].to_numpy(dtype=float)]
    return (f"**{md_escape(title)}**\n\n" + markdown_table(out, escape=False) +
            f"\n{m.name} per group ({better} is better); mean: the unweighted mean over the groups; weighted "
            "mean: weighted by the number of items of each group. Sorted by the mean. Every metric per group is "
            "in scores_by_group.csv.\n")


def weights_markdown(long: pd.DataFrame, taus: pd.DataFrame, weight_sets: dict, labels, title: str) -> str:
    """Scarton et al. Table 4: the weighted metrics under every weight set,
    value and rank per system, then tau between the weight sets."""
    lines = [f"**{md_escape(title)}**", ""]
    lines.append("Weight sets (" + ", ".join(map(md_escape, labels)) + "): " +
                 "; ".join(f"{md_escape(k)} = " + "/".join(f"{v:g}" for v in w) for k, w in weight_sets.items())
                 + ".")
    lines.append("")
    for mid in long["metric"].unique():
        d = long[long["metric"] == mid]
        wide = None
        for wname in weight_sets:
            part = d[d["weight_set"] == wname].set_index("system")
            col = [f"{s:.3f}" + (f" ({int(r)})" if pd.notna(r) else "") for s, r in zip(part["score"], part["rank"])]
            if wide is None:
                wide = pd.DataFrame({"system": [md_escape(s) if k != "baseline" else f"*{md_escape(s)}* (baseline)"
                                                for s, k in zip(part.index, part["kind"])]})
            wide[md_escape(wname)] = col
        lines += [f"*{M.get(mid).name}*", "", markdown_table(wide, escape=False)]
    if len(taus):
        t = taus.assign(metric=[M.get(m).name for m in taus["metric"]])
        lines += ["Kendall's tau between the rankings under two weight sets, over the ranked systems (the real "
                  "systems with the majority and random baselines, as in every experiment; the ranks in brackets "
                  "above rank the real systems only):", "", markdown_table(t)]
    return "\n".join(lines) + "\n"


def _interval_cells(df: pd.DataFrame, metric_ids, primary: str, digits: int):
    """Systems sorted by the primary metric; per metric ``value [low, high]``."""
    wide = {c: df.pivot(index="system", columns="metric", values=c) for c in ("value", "low", "high")}
    order = rank(wide["value"][primary].to_numpy(), M.get(primary).higher_is_better)
    systems = wide["value"].index[np.argsort(order, kind="stable")]
    cell = {m: [f"{_fmt(wide['value'].loc[s_, m], digits)} [{_fmt(wide['low'].loc[s_, m], digits)}, "
                f"{_fmt(wide['high'].loc[s_, m], digits)}]" for s_ in systems] for m in metric_ids}
    return list(systems), cell


def intervals_markdown(df: pd.DataFrame, metric_ids, primary: str, title: str = "", digits: int = 3) -> str:
    """Markdown table of ``intervals.csv``: one row per system (sorted by the
    primary metric), each cell ``value [low, high]``."""
    systems, cell = _interval_cells(df, metric_ids, primary, digits)
    out = pd.DataFrame({"system": [md_escape(s_) for s_ in systems],
                        **{M.get(m).name + (" *" if m == primary else ""): cell[m] for m in metric_ids}})
    lines = [f"**{md_escape(title)}**", ""] if title else []
    return "\n".join(lines + [markdown_table(out, escape=False),
                               f"Sorted by the primary metric (*): {M.get(primary).name}."]) + "\n"


def intervals_latex(df: pd.DataFrame, metric_ids, primary: str, caption: str = "", label: str = "",
                    digits: int = 3) -> str:
    """LaTeX (booktabs) version of ``intervals_markdown``."""
    systems, cell = _interval_cells(df, metric_ids, primary, digits)
    out = [r"\begin{table*}[t]", r"\centering", r"\small", r"\resizebox{\textwidth}{!}{%",
           rf"\begin{{tabular}}{{l{'r' * len(metric_ids)}}}", r"\toprule",
           " & ".join(["System"] + [(r"\textbf{" + latex_name(m) + "}") if m == primary else latex_name(m)
                                    for m in metric_ids]) + r" \\", r"\midrule"]
    for i, s_ in enumerate(systems):
        out.append(" & ".join([tex_escape(s_)] + [tex_escape(cell[m][i]) for m in metric_ids]) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}}", rf"\caption{{{tex_escape(caption)} Primary metric in bold.}}"]
    if label:
        out.append(rf"\label{{{label}}}")
    out.append(r"\end{table*}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# formal properties (metaeval.measures.properties)
# ---------------------------------------------------------------------------
_MARK = {"holds": "✓", "fails": "✗", "not applicable": "–"}
_TEX_MARK = {"holds": r"\checkmark", "fails": r"$\times$", "not applicable": "--"}


def _property_grid(df: pd.DataFrame, marks: dict, disagree: str) -> tuple[list[str], list[str], dict]:
    """Metrics (rows) and properties (columns) in their order of appearance;
    per (metric, property) the mark of its result, ``disagree`` appended where
    it contradicts a published statement."""
    metrics = list(dict.fromkeys(df["metric"]))
    props = list(dict.fromkeys(df["property"]))
    cell = {}
    for r in df.itertuples(index=False):
        cell[r.metric, r.property] = marks[r.result] + (disagree if r.agrees == "no" else "")
    return metrics, props, cell


def _matrix_text(m) -> str:
    rows = m if isinstance(m, list) else m.tolist()
    return "[" + " / ".join(" ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in row) for row in rows) + "]"


def counterexample_text(ce: str) -> str:
    """A counterexample (JSON of ``properties.check``) as one readable line:
    the two matrices (rows: predicted class; ``/`` between rows) with their
    scores and the relation that fails."""
    import json

    d = json.loads(ce)
    rel = {"eq": "should equal", "gt": "should score strictly better than", "ge": "should not score worse than"}
    pa = "".join(f" with {k} {v}" for k, v in d.get("params_a", {}).items())
    pb = "".join(f" with {k} {v}" for k, v in d.get("params_b", {}).items())
    return (f"{_matrix_text(d['b'])}{pb} scores {d['score_b']:.4g}, {rel[d['relation']]} "
            f"{_matrix_text(d['a'])}{pa} ({d['score_a']:.4g})")


def properties_markdown(df: pd.DataFrame, properties: dict, domain: str, title: str = "") -> str:
    """The metric x property table of ``properties.csv`` (✓ holds, ✗ fails,
    – not applicable; (!) where a published statement says otherwise), the
    statement and source of each property, the agreement with the published
    statements and the smallest counterexample of every failure."""
    metrics, props, cell = _property_grid(df, _MARK, " (!)")
    lines = [f"**{md_escape(title)}**", ""] if title else []
    lines += [f"Checked on {domain}. ✓ holds on every matrix checked, ✗ fails (smallest counterexample below), "
              "– not applicable; (!) marks a result that contradicts a published statement.", ""]
    grid = pd.DataFrame({"metric": [M.get(m).name for m in metrics],
                         **{properties[p].name: [cell[m, p] for m in metrics] for p in props}})
    lines += [markdown_table(grid), ""]
    lines += ["| property | id (properties.csv) | statement | source |", "|---|---|---|---|"]
    for p in props:
        pr = properties[p]
        lines.append(f"| {md_escape(pr.name)} | {md_escape(p)} | {md_escape(pr.statement)} | {md_escape(pr.source)} |")
    pub = df[df["published"] != ""]
    checked = pub[pub["agrees"] != ""]
    lines += ["", f"Published statements: {len(pub)}; our result agrees with {int((checked['agrees'] == 'yes').sum())} "
                  f"of the {len(checked)} checked."]
    for r in checked[checked["agrees"] == "no"].itertuples(index=False):
        lines.append(f"- **Disagreement:** {md_escape(M.get(r.metric).name)}, {md_escape(r.property)}: "
                     f"{md_escape(r.source)} says it {r.published}; here it {r.result}.")
    fails = df[df["result"] == "fails"]
    if len(fails):
        lines += ["", "Smallest counterexamples (matrices: rows are the predicted class, columns the gold class; "
                      "`/` separates rows):", ""]
        tab = pd.DataFrame({"metric": [M.get(m).name for m in fails["metric"]], "property": fails["property"],
                            "counterexample": [counterexample_text(c) for c in fails["counterexample"]]})
        lines.append(markdown_table(tab))
    return "\n".join(lines) + "\n"


def properties_latex(df: pd.DataFrame, caption: str = "", label: str = "") -> str:
    """LaTeX (booktabs, needs ``amssymb``) metric x property table."""
    metrics, props, cell = _property_grid(df, _TEX_MARK, "(!)")
    out = [r"\begin{table*}[t]", r"\centering", r"\small", r"\resizebox{\textwidth}{!}{%",
           rf"\begin{{tabular}}{{l{'c' * len(props)}}}", r"\toprule",
           " & ".join(["Metric"] + [r"\rotatebox{90}{" + tex_escape(p.replace("_", " ")) + "}" for p in props])
           + r" \\", r"\midrule"]
    for m in metrics:
        out.append(" & ".join([latex_name(m)] + [cell[m, p] for p in props]) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}}",
            rf"\caption{{{tex_escape(caption)} \checkmark{{}} holds, $\times$ fails, -- not applicable; "
            r"(!) contradicts a published statement.}"]
    if label:
        out.append(rf"\label{{{label}}}")
    out.append(r"\end{table*}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# sensitivity to label noise and class priors (metaeval.methods.sensitivity)
# ---------------------------------------------------------------------------
def _rate(r: float) -> str:
    return f"{r:.0%}" if r * 100 == round(r * 100) else f"{r:.1%}"


def sensitivity_markdown(noise: pd.DataFrame, priors: pd.DataFrame, title: str = "") -> str:
    """Two tables: per metric the mean tau between the clean and the noisy
    rankings at every noise rate (with the share of repeats that keep the
    winner and the discriminative power), and tau between the original
    ranking and the ranking under every shifted class prior."""
    lines = [f"**{md_escape(title)}**", ""] if title else []
    rates = sorted(noise["rate"].unique())
    top = rates[-1]
    reps, mode = int(noise["repeats"].iloc[0]), noise["mode"].iloc[0]
    n_gold = int(noise["power_repeats"].iloc[0]) if "power_repeats" in noise.columns else 0
    lines += [f"**Label noise.** A share of the gold labels is flipped ({mode}: "
              + ("to any other class" if mode == "uniform" else "to a neighbouring class")
              + f"), {reps} times per rate; tau between the ranking on the clean gold and on each noisy gold "
              f"(mean, and in brackets the 2.5% quantile). Most robust metric first (by the mean tau over the "
              f"rates)."
              + (f" The discriminative power (Tukey HSD) is measured on {n_gold} noisy "
                 f"gold{'s' if n_gold != 1 else ''} at the highest rate: a change of a few pairs is within the "
                 f"noise of that draw."
                 if "power_noisy" in noise.columns else ""), ""]
    idx = noise.set_index(["metric", "rate"])
    order = noise.groupby("metric", sort=False)["mean_tau"].mean().sort_values(ascending=False, kind="stable").index
    rows = []
    for mid in order:
        row = {"metric": M.get(mid).name}
        for r in rates:
            x = idx.loc[(mid, r)]
            row[f"tau at {_rate(r)} ({int(x['flipped'])} labels)"] = f"{x['mean_tau']:.3f} [{x['q025']:.3f}]"
        row[f"winner kept at {_rate(top)}"] = f"{idx.loc[(mid, top), 'winner_kept']:.0%}"
        if "power_noisy" in noise.columns:
            x = idx.loc[(mid, top)]
            row[f"power: clean → {_rate(top)}"] = f"{x['power_clean']:.3f} → {x['power_noisy']:.3f}"
        rows.append(row)
    lines += [markdown_table(pd.DataFrame(rows)), ""]
    gammas = sorted(priors["gamma"].unique())
    pidx = priors.set_index(["metric", "gamma"])
    share = priors.groupby("gamma")["majority_share"].first()
    lines += ["**Class priors.** The test items re-weighted so that the gold distribution pi becomes "
              "pi^gamma (normalised): gamma 0 is balanced, 1 the test set, above 1 more imbalanced; "
              "tau between the original ranking and the re-weighted one. Most robust metric first (by the mean "
              "tau over the exponents).", ""]
    order = priors.groupby("metric", sort=False)["tau"].mean().sort_values(ascending=False, kind="stable").index
    rows = [{"metric": M.get(mid).name,
             **{f"gamma {g:g} (majority {share[g]:.0%})": _fmt(pidx.loc[(mid, g), "tau"], 3) for g in gammas}}
            for mid in order]
    lines += [markdown_table(pd.DataFrame(rows)), "",
              "Class distributions: " + "; ".join(f"gamma {g:g}: {pidx.loc[(order[0], g), 'distribution']}"
                                                  for g in gammas) + "."]
    return "\n".join(lines) + "\n"


# a p-value matrix per metric up to this many systems (a table of S(S-1)/2 cells
# stays readable); beyond it, the pairs of the leading systems
MAX_MATRIX_SYSTEMS = 20  # (SemEval-2016 Task 3's 27 and 30 ranked systems: the leading pairs; every pair is in the CSV)
LEADING_SYSTEMS = 10


def significance_markdown(pairs: pd.DataFrame, best: pd.DataFrame, power: pd.DataFrame, values: pd.DataFrame,
                          metric_ids, alpha: float, test: str, correction: str, decisive: str, title: str,
                          trials: int | None = None) -> str:
    """The significance page of a dataset: discriminative power per metric
    (with its test, correction, Monte Carlo uncertainty and the difference
    required), the systems that cannot be told from the best, and per
    metric the p-values of the pairs (a matrix, systems in the metric's
    order, best first; the pairs of the leading systems when there are more
    than ``MAX_MATRIX_SYSTEMS``).  ``values``: the scores (systems x
    metrics); ``decisive``: the column of ``pairs`` the verdicts are taken
    on (``PairTests.decisive_column``)."""
    label = test_label(test, correction, trials)
    null = ("within every item (or group), the systems' outputs are exchangeable; the range of the systems' scores "
            "over the randomised trials makes every p-value family-wise over all pairs" if test == "tukey" else
            "the pair's score difference is 0; the replicates' differences, centred on the observed one, give "
            "the p-value (the unstudentised shift method), adjusted for the number of pairs as named")
    if test == "tukey":
        required = ("the smallest absolute score difference this test calls significant (the critical value of the "
                    "range statistic: every pair that differs by more is significant, no other)")
        border = "alpha within 2.576 Monte Carlo standard errors of the pair's p-value"
    else:
        required = ("per pair, the smallest absolute difference its replicates would call significant before the "
                    "correction, and the largest of these over the pairs (Sakai's conservative choice); after the "
                    "correction a pair may need more, or less")
        border = ("the raw p-values moved 2.576 Monte Carlo standard errors down, then up, and adjusted again, "
                  "give different verdicts")
    lines = [f"# {md_escape(title)}", "",
             f"Test: {md_escape(label)}, alpha = {alpha:g}. Null hypothesis: {null}. p = the share of trials "
             f"(replicates) at least as extreme as the observed difference (no +1: p = 0 means below one over "
             f"their number); a raw p-value carries a Monte Carlo standard error sqrt(p(1-p)/T). A pair is "
             f"significant when p < alpha; **borderline** pairs are those whose verdict another seed could "
             f"change ({border}). The **difference required** is Sakai's (2006) estimated difference for "
             f"significance: {required}.", "", "## Discriminative power", ""]
    pw = power.set_index("metric")
    rows = []
    for mid in metric_ids:
        r, info = pw.loc[mid], M.get(mid)
        rows.append({"metric": f"{info.name} ({info.direction})", "pairs": int(r["n_pairs"]),
                     "significant": int(r["n_significant"]),
                     "borderline": "" if pd.isna(r.get("n_borderline", np.nan)) else int(r["n_borderline"]),
                     "power": float(r["discriminative_power"]),
                     "smallest significant difference": float(r["smallest_significant_difference"]),
                     "difference required": float(r["difference_required"])})
    lines += [markdown_table(pd.DataFrame(rows)), "",
              "## The best system and those that cannot be told from it", ""]
    b = best.set_index("metric")
    lines += [markdown_table(pd.DataFrame([{
        "metric": M.get(m).name, "best": b.loc[m, "best"], "cannot be told from it": int(b.loc[m, "n_indistinguishable"]),
        "systems": b.loc[m, "indistinguishable_from_best"] if isinstance(b.loc[m, "indistinguishable_from_best"], str)
        else ""} for m in metric_ids])), ""]
    lines += ["## p-values of the pairs", "",
              f"Per metric, the systems in that metric's order (best first); a cell is the "
              f"{ {'p_holm': 'Holm-adjusted p-value', 'p_bh': 'Benjamini-Hochberg-adjusted p-value'}.get(decisive, 'p-value')} of "
              f"the pair, in **bold** when significant. `significance.csv` has every pair with its difference, "
              f"standard error and adjusted p-values.", ""]
    for mid in metric_ids:
        info = M.get(mid)
        d = pairs[pairs["metric"] == mid]
        o = orient(values[mid].to_numpy(dtype=float), info.higher_is_better)
        order = [values.index[i] for i in np.argsort(-o, kind="stable")]
        lines += [f"### {md_escape(info.name)} ({info.direction} is better)", ""]
        p = {(a, bsys): v for a, bsys, v in zip(d["system_a"], d["system_b"], d[decisive])}

        def cell(a, bsys):
            v = p.get((a, bsys), p.get((bsys, a), np.nan))
            if np.isnan(v):
                return "NaN"
            # the project's one rule for p-values: never rounded onto or across alpha (format_p)
            text = format_p(v, (alpha,))
            return f"**{text}**" if v < alpha else text
        if len(order) <= MAX_MATRIX_SYSTEMS:
            head = ["system"] + [str(i + 1) for i in range(len(order) - 1)]
            lines += ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(order) - 1)]
            for i, a in enumerate(order):
                lines.append("| " + " | ".join([f"{i + 1} {md_escape(a)}"] + [cell(a, order[j]) if j < i else ""
                                                                              for j in range(len(order) - 1)]) + " |")
            lines.append("")
        else:
            top = order[:LEADING_SYSTEMS]
            rows = [{"system_a": a, "system_b": bsys, "p": cell(a, bsys)} for i, a in enumerate(top)
                    for bsys in top[i + 1:]]
            lines += [f"The {len(order)} systems make {len(d):,} pairs: the pairs of the {LEADING_SYSTEMS} leading "
                      f"systems are shown.", "",
                      "| system a | system b | p |", "|---|---|---:|",
                      *[f"| {md_escape(r['system_a'])} | {md_escape(r['system_b'])} | {r['p']} |" for r in rows], ""]
    return "\n".join(lines)


def _above_quartiles(r) -> bool:
    """Whether the pooled MDD lies above its bracket, the MDD of the pairs
    at the third quartile of the variance: the bracket is a range of pairs,
    not an interval of the pooled value, and a few pairs with a large
    variance pull the pooled one above it (on the 14 classes of
    semeval2020t11_tc, GMR: most pairs of systems score 0 on every
    resample, so the quartile pairs have no variance)."""
    v, hi = r["min_detectable_difference"], r["mdd_high"]
    return bool(np.isfinite(v) and np.isfinite(hi) and round(v, 3) > round(hi, 3))


def design_summary(design: pd.DataFrame, needed: pd.DataFrame) -> pd.DataFrame:
    """The test-set size design at the test set's own size, one row per
    metric (most sensitive first): the minimum detectable difference (MDD)
    with its range over the quartile pairs (and *beyond its range* where
    it exceeds the metric's range), the predicted share of pairs
    separated, and the units needed for each difference of
    ``design_needed.csv`` (with the range): the rows of
    ``tables/design.md`` and of ``metaeval design``."""
    full = design[design["fraction"] == 1.0].set_index("metric")
    n, unit = int(full["size"].iloc[0]), str(full["unit"].iloc[0])
    order = full["min_detectable_difference"].sort_values(kind="stable").index
    rows = []
    for mid in order:
        r = full.loc[mid]
        row = {"metric": M.get(mid).name,
               f"MDD with {n:,} {unit}": f"{r['min_detectable_difference']:.3f} [{r['mdd_low']:.3f}, "
                                        f"{r['mdd_high']:.3f}]" + ("" if bool(r.get("within_range", True)) else
                                                                   " (beyond its range)")
               + (" (above the quartile pairs)" if _above_quartiles(r) else ""),
               "predicted power": f"{r['power']:.3f}"}
        for _, x in needed[needed["metric"] == mid].iterrows():
            row[f"{unit} to detect {x['difference']:g}"] = (f"{int(x['needed']):,} [{int(x['needed_low']):,}, "
                                                           f"{int(x['needed_high']):,}]"
                                                           if pd.notna(x["needed"]) else "n/a")
        rows.append(row)
    return pd.DataFrame(rows)


def design_markdown(design: pd.DataFrame, needed: pd.DataFrame, title: str = "") -> str:
    """The test-set size design as a table (``design_summary``) under the
    paragraph that says how to read it."""
    lines = [f"**{md_escape(title)}**", ""] if title else []
    full = design[design["fraction"] == 1.0].set_index("metric")
    n, unit = int(full["size"].iloc[0]), str(full["unit"].iloc[0])
    alpha, power = float(full["alpha"].iloc[0]), float(full["target_power"].iloc[0])
    lines += [f"The minimum detectable difference (MDD) is the smallest true difference between two systems that a "
              f"two-sided z-test at alpha {alpha:g} detects with probability {power:g}, with the {n:,} {unit} of "
              f"this test set; the variance of each pair's difference is its bootstrap variance, scaled by 1/n "
              f"for other sizes (in brackets: the pairs at the first and third quartiles of the variance). "
              f"Predicted power: the share of system pairs the same test separates, each pair's observed "
              f"difference taken as its true one (unadjusted; not the Tukey test's discriminative power). The "
              f"sizes needed are in {unit}. Differences are in each metric's own units (kappa and alpha range "
              f"over [-1, 1], MAE is an error): compare a metric with itself across sizes, and metrics with "
              f"each other by their predicted power on the same pairs."
              + (f" *Beyond its range*: the MDD exceeds the width of the metric's range, so no difference the "
                 f"metric can have is detected with {n:,} {unit} (and the approximation has broken down)."
                 if "within_range" in full and not full["within_range"].astype(bool).all() else "")
              + (" *Above the quartile pairs*: the pooled variance is above the third quartile's (the brackets "
                 "are pairs of systems, not an interval of the pooled value): a few pairs vary much more than most, "
                 "e.g. where most systems score the same on every resample."
                 if any(_above_quartiles(r) for _, r in full.iterrows()) else ""), ""]
    return "\n".join(lines) + "\n" + markdown_table(design_summary(design, needed))
