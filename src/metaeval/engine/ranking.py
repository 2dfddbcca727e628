"""Rankings of systems and Kendall's tau between them, vectorised.

Conventions (used by every experiment):

* Scores are first *oriented* so that higher is better (lower-is-better
  metrics are negated), rounded to ``TIE_DECIMALS`` decimals so that values
  that are mathematically equal but differ by floating-point noise tie, and
  NaN (an undefined score) becomes -inf: it ranks last and ties with other
  NaNs.
* Kendall's tau is computed over all S(S-1)/2 pairs of systems from the
  signs of the pairwise differences:

      tau_a = (n_c - n_d) / (S(S-1)/2)
      tau_b = (n_c - n_d) / sqrt((P - T_x)(P - T_y))

  with T_x, T_y the pairs tied in x, in y.  tau-b is NaN when one ranking is
  all ties (as in ``scipy.stats.kendalltau``).  Tau between two score
  vectors equals tau between the rankings they induce.
* Every tau the project outputs comes from ``kendall_tau`` with the
  experiments' ``tau_variant`` (tau-b by default, tau-a selectable):
  similarity and similarity_intervals, stability (tiers too), merging and
  merging_balanced, weights_tau, noise and priors.  Only the reproduction
  report's check of the taus printed in Amemiya & Sakai's split tables
  uses tau-b always (the default of ``kendall_tau``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["TIE_DECIMALS", "orient", "competition_rank", "system_pairs", "kendall_tau", "tau_matrix"]

TIE_DECIMALS = 12


def orient(scores, higher_is_better=True) -> np.ndarray:
    """Scores made comparable for ranking: higher is better, ties rounded, NaN last.

    Parameters
    ----------
    scores : array_like
    higher_is_better : bool or array_like of bool, default True
        Broadcastable to ``scores`` (e.g. one per metric, shape (M, 1)).

    Returns
    -------
    ndarray
        Rounded to ``TIE_DECIMALS`` decimals (values equal up to floating-point
        noise tie), negated where lower is better, NaN (an undefined score)
        replaced by -inf (it ranks last and ties with other NaNs).

    Examples
    --------
    >>> orient([0.3, float("nan"), 0.1], higher_is_better=False).tolist()
    [-0.3, -inf, -0.1]
    """
    s = np.round(np.asarray(scores, dtype=np.float64), TIE_DECIMALS)
    s = np.where(np.asarray(higher_is_better), s, -s)
    return np.where(np.isnan(s), -np.inf, s)


def system_pairs(s: int) -> np.ndarray:
    """(P, 2) every pair (a, b) of ``s`` systems with a < b, in the order of
    ``itertools.combinations(range(s), 2)`` (and of ``np.triu_indices(s, 1)``):
    the order of every per-pair output (p-values, differences).

    >>> system_pairs(3).tolist()
    [[0, 1], [0, 2], [1, 2]]
    """
    return np.stack(np.triu_indices(int(s), 1), axis=1).astype(np.int64)


def competition_rank(key) -> np.ndarray:
    """Competition ranks of a 1-D key, smallest first (1, 2, 2, 4).

    Parameters
    ----------
    key : array_like, shape (n,)

    Returns
    -------
    ndarray of int, shape (n,)
        Ties share the smallest rank of their group, as
        ``scipy.stats.rankdata(method="min")``.

    Examples
    --------
    >>> competition_rank([0.2, 0.5, 0.5, 0.9]).tolist()
    [1, 2, 2, 4]
    """
    key = np.asarray(key)
    return np.searchsorted(np.sort(key), key, side="left") + 1


def kendall_tau(x, y, variant: str = "b") -> np.ndarray:
    """Kendall's tau between two rankings of the same systems, along the last axis.

    Parameters
    ----------
    x, y : array_like, shape (..., S)
        Oriented scores (``orient``) of S systems; they broadcast against each
        other, so one ranking can be compared with thousands at once.
    variant : {"a", "b"}, default "b"

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    Over the S(S-1)/2 pairs of systems, from the signs of the pairwise
    differences:

        tau_a = (n_c - n_d) / (S(S-1)/2)
        tau_b = (n_c - n_d) / sqrt((P - T_x)(P - T_y))

    with T_x, T_y the pairs tied in x, in y.  tau-b is NaN when one ranking is
    all ties, as ``scipy.stats.kendalltau`` (equal to it, tested).  Large
    problems run compiled (numba), O(S^2) per row and all rows in parallel;
    small ones in NumPy, with the same integers and the same division.

    References
    ----------
    Kendall (1945), "The treatment of ties in ranking problems".

    Examples
    --------
    >>> float(kendall_tau([4, 3, 2, 1], [4, 3, 1, 2]))
    0.6666666666666666
    >>> kendall_tau([4, 3, 2, 1], [[4, 3, 2, 1], [1, 2, 3, 4], [4, 4, 2, 1]]).round(4).tolist()
    [1.0, -1.0, 0.9129]
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    s = x.shape[-1]
    if y.shape[-1] != s:
        raise ValueError(f"x and y must rank the same systems, got {x.shape[-1]} and {y.shape[-1]}")
    if variant not in ("a", "b"):
        raise ValueError(f"tau variant must be 'a' or 'b', got {variant!r}")
    lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    rows = math.prod(lead)
    if rows * s * s <= SMALL_TAU:
        return _tau_small(np.broadcast_to(x, lead + (s,)), np.broadcast_to(y, lead + (s,)), variant == "b")
    # fresh, writable copies: the kernel is then compiled for one type only
    # (read-only views would each need their own compilation)
    xf = np.array(np.broadcast_to(x, lead + (s,)).reshape(-1, s), order="C")
    yf = np.array(np.broadcast_to(y, lead + (s,)).reshape(-1, s), order="C")
    out = np.empty(rows)
    from .kernels import tau_rows  # compiled; imported on first use

    tau_rows(xf, yf, variant == "b", out)
    return out.reshape(lead)


# Up to this many (row, system, system) comparisons kendall_tau takes a NumPy
# pass: at most about 10 ms (the loaded kernel: under 1 ms), where loading
# the compiled kernel into a fresh process costs about 0.75 s, so jobs that
# compare a few rankings (class weights, the reproduction report) never
# start numba.  Both passes count the same integers and divide the same way:
# equal to the last bit.
SMALL_TAU = 1_000_000


def _tau_small(x: np.ndarray, y: np.ndarray, variant_b: bool) -> np.ndarray:
    """``tau_rows`` in NumPy: (..., S) -> (...), with an (..., S, S) sign
    array; comparisons, not differences, so -inf ties with -inf."""
    dx = np.greater(x[..., :, None], x[..., None, :]).astype(np.int64) - np.less(x[..., :, None], x[..., None, :])
    dy = np.greater(y[..., :, None], y[..., None, :]).astype(np.int64) - np.less(y[..., :, None], y[..., None, :])
    # every pair is counted twice (i, j and j, i with both signs flipped)
    num = np.einsum("...ij,...ij->...", dx, dy) // 2
    s = x.shape[-1]
    if variant_b:
        den = np.sqrt(np.count_nonzero(dx, axis=(-2, -1)) // 2 * 1.0 * (np.count_nonzero(dy, axis=(-2, -1)) // 2))
    else:
        den = np.full(num.shape, s * (s - 1) / 2.0)
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0 where a ranking is all ties: NaN
        return np.where(den > 0, num / den, np.nan)


def tau_matrix(scores: np.ndarray, variant: str = "b") -> np.ndarray:
    """Kendall's tau between every two rows of an oriented score matrix.

    Parameters
    ----------
    scores : ndarray, shape (M, S)
        Oriented scores of S systems under M metrics.
    variant : {"a", "b"}, default "b"

    Returns
    -------
    ndarray, shape (M, M)

    Examples
    --------
    >>> import numpy as np
    >>> tau_matrix(np.array([[4, 3, 2, 1], [4, 3, 1, 2]]), "a").tolist()
    [[1.0, 0.6666666666666666], [0.6666666666666666, 1.0]]
    """
    return kendall_tau(scores[:, None, :], scores[None, :, :], variant)
