"""Robustness to class priors: the mean tau between the ranking and the
rankings with the items re-weighted to the class priors pi^gamma, averaged
over the gammas (imbalanced classes only)."""

from __future__ import annotations

import numpy as np

from ...methods.sensitivity import prior_weights
from ...settings import CRITERION_NAMES
from .base import Criterion, _nanmean

# the largest class at least this many times the smallest: the priors criterion counts
IMBALANCE_RATIO = 2.0


class Priors(Criterion):
    id = "priors"
    name = CRITERION_NAMES[id]  # (the built-in criteria's names are declared with the settings)
    legend = ("mean tau between the ranking and the rankings with the items re-weighted to shifted class priors (a "
              "metric invariant to the priors, which holds uniform_class_change on this dataset's shape, is exempt: "
              "1 exactly, by construction)")
    range = (-1.0, 1.0)
    needs_classes = True

    def left_out(self, *, has_classes, k, ordinal_data, imbalanced):
        if not has_classes:
            return super().left_out(has_classes=has_classes, k=k, ordinal_data=ordinal_data, imbalanced=imbalanced)
        if not imbalanced:
            return f"the classes are balanced (largest under {IMBALANCE_RATIO:g} times the smallest)"
        return None

    def spec_settings(self, settings, spec):
        return {"prior_gammas": settings.prior_gammas}

    def arrays(self, eng, spec, w_units, counts, draws):
        """(bw, gammas, M, S_all), each resample re-weighted by its own gold's priors."""
        bw = w_units.shape[0]
        c = counts.confusion
        gold = c[:, 0].sum(axis=-2) if c is not None else \
            np.stack([np.bincount(eng.sc.eng.gold, weights=w, minlength=eng.sc.eng.k)
                      for w in eng.sc.item_weights(w_units).astype(np.float64)])
        wk = prior_weights(gold, spec.prior_gammas)  # (bw, G, K): each resample's own gold
        pri = eng.cls_oriented(c[:, None].astype(np.float64) * wk[:, :, None, None, :]) if eng.cls else \
            eng.empty((bw, wk.shape[1]), eng.sc.n_systems)  # (bw, G, M, S_all)
        if eng.items:  # the terms summed by gold class, then re-weighted as the confusion's gold columns
            cs = eng.sc.item_class_stats()
            u, s, k, f = cs.shape
            by_class = (np.asarray(w_units, dtype=np.float64) @ cs.reshape(u, -1)).reshape(bw, s, k, f)
            eng.with_items(pri, np.einsum("bgk,bskf->bgsf", wk, by_class))
        if eng.scores:  # each item re-weighted by its gold class's factor (not the rankings within groups: NaN)
            w_items = eng.sc.item_weights(w_units).astype(np.float64)
            rows = (w_items[:, None, :] * wk[:, :, eng.sc.eng.gold]).reshape(-1, w_items.shape[-1])
            eng.with_scores(pri, eng.sc.score_by_items(rows), lead=wk.shape[:2])
        return pri

    def values(self, tau, a, out):
        return {self.id: _nanmean(tau(a["full"], a[self.id]), 1)}


CRITERION = Priors()
