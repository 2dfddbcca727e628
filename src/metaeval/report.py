"""HTML for the Snakemake report: the pipeline's Markdown tables as HTML
pages (sortable), and the front page (reproduction summary and the Table-7
metric recommendation of every dataset).

Escaping, decided once for all HTML the project writes: every string that
comes from the data (system names are file names, labels come from the
files, dataset names from the config) reaches the page as text.  The tables
are rendered from their Markdown with raw HTML disabled (markdown-it-py
escapes ``&``, ``<``, ``>`` and ``"`` in text and attributes); the front page
is built with ``html.escape(..., quote=True)``.  A prediction file named
``x" onmouseover="alert(1).csv`` shows as that name (``tests/test_report.py``).
No string from the data goes into a caption: captions are Jinja templates
in Snakemake's report, and a name with ``{{`` in it would be evaluated.
"""

from __future__ import annotations

import html
from typing import Iterable, Mapping, Sequence

import pandas as pd

from . import metrics as M
from .tables import ordinal

__all__ = ["markdown_html", "html_page", "overview_html", "recommendation_sentence"]

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 1.2em; color: #1b1b1b;
       font-size: 14px; line-height: 1.45; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; }
th, td { border: 1px solid #c8c8c8; padding: 0.25em 0.6em; }
th { background: #eef1f5; position: sticky; top: 0; }
th[data-sort] { cursor: pointer; }
th[data-sort]::after { content: " \\2195"; color: #888; }
tbody tr:nth-child(even) { background: #f7f8fa; }
td { font-variant-numeric: tabular-nums; white-space: nowrap; }
p.hint { color: #555; font-size: 12px; }
"""

# Click a column header to sort the rows by it (numbers by value: "0.693 (1)"
# sorts as 0.693; text after numbers); click again to reverse.
_SORT_JS = """
document.querySelectorAll("table").forEach(function (t) {
  if (!t.tHead || !t.tBodies.length) return;
  Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, i) {
    th.setAttribute("data-sort", "none");
    th.addEventListener("click", function () {
      var dir = th.getAttribute("data-sort") === "asc" ? -1 : 1;
      Array.prototype.forEach.call(t.tHead.rows[0].cells, function (o) { o.setAttribute("data-sort", "none"); });
      th.setAttribute("data-sort", dir === 1 ? "asc" : "desc");
      var key = function (r) {
        var s = r.cells[i] ? r.cells[i].textContent.trim() : "";
        var v = parseFloat(s);
        return isNaN(v) ? [1, s] : [0, v];
      };
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x[0] !== y[0]) return x[0] - y[0];
        return (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) * dir;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def _markdown():
    from markdown_it import MarkdownIt

    # CommonMark with GitHub tables; raw HTML in the source is shown as text
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_html(md: str) -> str:
    """The HTML of ``md`` (CommonMark and tables, raw HTML off)."""
    return _markdown().render(md)


def html_page(md: str, title: str) -> str:
    """A stand-alone HTML page of the Markdown ``md`` whose tables sort by
    a click on a column header (``title``: the page's title, escaped)."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title, quote=True)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"{markdown_html(md)}"
        "<p class=\"hint\">Click a column header to sort the table by it.</p>\n"
        f"<script>{_SORT_JS}</script>\n</body>\n</html>\n"
    )


def recommendation_sentence(rec: pd.DataFrame, criteria: Mapping[str, str]) -> str:
    """One sentence (plain text) from ``experiments.recommend``: the metric
    with the smallest rank sum, ties named, and the runners-up."""
    ok = rec[rec["rank_sum"].notna()]
    if not len(ok):
        return "No metric is measured on every criterion."
    best = ok[ok["rank_sum"] == ok["rank_sum"].iloc[0]]

    def ranks(row) -> str:
        return ", ".join(f"{name} {ordinal(int(row[col]))}" for col, name in criteria.items())

    names = " and ".join(f"{M.get(m).name} ({ranks(r)})" for m, r in best.set_index("metric").iterrows())
    tied = " (tied)" if len(best) > 1 else ""
    rest = ok[ok["rank_sum"] > ok["rank_sum"].iloc[0]].head(2)
    text = f"{names}{tied}, rank sum {int(best['rank_sum'].iloc[0])}"
    if len(rest):
        text += "; next: " + ", ".join(f"{M.get(m).name} ({int(s)})" for m, s in zip(rest["metric"], rest["rank_sum"]))
    left = rec.loc[rec["rank_sum"].isna(), "metric"]
    if len(left):
        text += (". Left out, not ranked on every criterion (span metrics are not scored after class merging): "
                 + ", ".join(M.get(m).name for m in left))
    return text + "."


def _excerpt(advice: Sequence[str], n: int = 2) -> list[str]:
    """The first ``n`` sentences of a recommendation, and the next ones while
    the last announces what follows (ends with a colon); a caveat that the
    recommendation is tentative (few systems) always."""
    out = list(advice[:n])
    while out and out[-1].endswith(":") and len(out) < len(advice):
        out.append(advice[len(out)])
    return out + [x for x in advice[len(out):] if "recommendation is tentative" in x]


def overview_html(datasets: Iterable[Mapping], reproduction: pd.DataFrame | None) -> str:
    """The report's front page (an HTML fragment).

    ``datasets``: one mapping per dataset with ``name``, ``n_systems``
    (ranked), ``n_items`` (optional), ``task`` (text), ``recommendation`` (a sentence, or None) with
    ``criteria`` (text), ``advice`` (optional: the sentences of ``metaeval.recommend``), ``why_not`` (why there is no recommendation) and
    ``warnings`` (list of text).  ``reproduction``: cells per status of
    every published table (``reproduce.reproduction_summary``; None when the
    reproduction is off)."""
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    out = []
    items = []
    for d in datasets:
        if d.get("n_gold_spans") is not None and not d.get("n_items"):  # span identification: no items
            size = f"{int(d['n_gold_spans']):,} gold spans in {int(d.get('n_articles') or 0):,} articles, "
        else:
            size = f"{int(d['n_items']):,} items, " if d.get("n_items") is not None else ""
        ranked = "systems ranked" if d.get("recommendation") else "systems"
        head = f"<b>{e(d['name'])}</b> ({e(d['task'])}, {size}{int(d['n_systems'])} {ranked}): "
        if d.get("recommendation"):
            table7 = f"recommended metric {e(d['recommendation'])} <span>Criteria: {e(d['criteria'])}.</span>"
            if d.get("advice"):  # metaeval.recommend: every criterion, with label noise, priors and properties
                body = (" ".join(e(x) for x in _excerpt(d["advice"]))
                        + " <span>(the whole argument: recommendation.html in the dataset's <i>0 Summary</i>)</span>"
                        + f"<br><i>On Amemiya &amp; Sakai's Table-7 criteria alone:</i> {table7}")
            else:
                body = table7
        else:
            body = e(d.get("why_not") or "no meta-evaluation.")
        warn = "".join(f"<br><b>Warning:</b> {e(w)}" for w in d.get("warnings", []))
        items.append(f"<li>{head}{body}{warn}</li>")
    out.append(
        "<h2>Which metric, per dataset</h2>"
        "<p>In the manner of Amemiya &amp; Sakai's Table 7, extended: each metric is ranked on every criterion "
        "the dataset makes relevant (rank stability over random half-splits; class discrimination, how much "
        "merging two classes changes the ranking; discriminative power, the share of system pairs a "
        "significance test tells apart; robustness to label noise and, for imbalanced data, to shifted class "
        "priors; the formal properties the metric has), and the metric with the smallest sum of ranks is "
        "recommended. The Table-7 criteria alone (stability, discrimination, power) may pick another metric: "
        "both are given. The Table-7 line ranks the exact values, as the paper does; the extended "
        "recommendation counts values equal to two decimals as tied, so a metric's rank on a criterion can "
        "differ by a place or more between the two. Each dataset's recommendation and summary tables give "
        "every rank.</p>"
        f"<ul>{''.join(items)}</ul>")
    if reproduction is not None and len(reproduction):
        rows = "".join(
            f"<tr><td>{e(r['table'])}</td><td>{int(r['match'])}</td><td>{int(r['differs'])}</td>"
            f"<td>{int(r['not reproducible'])}</td></tr>" for _, r in reproduction.iterrows())
        tot = reproduction[["match", "differs", "not reproducible"]].sum()
        out.append(
            "<h2>Reproduction of the papers' tables</h2>"
            f"<p>{int(tot.sum())} published cells: <b>{int(tot['match'])} match</b> at the paper's printed "
            f"precision, {int(tot['differs'])} differ, {int(tot['not reproducible'])} cannot be reproduced from the "
            "released data (the reason is given per cell). The full comparison, with the papers' conclusions "
            "checked on our data, is <i>reproduction.html</i> in the <i>Overview</i> category.</p>"
            "<table><thead><tr><th>table</th><th>match</th><th>differs</th><th>not reproducible</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")
    return "\n".join(out) + "\n"
