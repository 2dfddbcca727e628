"""The documentation: the site builds with `mkdocs build --strict` (broken
links, unknown pages, API references that do not resolve all fail), and
every code example of its pages runs: the Python blocks (```python, a
page's blocks in order in one process) and the command lines of the
console blocks (```console, lines starting with `$ metaeval`).  The
docstrings' examples run as doctests (`--doctest-modules`, pyproject)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def _blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)


def _with_data(code: str, data_dir: Path) -> str:
    """The examples read the data from ../shared/data beside the checkout,
    as a user's checkout has it; the tests from wherever it is."""
    return code.replace("../shared/data", str(data_dir))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built once for the tests of this file (one worker runs them: --dist=loadfile)."""
    out = tmp_path_factory.mktemp("docs") / "site"
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return out


@pytest.mark.slow
def test_the_site_builds_strictly(site):
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "meta_evaluate" in api and "Examples" in api  # the reference is generated from the docstrings


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    missing = [str(p.relative_to(DOCS)) for p in PAGES if str(p.relative_to(DOCS)) not in nav]
    assert not missing


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p, "python")], ids=lambda p: str(p.relative_to(DOCS)))
def test_the_python_examples_of_a_page_run(page, data_dir):
    code = "\n".join(_blocks(page, "python"))
    res = subprocess.run([sys.executable, "-c", _with_data(code, data_dir)], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, f"{page.name}:\n{res.stderr[-3000:]}"
    assert res.stdout.strip()  # the examples print what they show


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p, "console")], ids=lambda p: str(p.relative_to(DOCS)))
def test_the_command_lines_of_a_page_run(page, data_dir):
    lines = [line[2:] for block in _blocks(page, "console") for line in block.splitlines() if line.startswith("$ ")]
    assert lines
    for line in lines:
        assert line.startswith("metaeval "), line
        command = f"{shlex.quote(sys.executable)} -m metaeval.cli {_with_data(line[len('metaeval '):], data_dir)}"
        res = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, f"{line}\n{res.stderr[-3000:]}"
        assert res.stdout.strip()


def test_the_readme_is_short_and_its_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    assert links and all((ROOT / link).exists() for link in links if "://" not in link), links
    for question, page in (("every format", "docs/your-data.md"), ("experiments", "docs/experiments/index.md"),
                           ("recommendation", "docs/recommendation.md")):  # a new user's three questions
        assert f"]({page})" in readme, question


@pytest.mark.parametrize("module", ["measures.labels", "measures.spans", "methods.significance", "methods.bootstrap",
                                    "methods.corrections", "measures.matrices", "data.readers",
                                    "measures.properties", "api", "engine.ranking", "engine.confusion",
                                    "measures.chance", "engine.resample", "methods.design", "verdict.crossdata",
                                    "measures.scores.binary", "measures.scores.multiclass", "measures.scores.ranking",
                                    "measures.scores.registry", "data.readers.scores", "measures.scores.degenerates",
                                    "reproduction.official"])
def test_every_public_function_has_a_runnable_example(module):
    """The public API's docstrings (what the reference pages show) each
    carry an example, which --doctest-modules runs."""
    import importlib
    import inspect

    m = importlib.import_module(f"metaeval.{module}")
    lacking = [n for n in m.__all__ if (inspect.isfunction(getattr(m, n, None)) or inspect.isclass(getattr(m, n, None)))
               and ">>>" not in (getattr(m, n).__doc__ or "")]
    assert not lacking


def test_the_metrics_page_lists_every_id_with_its_function_and_other_names():
    """Issue 31: every metric id links to the function that computes it
    (an anchor of the generated reference), and every other name is said."""
    import re

    from metaeval.measures import labels as M

    page = (DOCS / "metrics.md").read_text(encoding="utf-8")
    rows = {}
    for line in page.splitlines():
        m = re.match(r"\| \[(`[^]]+`)\]\(reference/metrics\.md#metaeval\.measures\.labels\.(\w+)\)", line)
        if m:
            for mid in re.findall(r"`(\w+)`", m.group(1)):
                rows[mid] = m.group(2)
    assert set(rows) == set(M.METRIC_IDS)
    for mid, fn in rows.items():
        target = M.get(mid).fn
        assert getattr(target, "func", target).__name__ == fn, mid  # (functools.partial: its function)
    for alias in M.ALIASES:
        assert f"`{alias}`" in page


# --------------------------------------------------------------------------
# The maths (issue 32): LaTeX typeset as MathML at build time (docs/hooks/maths.py), nothing from the network
# --------------------------------------------------------------------------
def _cells(row_html: str) -> list[str]:
    return re.findall(r"<td[^>]*>(.*?)</td>", row_html, re.S)


def _metric_rows(page_html: str) -> list[list[str]]:
    """The rows of the Metrics page's table of ids (first cell: links to the reference of metaeval.measures.labels)."""
    rows = [_cells(tr) for tr in re.findall(r"<tr>(.*?)</tr>", page_html, re.S)]
    return [r for r in rows if r and "reference/metrics/#metaeval.measures.labels." in r[0]]


def _ids(page_html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page_html))


def _text(fragment: str) -> str:
    """The visible text of some HTML (a formula's MathML counts as its characters)."""
    import html as H

    return H.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_the_formulas_are_mathml_and_nothing_is_loaded_from_the_network(site):
    page = (site / "metrics" / "index.html").read_text(encoding="utf-8")
    rows = _metric_rows(page)
    assert len(rows) >= 20
    for cells in rows:
        formula = cells[2]
        assert "<math" in formula and "$" not in _text(formula), cells[0]
    body = page[page.index('<article'):page.index('</article>')]
    # every formula of the page converted: no LaTeX left as text, and no script typesets it in the browser
    assert not re.search(r"\\(frac|sum|mathrm|alpha|kappa|lvert)\b|\$", _text(body)), \
        re.findall(r".{0,40}(?:\\frac|\$).{0,40}", _text(body))[:3]
    assert 'class="arithmatex"' not in page
    assert re.search(r'<math [^>]*display="block"', page)  # the notation's displayed formula
    # the docstrings' formulas (.. math::, :math:) on the reference page too
    ref = (site / "reference" / "metrics" / "index.html").read_text(encoding="utf-8")
    assert ref.count("<math") >= 30 and ".. math::" not in ref and ":math:" not in ref
    # no page of the site loads a script, a stylesheet or a font from the network, MathJax or KaTeX
    for f in site.rglob("*.html"):
        html = f.read_text(encoding="utf-8")
        remote = re.findall(r"<(?:script|link)\b[^>]*(?:src|href)=\"(?:https?:)?//[^\"]*\"", html)
        assert not remote, (f.relative_to(site), remote)
        assert not re.search(r"mathjax|katex", html, re.I), f.relative_to(site)


def test_the_reference_pages_show_no_rst_double_backticks(site):
    """The docstrings' ``literals`` render as code (in a type, a heading or
    a code block as their text), never with their backticks."""
    for f in sorted((site / "reference").rglob("index.html")):
        html = f.read_text(encoding="utf-8")
        article = html[html.index("<article"):html.index("</article>")]
        assert "``" not in article, (f.parent.name, re.findall(r".{60}``.{30}", article)[:3])


def test_every_metric_row_links_to_its_function_and_to_its_reference_entry(site):
    import unicodedata

    from metaeval.measures import labels as M

    page = (site / "metrics" / "index.html").read_text(encoding="utf-8")
    reference_page = (site / "reference" / "metrics" / "index.html").read_text(encoding="utf-8")
    anchors, functions = _ids(page), _ids(reference_page)
    seen = set()

    def plain(text):  # (Amigó -> Amigo)
        return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()

    for cells in _metric_rows(page):
        ids = re.findall(r"<code>(\w+)</code>", cells[0])
        fn = re.search(r'href="\.\./reference/metrics/#(metaeval\.measures\.labels\.\w+)"', cells[0]).group(1)
        assert fn in functions, fn  # an anchor the reference page has
        refs = re.findall(r'href="#(ref-[\w-]+)"', cells[-1])
        assert refs and all(r in anchors for r in refs), (ids, refs)
        for mid in ids:
            seen.add(mid)
            # each author the registry names for the metric is among the row's linked references
            authors = [re.search(r"[A-Z]\w+", plain(part)).group(0) for part in M.get(mid).reference.split(";")]
            assert all(a in plain(_text(cells[-1])) for a in authors), (mid, authors, _text(cells[-1]))
    assert seen == set(M.METRIC_IDS)
    # and every entry of the References section is cited by some row
    entries = set(re.findall(r'<span id="(ref-[\w-]+)"', page))
    cited = {r for cells in _metric_rows(page) for r in re.findall(r'href="#(ref-[\w-]+)"', cells[-1])}
    assert entries and cited == entries


def test_the_metrics_page_typesets_each_metric_name_from_the_registry():
    """The 'other names' column shows each metric's ``latex`` field as it
    is in the registry (typeset where it has $...$)."""
    from metaeval.measures import labels as M

    names = {}
    for line in (DOCS / "metrics.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| [`"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            for mid in re.findall(r"`(\w+)`", cells[0].split("](")[0]):
                names[mid] = cells[1]
    assert set(names) == set(M.METRIC_IDS)
    for mid, cell in names.items():
        assert M.get(mid).latex in cell, (mid, M.get(mid).latex, cell)


def _metrics_page_example() -> tuple[str, str]:
    """The Metrics page's example from label lists and the output the page shows for it."""
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    m = re.search(r"^```python\n((?:(?!^```).)*?y_true.*?)^```\n+prints\n+```text\n(.*?)^```", text, re.S | re.M)
    assert m, "the Metrics page shows an example from label lists and what it prints"
    return m.group(1), m.group(2)


def test_the_label_list_example_prints_what_the_page_shows_and_what_scikit_learn_computes():
    import contextlib
    import io

    from sklearn import metrics as sk

    code, shown = _metrics_page_example()
    out, namespace = io.StringIO(), {}
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/metrics.md", "exec"), namespace)
    assert out.getvalue() == shown
    printed = dict(line.split() for line in shown.splitlines() if len(line.split()) == 2)
    y_true, y_pred = namespace["y_true"], namespace["y_pred"]
    labels = ["neg", "neu", "pos"]
    reference = {
        "accuracy": sk.accuracy_score(y_true, y_pred),
        "macro_f1": sk.f1_score(y_true, y_pred, average="macro"),
        "macro_recall": sk.balanced_accuracy_score(y_true, y_pred),
        "f1_weighted": sk.f1_score(y_true, y_pred, average="weighted"),
        "mcc": sk.matthews_corrcoef(y_true, y_pred),
        "kappa": sk.cohen_kappa_score(y_true, y_pred),
        "kappa_linear": sk.cohen_kappa_score(y_true, y_pred, labels=labels, weights="linear"),
        "f1_class": sk.f1_score(y_true, y_pred, labels=labels, average=None)[2],
        "precision_class": sk.precision_score(y_true, y_pred, labels=labels, average=None)[2],
        "recall_class": sk.recall_score(y_true, y_pred, labels=labels, average=None)[2],
    }
    for mid, value in reference.items():
        assert printed[mid] == f"{value:.4f}", (mid, printed[mid], value)
    assert shown.splitlines()[:2] == [f"{reference['macro_f1']:.4f}", f"{reference['macro_recall']:.4f}"]


def test_the_maths_hook_refuses_what_it_cannot_typeset():
    """A formula latex2mathml does not know, or cannot read, fails the build
    (the hook raises) rather than showing LaTeX as text."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("maths_hook", DOCS / "hooks" / "maths.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert hook.mathml(r"\frac{1}{K} \sum_k R_k").startswith("<math")
    assert "munder" in hook.mathml(r"\sum_k R_k", display=True)  # limits below in display
    assert 'mathvariant="normal"' in hook.mathml(r"MAE^M")  # an abbreviation, upright
    for bad in (r"\frac{1}{", r"\notacommand x"):
        with pytest.raises(ValueError):
            hook.mathml(bad)
    assert hook._literals("<p>a ``b``</p><pre><code>``c``</code></pre><h2 id=\"x``y``\">") == \
        '<p>a <code>b</code></p><pre><code>c</code></pre><h2 id="xy">'
    # numpydoc's directive and role, and a literal broken over two lines
    md = "\n".join(hook._Rst(None).run([".. math:: a^2", "", "x :math:`b_1` and ``p = (1 +", ">= 2)``"]))
    assert "$$\na^2\n$$" in md and "$b_1$" in md and "``p = (1 + >= 2)``" in md


def _quoted_figures() -> dict[str, str]:
    """benchmarks/README.md's table of the figures the documentation quotes: {figure: measured}."""
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- quoted figures -->", 1)[1].strip().split("\n\n", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    return {r[0]: r[2] for r in rows}


def test_every_page_quotes_the_same_run_and_test_times():
    """Issue 47: README said a whole run takes about four minutes and
    Getting started about a minute (the no-op 3 to 4.5 s and under 2 s).
    Every page that states a run or test time states the figure of one
    named measurement (benchmarks/README.md), and no other."""
    figures = _quoted_figures()
    assert set(figures) == {"whole run", "no-op rerun", "quick tests", "second tier"}
    pages = {"README.md": ROOT / "README.md", "getting-started": DOCS / "getting-started.md",
             "checks": DOCS / "checks.md"}
    want = {"README.md": figures.values(), "getting-started": figures.values(),
            "checks": [figures["quick tests"], figures["second tier"]]}
    stale = re.compile(r"about (four|a|two|three) minutes?|under 2 s|\b\d+ to \d+ minutes on 2 cores|"
                       r"\d+ min \d+ s|\b\d{2,3}(\.\d)? s\b measured|ten default datasets")
    for name, path in pages.items():
        text = " ".join(path.read_text(encoding="utf-8").split())
        for value in want[name]:
            assert value in text, (name, value)
        others = [m.group(0) for m in stale.finditer(text) if m.group(0) not in figures.values()]
        assert not others, (name, others)
