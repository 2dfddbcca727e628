"""Baselines are said (issue 47, point 5): a file named like a baseline is
never ranked as a real system without a word.  The rule
(``config.baseline_word``), ``metaeval init`` (it declares such a file in
``baseline_systems`` and says so), the workflow's ingestion (one warning
line, in ``dataset.json`` too, and ``real_systems`` to silence it), the
line naming every dataset's systems at a run's start, the library
(``UserWarning``) and the command line (a warning on standard error, with
``--baseline-systems`` and ``--real-systems``).  The fixture
``tests/fixtures/named_baselines`` is a binary task with three systems and
an organisers' ``Random_bsl__x``."""

from __future__ import annotations

import io
import json
import shutil
import warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest
import yaml

from metaeval.data.config import ConfigError, DatasetSpec, baseline_word, load_config, name_words
from metaeval.data.dataset import load_dataset

from .conftest import FIXTURES, ROOT

RAW = dict(gold="named_baselines/gold.csv", predictions=["named_baselines/predictions/*.csv"],
           labels=["neg", "pos"])
WARNING = ("system 'Random_bsl__x' ({file}) is named like a baseline (the word 'Random') and is ranked as a real "
           "system: if it is a baseline, add the line \"baseline_systems: [Random_bsl__x]\" to datasets.mine in the "
           "config; if it is a real system, add \"real_systems: [Random_bsl__x]\" (either line silences this)")
LIBRARY = ("dataset 'data': system 'Random_bsl__x' is named like a baseline (the word 'Random') and is ranked as a "
           "real system: if it is a baseline, give baseline_systems=['Random_bsl__x']; if it is a real system, "
           "real_systems=['Random_bsl__x'] silences this")


@pytest.fixture
def data(tmp_path):
    shutil.copytree(FIXTURES / "named_baselines", tmp_path / "named_baselines")
    return tmp_path


def _spec(**kw):
    return DatasetSpec.from_config("mine", {**RAW, **kw})


def _run(*argv) -> tuple[int, str, str]:
    from metaeval.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------
# the rule
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("stem, word", [
    # the file names of ../shared/data that the rule marks, and those it must not
    ("baseline", "baseline"), ("baseline_rerun_msci598", "baseline"), ("varshanth_baseline_quotes", "baseline"),
    ("branchLSTM_RE2019baseline_devrun", "baseline"), ("branchLSTM_baseline", "baseline"),
    ("baseline-true", "baseline"), ("baseline-ir", "baseline"), ("baseline-random", "baseline"),
    ("organizers_baseline", "baseline"),
    ("uw_jliu_random_forest", None), ("jmrf_laser_randomforest", None), ("W0lgast_branchLSTM_rerun", None),
    ("BUT-FIT_TOP-N_avg-softmax_RE2019devrun", None), ("talos", None), ("chips_ahoy", None),
    ("theosdoor_llama3.2-3b_few-shot", None),
    # the issue's organisers' baseline, and each word of the rule in any case
    ("Random_bsl__x", "Random"), ("x_BSL", "BSL"), ("MajorityVote", "Majority"), ("myBaselines2", "Baselines"),
    ("random", "random"), ("RandomForest", None), ("random-forests", None), ("randomized", None),
    ("baselined", None), ("abaseline", None),
])
def test_the_rule_marks_a_word_of_the_name(stem, word):
    assert baseline_word(stem) == word


def test_the_words_of_a_name():
    assert name_words("RE2019baseline") == ["RE", "2019", "baseline"]
    assert name_words("branchLSTM_RE2019baseline_devrun") == ["branch", "LSTM", "RE", "2019", "baseline", "devrun"]
    assert name_words("LSTMBaseline-v2.1") == ["LSTM", "Baseline", "v", "2", "1"]


def test_the_shared_data_s_names(data_dir):
    """Every file of ../shared/data the rule marks, against the list of the
    issue (the SemEval-2020 Task 11 organisers' files too)."""
    marked = sorted(str(p.relative_to(data_dir)) for p in data_dir.rglob("*")
                    if p.is_file() and p.suffix in (".csv", ".tsv", ".txt") and baseline_word(p.stem))
    assert [m for m in marked if "baselines/" not in m] == [
        "fnc1/predictions/baseline.csv", "fnc1/predictions_extra/baseline_rerun_msci598.csv",
        "fnc1/predictions_extra/varshanth_baseline_quotes.csv",
        "rumoureval2017/predictions_other/branchLSTM_RE2019baseline_devrun.csv",
        "rumoureval2019/predictions/branchLSTM_baseline.csv",
        "semeval2020t11/predictions/SI/organizers_baseline.txt",
        "semeval2020t11/predictions/TC_v1_1075spans/organizers_baseline.txt"]
    assert all(Path(m).name.startswith("baseline-") for m in marked if "baselines/" in m)


# ---------------------------------------------------------------------------
# metaeval init
# ---------------------------------------------------------------------------
def test_init_declares_a_file_named_like_a_baseline_and_says_so(tmp_path):
    folder = tmp_path / "task"
    shutil.copytree(FIXTURES / "named_baselines", folder)
    code, out, err = _run("init", folder)
    assert code == 0 and err == "", err
    cfg_path = folder / "metaeval.yaml"
    lines = out.splitlines()
    assert lines[0] == f"wrote {cfg_path} (4 systems, labels neg, pos); run it with"
    assert lines[3:] == [
        "real systems (3): sys_a, sys_b, sys_c",
        "baselines (5): Random_bsl__x (named like a baseline: the word 'Random'), and the generated majority, "
        "all_neg, all_pos, random",
        f"to rank Random_bsl__x as a real system instead, replace \"baseline_systems: [Random_bsl__x]\" with "
        f"\"real_systems: [Random_bsl__x]\" in {cfg_path}"]
    text = cfg_path.read_text()
    assert text.endswith("    # files named like baselines (a word of the name is baseline, bsl, random or "
                         "majority): ranked apart\n    # from the real systems; move a name to real_systems: [...] "
                         "to rank it as a real system\n    baseline_systems: [Random_bsl__x]\n")
    cfg = load_config(cfg_path)
    assert cfg["datasets"]["task"]["baseline_systems"] == ["Random_bsl__x"]
    spec = DatasetSpec.from_config("task", cfg["datasets"]["task"])
    ds = load_dataset(spec, cfg["data_dir"])
    kinds = dict(zip(ds.systems, ds.kinds))
    assert kinds["Random_bsl__x"] == "baseline" and kinds["sys_a"] == "system"
    assert ds.info["warnings"] == []
    assert ds.info["systems"]["named_like_baselines"] == {
        "Random_bsl__x": {"word": "Random", "treated_as": "baseline", "declared_by": "baseline_systems"}}
    # the replacement the output gives ranks it as a real system, without a warning
    cfg_path.write_text(text.replace("baseline_systems: [Random_bsl__x]", "real_systems: [Random_bsl__x]"))
    cfg = load_config(cfg_path)
    ds = load_dataset(DatasetSpec.from_config("task", cfg["datasets"]["task"]), cfg["data_dir"])
    assert dict(zip(ds.systems, ds.kinds))["Random_bsl__x"] == "system" and ds.info["warnings"] == []


def test_init_without_a_file_named_like_a_baseline_names_the_systems(tmp_path):
    folder = tmp_path / "plain"
    shutil.copytree(FIXTURES / "named_baselines", folder)
    (folder / "predictions" / "Random_bsl__x.csv").unlink()
    code, out, _ = _run("init", folder)
    assert code == 0
    assert out.splitlines()[3:] == ["real systems (3): sys_a, sys_b, sys_c",
                                    "baselines (4): majority, all_neg, all_pos, random"]
    assert "baseline_systems" not in (folder / "metaeval.yaml").read_text()


# ---------------------------------------------------------------------------
# the workflow's reading
# ---------------------------------------------------------------------------
def test_the_ingestion_says_an_undeclared_file_once_and_records_it(data, capsys):
    from metaeval.workflow import steps
    from metaeval.workflow import ingest

    out = data / "results"
    out.mkdir()
    steps._WARNINGS.clear()
    ingest(_spec(), data, out / "data.npz", out / "dataset.json")
    file = data / "named_baselines/predictions/Random_bsl__x.csv"
    err = capsys.readouterr().err
    assert err == f"WARNING: dataset 'mine': {WARNING.format(file=file)}\n"
    info = json.loads((out / "dataset.json").read_text())
    assert info["warnings"] == [WARNING.format(file=file)]
    assert info["systems"] == {
        "real": ["Random_bsl__x", "sys_a", "sys_b", "sys_c"], "supplied_baselines": [],
        "generated_baselines": ["majority", "all_neg", "all_pos", "random"], "synthetic": [],
        "named_like_baselines": {"Random_bsl__x": {"word": "Random", "treated_as": "real system",
                                                   "declared_by": None}}}
    steps._WARNINGS.clear()


def test_the_warning_gives_the_dataset_s_own_patterns(data):
    """The line to add keeps what the dataset declares already."""
    (data / "named_baselines/predictions/organisers_x.csv").write_bytes(
        (data / "named_baselines/predictions/sys_a.csv").read_bytes())
    ds = load_dataset(_spec(baseline_systems=["organisers_*"]), data)
    (w,) = [w for w in ds.info["warnings"] if "named like a baseline" in w]  # (the other: a copy of sys_a)
    assert "add the line \"baseline_systems: [organisers_*, Random_bsl__x]\"" in w
    assert "add \"real_systems: [Random_bsl__x]\"" in w


@pytest.mark.parametrize("key, kind", [("real_systems", "system"), ("baseline_systems", "baseline")])
def test_a_declaration_silences_it(data, key, kind):
    ds = load_dataset(_spec(**{key: ["Random_*"]}), data)
    assert dict(zip(ds.systems, ds.kinds))["Random_bsl__x"] == kind
    assert ds.info["warnings"] == []
    assert ds.info["systems"]["named_like_baselines"]["Random_bsl__x"]["declared_by"] == key
    assert ("Random_bsl__x" in ds.info["systems"]["real"]) == (kind == "system")


def test_both_keys_or_a_pattern_that_names_no_file_are_refused(data):
    with pytest.raises(ConfigError, match=r"^datasets\.mine: the file 'Random_bsl__x' is a baseline by "
                                          r"baseline_systems 'Random_\*' and a real system by real_systems "
                                          r"'\*_x': a system is one or the other; narrow one of the patterns$"):
        load_dataset(_spec(baseline_systems=["Random_*"], real_systems=["*_x"]), data)
    with pytest.raises(ConfigError, match=r"^datasets\.mine\.real_systems: 'Random_bsl__x' is in baseline_systems "
                                          r"too: a system is a baseline or a real system; keep it in one of them$"):
        _spec(baseline_systems=["Random_bsl__x"], real_systems=["Random_bsl__x"])
    with pytest.raises(ConfigError, match=r"^datasets\.mine\.real_systems: 'zz' matches no prediction file"):
        load_dataset(_spec(real_systems=["zz"]), data)


def test_the_schema_takes_real_systems(data):
    cfg = {"data_dir": str(data), "datasets": {"mine": {**RAW, "real_systems": ["Random_bsl__x"]}}}
    path = data / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    assert load_config(path)["datasets"]["mine"]["real_systems"] == ["Random_bsl__x"]
    path.write_text(yaml.safe_dump({**cfg, "datasets": {"mine": {**RAW, "real_systems": "Random_bsl__x"}}}))
    with pytest.raises(ConfigError, match="real_systems: 'Random_bsl__x' is not of type 'array'"):
        load_config(path)


def test_a_span_dataset_says_it_too():
    """The organisers' baseline of the toxic-spans fixture, undeclared."""
    spec = DatasetSpec.from_config("toxic", {"format": "semeval2021_tsd", "gold": "tsd/gold.csv",
                                             "predictions": ["tsd/predictions/*.txt"]})
    ds = load_dataset(spec, FIXTURES)
    (w,) = [w for w in ds.info["warnings"] if "named like a baseline" in w]
    assert w.startswith("system 'organisers_baseline' (") and "(the word 'baseline')" in w
    assert "real_systems: [organisers_baseline]" in w
    declared = DatasetSpec.from_config("toxic", {"format": "semeval2021_tsd", "gold": "tsd/gold.csv",
                                                 "predictions": ["tsd/predictions/*.txt"],
                                                 "baseline_systems": ["organisers_*"]})
    ds = load_dataset(declared, FIXTURES)
    assert not [w for w in ds.info["warnings"] if "named like a baseline" in w]
    assert ds.info["systems"]["supplied_baselines"] == ["organisers_baseline"]


def test_every_run_names_the_systems_of_each_dataset(data):
    from metaeval.workflow.params import systems_line

    spec = _spec(baseline_systems=["Random_*"])
    assert systems_line(spec, spec.prediction_files(data)) == (
        "Dataset mine: 3 real systems (sys_a, sys_b, sys_c); baselines: 1 supplied (Random_bsl__x), 4 generated "
        "(majority, all_neg, all_pos, random)")
    spec = _spec()
    assert systems_line(spec, spec.prediction_files(data)) == (
        "Dataset mine: 4 real systems (Random_bsl__x, sys_a, sys_b, sys_c); baselines: 0 supplied, 4 generated "
        "(majority, all_neg, all_pos, random); named like baselines but ranked as real systems, declared neither "
        "way: Random_bsl__x")


def test_the_project_config_declares_every_file_named_like_a_baseline(data_dir, project_config):
    """config/config.yaml ranks what it ranked before: each file named like
    a baseline is declared (a real system where it was one), so a default
    run prints no such warning."""
    from metaeval.data.config import dataset_specs

    seen = {}
    for name, spec in dataset_specs(project_config, base_dir=ROOT / "config").items():
        files = {**spec.score_files(data_dir), **spec.prediction_files(data_dir)}
        supplied, real = spec.supplied_baselines(files), spec.declared_real(files)
        for system, path in files.items():
            if baseline_word(Path(path).stem):
                assert system in supplied | real, (name, system)
                seen.setdefault(name, set()).add(system if system in real else "baseline-*")
    assert seen == {"fnc1": {"baseline"}, "fnc1_paper": {"baseline"}, "fnc1_4class": {"baseline"},
                    "rumoureval2017": {"branchLSTM_RE2019baseline_devrun"},
                    "rumoureval2019": {"branchLSTM_baseline"}, "semeval2020t11_tc_v1": {"organizers_baseline"},
                    "semeval2020t11_si": {"baseline-*"}, "semeval2016t3_b": {"baseline-*"},
                    "semeval2016t3_c": {"baseline-*"}}
    lines = (ROOT / "config" / "config.yaml").read_text().splitlines()
    declared = [i for i, x in enumerate(lines) if x.strip().startswith("real_systems:")]
    assert len(declared) == 5 and all(lines[i - 1].strip().startswith("# ") for i in declared)  # each says why


# ---------------------------------------------------------------------------
# the library and the command line
# ---------------------------------------------------------------------------
def _runs():
    d = FIXTURES / "named_baselines"
    read = lambda f: pd.read_csv(f, dtype=str).set_index("item_id")["label"]  # noqa: E731
    return read(d / "gold.csv"), {p.stem: read(p) for p in sorted((d / "predictions").glob("*.csv"))}


def test_the_library_warns_once_with_its_keywords():
    import metaeval

    gold, runs = _runs()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        scores = metaeval.evaluate(gold, runs, metrics=["accuracy"], intervals=False)
    assert [str(w.message) for w in said] == [LIBRARY] and said[0].category is UserWarning
    assert said[0].filename == __file__  # the user's line
    assert scores.loc["Random_bsl__x", "kind"] == "system"
    for key, kind in (("real_systems", "system"), ("baseline_systems", "baseline")):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            data = metaeval.dataset(gold, runs, metrics=["accuracy"], **{key: ["Random_bsl__x"]})
            scores = metaeval.evaluate(data, intervals=False)
        assert said == [] and scores.loc["Random_bsl__x", "kind"] == kind
    with pytest.raises(ValueError, match=r"^real_systems: \['zz'\] are not systems of predictions"):
        metaeval.dataset(gold, runs, real_systems=["zz"])
    with pytest.raises(ValueError, match=r"^real_systems: \['sys_a'\] are in baseline_systems too"):
        metaeval.dataset(gold, runs, real_systems=["sys_a"], baseline_systems=["sys_a"])


def test_read_files_warns_when_it_reads_and_the_calls_do_not_again():
    import metaeval

    d = FIXTURES / "named_baselines"
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        read = metaeval.read_files(d / "gold.csv", sorted((d / "predictions").glob("*.csv")))
        metaeval.evaluate(read, metrics=["accuracy"], intervals=False)
        metaeval.compare(read, metrics=["accuracy"], tukey_trials=20)
    assert [str(w.message) for w in said] == [LIBRARY]
    assert read[0].info["systems"]["named_like_baselines"]["Random_bsl__x"]["declared_by"] is None
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        ds, _ = metaeval.read_files(d / "gold.csv", sorted((d / "predictions").glob("*.csv")),
                                    baseline_systems=["Random_bsl__x"])
    assert said == [] and dict(zip(ds.systems, ds.kinds))["Random_bsl__x"] == "baseline"


def test_the_command_line_warns_with_its_options():
    d = FIXTURES / "named_baselines"
    files = [d / "gold.csv", *sorted((d / "predictions").glob("*.csv"))]
    code, out, err = _run("score", *files, "--metrics", "accuracy", "--no-intervals")
    assert code == 0
    assert err == ("warning: dataset 'data': system 'Random_bsl__x' is named like a baseline (the word 'Random') and "
                   "is ranked as a real system: if it is a baseline, give --baseline-systems Random_bsl__x; if it "
                   "is a real system, --real-systems Random_bsl__x silences this\n")
    assert "Random_bsl__x,system," in out
    code, out, err = _run("score", *files, "--metrics", "accuracy", "--no-intervals", "--baseline-systems", "Rand*")
    assert (code, err) == (0, "") and "Random_bsl__x,baseline," in out
    code, out, err = _run("score", *files, "--metrics", "accuracy", "--no-intervals", "--real-systems", "Random_bsl__x")
    assert (code, err) == (0, "") and "Random_bsl__x,system," in out
    code, _, err = _run("score", *files, "--no-intervals", "--real-systems", "zz")
    assert code == 2 and err == ("metaeval score: --real-systems: 'zz' matches no system (the files' names without "
                                 "extension: Random_bsl__x, sys_a, sys_b, sys_c)\n")


@pytest.mark.workflow
def test_the_workflow_on_init_s_config_names_the_systems_and_says_an_undeclared_one(tmp_path):
    """The config ``metaeval init`` writes, run by Snakemake: its start names
    the real systems and the baselines, ``Random_bsl__x`` is scored as a
    baseline; with the declaration removed, one warning line says so (when
    the files are read, and in the run's summary of warnings) and
    ``dataset.json`` records it."""
    import subprocess
    import sys

    folder = tmp_path / "task"
    shutil.copytree(FIXTURES / "named_baselines", folder)
    code, out, err = _run("init", folder)
    assert code == 0, err
    cfg = folder / "metaeval.yaml"
    from metaeval.data.resources import snakefile

    def run():
        res = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(snakefile()), "--cores", "2",
                              "--configfile", str(cfg), "--directory", str(folder / "run"),
                              "results/task/scores.csv", "results/task/dataset.json"],
                             capture_output=True, text=True, timeout=600, cwd=tmp_path)
        assert res.returncode == 0, res.stderr[-3000:]
        return res.stdout + res.stderr

    said = run()
    assert ("Dataset task: 3 real systems (sys_a, sys_b, sys_c); baselines: 1 supplied (Random_bsl__x), 4 generated "
            "(majority, all_neg, all_pos, random)") in said
    assert "named like a baseline" not in said
    scores = pd.read_csv(folder / "run/results/task/scores.csv").set_index("system")
    assert scores.loc["Random_bsl__x", "kind"] == "baseline"
    cfg.write_text(cfg.read_text().replace("    baseline_systems: [Random_bsl__x]\n", ""))
    said = run()
    file = folder / "predictions/Random_bsl__x.csv"
    line = (WARNING.replace("datasets.mine", "datasets.task").format(file=file))
    assert said.count(f"WARNING: dataset 'task': {line}\n") == 1  # when the files are read
    assert said.count(f"  task: dataset 'task': {line}\n") == 1  # the run's summary of its warnings
    assert "declared neither way: Random_bsl__x" in said
    info = json.loads((folder / "run/results/task/dataset.json").read_text())
    assert info["warnings"] == [line] and "Random_bsl__x" in info["systems"]["real"]
    assert pd.read_csv(folder / "run/results/task/scores.csv").set_index("system").loc["Random_bsl__x",
                                                                                         "kind"] == "system"
