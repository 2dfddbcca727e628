"""The steps the Snakemake rules run, as plain functions of paths, one
module per family of rules:

* ``params``: what every step reads (rule params), checked when the
  workflow starts; the code each step runs (``code_fingerprint``);
* ``reading``: the ingestion: reading and checking a dataset's files;
* ``scoring``: scores, chance levels, gameability, score tables and figures;
* ``experiments``: the experiments' computations (CSV and NPZ files only);
* ``sensitivity``: label noise and class priors (reading the Tukey trials);
* ``design``: the test-set size design (reading the bootstrap replicates);
* ``figures``: the experiments' figures and tables, drawn from those files;
* ``recommendation``: which metric to report;
* ``crossdata``: which metric holds up across the datasets;
* ``reports``: summary pages, the front page, the reproduction, properties;
* ``leaderboards``: a leaderboard's benchmark, rank sets, experiments,
  verdict, design and page.

``workflow/scripts/*.py`` only unpack ``snakemake.input/params/output`` and
call these, so every step can also be run (and tested) without Snakemake.
The computing is the library's (``metaeval.api`` calls the same functions);
a step reads files, calls it and writes files.  Writes are atomic
(temporary file, then rename), so an interrupted step never leaves a
half-written result.  Importing this package imports none of its modules:
a job loads only the module of its step (``metaeval.workflow.NAME`` still
finds every step's function, for notebooks and tests).
"""

from __future__ import annotations

import importlib

from .steps import run_step, timed, warn, write_provenance  # noqa: F401 (what every job script uses)

# name -> the module that defines it
_WHERE = {
    "params": ("STEPS", "step_params", "step_spec", "step_settings", "code_fingerprint", "step_code", "git_commit",
               "n_ranked_systems", "path_problems", "experiment_settings", "unused_settings", "property_settings",
               "unwritable_folders"),
    "common": ("write_markdown",),
    "reading": ("ingest",),
    "scoring": ("score", "write_chance", "score_groups", "official_figures", "write_tables", "confusion_figure", "span_figure",
                "run_score", "write_gameability"),
    "experiments": ("few_groups_note", "write_kernels", "shard_splits", "run_stability_shard", "run_weights",
                    "run_experiments"),
    "sensitivity": ("run_sensitivity",),
    "design": ("run_design",),
    "crossdata": ("run_cross_dataset",),
    "figures": ("run_experiment_figures",),
    "criteria_shards": ("run_criteria_shard",),
    "recommendation": ("run_recommendation",),
    "reports": ("write_summary_page", "write_overview", "run_reproduce", "run_properties"),
    "dataset_properties": ("run_dataset_properties",),
    "leaderboards": ("LEADERBOARD_STEPS", "leaderboard_params", "run_leaderboard_data", "run_leaderboard_ranks",
                     "run_leaderboard_experiments", "run_leaderboard_verdict", "run_leaderboard_design"),
    "leaderboard_page": ("run_leaderboard_page",),
}
_MODULE_OF = {name: mod for mod, names in _WHERE.items() for name in names}
__all__ = ["run_step", "timed", "warn", "write_provenance", *_MODULE_OF]


def __getattr__(name: str):
    if name in _MODULE_OF:
        return getattr(importlib.import_module(f".{_MODULE_OF[name]}", __name__), name)
    if name in _WHERE:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'metaeval.workflow' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_MODULE_OF) | set(_WHERE))
