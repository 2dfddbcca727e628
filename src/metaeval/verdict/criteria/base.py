"""What every criterion shares: the ``Criterion`` contract and the registry,
the spec of the draws (``CriteriaSpec``), the result with its intervals
(``CriteriaResult``), and the scorer's views the criteria compute from
(``_Engine``: oriented scores of unit weights and of confusion tensors).
The package's docstring states the method (BOOT-BOTH, the point values).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...engine.confusion import merge_classes
from ...engine.ranking import kendall_tau, orient, system_pairs
from ...engine.resample import system_counts
from ...measures import labels as M
from ...measures.custom import defined_on
from ...methods.experiments import merge_groups, merged_params
from ...methods.scorer import directions
from ...methods.bootstrap import _norm_cdf
from ...methods.corrections import adjust, significant
from ...settings import declare_criterion, default_of

__all__ = ["Criterion", "REGISTRY", "register_criterion", "unregister_criterion", "CriteriaSpec", "CriteriaResult",
           "adjacent_pairs", "pair_power"]


class Criterion:
    """One evidence criterion of the verdict: a module of this package
    declares one (a subclass) and ``metaeval.verdict.criteria`` registers
    it (``register_criterion``); the verdict, the page, the figure and the
    spec's checks read the registry, so a new criterion needs no other edit.

    Declared: ``id`` (the settings' and the tables' name), ``name`` (the
    pages' name), ``legend`` (what its value is, one line: the page's
    legend; ``{power_test}`` is filled with the test of discriminative
    power), ``range`` (of its values: the intervals are clipped to it),
    ``needs_classes`` (label noise, class priors and merging have nothing to
    move on a span identification task).  Higher is better for every
    criterion (a Kendall tau, a share).

    Computed from the shared resamples of a chunk (``criteria``: every
    criterion sees the same unit draws, splits and noisy golds, so two
    metrics and two criteria are always compared on the same resamples),
    through hooks that default to nothing:

    * ``arrays(eng, spec, w_units, counts, draws)``: the scores it ranks
      besides the full data and the split halves, oriented, (bw, ..., M,
      S_all) for the unit weights ``w_units`` (bw, U) and their ``counts``;
    * ``values(tau, a, out)``: its values (b, M) from ``a`` (``full``,
      ``x``, ``y`` and its own arrays under its id) and ``tau(x, y)``, the
      Kendall tau of two stacks of rankings at the replicate's systems;
      ``out`` holds the split taus (``splits``), the stability and the
      values of the criteria before it;
    * ``point(first, stability)``: its point value when it is not the first
      chunk's (the stability averages every half-split);
    * ``draws(eng, spec, indices, point)``: randomness of its own shared by
      the metrics (the noisy golds);
    * ``after(fulls, spec)``: a function of (oriented full scores, system
      counts) -> (b, M) computed once the replicates' full scores are known
      (discriminative power: the pairs' standard errors come from them);
    * ``left_out(has_classes, k, ordinal_data, imbalanced)``: why it does
      not count on a dataset (None: it does); ``spec_settings(settings,
      spec)``: the ``CriteriaSpec`` fields it reads from the settings;
      ``check(spec)``: refuse a spec it cannot be computed with.
    """

    id: str = ""
    name: str = ""
    legend: str = ""
    range: tuple[float, float] = (-1.0, 1.0)
    needs_classes: bool = False

    def left_out(self, *, has_classes: bool, k: int, ordinal_data: bool, imbalanced: bool) -> str | None:
        if self.needs_classes and not has_classes:
            return "span identification has no classes to merge, flip or re-weight"
        return None

    def spec_settings(self, settings, spec) -> dict:
        return {}

    def check(self, spec) -> None:
        return None

    def draws(self, eng, spec, indices, point: bool):
        return None

    def arrays(self, eng, spec, w_units, counts, draws):
        return None

    def values(self, tau: Callable, a: dict, out: dict) -> dict:
        return {}

    def point(self, first: dict, stability: np.ndarray):
        return None

    def after(self, fulls: np.ndarray, spec):
        return None

    def __repr__(self) -> str:
        return f"<criterion {self.id}: {self.name}>"


# id -> Criterion, in the tables' order (metaeval.verdict.criteria registers the built-in ones)
REGISTRY: dict[str, Criterion] = {}


def register_criterion(criterion: Criterion) -> Criterion:
    """Add ``criterion`` to the registry (after the others: the tables'
    order); the settings accept its id (``experiments.criteria``,
    ``priorities``) and the pages give it its name
    (``settings.declare_criterion``).  Returns it."""
    if not criterion.id or not criterion.id.isidentifier():
        raise ValueError(f"a criterion's id is a name (letters, digits, _), got {criterion.id!r}")
    if criterion.id in REGISTRY and REGISTRY[criterion.id] is not criterion:
        raise ValueError(f"a criterion {criterion.id!r} is registered already")
    lo, hi = criterion.range
    if not lo < hi:
        raise ValueError(f"criterion {criterion.id!r}: its range must be (low, high) with low < high, got "
                         f"{criterion.range!r}")
    REGISTRY[criterion.id] = criterion
    declare_criterion(criterion.id, criterion.name or criterion.id)
    return criterion


def unregister_criterion(cid: str) -> None:
    """Remove a criterion registered by ``register_criterion``."""
    REGISTRY.pop(cid, None)
    declare_criterion(cid, None)


@dataclass(frozen=True)
class CriteriaSpec:
    """What to compute and with which draws (plain values: the workflow
    fills it from the experiment settings).  The defaults are the settings
    tree's (``metaeval.settings``), so that a spec built with them draws
    what the workflow draws; three are the dataset's to decide: the
    criteria (the two every dataset has; the workflow adds those its
    classes allow), ``noise_mode`` (the tree's ``auto`` resolved for
    unordered classes) and ``merge_pairs``."""

    criteria: tuple[str, ...] = ("stability", "power")
    replicates: int = default_of("criteria_replicates")
    inner_splits: int = default_of("criteria_splits")
    seed: int = default_of("criteria_seed")
    point_splits: int = default_of("n_splits")
    split_seed: int = default_of("split_seed")
    tau_variant: str = default_of("tau_variant")
    alpha: float = default_of("alpha")
    correction: str = default_of("significance_correction")
    noise_rates: tuple[float, ...] = default_of("noise_rates")
    noise_mode: str = "uniform"
    noise_repeats: int = default_of("noise_repeats")
    noise_seed: int = default_of("noise_seed")
    prior_gammas: tuple[float, ...] = default_of("prior_gammas")
    # class pairs merged for ``discrimination`` (adjacent on an ordered scale)
    merge_pairs: tuple[tuple[int, int], ...] = ()
    # resamples per chunk: a quarter of the experiments' (each resample holds its own half-splits)
    chunk_size: int = max(1, default_of("chunk_size") // 4)

    def __post_init__(self):
        unknown = set(self.criteria) - set(REGISTRY)
        if unknown:
            raise ValueError(f"unknown criteria {sorted(unknown)}; known: {', '.join(REGISTRY)}")
        for c in self.criteria:
            REGISTRY[c].check(self)
        if self.replicates < 2 or self.inner_splits < 1 or self.point_splits < 1:
            raise ValueError("replicates must be >= 2, inner_splits and point_splits >= 1")


@dataclass
class CriteriaResult:
    """``value`` (C, M): the criteria on the full data; ``boot`` (B, C, M):
    the replicates (NaN: undefined); ``low``/``high`` (C, M): the interval
    at ``confidence``: the point value plus the percentiles of the
    replicates' deviations from their median, within the criterion's range
    (its ``Criterion.range``).  The replicates are biased (a resample's half-splits hold
    fewer distinct units, so its stability sits below the full data's):
    their raw percentiles missed the point value in 7 of 150 cells of fnc1;
    the Model Confidence Set centres them too (``metaeval.verdict.mcs``, at each
    pair's mean).  The median, not the mean: the deviations from a median
    always straddle 0, so the interval always holds the point value; from
    the mean they missed it where the replicates pile up at the end of the
    range (GMR's noise tau on semeval2020t11_tc: most replicates 1, the
    interval [0.9947, 0.9947] beside a value of 0.9930).
    ``system_draws``
    (B, S): the systems of each replicate (indices into the scored
    systems); ``scheme``: ``both`` (BOOT-BOTH) or ``items`` (the units
    only, every system in every replicate)."""

    metrics: list[str]
    criteria: list[str]
    value: np.ndarray
    boot: np.ndarray
    scheme: str
    confidence: float = default_of("confidence")
    system_draws: np.ndarray | None = None
    low: np.ndarray = field(init=False)
    high: np.ndarray = field(init=False)

    def __post_init__(self):
        a = (1 - self.confidence) / 2
        q = np.full((2,) + self.value.shape, np.nan)
        ok = ~np.isnan(self.boot).all(axis=0)
        if ok.any():
            dev = self.boot[:, ok] - np.nanmedian(self.boot[:, ok], axis=0)
            lo_dev, hi_dev = np.nanquantile(dev, [a, 1 - a], axis=0)
            # (0 up to rounding already: the median is the deviations' own 0.5 quantile)
            q[:, ok] = self.value[ok] + np.stack([np.minimum(lo_dev, 0), np.maximum(hi_dev, 0)])
        lo = np.array([REGISTRY[c].range[0] for c in self.criteria])[:, None]
        hi = np.array([REGISTRY[c].range[1] for c in self.criteria])[:, None]
        # (the point value lies in the range: only the low end can fall below it, only the high end above)
        self.low, self.high = np.maximum(q[0], lo), np.minimum(q[1], hi)

    @property
    def n_undefined(self) -> np.ndarray:
        """(C, M) replicates in which the criterion is undefined."""
        return np.isnan(self.boot).sum(axis=0)

    def paired_se(self) -> np.ndarray:
        """(C, M, M) bootstrap standard error of the paired difference
        Q(m1) - Q(m2), over the replicates that define both (ddof 1)."""
        d = self.boot[:, :, :, None] - self.boot[:, :, None, :]  # (B, C, M, M)
        ok = ~np.isnan(d)
        n = ok.sum(axis=0)
        d0 = np.where(ok, d, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = d0.sum(axis=0) / n
            var = (np.where(ok, d - mean, 0.0) ** 2).sum(axis=0) / (n - 1)
        return np.sqrt(np.where(n > 1, var, np.nan))


def adjacent_pairs(k: int) -> tuple[tuple[int, int], ...]:
    """The pairs of neighbouring classes of an ordered scale of k classes."""
    return tuple((j, j + 1) for j in range(k - 1))


def _tau_a_scale(draws: np.ndarray, n_systems: int) -> np.ndarray:
    """(B,) factor that turns tau-a of a ranking with repeated systems into
    tau-a over the pairs of distinct systems: n0 / n0'."""
    s = draws.shape[-1]
    k = system_counts(draws, n_systems)
    n0 = s * (s - 1) / 2
    distinct = n0 - (k * (k - 1) / 2).sum(axis=-1)
    return np.where(distinct > 0, n0 / np.maximum(distinct, 1), np.nan)


def _take(x: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """x (b, ..., S_all) at the systems of draws (b, S) -> (b, ..., S)."""
    idx = draws.reshape(draws.shape[:1] + (1,) * (x.ndim - 2) + draws.shape[1:])
    return np.take_along_axis(x, idx, axis=-1)


def _nanmean(x, axis):
    """Mean of the defined values (NaN when none is)."""
    ok = ~np.isnan(x)
    n = ok.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(ok, x, 0.0).sum(axis=axis) / n, np.nan)


class _Engine:
    """The scorer's views the criteria need: oriented scores of unit
    weights and of confusion tensors (noisy, merged, re-weighted golds)."""

    def __init__(self, scorer, params):
        self.sc = scorer
        self.ids = list(scorer.metric_ids)
        self.cls = [m for m in self.ids if m in set(scorer.cls_ids)]
        # the metrics of per-item terms (metaeval.measures.items): label noise and class priors move or re-weight
        # their items' terms, class merging relabels them
        self.items = [m for m in self.ids if m in set(scorer.item_ids)]
        # the metrics of scores (metaeval.measures.scores): label noise moves the gold under the systems' scores, class
        # priors re-weight the items, class merging adds the pair's probabilities
        self.scores = [m for m in self.ids if m in set(scorer.score_ids)]
        self.dirs = directions(self.ids)
        self.params = dict(params)

    def with_scores(self, out, values: dict, lead=None) -> np.ndarray:
        """``out`` (..., M, S) with the rows of the metrics of scores in
        ``values`` (``{id: (b, S)}``, reshaped to ``lead`` + (S,)) filled in, oriented."""
        for m, v in values.items():
            r = self.ids.index(m)
            v = np.asarray(v, dtype=np.float64)
            out[..., r, :] = orient(v if lead is None else v.reshape(tuple(lead) + v.shape[-1:]), self.dirs[r])
        return out

    def with_items(self, out, sums) -> np.ndarray:
        """``out`` (..., M, S) with the rows of the metrics of per-item terms
        scored (oriented) from their sums of terms (..., S, F)."""
        sc = self.sc.item_scores(sums)
        for m in self.items:
            r = self.ids.index(m)
            out[..., r, :] = orient(np.asarray(sc[m], dtype=np.float64), self.dirs[r])
        return out

    def noisy_items(self, sums, w_items, rank, new, m) -> np.ndarray:
        """The sums of terms (b, S, F) with the m items of smallest ``rank``
        moved to the gold class ``new`` (per row b), as ``noisy`` moves
        their counts: each moved item's terms (weighted by ``w_items``)
        leave its gold's slot and take the new class's."""
        out = np.array(sums, dtype=np.float64, copy=True)
        r, i = np.nonzero(rank < m)
        w = w_items[r, i]
        keep = w != 0
        r, i, w = r[keep], i[keep], w[keep]
        if r.size:
            t = self.sc.item_terms_by_gold()  # (N, S, K, F)
            d = t[i, :, new[r, i]] - t[i, :, self.sc.eng.gold[i]]  # (moved, S, F)
            np.add.at(out, r, w[:, None, None] * d)
        return out

    def empty(self, lead: tuple, s: int) -> np.ndarray:
        """NaN scores (*lead, M, S)."""
        return np.full(tuple(lead) + (len(self.ids), s), np.nan)

    def oriented(self, w_units):
        """(b, M, S) oriented scores of (b, units) weights, and the counts
        (``experiments.Counts``) they came from."""
        counts = self.sc.counts(w_units)
        return self.sc.score(counts, oriented=True), counts

    def cls_oriented(self, c, ids=None, params=None) -> np.ndarray:
        """(..., M, S) oriented scores of confusion tensors (..., S, K, K)
        for the classification metrics ``ids`` (default all); NaN rows for
        the others (span metrics, metrics undefined after a merge)."""
        ids = self.cls if ids is None else list(ids)
        out = np.full(c.shape[:-3] + (len(self.ids), c.shape[-3]), np.nan)
        if ids:
            sc = M.evaluate(c, ids, **(self.params if params is None else params))
            rows = [self.ids.index(m) for m in ids]
            out[..., rows, :] = orient(np.stack([np.asarray(sc[m], dtype=np.float64) for m in ids], axis=-2),
                                       self.dirs[rows])
        return out

    def merged(self, c, pair) -> np.ndarray:
        """Oriented scores after merging the classes of ``pair``."""
        g = merge_groups(c.shape[-1], pair)
        mp = merged_params(self.params, g)
        ok = [m for m in self.cls if all(mp.get(p) is not None for p in M.get(m).params)
              and defined_on(m, c.shape[-1] - 1, mp)]
        return self.cls_oriented(merge_classes(c, g), ok, mp)

    def noisy(self, c, w_items, rank, new, m) -> np.ndarray:
        """Confusion tensors (b, S, K, K) with the m items of smallest
        ``rank`` moved to the gold class ``new`` (per row b): the counts of
        the moved items (weighted by ``w_items``) leave their gold column and
        enter the new class's (``sensitivity.noisy_confusion``).  Only the
        moved items are visited (at most a tenth of them at the default
        rates): one bincount over (row, system, prediction, gold) of theirs,
        not a pass of the confusion engine over every item per new class."""
        eng = self.sc.eng
        rows = rank.shape[0]
        out = np.broadcast_to(c, (rows,) + c.shape[1:]).copy()
        r, i = np.nonzero(rank < m)
        w = w_items[r, i]
        keep = w != 0
        r, i, w = r[keep], i[keep], w[keep]
        if not r.size:
            return out
        k, s = eng.k, eng.s
        cell = ((r[None, :] * s + np.arange(s)[:, None]) * k + eng.pred[:, i]) * k  # (S, moved): row, system, pred
        ws = np.broadcast_to(w, cell.shape).ravel()
        size = rows * s * k * k
        delta = (np.bincount((cell + new[r, i][None, :]).ravel(), ws, minlength=size)
                 - np.bincount((cell + eng.gold[i][None, :]).ravel(), ws, minlength=size))
        out += np.rint(delta).astype(np.int64).reshape(out.shape)
        return out


def _tau(x, y, variant, scale=None):
    t = kendall_tau(x, y, variant)
    if variant == "a" and scale is not None:
        t = t * scale.reshape(scale.shape + (1,) * (t.ndim - scale.ndim))
    return t


def pair_power(full: np.ndarray, se: np.ndarray, counts: np.ndarray, alpha: float, correction: str) -> np.ndarray:
    """(b, M) discriminative power of oriented scores ``full`` (b, M, S_all)
    for systems drawn ``counts`` (b, S_all) times: over the pairs of
    distinct systems drawn, each weighted by the product of their counts,
    the share whose z = difference / ``se`` (M, P, pairs in
    ``ranking.system_pairs`` order) has a two-sided p-value below ``alpha``
    after ``correction`` over those pairs.  A pair with an undefined score
    is never separated; se 0 gives p 1 for equal scores and 0 otherwise."""
    a, c = system_pairs(full.shape[-1]).T
    fa, fc = full[..., a], full[..., c]
    d = fa - fc
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(se > 0, 2 * (1 - _norm_cdf(np.abs(d) / np.where(se > 0, se, 1.0))), np.where(d == 0, 1.0, 0.0))
    wpair = (counts[:, a] * counts[:, c]).astype(np.float64)  # (b, P)
    p = np.where(np.isfinite(fa) & np.isfinite(fc) & (wpair[:, None, :] > 0), p, np.nan)
    sig = significant(adjust(p, correction), alpha) & (wpair[:, None, :] > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sig * wpair[:, None, :]).sum(-1) / wpair.sum(-1)[:, None]


def _pair_se(full: np.ndarray) -> np.ndarray:
    """(M, P) standard deviation over replicates (ddof 1) of every pair's
    difference of oriented scores (b, M, S_all); undefined ones left out."""
    a, c = system_pairs(full.shape[-1]).T
    d = full[..., a] - full[..., c]
    ok = np.isfinite(d)
    n = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, d, 0.0).sum(axis=0) / n
        var = (np.where(ok, d - mean, 0.0) ** 2).sum(axis=0) / (n - 1)
    return np.sqrt(np.where(n > 1, var, np.nan))
