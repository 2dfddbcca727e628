"""The conventions documented in metaeval.measures.labels, each pinned by a small
hand-computed example."""

from __future__ import annotations

import math

import numpy as np
import pytest

from metaeval.measures import labels as M
from metaeval.engine.confusion import confusion_tensor

# c[i, j]: predicted i, gold j.  Gold counts (column sums): 4, 3, 3; N = 10.
C = np.array([[3, 1, 0],
              [1, 2, 1],
              [0, 0, 2]])


def test_orientation_predicted_rows_gold_columns():
    c = confusion_tensor(gold=[0, 0, 1], predictions=[1, 1, 1], k=2)
    assert c.tolist() == [[0, 0], [2, 1]]  # row 1 = predicted class 1


def test_precision_recall_by_hand():
    p, r = M.precision_recall(C)
    np.testing.assert_allclose(p, [3 / 4, 2 / 4, 2 / 2])
    np.testing.assert_allclose(r, [3 / 4, 2 / 3, 2 / 3])


def test_never_predicted_class_has_precision_zero_and_f_zero():
    c = np.array([[5, 2], [0, 0]])  # class 1 never predicted
    p, r = M.precision_recall(c)
    assert p[1] == 0.0 and r[1] == 0.0
    assert M.fbeta_per_class(c)[1] == 0.0


def test_class_absent_everywhere_counts_zero_in_macro_average():
    c = np.array([[3, 0, 0], [0, 2, 0], [0, 0, 0]])  # class 2 absent from gold and predictions
    assert M.macro_fbeta(c) == pytest.approx(2 / 3)
    assert M.gmr(c) == 0.0
    assert M.mae_macro(c) == 0.0  # MAE^M averages over the classes present in the gold


def test_auc_from_hard_labels_by_hand():
    # class 0: R = 3/4, FPR = 1/6 -> (1 + 3/4 - 1/6) / 2
    auc = M.auc_per_class(C)
    assert auc[0] == pytest.approx((1 + 0.75 - 1 / 6) / 2)
    # a class with no negatives (every gold item in it) has FPR 0
    assert M.auc_per_class(np.array([[4, 0], [1, 0]]))[0] == pytest.approx((1 + 0.8) / 2)


def test_majority_baseline_auc_is_half_and_kappa_zero():
    c = np.array([[0, 0, 0], [5, 7, 3], [0, 0, 0]])  # always predicts class 1
    np.testing.assert_allclose(M.auc_per_class(c), 0.5)
    assert M.kappa(c) == 0.0 and M.kappa_linear(c) == 0.0


def test_weighted_metrics_use_weights_as_given():
    w = np.array([0.5, 0.5, 0.0])
    f = M.fbeta_per_class(C, 2.0)
    assert M.weighted_fbeta(C, w, beta=2.0) == pytest.approx(0.5 * f[0] + 0.5 * f[1])
    with pytest.raises(ValueError, match="one entry per class"):
        M.wauc(C, [1.0])


def test_cem_ord_by_hand():
    g = np.array([4, 3, 3.0])
    n = 10
    prox = M.cem_proximity(g)
    assert prox[0, 0] == pytest.approx(-math.log2(2 / n))
    assert prox[0, 2] == pytest.approx(-math.log2((2 + 3 + 3) / n))  # i < j: n_i/2 + n_{i+1..j}
    assert prox[2, 0] == pytest.approx(-math.log2((1.5 + 4 + 3) / n))  # i > j: n_i/2 + n_{j..i-1}
    assert prox[1, 0] == pytest.approx(-math.log2((1.5 + 4) / n))
    num = (prox * C).sum()
    den = (np.diag(prox) * g).sum()
    assert M.cem_ord(C) == pytest.approx(num / den)


def test_cem_smoothing_for_empty_class():
    g = np.array([5, 0, 5.0])
    prox = M.cem_proximity(g)
    assert prox[1, 1] == pytest.approx(-math.log2(0.5 / 10))


def test_cem_uses_the_scored_matrix_gold_distribution():
    half = C // 2
    expected = (M.cem_proximity(half.sum(0)) * half).sum() / (np.diag(M.cem_proximity(half.sum(0))) * half.sum(0)).sum()
    assert M.cem_ord(half) == pytest.approx(expected)


def test_alpha_ordinal_distance_is_paper_formula():
    """Amemiya & Sakai: d_ij = (sum_{k=i..j} n_k - (n_i + n_j)/2)^2."""
    o = C + C.T
    nv = o.sum(1).astype(float)
    n = nv.sum()
    k = len(nv)
    def d(i, j):
        lo, hi = min(i, j), max(i, j)
        return (nv[lo:hi + 1].sum() - (nv[i] + nv[j]) / 2) ** 2
    num = sum(o[i, j] * d(i, j) for i in range(k) for j in range(i + 1, k))
    e = np.outer(nv, nv) / (n - 1)
    den = sum(e[i, j] * d(i, j) for i in range(k) for j in range(i + 1, k))
    assert M.krippendorff_alpha(C, "ordinal") == pytest.approx(1 - num / den)


def test_undefined_values_are_nan():
    empty = np.zeros((3, 3))
    for mid in ("accuracy", "f1_weighted", "mae_macro", "mae_micro", "cem_ord", "kappa", "alpha_nominal"):
        assert np.isnan(M.get(mid)(empty)), mid
    one_class = np.array([[6, 0], [0, 0]])  # gold and predictions all class 0
    assert np.isnan(M.kappa(one_class)) and np.isnan(M.krippendorff_alpha(one_class))


def test_fnc_score_by_hand():
    # classes: agree, discuss, disagree, unrelated (index 3)
    gold = [0, 1, 2, 3, 3, 0]
    pred = [0, 2, 3, 3, 0, 1]
    # 1.0 + 0.25 + 0 + 0.25 + 0 + 0.25 over max 1+1+1+.25+.25+1
    c = confusion_tensor(gold, pred, 4)
    assert M.fnc_score(c, unrelated=3) == pytest.approx(1.75 / 4.5)


def test_registry_metadata():
    assert M.get("mae_macro").higher_is_better is False and M.get("mae_macro").ordinal
    assert not M.get("kappa").ordinal and M.get("kappa_linear").ordinal
    assert M.applicable_metrics(False) == [m for m in M.DEFAULT_METRIC_IDS
                                           if not M.get(m).ordinal and not M.get(m).params]
    # the metrics added beside the papers' are computed when named, never by default
    assert set(M.METRIC_IDS) - set(M.DEFAULT_METRIC_IDS) == {"mcc", "informedness", "markedness", "f1_class",
                                                             "precision_class", "recall_class"}
    assert M.applicable_metrics(False, {"positive": 1}, only=["mcc", "f1_class"]) == ["mcc", "f1_class"]
    assert "wf2" in M.applicable_metrics(False, {"weights": [0.5, 0.5]})
    with pytest.raises(KeyError, match="unknown metric"):
        M.get("nope")
    with pytest.raises(ValueError, match="needs parameter"):
        M.get("wf1")(C)
