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
   scores; or BCa (bias-corrected and accelerated): the quantile levels are
   moved by the bias z0 = Phi^-1(share of replicates below the estimate) and
   the acceleration from the jackknife (leave one unit out),
   a = sum(m - t_i)^3 / (6 (sum(m - t_i)^2)^1.5).
2. **Randomised Tukey HSD** (Sakai, *Statistical Reform in Information
   Retrieval?*, 2014; Carterette 2012): in each of B trials the predictions
   of every unit are permuted across the systems (one uniformly random
   permutation per unit and trial, ``resample.permutations``) and the trial
   records, per metric, the largest minus the smallest score over the
   systems.  The p-value of a pair is the share of trials whose range
   reaches the pair's observed absolute difference (Sakai's count / B).
   Every metric uses the same trials.  Scores that are undefined (NaN) for a
   permuted system are left out of that trial's range.
3. **Paired bootstrap test** (the ``significance_test: bootstrap`` option):
   for a pair, the replicates' differences are centred on the observed one;
   p = share of |d_b - d| >= |d| (Sakai 2006 / Efron & Tibshirani 16.4).
4. **Discriminative power** (Sakai 2006): per metric, the share of system
   pairs significantly different at ``alpha``, and the smallest difference
   found significant.
5. **Uncertainty of the meta-evaluation**: percentile intervals of Kendall's
   tau between every two metrics' rankings over the bootstrap replicates.

Differences, ties and the "same score" of two systems follow the ranking
convention (``ranking.TIE_DECIMALS``): values equal to 12 decimals are
equal, so identical systems never differ significantly (p = 1).
"""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd

from . import metrics as M
from .ranking import TIE_DECIMALS, kendall_tau, orient, tau_matrix
from .resample import bootstrap_weights, chunk_indices

__all__ = ["bootstrap_scores", "intervals", "tukey_pvalues", "bootstrap_pvalues", "pair_table",
           "best_groups", "discriminative_power", "similarity_intervals", "run_bootstrap", "run_significance"]


# ---------------------------------------------------------------------------
# 1. bootstrap
# ---------------------------------------------------------------------------
def bootstrap_scores(scorer, replicates: int, seed: int, chunk_size: int = 200) -> np.ndarray:
    """(B, M, S) scores of every metric and system on B bootstrap replicates
    of the scorer's units (``experiments.Scorer``: items, or groups)."""
    out = []
    for idx in chunk_indices(np.arange(replicates), chunk_size, scorer.n_units * 4):
        w = bootstrap_weights(scorer.n_units, idx, seed, pos=scorer.draw_pos, dtype=np.float32)
        out.append(scorer.weighted(w))
    return np.concatenate(out)


def _norm_ppf(p):
    from scipy.special import ndtri

    return ndtri(p)


def _norm_cdf(x):
    from scipy.special import ndtr

    return ndtr(x)


def intervals(value: np.ndarray, boot: np.ndarray, confidence: float = 0.95, method: str = "percentile",
              jackknife: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(low, high), each shaped like ``value`` (M, S), from replicates
    ``boot`` (B, M, S).  NaN replicates are left out; a score undefined on
    every replicate has a NaN interval.  ``bca`` needs ``jackknife``
    (U, M, S) leave-one-unit-out scores."""
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
def _pairs(s: int):
    return np.array(list(combinations(range(s), 2)), dtype=np.int64).reshape(-1, 2)


def _rounded(x):
    return np.round(np.asarray(x, dtype=np.float64), TIE_DECIMALS)


def tukey_pvalues(value: np.ndarray, permuted: np.ndarray) -> np.ndarray:
    """(M, P) p-values of every pair of systems (``_pairs`` order) from the
    observed scores (M, S) and the scores of the randomised trials (T, M, S):
    p = share of trials whose range over systems reaches |difference|."""
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN trial has an undefined (NaN) range
        rng = _rounded(np.nanmax(permuted, axis=2) - np.nanmin(permuted, axis=2))  # (T, M)
    pairs = _pairs(value.shape[1])
    diff = _rounded(np.abs(value[:, pairs[:, 0]] - value[:, pairs[:, 1]]))  # (M, P)
    out = np.full(diff.shape, np.nan)
    for m in range(value.shape[0]):
        r = np.sort(rng[:, m][~np.isnan(rng[:, m])])
        if r.size:
            ok = ~np.isnan(diff[m])
            out[m, ok] = (r.size - np.searchsorted(r, diff[m, ok], side="left")) / r.size
    return out


def bootstrap_pvalues(value: np.ndarray, boot: np.ndarray) -> np.ndarray:
    """(M, P) two-sided p-values of the paired bootstrap test: the share of
    replicates whose difference, centred on the observed one, is at least as
    far from 0 as the observed difference."""
    pairs = _pairs(value.shape[1])
    d = value[:, pairs[:, 0]] - value[:, pairs[:, 1]]  # (M, P)
    db = boot[:, :, pairs[:, 0]] - boot[:, :, pairs[:, 1]]  # (B, M, P)
    with np.errstate(invalid="ignore"):
        hit = _rounded(np.abs(db - d)) >= _rounded(np.abs(d))
        n = np.sum(~np.isnan(db), axis=0)
        out = np.where(n > 0, np.sum(hit & ~np.isnan(db), axis=0) / np.maximum(n, 1), np.nan)
    return np.where(np.isnan(d), np.nan, out)


def pair_table(metric_ids, systems, value: np.ndarray, p: np.ndarray) -> pd.DataFrame:
    """``metric, system_a, system_b, difference, p_value`` (a - b)."""
    pairs = _pairs(len(systems))
    names = np.asarray(systems, dtype=object)
    frames = [pd.DataFrame({"metric": mid, "system_a": names[pairs[:, 0]], "system_b": names[pairs[:, 1]],
                            "difference": value[m, pairs[:, 0]] - value[m, pairs[:, 1]], "p_value": p[m]})
              for m, mid in enumerate(metric_ids)]
    return pd.concat(frames, ignore_index=True)


def best_groups(metric_ids, systems, value: np.ndarray, p: np.ndarray, alpha: float) -> pd.DataFrame:
    """Per metric: the best system and the systems that cannot be told from
    it at ``alpha`` (p >= alpha), best first."""
    pairs = _pairs(len(systems))
    rows = []
    for m, mid in enumerate(metric_ids):
        o = orient(value[m], M.get(mid).higher_is_better)
        best = int(np.argmax(o))
        pm = np.ones(len(systems))
        hit = (pairs == best).any(axis=1)
        other = np.where(pairs[hit, 0] == best, pairs[hit, 1], pairs[hit, 0])
        pm[other] = p[m, hit]
        same = [i for i in np.argsort(-o, kind="stable") if i == best or pm[i] >= alpha]
        rows.append({"metric": mid, "best": systems[best], "n_indistinguishable": len(same) - 1,
                     "indistinguishable_from_best": "; ".join(systems[i] for i in same if i != best)})
    return pd.DataFrame(rows)


def discriminative_power(metric_ids, value: np.ndarray, p: np.ndarray, alpha: float) -> pd.DataFrame:
    """``metric, n_pairs, n_significant, discriminative_power,
    min_significant_difference`` (Sakai 2006)."""
    pairs = _pairs(value.shape[1])
    rows = []
    for m, mid in enumerate(metric_ids):
        sig = p[m] < alpha
        d = np.abs(value[m, pairs[:, 0]] - value[m, pairs[:, 1]])
        rows.append({"metric": mid, "n_pairs": int(pairs.shape[0]), "n_significant": int(sig.sum()),
                     "discriminative_power": sig.mean() if pairs.shape[0] else np.nan,
                     "min_significant_difference": float(d[sig].min()) if sig.any() else np.nan})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# 5. intervals on the meta-evaluation: tau between metrics
# ---------------------------------------------------------------------------
def similarity_intervals(metric_ids, value: np.ndarray, boot: np.ndarray, confidence: float = 0.95,
                         variant: str = "b") -> pd.DataFrame:
    """``metric_a, metric_b, tau, low, high``: Kendall's tau between the two
    metrics' rankings of the systems, and its percentile interval over the
    bootstrap replicates (the same replicates for every metric pair)."""
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
    from .experiments import Scorer, select_systems

    sel = select_systems(ds, settings.include_baselines)
    return Scorer(ds, spec, sel, settings.resample_unit), [ds.systems[i] for i in sel]


def run_bootstrap(ds, spec, settings) -> dict:
    """Everything the bootstrap gives: ``intervals`` (system, metric, value,
    low, high), ``similarity`` (tau intervals), and the raw arrays."""
    scorer, systems = _scorer(ds, spec, settings)
    value = scorer.raw()
    boot = bootstrap_scores(scorer, settings.bootstrap_replicates, settings.bootstrap_seed, settings.chunk_size)
    jack = np.concatenate(list(scorer.leave_one_out())) if settings.interval_method == "bca" else None
    lo, hi = intervals(value, boot, settings.confidence, settings.interval_method, jack)
    ids = list(scorer.metric_ids)
    table = pd.DataFrame({"system": np.repeat(np.asarray(systems, dtype=object), len(ids)),
                          "metric": ids * len(systems), "value": value.T.ravel(), "low": lo.T.ravel(),
                          "high": hi.T.ravel()})
    sim = similarity_intervals(ids, value, boot, settings.confidence, settings.tau_variant)
    return {"intervals": table, "similarity": sim, "value": value, "boot": boot, "systems": systems,
            "metrics": ids}


def run_significance(ds, spec, settings, boot: np.ndarray | None = None) -> dict:
    """``significance`` (every pair), ``best`` (systems that cannot be told
    from the best), ``power`` (discriminative power), and the p-values;
    with the Tukey test also ``permuted_confusion``, the trials' confusion
    tensors (T, S, K, K) of the classification metrics (None without)."""
    scorer, systems = _scorer(ds, spec, settings)
    value = scorer.raw()
    ids = list(scorer.metric_ids)
    kept = None
    if settings.significance_test == "tukey":
        trials = np.arange(settings.tukey_trials)
        kept = []
        permuted = np.concatenate([scorer.permuted(idx, settings.tukey_seed, keep=kept)
                                   for idx in chunk_indices(trials, settings.chunk_size, 1)])
        p = tukey_pvalues(value, permuted)
    else:
        if boot is None:
            boot = bootstrap_scores(scorer, settings.bootstrap_replicates, settings.bootstrap_seed,
                                    settings.chunk_size)
        p = bootstrap_pvalues(value, boot)
    return {"significance": pair_table(ids, systems, value, p), "best": best_groups(ids, systems, value, p,
                                                                                    settings.alpha),
            "power": discriminative_power(ids, value, p, settings.alpha), "p": p, "value": value,
            "systems": systems, "metrics": ids, "permuted_confusion": np.concatenate(kept) if kept else None}
