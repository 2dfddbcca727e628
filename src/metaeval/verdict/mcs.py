"""The Model Confidence Set: which candidates the evidence cannot tell from
the best, with the error rate controlled.

Hansen, Lunde & Nason (2011), "The Model Confidence Set", *Econometrica*
79(2):453-497, with the range statistic T_R, on bootstrap replicates that
every candidate shares (the metrics of this project are compared on the same
resamples of items, or of items and systems).

Given the point values ``v_i`` of the candidates (higher is better) and B
replicates ``v*_{b,i}`` drawn together:

1. for every pair, ``d_ij = v_i - v_j`` and ``se_ij``, the standard
   deviation over the replicates of ``v*_{b,i} - v*_{b,j}`` (ddof 1, the
   replicates that define both); ``t_ij = d_ij / se_ij`` (a pair with
   ``se_ij = 0``, to 1e-12, gives no evidence: ``t = 0``);
2. ``T = max_{i,j} |t_ij|`` over the candidates still in; its bootstrap
   distribution ``T*_b = max_{i,j} |(v*_{b,i} - v*_{b,j}) - dbar*_ij| /
   se_ij``, each pair's replicates centred at their own mean ``dbar*_ij``
   (the null hypothesis of equal expected values); ``p = (1 + #{b : T*_b
   >= T}) / (B + 1)`` (B: the replicates that define a pair);
3. the candidate most beaten, ``argmax_i max_j t_ji``, is eliminated with
   the MCS p-value ``max`` of the p-values so far; repeat on the others.

**Centring** (a deviation from METHODS 9.2, which centres at the observed
difference ``d_ij``; the two agree when the bootstrap is unbiased, as for a
mean).  The criteria are not means: a resample's half-splits hold fewer
distinct units, so its rank stability sits below the full data's, by a
different amount for each metric (on rumoureval2017 a pair's replicates
were centred 3 standard deviations away from its observed difference).
Centred at ``d_ij``, such a pair inflates every ``T*_b``, hence the critical
value (5.00 instead of 3.86 there), and makes the sets depend on which other
metrics are compared; centred at its own mean, the null distribution keeps
the spread of the resamples without their bias.

The **set at level alpha** is the candidates whose MCS p-value is at least
alpha: exactly the candidates left when the elimination stops at the first
``p >= alpha`` (METHODS 9.2).  The elimination is run to the end, so every
candidate has a p-value (the last one 1), as in Hansen et al.; the
survivors' p-values say how far from elimination each was, and a set at
any other level is read off them.  Null hypothesis of each step: every
candidate still in has the same expected value; with probability at least
1 - alpha (asymptotically) the set contains the best candidate.

**Copies.**  Candidates equal (to 1e-12) on the full data and on every
replicate are one candidate: kept or eliminated together, and an added copy
changes nothing.  Adding any other candidate can only widen the set (the
maximum runs over more pairs): the price of error control.

Everything is a few (B, M, M) arrays; the only loop is over the eliminations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MCSResult", "model_confidence_set", "copy_groups", "critical_value"]

# candidates equal to this on the full data and every replicate are copies; a
# paired standard error below it is zero (the rounding of equal differences)
COPY_TOLERANCE = 1e-12


@dataclass(frozen=True)
class MCSResult:
    """What ``model_confidence_set`` returns.

    ``p_value`` (M,): each candidate's MCS p-value (NaN for those not in
    the competition); ``order``: the candidates in the order they were
    eliminated (copies together, the survivor last); ``copies``: a group
    label per candidate (candidates with one label are copies; -1 outside
    the competition); ``stages``: per elimination, the p-value of its test.
    """

    p_value: np.ndarray
    order: tuple[int, ...]
    copies: np.ndarray
    stages: tuple[float, ...]

    def members(self, alpha: float) -> np.ndarray:
        """(M,) boolean: the set at level ``alpha`` (MCS p-value >= alpha)."""
        return np.nan_to_num(self.p_value, nan=-1.0) >= alpha


def copy_groups(value: np.ndarray, boot: np.ndarray, participants: np.ndarray | None = None) -> np.ndarray:
    """A group label per candidate: candidates equal (to ``COPY_TOLERANCE``)
    on the full data and on every replicate share a label (the smallest
    index of the group); -1 for those not taking part.

    Examples
    --------
    >>> v = np.array([0.5, 0.7, 0.5])
    >>> b = np.array([[0.4, 0.6, 0.4], [0.6, 0.8, 0.6]])
    >>> copy_groups(v, b).tolist()
    [0, 1, 0]
    """
    v = np.asarray(value, dtype=np.float64)
    b = np.asarray(boot, dtype=np.float64)
    m = v.size
    part = np.ones(m, bool) if participants is None else np.asarray(participants, bool)
    x = np.concatenate([v[None, :], b], axis=0)  # (B + 1, M)
    diff = np.abs(x[:, :, None] - x[:, None, :])
    same_nan = np.isnan(x[:, :, None]) & np.isnan(x[:, None, :])
    equal = ((diff <= COPY_TOLERANCE) | same_nan).all(axis=0) & part[:, None] & part[None, :]
    label = np.full(m, -1, dtype=np.int64)
    for i in np.flatnonzero(part):  # a loop over the candidates
        if label[i] < 0:
            label[equal[i] & (label < 0)] = i
    return label


def _pairs(value, boot):
    """d (M, M), the replicate differences centred at their own mean
    (B, M, M), and se (M, M)."""
    d = value[:, None] - value[None, :]
    db = boot[:, :, None] - boot[:, None, :]
    ok = ~np.isnan(db)
    n = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, db, 0.0).sum(axis=0) / n
        var = (np.where(ok, db - mean, 0.0) ** 2).sum(axis=0) / (n - 1)
    se = np.sqrt(np.where(n > 1, var, np.nan))
    return d, db - mean, se


def _stage(d, centred, se, alive):
    """T, T*_b (B,) and t (M, M) of the candidates ``alive``."""
    live = alive[:, None] & alive[None, :] & (se > COPY_TOLERANCE) & np.isfinite(se)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(live, d / np.where(live, se, 1.0), 0.0)
        tb = np.where(live[None] & ~np.isnan(centred), np.abs(centred) / np.where(live, se, 1.0)[None], -np.inf)
    tstar = tb.reshape(tb.shape[0], -1).max(axis=1)
    return float(np.abs(t).max(initial=0.0)), tstar, t


def model_confidence_set(value, boot, participants=None) -> MCSResult:
    """The Model Confidence Set of the candidates, every p-value at once.

    Parameters
    ----------
    value : array_like, shape (M,)
        The candidates' point values, higher is better (NaN: not taking part).
    boot : array_like, shape (B, M)
        Their replicates on shared resamples (NaN: undefined in that
        replicate; the pair's se and T*_b leave it out).
    participants : array_like of bool, shape (M,), optional
        Which candidates take part (default: those with a finite value).

    Returns
    -------
    MCSResult
        ``members(alpha)`` is the set at level alpha; ``p_value`` the MCS
        p-values (NaN outside the competition).

    Notes
    -----
    The range statistic ``T = max |t_ij|`` with ``t_ij = d_ij / se_ij``, its
    replicates centred at each pair's own bootstrap mean, ``p = (1 +
    #{T*_b >= T}) / (B + 1)``; the candidate with the largest ``max_j t_ji`` is
    eliminated (ties: the lower point value, then the lower index) with the
    running maximum of the p-values.  Copies (equal on the full data and
    every replicate) are one candidate.

    References
    ----------
    Hansen, P. R., Lunde, A. & Nason, J. M. (2011). The Model Confidence
    Set. *Econometrica* 79(2), 453-497.

    Examples
    --------
    Three candidates, the third clearly worse than the other two:

    >>> rng = np.random.default_rng(0)
    >>> common = rng.normal(size=(500, 1))
    >>> boot = np.array([0.80, 0.80, 0.70]) + 0.01 * rng.normal(size=(500, 3)) + 0.02 * common
    >>> r = model_confidence_set([0.80, 0.80, 0.70], boot)
    >>> r.members(0.05).tolist()
    [True, True, False]
    >>> round(float(r.p_value[2]), 3)
    0.002
    """
    v = np.asarray(value, dtype=np.float64)
    b = np.asarray(boot, dtype=np.float64)
    if b.ndim != 2 or b.shape[1] != v.size:
        raise ValueError(f"boot must be (B, M) with M = {v.size}, got {b.shape}")
    part = np.isfinite(v) if participants is None else np.asarray(participants, bool) & np.isfinite(v)
    groups = copy_groups(v, b, part)
    reps = np.flatnonzero(part & (groups == np.arange(v.size)))  # one representative per group
    p_value = np.full(v.size, np.nan)
    order, stages = [], []
    if reps.size == 0:
        return MCSResult(p_value, (), groups, ())
    d, centred, se = _pairs(v[reps], b[:, reps])
    alive = np.ones(reps.size, bool)
    running = 0.0
    while alive.sum() > 1:  # a loop over the eliminations (at most M)
        t_obs, tstar, t = _stage(d, centred, se, alive)
        defined = np.isfinite(tstar)
        p = (1 + int((tstar[defined] >= t_obs).sum())) / (int(defined.sum()) + 1)
        stages.append(p)
        running = max(running, p)
        worst = np.where(alive, np.where(alive[:, None], t, -np.inf).max(axis=0), -np.inf)  # max_j t_ji
        cand = np.flatnonzero(worst == worst.max())
        e = cand[np.lexsort((cand, v[reps][cand]))[0]]  # ties: the lower value, then the lower index
        alive[e] = False
        p_value[groups == reps[e]] = running
        order.extend(np.flatnonzero(groups == reps[e]).tolist())
    last = reps[np.flatnonzero(alive)[0]]
    p_value[groups == last] = 1.0
    order.extend(np.flatnonzero(groups == last).tolist())
    return MCSResult(p_value, tuple(order), groups, tuple(stages))


def critical_value(value, boot, members, alpha: float) -> float:
    """The (1 - alpha) critical value of the range statistic among
    ``members``: the smallest c with ``(1 + #{T*_b >= c}) / (B + 1) <
    alpha``, the value a pair's |t| must reach for the test of these
    members to reject (NaN when fewer than two distinct members).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> boot = 0.5 + rng.normal(size=(999, 2))
    >>> 1.5 < critical_value([0.5, 0.5], boot, [True, True], 0.05) < 2.5   # about 1.96
    True
    """
    v = np.asarray(value, dtype=np.float64)
    b = np.asarray(boot, dtype=np.float64)
    mem = np.asarray(members, bool) & np.isfinite(v)
    groups = copy_groups(v, b, mem)
    reps = np.flatnonzero(mem & (groups == np.arange(v.size)))
    if reps.size < 2:
        return float("nan")
    d, centred, se = _pairs(v[reps], b[:, reps])
    _, tstar, _ = _stage(d, centred, se, np.ones(reps.size, bool))
    tstar = np.sort(tstar[np.isfinite(tstar)])[::-1]  # descending
    n = tstar.size
    # p(c) = (1 + #{T* >= c}) / (n + 1) < alpha  <=>  #{T* >= c} <= k with k = ceil(alpha (n + 1)) - 2
    k = int(np.ceil(alpha * (n + 1) - 1e-9)) - 2
    if k < 0:
        return float("inf")  # too few replicates to reject at this level
    return float(np.nextafter(tstar[k], np.inf))  # (k <= n - 1 for every alpha <= 1)
