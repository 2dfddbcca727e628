"""Leaderboards whose true ranks are known: how often each kind of rank
interval covers them, and how often exchangeable systems are told apart.

A simulated benchmark: ``n_tasks`` tasks of ``items_per_task`` items;
system j answers item i right when ``v_ij < theta_j``, where ``v_ij`` is
the item's own uniform number ``u_i`` with probability ``rho`` (a shared
difficulty: systems tend to fail the same items, as real ones do) and an
independent uniform number otherwise.  So every system's true accuracy is
exactly ``theta_j`` and its true rank ``1 + #{k: theta_k > theta_j}``,
whatever ``rho``.  Every simulated benchmark is resampled by the items
within tasks (the engine's stratified bootstrap, the same weights for all:
each benchmark's data are independent of them), and its rank sets and
percentile intervals of bootstrap ranks computed in one vectorised call
over all benchmarks.

Coverage: the share of (benchmark, system) pairs whose true rank lies in
the interval (marginal), and of benchmarks whose every system's does
(simultaneous), with Monte Carlo standard errors ``sqrt(c (1 - c) / R)``
(R benchmarks; the marginal one counts benchmarks, not pairs, as systems
of one benchmark are dependent: a conservative SE).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...engine.resample import bootstrap_within
from .ranks import percentile_rank_intervals, point_ranks, rank_sets
from ...settings import default_of

__all__ = ["simulated_correctness", "rank_coverage", "exchangeable_null", "SIMULATED_THETA"]

# 12 systems in clusters of near ties, as leaderboards have them (three within 0.3 points at the top, two
# within 0.1 in the middle, four within 0.3 lower down), where the percentile intervals of bootstrap ranks
# under-cover
SIMULATED_THETA = (0.50, 0.499, 0.497, 0.45, 0.40, 0.399, 0.35, 0.30, 0.299, 0.298, 0.297, 0.20)


def simulated_correctness(theta, *, n_tasks: int, items_per_task: int, rho: float, sims: int,
                          seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(correct, tasks)``: (sims, p, N) 0/1 per-item scores of ``sims``
    simulated benchmarks, and the task (N,) of each item.

    >>> x, t = simulated_correctness([0.9, 0.1], n_tasks=2, items_per_task=3, rho=0.5, sims=4, seed=0)
    >>> x.shape, t.tolist()
    ((4, 2, 6), [0, 0, 0, 1, 1, 1])
    """
    theta = np.asarray(theta, dtype=np.float64)
    n = n_tasks * items_per_task
    rng = np.random.default_rng(seed)
    shared = rng.random((sims, 1, n))
    own = rng.random((sims, theta.size, n))
    v = np.where(rng.random((sims, theta.size, n)) < rho, shared, own)
    return (v < theta[None, :, None]).astype(np.float64), np.repeat(np.arange(n_tasks), items_per_task)


def _replicates(correct: np.ndarray, tasks: np.ndarray, replicates: int, seed: int):
    """(theta (R, p), reps (R, B, p)): the mean over items of each benchmark
    and of its stratified bootstrap replicates (one product for all)."""
    r, p, n = correct.shape
    w = bootstrap_within(tasks, np.arange(replicates), seed, dtype=np.float64)  # (B, N)
    reps = (w @ correct.transpose(2, 0, 1).reshape(n, r * p)).reshape(replicates, r, p) / n
    return correct.mean(axis=-1), reps.transpose(1, 0, 2)


def rank_coverage(theta=SIMULATED_THETA, *, n_tasks: int = 14, items_per_task: int = 100, rho: float = 0.5,
                  sims: int = 400, replicates: int = 500, alpha: float = default_of("leaderboard_alpha"),
                  seed: int = 0) -> pd.DataFrame:
    """The coverage of the true ranks by the rank sets (marginal and
    simultaneous, with the stepdown) and by the percentile intervals of
    bootstrap ranks, over ``sims`` simulated benchmarks: one row per method
    with ``marginal`` (share of systems covered), ``simultaneous`` (share
    of benchmarks with every system covered), their Monte Carlo SEs, the
    mean width ``U - L + 1``, and the nominal level."""
    theta = np.asarray(theta, dtype=np.float64)
    correct, tasks = simulated_correctness(theta, n_tasks=n_tasks, items_per_task=items_per_task, rho=rho,
                                           sims=sims, seed=seed)
    est, reps = _replicates(correct, tasks, replicates, seed)
    truth = point_ranks(theta)[None, :]  # (1, p)
    rows = []
    intervals = {"rank sets, marginal": rank_sets(est, reps, alpha=alpha, family="marginal"),
                 "rank sets, simultaneous": rank_sets(est, reps, alpha=alpha, family="simultaneous")}
    intervals = {k: (v.lower, v.upper) for k, v in intervals.items()}
    intervals["percentile of bootstrap ranks"] = percentile_rank_intervals(reps, alpha=alpha)
    for method, (lo, hi) in intervals.items():
        covered = (lo <= truth) & (truth <= hi)  # (R, p)
        marg, simul = covered.mean(), covered.all(axis=-1).mean()
        rows.append({"method": method, "marginal": marg, "marginal_se": np.sqrt(marg * (1 - marg) / sims),
                     "worst_system": covered.mean(axis=0).min(),
                     "simultaneous": simul, "simultaneous_se": np.sqrt(simul * (1 - simul) / sims),
                     "mean_width": float((hi - lo + 1).mean()), "nominal": 1 - alpha})
    out = pd.DataFrame(rows).set_index("method")
    out.attrs.update(sims=sims, replicates=replicates, n_tasks=n_tasks, items_per_task=items_per_task, rho=rho,
                     seed=seed, theta=theta.tolist())
    return out


def exchangeable_null(p: int = 12, *, accuracy: float = 0.35, n_tasks: int = 14, items_per_task: int = 100,
                      rho: float = 0.5, sims: int = 400, replicates: int = 500,
                      alpha: float = default_of("leaderboard_alpha"), seed: int = 0) -> pd.DataFrame:
    """p systems of one true accuracy (exchangeable by construction: no
    pair differs): per family, the share of benchmarks in which any pair is
    resolved (at most alpha for the simultaneous family), of adjacent pairs
    resolved, and its Monte Carlo SE."""
    correct, tasks = simulated_correctness(np.full(p, accuracy), n_tasks=n_tasks, items_per_task=items_per_task,
                                           rho=rho, sims=sims, seed=seed)
    est, reps = _replicates(correct, tasks, replicates, seed)
    rows = []
    order = np.argsort(-est, axis=-1, kind="stable")
    for family in ("marginal", "simultaneous"):
        s = rank_sets(est, reps, alpha=alpha, family=family)
        res = np.take_along_axis(np.take_along_axis(s.resolved, order[:, :, None], axis=1), order[:, None, :], axis=2)
        adjacent = np.diagonal(res, offset=1, axis1=1, axis2=2)  # (R, p - 1)
        anyres = s.resolved.any(axis=(-2, -1)).mean()
        rows.append({"family": family, "any_pair_resolved": anyres,
                     "any_pair_resolved_se": np.sqrt(anyres * (1 - anyres) / sims),
                     "adjacent_resolved": adjacent.mean(), "alpha": alpha})
    return pd.DataFrame(rows).set_index("family")
