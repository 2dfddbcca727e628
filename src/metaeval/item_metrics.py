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

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from . import metrics as M
from .custom_metrics import MetricContractError, _check_id, _range

__all__ = ["ItemMetric", "ITEM_REGISTRY", "register_item_metric", "unregister_item_metric", "item_statistics",
           "evaluate_items", "check_items"]

_TOL = 1e-9


@dataclass(frozen=True)
class ItemMetric:
    """A metric of per-item terms: ``terms(gold, pred, items) -> (S, N,
    F)``, ``combine(sums (..., F)) -> (...)``, with the descriptive fields
    of ``metrics.Metric``."""

    id: str
    name: str
    latex: str
    terms: Callable[..., Any]
    combine: Callable[..., Any]
    higher_is_better: bool
    reference: str = ""
    bounds: tuple[float, float] = (-np.inf, np.inf)
    source: str = ""
    ordinal: bool = False
    params: tuple[str, ...] = ()
    uses_positions: bool = False
    alias: str = ""
    default: bool = False

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"

    def statistics(self, gold, pred, items) -> np.ndarray:
        """(S, N, F) float64 terms of systems ``pred`` (S, N) on items of ``gold`` (N,)."""
        gold = np.asarray(gold, dtype=np.int64)
        pred = np.atleast_2d(np.asarray(pred, dtype=np.int64))
        return np.asarray(self.terms(gold, pred, np.asarray(items, dtype=str)), dtype=np.float64)

    def __call__(self, sums) -> np.ndarray:
        """The scores of sums of terms (..., F)."""
        return np.asarray(self.combine(np.asarray(sums, dtype=np.float64)), dtype=np.float64)


ITEM_REGISTRY: dict[str, ItemMetric] = {}


def register_item_metric(metric_id: str, terms: Callable[..., Any], combine: Callable[..., Any], *,
                         higher_is_better: bool = True, name: str | None = None, latex: str | None = None,
                         reference: str = "", range: Sequence[float | None] | None = None,  # noqa: A002
                         source: str = "") -> ItemMetric:
    """Register a metric of per-item terms (see the module's docstring).

    Parameters
    ----------
    metric_id : str
        The id it is listed by in ``metrics``; not a built-in id.
    terms : callable
        ``terms(gold, pred, items) -> (S, N, F)``.
    combine : callable
        ``combine(sums) -> scores``: sums (..., F) to scores (...).
    higher_is_better, name, latex, reference, range
        As ``custom_metrics.register_metric``.
    source : str
        Where the functions come from, for messages.

    Returns
    -------
    ItemMetric

    Raises
    ------
    MetricContractError
        A built-in id, or functions that are not callable.  The contract is
        checked on a dataset's own items (``check_items``: the terms may
        read item ids), before any score.
    """
    _check_id(metric_id)
    if metric_id in M.REGISTRY:
        raise MetricContractError(f"custom metric {metric_id!r}: a metric of confusion matrices has this id")
    for what, fn in (("terms", terms), ("combine", combine)):
        if not callable(fn):
            raise MetricContractError(f"custom metric {metric_id!r}: {what} is not callable ({fn!r})")
    lo, hi = _range(range, metric_id)
    m = ItemMetric(metric_id, name or metric_id, latex or name or metric_id, terms, combine, bool(higher_is_better),
                   reference=reference, bounds=(lo, hi),
                   source=source or f"{getattr(terms, '__qualname__', '?')}, {getattr(combine, '__qualname__', '?')}")
    # (no probe on made-up items: the terms may read the dataset's own item ids; ``check_items`` holds the
    # metric to its contract on the dataset's items before any score)
    ITEM_REGISTRY[metric_id] = m
    return m


def unregister_item_metric(metric_id: str) -> None:
    """Remove a metric of per-item terms from the registry."""
    ITEM_REGISTRY.pop(metric_id, None)


def _check(m: ItemMetric, gold, pred, items, where: str) -> int:
    """Hold ``m`` to the contract on systems ``pred`` of ``gold``; return F."""
    head = f"custom metric {m.id!r} ({m.source})"
    on = f" on {where}" if where else ""

    def call(what, fn, *args):
        try:
            with np.errstate(all="ignore"):
                return np.asarray(fn(*args))
        except Exception as e:  # noqa: BLE001 (any fault of the user's function is reported as such)
            raise MetricContractError(f"{head}: {what} raised {type(e).__name__}: {e}{on}") from e

    s, n = pred.shape
    t = call("terms", m.terms, np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64),
             np.asarray(items, dtype=str))
    if t.ndim != 3 or t.shape[:2] != (s, n) or t.shape[2] < 1:
        raise MetricContractError(f"{head}: expected terms of shape (systems, items, F) = ({s}, {n}, F); found shape "
                                  f"{t.shape}{on}")
    t = t.astype(np.float64)
    if not np.isfinite(t).all():
        raise MetricContractError(f"{head}: expected finite terms; found {t[~np.isfinite(t)][0]}{on}")
    f = t.shape[2]
    sums = t.sum(axis=1)  # (S, F)
    out = call("combine", m.combine, sums)
    if out.shape != (s,):
        raise MetricContractError(f"{head}: expected one score per system from sums of shape {sums.shape}; found "
                                  f"shape {out.shape}{on}")
    out = out.astype(np.float64)
    lo, hi = m.bounds
    bad = ~np.isfinite(out) | (out < lo - _TOL) | (out > hi + _TOL)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise MetricContractError(f"{head}: expected finite values in its range [{lo:g}, {hi:g}]; found "
                                  f"{float(out[i]):.17g}{on} (system {i})")
    twice = call("combine", m.combine, np.stack([sums, sums]))
    if twice.shape != (2, s) or not np.allclose(twice.astype(np.float64), np.stack([out, out]), rtol=1e-9,
                                                  atol=1e-12):
        raise MetricContractError(f"{head}: expected combine to give the same scores for a stack of sums as for "
                                  f"each alone (a function of the last axis); found otherwise{on}")
    return f


def check_items(metric_ids: Sequence[str], gold, pred, items, *, where: str) -> None:
    """Hold every metric of per-item terms among ``metric_ids`` to its
    contract on a dataset's systems (``pred`` (S, N)) before any work."""
    for mid in metric_ids:
        if mid in ITEM_REGISTRY:
            _check(ITEM_REGISTRY[mid], gold, np.atleast_2d(pred), items, where)


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
