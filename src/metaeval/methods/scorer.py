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

from ..measures import labels as M
from ..data.config import ConfigError, DatasetSpec
from ..data.dataset import Dataset, RANKED_KINDS
from ..engine.progress import report
from ..engine.ranking import orient
from ..engine.resample import SubsetConfusion

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
    # the sums of the per-item terms (..., S, F) of the metrics of per-item terms (metaeval.measures.items)
    items: np.ndarray | None = None
    # the metrics of scores (metaeval.measures.scores): the sums of their per-unit terms (..., S, F) (Brier, log loss, ECE,
    # MAP, MRR, AvgRec), the item weights (..., N) the rank-based ones (ROC-AUC, AP) are computed on, in item
    # order, or those metrics already computed (..., S, M_ranked) where the scores themselves moved (permutations)
    scores: np.ndarray | None = None
    weights: np.ndarray | None = None
    ranked: np.ndarray | None = None

    def __sub__(self, other: "Counts") -> "Counts":
        if self.ranked is not None or other.ranked is not None:
            raise ValueError("counts of permuted scores have no complement")
        return Counts(None if self.confusion is None else self.confusion - other.confusion,
                      None if self.spans is None else self.spans - other.spans,
                      None if self.items is None else self.items - other.items,
                      None if self.scores is None else self.scores - other.scores,
                      None if self.weights is None else self.weights - other.weights)

    def repeat(self, r: int) -> "Counts":
        """Each row of the leading axis ``r`` times (``np.repeat``)."""
        def rep(x):
            return None if x is None else x.repeat(r, axis=0)

        return Counts(rep(self.confusion), rep(self.spans), rep(self.items), rep(self.scores), rep(self.weights),
                      rep(self.ranked))


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
            if self.n_units < 2:  # every resample would be the whole data: intervals of zero width, p-values of 1
                raise ConfigError(f"dataset {ds.name!r}: resample_unit 'group' needs at least 2 groups; it has "
                                  f"{self.n_units} ({', '.join(map(repr, ds.group_names or ()))}), so every resample "
                                  "would be the whole data (use resample_unit: item)")
        elif self.span_ids:
            raise ConfigError(f"dataset {ds.name!r}: span metrics are resampled by article (resample_unit: group)")
        else:
            self.item_unit, self.n_units = None, ds.n_items
        select = np.asarray(select)
        self.eng = SubsetConfusion(ds.gold, ds.predictions[select], ds.k) if (self.cls_ids or self.item_ids or spec.score_metrics) else None
        self.draw_pos = self.eng.pos if (unit == "item" and self.eng is not None) else None
        if self.eng is not None:  # a custom metric is held to its contract before any score of a job
            from ..measures.custom import check_registered
            from ..measures.items import check_items

            where = f"the systems of dataset {spec.name!r}"
            check_registered(self.cls_ids, self.eng.total, self.params, where=where)
            check_items(self.item_ids, ds.gold, ds.predictions[select], ds.item_ids, where=where)
        self._unit_stats = None
        if self.span_ids:
            self._unit_stats = ds.spans.statistics(select).transpose(1, 0, 2)  # (A, S, F)
        self._item_stats = self._item_stats_engine = None
        if self.item_ids:
            from ..measures.items import item_statistics

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
        self._init_scores(ds, spec, select)
        self.n_systems = self.eng.s if self.eng is not None else (
            self._unit_stats.shape[1] if self.span_ids else self._score_values.shape[0])
        self.total = Counts(self.eng.total if self.eng is not None else None,
                            self._unit_stats.sum(axis=0) if self.span_ids else None,
                            self._item_stats.sum(axis=0) if self.item_ids else None,
                            self._score_total, np.ones(ds.n_items) if self.ranked_ids else None)
        self._dir = directions(self.metric_ids)

    # -- the metrics of scores (metaeval.measures.scores) ----------------------------------------------------------------
    def _init_scores(self, ds: Dataset, spec: DatasetSpec, select) -> None:
        """The systems' scores (S, N, C), the gold they are scored against
        (C = 1: 1 for the positive class), and the per-unit terms of the
        metrics of sums, in unit order (and in the engine's item order)."""
        from ..measures.scores.registry import SCORE_REGISTRY, n_terms, unit_terms

        self.score_ids = list(spec.score_metrics)
        self.ranked_ids = [m for m in self.score_ids if SCORE_REGISTRY[m].kind == "ranked"]
        self.sum_ids = [m for m in self.score_ids if SCORE_REGISTRY[m].kind != "ranked"]
        self._score_total = self._score_stats = self._score_stats_engine = None
        if not self.score_ids:
            return
        if ds.scores is None:
            raise ConfigError(f"dataset {ds.name!r}: metrics of scores {self.score_ids} need the systems' scores")
        by_group = [m for m in self.sum_ids if SCORE_REGISTRY[m].kind == "groups"]
        if by_group and self.unit == "item":
            raise ConfigError(f"dataset {ds.name!r}: {by_group} rank the items within each group, so a resample "
                              f"draws whole groups (resample_unit: group)")
        self._score_values = np.ascontiguousarray(ds.scores.values[np.asarray(select)], dtype=np.float64)
        self._positive = ds.labels.index(spec.positive_class) if self._score_values.shape[2] == 1 else -1
        self._score_gold = self._score_y(ds.gold)
        self._score_groups = ds.groups
        self._score_slices, blocks, at = {}, [], 0
        n_units = self.n_units if self.unit is not None else None
        for m in self.sum_ids:
            shared = next((o for o in self._score_slices if SCORE_REGISTRY[o].kind == "groups"), None) \
                if SCORE_REGISTRY[m].kind == "groups" else None
            if shared is not None:  # MAP, MRR and AvgRec read the same ranking statistics: one block
                self._score_slices[m] = self._score_slices[shared]
                continue
            t = unit_terms(m, self._score_values, self._score_gold, ds.groups,
                           len(ds.group_names) if ds.groups is not None else None)
            if SCORE_REGISTRY[m].kind == "items" and self.item_unit is not None:  # per group: its items' sums
                per = np.zeros((n_units,) + t.shape[1:])
                np.add.at(per, np.asarray(self.item_unit, dtype=np.int64), t)
                t = per
            blocks.append(t)
            self._score_slices[m] = slice(at, at + n_terms(m))
            at += n_terms(m)
        if blocks:
            if self.unit is None:  # the whole set only: items and groups need not agree
                self._score_total = np.concatenate([b.sum(axis=0) for b in blocks], axis=-1)
            else:
                self._score_stats = np.ascontiguousarray(np.concatenate(blocks, axis=-1))  # (U, S, F)
                self._score_total = self._score_stats.sum(axis=0)
                if self.draw_pos is not None:
                    self._score_stats_engine = np.ascontiguousarray(self._score_stats[self.eng.order])

    def _item_order_weights(self, unit_weights, engine_order: bool) -> np.ndarray:
        """(B, N) item weights in item order of unit weights (unit order, or
        the engine's column order for items)."""
        w = np.asarray(unit_weights, dtype=np.float64)
        if self.item_unit is not None:
            return w[:, self.item_unit]
        return w[:, self.draw_pos] if engine_order and self.draw_pos is not None else w

    def ranked_scores(self, weights=None, values=None, gold=None, *, rows: bool = False) -> np.ndarray:
        """(..., S, M_ranked): the rank-based metrics of scores on item
        weights (..., N) (None: every item once); ``values``/``gold``:
        other scores (S or R, N, C) or golds (N or R, N) than the data's;
        ``rows``: one value per row of values, gold and weights (R,)."""
        from ..measures.scores.registry import evaluate_ranked

        v = self._score_values if values is None else values
        g = self._score_gold if gold is None else gold
        with np.errstate(invalid="ignore", divide="ignore"):
            out = evaluate_ranked(self.ranked_ids, v, g, weights, rows=rows)
        return np.stack([out[m] for m in self.ranked_ids], axis=-1)

    # -- the metrics of per-item terms under another gold -----------------------------------------------
    def item_terms_by_gold(self) -> np.ndarray:
        """(N, S, K, F): every item's terms had its gold been class k (the
        terms function called once per class): label noise moves an item's
        terms from its gold's slot to another's."""
        if getattr(self, "_by_gold", None) is None:
            from ..measures.items import item_statistics

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
            from ..measures.items import item_statistics

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
        from ..measures.items import evaluate_items

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
        sc = wt = None
        if self.sum_ids:
            if self._score_stats is None:
                raise ValueError("a scorer of the whole set (unit None) has no resamples")
            stats = self._score_stats_engine if engine_order and self.draw_pos is not None else self._score_stats
            u, s, f = stats.shape
            sc = (np.asarray(unit_weights, dtype=np.float64) @ stats.reshape(u, s * f)).reshape(-1, s, f)
        if self.ranked_ids:
            wt = self._item_order_weights(unit_weights, engine_order)
        return Counts(c, st, it, sc, wt)

    def permuted_counts(self, trials, seed: int) -> Counts:
        """The counts after permuting, in each trial, every unit's
        predictions across the systems (the randomised test:
        ``resample.permuted_confusion``; per-article span statistics by
        the same permutations), (T, S, K, K) and (T, S, F)."""
        from ..engine.resample import permuted_confusion, permuted_sums

        return Counts(permuted_confusion(self.eng.gold, self.eng.pred, self.eng.k, trials, seed, self.item_unit)
                      if self.cls_ids else None,
                      permuted_sums(self._unit_stats, trials, seed) if self.span_ids else None,
                      permuted_sums(self._item_stats, trials, seed) if self.item_ids else None,
                      permuted_sums(self._score_stats, trials, seed) if self.sum_ids else None,
                      ranked=self._permuted_ranked(trials, seed) if self.ranked_ids else None)

    def _permuted_ranked(self, trials, seed: int, max_bytes: int = 64 * 2**20) -> np.ndarray:
        """(T, S, M_ranked): the rank-based metrics after the permutations of
        ``permuted_counts`` (``resample.permutations``: in trial t, slot s
        takes unit u's scores of system perm[t, u][s]): each trial's systems
        sorted again, in memory-bound batches of trials."""
        from ..engine.resample import permutations

        trials = np.asarray(trials, dtype=np.int64)
        v = self._score_values
        s, n, c = v.shape
        if c == 1 and self.item_unit is not None:  # whole groups permuted: one walk of the sorted scores
            return self._permuted_ranked_groups(trials, seed)
        unit = np.arange(n) if self.item_unit is None else np.asarray(self.item_unit, dtype=np.int64)
        out = np.empty((trials.size, s, len(self.ranked_ids)))
        per = max(1, max_bytes // (s * n * c * 8 + s * self.n_units * 8))
        for lo in range(0, trials.size, per):  # memory only: each batch is one call
            t = trials[lo:lo + per]
            perm = permutations(self.n_units, s, t, seed)  # (b, U, S)
            which = perm[:, unit, :].transpose(0, 2, 1)  # (b, S, N): the system whose scores slot s takes
            vals = v[which, np.arange(n)[None, None, :]]  # (b, S, N, C)
            res = self.ranked_scores(None, vals.reshape(-1, n, c), self._score_gold, rows=True)
            out[lo:lo + per] = res.reshape(t.size, s, -1)
        return out

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
            sc = self.total.scores[None] - self._score_stats[lo:hi] if self.sum_ids else None
            wt = None
            if self.ranked_ids:  # every item once but the left-out unit's
                unit_of = np.arange(self.eng.n if self.eng is not None else self._score_values.shape[1]) \
                    if self.item_unit is None else np.asarray(self.item_unit, dtype=np.int64)
                wt = (unit_of[None, :] != np.arange(lo, hi)[:, None]).astype(np.float64)
            yield Counts(c, st, it, sc, wt)
            report(hi, n, "jackknife (BCa)")

    def _permuted_ranked_groups(self, trials, seed: int) -> np.ndarray:
        """``_permuted_ranked`` of a binary task whose units are groups:
        every (system, item) score sorted once (``kernels.permuted_ranked``:
        in a trial each entry belongs to one slot, so one walk of the sorted
        entries ranks every slot), every trial in one compiled call.  With
        one score per item, every rank metric is the AUC or the AP of the
        positive class."""
        from ..engine.kernels import permuted_ranked
        from ..engine.resample import _index_words

        if getattr(self, "_entries", None) is None:
            v = self._score_values[:, :, 0]  # (S, N)
            s, n = v.shape
            unit = np.asarray(self.item_unit, dtype=np.int64)
            order = np.argsort(-v, axis=None, kind="stable")  # every entry, decreasing score
            sys_of, item_of = np.divmod(order, n)
            self._entries = (np.ascontiguousarray(unit[item_of] * s + sys_of),
                             np.ascontiguousarray(v.ravel()[order]),
                             np.ascontiguousarray(self._score_gold[item_of] == 1))
        key, value, positive = self._entries
        words = _index_words(np.asarray(trials, dtype=np.int64), seed, "permutation")
        both = np.empty((words.size, self._score_values.shape[0], 2))
        permuted_ranked(words, self.n_units, self._score_values.shape[0], key, value, positive, both)
        which = {"roc_auc": 0, "roc_auc_weighted": 0, "hand_till_m": 0, "average_precision": 1}
        return np.stack([both[:, :, which[m]] for m in self.ranked_ids], axis=-1)

    # -- the metrics of scores under another gold, re-weighted classes, merged classes (the verdict's criteria) --
    def _score_y(self, gold) -> np.ndarray:
        """The gold the metrics of scores read: 1 for the positive class (C = 1), else the class codes."""
        gold = np.asarray(gold, dtype=np.int64)
        return (gold == self._positive).astype(np.int64) if self._score_values.shape[2] == 1 else gold

    def _item_terms_of(self, m: str, values=None, gold=None) -> np.ndarray:
        """(N, S, F): the per-item terms of an item-kind metric of scores."""
        from ..measures.scores.registry import unit_terms

        return unit_terms(m, self._score_values if values is None else values,
                          self._score_gold if gold is None else gold)

    def score_by_items(self, w_items, values=None, gold=None, ids=None) -> dict:
        """``{id: (B, S)}``: the metrics of scores (``ids``; default every one
        but those ranking within groups) on item weights (B, N) in item
        order, of ``values``/``gold`` (default the data's)."""
        from ..measures.scores.registry import SCORE_REGISTRY, combine

        ids = [m for m in (self.score_ids if ids is None else ids) if SCORE_REGISTRY[m].kind != "groups"]
        w = np.asarray(w_items, dtype=np.float64)
        out = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            for m in ids:
                if SCORE_REGISTRY[m].kind == "items":
                    t = self._item_terms_of(m, values, gold)
                    out[m] = combine(m, np.einsum("bn,nsf->bsf", w, t))
            ranked = [m for m in ids if m in self.ranked_ids]
            if ranked:
                from ..measures.scores.registry import evaluate_ranked

                out.update(evaluate_ranked(ranked, self._score_values if values is None else values,
                                           self._score_gold if gold is None else gold, w))
        return out

    def noisy_score_scores(self, w_items, gold_rows, w_units) -> dict:
        """``{id: (R, S)}``: the metrics of scores with a gold per row (R, N)
        (label noise: the systems' scores stay, the gold moves), on item
        weights (R, N) and, for the metrics ranking within groups, unit
        (group) weights (R, U)."""
        from ..measures.scores.registry import SCORE_REGISTRY, combine, evaluate_ranked, unit_terms

        y_rows = self._score_y(gold_rows)
        w = np.asarray(w_items, dtype=np.float64)
        out = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.ranked_ids:
                out.update(evaluate_ranked(self.ranked_ids, self._score_values, y_rows, w))
            moved_r, moved_i = np.nonzero(y_rows != self._score_gold[None, :])
            ranked_groups = None  # MAP, MRR and AvgRec share one re-ranking per noisy gold
            for m in self.sum_ids:
                kind = SCORE_REGISTRY[m].kind
                if kind == "items":  # the sums of the true gold, plus the moved items' change of terms
                    t = self._item_terms_of(m)
                    sums = np.einsum("bn,nsf->bsf", w, t)
                    if moved_r.size:
                        new = unit_terms(m, self._score_values[:, moved_i], y_rows[moved_r, moved_i])  # (moved, S, F)
                        np.add.at(sums, moved_r, w[moved_r, moved_i][:, None, None] * (new - t[moved_i]))
                    out[m] = combine(m, sums)
                else:  # each row's groups ranked against its own gold
                    if ranked_groups is None:
                        t = unit_terms(m, self._score_values, y_rows, self._score_groups, self.n_units)  # (R, G, S, F)
                        ranked_groups = np.einsum("rg,rgsf->rsf", np.asarray(w_units, dtype=np.float64), t)
                    out[m] = combine(m, ranked_groups)
        return out

    def merged_score_values(self, pair):
        """The scores and gold with the classes of ``pair`` merged (their
        probabilities added, the second class's items relabelled as the
        first, the classes above it renumbered); None for a binary task."""
        if self._score_values.shape[2] == 1:
            return None
        a, b = sorted(pair)
        v = self._score_values.copy()
        v[:, :, a] += v[:, :, b]
        v = np.delete(v, b, axis=2)
        g = np.where(self._score_gold == b, a, self._score_gold)
        return v, np.where(g > b, g - 1, g)

    def score_scores(self, counts: Counts) -> dict:
        """``{id: (..., S)}`` of the metrics of scores of ``counts``."""
        from ..measures.scores.registry import combine

        out = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            for m in self.sum_ids:
                out[m] = combine(m, counts.scores[..., self._score_slices[m]])
        if self.ranked_ids:
            r = counts.ranked if counts.ranked is not None else self.ranked_scores(counts.weights)
            out.update({m: r[..., j] for j, m in enumerate(self.ranked_ids)})
        return out

    # -- scores ---------------------------------------------------------------
    def score(self, counts: Counts, *, oriented: bool = False) -> np.ndarray:
        """The scores (..., M, S) of ``counts``, every metric in
        ``metric_ids`` order; ``oriented``: negated where lower is better
        (``ranking.orient``), so that higher ranks first."""
        from ..measures.spans import evaluate_spans

        sc = {}
        if self.cls_ids:
            sc.update(M.evaluate(counts.confusion, self.cls_ids, **self.params))
        if self.span_ids:
            sc.update(evaluate_spans(counts.spans, self.span_ids))
        if self.item_ids:
            from ..measures.items import evaluate_items

            sc.update(evaluate_items(counts.items, self._item_slices))
        if self.score_ids:
            sc.update(self.score_scores(counts))
        raw = np.stack([np.asarray(sc[m], dtype=np.float64) for m in self.metric_ids], axis=-2)
        return orient(raw, self._dir) if oriented else raw
