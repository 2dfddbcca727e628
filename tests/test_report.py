"""The report: HTML tables and front page (escaping, recommendation), and
`snakemake --report` on a run with hostile system names, rendered in
headless Chromium.

The Chromium tests are skipped when no `chromium` is installed, except
when METAEVAL_REQUIRE_CHROMIUM=1 (as in .ci/run, which installs it)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from metaeval.methods.experiments import table7 as recommend
from metaeval.present.report import html_page, overview_html
from metaeval.present.tables import scores_markdown

from .conftest import FIXTURES, ROOT
from .test_workflow import _run

# Snakemake (or pip) end to end: the second tier of tests (pytest -m 'workflow or slow'; README)
pytestmark = pytest.mark.workflow

HOSTILE = ['x" onmouseover="alert(1)', "a&amp;b", "q'`$(id)`"]


class _Elements(HTMLParser):
    """Every element's tag and attributes, and the text, of an HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parse(html: str) -> _Elements:
    p = _Elements()
    p.feed(html)
    return p


def _assert_names_are_text(html: str, names) -> None:
    """No element carries an event-handler attribute, and every name is
    in the page's text exactly as written."""
    page = _parse(html)
    handlers = [(t, a) for t, a in page.elements for k in a if k.lower().startswith("on")]
    assert not handlers, handlers
    text = "".join(page.text)
    for n in names:
        assert n in text, n


# -- library ----------------------------------------------------------------------
def _scores(names):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"system": names, "kind": "system", "accuracy": rng.random(len(names)),
                         "macro_f1": rng.random(len(names))})


def test_html_tables_show_hostile_names_as_text():
    names = HOSTILE + ["a|b", "*y*", "<img src=x onerror=alert(2)>"]
    md = scores_markdown(_scores(names), ["accuracy", "macro_f1"], "accuracy", title="t")
    page = html_page(md, 'title "with" <quotes>')
    _assert_names_are_text(page, names)
    assert "<title>title &quot;with&quot; &lt;quotes&gt;</title>" in page
    # one row per system, every row with its three cells
    rows = re.findall(r"<tr>(.*?)</tr>", page, flags=re.S)
    assert len(rows) == len(names) + 1 and all(len(re.findall(r"<t[dh]", r)) == 3 for r in rows)


def test_front_page_escapes_every_string():
    entries = [{"name": "d", "task": "classification", "n_systems": 3,
                "recommendation": HOSTILE[0],
                "warnings": [f"system {HOSTILE[0]!r} predicts every item exactly as the gold"]},
               {"name": "e", "task": "t", "n_systems": 1, "why_not": "too few <systems>"}]
    repro = pd.DataFrame({"table": ["Toy & co"], "match": [1], "differs": [0], "not reproducible": [2]})
    html = overview_html(entries, repro)
    _assert_names_are_text(html, [HOSTILE[0], "too few <systems>", "Toy & co"])
    assert "3 published cells" in html and "<b>1 match</b>" in html


def test_table7_reproduces_the_papers_rank_sum():
    """Amemiya & Sakai Table 7 (stability and ordinal-class ranks of the
    nine metrics): the smallest rank sum is CEM^ORD's, 3rd and 2nd, the
    metric the paper recommends (``experiments.table7``: a reproduction of
    their reading, not this tool's recommendation)."""
    t7 = pd.DataFrame({"metric": ["kappa", "macro_f1_hm", "cem_ord", "macro_f1", "mae_macro", "accuracy",
                                  "alpha_interval", "mae_micro", "alpha_ordinal"],
                       "stability_rank": [1, 2, 3, 4, 5, 6, 7, 8, 9],
                       "discrimination_rank": [9, 8, 2, 7, 1, 6, 4, 3, 5]})
    rec = recommend(t7)
    assert rec["metric"].tolist()[:4] == ["cem_ord", "mae_macro", "macro_f1_hm", "kappa"]  # 10 each: worst 8 < 9
    assert rec["rank_sum"].tolist()[:4] == [5, 6, 10, 10]


def test_table7_leaves_out_metrics_without_every_rank():
    df = pd.DataFrame({"metric": ["accuracy", "macro_f1", "kappa", "span_f1"],
                       "stability_rank": [1, 2, 3, 4], "power_rank": [2, 1, 3, 4],
                       "discrimination_rank": pd.array([1, 1, 2, pd.NA], dtype="Int64")})
    rec = recommend(df)
    assert rec["metric"].tolist() == ["accuracy", "macro_f1", "kappa", "span_f1"]
    assert pd.isna(rec["rank_sum"].iloc[-1])
    assert rec["rank_sum"].tolist()[:2] == [4, 4]


# -- the workflow's report ----------------------------------------------------------
@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The tiny datasets, three systems renamed to hostile names, a
    submission identical to the gold, a one-cell published table; the
    pipeline, then `snakemake --report`."""
    base = tmp_path_factory.mktemp("report")
    data = base / "data"
    shutil.copytree(FIXTURES, data)
    preds = data / "tiny/predictions"
    for old, new in zip(sorted(preds.glob("*.csv")), HOSTILE):
        old.rename(preds / f"{new}.csv")
    gold = pd.read_csv(data / "tiny/gold.csv", dtype=str)
    gold[["item_id", "label"]].to_csv(preds / "perfect.csv", index=False)
    pub = base / "published"
    pub.mkdir()
    (pub / "toy.csv").write_text("# A toy published table: majority accuracy on tiny.\nsystem,Acc\nmajority,0.450\n")
    (pub / "tables.yaml").write_text(yaml.safe_dump({
        "systems": {"toy": {"majority": "majority"}}, "metrics": {"toy": {"Acc": "accuracy"}}, "reasons": {},
        "tables": [{"id": "toy", "title": "Toy table", "file": "toy.csv", "paper": "toy", "kind": "scores",
                    "dataset": "tiny", "decimals": 3}]}))
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {k: cfg["datasets"][k] for k in ("tiny", "tiny_tsv")}
    cfg["datasets"]["tiny_tsv"]["experiments"] = {"min_systems": 50}  # no meta-evaluation: the front page says why
    cfg["reproduction"] = {"enabled": True, "published": str(pub / "tables.yaml")}
    (base / "hostile.yaml").write_text(yaml.safe_dump(cfg))
    work = base / "work"
    work.mkdir()
    _run(work, data, configfile=base / "hostile.yaml")
    _run(work, data, "--report", "results/report.html", configfile=base / "hostile.yaml")
    return work


def _categories(report: Path) -> dict:
    text = report.read_text(encoding="utf-8")
    m = re.search(r"var categories = (\{.*?\});\n", text)
    return json.loads(m.group(1))


def test_every_table_and_figure_is_in_the_report(hostile):
    cats = _categories(hostile / "results/report.html")
    d = "results/tiny"
    assert cats["tiny"] == {
        "0 Summary": [f"{d}/tables/recommendation.html", f"{d}/figures/recommendation.png",
                      f"{d}/tables/summary.html"],
        "1 Scores": [f"{d}/tables/chance.html", f"{d}/figures/confusion.png", f"{d}/tables/gameability.html",
                     f"{d}/tables/scores.html"],
        "2 Ranking similarity": [f"{d}/figures/similarity.png"],
        "3 Rank stability": [f"{d}/figures/stability.png"],
        "4 Class merging": [f"{d}/figures/merging.png"],
        "5 Confidence intervals": [f"{d}/tables/intervals.html", f"{d}/figures/scores.png"],
        "6 Significance": [f"{d}/figures/discriminative_power.png", f"{d}/tables/significance.html"],
        "8 Label noise and priors": [f"{d}/figures/noise.png", f"{d}/figures/priors.png",
                                     f"{d}/tables/sensitivity.html"],
        "9 Test-set size": [f"{d}/tables/design.html", f"{d}/figures/design.png"],
    }
    t = "results/tiny_tsv"
    assert cats["tiny_tsv"] == {"1 Scores": [f"{t}/tables/chance.html", f"{t}/figures/confusion.png",
                                             f"{t}/tables/gameability.html", f"{t}/tables/scores.html",
                                             f"{t}/tables/scores_by_group.html"]}
    assert [sorted(v) for v in cats["Metric properties"].values()] == [["results/figures/properties.png",
                                                                         "results/tables/properties.html"]]
    assert cats["Overview"] == {"": ["results/reproduction.html"]} or \
        list(cats["Overview"].values()) == [["results/reproduction.html"]]
    # every caption file a rule names exists and says how to read its result
    for rst in (ROOT / "workflow/report").glob("*.rst"):
        assert len(rst.read_text()) > 200, rst


def test_hostile_names_show_as_text_in_every_html_table(hostile):
    d = hostile / "results/tiny/tables"
    for page in ("scores.html", "intervals.html", "significance.html"):
        _assert_names_are_text((d / page).read_text(encoding="utf-8"), HOSTILE)
    front = (hostile / "results/report/front.html").read_text(encoding="utf-8")
    _assert_names_are_text(front, ["'perfect'"])
    assert "suspicious perfect score" in front
    assert "tiny_tsv</b>" in front and "fewer than min_systems = 50" in front
    n_items = json.loads((hostile / "results/tiny/dataset.json").read_text())["n_items"]
    assert f"<b>tiny</b> (classification, 3 classes, {n_items:,} items, " in front
    assert "Toy table" in front and "<b>1 match</b>" in front
    # the stand-alone overview: a styled document whose links all resolve, to each dataset's pages and figures
    page = (hostile / "results/report/overview.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page and "<style>" in page
    _assert_names_are_text(page, ["'perfect'"])
    parsed = _parse(page)
    hrefs = [a["href"] for tag, a in parsed.elements if tag == "a"]
    ids = {a["id"] for _, a in parsed.elements if "id" in a}
    files = [h for h in hrefs if not h.startswith("#")]
    assert all(h[1:] in ids for h in hrefs if h.startswith("#"))
    assert all((hostile / "results/report" / h).resolve().is_file() for h in files), files
    for f in ("../tiny/tables/recommendation.html", "../tiny/figures/scores.png", "../tiny/tables/summary.html",
              "../tiny_tsv/tables/scores.html", "../reproduction.html", "../figures/properties.png"):
        assert f in files, f
    assert not any("tiny_tsv/figures/stability" in h for h in files)  # no meta-evaluation: no such figure


# -- headless Chromium -------------------------------------------------------------
def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        if os.environ.get("METAEVAL_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium is not installed (METAEVAL_REQUIRE_CHROMIUM=1)")
        pytest.skip("chromium is not installed")
    return exe


def _render(page: Path, tmp_path: Path, script: str | None = None, screenshot: Path | None = None) -> str:
    """The DOM of ``page`` after its scripts ran (and ``script``, run 300 ms
    after loading, e.g. to open a result in Snakemake's report)."""
    if script:
        html = page.read_text(encoding="utf-8")
        i = html.rfind("</body>")
        page = tmp_path / f"view_{abs(hash(script))}.html"
        page.write_text(html[:i] + f"<script>setTimeout(function () {{ {script} }}, 300);</script>" + html[i:],
                        encoding="utf-8")
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--window-size=1400,1000", "--virtual-time-budget=10000", "--allow-file-access-from-files"]
    if screenshot:
        subprocess.run(cmd + [f"--screenshot={screenshot}", str(page)], capture_output=True, timeout=120)
        assert screenshot.stat().st_size > 10_000
    res = subprocess.run(cmd + ["--dump-dom", str(page)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout


_MEASURE = """
var out = {width: document.documentElement.clientWidth, broken: [], wide: [], images: 0, tables: 0};
document.querySelectorAll('img').forEach(function (im) {
  out.images += 1;
  if (!im.complete || im.naturalWidth === 0) out.broken.push((im.getAttribute('src') || '').slice(0, 60));
});
document.querySelectorAll('table').forEach(function (t) {
  out.tables += 1;
  var r = t.getBoundingClientRect();
  if (r.right > out.width + 1) out.wide.push(Math.round(r.width));
});
document.body.setAttribute('data-measure', JSON.stringify(out));
"""


def measure(page: Path, tmp_path: Path, screenshot: Path | None = None, before: str = "") -> dict:
    """In headless Chromium at a 1400 px window: the images that did not
    load, the tables wider than the page, and the counts of both (``before``:
    a script run first, e.g. to open a result in Snakemake's report)."""
    import html as H

    dom = _render(page, tmp_path, before + "; setTimeout(function () {" + _MEASURE + "}, 1500);",
                  screenshot=screenshot)
    m = re.search(r'data-measure="([^"]*)"', dom)
    assert m, dom[-2000:]
    return json.loads(H.unescape(m.group(1)))


def test_the_report_renders_in_headless_chromium(hostile, tmp_path):
    report = hostile / "results/report.html"
    front = _render(report, tmp_path, screenshot=tmp_path / "front.png")
    for text in ("Which metric, per dataset", "Reproduction of the papers' tables", "tiny_tsv", "Toy table",
                 "suspicious perfect score"):
        assert text in front, text
    _assert_names_are_text(front, [])  # nothing from the data became an element with a handler
    # a dataset's category lists its results by label
    cat = _render(report, tmp_path, "app.setView({navbarMode: 'subcategory', category: 'tiny', "
                                    "subcategory: '1 Scores'})")
    assert "confusion matrices" in cat and "score table" in cat
    # a figure opens as an image, a table as a page in a frame
    fig = _render(report, tmp_path, "var p = 'results/tiny/figures/stability.png'; app.setView({content: 'img', "
                                    "contentPath: results[p].data_uri, resultPath: p, navbarMode: 'resultinfo'})")
    assert re.search(r'<img src="data:image/png', fig)
    assert "Rank stability on dataset" in fig  # its caption
    tab = _render(report, tmp_path, "var p = 'results/tiny/tables/scores.html'; app.setView({content: 'html', "
                                    "contentPath: results[p].data_uri, resultPath: p, navbarMode: 'resultinfo'})")
    assert re.search(r'<iframe src="data:text/html', tab)
    # the table page itself, rendered: hostile names are text, the header sorts
    page = _render(hostile / "results/tiny/tables/scores.html", tmp_path)
    _assert_names_are_text(page, HOSTILE)
    n_head = len(re.findall(r"<th[ >]", page))
    assert n_head > 3 and page.count('data-sort="none"') == n_head


_ANSWERS = """
var out = {height: window.innerHeight, answers: []};
document.querySelectorAll('ul.answers li').forEach(function (li) {
  var r = li.getBoundingClientRect();
  out.answers.push([li.textContent.slice(0, 40), Math.round(r.top), Math.round(r.bottom)]);
});
document.body.setAttribute('data-answers', JSON.stringify(out));
"""


def test_the_report_s_first_screen_shows_every_dataset_s_answer(hostile, tmp_path):
    """Issue 47: at 1,280 x 900 px in headless Chromium, the report opens
    on the answers: every dataset's answer (or why it has none) lies within
    the first 900 px."""
    import html as H

    report = hostile / "results/report.html"
    html = report.read_text(encoding="utf-8")
    i = html.rfind("</body>")
    page = tmp_path / "first_screen.html"
    page.write_text(html[:i] + f"<script>setTimeout(function () {{ {_ANSWERS} }}, 1500);</script>" + html[i:],
                    encoding="utf-8")
    res = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          "--window-size=1280,900", "--virtual-time-budget=10000", "--allow-file-access-from-files",
                          "--dump-dom", str(page)], capture_output=True, text=True, timeout=120)
    got = json.loads(H.unescape(re.search(r'data-answers="([^"]*)"', res.stdout).group(1)))
    assert [a[0].split(":")[0] for a in got["answers"]] == ["tiny", "tiny_tsv"], got
    assert all(0 <= top and bottom <= 900 for _, top, bottom in got["answers"]), got


def test_front_page_counts_spans_and_shows_the_answer():
    """Span identification has spans, not items; a dataset without a
    meta-evaluation has systems, not ranked ones; the answer is shown as the
    recommendation gives it."""
    answer = "Report span-F1: in the top tier of 2 of 2 criteria; held in 18% of system resamples."
    entries = [{"name": "si", "task": "span identification", "n_systems": 20, "n_items": 0, "n_gold_spans": 940,
                "n_articles": 75, "recommendation": answer},
               {"name": "few", "task": "span identification", "n_systems": 3, "n_items": 0, "n_gold_spans": 12,
                "n_articles": 2, "why_not": "3 ranked systems, fewer than min_systems = 6"}]
    html = overview_html(entries, None)
    assert "(span identification, 940 gold spans in 75 articles, 20 systems ranked)" in html
    assert "(span identification, 12 gold spans in 2 articles, 3 systems)" in html
    assert "0 items" not in html
    assert answer in html and "rank sum" not in html
    # technique classification: an item per gold span, in its articles (the trial: "1,063 articles" of 75);
    # a dataset without a meta-evaluation counts its systems as the pages do
    tc = [{"name": "tc", "task": "technique classification, 14 classes", "n_systems": 4, "n_items": 1063,
           "n_gold_spans": 1063, "n_articles": 75, "systems": "2 real systems + 2 baselines",
           "why_not": "4 ranked systems, fewer than min_systems = 6"}]
    html = overview_html(tc, None)
    assert "(technique classification, 14 classes, 1,063 spans in 75 articles, 2 real systems + 2 baselines)" in html


def test_table7_ranks_count_only_the_metrics_with_every_criterion():
    """Span metrics ranked on stability beside classification metrics (TC)
    cannot move the classification metrics' ranks: ranked among all, kappa
    would be 3rd and GMR 4th on stability, and the rank sums 5 and 6."""
    df = pd.DataFrame({"metric": ["span_f1", "span_f1_exact", "kappa", "gmr"],
                       "stability_rank": [1, 2, 3, 4], "power_rank": [1, 4, 2, 3],
                       "discrimination_rank": pd.array([pd.NA, pd.NA, 2, 1], dtype="Int64")})
    rec = recommend(df).set_index("metric")
    assert rec.loc["kappa", ["stability_rank", "power_rank", "discrimination_rank", "rank_sum"]].tolist() == [1, 1, 2, 4]
    assert rec.loc["gmr", ["stability_rank", "power_rank", "discrimination_rank", "rank_sum"]].tolist() == [2, 2, 1, 5]
    assert rec["rank_sum"].loc[["span_f1", "span_f1_exact"]].isna().all()
    # ties stay ties (competition ranks)
    tied = recommend(df.assign(stability_rank=[1, 2, 3, 3])).set_index("metric")
    assert tied.loc[["kappa", "gmr"], "stability_rank"].tolist() == [1, 1]
