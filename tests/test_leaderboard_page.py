"""What people read of a leaderboard beyond its page: the rank-set figure
(one panel per resampling scheme, the systems in the same rows) and what
the front page says of it (``present.leaderboard.leaderboard_front``,
``present.report.overview_html``), drawn from a small leaderboard's tables."""

from __future__ import annotations

import numpy as np
import pytest

import metaeval
from metaeval.present.leaderboard import SCHEME_WORDS, leaderboard_front
from metaeval.present.report import overview_html, overview_page


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(3)
    theta = [0.8, 0.78, 0.6, 0.4, 0.39, 0.2]
    tasks = np.repeat(np.arange(24), 30)
    scores = {f"s{j}": (rng.random(tasks.size) < t).astype(float) for j, t in enumerate(theta)}
    return metaeval.leaderboard(scores=scores, tasks=tasks, name="toy", leaderboard_replicates=200,
                                leaderboard_verdict_replicates=60, leaderboard_splits=40, design=False)


def test_the_front_says_each_schemes_answer_and_resolution(result):
    tables = result.tables()
    front = leaderboard_front(tables, {**result.benchmark_info(), "caution": None}, "mean_items")
    assert (front["n_systems"], front["n_items"], front["n_tasks"]) == (6, 720, 24)
    res = result.resolution.set_index(["scheme", "aggregate"])
    for s in ("items", "tasks", "both"):
        assert front["resolution"][s]["resolved"] == res.loc[(s, "mean_items"), "adjacent_resolved"]
        assert front["resolution"][s]["adjacent_pairs"] == 5
        # the answer without its scheme's words, as the page writes it
        assert front["answers"][s] == result.answer(s).replace(", " + SCHEME_WORDS[s], "")
        assert SCHEME_WORDS[s] not in front["answers"][s]
    same = len(set(front["answers"].values())) == 1
    assert front["same_answer"] is same
    assert front["headline"].startswith(front["answers"]["items"])
    same_report = len({a.split(":")[0].removesuffix(" by convention") for a in front["answers"].values()}) == 1
    assert front["same_report"] is same_report
    assert front["headline"].endswith(" The same under every resampling scheme." if same else
                                      "cannot be told from differ (below)." if same_report else
                                      "the other schemes answer otherwise (below).")


def _board(name="lb", same=True):
    answers = {"items": "Report the mean over items: kept on every criterion.",
               "tasks": "Report the mean over items: kept on every criterion." if same else
               "Report the median over tasks: kept on 3 of 4 criteria (no aggregate is kept on all)."}
    return {"name": name, "n_systems": 12, "n_items": 12032, "n_tasks": 14, "kind": "answers",
            "primary": "mean_items", "primary_name": "mean over items",
            "schemes": {s: SCHEME_WORDS[s] for s in answers}, "headline": answers["items"] + " (...)",
            "same_answer": same, "answers": answers,
            "resolution": {"items": {"resolved": 9, "adjacent_pairs": 11, "tie_bands": "{a, b}; {c, d}"},
                           "tasks": {"resolved": 0, "adjacent_pairs": 11, "tie_bands": "none"}},
            "caution": "With 14 tasks, resampling tasks draws few distinct samples.", "warnings": ["a note"]}


def test_the_front_page_of_leaderboards_alone_has_no_dataset_section():
    links = {"lb": [["Leaderboard", "the leaderboard", "../lb/leaderboard.html"]]}
    html = overview_html([], None, links, [_board()])
    assert "Which metric, per dataset" not in html and "The datasets" not in html
    assert "<h2>Which aggregate, per leaderboard</h2>" in html
    assert '<a href="../lb/leaderboard.html">(the leaderboard)</a>' in html
    assert "(12 systems, 12,032 items in 14 tasks, answers)" in html
    assert "9 of 11 adjacent pairs resolved (cannot be told apart: {a, b}; {c, d})" in html
    assert "0 of 11 adjacent pairs resolved;" not in html and "0 of 11 adjacent pairs resolved." in html
    assert "<b>Caution:</b> With 14 tasks" in html and "<b>Note on the input:</b> a note" in html
    assert "Under " not in html  # every scheme answers alike: said once
    page = overview_page([], None, links, [_board()])
    assert "<h1>metaeval: which aggregate, per leaderboard</h1>" in page
    assert '<h3 id="dataset-lb">lb</h3>' in page


def test_the_front_page_says_a_schemes_other_answer():
    html = overview_html([{"name": "d", "task": "classification, 3 classes", "n_systems": 8, "n_items": 100,
                           "recommendation": "Report kappa."}], None, {}, [_board(same=False)])
    assert html.index("Which metric, per dataset") < html.index("Which aggregate, per leaderboard")
    assert (f"Under {SCHEME_WORDS['tasks']}: Report the median over tasks: kept on 3 of 4 criteria" in html)
    page = overview_page([{"name": "d", "task": "t", "n_systems": 8, "recommendation": "Report kappa."}], None, {},
                         [_board()])
    assert "<h1>metaeval: which metric, per dataset, which aggregate, per leaderboard</h1>" in page


def test_the_figure_has_a_panel_per_scheme_with_the_systems_in_the_same_rows(result):
    import matplotlib.pyplot as plt

    fig = result.figure()
    try:
        axes = fig.axes
        assert [a.get_title() for a in axes] == [SCHEME_WORDS[s] for s in ("items", "tasks", "both")]
        ticks = sorted(zip(axes[0].get_yticks(), (t.get_text() for t in axes[0].get_yticklabels())), reverse=True)
        order = [name for _, name in ticks]  # top row first
        first = result.table(scheme="items").sort_values(["rank", "system"], kind="stable")
        assert order == list(first["system"])
        for ax, s in zip(axes, ("items", "tasks", "both")):
            t = result.table(scheme=s).set_index("system").loc[order]
            dots = next(line for line in ax.get_lines() if line.get_marker() == "o")
            assert np.array_equal(dots.get_xdata(), t["rank"].to_numpy())
            assert np.array_equal(dots.get_ydata(), np.arange(len(order))[::-1])
        assert fig.legends and len(fig.legends[0].get_texts()) == 4
    finally:
        plt.close(fig)


@pytest.mark.parametrize("sentences, tail", [
    (["Report A: kept on every criterion.", "Report A: kept on every criterion."],
     " The same under every resampling scheme."),
    (["Report A: kept on every criterion; with B.", "Report A: kept on every criterion; with B and C."],
     f" That is with {SCHEME_WORDS['items']}; every scheme reports the same aggregate, the aggregates it cannot be "
     "told from differ (below)."),
    (["Report A by convention: every aggregate behaves alike.", "Report A: kept on every criterion."],
     f" That is with {SCHEME_WORDS['items']}; every scheme reports the same aggregate, the aggregates it cannot be "
     "told from differ (below)."),
    (["Report A: kept on every criterion.", "Report C: kept on 3 of 4 criteria."],
     f" That is with {SCHEME_WORDS['items']}; the other schemes answer otherwise (below)."),
])
def test_the_headline_says_whether_the_schemes_agree(sentences, tail):
    import pandas as pd

    schemes = ["items", "tasks"]
    tables = {"ranks.csv": pd.DataFrame({"scheme": schemes}),
              "resolution.csv": pd.DataFrame({"scheme": schemes, "aggregate": "mean_items", "adjacent_resolved": 1,
                                              "adjacent_pairs": 2, "tie_bands": ["{a, b}", ""]}),
              "verdict.csv": pd.DataFrame({"scheme": schemes,
                                           "sentence": [x.replace(":", ", " + SCHEME_WORDS[s] + ":", 1)
                                                        for x, s in zip(sentences, schemes)]})}
    front = leaderboard_front(tables, {"name": "lb", "systems": ["a", "b", "c"], "n_items": 9, "tasks": ["t"]},
                              "mean_items")
    assert front["answers"] == dict(zip(schemes, sentences))
    assert front["headline"] == sentences[0] + tail
    assert front["resolution"]["tasks"] == {"resolved": 1, "adjacent_pairs": 2, "tie_bands": "none"}
    one = leaderboard_front({k: v[v.scheme == "items"] for k, v in tables.items()},
                            {"name": "lb", "systems": ["a", "b", "c"], "n_items": 9, "tasks": ["t"]}, "mean_items")
    assert one["headline"] == sentences[0] + f" That is with {SCHEME_WORDS['items']}."


def _cli(*argv):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from metaeval.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_gives_every_schemes_answer_and_names_a_bad_file(tmp_path):
    rng = np.random.default_rng(5)
    tasks = np.repeat(["t1", "t2", "t3"], 40)
    gold = tmp_path / "gold.csv"
    gold.write_text("item_id,label,task\n" + "".join(f"q{i},A,{t}\n" for i, t in enumerate(tasks)))
    files = []
    for name, p in (("m1", 0.9), ("m2", 0.6), ("m3", 0.3)):
        files.append(tmp_path / f"{name}.csv")
        files[-1].write_text("item_id,label\n" + "".join(f"q{i},{'A' if rng.random() < p else 'B'}\n"
                                                        for i in range(tasks.size)))
    code, out, err = _cli("leaderboard", gold, *files, "--set", "leaderboard_verdict_replicates=40",
                          "--set", "leaderboard_splits=20", "--replicates", "200", "--no-design", "--format", "table")
    assert code == 0, err
    lines = out.splitlines()
    for i, s in enumerate(("items", "tasks", "both")):  # every scheme's answer first, in the schemes' order
        assert SCHEME_WORDS[s] in lines[i], lines[i]
    assert any(line.startswith("Caution: With 3 systems") and "With 3 tasks" in line for line in lines)
    assert lines[-1].startswith("metaeval ") and "| leaderboard |" in lines[-1]
    # the notes and a mistyped setting in the command line's words
    files[1].write_text(files[1].read_text().replace("q0,A", "q0,none").replace("q0,B", "q0,none"))
    code, out, err = _cli("leaderboard", gold, *files, "--set", "leaderboard_verdict_replicates=40",
                          "--set", "leaderboard_splits=20", "--replicates", "200", "--no-design", "--scheme", "items")
    assert code == 0 and "declare them with --no-answer (repeatable: 'none' among them; their scoring: " \
                         "--no-answer-scoring)" in err, err
    assert "no_answer" not in err
    code, out, err = _cli("leaderboard", gold, *files, "--set", "leaderboard_replicate=50")
    assert code == 2 and "--set: unknown setting(s) ['leaderboard_replicate']" in err and "leaderboard()" not in err
    with open(files[0], "a") as f:
        f.write("q999,A\n")
    code, out, err = _cli("leaderboard", gold, *files, "--format", "table")
    assert code == 1 and not out
    assert f"{files[0]}:{tasks.size + 2}: item 'q999' is not in the gold file" in err


def test_a_leaderboard_whose_every_pair_is_resolved_has_an_empty_design_with_its_columns(tmp_path):
    """Nothing to design (every adjacent pair resolved): design.csv keeps its
    header (the page job read a file of one empty line and stopped), and the
    page says there is nothing to resolve."""
    from metaeval.data.files import write_csv
    from metaeval.present.leaderboard import leaderboard_markdown

    rng = np.random.default_rng(1)
    tasks = np.repeat(np.arange(6), 100)
    scores = {f"s{j}": (rng.random(tasks.size) < t).astype(float) for j, t in enumerate((0.95, 0.5, 0.05))}
    res = metaeval.leaderboard(scores=scores, tasks=tasks, name="apart", leaderboard_replicates=200,
                               leaderboard_verdict_replicates=40, leaderboard_splits=20, leaderboard_design_halves=2)
    assert len(res.design) == 0 and {"aggregate", "ahead", "behind", "questions_per_task_needed",
                                     "tasks_needed"} <= set(res.design.columns)
    write_csv(tmp_path / "design.csv", res.design)
    import pandas as pd

    back = pd.read_csv(tmp_path / "design.csv")
    assert list(back.columns) == list(res.design.columns) and len(back) == 0
    md = leaderboard_markdown({**res.tables(), "design.csv": back}, res.benchmark_info(), "mean_items")
    assert "Nothing: every adjacent pair is resolved" in md
    assert "Bands may overlap" not in md  # (no band to overlap)
