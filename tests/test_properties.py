"""The formal-property checker (metaeval.measures.properties): its matrices, results
proved by hand, the published statements, counterexamples re-checked, and a
planted violation it must find."""

from __future__ import annotations

import json
from itertools import permutations
from math import comb

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.measures import labels as M
from metaeval.measures import properties as P
from metaeval.measures import matrices as PM
from metaeval.engine.confusion import confusion_tensor

FAST = P.PropertySettings(n_max=6, random=300, random_n_max=400, seed=5)


@pytest.fixture(scope="module")
def table():
    return P.check_all(FAST)


@pytest.fixture(scope="module")
def domain():
    return PM.domain_matrices(FAST)


def result(table, metric, prop):
    return table[(table["metric"] == metric) & (table["property"] == prop)].iloc[0]


# ---------------------------------------------------------------------------
# the matrices
# ---------------------------------------------------------------------------
def test_enumeration_is_complete_ordered_and_unique():
    c = PM.enumerate_matrices(5)
    assert len(c) == sum(comb(n + 8, 8) for n in range(6))  # stars and bars: 9 cells
    assert len(np.unique(c.reshape(len(c), -1), axis=0)) == len(c)
    n = c.sum(axis=(1, 2))
    assert (np.diff(n) >= 0).all() and (c >= 0).all()
    for k in range(6):  # lexicographic within each item count
        flat = [tuple(x) for x in c[n == k].reshape(-1, 9)]
        assert flat == sorted(flat)


def test_domain_has_every_gold_class_and_the_right_count():
    s = P.PropertySettings(n_max=6, random=0)
    c = PM.domain_matrices(s)
    assert (c.sum(axis=1) > 0).all()
    # plain count: columns are independent compositions; a column of size m has C(m+2, 2) fillings
    want = sum(comb(a + 2, 2) * comb(b + 2, 2) * comb(d + 2, 2)
               for a in range(1, 7) for b in range(1, 7) for d in range(1, 7) if a + b + d <= 6)
    assert len(c) == want


def test_random_matrices_are_seeded_and_valid():
    a = PM.random_matrices(50, 300, 9)
    assert np.array_equal(a, PM.random_matrices(50, 300, 9))
    assert not np.array_equal(a, PM.random_matrices(50, 300, 10))
    n = a.sum(axis=(1, 2))
    assert (n >= 3).all() and (n <= 300).all() and (a.sum(axis=1) > 0).all()


# ---------------------------------------------------------------------------
# results proved by hand
# ---------------------------------------------------------------------------
HOLDS_BY_HAND = [
    # accuracy = trace / N: permuting rows and columns together keeps the trace; so does transposing;
    # a correction adds 1 to the trace; scaling multiplies trace and N alike; a perfect matrix gives 1,
    # a zero diagonal 0
    ("accuracy", "class_exchange"), ("accuracy", "symmetry"), ("accuracy", "monotonicity"),
    ("accuracy", "uniform_change"), ("accuracy", "maximal_agreement"), ("accuracy", "minimal_agreement"),
    # R_j = c_jj / c_.j depends on column j alone: scaling a column keeps every recall
    ("macro_recall", "uniform_class_change"),
    # on E[c_ij] = c_i. c_.j / N, R_j = c_j. / N, so R^M = 1/K whatever the sizes
    ("macro_recall", "constant_baseline"),
    # observed = expected agreement on the expected matrix: kappa = 0
    ("kappa", "constant_baseline"), ("kappa_linear", "constant_baseline"),
    # MAE^mu = sum |i-j| c_ij / N is symmetric in i, j
    ("mae_micro", "symmetry"),
    # F1_c = 2 tp / (2 tp + fp + fn): transposing swaps fp and fn
    ("macro_f1", "symmetry"),
    # CEM^ORD of a perfect matrix is 1; every off-diagonal proximity is below its diagonal one
    ("cem_ord", "maximal_agreement"),
    # F_avg over classes 0 and 2 never reads c[1, 1]
    ("f_avg", "non_target_change"),
]


@pytest.mark.parametrize("metric,prop", HOLDS_BY_HAND)
def test_properties_proved_by_hand_hold(table, metric, prop):
    r = result(table, metric, prop)
    assert r["result"] == "holds", r["counterexample"]
    assert r["comparisons"] > 1000


def test_mae_macro_is_not_ordinally_invariant_by_hand(table):
    # gold (1, 1, 1); the gold-2 item predicted 1: per-class errors 0, 0, |x_1 - x_2|
    c = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]], float)
    assert M.mae_macro(c) == pytest.approx(1 / 3)
    assert M.mae_macro(c, positions=[0, 1, 3]) == pytest.approx(2 / 3)
    r = result(table, "mae_macro", "ordinal_invariance")
    assert r["result"] == "fails"
    ce = json.loads(r["counterexample"])
    assert sum(map(sum, ce["a"])) == 3  # the smallest domain matrices have 3 items, one per class


def test_accuracy_fails_what_it_must_by_hand(table):
    # one class's column doubled: accuracy (1 + 0) / 2 -> with the correct class doubled (2 + 0) / 3
    c = np.array([[1, 1], [0, 0]], float)
    assert M.accuracy(c) == 0.5 and M.accuracy(c * [2, 1]) == pytest.approx(2 / 3)
    assert result(table, "accuracy", "uniform_class_change")["result"] == "fails"
    # the guesser's accuracy sum_i q_i p_i depends on the class sizes
    assert result(table, "accuracy", "constant_baseline")["result"] == "fails"
    # correct and one-class-off errors count the same: no ordinal monotonicity
    assert result(table, "accuracy", "ordinal_monotonicity")["result"] == "fails"
    # the same error on a large or a small class costs 1/N either way
    assert result(table, "accuracy", "imbalance")["result"] == "fails"


def test_every_metric_and_property_has_a_result(table):
    assert len(table) == len(M.METRIC_IDS) * len(P.PROPERTIES)
    assert set(table["result"]) <= set(P.RESULTS)
    na = table[table["result"] == "not applicable"]
    assert (na["reason"] != "").all() and (na["counterexample"] == "").all()
    assert (table.loc[table["result"] == "holds", "counterexample"] == "").all()


# ---------------------------------------------------------------------------
# published statements and counterexamples
# ---------------------------------------------------------------------------
def test_published_statements_agree(table):
    pub = table[table["published"] != ""]
    assert len(pub) == len(P.PUBLISHED)
    assert (pub["result"] != "not applicable").all()
    disagree = pub[pub["agrees"] == "no"]
    assert disagree.empty, disagree[["metric", "property", "result", "published", "source"]].to_string()
    for (metric, prop), (holds, _) in P.PUBLISHED.items():
        assert result(table, metric, prop)["result"] == ("holds" if holds else "fails")


def test_every_counterexample_is_one(table):
    fails = table[table["result"] == "fails"]
    assert len(fails) > 50
    for r in fails.itertuples():
        assert P.recheck(r.metric, r.counterexample, FAST), (r.metric, r.property)


def test_recheck_can_fail():
    ce = {"relation": "eq", "a": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "score_a": 1.0,
          "b": [[2, 0, 0], [0, 2, 0], [0, 0, 2]], "score_b": 1.0}
    assert not P.recheck("accuracy", json.dumps(ce), FAST)  # the relation holds: no counterexample
    ce["b"] = [[1, 0, 0], [0, 1, 1], [0, 0, 0]]
    ce["score_b"] = 2 / 3
    assert P.recheck("accuracy", json.dumps(ce), FAST)
    ce["score_b"] = 0.5  # a printed score that is not the score
    assert not P.recheck("accuracy", json.dumps(ce), FAST)


def test_counterexample_is_the_smallest(table, domain):
    """Plain loops over the domain: no matrix with fewer items than the
    printed counterexample violates GMR's monotonicity or R^M's symmetry."""
    for metric, prop in [("gmr", "monotonicity"), ("macro_recall", "symmetry")]:
        ce = json.loads(result(table, metric, prop)["counterexample"])
        n_ce = int(np.sum(ce["a"]))
        f = M.get(metric)
        for c in domain[domain.sum(axis=(1, 2)) < n_ce]:
            if prop == "symmetry":
                if (c.sum(axis=1) > 0).all() and (c.sum(axis=0) > 0).all():
                    assert f(c.T.astype(float)) == pytest.approx(float(f(c.astype(float))), rel=1e-9, abs=1e-12)
            else:
                for i in range(3):
                    for j in range(3):
                        if i != j and c[i, j]:
                            d = c.copy()
                            d[i, j] -= 1
                            d[j, j] += 1
                            assert f(d.astype(float)) > f(c.astype(float)) + 1e-12


def test_a_planted_violation_is_found(monkeypatch, domain):
    """Accuracy, except on one matrix of 5 items: exchange of classes fails,
    and the counterexample contains that matrix."""
    x = np.array([[2, 0, 0], [1, 1, 0], [0, 0, 1]], float)

    def planted(c):
        c = np.asarray(c, float)
        return M.accuracy(c) + 0.1 * (c == x).all(axis=(-2, -1))

    monkeypatch.setitem(M.REGISTRY, "planted", M.Metric("planted", "planted", "planted", planted, True))
    r = P.check("planted", P.PROPERTIES["class_exchange"], domain, FAST)
    assert r["result"] == "fails"
    ce = json.loads(r["counterexample"])
    assert np.array_equal(ce["a"], x) or np.array_equal(ce["b"], x)
    assert P.recheck("planted", r["counterexample"], FAST)
    assert P.check("accuracy", P.PROPERTIES["class_exchange"], domain, FAST)["result"] == "holds"


# ---------------------------------------------------------------------------
# beyond the domain: item-level transformations written independently
# ---------------------------------------------------------------------------
@st.composite
def items(draw):
    n = draw(st.integers(3, 60))
    gold = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    gold[:3] = [0, 1, 2]  # every class in the gold
    pred = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return np.array(gold), np.array(pred)


def _score(metric, gold, pred):
    return float(M.get(metric)(confusion_tensor(gold, pred, 3).astype(float), **FAST.metric_params()))


@settings(max_examples=150, deadline=None)
@given(items())
def test_what_holds_on_the_domain_holds_on_larger_item_lists(case):
    gold, pred = case
    for metric in ("accuracy", "macro_f1", "kappa", "alpha_nominal", "macro_recall"):
        s = _score(metric, gold, pred)
        for perm in permutations(range(3)):  # relabel every item's gold and prediction alike
            p = np.array(perm)
            assert _score(metric, p[gold], p[pred]) == pytest.approx(s, rel=1e-9, abs=1e-12)
    for metric in ("accuracy", "macro_f1", "kappa", "mae_micro", "alpha_interval"):
        if len(np.unique(pred)) == 3:  # the swapped gold must have every class
            assert _score(metric, pred, gold) == pytest.approx(_score(metric, gold, pred), rel=1e-9, abs=1e-12)
    wrong = np.flatnonzero(gold != pred)
    if wrong.size:
        fixed = pred.copy()
        fixed[wrong[0]] = gold[wrong[0]]
        for metric in ("accuracy", "macro_f1", "macro_recall", "mae_macro", "cem_ord"):
            better = _score(metric, gold, fixed) - _score(metric, gold, pred)
            assert (better if M.get(metric).higher_is_better else -better) > 1e-12


# ---------------------------------------------------------------------------
# class positions (what ordinal invariance varies)
# ---------------------------------------------------------------------------
def test_positions_reach_the_metrics_that_read_them():
    rng = np.random.default_rng(3)
    pos = np.array([0.0, 1.0, 3.5])
    for _ in range(50):
        gold, pred = rng.integers(0, 3, 40), rng.integers(0, 3, 40)
        c = confusion_tensor(gold, pred, 3).astype(float)
        xg, xp = pos[gold], pos[pred]
        assert M.mae_micro(c, positions=pos) == pytest.approx(np.abs(xg - xp).mean())
        per = [np.abs(xg[gold == j] - xp[gold == j]).mean() for j in range(3) if (gold == j).any()]
        assert M.mae_macro(c, positions=pos) == pytest.approx(np.mean(per))
        want = krippendorff.alpha(reliability_data=np.vstack([xg, xp]), level_of_measurement="interval")
        assert M.evaluate(c, ["alpha_interval"], positions=pos)["alpha_interval"] == pytest.approx(want)
        w = np.abs(pos[:, None] - pos[None, :])
        e = np.outer(c.sum(1), c.sum(0)) / c.sum()
        assert M.kappa_linear(c, positions=pos) == pytest.approx(1 - (w * c).sum() / (w * e).sum())
        # the metrics that do not read positions ignore them
        for mid in ("accuracy", "alpha_ordinal", "cem_ord"):
            assert M.evaluate(c, [mid], positions=pos)[mid] == M.evaluate(c, [mid])[mid]


def test_positions_must_increase():
    c = np.eye(3)
    with pytest.raises(ValueError, match="strictly increasing"):
        M.mae_micro(c, positions=[0, 2, 1])
    with pytest.raises(ValueError, match="3 strictly increasing"):
        M.mae_micro(c, positions=[0, 1])


def test_settings_are_checked():
    with pytest.raises(ValueError, match="weights"):
        P.PropertySettings(weights=(0.5, 0.5, 0.5))
    with pytest.raises(ValueError, match="n_max"):
        P.PropertySettings(n_max=2)
    with pytest.raises(ValueError, match="unknown setting"):
        P.PropertySettings.from_config({"n_maximum": 5})


# ---------------------------------------------------------------------------
# issue 18: faults the suite let through
# ---------------------------------------------------------------------------
def test_constant_baseline_expected_matrix_is_predicted_times_gold_marginals():
    """Catches the constant baseline's expected matrix built from gold x gold marginals."""
    # predicted marginals (rows) differ from gold marginals (columns) on purpose
    c = np.array([[[3, 0, 1], [0, 1, 0], [0, 0, 1]],    # rows 4, 1, 1; columns 3, 1, 2
                  [[1, 1, 1], [0, 0, 1], [0, 0, 2]],    # rows 3, 1, 2; columns 1, 1, 4
                  [[0, 0, 0], [2, 1, 0], [1, 1, 3]]])   # rows 0, 3, 5; columns 3, 2, 3
    (comp,) = P.build(P.PROPERTIES["constant_baseline"], c, FAST)
    for p, m in enumerate(c):
        n = sum(sum(row) for row in m.tolist())
        rows = [sum(m[i, j] for j in range(3)) for i in range(3)]  # how often the guesser says class i
        cols = [sum(m[i, j] for i in range(3)) for j in range(3)]  # the gold class sizes
        want = [[rows[i] * cols[j] / n for j in range(3)] for i in range(3)]
        assert np.allclose(comp.b[p], want, rtol=0, atol=1e-12), (p, comp.b[p], want)
        assert comp.base[p] == p
    # by hand, the first: E = (4, 1, 1)^T (3, 1, 2) / 6
    assert comp.b[0].tolist() == [[2.0, 4 / 6, 8 / 6], [0.5, 1 / 6, 2 / 6], [0.5, 1 / 6, 2 / 6]]


def test_the_first_counterexample_found_is_kept(monkeypatch):
    """Catches a later violated comparison replacing the first counterexample recorded."""
    # the first of its class permutations in the domain's order (item count, then lexicographic), so that
    # several comparisons of this one domain matrix fail
    x = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 2]])

    def planted_py(m):  # accuracy, plus 0.1 on the matrix x only
        n = sum(sum(r) for r in m)
        return (m[0][0] + m[1][1] + m[2][2]) / n + (0.1 if m == x.tolist() else 0.0)

    def planted(c):
        c = np.asarray(c, float)
        return M.accuracy(c) + 0.1 * (c == x).all(axis=(-2, -1))

    s = P.PropertySettings(n_max=5, random=0)
    domain = PM.domain_matrices(s)
    # plain loop: matrices in domain order, then the class permutations in their order; the first pair whose
    # scores differ is the counterexample (smallest matrix first, then enumeration order)
    found = []
    for m in domain.tolist():
        for perm in permutations(range(3)):
            if perm == (0, 1, 2):
                continue
            b = [[m[perm[i]][perm[j]] for j in range(3)] for i in range(3)]
            if abs(planted_py(b) - planted_py(m)) > 1e-9:
                found.append((m, b))
        if found:
            break
    assert len({json.dumps(b) for _, b in found}) >= 2  # the fixture can tell the first from a later one
    want_a, want_b = found[0]
    monkeypatch.setitem(M.REGISTRY, "planted", M.Metric("planted", "planted", "planted", planted, True))
    r = P.check("planted", P.PROPERTIES["class_exchange"], domain, s)
    assert r["result"] == "fails"
    ce = json.loads(r["counterexample"])
    assert ce["a"] == want_a and ce["b"] == want_b, (ce, found)


# ---------------------------------------------------------------------------
# issue 29: the properties on a dataset's own shape
# ---------------------------------------------------------------------------
def _shape(k, ordinal, weights, sizes, f_avg=(0,), unrelated=None, **base):
    from types import SimpleNamespace

    params = {"weights": None if weights is None else np.asarray(weights, float), "f_avg_classes": list(f_avg),
              "unrelated": unrelated}
    spec = SimpleNamespace(k=k, ordinal=ordinal, metric_params=lambda: params)
    return P.dataset_settings(spec, sizes, P.PropertySettings(**{"n_max": 5, "random": 400, "seed": 5, **base}))


def _kappa_2x2(a, b, c, d):
    """Cohen's kappa of [[a, b], [c, d]] (rows predicted, columns gold), plain arithmetic."""
    n = a + b + c + d
    po = (a + d) / n
    pe = ((a + b) * (a + c) + (c + d) * (b + d)) / n ** 2
    return (po - pe) / (1 - pe) if pe != 1 else float("nan")


def test_two_classes_change_the_verdicts_where_they_should():
    """On two unordered classes (weights 0.7/0.3, sizes 900/100): the
    ordinal properties do not apply; weighted AUC holds the exchange of
    classes (with two classes both one-vs-rest AUCs are the same number:
    it is balanced accuracy whatever the weights; scikit-learn says so),
    which it fails on the generic three classes; Cohen's kappa is monotone
    (every 2 x 2 matrix up to 30 items, by plain arithmetic), which it is
    not on three classes."""
    from sklearn.metrics import balanced_accuracy_score

    metrics = ["accuracy", "macro_f1", "macro_recall", "wauc", "wf2", "kappa"]
    generic = P.check_all(P.PropertySettings(n_max=6, random=400, seed=5), metrics).set_index(["metric", "property"])
    two = P.check_all(_shape(2, False, (0.7, 0.3), (900, 100)), metrics).set_index(["metric", "property"])
    assert (two.xs("ordinal_invariance", level="property")["result"] == "not applicable").all()
    assert generic.loc[("wauc", "class_exchange"), "result"] == "fails"
    assert two.loc[("wauc", "class_exchange"), "result"] == "holds"
    rng = np.random.default_rng(2)
    for _ in range(50):
        g, p = rng.integers(0, 2, 40), rng.integers(0, 2, 40)
        c = confusion_tensor(g, p, 2).astype(float)
        if (c.sum(axis=0) > 0).all():
            want = balanced_accuracy_score(g, p)
            assert float(M.wauc(c, weights=np.array([0.7, 0.3]))) == pytest.approx(want)
    assert generic.loc[("kappa", "monotonicity"), "result"] == "fails"
    assert two.loc[("kappa", "monotonicity"), "result"] == "holds"
    for n in range(2, 31):  # every 2 x 2 matrix of n items with both gold classes: a wrong item made right
        for a in range(n + 1):
            for b in range(n + 1 - a):
                for c_ in range(n + 1 - a - b):
                    d = n - a - b - c_
                    if a + c_ == 0 or b + d == 0:
                        continue
                    k0 = _kappa_2x2(a, b, c_, d)
                    if b:  # predicted 0, gold 1 -> predicted 1
                        assert _kappa_2x2(a, b - 1, c_, d + 1) > k0 + 1e-12
                    if c_:  # predicted 1, gold 0 -> predicted 0
                        assert _kappa_2x2(a + 1, b, c_ - 1, d) > k0 + 1e-12


def test_four_weighted_classes_follow_the_dataset_s_class_sizes():
    """RumourEval's four unordered classes with Scarton et al.'s weights
    (support .40, deny .40, query .15, comment .05): weighted F2 holds
    imbalance on RumourEval 2017's class sizes (94, 71, 106, 778: every
    smaller class weighs at least as much) and fails it on RumourEval
    2019's (157, 101, 93, 1476: query is rarer than deny and weighs less),
    as it fails it on the generic three classes (weights .5/.3/.2 whatever
    the sizes).  Checked by scikit-learn on the perfect output with one
    error, for every pair of classes the sizes order and every third
    class."""
    from itertools import permutations

    from sklearn.metrics import fbeta_score

    w = (0.40, 0.40, 0.15, 0.05)
    metrics = ["accuracy", "macro_f1", "wf2"]
    generic = P.check_all(P.PropertySettings(n_max=6, random=400, seed=5), metrics).set_index(["metric", "property"])
    assert generic.loc[("wf2", "imbalance"), "result"] == "fails"

    def wf2(sizes, wrong, to):  # the perfect output with one item of class `wrong` predicted as `to`
        gold = np.repeat(np.arange(4), sizes)
        pred = gold.copy()
        pred[np.flatnonzero(gold == wrong)[0]] = to
        return float(np.dot(w, fbeta_score(gold, pred, beta=2, labels=range(4), average=None, zero_division=0)))

    for sizes, holds in (((94, 71, 106, 778), True), ((157, 101, 93, 1476), False)):
        got = P.check_all(_shape(4, False, w, sizes), metrics).set_index(["metric", "property"])
        assert (got.loc[("wf2", "imbalance"), "result"] == "holds") == holds, sizes
        assert got.loc[("accuracy", "imbalance"), "result"] == "fails"  # every error costs alike
        ok = all(wf2(sizes, a, t) > wf2(sizes, b, t) for a, b in permutations(range(4), 2) if sizes[a] > sizes[b]
                 for t in range(4) if t not in (a, b))
        assert ok == holds, sizes
        assert (got.xs("ordinal_monotonicity", level="property")["result"] == "not applicable").all()


def test_the_old_name_of_property_settings_is_gone():
    """``Settings`` was the old name of ``PropertySettings`` (now declared in
    ``metaeval.settings``); the project has not been released, so it is gone."""
    for name in ("Settings", "Setting"):
        with pytest.raises(AttributeError) as e:
            getattr(P, name)
        assert str(e.value) == f"module 'metaeval.measures.properties' has no attribute {name!r}"


@pytest.mark.parametrize("kw,message", [
    (dict(k=1, weights=(1.0,), f_avg_classes=(0,), unrelated=None), "properties: at least two classes, got k = 1"),
    (dict(n_max=2), "properties.n_max must be at least 3 (every class in the gold)"),
    (dict(k=2, n_max=1, weights=(0.5, 0.5), f_avg_classes=(0, 1), unrelated=None),
     "properties.n_max must be at least 2 (every class in the gold)"),
    (dict(random=-1), "properties.random must be >= 0, random_n_max and random_sparse_n_max >= 3"),
    (dict(random_n_max=2), "properties.random must be >= 0, random_n_max and random_sparse_n_max >= 3"),
    (dict(random_sparse_n_max=2), "properties.random must be >= 0, random_n_max and random_sparse_n_max >= 3"),
    (dict(weights=(0.5, 0.5)), "properties.weights: 3 non-negative weights summing to 1, got (0.5, 0.5)"),
    (dict(weights=(1.2, -0.1, -0.1)), "properties.weights: 3 non-negative weights summing to 1, got (1.2, -0.1, -0.1)"),
    (dict(weights=(0.5, 0.3, 0.2 + 2e-9)), "properties.weights: 3 non-negative weights summing to 1, got "
                                           "(0.5, 0.3, 0.200000002)"),
    (dict(f_avg_classes=()), "properties.f_avg_classes: class indices in 0..2"),
    (dict(f_avg_classes=(0, 3)), "properties.f_avg_classes: class indices in 0..2"),
    (dict(unrelated=3), "properties.unrelated: a class index in 0..2"),
    (dict(unrelated=-1), "properties.unrelated: a class index in 0..2"),
    (dict(positive=3), "properties.positive: a class index in 0..2"),
    (dict(class_sizes=(3, 4)), "properties: 3 class sizes, got (3, 4)"),
])
def test_every_setting_is_refused_with_its_rule(kw, message):
    with pytest.raises(ValueError) as e:
        P.PropertySettings(**kw)
    assert str(e.value) == message


def test_the_limits_of_the_settings_are_accepted():
    """The edges the refusals draw are allowed: no random matrix with small
    random sizes, weights summing to 1 within 1e-9, no unrelated class,
    two classes with two items."""
    P.PropertySettings(random=0, random_n_max=2, random_sparse_n_max=2)
    P.PropertySettings(weights=(0.5, 0.3, 0.2 + 5e-10), unrelated=None, random_n_max=3, random_sparse_n_max=3)
    P.PropertySettings(k=2, n_max=2, weights=(0.5, 0.5), f_avg_classes=(0, 1), unrelated=None, positive=1,
                       class_sizes=(3, 1))
    with pytest.raises(ValueError) as e:
        P.PropertySettings.from_config({"n_maximum": 5, "enabled": True})
    assert str(e.value).startswith("properties: unknown setting(s) ['n_maximum']; known: class_sizes, f_avg_classes, ")
    s = P.PropertySettings.from_config({"n_max": 5, "weights": [0.2, 0.3, 0.5], "enabled": True})
    assert s.n_max == 5 and s.weights == (0.2, 0.3, 0.5)


def test_the_enumeration_limit_at_its_edges():
    assert PM.enumeration_limit(3, 8) == 8
    assert PM.enumeration_limit(3, 8, budget=comb(8 + 9, 9)) == 8 and PM.enumeration_limit(3, 8, comb(17, 9) - 1) == 7
    assert PM.enumeration_limit(4, 3, budget=comb(3 + 16, 16)) == 0  # 3 items: below k = 4
    assert PM.enumeration_limit(4, 4, budget=comb(4 + 16, 16)) == 4
    assert PM.enumeration_limit(3, 8, budget=0) == 0


def test_the_relations_of_a_comparison():
    """eq within tolerance, gt strictly beyond it, ge up to it; NaN on
    either side a violation; a lower-is-better metric turned round; an
    unknown relation refused."""
    sa, sb = np.array([0.5, 0.5, 0.5, np.nan]), np.array([0.5, 0.6, 0.4, 0.5])
    assert P._violations(sa, sb, "eq", True).tolist() == [False, True, True, True]
    assert P._violations(sa, sb, "gt", True).tolist() == [True, False, True, True]
    assert P._violations(sa, sb, "ge", True).tolist() == [False, False, True, True]
    assert P._violations(sa, sb, "gt", False).tolist() == [True, True, False, True]
    assert P._violations(sa, sb, "ge", False).tolist() == [False, True, False, True]
    with pytest.raises(ValueError) as e:
        P._violations(sa, sb, "lt", True)
    assert str(e.value) == "unknown relation 'lt'"
    # the tolerances: equal within 1e-9 relative or 1e-12 absolute (not numpy's 1e-5 and 1e-8); strictly better
    # by more than 1e-12, not worse by more than 1e-12
    one = np.array([1.0])
    assert P._violations(one, one + 1e-7, "eq", True).tolist() == [True]
    assert P._violations(np.array([0.0]), np.array([1e-10]), "eq", True).tolist() == [True]
    assert P._violations(one, one + 1e-10, "eq", True).tolist() == [False]
    assert P._violations(one, one + 1e-12, "gt", True).tolist() == [True]
    assert P._violations(one, one - 1e-12, "ge", True).tolist() == [False]


def test_a_dataset_s_shape_for_the_properties():
    """Its classes, order, default weights (uniform without any), F_avg
    classes (the first without any), unrelated and positive classes and
    class sizes; the domain's sizes and seed from the properties block."""
    from types import SimpleNamespace

    def spec(k, ordinal, **params):
        return SimpleNamespace(k=k, ordinal=ordinal, metric_params=lambda: params)

    s = P.dataset_settings(spec(4, 1, weights=[0.5, 0.5, 0, 0], f_avg_classes=[1, 3], unrelated=3, positive=2),
                           [5, 4, 3, 2], P.PropertySettings(n_max=5, seed=9))
    assert (s.k, s.ordinal, s.weights, s.f_avg_classes, s.unrelated, s.positive, s.class_sizes, s.n_max, s.seed) == (
        4, True, (0.5, 0.5, 0.0, 0.0), (1, 3), 3, 2, (5, 4, 3, 2), 5, 9)
    assert type(s.ordinal) is bool and all(type(x) is float for x in s.weights)
    d = P.dataset_settings(spec(4, 0), [5, 4, 3, 2])
    assert (d.k, d.ordinal, d.weights, d.f_avg_classes, d.unrelated, d.positive) == (4, False, (0.25,) * 4, (0,),
                                                                                     None, 0)
    assert d.n_max == P.PropertySettings().n_max and d.seed == P.PropertySettings().seed
    e = P.dataset_settings(spec(2, 0, weights=None, f_avg_classes=[], unrelated=None, positive=None), [3, 1])
    assert (e.weights, e.f_avg_classes, e.unrelated, e.positive) == ((0.5, 0.5), (0,), None, 0)


def test_the_relabellings_of_the_positions():
    assert P.relabellings(2) == [(0.0, 2.0), (0.0, 9.0)]
    assert P.relabellings(3) == [(0.0, 1.0, 3.0), (0.0, 2.0, 3.0), (0.0, 1.0, 10.0), (0.0, 9.0, 10.0)]
    assert P.relabellings(4) == [(0.0, 1.0, 2.0, 4.0), (0.0, 2.0, 3.0, 4.0), (0.0, 1.0, 2.0, 11.0),
                                 (0.0, 9.0, 10.0, 11.0)]


def test_the_triples_of_the_imbalance_property():
    assert P._imbalance_triples(2, True, None) == [(0, 1, -1)]
    assert P._imbalance_triples(3, True, None) == [(0, 2, 1)]
    assert P._imbalance_triples(3, False, None) == [(0, 1, 2), (0, 2, 1), (1, 2, 0)]
    assert P._imbalance_triples(4, True, None) == [(0, 2, 1), (0, 3, 1), (0, 3, 2), (1, 3, 2)]
    assert P._imbalance_triples(3, False, (5, 5, 3)) == [(0, 2, 1), (1, 2, 0)]  # a tie orders nothing
    assert P._imbalance_triples(4, True, (4, 3, 3, 4)) == [(0, 2, 1), (1, 3, 2)]


def test_the_concentrated_matrices_against_a_loop_over_the_same_draws():
    """Item counts in [k, n_max], the active classes, Dirichlet(0.3) shares
    over their cells, a multinomial of n - k items, then one item on the
    diagonal of every gold class left empty; seeded by (seed, 2)."""
    count, n_max, seed, k, active = 40, 30, 7, 5, 3
    got = PM.concentrated_matrices(count, n_max, seed, k, active)
    rng = np.random.default_rng([seed, 2])
    n = rng.integers(k, n_max + 1, size=count)
    order = np.argsort(rng.random((count, k)), axis=1)
    shares = rng.dirichlet(np.full(active * active, 0.3), size=count)
    cells = rng.multinomial(n - k, shares)
    assert got.dtype == np.int64 and got.shape == (count, k, k)
    for r in range(count):
        want = np.zeros((k, k), dtype=np.int64)
        act = order[r, :active]
        for x in range(active):
            for y in range(active):
                want[act[x], act[y]] = cells[r, x * active + y]
        for j in range(k):
            if want[:, j].sum() == 0:
                want[j, j] += 1
        np.testing.assert_array_equal(got[r], want)
        assert k <= n[r] <= n_max
    assert (got.sum(axis=1) > 0).all()
    assert not np.array_equal(got, PM.concentrated_matrices(count, n_max, seed + 1, k, active))


def test_a_counterexample_is_rechecked_with_its_parameters_and_printed_scores():
    """The positions of each side, the scores printed to 1e-12, and an
    undefined score printed as NaN (a violation of any relation)."""
    st = P.PropertySettings(n_max=4, random=0)
    a = [[3, 1, 0], [1, 2, 1], [0, 1, 3]]
    pos = [0.0, 1.0, 10.0]
    sa = float(M.mae_macro(np.asarray(a, float), positions=np.array(pos)))
    sb = float(M.mae_macro(np.asarray(a, float)))
    ce = {"relation": "eq", "a": a, "score_a": sa, "b": a, "score_b": sb, "params_a": {"positions": pos}}
    assert sa != sb and P.recheck("mae_macro", json.dumps(ce), st)
    assert not P.recheck("mae_macro", json.dumps({**ce, "score_a": sa * (1 + 1e-8)}), st)
    assert not P.recheck("mae_macro", json.dumps({**ce, "score_a": sa + 1e-10}), st)  # (1e-12 absolute, not 1e-8)
    undefined = [[4, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert np.isnan(M.kappa(np.asarray(undefined, float)))
    nan = {"relation": "eq", "a": undefined, "score_a": float("nan"), "b": undefined, "score_b": float("nan")}
    assert P.recheck("kappa", json.dumps(nan), st)


# the comparisons each property builds, against loops over a small domain
_C = np.array([[[2, 1, 0], [0, 1, 1], [1, 0, 3]],
               [[1, 0, 0], [0, 2, 0], [0, 0, 1]],      # perfect
               [[0, 1, 2], [1, 0, 0], [1, 1, 0]],      # nothing right
               [[3, 0, 0], [0, 0, 1], [0, 1, 1]]])


def _pairs(comps):
    """(a or None, b, relation, base, params_a, params_b) of every pair, in order."""
    out = []
    for comp in comps:
        for p in range(len(comp.b)):
            out.append((None if comp.a is None else comp.a[p].tolist(), comp.b[p].tolist(), comp.relation,
                        int(comp.base[p]), {k: np.asarray(v).tolist() for k, v in comp.params_a.items()},
                        {k: np.asarray(v).tolist() for k, v in comp.params_b.items()}))
    return out


def _loop(entries):
    return [(None if a is None else np.asarray(a, float).tolist(), np.asarray(b, float).tolist(), rel, base, pa, pb)
            for a, b, rel, base, pa, pb in entries]


@pytest.mark.parametrize("ordinal", [True, False])
def test_the_comparisons_of_each_property_against_loops(ordinal):
    from itertools import permutations as perms

    st = P.PropertySettings(n_max=4, random=0, ordinal=ordinal)
    built = {pid: _pairs(P.build(prop, _C, st, "f_avg")) for pid, prop in P.PROPERTIES.items()}
    n = len(_C)
    assert built["uniform_change"] == _loop([(None, _C[m] * lam, "eq", m, {}, {}) for lam in (2, 3) for m in range(n)])
    want = []
    for j in range(3):
        for lam in (2, 3):
            for m in range(n):
                b = _C[m].astype(float)
                b[:, j] *= lam
                want.append((None, b, "eq", m, {}, {}))
    assert built["uniform_class_change"] == _loop(want)
    want = [(None, [[_C[m][p[i]][p[j]] for j in range(3)] for i in range(3)], "eq", m, {}, {})
            for p in perms(range(3)) if p != (0, 1, 2) for m in range(n)]
    assert built["class_exchange"] == _loop(want)
    assert built["ordinal_invariance"] == _loop([(None, _C[m], "eq", m, {}, {"positions": list(pos)})
                                                 for pos in P.relabellings(3) for m in range(n)])
    # f_avg over the classes 0 and 2: the one non-target cell is (1, 1)
    assert built["non_target_change"] == _loop([(None, _C[m] + np.diag([0, 1, 0]), "eq", m, {}, {}) for m in range(n)])
    assert built["symmetry"] == _loop([(None, _C[m].T, "eq", m, {}, {}) for m in range(n)
                                       if (_C[m].sum(axis=1) > 0).all()])
    # a matrix that never predicts a class: its transpose lacks that gold class, so it is not compared
    empty_row = np.array([[[2, 1, 1], [0, 0, 0], [0, 1, 2]]])
    assert P.build(P.PROPERTIES["symmetry"], empty_row, st)[0].b.shape == (0, 3, 3)

    def moves(target):
        out = []
        for m in range(n):  # ordered by the domain matrix, then cell by cell
            for i in range(3):
                for j in range(3):
                    if i != j and _C[m][i][j] > 0:
                        b = _C[m].copy()
                        b[i, j] -= 1
                        b[target(i, j), j] += 1
                        out.append((None, b, "gt", m, {}, {}))
        return _loop(out)

    assert built["monotonicity"] == moves(lambda i, j: j)
    assert built["ordinal_monotonicity"] == moves(lambda i, j: i - 1 if i > j else i + 1)
    perfect = [np.diag(_C[m].sum(axis=0)) for m in range(n)]
    assert built["maximal_agreement"] == _loop([(_C[1], _C[1], "eq", 1, {}, {})] +
                                               [(None, perfect[m], "gt", m, {}, {}) for m in (0, 2, 3)])
    assert built["minimal_agreement"] == _loop([(_C[2], _C[2], "eq", 2, {}, {})] +
                                               [(_C[2], _C[m], "gt", m, {}, {}) for m in (0, 1, 3)])
    want = []
    for m in range(n):
        rows, cols, tot = _C[m].sum(axis=1), _C[m].sum(axis=0), _C[m].sum()
        want.append((np.full((3, 3), 1 / 3), np.outer(rows, cols) / tot, "eq", m, {}, {}))
    got = built["constant_baseline"]
    assert [g[2:] for g in got] == [w[2:] for w in _loop(want)]
    np.testing.assert_allclose([g[1] for g in got], [w[1] for w in _loop(want)], rtol=1e-15)
    np.testing.assert_allclose([g[0] for g in got], [w[0] for w in _loop(want)], rtol=1e-15)


def test_the_imbalance_comparisons_against_a_loop():
    """Per gold distribution with two classes of different sizes, one item
    of the smaller class predicted as the class between them (ordered) or
    the third (unordered) against one item of the larger predicted so: the
    error on the smaller class must cost more; the dataset's class sizes
    join the gold distributions and keep only pairs ordered as theirs."""
    for ordinal, sizes in ((True, None), (False, None), (False, (1, 3, 2)), (False, (2, 2, 1))):
        st = P.PropertySettings(n_max=4, random=0, ordinal=ordinal, class_sizes=sizes)
        (comp,) = P.build(P.PROPERTIES["imbalance"], _C, st)
        golds, first = [], []
        for m in range(len(_C)):  # each gold distribution once, from its first matrix
            g = tuple(int(x) for x in _C[m].sum(axis=0))
            if g not in golds:
                golds.append(g)
                first.append(m)
        if sizes is not None:
            golds.append(tuple(sizes))
            first.append(len(_C))
        triples = ([(a, c, t) for a in range(3) for c in range(a + 1, 3) for t in range(a + 1, c)] if ordinal else
                   [(a, c, t) for a in range(3) for c in range(a + 1, 3) for t in range(3) if t not in (a, c)])
        if sizes is not None:
            triples = [x for x in triples if sizes[x[0]] != sizes[x[1]]]
        want = []
        for a, c, t in triples:
            for g, m in sorted(zip(golds, first), key=lambda x: x[0]):
                if g[a] == g[c] or (sizes is not None and (g[a] > g[c]) != (sizes[a] > sizes[c])):
                    continue
                big, small = (a, c) if g[a] > g[c] else (c, a)

                def err(outer):
                    e = np.diag(g).astype(float)
                    e[outer, outer] -= 1
                    e[t, outer] += 1
                    return e

                want.append((err(small), err(big), m))
        want.sort(key=lambda x: x[2])  # (the counterexample order; stable)
        assert want and comp.relation == "gt" and comp.base.tolist() == [w[2] for w in want], (ordinal, sizes)
        np.testing.assert_array_equal(comp.a, np.array([w[0] for w in want]))
        np.testing.assert_array_equal(comp.b, np.array([w[1] for w in want]))


def test_the_target_classes_of_each_kind_of_metric():
    st = P.PropertySettings(weights=(0.6, 0.0, 0.4), f_avg_classes=(2, 0, 2), positive=1)
    assert P.targets("f_avg", st) == [0, 2]
    assert P.targets("wf1", st) == [0, 2] and P.targets("wauc", st) == [0, 2]
    assert P.targets("f1_class", st) == [1] and P.targets("recall_class", st) == [1]
    assert P.targets("accuracy", st) == [0, 1, 2] and P.targets("kappa", st) == [0, 1, 2]
    assert P._non_target_cells("f1_class", st) == [(0, 0), (0, 2), (2, 0), (2, 2)]
    assert P._non_target_cells("wf1", st) == [(1, 1)]
    assert P._non_target_cells("accuracy", st) == []
    assert P._non_target_na("accuracy", st) == "averages over every class: no cell lies outside its target classes"
    assert P._non_target_na("wf1", st) is None
    assert P._not_ordinal("mae_macro", P.PropertySettings(ordinal=False)) == "the classes are unordered"
    assert P._not_ordinal("mae_macro", P.PropertySettings(ordinal=True)) is None


def test_the_table_of_every_metric_and_property():
    """Its columns; what the papers state (holds / fails / blank), whether
    the result agrees (blank when unpublished or not applicable), and the
    source: the statement's where one is published, the property's
    otherwise; one row per metric and property, in that order."""
    st = P.PropertySettings(n_max=4, random=50, ordinal=False)  # ordinal invariance: not applicable
    metrics, props = ["accuracy", "kappa", "mae_macro"], ["monotonicity", "class_exchange", "ordinal_invariance"]
    t = P.check_all(st, metrics, props)
    assert list(t.columns) == ["metric", "property", "result", "counterexample", "comparisons", "reason",
                               "published", "agrees", "source"]
    assert list(zip(t["metric"], t["property"])) == [(m, p) for m in metrics for p in props]
    for r in t.itertuples():
        pub = P.PUBLISHED.get((r.metric, r.property))
        assert r.published == ("" if pub is None else "holds" if pub[0] else "fails")
        assert r.source == (pub[1] if pub else P.PROPERTIES[r.property].source)
        want = "" if pub is None or r.result == "not applicable" else \
            "yes" if (r.result == "holds") == pub[0] else "no"
        assert r.agrees == want
        assert r.result in ("holds", "fails", "not applicable")
        assert (r.result == "not applicable") == bool(r.reason)
    assert set(t["published"]) >= {"holds", "fails"} and set(t["agrees"]) >= {"yes", "no", ""}
    assert (t["result"] == "not applicable").any()


def test_the_random_and_sparse_matrices_against_loops_over_the_same_draws():
    """random: item counts in [k, n_max], a multinomial gold of n - k items
    plus one per class (Dirichlet(0.5)), each gold class's predictions
    ~ Dirichlet(0.5 + 3 [i = j]); sparse: n items over the k * k cells
    (Dirichlet(0.3)), the matrices missing a gold class dropped, or (fill)
    given one item in the largest row; seeded by (seed, 0) and (seed, 1)."""
    count, n_max, seed, k = 30, 25, 4, 4
    got = PM.random_matrices(count, n_max, seed, k)
    rng = np.random.default_rng([seed, 0])
    n = rng.integers(k, n_max + 1, size=count)
    gold = rng.multinomial(n - k, rng.dirichlet(np.full(k, 0.5), size=count)) + 1
    want = np.zeros((count, k, k), dtype=np.int64)
    for j in range(k):
        alpha = [0.5 + 3.0 * (i == j) for i in range(k)]
        col = rng.multinomial(gold[:, j], rng.dirichlet(alpha, size=count))
        for r in range(count):
            want[r, :, j] = col[r]
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int64 and (got.sum(axis=(1, 2)) == n).all() and (got.sum(axis=1) >= 1).all()
    for fill in (False, True):
        got = PM.sparse_matrices(count, n_max, seed, k, fill=fill)
        rng = np.random.default_rng([seed, 1])
        n = rng.integers(k, n_max + 1, size=count)
        cells = rng.multinomial(n, rng.dirichlet(np.full(k * k, 0.3), size=count))
        want = []
        for r in range(count):
            m = cells[r].reshape(k, k).copy()
            empty = [j for j in range(k) if m[:, j].sum() == 0]
            if empty and not fill:
                continue
            big = int(np.argmax(m.sum(axis=1)))
            for j in empty:
                m[big, j] += 1
            want.append(m)
        np.testing.assert_array_equal(got, np.array(want), err_msg=str(fill))
    assert len(PM.sparse_matrices(count, n_max, seed, k)) < count  # some were dropped


def test_the_domain_is_enumerated_then_random_sorted_by_item_count():
    """Every matrix up to n_max items with every gold class, then the
    random, sparse (filled beyond three classes) and concentrated (beyond
    three classes) ones; sorted by item count, ties in that order."""
    for ps in (P.PropertySettings(n_max=4, random=40, seed=3),
               P.PropertySettings(n_max=4, random=40, seed=3, k=4, weights=(0.25,) * 4, f_avg_classes=(0,),
                                  unrelated=None)):
        k = ps.k
        n = ps.n_max if k == 3 else PM.enumeration_limit(k, ps.n_max)
        enum = PM.enumerate_matrices(n, k) if n >= k else np.zeros((0, k, k), dtype=np.int64)
        enum = enum[[bool((m.sum(axis=0) > 0).all()) for m in enum]]
        parts = [enum, PM.random_matrices(ps.random_count, ps.random_n_max, ps.seed, k),
                 PM.sparse_matrices(ps.random_count, ps.random_sparse_n_max, ps.seed, k, fill=k > 3)]
        if k > 3:
            parts.append(PM.concentrated_matrices(ps.random, ps.random_n_max, ps.seed, k))
        allm = np.concatenate(parts)
        order = sorted(range(len(allm)), key=lambda i: int(allm[i].sum()))  # (sorted is stable)
        np.testing.assert_array_equal(PM.domain_matrices(ps), allm[order], err_msg=str(k))
    none = PM.domain_matrices(P.PropertySettings(n_max=4, random=0))
    assert len(none) == len([m for m in PM.enumerate_matrices(4) if (m.sum(axis=0) > 0).all()])


def _check_by_loop(metric_id, prop, c, st):
    """check() by a loop over the pairs: each pair scored alone; the first
    violated pair by domain matrix (then by comparison) is the counterexample."""
    m = M.get(metric_id)
    params = st.metric_params()
    sign = 1 if m.higher_is_better else -1
    pairs, bad = 0, None
    for comp in P.build(prop, c, st, metric_id):
        for p in range(len(comp.b)):
            pairs += 1
            a = c[comp.base[p]] if comp.a is None else comp.a[p]
            with np.errstate(invalid="ignore", divide="ignore"):
                sa = float(m(np.asarray(a, float), **params, **comp.params_a))
                sb = float(m(np.asarray(comp.b[p], float), **params, **comp.params_b))
            x, y = sign * sa, sign * sb
            ok = (abs(x - y) <= 1e-12 + 1e-9 * abs(y) if comp.relation == "eq" else
                  y > x + 1e-12 if comp.relation == "gt" else y >= x - 1e-12)
            if not ok and (bad is None or comp.base[p] < bad[0]):
                bad = (comp.base[p], a, comp.b[p], sa, sb, comp.relation, comp.params_a, comp.params_b)
    return pairs, bad


@pytest.mark.parametrize("metric_id,prop", [("accuracy", "uniform_change"), ("kappa", "monotonicity"),
                                            ("gmr", "monotonicity"), ("accuracy", "constant_baseline"),
                                            ("kappa", "minimal_agreement"), ("mae_macro", "ordinal_invariance"),
                                            ("macro_f1", "imbalance"), ("mcc", "maximal_agreement"),
                                            ("f_avg", "non_target_change")])
def test_a_check_against_a_loop_over_its_pairs(metric_id, prop):
    """The result, the number of pairs, and the counterexample (the first
    violated pair by domain matrix, its matrices as integers where whole,
    the parameters of each side, the scores) of check(), from a loop."""
    st = P.PropertySettings(n_max=5, random=100, seed=2)
    c = PM.domain_matrices(st)
    got = P.check(metric_id, P.PROPERTIES[prop], c, st)
    pairs, bad = _check_by_loop(metric_id, P.PROPERTIES[prop], c, st)
    assert set(got) == {"result", "counterexample", "comparisons", "reason"} and got["reason"] == ""
    assert got["comparisons"] == pairs > 0
    if bad is None:
        assert got["result"] == "holds" and got["counterexample"] == ""
        return
    assert got["result"] == "fails"
    ce = json.loads(got["counterexample"])
    _, a, b, sa, sb, rel, pa, pb = bad
    assert ce["relation"] == rel and ce["a"] == np.asarray(a).tolist() and ce["b"] == np.asarray(b).tolist()
    assert ce["score_a"] == pytest.approx(sa, nan_ok=True) and ce["score_b"] == pytest.approx(sb, nan_ok=True)
    assert ce.get("params_a", {}) == {k: np.asarray(v).tolist() for k, v in pa.items()}
    assert ce.get("params_b", {}) == {k: np.asarray(v).tolist() for k, v in pb.items()}
    whole = [x for row in ce["a"] + ce["b"] for x in row if float(x) == int(x)]
    assert all(type(x) is int for x in whole)  # whole counts printed as integers, fractions as floats
    assert P.recheck(metric_id, got["counterexample"], st)


def test_a_check_that_is_not_applicable_says_why():
    st = P.PropertySettings(n_max=4, random=0, ordinal=False)
    c = PM.domain_matrices(st)
    assert P.check("mae_macro", P.PROPERTIES["ordinal_invariance"], c, st) == {
        "result": "not applicable", "counterexample": "", "comparisons": 0, "reason": "the classes are unordered"}
    some_right = c[np.trace(c, axis1=1, axis2=2) > 0]  # no matrix with nothing right
    assert P.check("kappa", P.PROPERTIES["minimal_agreement"], some_right, st) == {
        "result": "not applicable", "counterexample": "", "comparisons": 0,
        "reason": "no matrix of the domain meets the property's condition"}


def test_properties_of_more_classes_build_their_own_comparisons():
    """Beyond four classes the exchanges are the swaps of two classes (four
    or fewer: every permutation); without a perfect matrix in the domain
    each matrix is compared with its perfect one; beyond four classes the
    imbalance uses the first gold distributions of the domain only."""
    from itertools import combinations as comb2
    from itertools import permutations as perms

    for k in (4, 5):
        st = P.PropertySettings(n_max=5, random=0, k=k, weights=(1 / k,) * k, f_avg_classes=(0,), unrelated=None)
        c = PM.random_matrices(40, 30, 1, k)
        got = _pairs(P.build(P.PROPERTIES["class_exchange"], c, st))
        if k == 4:
            ps = [list(p) for p in perms(range(k)) if p != tuple(range(k))]
        else:
            ps = []
            for i, j in comb2(range(k), 2):
                p = list(range(k))
                p[i], p[j] = j, i
                ps.append(p)
        want = [(None, c[m][np.ix_(p, p)], "eq", m, {}, {}) for p in ps for m in range(len(c))]
        assert got == _loop(want), k
    st3 = P.PropertySettings(n_max=4, random=0)
    no_perfect = _C[[0, 2, 3]]
    perfect = [np.diag(m.sum(axis=0)) for m in no_perfect]
    assert _pairs(P.build(P.PROPERTIES["maximal_agreement"], no_perfect, st3)) == _loop(
        [(None, perfect[m], "gt", m, {}, {}) for m in range(3)])
    def imbalance(k):
        """(the bases of the imbalance comparisons, each gold distribution's first matrix) on 200 random matrices"""
        st = P.PropertySettings(n_max=5, random=0, k=k, weights=(1 / k,) * k, f_avg_classes=(0,), unrelated=None)
        c = PM.random_matrices(200, 60, 3, k)
        (comp,) = P.build(P.PROPERTIES["imbalance"], c, st)
        golds = {}
        for m in range(len(c)):
            golds.setdefault(tuple(c[m].sum(axis=0)), m)
        assert len(golds) > P.IMBALANCE_GOLDS
        return set(comp.base.tolist()), sorted(golds.values())

    bases, first = imbalance(5)  # five classes: the first IMBALANCE_GOLDS gold distributions only
    assert bases <= set(first[:P.IMBALANCE_GOLDS])
    bases, first = imbalance(4)  # four: every gold distribution of the domain
    assert len(bases) > P.IMBALANCE_GOLDS


def test_the_imbalance_comparisons_of_two_classes():
    """Two classes: an item of the smaller class predicted as the larger one
    against an item of the larger predicted as the smaller."""
    st = P.PropertySettings(n_max=4, random=0, k=2, weights=(0.5, 0.5), f_avg_classes=(0,), unrelated=None)
    c = np.array([[[3, 0], [0, 1]], [[1, 0], [0, 1]], [[0, 1], [2, 1]]])
    (comp,) = P.build(P.PROPERTIES["imbalance"], c, st)
    # gold distributions (3, 1) from matrix 0 and (2, 2) from matrix 2 (a tie: nothing), (1, 1) from matrix 1 (a tie)
    assert comp.base.tolist() == [0]
    np.testing.assert_array_equal(comp.a, [[[3, 1], [0, 0]]])  # the small class's item predicted as the large one
    np.testing.assert_array_equal(comp.b, [[[2, 0], [1, 1]]])  # the large class's item predicted as the small one


def test_the_enumerated_part_of_the_domain_follows_the_budget():
    """Three classes enumerate up to n_max items, within the budget (12
    items: 293,930 matrices); more classes up to enumeration_limit's count
    (four classes of 8: 6 items); none when that is below K, and the domain
    stays integer counts."""
    three = PM.domain_matrices(P.PropertySettings(n_max=12, random=0))
    assert three.dtype == np.int64 and three.sum(axis=(1, 2)).max() == 12
    four = PM.domain_matrices(P.PropertySettings(n_max=8, random=0, k=4, weights=(0.25,) * 4, f_avg_classes=(0,),
                                                unrelated=None))
    assert PM.enumeration_limit(4, 8) == 6 and four.sum(axis=(1, 2)).max() == 6
    six = P.PropertySettings(n_max=5, random=20, k=6, weights=(1 / 6,) * 6, f_avg_classes=(0,), unrelated=None)
    assert PM.enumeration_limit(6, 5) < 6
    d = PM.domain_matrices(six)
    assert d.dtype == np.int64 and len(d) == 2 * six.random_count + six.random
