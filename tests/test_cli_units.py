"""The command line's small parts, each pinned: the time-left wording, the
progress line, the table of metrics (`metaeval metrics`), the score options
as the library's keys and their refusals."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout

import pytest

from metaeval import cli


def _run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("seconds,text", [(0.2, "1 s"), (4.4, "4 s"), (89.4, "89 s"), (89.6, "90 s"), (90, "2 min"),
                                          (119, "2 min"), (5399, "90 min"), (5400, "1.5 h"), (7200, "2.0 h")])
def test_a_time_left_is_as_precise_as_it_can_be(seconds, text):
    assert cli._duration(seconds) == text


def test_the_progress_line_of_a_pass(monkeypatch):
    p = cli._Progress(True, stream=io.StringIO())
    p._start = 100.0
    assert p.line("scoring", 101.25) == "scoring ... 1.2 s"
    clock = iter([102.0, 104.0, 106.0])
    monkeypatch.setattr(cli.time, "perf_counter", lambda: next(clock))
    p.listen(0, 1000, "bootstrap replicates")  # at 102: the pass starts when the step started (100)
    p.listen(250, 1000, "bootstrap replicates")  # at 104: 250 done in 4 s
    assert p.line("scoring", 105.0) == ("scoring ... bootstrap replicates 25 % (250/1,000) 5.0 s, about 11 s left")
    p.listen(10, 40, "jackknife (BCa)")  # at 106: another pass, started when the last one reported (104)
    assert p.line("scoring", 106.0) == "scoring ... jackknife (BCa) 25 % (10/40) 6.0 s, about 6 s left"
    # a pass done: no time left; a pass of nothing: no fraction
    p._pass = ("x", 40, 104.0, 40, 106.0)
    assert p.line("scoring", 107.0) == "scoring ... x 100 % (40/40) 7.0 s"
    p._pass = ("x", 0, 104.0, 0, 106.0)
    assert p.line("scoring", 107.0) == "scoring ... 7.0 s"


def test_a_pass_counted_again_from_zero_starts_anew(monkeypatch):
    p = cli._Progress(True)
    p._start = 0.0
    clock = iter([1.0, 2.0, 3.0])
    monkeypatch.setattr(cli.time, "perf_counter", lambda: next(clock))
    p.listen(5, 10, "a")
    p.listen(8, 10, "a")
    assert p._pass[2] == 0.0  # the same pass: its start kept
    p.listen(2, 10, "a")  # the count went back: a new pass, from the last report (2.0)
    assert p._pass[2] == 2.0 and p._pass[3] == 2


def test_progress_lines_cover_the_longer_line_before():
    s = io.StringIO()
    p = cli._Progress(True, stream=s)
    p._write("a long line here")
    p._write("short")
    p._write("done", "\n")
    assert s.getvalue() == "\ra long line here" + "\rshort" + " " * 11 + "\rdone \n"
    assert p._width == 0


def test_a_step_on_a_terminal_says_how_long_it_took(monkeypatch):
    s = io.StringIO()
    p = cli._Progress(True, delay=0.0, interval=0.01, stream=s)
    with p.step("reading"):
        pass
    assert re.fullmatch(r"(\rreading \.\.\. \d+\.\d s *)*\rreading \.\.\. \d+\.\d s, done *\n", s.getvalue())
    quiet = io.StringIO()
    with cli._Progress(False, stream=quiet).step("reading"):
        pass
    assert quiet.getvalue() == ""


def test_the_table_of_metrics():
    from metaeval.measures import labels as M
    from metaeval.measures.scores.registry import SCORE_REGISTRY
    from metaeval.measures.spans import SPAN_REGISTRY

    t = cli.metric_table().set_index("id")
    assert list(t.columns) == ["name", "kind", "better", "default", "needs", "other names", "reference"]
    assert list(t.index) == list(M.REGISTRY) + list(M.ITEM_REGISTRY) + list(SCORE_REGISTRY) + list(SPAN_REGISTRY)
    row = t.loc["macro_recall"]
    assert (row["name"], row["kind"], row["better"], row["default"], row["needs"], row["other names"]) == (
        "Rᴹ", "classification", "higher", "yes", "", "balanced_accuracy, balanced accuracy")
    assert row["reference"] == M.get("macro_recall").reference
    assert t.loc["mae_macro", "needs"] == "ordered classes" and t.loc["mae_macro", "better"] == "lower"
    assert t.loc["wauc", "needs"] == "weights" and t.loc["fnc_score", "needs"] == "unrelated_label"
    assert t.loc["f1_class", "needs"] == "positive_class" and t.loc["f1_class", "default"] == "no"
    assert t.loc["roc_auc", "needs"] == "scores (--scores)" and t.loc["roc_auc", "kind"] == "scores"
    assert t.loc["log_loss", "needs"] == "probabilities"
    assert t.loc["map", "needs"] == "scores (--scores), groups (--group-column), a positive class"
    assert t.loc["span_f1", "kind"] == "span" and t.loc["span_f1", "default"] == "yes"
    assert t.loc["accuracy", "other names"] == "" and t.loc["mcc", "other names"] == "R_K"


def test_a_custom_metric_in_the_table_names_its_source(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text("from metaeval.measures.custom import register_metric\n"
                 "from metaeval.measures.labels import accuracy\n"
                 "register_metric('mine_acc', accuracy, range=(0, 1), source='mine.py:accuracy')\n")
    code, out, err = _run("metrics", "--metric-module", f, "--format", "csv")
    try:
        assert code == 0, err
        line = next(x for x in out.splitlines() if x.startswith("mine_acc,"))
        assert line.endswith(",classification,higher,no,,,mine.py:accuracy")
    finally:
        from metaeval.measures.custom import unregister_metric

        unregister_metric("mine_acc")


def test_metrics_and_settings_print_csv_when_not_on_a_terminal(tmp_path):
    code, out, _ = _run("metrics")
    assert code == 0 and out.startswith("id,name,kind,better,default,needs,other names,reference\n")
    code, out, _ = _run("metrics", "--format", "markdown")
    assert code == 0 and out.startswith("**metaeval metrics (ids for --metrics and the config's metrics:)**\n\n"
                                        "| id | name | kind | better | default | needs | other names | reference |")
    code, out, _ = _run("metrics", "-o", tmp_path / "m.csv")
    assert code == 0 and (tmp_path / "m.csv").read_text().startswith("id,name,kind,")
    code, out, _ = _run("settings")
    assert code == 0 and out.startswith("key,method,default,value,meaning\nmin_systems,ranking,6,")
    code, out, _ = _run("settings", "--format", "markdown")
    assert code == 0 and out.startswith("**metaeval settings (--set KEY=VALUE; the config's experiments: block)**")


def _score_args(*extra):
    return cli.build_parser().parse_args(["score", "g.csv", "p.csv", "--scores", "s.csv", *extra])


def test_the_score_options_as_the_library_s_keys():
    a = _score_args("--probability-columns", "a=pa,b=pb", "--score-format", "csv", "--id-column", "id",
                    "--score-threshold", "0.3", "--probability-tolerance", "0.01", "--normalize-probabilities",
                    "--positive-class", "a")
    assert cli._score_keys(a) == {"scores": ["s.csv"], "score_format": {"format": "csv", "columns": {"a": "pa",
                                                                                                   "b": "pb"},
                                                                        "id_column": "id"},
                                  "score_threshold": 0.3, "probability_tolerance": 0.01,
                                  "normalize_probabilities": True, "positive_class": "a"}
    # the official SemEval-2016 Task 3 format has its own id columns
    a = _score_args("--score-column", "sc", "--score-format", "semeval2016t3", "--id-column", "id")
    assert cli._score_keys(a) == {"scores": ["s.csv"], "score_format": {"format": "semeval2016t3", "column": "sc"},
                                  "score_threshold": None, "probability_tolerance": None,
                                  "normalize_probabilities": False}
    assert cli._score_keys(_score_args())["score_format"] is None
    # a label's column name may hold '='
    assert cli._score_keys(_score_args("--probability-columns", "a=p=a"))["score_format"]["columns"] == {"a": "p=a"}


@pytest.mark.parametrize("given,bad", [("a", "a"), ("a=pa,b", "b"), ("=pa", ""), ("a=", "a")])
def test_probability_columns_must_be_label_column_pairs(given, bad):
    with pytest.raises(ValueError) as e:
        cli._score_keys(_score_args("--probability-columns", given))
    assert str(e.value) == f"--probability-columns: LABEL=COLUMN pairs, comma-separated; got {bad!r}"


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("command", ["metrics", "settings"])
def test_on_a_terminal_the_tables_are_aligned(command, tmp_path):
    out = _Terminal()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert cli.main([command]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"metaeval {command} (") and lines[1] == ""
    if command == "metrics":  # columns padded with spaces
        assert re.match(r"id {2,}name {2,}kind", lines[2])
    else:  # each setting under its method, with its default and what it must be
        assert lines[2:4] == ["[ranking]", "  min_systems = 6   (an integer >= 2)"]
    # written to a file, even from a terminal: CSV
    with redirect_stdout(_Terminal()), redirect_stderr(io.StringIO()):
        assert cli.main([command, "-o", str(tmp_path / "t.csv")]) == 0
    assert (tmp_path / "t.csv").read_text().startswith(("id,", "key,"))


def test_a_very_long_time_left():
    assert cli._duration(3_600_000) == "1000.0 h"


def test_the_progress_line_at_the_edges_of_a_pass():
    p = cli._Progress(True)
    p._start = 0.0
    p._pass = ("x", 1, 0.0, 0, 0.5)  # one step, none done: a fraction, no time left yet
    assert p.line("s", 1.0) == "s ... x 0 % (0/1) 1.0 s"
    p._pass = ("x", 10, 0.0, 1, 2.0)  # one of ten done in 2 s, from time 0: about 18 s left, less the second since
    assert p.line("s", 3.0) == "s ... x 10 % (1/10) 3.0 s, about 17 s left"


def test_the_same_count_again_is_the_same_pass(monkeypatch):
    p = cli._Progress(True)
    p._start = 0.0
    clock = iter([1.0, 2.0])
    monkeypatch.setattr(cli.time, "perf_counter", lambda: next(clock))
    p.listen(5, 10, "a")
    p.listen(5, 10, "a")
    assert p._pass[2] == 0.0 and p._pass[4] == 2.0


# -- the small parts of the output and of reading, each pinned ------------------------------------------------------

def test_a_setting_splits_at_its_first_equals_sign():
    assert cli._setting("label_map={a: b}") == ("label_map", {"a": "b"})
    assert cli._setting(" note = a=b ") == ("note", "a=b")
    assert cli._setting("f_avg_classes=FAVOR,AGAINST") == ("f_avg_classes", ["FAVOR", "AGAINST"])
    import argparse

    with pytest.raises(argparse.ArgumentTypeError) as e:
        cli._setting("tukey_trials")
    assert str(e.value) == "'tukey_trials': expected KEY=VALUE, e.g. tukey_trials=1000"


def test_the_classes_from_labels_or_label_not_both():
    from types import SimpleNamespace

    assert cli._labels(SimpleNamespace(labels="a, b,,c", label_list=None)) == ["a", "b", "c"]
    assert cli._labels(SimpleNamespace(labels=None, label_list=("x,y", "z"))) == ["x,y", "z"]
    assert cli._labels(SimpleNamespace(labels=None)) is None  # a command without --label
    with pytest.raises(ValueError) as e:
        cli._labels(SimpleNamespace(labels="a,b", label_list=["a"]))
    assert str(e.value) == "give the classes with --labels or with --label, not both"


def test_a_problem_of_a_whole_file():
    p = cli._problem("/x/gold.csv", "no such folder")
    assert (p.path, p.line, p.message, p.kind) == ("/x/gold.csv", None, "no such folder", "file")


SIG = {"version": "9.9", "command": "score", "metrics": ["accuracy"], "unit": "items", "resampling": []}
LINE = "metaeval 9.9 | score | metrics accuracy | no resampling"


def test_the_signature_goes_where_each_format_keeps_it():
    assert cli._signed("a,b\n", "csv", SIG) == f"# {LINE}\na,b\n"
    assert cli._signed("x\n", "latex", SIG) == f"% {LINE}\nx\n"
    # Markdown and the terminal: a last line, after the text's own trailing newlines (not its spaces) are cut
    assert cli._signed("\n| a |  \n\n", "markdown", SIG) == f"\n| a |  \n\n`{LINE}`\n"
    assert cli._signed("\n t  \n\n", "table", SIG) == f"\n t  \n\n{LINE}\n"
    assert cli._signed("t\n", "table", None) == "t\n"


def test_json_output_with_and_without_the_signature():
    import json

    import pandas as pd

    df = pd.DataFrame({"system": ["a", "b"], "accuracy": [0.5, 0.25]})
    assert cli._render(df, "json") == ('[\n  {\n    "system":"a",\n    "accuracy":0.5\n  },\n  {\n    "system":"b",\n'
                                       '    "accuracy":0.25\n  }\n]\n')
    out = cli._render(df, "json", sig=SIG)
    assert out.startswith('{\n  "signature": "' + LINE + '",\n  "signature_fields": {\n    "version": "9.9",')
    assert out.endswith('"accuracy": 0.25\n    }\n  ]\n}\n')
    assert json.loads(out)["rows"] == [{"system": "a", "accuracy": 0.5}, {"system": "b", "accuracy": 0.25}]


def test_the_terminal_table_aligns_text_left_and_numbers_right():
    import pandas as pd

    df = pd.DataFrame({"n": [5, 12], "system": ["ab", "c"], "score": [0.5, float("nan")]})
    assert cli._render(df, "table", "T") == ("T\n\n"
                                             " n  system  score\n"
                                             " 5  ab      0.500\n"
                                             "12  c\n")
    assert cli._render(df, "table", "T", SIG).endswith("12  c\n\n" + LINE + "\n")
    assert cli._render(pd.DataFrame(), "table") == "\n"
    md = cli._render(df, "markdown", "T", SIG)
    assert md.startswith("**T**\n\n| n |") and md.endswith(f"\n\n`{LINE}`\n")


def test_csv_quotes_its_text_when_a_header_holds_a_hash():
    import pandas as pd

    df = pd.DataFrame({"run#": [1, 2], "x": [0.5, 1.0]})
    assert cli._csv(df, quote_hash=True) == '"run#","x"\n1,0.5\n2,1.0\n'
    assert cli._csv(df, quote_hash=False) == "run#,x\n1,0.5\n2,1.0\n"
    named = pd.DataFrame({"system": ["run#2", "b"], "x": [1, 2]})
    assert cli._csv(named, quote_hash=True) == '"system","x"\n"run#2",1\n"b",2\n'


@pytest.mark.parametrize("columns,width", [(30, 40), (60, 60), (150, 100)])
def test_the_settings_on_a_terminal_wrap_to_its_width(monkeypatch, columns, width):
    import os
    import shutil
    import textwrap
    from types import SimpleNamespace

    monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback=(80, 24): os.terminal_size((columns, 24)))
    out = cli._settings(SimpleNamespace(format="table"))
    lines = out.split("\n")
    assert out.endswith("\n") and lines[:2] == ["metaeval settings (--set KEY=VALUE; the config's experiments: block)",
                                                ""]
    table = cli.settings_table()
    first = table.iloc[0]
    assert lines[2] == f"[{first['method']}]"
    # each method's block after the first follows an empty line; a setting's line at most width + 4, its
    # meaning at most width, indented by two and six spaces
    methods = list(dict.fromkeys(table["method"]))
    for m in methods[1:]:
        i = lines.index(f"[{m}]")
        assert lines[i - 1] == ""
    assert lines[3:3 + len(textwrap.wrap(f"{first['key']} = {first['default']}   ({first['value']})", width + 4,
                                         initial_indent="  ", subsequent_indent="      "))] == textwrap.wrap(
        f"{first['key']} = {first['default']}   ({first['value']})", width + 4, initial_indent="  ",
        subsequent_indent="      ")
    meaning = textwrap.wrap(str(first["meaning"]), width, initial_indent="      ", subsequent_indent="      ")
    assert "\n".join(meaning) in out
    assert max(len(x) for x in lines[2:]) <= width + 4  # (the title is not wrapped)


def test_the_set_keys_of_a_dataset_and_their_refusals(tmp_path):
    from types import SimpleNamespace

    def a(*pairs, fmt=None):
        return SimpleNamespace(settings=list(pairs), input_format=fmt, old_span_format=None, group_column=None)

    data, st = cli._split_settings(a(("label_map", {"x": "y"}), ("n_splits", 10)))
    assert data == {"label_map": {"x": "y"}} and st == {"n_splits": 10}
    for own in ("name", "labels", "ordinal", "metrics", "baselines"):
        with pytest.raises(ValueError, match=f"^--set {own}: give it with --{own} \\(an option of its own\\)$"):
            cli._split_settings(a((own, "x")))
    # the keys --set cannot give: the dataset's own options, a label dataset's groups, a span dataset's texts
    # and baseline systems (their files are the options' and the config's)
    with pytest.raises(ValueError) as e:
        cli._split_settings(a(("groups", "x")))
    listed = str(e.value).split("the dataset keys are ")[1].split(", ")
    assert str(e.value).startswith("--set groups: unknown key")
    assert "label_map" in listed and not {"groups", "name", "labels", "ordinal", "metrics", "baselines"} & set(listed)
    for key in ("texts", "baseline_systems"):
        with pytest.raises(ValueError, match=f"^--set {key}: unknown key"):
            cli._split_settings(a((key, "x"), fmt="semeval2021_tsd"))
    with pytest.raises(ValueError) as e:
        cli._split_settings(a(("nope", 1), fmt="semeval2021_tsd"))
    listed = str(e.value).split("the dataset keys are ")[1].split(", ")
    assert "documents" in listed and not {"texts", "baseline_systems", "name", "metrics"} & set(listed)
    grouped = SimpleNamespace(settings=[], input_format=None, old_span_format=None, group_column="q")
    assert cli._split_settings(grouped) == ({}, {"resample_unit": "group"})
    grouped.settings = [("resample_unit", "item")]
    assert cli._split_settings(grouped)[1] == {"resample_unit": "item"}


@pytest.mark.parametrize("fmt,ending", [(None, ".csv"), ("semeval_tsv", ".tsv"), ("semeval2021_tsd", ".csv"),
                                        ("semeval2020_si", ".labels"), ("semeval2020_tc", ".labels")])
def test_standard_input_is_saved_once_as_a_file_of_its_format(tmp_path, monkeypatch, fmt, ending):
    import sys
    from types import SimpleNamespace

    monkeypatch.setattr(sys, "stdin", io.StringIO("item_id,label\né,a\n"))
    a = SimpleNamespace(gold="-", predictions=["p.csv"], input_format=fmt)
    cli._stdin_file(a, tmp_path)
    assert a.gold == str(tmp_path / f"stdin{ending}") and a.predictions == ["p.csv"]
    assert (tmp_path / f"stdin{ending}").read_text(encoding="utf-8") == "item_id,label\né,a\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO("x"))
    b = SimpleNamespace(gold="g.csv", predictions=["p.csv", "-"], input_format=fmt)
    cli._stdin_file(b, tmp_path)
    assert b.gold == "g.csv" and b.predictions == ["p.csv", str(tmp_path / f"stdin{ending}")]
    c = SimpleNamespace(gold="g.csv", predictions=["p.csv"], input_format=fmt)
    cli._stdin_file(c, tmp_path)
    assert (c.gold, c.predictions) == ("g.csv", ["p.csv"])
    with pytest.raises(ValueError) as e:
        cli._stdin_file(SimpleNamespace(gold="-", predictions=["-"], input_format=fmt), tmp_path)
    assert str(e.value) == "'-' (standard input) may stand for one file only"


def _args(**kw):
    from types import SimpleNamespace

    base = dict(gold="g.csv", predictions=["p.csv"], labels=None, label_list=None, ordinal=False, metrics=None,
                baselines=None, positive_class=None, settings=[], input_format=None, old_span_format=None,
                group_column=None, id_column=None, label_column=None, name=None, articles=None, scores=None,
                metric_module=[])
    base.update(kw)
    return SimpleNamespace(**base)


def test_reading_passes_every_option_to_read_files(monkeypatch):
    """The options as read_files' keywords, for labels, spans and scores."""
    from metaeval import api

    calls = []
    monkeypatch.setattr(api, "read_files", lambda gold, preds, **kw: calls.append((gold, list(preds), kw)) or "data")
    assert cli._read(_args(labels="a,b", ordinal=True, metrics="accuracy", id_column="id", label_column="y",
                           group_column="q", name="d", settings=[("label_map", {"x": "a"})]), ("majority",)) == "data"
    assert calls[-1] == ("g.csv", ["p.csv"], dict(format=None, id_column="id", label_column="y", group_column="q",
                                                  name="d", labels=["a", "b"], ordinal=True, metrics=["accuracy"],
                                                  baselines=["majority"], label_map={"x": "a"}))
    cli._read(_args(baselines="", positive_class="a"))
    assert calls[-1][2]["baselines"] == [] and calls[-1][2]["positive_class"] == "a"
    # span files: span metric ids among --metrics are the span metrics, the others the class metrics; no ordinal
    cli._read(_args(input_format="semeval2020_tc", articles="arts", metrics="span_f1,macro_f1", ordinal=True,
                    name="s"))
    gold, preds, kw = calls[-1]
    assert kw == dict(format="semeval2020_tc", articles="arts", name="s", span_metrics=["span_f1"],
                      metrics=["macro_f1"], baselines=[])
    cli._read(_args(input_format="semeval2020_si", articles="arts", metrics="span_f1"))
    assert calls[-1][2] == dict(format="semeval2020_si", articles="arts", name=None, span_metrics=["span_f1"],
                                baselines=[])
    cli._read(_args(input_format="semeval2020_tc", articles="arts", metrics="macro_f1"))
    assert calls[-1][2]["metrics"] == ["macro_f1"] and "span_metrics" not in calls[-1][2]
    with pytest.raises(ValueError) as e:
        cli._read(_args(predictions=[]))
    assert str(e.value) == "no prediction file: give one per system, or their scores (--scores)"


def test_the_baselines_ranked_with_the_systems_of_each_format():
    from types import SimpleNamespace

    from metaeval.data.config import BASELINE_KINDS, SPAN_BASELINE_KINDS

    for fmt, want in ((None, BASELINE_KINDS), ("semeval_tsv", BASELINE_KINDS), ("semeval2020_tc", BASELINE_KINDS),
                      ("semeval2020_si", SPAN_BASELINE_KINDS), ("semeval2021_tsd", SPAN_BASELINE_KINDS)):
        assert cli._workflow_baselines(SimpleNamespace(input_format=fmt, old_span_format=None)) == want, fmt
    assert SPAN_BASELINE_KINDS != BASELINE_KINDS


def test_the_signature_line_of_every_resampling():
    sig = {"version": "1", "command": "recommend", "metrics": ["a", "b"], "unit": "groups", "criteria": ["noise"],
           "resampling": [{"method": "criteria", "resamples": 5, "seed": 1, "half_splits": 4},
                          {"method": "noisy_golds", "resamples": 3, "seed": 2},
                          {"method": "property_matrices", "resamples": 7, "seed": 3}],
           "intervals": {"method": "centred percentile", "confidence": 0.9}, "test": "bootstrap",
           "correction": "holm", "alpha": 0.05, "verdict_alpha": 0.1}
    assert cli.signature_text(sig) == (
        "metaeval 1 | recommend | metrics a,b | criteria noise | unit groups | criteria resamples 5 (seed 1, 4 "
        "half-splits each) | noisy golds 3 per rate (seed 2) | property matrices 7 (seed 3) | intervals centred "
        "percentile 90% | test paired bootstrap, holm correction | alpha 0.05 | verdict alpha 0.1")
    # declared priorities change the answer: the signature says them, after the criteria
    assert cli.signature_text({**sig, "priorities": ["power", "noise"]}).startswith(
        "metaeval 1 | recommend | metrics a,b | criteria noise | priorities power,noise | unit groups |")


def test_a_time_left_in_hours_is_rounded_from_3600_seconds():
    assert cli._duration(8100.4) == "2.3 h" and cli._duration(8099) == "2.2 h"


def test_a_value_without_an_interval_is_shown_alone():
    import pandas as pd

    scores = pd.DataFrame({"kind": ["system", "baseline"], "accuracy": [0.5, 0.25],
                           "accuracy_low": [0.4, float("nan")], "accuracy_high": [0.6, float("nan")]},
                          index=pd.Index(["a", "b"], name="system"))
    out = cli._interval_cells(scores, ["accuracy"])
    assert out.to_dict("list") == {"system": ["a", "b"], "kind": ["system", "baseline"],
                                   "accuracy": ["0.500 [0.400, 0.600]", "0.250"]}


def test_the_data_keys_of_a_command_without_a_positive_class():
    from types import SimpleNamespace

    a = SimpleNamespace(labels="x,y", label_list=None, ordinal=False, metrics=None, baselines="")
    assert cli._data_keys(a) == {"labels": ["x", "y"], "baselines": []}


def test_the_progress_line_gives_the_time_left_from_the_first_count():
    p = cli._Progress(True, stream=io.StringIO())
    p._start, p._pass = 0.0, ("passes", 10, 0.0, 1, 2.0)
    assert p.line("x", 2.0) == "x ... passes 10 % (1/10) 2.0 s, about 18 s left"
    p._pass = ("passes", 10, 0.0, 10, 2.0)
    assert p.line("x", 2.0) == "x ... passes 100 % (10/10) 2.0 s"
    p._pass = ("passes", 0, 0.0, 0, 2.0)
    assert p.line("x", 2.0) == "x ... 2.0 s"


def test_the_recommendation_s_signature_names_what_it_drew():
    """The criteria's resamples and half-splits always; noisy golds when
    label noise is a criterion; the bootstrap; the design's subsets when a
    size was designed; the properties' random matrices unless
    --no-properties (two classes are enough)."""
    from types import SimpleNamespace

    from metaeval.api import dataset
    from metaeval.methods.experiments import Settings
    from metaeval.settings import PropertySettings

    data = dataset(["a", "b", "a", "b"], {"s": ["a", "b", "b", "b"], "t": ["a", "a", "a", "b"]}, baselines=[])
    st = Settings()
    def methods(no_properties=False, designed=True, criteria=("stability", "noise")):
        sig = cli._recommend_signature(SimpleNamespace(no_properties=no_properties), data, st,
                                       SimpleNamespace(criteria=criteria, metrics=("accuracy",)), designed)
        return [r["method"] for r in sig["resampling"]], sig

    got, sig = methods()
    assert got == ["criteria", "half_splits", "noisy_golds", "bootstrap", "design_subsets", "property_matrices"]
    ps = PropertySettings.from_config({})
    assert sig["resampling"][-1] == {"method": "property_matrices", "resamples": ps.random, "seed": ps.seed}
    assert sig["resampling"][0] == {"method": "criteria", "resamples": st.criteria_replicates,
                                    "seed": st.criteria_seed, "half_splits": st.criteria_splits}
    assert sig["unit"] == "items" and sig["criteria"] == ["stability", "noise"] and sig["metrics"] == ["accuracy"]
    assert sig["verdict_alpha"] == st.verdict_alpha and sig["alpha"] == st.alpha
    assert sig["intervals"] == {"method": "centred percentile", "confidence": st.confidence}
    assert methods(no_properties=True)[0] == ["criteria", "half_splits", "noisy_golds", "bootstrap", "design_subsets"]
    assert methods(designed=False, criteria=("stability",))[0] == ["criteria", "half_splits", "bootstrap",
                                                                   "property_matrices"]


def test_the_unit_of_the_signature():
    from types import SimpleNamespace

    def unit(span_task, resample_unit):
        return cli._signature("x", [], SimpleNamespace(span_task=span_task),
                              SimpleNamespace(resample_unit=resample_unit))["unit"]

    assert (unit(None, "item"), unit(None, "group"), unit("si", "group"), unit("si", "item")) == (
        "items", "groups", "documents", "items")


def test_the_title_of_span_scores_counts_articles():
    from pathlib import Path

    from metaeval.api import read_files

    spans = Path(__file__).parent / "fixtures" / "spans"
    gold, preds = spans / "tc" / "gold.labels", sorted((spans / "tc" / "predictions").glob("*.txt"))
    ds, spec = read_files(gold, preds, format="semeval2020_tc", articles=spans / "articles", baselines=[])
    code, out, err = _run("score", gold, *preds, "--input-format", "semeval2020_tc", "--articles",
                          spans / "articles", "--no-intervals", "--format", "markdown")
    assert code == 0, err
    assert out.startswith(f"**{spec.name}: {len(ds.systems)} systems, {ds.spans.n_articles:,} articles**\n")


def _options() -> dict:
    """Every option of every command as the parser declares it (not as
    argparse lays it out, which differs between Python versions)."""
    import argparse

    from metaeval import __version__

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))

    def described(p):
        return {"prog": p.prog, "description": p.description, "epilog": p.epilog,
                "formatter": p.formatter_class.__name__, "options": [
                    {"options": list(a.option_strings), "dest": a.dest, "help": a.help, "metavar": a.metavar,
                     "default": repr(a.default), "choices": None if a.choices is None else list(a.choices),
                     "nargs": a.nargs, "type": getattr(a.type, "__name__", None), "action": type(a).__name__,
                     # (the version itself is the package's: a release does not change the fixture)
                     "version": getattr(a, "version", None) and a.version.replace(__version__, "<version>")}
                    for a in p._actions]}

    commands = {a.dest: a.help for a in sub._choices_actions}  # the list 'metaeval --help' shows
    return {"metaeval": described(parser), "commands": commands,
            **{name: described(p) for name, p in sub.choices.items()}}


def test_every_option_and_its_help_are_the_ones_read_and_approved():
    """The commands' options, defaults, choices and help texts, equal to
    tests/fixtures/cli_options.json, read and approved.  A changed word
    fails here: read the new text, then replace the fixture
    (METAEVAL_WRITE_FIXTURE=1 writes it)."""
    import json
    import os

    from .conftest import FIXTURES

    got = json.dumps(_options(), indent=1, ensure_ascii=False) + "\n"
    path = FIXTURES / "cli_options.json"
    if os.environ.get("METAEVAL_WRITE_FIXTURE"):
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8")


def test_the_files_a_command_reads():
    from types import SimpleNamespace

    a = SimpleNamespace(gold="g.csv", predictions=["p.csv", "-"], scores=["s.csv"], metric_module=["m.py"])
    assert cli._inputs(a) == ["g.csv", "p.csv", "s.csv", "m.py"]
    assert cli._inputs(SimpleNamespace(gold="-", predictions=None)) == []
    assert cli._inputs(SimpleNamespace(folder="x")) == []


def test_the_span_format_and_its_old_option():
    import warnings
    from types import SimpleNamespace

    assert cli._span_format(SimpleNamespace(input_format="csv")) is None
    assert cli._span_format(SimpleNamespace(input_format="semeval2020_si", old_span_format=None)) == "semeval2020_si"
    a = SimpleNamespace(input_format=None, old_span_format="semeval2021_tsd")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert cli._span_format(a) == "semeval2021_tsd"
    assert [(x.category, str(x.message)) for x in w] == [
        (FutureWarning, "--span-format is now --input-format (the config's 'format'); the old name works until the "
                        "next release")]
    assert (a.input_format, a.old_span_format) == ("semeval2021_tsd", None)
    with pytest.raises(ValueError) as e:
        cli._span_format(SimpleNamespace(input_format="semeval2020_si", old_span_format="semeval2021_tsd"))
    assert str(e.value) == "--span-format is the old name of --input-format: give --input-format alone"
