"""How many test items does a task need?  Test-set size design for any
metric, on the resampling engine.

Information retrieval answers the question for per-topic, decomposable
scores (Voorhees & Buckley 2002; Sakai 2016).  The metrics here (macro-F1,
kappa, alpha, CEM^ORD, span F1) are not means over items, but the engine
scores any resample of the test units, so the same questions get answers
for them (METHODS.md sections 2 and 3):

1. **Minimum detectable difference.**  For every pair of systems (a, b) and
   metric, the variance of the paired difference d = v(a) - v(b) on a test
   set of n units is sigma_ab^2 / n, with sigma_ab^2 = N Var_N(d) estimated
   from the bootstrap replicates of the whole test set (N units).  Every
   metric here is a smooth function of means of counts, so by the delta
   method its variance shrinks as 1/n (checked against half-size subsets:
   tests/test_design.py).  Pooled over the pairs of a metric (the mean
   variance, as Sakai pools variances), sigma^2; then, for a two-sided
   z-test at ``alpha`` with power ``power`` (Sakai 2016's paired design
   with the normal approximation),

       MDD(n) = (z_{1 - alpha/2} + z_{power}) sigma / sqrt(n)
       n(delta) = ceil(((z_{1 - alpha/2} + z_{power}) sigma / delta)^2)

   ``mdd_low`` and ``mdd_high``: the same for the pairs at the first and
   third quartiles of sigma_ab (pairs of similar systems vary less).
2. **Predicted power**: the share of system pairs a two-sided z-test at
   ``alpha`` separates on n units, taking each pair's full-data difference
   as its true effect: mean over pairs of
   Phi(|d| sqrt(n) / sigma_ab - z) + Phi(-|d| sqrt(n) / sigma_ab - z).
   Null hypothesis of each test: the two systems score alike in
   expectation.  Unadjusted for the number of pairs, so it is not the
   Tukey test's discriminative power (``discriminative_power.csv``).
3. **Swap rates** (Voorhees & Buckley 2002): for ``draws`` random
   permutations of the units, T1 = the first n units and T2 = the next n
   (disjoint, so n <= N/2; the sizes of one draw are nested), and for every
   pair and metric the differences d1 on T1 and d2 on T2.  A swap is
   d1 d2 <= 0 (a tie counts as a swap: Dunaiski et al.'s conservative
   policy).  Per size, the swap rate over all comparisons, and per bin of
   |d1| (``bin_width``) the rate used by the extrapolation: for each bin,
   log(rate) = a - b n fitted by least squares weighted by the comparisons,
   over the sizes with at least one swap, then extrapolated to every size
   with its 95 % interval (the fit's standard error); a bin without any swap
   has rate 0, and a bin whose rate does not fall with the size (pairs
   whose systems differ by less than the noise: their rate stays near one
   half) keeps its pooled rate, with a binomial interval.  The extrapolated rate of a size is the mean, over the pairs,
   of the fitted rate of the bin of the pair's full-data |d|.  Also the
   measured power: the share of (draw, pair) comparisons on T1 that the
   z-test of item 2 separates.

Every resample is a row of unit weights scored by ``experiments.Scorer``:
no Python loop over draws, sizes or pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..engine.progress import report
from ..engine.ranking import system_pairs
from ..engine.resample import chunk_indices, random_keys
from ..settings import default_of

__all__ = ["DesignSpec", "spec_of", "dataset_design", "size_grid", "pair_sigma", "min_detectable_difference", "size_needed",
           "predicted_power", "swap_curves", "design_tables", "design_sentence", "design_note"]


@dataclass(frozen=True)
class DesignSpec:
    """Settings of the design (the config's ``experiments`` keys
    ``design_*``): the test's ``alpha`` and ``power``, the size grid (from
    ``min_fraction`` of the units to ``max_factor`` times them, ``points``
    sizes, geometric), the swap-rate ``draws`` and ``seed``, the |d1|
    ``bin_width`` and the differences to size a test set for
    (``differences``).

    Examples
    --------
    >>> DesignSpec().power, DesignSpec(draws=50).draws
    (0.8, 50)
    """

    # the defaults are the settings tree's (metaeval.settings: Significance.alpha and the Design branch)
    alpha: float = default_of("alpha")
    power: float = default_of("design_power")
    min_fraction: float = default_of("design_min_fraction")
    max_factor: float = default_of("design_max_factor")
    points: int = default_of("design_points")
    draws: int = default_of("design_draws")
    seed: int = default_of("design_seed")
    bin_width: float = default_of("design_bin_width")
    differences: tuple[float, ...] = default_of("design_differences")


def spec_of(settings) -> DesignSpec:
    """The design's settings from the experiment settings (``alpha`` and
    the ``design_*`` keys).

    >>> from metaeval.methods.experiments import Settings
    >>> spec_of(Settings(design_power=0.9)).power
    0.9
    """
    return DesignSpec(alpha=settings.alpha, power=settings.design_power, min_fraction=settings.design_min_fraction,
                      max_factor=settings.design_max_factor, points=settings.design_points,
                      draws=settings.design_draws, seed=settings.design_seed, bin_width=settings.design_bin_width,
                      differences=tuple(settings.design_differences))


def dataset_design(ds, spec, settings, value: np.ndarray, boot: np.ndarray
                   ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``design.csv``, ``design_needed.csv`` and ``design_swaps.csv`` of a loaded dataset, over
    its ranked systems and resampling units (``settings.resample_unit``),
    from the bootstrap experiment's scores ``value`` (M, S) and replicates
    ``boot`` (B, M, S) (``bootstrap.run_bootstrap``), so that the design
    and the intervals rest on the same resamples.

    Examples
    --------
    >>> from metaeval.api import dataset, settings
    >>> from metaeval.methods.bootstrap import run_bootstrap
    >>> ds, sp = dataset(list("aabbbccc") * 20, {"x": list("aabbbccc") * 20, "y": list("abbbbcca") * 20,
    ...                                          "z": list("aabcbcca") * 20}, metrics=["accuracy"], baselines=[])
    >>> st = settings(bootstrap_replicates=300, design_draws=50)
    >>> b = run_bootstrap(ds, sp, st)
    >>> design, needed, swaps = dataset_design(ds, sp, st, b["value"], b["boot"])
    >>> design.loc[design["fraction"] == 1.0, ["metric", "size", "min_detectable_difference"]].round(3)
          metric  size  min_detectable_difference
    11  accuracy   160                      0.105
    """
    from .scorer import Scorer, select_systems

    sel = select_systems(ds, settings.include_baselines)
    scorer = Scorer(ds, spec, sel, settings.resample_unit)
    ds_spec = spec_of(settings)
    n = scorer.n_units
    grid = size_grid(n, ds_spec)
    sizes = grid[(2 * grid <= n) & (grid >= 1)]
    sigma = pair_sigma(value, boot, n)
    swap = swap_curves(scorer, sizes, ds_spec, sigma, chunk_size=settings.chunk_size)
    unit = spec.unit_noun(settings.resample_unit)
    return design_tables(list(scorer.metric_ids), value, boot, n, swap, ds_spec, unit)


def _ndtr(x):
    from scipy.special import ndtr

    return ndtr(x)


def _ndtri(p):
    from scipy.special import ndtri

    return ndtri(p)


def size_grid(n_units: int, spec: DesignSpec = DesignSpec()) -> np.ndarray:
    """The sizes the design reports: ``points`` geometric steps from
    ``min_fraction`` of the units (at least 2) to ``max_factor`` times
    them, and the test set's own size.

    >>> size_grid(100, DesignSpec(points=5)).tolist()
    [5, 15, 45, 100, 134, 400]
    """
    lo = max(2, int(np.ceil(spec.min_fraction * n_units)))
    hi = max(lo + 1, int(round(spec.max_factor * n_units)))
    grid = np.unique(np.round(np.geomspace(lo, hi, spec.points)).astype(np.int64))
    return np.unique(np.concatenate([grid, [n_units]]))


def pair_sigma(value: np.ndarray, boot: np.ndarray, n_units: int) -> np.ndarray:
    """(M, P) sigma_ab = sqrt(N Var_N(d)) per metric and pair of systems
    (``ranking.system_pairs`` order), from the scores on all the data
    ``value`` (M, S) and on B bootstrap replicates ``boot`` (B, M, S) of
    its ``n_units`` units; replicates where d is undefined are left out
    (NaN with fewer than 2).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> boot = np.array([[0.8, 0.6]]) + rng.normal(0, [0.02, 0.01], (4000, 1, 2))
    >>> sigma = float(pair_sigma(np.array([[0.8, 0.6]]), boot, 100)[0, 0])
    >>> bool(abs(sigma - np.sqrt(100 * (0.02 ** 2 + 0.01 ** 2))) < 0.01)
    True
    """
    pairs = system_pairs(value.shape[1])
    d = boot[:, :, pairs[:, 0]] - boot[:, :, pairs[:, 1]]
    ok = np.isfinite(d)
    n = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, d, 0.0).sum(axis=0) / n
        var = (np.where(ok, d - mean, 0.0) ** 2).sum(axis=0) / (n - 1)
    return np.sqrt(np.where(n > 1, var * n_units, np.nan))


def _z_sum(alpha: float, power: float) -> float:
    return float(_ndtri(1 - alpha / 2) + _ndtri(power))


def min_detectable_difference(sigma, sizes, alpha: float = default_of("alpha"), power: float = default_of("design_power")) -> np.ndarray:
    """(..., len(sizes)) the smallest true difference a two-sided z-test at
    ``alpha`` detects with probability ``power`` on n units:
    (z_{1-alpha/2} + z_power) sigma / sqrt(n).

    >>> min_detectable_difference(0.5, [100, 400]).round(4).tolist()
    [0.1401, 0.07]
    """
    sigma = np.asarray(sigma, dtype=np.float64)[..., None]
    return _z_sum(alpha, power) * sigma / np.sqrt(np.asarray(sizes, dtype=np.float64))


def size_needed(sigma, delta, alpha: float = default_of("alpha"), power: float = default_of("design_power")) -> np.ndarray:
    """The units needed to detect a true difference ``delta`` with
    probability ``power`` (two-sided z-test at ``alpha``):
    ceil(((z_{1-alpha/2} + z_power) sigma / delta)^2).

    >>> int(size_needed(0.5, 0.07))
    401
    """
    with np.errstate(invalid="ignore"):  # (the floating-point noise of an exact size is no extra unit)
        return np.ceil((_z_sum(alpha, power) * np.asarray(sigma, dtype=np.float64) / delta) ** 2 - 1e-9)


def predicted_power(d, sigma, sizes, alpha: float = default_of("alpha")) -> np.ndarray:
    """(M, len(sizes)) the predicted share of pairs separated on n units:
    the mean over pairs (NaN ones left out) of the z-test's power,
    Phi(|d| sqrt(n) / sigma - z) + Phi(-|d| sqrt(n) / sigma - z), z the
    two-sided critical value; ``d`` and ``sigma``: (M, P).  A pair with
    sigma 0 is separated when d differs from 0.

    >>> predicted_power([[0.0, 0.1]], [[0.5, 0.5]], [100, 10000]).round(3).tolist()
    [[0.283, 0.525]]
    """
    d, sigma = np.abs(np.asarray(d, dtype=np.float64)), np.asarray(sigma, dtype=np.float64)
    z = _ndtri(1 - alpha / 2)
    root = np.sqrt(np.asarray(sizes, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = d[..., None] * root / sigma[..., None]
        shift = np.where(sigma[..., None] > 0, shift, np.where(d[..., None] > 0, np.inf, 0.0))
        p = _ndtr(shift - z) + _ndtr(-shift - z)
        ok = np.isfinite(d) & np.isfinite(sigma)
        return np.where(ok[..., None], p, 0.0).sum(axis=-2) / ok.sum(axis=-1)[..., None]


def _bins(x, width: float) -> np.ndarray:
    return np.floor(np.abs(x) / width).astype(np.int64)


def swap_curves(scorer, sizes, spec: DesignSpec = DesignSpec(), sigma: np.ndarray | None = None,
                chunk_size: int = default_of("chunk_size")) -> dict[str, np.ndarray]:
    """The swap experiment on disjoint subsets T1, T2 of ``sizes`` units
    (each at most half of the units) of ``spec.draws`` random permutations.

    Returns ``swaps`` and ``comparisons`` (M, sizes, bins) per bin of |d1|
    (the last bin holds every larger difference), and with ``sigma`` (M, P)
    ``separated`` (M, sizes): the comparisons whose |d1| on T1 exceeds the
    z-test's critical difference z sigma_ab / sqrt(n).

    Examples
    --------
    >>> import numpy as np
    >>> from metaeval.api import dataset
    >>> from metaeval.methods.scorer import Scorer
    >>> ds, sp = dataset(list("aabbbccc") * 20, {"x": list("aabbbccc") * 20, "y": list("abbbbcca") * 20},
    ...                  metrics=["accuracy"])
    >>> s = swap_curves(Scorer(ds, sp, [0, 1], "item"), [10, 40], DesignSpec(draws=30))
    >>> s["comparisons"].sum(axis=-1).tolist(), (s["swaps"].sum(axis=-1) <= s["comparisons"].sum(axis=-1)).all()
    ([[30, 30]], np.True_)
    """
    u = scorer.n_units
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.size and (sizes.min() < 1 or 2 * sizes.max() > u):
        raise ValueError(f"swap sizes must lie in [1, {u // 2}] (disjoint halves of {u} units)")
    m, s = len(scorer.metric_ids), scorer.n_systems
    pairs = system_pairs(s)
    n_bins = 64
    swaps = np.zeros((m, sizes.size, n_bins), dtype=np.int64)
    comps = np.zeros((m, sizes.size, n_bins), dtype=np.int64)
    separated = np.zeros((m, sizes.size), dtype=np.int64)
    z = _ndtri(1 - spec.alpha / 2)
    width = scorer.eng.n if scorer.eng is not None else u
    for idx in chunk_indices(np.arange(spec.draws), chunk_size, width * 2 * max(sizes.size, 1)):
        rank = np.argsort(np.argsort(random_keys(u, idx, spec.seed, "design"), axis=1), axis=1)  # (h, U)
        t1 = (rank[:, None, :] < sizes[None, :, None]).reshape(-1, u)  # (h * sizes, U)
        t2 = ((rank[:, None, :] >= sizes[None, :, None]) & (rank[:, None, :] < 2 * sizes[None, :, None])).reshape(-1, u)
        v1 = scorer.score(scorer.counts(t1.astype(np.float32))).reshape(idx.size, sizes.size, m, s)
        v2 = scorer.score(scorer.counts(t2.astype(np.float32))).reshape(idx.size, sizes.size, m, s)
        d1 = (v1[..., pairs[:, 0]] - v1[..., pairs[:, 1]]).transpose(2, 1, 0, 3)  # (M, sizes, h, P)
        d2 = (v2[..., pairs[:, 0]] - v2[..., pairs[:, 1]]).transpose(2, 1, 0, 3)
        d1, d2 = np.round(d1, 12), np.round(d2, 12)  # the ranking convention: equal to 12 decimals is a tie
        ok = np.isfinite(d1) & np.isfinite(d2)
        b = np.minimum(_bins(np.where(ok, d1, 0.0), spec.bin_width), n_bins - 1)
        swap = ok & (d1 * d2 <= 0)
        flat = (np.arange(m)[:, None, None, None] * sizes.size + np.arange(sizes.size)[None, :, None, None]) \
            * n_bins + b
        swaps += np.bincount(flat[swap], minlength=m * sizes.size * n_bins).reshape(swaps.shape)
        comps += np.bincount(flat[ok], minlength=m * sizes.size * n_bins).reshape(comps.shape)
        if sigma is not None:
            crit = z * sigma[:, None, None, :] / np.sqrt(sizes)[None, :, None, None]
            with np.errstate(invalid="ignore"):
                separated += (ok & (np.abs(d1) > crit)).sum(axis=(2, 3))
        report(int(idx[-1]) + 1, spec.draws, "design subsets")
    return {"sizes": sizes, "swaps": swaps, "comparisons": comps, "separated": separated,
            "draws": np.array(spec.draws), "n_pairs": np.array(pairs.shape[0])}


def _fit(sizes, swaps, comps, grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin, the exponential fit of the swap rate over ``sizes``,
    extrapolated to ``grid``: (bins, grid) rate, low, high (95 %)."""
    n_bins = swaps.shape[-1]
    rate = np.full((n_bins, grid.size), np.nan)
    low, high = rate.copy(), rate.copy()
    for k in range(n_bins):  # a loop over the difference bins (a few dozen), not over resamples
        c, w = comps[:, k], swaps[:, k]
        if c.sum() == 0:
            continue
        if w.sum() == 0:
            rate[k] = low[k] = high[k] = 0.0
            continue
        use = (w > 0) & (c > 0)
        if use.sum() < 2:  # too few points for a slope: the pooled rate, as measured
            rate[k] = low[k] = high[k] = w.sum() / c.sum()
            continue
        x, y, wt = sizes[use].astype(float), np.log(w[use] / c[use]), c[use].astype(float)
        X = np.stack([np.ones_like(x), x], axis=1)
        W = wt / wt.sum()
        xtwx = X.T @ (X * W[:, None])
        beta = np.linalg.solve(xtwx, X.T @ (W * y))
        if beta[1] >= 0:  # a rate that does not fall with the size (a tie-like gap): the pooled rate, flat
            r = w.sum() / c.sum()
            half = 1.96 * np.sqrt(r * (1 - r) / c.sum())
            rate[k], low[k], high[k] = r, max(r - half, 0.0), min(r + half, 1.0)
            continue
        resid = y - X @ beta
        dof = max(use.sum() - 2, 1)
        s2 = float((W * resid ** 2).sum() * use.sum() / dof) if use.sum() > 2 else 0.0
        cov = s2 * np.linalg.inv(xtwx) / use.sum()
        g = np.stack([np.ones(grid.size), grid.astype(float)], axis=1)
        mu = g @ beta
        se = np.sqrt(np.einsum("gi,ij,gj->g", g, cov, g))
        rate[k] = np.minimum(np.exp(mu), 1.0)
        low[k], high[k] = np.minimum(np.exp(mu - 1.96 * se), 1.0), np.minimum(np.exp(mu + 1.96 * se), 1.0)
    return rate, low, high


def design_tables(metric_ids, value: np.ndarray, boot: np.ndarray, n_units: int, swap: dict,
                  spec: DesignSpec = DesignSpec(), unit: str = "items"
                  ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``design.csv``, ``design_needed.csv`` and ``design_swaps.csv`` of one dataset.

    ``design.csv`` (long form, one row per metric and size of
    ``size_grid``): ``metric, size, fraction, min_detectable_difference,
    mdd_low, mdd_high, within_range`` (False where the minimum detectable
    difference exceeds the width of the metric's range, ``metrics.Metric.bounds``:
    no test set that small shows a difference the metric can have, and the
    normal approximation has broken down), ``power, power_measured, swap_rate, swap_rate_fit,
    swap_fit_low, swap_fit_high, unit, alpha, target_power`` (measured columns empty beyond
    half the units).  ``design_needed.csv``: per metric and difference of
    ``spec.differences``, the units ``needed`` (and for the quartile
    pairs) and ``sigma``.  ``design_swaps.csv`` (Voorhees & Buckley's
    reading): per metric, bin of the difference on the first subset
    (``bin_low``, ``bin_high``) and size, the comparisons, the measured swap
    rate and the bin's exponential fit with its interval.  In
    ``design.csv`` the extrapolated ``swap_rate_fit`` weights the bins'
    fitted rates by how the differences fall into the bins at that size
    (beyond the largest size measured: at that size).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.8, 0.7]])
    >>> boot = value + rng.normal(0, 0.02, (500, 1, 2))
    >>> swap = {"sizes": np.array([50]), "swaps": np.zeros((1, 1, 64), int), "comparisons": np.ones((1, 1, 64), int),
    ...         "separated": np.ones((1, 1), int)}
    >>> design, needed, swaps = design_tables(["accuracy"], value, boot, 200, swap, DesignSpec(points=4))
    >>> design[["size", "min_detectable_difference"]].round(3).values.tolist()
    [[10.0, 0.345], [43.0, 0.166], [186.0, 0.08], [200.0, 0.077], [800.0, 0.039]]
    """
    sigma_ab = pair_sigma(value, boot, n_units)  # (M, P)
    pairs = system_pairs(value.shape[1])
    d = value[:, pairs[:, 0]] - value[:, pairs[:, 1]]
    with np.errstate(invalid="ignore"), _quiet():
        sigma = np.sqrt(np.nanmean(sigma_ab ** 2, axis=1))
        q1, q3 = np.nanquantile(sigma_ab, [0.25, 0.75], axis=1)
    grid = size_grid(n_units, spec)
    mdd = min_detectable_difference(sigma, grid, spec.alpha, spec.power)
    mdd_lo = min_detectable_difference(q1, grid, spec.alpha, spec.power)
    mdd_hi = min_detectable_difference(q3, grid, spec.alpha, spec.power)
    power = predicted_power(d, sigma_ab, grid, spec.alpha)
    sizes = swap["sizes"]
    from ..measures import labels as M

    # a difference wider than the metric's whole range is no difference a test set of that size can show:
    # the normal approximation has broken down there (tiny sizes), so the row says so
    width = np.array([np.diff(M.get(mid).bounds)[0] for mid in metric_ids])  # (every metric kind has bounds)
    rows = []
    at = {int(n): i for i, n in enumerate(sizes)}
    swaps_long = []
    for m, mid in enumerate(metric_ids):
        rate, low, high = _fit(sizes, swap["swaps"][m], swap["comparisons"][m], grid)
        # the bins' fitted rates, weighted by how the differences fall into the bins at that size (beyond
        # the largest size measured: at that size)
        comps_m = swap["comparisons"][m].astype(float)  # (sizes, bins)
        fit = []
        for x in (rate, low, high):
            col = np.full(grid.size, np.nan)
            for g, n in enumerate(grid):
                i = at.get(int(n), sizes.size - 1 if sizes.size and n > sizes.max() else None)
                if i is None or comps_m[i].sum() == 0:
                    continue
                w = comps_m[i] / comps_m[i].sum()
                col[g] = np.nansum(w * np.nan_to_num(x[:, g], nan=0.0))
            fit.append(col)
        for k in np.flatnonzero(swap["comparisons"][m].sum(axis=0)):
            for g, n in enumerate(grid):
                i = at.get(int(n))
                c = swap["comparisons"][m, i, k] if i is not None else 0
                swaps_long.append({"metric": mid, "bin_low": k * spec.bin_width,
                                   "bin_high": (k + 1) * spec.bin_width if k + 1 < comps_m.shape[1] else np.inf,
                                   "size": int(n), "comparisons": int(c),
                                   "swap_rate": swap["swaps"][m, i, k] / c if c else np.nan,
                                   "swap_rate_fit": rate[k, g], "swap_fit_low": low[k, g],
                                   "swap_fit_high": high[k, g]})
        for g, n in enumerate(grid):
            i = at.get(int(n))
            comps = swap["comparisons"][m, i].sum() if i is not None else 0
            rows.append({"metric": mid, "size": int(n), "fraction": n / n_units,
                         "min_detectable_difference": mdd[m, g], "mdd_low": mdd_lo[m, g], "mdd_high": mdd_hi[m, g],
                         "within_range": bool(mdd[m, g] <= width[m]) if np.isfinite(mdd[m, g]) else False,
                         "power": power[m, g],
                         "power_measured": swap["separated"][m, i] / comps if comps else np.nan,
                         "swap_rate": swap["swaps"][m, i].sum() / comps if comps else np.nan,
                         "swap_rate_fit": fit[0][g], "swap_fit_low": fit[1][g], "swap_fit_high": fit[2][g],
                         "unit": unit, "alpha": spec.alpha, "target_power": spec.power})
    design = pd.DataFrame(rows)
    need = []
    for m, mid in enumerate(metric_ids):
        for delta in spec.differences:
            need.append({"metric": mid, "difference": delta, "needed": size_needed(sigma[m], delta, spec.alpha,
                                                                                  spec.power),
                         "needed_low": size_needed(q1[m], delta, spec.alpha, spec.power),
                         "needed_high": size_needed(q3[m], delta, spec.alpha, spec.power),
                         "sigma": sigma[m], "n_units": n_units, "alpha": spec.alpha, "power": spec.power,
                         "unit": unit})
    needed = pd.DataFrame(need)
    for c in ("needed", "needed_low", "needed_high"):
        needed[c] = needed[c].astype("Int64") if needed[c].notna().all() else needed[c]
    return design, needed, pd.DataFrame(swaps_long)


def design_sentence(design: pd.DataFrame, needed: pd.DataFrame, metric: str, name: str) -> str:
    """One sentence on a metric's test-set size: what the test set
    separates with the design's power, and the size a smaller difference
    needs (the smallest of ``differences`` below the test set's MDD).

    >>> import pandas as pd
    >>> design = pd.DataFrame({"metric": ["m"], "size": [1000], "fraction": [1.0],
    ...                        "min_detectable_difference": [0.04], "unit": ["items"]})
    >>> needed = pd.DataFrame({"metric": ["m"], "difference": [0.02], "needed": [4000], "power": [0.8],
    ...                        "unit": ["items"]})
    >>> design_sentence(design, needed, "m", "macro-F1")
    'with 1,000 items, macro-F1 separates systems that differ by 0.04 with power 0.8; to separate 0.02 about 4,000 items are needed'
    """
    row = design[(design["metric"] == metric) & (design["fraction"] == 1.0)]
    if row.empty or not np.isfinite(row["min_detectable_difference"].iloc[0]):
        return ""
    mdd, n, unit = float(row["min_detectable_difference"].iloc[0]), int(row["size"].iloc[0]), row["unit"].iloc[0]
    nd = needed[(needed["metric"] == metric) & (needed["difference"] < mdd)]
    power = float(needed["power"].iloc[0]) if len(needed) else 0.8
    if "within_range" in row and not bool(row["within_range"].iloc[0]):
        text = (f"with {n:,} {unit}, {name} cannot separate systems with power {power:g} by any difference it can "
                f"have (the minimum detectable difference, {_fmt(mdd)}, exceeds its range)")
    else:
        text = f"with {n:,} {unit}, {name} separates systems that differ by {_fmt(mdd)} with power {power:g}"
    if len(nd):
        r = nd.sort_values("difference", ascending=False).iloc[0]
        if _fmt(mdd) == _fmt(float(r["difference"])):  # (0.0503 against 0.05: one more digit, not a contradiction)
            text = text.replace(f"differ by {_fmt(mdd)}", f"differ by {mdd:.3g}")
        text += f"; to separate {_fmt(float(r['difference']))} about {_round(int(r['needed'])):,} {unit} are needed"
    return text


def design_note(design: pd.DataFrame, needed: pd.DataFrame, metrics, where: str = "design.csv") -> str | None:
    """The recommendation's sentence on the test-set size of the metrics
    it recommends (``design_sentence`` of each), or None; ``where`` names
    the full table.

    >>> import pandas as pd
    >>> design = pd.DataFrame({"metric": ["macro_f1"], "size": [1000], "fraction": [1.0],
    ...                        "min_detectable_difference": [0.04], "unit": ["items"]})
    >>> needed = pd.DataFrame({"metric": ["macro_f1"], "difference": [0.02], "needed": [4000], "power": [0.8],
    ...                        "unit": ["items"]})
    >>> design_note(design, needed, ["macro_f1"])
    "Test-set size: with 1,000 items, macro-F1 separates systems that differ by 0.04 with power 0.8; to separate 0.02 about 4,000 items are needed (a two-sided z-test at the experiments' alpha; design.csv)."
    """
    from ..measures import labels as M

    parts = [design_sentence(design, needed, m, M.get(m).name) for m in metrics]
    parts = [p for p in parts if p]
    if not parts:
        return None
    return ("Test-set size: " + "; ".join(parts) + f" (a two-sided z-test at the experiments' alpha; {where}).")


def _fmt(x: float) -> str:
    return f"{x:.2g}" if x < 0.1 else f"{x:.2f}"


def _round(n: int) -> int:
    """Two significant digits: a design's size is an estimate."""
    if n < 100:
        return n
    k = 10 ** (len(str(n)) - 2)
    return int(round(n / k) * k)


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)
