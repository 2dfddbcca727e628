"""Confusion tensors of many item subsets at once (random half-splits,
class-balanced subsamples), without a Python loop over items or subsets.

The engine: with the one-hot matrix ``A`` of shape (N, S*K*K),
``A[n, (s*K + pred[s, n])*K + gold[n]] = 1``, the confusion tensors of B
item subsets given as a 0/1 mask matrix ``X`` (B, N) are one matrix product
``X @ A`` (B, S*K*K).  The complement of a half is ``total - X``, so only X
is computed.  Counts are exact: float32 holds integers up to 2**24 exactly
(float64 is used beyond).  Memory is bounded by processing subsets in chunks
and systems in blocks (``max_bytes``).

Determinism: subset ``b`` is drawn from its own stream
``numpy.random.default_rng([seed, b])``, so the same seed gives the same
subsets, bit for bit, whatever the chunk size, the shard, or the order in
which subsets are computed.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

__all__ = ["split_mask", "split_masks", "balanced_masks", "SubsetConfusion"]


def split_mask(n: int, b: int, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """Boolean mask (N,) of half X of random split ``b``.

    Plain: X is a uniformly random subset of ``n // 2`` items.  Stratified
    (``strata``: gold class codes): X takes ``n_c // 2`` random items of
    every class c, so X and Y = the rest have the same class proportions
    (up to one item per class with an odd count).
    """
    rng = np.random.default_rng([int(seed), int(b)])
    mask = np.zeros(n, dtype=bool)
    if strata is None:
        mask[rng.permutation(n)[: n // 2]] = True
    else:
        for c in np.unique(strata):
            idx = np.flatnonzero(strata == c)
            mask[rng.permutation(idx)[: idx.size // 2]] = True
    return mask


def split_masks(n: int, splits, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """Stacked masks (B, N) of the given split indices."""
    return np.stack([split_mask(n, b, seed, strata) for b in splits]) if len(splits) else np.zeros((0, n), bool)


def balanced_masks(gold: np.ndarray, repeats, seed: int, size: int | None = None) -> np.ndarray:
    """Masks (R, N) that keep ``size`` random items of every class (default:
    the size of the smallest class), one independent draw per repeat index."""
    gold = np.asarray(gold)
    classes, counts = np.unique(gold, return_counts=True)
    m = int(counts.min() if size is None else size)
    out = np.zeros((len(repeats), gold.size), dtype=bool)
    members = [np.flatnonzero(gold == c) for c in classes]
    for r, b in enumerate(repeats):
        rng = np.random.default_rng([int(seed), int(b)])
        for idx in members:
            out[r, rng.choice(idx, size=m, replace=False)] = True
    return out


class SubsetConfusion:
    """Confusion tensors (B, S, K, K) of item subsets of one dataset.

    >>> eng = SubsetConfusion(gold, predictions, k)
    >>> cx = eng.confusion(masks)        # (B, S, K, K) for the subsets
    >>> cy = eng.total - cx              # their complements
    """

    def __init__(self, gold, predictions, k: int, max_bytes: int = 256 * 2**20):
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
        where ``masks_of(indices_chunk)`` gives their (B, N) masks."""
        indices = np.asarray(indices)
        for start in range(0, indices.size, chunk_size):
            idx = indices[start:start + chunk_size]
            yield idx, self.confusion(masks_of(idx))
