"""Score and probability files (metaeval.data.readers.scores, metaeval.data.score_data):
the official figures of SemEval-2016 Task 3 reproduced from the released
runs, the metrics equal to scikit-learn on every real system, the labels of a
scores-only system, and each bad input refused with its file, line and fault."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from metaeval.data.config import ConfigError, DatasetSpec
from metaeval.data.dataset import Dataset, load_dataset
from metaeval.data.files import DataError
from metaeval.data.readers.scores import read_scores
from metaeval.measures.scores.registry import evaluate

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
needs_data = pytest.mark.skipif(not (DATA / "semeval2016t3_b").is_dir(), reason="../shared/data not found")


def t3_config(folder: str, **extra) -> dict:
    return {**dict(gold=f"{folder}/gold.csv", group_column="question",
                   predictions=[f"{folder}/predictions/*.csv", f"{folder}/predictions_baselines/*.csv"],
                   scores=[f"{folder}/scores/*.csv", f"{folder}/scores_baselines/*.csv"], labels=["true", "false"],
                   positive_class="true", score_threshold=0.5, baseline_systems=["baseline-*"],
                   metrics=["accuracy", "roc_auc", "average_precision", "map", "mrr", "avg_recall"]), **extra}


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


@needs_data
@pytest.mark.parametrize("folder", ["semeval2016t3_b", "semeval2016t3_c"])
def test_official_map_avgrec_mrr_of_every_run_to_the_printed_digits(folder):
    ds = load_dataset(DatasetSpec.from_config(folder, t3_config(folder)), DATA)
    y = (ds.gold == ds.labels.index("true")).astype(int)
    got = evaluate(["map", "avg_recall", "mrr"], ds.scores.values, y, groups=ds.groups)
    official = pd.read_csv(DATA / folder / "official_results.csv", dtype=str)
    assert len(official) == len(set(ds.systems) & set(official.run)) >= 28
    for _, row in official.iterrows():
        s = ds.systems.index(row.run)
        for col, m, scale in [("MAP", "map", 1), ("AvgRec", "avg_recall", 1), ("MRR", "mrr", 100)]:
            d = _decimals(row[col])
            assert f"{got[m][s] * scale:.{d}f}" == row[col], (row.run, col)


@needs_data
@pytest.mark.parametrize("folder", ["semeval2016t3_b", "semeval2016t3_c"])
def test_auc_ap_brier_log_loss_equal_scikit_learn_on_every_system(folder):
    ds = load_dataset(DatasetSpec.from_config(folder, t3_config(folder)), DATA)
    y = (ds.gold == ds.labels.index("true")).astype(int)
    v = ds.scores.values
    got = evaluate(["roc_auc", "average_precision"], v, y)
    probabilistic = [s for s in range(len(ds.systems)) if ((v[s] >= 0) & (v[s] <= 1)).all()]
    assert len(probabilistic) >= 10
    probs = evaluate(["brier", "log_loss"], v[probabilistic], y)
    for s in range(len(ds.systems)):
        assert got["roc_auc"][s] == pytest.approx(skm.roc_auc_score(y, v[s, :, 0]), abs=1e-12)
        assert got["average_precision"][s] == pytest.approx(skm.average_precision_score(y, v[s, :, 0]), abs=1e-12)
    for i, s in enumerate(probabilistic):
        assert probs["brier"][i] == pytest.approx(skm.brier_score_loss(y, v[s, :, 0]), abs=1e-12)
        assert probs["log_loss"][i] == pytest.approx(skm.log_loss(y, v[s, :, 0], labels=[0, 1]), rel=1e-12, abs=1e-12)


def talos_config(**extra) -> dict:
    cols = {c: f"p_{c}" for c in ("agree", "disagree", "discuss", "unrelated")}
    return dict(gold="fnc1/gold.csv", scores=["fnc1_talos_probs/*.csv"], labels=list(cols),
                score_format={"columns": cols}, metrics=["accuracy", "roc_auc", "hand_till_m", "brier", "log_loss",
                                                          "ece"], **extra)


@needs_data
@pytest.mark.filterwarnings("ignore:The y_prob values do not sum to one")  # the CNN's, to 1.5e-6
def test_class_probabilities_give_labels_by_argmax_and_equal_scikit_learn():
    ds = load_dataset(DatasetSpec.from_config("talos", talos_config()), DATA)
    assert ds.scores.values.shape == (2 + 6, 25_413, 4)  # two systems, six generated baselines (one-hot)
    assert any("argmax" in w for w in ds.info["warnings"])
    for s, f in enumerate(["talos_cnn_component_probs", "talos_gbdt_component_probs"]):
        raw = pd.read_csv(DATA / "fnc1_talos_probs" / f"{f}.csv")
        assert ds.systems[s] == f
        # the file's own label column is the argmax the derived labels must equal
        assert [ds.labels[c] for c in ds.predictions[s]] == raw.label.tolist()
        p = ds.scores.values[s]
        got = evaluate(["roc_auc", "hand_till_m", "brier", "log_loss"], p[None], ds.gold)
        assert got["roc_auc"][0] == pytest.approx(skm.roc_auc_score(ds.gold, p, multi_class="ovr"), abs=1e-12)
        assert got["hand_till_m"][0] == pytest.approx(skm.roc_auc_score(ds.gold, p, multi_class="ovo"), abs=1e-12)
        assert got["brier"][0] == pytest.approx(skm.brier_score_loss(ds.gold, p, labels=range(4)), abs=1e-12)
        assert got["log_loss"][0] == pytest.approx(skm.log_loss(ds.gold, p, labels=range(4)), abs=1e-12)
    maj = ds.systems.index("majority")
    assert (ds.scores.values[maj] == np.eye(4)[ds.predictions[maj]]).all()


@needs_data
def test_scores_survive_a_save_and_load(tmp_path):
    ds = load_dataset(DatasetSpec.from_config("talos", talos_config()), DATA)
    ds.save(tmp_path / "d.npz")
    back = Dataset.load(tmp_path / "d.npz")
    assert np.array_equal(back.scores.values, ds.scores.values) and back.scores.columns == ds.scores.columns


# -- the run format as released ----------------------------------------------------------------------------------
def test_semeval2016_task3_run_file_is_read_with_its_labels_and_questions(tmp_path):
    p = tmp_path / "subtask_B_primary.txt"
    p.write_text("Q1\tQ1_R1\t0\t0.25\ttrue\nQ1 Q1_R2 1 -3e-2 false\r\n\nQ2\tQ2_R1\t0\t1\tfalse\n")
    t = read_scores(p, format="semeval2016t3")
    assert t.ids == ["Q1_R1", "Q1_R2", "Q2_R1"] and t.values == [(0.25,), (-0.03,), (1.0,)]
    assert t.labels == ["true", "false", "false"] and t.groups == ["Q1", "Q1", "Q2"] and t.lines == [1, 2, 4]
    assert t.problems == []


@needs_data
def test_the_released_run_format_reproduces_the_csv_copies(tmp_path):
    """Run files written from the folder's CSVs (the distribution's layout) give the same dataset."""
    folder = "semeval2016t3_b"
    gold = pd.read_csv(DATA / folder / "gold.csv")
    (tmp_path / folder / "runs").mkdir(parents=True)
    (tmp_path / folder / "gold.csv").write_text((DATA / folder / "gold.csv").read_text())
    for f in sorted((DATA / folder / "scores").glob("*.csv"))[:4]:
        sc = pd.read_csv(f, dtype=str)
        lab = pd.read_csv(DATA / folder / "predictions" / f.name, dtype=str)
        lines = [f"{q}\t{i}\t{r}\t{s}\t{label}" for r, (q, i, s, label) in
                 enumerate(zip(gold.question, sc.item_id, sc.score, lab.label))]
        (tmp_path / folder / "runs" / f"{f.stem}.txt").write_text("\n".join(lines) + "\n")
    cfg = dict(gold=f"{folder}/gold.csv", group_column="question", scores=[f"{folder}/runs/*.txt"],
               score_format={"format": "semeval2016t3"}, labels=["true", "false"], positive_class="true",
               metrics=["map"])
    ds = load_dataset(DatasetSpec.from_config("runs", cfg), tmp_path)
    ref = load_dataset(DatasetSpec.from_config(folder, t3_config(folder)), DATA)
    for s in ds.systems[:4]:
        assert np.array_equal(ds.scores.values[ds.systems.index(s)], ref.scores.values[ref.systems.index(s)])
        assert np.array_equal(ds.predictions[ds.systems.index(s)], ref.predictions[ref.systems.index(s)])
    assert "the run file's label column" in ds.info["scores"]["derived_labels"].values()


# -- bad input: each refused with file, line and fault, nothing returned -------------------------------------------
def _small(tmp_path, scores: dict[str, str], preds: dict[str, str] | None = None, **extra):  # noqa: C901
    (tmp_path / "gold.csv").write_text("item_id,label,q\na,pos,1\nb,neg,1\nc,neg,2\nd,pos,2\n")
    for name, text in scores.items():
        (tmp_path / "scores").mkdir(exist_ok=True)
        (tmp_path / "scores" / f"{name}.csv").write_text(text)
    for name, text in (preds or {}).items():
        (tmp_path / "preds").mkdir(exist_ok=True)
        (tmp_path / "preds" / f"{name}.csv").write_text(text)
    cfg = {**dict(gold="gold.csv", labels=["pos", "neg"], positive_class="pos", group_column="q",
                  scores=["scores/*.csv"], score_threshold=0.5, metrics=["roc_auc"]), **extra}
    if preds:
        cfg["predictions"] = ["preds/*.csv"]
    return DatasetSpec.from_config("small", cfg)


def _refusal(spec, data_dir) -> str:
    with pytest.raises(DataError) as e:
        load_dataset(spec, data_dir)
    return str(e.value)


def test_good_small_dataset_reads(tmp_path):
    ds = load_dataset(_small(tmp_path, {"s1": "item_id,score\na,0.9\nb,0.2\nc,0.6\nd,0.7\n"}), tmp_path)
    assert ds.systems[0] == "s1" and [ds.labels[c] for c in ds.predictions[0]] == ["pos", "neg", "pos", "pos"]
    assert ds.info["scores"]["derived_labels"] == {"s1": "score >= 0.5 predicts 'pos'"}


@pytest.mark.parametrize("text,line,fault", [
    ("item_id,score\na,0.9\nb,nan\nc,0.6\nd,0.7\n", 3, "score of item 'b' is NaN"),
    ("item_id,score\na,0.9\nb,0.1\nc,inf\nd,0.7\n", 4, "score of item 'c' is infinite (inf)"),
    ("item_id,score\na,0.9\nb,-Infinity\nc,0.1\nd,0.7\n", 3, "score of item 'b' is infinite (-Infinity)"),
    ("item_id,score\na,0.9\nb,high\nc,0.1\nd,0.7\n", 3, "score of item 'b' is 'high', not a number"),
    ("item_id,score\na,0.9\nb,\nc,0.1\nd,0.7\n", 3, "score of item 'b' is empty"),
    ("item_id,score\na,0.9\nb,0.2\nc,0.1\na,0.7\nd,0.3\n", 5, "duplicated item 'a' (first seen on line 2)"),
    ("item_id,score\na,0.9\nb,0.2\nc,0.1\nd,0.3\ne,0.3\n", 6, "item 'e' is not in the gold file"),
])
def test_each_bad_score_is_refused_with_its_line(tmp_path, text, line, fault):
    msg = _refusal(_small(tmp_path, {"s1": text}), tmp_path)
    assert f"s1.csv:{line}: {fault}" in msg, msg


def test_missing_items_are_refused_with_examples(tmp_path):
    msg = _refusal(_small(tmp_path, {"s1": "item_id,score\na,0.9\nc,0.1\n"}), tmp_path)
    assert "s1.csv" in msg and "2 gold item(s) have no score" in msg and "'b'" in msg and "'d'" in msg, msg


def test_a_missing_score_column_is_refused(tmp_path):
    msg = _refusal(_small(tmp_path, {"s1": "item_id,prob\na,0.9\n"}), tmp_path)
    assert "s1.csv:1: missing or wrong header: expected columns 'item_id', 'score'" in msg, msg
    # beside a prediction file too (the scores are then aligned after the labels are read)
    spec = _small(tmp_path, {"s1": "item_id,prob\na,0.9\nb,0.1\nc,0.3\nd,0.8\n"},
                  {"s1": "item_id,label\na,pos\nb,neg\nc,neg\nd,pos\n"})
    msg = _refusal(spec, tmp_path)
    assert "s1.csv:1: missing or wrong header: expected columns 'item_id', 'score'" in msg, msg


def test_probabilities_outside_0_1_are_refused_for_a_probabilistic_metric(tmp_path):
    text = "item_id,score\na,0.9\nb,1.2\nc,0.1\nd,0.7\n"
    assert load_dataset(_small(tmp_path, {"s1": text}), tmp_path)  # a score for AUC: any real number
    msg = _refusal(_small(tmp_path, {"s1": text}, metrics=["roc_auc", "brier"]), tmp_path)
    assert "s1.csv:3: item 'b': not a probability in [0, 1]: 1.2 for class 'pos' (brier need probabilities" in msg


def _probs_spec(tmp_path, text, **extra):
    (tmp_path / "gold.csv").write_text("item_id,label\na,x\nb,y\nc,z\n")
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "sys.csv").write_text(text)
    cfg = dict(gold="gold.csv", labels=["x", "y", "z"], scores=["s/*.csv"], metrics=["log_loss"],
               score_format={"columns": {"x": "px", "y": "py", "z": "pz"}}, **extra)
    return DatasetSpec.from_config("p", cfg)


def test_class_probabilities_that_do_not_sum_to_one_are_refused_or_normalised_and_said(tmp_path):
    text = "item_id,px,py,pz\na,0.5,0.3,0.2\nb,0.2,0.5,0.2\nc,0.1,0.1,0.8\n"
    msg = _refusal(_probs_spec(tmp_path, text), tmp_path)
    assert "sys.csv:3: item 'b': the class probabilities sum to 0.9," in msg and "probability_tolerance" in msg, msg
    ds = load_dataset(_probs_spec(tmp_path, text, normalize_probabilities=True), tmp_path)
    assert ds.scores.values[0, 1].tolist() == pytest.approx([2 / 9, 5 / 9, 2 / 9])
    assert any("divided by their row's sum" in w and "sys 1 row(s)" in w for w in ds.info["warnings"])
    assert load_dataset(_probs_spec(tmp_path, text, probability_tolerance=0.2), tmp_path)


def test_a_class_probability_outside_0_1_is_refused(tmp_path):
    msg = _refusal(_probs_spec(tmp_path, "item_id,px,py,pz\na,1.1,-0.1,0\nb,0.2,0.5,0.3\nc,0.1,0.1,0.8\n"),
                   tmp_path)
    # every bad value of the row, not the first only
    assert "sys.csv:2: item 'a': not a probability in [0, 1]: 1.1 for class 'x', -0.1 for class 'y'" in msg, msg


def test_an_argmax_tie_is_refused_when_labels_come_from_probabilities(tmp_path):
    msg = _refusal(_probs_spec(tmp_path, "item_id,px,py,pz\na,0.4,0.4,0.2\nb,0.2,0.5,0.3\nc,0.1,0.1,0.8\n"),
                   tmp_path)
    assert "sys.csv:2: item 'a': classes 'x', 'y' tie for the highest probability" in msg, msg


def test_scores_without_labels_or_threshold_and_labels_without_scores_are_refused(tmp_path):
    spec = _small(tmp_path, {"s1": "item_id,score\na,0.9\nb,0.2\nc,0.6\nd,0.7\n"})
    spec = DatasetSpec.from_config("small", {**_raw(spec), "score_threshold": None})
    msg = _refusal(spec, tmp_path)
    assert "scores without labels" in msg and "score_threshold" in msg, msg
    spec = _small(tmp_path, {"s1": "item_id,score\na,0.9\nb,0.2\nc,0.6\nd,0.7\n"},
                  {"s1": "item_id,label\na,pos\nb,neg\nc,neg\nd,pos\n", "s2": "item_id,label\na,pos\nb,neg\nc,neg\nd,pos\n"})
    msg = _refusal(spec, tmp_path)
    assert "s2.csv" in msg and "has labels but no score file" in msg, msg


def _raw(spec) -> dict:
    return dict(gold=spec.gold, labels=list(spec.labels), positive_class=spec.positive_class, group_column="q",
                scores=list(spec.scores), metrics=list(spec.score_metrics))


@pytest.mark.parametrize("cfg,key", [
    (dict(metrics=["map"]), "scores"),  # a metric of scores without score files
    (dict(scores=["x.csv"], metrics=["map"], labels=["a", "b", "c"]), "score_format"),
    (dict(scores=["x.csv"], metrics=["roc_auc"]), "positive_class"),
    (dict(scores=["x.csv"], positive_class="a", metrics=["map"], group_column=None), "metrics"),
    (dict(scores=["x.csv"], positive_class="a", score_format={"colum": "s"}), "score_format"),
    (dict(scores=["x.csv"], positive_class="a", score_format={"columns": {"a": "pa"}}), "score_format.columns"),
    (dict(score_threshold=0.5), "score_threshold"),
])
def test_score_settings_are_checked_with_their_key(cfg, key):
    raw = {**dict(gold="g.csv", predictions=["p/*.csv"], labels=["a", "b"], group_column="q"), **cfg}
    if raw.get("group_column") is None:
        raw.pop("group_column")
    with pytest.raises(ConfigError) as e:
        DatasetSpec.from_config("d", raw)
    assert f"datasets.d.{key}" in str(e.value), str(e.value)


# -- the official figures by the library and the command line ------------------------------------------------------
def _official_matches(folder: str, got: "pd.DataFrame") -> None:
    official = pd.read_csv(DATA / folder / "official_results.csv", dtype=str)
    got = got.set_index("system") if "system" in got.columns else got
    for _, row in official.iterrows():
        for col, m, scale in [("MAP", "map", 1), ("AvgRec", "avg_recall", 1), ("MRR", "mrr", 100)]:
            assert f"{got.loc[row.run, m] * scale:.{_decimals(row[col])}f}" == row[col], (row.run, col)


def _t3_files(folder: str):
    d = DATA / folder
    return (d / "gold.csv", sorted((d / "predictions").glob("*.csv")) + sorted((d / "predictions_baselines").glob("*.csv")),
            sorted((d / "scores").glob("*.csv")) + sorted((d / "scores_baselines").glob("*.csv")))


@needs_data
@pytest.mark.filterwarnings("ignore::UserWarning")  # the IR baseline's labels come from its scores: said
def test_the_library_reproduces_the_official_figures():
    import metaeval

    gold, preds, scores = _t3_files("semeval2016t3_c")
    data = metaeval.read_files(gold, preds, scores=scores, group_column="question", labels=["true", "false"],
                               positive_class="true", score_threshold=0.1, metrics=["map", "mrr", "avg_recall"])
    _official_matches("semeval2016t3_c", metaeval.evaluate(data, intervals=False))


@needs_data
def test_the_command_line_reproduces_the_official_figures(tmp_path):
    import io as _io
    from contextlib import redirect_stderr, redirect_stdout

    from metaeval.cli import main

    gold, preds, scores = _t3_files("semeval2016t3_b")
    out, err = _io.StringIO(), _io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", str(gold), *map(str, preds), "--scores", *map(str, scores), "--group-column",
                     "question", "--labels", "true,false", "--positive-class", "true", "--score-threshold", "0.3",
                     "--metrics", "map,mrr,avg_recall", "--no-intervals", "--format", "csv"])
    assert code == 0, err.getvalue()
    assert "come from their scores" in err.getvalue()  # the IR baseline's labels: said
    _official_matches("semeval2016t3_b", pd.read_csv(_io.StringIO(out.getvalue()), comment="#"))


def test_the_command_line_says_what_a_bad_score_file_is(tmp_path):
    import io as _io
    from contextlib import redirect_stderr, redirect_stdout

    from metaeval.cli import main

    (tmp_path / "gold.csv").write_text("item_id,label\na,x\nb,y\nc,z\n")
    (tmp_path / "sys.csv").write_text("item_id,px,py,pz\na,0.4,0.4,0.2\nb,0.2,0.5,0.3\nc,0.1,0.1,0.8\n")
    out, err = _io.StringIO(), _io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", str(tmp_path / "gold.csv"), "--scores", str(tmp_path / "sys.csv"),
                     "--probability-columns", "x=px,y=py,z=pz", "--metrics", "brier,accuracy", "--no-intervals"])
    assert code != 0 and out.getvalue() == ""
    assert "sys.csv:2: item 'a': classes 'x', 'y' tie for the highest probability" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_faults_of_labels_and_of_scores_are_said_at_once(tmp_path):
    spec = _small(tmp_path, {"s1": "item_id,score\na,0.9\nb,nan\nc,0.1\nd,0.7\n",
                             "s2": "item_id,score\na,0.9\nb,0.2\nc,0.1\nd,0.7\n"},
                  {"s1": "item_id,label\na,pos\nb,neg\nc,neg\nd,pos\n", "s2": "item_id,label\na,pos\nb,maybe\nc,neg\nd,pos\n"})
    msg = _refusal(spec, tmp_path)
    assert "s2.csv:3: predicted label 'maybe'" in msg and "s1.csv:3: score of item 'b' is NaN" in msg, msg
