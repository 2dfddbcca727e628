"""The per-dataset sequence of the meta-evaluation, written once.

Each stage takes a dataset, its spec and its settings (and what earlier
stages returned) and returns tables, named by the workflow's file names
(``similarity.csv``, ``stability.csv``, ...).  ``metaeval.meta_evaluate``
runs every stage in memory (``pipeline.sequence.meta_evaluation``); the
workflow's jobs run one stage each (``pipeline.stages``) and write its
tables, so the two cannot drift apart: a change of a stage, a draw or a
table is made here, once.  (This file imports nothing: it is part of the
code fingerprint of every job that runs a stage.)

Stages, in order (the workflow's job in brackets):

1. ``score_dataset`` and ``dataset_gameability`` [score]
2. ``experiment_tables``: ranking similarity, rank stability, class
   merging (three classes or more), bootstrap intervals, significance and
   discriminative power, the Table-7 summary [experiments]
3. ``dataset_sensitivity``: label noise and class priors (classes only),
   reusing stage 2's Tukey trials [recommendation]
4. ``recommend_dataset``, then ``dataset_design`` [recommendation]

A stage is timed by ``timed(label)`` when given (the workflow's log), a
context manager; the library's default says nothing.
"""

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
