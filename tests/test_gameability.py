"""Gameability: degenerate systems scored on the dataset's own test set,
against the median real system, and tested (METHODS 9.4: one-sided, on
resamples of the units and the real systems, Holm over the degenerate
systems; real systems identical to a degenerate one set aside)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.methods.gameability import best_degenerate, class_degenerates, degenerate_scores, gameability, gameable

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
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.gameability import dataset_gameability

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

    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.gameability import dataset_gameability

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
    from metaeval.data.dataset import score_dataset

    sc = score_dataset(ds2, spec)
    assert sc.loc[sc["kind"] == "system", "mae_macro"].median() != a.loc[a["metric"] == "mae_macro", "median_real"].iloc[0]


def _mae_macro(g, p, sample_weight):
    """MAE^M by a loop: per gold class present, the weighted mean |p - g|; their mean."""
    per = [np.sum(sample_weight[g == c] * np.abs(p[g == c] - c)) / sample_weight[g == c].sum()
           for c in range(3) if sample_weight[g == c].sum() > 0]
    return float(np.mean(per))


def _toy(n_systems=5, n=60, seed=11, rates=(0.9, 0.7, 0.5, 0.3, 0.2, 0.6, 0.4)):
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset

    rng = np.random.default_rng(seed)
    gold = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    preds = np.stack([np.where(rng.random(n) < a, gold, rng.integers(0, 3, n))
                      for a in rates[:n_systems]])
    spec = DatasetSpec.from_config("g", dict(gold="-", predictions=[], labels=["a", "b", "c"],
                                             metrics=["accuracy", "macro_recall", "mae_macro"], baselines=[],
                                             ordinal=True))
    ds = Dataset("g", ("a", "b", "c"), np.arange(n).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(n_systems)), ("system",) * n_systems, preds.astype(np.int8))
    return ds, spec, gold, preds


@pytest.mark.parametrize("chunk", [100, 7])
def test_the_test_equals_a_plain_loop_over_the_same_draws(chunk):
    """p = (1 + #{b: D*_b <= 0}) / (B + 1), D*_b = degenerate - median of
    the drawn real systems in the metric's direction (MAE^M: lower is
    better), on the engine's draws (units, then systems), scored item by
    item with scikit-learn or a loop; Holm over the degenerates; the same
    whether the replicates come in one chunk or in chunks of 7."""
    from sklearn.metrics import accuracy_score, recall_score

    from metaeval.engine.resample import system_draws, unit_draws
    from metaeval.methods.gameability import gameability_test
    from metaeval.methods.corrections import holm

    ds, spec, gold, preds = _toy()
    B, seed = 40, 3
    got = gameability_test(ds, spec, unit="item", replicates=B, seed=seed,
                           chunk=chunk).set_index(["metric", "degenerate"])
    assert (got["n_real"] == 5).all() and (got["set_aside"] == "").all()
    x = np.arange(3)
    for mid, fn in (("accuracy", accuracy_score),
                    ("macro_recall", lambda g, p, sample_weight: recall_score(g, p, labels=[c for c in range(3) if
                                                                                           sample_weight[g == c].sum()],
                                                                             average="macro",
                                                                             sample_weight=sample_weight,
                                                                             zero_division=0)),
                    ("mae_macro", _mae_macro)):
        sign = -1 if mid == "mae_macro" else 1
        below = {n: 0 for n in ["all_a", "all_b", "all_c", "prior_guesser", "uniform_guesser"]}
        for b in range(B):
            w = unit_draws(60, [b], seed)[0].astype(float)
            drawn = system_draws(5, [b], seed)[0]
            med = np.median([fn(gold, preds[s], sample_weight=w) for s in drawn])
            n = np.array([w[gold == c].sum() for c in range(3)])
            deg = {f"all_{lab}": fn(gold, np.full(60, c), sample_weight=w) for c, lab in enumerate("abc")}
            # the guessers' expected matrices: E c_ij = q_i n_j (accuracy: sum q_j n_j / N; R^M: mean of q_j;
            # MAE^M: the mean over present classes j of sum_i q_i |i - j|)
            for name, q in (("prior_guesser", n / n.sum()), ("uniform_guesser", np.full(3, 1 / 3))):
                deg[name] = (float(q @ n / n.sum()) if mid == "accuracy" else
                             float(np.mean(q[n > 0])) if mid == "macro_recall" else
                             float(np.mean([q @ np.abs(x - j) for j in range(3) if n[j] > 0])))
            for name, v in deg.items():
                below[name] += sign * (round(v, 12) - round(med, 12)) <= 0
        p = np.array([(1 + below[n]) / (B + 1) for n in below])
        for name, pv, ph in zip(below, p, holm(p)):
            assert got.loc[(mid, name), "p_value"] == pytest.approx(pv, abs=1e-12), (mid, name)
            assert got.loc[(mid, name), "p_holm"] == pytest.approx(ph, abs=1e-12)
    # the degenerate all_c (10 % of the gold) is far below every real system under accuracy: p = 1
    assert got.loc[("accuracy", "all_c"), "p_value"] == 1.0


def test_the_test_reports_its_progress_replicate_by_replicate():
    from metaeval.engine.progress import reporting
    from metaeval.methods.gameability import gameability_test

    ds, spec, _, _ = _toy()
    seen = []
    with reporting(lambda done, total, what: seen.append((done, total, what))):
        gameability_test(ds, spec, unit="item", replicates=20, seed=1, chunk=8)
    assert [s for s in seen if s[2] == "gameability resamples"] == [(8, 20, "gameability resamples"),
                                                                    (16, 20, "gameability resamples"),
                                                                    (20, 20, "gameability resamples")]


def test_with_fewer_than_two_real_systems_there_is_no_test():
    """One real system left once the constant one is set aside: every row
    is there with NaN p-values, n_real 1 and the system set aside named;
    with two real systems the test runs."""
    from dataclasses import replace

    from metaeval.methods.gameability import gameability_test

    ds, spec, gold, preds = _toy(n_systems=2)
    const = replace(ds, predictions=np.stack([preds[0], np.full(60, 1)]).astype(np.int8))
    t = gameability_test(const, spec, unit="item", replicates=10, seed=1)
    assert list(t.columns) == ["metric", "degenerate", "p_value", "p_holm", "n_real", "set_aside"]
    assert t[["metric", "degenerate"]].values.tolist() == [
        [m, d] for m in ("accuracy", "macro_recall", "mae_macro")
        for d in ("all_a", "all_b", "all_c", "prior_guesser", "uniform_guesser")]
    assert t["p_value"].isna().all() and t["p_holm"].isna().all()
    assert (t["n_real"] == 1).all() and (t["set_aside"] == "s1").all()
    two = gameability_test(ds, spec, unit="item", replicates=10, seed=1)
    assert two["p_value"].notna().all() and (two["n_real"] == 2).all() and (two["set_aside"] == "").all()
    # the systems set aside are the caller's when given: none here, so the constant system is a real one
    kept = gameability_test(const, spec, unit="item", replicates=10, seed=1, same={})
    assert kept["p_value"].notna().all() and (kept["n_real"] == 2).all() and (kept["set_aside"] == "").all()


def test_metrics_of_per_item_terms_are_tested_as_their_confusion_twins():
    """Accuracy written as per-item terms has accuracy's p-values for the
    all_<label> systems (same draws, items or groups), and no test for
    the guessers (their expected terms are not computed)."""
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset
    from metaeval.methods.gameability import gameability_test
    from metaeval.measures.items import register_item_metric, unregister_item_metric

    def terms(g, p, items):
        right = (p == g[None, :]).astype(float)
        return np.stack([right, np.ones_like(right)], axis=-1)

    register_item_metric("item_acc", terms, lambda t: t[..., 0] / t[..., 1], range=(0, 1))
    try:
        ds, _, _, _ = _toy()
        spec = DatasetSpec.from_config("g", dict(gold="-", predictions=[], labels=["a", "b", "c"],
                                                 metrics=["accuracy", "item_acc"], baselines=[]))
        groups = (np.arange(60) % 12).astype(np.int16)
        grouped = Dataset("g", ds.labels, ds.item_ids, ds.gold, ds.systems, ds.kinds, ds.predictions, groups=groups,
                          group_names=tuple(f"q{j}" for j in range(12)))
        for data, unit in ((ds, "item"), (grouped, "group")):
            t = gameability_test(data, spec, unit=unit, replicates=30, seed=4).set_index(["metric", "degenerate"])
            for d in ("all_a", "all_b", "all_c"):
                assert t.loc[("item_acc", d), "p_value"] == t.loc[("accuracy", d), "p_value"], (unit, d)
            assert np.isnan(t.loc[("item_acc", "prior_guesser"), "p_value"])
            # Holm over the three all_<label> systems only
            from metaeval.methods.corrections import holm

            p = t.loc[[("item_acc", d) for d in ("all_a", "all_b", "all_c")], "p_value"].to_numpy()
            np.testing.assert_allclose(t.loc[[("item_acc", d) for d in ("all_a", "all_b", "all_c")], "p_holm"],
                                       holm(p))
    finally:
        unregister_item_metric("item_acc")


def test_degenerate_span_systems_are_kept_with_the_dataset(tmp_path):
    """Saved and loaded with the data (the scoring job reads them), and
    scored as the span metrics score any system."""
    from metaeval.measures import spans as SP
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset, load_dataset

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
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.gameability import dataset_gameability, identical_to_degenerate

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

    from metaeval.methods.gameability import dataset_gameability
    from metaeval.measures.scores.degenerates import degenerate_values
    from metaeval.measures.scores.registry import evaluate

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
    from metaeval.methods.gameability import best_degenerate, gameable

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
    from metaeval.methods.gameability import gameability_markdown

    md = gameability_markdown(_table(), "toy: gameability")
    head, table = md.split("\n\n", 2)[0], md.split("\n\n", 2)[2]
    assert head == "# toy: gameability"
    assert ": 1 of 3 metrics are; *borderline* (1): a degenerate system beats" in md
    assert ("Not counted as real systems, since they predict exactly what a degenerate system predicts: sysX, "
            "sysY.") in md
    lines = table.splitlines()
    assert lines[0] == ("| metric | gameable | degenerate system | its score | median real system | its rank | "
                        "p (Holm) |")
    # the Holm p-values by the one rule for p-values (tables.format_p)
    assert lines[2:] == ["| Acc (higher) | **gameable** | prior_guesser | 0.700 | 0.600 | 2 of 5 | 0.003 |",
                         "| kappa (higher) | borderline | uniform_guesser | 0.350 | 0.300 | 2 of 5 | 0.4 |",
                         "| MAE^M (lower) | no | all_a | 1.200 | 0.700 | 4 of 5 | 1 |"]
    near = _table().assign(p_holm=lambda t: np.where(t["metric"] == "accuracy", 0.04995, t["p_holm"]))
    assert "| 1 of 5 | 0.04995 |" in gameability_markdown(near, "t")  # not 0.05: below alpha, and read so
    plain = _table().drop(columns=["verdict", "p_value", "p_holm", "set_aside"])
    md2 = gameability_markdown(plain, "t")
    assert "Not counted" not in md2 and md2.splitlines()[-1].endswith("|  |")  # no p without the test
    assert gameability_markdown(_table().iloc[4:5], "t").endswith("No metric to judge.\n")


def test_the_expected_matrices_of_the_degenerate_systems_of_many_golds():
    from metaeval.measures.chance import expected_confusion
    from metaeval.methods.gameability import _expected_degenerates, class_degenerates

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


def test_the_degenerate_scores_are_tested_on_each_resample_s_items():
    """Metrics of scores: p-values from a plain loop over the same draws of
    groups and systems, each replicate scored by the registry on the items'
    weights (a group's weight on each of its items), oriented by the
    metric's direction (Brier, log-loss, ECE: lower is better)."""
    import warnings

    from metaeval.measures import labels as M
    from metaeval.engine.resample import system_draws, unit_draws
    from metaeval.methods.gameability import gameability_test
    from metaeval.measures.scores.degenerates import degenerate_values
    from metaeval.measures.scores.registry import evaluate
    from metaeval.methods.corrections import holm

    from .test_score_engine import _binary

    ds, spec, y = _binary()
    B, seed = 15, 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = gameability_test(ds, spec, unit="group", replicates=B, seed=seed).set_index(["metric", "degenerate"])
        names, values = degenerate_values(ds.gold, ds.labels, ds.labels.index(spec.positive_class), spec.random_seed)
        groups, ng = ds.groups, len(ds.group_names)
        below = {m: np.zeros(len(names)) for m in spec.score_metrics}
        for b in range(B):
            w = unit_draws(ng, [b], seed)[0].astype(float)[groups]
            drawn = system_draws(4, [b], seed)[0]
            real = evaluate(spec.score_metrics, ds.scores.values, y, groups, w, ng)
            deg = evaluate(spec.score_metrics, values, y, groups, w, ng)
            for m in spec.score_metrics:
                sign = 1 if M.get(m).higher_is_better else -1
                med = np.nanmedian(real[m][drawn])
                below[m] += sign * (np.round(deg[m], 12) - np.round(med, 12)) <= 0
    for m in spec.score_metrics:
        p = (1 + below[m]) / (B + 1)
        rows = got.loc[[(m, n) for n in names]]
        np.testing.assert_allclose(rows["p_value"], p, atol=1e-12, err_msg=m)
        np.testing.assert_allclose(rows["p_holm"], holm(p), atol=1e-12, err_msg=m)


def test_a_metric_is_gameable_below_alpha_not_at_it():
    """Weak real systems, all_a (60 % of the gold) far above their median:
    its adjusted p is 0.05 on 99 replicates (1/100 times Holm's 5); at alpha
    equal to it the row is borderline, just above it gameable."""
    from metaeval.methods.gameability import dataset_gameability

    ds, spec, _, _ = _toy(rates=(0.1, 0.0, 0.2, 0.05, 0.15))
    t = dataset_gameability(ds, spec, unit="item", replicates=99, seed=2).set_index(["metric", "degenerate"])
    p = t.loc[("accuracy", "all_a"), "p_holm"]
    assert p == pytest.approx(0.05) and t.loc[("accuracy", "all_a"), "beats_median"]
    at = dataset_gameability(ds, spec, unit="item", replicates=99, seed=2, alpha=p).set_index(["metric", "degenerate"])
    above = dataset_gameability(ds, spec, unit="item", replicates=99, seed=2,
                                alpha=p + 1e-9).set_index(["metric", "degenerate"])
    assert at.loc[("accuracy", "all_a"), "verdict"] == "borderline"
    assert above.loc[("accuracy", "all_a"), "verdict"] == "gameable"
    assert above.loc[("accuracy", "prior_guesser"), "verdict"] == "borderline"  # beats the median, p = 0.6
    assert above.loc[("accuracy", "all_b"), "verdict"] == "not gameable"
    assert (above["set_aside"] == "").all()
    assert list(at.reset_index().columns) == ["metric", "degenerate", "score", "median_real", "n_real", "rank",
                                              "beats_median", "p_value", "p_holm", "set_aside", "verdict"]
    assert list(dataset_gameability(ds, spec).columns) == ["metric", "degenerate", "score", "median_real", "n_real",
                                                           "rank", "beats_median"]


def test_a_system_is_set_aside_only_when_its_labels_and_scores_are_constant():
    """With scores, a constant label is not enough: a system whose scores
    still rank the items is a real system; one constant in both is the
    degenerate all_<label>."""
    from dataclasses import replace

    from metaeval.methods.gameability import identical_to_degenerate
    from metaeval.data.score_data import ScoreView

    from .test_score_engine import _binary

    ds, _, _ = _binary()
    pred, values = ds.predictions.copy(), ds.scores.values.copy()
    pred[0], pred[1] = 1, 0  # s0: constant neg, scores that vary; s1: constant pos, scores constant
    values[1] = 0.9
    assert np.ptp(values[0]) > 0
    ds2 = replace(ds, predictions=pred, scores=ScoreView(values, ds.scores.columns))
    assert identical_to_degenerate(ds2) == {"s1": "all_pos"}
    assert identical_to_degenerate(replace(ds2, scores=None)) == {"s0": "all_neg", "s1": "all_pos"}


def test_the_degenerate_tables_keep_their_columns_when_empty():
    """No metric, no degenerate system: empty tables with their columns;
    classes without metrics give no rows; a failed pairing of labels and
    counts names both."""
    from metaeval.methods.gameability import class_degenerates

    assert degenerate_scores([3, 2], ["a", "b"], []).empty
    e = degenerate_scores([], (), ["accuracy"])
    assert e.empty and list(e.columns) == ["degenerate", "accuracy"]
    g = gameability(pd.DataFrame({"accuracy": [0.5]}), pd.DataFrame({"degenerate": [], "accuracy": []}), ["accuracy"])
    assert g.empty and list(g.columns) == ["metric", "degenerate", "score", "median_real", "n_real", "rank",
                                           "beats_median"]
    with pytest.raises(ValueError, match="^2 labels for 3 gold counts$"):
        class_degenerates([1, 2, 3], ["a", "b"])


def test_a_degenerate_system_without_a_score_has_no_rank_and_beats_nothing():
    real = pd.DataFrame({"accuracy": [0.9, 0.5, np.nan]})
    deg = pd.DataFrame({"degenerate": ["none", "all_x"], "accuracy": [np.nan, 0.95]})
    t = gameability(real, deg, ["accuracy"]).set_index("degenerate")
    assert np.isnan(t.loc["none", "rank"]) and not t.loc["none", "beats_median"]
    assert t.loc["all_x", "rank"] == 1 and t.loc["all_x", "beats_median"] and t.loc["all_x", "n_real"] == 2
    nobody = gameability(pd.DataFrame({"accuracy": [np.nan]}), deg, ["accuracy"]).set_index("degenerate")
    assert np.isnan(nobody.loc["all_x", "rank"]) and not nobody.loc["all_x", "beats_median"]
    assert np.isnan(nobody.loc["all_x", "median_real"]) and nobody.loc["all_x", "n_real"] == 0


def test_the_summaries_without_a_test_have_float_p_value_columns():
    """A table of the point comparison only: the p-value columns are
    there, NaN and of float type (CSV and Markdown write them empty)."""
    plain = _table().drop(columns=["verdict", "p_value", "p_holm"])
    for t in (best_degenerate(plain), gameable(plain, "borderline")):
        assert t["p_value"].dtype == np.float64 and t["p_holm"].dtype == np.float64
        assert t.index.tolist() == list(range(len(t)))


def test_the_expected_matrices_with_one_item_and_with_weighted_gold():
    """The prior of a gold of one item is that item's class, of a gold of
    fractional weight its share (not a uniform fill)."""
    from metaeval.methods.gameability import _expected_degenerates

    for g in ([0.0, 1.0, 0.0], [0.5, 0.0, 0.0], [0.25, 0.25, 0.0]):
        g = np.array(g)
        prior = g / g.sum()
        np.testing.assert_allclose(_expected_degenerates(g)[3], np.outer(prior, g))


def test_the_table_of_a_dataset_with_only_metrics_of_items_or_of_scores():
    """No metric of confusion matrices: the degenerate rows come from the
    metrics of per-item terms (an item-weighted accuracy, against a plain
    sum) or of scores alone; a class absent from the gold still has its
    all_<label>; scores given are the scores used for the median."""
    import warnings

    from metaeval.data.config import DatasetSpec
    from metaeval.methods.gameability import dataset_gameability
    from metaeval.measures.items import register_item_metric, unregister_item_metric

    from .test_score_engine import _binary

    ds, _, gold, preds = _toy()
    ds = __import__("dataclasses").replace(ds, gold=np.where(ds.gold == 2, 0, ds.gold).astype(np.int8))
    weight = {i: 1.0 + int(i) % 3 for i in ds.item_ids}

    def terms(g, p, items):
        a = np.array([weight[i] for i in items])
        return np.stack([(p == g[None, :]) * a, np.broadcast_to(a, p.shape)], axis=-1)

    register_item_metric("w_acc", terms, lambda t: t[..., 0] / t[..., 1], range=(0, 1))
    try:
        spec = DatasetSpec.from_config("g", dict(gold="-", predictions=[], labels=["a", "b", "c"],
                                                 metrics=["w_acc"], baselines=[]))
        t = dataset_gameability(ds, spec).set_index("degenerate")
        a = np.array([weight[i] for i in ds.item_ids])
        for c, lab in enumerate("abc"):
            assert t.loc[f"all_{lab}", "score"] == pytest.approx(a[ds.gold == c].sum() / a.sum())
        assert t.loc["all_c", "score"] == 0 and sorted(t.index) == ["all_a", "all_b", "all_c"]
    finally:
        unregister_item_metric("w_acc")
    with_acc = DatasetSpec.from_config("g", dict(gold="-", predictions=[], labels=["a", "b", "c"],
                                                 metrics=["accuracy"], baselines=[]))
    t = dataset_gameability(ds, with_acc).set_index("degenerate")
    assert t.loc["all_c", "score"] == 0 and t.loc["all_a", "score"] == pytest.approx(np.mean(ds.gold == 0))
    # the scores given: the median of these, not of a fresh scoring
    from metaeval.data.dataset import score_dataset

    sc = score_dataset(ds, with_acc)
    sc["accuracy"] = [0.1, 0.2, 0.3, 0.4, 0.5]
    assert dataset_gameability(ds, with_acc, sc)["median_real"].iloc[0] == pytest.approx(0.3)
    bds, bspec, _ = _binary()
    from dataclasses import replace

    only_scores = replace(bspec, metrics=(), score_metrics=("roc_auc", "brier"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = dataset_gameability(bds, only_scores)
        no_scores = dataset_gameability(bds, replace(bspec, score_metrics=()))
    assert set(ts["metric"]) == {"roc_auc", "brier"} and "random_score" in set(ts["degenerate"])
    assert ts["score"].notna().all()
    assert set(no_scores["degenerate"]) == {"all_pos", "all_neg", "prior_guesser", "uniform_guesser"}


def test_the_degenerate_scores_of_several_classes_are_tested_too():
    """Class probabilities (no positive class): the degenerate scores are
    scored against the gold classes, and the test runs."""
    import warnings

    from metaeval.methods.gameability import dataset_gameability
    from metaeval.measures.scores.degenerates import degenerate_values
    from metaeval.measures.scores.registry import evaluate

    from .test_score_engine import _probs

    ds, spec = _probs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = dataset_gameability(ds, spec, unit="item", replicates=20, seed=1)
        names, values = degenerate_values(ds.gold, ds.labels, None, spec.random_seed)
        ref = evaluate(spec.score_metrics, values, ds.gold.astype(np.int64))
    for m in spec.score_metrics:
        rows = t[t["metric"] == m].set_index("degenerate")
        np.testing.assert_allclose(rows.loc[names, "score"], ref[m], equal_nan=True, err_msg=m)
    assert t.loc[t["score"].notna(), "p_value"].notna().all()


def test_one_replicate_gives_p_values_of_one_half_or_one():
    """(1 + #{D*_b <= 0}) / (B + 1) with B = 1: 1/2 when the degenerate
    system beat the drawn median on the one replicate, else 1."""
    from metaeval.methods.gameability import gameability_test

    ds, spec, _, _ = _toy(rates=(0.1, 0.0, 0.2, 0.05, 0.15))
    t = gameability_test(ds, spec, unit="item", replicates=1, seed=2)
    assert set(t["p_value"]) <= {0.5, 1.0} and (t["p_value"] == 0.5).any() and (t["p_value"] == 1.0).any()


def test_two_systems_set_aside_are_both_named():
    from dataclasses import replace

    from metaeval.methods.gameability import gameability_test

    ds, spec, gold, preds = _toy(n_systems=3)
    const = replace(ds, predictions=np.stack([preds[0], np.full(60, 1), np.full(60, 0)]).astype(np.int8))
    t = gameability_test(const, spec, unit="item", replicates=5, seed=1)
    assert (t["set_aside"] == "s1; s2").all() and (t["n_real"] == 1).all()


def test_span_identification_is_tested_against_its_span_degenerates_only():
    """No classes: no constant class and no guesser among the degenerate
    systems of the test, only no_spans, whole_text and every_token."""
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.gameability import gameability_test

    spec = DatasetSpec.from_config("toxic", dict(format="semeval2021_tsd", gold="tsd/gold.csv",
                                                 predictions=["tsd/predictions/*.txt"], baselines=[]))
    ds = load_dataset(spec, FIXTURES)
    t = gameability_test(ds, spec, unit="group", replicates=10, seed=1)
    assert set(t["degenerate"]) == {"no_spans", "whole_text", "every_token"}


def test_a_metric_no_degenerate_system_has_is_a_float_column():
    stats = {"no_spans": np.zeros(len(__import__("metaeval.measures.spans", fromlist=["STATS"]).STATS))}
    d = degenerate_scores([], (), ["accuracy"], None, stats, [])
    assert d["accuracy"].isna().all() and d["accuracy"].dtype == np.float64


def test_the_degenerate_span_statistics_per_document_sum_to_their_totals():
    """Technique classification: the per-document statistics the test
    resamples are the labelled ones (a span counts only with its
    technique), summing to the totals of the point table."""
    from metaeval.api import read_files
    from metaeval.methods.gameability import _degenerate_unit_stats

    spans = FIXTURES / "spans"
    ds, spec = read_files(spans / "tc" / "gold.labels", sorted((spans / "tc" / "predictions").glob("*.txt")),
                          format="semeval2020_tc", articles=spans / "articles")
    assert ds.spans.labelled and spec.span_metrics
    names, per_doc = _degenerate_unit_stats(ds, spec)
    totals = ds.spans.degenerate_statistics()
    assert names == list(totals)
    for j, n in enumerate(names):
        np.testing.assert_allclose(per_doc[:, j].sum(axis=0), totals[n], err_msg=n)


def test_a_test_set_of_one_item_has_only_degenerate_systems():
    """One item: every prediction is constant, so every system is an
    all_<label>, with scores too."""
    import warnings

    from metaeval.api import dataset
    from metaeval.data.dataset import Dataset
    from metaeval.methods.gameability import identical_to_degenerate
    from metaeval.data.score_data import ScoreView

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds, _ = dataset(["a"], {"s": ["a"], "t": ["b"]}, labels=["a", "b"], allow_unused_labels=True)
    assert identical_to_degenerate(ds) == {"s": "all_a", "t": "all_b"}
    one = Dataset("d", ("pos", "neg"), np.array(["i0"]), np.array([0], np.int8), ("s", "t"), ("system", "system"),
                  np.array([[0], [1]], np.int8), scores=ScoreView(np.array([[[0.9]], [[0.2]]]), ("pos",)))
    assert identical_to_degenerate(one) == {"s": "all_pos", "t": "all_neg"}


def test_a_span_dataset_without_real_systems_sets_none_aside():
    from dataclasses import replace

    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.gameability import identical_to_degenerate

    spec = DatasetSpec.from_config("toxic", dict(format="semeval2021_tsd", gold="tsd/gold.csv",
                                                 predictions=["tsd/predictions/*.txt"], baselines=[]))
    ds = load_dataset(spec, FIXTURES)
    assert identical_to_degenerate(replace(ds, kinds=("baseline",) * len(ds.kinds))) == {}
    # a baseline before the real systems (a submission named as one by baseline_systems): each real system is
    # compared with its own statistics
    same = identical_to_degenerate(ds)
    first = ds.systems[0]
    moved = identical_to_degenerate(replace(ds, kinds=("baseline",) + ds.kinds[1:]))
    assert same and moved == {s: d for s, d in same.items() if s != first}


def test_a_dataset_without_systems_sets_none_aside():
    from metaeval.data.dataset import Dataset
    from metaeval.methods.gameability import identical_to_degenerate

    empty = Dataset("e", ("a", "b"), np.array(["i0", "i1"]), np.array([0, 1], np.int8), (), (),
                    np.zeros((0, 2), np.int8))
    assert identical_to_degenerate(empty) == {}


def test_the_degenerate_scores_by_a_loop():
    """all_<label>: the label's one-hot scores (one score per item: 1 for
    the positive class's constant, 0 for the others); prior_probability:
    the test set's class shares (a class absent from the gold: 0); random
    scores from the seed; every item alike but the random ones."""
    from metaeval.measures.scores.degenerates import degenerate_values

    gold = [0, 1, 1, 0, 1]
    names, v = degenerate_values(gold, ["a", "b", "c"], None, seed=3)
    assert names == ["all_a", "all_b", "all_c", "prior_probability", "random_score"] and v.shape == (5, 5, 3)
    for i in range(3):
        assert (v[i] == np.eye(3)[i]).all()
    assert np.allclose(v[3], [2 / 5, 3 / 5, 0.0])
    np.testing.assert_array_equal(v[4], np.random.default_rng(3).dirichlet(np.ones(3), size=(1, 5))[0])
    names, v = degenerate_values(gold, ["a", "b"], 1, seed=3)
    assert v.shape == (4, 5, 1) and v.dtype == np.float64
    assert v[0, :, 0].tolist() == [0.0] * 5 and v[1, :, 0].tolist() == [1.0] * 5
    assert v[2, :, 0].tolist() == [3 / 5] * 5
    _, one = degenerate_values([1], ["a", "b"], 1, seed=0)
    assert one[2, 0, 0] == 1.0  # the prior of one item
