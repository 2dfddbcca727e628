"""A metric's name typeset where people read it (metaeval.present.notation): LaTeX,
matplotlib's mathtext, HTML and the Markdown files, Unicode on terminals;
ids and a system's name never touched."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from metaeval.measures import labels as M  # noqa: E402
from metaeval.present import notation as N  # noqa: E402


@pytest.mark.parametrize("mid", list(M.REGISTRY))
def test_every_metric_has_each_form_and_its_mathtext_draws(mid):
    import matplotlib.mathtext as mt

    for form in (N.latex(mid), N.html(mid), N.unicode(mid)):
        assert form and "$" not in N.html(mid) and "\\" not in N.html(mid) and "\\" not in N.unicode(mid)
    parser = mt.MathTextParser("agg")
    for piece in N.mathtext(mid).split("$")[1::2]:  # the maths parses (an error raises)
        parser.parse(f"${piece}$", dpi=72)


def test_the_forms_of_a_few_names():
    assert N.latex("mae_micro") == r"$\mathrm{MAE}^\mu$" and N.latex("accuracy") == "Acc"
    assert N.html("macro_recall", long=True) == "<i>R</i><sup><i>M</i></sup> (balanced accuracy)"
    assert N.html("alpha_nominal") == "α<sup>NOM</sup>" and N.html("kappa_linear") == "κ<sub>lin</sub>"
    assert N.unicode("macro_recall") == "Rᴹ" and N.unicode("alpha_ordinal") == "αᴼᴿᴰ"
    assert N.unicode("mae_micro") == "MAE^μ"  # no superscript mu in Unicode: said with ^


def test_pages_typeset_names_but_never_code_tags_or_a_system_s_name():
    page = N.typeset_html('<p>R^M and F1(P^M,R^M); kappa_lin <code>R^M</code></p><a title="R^M">x</a>')
    assert page == ('<p><i>R</i><sup><i>M</i></sup> and 𝔽<sub>1</sub>; κ<sub>lin</sub> <code>R^M</code></p>'
                    '<a title="R^M">x</a>')
    assert N.typeset_html("<p>my_R^Mx kappa_model</p>") == "<p>my_R^Mx kappa_model</p>"  # within words: no
    md = N.typeset_markdown("| R^M | kappa\\_lin | `alpha^NOM` |\n```\nMAE^M\n```")
    assert md == "| <i>R</i><sup><i>M</i></sup> | κ<sub>lin</sub> | `alpha^NOM` |\n```\nMAE^M\n```"
    # the report's pages: a Markdown table's typeset names become tags, a hostile name stays text
    from metaeval.present.report import html_page

    html = html_page(md + "\n\n| system |\n|---|\n| <img src=x onerror=alert(1)> |\n", "t")
    assert "<i>R</i><sup><i>M</i></sup>" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<img" not in html


def test_figures_draw_metric_names_as_maths_and_system_names_as_written(tmp_path):
    from metaeval.present.plots import interval_plot
    from metaeval.present.figure_files import save_figure

    iv = pd.DataFrame({"system": ["a", "$b$"] * 2, "metric": ["macro_recall"] * 2 + ["mae_micro"] * 2,
                       "value": [0.5, 0.7, 0.3, 0.2]})
    iv["low"], iv["high"] = iv["value"] - 0.05, iv["value"] + 0.05
    fig = interval_plot(iv, ["macro_recall", "mae_micro"], title="t $x$")
    texts = fig.findobj(matplotlib.text.Text)
    save_figure(fig, [tmp_path / "f.png"])
    math = {t.get_text() for t in texts if t.get_parse_math()}
    assert "$R^M$ (higher is better)" in math and r"$\mathrm{MAE}^\mu$ (lower is better)" in math
    assert not any(t.get_parse_math() for t in texts if t.get_text() in ("$b$", "t $x$"))


def test_the_criteria_figure_highlights_the_answer_even_where_a_name_is_maths(tmp_path):
    """Bold alone did not reach a typeset name's maths (R^M, alpha^NOM were
    drawn like the eliminated metrics): the answer's names have a box."""
    from metaeval.present.plots import criteria_plot
    from metaeval.present.figure_files import save_figure

    metrics = ["accuracy", "macro_recall", "alpha_nominal"]
    long = pd.DataFrame([{"metric": m, "criterion": "stability", "value": v, "low": v - 0.1, "high": v + 0.1,
                          "in_set": True, "candidate": True, "exempt": False}
                         for m, v in zip(metrics, [0.8, 0.7, 0.6])])
    fig = criteria_plot(long, {m: N.mathtext(m) for m in metrics}, "t", recommended=["macro_recall"])
    labels = {t.get_text(): t for t in fig.axes[0].get_yticklabels()}
    assert labels["$R^M$"].get_bbox_patch() is not None
    assert labels["Acc"].get_bbox_patch() is None and labels[r"$\alpha^{\mathrm{NOM}}$"].get_bbox_patch() is None
    save_figure(fig, [tmp_path / "c.png"])


def test_latex_tables_typeset_names_and_the_check_mark():
    """The command line's LaTeX (`recommend --format latex`) printed
    R\\textasciicircum{}M and a raw check mark pdflatex refuses."""
    from metaeval.present.tables import latex_table

    tex = latex_table(pd.DataFrame({"metric": ["R^M (balanced accuracy)", "alpha^NOM", "kappa", "my_R^M"],
                                    "stability": ["\u2714 0.9 [0.8, 1.0]", "0.5", "0.4", "0.3"]}))
    assert "$R^M$ (balanced accuracy) & $\\checkmark$ 0.9 " in tex
    assert "$\\alpha^{\\mathrm{NOM}}$ &" in tex and "$\\kappa$ &" in tex
    assert "my\\_R\\textasciicircum{}M" in tex and "\u2714" not in tex


def test_a_user_s_metric_name_is_shown_exactly_as_given():
    """Issue 47: a custom metric named my-kappa was shown as my-κ (the
    built-in name kappa inside it); a user's names are matched before the
    built-in ones and never typeset, in every format."""
    import numpy as np

    from metaeval.measures.custom import register_metric, unregister_metric

    def acc(c):
        c = np.asarray(c, dtype=float)
        return np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1))

    register_metric("my_kappa", acc, name="my-kappa")
    register_metric("kappa_mine", acc, name="kappa (mine)")
    try:
        text = "my-kappa and kappa (mine) beat kappa and R^M"
        assert N.typeset_unicode(text) == "my-kappa and kappa (mine) beat κ and Rᴹ"
        assert N.plain_markdown(f"| {text} |") == "| my-kappa and kappa (mine) beat κ and Rᴹ |"
        assert N.typeset_html(text) == "my-kappa and kappa (mine) beat κ and <i>R</i><sup><i>M</i></sup>"
        assert N.typeset_markdown(text) == N.typeset_html(text)
        assert N.typeset_latex(text, lambda x: x) == "my-kappa and kappa (mine) beat $\\kappa$ and $R^M$"
    finally:
        unregister_metric("my_kappa")
        unregister_metric("kappa_mine")
    # a built-in name joined to another word by "-" or "^" is not that name
    assert N.typeset_unicode("non-kappa, kappa-like and kappa") == "non-kappa, kappa-like and κ"


def test_the_md_files_are_plain_text():
    """Issue 47: the .md files name the metrics in Unicode, with no HTML
    tag (the HTML pages typeset them from the same Markdown)."""
    md = "| R^M (balanced accuracy) | kappa_lin | alpha^NOM | `kappa` |"
    assert N.plain_markdown(md) == "| Rᴹ (balanced accuracy) | κₗᵢₙ | αᴺᴼᴹ | `kappa` |"
    assert "<" not in N.plain_markdown("MAE^M, MAE^mu, F1(P^M,R^M), macro-F1, kappa")
