"""Every criterion of the metric recommendation with its uncertainty:
resampling the test items *and* the systems (Deutsch, Dror & Roth 2021,
BOOT-BOTH), with two metrics always compared on the same resamples.

A criterion ``Q(m; S', I', w)`` is a function of metric m's scores of a
multiset of systems S' on a multiset of test units I' (items, or groups such
as articles), with its own randomness w (half-splits, noisy golds).  Higher
is better for every criterion here:

* ``stability``       mean Kendall tau between the rankings on the two halves
                      of random half-splits of the units (Amemiya & Sakai 5.2);
* ``discrimination``  stability minus the mean tau between the ranking and the
                      ranking after merging two adjacent classes (ordered
                      classes only), floored at 0: how much more merging
                      moves the ranking than the metric's own split-half
                      noise does.  A metric that ranks at random (both taus
                      near 0) and one blind to the merged distinction (merge
                      tau 1) score 0: no evidence either way;
* ``power``           discriminative power: the share of system pairs a paired
                      z-test separates at ``alpha`` after the family's
                      correction (Holm by default), the standard error of each
                      pair's difference from the item resamples;
* ``noise``           mean tau between the ranking on the gold and on a noisy
                      gold (a share ``rate`` of the labels flipped), averaged
                      over the rates;
* ``priors``          mean tau between the ranking and the rankings with the
                      items re-weighted to the class priors pi^gamma, averaged
                      over the gammas.

**BOOT-BOTH** (METHODS.md 1.4).  Replicate b draws the units with
replacement (``resample.bootstrap_weights``: counts per unit; whole groups
when the unit is a group) and, independently, the systems with replacement
(stream ``systems``), and its own w: ``inner_splits`` half-splits that put
every *distinct* unit drawn, with all its copies, in one half (stream
``criteria_split``: halves share no unit), and one noisy gold per rate
(streams ``criteria_noise``, ``criteria_noise_class``).  Every metric is
computed on the same draws, so the difference of two metrics' criteria per
replicate is a paired comparison.  A system drawn k times enters a ranking k
times: Kendall's tau-b of such a ranking equals the tau-b over pairs of
distinct systems weighted by the product of their counts (a system's copies
are tied in both rankings, and tau-b leaves pairs tied in both out), as
METHODS.md 1.4 asks; tau-a is rescaled to those pairs.  The discriminative
power counts pairs of distinct systems, each weighted by the product of
their counts.  Span metrics are recomputed from the resample's summed
per-article statistics, never averaged.

The **point value** of a criterion is computed on the full data with the
experiments' own draws: ``point_splits`` half-splits of seed ``split_seed``
(the values of ``stability.csv``), the noisy golds of ``noise_seed`` (those
of ``noise.csv``); the **interval** is the percentile interval of the
replicates that are defined, centred on the point value (``CriteriaResult``;
``n_undefined`` counts the undefined ones).
The **items** scheme (``scheme="items"``) uses the same unit draws,
splits and noisy golds and keeps the systems: the uncertainty of a
criterion for *these* systems (the question of choosing the metric of this
leaderboard), where BOOT-BOTH's is that for *new* systems like them
(METHODS 9.7).  Replicate b of the two schemes differs only in the systems
ranked, so the two are paired as well.

Everything is vectorised: a chunk of replicates is one stack of weight rows
for the confusion engine (``SubsetConfusion``), one call per metric family,
one compiled tau over all rows; no Python loop over replicates, splits or
items.

**One module per criterion.**  Each criterion is a ``Criterion``
(``base``) declared in a module of this package (``stability``,
``discrimination``, ``power``, ``noise``, ``priors``) and registered below,
in the tables' order; ``compute`` runs every registered criterion on the
shared resamples.  A new criterion is a module and one registration: the
verdict, the page, the figure and the checks read the registry
(``docs/architecture.md``, "A new criterion").
"""

from __future__ import annotations

from ...engine.resample import system_counts, system_draws, unit_draws
from . import discrimination, noise, power, priors, stability
from .base import (REGISTRY, CriteriaResult, CriteriaSpec, Criterion, adjacent_pairs, pair_power,
                   register_criterion, unregister_criterion)
from .compute import SCHEMES, criteria

__all__ = ["Criterion", "REGISTRY", "register_criterion", "unregister_criterion", "SCHEMES", "CriteriaSpec",
           "CriteriaResult", "criteria", "system_draws", "unit_draws", "adjacent_pairs", "system_counts",
           "pair_power"]

# the built-in criteria, in the tables' order
for _module in (stability, discrimination, power, noise, priors):
    register_criterion(_module.CRITERION)

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
