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
from typing import Iterable, Mapping

import pandas as pd


__all__ = ["markdown_html", "html_page", "overview_html", "overview_page"]

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 1.2em; color: #1b1b1b;
       font-size: 14px; line-height: 1.45; }
/* a table wider than the frame scrolls inside itself (the page keeps its width) */
table { border-collapse: collapse; margin: 0.6em 0 1.2em; display: block; max-width: 100%; overflow-x: auto; }
img { max-width: 100%; height: auto; }
pre { white-space: pre-wrap; }
th, td { border: 1px solid #c8c8c8; padding: 0.25em 0.6em; }
th { background: #eef1f5; position: sticky; top: 0; }
th[data-sort] { cursor: pointer; }
th[data-sort]::after { content: " \\2195"; color: #888; }
tbody tr:nth-child(even) { background: #f7f8fa; }
td { font-variant-numeric: tabular-nums; white-space: nowrap; }
p.hint { color: #555; font-size: 12px; }
/* the verdict's marks: kept (blue) and eliminated (vermilion), Okabe & Ito's colour-blind-safe pair */
td.kept { color: #0072B2; font-weight: 600; }
td.out { color: #D55E00; font-weight: 600; background: #fbeee6; }
"""

# a page whose tables must fit its width (the recommendation's): long cells wrap at their spaces
_WRAP_CSS = "td { white-space: normal; }"

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
    """The HTML of ``md`` (CommonMark and tables, raw HTML off but for the
    tags of typeset metric names, ``notation.html_tags``; the metrics' ASCII
    names typeset, ``notation.typeset_html``).  A column's
    alignment is one CSS rule per table, not an attribute on every cell
    (which made the significance pages five times their Markdown)."""
    import re

    from .notation import html_tags, typeset_html

    out, n = [], 0
    # the metrics' names typeset (the Markdown's inline <sup>/<sub>/<i>, and the ASCII names of the text)
    rendered = typeset_html(html_tags(_markdown().render(md)))
    for part in re.split(r"(<table>.*?</table>)", rendered, flags=re.S):
        if not part.startswith("<table>"):
            out.append(part)
            continue
        n += 1
        head = re.search(r"<tr>(.*?)</tr>", part, flags=re.S).group(1)
        aligns = [m.group(1) for m in re.finditer(r"<th(?: style=\"text-align:(\w+)\")?>", head)]
        rules = "".join(f"table.t{n} td:nth-child({i + 1}),table.t{n} th:nth-child({i + 1}){{text-align:{a}}}"
                        for i, a in enumerate(aligns) if a)
        part = re.sub(r' style="text-align:\w+"', "", part).replace("<table>", f'<table class="t{n}">', 1)
        out.append((f"<style>{rules}</style>\n" if rules else "") + part)
    return "".join(out)


def html_page(md: str, title: str, wrap: bool = False) -> str:
    """A stand-alone HTML page of the Markdown ``md`` whose tables sort by
    a click on a column header (``title``: the page's title, escaped);
    ``wrap``: table cells wrap at their spaces, so that every table fits
    the page's width (the recommendation's page, read at 1,280 px)."""
    import re

    body = markdown_html(md)
    # the verdict's grid: a cell that is only a mark gets its colour
    body = re.sub(r"<td>\u2714</td>", '<td class="kept">\u2714</td>', body)
    body = re.sub(r"<td>\u2718</td>", '<td class="out">\u2718</td>', body)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title, quote=True)}</title>\n<style>{_CSS}{_WRAP_CSS if wrap else ''}</style>\n"
        "</head>\n<body>\n"
        f"{body}"
        "<p class=\"hint\">Click a column header to sort the table by it.</p>\n"
        f"<script>{_SORT_JS}</script>\n</body>\n</html>\n"
    )


def overview_html(datasets: Iterable[Mapping], reproduction: pd.DataFrame | None,
                  links: Mapping[str, list] | None = None, leaderboards: Iterable[Mapping] | None = None) -> str:
    """The report's front page (an HTML fragment): every dataset's answer
    first, one line each (read on the first screen), then how to read
    them, each dataset's details (task, size, warnings) and the
    reproduction summary.

    ``datasets``: one mapping per dataset with ``name``, ``n_systems``
    (ranked), ``n_items`` (optional), ``task`` (text), ``headline`` (the
    first sentence of the answer of ``metaeval.verdict.recommendation``, or None),
    ``recommendation`` (the whole answer), ``systems`` (the ranked systems
    as the pages count them: ``17 real systems + 2 baselines``),
    ``why_not`` (why there is no recommendation) and ``warnings`` (list of
    text).  ``reproduction``: cells per status of every published table
    (``reproduce.reproduction_summary``; None when the reproduction is
    off).  ``links``: per dataset its pages (``[subcategory, label,
    relative path]``; see ``overview_page``): the dataset's name links to
    its list, and the answer to its recommendation page.
    ``leaderboards``: one mapping per leaderboard
    (``present.leaderboard.leaderboard_front``), whose answers follow the
    datasets' (the leaderboard's name links to its list, the answer to its
    page)."""
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    links = links or {}
    datasets = list(datasets)
    out = []
    answers, details = [], []
    for d in datasets:
        if d.get("n_gold_spans") is not None and not d.get("n_items"):  # span identification: no items
            size = f"{int(d['n_gold_spans']):,} gold spans in {int(d.get('n_articles') or 0):,} " \
                   f"{e(d.get('unit') or 'articles')}, "
        elif d.get("n_gold_spans") is not None:  # technique classification: an item per gold span
            size = f"{int(d['n_items']):,} spans in {int(d.get('n_articles') or 0):,} {e(d.get('unit') or 'articles')}, "
        else:
            size = f"{int(d['n_items']):,} {e(d.get('unit') or 'items')}, " if d.get("n_items") is not None else ""
        # the systems as every page counts them (real + baselines), else the ranked systems
        systems = e(d["systems"]) if d.get("systems") else \
            f"{int(d['n_systems'])} {'systems ranked' if d.get('recommendation') else 'systems'}"
        name = f"<b>{e(d['name'])}</b>"
        if d["name"] in links:
            name = f'<a href="#{_anchor(d["name"])}">{name}</a>'
        page = next((p for _, _, p in links.get(d["name"], []) if p.endswith("tables/recommendation.html")), None)
        first = d.get("headline") or d.get("recommendation")
        if first and page:
            body = e(first) + f' <a href="{e(page)}">(the whole argument)</a>'
        elif first:
            body = e(first)
        else:
            body = "<i>" + e(d.get("why_not") or "no meta-evaluation.") + "</i>"
        answers.append(f"<li>{name}: {body}</li>")
        warn = "".join(f"<br><b>Warning:</b> {e(w)}" for w in d.get("warnings", []))
        more = (f" {e(d['recommendation'])}" if d.get("recommendation") and d.get("recommendation") != first else "")
        details.append(f"<li><b>{e(d['name'])}</b> ({e(d['task'])}, {size}{systems}).{more}{warn}</li>")
    out.append("" if not datasets else
        "<h2>Which metric, per dataset</h2>"
        f'<ul class="answers">{"".join(answers)}</ul>'
        "<p class=\"hint\">How to read it: every metric is judged on the evidence the dataset makes relevant (rank "
        "stability over random half-splits; for ordered classes, class discrimination: how much more merging two "
        "neighbouring classes moves the ranking than the metric's own noise does; discriminative power, the share "
        "of system pairs a significance test tells apart; robustness to label noise and, for imbalanced data, to "
        "shifted class priors), on the real systems, resampling the test items (these systems) or the items and "
        "the systems together (new systems). Per criterion, the Model Confidence Set keeps the metrics the "
        "evidence cannot tell from the best, with the error rate controlled over the criteria (Bonferroni); the "
        "answer is the metrics kept on every criterion (a set when the data do not separate them) or, when none "
        "is, those kept on the most criteria, with the trade-off said: which metric if one criterion matters "
        "more (declare it with a dataset's priorities). Formal properties are requirements: they restrict the "
        "answer only when declared. A metric that a degenerate system significantly beats the real systems on is "
        "never recommended. The same answer heads each dataset's summary and recommendation pages, with where the "
        "task's official metric stands.</p>"
        f"<h3>The datasets</h3><ul>{''.join(details)}</ul>")
    if leaderboards:
        out.append(_leaderboards_html(list(leaderboards), links))
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
    from .notation import typeset_html

    return typeset_html("\n".join(out) + "\n")  # the answers' metric names typeset


def _leaderboards_html(boards: list[Mapping], links: Mapping[str, list]) -> str:
    """The front page's section on the leaderboards: the answer of each
    (its first scheme's), then each one's size, its primary aggregate's
    resolution under every scheme, the other schemes' answers where they
    differ, its caution and the notes on its input."""
    from ..measures import aggregates as A
    from ..settings import LEADERBOARD_CRITERIA

    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    answers, details = [], []
    for b in boards:
        name = f"<b>{e(b['name'])}</b>"
        if b["name"] in links:
            name = f'<a href="#{_anchor(b["name"])}">{name}</a>'
        page = next((p for _, _, p in links.get(b["name"], []) if p.endswith("leaderboard.html")), None)
        body = e(b["headline"]) + (f' <a href="{e(page)}">(the leaderboard)</a>' if page else "")
        answers.append(f"<li>{name}: {body}</li>")
        schemes = list(b["schemes"])
        resolved = "; ".join(
            f"{e(b['schemes'][s])}: {r['resolved']} of {r['adjacent_pairs']} adjacent pairs resolved"
            + (f" (cannot be told apart: {e(r['tie_bands'])})" if r["tie_bands"] != "none" else "")
            for s, r in ((s, b["resolution"][s]) for s in schemes))
        others = "".join(f" Under {e(b['schemes'][s])}: {e(b['answers'][s])}" for s in schemes[1:]
                         if b["answers"][s] != b["answers"][schemes[0]])  # (the schemes that answer otherwise)
        caution = f" <b>Caution:</b> {e(b['caution'])}" if b.get("caution") else ""
        warn = "".join(f"<br><b>Note on the input:</b> {e(w)}" for w in b.get("warnings", []))
        what = "answers" if b.get("kind") == "answers" else "per-item scores"
        details.append(
            f"<li><b>{e(b['name'])}</b> ({b['n_systems']:,} systems, {b['n_items']:,} items in "
            f"{b['n_tasks']:,} tasks, {what}). The {e(b['primary_name'])}, under {resolved}.{others}{caution}{warn}"
            "</li>")
    return ("<h2>Which aggregate, per leaderboard</h2>"
            f'<ul class="answers">{"".join(answers)}</ul>'
            "<p class=\"hint\">How to read it: a leaderboard's aggregates (built in: "
            + e(", ".join(A.get(a).name for a in A.BUILT_IN)) + ") are judged as a dataset's metrics are, on "
            + e(", ".join(LEADERBOARD_CRITERIA.values())) + ", "
            "with the error rate controlled over the criteria, under each resampling scheme (items within "
            "tasks: these tasks, new questions; tasks: new tasks; both). Two neighbours are resolved when their paired "
            "difference is significant with the error rate controlled over every pair (the max-|t| bootstrap with "
            "stepdown of Mogstad, Romano, Shaikh &amp; Wilhelm, from which each system's rank confidence set is "
            "built: neighbours whose rank sets overlap may still be resolved); systems the data cannot tell apart "
            "are listed together.</p>"
            f"<h3>The leaderboards</h3><ul>{''.join(details)}</ul>")


def _anchor(name: str) -> str:
    """An id for a dataset's section (its name, with anything but letters,
    digits, "-" and "_" replaced)."""
    import re

    return "dataset-" + re.sub(r"[^A-Za-z0-9_-]", "-", str(name))


_OVERVIEW_CSS = """
body { max-width: 72em; margin: 1.2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #d6dbe3; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
li { margin: 0.35em 0; }
ul.answers li { margin: 0.2em 0; }
a { color: #0b57a4; }
dl.pages { margin: 0.2em 0 0.8em 1em; }
dl.pages dt { font-weight: 600; margin-top: 0.4em; }
dl.pages dd { margin: 0.1em 0 0 1.2em; }
"""


def overview_page(datasets: Iterable[Mapping], reproduction: pd.DataFrame | None,
                  links: Mapping[str, list], leaderboards: Iterable[Mapping] | None = None) -> str:
    """The stand-alone front page (``results/report/overview.html``): a
    styled HTML document, readable without the report, with the front
    (``overview_html``) and, per dataset, a link to each of its pages and
    figures grouped as in the report's menu.  ``links``: per dataset name
    (and "" for the pages across datasets) ``[subcategory, label, path]``,
    paths relative to the page; a leaderboard's pages are listed under its
    name too.  ``leaderboards``: as ``overview_html``."""
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    datasets, leaderboards = list(datasets), list(leaderboards or [])
    heading = ", ".join((["which metric, per dataset"] if datasets or not leaderboards else [])
                        + (["which aggregate, per leaderboard"] if leaderboards else []))
    parts = [f"<h1>metaeval: {heading}</h1>",
             "<p class=\"hint\">The front page of the results. Each dataset's and leaderboard's pages and figures are listed below "
             "it; <code>snakemake --report results/report.html</code> gathers all of them, with captions, in one "
             "file.</p>",
             overview_html(datasets, reproduction, links, leaderboards)]
    sections = []
    for name in ([d["name"] for d in datasets if d["name"] in links] + [b["name"] for b in leaderboards
                                                                         if b["name"] in links]
                 + ([""] if links.get("") else [])):
        groups: dict[str, list] = {}
        for sub, label, path in links[name]:
            groups.setdefault(sub, []).append(f'<a href="{e(path)}">{e(label)}</a>')
        body = "".join(f"<dt>{e(sub or 'Results')}</dt>" + "".join(f"<dd>{a}</dd>" for a in items)
                       for sub, items in groups.items())
        title = e(name) if name else "Across datasets"
        sections.append(f'<h3 id="{_anchor(name) if name else "across"}">{title}</h3><dl class="pages">{body}</dl>')
    if sections:
        parts.append("<h2>Every page and figure</h2>" + "".join(sections))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>metaeval: overview</title>\n<style>{_CSS}{_OVERVIEW_CSS}</style>\n</head>\n<body>\n"
            + "\n".join(parts) + "\n</body>\n</html>\n")
