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
from .progress import report
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
    complement are ``total - half``.  ``items``: the sums of the terms of
    the metrics of per-item terms (``item_metrics``), (..., S, F), None
    without such a metric."""

    confusion: np.ndarray | None
    spans: np.ndarray | None
    # the sums of the per-item terms (..., S, F) of the metrics of per-item terms (metaeval.item_metrics)
    items: np.ndarray | None = None

    def __sub__(self, other: "Counts") -> "Counts":
        return Counts(None if self.confusion is None else self.confusion - other.confusion,
                      None if self.spans is None else self.spans - other.spans,
                      None if self.items is None else self.items - other.items)

    def repeat(self, r: int) -> "Counts":
        """Each row of the leading axis ``r`` times (``np.repeat``)."""
        return Counts(None if self.confusion is None else self.confusion.repeat(r, axis=0),
                      None if self.spans is None else self.spans.repeat(r, axis=0),
                      None if self.items is None else self.items.repeat(r, axis=0))


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
        self.item_ids = list(spec.item_metrics)
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
        self.eng = SubsetConfusion(ds.gold, ds.predictions[select], ds.k) if (self.cls_ids or self.item_ids) else None
        self.draw_pos = self.eng.pos if (unit == "item" and self.eng is not None) else None
        if self.eng is not None:  # a custom metric is held to its contract before any score of a job
            from ..custom_metrics import check_registered
            from ..item_metrics import check_items

            where = f"the systems of dataset {spec.name!r}"
            check_registered(self.cls_ids, self.eng.total, self.params, where=where)
            check_items(self.item_ids, ds.gold, ds.predictions[select], ds.item_ids, where=where)
        self._unit_stats = None
        if self.span_ids:
            self._unit_stats = ds.spans.statistics(select).transpose(1, 0, 2)  # (A, S, F)
        self._item_stats = self._item_stats_engine = None
        if self.item_ids:
            from ..item_metrics import item_statistics

            self._item_pred, self._item_ids_of_items = ds.predictions[select], ds.item_ids
            terms, self._item_slices = item_statistics(self.item_ids, ds.gold, self._item_pred, ds.item_ids)
            terms = np.ascontiguousarray(terms.transpose(1, 0, 2))  # (N, S, F): per item
            if self.item_unit is not None:  # per group: the sums of its items' terms
                per_unit = np.zeros((self.n_units,) + terms.shape[1:])
                np.add.at(per_unit, np.asarray(self.item_unit, dtype=np.int64), terms)
                terms = per_unit
            self._item_stats = terms  # (U, S, F), in unit order
            if self.draw_pos is not None:  # the weights drawn into the engine's column order: its item order
                self._item_stats_engine = np.ascontiguousarray(terms[self.eng.order])
        self.n_systems = self.eng.s if self.eng is not None else self._unit_stats.shape[1]
        self.total = Counts(self.eng.total if self.eng is not None else None,
                            self._unit_stats.sum(axis=0) if self.span_ids else None,
                            self._item_stats.sum(axis=0) if self.item_ids else None)
        self._dir = directions(self.metric_ids)

    # -- the metrics of per-item terms under another gold -----------------------------------------------
    def item_terms_by_gold(self) -> np.ndarray:
        """(N, S, K, F): every item's terms had its gold been class k (the
        terms function called once per class): label noise moves an item's
        terms from its gold's slot to another's."""
        if getattr(self, "_by_gold", None) is None:
            from ..item_metrics import item_statistics

            n, k = self.eng.n, self.eng.k
            ids = self._item_ids_of_items
            self._by_gold = np.stack([item_statistics(self.item_ids, np.full(n, j), self._item_pred, ids)[0]
                                      .transpose(1, 0, 2) for j in range(k)], axis=2)
        return self._by_gold

    def item_class_stats(self) -> np.ndarray:
        """(U, S, K, F): the sums of each unit's terms by gold class (the
        items re-weighted by class: class priors)."""
        if getattr(self, "_by_class", None) is None:
            terms = self.item_terms_by_gold()[np.arange(self.eng.n), :, self.eng.gold]  # (N, S, F): the real gold
            n, s, f = terms.shape
            out = np.zeros((self.n_units if self.item_unit is not None else n, s, self.eng.k, f))
            unit = np.arange(n) if self.item_unit is None else np.asarray(self.item_unit, dtype=np.int64)
            np.add.at(out, (unit, slice(None), self.eng.gold), terms)  # (advanced indices first: (N, S, F))
            self._by_class = out
        return self._by_class

    def item_merged_stats(self, pair) -> np.ndarray:
        """(U, S, F): the units' terms with the second class of ``pair``
        relabelled as the first, in gold and predictions (class merging for
        a metric of per-item terms: its function still sees K classes, one
        of them unused, so a cost matrix over the K classes keeps its
        meaning)."""
        cache = self.__dict__.setdefault("_merged", {})
        if pair not in cache:
            from ..item_metrics import item_statistics

            a, b = sorted(pair)
            gold = np.where(self.eng.gold == b, a, self.eng.gold)
            pred = np.where(self._item_pred == b, a, self._item_pred)
            terms = item_statistics(self.item_ids, gold, pred, self._item_ids_of_items)[0].transpose(1, 0, 2)
            if self.item_unit is not None:
                per = np.zeros((self.n_units,) + terms.shape[1:])
                np.add.at(per, np.asarray(self.item_unit, dtype=np.int64), terms)
                terms = per
            cache[pair] = terms
        return cache[pair]

    def item_scores(self, sums) -> dict:
        """``{id: scores}`` of the metrics of per-item terms for sums (..., S, F)."""
        from ..item_metrics import evaluate_items

        return evaluate_items(sums, self._item_slices)

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
        it = None
        if self.item_ids:
            stats = self._item_stats_engine if engine_order and self.draw_pos is not None else self._item_stats
            u, s, f = stats.shape
            it = (np.asarray(unit_weights, dtype=np.float64) @ stats.reshape(u, s * f)).reshape(-1, s, f)
        return Counts(c, st, it)

    def permuted_counts(self, trials, seed: int) -> Counts:
        """The counts after permuting, in each trial, every unit's
        predictions across the systems (the randomised test:
        ``resample.permuted_confusion``; per-article span statistics by
        the same permutations), (T, S, K, K) and (T, S, F)."""
        from .resample import permuted_confusion, permuted_sums

        return Counts(permuted_confusion(self.eng.gold, self.eng.pred, self.eng.k, trials, seed, self.item_unit)
                      if self.cls_ids else None,
                      permuted_sums(self._unit_stats, trials, seed) if self.span_ids else None,
                      permuted_sums(self._item_stats, trials, seed) if self.item_ids else None)

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
            it = self.total.items[None] - self._item_stats[lo:hi] if self.item_ids else None
            yield Counts(c, st, it)
            report(hi, n, "jackknife (BCa)")

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
        if self.item_ids:
            from ..item_metrics import evaluate_items

            sc.update(evaluate_items(counts.items, self._item_slices))
        raw = np.stack([np.asarray(sc[m], dtype=np.float64) for m in self.metric_ids], axis=-2)
        return orient(raw, self._dir) if oriented else raw
