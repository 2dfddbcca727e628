"""The command line (metaeval.cli): every input format, refusals with file,
line and fault, every output format, --help, and `metaeval init`
(tests/test_workflow.py compares its tables with the workflow's)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval.cli import main

from .conftest import FIXTURES, ROOT

RNG = np.random.default_rng(11)
LABELS = ["neg", "neu", "pos"]


def _csv(out: str) -> pd.DataFrame:
    """An output in CSV, its first line the signature (a # comment)."""
    assert out.startswith("# metaeval ")
    return pd.read_csv(io.StringIO(out), comment="#")


def _run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One small dataset written in every input format."""
    base = tmp_path_factory.mktemp("cli")
    ids = [f"i{k:03d}" for k in range(60)]
    gold = pd.DataFrame({"item_id": ids, "label": RNG.choice(LABELS, 60), "target": [f"t{k % 3}" for k in range(60)]})
    systems = {f"sys_{c}": pd.DataFrame({"item_id": ids, "label": [g if RNG.random() < acc else RNG.choice(LABELS)
                                                                   for g in gold["label"]]})
               for c, acc in zip("abcde", (0.9, 0.75, 0.6, 0.5, 0.4))}
    out = {}
    for kind in ("csv", "tsv", "jsonl", "parquet"):
        d = base / kind
        (d / "predictions").mkdir(parents=True)

        def write(df, path):
            if kind == "csv":
                df.to_csv(path, index=False)
            elif kind == "tsv":
                df.to_csv(path, index=False, sep="\t")
            elif kind == "jsonl":
                df.to_json(path, orient="records", lines=True)
            else:
                df.to_parquet(path, index=False)
        write(gold, d / f"gold.{kind}")
        for s, df in systems.items():
            write(df.sample(frac=1, random_state=1), d / "predictions" / f"{s}.{kind}")  # rows in another order
        out[kind] = (d / f"gold.{kind}", sorted((d / "predictions").glob(f"*.{kind}")))
    return out


@pytest.mark.parametrize("kind", ["tsv", "jsonl", "parquet"])
def test_every_input_format_gives_the_csv_s_scores(files, kind):
    want = _run("score", files["csv"][0], *files["csv"][1], "--no-intervals", "--format", "csv")
    got = _run("score", files[kind][0], *files[kind][1], "--no-intervals", "--format", "csv")
    assert want[0] == got[0] == 0 and got[1] == want[1] and "sys_a" in got[1]


def test_score_equals_the_api_with_intervals_by_group(files):
    import metaeval
    from metaeval.api import read_files

    gold, preds = files["csv"]
    code, out, _ = _run("score", gold, *preds, "--group-column", "target", "--replicates", "200", "--format", "csv",
                        "--metrics", "accuracy,macro_f1")
    assert code == 0
    got = _csv(out).set_index("system")
    data = read_files(gold, preds, group_column="target", metrics=["accuracy", "macro_f1"], baselines=[])  # as score
    want = metaeval.evaluate(data, bootstrap_replicates=200, resample_unit="group")  # as --group-column says
    pd.testing.assert_frame_equal(got.sort_index(), want.sort_index(), check_exact=False, rtol=1e-14)
    assert data[0].group_names == ("t0", "t1", "t2")


def test_the_output_formats(files):
    gold, preds = files["csv"]
    args = ["score", gold, *preds, "--metrics", "accuracy", "--replicates", "50"]
    assert json.loads(_run(*args, "--format", "json")[1])["rows"][0]["system"] == "sys_a"
    md = _run(*args, "--format", "markdown")[1]
    assert "| system | kind | accuracy |" in md and "95% percentile bootstrap intervals of the items" in md
    tex = _run(*args, "--format", "latex")[1]
    assert r"\begin{tabular}" in tex and r"sys\_a" in tex
    table = _run(*args, "--format", "table")[1]
    assert "sys_a" in table and "[" in table  # value [low, high]
    code, out, _ = _run("compare", gold, *preds, "--metrics", "accuracy", "--trials", "200", "--format", "table")
    assert code == 0 and "discriminative_power" in out and "randomised Tukey HSD, 200 trials" in out
    code, out, _ = _run("compare", gold, *preds, "--metrics", "accuracy", "--test", "bootstrap", "--pairs",
                        "--format", "csv", "--set", "bootstrap_replicates=100")
    assert code == 0 and len(_csv(out)) == 10  # 5 systems: 10 pairs
    code, out, _ = _run("compare", gold, *preds, "--metrics", "accuracy,macro_f1", "--trials", "100", "--format",
                        "csv")  # the summary in every format (csv printed every pair without --pairs)
    assert code == 0 and list(_csv(out)["metric"]) == ["accuracy", "macro_f1"]
    code, _, err = _run("compare", gold, *preds, "--set", "tukey_trials=abc")
    assert code == 2 and "--set tukey_trials: expected an integer, got 'abc'" in err


def test_recommend_prints_the_answer_and_the_criteria(files):
    gold, preds = files["csv"]
    code, out, _ = _run("recommend", gold, *preds, "--labels", "neg,neu,pos", "--ordinal", "--no-properties",
                        "--set", "criteria_replicates=20", "--set", "criteria_splits=2", "--set", "n_splits=50",
                        "--set", "tukey_trials=100", "--format", "json")
    assert code == 0
    rec = json.loads(out)
    assert rec["recommended"] and rec["baselines_ranked_in_variant"] == ["majority", "random"]
    assert rec["headline_scope"] == "these_systems" and set(rec["sets"]) == {"these_systems", "new_systems"}
    # the official metric and a declared requirement, from the command line
    code, out, err = _run("recommend", gold, *preds, "--labels", "neg,neu,pos", "--ordinal",
                          "--set", "criteria_replicates=20", "--set", "criteria_splits=2", "--set", "n_splits=50",
                          "--set", "tukey_trials=100", "--official", "macro_f1", "--require", "monotonicity",
                          "--format", "json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["official_metric"]["metric"] == "macro_f1" and rec["requirements"] == ["monotonicity"]
    assert "kappa" not in rec["recommended"] and "monotonicity" in rec["failed_properties"]["kappa"]
    assert "| property matrices 2000 (seed 20211206) |" in rec["signature"]  # the properties were checked
    code, _, err = _run("recommend", gold, *preds, "--labels", "neg,neu,pos", "--require", "monotonic")
    assert code == 2 and "'monotonic' is not a formal property (did you mean 'monotonicity'?)" in err
    code, _, err = _run("recommend", gold, *preds, "--labels", "neg,neu,pos", "--no-properties",
                        "--require", "monotonicity")
    assert code == 2 and "--require needs the formal properties of this data's shape: drop --no-properties" in err


@pytest.mark.parametrize("kind, content, fault", [
    ("csv", "item_id,label\ni000,neg\ni001,bad\n", ":3: predicted label 'bad' of item 'i001' is not one of"),
    ("csv", "id,label\ni000,neg\n", ":1: missing or wrong header"),
    ("jsonl", '{"item_id": "i000", "label": "neg"}\n{"item_id": "i001", "label": "neg"\n', ":2: not valid JSON"),
    ("jsonl", '{"item_id": "i000", "label": "neg"}\n{"item_id": "i001"}\n', ":2: no 'label'"),
    ("tsv", "item_id\tlabel\ni000\tneg\ni000\tpos\n", ":3: duplicated item 'i000' (first seen on line 2)"),
])
def test_bad_input_exits_1_with_file_line_and_fault(files, tmp_path, kind, content, fault):
    """Bad data exits 1, a usage error 2 (argparse's, and a wrong option's value)."""
    gold, preds = files[kind]
    bad = tmp_path / f"broken.{kind}"
    bad.write_text(content)
    code, out, err = _run("score", gold, *preds, bad, "--no-intervals")
    assert code == 1 and out == ""
    assert f"{bad}{fault}" in err


def test_a_parquet_file_without_the_columns_is_refused(files, tmp_path):
    gold, preds = files["parquet"]
    bad = tmp_path / "broken.parquet"
    pd.DataFrame({"id": ["i000"], "label": ["neg"]}).to_parquet(bad)
    code, _, err = _run("score", gold, *preds, bad, "--no-intervals")
    assert code == 1 and f"{bad}: missing column(s) 'item_id'" in err
    (tmp_path / "junk.parquet").write_text("not parquet")
    code, _, err = _run("score", gold, *preds, tmp_path / "junk.parquet", "--no-intervals")
    assert code == 1 and "cannot read as Parquet" in err


def test_every_subcommand_s_help_teaches_with_examples():
    for cmd in ("score", "compare", "recommend", "design", "init"):
        res = subprocess.run([sys.executable, "-m", "metaeval.cli", cmd, "--help"], capture_output=True, text=True)
        assert res.returncode == 0 and "examples:" in res.stdout and f"metaeval {cmd}" in res.stdout
    res = subprocess.run([sys.executable, "-m", "metaeval.cli", "score"], capture_output=True, text=True)
    assert res.returncode == 2 and "the following arguments are required" in res.stderr


@pytest.mark.workflow
def test_init_writes_a_config_the_workflow_runs_as_is(tmp_path):
    folder = tmp_path / "my data"
    (folder / "predictions").mkdir(parents=True)
    src = FIXTURES / "tiny"
    gold = pd.read_csv(src / "gold.csv")
    gold.to_csv(folder / "gold.tsv", sep="\t", index=False)
    for f in sorted((src / "predictions").glob("*.csv")):
        pd.read_csv(f).replace({"other": "neu"}).to_csv(folder / "predictions" / f"{f.stem}.tsv", sep="\t",
                                                          index=False)
    code, out, err = _run("init", folder, "--labels", "neg,neu,pos", "--ordinal")
    assert code == 0, err
    cfg = folder / "metaeval.yaml"
    assert cfg.is_file()
    # the command it prints, as printed (with a target, to keep the test short), from another folder
    # (paths with spaces are quoted for the shell)
    import shlex

    command = next(line.strip() for line in out.splitlines() if line.strip().startswith("snakemake "))
    argv = shlex.split(command)
    assert argv[argv.index("--configfile") + 1] == str(cfg)
    assert argv[argv.index("--directory") + 1] == str(folder / "run")
    assert Path(argv[argv.index("-s") + 1]).name == "Snakefile"
    res = subprocess.run([sys.executable, "-m", *argv, "--cores", "2", "results/my_data/scores.csv"],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    scores = pd.read_csv(folder / "run" / "results/my_data/scores.csv")
    assert list(scores["system"][:4]) == ["sys_a", "sys_b", "sys_c", "sys_d"]
    code, _, err = _run("init", tmp_path / "nothing")
    assert code == 1 and "no such folder" in err
    # a prediction file with a fault is named, with its line, before any config is written
    bad = tmp_path / "bad data"
    (bad / "predictions").mkdir(parents=True)
    (bad / "gold.csv").write_text("item_id,label\n1,pos\n2,neg\n3,neg\n")
    (bad / "predictions" / "a.csv").write_text("item_id,label\n1,pos\n2,neutral\n3,neg\n")
    code, _, err = _run("init", bad)
    assert code == 1 and "a.csv:3" in err and "'neutral'" in err and not (bad / "metaeval.yaml").exists()
    code, _, err = _run("init", folder, "--labels", "neg,neu,pos")
    assert code == 2 and "exists: give --force" in err
    code, _, err = _run("init", folder, "--ordinal", "--force")
    assert code == 2 and "--ordinal needs --labels in the order of the scale" in err


@pytest.mark.slow
def test_the_readme_s_library_and_command_line_examples_run(data_dir):
    """README's two examples, as written, from the repository's root: the
    library block (at most ten lines) and every command of the command-line
    block but `init` (which needs a folder of one's own: tested above)."""
    import os
    import re
    import shutil

    readme = (ROOT / "README.md").read_text()
    code = re.search(r"<!-- example: library -->\n```python\n(.*?)```", readme, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    if data_dir != (ROOT.parent / "shared" / "data").resolve():
        pytest.skip("the examples read ../shared/data")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "BUT-FIT_TOP-N_avg-softmax_RE2019devrun" in res.stdout
    assert re.search(r"^(Report |The evidence keeps |No metric )", res.stdout, flags=re.M), res.stdout[-800:]
    assert "min_systems" not in res.stderr and "Warning" not in res.stderr, res.stderr  # the example warns of nothing
    block = re.search(r"<!-- example: command line -->\n```\n(.*?)```", readme, re.S).group(1)
    commands = [c.split("#")[0].strip() for c in block.strip().splitlines() if not c.startswith("metaeval init")]
    exe = shutil.which("metaeval", path=os.path.dirname(sys.executable)) or "metaeval"
    for cmd in commands:
        res = subprocess.run(cmd.replace("metaeval", exe, 1), shell=True, cwd=ROOT, capture_output=True,
                             text=True, timeout=300)
        assert res.returncode == 0 and len(res.stdout.splitlines()) >= 3, (cmd, res.stderr[-2000:])


# -- span tasks and dataset keys on the command line -------------------------------------
SPANS = FIXTURES / "spans"


def test_technique_classification_reads_the_gold_s_techniques_and_names_with_commas():
    """TC files: without --labels the gold's techniques, sorted, as the
    library does in memory; --label takes a name with a comma; --set takes
    the files' dataset keys; the numbers equal read_files'."""
    from metaeval.api import read_files

    gold, preds = SPANS / "tc" / "gold.labels", sorted((SPANS / "tc" / "predictions").glob("*.txt"))
    args = ["score", gold, *preds, "--input-format", "semeval2020_tc", "--articles", SPANS / "articles",
            "--no-intervals", "--format", "csv", "--set", "documents=all_articles"]
    code, out, err = _run(*args)
    assert code == 0, err
    got = _csv(out).set_index("system").sort_index()
    want = metaeval_evaluate(read_files(gold, preds, format="semeval2020_tc", articles=SPANS / "articles",
                                        documents="all_articles", baselines=[]))
    pd.testing.assert_frame_equal(got, want.sort_index(), check_exact=False, rtol=1e-14)
    techniques = sorted({line.split("\t")[1] for line in gold.read_text().splitlines()})
    assert any("," in t for t in techniques)
    labelled = _run(*args, *[x for t in techniques for x in ("--label", t)])
    assert labelled[0] == 0 and labelled[1] == out
    code, _, err = _run(*args, "--labels", ",".join(techniques))  # a comma splits: the names are refused
    assert code == 1 and "unknown technique" in err


def test_span_identification_takes_span_metric_ids_and_merging_from_the_command_line():
    gold, preds = SPANS / "si" / "gold.labels", sorted((SPANS / "si" / "predictions").glob("*.txt"))
    base = ["score", gold, *preds, "--input-format", "semeval2020_si", "--articles", SPANS / "articles", "--format",
            "csv", "--no-intervals"]
    code, _, err = _run(*base)
    assert code == 1 and "overlap" in err and "--set merge_overlapping_predictions=true" in err
    code, out, err = _run(*base, "--set", "merge_overlapping_predictions=true", "--metrics", "span_f1,char_f1")
    assert code == 0, err
    assert list(_csv(out).columns) == ["system", "kind", "span_f1", "char_f1"]
    code, _, err = _run(*base, "--set", "merge_overlaping_predictions=true")
    assert code == 2 and "did you mean 'merge_overlapping_predictions'" in err


def test_misspelled_metrics_and_settings_are_named_with_the_closest(files):
    gold, preds = files["csv"]
    code, _, err = _run("score", gold, *preds, "--metrics", "acuracy")
    assert code == 2 and "did you mean 'accuracy'" in err
    code, _, err = _run("score", gold, *preds, "--set", "tukey_trial=3")
    assert code == 2 and "did you mean 'tukey_trials'" in err
    code, out, err = _run("score", gold, *preds, "--set", "normalize_labels=[case]", "--no-intervals")
    assert code == 0, err


def metaeval_evaluate(data):
    import metaeval

    return metaeval.evaluate(data, intervals=False)


def test_set_refuses_the_keys_that_have_options_of_their_own(files):
    gold, preds = files["csv"]
    code, _, err = _run("score", gold, *preds, "--set", "name=x")
    assert code == 2 and "--set name: give it with --name" in err


def test_design_prints_the_summary_and_recommend_the_test_set_size(files):
    """`metaeval design`: the summary per metric at the test set's size in
    every format, --long the design.csv rows; `metaeval recommend` says the
    test-set size in its answer (the trial found it missing from the
    command line while the workflow's recommendation had it)."""
    gold, preds = files["csv"]
    fast = ["--set", "bootstrap_replicates=100", "--set", "design_draws=10"]
    code, out, err = _run("design", gold, *preds, "--metrics", "accuracy,macro_f1", *fast, "--format", "json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert {r["metric"] for r in rows} == {"Acc", "macro-F1"} and "MDD with 60 items" in rows[0]
    code, out, _ = _run("design", gold, *preds, "--metrics", "accuracy", *fast, "--long", "--format", "csv")
    long = _csv(out)
    assert code == 0 and 60 in set(long["size"]) and {"min_detectable_difference", "within_range"} <= set(long)
    code, out, _ = _run("design", gold, *preds, *fast, "--format", "markdown")
    assert code == 0 and out.startswith("**data: test-set size design, 60 items; power 0.8")
    code, _, err = _run("design", gold, *preds, "--set", "design_power=1.5")
    assert code == 2 and "--set design_power must be a number in (0, 1), got 1.5" in err
    for fmt in ("markdown", "json"):
        code, out, _ = _run("recommend", gold, *preds, "--labels", "neg,neu,pos", "--no-properties",
                            "--set", "criteria_replicates=20", "--set", "n_splits=50", "--set", "tukey_trials=100",
                            "--official", "accuracy", *fast, "--format", fmt)
        assert code == 0 and "Test-set size: with 60 items" in out and "metaeval design" in out
        if fmt == "json":
            assert json.loads(out)["test_set_size"].startswith("Test-set size: with 60 items")


def test_input_format_is_the_configs_format_and_span_format_its_old_name():
    """Catches --input-format ignored (SemEval-2016 Task 6's .txt files read
    by their ending and refused), or --span-format dropped or silent."""
    gold, preds = SPANS / "si" / "gold.labels", sorted((SPANS / "si" / "predictions").glob("*.txt"))
    base = ["score", gold, *preds, "--articles", SPANS / "articles", "--format", "csv", "--no-intervals",
            "--set", "merge_overlapping_predictions=true"]
    code, new, err = _run(*base, "--input-format", "semeval2020_si")
    assert code == 0, err
    code, old, err = _run(*base, "--span-format", "semeval2020_si")
    assert code == 0 and old == new and "--span-format is now --input-format" in err
    code, _, err = _run(*base, "--span-format", "semeval2020_si", "--input-format", "semeval2020_tc")
    assert code == 2 and "give --input-format alone" in err


def test_input_format_reads_semeval_2016_task_6_files(tmp_path):
    rows = [("1", "t1", "FAVOR", "FAVOR"), ("2", "t1", "AGAINST", "FAVOR"), ("3", "t2", "NONE", "NONE")]
    for name, col in (("gold.txt", 2), ("run_a.txt", 3)):
        (tmp_path / name).write_text("ID\tTarget\tTweet\tStance\n" + "".join(
            f"{r[0]}\t{r[1]}\ttweet\t{r[col]}\n" for r in rows))
    args = ["score", tmp_path / "gold.txt", tmp_path / "run_a.txt", "--metrics", "accuracy", "--no-intervals",
            "--format", "csv"]
    code, _, err = _run(*args)
    assert code == 1 and ".txt" in err  # by its ending, a .txt file is not a label file
    code, out, err = _run(*args, "--input-format", "semeval_tsv")
    assert code == 0, err
    assert _csv(out)["accuracy"].tolist() == [pytest.approx(2 / 3)]


def test_the_title_says_what_the_intervals_resampled(files):
    """Catches the title saying "of the groups" when --set resample_unit=item
    made the intervals resample items (issue 30: a copied rule gone wrong)."""
    gold, preds = files["csv"]
    args = ["score", gold, *preds, "--group-column", "target", "--metrics", "accuracy", "--replicates", "50",
            "--format", "markdown"]
    by_group = _run(*args)[1]
    by_item = _run(*args, "--set", "resample_unit=item")[1]
    assert "bootstrap intervals of the groups" in by_group and "bootstrap intervals of the items" in by_item
    assert by_group != by_item  # (and the numbers differ: other resamples)


def test_set_reads_a_comma_list_for_a_list_key():
    """The trial of issue 30: --set f_avg_classes=FAVOR,AGAINST was split
    into characters."""
    from metaeval.cli import _setting

    assert _setting("f_avg_classes=FAVOR,AGAINST") == ("f_avg_classes", ["FAVOR", "AGAINST"])
    assert _setting("noise_rates=0.05, 0.1") == ("noise_rates", [0.05, 0.1])
    assert _setting("criteria=[stability, power]") == ("criteria", ["stability", "power"])
    assert _setting("official_source=Scarton et al., 2020") == ("official_source", "Scarton et al., 2020")


# -- issue 32: a command line that behaves like sacrebleu's ------------------------------------------------------
def test_standard_input_stands_for_one_file(files):
    """`cat gold.csv | metaeval score - preds...`: the scores of the gold read from a file."""
    gold, preds = files["csv"]
    argv = ["score", "-", *map(str, preds), "--no-intervals", "--format", "csv", "--quiet"]
    res = subprocess.run([sys.executable, "-m", "metaeval", *argv], input=gold.read_text(), capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    code, want, _ = _run("score", gold, *preds, "--no-intervals", "--format", "csv", "--quiet")
    assert code == 0 and res.stdout == want
    res = subprocess.run([sys.executable, "-m", "metaeval", "score", "-", "-", "--quiet"], input="",
                         capture_output=True, text=True)
    assert res.returncode == 2 and "one file only" in res.stderr


def test_python_dash_m_metaeval_is_the_command_line():
    res = subprocess.run([sys.executable, "-m", "metaeval", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("usage: metaeval")


def test_metaeval_metrics_lists_every_id_with_its_name_and_direction(tmp_path):
    from metaeval.measures import labels as M
    from metaeval.measures.scores import SCORE_METRIC_IDS
    from metaeval.measures.spans import SPAN_METRIC_IDS

    code, out, _ = _run("metrics", "--format", "csv")
    df = pd.read_csv(io.StringIO(out))
    assert code == 0 and df["id"].tolist() == list(M.METRIC_IDS) + list(SCORE_METRIC_IDS) + list(SPAN_METRIC_IDS)
    assert df.set_index("id").loc["map", "kind"] == "scores" and df.set_index("id").loc["brier", "better"] == "lower"
    assert "groups" in df.set_index("id").loc["map", "needs"]
    row = df.set_index("id").loc["macro_recall"]
    assert row["better"] == "higher" and "balanced_accuracy" in row["other names"]
    assert row["name"] == "Rᴹ" and df.set_index("id").loc["alpha_nominal", "name"] == "αᴺᴼᴹ"  # typeset, ids ASCII
    assert df.set_index("id").loc["f1_class", "needs"] == "positive_class"
    assert df.set_index("id").loc["mcc", "default"] == "no"
    (tmp_path / "mine.py").write_text("import numpy as np\nMETRICS = {'mine': {'function': lambda c: "
                                      "np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1)), 'higher_is_better': False}}\n")
    try:
        code, out, _ = _run("metrics", "--format", "csv", "--metric-module", tmp_path / "mine.py")
        assert pd.read_csv(io.StringIO(out)).set_index("id").loc["mine", "better"] == "lower"
    finally:
        from metaeval.measures.custom import unregister_metric

        unregister_metric("mine")


def test_the_terminal_table_aligns_text_left_under_pandas_3(files):
    """Names read from the left whatever the text columns' dtype (pandas 3's
    "str", pandas 2's object): the first column's cells start at the line's
    start (the trial: right-aligned names)."""
    from metaeval.cli import _render

    df = pd.DataFrame({"system": pd.array(["a", "long_name"], dtype="string"), "score": [0.5, 0.25]})
    lines = _render(df, "table").splitlines()
    assert lines[1].startswith("a ") and lines[2].startswith("long_name")
    obj = pd.DataFrame({"system": np.array(["a", "long_name"], dtype=object), "score": [0.5, 0.25]})
    assert _render(obj, "table") == _render(df, "table")
    # every column starts at the same place in the header and the rows, after a text column too (the trial:
    # compare's headers one character right of their cells from the third column on); numbers end together
    wide = pd.DataFrame({"metric": ["accuracy", "kappa"], "best": ["BUT-FIT_TOP-N_avg", "x"],
                         "n": [1, 12], "other": ["t", "theosdoor"], "power": [0.905, np.nan]})
    lines = _render(wide, "table").splitlines()
    starts = [lines[0].index(h) for h in ("best", "other")]
    assert all(line[s - 2:s] == "  " and line[s] != " " for line in lines[1:] for s in starts), lines
    ends = {len(line) for line in lines[:2]}
    assert len(ends) == 1 and lines[1].endswith("0.905") and lines[2].rstrip().endswith("theosdoor"), lines


def _on_a_terminal(argv, delay: float = 0.0) -> tuple[int, str, str]:
    """``python -m metaeval ARGV`` with standard output and standard error
    each on a pseudo-terminal of its own (what a terminal shows: ``\r\n``
    line ends), the progress line shown after ``delay`` seconds."""
    import os
    import pty
    import select

    code = ("import runpy, sys; import metaeval.cli as c; "
            f"c._Progress.DELAY, c._Progress.INTERVAL = {delay}, 0.01; "
            "runpy.run_module('metaeval', run_name='__main__', alter_sys=True)")
    (out_m, out_s), (err_m, err_s) = pty.openpty(), pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", code, *map(str, argv)], stdin=subprocess.DEVNULL, stdout=out_s,
                            stderr=err_s)
    os.close(out_s)
    os.close(err_s)
    got, reading = {out_m: b"", err_m: b""}, {out_m, err_m}
    while reading:
        ready, _, _ = select.select(sorted(reading), [], [], 60)
        assert ready, "no output for a minute"
        for fd in ready:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:  # (Linux: EIO once the other end is closed)
                data = b""
            got[fd] += data
            if not data:
                reading.discard(fd)
                os.close(fd)
    return proc.wait(timeout=60), got[out_m].decode(), got[err_m].decode()


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals: POSIX")
def test_on_a_terminal_the_table_aligns_and_the_progress_goes_to_standard_error(files):
    """The command as a user runs it in a terminal (stdout and stderr on
    pseudo-terminals, the installed pandas): the columns of the table line
    up, the names read from the left, the signature ends it; the progress
    line, with the fraction done, is on standard error only."""
    import re

    gold, preds = files["csv"]
    code, out, err = _on_a_terminal(["score", gold, *preds, "--metrics", "accuracy,macro_f1", "--replicates",
                                      "10000"])
    assert code == 0, err
    out = re.sub(r"\x1b\[[0-9;]*m", "", out)  # (a colour reset some libraries write at exit)
    lines = out.replace("\r\n", "\n").rstrip("\n").split("\n")
    assert "\r" not in out.replace("\r\n", "") and "%" not in out.replace("95%", "")  # no progress here
    head = next(i for i, line in enumerate(lines) if line.startswith("system "))
    rows = lines[head + 1:head + 1 + len(preds)]
    starts = [m.start() for m in re.finditer(r"(?<=\s)\S+|^\S+", lines[head])]  # each column's first character
    assert len(starts) == 4
    for row in rows:
        assert row[0] != " " and row.split()[0].startswith("sys_")  # the name column, left-aligned
        assert all(row[s] != " " and (s == 0 or row[s - 1] == " ") for s in starts), (lines[head], row)
    assert len({len(row) for row in rows}) == 1  # (the value [low, high] cells have one width)
    assert lines[-2] == "" and lines[-1].startswith("metaeval ") and "| bootstrap 10000 (seed " in lines[-1]
    # standard error: the progress line, redrawn in place, then 'done'
    assert "scoring with 10000 bootstrap replicates ... " in err and err.rstrip().endswith("done")
    assert re.search(r"bootstrap replicates \d+ % \([\d,]+/10,000\) \d+\.\d s", err), err[-500:]
    assert "sys_a" not in err and "metaeval 0" not in err
    # --quiet: nothing on standard error
    code, out_quiet, err = _on_a_terminal(["score", gold, *preds, "--metrics", "accuracy", "--replicates", "200",
                                           "--quiet"])
    assert code == 0 and err == "" and "sys_a" in out_quiet


def test_the_progress_line_says_the_fraction_done_and_the_time_left():
    """The line of a pass that reported 430 of 1000 in 3.2 s: about 4 s left."""
    from metaeval.cli import _Progress, _duration

    p = _Progress(True)
    p._start = 100.0
    p.listen(100, 1000, "bootstrap replicates")  # a pass starts: it began when the step did
    p._pass = ("bootstrap replicates", 1000, 100.0, 430, 103.2)  # (its later report, at a known time)
    assert p.line("scoring", 103.2) == "scoring ... bootstrap replicates 43 % (430/1,000) 3.2 s, about 4 s left"
    p.listen(5, 20, "design subsets")  # another pass: it began at the last report of the one before
    assert p._pass[2] == 103.2
    assert p.line("x", 103.2).startswith("x ... design subsets 25 % (5/20)")
    assert _duration(0.2) == "1 s" and _duration(150) == "2 min" and _duration(7200) == "2.0 h"
    quiet = _Progress(False)
    with quiet.step("nothing"):  # not enabled: no listener, no thread
        from metaeval.engine.progress import _LISTENER

        assert _LISTENER.get() is None


# -- the signature: every output says what it was computed with (issue 32) -------------------------------------------
FAST = {"score": ["--replicates", "60"],
        "compare": ["--trials", "60"],
        "recommend": ["--labels", "neg,neu,pos", "--no-properties", "--set", "criteria_replicates=20", "--set",
                      "criteria_splits=2", "--set", "n_splits=20", "--set", "noise_repeats=5", "--set",
                      "bootstrap_replicates=60", "--set", "design_draws=10", "--set", "min_systems=2"],
        "design": ["--set", "bootstrap_replicates=60", "--set", "design_draws=10"]}


def _signature_of(out: str, fmt: str) -> str:
    """The signature line of an output in ``fmt``, where that format puts it."""
    lines = out.rstrip("\n").splitlines()
    if fmt == "json":
        return json.loads(out)["signature"]
    if fmt in ("csv", "latex"):
        mark = {"csv": "# ", "latex": "% "}[fmt]
        assert lines[0].startswith(mark + "metaeval ")
        return lines[0][len(mark):]
    assert lines[-2] == ""  # a line of its own, after the table
    return lines[-1].strip("`") if fmt == "markdown" else lines[-1]


@pytest.mark.parametrize("command", ["score", "compare", "recommend", "design"])
def test_every_command_signs_every_output_format(files, command):
    """The same one-line signature in the table, CSV (a first # line that
    pandas skips with comment="#"), JSON (with its values), Markdown and
    LaTeX (a % line), from the settings used."""
    from metaeval import __version__
    from metaeval.cli import FORMATS_OUT, signature_text

    gold, preds = files["csv"]
    args = [command, gold, *preds, "--metrics", "accuracy,macro_f1", *FAST[command]]
    signatures = {}
    for fmt in FORMATS_OUT:
        code, out, err = _run(*args, "--format", fmt)
        assert code == 0, err
        signatures[fmt] = _signature_of(out, fmt)
        if fmt == "json":
            fields = json.loads(out)["signature_fields"]
            assert signature_text(fields) == signatures[fmt]
        if fmt == "csv":
            assert len(pd.read_csv(io.StringIO(out), comment="#")) >= 2
    assert len(set(signatures.values())) == 1, signatures
    sig = signatures["csv"]
    assert sig.startswith(f"metaeval {__version__} | {command} | metrics accuracy,macro_f1 | ")
    assert "| unit items | " in sig and ("| criteria stability,power" in sig) == (command == "recommend")
    assert fields["version"] == __version__ and fields["metrics"] == ["accuracy", "macro_f1"]
    want = {"score": ("bootstrap", 60, 20210303), "compare": ("tukey", 60, 20210304),
            "recommend": ("criteria", 20, 20210306), "design": ("bootstrap", 60, 20210303)}[command]
    assert (fields["resampling"][0]["method"], fields["resampling"][0]["resamples"],
            fields["resampling"][0]["seed"]) == want
    if command in ("score", "recommend"):  # the outputs with intervals say how they are made
        assert "intervals " in sig and fields["intervals"]["confidence"] == 0.95


@pytest.mark.parametrize("command, options, wanted", [
    ("score", ["--set", "bootstrap_replicates=70"], "bootstrap 70 (seed 20210303) | intervals percentile 95%"),
    ("score", ["--replicates", "80", "--set", "bootstrap_seed=5", "--interval-method", "bca", "--confidence", "0.9"],
     "bootstrap 80 (seed 5) | intervals bca 90%"),
    ("score", ["--no-intervals"], "metrics accuracy,macro_f1 | no resampling"),
    ("score", ["--group-column", "target"], "unit groups | bootstrap 60"),
    ("compare", ["--trials", "70", "--set", "tukey_seed=9", "--alpha", "0.1"],
     "Tukey trials 70 (seed 9) | test randomised Tukey HSD | alpha 0.1"),
    ("compare", ["--test", "bootstrap", "--correction", "bh", "--set", "bootstrap_replicates=90"],
     "bootstrap 90 (seed 20210303) | test paired bootstrap, bh correction | alpha 0.05"),
    ("recommend", ["--set", "criteria_seed=3", "--set", "criteria_splits=3", "--set", "confidence=0.9"],
     "criteria resamples 20 (seed 3, 3 half-splits each) | half-splits 20 (seed 20210301)"),
    ("recommend", ["--set", "verdict_alpha=0.1"], "intervals centred percentile 95% | alpha 0.05 | verdict alpha 0.1"),
    ("design", ["--set", "design_power=0.9", "--set", "design_seed=4"],
     "bootstrap 60 (seed 20210303) | design subsets 10 (seed 4) | power 0.9 | alpha 0.05"),
])
def test_the_signature_says_the_settings_used(files, command, options, wanted):
    """Catches a signature of the defaults: each value follows its option or --set."""
    gold, preds = files["csv"]
    code, out, err = _run(command, gold, *preds, "--metrics", "accuracy,macro_f1", *FAST[command], *options,
                          "--format", "csv")
    assert code == 0, err
    assert wanted in out.splitlines()[0], out.splitlines()[0]


def test_a_cell_with_a_hash_survives_the_comment_line(files, tmp_path):
    """A system named run#2: its cells are quoted, so that comment="#" keeps them whole."""
    gold, preds = files["csv"]
    (tmp_path / "run#2.csv").write_text(preds[0].read_text())
    code, out, err = _run("score", gold, tmp_path / "run#2.csv", preds[1], "--metrics", "accuracy",
                          "--no-intervals", "--format", "csv")
    assert code == 0, err
    assert sorted(pd.read_csv(io.StringIO(out), comment="#")["system"]) == ["run#2", "sys_b"]


def test_metaeval_settings_lists_every_setting_and_the_messages_point_to_it(files):
    """A pip install has no config/README.md: the help and the messages name
    `metaeval settings`, which prints every setting with its default and
    meaning (the Configuration page's table, from the same declarations)."""
    import metaeval
    from metaeval.settings import GROUP_OF

    code, out, _ = _run("settings", "--format", "csv")
    df = pd.read_csv(io.StringIO(out), dtype=str).set_index("key")
    assert code == 0 and sorted(df.index) == sorted(GROUP_OF)
    assert df.loc["bootstrap_replicates", "default"] == "1000" and df.loc["tukey_seed", "method"] == "significance"
    assert df.loc["interval_method", "value"] == "'percentile' or 'bca'" and df["meaning"].str.len().min() > 10
    # on a terminal: a block per setting, no line wider than the terminal (a table ran to 341 characters)
    code, out, _ = _on_a_terminal(["settings"])
    lines = out.replace("\r\n", "\n").splitlines()
    assert code == 0 and max(map(len, lines)) <= 104 and "  bootstrap_replicates = 1000   (" in out
    assert sum(line.startswith("  ") and " = " in line for line in lines) == len(GROUP_OF)
    gold, preds = files["csv"]
    code, _, err = _run("score", gold, *preds, "--set", "bootstrap_replicate=3")
    assert code == 2 and "did you mean 'bootstrap_replicates'" in err and "'metaeval settings'" in err
    with pytest.raises(TypeError, match="metaeval settings") as e:
        metaeval.evaluate(["a", "b"], {"x": ["a", "b"]}, bootstrap_replicate=3)
    assert "config/README" not in str(e.value) and "bootstrap_replicates" in str(e.value)
    for cmd in ("score", "compare", "recommend", "design", "init", "metrics", "settings"):
        res = subprocess.run([sys.executable, "-m", "metaeval", cmd, "--help"], capture_output=True, text=True)
        assert res.returncode == 0 and "config/README" not in res.stdout, cmd
        if cmd in ("score", "compare", "recommend", "design"):  # --set's help names the listing
            assert "'metaeval settings' lists each with its default and meaning" in " ".join(res.stdout.split())


@pytest.mark.parametrize("body,fault", [
    ("lambda c: 2 + 0 * c.sum((-2, -1)), 'higher_is_better': True, 'range': [0, 1]", "expected values in its range"),
    ("lambda c: 1 - np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1)), 'higher_is_better': True",
     "has higher_is_better: true (as declared, or the default), but it scores a perfect system 0"),
])
def test_a_custom_metric_that_breaks_its_contract_exits_with_1_as_bad_data(files, tmp_path, body, fault):
    """Issue 48: the metric's code is at fault, not an option (docs/cli.md:
    bad data exits with 1, a wrong option with 2)."""
    (tmp_path / "broken.py").write_text(f"import numpy as np\nMETRICS = {{'broken': {{'function': {body}}}}}\n")
    try:
        code, out, err = _run("score", files["csv"][0], *files["csv"][1], "--no-intervals", "--metrics",
                              "accuracy,broken", "--metric-module", tmp_path / "broken.py")
        assert code == 1 and out == "" and "custom metric 'broken'" in err and fault in err
    finally:
        from metaeval.measures.custom import unregister_metric

        unregister_metric("broken")
