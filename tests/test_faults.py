"""Faults that once slipped through (issue 34): each is refused or said with
its file, line, key or value and what to do, through every door it can come
in by (command line, library, workflow), and no traceback reaches a user.
Each test reads the message a user gets."""

from __future__ import annotations

import io
import math
import os
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml

import metaeval
from metaeval.cli import cli_message, main
from metaeval.data.config import ConfigError, duplicate_keys, load_config
from metaeval.data.files import DataError
from metaeval.data.readers.labels import read_labels

from .workflow_helpers import SNAKEMAKE, ROOT

GOLD = ["a", "b", "a", "b", "a", "b"]
SYSTEMS = {"s": ["a", "a", "a", "b", "b", "b"], "t": ["a", "b", "a", "b", "a", "a"]}


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def small(tmp_path):
    """A gold file with a group column and two systems (CSV)."""
    _write(tmp_path / "gold.csv", "item_id,label,target\n1,a,x\n2,b,x\n3,a,y\n4,b,y\n5,a,z\n6,b,z\n")
    _write(tmp_path / "s.csv", "item_id,label\n1,a\n2,a\n3,a\n4,b\n5,b\n6,b\n")
    _write(tmp_path / "t.csv", "item_id,label\n1,a\n2,b\n3,a\n4,b\n5,a\n6,a\n")
    return tmp_path


# -- silent faults -------------------------------------------------------------
def test_an_empty_group_value_in_a_csv_gold_is_refused_with_its_line(small):
    _write(small / "gold.csv", "item_id,label,target\n1,a,x\n2,b,\n3,a,y\n4,b,y\n5,a,z\n6,b,z\n")
    code, out, err = _cli("score", small / "gold.csv", small / "s.csv", "--group-column", "target")
    assert code == 1 and out == ""
    assert "gold.csv:3: empty 'target' for item '2'" in err
    # the refused gold row is not also blamed on the prediction files
    assert "not in the gold" not in err
    with pytest.raises(DataError, match=r"gold.csv:3: empty 'target' for item '2'"):
        metaeval.read_files(small / "gold.csv", [small / "s.csv"], group_column="target")


def test_a_json_null_group_is_refused_not_read_as_the_group_none(small):
    rows = [{"item_id": "1", "label": "a", "target": "x"}, {"item_id": "2", "label": "b", "target": None},
            {"item_id": "3", "label": "a", "target": "y"}, {"item_id": "4", "label": "b", "target": "y"}]
    (small / "gold.jsonl").write_text("".join(f"{__import__('json').dumps(r)}\n" for r in rows))
    table = read_labels(small / "gold.jsonl", group_column="target")
    assert [(p.line, p.message) for p in table.problems] == [
        (2, "empty 'target' for item '2' (every item needs its group: the intervals and tests resample whole "
            "groups)")]
    assert "None" not in table.groups and table.ids == ["1", "3", "4"]
    # a null label is empty too (not the label "None")
    rows[1] = {"item_id": "2", "label": None, "target": "x"}
    (small / "gold.jsonl").write_text("".join(f"{__import__('json').dumps(r)}\n" for r in rows))
    assert [p.message for p in read_labels(small / "gold.jsonl").problems] == ["empty 'label' for item '2'"]


@pytest.mark.parametrize("weight", [math.nan, math.inf, "0.5", None, True])
def test_a_class_weight_that_is_not_a_finite_number_is_refused_with_its_key(weight):
    with pytest.raises(ConfigError, match=r"weights\.weights\.a: a weight must be a finite number >= 0, got "):
        metaeval.evaluate(GOLD, SYSTEMS, metrics=["wf1"], weights={"a": weight, "b": 0.5})


def test_a_nan_weight_in_a_yaml_config_names_the_set_and_label(tmp_path):
    from metaeval.data.config import dataset_specs

    cfg = {"datasets": {"d": {"gold": "g.csv", "predictions": ["p.csv"], "labels": ["a", "b"],
                              "weights": {"skewed": {"a": float("nan"), "b": 0.5}}}}}
    with pytest.raises(ConfigError, match=r"datasets\.d\.weights\.skewed\.a: a weight must be a finite number >= "
                                          r"0, got nan"):
        dataset_specs(cfg, base_dir=tmp_path)


def test_the_weighted_metrics_refuse_a_nan_weight_vector():
    from metaeval.measures import labels as M

    c = [[3, 1], [1, 3]]
    with pytest.raises(ValueError, match="weights must be finite numbers"):
        M.wauc(c, [math.nan, 0.5])
    assert M.wauc(c, [0.5, 0.5]) == pytest.approx(0.75)


def test_a_dataset_written_twice_in_a_yaml_config_is_refused_with_both_lines(tmp_path):
    text = ("data_dir: .\ndatasets:\n  d1:\n    gold: g.csv\n    predictions: [p.csv]\n"
            "  d2:\n    gold: g.csv\n  d1:\n    gold: h.csv\n")
    path = _write(tmp_path / "c.yaml", text)
    assert duplicate_keys(path) == [
        f"{path}:8: datasets.d1 is written twice (lines 3 and 8): YAML would keep the last and drop the first in "
        "silence; merge them or rename one"]
    with pytest.raises(ConfigError, match=r"datasets\.d1 is written twice \(lines 3 and 8\)"):
        load_config(path)
    # deeper keys and keys of list items are found too; a valid file has none
    _write(tmp_path / "e.yaml", "datasets:\n  d:\n    labels: [a]\n    metrics: [x]\n    labels: [b]\n"
                                "experiments:\n  alpha: 0.1\n")
    assert [m.split(": ", 1)[1][:40] for m in duplicate_keys(tmp_path / "e.yaml")] == [
        "datasets.d.labels is written twice (line"]
    assert duplicate_keys(ROOT / "config" / "config.yaml") == []


@pytest.mark.workflow
def test_the_workflow_refuses_a_config_with_a_dataset_written_twice(small):
    cfg = small / "twice.yaml"
    block = "    gold: gold.csv\n    predictions: [s.csv, t.csv]\n    labels: [a, b]\n"
    _write(cfg, f"data_dir: {small}\ndatasets:\n  d1:\n{block}  d1:\n{block}")
    res = subprocess.run(SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(cfg), "-n",
                                      "--directory", str(small / "run")], capture_output=True, text=True, timeout=300)
    assert res.returncode != 0
    assert "datasets.d1 is written twice (lines 3 and 7)" in res.stdout + res.stderr
    assert "Traceback" not in res.stdout + res.stderr


# -- tracebacks ----------------------------------------------------------------
def test_output_naming_a_folder_is_refused_before_any_work(small):
    code, out, err = _cli("score", small / "gold.csv", small / "s.csv", "-o", small)
    assert code == 2 and out == ""
    assert err == f"metaeval score: -o {small} is a folder: give a file name, e.g. -o {small / 'scores.csv'}\n"
    code, _, err = _cli("score", small / "gold.csv", small / "s.csv", "-o", small / "gold.csv" / "x.csv")
    assert code == 2 and "gold.csv is a file, not a folder" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a folder without write permission")
def test_output_in_a_folder_that_cannot_be_written_is_refused(small):
    locked = small / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        code, out, err = _cli("score", small / "gold.csv", small / "s.csv", "-o", locked / "scores.csv")
    finally:
        locked.chmod(0o755)
    assert code == 2 and "cannot be written (permission denied" in err and "Traceback" not in err


def test_output_refused_where_this_process_may_not_write(small, monkeypatch):
    """Whoever runs the tests (root passes permission bits, and /sys or a
    read-only mount pass them too): a folder is tried by making a file in
    it; a file this process may not write is refused by its access."""
    import tempfile

    from metaeval.cli import _unwritable

    locked = small / "locked"
    locked.mkdir()
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and Path(dir) == locked:
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    assert _unwritable(locked / "scores.csv") == f"-o {locked / 'scores.csv'} cannot be written (permission denied " \
                                                f"in {locked})"
    assert _unwritable(locked / "new" / "scores.csv").endswith(f"(permission denied in {locked})")
    assert _unwritable(small / "scores.csv") is None and _unwritable(None) is None
    assert not list(small.glob(".metaeval-o-check.*"))  # the trial file is gone
    monkeypatch.setattr(tempfile, "mkstemp", real_mkstemp)
    real = os.access
    # an existing file: replaced when it may be written, refused when not
    (small / "old.csv").write_text("x")
    monkeypatch.setattr(os, "access", real)
    assert _unwritable(small / "old.csv") is None
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != small / "old.csv" and real(p, mode))
    assert _unwritable(small / "old.csv") == f"-o {small / 'old.csv'} cannot be written (permission denied in {small})"
    assert _unwritable("relative_new_folder/x.csv") is None  # judged by the working folder


def test_the_results_folders_that_cannot_be_written_are_named(tmp_path, monkeypatch):
    from metaeval.workflow.params import unwritable_folders

    (tmp_path / "results" / "d1" / "tables").mkdir(parents=True)
    assert unwritable_folders(tmp_path / "results") == []
    assert unwritable_folders(tmp_path / "not_yet" / "results") == []  # judged by the folder above it
    locked = str(tmp_path / "results" / "d1")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: str(p) != locked and real(p, mode))
    assert unwritable_folders(tmp_path / "results") == [locked]
    _write(tmp_path / "file", "")
    assert unwritable_folders(tmp_path / "file") == [f"{tmp_path / 'file'} (a file, not a folder)"]


def _read_only_results(work: Path):
    """results/ of ``work`` on a read-only file system (root ignores
    permission bits), or None where that cannot be made."""
    res = work / "results"
    (res / "d1").mkdir(parents=True)
    if os.geteuid() != 0:
        for d in (res / "d1", res):
            d.chmod(0o555)
        return lambda: [d.chmod(0o755) for d in (res, res / "d1")]
    made = subprocess.run(["mount", "--bind", str(res), str(res)], capture_output=True)
    if made.returncode != 0:
        return None
    if subprocess.run(["mount", "-o", "remount,ro,bind", str(res)], capture_output=True).returncode != 0:
        subprocess.run(["umount", str(res)])
        return None
    return lambda: subprocess.run(["umount", str(res)])


@pytest.mark.workflow
def test_the_workflow_refuses_an_unwritable_results_folder_before_its_first_job(small):
    work = small / "run"
    undo = _read_only_results(work)
    if undo is None:
        pytest.skip("cannot make a read-only folder here")
    cfg = _write(small / "c.yaml", f"data_dir: {small}\ndatasets:\n  d1:\n    gold: gold.csv\n"
                                   "    predictions: [s.csv, t.csv]\n    labels: [a, b]\n")
    try:
        res = subprocess.run(SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(cfg),
                                          "--cores", "1", "--directory", str(work)],
                             capture_output=True, text=True, timeout=300)
    finally:
        undo()
    said = res.stdout + res.stderr
    assert res.returncode != 0
    assert f"The results cannot be written in {work}" in said and "results/d1" in said
    assert "Traceback" not in said and "localrule ingest" not in said  # no job started


# -- unclear refusals, reworded ------------------------------------------------
def test_a_label_listed_twice_is_refused_as_such(small):
    code, _, err = _cli("score", small / "gold.csv", small / "s.csv", "--labels", "a,b,a")
    assert code == 2
    assert err == ("metaeval score: --labels: 'a' listed more than once in ['a', 'b', 'a']: each class once "
                   "(label_map merges spellings of one class)\n")
    with pytest.raises(ConfigError, match=r"need at least two labels \(classes\), got \['a'\]"):
        metaeval.evaluate(["a", "a"], {"s": ["a", "a"]}, labels=["a"])


def test_a_label_yaml_read_as_an_octal_number_is_explained(small):
    _write(small / "gold.csv", "item_id,label\n1,010\n2,020\n3,010\n")
    _write(small / "s.csv", "item_id,label\n1,010\n2,010\n3,020\n")
    # what a config's unquoted labels: [010, 020] become (YAML 1.1: octal)
    labels = yaml.safe_load("[010, 020]")
    assert labels == [8, 16]
    with pytest.raises(DataError) as e:
        metaeval.read_files(small / "gold.csv", [small / "s.csv"], labels=labels)
    assert ("gold label '010' of item '1' is not one of '8', '16' (YAML reads the unquoted 010 as the number 8 "
            "(a leading 0 makes it octal): quote the labels in the config, e.g. '010')") in str(e.value)
    # YAML's other rewritings are named without the octal clause; a plain mismatch has no hint
    from metaeval.data.label_checks import _yaml_number

    assert [_yaml_number(x) for x in ("1_000", "0x1A", "1e3", "12", "abc", "true")] == \
        ["1000", "26", None, None, None, None]


def test_a_file_that_is_not_utf8_is_located_by_line_and_column(small):
    (small / "s.csv").write_bytes(b"item_id,label\n1,a\n2,caf\xe9\n")
    code, _, err = _cli("score", small / "gold.csv", small / "s.csv")
    assert code == 1
    assert ("s.csv:3: not valid UTF-8 text: byte 0xe9, the line's byte 6 (invalid continuation byte); save the file as "
            "UTF-8") in err


@pytest.mark.parametrize("argv, said", [
    (["--baselines", "bogus"], "--baselines: ['bogus']: unknown"),
    (["--metrics", "wauc"], "--metrics: 'wauc' needs --set weights"),
    (["--metrics", "f1_class"], "--metrics: 'f1_class' needs --positive-class"),
    (["--ordinal"], "--ordinal needs --labels in the order of the scale"),
    (["--replicates", "0"], "--replicates must be an integer >= 2, got 0"),
    (["--set", "bootstrap_replicates=0"], "--set bootstrap_replicates must be an integer >= 2, got 0"),
    (["--set", "label_map=3"], "--set label_map: expected a mapping of label as written to label, got 3"),
    (["--set", "allow_unused_labels=maybe"], "--set allow_unused_labels: expected True or False, got 'maybe'"),
    (["--set", "random_seed=-1"], "--set random_seed: expected an integer >= 0, got -1"),
    (["--set", "normalize_labels=3"], "--set normalize_labels: expected a list of 'strip' and / or 'case'"),
    (["--positive-class", "z"], "--positive-class: 'z' is not in labels ['a', 'b']"),
    (["--group-column", "target", "--set", "resample_unit=group"], None),
])
def test_command_line_errors_name_options_not_library_keywords(small, argv, said):
    code, _, err = _cli("score", small / "gold.csv", small / "s.csv", small / "t.csv", *argv)
    if said is None:  # three groups: read, with the few-groups warning in the command line's words
        assert code == 0 and "--set resample_unit=item" in err
        return
    assert code == 2, err
    assert err.startswith(f"metaeval score: {said}"), err
    for library in ("datasets.data", "experiments.", "=[...]", "=True", "read_files("):
        assert library not in err


def test_compare_and_recommend_speak_in_options_too(small):
    code, _, err = _cli("compare", small / "gold.csv", small / "s.csv", small / "t.csv", "--alpha", "2")
    assert (code, err) == (2, "metaeval compare: --alpha must be a number in (0, 1), got 2.0\n")
    code, _, err = _cli("compare", small / "gold.csv", small / "s.csv", "--trials", "0")
    assert code == 2 and err.startswith("metaeval compare: --trials must be an integer >= 1, got 0")
    code, _, err = _cli("recommend", small / "gold.csv", small / "s.csv", small / "t.csv", "--no-properties",
                        "--set", "criteria_replicates=20", "--set", "n_splits=20", "--set", "tukey_trials=50")
    assert code == 0 and "(--set min_systems=4 silences this)" in err


def test_cli_message_rewrites_only_what_it_knows():
    assert cli_message("datasets.data.score_threshold: must be a number") == "--score-threshold: must be a number"
    assert cli_message("datasets.data.weights.w.a: bad", {}) == "--set weights.w.a: bad"
    assert cli_message("experiments.n_splits must be >= 2") == "--set n_splits must be >= 2"
    assert cli_message("label 'x': is unknown") == "label 'x': is unknown"  # not a keyword: unchanged
    assert cli_message("the metrics=3 of it") == "the metrics=3 of it"


def test_the_positive_class_option_reaches_the_metrics_of_one_class(small):
    f1 = {}
    for positive in "ab":  # it was silently ignored without --scores
        code, out, _ = _cli("score", small / "gold.csv", small / "t.csv", "--no-intervals", "--metrics", "f1_class",
                            "--positive-class", positive, "--format", "csv")
        assert code == 0
        f1[positive] = float(out.splitlines()[-1].split(",")[-1])
    assert f1 == {"a": pytest.approx(6 / 7), "b": pytest.approx(0.8)}


def test_a_single_group_is_refused_when_whole_groups_are_resampled(small):
    _write(small / "gold.csv", "item_id,label,target\n1,a,x\n2,b,x\n3,a,x\n4,b,x\n5,a,x\n6,b,x\n")
    code, out, err = _cli("score", small / "gold.csv", small / "s.csv", small / "t.csv", "--group-column", "target")
    assert code == 2 and out == ""
    assert ("resample_unit 'group' needs at least 2 groups; it has 1 ('x'), so every resample would be the whole "
            "data (use --set resample_unit=item)") in err
    with pytest.raises(ConfigError, match="needs at least 2 groups; it has 1"):
        metaeval.evaluate(GOLD, SYSTEMS, groups=["x"] * 6, resample_unit="group", bootstrap_replicates=10)
    # items are still resampled on request, with the group column read
    code, _, _ = _cli("score", small / "gold.csv", small / "s.csv", small / "t.csv", "--group-column", "target",
                      "--set", "resample_unit=item", "--replicates", "20")
    assert code == 0


@pytest.mark.parametrize("kw, said", [
    ({"label_map": 3}, "label_map: expected a mapping"),
    ({"baselines": "majority"}, "baselines: expected a list of baseline kinds"),
    ({"allow_unused_labels": "yes"}, "allow_unused_labels: expected True or False, got 'yes'"),
    ({"random_seed": 1.5}, "random_seed: expected an integer >= 0, got 1.5"),
    ({"positive_class": ["a"]}, "positive_class: expected one label, got ['a']"),
    ({"labels": "ab"}, "labels: expected a list of labels, got 'ab'"),
])
def test_the_library_refuses_a_keyword_of_the_wrong_type_by_name(kw, said):
    import inspect

    calls = [metaeval.dataset]
    if set(kw) <= set(inspect.signature(metaeval.evaluate).parameters):  # (the keys the one-call functions name)
        calls.append(metaeval.evaluate)
    for call in calls:
        with pytest.raises(TypeError) as e:
            call(GOLD, SYSTEMS, **kw)
        assert str(e.value).startswith(said), call


def test_output_naming_an_input_file_is_refused_and_the_file_kept(small):
    before = (small / "gold.csv").read_text()
    for target in (small / "gold.csv", small / "s.csv", small / "." / "s.csv"):
        code, out, err = _cli("score", small / "gold.csv", small / "s.csv", "-o", target)
        assert (code, out) == (2, "")
        assert err == f"metaeval score: -o {target} is one of the input files: it would be overwritten; give " \
                      "another file name\n"
    assert (small / "gold.csv").read_text() == before
    code, _, _ = _cli("score", small / "gold.csv", small / "s.csv", "--no-intervals", "-o", small / "out.csv")
    assert code == 0 and (small / "out.csv").read_text().startswith("# metaeval")


def test_a_single_group_is_refused_without_a_few_groups_warning_first(small):
    _write(small / "gold.csv", "item_id,label,target\n1,a,x\n2,b,x\n3,a,x\n4,b,x\n5,a,x\n6,b,x\n")
    code, _, err = _cli("score", small / "gold.csv", small / "s.csv", small / "t.csv", "--group-column", "target")
    assert code == 2 and "warning" not in err and "only 1 groups" not in err


def test_output_never_replaces_a_device_a_pipe_or_a_link(small, tmp_path):
    """-o /dev/null, a named pipe: refused before any work (they were
    replaced by a regular file); a symbolic link is written through, the
    link kept; the library's atomic writes refuse the same files."""
    from metaeval.data.files import write_text

    code, out, err = _cli("score", small / "gold.csv", small / "s.csv", "-o", "/dev/null")
    assert code == 2 and out == "" and err == ("metaeval score: -o /dev/null is not a regular file (a device, pipe or "
                                               "socket): give a file name, or leave -o out to write to standard "
                                               "output\n")
    assert Path("/dev/null").is_char_device()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = _cli("score", small / "gold.csv", small / "s.csv", "-o", fifo)
    assert code == 2 and "is not a regular file" in err and fifo.is_fifo()
    with pytest.raises(OSError, match="is not a regular file"):
        write_text(fifo, "x")
    assert fifo.is_fifo()
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, _, err = _cli("score", small / "gold.csv", small / "s.csv", "-o", link, "--no-intervals", "--format", "csv")
    assert code == 0, err
    assert link.is_symlink() and target.read_text().splitlines()[1].startswith("system,kind,")
    write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_an_interrupted_command_says_so_without_a_traceback(small, monkeypatch, capsys):
    import metaeval.cli as C

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(C, "_main", interrupted)
    assert C.main(["score", str(small / "gold.csv"), str(small / "s.csv")]) == 130
    assert capsys.readouterr().err == "\nmetaeval: interrupted; nothing was written\n"


def test_a_label_listed_twice_in_a_yaml_config_is_named_not_shown_as_the_schema(tmp_path, small):
    from metaeval.data.config import schema_errors

    assert schema_errors({"datasets": {"d": {"labels": ["neg", "neu", "pos", "neu"]}}},
                         {"properties": {"datasets": {"additionalProperties": {"properties": {
                             "labels": {"type": "array", "uniqueItems": True}}}}}}) == [
        "datasets/d/labels: 'neu' listed more than once"]
    path = _write(tmp_path / "c.yaml", f"data_dir: {small}\ndatasets:\n  d:\n    gold: gold.csv\n"
                                       "    predictions: [s.csv]\n    labels: [neg, neu, pos, neu]\n")
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(e.value).splitlines()[1] == "  datasets/d/labels: 'neu' listed more than once"
    assert "Failed validating" not in str(e.value)


@pytest.mark.workflow
def test_the_workflow_names_a_label_listed_twice(small):
    cfg = small / "dup_labels.yaml"
    _write(cfg, f"data_dir: {small}\ndatasets:\n  d1:\n    gold: gold.csv\n    predictions: [s.csv, t.csv]\n"
                "    labels: [a, b, a]\n")
    res = subprocess.run(SNAKEMAKE + ["-s", str(ROOT / "workflow" / "Snakefile"), "--configfile", str(cfg), "-n",
                                      "--directory", str(small / "run")], capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "datasets/d1/labels: 'a' listed more than once" in out
    assert "Failed validating" not in out and "Traceback" not in out


def test_a_key_of_several_forms_names_the_fault_of_the_form_given(tmp_path, small):
    """Issue 48: ``official_metric: {source: ...}`` without ``metric`` was
    "is not valid under any of the given schemas"."""
    path = _write(tmp_path / "c.yaml", f"data_dir: {small}\ndatasets:\n  d:\n    gold: gold.csv\n"
                                       "    predictions: [s.csv]\n    labels: [neg, pos]\n"
                                       "    official_metric: {source: the task paper}\n")
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(e.value).splitlines()[1] == (
        "  datasets/d/official_metric: 'metric' is a required property (expected the task's official metric: an "
        "id, or {metric: <id>, source: <text>})")
    assert "not valid under any of the given schemas" not in str(e.value)
    # a value of the wrong type says what the key takes (the trial: "'power' is not of type 'array'")
    path = _write(tmp_path / "p.yaml", f"data_dir: {small}\ndatasets:\n  d:\n    gold: gold.csv\n"
                                       "    predictions: [s.csv]\n    labels: [neg, pos]\n    priorities: power\n")
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(e.value).splitlines()[1].startswith(
        "  datasets/d/priorities: 'power' is not of type 'array' (expected the evidence criteria in the order that "
        "matters for this task")
