"""Leaderboards: many systems on a benchmark of many tasks.

* ``resampling``: the aggregates (``metaeval.measures.aggregates``) of a
  benchmark (``metaeval.data.benchmark``) on thousands of resamples at
  once, under three schemes (items within tasks, tasks, both);
* ``ranks``: which ranks the leaderboard resolves: confidence sets for
  ranks (marginal and simultaneous, max-|t| with stepdown), the percentile
  intervals of bootstrap ranks beside them, tie bands;
* ``simulate``: leaderboards whose true ranks are known: the coverage of
  both kinds of rank intervals, and a null of exchangeable systems.
"""

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
