"""Which ranks a leaderboard resolves: confidence sets for ranks (Mogstad,
Romano, Shaikh & Wilhelm, *Review of Economic Studies* 2024,
doi:10.1093/restud/rdad006; the R package ``csranks``), as in METHODS.md
section 10.

Inputs: each of p systems' aggregate ``theta_j`` (higher is better) and B
replicates ``theta*_bj`` on shared resamples.  The rank of j is
``r_j = 1 + #{k: theta_k > theta_j}`` (1 is best).

1. Pairs: ``d_jk = theta_j - theta_k`` and ``se_jk``, the standard
   deviation (ddof 1) over the replicates of ``theta*_bj - theta*_bk``.
2. Marginal set of j (its rank alone, level 1 - alpha): the critical value
   ``c_j`` is the 1 - alpha quantile over b of
   ``max_{k != j} |(d*_bjk - mean_b d*_bjk) / se_jk|``; stepdown: the k with
   ``|d_jk| / se_jk > c_j`` are removed from the maximum and ``c_j``
   computed again over the rest, until nothing more is removed.  Then
   ``L_j = 1 + #{k: d_kj / se_kj > c_j}`` and
   ``U_j = p - #{k: d_jk / se_jk > c_j}``.
3. Simultaneous sets (the whole ranking at once, level 1 - alpha): the same
   with one critical value, the maximum over all pairs ``j != k``.

Null hypotheses: ``theta_j = theta_k`` for each pair, tested two-sided by
the max-|t| bootstrap (studentised by the replicates' standard error,
centred at the replicates' mean); the family is controlled at alpha over
the pairs of one system (marginal) or of all systems (simultaneous).

A pair is *resolved* when its difference is significant in the family
used; a *tie band* is a maximal run of adjacent systems (by the point
estimates) no pair of which is resolved.

Not the percentile interval of the bootstrap ranks
(``percentile_rank_intervals``, shown beside): for close systems it
under-covers, its width following the noise of the ranks rather than a
test of the differences; ``simulate`` measures both on leaderboards whose
true ranks are known.

Every function takes any leading axes (``...``): one leaderboard or many
simulated ones at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ...settings import default_of

__all__ = ["RankSets", "rank_sets", "percentile_rank_intervals", "point_ranks", "tie_bands", "FAMILIES"]

FAMILIES = ("marginal", "simultaneous")
MAX_ELEMENTS = 1 << 24  # replicate x pair statistics held at once (float64: 128 MB)


@dataclass(frozen=True)
class RankSets:
    """Confidence sets for ranks: ``lower``/``upper`` (..., p) the rank
    bounds, ``resolved`` (..., p, p) the pairs whose difference is
    significant, ``critical`` the critical values ((..., p) marginal,
    (...,) simultaneous), ``t`` (..., p, p) the studentised differences
    ``d_jk / se_jk`` (NaN on the diagonal and where se is 0), ``family``,
    ``alpha``, ``stepdown``."""

    lower: np.ndarray
    upper: np.ndarray
    resolved: np.ndarray
    critical: np.ndarray
    t: np.ndarray
    family: str
    alpha: float
    stepdown: bool


def point_ranks(theta: np.ndarray) -> np.ndarray:
    """(..., p): competition ranks ``1 + #{k: theta_k > theta_j}`` (one sort
    per row: no (p, p) matrix, so that 1,000 replicates of 300 systems fit).

    >>> point_ranks(np.array([0.3, 0.9, 0.3])).tolist()
    [2, 1, 2]
    """
    from ...measures.aggregates import beaten_tied

    theta = np.asarray(theta, dtype=np.float64)
    beaten, tied = beaten_tied(theta[..., None])
    return (theta.shape[-1] - beaten[..., 0] - tied[..., 0]).astype(np.int64)


def pair_stats(theta: np.ndarray, reps: np.ndarray):
    """``(d, se, centre)``, each (..., p, p): the differences
    ``theta_j - theta_k``, the SD (ddof 1) of the replicates' differences
    (NaN on the diagonal), and the replicates' mean difference."""
    d = theta[..., :, None] - theta[..., None, :]
    mean = reps.mean(axis=-2)
    centre = mean[..., :, None] - mean[..., None, :]
    p = theta.shape[-1]
    b = reps.shape[-2]
    # sd over b of (x_bj - x_bk) = sqrt(var_j + var_k - 2 cov_jk): one covariance per leaderboard (no (B, p, p))
    xc = reps - mean[..., None, :]
    cov = np.einsum("...bj,...bk->...jk", xc, xc) / max(b - 1, 1)
    var = np.diagonal(cov, axis1=-2, axis2=-1)
    se = np.sqrt(np.maximum(var[..., :, None] + var[..., None, :] - 2 * cov, 0.0))
    eye = np.eye(p, dtype=bool)
    se = np.where(eye, np.nan, se)
    return d, se, centre


def _row_max(reps: np.ndarray, centre: np.ndarray, se: np.ndarray, active: np.ndarray) -> np.ndarray:
    """(..., B, p): for each replicate and system j, the max over the active
    k of |(d*_bjk - centre_jk) / se_jk| (0 when none is active), computed
    in blocks of rows j that bound memory."""
    *lead, b, p = reps.shape
    out = np.zeros(tuple(lead) + (b, p))
    lead_size = int(np.prod(lead)) if lead else 1
    per = max(1, MAX_ELEMENTS // max(1, lead_size * b * p))
    with np.errstate(invalid="ignore", divide="ignore"):
        for lo in range(0, p, per):  # blocks of systems: memory only
            hi = min(p, lo + per)
            dstar = reps[..., :, lo:hi, None] - reps[..., :, None, :]  # (..., B, rows, p)
            z = np.abs((dstar - centre[..., None, lo:hi, :]) / se[..., None, lo:hi, :])
            z = np.where(active[..., None, lo:hi, :] & np.isfinite(z), z, 0.0)
            out[..., lo:hi] = z.max(axis=-1)
    return out


def _quantile(x: np.ndarray, level: float, axis: int) -> np.ndarray:
    """The ``level`` quantile over ``axis`` (the order statistic
    ceil(level B) of B values, as csranks's bootstrap critical values)."""
    b = x.shape[axis]
    k = min(b, max(1, int(np.ceil(level * b - 1e-9)))) - 1
    return np.take(np.partition(x, k, axis=axis), k, axis=axis)


def rank_sets(theta, reps, *, alpha: float = default_of("leaderboard_alpha"), family: str = "marginal", stepdown: bool = True,
              max_steps: int | None = None) -> RankSets:
    """Confidence sets for the ranks of p systems (see the module).

    Parameters
    ----------
    theta : array (..., p)
        The aggregate of each system, higher is better (negate a
        lower-is-better one).
    reps : array (..., B, p)
        Its replicates on shared resamples (the same resample for every
        system in a row).
    alpha : float
        1 - the confidence level of the sets.
    family : {"marginal", "simultaneous"}
    stepdown : bool
        Recompute the critical values without the pairs already resolved.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> theta = np.array([0.9, 0.5, 0.48, 0.1])
    >>> reps = theta + rng.normal(0, 0.02, (2000, 4))
    >>> s = rank_sets(theta, reps, family="simultaneous")
    >>> s.lower.tolist(), s.upper.tolist()
    ([1, 2, 2, 4], [1, 3, 3, 4])
    """
    if family not in FAMILIES:
        raise ValueError(f"family is one of {', '.join(FAMILIES)}, got {family!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    theta = np.asarray(theta, dtype=np.float64)
    reps = np.asarray(reps, dtype=np.float64)
    if reps.shape[:-2] != theta.shape[:-1] or reps.shape[-1] != theta.shape[-1]:
        raise ValueError(f"reps must be (..., B, p) for theta (..., p); got {reps.shape} for {theta.shape}")
    p = theta.shape[-1]
    d, se, centre = pair_stats(theta, reps)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = d / se
    absolute = np.abs(np.nan_to_num(t, nan=0.0))
    # a pair whose replicates never differ (se 0) and whose estimates differ is resolved outright; equal ones never
    certain = ~np.eye(p, dtype=bool) & (np.nan_to_num(se, nan=1.0) == 0) & (d != 0)
    active = ~np.eye(p, dtype=bool) & ~certain & np.isfinite(t)
    active = np.broadcast_to(active, d.shape).copy()
    steps, c = 0, None
    while True:
        m = _row_max(reps, centre, se, active)  # (..., B, p)
        if family == "marginal":
            new = _quantile(m, 1 - alpha, axis=-2)  # (..., p)
            # a row whose every pair is resolved keeps the critical value that resolved the last of them
            c = new if c is None else np.where(active.any(axis=-1), new, c)
            reject = active & (absolute > c[..., :, None])
        else:
            new = _quantile(m.max(axis=-1), 1 - alpha, axis=-1)  # (...,)
            c = new if c is None else np.where(active.any(axis=(-2, -1)), new, c)
            reject = active & (absolute > c[..., None, None])
        steps += 1
        if not stepdown or not reject.any() or (max_steps is not None and steps >= max_steps):
            break
        active = active & ~reject
        if not active.any():
            break
    if family == "marginal":
        above = ((-t) > c[..., :, None]) | (certain & (d < 0))  # row j: k significantly above j
        below = (t > c[..., :, None]) | (certain & (d > 0))
        # with the stepdown the rejections are those made at any step: a rejected pair stays rejected, and
        # the final critical value is the smallest, so the final comparison holds every earlier rejection
        resolved = above | below
    else:
        above = ((-t) > c[..., None, None]) | (certain & (d < 0))
        below = (t > c[..., None, None]) | (certain & (d > 0))
        resolved = above | below
    lower = 1 + above.sum(axis=-1)
    upper = p - below.sum(axis=-1)
    return RankSets(lower, upper, resolved, c, t, family, float(alpha), bool(stepdown))


def percentile_rank_intervals(reps, *, alpha: float = default_of("leaderboard_alpha")) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) (..., p): the alpha/2 and 1 - alpha/2 quantiles of each
    system's competition rank over the replicates (reps (..., B, p), higher
    is better); the intervals the rank sets are compared with.

    >>> reps = np.array([[3.0, 2.0, 1.0], [2.0, 3.0, 1.0], [3.0, 2.0, 1.0], [3.0, 1.0, 2.0]])
    >>> [x.tolist() for x in percentile_rank_intervals(reps, alpha=0.5)]   # ranks of system 1: 2, 1, 2, 3
    [[1, 1, 2], [1, 2, 3]]
    """
    r = point_ranks(np.asarray(reps, dtype=np.float64))  # (..., B, p)
    # the smallest rank whose share of replicates at or below it reaches each level
    lo, hi = np.quantile(r, [alpha / 2, 1 - alpha / 2], axis=-2, method="inverted_cdf")
    return lo.astype(np.int64), hi.astype(np.int64)


def tie_bands(theta: np.ndarray, resolved: np.ndarray) -> list[list[int]]:
    """The tie bands of one leaderboard: maximal runs of systems adjacent in
    the order of ``theta`` (best first) no pair of which is resolved, each
    as the systems' indices (runs of one system left out); runs may
    overlap when a system is tied with neighbours that are resolved from
    each other.

    >>> res = np.zeros((4, 4), bool); res[0, 2] = res[2, 0] = True
    >>> res[[0, 1, 2], [3, 3, 3]] = res[[3, 3, 3], [0, 1, 2]] = True
    >>> tie_bands(np.array([0.9, 0.8, 0.7, 0.1]), res)
    [[0, 1], [1, 2]]
    """
    order = np.argsort(-np.asarray(theta, dtype=np.float64), kind="stable")
    r = np.asarray(resolved, dtype=bool)[np.ix_(order, order)]
    p = order.size
    bands, last_end = [], -1
    for a in range(p):  # a loop over systems (p), each extending its run: not over items or resamples
        end = a
        while end + 1 < p and not r[a:end + 2, a:end + 2].any():
            end += 1
        if end > a and end > last_end:
            bands.append([int(i) for i in order[a:end + 1]])
            last_end = end
    return bands
