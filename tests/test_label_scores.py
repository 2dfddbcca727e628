"""metaeval.score: one call on label lists, equal to scikit-learn for every
metric scikit-learn has (random label lists, hypothesis), and a confusion
matrix taken only with its orientation named (issue 31, item 4)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sklearn import metrics as skm

import metaeval
from metaeval.label_scores import score


def _kappa(g, p, labels, weights=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return float(skm.cohen_kappa_score(g, p, labels=labels, weights=weights))


# metric id -> scikit-learn on (y_true, y_pred, labels); zero_division=0 is metaeval's convention (a class never
# predicted has precision 0)
SKLEARN = {
    "accuracy": lambda g, p, L: skm.accuracy_score(g, p),
    "macro_f1": lambda g, p, L: skm.f1_score(g, p, labels=L, average="macro", zero_division=0),
    "macro_f2": lambda g, p, L: skm.fbeta_score(g, p, beta=2.0, labels=L, average="macro", zero_division=0),
    "f1_weighted": lambda g, p, L: skm.f1_score(g, p, labels=L, average="weighted", zero_division=0),
    "macro_recall": lambda g, p, L: skm.recall_score(g, p, labels=L, average="macro", zero_division=0),
    "kappa": lambda g, p, L: _kappa(g, p, L),
    "kappa_linear": lambda g, p, L: _kappa(g, p, L, "linear"),
    "mae_micro": lambda g, p, L: skm.mean_absolute_error([L.index(x) for x in g], [L.index(x) for x in p]),
}


@st.composite
def label_lists(draw):
    k = draw(st.integers(2, 5))
    names = ["neg", "neu", "pos", "other", "x"][:k]
    n = draw(st.integers(1, 40))
    g = draw(st.lists(st.sampled_from(names), min_size=n, max_size=n))
    p = draw(st.lists(st.sampled_from(names), min_size=n, max_size=n))
    return g, p


@hsettings(max_examples=150, deadline=None)
@given(label_lists())
def test_score_equals_scikit_learn_on_random_label_lists(lists):
    g, p = lists
    labels = sorted(set(g) | set(p))
    got = score(g, p, list(SKLEARN), labels=labels)
    for mid, ref in SKLEARN.items():
        want = ref(g, p, labels)
        if np.isnan(want):
            assert np.isnan(got[mid]), mid
        else:
            assert got[mid] == pytest.approx(want, abs=1e-12, rel=1e-10), (mid, g, p)
    # the default labels are scikit-learn's: the sorted labels of both lists
    assert score(g, p, "macro_f1") == got["macro_f1"]


@hsettings(max_examples=60, deadline=None)
@given(label_lists())
def test_a_scikit_learn_matrix_with_its_orientation_named_gives_the_lists_score(lists):
    g, p = lists
    labels = sorted(set(g) | set(p))
    cm = skm.confusion_matrix(g, p, labels=labels)  # rows: the true classes
    for mid in ("macro_recall", "macro_f1_hm", "gmr", "alpha_nominal"):
        want = score(g, p, mid, labels=labels)
        for got in (score(confusion=cm, metric=mid, orientation="true_rows", labels=labels),
                    score(confusion=cm, metric=mid, orientation="sklearn"),
                    score(confusion=cm.T, metric=mid, orientation="pred_rows")):
            assert got == pytest.approx(want, abs=1e-12, nan_ok=True), mid


def test_a_transposed_matrix_is_macro_precision_so_the_orientation_is_required():
    """The issue's case: macro_recall of scikit-learn's matrix read as
    metaeval's is macro precision."""
    g = ["a", "a", "a", "b", "b", "c"]
    p = ["a", "b", "b", "b", "c", "c"]
    cm = skm.confusion_matrix(g, p)
    assert score(confusion=cm, metric="macro_recall", orientation="sklearn") == pytest.approx(
        skm.recall_score(g, p, average="macro"))
    assert score(confusion=cm, metric="macro_recall", orientation="pred_rows") == pytest.approx(
        skm.precision_score(g, p, average="macro"))
    with pytest.raises(ValueError, match="does not say which way it reads"):
        score(confusion=cm, metric="macro_recall")
    with pytest.raises(ValueError, match="orientation: one of"):
        score(confusion=cm, metric="macro_recall", orientation="rows")


def test_parameterised_metrics_take_their_parameters_by_label():
    g = ["FAVOR", "AGAINST", "NONE", "FAVOR", "AGAINST", "NONE", "FAVOR"]
    p = ["FAVOR", "NONE", "NONE", "AGAINST", "AGAINST", "FAVOR", "FAVOR"]
    f = skm.f1_score(g, p, labels=["FAVOR", "AGAINST"], average=None, zero_division=0)
    assert score(g, p, "f_avg", f_avg_classes=["FAVOR", "AGAINST"]) == pytest.approx(f.mean())
    w = {"AGAINST": 0.5, "FAVOR": 0.3, "NONE": 0.2}
    fb = skm.f1_score(g, p, labels=["AGAINST", "FAVOR", "NONE"], average=None, zero_division=0)
    assert score(g, p, "wf1", weights=w) == pytest.approx(float(np.dot([0.5, 0.3, 0.2], fb)))
    with pytest.raises(ValueError, match="needs parameter 'weights'"):
        score(g, p, "wf1")
    with pytest.raises(ValueError, match="f_avg_classes: 'PRO' is not one of the labels"):
        score(g, p, "f_avg", f_avg_classes=["PRO"])


def test_bad_calls_are_refused_with_what_to_do():
    with pytest.raises(ValueError, match="one label per item each, got 2 and 1"):
        score(["a", "b"], ["a"], "accuracy")
    with pytest.raises(ValueError, match=r"labels \['c'\] of y_true or y_pred are not in labels"):
        score(["a", "b"], ["a", "c"], "accuracy", labels=["a", "b"])
    with pytest.raises(ValueError, match=r"labels \['c'\] of y_true or y_pred are not in labels"):
        score(["c", "b"], ["a", "b"], "accuracy", labels=["a", "b"])
    with pytest.raises(ValueError, match=r"labels \[1\] of y_true or y_pred"):  # 1 is not '1': no silent match
        score([1, "2"], ["1", "2"], "accuracy", labels=["1", "2"])
    with pytest.raises(KeyError, match="did you mean 'accuracy'"):
        score(["a", "b"], ["a", "b"], "acuracy")
    with pytest.raises(ValueError, match="give labels="):
        score([1, "a"], ["a", 1], "accuracy")
    with pytest.raises(ValueError, match="a square K x K matrix"):
        score(confusion=[[1, 2, 3]], metric="accuracy", orientation="sklearn")
    with pytest.raises(ValueError, match="is a span metric"):
        score(["a", "b"], ["a", "b"], "span_f1")


def test_metaeval_score_is_the_function():
    assert metaeval.score is score
    assert metaeval.score([0, 1, 1], [0, 1, 0], "accuracy") == pytest.approx(2 / 3)


def test_balanced_accuracy_is_a_name_of_macro_recall_everywhere(tmp_path):
    """Issue 31: --metrics balanced_accuracy answered "did you mean
    'accuracy'?", although balanced accuracy is R^M."""
    import subprocess
    import sys

    from metaeval.data.config import DatasetSpec

    g = ["a", "a", "b", "b", "b", "c"]
    p = ["a", "b", "b", "b", "c", "c"]
    assert score(g, p, "balanced_accuracy") == pytest.approx(skm.balanced_accuracy_score(g, p))
    assert metaeval.measures.labels.get("balanced_accuracy") is metaeval.measures.labels.REGISTRY["macro_recall"]
    spec = DatasetSpec.from_config("d", {"gold": "g.csv", "predictions": ["p/*.csv"], "labels": ["a", "b", "c"],
                                         "metrics": ["accuracy", "balanced_accuracy"],
                                         "primary_metric": "balanced_accuracy",
                                         "official_metric": "balanced_accuracy"})
    assert spec.metrics == ("accuracy", "macro_recall") and spec.primary_metric == "macro_recall"
    assert spec.official_metric == "macro_recall"
    got = metaeval.evaluate(g, {"s": p}, metrics=["balanced_accuracy"], intervals=False, baselines=[])
    assert list(got.columns) == ["kind", "macro_recall"]
    (tmp_path / "gold.csv").write_text("item_id,label\n" + "".join(f"{i},{x}\n" for i, x in enumerate(g)))
    (tmp_path / "s.csv").write_text("item_id,label\n" + "".join(f"{i},{x}\n" for i, x in enumerate(p)))
    out = subprocess.run([sys.executable, "-m", "metaeval.cli", "score", str(tmp_path / "gold.csv"),
                          str(tmp_path / "s.csv"), "--metrics", "balanced_accuracy", "--no-intervals", "--format",
                          "csv"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1] == "system,kind,macro_recall"  # (after the signature)


def test_every_parameter_given_by_label_reaches_the_metric():
    """unrelated_label, positive_class, positions, weights as a list or by
    label: each the metric's parameter at the label's position, against
    the confusion-matrix metric given the positions; each refused by name."""
    from metaeval.measures import labels as M
    from metaeval.engine.confusion import confusion_tensor

    labels = ["agree", "disagree", "discuss", "unrelated"]
    rng = np.random.default_rng(2)
    g = rng.choice(labels, 60).tolist()
    p = [x if rng.random() < 0.6 else rng.choice(labels) for x in g]
    c = confusion_tensor(np.array([labels.index(x) for x in g]), np.array([labels.index(x) for x in p]), 4)
    assert score(g, p, "fnc_score", labels=labels, unrelated_label="unrelated") == pytest.approx(
        float(M.get("fnc_score")(c, unrelated=3)))
    assert score(g, p, "fnc_score", labels=labels, unrelated_label="agree") == pytest.approx(
        float(M.get("fnc_score")(c, unrelated=0)))
    assert score(g, p, "f1_class", labels=labels, positive_class="discuss") == pytest.approx(
        float(M.get("f1_class")(c, positive=2)))
    assert score(g, p, "mae_macro", labels=labels, positions=[0, 1, 5, 6]) == pytest.approx(
        float(M.get("mae_macro")(c, positions=np.array([0.0, 1.0, 5.0, 6.0]))))
    w = [0.1, 0.2, 0.3, 0.4]
    assert score(g, p, "wf1", labels=labels, weights=w) == pytest.approx(float(M.get("wf1")(c, weights=np.array(w))))
    assert score(g, p, "wf1", labels=labels, weights=dict(zip(labels, w))) == pytest.approx(
        float(M.get("wf1")(c, weights=np.array(w))))
    for bad, message in (({"weights": {"agree": 1.0}}, "weights: one weight per label ['agree', 'disagree', "
                                                      "'discuss', 'unrelated'], got {'agree': 1.0}"),
                         ({"weights": dict(zip(labels + ["x"], w + [0.0]))}, "weights: one weight per label"),
                         ({"unrelated_label": "x"}, "unrelated_label: 'x' is not one of the labels"),
                         ({"positive_class": "x"}, "positive_class: 'x' is not one of the labels")):
        with pytest.raises(ValueError) as e:
            score(g, p, "fnc_score", labels=labels, **bad)
        assert str(e.value).startswith(message), (bad, str(e.value))
    with pytest.raises(ValueError) as e:
        score(g, p, "accuracy", labels=["agree", "agree", "discuss", "unrelated", "disagree"])
    assert str(e.value).startswith("labels: each label once, got ")


def test_the_default_metric_is_accuracy_and_several_ids_give_a_dict_in_their_order():
    g, p = ["a", "b", "b", "a"], ["a", "b", "a", "a"]
    assert score(g, p) == pytest.approx(0.75)
    assert score([0.5, 1.5, 1.5], [0.5, 1.5, 0.5]) == pytest.approx(2 / 3)  # float labels are labels, not missing
    got = score(g, p, ("kappa", "accuracy"))
    assert list(got) == ["kappa", "accuracy"] and got["accuracy"] == pytest.approx(0.75)


def test_each_wrong_call_is_refused_with_its_own_message():
    """The messages read whole: a refusal that loses its words (or says
    None) leaves the user with nothing to do."""
    cm = [[2, 1], [0, 3]]
    cases = [
        (dict(y_true=["a"], y_pred=["a"], metric=[]), ValueError, "metric: at least one metric id"),
        (dict(y_true=["a"], y_pred=["a"], metric="acuracy"), KeyError,
         "unknown metric 'acuracy' (did you mean 'accuracy'?); known: " + ", ".join(metaeval.measures.labels.METRIC_IDS)),
        (dict(y_true=["a"], confusion=cm, orientation="sklearn"), ValueError,
         "give y_true and y_pred, or confusion, not both"),
        (dict(y_pred=["a"], confusion=cm, orientation="sklearn"), ValueError,
         "give y_true and y_pred, or confusion, not both"),
        (dict(confusion=cm), ValueError,
         "confusion: a square matrix does not say which way it reads: name it, orientation='true_rows' (rows are "
         "the true classes, as sklearn.metrics.confusion_matrix) or 'pred_rows' (rows are the predictions, as "
         "metaeval's tensors)"),
        (dict(confusion=cm, orientation="rows"), ValueError,
         "orientation: one of 'true_rows', 'sklearn', 'pred_rows', 'metaeval', got 'rows'"),
        (dict(confusion=[[2, -1], [0, 3]], orientation="sklearn"), ValueError,
         "confusion: counts of items (non-negative integers)"),
        (dict(confusion=[[2, 1.5], [0, 3]], orientation="sklearn"), ValueError,
         "confusion: counts of items (non-negative integers)"),
        (dict(confusion=[["2", "1"], ["0", "3"]], orientation="sklearn"), ValueError,
         "confusion: counts of items (non-negative integers)"),
        (dict(confusion=[[True, False], [False, True]], orientation="sklearn"), ValueError,
         "confusion: counts of items (non-negative integers)"),
        (dict(confusion=cm, orientation="sklearn", labels=["a", "b", "c"]), ValueError,
         "labels: 2 classes for a 2 x 2 matrix, got ['a', 'b', 'c']"),
        (dict(y_true=["a"]), ValueError, "give y_true and y_pred (or confusion= with its orientation)"),
        (dict(y_pred=["a"]), ValueError, "give y_true and y_pred (or confusion= with its orientation)"),
        (dict(y_true=[1, "a"], y_pred=["a", 1]), ValueError,
         "y_true and y_pred mix labels that do not sort (e.g. numbers and texts): give labels=[...] in their order"),
        (dict(y_true=["a", None, "b"], y_pred=["a", "b", "b"]), ValueError,
         "y_true: no label (None or NaN) at position 1: every item needs a label"),
        (dict(y_true=["a", "b", "b"], y_pred=[float("nan"), "b", None]), ValueError,
         "y_pred: no label (None or NaN) at position 0 and 1 more: every item needs a label"),
        # the labels outside labels=, listed in the order of their repr whatever their types
        (dict(y_true=["z", 2], y_pred=["a", "b"], labels=["a", "b"]), ValueError,
         "labels ['z', 2] of y_true or y_pred are not in labels=['a', 'b']"),
    ]
    for kwargs, error, message in cases:
        with pytest.raises(error) as e:
            score(**kwargs)
        assert e.value.args[0] == message, (kwargs, e.value.args[0])


def test_a_matrix_reads_its_labels_for_the_parameters_given_by_label():
    cm = np.array([[5, 1, 0], [2, 4, 1], [0, 3, 6]])  # rows: the true classes
    g = sum(([t] * int(cm[t, q]) for t in range(3) for q in range(3)), [])
    p = sum(([q] * int(cm[t, q]) for t in range(3) for q in range(3)), [])
    names = ["lo", "mid", "hi"]
    want = skm.f1_score(g, p, labels=[1], average="macro")
    assert score(confusion=cm, metric="f1_class", orientation="sklearn", labels=names,
                 positive_class="mid") == pytest.approx(want)
    # numbers of a float matrix are counts too, and every metric reads them as the integer matrix
    for mid in metaeval.measures.labels.METRIC_IDS:
        m = metaeval.measures.labels.get(mid)
        if m.params:
            continue
        a = score(confusion=cm.astype(float), metric=mid, orientation="sklearn")
        b = score(confusion=cm, metric=mid, orientation="sklearn")
        assert a == b or (np.isnan(a) and np.isnan(b)), mid


class TestMetricsOfPerItemTerms:
    """metaeval.score of a metric of per-item terms: its statistics of the
    label lists and of the items' ids (a Series' index, ``items=``, or the
    positions), summed and combined as evaluate's."""

    @pytest.fixture(autouse=True)
    def _weighted(self):
        from metaeval.measures.items import register_item_metric, unregister_item_metric

        weight = {"a": 1.0, "b": 3.0, "c": 1.0, "0": 2.0, "1": 1.0, "2": 1.0}

        def terms(g, p, items):
            w = np.array([weight[i] for i in items])
            return np.stack([(p == g[None, :]) * w, np.broadcast_to(w, p.shape)], axis=-1)

        register_item_metric("w_acc", terms, lambda t: t[..., 0] / t[..., 1], range=(0, 1))
        yield
        unregister_item_metric("w_acc")

    def test_the_ids_come_from_a_series_index_from_items_or_from_the_positions(self):
        import pandas as pd

        g, p = ["x", "y", "y"], ["x", "x", "y"]
        assert score(pd.Series(g, index=["a", "b", "c"]), p, "w_acc") == pytest.approx(2 / 5)
        assert score(g, p, "w_acc", items=["a", "b", "c"]) == pytest.approx(2 / 5)
        assert score(g, p, "w_acc", items=["b", "a", "c"]) == pytest.approx(4 / 5)
        assert score(g, p, "w_acc") == pytest.approx(3 / 4)  # ids "0", "1", "2"
        assert score(np.array(g), p, "w_acc") == pytest.approx(3 / 4)  # an array: its positions
        assert score(tuple(g), p, "w_acc") == pytest.approx(3 / 4)
        # with other metrics after it, in the order asked
        got = score(g, p, ["w_acc", "accuracy"], items=["a", "b", "c"])
        assert got == {"w_acc": pytest.approx(2 / 5), "accuracy": pytest.approx(2 / 3)}

    def test_a_matrix_or_ids_of_another_length_are_refused(self):
        with pytest.raises(ValueError) as e:
            score(confusion=[[1, 0], [0, 1]], metric="w_acc", orientation="sklearn")
        assert e.value.args[0] == "'w_acc' is a metric of per-item terms: give y_true and y_pred, not a matrix"
        with pytest.raises(ValueError) as e:
            score(["x", "y", "y"], ["x", "x", "y"], "w_acc", items=["a", "b"])
        assert e.value.args[0] == "items: one id per item, got 2 for 3 items"


def test_weights_and_positions_given_as_integers_reach_a_metric_as_floats():
    """A user's metric may normalise its parameters in place (``w /=
    w.sum()``): integers given by label reach it as float arrays."""
    from metaeval.measures.custom import register_metric, unregister_metric

    def fn(c, weights, positions):
        w, x = weights.copy(), positions.copy()
        w /= w.sum()
        x /= x[-1]
        recall = np.diagonal(c, axis1=-2, axis2=-1) / c.sum(axis=-2)
        return (w * recall).sum(-1) * x[1]

    register_metric("w_recall_x", fn, range=(0, 1), needs=["weights", "positions"])
    try:
        got = score(["a", "a", "b", "b"], ["a", "b", "b", "b"], "w_recall_x", weights={"a": 1, "b": 3},
                    positions=[0, 1])
    finally:
        unregister_metric("w_recall_x")
    assert got == pytest.approx(0.25 * 0.5 + 0.75 * 1.0)


def test_two_series_with_different_indexes_are_refused_not_read_by_position():
    """Issue 48: score() reads in order, as scikit-learn does; two Series
    whose indexes disagree would be matched by position in silence."""
    import pandas as pd

    gold = pd.Series(["a", "b", "b", "a"], index=["w", "x", "y", "z"])
    assert score(gold, gold.copy(), "accuracy") == 1.0  # the same index: read in order
    with pytest.raises(ValueError, match=r"^y_true and y_pred: two pandas Series whose indexes differ .* "
                                         r"y_pred.reindex\(y_true.index\)"):
        score(gold, gold[::-1], "accuracy")
    assert score(gold, gold[::-1].reindex(gold.index), "accuracy") == 1.0
