"""The methods: the experiments on a dataset, scored through one engine.

* ``scorer``: ``Counts`` and ``Scorer``: the scores ``(..., M, S)`` of the
  selected systems on the whole test set or on thousands of resamples at
  once; ``select_systems``;
* ``experiments``: ranking similarity, rank stability, class merging,
  weights, the summary table;
* ``significance``: bootstrap intervals, randomised Tukey HSD,
  discriminative power;
* ``sensitivity``: label noise and class priors; ``design``: the test-set
  size; ``gameability``: degenerate systems scored on the dataset's test set.

Each takes a dataset, its spec and its settings and returns data frames.
"""

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
