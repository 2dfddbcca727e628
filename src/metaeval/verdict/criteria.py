"""Every criterion of the metric recommendation with its uncertainty:
resampling the test items *and* the systems (Deutsch, Dror & Roth 2021,
BOOT-BOTH), with two metrics always compared on the same resamples.

A criterion ``Q(m; S', I', w)`` is a function of metric m's scores of a
multiset of systems S' on a multiset of test units I' (items, or groups such
as articles), with its own randomness w (half-splits, noisy golds).  Higher
is better for every criterion here:

* ``stability``       mean Kendall tau between the rankings on the two halves
                      of random half-splits of the units (Amemiya & Sakai 5.2);
* ``discrimination``  stability minus the mean tau between the ranking and the
                      ranking after merging two adjacent classes (ordered
                      classes only), floored at 0: how much more merging
                      moves the ranking than the metric's own split-half
                      noise does.  A metric that ranks at random (both taus
                      near 0) and one blind to the merged distinction (merge
                      tau 1) score 0: no evidence either way;
* ``power``           discriminative power: the share of system pairs a paired
                      z-test separates at ``alpha`` after the family's
                      correction (Holm by default), the standard error of each
                      pair's difference from the item resamples;
* ``noise``           mean tau between the ranking on the gold and on a noisy
                      gold (a share ``rate`` of the labels flipped), averaged
                      over the rates;
* ``priors``          mean tau between the ranking and the rankings with the
                      items re-weighted to the class priors pi^gamma, averaged
                      over the gammas.

**BOOT-BOTH** (METHODS.md 1.4).  Replicate b draws the units with
replacement (``resample.bootstrap_weights``: counts per unit; whole groups
when the unit is a group) and, independently, the systems with replacement
(stream ``systems``), and its own w: ``inner_splits`` half-splits that put
every *distinct* unit drawn, with all its copies, in one half (stream
``criteria_split``: halves share no unit), and one noisy gold per rate
(streams ``criteria_noise``, ``criteria_noise_class``).  Every metric is
computed on the same draws, so the difference of two metrics' criteria per
replicate is a paired comparison.  A system drawn k times enters a ranking k
times: Kendall's tau-b of such a ranking equals the tau-b over pairs of
distinct systems weighted by the product of their counts (a system's copies
are tied in both rankings, and tau-b leaves pairs tied in both out), as
METHODS.md 1.4 asks; tau-a is rescaled to those pairs.  The discriminative
power counts pairs of distinct systems, each weighted by the product of
their counts.  Span metrics are recomputed from the resample's summed
per-article statistics, never averaged.

The **point value** of a criterion is computed on the full data with the
experiments' own draws: ``point_splits`` half-splits of seed ``split_seed``
(the values of ``stability.csv``), the noisy golds of ``noise_seed`` (those
of ``noise.csv``); the **interval** is the percentile interval of the
replicates that are defined, centred on the point value (``CriteriaResult``;
``n_undefined`` counts the undefined ones).
The **items** scheme (``scheme="items"``) uses the same unit draws,
splits and noisy golds and keeps the systems: the uncertainty of a
criterion for *these* systems (the question of choosing the metric of this
leaderboard), where BOOT-BOTH's is that for *new* systems like them
(METHODS 9.7).  Replicate b of the two schemes differs only in the systems
ranked, so the two are paired as well.

Everything is vectorised: a chunk of replicates is one stack of weight rows
for the confusion engine (``SubsetConfusion``), one call per metric family,
one compiled tau over all rows; no Python loop over replicates, splits or
items.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..engine.confusion import merge_classes
from ..engine.progress import report
from ..engine.ranking import kendall_tau, orient, system_pairs
from ..engine.resample import MAX_MASK_ELEMENTS, chunk_indices, split_masks, system_counts, system_draws, unit_draws
from ..methods.sensitivity import _draws, _flip_counts, _new_class, prior_weights
from ..settings import default_of
from ..methods.significance import _norm_cdf, adjust, significant

__all__ = ["CRITERIA", "RANGE", "SCHEMES", "CriteriaSpec", "CriteriaResult", "criteria", "system_draws", "unit_draws", "adjacent_pairs",
           "system_counts", "pair_power"]

# criterion -> what it measures (higher is better for all)
CRITERIA = {
    "stability": "rank stability: mean tau between the rankings on random halves of the test set",
    "discrimination": "class discrimination: split-half tau minus the mean tau after merging two adjacent classes, "
                      "floored at 0",
    "power": "discriminative power: share of system pairs a paired z-test separates",
    "noise": "robustness to label noise: mean tau between the rankings on the gold and on a noisy gold",
    "priors": "robustness to class priors: mean tau between the ranking and those under shifted priors",
}


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
        unknown = set(self.criteria) - set(CRITERIA)
        if unknown:
            raise ValueError(f"unknown criteria {sorted(unknown)}; known: {', '.join(CRITERIA)}")
        if "discrimination" in self.criteria and not self.merge_pairs:
            raise ValueError("discrimination needs the class pairs to merge (merge_pairs)")
        if self.replicates < 2 or self.inner_splits < 1 or self.point_splits < 1:
            raise ValueError("replicates must be >= 2, inner_splits and point_splits >= 1")


# the range of each criterion's values (taus; a share; a difference of taus floored at 0)
RANGE = {"stability": (-1.0, 1.0), "discrimination": (0.0, 2.0), "power": (0.0, 1.0), "noise": (-1.0, 1.0),
         "priors": (-1.0, 1.0)}


@dataclass
class CriteriaResult:
    """``value`` (C, M): the criteria on the full data; ``boot`` (B, C, M):
    the replicates (NaN: undefined); ``low``/``high`` (C, M): the interval
    at ``confidence``: the point value plus the percentiles of the
    replicates' deviations from their median, within the criterion's range
    (``RANGE``).  The replicates are biased (a resample's half-splits hold
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
        lo = np.array([RANGE[c][0] for c in self.criteria])[:, None]
        hi = np.array([RANGE[c][1] for c in self.criteria])[:, None]
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
        from ..methods.scorer import directions

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
        from ..measures import labels as M

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
        from ..measures import labels as M
        from ..methods.experiments import merge_groups, merged_params

        g = merge_groups(c.shape[-1], pair)
        mp = merged_params(self.params, g)
        from ..measures.custom import defined_on

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


def _arrays(eng: _Engine, spec: CriteriaSpec, w_units, split_ids, split_seed, split_stream, noise, strata) -> dict:
    """The oriented scores of every system the criteria of a chunk need,
    for unit counts ``w_units`` (bw, U): ``full`` (bw, M, S_all), the
    halves ``x``/``y`` of the splits ``split_ids`` (bw, R) of
    (``split_seed``, ``split_stream``) as (bw, R, M, S_all), and per class
    pair, noise rate (noisy golds ``noise``: (rank, new class) (bw, N)) and
    gamma the merged, noisy and re-weighted scores (bw, ., M, S_all).  The
    half X of a split holds the drawn units (all their copies) its mask
    sets; half Y the others."""
    bw, u = w_units.shape
    r = split_ids.shape[1]
    full, counts = eng.oriented(w_units)
    c = counts.confusion
    masks = split_masks(u, split_ids.ravel(), split_seed, strata, dtype=np.float32, stream=split_stream)
    half = eng.sc.counts(w_units.repeat(r, axis=0) * masks)
    x = eng.sc.score(half, oriented=True)
    y = eng.sc.score(counts.repeat(r) - half, oriented=True)
    out = {"full": full, "x": x.reshape((bw, r) + x.shape[1:]), "y": y.reshape((bw, r) + y.shape[1:])}
    if "discrimination" in spec.criteria:  # a loop over the K-1 class pairs
        merged = []
        for pair in spec.merge_pairs:
            mg = eng.merged(c, pair) if eng.cls else eng.empty((bw,), eng.sc.n_systems)
            if eng.items:  # the terms of the merged task, summed with the resample's unit weights
                st = eng.sc.item_merged_stats(tuple(pair))
                u, s, f = st.shape
                eng.with_items(mg, (np.asarray(w_units, dtype=np.float64) @ st.reshape(u, -1)).reshape(-1, s, f))
            mv = eng.sc.merged_score_values(tuple(pair)) if eng.scores else None
            if mv is not None:  # the pair's probabilities added, on the resample's items
                eng.with_scores(mg, eng.sc.score_by_items(eng.sc.item_weights(w_units), *mv))
            merged.append(mg)
        out["merged"] = np.stack(merged, axis=1)
    if "noise" in spec.criteria:  # a loop over the rates
        rank, new = noise
        w_items = eng.sc.item_weights(w_units)
        # (bw, rates, repeats, M, S_all): the repeats of one row share its unit counts
        reps = rank.shape[0] // bw
        noisy = []
        for m in _flip_counts(rank.shape[1], spec.noise_rates):
            n_ = eng.cls_oriented(eng.noisy(c.repeat(reps, axis=0), w_items.repeat(reps, axis=0), rank, new, m)) \
                if eng.cls else eng.empty((rank.shape[0],), eng.sc.n_systems)
            if eng.items:
                eng.with_items(n_, eng.noisy_items(counts.items.repeat(reps, axis=0), w_items.repeat(reps, axis=0),
                                                   rank, new, m))
            if eng.scores:  # the same items moved to the same classes, under the systems' scores
                gold_rows = np.where(rank < m, new, eng.sc.eng.gold[None, :])
                eng.with_scores(n_, eng.sc.noisy_score_scores(w_items.repeat(reps, axis=0), gold_rows,
                                                              np.asarray(w_units).repeat(reps, axis=0)))
            noisy.append(n_)
        out["noisy"] = np.stack([n.reshape((bw, reps) + n.shape[1:]) for n in noisy], axis=1)
    if "priors" in spec.criteria:
        gold = c[:, 0].sum(axis=-2) if c is not None else \
            np.stack([np.bincount(eng.sc.eng.gold, weights=w, minlength=eng.sc.eng.k)
                      for w in eng.sc.item_weights(w_units).astype(np.float64)])
        wk = prior_weights(gold, spec.prior_gammas)  # (bw, G, K): each resample's own gold
        pri = eng.cls_oriented(c[:, None].astype(np.float64) * wk[:, :, None, None, :]) if eng.cls else \
            eng.empty((bw, wk.shape[1]), eng.sc.n_systems)  # (bw, G, M, S_all)
        if eng.items:  # the terms summed by gold class, then re-weighted as the confusion's gold columns
            cs = eng.sc.item_class_stats()
            u, s, k, f = cs.shape
            by_class = (np.asarray(w_units, dtype=np.float64) @ cs.reshape(u, -1)).reshape(bw, s, k, f)
            eng.with_items(pri, np.einsum("bgk,bskf->bgsf", wk, by_class))
        if eng.scores:  # each item re-weighted by its gold class's factor (not the rankings within groups: NaN)
            w_items = eng.sc.item_weights(w_units).astype(np.float64)
            rows = (w_items[:, None, :] * wk[:, :, eng.sc.eng.gold]).reshape(-1, w_items.shape[-1])
            eng.with_scores(pri, eng.sc.score_by_items(rows), lead=wk.shape[:2])
        out["priors"] = pri
    return out


def _taus(a: dict, sys: np.ndarray, spec: CriteriaSpec, n_all: int) -> dict:
    """The criteria (but power) of the arrays ``a`` of ``_arrays`` for the
    systems ``sys`` (b, S), one row of ``a`` per row of ``sys``: per
    criterion (b, M), and ``splits`` (b, R, M): the split taus."""
    b = sys.shape[0]
    scale = _tau_a_scale(sys, n_all) if spec.tau_variant == "a" else None

    def tau(x, y):  # (b, ..., M, S_all) pairs of rankings, at the drawn systems
        lead, ms = y.shape[1:-2], y.shape[-2:]
        n = math.prod(lead)
        # the full scores (b, M, S_all) against each of y's rankings; the split halves row for row
        x = np.broadcast_to(x[:, None], (b, n) + ms).reshape(b * n, *ms) if x.ndim == 3 else x.reshape(b * n, *ms)
        s = sys.repeat(n, axis=0)
        t = _tau(_take(x, s), _take(y.reshape(b * n, *ms), s), spec.tau_variant,
                 None if scale is None else scale.repeat(n))
        return t.reshape((b,) + lead + t.shape[1:])

    splits = tau(a["x"], a["y"])  # (b, R, M)
    stab = _nanmean(splits, 1)
    out = {"splits": splits, "stability": stab}
    if "merged" in a:
        out["merge"] = _nanmean(tau(a["full"], a["merged"]), 1)  # the mean tau after a merge
        out["discrimination"] = _excess(stab, out["merge"])
    if "noisy" in a:
        t = tau(a["full"], a["noisy"])  # (b, rates, repeats, M)
        out["noise"] = _nanmean(_nanmean(t, 2), 1)  # mean over the repeats, then the rates
    if "priors" in a:
        out["priors"] = _nanmean(tau(a["full"], a["priors"]), 1)
    return out


def _excess(stability, merge_tau):
    """Class discrimination: how much more a merge moves the ranking than the
    metric's own split-half noise does, (1 - merge tau) - (1 - stability),
    floored at 0: a change no larger than the noise is no evidence, so a
    metric that ranks at random (both taus near 0) and one blind to the
    merge (merge tau 1) score alike, 0, below any metric the merge really
    moves.  NaN stays NaN (np.maximum propagates it)."""
    return np.maximum(np.asarray(stability) - merge_tau, 0.0)


def _noise_draws(eng: _Engine, spec: CriteriaSpec, indices, seed: int, streams) -> tuple[np.ndarray, np.ndarray]:
    n = eng.sc.eng.n
    rank, u01 = _draws(n, indices, seed, streams, upto=_flip_counts(n, spec.noise_rates).max(initial=0))
    return rank, _new_class(eng.sc.eng.gold, u01, eng.sc.eng.k, spec.noise_mode)


SCHEMES = ("items", "both")


def criteria(scorer, spec: CriteriaSpec, *, subsets: dict | None = None, schemes=("both",),
             strata: np.ndarray | None = None, confidence: float = default_of("confidence"),
             only: set | None = None) -> dict[tuple[str, str], CriteriaResult]:
    """Point values and replicates of ``spec.criteria`` for every metric of
    ``scorer`` (an ``experiments.Scorer`` with a resampling unit), for each
    set of its systems in ``subsets`` (``{name: indices}``; default
    ``{"all": every system}``): the sets share the unit draws, splits and
    noisy golds, and each draws its own systems from itself.

    ``schemes``: ``"items"`` (the test units resampled, the systems kept:
    which metric ranks *these* systems most reliably) and/or ``"both"``
    (BOOT-BOTH, units and systems: which metric would serve *new* systems
    like these).  The two schemes share every unit draw, split and noisy
    gold, so their replicates are paired too; the point values are
    computed once for all.  ``strata``: gold classes for stratified
    half-splits (items only).  Returns ``{(scheme, name):
    CriteriaResult}``."""
    if not schemes or set(schemes) - set(SCHEMES):
        raise ValueError(f"schemes must be among {', '.join(map(repr, SCHEMES))}, got {schemes!r}")
    if scorer.n_units is None:
        raise ValueError("the scorer needs a resampling unit ('item' or 'group')")
    eng = _Engine(scorer, scorer.params)
    if {"discrimination", "noise", "priors"} & set(spec.criteria) and not (eng.cls or eng.items or eng.scores):
        raise ValueError("discrimination, noise and priors need classes")
    crit, m, u, s_all = list(spec.criteria), len(eng.ids), scorer.n_units, scorer.n_systems
    subsets = {"all": np.arange(s_all)} if subsets is None else {k: np.asarray(v, dtype=np.int64)
                                                                   for k, v in subsets.items()}
    for name, idx in subsets.items():
        if idx.size < 2 or idx.min() < 0 or idx.max() >= s_all:
            raise ValueError(f"subset {name!r}: at least two of the {s_all} systems, by index")
    ones = np.ones((1, u), dtype=np.int64)

    # the point values: the full data with the experiments' own splits and noisy golds
    value = {k: np.full((len(crit), m), np.nan) for k in subsets}
    splits = {k: [] for k in subsets}
    merge = {}
    first = None
    for ids in chunk_indices(np.arange(spec.point_splits), default_of("chunk_size"), u):  # memory bound only
        noise = _noise_draws(eng, spec, np.arange(spec.noise_repeats), spec.noise_seed, ("noise", "noise_class")) \
            if "noise" in crit and first is None else None
        a = _arrays(eng, spec if first is None else _only(spec, ()), ones, ids[None, :], spec.split_seed, "split",
                    noise, strata)
        for k, idx in subsets.items():
            t = _taus(a, idx[None, :], spec, s_all)
            splits[k].append(t["splits"][0])
            if first is None:
                merge[k] = t["merge"][0] if "merge" in t else None
                for i, c in enumerate(crit):
                    if c in t:
                        value[k][i] = t[c][0]
        if first is None:
            first = a["full"]
        report(int(ids[-1]) + 1, spec.point_splits, "half-splits")
    for k in subsets:
        stab = _nanmean(np.concatenate(splits[k]), 0)
        for i, c in enumerate(crit):
            if c == "stability":
                value[k][i] = stab
            elif c == "discrimination":  # the stability over all the splits, minus the merged tau
                value[k][i] = _excess(stab, merge[k])

    # the replicates: one unit draw, its splits and noisy golds per replicate, shared by the schemes; the
    # systems drawn again (BOOT-BOTH) or kept (items)
    bidx = np.arange(spec.replicates)
    draws = {("both", k): idx[system_draws(idx.size, bidx, spec.seed)] for k, idx in subsets.items()}
    draws.update({("items", k): np.broadcast_to(idx, (spec.replicates, idx.size)) for k, idx in subsets.items()})
    keys = [(sc, k) for sc in SCHEMES if sc in schemes for k in subsets if only is None or (sc, k) in only]
    boot = {key: np.full((spec.replicates, len(crit), m), np.nan) for key in keys}
    per = max(1, min(spec.chunk_size, MAX_MASK_ELEMENTS // max(spec.inner_splits * u, 1)))
    fulls = np.empty((spec.replicates, m, s_all))
    for lo in range(0, spec.replicates, per):
        rb = bidx[lo:lo + per]
        split_ids = rb[:, None] * spec.inner_splits + np.arange(spec.inner_splits)[None, :]
        noise = _noise_draws(eng, spec, rb, spec.seed, ("criteria_noise", "criteria_noise_class")) \
            if "noise" in crit else None
        a = _arrays(eng, spec, unit_draws(u, rb, spec.seed), split_ids, spec.seed, "criteria_split", noise, strata)
        fulls[lo:lo + per] = a["full"]
        for key in keys:
            t = _taus(a, draws[key][lo:lo + per], spec, s_all)
            for i, c in enumerate(crit):
                if c in t:
                    boot[key][lo:lo + per, i] = t[c]
        report(lo + rb.size, spec.replicates, "criteria resamples")
    if "power" in crit:  # the pairs' standard errors from the item resamples, then each replicate's pairs
        se = _pair_se(fulls)
        i = crit.index("power")
        for k, idx in subsets.items():
            value[k][i] = pair_power(first, se, system_counts(idx[None, :], s_all), spec.alpha, spec.correction)[0]
        for sc, k in keys:
            boot[sc, k][:, i] = pair_power(fulls, se, system_counts(draws[sc, k], s_all), spec.alpha,
                                           spec.correction)
    return {(sc, k): CriteriaResult(eng.ids, crit, value[k].copy(), boot[sc, k], sc, confidence,
                                    np.ascontiguousarray(draws[sc, k])) for sc, k in keys}


def _only(spec: CriteriaSpec, keep) -> CriteriaSpec:
    """``spec`` with only the criteria of ``keep`` (and stability, always computed)."""
    return replace(spec, criteria=tuple(c for c in spec.criteria if c in keep))
