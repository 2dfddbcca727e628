"""Discriminative power: the share of system pairs a paired z-test
separates at ``alpha`` after the family's correction (Holm by default), the
standard error of each pair's difference from the item resamples."""

from __future__ import annotations

from ...settings import CRITERION_NAMES
from .base import Criterion, _pair_se, pair_power


class Power(Criterion):
    id = "power"
    name = CRITERION_NAMES[id]  # (the built-in criteria's names are declared with the settings)
    legend = "share of system pairs a test separates ({power_test})"
    range = (0.0, 1.0)

    def after(self, fulls, spec):
        """The pairs' standard errors from the replicates' full scores; then
        the power of any scores for the systems drawn ``counts`` times."""
        se = _pair_se(fulls)

        def power(full, counts):
            return pair_power(full, se, counts, spec.alpha, spec.correction)
        return power


CRITERION = Power()
