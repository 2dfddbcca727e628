"""Bootstrap intervals on every score, and on the meta-evaluation (the
methods of ``metaeval.methods.significance``'s docstring, items 1 and 5).

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
5. **Uncertainty of the meta-evaluation**: percentile intervals of Kendall's
   tau (tau-b by default, ``tau_variant``) between every two metrics'
   rankings over the bootstrap replicates.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from ..measures import labels as M
from ..engine.ranking import kendall_tau, orient, tau_matrix
from ..engine.progress import report
from ..engine.resample import bootstrap_weights, chunk_indices
from ..settings import default_of

__all__ = ["bootstrap_scores", "intervals", "similarity_intervals", "run_bootstrap"]



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
    ...                    metrics=["accuracy"], baselines=[])
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
