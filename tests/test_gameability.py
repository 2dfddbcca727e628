"""Gameability: degenerate systems scored on the dataset's own test set,
against the median real system, and tested (METHODS 9.4: one-sided, on
resamples of the units and the real systems, Holm over the degenerate
systems; real systems identical to a degenerate one set aside)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.gameability import best_degenerate, class_degenerates, degenerate_scores, gameability, gameable

from .conftest import FIXTURES


def test_the_degenerate_classifiers_confusion_matrices():
    """A constant prediction of class i fills row i with the gold counts
    (a plain loop over items); the guessers' expected matrices q_i n_j."""
    gold = [0, 0, 0, 1, 2, 2]
    n = np.bincount(gold, minlength=3)
    names, c = class_degenerates(n, ["a", "b", "c"])
    assert names == ["all_a", "all_b", "all_c", "prior_guesser", "uniform_guesser"]
    for i in range(3):
        loop = np.zeros((3, 3))
        for g in gold:
            loop[i, g] += 1
        np.testing.assert_array_equal(c[i], loop)
    np.testing.assert_allclose(c[3], np.outer(n / 6, n))
    np.testing.assert_allclose(c[4], np.outer(np.full(3, 1 / 3), n))


def test_a_degenerate_system_that_beats_the_median_real_system_is_flagged():
    """Ranks and the median from a plain computation; lower-is-better
    metrics (MAE) oriented; a tie with the median is not beating it."""
    real = pd.DataFrame({"accuracy": [0.9, 0.5, 0.4, 0.3], "mae_macro": [0.2, 0.6, 0.7, 0.9]})
    deg = pd.DataFrame({"degenerate": ["all_x", "guess"], "accuracy": [0.45, 0.95], "mae_macro": [0.65, 0.5]})
    t = gameability(real, deg, ["accuracy", "mae_macro"]).set_index(["metric", "degenerate"])
    assert t.loc[("accuracy", "all_x"), "median_real"] == pytest.approx(0.45)  # median of 0.9, 0.5, 0.4, 0.3
    assert not t.loc[("accuracy", "all_x"), "beats_median"]  # equal to the median: not better
    assert t.loc[("accuracy", "all_x"), "rank"] == 3 and t.loc[("accuracy", "guess"), "rank"] == 1
    assert t.loc[("mae_macro", "guess"), "beats_median"] and t.loc[("mae_macro", "guess"), "rank"] == 2
    assert not t.loc[("mae_macro", "all_x"), "beats_median"]  # 0.65 = median (0.6 + 0.7) / 2
    # without the test a point win is borderline, never gameable
    assert gameable(gameability(real, deg, ["accuracy", "mae_macro"])).empty
    g = gameable(gameability(real, deg, ["accuracy", "mae_macro"]), "borderline")
    assert g["metric"].tolist() == ["accuracy", "mae_macro"] and g["degenerate"].tolist() == ["guess", "guess"]
    b = best_degenerate(gameability(real, deg, ["accuracy", "mae_macro"]))
    assert b["verdict"].tolist() == ["borderline", "borderline"]


@pytest.mark.realdata
def test_on_real_data_the_known_games_are_found_and_tested(data_dir, project_config):
    """Scarton et al.'s point (the majority class under accuracy on
    RumourEval 2017), the constant `discuss` under MAE on FNC-1, and one
    span covering the whole text under span-F1 min, all beat the median
    real system on the test set; with the resamples of units and real
    systems, only the whole text is significantly better (p < 0.01): with 7
    real systems on RumourEval 2017 and a 0.003 margin on FNC-1 the others
    are borderline, said and not vetoed."""
    from metaeval.config import dataset_specs
    from metaeval.dataset import load_dataset
    from metaeval.gameability import dataset_gameability

    specs = dataset_specs(project_config)
    found, verdict = {}, {}
    for name in ("rumoureval2017", "fnc1", "semeval2020t11_si_synthetic"):
        spec = specs[name]
        ds = load_dataset(spec, data_dir)
        unit = "group" if spec.span_task else "item"
        t = dataset_gameability(ds, spec, unit=unit, replicates=400, seed=20210303)
        found[name] = t[t["beats_median"]].groupby("metric")["degenerate"].apply(set).to_dict()
        verdict[name] = best_degenerate(t).set_index("metric")["verdict"].to_dict()
    assert "all_comment" in found["rumoureval2017"]["accuracy"] and "f1_weighted" in found["rumoureval2017"]
    assert "macro_f1" not in found["rumoureval2017"]
    assert verdict["rumoureval2017"]["accuracy"] == "borderline"
    assert found["fnc1"]["mae_macro"] == {"all_discuss"} and verdict["fnc1"]["mae_macro"] == "borderline"
    assert "whole_text" in found["semeval2020t11_si_synthetic"]["span_f1_min"]
    assert verdict["semeval2020t11_si_synthetic"]["span_f1_min"] == "gameable"
    assert "span_f1" not in found["semeval2020t11_si_synthetic"]


@pytest.mark.realdata
def test_a_real_system_identical_to_a_degenerate_one_changes_nothing(data_dir, project_config):
    """Issue 29: adding to fnc1 a real system that predicts exactly what
    all_discuss predicts does not turn a veto into a pass or back: it is
    set aside from the median, so every score, median, p-value and verdict
    stays as it was (MAE^M borderline in both cases), and the table says
    which system was set aside."""
    from dataclasses import replace

    from metaeval.config import dataset_specs
    from metaeval.dataset import load_dataset
    from metaeval.gameability import dataset_gameability

    spec = dataset_specs(project_config)["fnc1"]
    ds = load_dataset(spec, data_dir)
    discuss = spec.labels.index("discuss")
    ds2 = replace(ds, systems=ds.systems + ("copy_of_all_discuss",), kinds=ds.kinds + ("system",),
                  predictions=np.vstack([ds.predictions, np.full((1, ds.n_items), discuss, ds.predictions.dtype)]))
    cols = ["metric", "degenerate", "score", "median_real", "n_real", "beats_median", "p_value", "p_holm", "verdict"]
    a = dataset_gameability(ds, spec, unit="item", replicates=300, seed=5)
    b = dataset_gameability(ds2, spec, unit="item", replicates=300, seed=5)
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert (b["set_aside"] == "copy_of_all_discuss").all() and (a["set_aside"] == "").all()
    assert a.set_index(["metric", "degenerate"]).loc[("mae_macro", "all_discuss"), "verdict"] == "borderline"
    # counted as a real system (the point comparison of before), it would have moved the median
    from metaeval.dataset import score_dataset

    sc = score_dataset(ds2, spec)
    assert sc.loc[sc["kind"] == "system", "mae_macro"].median() != a.loc[a["metric"] == "mae_macro", "median_real"].iloc[0]


def test_the_test_equals_a_plain_loop_over_the_same_draws():
    """p = (1 + #{b: D*_b <= 0}) / (B + 1), D*_b = degenerate - median of
    the drawn real systems, on the engine's draws (units, then systems),
    scored item by item with scikit-learn; Holm over the degenerates."""
    from sklearn.metrics import accuracy_score, recall_score

    from metaeval.config import DatasetSpec
    from metaeval.engine.resample import system_draws, unit_draws
    from metaeval.dataset import Dataset
    from metaeval.gameability import gameability_test
    from metaeval.significance import holm

    rng = np.random.default_rng(11)
    gold = rng.choice(3, 60, p=[0.6, 0.3, 0.1])
    preds = np.stack([np.where(rng.random(60) < a, gold, rng.integers(0, 3, 60)) for a in (0.9, 0.7, 0.5, 0.3, 0.2)])
    spec = DatasetSpec.from_config("g", dict(gold="-", predictions=[], labels=["a", "b", "c"],
                                             metrics=["accuracy", "macro_recall"], baselines=[]))
    ds = Dataset("g", ("a", "b", "c"), np.arange(60).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(5)), ("system",) * 5, preds.astype(np.int8))
    B, seed = 40, 3
    got = gameability_test(ds, spec, unit="item", replicates=B, seed=seed).set_index(["metric", "degenerate"])
    for mid, fn in (("accuracy", accuracy_score),
                    ("macro_recall", lambda g, p, sample_weight: recall_score(g, p, labels=[c for c in range(3) if
                                                                                           sample_weight[g == c].sum()],
                                                                             average="macro",
                                                                             sample_weight=sample_weight,
                                                                             zero_division=0))):
        below = {n: 0 for n in ["all_a", "all_b", "all_c", "prior_guesser", "uniform_guesser"]}
        for b in range(B):
            w = unit_draws(60, [b], seed)[0].astype(float)
            drawn = system_draws(5, [b], seed)[0]
            med = np.median([fn(gold, preds[s], sample_weight=w) for s in drawn])
            n = np.array([w[gold == c].sum() for c in range(3)])
            deg = {f"all_{lab}": fn(gold, np.full(60, c), sample_weight=w) for c, lab in enumerate("abc")}
            # the guessers' expected matrices: E c_ij = q_i n_j (accuracy: sum q_j n_j / N; R^M: mean of q_j)
            for name, q in (("prior_guesser", n / n.sum()), ("uniform_guesser", np.full(3, 1 / 3))):
                deg[name] = float(q @ n / n.sum()) if mid == "accuracy" else float(np.mean(q[n > 0]))
            for name, v in deg.items():
                below[name] += round(v, 12) - round(med, 12) <= 0
        p = np.array([(1 + below[n]) / (B + 1) for n in below])
        for name, pv, ph in zip(below, p, holm(p)):
            assert got.loc[(mid, name), "p_value"] == pytest.approx(pv, abs=1e-12), (mid, name)
            assert got.loc[(mid, name), "p_holm"] == pytest.approx(ph, abs=1e-12)


def test_degenerate_span_systems_are_kept_with_the_dataset(tmp_path):
    """Saved and loaded with the data (the scoring job reads them), and
    scored as the span metrics score any system."""
    from metaeval import spans as SP
    from metaeval.config import DatasetSpec
    from metaeval.dataset import Dataset, load_dataset

    spec = DatasetSpec.from_config("toxic", dict(format="semeval2021_tsd", gold="tsd/gold.csv",
                                                 predictions=["tsd/predictions/*.txt"], baselines=[]))
    ds = load_dataset(spec, FIXTURES)
    assert list(ds.spans.degenerate) == ["no_spans", "whole_text", "every_token"]
    ds.save(tmp_path / "d.npz")
    back = Dataset.load(tmp_path / "d.npz").spans
    for name, sp in ds.spans.degenerate.items():
        np.testing.assert_array_equal(back.degenerate[name].as_array(), sp.as_array())
    stats = back.degenerate_statistics()
    whole = SP.evaluate_spans(stats["whole_text"], ["char_f1_macro", "span_recall"])
    assert whole["span_recall"] == 1.0
    deg = degenerate_scores([], (), (), None, stats, ["char_f1_macro"])
    assert deg.set_index("degenerate").loc["no_spans", "char_f1_macro"] == pytest.approx(5 / 12)


def test_a_span_system_that_predicts_nothing_is_set_aside_as_no_spans():
    """The toxic-spans fixture has a submission that predicts no span: it
    is the degenerate no_spans, not a real system for the median."""
    from metaeval.config import DatasetSpec
    from metaeval.dataset import load_dataset
    from metaeval.gameability import dataset_gameability, identical_to_degenerate

    spec = DatasetSpec.from_config("toxic", dict(format="semeval2021_tsd", gold="tsd/gold.csv",
                                                 predictions=["tsd/predictions/*.txt"], baselines=[]))
    ds = load_dataset(spec, FIXTURES)
    same = identical_to_degenerate(ds)
    assert "no_spans" in same.values()
    empty = [s for s, d in same.items() if d == "no_spans"]
    t = dataset_gameability(ds, spec, unit="group", replicates=50, seed=1)
    assert set(t["set_aside"].iloc[0].split("; ")) == set(same)
    assert (t["n_real"] == sum(k == "system" for k in ds.kinds) - len(same)).all()
    assert empty


def test_the_degenerate_systems_of_scores_against_the_registry():
    """A dataset with metrics of scores: its degenerate systems of scores
    (constant per class, the prior as a probability, random scores) are
    scored by the registry's functions on the whole test set, and the
    guessers of labels have no value there ("not computed")."""
    import warnings

    from metaeval.gameability import dataset_gameability
    from metaeval.scores.degenerates import degenerate_values
    from metaeval.scores.registry import evaluate

    from .test_score_engine import _binary

    ds, spec, y = _binary()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = dataset_gameability(ds, spec)
        tested = dataset_gameability(ds, spec, unit="group", replicates=40)
    names, values = degenerate_values(ds.gold, ds.labels, ds.labels.index(spec.positive_class), spec.random_seed)
    ref = evaluate(spec.score_metrics, values, y, ds.groups, None, len(ds.group_names))
    for m in spec.score_metrics:
        rows = table[table["metric"] == m].set_index("degenerate")
        for d, name in enumerate(names):
            assert rows.loc[name, "score"] == pytest.approx(ref[m][d], nan_ok=True), (m, name)
        assert rows.loc[["prior_guesser", "uniform_guesser"], "score"].isna().all()
    assert set(table["degenerate"]) == {"all_pos", "all_neg", "prior_guesser", "uniform_guesser", *names}
    undefined = tested[tested["score"].isna()]
    assert len(undefined) and (undefined["verdict"] == "not computed").all()
    assert tested.loc[tested["score"].notna(), "verdict"].isin(["gameable", "borderline", "not gameable"]).all()
    assert "p_holm" in tested.columns and "p_holm" not in table.columns


def _table():
    """A hand-made gameability table: accuracy gameable twice (the smaller
    adjusted p wins), kappa borderline and not gameable, macro_f1 never
    computed, mae_macro (lower is better) not gameable."""
    rows = [("kappa", "all_a", 0.0, 0.3, 5.0, False, 0.1, 0.3, "not gameable", ""),  # a smaller p, a milder verdict
            ("kappa", "uniform_guesser", 0.35, 0.3, 2.0, True, 0.2, 0.4, "borderline", "sysX; sysY"),
            ("accuracy", "all_a", 0.8, 0.6, 1.0, True, 0.01, 0.04, "gameable", "sysX"),
            ("accuracy", "prior_guesser", 0.7, 0.6, 2.0, True, 0.001, 0.003, "gameable", ""),
            ("macro_f1", "all_a", np.nan, 0.5, np.nan, False, np.nan, np.nan, "not computed", ""),
            ("mae_macro", "all_a", 1.2, 0.7, 4.0, False, 0.99, 1.0, "not gameable", None)]
    t = pd.DataFrame(rows, columns=["metric", "degenerate", "score", "median_real", "rank", "beats_median",
                                    "p_value", "p_holm", "verdict", "set_aside"])
    t["n_real"] = 4
    return t


def test_the_worst_row_of_each_metric():
    from metaeval.gameability import best_degenerate, gameable

    b = best_degenerate(_table())
    assert list(b.columns) == ["metric", "degenerate", "score", "median_real", "rank", "n_real", "p_value", "p_holm",
                               "verdict"]
    assert b["metric"].tolist() == ["kappa", "accuracy", "mae_macro"]  # the table's order; macro_f1: no rank, no row
    assert b["degenerate"].tolist() == ["uniform_guesser", "prior_guesser", "all_a"]  # the worst verdict first
    assert b.index.tolist() == [0, 1, 2]
    g = gameable(_table())
    assert g["metric"].tolist() == ["accuracy"] and g["degenerate"].tolist() == ["prior_guesser"]
    border = gameable(_table(), "borderline")
    assert border["degenerate"].tolist() == ["uniform_guesser"] and list(border.columns) == list(b.columns)
    none = gameable(_table(), "nothing")
    assert none.empty and list(none.columns) == list(b.columns)
    # a table without the test: the verdict of the point comparison, and no p-values
    plain = _table().drop(columns=["verdict", "p_value", "p_holm"])
    pb = best_degenerate(plain)
    assert pb["verdict"].tolist() == ["borderline", "borderline", "not gameable"]
    assert pb["p_holm"].isna().all() and pb["degenerate"].tolist() == ["uniform_guesser", "all_a", "all_a"]
    assert gameable(plain, "borderline")["metric"].tolist() == ["kappa", "accuracy"]
    assert gameable(plain, "borderline")["p_value"].isna().all()


def test_the_gameability_page():
    from metaeval.gameability import gameability_markdown

    md = gameability_markdown(_table(), "toy: gameability")
    head, table = md.split("\n\n", 2)[0], md.split("\n\n", 2)[2]
    assert head == "# toy: gameability"
    assert ": 1 of 3 metrics are; *borderline* (1): a degenerate system beats" in md
    assert ("Not counted as real systems, since they predict exactly what a degenerate system predicts: sysX, "
            "sysY.") in md
    lines = table.splitlines()
    assert lines[0] == ("| metric | gameable | degenerate system | its score | median real system | its rank | "
                        "p (Holm) |")
    assert lines[2:] == ["| Acc (higher) | **gameable** | prior_guesser | 0.700 | 0.600 | 2 of 5 | 0.003 |",
                         "| kappa (higher) | borderline | uniform_guesser | 0.350 | 0.300 | 2 of 5 | 0.400 |",
                         "| MAE^M (lower) | no | all_a | 1.200 | 0.700 | 4 of 5 | 1.000 |"]
    plain = _table().drop(columns=["verdict", "p_value", "p_holm", "set_aside"])
    md2 = gameability_markdown(plain, "t")
    assert "Not counted" not in md2 and md2.splitlines()[-1].endswith("|  |")  # no p without the test
    assert gameability_markdown(_table().iloc[4:5], "t").endswith("No metric to judge.\n")


def test_the_expected_matrices_of_the_degenerate_systems_of_many_golds():
    from metaeval.chance import expected_confusion
    from metaeval.gameability import _expected_degenerates, class_degenerates

    golds = np.array([[6, 3, 1], [0, 4, 4], [0, 0, 0]])
    got = _expected_degenerates(golds)
    assert got.shape == (3, 5, 3, 3)
    for b, g in enumerate(golds):
        total = g.sum()
        prior = g / total if total else np.full(3, 1 / 3)
        q = np.vstack([np.eye(3), prior, np.full(3, 1 / 3)])
        assert np.allclose(got[b], expected_confusion(g if total else np.zeros(3), q) if total else 0)
    names, mats = class_degenerates([6, 3, 1], ["a", "b", "c"])
    assert names == ["all_a", "all_b", "all_c", "prior_guesser", "uniform_guesser"]
    assert np.allclose(mats, _expected_degenerates(np.array([6, 3, 1])))
