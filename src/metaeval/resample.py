"""Confusion tensors of many item subsets at once (random half-splits,
class-balanced subsamples), without a Python loop over items or subsets.

The engine: with the one-hot matrix ``A`` of shape (N, S*K*K),
``A[n, (s*K + pred[s, n])*K + gold[n]] = 1``, the confusion tensors of B
item subsets given as a 0/1 mask matrix ``X`` (B, N) are one matrix product
``X @ A`` (B, S*K*K).  The complement of a half is ``total - X``, so only X
is computed.  Counts are exact: float32 holds integers up to 2**24 exactly
(float64 is used beyond).  Memory is bounded by processing subsets in chunks
and systems in blocks (``max_bytes``).

Determinism: the subsets come from a counter-based generator (``random_keys``:
a hash of seed, subset index and item), so the same seed gives the same
subsets, bit for bit, whatever the chunk size, the shard, or the order in
which subsets are computed, and all subsets of a chunk are drawn in one
vectorised call.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

__all__ = ["STREAMS", "MAX_SEED", "random_keys", "split_mask", "split_masks", "balanced_masks", "SubsetConfusion"]


MAX_MASK_ELEMENTS = 1 << 25  # per chunk: 32M items x subsets (256 MB of random keys)

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
STREAMS = {"split": 1, "balanced": 2, "bootstrap": 3, "permutation": 4}
MAX_SEED = (1 << 56) - 1


def random_keys(n: int, indices, seed: int, stream: str = "split") -> np.ndarray:
    """Uniform random uint64 keys (B, N): key[b, i] = hash(stream, seed, index b, item i).

    A counter-based generator: each key depends only on (stream, seed, b, i),
    so any subset of indices, in any chunks or shards, gets the same keys,
    without a Python loop over indices or items.  The (stream, seed) word is
    hashed before the index is mixed in: with a plain ``hash(seed ^ b)`` the
    seeds s and s ^ d would give the same draws at b and b ^ d.
    """
    seed = int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer in [0, 2**56), got {seed}")
    with np.errstate(over="ignore"):
        b = np.asarray(indices, dtype=np.uint64)
        base = _splitmix64(np.uint64((STREAMS[stream] << 56) | seed))
        per_index = _splitmix64(base ^ b)  # (B,)
        items = np.arange(n, dtype=np.uint64) * _ITEM
        return _splitmix64(per_index[:, None] ^ items[None, :])


def _lowest(keys: np.ndarray, columns: np.ndarray, take: int, out: np.ndarray) -> None:
    """Set ``out[b, columns[j]]`` for the ``take`` smallest keys of each row.

    Selection by threshold: the take-th smallest key of the row
    (``np.partition``), then ``key <= threshold``; a row where equal 64-bit
    keys straddle the threshold (probability about N**2 / 2**65) falls back
    to a stable sort of that row.
    """
    if take <= 0:
        return
    whole = columns.size == keys.shape[1]  # columns is then arange(N): avoid a copy
    sub = keys if whole else keys[:, columns]
    if take >= sub.shape[1]:
        out[:, columns] = True
        return
    kth = np.partition(sub, take - 1, axis=1)[:, take - 1:take]
    sel = sub <= kth
    for r in np.flatnonzero(sel.sum(1) != take):
        sel[r] = False
        sel[r, np.argsort(sub[r], kind="stable")[:take]] = True
    out[:, columns] = sel


def split_masks(n: int, splits, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """Boolean masks (B, N) of half X of each random split in ``splits``.

    Plain: X holds the ``n // 2`` items with the smallest keys of the split
    (a uniformly random half).  Stratified (``strata``: gold class codes): X
    takes the ``n_c // 2`` items with the smallest keys of every class c, so X
    and Y = the rest have the same class proportions (up to one item per
    class with an odd count).
    """
    splits = np.asarray(list(splits) if not isinstance(splits, np.ndarray) else splits, dtype=np.int64)
    keys = random_keys(n, splits, seed, "split")
    mask = np.zeros((splits.size, n), dtype=bool)
    if strata is None:
        _lowest(keys, np.arange(n), n // 2, mask)
    else:
        strata = np.asarray(strata)
        for c in np.unique(strata):  # a loop over classes, not splits or items
            idx = np.flatnonzero(strata == c)
            _lowest(keys, idx, idx.size // 2, mask)
    return mask


def split_mask(n: int, b: int, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """Mask (N,) of half X of the single split ``b`` (see ``split_masks``)."""
    return split_masks(n, [b], seed, strata)[0]


def balanced_masks(gold: np.ndarray, repeats, seed: int, size: int | None = None) -> np.ndarray:
    """Masks (R, N) that keep ``size`` random items of every class (default:
    the size of the smallest class), an independent draw per repeat index."""
    gold = np.asarray(gold)
    classes, counts = np.unique(gold, return_counts=True)
    m = int(counts.min() if size is None else size)
    repeats = np.asarray(list(repeats) if not isinstance(repeats, np.ndarray) else repeats, dtype=np.int64)
    keys = random_keys(gold.size, repeats, seed, "balanced")
    out = np.zeros((repeats.size, gold.size), dtype=bool)
    for c in classes:
        _lowest(keys, np.flatnonzero(gold == c), m, out)
    return out


class SubsetConfusion:
    """Confusion tensors (B, S, K, K) of item subsets of one dataset.

    >>> eng = SubsetConfusion(gold, predictions, k)
    >>> cx = eng.confusion(masks)        # (B, S, K, K) for the subsets
    >>> cy = eng.total - cx              # their complements
    """

    def __init__(self, gold, predictions, k: int, max_bytes: int = 512 * 2**20):
        self.gold = np.asarray(gold, dtype=np.int64)
        self.pred = np.atleast_2d(np.asarray(predictions, dtype=np.int64))
        self.k = int(k)
        self.n = self.gold.size
        self.s = self.pred.shape[0]
        self.dtype = np.float32 if self.n < 2**24 else np.float64
        itemsize = np.dtype(self.dtype).itemsize
        per_system = self.n * self.k * self.k * itemsize
        self.block = max(1, min(self.s, int(max_bytes // max(per_system, 1))))
        self._blocks = [(lo, min(lo + self.block, self.s)) for lo in range(0, self.s, self.block)]
        # keep the one-hot blocks when they all fit in the budget
        self._cache = {} if len(self._blocks) == 1 else None
        kk = self.k * self.k
        self.total = np.bincount(
            (np.arange(self.s)[:, None] * kk + self.pred * self.k + self.gold[None, :]).ravel(),
            minlength=self.s * kk).reshape(self.s, self.k, self.k)

    def _onehot(self, lo: int, hi: int) -> np.ndarray:
        if self._cache is not None and (lo, hi) in self._cache:
            return self._cache[(lo, hi)]
        kk = self.k * self.k
        a = np.zeros((self.n, (hi - lo) * kk), dtype=self.dtype)
        cols = (np.arange(hi - lo)[:, None] * kk + self.pred[lo:hi] * self.k + self.gold[None, :]).T
        a[np.arange(self.n)[:, None], cols] = 1
        if self._cache is not None:
            self._cache[(lo, hi)] = a
        return a

    def confusion(self, masks) -> np.ndarray:
        """(B, S, K, K) int64 confusion tensors of the subsets in ``masks`` (B, N)."""
        x = np.asarray(masks, dtype=self.dtype)
        if x.ndim != 2 or x.shape[1] != self.n:
            raise ValueError(f"masks must have shape (B, {self.n}), got {x.shape}")
        out = np.empty((x.shape[0], self.s, self.k, self.k), dtype=np.int64)
        for lo, hi in self._blocks:
            prod = x @ self._onehot(lo, hi)
            out[:, lo:hi] = np.rint(prod).astype(np.int64).reshape(x.shape[0], hi - lo, self.k, self.k)
        return out

    def chunks(self, masks_of, indices, chunk_size: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(indices_chunk, confusion)`` over ``indices`` in chunks,
        where ``masks_of(indices_chunk)`` gives their (B, N) masks.  Chunks
        are capped at ``MAX_MASK_ELEMENTS`` mask cells (memory bound; the
        results do not depend on the chunking)."""
        indices = np.asarray(indices)
        chunk_size = max(1, min(int(chunk_size), MAX_MASK_ELEMENTS // max(self.n, 1)))
        for start in range(0, indices.size, chunk_size):
            idx = indices[start:start + chunk_size]
            yield idx, self.confusion(masks_of(idx))
