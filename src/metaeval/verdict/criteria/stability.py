"""Rank stability (Amemiya & Sakai 5.2): the mean Kendall tau between the
rankings on the two halves of random half-splits of the test units."""

from __future__ import annotations

from ...settings import CRITERION_NAMES
from .base import Criterion


class Stability(Criterion):
    id = "stability"
    name = CRITERION_NAMES[id]  # (the built-in criteria's names are declared with the settings)
    legend = "mean Kendall tau between the rankings on the two halves of random half-splits of the test set"
    range = (-1.0, 1.0)

    # (its replicates are the split taus every criterion shares: compute._taus's "stability")
    def point(self, first, stability):
        """Over every half-split of the experiments (the first chunk holds only some)."""
        return stability


CRITERION = Stability()
