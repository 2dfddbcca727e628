"""Names from the data in tables and figures, and the result files
themselves: any system name prints as written (Markdown rendered by an
independent parser, LaTeX, matplotlib), figures are byte-reproducible, and
result files get the permissions of an ordinary file."""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from metaeval.data.files import read_result_csv, write_csv
from metaeval.present.tables import md_escape, scores_latex, scores_markdown, tex_escape, weights_markdown

# names that mean something to Markdown, LaTeX, mathtext, HTML, CSV or pandas
HOSTILE = ["a|b", "*y*", "_x_", "sys_a", "$x$", "[l](u)", "back\\slash", "<b>h</b>", "a&amp;b", "`c`", "~~s~~",
           "#h", "x,y", 'q"uote', "sp ace", "NA", "nan", "null", "ünï", "100%", "a^b", "{x}"]


def _render(md: str):
    """Rows of the rendered tables, as lists of cell texts (CommonMark +
    GitHub tables: markdown-it-py, an independent reference)."""
    html = MarkdownIt("commonmark").enable("table").render(md)
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    return [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, flags=re.S) for r in rows], html


def _unhtml(s: str) -> str:
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")


def _frame(names):
    return pd.DataFrame({"system": names + ["majority"], "kind": ["system"] * len(names) + ["baseline"],
                         "accuracy": np.linspace(0.9, 0.1, len(names) + 1), "kappa": np.linspace(0.5, -0.1, len(names) + 1)})


def test_every_name_is_one_literal_cell_in_markdown():
    md = scores_markdown(_frame(HOSTILE), ["accuracy", "kappa"], "accuracy", title="t")
    rows, html = _render(md)
    assert all(len(r) == 3 for r in rows), "a name split a row into extra cells"
    cells = [_unhtml(r[0]) for r in rows[1:]]
    assert cells[:-1] == HOSTILE  # systems in rank order = input order here
    assert "<em>" in cells[-1] or cells[-1].startswith("<em>")  # the baseline is italic on purpose
    body = html.split("<tbody>")[1]
    assert body.count("<em>") == 1 and "<code>" not in body and "<a " not in body and "<del>" not in body


def test_md_escape_keeps_plain_names_readable():
    assert md_escape("sys_a") == "sys_a" and md_escape("talos_cnn_v2") == "talos_cnn_v2"
    assert md_escape("a|b") == "a\\|b" and md_escape("*y*") == "\\*y\\*" and md_escape("_x_") == "\\_x\\_"


def test_weights_table_escapes_names():
    long = pd.DataFrame({"system": ["a|b", "*y*"], "kind": ["system", "baseline"], "metric": "wf1",
                         "weight_set": "w", "score": [0.5, 0.4], "rank": pd.array([1, None], dtype="Int64")})
    rows, _ = _render(weights_markdown(long, pd.DataFrame(), {"w": (0.5, 0.5)}, ["p|q", "r"], "t"))
    assert [len(r) for r in rows] == [2, 2, 2] and _unhtml(rows[1][0]) == "a|b"


def test_latex_escapes_every_special_character():
    tex = scores_latex(_frame(HOSTILE), ["accuracy"], "accuracy")
    body = tex.split(r"\midrule")[1]
    for name in HOSTILE:
        assert "\n" + tex_escape(name) + " & " in body, name
    assert tex_escape("a|b<c>") == r"a\textbar{}b\textless{}c\textgreater{}"
    # after a row's \\, a cell starting with [ or * would be read as its argument or star
    assert tex_escape("[br]") == "{[}br{]}" and tex_escape("*y*") == "{*}y{*}"
    for name in ("[l](u)", "*y*"):
        assert "\\\\\n" + tex_escape(name) in tex
    assert tex_escape("$x_1$ #2 50% {a} ~^\\&") == (r"\$x\_1\$ \#2 50\% \{a\} \textasciitilde{}"
                                                     r"\textasciicircum{}\textbackslash{}\&")


def test_result_csv_keeps_names_that_pandas_reads_as_missing(tmp_path):
    df = _frame(HOSTILE)
    df.loc[0, "kappa"] = np.nan
    write_csv(tmp_path / "s.csv", df)
    back = read_result_csv(tmp_path / "s.csv")
    assert back["system"].tolist() == df["system"].tolist()
    assert np.isnan(back.loc[0, "kappa"]) and back["kappa"].dtype == float


def test_result_files_follow_the_umask(tmp_path):
    write_csv(tmp_path / "s.csv", _frame(["a"]))
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "s.csv").stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.parametrize("fmt", ["pdf", "png"])
def test_figures_are_byte_reproducible_and_draw_names_as_written(tmp_path, fmt):
    """A name that is invalid mathtext ($\\nocommand$) used to crash the
    figure; names and labels are drawn as written."""
    from metaeval.present.plots import confusion_grid
    from metaeval.present.figure_files import save_figure

    c = np.array([[[3, 1], [0, 2]], [[1, 1], [2, 2]]])
    paths = []
    for i in range(2):
        fig = confusion_grid(c, ["$\\nocommand{$ and $y$", "a_b^c"], ["$\\p$", "q"], title="$t$")
        paths.append(tmp_path / f"f{i}.{fmt}")
        texts = fig.findobj(lambda o: hasattr(o, "get_parse_math"))
        save_figure(fig, [paths[-1]])
        assert any("$\\nocommand{$ and $y$" in t.get_text() for t in texts)
        drawn = fig.findobj(lambda o: hasattr(o, "get_parse_math") and o.get_text())
        assert drawn and not any(t.get_parse_math() for t in drawn)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    if fmt == "pdf":
        assert b"CreationDate" not in paths[0].read_bytes()


def test_interval_figure_names_every_system_in_each_metrics_order(tmp_path):
    """Each panel lists the systems best on top (the names are texts left of
    the axes, one per row, at the row of the system's point)."""
    from metaeval.present.plots import interval_plot
    from metaeval.present.figure_files import save_figure

    iv = pd.DataFrame({"system": ["a", "b", "c$x$"] * 2, "metric": ["accuracy"] * 3 + ["mae_macro"] * 3,
                       "value": [0.5, 0.9, 0.7, 0.2, 0.6, 0.4]})
    iv["low"], iv["high"] = iv["value"] - 0.05, iv["value"] + 0.05
    fig = interval_plot(iv, ["accuracy", "mae_macro"], title="t")
    best_first = {"accuracy": ["b", "c$x$", "a"], "mae_macro": ["a", "c$x$", "b"]}  # MAE: lower is better
    for ax, metric in zip(fig.axes, best_first):
        names = list(ax.texts)
        rows = {t.get_text(): t.get_position()[1] for t in names}
        assert sorted(rows, key=rows.get, reverse=True) == best_first[metric]
        value_at = dict(zip(ax.lines[0].get_ydata(), ax.lines[0].get_xdata()))  # the points: row -> value
        values = iv[iv["metric"] == metric].set_index("system")["value"]
        assert {s: value_at[row] for s, row in rows.items()} == values.to_dict()
        renderer = fig.canvas.get_renderer()
        left = ax.get_window_extent(renderer).x0
        assert all(t.get_window_extent(renderer).x1 < left for t in names)  # outside, left of the axes
    # two metrics, readable at page width: one column of panels, at most 1,000 px wide at 150 dpi, names of 7 pt
    assert fig.get_figwidth() * 150 <= 1000 and len({round(ax.get_position().x0, 6) for ax in fig.axes}) == 1
    assert min(t.get_fontsize() for ax in fig.axes for t in ax.texts) >= 7
    save_figure(fig, [tmp_path / "f.png"])
    # a long title is wrapped inside the figure; baselines are named as such
    fig = interval_plot(iv, ["accuracy"], title="semeval2020t11_tc: 95% percentile bootstrap intervals, 1000 "
                        "replicates of the articles, a title longer than the figure is wide", baselines=["a"])
    renderer = fig.canvas.get_renderer()
    box = fig._suptitle.get_window_extent(renderer)
    assert "\n" in fig._suptitle.get_text() and box.x0 >= 0 and box.x1 <= fig.bbox.x1
    assert box.y0 > fig.axes[0].title.get_window_extent(renderer).y1  # above the panel's title
    assert {t.get_text() for t in fig.axes[0].texts} == {"a (baseline)", "b", "c$x$"}


def test_interval_figure_title_clears_the_panel_titles_on_a_tall_figure():
    """60 systems x 8 metrics: a figure over 21 in tall, where a title at 98 %
    of the height reached into the top panels' titles."""
    from metaeval.present.plots import interval_plot, plt

    rng = np.random.default_rng(0)
    metrics = ["accuracy", "macro_f1", "kappa", "gmr", "macro_recall", "f1_weighted", "mae_macro", "mae_micro"]
    iv = pd.DataFrame([(f"sys{i}", m, v) for m in metrics for i, v in enumerate(rng.random(60))],
                      columns=["system", "metric", "value"])
    iv["low"], iv["high"] = iv["value"] - 0.05, iv["value"] + 0.05
    fig = interval_plot(iv, metrics, title="a long title of the figure")
    assert fig.get_size_inches()[1] > 21
    # a grid of three columns of panels (not a column of eight), each panel's names left of its axes
    assert len({round(ax.get_position().x0, 6) for ax in fig.axes}) == 3
    assert fig.get_size_inches()[1] * 150 < 6000 and fig.get_size_inches()[0] * 150 <= 2100
    renderer = fig.canvas.get_renderer()
    title = fig._suptitle.get_window_extent(renderer)
    assert all(ax.title.get_window_extent(renderer).y1 < title.y0 for ax in fig.axes if ax.get_title())
    assert title.y1 < fig.bbox.y1
    plt.close(fig)


def test_names_cut_alike_are_kept_apart():
    """Two systems cut to the same label read as one (RumourEval 2017's
    few-shot and few-shot-cot did): they keep their ends, or show where they
    differ (a number would need a key the figure does not have)."""
    from metaeval.present.plots import _wrap_names

    names = ["theosdoor_llama3.2-3b_few-shot", "theosdoor_llama3.2-3b_few-shot-cot", "short_name"]
    one = _wrap_names(names, 28, 1)
    assert len(set(one)) == 3 and one[2] == "short_name"
    assert one[0].startswith("theosdoor_") and one[1].endswith("-cot") and all(len(w) <= 28 for w in one)
    same_ends = [f"run_{'x' * 20}{i}{'x' * 20}_end" for i in (1, 2)]  # alike at both ends
    both = _wrap_names(same_ends, 12, 1)
    assert both == ["run_...x1...", "run_...x2..."]
    assert _wrap_names(["a_b", "c"], 28) == ["a_b", "c"]  # nothing cut: as written
    # 113 real span submissions: three runs of one team differ in the middle only
    runs = ["NLRG__intersection_roberta_large_best_3_ckpts", "NLRG__intersection_spanbert_large_best_3_ckpts",
            "NLRG__intersection_roberta_base_best_3_ckpts"]
    short = _wrap_names(runs, 28, 1)
    assert len(set(short)) == 3 and all(len(w) <= 28 and "#" not in w for w in short)
    assert "a_large" in short[0] and "spanbe" in short[1] and "a_base" in short[2]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "team_", "NLRG__intersection_"]), st.text("ab_1", max_size=12),
                          st.sampled_from(["", "_best_3_ckpts", "_run"])), min_size=2, max_size=8),
       st.sampled_from([8, 12, 28]), st.sampled_from([1, 3]))
def test_every_system_can_be_told_apart_in_a_figure(parts, width, lines):
    """Distinct names give distinct labels, each within the width (unless
    shown whole): a reader can identify every system."""
    from metaeval.present.plots import _wrap_names

    names = list(dict.fromkeys(a + b + c or "x" for a, b, c in parts))
    short = _wrap_names(names, width, lines)
    assert len(set(short)) == len(names)
    for n, w in zip(names, short):
        if lines == 1:
            assert w == n or len(w) <= width, (n, w)
        else:
            assert w.replace("\n", "") == n or len(w.split("\n")) <= lines, (n, w)


def test_import_metaeval_exposes_its_floors_and_version():
    """The floors are packages: ``metaeval.measures`` after ``import metaeval``;
    their modules are imported as modules are (``import metaeval.measures.labels``)."""
    import subprocess
    import sys

    code = ("import sys, metaeval, metaeval.measures.labels, metaeval.methods.experiments; "
            "assert 'matplotlib' not in sys.modules; "
            "print(metaeval.__version__, metaeval.measures.labels.get('gmr').name,"
            " metaeval.methods.experiments.Settings().n_splits, sorted(set(metaeval.__all__) - set(dir(metaeval))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    from importlib.metadata import version

    assert out == [version("metaeval"), "GMR", "1000", "[]"]


def test_a_killed_write_leaves_no_temporary_behind(tmp_path):
    from metaeval.data.files import write_text

    (tmp_path / ".s.csv.abc123.csv").write_text("half a file")  # what a SIGKILL leaves
    (tmp_path / ".other.csv.x.csv").write_text("another result's")
    write_text(tmp_path / "s.csv", "done\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.csv.x.csv", "s.csv"]


def test_the_significance_page_has_the_power_the_best_and_the_p_values():
    """The report's significance page (issue 18): discriminative power with
    its test and correction, who cannot be told from the best, and per
    metric a matrix of the deciding p-values in the metric's order, bold
    where significant; the leading systems' pairs beyond 30 systems."""
    from metaeval.present.tables import MAX_MATRIX_SYSTEMS, significance_markdown

    systems = ["a", "b", "c"]
    pairs = pd.DataFrame({"metric": ["accuracy"] * 3 + ["mae_macro"] * 3, "system_a": ["a", "a", "b"] * 2,
                          "system_b": ["b", "c", "c"] * 2, "difference": [0.1, 0.3, 0.2, -0.1, -0.3, -0.2],
                          "p_value": [0.2, 0.01, 0.049, 0.2, 0.01, 0.05], "p_holm": [0.4, 0.03, 0.098, 0.4, 0.03, 0.1]})
    best = pd.DataFrame({"metric": ["accuracy", "mae_macro"], "best": ["a", "a"], "n_indistinguishable": [1, 1],
                         "indistinguishable_from_best": ["b", "b"]})
    power = pd.DataFrame({"metric": ["accuracy", "mae_macro"], "n_pairs": 3, "n_significant": [2, 1],
                          "n_borderline": [0, 1], "discriminative_power": [2 / 3, 1 / 3],
                          "smallest_significant_difference": [0.2, 0.3], "difference_required": [0.15, 0.25]})
    values = pd.DataFrame({"accuracy": [0.9, 0.8, 0.6], "mae_macro": [0.1, 0.2, 0.4]}, index=systems)
    md = significance_markdown(pairs, best, power, values, ["accuracy", "mae_macro"], 0.05, "tukey", "none",
                               "p_value", "d: significance", trials=1000)
    assert "randomised Tukey HSD, 1,000 trials; family-wise by the range statistic" in md
    assert "| Acc (higher) | 3 | 2 | 0 | 0.667 | 0.200 | 0.150 |" in md
    # p-values by the one rule (tables.format_p): three significant digits, never rounded onto or across alpha
    assert "| 2 b | 0.2 |  |" in md and "| 3 c | **0.01** | **0.049** |" in md  # 0.049 < 0.05: bold
    p2 = pairs.assign(p_value=[0.0501, 0.01, 0.0499, 0.2, 0.01, 0.05])
    md2 = significance_markdown(p2, best, power, values, ["accuracy"], 0.05, "tukey", "none", "p_value", "t")
    assert "| 2 b | 0.0501 |  |" in md2 and "| 3 c | **0.01** | **0.0499** |" in md2  # not read as alpha
    p3 = pairs.assign(p_value=[0.04995, 0.0004, 0.050004, 0.2, 0.01, 0.05])
    md3 = significance_markdown(p3, best, power, values, ["accuracy"], 0.05, "tukey", "none", "p_value", "t")
    assert "| 2 b | **0.04995** |  |" in md3 and "| 3 c | **< 0.001** | 0.050004 |" in md3
    mae = md[md.index("### MAE"):]
    assert "| 1 a |" in mae and "| 3 c | **0.01** | 0.05 |" in mae  # MAE: lower first; p = alpha is not significant
    md_holm = significance_markdown(pairs, best, power, values, ["accuracy"], 0.05, "bootstrap", "holm", "p_holm",
                                    "t", trials=1000)
    assert "paired bootstrap test" in md_holm and "Holm-adjusted p-value" in md_holm
    assert "| 3 c | **0.03** | 0.098 |" in md_holm
    many = [f"s{i:02d}" for i in range(MAX_MATRIX_SYSTEMS + 5)]
    big = pd.DataFrame([("accuracy", a, b, 0.0, 0.5) for i, a in enumerate(many) for b in many[i + 1:]],
                       columns=["metric", "system_a", "system_b", "difference", "p_value"])
    md_big = significance_markdown(big, best.iloc[:1], power.iloc[:1], pd.DataFrame(
        {"accuracy": np.linspace(1, 0, len(many))}, index=many), ["accuracy"], 0.05, "tukey", "none", "p_value", "t")
    assert f"The {len(many)} systems make {len(big):,} pairs: the pairs of the 10 leading systems are shown" in md_big
    assert sum(line.startswith("| s0") for line in md_big.splitlines()) == 45  # 10 systems: 45 pairs
    assert "s20" not in md_big.split("p-values of the pairs")[1]


def test_a_table_of_many_groups_shows_each_system_s_worst_and_best_group():
    from metaeval.present.tables import MAX_GROUP_COLUMNS, groups_markdown

    groups = [f"q{i:02d}" for i in range(MAX_GROUP_COLUMNS + 1)]
    rows = [{"group": g, "system": s, "kind": "system", "map": v} for s, base in (("a", 0.5), ("b", 0.2))
            for i, g in enumerate(groups) for v in [base + 0.01 * i]]
    rows += [{"group": g, "system": s, "kind": "system", "map": v} for s, v in (("a", 0.65), ("b", 0.35))
             for g in ("mean", "weighted_mean")]
    md = groups_markdown(pd.DataFrame(rows), "map", "t")
    assert "q00" in md.split("| a |")[1].split("\n")[0] and "0.800 (q30)" in md  # a: worst q00, best q30
    assert "| q01 |" not in md and f"over {MAX_GROUP_COLUMNS + 1} groups" in md
    few = groups_markdown(pd.DataFrame([r for r in rows if r["group"] in ("q00", "q01", "mean", "weighted_mean")]),
                          "map", "t")
    assert "| system | q00 | q01 | mean | weighted mean |" in few  # few groups: a column each
