"""A toy evidence criterion, declared as a module of
``metaeval.verdict.criteria`` declares one (tests/test_extension.py
registers it): the mean Kendall tau between the ranking on the full data
and the rankings on the first halves of the half-splits."""

from __future__ import annotations

from metaeval.verdict.criteria import Criterion
from metaeval.verdict.criteria.base import _nanmean


class HalfAgreement(Criterion):
    id = "half_agreement"
    name = "half agreement"
    legend = "mean Kendall tau between the ranking on the whole test set and on the first half of each split"
    range = (-1.0, 1.0)

    def values(self, tau, a, out):
        return {self.id: _nanmean(tau(a["full"], a["x"]), 1)}


CRITERION = HalfAgreement()
