"""Gameability (issue 19, item 5): degenerate systems scored on the
dataset's own test set, against the median real system."""

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
    g = gameable(gameability(real, deg, ["accuracy", "mae_macro"]))
    assert g["metric"].tolist() == ["accuracy", "mae_macro"] and g["degenerate"].tolist() == ["guess", "guess"]
    b = best_degenerate(gameability(real, deg, ["accuracy", "mae_macro"]))
    assert b["gameable"].tolist() == [True, True]


@pytest.mark.realdata
def test_on_real_data_the_known_games_are_found(data_dir, project_config):
    """Scarton et al.'s point (the majority class under accuracy on
    RumourEval 2017), the constant `discuss` under MAE on FNC-1 (issue 19),
    and one span covering the whole text under span-F1 min."""
    from metaeval.config import dataset_specs
    from metaeval.dataset import RANKED_KINDS, load_dataset, score_dataset

    specs = dataset_specs(project_config)
    found = {}
    for name in ("rumoureval2017", "fnc1", "semeval2020t11_si_synthetic"):
        spec = specs[name]
        ds = load_dataset(spec, data_dir)
        sc = score_dataset(ds, spec)
        deg = degenerate_scores(np.bincount(ds.gold, minlength=ds.k) if ds.k else [], spec.labels, spec.metrics,
                                spec.metric_params(), ds.spans.degenerate_statistics() if ds.spans else None,
                                spec.span_metrics)
        found[name] = gameable(gameability(sc[sc["kind"].isin(RANKED_KINDS)], deg, spec.all_metrics)).set_index(
            "metric")["degenerate"].to_dict()
    assert found["rumoureval2017"]["accuracy"] == "all_comment" and "f1_weighted" in found["rumoureval2017"]
    assert "macro_f1" not in found["rumoureval2017"]
    assert found["fnc1"]["mae_macro"] == "all_discuss" and found["fnc1"]["mae_micro"] == "all_discuss"
    assert found["semeval2020t11_si_synthetic"]["span_f1_min"] == "whole_text"
    assert "span_f1" not in found["semeval2020t11_si_synthetic"]


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
