"""P-values and their families: the significance convention (``p <
alpha``, strictly, rounded so that a p-value equal to alpha is never
significant), the Monte Carlo standard error of a p-value of T trials, and
the corrections for multiple comparisons (Holm, Benjamini-Hochberg)."""

from __future__ import annotations

import numpy as np

from ..engine.ranking import TIE_DECIMALS

__all__ = ["CORRECTIONS", "TUKEY_CORRECTION", "BORDERLINE_Z", "significant", "monte_carlo_se", "holm",
           "benjamini_hochberg", "adjust"]

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
