"""Class discrimination (ordered classes): how much more merging two
adjacent classes moves the ranking than the metric's own split-half noise
does: the stability minus the mean tau between the ranking and the ranking
after each merge, floored at 0.  A metric that ranks at random (both taus
near 0) and one blind to the merged distinction (merge tau 1) score 0: no
evidence either way."""

from __future__ import annotations

import numpy as np

from ...settings import CRITERION_NAMES
from .base import Criterion, _nanmean, adjacent_pairs


def _excess(stability, merge_tau):
    """Class discrimination: how much more a merge moves the ranking than the
    metric's own split-half noise does, (1 - merge tau) - (1 - stability),
    floored at 0: a change no larger than the noise is no evidence, so a
    metric that ranks at random (both taus near 0) and one blind to the
    merge (merge tau 1) score alike, 0, below any metric the merge really
    moves.  NaN stays NaN (np.maximum propagates it)."""
    return np.maximum(np.asarray(stability) - merge_tau, 0.0)


class Discrimination(Criterion):
    id = "discrimination"
    name = CRITERION_NAMES[id]  # (the built-in criteria's names are declared with the settings)
    legend = ("the split-half tau minus the mean tau between the ranking before and after merging two adjacent "
              "classes: how much more a merge moves the ranking than the metric's own noise does")
    range = (0.0, 2.0)
    needs_classes = True

    def left_out(self, *, has_classes, k, ordinal_data, imbalanced):
        if not has_classes:
            return super().left_out(has_classes=has_classes, k=k, ordinal_data=ordinal_data, imbalanced=imbalanced)
        if k < 3:
            return "merging the two classes of a two-class task leaves one class"
        if not ordinal_data:
            return ("the classes are unordered: merging two of them is not a coarsening of a scale, so no direction "
                    "of change is better (merging.csv still shows it)")
        return None

    def spec_settings(self, settings, spec):
        return {"merge_pairs": adjacent_pairs(spec.k)}

    def check(self, spec):
        if not spec.merge_pairs:
            raise ValueError("discrimination needs the class pairs to merge (merge_pairs)")

    def arrays(self, eng, spec, w_units, counts, draws):
        """(bw, pairs, M, S_all): the scores after each merge (a loop over the K-1 class pairs)."""
        bw = w_units.shape[0]
        c = counts.confusion
        merged = []
        for pair in spec.merge_pairs:
            mg = eng.merged(c, pair) if eng.cls else eng.empty((bw,), eng.sc.n_systems)
            if eng.items:  # the terms of the merged task, summed with the resample's unit weights
                st = eng.sc.item_merged_stats(tuple(pair))
                u, s, f = st.shape
                eng.with_items(mg, (np.asarray(w_units, dtype=np.float64) @ st.reshape(u, -1)).reshape(-1, s, f))
            mv = eng.sc.merged_score_values(tuple(pair)) if eng.scores else None
            if mv is not None:  # the pair's probabilities added, on the resample's items
                eng.with_scores(mg, eng.sc.score_by_items(eng.sc.item_weights(w_units), *mv))
            merged.append(mg)
        return np.stack(merged, axis=1)

    def values(self, tau, a, out):
        merge = _nanmean(tau(a["full"], a[self.id]), 1)  # the mean tau after a merge
        return {"merge": merge, self.id: _excess(out["stability"], merge)}

    def point(self, first, stability):
        """The stability over all the splits, minus the merged tau."""
        return _excess(stability, first["merge"])


CRITERION = Discrimination()
