"""The real datasets: published numbers, the validation figures of each
dataset's SOURCES.md, and agreement with the independent references."""

from __future__ import annotations

import re
import warnings

import krippendorff
import numpy as np
import pytest
from sklearn import metrics as skm

from metaeval.measures import labels as M
from metaeval.data.config import DatasetSpec, dataset_specs
from metaeval.data.dataset import load_dataset, score_table

from . import reference as ref

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def specs(project_config):
    return dataset_specs(project_config)


@pytest.fixture(scope="module")
def loaded(specs, data_dir):
    cache = {}

    def get(name, **overrides):
        key = (name, tuple(sorted((k, tuple(v)) for k, v in overrides.items())))
        if key not in cache:
            spec = specs[name]
            if overrides:
                raw = {f: getattr(spec, f) for f in ("gold", "labels", "ordinal", "drop_gold_labels",
                                                      "extra_labels", "extra_label_policy", "unrelated_label",
                                                      "primary_metric", "default_weights")}
                raw["predictions"] = list(spec.predictions)
                raw["weights"] = {k: dict(zip(spec.labels, v)) for k, v in spec.weights.items()}
                raw["f_avg_classes"] = spec.f_avg_classes
                raw.update(format="semeval_tsv" if spec.gold_format["delimiter"] == "\t" else "csv")
                raw = {k: v for k, v in raw.items() if v is not None}
                raw.update(overrides)
                spec = DatasetSpec.from_config(name, raw)
            ds = load_dataset(spec, data_dir)
            cache[key] = (spec, ds, score_table(ds.confusion(), ds.systems, ds.kinds, spec).set_index("system"))
        return cache[key]
    return get


# -- Scarton et al. Tables 2 and 3: the baseline rows, to the 3 decimals printed
SCARTON_BASELINES = {
    "rumoureval2017": {  # Table 2
        "majority": (0.742, 0.213, 0.000, 0.500, 0.043, 0.047),
        "all_deny": (0.068, 0.032, 0.000, 0.500, 0.051, 0.107),
        "all_support": (0.090, 0.041, 0.000, 0.500, 0.066, 0.132),
    },
    "rumoureval2019": {  # Table 3
        "majority": (0.808, 0.223, 0.000, 0.500, 0.045, 0.048),
        "all_deny": (0.055, 0.026, 0.000, 0.500, 0.042, 0.091),
        "all_support": (0.086, 0.040, 0.000, 0.500, 0.063, 0.128),
        "BUT-FIT": (0.852, 0.607, 0.519, 0.689, 0.492, 0.441),  # the one public submission
    },
}
SCARTON_COLUMNS = ("accuracy", "macro_f1", "gmr", "wauc", "wf1", "wf2")


@pytest.mark.parametrize("dataset", SCARTON_BASELINES)
def test_scarton_tables_2_and_3_rows(dataset, loaded):
    _, _, df = loaded(dataset)
    for system, published in SCARTON_BASELINES[dataset].items():
        ours = tuple(round(float(df.loc[system, m]), 3) for m in SCARTON_COLUMNS)
        assert ours == published, (dataset, system)


def test_scarton_table_4_weight_sets_are_configured(specs):
    w = specs["rumoureval2017"].weights
    assert w["mama_edha"] == (0.157, 0.396, 0.399, 0.048) and w["upv"] == (0.2, 0.35, 0.35, 0.1)


def test_kaushal_table_3_majority_rows(loaded):
    """Kaushal et al. Table 3, Majority Class rows of RE17 and RE19 (Acc, F1_Wtd, F1_Macro)."""
    for name, row in (("rumoureval2017", (0.742, 0.632, 0.213)), ("rumoureval2019", (0.808, 0.722, 0.223))):
        _, _, df = loaded(name)
        assert tuple(round(float(df.loc["majority", m]), 3) for m in ("accuracy", "f1_weighted", "macro_f1")) == row


# -- SOURCES.md validation figures -------------------------------------------
def _sources(data_dir, name):
    return (data_dir / name / "SOURCES.md").read_text(encoding="utf-8")


def test_fnc1_official_scores_and_confusions_of_all_48_files(loaded, data_dir):
    spec, ds, df = loaded("fnc1_4class", predictions=["fnc1/predictions/*.csv", "fnc1/predictions_extra/*.csv"])
    text = _sources(data_dir, "fnc1")
    scores = dict(re.findall(r"^\| \d+ \| `predictions(?:_extra)?/([^`]+)\.csv` \|.*\| ([\d.]+) \| [\d.]+% \|$",
                             text, flags=re.M))
    assert len(scores) == 48
    max_score = 0.25 * 18349 + 7064
    for system, published in scores.items():
        assert df.loc[system, "fnc_score"] * max_score == pytest.approx(float(published), abs=1e-6), system
    # section 3: 4x4 confusion matrices, rows predicted, cells gold agree/disagree/discuss/unrelated
    sec = text.split("## 3.")[1].split("## 4.")[0]
    rows = re.findall(r"^\| `predictions(?:_extra)?/([^`]+)\.csv` \| (.+) \|$", sec, flags=re.M)
    assert len(rows) == 48
    order = [spec.labels.index(x) for x in ("agree", "disagree", "discuss", "unrelated")]
    c = ds.confusion()
    for system, cells in rows:
        published = np.array([[int(v) for v in cell.split(" / ")] for cell in cells.split(" | ")])
        ours = c[ds.systems.index(system)][np.ix_(order, order)]
        np.testing.assert_array_equal(ours, published, err_msg=system)


@pytest.mark.parametrize("dataset", ["rumoureval2017", "rumoureval2019"])
def test_rumoureval_sources_figures(dataset, loaded, data_dir):
    globs = {"rumoureval2017": ["rumoureval2017/predictions_other/*.csv",
                                "rumoureval2017/predictions_butfit_members/*.csv"],
             "rumoureval2019": ["rumoureval2019/predictions/*.csv", "rumoureval2019/predictions_other/*.csv",
                                "rumoureval2019/predictions_butfit_members/*.csv"]}[dataset]
    spec, ds, df = loaded(dataset, predictions=globs)
    text = _sources(data_dir, dataset)
    sections = re.findall(r"^### `predictions[^/]*/([^`]+)\.csv`\n(.*?)(?=^### |^## |\Z)", text, flags=re.M | re.S)
    checked = 0
    c = ds.confusion()
    for system, body in sections:
        acc, f1 = re.search(r"Accuracy ([\d.]+); macro-F1 ([\d.]+)", body).groups()
        assert round(df.loc[system, "accuracy"], 4) == float(acc), system
        assert round(df.loc[system, "macro_f1"], 4) == float(f1), system
        table = re.findall(r"^\| (support|deny|query|comment) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", body, flags=re.M)
        published = np.array([[int(x) for x in r[1:]] for r in table])
        np.testing.assert_array_equal(c[ds.systems.index(system)], published, err_msg=system)
        checked += 1
    members = re.findall(r"^\| (butfit_member_\S+) \| \d+/\d+ \| ([\d.]+) \| ([\d.]+) \| (.+) \|$", text, flags=re.M)
    assert len(members) == 100
    for system, acc, f1, cm in members:
        assert round(df.loc[system, "accuracy"], 4) == float(acc), system
        assert round(df.loc[system, "macro_f1"], 4) == float(f1), system
        published = np.array([[int(x) for x in row.split(",")] for row in cm.split(" / ")])
        np.testing.assert_array_equal(c[ds.systems.index(system)], published, err_msg=system)
    assert checked >= 6


def test_semeval2016_sources_figures(loaded, data_dir):
    spec, ds, df = loaded("semeval2016t6", predictions=["semeval2016t6/predictions/*.tsv",
                                                        "semeval2016t6/predictions_variants/*.tsv"])
    rows = re.findall(r"^\| predictions(?:_variants)?/(\S+)\.tsv \| .* \| ([\d.]+) \| ([\d.]+) \| .* \|$",
                      _sources(data_dir, "semeval2016t6"), flags=re.M)
    assert len(rows) == 6
    for system, acc, favg in rows:
        assert round(df.loc[system, "accuracy"], 4) == float(acc), system
        assert round(df.loc[system, "f_avg"], 4) == float(favg), system
    assert ds.group_names == ("Atheism", "Climate Change is a Real Concern", "Feminist Movement",
                              "Hillary Clinton", "Legalization of Abortion")
    assert np.bincount(ds.groups).tolist() == [220, 169, 285, 295, 280]


def test_gold_counts(loaded, data_dir):
    expected = {
        "fnc1": {"agree": 1903, "discuss": 4464, "disagree": 697},
        "rumoureval2017": {"support": 94, "deny": 71, "query": 106, "comment": 778},
        "rumoureval2019": {"support": 157, "deny": 101, "query": 93, "comment": 1476},
        "semeval2016t6": {"FAVOR": 304, "NONE": 230, "AGAINST": 715},
    }
    for name, counts in expected.items():
        assert loaded(name)[1].info["gold_counts"] == counts
    _, ds, _ = loaded("fnc1")
    assert ds.info["dropped_gold_labels"] == {"unrelated": 18349}
    # every file of the predictions folder is a system (a user may add one), plus 5 baselines
    n_files = len(list((data_dir / "fnc1" / "predictions").glob("*.csv")))
    assert ds.n_items == 7064 and len(ds.systems) == n_files + 5 and n_files >= 17


def test_fnc1_unrelated_policies(loaded):
    """map (default) sends 'unrelated' to discuss; drop_item removes every
    item any system called unrelated; error refuses the files."""
    _, mapped, _ = loaded("fnc1")
    athene = mapped.systems.index("athene")
    assert mapped.info["extra_label_predictions"]["athene"] == {"unrelated": 656}
    _, dropped, _ = loaded("fnc1", extra_label_policy="drop_item")
    assert dropped.n_items < mapped.n_items and dropped.info["items_dropped_by_policy"] == 7064 - dropped.n_items
    from metaeval.data.files import DataError
    with pytest.raises(DataError, match="predicted label 'unrelated'"):
        loaded("fnc1", extra_label_policy="error")
    assert (mapped.predictions[athene] >= 0).all()


# -- agreement with the references on every real system ------------------------
@pytest.mark.parametrize("dataset", ["fnc1", "fnc1_4class", "rumoureval2017", "rumoureval2019", "semeval2016t6"])
def test_real_data_against_references(dataset, loaded):
    spec, ds, df = loaded(dataset)
    k = ds.k
    labels = list(range(k))
    w = spec.metric_params()["weights"]
    for s, system in enumerate(ds.systems):
        g, p = ds.gold.astype(int), ds.predictions[s].astype(int)
        row = df.loc[system]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expect = {
                "accuracy": skm.accuracy_score(g, p),
                "macro_f1": skm.f1_score(g, p, labels=labels, average="macro", zero_division=0),
                "macro_f2": skm.fbeta_score(g, p, beta=2, labels=labels, average="macro", zero_division=0),
                "f1_weighted": skm.f1_score(g, p, labels=labels, average="weighted", zero_division=0),
                "macro_recall": skm.recall_score(g, p, labels=labels, average="macro", zero_division=0),
                "kappa": skm.cohen_kappa_score(g, p, labels=labels),
                "alpha_nominal": krippendorff.alpha(np.vstack([g, p]).astype(float), level_of_measurement="nominal",
                                                    value_domain=labels),
            }
            if spec.ordinal:
                expect.update({
                    "kappa_linear": skm.cohen_kappa_score(g, p, labels=labels, weights="linear"),
                    "alpha_ordinal": krippendorff.alpha(np.vstack([g, p]).astype(float),
                                                        level_of_measurement="ordinal", value_domain=labels),
                    "alpha_interval": krippendorff.alpha(np.vstack([g, p]).astype(float),
                                                         level_of_measurement="interval", value_domain=labels),
                    "mae_micro": skm.mean_absolute_error(g, p),
                    "mae_macro": ref.mae_macro_loop(g.tolist(), p.tolist(), k),
                    "cem_ord": ref.cem_ord_loop(g.tolist(), p.tolist(), k),
                })
            if w is not None:
                f2 = skm.fbeta_score(g, p, beta=2, labels=labels, average=None, zero_division=0)
                expect["wf2"] = float(np.dot(w, f2))
                expect["wauc"] = float(np.dot(w, ref.auc_loop(g.tolist(), p.tolist(), k)))
            if spec.unrelated_label:
                expect["fnc_score"] = ref.fnc_score_loop(g.tolist(), p.tolist(), spec.labels.index("unrelated"))
        for mid, v in expect.items():
            if np.isnan(v):
                assert np.isnan(row[mid]), (system, mid)
            else:
                assert row[mid] == pytest.approx(v, abs=1e-12), (dataset, system, mid)


@pytest.mark.parametrize("dataset", ["fnc1", "fnc1_4class", "rumoureval2017", "rumoureval2019", "semeval2016t6",
                                     "semeval2020t11_tc"])
def test_real_data_added_metrics_against_references(dataset, loaded):
    """Issue 31: MCC equals scikit-learn's matthews_corrcoef, the one-class
    metrics equal scikit-learn's with pos_label (every class in turn),
    informedness and markedness a plain loop, on every real system."""
    spec, ds, _ = loaded(dataset)
    k, labels = ds.k, list(range(ds.k))
    c = ds.confusion()
    ours = {m: M.get(m)(c) for m in ("mcc", "informedness", "markedness")}
    for s, system in enumerate(ds.systems):
        g, p = ds.gold.astype(int), ds.predictions[s].astype(int)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert ours["mcc"][s] == pytest.approx(skm.matthews_corrcoef(g, p), abs=1e-12), (system, "mcc")
            f1 = skm.f1_score(g, p, labels=labels, average=None, zero_division=0)
            pr = skm.precision_score(g, p, labels=labels, average=None, zero_division=0)
            rc = skm.recall_score(g, p, labels=labels, average=None, zero_division=0)
        inf = mk = 0.0
        for j in labels:
            tp, fp = int(np.sum((g == j) & (p == j))), int(np.sum((g != j) & (p == j)))
            fn, tn = int(np.sum((g == j) & (p != j))), int(np.sum((g != j) & (p != j)))
            inf += ((tp / (tp + fn) if tp + fn else 0.0) - (fp / (fp + tn) if fp + tn else 0.0)) / k
            mk += ((tp / (tp + fp) if tp + fp else 0.0) + (tn / (tn + fn) if tn + fn else 0.0) - 1) / k
        assert ours["informedness"][s] == pytest.approx(inf, abs=1e-12), system
        assert ours["markedness"][s] == pytest.approx(mk, abs=1e-12), system
        for j in labels:
            assert float(M.get("f1_class")(c[s], positive=j)) == pytest.approx(f1[j], abs=1e-12)
            assert float(M.get("precision_class")(c[s], positive=j)) == pytest.approx(pr[j], abs=1e-12)
            assert float(M.get("recall_class")(c[s], positive=j)) == pytest.approx(rc[j], abs=1e-12)


# -- SemEval-2020 Task 11: the figures of SOURCES.md and the scorer's logs ------------
def test_semeval2020_tc_official_micro_f1_and_per_technique_f1(specs, data_dir):
    """Every TC file against its logged official figure: DiSaster 0.614299,
    gangeshwark_BERT_bc6bfb7 0.570085, and each DiSaster ablation's F1 and
    per-technique F1 from the scorer logs (tests/fixtures/semeval2020t11)."""
    import pandas as pd

    from .conftest import FIXTURES

    spec = specs["semeval2020t11_tc"]
    ds = load_dataset(spec, data_dir)
    df = score_table(ds.confusion(), ds.systems, ds.kinds, spec).set_index("system")
    assert round(df.loc["DiSaster_full_model", "accuracy"], 6) == 0.614299
    assert round(df.loc["gangeshwark_BERT_bc6bfb7", "accuracy"], 6) == 0.570085
    logs = pd.read_csv(FIXTURES / "semeval2020t11" / "disaster_scorer_logs.csv", comment="#").set_index("system")
    assert len(logs) == 14
    per_class = M.fbeta_per_class(ds.confusion(), 1.0)  # (S, K)
    for system, row in logs.iterrows():
        assert round(df.loc[system, "accuracy"], 6) == row["F1"], system
        s = ds.systems.index(system)
        for k, technique in enumerate(spec.labels):
            assert per_class[s, k] == pytest.approx(row[technique], abs=1e-12), (system, technique)
    assert ds.n_items == 1063 and ds.spans.n_articles == 75 and len(ds.group_names) == 75


def test_semeval2020_si_official_figures(specs, data_dir):
    """SOURCES.md: P / R / F1 of the ETH file (overlaps merged, the scorer's
    -m) and of the organisers' baseline; both ETH files score alike."""
    from metaeval.measures.spans import evaluate_spans

    spec = specs["semeval2020t11_si"]
    ds = load_dataset(spec, data_dir)
    sc = evaluate_spans(ds.spans.statistics().sum(1), ["span_precision", "span_recall", "span_f1"])
    got = {s: tuple(round(float(sc[m][i]), 4) for m in sc) for i, s in enumerate(ds.systems)}
    assert got["nlpropaganda_ETH_roberta_raw"] == (0.3271, 0.6192, 0.4280)
    assert got["nlpropaganda_ETH_roberta_merged"] == (0.3271, 0.6192, 0.4280)
    assert got["organizers_baseline"] == (0.0988, 0.0041, 0.0078)
    assert len(ds.spans.gold) == 940 and ds.info["overlapping_spans_merged"]["nlpropaganda_ETH_roberta_raw"] > 0


def test_semeval2020_si_overlapping_predictions_are_refused_without_merging(specs, data_dir):
    from metaeval.data.files import DataError

    raw = dict(format="semeval2020_si", gold=specs["semeval2020t11_si"].gold,
               articles=specs["semeval2020t11_si"].articles,
               predictions=["semeval2020t11/predictions/SI/nlpropaganda_ETH_roberta_raw.txt"])
    with pytest.raises(DataError) as e:
        load_dataset(DatasetSpec.from_config("si", raw), data_dir)
    msg = str(e.value)
    assert "nlpropaganda_ETH_roberta_raw.txt:" in msg and "overlaps the span" in msg
    assert "merge_overlapping_predictions: true" in msg


def test_semeval2020_tc_against_the_v1_gold(specs, data_dir):
    """SOURCES.md: the TC_v1_1075spans files against the v1 gold."""
    spec = specs["semeval2020t11_tc_v1"]
    ds = load_dataset(spec, data_dir)
    df = score_table(ds.confusion(), ds.systems, ds.kinds, spec).set_index("system")
    assert ds.n_items == 1075
    assert {s: round(float(df.loc[s, "accuracy"]), 4) for s in ds.systems if not s.startswith(("all_", "maj", "ran"))} \
        == {"organizers_baseline": 0.2623, "gangeshwark_model": 0.5098, "gangeshwark_model_old": 0.4800}
