"""The confusion matrices the formal properties are checked on
(``metaeval.measures.properties``): every matrix up to a number of items
(``enumerate_matrices``), random mostly-right ones, random right-or-wrong
ones (``sparse_matrices``), ones concentrated on a few classes, and the
domain a property's settings ask for (``domain_matrices``)."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from ..settings import PROPERTY_K, PropertySettings

__all__ = ["enumerate_matrices", "random_matrices", "sparse_matrices", "concentrated_matrices", "enumeration_limit",
           "domain_matrices", "ENUMERATION_BUDGET"]

K = PROPERTY_K  # the generic shape: three ordered classes
# at most this many K x K matrices are generated to enumerate a domain (before keeping those with every
# class in the gold): K = 4 enumerates up to 6 items, K = 5 up to 5, K >= 6 none (random matrices only)
ENUMERATION_BUDGET = 200_000


# ---------------------------------------------------------------------------
# the matrices
# ---------------------------------------------------------------------------
def enumerate_matrices(n_max: int, k: int = K) -> np.ndarray:
    """Every K x K matrix of non-negative integers with at most ``n_max`` items and every class in the gold.

    Parameters
    ----------
    n_max : int
    k : int, default 3

    Returns
    -------
    ndarray of int64, shape (D, K, K)

    Examples
    --------
    >>> enumerate_matrices(3).shape    # the 3 x 3 matrices of 3 items, one per gold class
    (220, 3, 3)
    """
    cells = k * k
    out = []
    for n in range(n_max + 1):
        bars = np.array(list(combinations(range(n + cells - 1), cells - 1)), dtype=np.int64).reshape(-1, cells - 1)
        edges = np.concatenate([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), n + cells - 1)], axis=1)
        out.append(np.diff(edges, axis=1) - 1)  # lexicographically ascending, as the combinations
    return np.concatenate(out).reshape(-1, k, k)


def random_matrices(count: int, n_max: int, seed: int, k: int = K) -> np.ndarray:
    """``count`` random k x k matrices with every class in the gold: item
    count uniform in [k, n_max], gold distribution ~ Dirichlet(0.5) (often
    imbalanced), each gold class's predictions ~ Dirichlet(0.5 + 3 [i = j])
    (mostly right, sometimes not).

    Examples
    --------
    >>> c = random_matrices(3, 50, seed=1)
    >>> c.shape, bool((c.sum(axis=1) > 0).all())    # every class in the gold (the columns)
    ((3, 3, 3), True)
    """
    rng = np.random.default_rng([seed, 0])
    n = rng.integers(k, n_max + 1, size=count)
    gold = rng.multinomial(n - k, rng.dirichlet(np.full(k, 0.5), size=count)) + 1  # every class at least once
    alpha = 0.5 + 3.0 * np.eye(k)  # alpha[i, j]: prediction i for gold j
    c = np.empty((count, k, k), dtype=np.int64)
    for j in range(k):  # a loop over the K classes, not over matrices
        c[:, :, j] = rng.multinomial(gold[:, j], rng.dirichlet(alpha[:, j], size=count))
    return c


def sparse_matrices(count: int, n_max: int, seed: int, k: int = K, fill: bool = False) -> np.ndarray:
    """``count`` random k x k matrices whose cells are drawn alike, right or
    wrong: item count uniform in [k, n_max], cell shares ~ Dirichlet(0.3)
    over all k*k cells (a few large cells, often off the diagonal: systems
    worse than chance, where chance-corrected metrics misbehave); matrices
    without every class in the gold are dropped.

    Examples
    --------
    >>> sparse_matrices(3, 20, seed=1).shape        # those without every gold class are left out
    (2, 3, 3)
    """
    rng = np.random.default_rng([seed, 1])
    n = rng.integers(k, n_max + 1, size=count)
    c = rng.multinomial(n, rng.dirichlet(np.full(k * k, 0.3), size=count)).reshape(count, k, k)
    if fill:  # a gold class left empty gets one item, predicted wrongly as the matrix's largest row
        empty = c.sum(axis=1) == 0  # (count, K)
        row = c.sum(axis=2).argmax(axis=1)
        rows, cols = np.nonzero(empty)
        np.add.at(c, (rows, row[rows], cols), 1)
        return c
    return c[(c.sum(axis=1) > 0).all(axis=1)]


def concentrated_matrices(count: int, n_max: int, seed: int, k: int, active: int = K) -> np.ndarray:
    """``count`` random k x k matrices whose items fall on ``active`` random
    classes (cell shares ~ Dirichlet(0.3) over their ``active`` x
    ``active`` cells; item count uniform in [k, n_max]), every other gold
    class given one item on the diagonal: the worse-than-chance matrices of
    three classes, where chance-corrected metrics misbehave, inside a
    larger shape (a sparse draw over all K^2 cells rarely makes them).

    Examples
    --------
    >>> c = concentrated_matrices(3, 100, seed=1, k=5)
    >>> c.shape, bool((c.sum(axis=1) > 0).all())
    ((3, 5, 5), True)
    """
    rng = np.random.default_rng([seed, 2])
    n = rng.integers(k, n_max + 1, size=count)
    act = np.argsort(rng.random((count, k)), axis=1)[:, :active]
    c = np.zeros((count, k, k), dtype=np.int64)
    shares = rng.dirichlet(np.full(active * active, 0.3), size=count)
    cells = rng.multinomial(n - k, shares).reshape(count, active, active)
    rows = np.arange(count)[:, None, None]
    c[rows, act[:, :, None], act[:, None, :]] = cells
    empty = c.sum(axis=1) == 0
    r, j = np.nonzero(empty)
    c[r, j, j] += 1
    return c


def enumeration_limit(k: int, n_max: int, budget: int = ENUMERATION_BUDGET) -> int:
    """The largest item count up to ``n_max`` whose K x K matrices
    (all of them, before keeping those with every class in the gold) are at
    most ``budget``; below k (no matrix has every class) when none is.

    Examples
    --------
    >>> enumeration_limit(3, 8), enumeration_limit(4, 8), enumeration_limit(2, 8), enumeration_limit(14, 8)
    (8, 6, 8, 0)
    """
    from math import comb

    cells = k * k
    n = n_max
    while n >= 0 and comb(n + cells, cells) > budget:  # all matrices of at most n items
        n -= 1
    return n if n >= k else 0


def domain_matrices(settings: PropertySettings) -> np.ndarray:
    """The matrices the properties are checked on: enumerated, random and sparse ones.

    Parameters
    ----------
    settings : PropertySettings
        ``n_max`` (every matrix up to that many items), ``random`` (random
        matrices of up to ``random_n_max`` items, mostly right, and as many of
        up to ``random_sparse_n_max`` items with cells drawn alike), ``seed``.

    Returns
    -------
    ndarray of int64, shape (D, K, K)

    Examples
    --------
    >>> domain_matrices(PropertySettings(n_max=4, random=50)).shape
    (278, 3, 3)
    >>> domain_matrices(PropertySettings(n_max=4, random=50, k=2, weights=(0.5, 0.5), f_avg_classes=(0,),
    ...                          unrelated=None)).shape
    (127, 2, 2)
    """
    k = settings.k
    n = settings.n_max if k == K else enumeration_limit(k, settings.n_max)
    c = enumerate_matrices(n, k) if n >= k else np.zeros((0, k, k), dtype=np.int64)
    c = c[(c.sum(axis=1) > 0).all(axis=1)]
    if settings.random:
        r = settings.random_count
        c = np.concatenate([c, random_matrices(r, settings.random_n_max, settings.seed, k),
                            sparse_matrices(r, settings.random_sparse_n_max, settings.seed, k, fill=k > K)]
                           + ([concentrated_matrices(settings.random, settings.random_n_max, settings.seed, k)]
                              if k > K else []))
    return c[np.argsort(c.sum(axis=(1, 2)), kind="stable")]
