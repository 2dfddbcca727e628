"""Metrics that are not functions of the confusion matrix: the per-item
contract.

Some metrics weigh items (by difficulty, by annotator agreement, by the
cost of a particular mistake on a particular item), so two systems with the
same confusion matrix can score differently. Such a metric is given as two
functions::

    def terms(gold, pred, items):   # gold (N,) and pred (S, N): class codes 0 .. K-1 in the labels' order;
        ...                         # items (N,): the item ids (str). Returns (S, N, F): F terms per item
    def combine(t):                 # t (..., F): the sums of the terms over the items of a sample
        ...                         # returns (...): one score per sample

The score of a system on a set of items is ``combine`` of the sums of its
items' terms. A resample (a bootstrap replicate, a half-split, a
permutation of the randomised test) is then a weighted sum of the
per-item terms, so the engine scores thousands of resamples in one matrix
product, as it does span statistics. Item-weighted accuracy has
``F = 2`` terms ``(a_i [pred_i = gold_i], a_i)`` and ``combine = t[..., 0] /
t[..., 1]``.

**What the contract cannot express.** A score that is not a function of
sums of per-item terms cannot be resampled this way: a median or a
quantile of per-item errors, a rank statistic over the items (AUC over the
items' scores), a metric that normalises each resample by something other
than a sum. Such metrics are refused here, not approximated.

**Cost.** The terms are computed once per system and item and kept:
(S, N, F) numbers, about 21 MB for FNC-1's 25,413 items and 51 systems
with F = 2; the verdict's criteria also keep them for every gold class
(K times as many: label noise moves an item's terms to another class) and
call ``terms`` K + 1 times more. A resample costs a product of the items'
weights with the terms: with few terms that is no slower than the
confusion engine (``benchmarks/bench_custom_metrics.py``: 1,000 bootstrap
replicates of fnc1_4class's 17 systems, accuracy 0.94 s, accuracy as
per-item terms 0.37 s); it grows with F, and a slow ``terms`` function is
paid K + 2 times per job.

**What a per-item metric gets.** Scores, bootstrap intervals, the
significance tests, rank similarity and stability, the test-set design,
gameability against the ``all_<class>`` systems, per-group scores, and
every criterion of the verdict (label noise moves an item's terms to its
new gold class, class priors re-weight them by gold class, class merging
relabels the pair's second class as the first). It does not get the
analyses defined on confusion matrices: the formal properties (the
verdict names the requirements not checked for it), chance levels, and
the ``merging.csv``, ``weights.csv``, ``noise.csv`` and ``priors.csv``
tables.

Examples
--------
>>> import numpy as np
>>> difficulty = {"q1": 1.0, "q2": 3.0, "q3": 1.0}
>>> def terms(gold, pred, items):
...     a = np.array([difficulty[i] for i in items])
...     right = (pred == gold[None, :]) * a
...     return np.stack([right, np.broadcast_to(a, right.shape)], axis=-1)
>>> def combine(t):
...     return t[..., 0] / t[..., 1]
>>> m = register_item_metric("hard_acc", terms, combine, range=(0, 1), name="weighted Acc")
>>> gold, pred = np.array([0, 1, 1]), np.array([[0, 1, 0], [0, 0, 1]])
>>> stats = m.statistics(gold, pred, ["q1", "q2", "q3"]).sum(axis=1)   # (S, F)
>>> m(stats).tolist()
[0.8, 0.4]
>>> unregister_item_metric("hard_acc")
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .custom import ItemMetric, _check_item_metric, register_item_metric, unregister_item_metric
from .labels import ITEM_REGISTRY

__all__ = ["ItemMetric", "ITEM_REGISTRY", "register_item_metric", "unregister_item_metric", "item_statistics",
           "evaluate_items", "check_items"]

def check_items(metric_ids: Sequence[str], gold, pred, items, *, where: str) -> None:
    """Hold every metric of per-item terms among ``metric_ids`` to its
    contract on a dataset's systems (``pred`` (S, N)) before any work."""
    for mid in metric_ids:
        if mid in ITEM_REGISTRY:
            _check_item_metric(ITEM_REGISTRY[mid], gold, np.atleast_2d(pred), items, where)


def item_statistics(metric_ids: Sequence[str], gold, pred, items) -> tuple[np.ndarray, dict[str, slice]]:
    """The terms of every metric of ``metric_ids``, side by side: (S, N,
    F_total), and the slice of each metric's terms."""
    parts, slices, at = [], {}, 0
    for mid in metric_ids:
        t = ITEM_REGISTRY[mid].statistics(gold, pred, items)
        parts.append(t)
        slices[mid] = slice(at, at + t.shape[-1])
        at += t.shape[-1]
    s, n = np.atleast_2d(pred).shape
    return (np.concatenate(parts, axis=-1) if parts else np.zeros((s, n, 0))), slices


def evaluate_items(sums, slices: Mapping[str, slice]) -> dict[str, np.ndarray]:
    """``{metric id: scores (...)}`` of sums of terms (..., F_total)."""
    sums = np.asarray(sums, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {mid: ITEM_REGISTRY[mid](sums[..., sl]) for mid, sl in slices.items()}
