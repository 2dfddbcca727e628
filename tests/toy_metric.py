"""A toy metric, declared as a module that brings a metric does
(tests/test_extension.py registers it): the recall of the worst-recalled
class, a function of confusion tensors (..., K, K)."""

from __future__ import annotations

import numpy as np


def worst_recall(c):
    tp = np.diagonal(c, axis1=-2, axis2=-1)
    gold = c.sum(axis=-2)
    return np.where(gold > 0, tp / np.where(gold > 0, gold, 1), 1.0).min(axis=-1)


METRIC = {"id": "worst_recall", "fn": worst_recall, "higher_is_better": True, "range": (0, 1), "name": "min R"}
