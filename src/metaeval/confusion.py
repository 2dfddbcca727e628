"""Confusion tensors from integer-coded labels, without Python loops.

Labels are coded 0..K-1 in the dataset's label order.  The tensor layout is
the one every metric expects: ``c[..., i, j]`` = items predicted ``i`` whose
gold class is ``j``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["confusion_tensor", "confusion_by_group", "merge_classes"]


def _check_codes(name: str, codes: np.ndarray, k: int) -> None:
    if codes.size and (codes.min() < 0 or codes.max() >= k):
        raise ValueError(f"{name} codes must lie in 0..{k - 1}, got range "
                         f"{int(codes.min())}..{int(codes.max())}")


def confusion_tensor(gold, predictions, k: int) -> np.ndarray:
    """Confusion tensor of one or many systems on the same items.

    Parameters
    ----------
    gold : int array, shape (N,)
        Gold class codes.
    predictions : int array, shape (N,) or (S, N)
        Predicted class codes of one system, or of S systems.
    k : int
        Number of classes.

    Returns
    -------
    int64 array of shape (K, K) or (S, K, K), ``[system, predicted, gold]``.

    One ``bincount`` over the combined code ``(s * K + predicted) * K + gold``.
    """
    gold = np.asarray(gold, dtype=np.int64)
    pred = np.asarray(predictions, dtype=np.int64)
    single = pred.ndim == 1
    pred2 = pred[None, :] if single else pred
    if gold.ndim != 1 or pred2.ndim != 2 or pred2.shape[1] != gold.shape[0]:
        raise ValueError(f"gold must be (N,) and predictions (N,) or (S, N); got {gold.shape}, {pred.shape}")
    _check_codes("gold", gold, k)
    _check_codes("predicted", pred2, k)
    s = pred2.shape[0]
    codes = (np.arange(s, dtype=np.int64)[:, None] * k + pred2) * k + gold[None, :]
    c = np.bincount(codes.ravel(), minlength=s * k * k).reshape(s, k, k)
    return c[0] if single else c


def confusion_by_group(gold, predictions, groups, n_groups: int, k: int) -> np.ndarray:
    """Confusion tensors per item group (e.g. per target), shape (G, S, K, K).

    ``groups``: int array (N,) of group codes 0..G-1.
    """
    gold = np.asarray(gold, dtype=np.int64)
    pred = np.atleast_2d(np.asarray(predictions, dtype=np.int64))
    groups = np.asarray(groups, dtype=np.int64)
    _check_codes("group", groups, n_groups)
    _check_codes("gold", gold, k)
    _check_codes("predicted", pred, k)
    s = pred.shape[0]
    codes = ((groups[None, :] * s + np.arange(s)[:, None]) * k + pred) * k + gold[None, :]
    return np.bincount(codes.ravel(), minlength=n_groups * s * k * k).reshape(n_groups, s, k, k)


def merge_classes(c, groups) -> np.ndarray:
    """Merge classes of a confusion tensor (..., K, K) into (..., M, M).

    ``groups[k]`` is the new class (0..M-1) of old class k, applied to both
    the predicted and the gold axis: equal to merging the labels and
    rebuilding the tensor.
    """
    c = np.asarray(c)
    g = np.asarray(groups, dtype=np.intp)
    m = int(g.max()) + 1
    onehot = np.zeros((c.shape[-1], m), dtype=c.dtype)
    onehot[np.arange(c.shape[-1]), g] = 1
    # onehot.T @ c @ onehot, as two batched products (a three-operand einsum
    # loops naively over all four indices: 40x slower on 14 classes)
    return onehot.T @ c @ onehot
