"""Statistical meta-evaluation: intervals on every score, significance
between every pair of systems, discriminative power of every metric.

Every metric is recomputed from resampled confusion tensors (and per-article
span statistics), so the methods hold for metrics that do not decompose over
items (macro-F1, GMR, kappa, alpha, CEM-ORD), which per-topic tools (MATTERS,
Sakai's scripts, ranx) cannot resample.

1. **Bootstrap intervals** (Efron & Tibshirani 1993): B replicates, each
   drawing N units with replacement (items, or whole groups: the cluster
   bootstrap), the same replicates for every system (paired) and every
   metric.  Percentile interval [q(a/2), q(1-a/2)] of the replicates'
   scores; or BCa (bias-corrected and accelerated, E&T eq. 14.9-14.15): the
   quantile levels are moved by the bias
   z0 = Phi^-1((#{theta_b < theta} + 0.5 #{theta_b = theta}) / B), a
   replicate equal to the estimate counting one half (metrics of confusion
   counts are discrete, so ties are common), and the acceleration from the
   jackknife (leave one unit out), a = sum(m - t_i)^3 / (6 (sum(m - t_i)^2)^1.5).
2. **Randomised Tukey HSD** (``tukey_test``; Carterette 2012; Sakai,
   *Statistical Reform in Information Retrieval?*, 2014).  Null hypothesis:
   within every unit (item or group) the systems' outputs are exchangeable
   (which system produced which output is arbitrary): Noreen's (1989) and
   Yeh's (2000) approximate randomisation, extended from two systems to S
   with the range statistic.  In each of T trials the outputs of every unit
   are permuted across the systems (one uniformly random permutation per
   unit and trial, ``resample.permutations``), every metric is recomputed
   from the permuted outputs, and the trial records, per metric, the range
   R_t = largest minus smallest score over the systems.  A pair's p-value is
   p = #{t : R_t >= |d|} / T (Sakai's count / T, no +1; p = 0 means below
   1 / T), family-wise over all pairs by construction.  Every metric uses
   the same trials.  A trial in which a system's score is undefined (NaN)
   for a metric is left out for that metric (``tukey_test`` says why).
3. **Paired bootstrap test** (the ``significance_test: bootstrap`` option,
   ``bootstrap_test``): the unstudentised shift method (Efron & Tibshirani
   1993, sec. 16.4; Berg-Kirkpatrick et al. 2012), p = #{|d_b - d| >= |d|} / B,
   per pair; not Sakai's (2006) studentised test.  Its p-values are adjusted
   for the number of pairs (``significance_correction``: Holm by default,
   Benjamini-Hochberg, or none).
4. **Discriminative power** (Sakai 2006): per metric, the share of system
   pairs significantly different at ``alpha`` (p < alpha, strictly), with
   the test and correction that produced it, the trials used, the pairs
   whose verdict is within Monte Carlo error of alpha, the smallest
   difference found significant and Sakai's estimated difference required.
   Every p-value comes with its Monte Carlo standard error sqrt(p(1-p)/T).
5. **Uncertainty of the meta-evaluation**: percentile intervals of Kendall's
   tau (tau-b by default, ``tau_variant``) between every two metrics'
   rankings over the bootstrap replicates.

Differences, ties and the "same score" of two systems follow the ranking
convention (``ranking.TIE_DECIMALS``): values equal to 12 decimals are
equal, so identical systems never differ significantly (p = 1).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..engine.ranking import TIE_DECIMALS, kendall_tau, orient, system_pairs, tau_matrix
from ..engine.progress import report
from ..engine.resample import bootstrap_weights, chunk_indices, count_dtype
from ..settings import default_of

__all__ = ["bootstrap_scores", "intervals", "CORRECTIONS", "TUKEY_CORRECTION", "BORDERLINE_Z", "PairTests",
           "significant", "monte_carlo_se", "holm", "benjamini_hochberg", "adjust", "tukey_ranges", "tukey_test",
           "tukey_pvalues", "bootstrap_pvalues", "bootstrap_difference_required", "bootstrap_test", "pair_table",
           "best_groups", "discriminative_power", "similarity_intervals", "run_bootstrap", "run_significance"]


# ---------------------------------------------------------------------------
# 1. bootstrap
# ---------------------------------------------------------------------------
def bootstrap_scores(scorer, replicates: int, seed: int, chunk_size: int = default_of("chunk_size")) -> np.ndarray:
    """Every metric's score of every system on B bootstrap replicates.

    Parameters
    ----------
    scorer : metaeval.methods.experiments.Scorer
        The systems and metrics, and the resampling unit: items, or whole
        groups (the cluster bootstrap).
    replicates : int
        B.
    seed : int
        The draws are counter-based (``resample.bootstrap_weights``): the same
        seed gives the same replicates whatever ``chunk_size``.
    chunk_size : int, default 200
        Replicates per vectorised chunk (memory bound only).

    Returns
    -------
    ndarray, shape (B, M, S)
        Raw (not oriented) scores; every system is scored on the same
        replicates (paired).

    Examples
    --------
    >>> import numpy as np
    >>> from metaeval.api import dataset
    >>> from metaeval.methods.scorer import Scorer
    >>> ds, spec = dataset(list("aabbbccc"), {"x": list("aabbcccc"), "y": list("abbbbccc")}, metrics=["accuracy"])
    >>> boot = bootstrap_scores(Scorer(ds, spec, [0, 1], "item"), 500, seed=1)
    >>> boot.shape
    (500, 1, 2)
    >>> bool((boot >= 0).all() and (boot <= 1).all())
    True
    """
    out = []
    for idx in chunk_indices(np.arange(replicates), chunk_size, scorer.n_units * 4):
        w = bootstrap_weights(scorer.n_units, idx, seed, pos=scorer.draw_pos, dtype=np.float32)
        out.append(scorer.score(scorer.counts(w, engine_order=True)))
        report(int(idx[-1]) + 1, replicates, "bootstrap replicates")
    return np.concatenate(out)


def _norm_ppf(p):
    from scipy.special import ndtri

    return ndtri(p)


def _norm_cdf(x):
    from scipy.special import ndtr

    return ndtr(x)


def intervals(value: np.ndarray, boot: np.ndarray, confidence: float = default_of("confidence"), method: str = "percentile",
              jackknife: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap confidence intervals of every score.

    Parameters
    ----------
    value : ndarray, shape (M, S)
        The scores on all the data.
    boot : ndarray, shape (B, M, S)
        The scores on B bootstrap replicates (``bootstrap_scores``).
    confidence : float, default 0.95
    method : {"percentile", "bca"}, default "percentile"
    jackknife : ndarray, shape (U, M, S), optional
        Leave-one-unit-out scores, needed by ``bca``.

    Returns
    -------
    (ndarray, ndarray)
        ``low`` and ``high``, each shaped like ``value``.  NaN replicates are
        left out; a score undefined on every replicate has a NaN interval.

    Notes
    -----
    Percentile: [q(a/2), q(1 - a/2)] of the replicates, a = 1 - confidence,
    linear interpolation between order statistics (``numpy.quantile``).

    BCa (Efron & Tibshirani 1993, eq. 14.9-14.15): the levels
    Phi(z0 + (z0 + z_q) / (1 - a (z0 + z_q))) for q = a/2, 1 - a/2, with
    z0 = Phi^-1((#{theta_b < theta} + #{theta_b = theta} / 2) / B): a replicate
    equal to the estimate counts one half (scores of confusion counts are
    discrete and often tie with the estimate; counting ties as "below" or
    "above" would bias z0).  The share is clipped to [1/(2B), 1 - 1/(2B)] so
    that z0 stays finite.  The acceleration is the jackknife's
    sum(m - t_i)^3 / (6 (sum(m - t_i)^2)^1.5).

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13-14.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])             # 1 metric x 3 systems
    >>> boot = value + rng.normal(0, 0.03, (1000, 1, 3))   # 1,000 replicates
    >>> low, high = intervals(value, boot, 0.95)
    >>> low.round(2).tolist(), high.round(2).tolist()
    ([[0.74, 0.55, 0.53]], [[0.86, 0.66, 0.65]])
    """
    a = 1.0 - confidence
    with np.errstate(invalid="ignore"):
        if method == "percentile":
            return _nanquantile(boot, [a / 2, 1 - a / 2])
        if method != "bca":
            raise ValueError(f"interval method must be 'percentile' or 'bca', got {method!r}")
        if jackknife is None:
            raise ValueError("BCa intervals need the jackknife scores")
        n_ok = np.sum(~np.isnan(boot), axis=0)
        below = np.sum(boot < value, axis=0) + 0.5 * np.sum(boot == value, axis=0)
        # keep z0 finite when every replicate is on one side (a discrete statistic)
        share = np.clip(below / np.maximum(n_ok, 1), 0.5 / np.maximum(n_ok, 1), 1 - 0.5 / np.maximum(n_ok, 1))
        z0 = _norm_ppf(share)
        d = np.nanmean(jackknife, axis=0) - jackknife
        num, den = np.nansum(d ** 3, axis=0), 6.0 * np.nansum(d ** 2, axis=0) ** 1.5
        acc = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
        levels = [_norm_cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))) for z in _norm_ppf([a / 2, 1 - a / 2])]
        return _nanquantile(boot, levels)


def _nanquantile(boot: np.ndarray, q) -> tuple[np.ndarray, np.ndarray]:
    """Per-cell quantiles of (B, ...) replicates at two levels ``q``: two
    scalars, or two arrays shaped like a cell grid (BCa); linear
    interpolation between order statistics, NaN replicates left out."""
    b = np.sort(boot, axis=0)  # NaNs sort last
    n = np.sum(~np.isnan(boot), axis=0)
    out = []
    for level in q:
        pos = np.asarray(level, dtype=float) * np.maximum(n - 1, 0)
        i0 = np.floor(pos).astype(np.int64)
        i1 = np.minimum(i0 + 1, np.maximum(n - 1, 0))
        v0 = np.take_along_axis(b, i0[None], axis=0)[0]
        v1 = np.take_along_axis(b, i1[None], axis=0)[0]
        out.append(np.where(n > 0, v0 + (pos - i0) * (v1 - v0), np.nan))
    return out[0], out[1]


# ---------------------------------------------------------------------------
# 2-4. significance between systems, discriminative power
# ---------------------------------------------------------------------------
CORRECTIONS = ("holm", "bh", "none")
# what the Tukey test's p-values need: the range statistic makes them family-wise
TUKEY_CORRECTION = "none (family-wise by the range statistic)"
# the two-sided 99 % normal quantile: a pair is borderline when its verdict
# changes as its p-value moves this many Monte Carlo standard errors
BORDERLINE_Z = 2.576


def _rounded(x):
    return np.round(np.asarray(x, dtype=np.float64), TIE_DECIMALS)


def significant(p, alpha: float) -> np.ndarray:
    """The verdict of every test: ``p < alpha``, strictly.

    Parameters
    ----------
    p : array_like
        p-values; NaN (an undefined test) is never significant.
    alpha : float

    Returns
    -------
    ndarray of bool

    Notes
    -----
    Strict, as Sakai's ASL < alpha: a p-value equal to alpha is not significant.

    Examples
    --------
    >>> significant([0.01, 0.05, float("nan")], 0.05).tolist()
    [True, False, False]
    """
    with np.errstate(invalid="ignore"):
        return np.asarray(p, dtype=np.float64) < alpha


def monte_carlo_se(p, n) -> np.ndarray:
    """Monte Carlo standard error of a p-value estimated from random trials.

    Parameters
    ----------
    p : array_like
        p-values estimated as a share of ``n`` trials (or replicates).
    n : array_like
        The trials used.

    Returns
    -------
    ndarray
        sqrt(p (1 - p) / n), the binomial standard error; NaN where n = 0 or p
        is NaN.  It is 0 at p = 0 and p = 1, where the true p-value may still
        be up to about 3 / n away.

    Examples
    --------
    >>> monte_carlo_se([0.05, 0.5], 5000).round(5).tolist()
    [0.00308, 0.00707]
    """
    p, n = np.asarray(p, dtype=np.float64), np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(n > 0, np.sqrt(p * (1.0 - p) / np.where(n > 0, n, 1.0)), np.nan)


def _count_below(alpha: float, n) -> np.ndarray:
    """The largest count c with c / n < alpha (n >= 1), computed as the
    p-values are (a share in float64), so that p = c / n is significant and
    (c + 1) / n is not."""
    nf = np.maximum(np.asarray(n, dtype=np.int64), 1).astype(np.float64)
    c = np.floor(alpha * nf)
    c = np.where(c / nf >= alpha, c - 1, c)  # alpha * n rounded up in float64
    c = np.where((c + 1) / nf < alpha, c + 1, c)
    return c.astype(np.int64)


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error rate).

    Parameters
    ----------
    p : array_like, shape (..., m)
        A family of p-values along the last axis; NaN ones are left out of the
        family and stay NaN.

    Returns
    -------
    ndarray, shaped like ``p``

    Notes
    -----
    p~_(k) = min(1, max_{j <= k} (m - j + 1) p_(j)), with the p-values sorted
    increasingly and m the number of defined p-values.  Controls the
    family-wise error rate under any dependence; rejecting p~ < alpha is Holm's
    procedure at alpha.

    References
    ----------
    Holm (1979), "A simple sequentially rejective multiple test procedure".

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.20]).round(2).tolist()
    [0.04, 0.09, 0.09, 0.2]
    """
    p = np.asarray(p, dtype=np.float64)
    order = np.argsort(p, axis=-1, kind="stable")  # NaN last
    ps = np.take_along_axis(p, order, axis=-1)
    m = np.sum(~np.isnan(p), axis=-1, keepdims=True)
    k = np.arange(p.shape[-1])  # 0-based rank: multiplier m - k
    adj = np.minimum(1.0, np.maximum.accumulate((m - k) * ps, axis=-1))  # NaN only after the defined ones
    out = np.empty_like(p)
    np.put_along_axis(out, order, adj, axis=-1)
    return out


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini & Hochberg's step-up adjusted p-values (false discovery rate).

    Parameters
    ----------
    p : array_like, shape (..., m)
        A family of p-values along the last axis; NaN ones are left out and
        stay NaN.

    Returns
    -------
    ndarray, shaped like ``p``

    Notes
    -----
    p~_(k) = min_{j >= k} min(1, m p_(j) / j), m the number of defined
    p-values.  Controls the false discovery rate under independence or positive
    dependence (PRDS); equal to ``scipy.stats.false_discovery_control`` on a
    NaN-free family (tested).

    References
    ----------
    Benjamini & Hochberg (1995), "Controlling the false discovery rate".

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03, 0.20]).round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.2]
    """
    p = np.asarray(p, dtype=np.float64)
    order = np.argsort(p, axis=-1, kind="stable")
    ps = np.take_along_axis(p, order, axis=-1)
    m = np.sum(~np.isnan(p), axis=-1, keepdims=True)
    q = m * ps / np.arange(1, p.shape[-1] + 1)
    # the minimum from the right, NaN (at the end) ignored by fmin
    adj = np.minimum(1.0, np.flip(np.fmin.accumulate(np.flip(q, axis=-1), axis=-1), axis=-1))
    out = np.empty_like(p)
    np.put_along_axis(out, order, np.where(np.isnan(ps), np.nan, adj), axis=-1)
    return out


def adjust(p, correction: str) -> np.ndarray:
    """p-values adjusted for multiplicity over the last axis.

    Parameters
    ----------
    p : array_like, shape (..., m)
        The family: all pairs of systems of one metric.
    correction : {"holm", "bh", "none"}

    Returns
    -------
    ndarray

    Examples
    --------
    >>> adjust([0.01, 0.04], "holm").tolist(), adjust([0.01, 0.04], "none").tolist()
    ([0.02, 0.04], [0.01, 0.04])
    """
    if correction == "holm":
        return holm(p)
    if correction == "bh":
        return benjamini_hochberg(p)
    if correction in ("none", TUKEY_CORRECTION):
        return np.asarray(p, dtype=np.float64)
    raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")


@dataclass(frozen=True)
class PairTests:
    """Every pair of systems tested, per metric (pairs in ``ranking.system_pairs`` order).

    ``p`` (M, P): the unadjusted p-values; ``n`` (M, P): the trials (or
    replicates) each was estimated from; ``required`` (M,): Sakai's
    estimated difference required for significance; ``test``: ``tukey`` or
    ``bootstrap``; ``correction``: what the verdicts use (``holm``, ``bh``,
    ``none``; ``TUKEY_CORRECTION`` for the Tukey test, whose p-values are
    family-wise already).

    Examples
    --------
    >>> import numpy as np
    >>> t = tukey_test(np.array([[0.9, 0.5, 0.6]]), np.array([[[0.6, 0.7, 0.5]], [[0.3, 0.8, 0.4]]]))
    >>> t.test, t.p.tolist(), t.se.round(3).tolist()
    ('tukey', [[0.5, 0.5, 1.0]], [[0.354, 0.354, 0.0]])
    >>> t.borderline(0.05).tolist()     # 2 trials: nothing is settled
    [[True, True, False]]
    """

    test: str
    correction: str
    p: np.ndarray
    n: np.ndarray
    required: np.ndarray

    @property
    def se(self) -> np.ndarray:
        """Monte Carlo standard error of every p-value."""
        return monte_carlo_se(self.p, self.n)

    def adjusted(self, correction: str | None = None, p=None) -> np.ndarray:
        """``p`` (default: these p-values) adjusted by ``correction``
        (default: this test's), over each metric's pairs; the Tukey test's
        p-values stay as they are whatever ``correction`` (family-wise)."""
        p = self.p if p is None else np.asarray(p, dtype=np.float64)
        return p if self.test == "tukey" else adjust(p, correction or self.correction)

    @property
    def decisive(self) -> np.ndarray:
        """The p-values the verdicts (p < alpha) are taken on."""
        return self.adjusted()

    @property
    def decisive_column(self) -> str:
        """The column of ``pair_table`` that holds ``decisive``."""
        return "p_value" if self.test == "tukey" or self.correction == "none" else f"p_{self.correction}"

    def borderline(self, alpha: float, z: float = BORDERLINE_Z) -> np.ndarray:
        """(M, P) booleans: the pairs whose verdict is not settled by the
        trials drawn.  Every p-value is moved ``z`` Monte Carlo standard
        errors down, then up (within [0, 1]); a pair is borderline when it
        is significant at the first and not at the second (adjusted
        p-values are non-decreasing in every raw p-value, so no p-vector in
        that box gives a verdict outside the two).  Unadjusted, this is
        p - z se < alpha <= p + z se: alpha within z standard errors of p."""
        lo, hi = (np.clip(self.p + sign * z * self.se, 0.0, 1.0) for sign in (-1.0, 1.0))
        return significant(self.adjusted(p=lo), alpha) & ~significant(self.adjusted(p=hi), alpha)


def tukey_ranges(permuted: np.ndarray) -> np.ndarray:
    """The range statistic of every randomised trial and metric.

    Parameters
    ----------
    permuted : ndarray, shape (T, M, S)
        The scores of the randomised trials.

    Returns
    -------
    ndarray, shape (T, M)
        The largest minus the smallest score over the systems, rounded to
        ``ranking.TIE_DECIMALS``; NaN when any system's score is undefined in
        that trial (the trial is then left out for that metric: ``tukey_test``).

    Examples
    --------
    >>> import numpy as np
    >>> tukey_ranges(np.array([[[0.5, 0.7, 0.6]], [[0.6, float("nan"), 0.5]]])).tolist()
    [[0.2], [nan]]
    """
    with np.errstate(invalid="ignore"):
        return _rounded(np.max(permuted, axis=2) - np.min(permuted, axis=2))  # NaN propagates


def tukey_test(value: np.ndarray, permuted: np.ndarray, alpha: float = default_of("alpha")) -> PairTests:
    """Randomised Tukey HSD test of every pair of systems.

    Parameters
    ----------
    value : ndarray, shape (M, S)
        The observed scores.
    permuted : ndarray, shape (T, M, S)
        The scores of T randomised trials (``experiments.Scorer.permuted_counts``
        then ``Scorer.score``: every metric recomputed from the permuted outputs).
    alpha : float, default 0.05
        For ``required``.

    Returns
    -------
    PairTests
        ``p`` (M, P), family-wise; ``n`` the trials used; ``required`` Sakai's
        estimated difference required.

    Notes
    -----
    Null hypothesis: within every unit (item or group) the systems' outputs are
    exchangeable, so each of the S! assignments of a unit's outputs to the
    systems is equally likely (approximate randomisation, Noreen 1989, Yeh
    2000, extended to S systems by the range statistic: Carterette 2012, Sakai
    2014).  A trial draws one permutation per unit and rescores every metric
    from the permuted outputs (non-decomposable metrics are recomputed, never
    averaged over items); its statistic is the range R_t = max_s - min_s of the
    scores.  For a pair with observed difference d,

        p = #{t used : R_t >= |d|} / T_used      (no +1: Sakai's convention)

    with ranges and differences compared at ``TIE_DECIMALS`` decimals.  The
    range bounds every pair's difference, so the p-values are family-wise over
    all pairs (Tukey's HSD): no further correction.  The count over T estimates
    the exact permutation p-value with Monte Carlo standard error
    sqrt(p (1 - p) / T); (count + 1) / (T + 1) would be valid at every T
    (Phipson & Smyth 2010) and differs by less than 1 / T.  p = 0 means below
    1 / T_used.

    Undefined scores: a trial in which any system's score is NaN for a metric
    is left out for that metric (T_used counts the others): under the null
    every trial is a draw from the permutation distribution, and leaving out
    the undefined ones conditions it on the range being defined, which the
    observed data satisfy, so the test stays exact conditionally.  Pairs
    involving a system whose observed score is NaN have p = NaN.

    ``required``: Sakai's (2006) estimated difference required for
    significance, here the critical value of the range statistic: with the used
    ranges sorted decreasingly and c the largest count with c / T_used < alpha,
    the (c + 1)-th largest range; a pair is significant if and only if
    round(|d|) > required.

    References
    ----------
    Carterette (2012), "Multiple testing in statistical analysis of
    systems-based information retrieval experiments", ACM TOIS 30(1);
    Sakai (2014), *Statistical reform in information retrieval?*, SIGIR Forum.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])
    >>> permuted = 0.66 + rng.normal(0, 0.04, (2000, 1, 3))  # the trials' scores
    >>> t = tukey_test(value, permuted)
    >>> t.p.round(3).tolist()                 # pairs (0, 1), (0, 2), (1, 2)
    [[0.002, 0.0, 0.985]]
    >>> round(float(t.required[0]), 3)        # a difference above this is significant
    0.132
    """
    ranges = tukey_ranges(permuted)
    pairs = system_pairs(value.shape[1])
    diff = _rounded(np.abs(value[:, pairs[:, 0]] - value[:, pairs[:, 1]]))  # (M, P)
    p = np.full(diff.shape, np.nan)
    used = np.sum(~np.isnan(ranges), axis=0)  # (M,)
    required = np.full(value.shape[0], np.nan)
    for m in range(value.shape[0]):  # over the metrics: one sort of the trials' ranges each
        k = int(used[m])
        if k == 0:
            continue
        r = np.sort(ranges[:, m])[:k]  # NaN sort last
        ok = ~np.isnan(diff[m])
        p[m, ok] = (k - np.searchsorted(r, diff[m, ok], side="left")) / k
        required[m] = r[k - 1 - _count_below(alpha, k)]
    return PairTests("tukey", TUKEY_CORRECTION, p, np.repeat(used[:, None], diff.shape[1], axis=1), required)


def tukey_pvalues(value: np.ndarray, permuted: np.ndarray) -> np.ndarray:
    """The p-values of the randomised Tukey HSD (``tukey_test``).

    Parameters
    ----------
    value : ndarray, shape (M, S)
    permuted : ndarray, shape (T, M, S)

    Returns
    -------
    ndarray, shape (M, P)
        In ``ranking.system_pairs`` order.

    Examples
    --------
    >>> import numpy as np
    >>> tukey_pvalues(np.array([[0.9, 0.5]]), np.array([[[0.6, 0.7]], [[0.3, 0.8]]])).tolist()
    [[0.5]]
    """
    return tukey_test(value, permuted).p


def _centred(value: np.ndarray, boot: np.ndarray):
    """Per pair: the observed difference d (M, P), the replicates' centred
    distances |d_b - d| rounded (B, M, P; NaN where d_b is undefined) and
    the replicates used n (M, P)."""
    pairs = system_pairs(value.shape[1])
    d = value[:, pairs[:, 0]] - value[:, pairs[:, 1]]
    db = boot[:, :, pairs[:, 0]] - boot[:, :, pairs[:, 1]]
    with np.errstate(invalid="ignore"):
        return d, _rounded(np.abs(db - d)), np.sum(~np.isnan(db), axis=0)


def bootstrap_pvalues(value: np.ndarray, boot: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the paired bootstrap test (the shift method).

    Parameters
    ----------
    value : ndarray, shape (M, S)
    boot : ndarray, shape (B, M, S)
        Paired replicates (the same resamples for every system).

    Returns
    -------
    ndarray, shape (M, P)
        p = #{b : |d_b - d| >= |d|} / B_used per pair (``bootstrap_test``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])             # 1 metric x 3 systems
    >>> boot = value + rng.normal(0, 0.03, (1000, 1, 3))   # 1,000 replicates
    >>> bootstrap_pvalues(value, boot).round(3).tolist()
    [[0.0, 0.0, 0.82]]
    """
    d, dist, n = _centred(value, boot)
    with np.errstate(invalid="ignore"):
        hit = np.sum(dist >= _rounded(np.abs(d)), axis=0)  # NaN compares False
        return np.where((n > 0) & ~np.isnan(d), hit / np.maximum(n, 1), np.nan)


def bootstrap_difference_required(value: np.ndarray, boot: np.ndarray, alpha: float = default_of("alpha")) -> np.ndarray:
    """Per pair, the difference the paired bootstrap test requires at ``alpha``.

    Parameters
    ----------
    value : ndarray, shape (M, S)
    boot : ndarray, shape (B, M, S)
    alpha : float, default 0.05

    Returns
    -------
    ndarray, shape (M, P)
        Unadjusted.

    Notes
    -----
    With the pair's centred distances |d_b - d| sorted decreasingly and c the
    largest count with c / B_used < alpha, the (c + 1)-th largest (Sakai 2006:
    the rank-B*alpha replicate, the 50th of 1,000).  An observed |d| is
    significant if and only if it exceeds it (at ``TIE_DECIMALS`` decimals), as
    ``bootstrap_pvalues`` counts |d_b - d| >= |d|.

    References
    ----------
    Sakai (2006), "Evaluating evaluation metrics based on the bootstrap", SIGIR.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])             # 1 metric x 3 systems
    >>> boot = value + rng.normal(0, 0.03, (1000, 1, 3))   # 1,000 replicates
    >>> bootstrap_difference_required(value, boot).round(3).tolist()
    [[0.084, 0.084, 0.084]]
    """
    d, dist, n = _centred(value, boot)
    ordered = np.sort(dist, axis=0)  # NaN last
    at = np.maximum(n - 1 - _count_below(alpha, n), 0)
    req = np.take_along_axis(ordered, at[None], axis=0)[0]
    return np.where((n > 0) & ~np.isnan(d), req, np.nan)


def bootstrap_test(value: np.ndarray, boot: np.ndarray, alpha: float = default_of("alpha"),
                   correction: str = default_of("significance_correction")) -> PairTests:
    """Paired bootstrap test of every pair of systems.

    Parameters
    ----------
    value : ndarray, shape (M, S)
        The observed scores.
    boot : ndarray, shape (B, M, S)
        The scores on B paired bootstrap replicates.
    alpha : float, default 0.05
        For ``required``.
    correction : {"holm", "bh", "none"}, default "holm"
        The adjustment over the family of all pairs of one metric.

    Returns
    -------
    PairTests

    Notes
    -----
    The unstudentised shift method (Efron & Tibshirani 1993, sec. 16.4;
    Berg-Kirkpatrick, Burkett & Klein 2012).  Null hypothesis: the distribution
    of a pair's difference is the bootstrap one, shifted to centre on 0:

        p = #{b used : |d_b - d| >= |d|} / B_used   (two-sided; no +1),

    a replicate being used when d_b is defined.  This is *not* Sakai's (2006)
    test, which studentises per-topic differences and has no counterpart for
    non-decomposable metrics.  Each pair is tested on its own, so the p-values
    are adjusted by ``correction`` (Holm: family-wise error; BH: false
    discovery rate; none), and its discriminative power is not comparable with
    the Tukey test's.  ``required``: the largest over the pairs of
    ``bootstrap_difference_required`` (Sakai's conservative choice), unadjusted.

    References
    ----------
    Efron & Tibshirani (1993), sec. 16.4; Berg-Kirkpatrick, Burkett & Klein
    (2012), "An empirical investigation of statistical significance in NLP".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])             # 1 metric x 3 systems
    >>> boot = value + rng.normal(0, 0.03, (1000, 1, 3))   # 1,000 replicates
    >>> t = bootstrap_test(value, boot, correction="holm")
    >>> t.adjusted().round(3).tolist()
    [[0.0, 0.0, 0.82]]
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")
    _, _, n = _centred(value, boot)
    per_pair = bootstrap_difference_required(value, boot, alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a metric without any defined pair: NaN
        required = np.nanmax(per_pair, axis=1) if per_pair.shape[1] else np.full(value.shape[0], np.nan)
    return PairTests("bootstrap", correction, bootstrap_pvalues(value, boot), n, required)


def pair_table(metric_ids, systems, value: np.ndarray, tests: PairTests) -> pd.DataFrame:
    """Every pair of systems per metric, as a table.

    Parameters
    ----------
    metric_ids : sequence of str
    systems : sequence of str
    value : ndarray, shape (M, S)
    tests : PairTests

    Returns
    -------
    pandas.DataFrame
        ``metric, system_a, system_b, difference, p_value, p_value_se, p_holm,
        p_bh`` (difference = a - b): the unadjusted p-value, its Monte Carlo
        standard error and the Holm and Benjamini-Hochberg adjusted ones (family:
        the metric's pairs; equal to ``p_value`` for the Tukey test, whose
        p-values are family-wise already).

    Examples
    --------
    >>> import numpy as np
    >>> value = np.array([[0.9, 0.5]])
    >>> t = tukey_test(value, np.array([[[0.6, 0.7]], [[0.3, 0.8]]]))
    >>> pair_table(["accuracy"], ["a", "b"], value, t)[["system_a", "system_b", "difference", "p_value"]]
      system_a system_b  difference  p_value
    0        a        b         0.4      0.5
    """
    pairs = system_pairs(len(systems))
    names = np.asarray(systems, dtype=object)
    se, holm_p, bh_p = tests.se, tests.adjusted("holm"), tests.adjusted("bh")
    frames = [pd.DataFrame({"metric": mid, "system_a": names[pairs[:, 0]], "system_b": names[pairs[:, 1]],
                            "difference": value[m, pairs[:, 0]] - value[m, pairs[:, 1]], "p_value": tests.p[m],
                            "p_value_se": se[m], "p_holm": holm_p[m], "p_bh": bh_p[m]})
              for m, mid in enumerate(metric_ids)]
    return pd.concat(frames, ignore_index=True)


def best_groups(metric_ids, systems, value: np.ndarray, p: np.ndarray, alpha: float) -> pd.DataFrame:
    """Per metric, the best system and the systems that cannot be told from it.

    Parameters
    ----------
    metric_ids : sequence of str
    systems : sequence of str
    value : ndarray, shape (M, S)
    p : ndarray, shape (M, P)
        The p-values the verdicts are taken on (``PairTests.decisive``).
    alpha : float

    Returns
    -------
    pandas.DataFrame
        ``metric, best, n_indistinguishable, indistinguishable_from_best``
        (best first; lower-is-better metrics negated before choosing the best).

    Examples
    --------
    >>> import numpy as np
    >>> value = np.array([[0.8, 0.6, 0.78]])
    >>> p = np.array([[0.01, 0.40, 0.02]])   # pairs (a, b), (a, c), (b, c)
    >>> best_groups(["accuracy"], ["a", "b", "c"], value, p, 0.05)
         metric best  n_indistinguishable indistinguishable_from_best
    0  accuracy    a                    1                           c
    """
    pairs = system_pairs(len(systems))
    rows = []
    for m, mid in enumerate(metric_ids):
        o = orient(value[m], M.get(mid).higher_is_better)
        best = int(np.argmax(o))
        pm = np.ones(len(systems))
        hit = (pairs == best).any(axis=1)
        other = np.where(pairs[hit, 0] == best, pairs[hit, 1], pairs[hit, 0])
        pm[other] = p[m, hit]
        same = ~significant(pm, alpha)
        order = [i for i in np.argsort(-o, kind="stable") if i == best or same[i]]
        rows.append({"metric": mid, "best": systems[best], "n_indistinguishable": len(order) - 1,
                     "indistinguishable_from_best": "; ".join(systems[i] for i in order if i != best)})
    return pd.DataFrame(rows)


def discriminative_power(metric_ids, value: np.ndarray, tests: PairTests | np.ndarray, alpha: float) -> pd.DataFrame:
    """Per metric, the share of system pairs it tells apart (Sakai 2006).

    Parameters
    ----------
    metric_ids : sequence of str
    value : ndarray, shape (M, S)
    tests : PairTests or ndarray of shape (M, P)
        A bare array is taken as family-wise p-values (of the Tukey test); the
        columns that need the trials are then empty.
    alpha : float

    Returns
    -------
    pandas.DataFrame
        ``metric, test, correction, n_pairs, n_trials, n_significant,
        n_borderline, discriminative_power, smallest_significant_difference,
        difference_required``.

    Notes
    -----
    * ``n_significant`` / ``discriminative_power``: the pairs (their share of
      ``n_pairs``) ``significant`` at ``alpha`` on ``PairTests.decisive``
      (Holm- or BH-adjusted for the bootstrap test, as its correction says).
    * ``n_trials``: the trials the p-values were estimated from (for the
      bootstrap test, the fewest replicates used by any pair).
    * ``n_borderline``: pairs whose verdict could flip with another seed
      (``PairTests.borderline``: p within 2.576 Monte Carlo standard errors of
      alpha): the Monte Carlo uncertainty of ``n_significant``.
    * ``smallest_significant_difference``: the smallest observed |a - b| among
      the significant pairs.
    * ``difference_required``: Sakai's estimated difference required
      (``PairTests.required``).

    Discriminative power depends on the numbers of systems and items and on the
    test: compare metrics on the same systems, items and test only.

    References
    ----------
    Sakai (2006), "Evaluating evaluation metrics based on the bootstrap", SIGIR.

    Examples
    --------
    >>> import numpy as np
    >>> value = np.array([[0.8, 0.6, 0.78]])
    >>> p = np.array([[0.01, 0.40, 0.02]])
    >>> discriminative_power(["accuracy"], value, p, 0.05)[["metric", "n_pairs", "n_significant", "discriminative_power"]]
         metric  n_pairs  n_significant  discriminative_power
    0  accuracy        3              2              0.666667
    """
    if not isinstance(tests, PairTests):
        p = np.asarray(tests, dtype=np.float64)
        tests = PairTests("tukey", TUKEY_CORRECTION, p, np.zeros(p.shape, dtype=np.int64),
                          np.full(p.shape[0], np.nan))
    pairs = system_pairs(value.shape[1])
    sig = significant(tests.decisive, alpha)
    border = tests.borderline(alpha)
    known = tests.n.size > 0 and tests.n.max() > 0
    rows = []
    for m, mid in enumerate(metric_ids):
        d = np.abs(value[m, pairs[:, 0]] - value[m, pairs[:, 1]])
        defined = ~np.isnan(tests.p[m])
        rows.append({"metric": mid, "test": tests.test, "correction": tests.correction,
                     "n_pairs": int(pairs.shape[0]),
                     "n_trials": int(tests.n[m, defined].min()) if known and defined.any() else pd.NA,
                     "n_significant": int(sig[m].sum()),
                     "n_borderline": int(border[m].sum()) if known else pd.NA,
                     "discriminative_power": sig[m].mean() if pairs.shape[0] else np.nan,
                     "smallest_significant_difference": float(d[sig[m]].min()) if sig[m].any() else np.nan,
                     "difference_required": float(tests.required[m])})
    df = pd.DataFrame(rows)
    return df.astype({"n_trials": "Int64", "n_borderline": "Int64"})


# ---------------------------------------------------------------------------
# 5. intervals on the meta-evaluation: tau between metrics
# ---------------------------------------------------------------------------
def similarity_intervals(metric_ids, value: np.ndarray, boot: np.ndarray, confidence: float = default_of("confidence"),
                         variant: str = "b") -> pd.DataFrame:
    """Kendall's tau between every two metrics' rankings, with its interval.

    Parameters
    ----------
    metric_ids : sequence of str
    value : ndarray, shape (M, S)
    boot : ndarray, shape (B, M, S)
        The bootstrap replicates (the same for every metric pair).
    confidence : float, default 0.95
    variant : {"a", "b"}, default "b"

    Returns
    -------
    pandas.DataFrame
        ``metric_a, metric_b, tau, low, high``: tau on all the data and the
        percentile interval over the replicates.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.8, 0.6, 0.5, 0.4], [0.7, 0.6, 0.55, 0.3]])   # accuracy, macro-F1
    >>> boot = value + rng.normal(0, 0.02, (500, 2, 4))
    >>> similarity_intervals(["accuracy", "macro_f1"], value, boot).round(2)
       metric_a  metric_b  tau   low  high
    0  accuracy  macro_f1  1.0  0.67   1.0
    """
    d = np.array([M.get(m).higher_is_better for m in metric_ids])[:, None]
    tau = tau_matrix(orient(value, d), variant)
    ob = orient(boot, d)  # (B, M, S)
    iu = np.triu_indices(len(metric_ids), 1)
    tb = kendall_tau(ob[:, iu[0], :], ob[:, iu[1], :], variant)  # (B, P)
    lo, hi = _nanquantile(tb, [(1 - confidence) / 2, 1 - (1 - confidence) / 2])
    ids = np.asarray(metric_ids, dtype=object)
    return pd.DataFrame({"metric_a": ids[iu[0]], "metric_b": ids[iu[1]], "tau": tau[iu], "low": lo, "high": hi})


# ---------------------------------------------------------------------------
# the experiment steps (datasets in, tables out)
# ---------------------------------------------------------------------------
def _scorer(ds, spec, settings):
    from .scorer import Scorer, select_systems

    sel = select_systems(ds, settings.include_baselines)
    return Scorer(ds, spec, sel, settings.resample_unit), [ds.systems[i] for i in sel]


def run_bootstrap(ds, spec, settings) -> dict:
    """Bootstrap intervals of every score of a dataset's ranked systems.

    Parameters
    ----------
    ds : metaeval.data.dataset.Dataset
    spec : metaeval.data.config.DatasetSpec
    settings : metaeval.methods.experiments.Settings
        ``include_baselines``, ``resample_unit``, ``bootstrap_replicates``,
        ``bootstrap_seed``, ``confidence``, ``interval_method``, ``tau_variant``.

    Returns
    -------
    dict
        ``intervals`` (``system, metric, value, low, high``), ``similarity``
        (``similarity_intervals``), and the arrays ``value``, ``boot``,
        ``systems``, ``metrics``.

    Examples
    --------
    >>> from metaeval.api import dataset, settings
    >>> ds, spec = dataset(list("aabbbccc") * 5, {"x": list("aabbcccc") * 5, "y": list("abbbbccc") * 5},
    ...                    metrics=["accuracy"])
    >>> res = run_bootstrap(ds, spec, settings(bootstrap_replicates=200))
    >>> res["intervals"].round(3)
      system    metric  value    low   high
    0      x  accuracy  0.875  0.775  0.951
    1      y  accuracy  0.875  0.774  0.975
    """
    scorer, systems = _scorer(ds, spec, settings)
    value = scorer.score(scorer.total)
    boot = bootstrap_scores(scorer, settings.bootstrap_replicates, settings.bootstrap_seed, settings.chunk_size)
    jack = (np.concatenate([scorer.score(c) for c in scorer.left_out_counts()])
            if settings.interval_method == "bca" else None)
    lo, hi = intervals(value, boot, settings.confidence, settings.interval_method, jack)
    ids = list(scorer.metric_ids)
    table = pd.DataFrame({"system": np.repeat(np.asarray(systems, dtype=object), len(ids)),
                          "metric": ids * len(systems), "value": value.T.ravel(), "low": lo.T.ravel(),
                          "high": hi.T.ravel()})
    sim = similarity_intervals(ids, value, boot, settings.confidence, settings.tau_variant)
    return {"intervals": table, "similarity": sim, "value": value, "boot": boot, "systems": systems,
            "metrics": ids}


def run_significance(ds, spec, settings, boot: np.ndarray | None = None) -> dict:
    """Every pair of a dataset's ranked systems tested, per metric.

    Parameters
    ----------
    ds : metaeval.data.dataset.Dataset
    spec : metaeval.data.config.DatasetSpec
    settings : metaeval.methods.experiments.Settings
        ``significance_test`` (``tukey`` or ``bootstrap``), ``tukey_trials``,
        ``tukey_seed``, ``alpha``, ``significance_correction`` (the bootstrap
        test only: the Tukey test's p-values are family-wise), ...
    boot : ndarray, optional
        The bootstrap replicates of ``run_bootstrap`` (the bootstrap test reuses
        them).

    Returns
    -------
    dict
        ``significance`` (``pair_table``), ``best`` (``best_groups``), ``power``
        (``discriminative_power``), ``tests`` (``PairTests``), and with the
        Tukey test ``permuted_confusion``: the trials' confusion tensors
        (T, S, K, K) in the smallest integer type that holds the counts (None
        without classification metrics).

    Examples
    --------
    >>> from metaeval.api import dataset, settings
    >>> ds, spec = dataset(list("aabbbccc") * 10, {"x": list("aabbbccc") * 10, "y": list("abbbbcca") * 10},
    ...                    metrics=["accuracy"])
    >>> res = run_significance(ds, spec, settings(tukey_trials=1000))
    >>> res["significance"][["system_a", "system_b", "difference", "p_value"]]
      system_a system_b  difference  p_value
    0        x        y        0.25      0.0
    """
    scorer, systems = _scorer(ds, spec, settings)
    value = scorer.score(scorer.total)
    ids = list(scorer.metric_ids)
    kept = None
    if settings.significance_test == "tukey":
        trials = np.arange(settings.tukey_trials)
        scores = []
        for idx in chunk_indices(trials, settings.chunk_size, 1):
            counts = scorer.permuted_counts(idx, settings.tukey_seed)
            scores.append(scorer.score(counts))
            if counts.confusion is not None:  # the trials' confusion tensors, in the smallest type that holds them
                if kept is None:
                    kept = np.empty((trials.size,) + counts.confusion.shape[1:], dtype=count_dtype(ds.n_items))
                kept[idx] = counts.confusion
            report(int(idx[-1]) + 1, trials.size, "Tukey trials")
        tests = tukey_test(value, np.concatenate(scores), settings.alpha)
    else:
        if boot is None:
            boot = bootstrap_scores(scorer, settings.bootstrap_replicates, settings.bootstrap_seed,
                                    settings.chunk_size)
        tests = bootstrap_test(value, boot, settings.alpha, settings.significance_correction)
    return {"significance": pair_table(ids, systems, value, tests),
            "best": best_groups(ids, systems, value, tests.decisive, settings.alpha),
            "power": discriminative_power(ids, value, tests, settings.alpha), "tests": tests, "p": tests.p,
            "value": value, "systems": systems, "metrics": ids,
            "permuted_confusion": kept}
