"""The metrics' arguments: class positions, narrow integer counts, batches
with an empty matrix, the defaults of beta, the checks on every argument and
the registry's lookups and messages (each against a plain loop or the exact
words a user reads)."""

from __future__ import annotations

import re

import krippendorff
import numpy as np
import pytest
from sklearn import metrics as skm

from metaeval.measures import labels as M
from metaeval.engine.confusion import confusion_tensor

RNG = np.random.default_rng(20261127)
# unevenly spaced class values (a Likert scale with a gap): not an affine map of 0 .. K-1, so a metric
# that ignored them would give another value
POSITIONS = [1.0, 2.0, 5.0, 5.5]


def _labels(k=4, n=80, seed=0):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.5, gold, rng.integers(0, k, n))
    return gold, pred


# ---------------------------------------------------------------- positions
@pytest.mark.parametrize("seed", range(5))
def test_metrics_of_positions_use_the_given_class_values(seed):
    gold, pred = _labels(seed=seed)
    c = confusion_tensor(gold, pred, 4)
    pos = np.asarray(POSITIONS)
    xg, xp = pos[gold], pos[pred]
    # MAE^mu: the mean distance of the values; MAE^M: its mean per gold class
    mae_micro = np.mean(np.abs(xp - xg))
    mae_macro = np.mean([np.mean(np.abs(xp[gold == j] - xg[gold == j])) for j in range(4) if (gold == j).any()])
    # linear kappa with w_ij = |x_i - x_j|, from its definition
    n = len(gold)
    obs = sum(abs(a - b) for a, b in zip(xp, xg)) / n
    exp = sum(abs(pos[i] - pos[j]) * (pred == i).sum() * (gold == j).sum() for i in range(4) for j in range(4)) / n**2
    kappa_lin = 1 - obs / exp
    alpha_int = krippendorff.alpha(reliability_data=np.vstack([xg, xp]), level_of_measurement="interval")
    expected = {"mae_micro": mae_micro, "mae_macro": mae_macro, "kappa_linear": kappa_lin,
                "alpha_interval": alpha_int}
    for mid, want in expected.items():
        assert M.get(mid).uses_positions
        # through the registry (the dataset's ``positions``), through evaluate and through the function
        assert M.get(mid)(c, positions=POSITIONS) == pytest.approx(want, abs=1e-12), mid
        assert M.evaluate(c, [mid], positions=POSITIONS)[mid] == pytest.approx(want, abs=1e-12), mid
    assert M.mae_micro(c, positions=POSITIONS) == pytest.approx(mae_micro)
    assert M.mae_macro(c, positions=POSITIONS) == pytest.approx(mae_macro)
    assert M.kappa_linear(c, positions=POSITIONS) == pytest.approx(kappa_lin)
    assert M.krippendorff_alpha(c, "interval", positions=POSITIONS) == pytest.approx(alpha_int)
    # without positions, the classes are 0 .. K-1: another value on these data
    assert M.get("mae_micro")(c) == pytest.approx(np.mean(np.abs(pred - gold)))
    assert M.get("mae_micro")(c) != pytest.approx(mae_micro)


def test_positions_of_the_metrics_that_do_not_read_them_are_ignored():
    gold, pred = _labels()
    c = confusion_tensor(gold, pred, 4)
    for mid in ("accuracy", "kappa", "alpha_ordinal", "cem_ord"):
        assert not M.get(mid).uses_positions
        assert M.get(mid)(c, positions=POSITIONS) == M.get(mid)(c)


@pytest.mark.parametrize("positions", [[0, 1, 2], [0, 1, 1, 2], [0, 2, 1, 3], [3, 2, 1, 0], [[0, 1, 2, 3]]])
def test_positions_must_be_k_strictly_increasing_numbers(positions):
    c = confusion_tensor(*_labels(), 4)
    msg = f"positions must be 4 strictly increasing numbers, got {positions!r}"
    for mid in ("mae_micro", "mae_macro", "kappa_linear", "alpha_interval"):
        with pytest.raises(ValueError, match=re.escape(msg)):
            M.get(mid)(c, positions=positions)


def test_positions_closer_than_one_and_not_integers_are_accepted():
    c = confusion_tensor(*_labels(), 4)
    fine = [0.0, 0.1, 0.25, 0.3]
    assert M.mae_micro(c, positions=fine) == pytest.approx(M.mae_micro(c, positions=np.array(fine) * 10) / 10)
    # the differences of the values, not of a narrow integer type that wraps around: 3 - 5 is not 254
    with pytest.raises(ValueError, match="strictly increasing"):
        M.mae_micro(c, positions=np.array([0, 5, 3, 6], dtype=np.uint8))


# ---------------------------------------------------------------- counts of any numeric type
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int64])
def test_narrow_integer_counts_give_the_float_values(dtype):
    """Counts of 300 items as uint8 would wrap around in a sum of that type:
    every metric computes in float64 whatever the type of the counts."""
    gold, pred = _labels(k=3, n=900, seed=3)
    c = confusion_tensor(gold, pred, 3)
    c = np.clip(c, 0, 250)  # each cell fits the narrow type, their sums do not
    params = {"weights": [0.2, 0.3, 0.5], "f_avg_classes": [0, 2], "unrelated": 2, "positive": 1}
    for mid in M.METRIC_IDS:
        want = M.get(mid)(c.astype(np.float64), **params)
        assert M.get(mid)(c.astype(dtype), **params) == pytest.approx(want, abs=1e-12), (mid, dtype)
        assert M.evaluate(c.astype(dtype), [mid], **params)[mid] == pytest.approx(want, abs=1e-12), (mid, dtype)


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((2, 3)), np.zeros((4, 2, 3))])
def test_confusion_tensors_must_be_square_in_their_last_two_axes(bad):
    with pytest.raises(ValueError, match=re.escape(f"confusion tensor must have shape (..., K, K), got {bad.shape}")):
        M.accuracy(bad)
    with pytest.raises(ValueError, match=re.escape("must have shape (..., K, K)")):
        M.evaluate(bad, ["accuracy"])


# ---------------------------------------------------------------- batches with an empty matrix
def test_batches_with_an_empty_matrix_are_nan_there_only():
    c = confusion_tensor(*_labels(k=3, seed=4), 3).astype(float)
    batch = np.stack([c, np.zeros((3, 3)), c.T])
    for mid in M.METRIC_IDS:
        params = {"weights": [0.2, 0.3, 0.5], "f_avg_classes": [0, 2], "unrelated": 2, "positive": 1}
        out = M.get(mid)(batch, **params)
        alone = [M.get(mid)(m, **params) for m in (c, c.T)]
        assert out[0] == pytest.approx(alone[0]) and out[2] == pytest.approx(alone[1]), mid
        if mid in ("macro_f1", "macro_f1_hm", "macro_f2", "macro_recall", "gmr", "wauc", "wf1", "wf2", "f_avg"):
            continue  # the per-class averages: 0 (every class's score is 0), not NaN, by convention
        assert np.isnan(out[1]), mid


@pytest.mark.parametrize("mid", ["accuracy", "f1_weighted", "mae_macro", "mae_micro", "cem_ord", "kappa",
                                 "kappa_linear", "alpha_nominal", "alpha_ordinal", "alpha_interval", "fnc_score",
                                 "mcc", "informedness", "markedness", "f1_class", "precision_class",
                                 "recall_class"])
def test_an_empty_matrix_is_undefined(mid):
    params = {"unrelated": 1, "positive": 0}
    assert np.isnan(M.get(mid)(np.zeros((3, 3)), **params))


# ---------------------------------------------------------------- the defaults of beta
def test_beta_defaults_to_one():
    gold, pred = _labels(k=3, seed=5)
    c = confusion_tensor(gold, pred, 3)
    f1 = skm.f1_score(gold, pred, average=None, labels=[0, 1, 2])
    assert M.fbeta_per_class(c) == pytest.approx(f1)
    assert M.macro_fbeta(c) == pytest.approx(f1.mean())
    w = np.array([0.2, 0.3, 0.5])
    assert M.weighted_fbeta(c, w) == pytest.approx((f1 * w).sum())
    assert M.fbeta_class(c, positive=2) == pytest.approx(f1[2])
    assert M.fbeta_class(c, positive=2, beta=2.0) == pytest.approx(
        skm.fbeta_score(gold, pred, beta=2.0, average=None, labels=[0, 1, 2])[2])


# ---------------------------------------------------------------- one class's metrics
@pytest.mark.parametrize("positive", [0, 2, np.int64(1)])
def test_the_positive_class_may_be_any_class_index(positive):
    gold, pred = _labels(k=3, seed=6)
    c = confusion_tensor(gold, pred, 3)
    assert M.fbeta_class(c, positive) == pytest.approx(skm.f1_score(gold, pred, labels=[positive], average=None)[0])
    assert M.recall_class(c, positive) == pytest.approx(skm.recall_score(gold, pred, labels=[positive],
                                                                       average=None)[0])


@pytest.mark.parametrize("positive", [3, -1, 1.0, True, "1", None])
def test_the_positive_class_must_be_a_class_index(positive):
    c = confusion_tensor(*_labels(k=3), 3)
    msg = f"positive must be a class index in 0..2, got {positive!r}"
    for fn in (M.fbeta_class, M.precision_class, M.recall_class):
        with pytest.raises(ValueError, match=re.escape(msg)):
            fn(c, positive)


# ---------------------------------------------------------------- other arguments
def test_weights_must_be_one_finite_number_per_class():
    c = confusion_tensor(*_labels(k=3), 3)
    with pytest.raises(ValueError, match=re.escape("weights must have one entry per class (3), got shape (2,)")):
        M.wauc(c, [0.5, 0.5])
    for w in ([0.5, np.nan, 0.5], [0.5, np.inf, 0.5]):
        with pytest.raises(ValueError, match=re.escape(f"weights must be finite numbers, got {w}")):
            M.weighted_fbeta(c, w)
    # integer weights are read as numbers
    assert M.wauc(c, [1, 2, 1]) == pytest.approx(M.wauc(c, [1.0, 2.0, 1.0]))


def test_f_avg_of_one_class_and_of_none():
    gold, pred = _labels(k=3, seed=7)
    c = confusion_tensor(gold, pred, 3)
    assert M.f_avg(c, [1]) == pytest.approx(skm.f1_score(gold, pred, labels=[1], average=None)[0])
    with pytest.raises(ValueError, match="^f_avg needs at least one class$"):
        M.f_avg(c, [])


def test_alpha_refuses_an_unknown_level():
    with pytest.raises(ValueError, match=re.escape("unknown level of measurement 'ratio'")):
        M.krippendorff_alpha(np.eye(3), "ratio")


# ---------------------------------------------------------------- the registry's lookups and messages
def test_aliases_are_read_as_the_registry_id():
    for alias, mid in M.ALIASES.items():
        assert M.canonical(alias) == mid and M.get(alias) is M.get(mid)
        assert M.applicable_metrics(False, only=[alias]) == [mid]
    assert M.canonical("accuracy") == "accuracy"


def test_unknown_metrics_are_named_with_the_known_ones():
    known = ", ".join(M.REGISTRY)
    with pytest.raises(KeyError) as e:
        M.applicable_metrics(False, only=["accuracy", "f1-macro"])
    assert e.value.args[0] == f"unknown metric(s) ['f1-macro'] (did you mean 'macro_f1'?); known: {known}"
    with pytest.raises(KeyError) as e:
        M.get("zzz")
    msg = e.value.args[0]
    assert msg.startswith(f"unknown metric 'zzz'; known: {known}, span_")
    assert msg.endswith(" (and balanced_accuracy for macro_recall)")


def test_applicable_metrics_of_ordered_classes():
    ordinal = M.applicable_metrics(True)
    assert ordinal == [m for m in M.DEFAULT_METRIC_IDS if not M.get(m).params]
    assert "mae_macro" in ordinal and "mae_macro" not in M.applicable_metrics(False)


@pytest.mark.parametrize("wrong,want", [
    (["acuracy"], "accuracy"),            # a typo: difflib
    (["F1_Macro"], "macro_f1"),           # the same words in another order and case
    (["f1-macro"], "macro_f1"),           # hyphens for underscores
    (["recall_macro"], "macro_recall"),
    (["zzzz", "kapa"], "kappa"),          # the first wrong id with a match
    (["qqqq_xxxx"], None),
])
def test_closest_suggests_the_metric_meant(wrong, want):
    got = M.closest(wrong, M.METRIC_IDS)
    assert got == ("" if want is None else f" (did you mean {want!r}?)")


def test_closest_prefers_the_same_words_over_a_near_spelling():
    # 'a_b' is closer in spelling to 'a_bc', but 'b_a' has its words
    assert M.closest(["b_a"], ["a_bc", "a_b"]) == " (did you mean 'a_b'?)"
    assert M.closest(["ab"], ["ab_x", "abc"]) == " (did you mean 'abc'?)"


def test_why_not_applicable_says_what_is_missing():
    assert M.why_not_applicable("mae_macro", False) == "needs ordered classes (the dataset has ordinal: false)"
    assert M.why_not_applicable("mae_macro", True) is None
    assert M.why_not_applicable("fnc_score", True) == "needs the dataset key 'unrelated_label'"
    assert M.why_not_applicable("f1_class", False, {"positive": 0}) is None
    assert M.why_not_applicable("wf1", False, {}) == "needs the dataset key 'weights'"


def test_evaluate_refuses_span_metrics_and_names_them():
    c = np.eye(2)
    with pytest.raises(ValueError) as e:
        M.evaluate(c, ["accuracy", "span_f1"])
    assert str(e.value) == ("['span_f1'] are span metrics: they score span statistics "
                            "(metaeval.measures.spans.evaluate_spans), not confusion tensors")
    with pytest.raises(KeyError, match="unknown metric 'nope'"):
        M.evaluate(c, ["nope"])
    assert M.evaluate(c, ["accuracy", "kappa"]) == {"accuracy": 1.0, "kappa": 1.0}


def test_why_not_applicable_names_every_missing_key_of_a_metric_with_two():
    from metaeval.measures.custom import register_metric, unregister_metric

    def two_needs(c, weights, positive):
        return M.weighted_fbeta(c, weights) * 0 + M.recall_class(c, positive)

    register_metric("two_needs_check", two_needs, needs=["weights", "positive_class"], range=(0, 1))
    try:
        assert M.why_not_applicable("two_needs_check", False) == (
            "needs the dataset key 'weights' and the dataset key 'positive_class'")
        assert M.why_not_applicable("two_needs_check", False, {"positive": 1}) == "needs the dataset key 'weights'"
        assert M.why_not_applicable("two_needs_check", False, {"positive": 1, "weights": [0.5, 0.5]}) is None
    finally:
        unregister_metric("two_needs_check")


def test_evaluate_computes_the_margins_once_and_no_metric_can_change_them(monkeypatch):
    """The margins of the scored tensor are computed once per ``evaluate``
    and shared, read-only: every metric equals its own call alone, and a
    metric that wrote into them would fail instead of changing the next."""
    rng = np.random.default_rng(3)
    c = rng.integers(0, 9, (40, 7, 3, 3)).astype(np.float64)
    ids = [m for m in M.REGISTRY if not M.REGISTRY[m].params and M.REGISTRY[m].default]
    calls = []
    margins_of = M._margins_of
    monkeypatch.setattr(M, "_margins_of", lambda x: calls.append(1) or margins_of(x))
    together = M.evaluate(c, ids)
    assert len(calls) == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        for m in ids:
            np.testing.assert_array_equal(together[m], M.REGISTRY[m](c), err_msg=m)
    assert M._KEPT_MARGINS.get() is None  # nothing kept after the call
    # a metric that writes into the shared margins is stopped (evaluate hands them out read-only)
    def writer(x):
        M._margins(x)[1][...] += 1
        return x.sum(axis=(-2, -1))

    import dataclasses

    monkeypatch.setitem(M.REGISTRY, "accuracy", dataclasses.replace(M.REGISTRY["accuracy"], fn=writer))
    with pytest.raises(ValueError, match="read-only"):
        M.evaluate(c, ["accuracy", "kappa"])
