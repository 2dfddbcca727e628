"""Every metric against an independent reference on thousands of random
label vectors (scikit-learn, the krippendorff package, plain loops written
from the papers' formulas)."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from scipy.stats import gmean
from sklearn import metrics as skm

from metaeval.measures import labels as M
from metaeval.engine.confusion import confusion_tensor

from . import reference as ref

N_CASES = 2000


def _random_cases(seed, n_cases=N_CASES):
    """Label vectors of varied size, class count and skew (incl. absent
    classes, a single predicted class, perfect predictions)."""
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n_cases):
        k = int(rng.integers(2, 6))
        n = int(rng.integers(2, 60))
        p_gold = rng.dirichlet(np.full(k, rng.choice([0.3, 1.0, 5.0])))
        gold = rng.choice(k, size=n, p=p_gold)
        mode = i % 5
        if mode == 0:
            pred = rng.choice(k, size=n)
        elif mode == 1:  # noisy copy of the gold
            pred = np.where(rng.random(n) < 0.7, gold, rng.choice(k, size=n))
        elif mode == 2:  # single predicted class
            pred = np.full(n, rng.integers(k))
        elif mode == 3:  # perfect
            pred = gold.copy()
        else:
            pred = rng.choice(k, size=n, p=rng.dirichlet(np.ones(k)))
        cases.append((k, gold, pred))
    return cases


CASES = _random_cases(12345)
# The first cases in the quick tier (README's `pytest`), the rest with the
# slow tests: every case is checked by CI's two commands together.
QUICK = 250
PART = slice(0, N_CASES)


@pytest.fixture(autouse=True, params=[pytest.param(slice(0, QUICK), id="first"),
                                      pytest.param(slice(QUICK, N_CASES), id="rest", marks=pytest.mark.slow)])
def _part(request):
    global PART
    PART = request.param
    yield
    PART = slice(0, N_CASES)


def _by_k():
    """Group the cases of this part by K so each group is scored in one
    vectorised call."""
    groups = {}
    for idx in range(N_CASES)[PART]:
        k = CASES[idx][0]
        groups.setdefault(k, []).append(idx)
    for k, idxs in groups.items():
        c = np.stack([confusion_tensor(CASES[i][1], CASES[i][2], k) for i in idxs])
        yield k, idxs, c


def _check(metric_id, reference, **params):
    """Compare one metric, computed on the stacked tensors, with a per-case
    reference.  ``reference(k, gold, pred)`` returns a float or NaN."""
    n_checked = 0
    for k, idxs, c in _by_k():
        kw = {name: (value(k) if callable(value) else value) for name, value in params.items()}
        ours = M.get(metric_id)(c, **kw)
        for row, i in enumerate(idxs):
            _, gold, pred = CASES[i]
            expected = reference(k, gold, pred)
            if np.isnan(expected):
                assert np.isnan(ours[row]), (metric_id, i)
            else:
                assert ours[row] == pytest.approx(expected, abs=1e-12, rel=1e-10), (metric_id, i, gold, pred)
            n_checked += 1
    assert n_checked == len(range(N_CASES)[PART])


def _labels(k):
    return list(range(k))


def test_accuracy_vs_sklearn():
    _check("accuracy", lambda k, g, p: skm.accuracy_score(g, p))


@pytest.mark.parametrize("metric_id,beta", [("macro_f1", 1.0), ("macro_f2", 2.0)])
def test_macro_fbeta_vs_sklearn(metric_id, beta):
    _check(metric_id, lambda k, g, p: skm.fbeta_score(g, p, beta=beta, labels=_labels(k), average="macro",
                                                      zero_division=0))


def test_macro_f1_hm_vs_sklearn_precision_recall():
    def hm(k, g, p):
        pm = skm.precision_score(g, p, labels=_labels(k), average="macro", zero_division=0)
        rm = skm.recall_score(g, p, labels=_labels(k), average="macro", zero_division=0)
        return 2 * pm * rm / (pm + rm) if pm + rm else 0.0
    _check("macro_f1_hm", hm)


def test_f1_weighted_vs_sklearn():
    _check("f1_weighted", lambda k, g, p: skm.f1_score(g, p, labels=_labels(k), average="weighted",
                                                       zero_division=0))


def test_macro_recall_vs_sklearn():
    _check("macro_recall", lambda k, g, p: skm.recall_score(g, p, labels=_labels(k), average="macro",
                                                            zero_division=0))


def test_gmr_vs_scipy_gmean_of_sklearn_recalls():
    def ref_gmr(k, g, p):
        r = skm.recall_score(g, p, labels=_labels(k), average=None, zero_division=0)
        return 0.0 if (r == 0).any() else float(gmean(r))
    _check("gmr", ref_gmr)


def _weights(k):
    w = np.arange(1, k + 1, dtype=float)[::-1]
    return w / w.sum()


def test_wauc_vs_polygon_area_loop():
    _check("wauc", lambda k, g, p: float(np.dot(_weights(k), ref.auc_loop(list(g), list(p), k))),
           weights=_weights)


@pytest.mark.parametrize("metric_id,beta", [("wf1", 1.0), ("wf2", 2.0)])
def test_weighted_fbeta_vs_sklearn(metric_id, beta):
    def wf(k, g, p):
        f = skm.fbeta_score(g, p, beta=beta, labels=_labels(k), average=None, zero_division=0)
        return float(np.dot(_weights(k), f))
    _check(metric_id, wf, weights=_weights)


@pytest.mark.parametrize("metric_id,weights", [("kappa", None), ("kappa_linear", "linear")])
def test_kappa_vs_sklearn(metric_id, weights):
    def k_ref(k, g, p):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                v = skm.cohen_kappa_score(g, p, labels=_labels(k), weights=weights)
        return float(v)
    _check(metric_id, k_ref)


@pytest.mark.parametrize("metric_id,level", [("alpha_nominal", "nominal"), ("alpha_ordinal", "ordinal"),
                                             ("alpha_interval", "interval")])
def test_alpha_vs_krippendorff_package(metric_id, level):
    def a_ref(k, g, p):
        if len(set(g) | set(p)) < 2:  # one value in all: alpha undefined
            return float("nan")
        with np.errstate(all="ignore"):
            return float(krippendorff.alpha(reliability_data=np.vstack([g, p]).astype(float),
                                            level_of_measurement=level, value_domain=list(range(k))))
    _check(metric_id, a_ref)


def test_mae_vs_sklearn():
    _check("mae_micro", lambda k, g, p: skm.mean_absolute_error(g, p))
    _check("mae_macro", lambda k, g, p: ref.mae_macro_loop(list(g), list(p), k))


def test_mae_macro_vs_sklearn_per_class():
    def mm(k, g, p):
        per = [skm.mean_absolute_error(g[g == j], p[g == j]) for j in range(k) if (g == j).any()]
        return float(np.mean(per))
    _check("mae_macro", mm)


def test_cem_ord_vs_amigo_loop():
    _check("cem_ord", lambda k, g, p: ref.cem_ord_loop(list(g), list(p), k))


def test_f_avg_vs_sklearn():
    _check("f_avg", lambda k, g, p: float(np.mean(skm.f1_score(g, p, labels=[0, k - 1], average=None,
                                                                zero_division=0))),
           f_avg_classes=lambda k: [0, k - 1])


def test_fnc_score_vs_official_rules():
    _check("fnc_score", lambda k, g, p: ref.fnc_score_loop(list(g), list(p), k - 1), unrelated=lambda k: k - 1)


def test_mcc_vs_sklearn():
    """R_K of Gorodkin (2004), Matthews' coefficient for two classes."""
    def m_ref(k, g, p):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(skm.matthews_corrcoef(g, p))
    _check("mcc", m_ref)


def _one_vs_rest_loop(k, g, p):
    """Per class (tp, fp, fn, tn), counted item by item."""
    out = []
    for c in range(k):
        tp = sum(1 for a, b in zip(g, p) if a == c and b == c)
        fp = sum(1 for a, b in zip(g, p) if a != c and b == c)
        fn = sum(1 for a, b in zip(g, p) if a == c and b != c)
        out.append((tp, fp, fn, len(g) - tp - fp - fn))
    return out


def _div(a, b):
    return a / b if b else 0.0


def test_informedness_vs_loop_and_youden_j():
    """Powers (2011): the mean over classes of TPR_c + TNR_c - 1; for two
    classes Youden's J, scikit-learn's adjusted balanced accuracy."""
    _check("informedness", lambda k, g, p: float(np.mean([_div(tp, tp + fn) - _div(fp, fp + tn)
                                                           for tp, fp, fn, tn in _one_vs_rest_loop(k, g, p)])))
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(2, 40))
        g, p = rng.integers(0, 2, n), rng.integers(0, 2, n)
        if len(set(g)) < 2:
            continue
        ours = float(M.informedness(confusion_tensor(g, p, 2)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert ours == pytest.approx(skm.balanced_accuracy_score(g, p, adjusted=True), abs=1e-12)


def test_markedness_vs_loop_and_mcc_identity():
    """Powers (2011): the mean over classes of P_c + NPV_c - 1; for two
    classes MCC^2 = informedness x markedness where both classes occur in
    the gold and in the predictions (elsewhere the zero-division
    conventions decide each)."""
    _check("markedness", lambda k, g, p: float(np.mean([_div(tp, tp + fp) + _div(tn, tn + fn) - 1
                                                         for tp, fp, fn, tn in _one_vs_rest_loop(k, g, p)])))
    binary = [(g, p) for k, g, p in CASES if k == 2 and len(set(g)) == len(set(p)) == 2]
    c = np.stack([confusion_tensor(g, p, 2) for g, p in binary])
    both = (M.informedness(c) * M.markedness(c))
    np.testing.assert_allclose(M.mcc(c) ** 2, both, atol=1e-12)
    assert len(binary) > 200


@pytest.mark.parametrize("metric_id,sk", [("f1_class", "f1"), ("precision_class", "precision"),
                                          ("recall_class", "recall")])
def test_one_class_metrics_vs_sklearn_pos_label(metric_id, sk):
    """The class is the last one (``pos_label`` for two classes; the class's
    entry of ``average=None`` for more)."""
    fn = {"f1": skm.f1_score, "precision": skm.precision_score, "recall": skm.recall_score}[sk]

    def c_ref(k, g, p):
        if k == 2:
            return float(fn(g, p, pos_label=1, average="binary", zero_division=0))
        return float(fn(g, p, labels=_labels(k), average=None, zero_division=0)[k - 1])
    _check(metric_id, c_ref, positive=lambda k: k - 1 if k > 2 else 1)


def test_every_metric_has_a_reference_test():
    """A new registry entry must get a reference test in this module."""
    import inspect
    import sys

    src = inspect.getsource(sys.modules[__name__])
    for mid in M.METRIC_IDS:
        assert f'"{mid}"' in src, f"metric {mid} has no reference test"
