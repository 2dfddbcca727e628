"""The scoring engine: the scores (..., M, S) of a dataset's selected
systems on the whole test set or on any number of resamples of its units at
once.  Every method (stability, significance, the test-set design, the
verdict's criteria, ...) scores through ``Scorer``: the counts of the units
a resample holds (``Counts``: confusion tensors and span statistics, sums
over units), then the metrics of those counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import metrics as M
from ..config import ConfigError, DatasetSpec
from ..dataset import RANKED_KINDS, Dataset
from .ranking import orient
from .resample import SubsetConfusion

__all__ = ["Counts", "Scorer", "select_systems", "directions", "oriented"]


def select_systems(ds: Dataset, include_baselines: Sequence[str]) -> np.ndarray:
    """Indices of the systems an experiment ranks: every real (and
    synthetic) system plus the named baselines (the paper ranks majority and
    random with them)."""
    keep = set(include_baselines)
    return np.array([i for i, (s, k) in enumerate(zip(ds.systems, ds.kinds)) if k in RANKED_KINDS or s in keep],
                    dtype=np.intp)


def directions(metric_ids) -> np.ndarray:
    """(M, 1) booleans: higher is better, for broadcasting against (M, S)."""
    return np.array([M.get(m).higher_is_better for m in metric_ids])[:, None]


def oriented(c: np.ndarray, metric_ids, params) -> np.ndarray:
    """Scores of (..., S, K, K) tensors as an oriented (..., M, S) array."""
    sc = M.evaluate(c, metric_ids, **params)
    stacked = np.stack([sc[m] for m in metric_ids], axis=-2)  # (..., M, S)
    return orient(stacked, directions(metric_ids))


@dataclass(frozen=True)
class Counts:
    """What every metric of a dataset is computed from, for one or many
    sets of units: the confusion tensors ``confusion`` (..., S, K, K) of the
    classification metrics and the span statistics ``spans`` (..., S, F) of
    the span metrics (``spans.STATS``); either is None when the dataset has
    no such metric.  Both are sums over units, so the counts of a half's
    complement are ``total - half``."""

    confusion: np.ndarray | None
    spans: np.ndarray | None

    def __sub__(self, other: "Counts") -> "Counts":
        return Counts(None if self.confusion is None else self.confusion - other.confusion,
                      None if self.spans is None else self.spans - other.spans)

    def repeat(self, r: int) -> "Counts":
        """Each row of the leading axis ``r`` times (``np.repeat``)."""
        return Counts(None if self.confusion is None else self.confusion.repeat(r, axis=0),
                      None if self.spans is None else self.spans.repeat(r, axis=0))


class Scorer:
    """The scores (..., M, S) of a dataset's selected systems, on the whole
    test set or on any resample of its units, in two steps: the counts of
    the units a resample holds (``counts``, ``permuted_counts``,
    ``left_out_counts``: ``Counts``), then the metrics of those counts
    (``score``).

    Classification metrics are scored from confusion tensors
    (``resample.SubsetConfusion``), span metrics from per-article
    statistics (``spans.STATS``: a resample's statistics are its unit
    weights times the per-article matrix).  The unit is the item
    (``unit="item"``) or the group (``"group"``: a resample takes whole
    groups, e.g. whole articles with all their spans); span metrics need
    groups, which are their articles.  ``unit=None``: the whole test set
    only.

    Weights of item resamples are fastest drawn straight into the engine's
    column order: draw them with ``pos=scorer.draw_pos`` and pass
    ``engine_order=True`` (``draw_pos`` is None when the unit is not the
    item, and the weights are then in unit order).
    """

    def __init__(self, ds: Dataset, spec: DatasetSpec, select, unit: str | None = None):
        self.metric_ids = list(spec.all_metrics)
        self.cls_ids, self.span_ids = list(spec.metrics), list(spec.span_metrics)
        self.params = spec.metric_params() if self.cls_ids else {}
        self.unit = unit
        if unit is None:  # whole test set only
            self.item_unit, self.n_units = None, None
        elif unit == "group":
            if ds.groups is None and ds.spans is None:
                raise ConfigError(f"dataset {ds.name!r}: resample_unit 'group' needs a group column")
            self.item_unit = ds.groups
            self.n_units = len(ds.group_names) if ds.groups is not None else ds.spans.n_articles
        elif self.span_ids:
            raise ConfigError(f"dataset {ds.name!r}: span metrics are resampled by article (resample_unit: group)")
        else:
            self.item_unit, self.n_units = None, ds.n_items
        select = np.asarray(select)
        self.eng = SubsetConfusion(ds.gold, ds.predictions[select], ds.k) if self.cls_ids else None
        self.draw_pos = self.eng.pos if (unit == "item" and self.eng is not None) else None
        self._unit_stats = None
        if self.span_ids:
            self._unit_stats = ds.spans.statistics(select).transpose(1, 0, 2)  # (A, S, F)
        self.n_systems = self.eng.s if self.eng is not None else self._unit_stats.shape[1]
        self.total = Counts(self.eng.total if self.eng is not None else None,
                            self._unit_stats.sum(axis=0) if self.span_ids else None)
        self._dir = directions(self.metric_ids)

    # -- counts ---------------------------------------------------------------
    def item_weights(self, unit_weights) -> np.ndarray:
        """(B, N) item weights, in item order, of (B, units) unit weights in
        unit order (a unit's weight goes to each of its items)."""
        w = np.asarray(unit_weights)
        return w if self.item_unit is None else w[:, self.item_unit]

    def counts(self, unit_weights=None, *, engine_order: bool = False) -> Counts:
        """The counts of resamples given as (B, units) unit weights (how
        often each unit is drawn: 0/1 for a half, draws for a bootstrap
        replicate), in unit order, or in ``draw_pos`` order for items when
        ``engine_order``; None: the whole test set (``total``)."""
        if unit_weights is None:
            return self.total
        c = st = None
        if self.cls_ids:
            if self.item_unit is None:
                c = self.eng.confusion(unit_weights, ordered=engine_order and self.draw_pos is not None)
            else:  # groups: each item takes its group's weight, gathered straight into the engine's order
                c = self.eng.confusion(np.asarray(unit_weights)[:, self.item_unit[self.eng.order]], ordered=True)
        if self.span_ids:
            a, s, f = self._unit_stats.shape
            st = (np.asarray(unit_weights, dtype=np.float64) @ self._unit_stats.reshape(a, s * f)).reshape(-1, s, f)
        return Counts(c, st)

    def permuted_counts(self, trials, seed: int) -> Counts:
        """The counts after permuting, in each trial, every unit's
        predictions across the systems (the randomised test:
        ``resample.permuted_confusion``; per-article span statistics by
        the same permutations), (T, S, K, K) and (T, S, F)."""
        from .resample import permuted_confusion, permuted_sums

        return Counts(permuted_confusion(self.eng.gold, self.eng.pred, self.eng.k, trials, seed, self.item_unit)
                      if self.cls_ids else None,
                      permuted_sums(self._unit_stats, trials, seed) if self.span_ids else None)

    def left_out_counts(self, chunk: int = 256):
        """Yield the counts with one unit left out at a time (the jackknife
        of BCa intervals), ``chunk`` units at a time: the totals minus one
        unit's counts, (U_chunk, S, K, K) and (U_chunk, S, F)."""
        n = self.n_units
        if self.cls_ids:
            e, kk = self.eng, self.eng.k * self.eng.k
            unit = np.arange(e.n) if self.item_unit is None else np.asarray(self.item_unit, dtype=np.int64)
            by_unit = np.argsort(unit, kind="stable")  # the items of unit u: by_unit[start[u]:start[u + 1]]
            start = np.searchsorted(unit[by_unit], np.arange(n + 1))
        for lo in range(0, n, chunk):
            hi = min(lo + chunk, n)
            c = st = None
            if self.cls_ids:
                items = by_unit[start[lo]:start[hi]]
                out = np.zeros((hi - lo, e.s, kk), dtype=np.int64)  # the chunk's units' own counts
                np.add.at(out, (unit[items][None, :] - lo, np.arange(e.s)[:, None],
                                e.pred[:, items] * e.k + e.gold[items][None, :]), 1)
                c = (e.total.reshape(1, e.s, kk) - out).reshape(hi - lo, e.s, e.k, e.k)
            if self.span_ids:
                st = self.total.spans[None] - self._unit_stats[lo:hi]
            yield Counts(c, st)

    # -- scores ---------------------------------------------------------------
    def score(self, counts: Counts, *, oriented: bool = False) -> np.ndarray:
        """The scores (..., M, S) of ``counts``, every metric in
        ``metric_ids`` order; ``oriented``: negated where lower is better
        (``ranking.orient``), so that higher ranks first."""
        from ..spans import evaluate_spans

        sc = {}
        if self.cls_ids:
            sc.update(M.evaluate(counts.confusion, self.cls_ids, **self.params))
        if self.span_ids:
            sc.update(evaluate_spans(counts.spans, self.span_ids))
        raw = np.stack([np.asarray(sc[m], dtype=np.float64) for m in self.metric_ids], axis=-2)
        return orient(raw, self._dir) if oriented else raw
