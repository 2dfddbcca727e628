# Shared set-up: dataset specs from the validated config, input functions.
import re
from pathlib import Path

from snakemake.exceptions import WorkflowError

from metaeval.config import ConfigError, dataset_specs, resolve_data_dir

try:
    DATA_DIR = resolve_data_dir(config["data_dir"])
    SPECS = dataset_specs(config)
except ConfigError as e:
    raise WorkflowError(f"Bad configuration: {e}")

DATASETS = list(SPECS)
RESULTS = "results"


wildcard_constraints:
    dataset="|".join(map(re.escape, DATASETS)) if DATASETS else "NO_DATASET",


def dataset_inputs(wildcards):
    """Gold file and every prediction file of a dataset (so that adding a
    prediction file reruns that dataset's jobs, and only them)."""
    spec = SPECS[wildcards.dataset]
    try:
        files = spec.prediction_files(DATA_DIR)
    except ConfigError as e:
        raise WorkflowError(str(e))
    return [str(spec.gold_path(DATA_DIR))] + [str(p) for p in files.values()]


def has_groups(name):
    return bool(SPECS[name].gold_format.get("group_column"))


def all_targets():
    out = []
    for name in DATASETS:
        d = f"{RESULTS}/{name}"
        out += [f"{d}/scores.csv", f"{d}/confusion.csv", f"{d}/tables/scores.md", f"{d}/tables/scores.tex",
                f"{d}/figures/confusion.png", f"{d}/figures/confusion.pdf"]
        if has_groups(name):
            out.append(f"{d}/scores_by_group.csv")
    return out
