"""The verdict: which metric to report.

* ``criteria``: every evidence criterion with its resamples;
* ``mcs``: the Model Confidence Set; ``evidence``: the set per criterion,
  Bonferroni over the criteria, the answer as their intersection;
* ``tradeoff``: the answer when the criteria disagree;
* ``recommendation``: the recommendation of a dataset (the verdict, the
  requirements, the task's official metric) and its page;
* ``crossdata``: which metric holds up across datasets.
"""

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
