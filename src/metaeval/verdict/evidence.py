"""The verdict: which metrics the evidence keeps, with the error rate
controlled (METHODS 9; it supersedes section 8's Tiered Pareto Selection).

**Requirements and evidence are different things.**  A *requirement* is a
yes/no fact about a metric on this dataset's shape (a formal property by
name, checked on the dataset's own number of classes, order, weights and
class sizes; invariance to class priors is the property
``uniform_class_change``).  It restricts the candidates only when the user
declares it.  *Evidence* is measured on the data with sampling uncertainty:
rank stability, class discrimination (ordered classes), discriminative
power, robustness to label noise, and robustness to class priors among the
metrics that are not invariant by construction (those are exempt from that
criterion: 1 exactly, no uncertainty).  Only evidence names the answer.

**Per criterion** the Model Confidence Set (``metaeval.verdict.mcs``) of the
admissible candidates on shared replicates; **across criteria**
Bonferroni: with C criteria that count (those with at least two distinct
candidates), each set is taken at ``alpha / C``, so that with probability at
least ``1 - alpha`` every set contains its criterion's best at once.  The
answer is the intersection: the candidates kept on every criterion they
take part in.  One metric: it is named; several: the evidence does not
separate them; none: no metric is among the best on every criterion, and
none is named.  No tie is broken by a criterion without uncertainty.
Adding candidates can only widen a set (the price of error control);
copies of a metric are one candidate.

**Two scopes** (METHODS 9.7), from the two resampling schemes of
``metaeval.verdict.criteria``: *these systems* (the test units resampled, the
systems kept: which metric ranks the submitted systems most reliably, the
question of choosing the metric for this leaderboard) and *new systems*
(units and systems resampled together: which metric would serve systems
like these).

**Monte Carlo error.**  An MCS p-value is estimated from B resamples;
one near the level flips from seed to seed (on rumoureval2017, p-values of
0.008 to 0.02 against the level 0.0125 moved three metrics in and out of the
priors' set between seeds at B = 500).  A candidate is therefore eliminated
only when the resamples leave no doubt: when the upper end of its p-value's
95 % Monte Carlo interval, ``p + 1.96 sqrt(p (1 - p) / B)``, is below the
level (the resampling risk bounded as in Gandy 2009, JASA 104(488)); the
error control of the sets is kept, at the price of a little power.

Everything here is a function of arrays: point values (C, M), replicates
(B, C, M), masks (M,) or (C, M).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from .mcs import copy_groups, critical_value, model_confidence_set
from ..settings import SCOPES, default_of
from .criteria import REGISTRY

__all__ = ["EVIDENCE", "SCOPES", "SCHEME", "EvidenceSets", "evidence_sets", "mc_upper", "Separation",
           "closest_pair", "units_needed", "systems_needed", "paired_interval", "MIN_EXPONENT"]

# the evidence criteria, in the order they are shown (the registry's: metaeval.verdict.criteria)
EVIDENCE = tuple(REGISTRY)
# the two questions, and the resampling scheme (metaeval.verdict.criteria) that answers each
SCHEME = dict(zip(SCOPES, ("items", "both")))


@dataclass(frozen=True)
class EvidenceSets:
    """The evidence sets of one scope.

    ``criteria`` (C,); ``participants`` (C, M): the admissible candidates
    with a value on the criterion that are not exempt from it;
    ``counted`` (C,): the criteria with at least two distinct participants
    (those are tested, and Bonferroni counts them); ``p_value`` (C, M): the
    MCS p-values (NaN for non-participants; 1 on a criterion not counted);
    ``p_upper`` (C, M): the upper end of their Monte Carlo interval at
    ``mc_level``;
    ``members`` (C, M): kept at ``alpha_c`` (``p_upper >= alpha_c``: the
    resamples leave no doubt about an elimination); ``answer`` (M,): admissible
    and kept on every counted criterion it takes part in; ``critical``
    (C,): the critical value of the range statistic among each criterion's
    set (what a pair's |t| must reach to be separated)."""

    criteria: tuple[str, ...]
    alpha: float
    alpha_c: float
    admissible: np.ndarray
    participants: np.ndarray
    counted: np.ndarray
    p_value: np.ndarray
    members: np.ndarray
    answer: np.ndarray
    critical: np.ndarray
    p_upper: np.ndarray | None = None
    mc_level: float = default_of("verdict_mc_level")

    @property
    def separable(self) -> bool:
        """False when every participant is kept on every counted criterion."""
        return bool((self.participants & ~self.members)[self.counted].any())


def mc_upper(p, replicates: int, level: float = default_of("verdict_mc_level")) -> np.ndarray:
    """The upper end of the two-sided ``level`` Monte Carlo interval of
    p-values estimated from ``replicates`` resamples,
    ``p + z sqrt(p (1 - p) / B)`` with ``z`` the normal quantile of
    ``(1 + level) / 2`` (1.96 at 0.95; 0 at level 0: the p-value itself).
    NaN stays NaN.

    Examples
    --------
    >>> mc_upper([0.004, 0.02], 500).round(4).tolist()
    [0.0095, 0.0323]
    >>> mc_upper([0.004, 0.02], 500, level=0).tolist()
    [0.004, 0.02]
    """
    z = float(ndtri(0.5 + level / 2))
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.minimum(1.0, p + z * np.sqrt(np.clip(p * (1 - p), 0, None) / max(int(replicates), 1)))


def evidence_sets(value, boot, admissible, alpha: float, exempt=None, criteria=EVIDENCE,
                  mc_level: float = default_of("verdict_mc_level")) -> EvidenceSets:
    """Per criterion, the Model Confidence Set of the admissible candidates
    at ``alpha / C``, and their intersection.

    Parameters
    ----------
    value : array_like, shape (C, M)
        Point values of the criteria, higher is better (NaN: none).
    boot : array_like, shape (B, C, M)
        Replicates on shared resamples (NaN: undefined in a replicate).
    admissible : array_like of bool, shape (M,)
        The candidates (not vetoed, meeting the declared requirements).
    alpha : float
        The family's level: every criterion's set at ``alpha / C``.
    exempt : array_like of bool, shape (C, M), optional
        Candidates a criterion does not judge (the metrics invariant to the
        class priors by construction, on the priors criterion).
    criteria : sequence of str
        The criteria's names (rows).
    mc_level : float
        A candidate is eliminated only when the upper end of its MCS
        p-value's Monte Carlo interval at this level (``mc_upper``) is
        below ``alpha / C``.

    Returns
    -------
    EvidenceSets

    Examples
    --------
    Two criteria, three candidates; the third is clearly worse on the first:

    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.8, 0.8, 0.6], [0.5, 0.5, 0.5]])
    >>> boot = value + 0.01 * rng.normal(size=(300, 2, 3))
    >>> s = evidence_sets(value, boot, [True, True, True], 0.05, criteria=("stability", "power"))
    >>> s.alpha_c, s.members.tolist(), s.answer.tolist()
    (0.025, [[True, True, False], [True, True, True]], [True, True, False])
    """
    v = np.asarray(value, dtype=np.float64)
    b = np.asarray(boot, dtype=np.float64)
    c_n, m = v.shape
    if b.ndim != 3 or b.shape[1:] != v.shape:
        raise ValueError(f"boot must be (B, {c_n}, {m}), got {b.shape}")
    adm = np.asarray(admissible, dtype=bool)
    ex = np.zeros((c_n, m), bool) if exempt is None else np.asarray(exempt, dtype=bool)
    part = adm[None, :] & np.isfinite(v) & ~ex
    counted = np.array([np.unique(copy_groups(v[c], b[:, c], part[c])[part[c]]).size >= 2 for c in range(c_n)],
                       dtype=bool)
    alpha_c = alpha / max(1, int(counted.sum()))
    p = np.where(part, 1.0, np.nan)
    crit = np.full(c_n, np.nan)
    upper = np.where(part, 1.0, np.nan)
    for c in np.flatnonzero(counted):  # a loop over the criteria
        p[c] = model_confidence_set(v[c], b[:, c], part[c]).p_value
        upper[c] = mc_upper(p[c], int((~np.isnan(b[:, c][:, part[c]])).any(axis=1).sum()), mc_level)
        crit[c] = critical_value(v[c], b[:, c], np.nan_to_num(upper[c], nan=-1) >= alpha_c, alpha_c)
    members = part & (np.nan_to_num(upper, nan=-1.0) >= alpha_c)
    # with no criterion at all there is no evidence, and no answer
    answer = adm & (members | ~part)[counted].all(axis=0) if c_n else np.zeros(m, bool)
    return EvidenceSets(tuple(criteria), float(alpha), float(alpha_c), adm, part, counted, p, members, answer,
                        crit, upper, float(mc_level))


def paired_interval(value, boot, i: int, j: int, level: float) -> tuple[float, float, float, float]:
    """``(d, low, high, se)``: the difference ``value[i] - value[j]`` of one
    criterion, its normal interval at ``level`` from the paired standard
    error over the replicates (the MCS's own t-statistics' scale).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> boot = np.array([0.7, 0.5]) + 0.05 * rng.normal(size=(2000, 2))
    >>> d, lo, hi, se = paired_interval([0.7, 0.5], boot, 0, 1, 0.95)
    >>> round(d, 2), round(se, 3), lo < d < hi
    (0.2, 0.072, True)
    """
    from scipy.special import ndtri

    v = np.asarray(value, dtype=np.float64)
    b = np.asarray(boot, dtype=np.float64)
    diff = b[:, i] - b[:, j]
    diff = diff[~np.isnan(diff)]
    se = float(np.std(diff, ddof=1)) if diff.size > 1 else float("nan")
    d = float(v[i] - v[j])
    z = float(ndtri(0.5 + level / 2))
    return d, d - z * se, d + z * se, se


@dataclass(frozen=True)
class Separation:
    """The pair of answer members closest to being separated: on
    ``criterion`` (row ``c``), metrics ``i`` and ``j`` (``i`` ahead),
    their difference ``d`` with its paired standard error ``se``, ``t =
    d / se`` and the ``critical`` value |t| must reach."""

    c: int
    criterion: str
    i: int
    j: int
    d: float
    se: float
    t: float
    critical: float


def closest_pair(sets: EvidenceSets, value, boot) -> Separation | None:
    """Among the members of the answer (two or more), the pair and counted
    criterion whose |t| comes closest to the criterion's critical value from
    below; None when the answer has fewer than two distinct members or none
    of its pairs has a spread and a |t| below the critical value.  A pair at
    or above it is separated already: both stay only within the Monte Carlo
    doubt of the resamples (``mc_upper``), which more resamples resolve, not
    more test items.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.79, 0.70]])
    >>> boot = value + 0.02 * rng.normal(size=(400, 1, 3))
    >>> s = evidence_sets(value, boot, [True, True, True], 0.05, criteria=("stability",))
    >>> p = closest_pair(s, value, boot)
    >>> p.criterion, p.i, p.j, p.t < p.critical
    ('stability', 0, 1, True)
    """
    v = np.asarray(value, dtype=np.float64)
    b = np.asarray(boot, dtype=np.float64)
    best, best_ratio = None, -1.0
    for c in np.flatnonzero(sets.counted):  # a loop over the criteria and the answer's pairs (a few)
        idx = np.flatnonzero(sets.answer & sets.participants[c])
        groups = copy_groups(v[c], b[:, c], np.isin(np.arange(v.shape[1]), idx))
        idx = idx[groups[idx] == idx]  # one per copy
        crit = sets.critical[c]
        if idx.size < 2 or not np.isfinite(crit) or crit <= 0:
            continue
        for a_ in range(idx.size):
            for z_ in range(a_ + 1, idx.size):
                i, j = idx[a_], idx[z_]
                if v[c, j] > v[c, i]:
                    i, j = j, i
                d, _, _, se = paired_interval(v[c], b[:, c], i, j, 0.95)
                if not se > 0:
                    continue
                ratio = abs(d) / se / crit
                if best_ratio < ratio < 1:
                    best_ratio = ratio
                    best = Separation(int(c), sets.criteria[c], int(i), int(j), d, se, d / se, float(crit))
    return best


# below this exponent the paired standard error does not measurably shrink with more units
MIN_EXPONENT = 0.05


def units_needed(sep: Separation, n_units: int, exponent: float = 0.5) -> float:
    """The test units at which the pair's observed difference would reach
    the critical value, the systems kept: ``n (critical / |t|)^(1 /
    exponent)``, the paired standard error shrinking as ``n^-exponent``.
    The textbook exponent is 1/2; on the rank-based criteria of real data
    it is smaller (``benchmarks/bench_verdict.py``: 0.1 to 0.3), so the
    recommendation measures it on a random half of the dataset's own units
    (``recommend.recommend_dataset``).  inf without a difference, or with
    an exponent below ``MIN_EXPONENT`` (more units would not separate the
    pair).

    Examples
    --------
    >>> units_needed(Separation(0, "stability", 0, 1, 0.02, 0.02, 1.0, 2.5), 1000)
    6250.0
    >>> int(units_needed(Separation(0, "stability", 0, 1, 0.02, 0.02, 1.0, 2.5), 1000, exponent=0.25))
    39062
    """
    if sep.d == 0 or not exponent > MIN_EXPONENT:
        return float("inf")
    return float(n_units * (sep.critical / abs(sep.t)) ** (1.0 / exponent))


def systems_needed(sep: Separation, se_items: float, se_both: float, n_systems: int) -> float:
    """The systems at which the pair's observed difference would reach the
    critical value at this test-set size, the units kept: the paired
    variance of resampling units and systems together is split into the
    units' part ``se_items^2`` and the systems' part ``se_both^2 -
    se_items^2``, the latter taken to shrink as ``1 / S``; inf when the
    units' part alone keeps the difference below the critical value.  An
    upper estimate: on fnc1's real systems, halving them raised the
    systems' part of the standard error by 1.5 to 1.8 times (1/S: 1.37)
    and the units' part too (``benchmarks/bench_verdict.py``).

    Examples
    --------
    >>> sep = Separation(0, "power", 0, 1, 0.1, 0.05, 2.0, 2.5)
    >>> round(systems_needed(sep, 0.02, 0.05, 10), 1)
    17.5
    """
    sys_var = max(se_both ** 2 - se_items ** 2, 0.0)
    room = (sep.d / sep.critical) ** 2 - se_items ** 2
    if room <= 0:
        return float("inf")
    return float(sys_var * n_systems / room)
