"""What the four commands show on a terminal: the progress line of each
step (its exact words), the title of each table, values with their
intervals, the order of the rows, the recommendation's text above its table
in each format, and the pairs of `compare --pairs`."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout

import pytest

import metaeval
from metaeval import cli

from .test_api_results import GOLD, SYSTEMS


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def files(tmp_path):
    (tmp_path / "gold.csv").write_text("item_id,label,g\n" + "".join(f"i{i},{g},q{i % 8}\n"
                                                                    for i, g in enumerate(GOLD)))
    preds = []
    for s, v in SYSTEMS.items():
        (tmp_path / f"{s}.csv").write_text("item_id,label\n" + "".join(f"i{i},{x}\n" for i, x in enumerate(v)))
        preds.append(tmp_path / f"{s}.csv")
    return tmp_path / "gold.csv", preds


def _tty(*argv, monkeypatch=None) -> tuple[int, str, str]:
    """The command with stdout and stderr on a terminal; every step's line shown at once."""
    out, err = _Terminal(), _Terminal()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _steps(err: str) -> list[str]:
    """The steps said done on stderr, in order."""
    return re.findall(r"\r([^\r]+?) \.\.\. \d+\.\d s, done", err)


@pytest.fixture(autouse=True)
def _at_once(monkeypatch):
    monkeypatch.setattr(cli._Progress, "DELAY", 0.0)


def test_score_on_a_terminal(files):
    gold, preds = files
    code, out, err = _tty("score", gold, *preds, "--replicates", 50)
    assert code == 0, err
    assert _steps(err) == ["reading", "scoring with 50 bootstrap replicates"]
    lines = out.splitlines()
    assert lines[0] == "data: 4 systems, 120 items; 95% percentile bootstrap intervals of the items, 50 replicates"
    assert re.match(r"system +kind +accuracy +macro_f1 ", lines[2])
    assert [x.split()[0] for x in lines[3:7]] == ["a", "d", "b", "c"]  # by accuracy, best first (ties as given)
    assert re.match(r"a +system +0\.833 \[0\.\d{3}, 0\.\d{3}\] +0\.822 \[", lines[3])
    code, out, err = _tty("score", gold, *preds, "--no-intervals", "--format", "table")
    assert code == 0 and _steps(err) == ["reading", "scoring"]
    assert out.splitlines()[0] == "data: 4 systems, 120 items"
    assert re.match(r"a +system +0\.833 +0\.822 ", out.splitlines()[3])


def test_score_of_groups_with_a_baseline(files):
    gold, preds = files
    code, out, err = _tty("score", gold, *preds, "--replicates", 50, "--group-column", "g", "--baselines", "majority")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == ("data: 5 systems, 120 items in 8 groups; 95% percentile bootstrap intervals of the groups, "
                        "50 replicates")
    rows = [x.split()[:2] for x in lines[3:8]]
    assert rows[-1] == ["majority", "baseline"] and all(k == "system" for _, k in rows[:4])


def test_compare_on_a_terminal(files):
    gold, preds = files
    code, out, err = _tty("compare", gold, *preds, "--trials", 50)
    assert code == 0, err
    assert _steps(err) == ["reading", "testing every pair (randomised Tukey HSD, 50 trials)"]
    lines = out.splitlines()
    assert lines[0] == "data: randomised Tukey HSD, 50 trials, alpha 0.05"
    assert re.match(r"metric +best +n_indistinguishable +indistinguishable_from_best +n_pairs +n_significant "
                    r"+discriminative_power", lines[2])
    assert re.match(r"accuracy +a +1 +d +6 +\d +0\.\d{3}", lines[3])
    code, out, err = _tty("compare", gold, *preds, "--trials", 50, "--pairs")
    assert code == 0 and re.match(r"metric +system_a +system_b +difference +p_value", out.splitlines()[2])
    assert len([x for x in out.splitlines() if x.startswith("accuracy ")]) == 6
    code, out, err = _tty("compare", gold, *preds, "--test", "bootstrap", "--set", "bootstrap_replicates=30")
    assert code == 0 and _steps(err)[1] == "testing every pair (paired bootstrap test, holm correction)"
    assert out.splitlines()[0] == "data: paired bootstrap test, holm correction, alpha 0.05"


RECOMMEND = ("--no-properties", "--set", "criteria_replicates=5", "--set", "bootstrap_replicates=20", "--set",
             "design_draws=3")


def test_recommend_on_a_terminal(files):
    from metaeval.api import dataset, recommend
    from metaeval.verdict.sentences import answer_sentence

    gold, preds = files
    code, out, err = _tty("recommend", gold, *preds, *RECOMMEND)
    assert code == 0, err
    assert _steps(err) == ["reading", "judging the metrics", "the test-set size design"]
    text, table = out.split("\n\n", 1)
    assert all(len(line) <= 100 for line in text.splitlines()) and len(text.splitlines()) >= 2
    assert " ".join(text.split()).startswith("The evidence does not separate the 9 candidates: every one is kept "
                                             "on every criterion")
    assert re.match(r"metric +rank stability +discriminative power +robustness to label noise", table)
    # the size sentence follows the answer when the answer has members to size
    assert answer_sentence(recommend(dataset(GOLD, SYSTEMS), properties=False, criteria_replicates=5,
                                     settings=metaeval.api.settings(bootstrap_replicates=20))) in " ".join(text.split())


def test_recommend_as_markdown_and_latex(files):
    gold, preds = files
    code, out, err = _tty("recommend", gold, *preds, *RECOMMEND, "--format", "markdown")
    assert code == 0, err
    text, table = out.split("\n\n", 1)
    assert text.startswith("The evidence does not separate the 9 candidates") and "\n" not in text
    assert table.startswith("| metric | rank stability | discriminative power |")
    code, out, err = _tty("recommend", gold, *preds, *RECOMMEND, "--format", "latex")
    assert code == 0, err
    assert out.startswith("% metaeval ") and "\\begin{table}" in out and "\\caption{The evidence does not separate" in out


def test_design_on_a_terminal(files):
    gold, preds = files
    code, out, err = _tty("design", gold, *preds, "--set", "bootstrap_replicates=20", "--set", "design_draws=3")
    assert code == 0, err
    assert _steps(err) == ["reading", "the bootstrap and the disjoint subsets of the test-set size design"]
    lines = out.splitlines()
    assert lines[0] == "data: test-set size design, 120 items; power 0.8 of a two-sided z-test at alpha 0.05"
    assert re.match(r"metric +MDD with 120 items +predicted power +items to detect 0\.01", lines[2])


def test_the_options_reach_the_computations(files):
    """--alpha reaches the test (its title says the alpha the library
    used), --set the size design and the verdict, --no-properties the
    verdict (no property checked, none offered); the refusal of --require
    with --no-properties is said in full."""
    import json

    gold, preds = files
    code, out, err = _tty("compare", gold, *preds, "--trials", 50, "--alpha", 0.2)
    assert code == 0, err
    assert out.splitlines()[0] == "data: randomised Tukey HSD, 50 trials, alpha 0.2"
    code, out, err = _tty("design", gold, *preds, "--set", "bootstrap_replicates=20", "--set", "design_draws=3",
                          "--set", "design_power=0.9")
    assert code == 0, err
    assert out.splitlines()[0] == "data: test-set size design, 120 items; power 0.9 of a two-sided z-test at alpha 0.05"
    code, out, err = _tty("recommend", gold, *preds, *RECOMMEND, "--set", "verdict_alpha=0.2", "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["settings"]["verdict_alpha"] == 0.2 and d["settings"]["replicates"] == 5
    assert d["requirements_offered"] == {} and d["failed_properties"] == {}
    code, out, err = _tty("recommend", gold, *preds, "--no-properties", "--require", "x")
    assert code == 2 and err == ("metaeval recommend: --require needs the formal properties of this data's shape: "
                                 "drop --no-properties\n")
