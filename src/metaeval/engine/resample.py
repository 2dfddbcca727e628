"""Confusion tensors of many item subsets at once (random half-splits,
class-balanced subsamples, bootstrap resamples), without a Python loop over
items or subsets.

The engine (``SubsetConfusion``): a subset is a row of item weights, 0/1
for a half or a subsample, the number of draws for a bootstrap resample.
Items are grouped by gold class g; for each g the counts of the predicted
classes p < K-1 of every system are one matrix product of the weights of g's
items with their one-hot predictions (N_g x S(K-1) columns), and the count
of the last class is what remains of g's total weight.  The complement of a
half is ``total - X``, so only X is computed.  Counts are exact: float32
holds integers up to 2**24 exactly (float64 is used beyond).  Memory is
bounded by processing subsets in chunks and systems in blocks.

The draws (``split_masks``, ``balanced_masks``, ``bootstrap_weights``) come
from a counter-based generator: the uniform number of item i in subset b is a
hash of (stream, seed, b, i) (``random_keys``), so the same seed gives the
same subsets, bit for bit, whatever the chunk size, the shard, or the order
in which subsets are computed.  Fixed-size subsets are drawn by selection
sampling (Knuth's Algorithm S: item i is taken with probability
need / remaining, to within 2**-32), which gives every subset of the size
the same chance in one pass over the items.  The passes are compiled (numba,
``metaeval.engine.kernels``), one subset per thread: no Python loop over items or
subsets.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from . import MAX_SEED  # (written in the package: metaeval.settings reads it without numpy)

__all__ = ["STREAMS", "MAX_SEED", "random_keys", "split_mask", "split_masks", "balanced_masks",
           "bootstrap_weights", "bootstrap_within", "permutations", "permuted_confusion", "permuted_sums", "count_dtype", "SubsetConfusion",
           "compile_kernels"]


MAX_MASK_ELEMENTS = 1 << 25  # per chunk: 32M items x subsets (128 MB of float32 weights)

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ITEM = np.uint64(0xD1B54A32D192ED03)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (Steele, Lea & Flood 2014), elementwise on
    uint64 (wrapping arithmetic): a bijective, well-mixed hash."""
    x = x + _GAMMA
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


# Every use of the generator has its own stream, so the split draws and the
# balanced subsamples (or any later use) are independent even when their
# seeds are equal or related: (stream, seed) is packed into one 64-bit word,
# stream in the top 8 bits, so that distinct pairs give distinct words.
STREAMS = {"split": 1, "balanced": 2, "bootstrap": 3, "permutation": 4, "noise": 5, "noise_class": 6,
           # the criteria's resamples (metaeval.verdict.criteria): systems, the half-splits and label noise inside them
           "systems": 7, "criteria_split": 8, "criteria_noise": 9, "criteria_noise_class": 10,
           # test-set size design (metaeval.methods.design): the disjoint subsets of the swap experiment
           "design": 11,
           # the leaderboards' three resampling schemes (metaeval.methods.leaderboards): items within each task,
           # whole tasks, and both (tasks, then items within each task drawn)
           "strata": 12, "clusters": 13, "two_stage": 14,
           # and their half-splits: items within each task, and tasks
           "leaderboard_split": 15, "leaderboard_task_split": 16}


def _kernels():
    """The compiled passes (``metaeval.engine.kernels``), imported on first use."""
    from . import kernels

    return kernels


def _index_words(indices, seed: int, stream: str) -> np.ndarray:
    """One uint64 per subset index: hash(hash(stream, seed) ^ index)."""
    seed = int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer in [0, 2**56), got {seed}")
    with np.errstate(over="ignore"):
        b = np.asarray(indices, dtype=np.uint64)
        base = _splitmix64(np.uint64((STREAMS[stream] << 56) | seed))
        return np.atleast_1d(_splitmix64(base ^ b))


def random_keys(n: int, indices, seed: int, stream: str = "split") -> np.ndarray:
    """Uniform random uint64 keys (B, N): key[b, i] = hash(stream, seed, index b, item i).

    A counter-based generator: each key depends only on (stream, seed, b, i),
    so any subset of indices, in any chunks or shards, gets the same keys,
    without a Python loop over indices or items.  The (stream, seed) word is
    hashed before the index is mixed in: with a plain ``hash(seed ^ b)`` the
    seeds s and s ^ d would give the same draws at b and b ^ d.  The draws
    use ``key >> 11`` as a uniform number in [0, 1) with 53 bits.

    Examples
    --------
    >>> k = random_keys(3, [0, 1], seed=1)     # 2 subsets x 3 items
    >>> k.shape, k.dtype, bool((random_keys(3, [1], seed=1) == k[1:]).all())   # the same keys, any chunk
    ((2, 3), dtype('uint64'), True)
    """
    with np.errstate(over="ignore"):
        per_index = _index_words(indices, seed, stream)
        items = np.arange(n, dtype=np.uint64) * _ITEM
        return _splitmix64(per_index[:, None] ^ items[None, :])


def permutations(n_units: int, n_systems: int, trials, seed: int) -> np.ndarray:
    """(T, U, S): the permutation of the systems each unit (item or group)
    gets in each trial of the randomised test, a counter-based draw: it
    depends only on (seed, trial, unit), as the splits do.  Slot s of unit u
    takes the predictions of system ``perm[t, u, s]``.

    Examples
    --------
    >>> permutations(2, 3, [0], seed=1).tolist()   # trial 0: a permutation of 3 systems per unit
    [[[1, 0, 2], [2, 1, 0]]]
    """
    words = _index_words(np.asarray(trials, dtype=np.int64), seed, "permutation")
    out = np.empty((words.size, n_units, n_systems), dtype=np.int64)
    _kernels().permutations(words, n_units, n_systems, out)
    return out


def permuted_confusion(gold, predictions, k: int, trials, seed: int, units=None) -> np.ndarray:
    """(T, S, K, K) confusion tensors of the systems after permuting, in
    every trial, the predictions of each unit across the systems (the
    permutations of ``permutations``; ``units``: a group code per item, for
    whole-group permutations; default: every item its own unit).

    Examples
    --------
    >>> permuted_confusion([0, 1], [[0, 1], [1, 1]], 2, [0], seed=1).tolist()
    [[[[1, 0], [0, 1]], [[0, 0], [1, 1]]]]
    """
    gold = np.asarray(gold, dtype=np.int64)
    pred = np.atleast_2d(predictions)
    pred_t = np.ascontiguousarray(pred.T, dtype=np.int8 if k <= 127 else np.int64)  # (N, S): an item's row is contiguous
    units = np.arange(gold.size) if units is None else np.asarray(units, dtype=np.int64)
    order = np.argsort(units, kind="stable")
    n_units = int(units.max()) + 1 if units.size else 0
    start = np.searchsorted(units[order], np.arange(n_units + 1)).astype(np.int64)
    words = _index_words(np.asarray(trials, dtype=np.int64), seed, "permutation")
    # a unit on whose every item all systems predict alike gives the same counts in every trial, whatever the
    # permutation (and each unit's permutation depends on its own index alone): counted once, not shuffled
    agree = (pred_t == pred_t[:, :1]).all(axis=1)  # (N,)
    fixed = np.bincount(units, weights=~agree, minlength=n_units) == 0 if units.size else np.zeros(0, bool)
    items = fixed[units]
    s = pred.shape[0]
    base = np.bincount((np.arange(s)[:, None] * k * k + pred[:, items].astype(np.int64) * k + gold[items][None, :]).ravel(),
                       minlength=s * k * k).reshape(s, k, k)
    out = np.broadcast_to(base, (words.size, s, k, k)).copy()
    _kernels().permuted_confusion(words, start, order.astype(np.int64), np.flatnonzero(~fixed).astype(np.int64),
                                  pred_t, gold, int(k), out)
    return out


def permuted_sums(stats, trials, seed: int) -> np.ndarray:
    """(T, S, F) sums over units of per-unit statistics (U, S, F) after the
    same per-unit permutations of the systems (span statistics per article).

    Examples
    --------
    >>> import numpy as np
    >>> permuted_sums(np.ones((2, 2, 1)), [0], seed=1).tolist()   # equal statistics: unchanged sums
    [[[2.0], [2.0]]]
    """
    stats = np.ascontiguousarray(stats, dtype=np.float64)
    words = _index_words(np.asarray(trials, dtype=np.int64), seed, "permutation")
    out = np.zeros((words.size, stats.shape[1], stats.shape[2]), dtype=np.float64)
    _kernels().permuted_sums(words, stats, out)
    return out


def count_dtype(n: int):
    """The smallest signed integer type that holds every count up to ``n``
    (int16, int32 or int64): for keeping many confusion tensors, e.g. every
    Tukey trial's, in little memory (metrics are computed on int64 copies:
    products of counts would overflow a small type).

    Examples
    --------
    >>> count_dtype(100), count_dtype(10**6)
    (<class 'numpy.int16'>, <class 'numpy.int32'>)
    """
    for t in (np.int16, np.int32):
        if n <= np.iinfo(t).max:
            return t
    return np.int64


def _fill(kind: str, indices, seed: int, n: int, strata=None, take=None, pos=None, dtype=np.float32,
          stream: str | None = None) -> np.ndarray:
    words = _index_words(np.asarray(indices, dtype=np.int64), seed, stream or kind)
    pos = np.arange(n, dtype=np.int64) if pos is None else np.asarray(pos, dtype=np.int64)
    out = np.empty((words.size, n), dtype=np.float32 if np.dtype(dtype) == np.dtype(bool) else dtype)
    if kind == "bootstrap":
        units = np.arange(n, dtype=np.int64) if strata is None else np.asarray(strata, dtype=np.int64)
        _kernels().bootstrap(words, units, int(units.max()) + 1 if units.size else 0, pos, out)
    else:
        codes, strata = np.unique(np.zeros(n, dtype=np.int64) if strata is None else strata, return_inverse=True)
        strata = strata.astype(np.int64)
        size = np.bincount(strata, minlength=codes.size).astype(np.int64)
        # items of its stratum not yet passed when item i comes (itself included)
        seen = np.zeros(n, dtype=np.int64)
        in_order = True  # whether the columns keep every stratum's items in item order
        for c in range(codes.size):  # a loop over strata (classes), not items or subsets
            idx = np.flatnonzero(strata == c)
            seen[idx] = np.arange(idx.size)
            in_order = in_order and bool(np.all(np.diff(pos[idx]) > 0))
        item = np.arange(n, dtype=np.int64)
        left, col = size[strata] - seen, pos
        if in_order:
            # visit the items in column order (the engine's columns: items grouped by gold class, the strata of
            # a stratified split): the same subsets, written in order instead of scattered (about a third of
            # the draw's time on 100,000 items)
            by_col = np.empty(n, dtype=np.int64)
            by_col[pos] = item
            item, strata, left, col = by_col, strata[by_col], left[by_col], item
        _kernels().select(words, item, strata, np.minimum(np.asarray(take(size), dtype=np.int64), size), left,
                          col, out)
    return out.astype(bool) if np.dtype(dtype) == np.dtype(bool) else out


def split_masks(n: int, splits, seed: int, strata: np.ndarray | None = None, *, pos=None,
                dtype=bool, stream: str = "split") -> np.ndarray:
    """Masks (B, N) of half X of each random split in ``splits``.

    Plain: X is a uniformly random set of ``n // 2`` items.  Stratified
    (``strata``: gold class codes): X takes ``n_c // 2`` random items of
    every class c, so X and Y = the rest have the same class proportions
    (up to one item per class with an odd count).  ``pos``/``dtype``: where
    each item's column goes, and the array type (the engine asks for float32
    in its own column order).

    Examples
    --------
    >>> split_masks(6, [0, 1], seed=1).astype(int).tolist()
    [[1, 1, 0, 0, 1, 0], [1, 0, 1, 0, 1, 0]]
    >>> split_masks(6, [0, 1], seed=1, strata=[0, 0, 0, 0, 1, 1]).sum(axis=1).tolist()   # 2 of class 0, 1 of class 1
    [3, 3]
    """
    return _fill("split", np.asarray(list(splits) if not isinstance(splits, np.ndarray) else splits), seed, n,
                 strata, lambda size: size // 2, pos, dtype, stream)


def split_mask(n: int, b: int, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """Mask (N,) of half X of the single split ``b`` (see ``split_masks``).

    Examples
    --------
    >>> split_mask(6, 0, seed=1).astype(int).tolist()
    [1, 1, 0, 0, 1, 0]
    """
    return split_masks(n, [b], seed, strata)[0]


def balanced_masks(gold: np.ndarray, repeats, seed: int, size: int | None = None, *, pos=None,
                   dtype=bool) -> np.ndarray:
    """Masks (R, N) that keep ``size`` random items of every class (default:
    the size of the smallest class), an independent draw per repeat index.

    Examples
    --------
    >>> balanced_masks([0, 0, 0, 1, 1, 2, 2, 2], [0], seed=1).astype(int).tolist()   # 2 items of each class
    [[1, 1, 0, 1, 1, 0, 1, 1]]
    """
    gold = np.asarray(gold)
    m = int(np.unique(gold, return_counts=True)[1].min() if size is None else size)
    return _fill("balanced", np.asarray(list(repeats) if not isinstance(repeats, np.ndarray) else repeats), seed,
                 gold.size, gold, lambda counts: np.full(counts.size, m), pos, dtype)


def bootstrap_weights(n: int, replicates, seed: int, groups: np.ndarray | None = None, *, pos=None,
                      dtype=np.int64, stream: str = "bootstrap") -> np.ndarray:
    """Counts (B, N): how many times each item is drawn in each bootstrap
    replicate (N draws with replacement).  With ``groups`` (codes 0..G-1 per
    item) whole groups are drawn, G draws with replacement, and every item
    of a group gets its group's count (the cluster bootstrap).

    Examples
    --------
    >>> bootstrap_weights(5, [0, 1], seed=1).tolist()          # 5 draws with replacement each
    [[0, 1, 1, 3, 0], [0, 2, 1, 1, 1]]
    >>> bootstrap_weights(4, [0], seed=1, groups=[0, 0, 1, 1]).tolist()   # whole groups
    [[1, 1, 1, 1]]
    """
    return _fill("bootstrap", np.asarray(list(replicates) if not isinstance(replicates, np.ndarray)
                                         else replicates), seed, n, groups, None, pos, dtype, stream)


def bootstrap_within(strata, replicates, seed: int, *, two_stage: bool = False, pos=None, dtype=np.int64,
                     stream: str | None = None) -> np.ndarray:
    """Counts (B, N): how many times each item is drawn in each bootstrap
    replicate drawn within strata (codes 0..G-1 per item): each stratum
    draws as many of its own items, with replacement, as it holds (the
    stratified bootstrap: every task keeps its number of questions).
    ``two_stage``: the G strata are drawn with replacement first, then each
    drawn copy of a stratum draws its items as above (the two-stage
    bootstrap of tasks and of items within tasks); an item's count sums
    over its stratum's copies, so a stratum drawn m times holds m times its
    size.  Streams: ``strata`` and ``two_stage`` (default by
    ``two_stage``).

    Examples
    --------
    >>> w = bootstrap_within([0, 0, 0, 1, 1], [0, 1], seed=1)
    >>> w[:, :3].sum(axis=1).tolist(), w[:, 3:].sum(axis=1).tolist()    # each stratum keeps its size
    ([3, 3], [2, 2])
    >>> w = bootstrap_within([0, 0, 0, 1, 1], range(200), seed=1, two_stage=True)
    >>> sorted(set(zip(w[:, :3].sum(axis=1).tolist(), w[:, 3:].sum(axis=1).tolist())))   # 2 strata drawn: (0, 2), (1, 1), (2, 0) copies
    [(0, 4), (3, 2), (6, 0)]
    """
    strata = np.asarray(strata, dtype=np.int64)
    if strata.ndim != 1 or (strata.size and strata.min() < 0):
        raise ValueError("strata must be one non-negative code per item")
    n = strata.size
    g = int(strata.max()) + 1 if n else 0
    members = np.argsort(strata, kind="stable").astype(np.int64)
    start = np.searchsorted(strata[members], np.arange(g + 1)).astype(np.int64)
    if g and np.any(np.diff(start) == 0):
        raise ValueError("every stratum code 0..G-1 needs at least one item")
    words = _index_words(np.asarray(list(replicates) if not isinstance(replicates, (np.ndarray, range))
                                    else replicates, dtype=np.int64), seed,
                         stream or ("two_stage" if two_stage else "strata"))
    pos = np.arange(n, dtype=np.int64) if pos is None else np.asarray(pos, dtype=np.int64)
    out = np.empty((words.size, n), dtype=dtype)
    _kernels().bootstrap_within(words, bool(two_stage), start, members, pos, out)
    return out


def unit_draws(n_units: int, replicates, seed: int) -> np.ndarray:
    """(B, units) counts of each unit in each replicate (stream ``bootstrap``).

    >>> unit_draws(4, [0], seed=1).sum()
    np.int64(4)
    """
    return bootstrap_weights(n_units, replicates, seed, dtype=np.int64)


def system_draws(n_systems: int, replicates, seed: int) -> np.ndarray:
    """(B, S) indices of the systems of each replicate, drawn with
    replacement (sorted: a multiset), stream ``systems``.

    >>> system_draws(3, [0, 1], seed=1).shape
    (2, 3)
    """
    counts = bootstrap_weights(n_systems, replicates, seed, dtype=np.int64, stream="systems")
    return np.repeat(np.tile(np.arange(n_systems), counts.shape[0]), counts.ravel()).reshape(counts.shape[0], -1)


def system_counts(draws: np.ndarray, n_systems: int) -> np.ndarray:
    """(B, S_all) how many times each system is in each draw (B, S).

    >>> system_counts(np.array([[0, 0, 2]]), 3).tolist()
    [[2, 0, 1]]
    """
    out = np.zeros((draws.shape[0], n_systems), dtype=np.int64)
    np.add.at(out, (np.arange(draws.shape[0])[:, None], draws), 1)
    return out


def compile_kernels() -> list[str]:
    """Compile every kernel of the engine into numba's on-disk cache by
    running each draw once on a few items, with the argument types the
    experiments pass; returns the compiled signatures.  The workflow does
    this in one job before the experiments jobs, which then load the
    kernels instead of each compiling them (about 12 s per job on a cold
    cache).  Missing a type here costs time only: numba compiles it on use.

    Examples
    --------
    >>> signatures = compile_kernels()    # loaded from numba's cache once compiled
    >>> sorted({s.split("(")[0] for s in signatures})
    ['bootstrap', 'bootstrap_within', 'permutations', 'permuted_confusion', 'permuted_ranked', 'permuted_sums', 'ranked_rows', 'ranked_weights', 'select', 'tau_rows']
    """
    n, idx, gold = 8, np.arange(2, dtype=np.int64), np.arange(8, dtype=np.int64) % 3
    pos = np.arange(n, dtype=np.int64)
    split_masks(n, idx, 0, pos=pos, dtype=np.float32)
    split_masks(n, idx, 0, gold, pos=pos, dtype=np.float32)
    balanced_masks(gold, idx, 0, pos=pos, dtype=np.float32)
    bootstrap_weights(n, idx, 0, pos=pos, dtype=np.float32)
    bootstrap_weights(n, idx, 0, gold, pos=pos, dtype=np.float32)
    bootstrap_weights(n, idx, 0)  # counts as int64: unit_draws and system_draws (the verdict's criteria)
    for two_stage in (False, True):  # the leaderboards' draws within tasks (float64 weights), and as counts
        bootstrap_within(gold, idx, 0, two_stage=two_stage, pos=pos, dtype=np.float64)
        bootstrap_within(gold, idx, 0, two_stage=two_stage)
    permutations(n, 3, idx, 0)
    permuted_confusion(gold, np.stack([gold, gold[::-1]]), 3, idx, 0)
    permuted_confusion(gold, np.stack([gold, gold[::-1]]), 3, idx, 0, units=gold)
    permuted_sums(np.ones((n, 2, 3)), idx, 0)
    k = _kernels()
    # directly: kendall_tau answers problems this small in NumPy; its own
    # arguments (fresh C-ordered float64 rows, a bool, a float64 out)
    scores = np.arange(6.0).reshape(2, 3)
    k.tau_rows(scores.copy(), scores[::-1].copy(), True, np.empty(2))
    # the metrics of scores (metaeval.measures.scores.binary): one system's weight rows, and rows of their own order
    w, positive = np.ones((2, n)), (gold == 1)
    k.ranked_weights(w.T.copy(), pos, positive[:, None].copy(), np.arange(n + 1, dtype=np.int64), np.empty((2, 2)))
    k.ranked_rows(np.ones((2, n)), np.stack([positive, positive]), w.copy(), np.empty((2, 2)))
    k.ranked_weights(w.T.copy(), pos, np.stack([positive, positive], axis=1), np.arange(n + 1, dtype=np.int64),
                     np.empty((2, 2)))
    k.permuted_ranked(_index_words(idx, 0, "permutation"), 2, 2, np.arange(n, dtype=np.int64) % 4, np.arange(n, 0, -1.0),
                      positive, np.empty((2, 2, 2)))
    return [f"{name}({', '.join(map(str, sig))})" for name in ("select", "bootstrap", "bootstrap_within", "permutations",
                                                                "permuted_confusion",
                                               "permuted_sums", "tau_rows", "ranked_weights", "ranked_rows",
                                               "permuted_ranked")
            for sig in getattr(k, "_" + name).signatures]


# ---------------------------------------------------------------------------
class SubsetConfusion:
    """Confusion tensors (B, S, K, K) of item subsets of one dataset.

    >>> gold, predictions = [0, 1, 2, 2], [[0, 1, 2, 0], [1, 1, 2, 2]]
    >>> eng = SubsetConfusion(gold, predictions, k=3)
    >>> masks = split_masks(4, range(2), seed=7)   # two random halves
    >>> cx = eng.confusion(masks)                   # (B, S, K, K) for the subsets
    >>> cy = eng.total - cx                         # their complements
    >>> (cx + cy == eng.total).all(), cx.shape
    (np.True_, (2, 2, 3, 3))

    A subset is a row of 0/1 membership or of non-negative integer weights
    (a bootstrap resample draws items several times).  ``order`` is the
    engine's own column order (items grouped by gold class); weights given in
    that order (``ordered=True``, e.g. drawn with ``pos=eng.pos``) skip a
    gather.
    """

    def __init__(self, gold, predictions, k: int, max_bytes: int = 512 * 2**20):
        self.gold = np.asarray(gold, dtype=np.int64)
        self.pred = np.atleast_2d(np.asarray(predictions, dtype=np.int64))
        self.k = int(k)
        self.n = self.gold.size
        self.s = self.pred.shape[0]
        self.dtype = np.float32 if self.n < 2**24 else np.float64
        kk = self.k * self.k
        self.total = np.bincount(
            (np.arange(self.s)[:, None] * kk + self.pred * self.k + self.gold[None, :]).ravel(),
            minlength=self.s * kk).reshape(self.s, self.k, self.k)
        self.order = np.argsort(self.gold, kind="stable")
        self.pos = np.empty(self.n, dtype=np.int64)
        self.pos[self.order] = np.arange(self.n)
        self._bounds = np.searchsorted(self.gold[self.order], np.arange(self.k + 1))
        width = max(self.k - 1, 1)
        per_system = self.n * width * np.dtype(self.dtype).itemsize
        self.block = max(1, min(self.s, int(max_bytes // max(per_system, 1))))
        self._blocks = [(lo, min(lo + self.block, self.s)) for lo in range(0, self.s, self.block)]
        self._cache = {} if len(self._blocks) == 1 else None

    def _onehot(self, g: int, lo: int, hi: int) -> np.ndarray:
        """One-hot predictions of gold class g's items: (N_g, S_block (K-1))."""
        key = (g, lo, hi)
        if self._cache is not None and key in self._cache:
            return self._cache[key]
        w = self.k - 1
        p = self.pred[lo:hi, self.order[self._bounds[g]:self._bounds[g + 1]]].T  # (N_g, S_block)
        a = np.zeros((p.shape[0], (hi - lo) * w), dtype=self.dtype)
        rows, sys = np.nonzero(p < w)
        a[rows, sys * w + p[rows, sys]] = 1
        if self._cache is not None:
            self._cache[key] = a
        return a

    def confusion(self, masks, ordered: bool = False) -> np.ndarray:
        """(B, S, K, K) int64 confusion tensors of the subsets in ``masks``
        (B, N), in item order, or in the engine's ``order`` if ``ordered``."""
        x = np.asarray(masks)
        if x.ndim != 2 or x.shape[1] != self.n:
            raise ValueError(f"masks must have shape (B, {self.n}), got {x.shape}")
        x = x if ordered else x[:, self.order]
        x = np.asarray(x, dtype=self.dtype)
        b, w = x.shape[0], self.k - 1
        out = np.empty((b, self.s, self.k, self.k), dtype=np.int64)
        for g in range(self.k):
            xg = x[:, self._bounds[g]:self._bounds[g + 1]]
            size = np.rint(xg.sum(axis=1, dtype=np.float64)).astype(np.int64)  # (B,) weight of gold class g
            for lo, hi in self._blocks:
                part = np.rint(xg @ self._onehot(g, lo, hi)).astype(np.int64).reshape(b, hi - lo, w)
                out[:, lo:hi, :w, g] = part
                out[:, lo:hi, w, g] = size[:, None] - part.sum(axis=2)
        return out

    def chunks(self, masks_of, indices, chunk_size: int, ordered: bool = False
               ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(indices_chunk, confusion)`` over ``indices`` in chunks,
        where ``masks_of(indices_chunk)`` gives their (B, N) masks (in the
        engine's order if ``ordered``).  Chunks are capped at
        ``MAX_MASK_ELEMENTS`` mask cells (memory bound; the results do not
        depend on the chunking)."""
        indices = np.asarray(indices)
        for idx in chunk_indices(indices, chunk_size, self.n):
            yield idx, self.confusion(masks_of(idx), ordered=ordered)


def chunk_indices(indices: np.ndarray, chunk_size: int, n: int) -> Iterator[np.ndarray]:
    """``indices`` in chunks of at most ``chunk_size`` and at most
    ``MAX_MASK_ELEMENTS`` cells of (chunk, n) weights."""
    size = max(1, min(int(chunk_size), MAX_MASK_ELEMENTS // max(n, 1)))
    for start in range(0, indices.size, size):
        yield indices[start:start + size]
