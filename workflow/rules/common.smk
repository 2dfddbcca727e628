# Shared set-up: dataset specs from the validated config, input functions.
import re
from pathlib import Path

from snakemake.exceptions import WorkflowError

from metaeval.config import ConfigError, dataset_specs, resolve_data_dir
from metaeval.workflow import experiment_settings

try:
    DATA_DIR = resolve_data_dir(config["data_dir"])
    SPECS = dataset_specs(config)
    SETTINGS = {name: experiment_settings(config, name) for name in SPECS}
except ConfigError as e:
    raise WorkflowError(f"Bad configuration: {e}")

DATASETS = list(SPECS)
RESULTS = "results"


wildcard_constraints:
    dataset="|".join(map(re.escape, DATASETS)) if DATASETS else "NO_DATASET",
    shard=r"\d+",
    n=r"\d+",


def dataset_inputs(wildcards):
    """Gold file and every prediction file of a dataset (so that adding a
    prediction file reruns that dataset's jobs, and only them)."""
    spec = SPECS[wildcards.dataset]
    try:
        files = spec.prediction_files(DATA_DIR)
    except ConfigError as e:
        raise WorkflowError(str(e))
    return [str(spec.gold_path(DATA_DIR))] + [str(p) for p in files.values()]


def baseline_names(spec):
    names = ["majority"] if "majority" in spec.baselines else []
    names += [f"all_{lab}" for lab in spec.labels] if "all_class" in spec.baselines else []
    return names + (["random"] if "random" in spec.baselines else [])


def n_ranked(name):
    """Systems the experiments rank: real systems plus the included baselines."""
    spec = SPECS[name]
    try:
        n_files = len(spec.prediction_files(DATA_DIR))
    except ConfigError as e:
        raise WorkflowError(str(e))
    return n_files + len(set(baseline_names(spec)) & set(SETTINGS[name].include_baselines))


N_RANKED = {name: n_ranked(name) for name in DATASETS}


def settings_of(wildcards):
    """Experiment settings of a dataset (rule params)."""
    return SETTINGS[wildcards.dataset]


def stability_shards(name):
    n = SETTINGS[name].shards
    return [f"{RESULTS}/{name}/stability/shard{i}of{n}.npz" for i in range(n)]


def has_groups(name):
    return bool(SPECS[name].gold_format.get("group_column"))


def dataset_targets():
    out = []
    for name in DATASETS:
        d = f"{RESULTS}/{name}"
        out += [f"{d}/scores.csv", f"{d}/confusion.csv", f"{d}/tables/scores.md", f"{d}/tables/scores.tex",
                f"{d}/figures/confusion.png", f"{d}/figures/confusion.pdf"]
        if has_groups(name):
            out.append(f"{d}/scores_by_group.csv")
        if N_RANKED[name] >= SETTINGS[name].min_systems:
            out += [f"{d}/similarity.csv", f"{d}/figures/similarity.png", f"{d}/stability.csv",
                    f"{d}/figures/stability.png", f"{d}/merging.csv", f"{d}/merging_balanced.csv",
                    f"{d}/figures/merging.png", f"{d}/tables/summary.md"]
        if len(SPECS[name].weights) >= 2:
            out += [f"{d}/weights.csv", f"{d}/tables/weights.md"]
    return out


REPRO = config.get("reproduction", {})
PUBLISHED = Path(workflow.basedir) / REPRO.get("published", "config/published/tables.yaml")


def reproduction_inputs():
    """Result files the reproduction report reads (of configured datasets)."""
    from metaeval.reproduce import Published, required_results

    made = set(dataset_targets())
    pub = Published.load(PUBLISHED)
    files = [f"{RESULTS}/{ds}/{f}" for ds, fs in required_results(pub, set(DATASETS)).items() for f in fs]
    return [f for f in files if f in made]


def published_files():
    from metaeval.reproduce import Published

    pub = Published.load(PUBLISHED)
    files = {str(PUBLISHED)} | {str(pub.folder / t["file"]) for t in pub.spec["tables"]}
    if pub.spec.get("claims"):
        files.add(str(pub.folder / pub.spec["claims"]["file"]))
    return sorted(files)


def reproduction_enabled():
    return REPRO.get("enabled", True) and PUBLISHED.exists() and bool(reproduction_inputs())


def all_targets():
    out = dataset_targets()
    if reproduction_enabled():
        out += [f"{RESULTS}/reproduction.md", f"{RESULTS}/reproduction.csv"]
    return out
