"""Robustness to label noise: the mean tau between the ranking on the gold
and on a noisy gold (a share ``rate`` of the labels flipped), averaged over
the rates; every metric sees the same noisy golds."""

from __future__ import annotations

import numpy as np

from ...methods.sensitivity import _draws, _flip_counts, _new_class
from ...settings import CRITERION_NAMES
from .base import Criterion, _nanmean


def noisy_golds(eng, spec, indices, seed: int, streams) -> tuple[np.ndarray, np.ndarray]:
    """(rank, new class) (rows, N): the items flipped first in each row
    (the m of smallest rank at a rate that flips m) and the class each is
    flipped to (``spec.noise_mode``), drawn from ``seed`` and ``streams``."""
    n = eng.sc.eng.n
    rank, u01 = _draws(n, indices, seed, streams, upto=_flip_counts(n, spec.noise_rates).max(initial=0))
    return rank, _new_class(eng.sc.eng.gold, u01, eng.sc.eng.k, spec.noise_mode)


class Noise(Criterion):
    id = "noise"
    name = CRITERION_NAMES[id]  # (the built-in criteria's names are declared with the settings)
    legend = "mean tau between the rankings on the gold and on a noisy gold, over the noise rates"
    range = (-1.0, 1.0)
    needs_classes = True

    def spec_settings(self, settings, spec):
        return {"noise_rates": settings.noise_rates, "noise_repeats": settings.noise_repeats,
                "noise_seed": settings.noise_seed,
                "noise_mode": settings.noise_mode if settings.noise_mode != "auto" else
                ("neighbour" if spec.ordinal else "uniform")}

    def draws(self, eng, spec, indices, point):
        """The noisy golds of the rows ``indices``; the point value's are the
        experiments' own (``noise.csv``'s seed and streams)."""
        if point:
            return noisy_golds(eng, spec, np.arange(spec.noise_repeats), spec.noise_seed, ("noise", "noise_class"))
        return noisy_golds(eng, spec, indices, spec.seed, ("criteria_noise", "criteria_noise_class"))

    def arrays(self, eng, spec, w_units, counts, draws):
        """(bw, rates, repeats, M, S_all): the repeats of one row share its unit counts (a loop over the rates)."""
        bw = w_units.shape[0]
        c = counts.confusion
        rank, new = draws
        w_items = eng.sc.item_weights(w_units)
        reps = rank.shape[0] // bw
        noisy = []
        for m in _flip_counts(rank.shape[1], spec.noise_rates):
            n_ = eng.cls_oriented(eng.noisy(c.repeat(reps, axis=0), w_items.repeat(reps, axis=0), rank, new, m)) \
                if eng.cls else eng.empty((rank.shape[0],), eng.sc.n_systems)
            if eng.items:
                eng.with_items(n_, eng.noisy_items(counts.items.repeat(reps, axis=0), w_items.repeat(reps, axis=0),
                                                   rank, new, m))
            if eng.scores:  # the same items moved to the same classes, under the systems' scores
                gold_rows = np.where(rank < m, new, eng.sc.eng.gold[None, :])
                eng.with_scores(n_, eng.sc.noisy_score_scores(w_items.repeat(reps, axis=0), gold_rows,
                                                              np.asarray(w_units).repeat(reps, axis=0)))
            noisy.append(n_)
        return np.stack([n.reshape((bw, reps) + n.shape[1:]) for n in noisy], axis=1)

    def values(self, tau, a, out):
        t = tau(a["full"], a[self.id])  # (b, rates, repeats, M)
        return {self.id: _nanmean(_nanmean(t, 2), 1)}  # mean over the repeats, then the rates


CRITERION = Noise()
