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

__all__ = ["SCHEMES", "criteria", "replicate_rows", "replicate_shards"]

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
             only: set | None = None, parts: list[dict] | None = None) -> dict[tuple[str, str], CriteriaResult]:
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
    half-splits (items only).  ``parts``: the replicates computed already,
    ``replicate_rows``' dicts whose ``rows`` cover every replicate once (the
    workflow's shards, other processes: the same bits as drawing them here).
    Returns ``{(scheme, name): CriteriaResult}``."""
    eng, crit, subsets = _checked(scorer, spec, subsets, schemes)
    m, u, s_all = len(eng.ids), scorer.n_units, scorer.n_systems
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
    keys = _keys(subsets, schemes, only)
    draws_of = _system_draws(spec, subsets, keys, np.arange(spec.replicates))
    if parts is None:
        parts = [replicate_rows(scorer, spec, np.arange(spec.replicates), subsets=subsets, schemes=schemes,
                                strata=strata, only=only, _eng=eng)]
    rows = np.concatenate([np.asarray(p["rows"], dtype=np.int64) for p in parts]) if parts else np.zeros(0, int)
    if not np.array_equal(np.sort(rows), np.arange(spec.replicates)):
        raise ValueError(f"the parts' replicates must be 0 .. {spec.replicates - 1}, each once; got {rows.size} rows")
    fulls = np.empty((spec.replicates, m, s_all))
    boot = {key: np.empty((spec.replicates, len(crit), m)) for key in keys}
    for p in parts:
        r = np.asarray(p["rows"], dtype=np.int64)
        fulls[r] = p["fulls"]
        for key in keys:
            boot[key][r] = p[_part_key(key)]
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


def _checked(scorer, spec: CriteriaSpec, subsets, schemes):
    """The engine, the criteria and the subsets (by index) of a call, checked."""
    if not schemes or set(schemes) - set(SCHEMES):
        raise ValueError(f"schemes must be among {', '.join(map(repr, SCHEMES))}, got {schemes!r}")
    if scorer.n_units is None:
        raise ValueError("the scorer needs a resampling unit ('item' or 'group')")
    eng = _Engine(scorer, scorer.params)
    needing = [c for c in spec.criteria if REGISTRY[c].needs_classes]
    if needing and not (eng.cls or eng.items or eng.scores):
        raise ValueError(f"{', '.join(needing)} need{'s' if len(needing) == 1 else ''} classes, and these metrics "
                         "have none (span identification has no classes to merge, flip or re-weight)")
    s_all = scorer.n_systems
    subsets = {"all": np.arange(s_all)} if subsets is None else {k: np.asarray(v, dtype=np.int64)
                                                                   for k, v in subsets.items()}
    for name, idx in subsets.items():
        if idx.size < 2 or idx.min() < 0 or idx.max() >= s_all:
            raise ValueError(f"subset {name!r}: at least two of the {s_all} systems, by index")
    return eng, list(spec.criteria), subsets


def _keys(subsets, schemes, only) -> list[tuple[str, str]]:
    return [(sc, k) for sc in SCHEMES if sc in schemes for k in subsets if only is None or (sc, k) in only]


def _system_draws(spec: CriteriaSpec, subsets, keys, rows) -> dict:
    """The systems of each replicate in ``rows``: drawn again (``both``, from the replicate's index) or kept."""
    out = {}
    for sc, k in keys:
        idx = subsets[k]
        out[sc, k] = idx[system_draws(idx.size, rows, spec.seed)] if sc == "both" else \
            np.broadcast_to(idx, (rows.size, idx.size))
    return out


def _part_key(key) -> str:
    return f"boot_{key[0]}_{key[1]}"


def _per(spec: CriteriaSpec, n_units: int) -> int:
    """Replicates per engine call (memory): the calls start at multiples of
    it, whatever part of the replicates is drawn, so that a part's every
    call is the call of the whole (the same matrix products: the same bits)."""
    return max(1, min(spec.chunk_size, MAX_MASK_ELEMENTS // max(spec.inner_splits * n_units, 1)))


def replicate_shards(spec: CriteriaSpec, n_units: int, n_shards: int) -> list[np.ndarray]:
    """The replicates 0 .. B - 1 cut into ``n_shards`` contiguous parts, as
    even as the engine's calls allow (each part starts at a call's first
    replicate: ``_per``); fewer parts when there are fewer calls.

    >>> from metaeval.verdict.criteria import CriteriaSpec
    >>> [p.tolist() for p in replicate_shards(CriteriaSpec(replicates=10, chunk_size=3), 100, 2)]
    [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]]
    """
    per = _per(spec, n_units)
    calls = np.arange(0, spec.replicates, per)
    return [np.arange(c[0], min(c[-1] + per, spec.replicates)) for c in np.array_split(calls, n_shards) if c.size]


def replicate_rows(scorer, spec: CriteriaSpec, rows, *, subsets: dict | None = None, schemes=("both",),
                   strata: np.ndarray | None = None, only: set | None = None, _eng=None) -> dict:
    """The replicates ``rows`` of ``criteria`` (a shard of them): each
    replicate's full scores (``fulls``: (R, M, S_all)) and, per scheme and
    subset, the criteria computed per replicate (``boot_<scheme>_<subset>``:
    (R, C, M)); ``criteria(..., parts=[...])`` gathers them.  Each
    replicate is drawn from its own index and the seed alone, in the engine
    calls of the whole run (``_per``), so a part is the same bits as the
    same rows of the whole."""
    if _eng is None:
        eng, crit, subsets = _checked(scorer, spec, subsets, schemes)
    else:
        eng, crit = _eng, list(spec.criteria)
    rows = np.asarray(rows, dtype=np.int64)
    keys = _keys(subsets, schemes, only)
    m, u, s_all = len(eng.ids), scorer.n_units, scorer.n_systems
    out = {"rows": rows, "fulls": np.empty((rows.size, m, s_all))}
    for key in keys:
        out[_part_key(key)] = np.full((rows.size, len(crit), m), np.nan)
    if rows.size == 0:  # a shard beyond the engine's calls (more shards than calls)
        return out
    draws_of = _system_draws(spec, subsets, keys, rows)
    per = _per(spec, u)
    call = rows // per
    for c in np.unique(call):  # the rows of each engine call of the whole
        at = np.flatnonzero(call == c)
        rb = rows[at]
        split_ids = rb[:, None] * spec.inner_splits + np.arange(spec.inner_splits)[None, :]
        draws = {cr: REGISTRY[cr].draws(eng, spec, rb, False) for cr in crit}
        a = _arrays(eng, spec, unit_draws(u, rb, spec.seed), split_ids, spec.seed, "criteria_split", draws, strata)
        out["fulls"][at] = a["full"]
        for key in keys:
            t = _taus(a, draws_of[key][at], spec, s_all)
            for i, cr in enumerate(crit):
                if cr in t:
                    out[_part_key(key)][at, i] = t[cr]
        report(int(at[-1]) + 1, rows.size, "criteria resamples")
    return out


def _only(spec: CriteriaSpec, keep) -> CriteriaSpec:
    """``spec`` with only the criteria of ``keep`` (the split taus, hence the stability, are always computed)."""
    return replace(spec, criteria=tuple(c for c in spec.criteria if c in keep))
