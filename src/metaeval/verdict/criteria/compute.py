"""The criteria of every metric on the full data and on the shared
resamples, each criterion computed by its registered module
(``metaeval.verdict.criteria``'s docstring states the method)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...engine.progress import report
from ...engine.resample import MAX_MASK_ELEMENTS, chunk_indices, split_masks, system_counts, system_draws, unit_draws
from ...settings import default_of
from .base import REGISTRY, CriteriaResult, CriteriaSpec, _Engine, _nanmean, _tau, _tau_a_scale, _take

__all__ = ["SCHEMES", "criteria"]

SCHEMES = ("items", "both")


def _arrays(eng: _Engine, spec: CriteriaSpec, w_units, split_ids, split_seed, split_stream, draws: dict,
            strata) -> dict:
    """The oriented scores of every system the criteria of a chunk need,
    for unit counts ``w_units`` (bw, U): ``full`` (bw, M, S_all), the
    halves ``x``/``y`` of the splits ``split_ids`` (bw, R) of
    (``split_seed``, ``split_stream``) as (bw, R, M, S_all), and under each
    criterion's id the scores it ranks besides (``Criterion.arrays``, with
    its ``draws``).  The half X of a split holds the drawn units (all their
    copies) its mask sets; half Y the others."""
    bw, u = w_units.shape
    r = split_ids.shape[1]
    full, counts = eng.oriented(w_units)
    masks = split_masks(u, split_ids.ravel(), split_seed, strata, dtype=np.float32, stream=split_stream)
    half = eng.sc.counts(w_units.repeat(r, axis=0) * masks)
    x = eng.sc.score(half, oriented=True)
    y = eng.sc.score(counts.repeat(r) - half, oriented=True)
    out = {"full": full, "x": x.reshape((bw, r) + x.shape[1:]), "y": y.reshape((bw, r) + y.shape[1:])}
    for cid in spec.criteria:
        a = REGISTRY[cid].arrays(eng, spec, w_units, counts, draws.get(cid))
        if a is not None:
            out[cid] = a
    return out


def _taus(a: dict, sys: np.ndarray, spec: CriteriaSpec, n_all: int) -> dict:
    """The criteria of the arrays ``a`` of ``_arrays`` for the systems
    ``sys`` (b, S), one row of ``a`` per row of ``sys``: per criterion (b,
    M) (those computed after the replicates, as the discriminative power,
    are not here), and ``splits`` (b, R, M): the split taus."""
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
    out = {"splits": splits, "stability": _nanmean(splits, 1)}
    for cid in spec.criteria:
        out.update(REGISTRY[cid].values(tau, a, out))
    return out


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
    needing = [c for c in spec.criteria if REGISTRY[c].needs_classes]
    if needing and not (eng.cls or eng.items or eng.scores):
        raise ValueError(f"{', '.join(needing)} need{'s' if len(needing) == 1 else ''} classes, and these metrics "
                         "have none (span identification has no classes to merge, flip or re-weight)")
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
    firsts = {}
    first = None
    for ids in chunk_indices(np.arange(spec.point_splits), default_of("chunk_size"), u):  # memory bound only
        # the first chunk computes every criterion; the others only their split taus (the stability's)
        sp = spec if first is None else _only(spec, ())
        draws = {c: REGISTRY[c].draws(eng, sp, None, True) for c in sp.criteria}
        a = _arrays(eng, sp, ones, ids[None, :], spec.split_seed, "split", draws, strata)
        for k, idx in subsets.items():
            t = _taus(a, idx[None, :], sp, s_all)
            splits[k].append(t["splits"][0])
            if first is None:
                firsts[k] = {name: v[0] for name, v in t.items() if name != "splits"}
                for i, c in enumerate(crit):
                    if c in t:
                        value[k][i] = t[c][0]
        if first is None:
            first = a["full"]
        report(int(ids[-1]) + 1, spec.point_splits, "half-splits")
    for k in subsets:
        stab = _nanmean(np.concatenate(splits[k]), 0)
        for i, c in enumerate(crit):
            v = REGISTRY[c].point(firsts[k], stab)
            if v is not None:
                value[k][i] = v

    # the replicates: one unit draw, its splits and noisy golds per replicate, shared by the schemes; the
    # systems drawn again (BOOT-BOTH) or kept (items)
    bidx = np.arange(spec.replicates)
    draws_of = {("both", k): idx[system_draws(idx.size, bidx, spec.seed)] for k, idx in subsets.items()}
    draws_of.update({("items", k): np.broadcast_to(idx, (spec.replicates, idx.size)) for k, idx in subsets.items()})
    keys = [(sc, k) for sc in SCHEMES if sc in schemes for k in subsets if only is None or (sc, k) in only]
    boot = {key: np.full((spec.replicates, len(crit), m), np.nan) for key in keys}
    per = max(1, min(spec.chunk_size, MAX_MASK_ELEMENTS // max(spec.inner_splits * u, 1)))
    fulls = np.empty((spec.replicates, m, s_all))
    for lo in range(0, spec.replicates, per):
        rb = bidx[lo:lo + per]
        split_ids = rb[:, None] * spec.inner_splits + np.arange(spec.inner_splits)[None, :]
        draws = {c: REGISTRY[c].draws(eng, spec, rb, False) for c in crit}
        a = _arrays(eng, spec, unit_draws(u, rb, spec.seed), split_ids, spec.seed, "criteria_split", draws, strata)
        fulls[lo:lo + per] = a["full"]
        for key in keys:
            t = _taus(a, draws_of[key][lo:lo + per], spec, s_all)
            for i, c in enumerate(crit):
                if c in t:
                    boot[key][lo:lo + per, i] = t[c]
        report(lo + rb.size, spec.replicates, "criteria resamples")
    # the criteria computed once the replicates' full scores are known (the pairs' standard errors of the
    # discriminative power come from the item resamples), then for each replicate's systems
    for i, c in enumerate(crit):
        fin = REGISTRY[c].after(fulls, spec)
        if fin is None:
            continue
        for k, idx in subsets.items():
            value[k][i] = fin(first, system_counts(idx[None, :], s_all))[0]
        for sc, k in keys:
            boot[sc, k][:, i] = fin(fulls, system_counts(draws_of[sc, k], s_all))
    return {(sc, k): CriteriaResult(eng.ids, crit, value[k].copy(), boot[sc, k], sc, confidence,
                                    np.ascontiguousarray(draws_of[sc, k])) for sc, k in keys}


def _only(spec: CriteriaSpec, keep) -> CriteriaSpec:
    """``spec`` with only the criteria of ``keep`` (the split taus, hence the stability, are always computed)."""
    return replace(spec, criteria=tuple(c for c in spec.criteria if c in keep))
