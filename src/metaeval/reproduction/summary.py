"""The reproduction's report: the summary per paper and table (matched,
differs, not reproducible) and the page that sets the papers' published
cells beside ours, with the notes and the conclusions
(``metaeval.reproduction.reproduce`` compares them)."""

from __future__ import annotations


import numpy as np
import pandas as pd


from .reproduce import STATUSES, Published

__all__ = ["reproduction_summary", "write_report"]


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    if isinstance(v, (float, np.floating)):
        return f"{v:.4f}".rstrip("0").rstrip(".") if abs(v) < 1e6 else f"{v:.0f}"
    return str(v)


def reproduction_summary(cells: pd.DataFrame, published: Published) -> pd.DataFrame:
    """Per published table (in the order of ``tables.yaml``): ``id``,
    ``table`` (its title) and the number of cells of every status."""
    titles = {t["id"]: t["title"] for t in published.spec["tables"]}
    counts = (cells.groupby(["table", "status"]).size().unstack(fill_value=0)
              .reindex(columns=list(STATUSES), fill_value=0))
    counts = counts.reindex([t["id"] for t in published.spec["tables"] if t["id"] in counts.index])
    return pd.DataFrame({"id": counts.index.to_numpy(), "table": [titles[i] for i in counts.index],
                         **{s: counts[s].to_numpy() for s in STATUSES}})


def write_report(cells: pd.DataFrame, notes: list[str], paragraphs: list[str], published: Published,
                 out_csv, out_md, out_html=None, omitted=()) -> None:
    """``reproduction.csv`` and ``.md`` (and ``.html``); ``omitted``: the
    papers left out because none of their datasets is configured."""
    from ..data.files import write_csv, write_text
    from ..present.tables import markdown_table

    write_csv(out_csv, cells)
    titles = {t["id"]: t for t in published.spec["tables"]}
    summary = reproduction_summary(cells, published)
    counts = summary.set_index("id")
    lines = ["# Reproducing the papers' tables", "",
             "Every published cell next to the value this pipeline computes. Status: **match** = equal at the "
             "paper's printed precision (|difference| <= half a unit of the last printed digit); **differs** = "
             "reproducible in principle but not equal; **not reproducible** = the paper's inputs are not "
             "available (the reason is given), with our value on our data shown where there is one. "
             "Amemiya & Sakai's cells are computed on two views: `fnc1_paper` (the released systems among their "
             "14, plus majority and random) and `fnc1` (every released system, plus majority and random); the "
             "conclusions below give the number of systems each view ranks.",
             *([f"Not shown: {', '.join(omitted)} (none of their datasets is configured)."] if omitted else []),
             "", "## Summary", "", markdown_table(summary.drop(columns="id")), "",
             f"Cells: {len(cells)}; " + ", ".join(f"{s}: {int((cells.status == s).sum())}" for s in STATUSES) + ".",
             ""]
    if paragraphs:
        lines += ["## Amemiya & Sakai's conclusions (section 5.4) on our data", "",
                  "Generated from the numbers of `results/<view>/` (the sentences are not hand-written).", ""]
        lines += [p + "\n" for p in paragraphs]
    lines += ["## Internal consistency of the papers", ""]
    lines += [f"- {n}" for n in notes] or ["- No inconsistency found."]
    lines += [""]
    for tid in counts.index:
        t = titles[tid]
        d = cells[cells.table == tid]
        lines += [f"## {t['title']}", "", f"Source: {published.source(t)}", ""]
        # a reason shared by every cell is said once, above the table
        first = d["reason"].str.split("; ", n=1).str[0]
        if d["reason"].ne("").all() and first.nunique() == 1 and d["status"].nunique() == 1:
            lines += [f"Status of every cell: {d['status'].iloc[0]} ({first.iloc[0]}).", ""]
            d = d.assign(reason=d["reason"].str.split("; ", n=1).str[1].fillna(""))
        views = [v for v in dict.fromkeys(d["view"]) if v]
        if "views" in t and len(views) > 1:
            wide = None
            for v in views:
                part = d[d.view == v].reset_index(drop=True)
                if wide is None:
                    wide = part[["row", "column", "published"]].copy()
                wide[v] = part["reproduced"].map(_fmt)
                wide[f"diff {v}"] = part["difference"].map(_fmt)
            wide["status"] = d[d.view == views[0]]["status"].to_numpy()
            if d["reason"].any():
                wide["reason"] = d[d.view == views[0]]["reason"].to_numpy()
            lines.append(markdown_table(wide.astype(str)))
        else:
            cols = ["row", "column", "published", "reproduced", "difference", "status"]
            show = d[cols + (["reason"] if d["reason"].any() else [])].copy()
            show["reproduced"] = show["reproduced"].map(_fmt)
            show["difference"] = show["difference"].map(_fmt)
            lines.append(markdown_table(show.astype(str)))
        lines.append("")
    from ..present.notation import plain_markdown

    write_text(out_md, plain_markdown("\n".join(lines)))  # plain text, the metric names in Unicode, as every .md
    if out_html:
        from ..present.report import html_page

        write_text(out_html, html_page("\n".join(lines), "Reproducing the papers' tables"))
