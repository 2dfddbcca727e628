"""Formal properties of the metrics, checked mechanically on confusion matrices.

A property is a precise statement of how a metric must respond to a change
of the confusion matrix ``c[i, j]`` (predicted i, gold j).  Each is checked
for every classification metric of the registry on a *shape*: a number of
classes K, ordered or not, the metrics' parameters (class weights, the
classes F_avg averages, the FNC-1 score's unrelated class) and, for
imbalance, the order of the class sizes.  ``results/properties.csv`` is the
generic case (three ordered classes, weights 0.5/0.3/0.2; the papers' own
statements are compared with it); each dataset's ``properties.csv`` is its
own shape (``dataset_settings``), which is what its recommendation reads.
The matrices are

* every K x K matrix of non-negative integers with at most ``n_max`` items in
  which every class occurs in the gold (the *domain*: a test set of a
  K-class task uses its K classes; for K > 3 ``n_max`` is lowered until the
  matrices to enumerate are at most ``matrices.ENUMERATION_BUDGET``, and K of 6 or
  more has no enumerated matrices), and
* ``random`` random matrices of up to ``random_n_max`` items (class sizes
  and confusions drawn from Dirichlet distributions, so many are strongly
  imbalanced; mostly right), and ``random`` more of up to
  ``random_sparse_n_max`` items whose cells are drawn alike, right or wrong
  (systems worse than chance: Cohen's kappa is not monotone there, from 16
  items on, beyond the enumerated matrices); beyond 3 classes, ``random``
  more whose items fall on three random classes (``concentrated_matrices``).

A property that holds on these matrices is not proved: it was searched for a
counterexample and none was found (the ``comparisons`` column says how many
pairs were tried).

A property becomes a list of *comparisons*: pairs of matrices (``a``, ``b``)
with the relation the metric must respect between its scores on them,
``b = a`` (equal up to rounding), ``b > a`` (strictly better) or ``b >= a``
(not worse), in the metric's own direction (lower MAE is better).  Every
metric is scored on all pairs at once (one call per metric on a stacked
tensor).  The result is ``holds`` (every comparison respected), ``fails``
with the *smallest counterexample* (the violated comparison whose first
matrix has the fewest items; then the first in enumeration order), or
``not applicable`` with the reason.  An undefined score (NaN) on either side
violates the relation.  Tolerances: equal means within 1e-9 relative or
1e-12 absolute; strictly better means by more than 1e-12.

Properties (``PROPERTIES``; sources in each entry):

Amigo, Gonzalo, Mizzaro & Carrillo-de-Albornoz (ACL 2020), section 3:
  ordinal_invariance   Eff(s, g) = Eff(f(s), f(g)) for any strictly increasing
                       f of the class values: the score must not change when
                       the classes' numeric positions change but not their
                       order (0,1,2 -> 0,1,3 / 0,2,3 / 0,1,10 / 0,9,10; for K
                       classes the first or the last gap doubled or made 9).
  ordinal_monotonicity moving an item's prediction one class closer to its
                       gold class, without passing it, strictly improves the
                       score (their condition s(d) > s'(d) >= g(d), from either
                       side; any such change is a sequence of these steps).
  imbalance            Eff(g_{d1->c2}, g) > Eff(g_{d3->c2}, g) when n_c1 > n_c3:
                       starting from the perfect output, one item of the larger
                       outer class predicted as a class between the two scores
                       better than one item of the smaller outer class
                       predicted so (ordered classes: every c1 < c2 < c3; for
                       unordered ones any third class c2, and with two classes
                       the error of each class as the other).  With the class
                       sizes of a dataset (``class_sizes``), only the gold
                       distributions whose two classes are ordered by size as
                       the dataset's are compared, the dataset's own included:
                       a weighting chosen for this data is judged on it.

Sokolova & Lapalme (IP&M 2009), invariances of a measure under changes of
the confusion matrix, for K classes:
  class_exchange       exchanging the counts of classes (permuting rows and
                       columns together) leaves the score unchanged (every
                       permutation up to 4 classes, every swap of two beyond:
                       the swaps generate the permutations).
  uniform_class_change multiplying one gold class's column by 2 or 3 (the class
                       has that many times the items, each classified alike)
                       leaves the score unchanged.
  uniform_change       multiplying every cell by 2 or 3 leaves it unchanged.
  non_target_change    adding an item to a cell whose row and column both lie
                       outside the metric's target classes (F_avg: the classes
                       it averages; weighted metrics: the classes of positive
                       weight) leaves it unchanged; not applicable to metrics
                       whose targets are every class (no such cell).

Goesgens, Zhiyanov, Tikhonov & Prokhorenkova (NeurIPS 2021), section 3:
  maximal_agreement    every perfect matrix scores the same value, and every
                       imperfect matrix strictly less than the perfect one with
                       its gold counts.
  minimal_agreement    every matrix with no correct item (zero diagonal) scores
                       the same value, and every matrix with a correct item
                       strictly more.
  symmetry             swapping gold and predictions (transposing c) leaves the
                       score unchanged (checked where both have every class).
  monotonicity         turning one wrong prediction into the correct one
                       strictly improves the score.
  constant_baseline    the score of a guesser that ignores the items is the same
                       whatever the class sizes: the metric on the expected
                       matrix E[c_ij] = c_i. c_.j / N is one constant (their
                       *approximate* constant baseline; it is exact for metrics
                       linear in c).

``PUBLISHED`` lists what the papers state about metrics of the registry;
``check_all`` reports for each result whether it agrees.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from . import labels as M
from ..settings import PROPERTY_K, PropertySettings
from .matrices import domain_matrices

__all__ = ["Property", "PROPERTIES", "PUBLISHED", "PropertySettings", "build", "check", "check_all", "recheck",
           "RESULTS"]

K = PROPERTY_K  # the generic shape: three ordered classes (Amigo et al.'s imbalance needs a middle class)
RESULTS = ("holds", "fails", "not applicable")
# with more than 4 classes, imbalance compares the gold distributions of the first this many domain matrices
# (and a dataset's own): it has K (K - 1) (K - 2) / 2 triples of classes per distribution
IMBALANCE_GOLDS = 20
_RTOL, _ATOL = 1e-9, 1e-12

_AMIGO = "Amigo et al. (ACL 2020), section 3"
_SOKOLOVA = "Sokolova & Lapalme (IP&M 2009), invariances under changes of the confusion matrix"
_GOESGENS = "Goesgens et al. (NeurIPS 2021), section 3"


@dataclass
class Comparisons:
    """Pairs of matrices ``a[p]``, ``b[p]`` (P, K, K) and the relation the
    scores must satisfy (``eq``, ``gt``: b strictly better, ``ge``: b not
    worse); ``base[p]``: the index of the domain matrix the pair comes from
    (the counterexample order); ``params_a/b``: extra metric parameters of
    each side (the class positions of ordinal invariance)."""

    a: np.ndarray | None  # None: the domain matrices c[base] themselves (scored once per metric)
    b: np.ndarray
    relation: str
    base: np.ndarray
    params_a: dict = field(default_factory=dict)
    params_b: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Property:
    """One formal property: its id, name, source and statement, and how to build
    its comparisons (pairs of matrices with the relation the metric must respect).

    ``not_applicable(metric_id, settings)`` says why a metric is exempt (None when
    it is not).

    Examples
    --------
    >>> p = PROPERTIES["monotonicity"]
    >>> p.name, p.source
    ('monotonicity', 'Goesgens et al. (NeurIPS 2021), section 3')
    """
    id: str
    name: str
    source: str
    statement: str
    build: Callable[..., list[Comparisons]]
    not_applicable: Callable[[str, PropertySettings], str | None] = lambda metric_id, settings: None


# ---------------------------------------------------------------------------
# the properties as comparisons
# ---------------------------------------------------------------------------
def _unit(i: int, j: int, k: int) -> np.ndarray:
    e = np.zeros((k, k), dtype=np.int64)
    e[i, j] = 1
    return e


def _moves(c: np.ndarray, target: Callable[[int, int], int]) -> Comparisons:
    """One item of cell (i, j), i != j, moved to cell (target(i, j), j): the
    moved matrix must score strictly better."""
    k = c.shape[-1]
    b, base = [], []
    for i in range(k):  # a loop over the K^2 cells, not over matrices
        for j in range(k):
            if i != j:
                idx = np.flatnonzero(c[:, i, j] > 0)
                b.append(c[idx] - _unit(i, j, k) + _unit(target(i, j), j, k))
                base.append(idx)
    return _ordered(None, np.concatenate(b), "gt", np.concatenate(base))


def _ordered(a, b, relation, base) -> Comparisons:
    """Comparisons sorted by their domain matrix (the counterexample order)."""
    order = np.argsort(base, kind="stable")
    return Comparisons(None if a is None else a[order].astype(np.float64), b[order].astype(np.float64), relation,
                       base[order])


def _all(c: np.ndarray) -> np.ndarray:
    return np.arange(len(c))


def _not_ordinal(metric_id, settings):
    return None if settings.ordinal else "the classes are unordered"


# the class positions Amigo et al.'s strictly increasing f maps 0, 1, 2 to
RELABELLINGS = ((0.0, 1.0, 3.0), (0.0, 2.0, 3.0), (0.0, 1.0, 10.0), (0.0, 9.0, 10.0))


def relabellings(k: int) -> list[tuple[float, ...]]:
    """Strictly increasing maps of the positions 0..K-1: the first or the
    last gap doubled, or made 9 (``RELABELLINGS`` for three classes).

    Examples
    --------
    >>> relabellings(3) == list(RELABELLINGS)
    True
    >>> relabellings(2)
    [(0.0, 2.0), (0.0, 9.0)]
    """
    base = np.arange(k, dtype=float)
    out = []
    for gap in (2.0, 9.0):
        last = base.copy()
        last[-1] = k - 2 + gap
        first = base + (gap - 1)
        first[0] = 0.0
        out += [tuple(map(float, last)), tuple(map(float, first))]
    return list(dict.fromkeys(out))


def _ordinal_invariance(c, settings):
    idx = _all(c)
    return [Comparisons(None, c.astype(float), "eq", idx, {}, {"positions": np.array(p)})
            for p in relabellings(c.shape[-1])]


def _ordinal_monotonicity(c, settings):
    return [_moves(c, lambda i, j: i - 1 if i > j else i + 1)]


def _imbalance_triples(k: int, ordinal: bool, sizes) -> list[tuple[int, int, int]]:
    """(c1, c3, c2): the outer classes compared, c1 before c3, and the class
    their items are predicted as (between them when ordered; with two
    classes, -1: each is predicted as the other)."""
    if k == 2:
        return [(0, 1, -1)]
    out = []
    for a in range(k):
        for c in range(a + 1, k):
            mids = range(a + 1, c) if ordinal else [t for t in range(k) if t not in (a, c)]
            out += [(a, c, t) for t in mids]
    if sizes is not None:  # only the classes the dataset orders by size (a tie compares nothing)
        out = [(a, c, t) for a, c, t in out if sizes[a] != sizes[c]]
    return out


def _imbalance(c, settings):
    k = c.shape[-1]
    gold, base = np.unique(c.sum(axis=1), axis=0, return_index=True)  # each gold distribution once
    base = base.astype(np.int64)
    sizes = settings.class_sizes
    if k > 4:  # K^3 / 2 triples: the first gold distributions of the domain only (the dataset's below)
        gold, base = gold[np.argsort(base)[:IMBALANCE_GOLDS]], np.sort(base)[:IMBALANCE_GOLDS]
    if sizes is not None:  # the dataset's own class sizes join the gold distributions
        gold = np.concatenate([gold, np.asarray(sizes, dtype=np.int64)[None, :]])
        base = np.append(base, len(c))
    out = []
    for a, b_, t in _imbalance_triples(k, settings.ordinal, sizes):
        keep = gold[:, a] != gold[:, b_]
        if sizes is not None:  # ordered as the dataset's: the larger of the two is the dataset's larger
            keep &= (gold[:, a] > gold[:, b_]) == (sizes[a] > sizes[b_])
        g, bs = gold[keep], base[keep]
        if not len(g):
            continue
        big = np.where(g[:, a] > g[:, b_], a, b_)
        small = np.where(big == a, b_, a)
        perfect = _perfect(g)
        rows = np.arange(len(g))

        def err(outer):  # one item of gold class `outer` predicted as t (two classes: as the other)
            m = perfect.copy()
            to = np.where(outer == a, b_, a) if t < 0 else np.full(len(g), t)
            m[rows, outer, outer] -= 1
            m[rows, to, outer] += 1
            return m

        out.append((err(small), err(big), bs))
    if not out:
        return []
    a, b, base = (np.concatenate(x) for x in zip(*out))  # (the triples' pairs, then sorted by domain matrix)
    return [_ordered(a, b, "gt", base)]


def _class_exchange(c, settings):
    k = c.shape[-1]
    idx = _all(c)
    if k <= 4:
        perms = [list(p) for p in permutations(range(k)) if p != tuple(range(k))]
    else:  # the swaps of two classes generate every permutation
        perms = []
        for i, j in combinations(range(k), 2):
            p = list(range(k))
            p[i], p[j] = j, i
            perms.append(p)
    return [Comparisons(None, c[:, p][:, :, p].astype(float), "eq", idx) for p in perms]


def _uniform_class_change(c, settings):
    k = c.shape[-1]
    idx = _all(c)
    out = []
    for j in range(k):
        for lam in (2, 3):
            scale = np.ones(k)
            scale[j] = lam
            out.append(Comparisons(None, c * scale[None, None, :], "eq", idx))
    return out


def _uniform_change(c, settings):
    idx = _all(c)
    return [Comparisons(None, c * float(lam), "eq", idx) for lam in (2, 3)]


def targets(metric_id: str, settings: PropertySettings) -> list[int]:
    """The classes a metric averages over (its target classes)."""
    if metric_id == "f_avg":
        return sorted(set(settings.f_avg_classes))
    if M.get(metric_id).params == ("weights",):
        return [i for i, w in enumerate(settings.weights) if w > 0]
    if M.get(metric_id).params == ("positive",):
        return [settings.positive]
    return list(range(settings.k))


def _non_target_cells(metric_id, settings):
    t = set(targets(metric_id, settings))
    return [(i, j) for i in range(settings.k) for j in range(settings.k) if i not in t and j not in t]


def _non_target_change(c, settings, metric_id):
    idx = _all(c)
    k = c.shape[-1]
    return [Comparisons(None, (c + _unit(i, j, k)).astype(float), "eq", idx)
            for i, j in _non_target_cells(metric_id, settings)]


def _non_target_na(metric_id, settings):
    if not _non_target_cells(metric_id, settings):
        return "averages over every class: no cell lies outside its target classes"
    return None


def _perfect(gold: np.ndarray) -> np.ndarray:
    k = gold.shape[-1]
    return np.einsum("pj,jk->pjk", gold, np.eye(k, dtype=gold.dtype))


def _maximal_agreement(c, settings):
    idx = _all(c)
    perfect = _perfect(c.sum(axis=1))
    is_perfect = (c == perfect).all(axis=(1, 2))
    if not is_perfect.any():  # random matrices only (many classes): the perfect one of each
        return [Comparisons(None, perfect.astype(float), "gt", idx)]
    ref = np.broadcast_to(c[np.flatnonzero(is_perfect)[0]], c.shape)  # the smallest perfect matrix
    return [Comparisons(ref[is_perfect].astype(float), c[is_perfect].astype(float), "eq", idx[is_perfect]),
            Comparisons(None, perfect[~is_perfect].astype(float), "gt", idx[~is_perfect])]


def _minimal_agreement(c, settings):
    idx = _all(c)
    wrong = np.trace(c, axis1=1, axis2=2) == 0
    if not wrong.any():
        return []
    ref = np.broadcast_to(c[np.flatnonzero(wrong)[0]], c.shape)
    return [Comparisons(ref[wrong].astype(float), c[wrong].astype(float), "eq", idx[wrong]),
            Comparisons(ref[~wrong].astype(float), c[~wrong].astype(float), "gt", idx[~wrong])]


def _symmetry(c, settings):
    both = (c.sum(axis=2) > 0).all(axis=1)  # the transpose's gold has every class too
    return [Comparisons(None, np.swapaxes(c[both], 1, 2).astype(float), "eq", _all(c)[both])]


def _monotonicity(c, settings):
    return [_moves(c, lambda i, j: j)]


def _constant_baseline(c, settings):
    k = c.shape[-1]
    n = c.sum(axis=(1, 2)).astype(float)
    expected = c.sum(axis=2)[:, :, None] * c.sum(axis=1)[:, None, :] / n[:, None, None]
    ref = np.broadcast_to(np.full((k, k), 1.0 / k), c.shape)  # E of the matrix of ones: every class alike
    return [Comparisons(ref.astype(float), expected, "eq", _all(c))]


PROPERTIES: dict[str, Property] = {p.id: p for p in [
    Property("ordinal_invariance", "ordinal invariance", _AMIGO,
             "the score does not change under a strictly increasing relabelling of the class values",
             _ordinal_invariance, _not_ordinal),
    Property("ordinal_monotonicity", "ordinal monotonicity", _AMIGO,
             "a prediction moved one class closer to its gold class (not past it) strictly improves the score",
             _ordinal_monotonicity, _not_ordinal),
    Property("imbalance", "imbalance", _AMIGO,
             "from the perfect output, an error on the larger of two classes (predicted as a class between them, "
             "or a third class when unordered) costs strictly less than the same error on the smaller one",
             _imbalance),
    Property("class_exchange", "exchange of classes", _SOKOLOVA,
             "permuting the classes (rows and columns together) leaves the score unchanged", _class_exchange),
    Property("uniform_class_change", "uniform change of a class", _SOKOLOVA,
             "multiplying one gold class's column by 2 or 3 leaves the score unchanged", _uniform_class_change),
    Property("uniform_change", "uniform change of the matrix", _SOKOLOVA,
             "multiplying every cell by 2 or 3 leaves the score unchanged", _uniform_change),
    Property("non_target_change", "change of the non-target cells", _SOKOLOVA,
             "adding an item to a cell outside the rows and columns of the metric's target classes leaves the "
             "score unchanged", _non_target_change, _non_target_na),
    Property("maximal_agreement", "maximal agreement", _GOESGENS,
             "every perfect matrix scores the same, and every imperfect one strictly less than the perfect one "
             "with its gold counts", _maximal_agreement),
    Property("minimal_agreement", "minimal agreement", _GOESGENS,
             "every matrix without a correct item scores the same, and every matrix with one strictly more",
             _minimal_agreement),
    Property("symmetry", "symmetry", _GOESGENS,
             "swapping gold and predictions (the transposed matrix) leaves the score unchanged", _symmetry),
    Property("monotonicity", "monotonicity", _GOESGENS,
             "turning one wrong prediction into the correct one strictly improves the score", _monotonicity),
    Property("constant_baseline", "constant baseline", _GOESGENS,
             "a guesser that ignores the items (the expected matrix c_i. c_.j / N) scores the same constant "
             "whatever the class sizes", _constant_baseline),
]}

# What the papers state about metrics of the registry: (metric, property) ->
# (holds?, where).  Amigo et al.'s abstract: per-class precision/recall
# "ignores their relative ordering" (no ordinal monotonicity) and MAE
# "assumes absolute distances between classes" (no ordinal invariance);
# Amemiya & Sakai (section 3) restate that CEM^ORD has all three of Amigo et
# al.'s properties.  Macro-averaged MAE was proposed for imbalance (Baccianella
# et al. 2009) and Amigo et al. credit it with that property, not MAE^mu.
# Goesgens et al.: accuracy has every property but the constant baseline;
# balanced accuracy (R^M) is not symmetric but has a constant baseline;
# Cohen's kappa has maximal agreement, symmetry and (approximately) a constant
# baseline but neither minimal agreement nor monotonicity.  Sokolova & Lapalme: accuracy is
# invariant under the exchange of classes and a uniform change of the whole
# matrix, not under a change of one class; per-class recall, so R^M, is
# invariant under a uniform change of a class.
PUBLISHED: dict[tuple[str, str], tuple[bool, str]] = {
    ("cem_ord", "ordinal_invariance"): (True, "Amigo et al. 2020, Table 1; Amemiya & Sakai, section 3"),
    ("cem_ord", "ordinal_monotonicity"): (True, "Amigo et al. 2020, Table 1; Amemiya & Sakai, section 3"),
    ("cem_ord", "imbalance"): (True, "Amigo et al. 2020, Table 1; Amemiya & Sakai, section 3"),
    ("mae_micro", "ordinal_invariance"): (False, "Amigo et al. 2020, abstract and Table 1"),
    ("mae_macro", "ordinal_invariance"): (False, "Amigo et al. 2020, abstract and Table 1"),
    ("mae_micro", "ordinal_monotonicity"): (True, "Amigo et al. 2020, Table 1"),
    ("mae_macro", "ordinal_monotonicity"): (True, "Amigo et al. 2020, Table 1"),
    ("mae_micro", "imbalance"): (False, "Amigo et al. 2020, Table 1"),
    ("mae_macro", "imbalance"): (True, "Amigo et al. 2020, Table 1; Baccianella et al. 2009"),
    ("accuracy", "ordinal_invariance"): (True, "Amigo et al. 2020, Table 1"),
    ("accuracy", "ordinal_monotonicity"): (False, "Amigo et al. 2020, abstract and Table 1"),
    ("macro_f1", "ordinal_monotonicity"): (False, "Amigo et al. 2020, abstract and Table 1"),
    ("accuracy", "imbalance"): (False, "Amigo et al. 2020, Table 1"),
    ("accuracy", "maximal_agreement"): (True, "Goesgens et al. 2021, Table 1"),
    ("accuracy", "minimal_agreement"): (True, "Goesgens et al. 2021, Table 1"),
    ("accuracy", "symmetry"): (True, "Goesgens et al. 2021, Table 1"),
    ("accuracy", "monotonicity"): (True, "Goesgens et al. 2021, Table 1"),
    ("accuracy", "constant_baseline"): (False, "Goesgens et al. 2021, Table 1"),
    ("macro_recall", "symmetry"): (False, "Goesgens et al. 2021, Table 1 (balanced accuracy)"),
    ("macro_recall", "constant_baseline"): (True, "Goesgens et al. 2021, Table 1 (balanced accuracy)"),
    ("kappa", "maximal_agreement"): (True, "Goesgens et al. 2021, Table 1 (Cohen's kappa)"),
    ("kappa", "minimal_agreement"): (False, "Goesgens et al. 2021, Table 1 (Cohen's kappa)"),
    ("kappa", "symmetry"): (True, "Goesgens et al. 2021, Table 1 (Cohen's kappa)"),
    ("kappa", "constant_baseline"): (True, "Goesgens et al. 2021, Table 1 (Cohen's kappa, approximate)"),
    ("kappa", "monotonicity"): (False, "Goesgens et al. 2021, Table 1 (Cohen's kappa)"),
    ("accuracy", "class_exchange"): (True, "Sokolova & Lapalme 2009, multi-class invariances"),
    ("accuracy", "uniform_change"): (True, "Sokolova & Lapalme 2009, multi-class invariances"),
    ("accuracy", "uniform_class_change"): (False, "Sokolova & Lapalme 2009, multi-class invariances"),
    ("macro_recall", "uniform_class_change"): (True, "Sokolova & Lapalme 2009, multi-class invariances"),
    ("macro_recall", "class_exchange"): (True, "Sokolova & Lapalme 2009, multi-class invariances"),
}


# ---------------------------------------------------------------------------
# checking
# ---------------------------------------------------------------------------
def _violations(sa: np.ndarray, sb: np.ndarray, relation: str, higher_is_better: bool) -> np.ndarray:
    if not higher_is_better:
        sa, sb = -sa, -sb
    with np.errstate(invalid="ignore"):
        if relation == "eq":
            ok = np.isclose(sa, sb, rtol=_RTOL, atol=_ATOL)
        elif relation == "gt":
            ok = sb > sa + _ATOL
        elif relation == "ge":
            ok = sb >= sa - _ATOL
        else:
            raise ValueError(f"unknown relation {relation!r}")
    return ~ok  # NaN on either side: a violation


def _counterexample(comp: Comparisons, a: np.ndarray, p: int, sa: float, sb: float) -> str:
    def mat(x):
        return [[float(v) if float(v) != int(v) else int(v) for v in row] for row in x]

    out = {"relation": comp.relation, "a": mat(a), "score_a": sa, "b": mat(comp.b[p]), "score_b": sb}
    if comp.params_a:
        out["params_a"] = {k: np.asarray(v).tolist() for k, v in comp.params_a.items()}
    if comp.params_b:
        out["params_b"] = {k: np.asarray(v).tolist() for k, v in comp.params_b.items()}
    return json.dumps(out, separators=(", ", ": "))


def check(metric_id: str, prop: Property, c: np.ndarray, settings: PropertySettings, comps=None,
          domain_scores: np.ndarray | None = None) -> dict:
    """Check one property of one metric on the domain matrices.

    Parameters
    ----------
    metric_id : str
        A classification metric id (``metrics.METRIC_IDS``).
    prop : Property
        An entry of ``PROPERTIES``.
    c : ndarray, shape (D, 3, 3)
        The domain (``domain_matrices``).
    settings : PropertySettings
        The metric parameters of the check (weights, F_avg classes, unrelated).
    comps : list of Comparisons, optional
        The property's comparisons if already built (``build``).
    domain_scores : ndarray, optional
        The metric's scores of ``c`` if already computed.

    Returns
    -------
    dict
        ``result`` (``holds``, ``fails``, ``not applicable``),
        ``counterexample`` (JSON: the matrices ``a`` and ``b``, their scores,
        the relation; empty unless the property fails: the violated comparison
        whose first matrix has the fewest items), ``comparisons`` (how many
        pairs were checked) and ``reason`` (why it is not applicable).

    Notes
    -----
    A property is a list of pairs of matrices with the relation the metric must
    respect between its scores on them (``b = a``, ``b > a``, ``b >= a``, in the
    metric's own direction); an undefined score on either side violates it.
    Equal means within 1e-9 relative or 1e-12 absolute; strictly better, by
    more than 1e-12.

    References
    ----------
    Amigo et al. (ACL 2020), section 3; Sokolova & Lapalme (IP&M 2009);
    Goesgens et al. (NeurIPS 2021), section 3.

    Examples
    --------
    >>> st = PropertySettings(n_max=4, random=50)
    >>> c = domain_matrices(st)
    >>> check("accuracy", PROPERTIES["monotonicity"], c, st)["result"]
    'holds'
    >>> r = check("gmr", PROPERTIES["monotonicity"], c, st)
    >>> r["result"], r["counterexample"]
    ('fails', '{"relation": "gt", "a": [[0, 0, 0], [0, 0, 0], [1, 1, 1]], "score_a": 0.0, "b": [[1, 0, 0], [0, 0, 0], [0, 1, 1]], "score_b": 0.0}')
    """
    why = prop.not_applicable(metric_id, settings)
    if why:
        return {"result": "not applicable", "counterexample": "", "comparisons": 0, "reason": why}
    if comps is None:
        comps = build(prop, c, settings, metric_id)
    metric = M.get(metric_id)
    params = settings.metric_params()
    best = None  # (base index, comparison, position, score a, score b)
    total = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        for comp in comps:
            if not len(comp.b):
                continue
            total += len(comp.b)
            if comp.a is None:
                if domain_scores is None:
                    domain_scores = np.asarray(metric(c.astype(np.float64), **params), dtype=float)
                sa = domain_scores[comp.base]
            else:
                sa = np.asarray(metric(comp.a, **params, **comp.params_a), dtype=float)
            sb = np.asarray(metric(comp.b, **params, **comp.params_b), dtype=float)
            bad = np.flatnonzero(_violations(sa, sb, comp.relation, metric.higher_is_better))
            if bad.size and (best is None or comp.base[bad[0]] < best[0]):
                p = bad[0]
                best = (comp.base[p], comp, p, float(sa[p]), float(sb[p]))
    if total == 0:
        return {"result": "not applicable", "counterexample": "", "comparisons": 0,
                "reason": "no matrix of the domain meets the property's condition"}
    if best is None:
        return {"result": "holds", "counterexample": "", "comparisons": total, "reason": ""}
    _, comp, p, sa, sb = best
    a = c[comp.base[p]] if comp.a is None else comp.a[p]
    return {"result": "fails", "counterexample": _counterexample(comp, a, p, sa, sb), "comparisons": total,
            "reason": ""}


def build(prop: Property, c: np.ndarray, settings: PropertySettings, metric_id: str | None = None) -> list[Comparisons]:
    """The comparisons of a property on the domain matrices ``c`` (the
    non-target cells depend on the metric's target classes).

    Examples
    --------
    >>> st = PropertySettings(n_max=3, random=0)
    >>> comps = build(PROPERTIES["symmetry"], domain_matrices(st), st)
    >>> comps[0].relation, len(comps[0].b) > 0
    ('eq', True)
    """
    return prop.build(c, settings, metric_id) if prop.id == "non_target_change" else prop.build(c, settings)


def recheck(metric_id: str, counterexample: str, settings: PropertySettings) -> bool:
    """Whether a printed counterexample is one: its matrices, scored afresh, violate its relation.

    Parameters
    ----------
    metric_id : str
    counterexample : str
        The JSON of a ``check`` result.
    settings : PropertySettings

    Returns
    -------
    bool
        True when the scores printed are the scores and they violate the relation.

    Examples
    --------
    >>> st = PropertySettings(n_max=4, random=50)
    >>> r = check("gmr", PROPERTIES["monotonicity"], domain_matrices(st), st)
    >>> recheck("gmr", r["counterexample"], st)
    True
    """
    ce = json.loads(counterexample)
    metric = M.get(metric_id)
    params = settings.metric_params()
    pa = {k: np.asarray(v) for k, v in ce.get("params_a", {}).items()}
    pb = {k: np.asarray(v) for k, v in ce.get("params_b", {}).items()}
    with np.errstate(invalid="ignore", divide="ignore"):
        sa = float(metric(np.asarray(ce["a"], float), **params, **pa))
        sb = float(metric(np.asarray(ce["b"], float), **params, **pb))
    same = np.allclose([sa, sb], [ce["score_a"], ce["score_b"]], rtol=1e-12, atol=1e-12, equal_nan=True)
    return same and bool(_violations(np.array([sa]), np.array([sb]), ce["relation"], metric.higher_is_better)[0])


def check_all(settings: PropertySettings, metric_ids: Sequence[str] | None = None,
              property_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Every classification metric against every formal property.

    Parameters
    ----------
    settings : PropertySettings
        The domain (``n_max``, ``random``, ...) and the metric parameters.
    metric_ids : sequence of str, optional
        Default: every metric of the registry.
    property_ids : sequence of str, optional
        Default: every property of ``PROPERTIES``.

    Returns
    -------
    pandas.DataFrame
        ``metric, property, result, counterexample, comparisons, reason,
        published, agrees, source``: ``published`` is what the papers state
        (holds / fails / empty), ``agrees`` whether our result matches it.

    Examples
    --------
    >>> df = check_all(PropertySettings(n_max=4, random=50), ["accuracy", "kappa"], ["monotonicity", "class_exchange"])
    >>> df[["metric", "property", "result", "published"]]
         metric        property result published
    0  accuracy    monotonicity  holds     holds
    1  accuracy  class_exchange  holds     holds
    2     kappa    monotonicity  holds     fails
    3     kappa  class_exchange  holds

    With matrices of up to 4 items kappa is monotone; the default domain
    (up to 8 items, and random matrices of systems worse than chance) finds
    the counterexample the paper states.
    """
    metric_ids = list(metric_ids or M.METRIC_IDS)
    props = [PROPERTIES[p] for p in (property_ids or PROPERTIES)]
    c = domain_matrices(settings)
    built = {p.id: build(p, c, settings) for p in props if p.id != "non_target_change"}
    params = settings.metric_params()
    rows = []
    for mid in metric_ids:
        with np.errstate(invalid="ignore", divide="ignore"):
            domain = np.asarray(M.get(mid)(c.astype(np.float64), **params), dtype=float)
        for prop in props:
            r = check(mid, prop, c, settings, built.get(prop.id), domain)
            pub = PUBLISHED.get((mid, prop.id))
            published = "" if pub is None else ("holds" if pub[0] else "fails")
            agrees = "" if pub is None or r["result"] == "not applicable" else \
                ("yes" if (r["result"] == "holds") == pub[0] else "no")
            rows.append({"metric": mid, "property": prop.id, **r, "published": published, "agrees": agrees,
                         "source": pub[1] if pub else prop.source})
    cols = ["metric", "property", "result", "counterexample", "comparisons", "reason", "published", "agrees",
            "source"]
    return pd.DataFrame(rows, columns=cols)


def dataset_settings(spec, class_sizes, base: PropertySettings | None = None) -> PropertySettings:
    """The shape of a dataset (``config.DatasetSpec``) for the property
    checks: its number of classes, ordered or not, its default class
    weights (uniform without any), its F_avg classes and FNC-1 unrelated
    class, and its gold class counts ``class_sizes`` (for imbalance); the
    domain's sizes and seed from ``base`` (the ``properties`` block).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> spec = SimpleNamespace(k=2, ordinal=False, metric_params=lambda: {"weights": None, "f_avg_classes": [1],
    ...                                                                   "unrelated": None})
    >>> s = dataset_settings(spec, [90, 10])
    >>> s.k, s.ordinal, s.weights, s.f_avg_classes, s.unrelated, s.class_sizes
    (2, False, (0.5, 0.5), (1,), None, (90, 10))
    """
    from dataclasses import replace

    params = spec.metric_params()
    k = int(spec.k)
    w = params.get("weights")
    weights = tuple(float(x) for x in w) if w is not None else tuple([1.0 / k] * k)
    f_avg = tuple(int(x) for x in params["f_avg_classes"]) if params.get("f_avg_classes") else (0,)
    unrelated, positive = params.get("unrelated"), params.get("positive")
    return replace(base or PropertySettings(), k=k, ordinal=bool(spec.ordinal), weights=weights, f_avg_classes=f_avg,
                   unrelated=None if unrelated is None else int(unrelated), positive=int(positive or 0),
                   class_sizes=tuple(int(x) for x in class_sizes))
