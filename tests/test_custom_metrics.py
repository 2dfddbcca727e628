"""Metrics users bring (issue 31): registered from the library, the config
and the command line; equal to their own reference everywhere; held to
their contract before any work; an edit of their file reruns exactly the
jobs that compute them."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

import metaeval
from metaeval.measures import labels as M
from metaeval.data.config import ConfigError, dataset_specs
from metaeval.measures.custom import (MetricContractError, check, declare, is_custom, load_module, register_metric,
                                      unregister_metric)

from .conftest import ROOT

# the example of docs/custom-metrics.md: the worst per-class recall (how the most neglected class is served)
MODULE = '''\
import numpy as np


def worst_recall(c):
    tp = np.diagonal(c, axis1=-2, axis2=-1)   # (..., K): the right answers of each class
    gold = c.sum(axis=-2)                     # (..., K): the gold items of each class
    recall = np.divide(tp, gold, out=np.ones_like(tp), where=gold > 0)
    return recall.min(axis=-1)
'''
ITEMS = '''

def acc_terms(gold, pred, items):
    right = (pred == gold[None, :]).astype(float)
    return np.stack([right, np.ones_like(right)], axis=-1)


def ratio(t):
    return t[..., 0] / t[..., 1]
'''


def worst_recall_loop(gold, pred, k):
    """The reference: a plain loop over the items."""
    recalls = []
    for c in range(k):
        items = [p for g, p in zip(gold, pred) if g == c]
        recalls.append(sum(p == c for p in items) / len(items) if items else 1.0)
    return min(recalls)


@pytest.fixture
def module(tmp_path):
    (tmp_path / "my_metrics.py").write_text(MODULE)
    yield tmp_path / "my_metrics.py"
    unregister_metric("worst_recall")


def _fn(path):
    from metaeval.measures.custom import resolve

    return resolve(f"{path}:worst_recall")[0]


# -- the library ------------------------------------------------------------------------------------------------
def test_a_registered_metric_equals_its_reference_on_random_label_lists(module):
    register_metric("worst_recall", _fn(module), range=(0, 1), name="min-R")
    rng = np.random.default_rng(3)
    for _ in range(300):
        k = int(rng.integers(2, 6))
        n = int(rng.integers(1, 50))
        g, p = rng.integers(0, k, n), rng.integers(0, k, n)
        got = metaeval.score(g.tolist(), p.tolist(), "worst_recall", labels=list(range(k)))
        assert got == pytest.approx(worst_recall_loop(g, p, k), abs=1e-12)
    assert M.get("worst_recall").name == "min-R" and is_custom("worst_recall") and not is_custom("accuracy")
    assert "worst_recall" not in M.METRIC_IDS and "worst_recall" not in M.applicable_metrics(False)


def test_metrics_given_as_a_mapping_register_and_score(module):
    rng = np.random.default_rng(5)
    g = rng.choice(["a", "b", "c"], 200)
    systems = {f"s{i}": np.where(rng.random(200) < 0.4 + 0.15 * i, g, rng.choice(["a", "b", "c"], 200))
               for i in range(3)}
    got = metaeval.evaluate(g, systems, metrics={"accuracy": None, "worst_recall": {
        "function": f"{module}:worst_recall", "higher_is_better": True, "range": [0, 1]}}, intervals=False,
        baselines=[])
    assert list(got.columns) == ["kind", "accuracy", "worst_recall"]
    for s, p in systems.items():
        idx = {x: i for i, x in enumerate("abc")}
        assert got.loc[s, "worst_recall"] == pytest.approx(
            worst_recall_loop([idx[x] for x in g], [idx[x] for x in p], 3), abs=1e-12)
    # a plain function: higher is better, any finite value
    again = metaeval.evaluate(g, systems, metrics={"worst_recall": _fn(module)}, intervals=False, baselines=[])
    assert again["worst_recall"].tolist() == got["worst_recall"].tolist()
    with pytest.raises(TypeError, match="unknown key"):
        metaeval.evaluate(g, systems, metrics={"worst_recall": {"function": _fn(module), "higher": True}})


def _bad(kind):
    """A metric that breaks one clause of the contract."""
    def good(c):
        return np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1))
    return {
        "shape": lambda c: np.diagonal(c, axis1=-2, axis2=-1),                      # per class, not per matrix
        "range": lambda c: 2 * good(c),                                            # up to 2, declared [0, 1]
        "nan": lambda c: np.where(c[..., 0, 0] > 5, np.nan, good(c)),              # NaN with every class present
        "exception": lambda c: good(c) / c["x"],                                    # raises
        "loop": lambda c: good(c) * (1 if c.ndim == 2 else 0.5),                   # batched differs from alone
        "infinite": lambda c: good(c) / 0 + 1,                                     # inf
    }[kind]


FAULTS = {"shape": "expected one score per matrix", "range": "expected values in its range [0, 1]",
          "nan": "found NaN", "exception": "raised IndexError", "loop": "the same scores for a stack",
          "infinite": "found inf"}


@pytest.mark.parametrize("kind", list(FAULTS))
def test_each_contract_violation_is_refused_with_the_metric_and_the_fault(kind):
    with pytest.raises(MetricContractError) as e:
        register_metric("mine", _bad(kind), range=(0, 1), k=3)
    assert "custom metric 'mine'" in str(e.value) and FAULTS[kind] in str(e.value), str(e.value)
    assert "mine" not in M.REGISTRY  # refused: not registered


def test_a_violation_on_the_dataset_s_own_matrices_is_refused_before_any_score():
    """The probe matrices pass; the dataset's systems (one with 3 items of
    class b) do not."""
    register_metric("odd", lambda c: np.where(c[..., 1, 1] == 3, 7.0, 0.5), range=(0, 1))
    try:
        g = ["a", "b", "b", "b", "c"] * 4
        with pytest.raises(MetricContractError, match=r"custom metric 'odd'.*found 7 on the systems of dataset 'data'"):
            metaeval.evaluate(g, {"s": ["a", "b", "b", "b", "c"] + ["a"] * 15}, metrics=["accuracy", "odd"])
    finally:
        unregister_metric("odd")


def test_ids_and_declarations_that_are_refused(tmp_path, module):
    with pytest.raises(MetricContractError, match="a built-in metric has this id"):
        register_metric("accuracy", _bad("range"))
    with pytest.raises(MetricContractError, match="a built-in metric has this id"):
        register_metric("balanced_accuracy", _bad("range"))
    with pytest.raises(MetricContractError, match="unknown need"):
        register_metric("mine", _fn(module), needs=["weight"])
    with pytest.raises(MetricContractError, match="is empty"):
        register_metric("mine", _fn(module), range=(1, 0))
    with pytest.raises(MetricContractError, match="no file"):
        declare("mine", {"function": "nowhere.py:f", "higher_is_better": True}, tmp_path)
    with pytest.raises(MetricContractError, match="has no function 'nope'"):
        declare("mine", {"function": "my_metrics.py:nope", "higher_is_better": True}, tmp_path)
    with pytest.raises(MetricContractError, match="higher_is_better is required"):
        declare("mine", {"function": "my_metrics.py:worst_recall"}, tmp_path)
    (tmp_path / "broken.py").write_text("import nonexistent_package_xyz\n")
    with pytest.raises(MetricContractError, match="importing .*broken.py raised ModuleNotFoundError"):
        declare("mine", {"function": "broken.py:f", "higher_is_better": True}, tmp_path)


def test_a_metric_that_needs_a_dataset_key_gets_it_by_keyword():
    def weighted_recall(c, weights):
        tp = np.diagonal(c, axis1=-2, axis2=-1)
        gold = c.sum(axis=-2)
        return (weights * np.divide(tp, gold, out=np.zeros_like(tp), where=gold > 0)).sum(-1)

    register_metric("wrecall", weighted_recall, needs=["weights"], range=(0, 1))
    try:
        assert M.why_not_applicable("wrecall", False, {}) == "needs the dataset key 'weights'"
        got = metaeval.score(["a", "a", "b"], ["a", "b", "b"], "wrecall", weights={"a": 0.25, "b": 0.75})
        assert got == pytest.approx(0.25 * 0.5 + 0.75 * 1.0)
    finally:
        unregister_metric("wrecall")


def test_the_contract_check_is_vectorised_and_said_in_its_messages():
    m = M.Metric("x", "x", "x", lambda c: np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1)), True, source="f.py:x")
    check(m, np.stack([np.eye(3) * 4, np.ones((3, 3))]))  # passes
    with pytest.raises(MetricContractError, match=r"custom metric 'x' \(f.py:x\).*on my data"):
        check(M.Metric("x", "x", "x", lambda c: c.sum(-1), True, source="f.py:x"), np.ones((2, 3, 3)),
              where="my data")


# -- the config --------------------------------------------------------------------------------------------------
def _config(tmp_path, metrics=("accuracy", "worst_recall"), **decl):
    entry = {"function": "my_metrics.py:worst_recall", "higher_is_better": True, "range": [0, 1], **decl}
    return {"data_dir": str(tmp_path), "custom_metrics": {"worst_recall": entry},
            "datasets": {"d": {"gold": "g.csv", "predictions": ["p/*.csv"], "labels": ["a", "b", "c"],
                               "metrics": list(metrics)},
                         "other": {"gold": "g.csv", "predictions": ["p/*.csv"], "labels": ["a", "b", "c"]}}}


def test_a_config_block_declares_the_metric_with_its_file_s_fingerprint(tmp_path, module):
    specs = dataset_specs(_config(tmp_path), base_dir=tmp_path)
    d = specs["d"].custom_metrics["worst_recall"]
    assert d["function"] == f"{module.resolve()}:worst_recall" and len(d["fingerprint"]) == 64
    assert specs["d"].metrics == ("accuracy", "worst_recall")
    assert specs["other"].custom_metrics == {} and "worst_recall" not in specs["other"].metrics
    with pytest.raises(ConfigError, match=r"^custom_metrics\.worst_recall: .*no file"):
        dataset_specs(_config(tmp_path), base_dir=tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match=r"datasets\.d\.metrics: unknown metric\(s\) \['worst_recal'\].*did you "
                                          r"mean 'worst_recall'"):
        dataset_specs(_config(tmp_path, metrics=["worst_recal"]), base_dir=tmp_path)
    # "default": the papers' candidates that apply, then the ones named
    both = dataset_specs(_config(tmp_path, metrics=["default", "worst_recall"]), base_dir=tmp_path)["d"]
    assert both.metrics == tuple(M.applicable_metrics(False)) + ("worst_recall",)
    with pytest.raises(MetricContractError, match="stands for the default candidates"):
        register_metric("default", _fn(module))
    # a dataset's own block; an id declared twice is refused
    cfg = _config(tmp_path)
    cfg["datasets"]["d"]["custom_metrics"] = cfg.pop("custom_metrics")
    assert dataset_specs(cfg, base_dir=tmp_path)["d"].custom_metrics["worst_recall"]["fingerprint"] == d["fingerprint"]
    cfg["custom_metrics"] = cfg["datasets"]["d"]["custom_metrics"]
    with pytest.raises(ConfigError, match="declared at the top level too"):
        dataset_specs(cfg, base_dir=tmp_path)


@pytest.mark.workflow
@pytest.mark.parametrize("kind", ["shape", "range", "nan", "exception"])
def test_a_config_with_a_metric_that_breaks_its_contract_stops_the_workflow_before_any_job(tmp_path, kind):
    body = {"shape": "np.diagonal(c, axis1=-2, axis2=-1)", "range": "2 + 0 * c.sum((-2, -1))",
            "nan": "np.nan + 0 * c.sum((-2, -1))", "exception": "c.no_such_attribute"}[kind]
    (tmp_path / "my_metrics.py").write_text(f"import numpy as np\n\n\ndef worst_recall(c):\n    return {body}\n")
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {"tiny": {**cfg["datasets"]["tiny"], "metrics": ["accuracy", "worst_recall"]}}
    cfg["custom_metrics"] = {"worst_recall": {"function": "my_metrics.py:worst_recall", "higher_is_better": True,
                                              "range": [0, 1]}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    work = tmp_path / "work"
    work.mkdir()
    res = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "workflow" / "Snakefile"), "--configfile",
                          str(tmp_path / "config.yaml"), "--config", f"data_dir={ROOT / 'tests' / 'fixtures'}",
                          "--directory", str(work), "--cores", "1"], capture_output=True, text=True, timeout=300)
    assert res.returncode != 0
    out = res.stdout + res.stderr
    # (each is held to its contract on the shape of the datasets that list it: tiny's 3 classes)
    assert "datasets.tiny.metrics: custom metric 'worst_recall'" in out and "the probe matrices of dataset 'tiny' (3 " \
        "classes)" in out, out
    assert FAULTS.get(kind, "raised AttributeError") in out or kind == "exception" and "AttributeError" in out, out
    assert not (work / "results").exists() or not any(p.is_file() for p in (work / "results").rglob("*"))


@pytest.mark.workflow
def test_a_metric_that_breaks_its_contract_on_the_data_alone_leaves_no_result_of_it(tmp_path):
    """The probe matrices pass (none has 40 items); tiny's systems (40
    items each) do not: every job that scores the metric refuses before it
    writes, so no table carries it (the trial of issue 31: the experiments
    job, in parallel with the scoring job, wrote intervals of 7.0)."""
    from .workflow_helpers import _run

    (tmp_path / "my_metrics.py").write_text("import numpy as np\n\n\ndef odd(c):\n"
                                            "    return np.where(c.sum((-2, -1)) == 40, 7.0, 0.5)\n")
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["datasets"] = {"tiny": {**cfg["datasets"]["tiny"], "metrics": ["accuracy", "macro_f1", "odd"]}}
    cfg["custom_metrics"] = {"odd": {"function": "my_metrics.py:odd", "higher_is_better": True, "range": [0, 1]}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    work = tmp_path / "work"
    work.mkdir()
    res = _run(work, ROOT / "tests" / "fixtures", "--keep-going", check=False, configfile=tmp_path / "config.yaml")
    assert res.returncode != 0
    assert "custom metric 'odd'" in res.stdout + res.stderr and "found 7 on the systems of dataset 'tiny'" in \
        res.stdout + res.stderr
    written = [p for p in (work / "results").rglob("*.csv") if "odd" in p.read_text()]
    assert not written, written


# -- the command line --------------------------------------------------------------------------------------------
def test_the_command_line_module_option_gives_the_library_s_numbers(tmp_path, module):
    (tmp_path / "mod.py").write_text("from my_metrics import worst_recall\n"
                                     "METRICS = {'worst_recall': {'function': worst_recall, 'higher_is_better': True,"
                                     " 'range': [0, 1]}}\n")
    fx = ROOT / "tests" / "fixtures" / "tiny"
    preds = sorted((fx / "predictions").glob("*.csv"))
    cmd = [sys.executable, "-m", "metaeval.cli", "score", str(fx / "gold.csv"), *map(str, preds),
           "--labels", "neg,neu,pos", "--set", "label_map={other: neu}", "--metric-module", str(tmp_path / "mod.py"),
           "--metrics", "accuracy,worst_recall", "--format", "csv", "--quiet", "--baselines", "majority"]
    res = subprocess.run(cmd, capture_output=True, text=True, env={"PYTHONPATH": f"{tmp_path}:{ROOT / 'src'}",
                                                                     "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    cli = pd.read_csv(__import__("io").StringIO(res.stdout), comment="#").set_index("system")  # (the signature)
    register_metric("worst_recall", _fn(module), range=(0, 1))
    lib = metaeval.evaluate(metaeval.read_files(fx / "gold.csv", preds, labels=["neg", "neu", "pos"],
                                                label_map={"other": "neu"}, metrics=["accuracy", "worst_recall"],
                                                baselines=["majority"]))
    assert cli["worst_recall"].tolist() == lib["worst_recall"].tolist()
    assert cli["worst_recall_low"].tolist() == lib["worst_recall_low"].tolist()
    bad = subprocess.run(cmd[:cmd.index("--metric-module") + 1] + [str(tmp_path / "none.py")]
                         + cmd[cmd.index("--metric-module") + 2:], capture_output=True, text=True)
    assert bad.returncode == 1 and "metric module" in bad.stderr and "no file" in bad.stderr


def test_a_module_without_metrics_is_refused(tmp_path):
    (tmp_path / "empty.py").write_text("x = 1\n")
    with pytest.raises(MetricContractError, match="defines no metric"):
        load_module(str(tmp_path / "empty.py"))


# -- the workflow ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def custom_run(tmp_path_factory, run):
    """The .test run, then the same with a custom metric in tiny's list (a copy)."""
    from .workflow_helpers import _copy_of, _run

    work, data = run
    base = tmp_path_factory.mktemp("custom")
    work = _copy_of(work, base)
    (base / "my_metrics.py").write_text(MODULE + ITEMS)
    cfg = yaml.safe_load((ROOT / ".test" / "config.yaml").read_text())
    cfg["custom_metrics"] = {"worst_recall": {"function": "my_metrics.py:worst_recall", "higher_is_better": True,
                                              "range": [0, 1], "name": "min-R", "reference": "the tests"},
                             # accuracy as per-item terms (metaeval.measures.items): accuracy in every table
                             "item_acc": {"terms": "my_metrics.py:acc_terms", "combine": "my_metrics.py:ratio",
                                          "higher_is_better": True, "range": [0, 1]}}
    cfg["datasets"]["tiny"]["metrics"] = ["accuracy", "macro_f1", "macro_recall", "gmr", "kappa", "worst_recall",
                                          "item_acc"]
    (base / "config.yaml").write_text(yaml.safe_dump(cfg))
    _run(work, data, configfile=base / "config.yaml")
    yield work, data, base
    unregister_metric("worst_recall")
    from metaeval.measures.items import unregister_item_metric

    unregister_item_metric("item_acc")


@pytest.mark.workflow
def test_a_config_metric_is_in_every_table_figure_and_the_verdict(custom_run):
    work, data, _ = custom_run
    res = work / "results" / "tiny"
    scores = pd.read_csv(res / "scores.csv").set_index("system")
    conf = pd.read_csv(res / "confusion.csv")
    for system in scores.index:  # its own reference, from the confusion counts of each system
        c = conf[conf["system"] == system]
        gold = [g for g, n in zip(c["gold"], c["count"]) for _ in range(n)]
        pred = [p for p, n in zip(c["predicted"], c["count"]) for _ in range(n)]
        idx = {x: i for i, x in enumerate(["neg", "neu", "pos"])}
        assert scores.loc[system, "worst_recall"] == pytest.approx(
            worst_recall_loop([idx[x] for x in gold], [idx[x] for x in pred], 3), abs=1e-12)
    metric_files = [p for p in res.rglob("*.csv") if p.name not in ("confusion.csv", "stability_splits.csv",
                                                                       "similarity_groups.csv", "design_swaps.csv")]
    missing = [p.name for p in metric_files if "worst_recall" not in p.read_text() and "min-R" not in p.read_text()]
    assert not missing, missing
    rec = json.loads((res / "recommendation.json").read_text())
    assert "worst_recall" in json.dumps(rec)
    assert "min-R" in (res / "recommendation.md").read_text()
    assert "min-R" in (res / "tables" / "scores.md").read_text()
    assert "worst_recall" in pd.read_csv(res / "properties.csv")["metric"].tolist()
    assert "worst_recall" in pd.read_csv(work / "results" / "cross_dataset" / "criteria.csv")["metric"].tolist()
    assert "min-R" in (res / "tables" / "summary.md").read_text()
    # the metric of per-item terms is accuracy, in the workflow's every table and criterion
    assert scores["item_acc"].tolist() == scores["accuracy"].tolist()
    for name in ("intervals.csv", "significance.csv", "stability.csv", "discriminative_power.csv",
                 "recommendation.csv"):
        df = pd.read_csv(res / name)
        a = df[df["metric"] == "accuracy"].drop(columns="metric").reset_index(drop=True)
        b = df[df["metric"] == "item_acc"].drop(columns="metric").reset_index(drop=True)
        num = [c for c in a.columns if a[c].dtype.kind == "f"]
        assert len(a) and np.allclose(a[num].to_numpy(float), b[num].to_numpy(float), rtol=0, atol=1e-12,
                                      equal_nan=True), name


@pytest.mark.workflow
def test_the_library_and_the_command_line_give_the_workflow_s_numbers(custom_run, tmp_path):
    """The same metric through the library (a mapping) and the command line
    (--metric-module): scores.csv and intervals.csv of the workflow."""
    import io
    from contextlib import redirect_stdout

    from metaeval.cli import main
    from metaeval.data.files import read_result_csv

    from .test_workflow import _tiny_files, _tiny_in_memory

    work, data, base = custom_run
    gold, preds, keys = _tiny_in_memory(data)
    metrics = ["accuracy", "macro_f1", "macro_recall", "gmr", "kappa", "worst_recall"]
    tiny = metaeval.dataset(gold, preds, metrics={m: None for m in metrics[:-1]} | {"worst_recall": {
        "function": f"{base / 'my_metrics.py'}:worst_recall", "higher_is_better": True, "range": [0, 1]}},
        baselines=["majority", "all_class", "random"], **keys)
    lib = metaeval.evaluate(tiny, include_baselines=["majority", "random"], bootstrap_replicates=200,
                            settings=metaeval.api.settings(chunk_size=64))
    scores = read_result_csv(work / "results/tiny/scores.csv").set_index("system")
    iv = read_result_csv(work / "results/tiny/intervals.csv")
    iv = iv[iv["metric"] == "worst_recall"].set_index("system")
    # every system of the data (scores.csv lists the baselines the workflow does not rank too)
    assert metaeval.evaluate(tiny, intervals=False)["worst_recall"].tolist() == scores["worst_recall"].tolist()
    assert lib.index.tolist() == iv.index.tolist()  # the systems ranked: the real ones, majority and random
    assert lib["worst_recall"].tolist() == scores.loc[lib.index, "worst_recall"].tolist()
    assert lib.loc[iv.index, "worst_recall_low"].tolist() == iv["low"].tolist()
    assert lib.loc[iv.index, "worst_recall_high"].tolist() == iv["high"].tolist()
    (tmp_path / "mod.py").write_text(f"import sys\nsys.path.insert(0, {str(base)!r})\n"
                                     "from my_metrics import worst_recall\n"
                                     "METRICS = {'worst_recall': {'function': worst_recall, 'higher_is_better': True,"
                                     " 'range': [0, 1]}}\n")
    files = _tiny_files(data, tmp_path)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["score", str(tmp_path / "gold.csv"), *map(str, files), "--labels", "neg,neu,pos", "--ordinal",
                     "--baselines", "majority", "--replicates", "200", "--metric-module", str(tmp_path / "mod.py"), "--metrics",
                     ",".join(metrics), "--format", "csv", "--quiet"]) == 0
    cli = pd.read_csv(io.StringIO(out.getvalue()), comment="#").set_index("system")  # (the signature)
    for system in ["sys_a", "sys_b", "sys_c", "sys_d", "majority"]:
        assert cli.loc[system, "worst_recall"] == pytest.approx(scores.loc[system, "worst_recall"], abs=1e-15)
        assert cli.loc[system, "worst_recall_low"] == pytest.approx(iv.loc[system, "low"], abs=1e-15)
        assert cli.loc[system, "worst_recall_high"] == pytest.approx(iv.loc[system, "high"], abs=1e-15)


@pytest.mark.workflow
def test_editing_the_metric_s_file_reruns_exactly_the_jobs_that_read_it(custom_run, tmp_path):
    from .test_workflow_edits import _planned

    work, data, base = custom_run
    assert "Nothing to be done" in __import__("tests.workflow_helpers", fromlist=["_run"])._run(
        work, data, "-n", configfile=base / "config.yaml").stdout
    path = base / "my_metrics.py"
    try:
        path.write_text(MODULE + ITEMS + "\n# an edit\n")
        planned = _planned(work, data, base / "config.yaml")
    finally:
        path.write_text(MODULE + ITEMS)
    assert planned == {("score", "tiny"), ("experiments", "tiny"), ("recommendation", "tiny"),
                       ("dataset_properties", "tiny"), ("overview", None), ("cross_dataset", None),
                       ("provenance", "tiny")}, planned


def test_a_metric_for_four_classes_is_undefined_after_a_merge_not_a_crash():
    """A 4 x 4 cost matrix (the docs' case): scored on a 4-class dataset,
    its merged scores (3 classes) are NaN in merging.csv and the run goes
    on (the trial of issue 31 crashed the experiments job)."""
    cost = np.ones((4, 4)) - np.eye(4)
    cost[0, 1] = cost[1, 0] = 5

    def cost4(c):
        return (c * cost).sum((-2, -1)) / c.sum((-2, -1))

    rng = np.random.default_rng(2)
    g = rng.choice(list("abcd"), 200)
    systems = {f"s{i}": np.where(rng.random(200) < 0.4 + 0.1 * i, g, rng.choice(list("abcd"), 200)) for i in range(5)}
    try:
        res = metaeval.meta_evaluate(g, systems, labels=list("abcd"), metrics={
            "accuracy": None, "cost4": {"function": cost4, "higher_is_better": False, "range": [0, 5]}},
            n_splits=20, tukey_trials=100, bootstrap_replicates=100, criteria_replicates=30,
            properties=False, settings=metaeval.api.settings(min_systems=4))
        merging = res.tables["merging.csv"]
        assert merging[merging["metric"] == "cost4"]["tau"].isna().all()
        assert merging[merging["metric"] == "accuracy"]["tau"].notna().all()
        with pytest.raises(ConfigError, match=r"custom metric 'cost4'.*probe matrices of dataset 'data' \(3 classes\)"):
            metaeval.evaluate(g[g != "d"], {s: np.where(p == "d", "a", p)[g != "d"] for s, p in systems.items()},
                              metrics=["cost4"])
    finally:
        unregister_metric("cost4")


def test_the_class_weights_table_without_a_weighted_metric_is_empty():
    """A dataset with weight sets whose metrics list has no weighted metric
    (the trial: KeyError 'rank')."""
    from metaeval.methods.experiments import weight_sensitivity

    g = ["a", "b", "c"] * 20
    ds, spec = metaeval.api.dataset(g, {"s": ["a", "a", "c"] * 20, "t": ["b", "b", "c"] * 20}, metrics=["accuracy"],
                                    weights={"x": {"a": 0.2, "b": 0.3, "c": 0.5}, "y": {"a": 0.5, "b": 0.3, "c": 0.2}})
    long, taus = weight_sensitivity(ds, spec, metaeval.api.settings())
    assert long.empty and taus.empty and "rank" in long.columns and "tau" in taus.columns


# ---------------------------------------------------------------- the declared direction (issue 48)
def _error_rate(c):
    return 1 - np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1))


@pytest.mark.parametrize("k", [2, 3, 5])
def test_a_direction_the_scores_contradict_is_refused_with_both_values(k):
    """1 - accuracy declared higher-is-better: the perfect system scores 0,
    the system wrong on every item 1; refused on the probe matrices of each
    class count, with both values and the declaration to change."""
    with pytest.raises(MetricContractError, match=r"^custom metric 'error_rate' \(_error_rate\) has "
                                                  r"higher_is_better: true \(as declared, or the default\), but it "
                                                  r"scores a perfect system 0 and a system wrong on every item 1 \(the "
                                                  rf"probe matrices of {k} classes\): declare higher_is_better: false "
                                                  r"\(in the library: \{'function': fn, 'higher_is_better': False\}\)"):
        register_metric("error_rate", _error_rate, higher_is_better=True, k=k)
    assert not is_custom("error_rate")
    m = register_metric("error_rate", _error_rate, higher_is_better=False, range=(0, 1), k=k)  # declared right
    assert m.direction == "lower"
    unregister_metric("error_rate")
    register_metric("accuracy_mine", lambda c: 1 - _error_rate(c), higher_is_better=True, k=k)
    with pytest.raises(MetricContractError, match="declare higher_is_better: true"):
        register_metric("accuracy_mine", lambda c: 1 - _error_rate(c), higher_is_better=False, k=k)
    unregister_metric("accuracy_mine")
    flat = register_metric("flat", lambda c: np.zeros(c.shape[:-2]), higher_is_better=True, k=k)  # equal: no claim
    assert flat.direction == "higher"
    unregister_metric("flat")


def test_the_library_and_the_config_refuse_a_contradicted_direction():
    gold = list("abcab") * 40
    systems = {"x": list("abcaa") * 40, "y": list("abbab") * 40, "z": list("bbcab") * 40}
    try:  # (a metric given in place stays registered, as register_metric's)
        with pytest.raises(ConfigError, match=r"custom metric 'error_rate' .* has higher_is_better: true \(as "
                                              r"declared, or the default\), but it scores a perfect system 0 and a "
                                              r"system wrong on every item 1"):
            metaeval.evaluate(gold, systems, metrics={"accuracy": None, "error_rate": _error_rate}, intervals=False)
        got = metaeval.evaluate(gold, systems, metrics={"accuracy": None, "error_rate": {
            "function": _error_rate, "higher_is_better": False}}, intervals=False)
        assert np.allclose(got["error_rate"], 1 - got["accuracy"])
    finally:
        unregister_metric("error_rate")


def test_an_item_metric_s_direction_is_checked_on_the_dataset_s_own_gold():
    from metaeval.measures.custom import register_item_metric, unregister_item_metric

    def terms(gold, pred, items):
        return np.stack([(pred != gold[None, :]).astype(float), np.ones(pred.shape)], axis=-1)

    register_item_metric("item_err", terms, lambda t: t[..., 0] / t[..., 1], higher_is_better=True, range=(0, 1))
    try:
        with pytest.raises(Exception, match=r"custom metric 'item_err' .* has higher_is_better: true \(as declared, "
                                            r"or the default\), but it scores a perfect system 0 and a system wrong on every item 1 \(the "
                                            r"gold of the systems of dataset 'data' and every item given the next "
                                            r"class\)"):
            metaeval.api.dataset(list("abcab") * 40, {"x": list("abcaa") * 40}, metrics=["item_err"])
    finally:
        unregister_item_metric("item_err")
