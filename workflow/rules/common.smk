# Shared set-up: dataset specs from the validated config, input functions.
#
# Every setting a job reads reaches it as a rule param built here from the
# resolved config (plain values, which Snakemake records): `spec_of(step)` and
# `settings_of(step)` give each step exactly the dataset fields listed for it
# in metaeval.workflow.STEPS and the branches of the settings tree of the
# methods it runs, so editing a setting reruns the jobs that read it and no
# others.  Job scripts never read `snakemake.config`.
import re
from pathlib import Path

from snakemake.exceptions import WorkflowError

from dataclasses import asdict

import functools

from metaeval.data.config import ConfigError, dataset_specs, resolve_data_dir, to_plain
from metaeval.workflow.params import (code_fingerprint, dataset_property_settings, experiment_settings, git_commit,
                                      n_ranked_systems, path_problems, property_settings, requirement_problems,
                                      step_code, step_params)

try:
    DATA_DIR = resolve_data_dir(config["data_dir"])
    PROPERTY_SETTINGS = property_settings(config.get("properties"))
    DATASET_PROPERTY_SETTINGS = dataset_property_settings(config.get("properties"))
    # the paths of custom metrics are relative to the config file's folder (the one given with --configfile)
    CONFIG_DIR = Path((workflow.overwrite_configfiles or [WORKFLOW_DIR.parent / "config" / "config.yaml"])[-1]
                      ).resolve().parent
    SPECS = dataset_specs(config, base_dir=CONFIG_DIR)
    SETTINGS = {name: experiment_settings(config, name) for name in SPECS}
    PREDICTION_FILES = {name: spec.prediction_files(DATA_DIR) for name, spec in SPECS.items()}
    _req = requirement_problems(SPECS, PROPERTY_SETTINGS is not None)
    if _req:
        raise ConfigError("\n  ".join(_req))
except ConfigError as e:
    raise WorkflowError(f"Bad configuration: {e}")

# Files the workflow cannot take as inputs stop the run before any job starts.
_bad_paths = {name: path_problems(spec, DATA_DIR) for name, spec in SPECS.items()}
if any(_bad_paths.values()):
    import shutil

    for _name in [n for n, msgs in _bad_paths.items() if msgs]:  # no stale result left looking valid
        shutil.rmtree(Path("results") / _name, ignore_errors=True)
    raise WorkflowError("Input files that cannot be used:\n  " + "\n  ".join(
        m for msgs in _bad_paths.values() for m in msgs))

DATASETS = list(SPECS)
RESULTS = "results"
# a param of every rule: a change of the metaeval library reruns the steps whose code it is in
# (CODE_OF[family]: the step's module and every module it imports); provenance.json records the whole package's
CODE = code_fingerprint()
CODE_OF = step_code()
COMMIT = git_commit(WORKFLOW_DIR)
STEP_PARAMS = {name: step_params(SPECS[name], SETTINGS[name]) for name in DATASETS}


wildcard_constraints:
    dataset="|".join(map(re.escape, DATASETS)) if DATASETS else "NO_DATASET",
    shard=r"\d+",
    n=r"\d+",


def spec_of(step):
    """Rule param: the dataset fields `step` reads (plain values)."""
    return lambda wildcards: STEP_PARAMS[wildcards.dataset][step]["spec"]


def settings_of(step):
    """Rule param: the experiment settings `step` reads (plain values)."""
    return lambda wildcards: STEP_PARAMS[wildcards.dataset][step]["settings"]


@functools.cache
def _data_fingerprint(name):
    from metaeval.workflow.params import data_fingerprint

    return data_fingerprint(SPECS[name], DATA_DIR, PREDICTION_FILES[name])


def data_fingerprint_of(wildcards):
    """Rule param: the SHA-256 of every input file of the dataset (its gold,
    each prediction file, one hash of its article texts), keyed by their
    paths relative to data_dir.  The data files are not the rules' inputs:
    Snakemake would rerun on their paths and times, and moving or copying
    the data folder would redo every job; their contents are what counts
    (a file added, removed, renamed or edited reruns the dataset's jobs, and
    only them)."""
    return _data_fingerprint(wildcards.dataset)


# (a system may give scores only: its score file counts as its prediction file)
N_RANKED = {name: n_ranked_systems(SPECS[name], {**SPECS[name].score_files(DATA_DIR), **PREDICTION_FILES[name]},
                                   SETTINGS[name].include_baselines)
            for name in DATASETS}


def runs_experiments(name):
    return N_RANKED[name] >= SETTINGS[name].min_systems


# said at every start, not left for the user to notice a missing table
from metaeval.workflow.params import unused_settings

for _msg in [m for _name in DATASETS for m in unused_settings(_name, SETTINGS[_name], config)]:
    from snakemake.logging import logger

    logger.warning(_msg)
# which systems each dataset ranks as real and which are baselines, said at every start (issue 47)
from metaeval.workflow.params import systems_line

for _name in DATASETS:
    from snakemake.logging import logger

    logger.info(systems_line(SPECS[_name], {**SPECS[_name].score_files(DATA_DIR), **PREDICTION_FILES[_name]}))
for _name in DATASETS:
    if not runs_experiments(_name):
        from snakemake.logging import logger

        _parts = (["similarity", "stability"] + (["class merging"] if SPECS[_name].k >= 3 else [])
                  + ["intervals", "significance"] + (["label noise", "class priors"] if SPECS[_name].k >= 2 else [])
                  + ["summary", "recommendation", "test-set size design", "the cross-dataset tables"])
        logger.warning(f"Dataset {_name}: {N_RANKED[_name]} ranked systems, fewer than min_systems = "
                       f"{SETTINGS[_name].min_systems}: no meta-evaluation ({', '.join(_parts)}); its scores"
                       + (" and chance levels are" if SPECS[_name].k >= 2 else " are") + " computed.")


def runs_merging(name):
    """Class merging needs three classes: merging the two classes of a
    two-class task leaves one class, on which every system ties."""
    return SPECS[name].k >= 3


# every dataset's output shown in the report: (path with {dataset}, subcategory, label); the
# stand-alone overview page links them
REPORTED = []


def reported(path, caption, subcategory, label):
    """An output shown in the report (`snakemake --report`): category = the
    dataset, subcategory = the experiment, caption workflow/report/<caption>.rst."""
    REPORTED.append((path, subcategory, label))
    return report(path, caption=f"../report/{caption}.rst", category="{dataset}", subcategory=subcategory,
                  labels={"result": label})


def runs_sensitivity(name):
    """Label noise and class priors (in the experiments job): on the
    classification metrics of a dataset whose systems are ranked (not span
    identification, which has no classes)."""
    return runs_experiments(name) and SPECS[name].k >= 2


def dataset_pattern(kind):
    """Wildcard constraint: the datasets one variant of a rule makes.
    Scoring: "classification", "tc" (technique classification: also the
    span figure), "si" (span identification: no classes, no confusion
    figure).  Experiments: "merging" (three classes or more) or
    "no_merging"."""
    tc = lambda n: SPECS[n].span_task == "tc"  # noqa: E731
    pick = {"classification": lambda n: not SPECS[n].span_task, "tc": tc,
            "si": lambda n: SPECS[n].span_task == "si",
            "merging": runs_merging, "two_classes": lambda n: SPECS[n].k == 2, "classes": lambda n: SPECS[n].k >= 2,
            "no_merging": lambda n: SPECS[n].k < 2}[kind]
    names = [n for n in DATASETS if pick(n)]
    return "|".join(map(re.escape, names)) if names else "NO_DATASET"


def stability_shards(name):
    """The shard files the experiments job gathers; none with one shard (the
    experiments job then draws the splits itself: one Python process fewer)."""
    n = SETTINGS[name].shards
    return [f"{RESULTS}/{name}/stability/shard{i}of{n}.npz" for i in range(n)] if n > 1 else []


def criteria_shards(name):
    """The criteria-resample shard files the recommendation job gathers; none
    with one shard (the recommendation then draws the resamples itself)."""
    n = SETTINGS[name].criteria_shards
    return [f"{RESULTS}/{name}/criteria/shard{i}of{n}.npz" for i in range(n)] if n > 1 else []


def has_groups(name):
    return bool(SPECS[name].gold_format.get("group_column"))


def resolved_config(wildcards):
    """Rule param of provenance: the dataset's resolved spec (every key, defaults filled in)."""
    return to_plain(asdict(SPECS[wildcards.dataset]))


def resolved_settings(wildcards):
    return to_plain(asdict(SETTINGS[wildcards.dataset]))


def dataset_targets():
    out = []
    for name in DATASETS:
        d = f"{RESULTS}/{name}"
        out += [f"{d}/provenance.json", f"{d}/scores.csv", f"{d}/confusion.csv", f"{d}/tables/scores.md", f"{d}/tables/scores.tex",
                f"{d}/tables/scores.html", f"{d}/gameability.csv", f"{d}/tables/gameability.html"]
        if SPECS[name].k >= 2:  # span identification has no classes
            out += [f"{d}/figures/confusion.png", f"{d}/figures/confusion.pdf", f"{d}/chance.csv",
                    f"{d}/above_chance.csv", f"{d}/tables/chance.md", f"{d}/tables/chance.html"]
        if SPECS[name].span_task:
            out += [f"{d}/figures/span_scores.png", f"{d}/figures/span_scores.pdf"]
        if has_groups(name):
            out += [f"{d}/scores_by_group.csv", f"{d}/tables/scores_by_group.html"]
        if SPECS[name].official_results:
            out += [f"{d}/official.csv", f"{d}/tables/official.html"]
        if runs_experiments(name):
            out += [f"{d}/similarity.csv", f"{d}/figures/similarity.png", f"{d}/stability.csv",
                    f"{d}/figures/stability.png",
                    f"{d}/intervals.csv", f"{d}/tables/intervals.html",
                    f"{d}/similarity_intervals.csv", f"{d}/tables/intervals.md", f"{d}/figures/scores.png",
                    f"{d}/significance.csv", f"{d}/discriminative_power.csv", f"{d}/tables/significance.md",
                    f"{d}/tables/significance.html",
                    f"{d}/figures/discriminative_power.png"]
            if runs_merging(name):
                out += [f"{d}/merging.csv", f"{d}/merging_balanced.csv", f"{d}/figures/merging.png"]
        if runs_sensitivity(name):
            out += [f"{d}/noise.csv", f"{d}/priors.csv", f"{d}/tables/sensitivity.md", f"{d}/tables/sensitivity.html",
                    f"{d}/figures/noise.png", f"{d}/figures/noise.pdf", f"{d}/figures/priors.png",
                    f"{d}/figures/priors.pdf"]
        if len(SPECS[name].weights) >= 2:
            out += [f"{d}/weights.csv", f"{d}/tables/weights.md", f"{d}/tables/weights.html"]
    return out


REPRO = config.get("reproduction", {})
# relative to the checkout's root (the folder of config/ and workflow/)
PUBLISHED = WORKFLOW_DIR.parent / REPRO.get("published", "config/published/tables.yaml")


@functools.lru_cache(maxsize=None)
def published_tables():
    """The published tables' spec (read once per run), or None without it (an installed workflow has none)."""
    from metaeval.reproduction.published import Published

    return Published.load(PUBLISHED) if PUBLISHED.exists() else None


def reproduction_inputs():
    """Every result file the reproduction report reads (of the configured
    datasets whose experiments run); the report refuses to read others.
    None without the published tables (an installed workflow has none)."""
    from metaeval.reproduction.published import required_results

    pub = published_tables()
    if pub is None:
        return []

    made = set(dataset_targets()) | {f"{RESULTS}/{ds}/dataset.json" for ds in DATASETS}
    files = [f"{RESULTS}/{ds}/{f}" for ds, fs in required_results(pub, set(DATASETS)).items() for f in fs]
    return [f for f in files if f in made]


def published_files():
    pub = published_tables()
    if pub is None:
        return []

    files = {str(PUBLISHED)} | {str(pub.folder / t["file"]) for t in pub.spec["tables"]}
    if pub.spec.get("claims"):
        files.add(str(pub.folder / pub.spec["claims"]["file"]))
    return sorted(files)


REPRODUCTION_ENABLED = REPRO.get("enabled", True) and PUBLISHED.exists() and bool(reproduction_inputs())
REPORT_FILES = [f"{RESULTS}/reproduction.md", f"{RESULTS}/reproduction.csv", f"{RESULTS}/reproduction.html"]


REPORT_DATASETS = sorted({f.split("/")[1] for f in reproduction_inputs()}) if REPRODUCTION_ENABLED else []


def remove_stale_reports():
    """After a failed run: a report whose inputs are gone (a dataset's
    results are removed when its input is bad, a failed job's outputs when
    it fails) is removed too, so that no stale report is left looking
    valid: the reproduction report, and the front page with the
    recommendations.  (Run by `onerror`, so that the datasets' jobs need no
    parameter that lists the reports.)"""
    if REPRODUCTION_ENABLED and not all(Path(f).exists() for f in reproduction_inputs()):
        for f in REPORT_FILES:
            Path(f).unlink(missing_ok=True)
    for name in [n for n in DATASETS if runs_experiments(n)]:  # a recommendation whose evidence is gone
        inputs = recommendation_inputs(name)
        if not all(Path(f).exists() for v in inputs.values() for f in ([v] if isinstance(v, str) else v)):
            for f in recommendation_outputs(name):
                Path(f).unlink(missing_ok=True)
    if not all(Path(f).exists() for files in overview_inputs().values() for f in files):
        for f in [OVERVIEW, FRONT, *summary_pages()]:
            Path(f).unlink(missing_ok=True)


import time as _time

RUN_STARTED = _time.time()


def _logs_of_this_run():
    """(path, text) of the job logs written during this run."""
    root = Path(RESULTS, "logs")
    for log in sorted(root.rglob("*.log")) if root.is_dir() else []:
        try:
            if log.stat().st_mtime >= RUN_STARTED - 1:
                yield log, log.read_text(encoding="utf-8")
        except OSError:
            continue


def report_failures():
    """After a failed run: the messages of the jobs that failed in it
    (their logs start with "ERROR in rule"), printed last, so that they are
    not buried among the job listings above (`onerror`)."""
    import sys

    msgs = [text.rstrip() for _, text in _logs_of_this_run() if text.startswith("ERROR in rule")]
    if msgs:
        sys.stderr.write("\n" + "=" * 78 + "\nThe run stopped. What went wrong:\n\n" + "\n\n".join(msgs)
                         + "\n" + "=" * 78 + "\n")


def report_warnings():
    """After a run: the warnings its jobs gave (their logs' WARNING lines),
    gathered at the end, where they are not lost among the job listings
    (`onsuccess`, and `onerror` before the failures)."""
    import sys

    root = Path(RESULTS, "logs")
    lines = [f"  {log.relative_to(root).parent}: {w[len('WARNING: '):]}" for log, text in _logs_of_this_run()
             for w in text.splitlines() if w.startswith("WARNING: ")]
    if lines:
        sys.stderr.write(f"\nWarnings of this run ({len(lines)}; each job's log in {root} has them too):\n"
                         + "\n".join(lines) + "\n")


# the stand-alone front page (a styled page with a link to every dataset's pages and figures), and
# the same front as a fragment that the report's front page includes (workflow/report/workflow.rst)
OVERVIEW = f"{RESULTS}/report/overview.html"
FRONT = f"{RESULTS}/report/front.html"


def overview_links():
    """Rule param of overview: per dataset, [subcategory, label, path] of
    each page and figure the run writes (every one a target of the run:
    the link list is the DAG's, whatever the order the jobs run in; they
    are not inputs, so a figure redrawn does not redo the page), as in the
    report's menu; and under "" the pages across datasets."""
    made = set(all_targets()) | set(leaderboard_targets())
    out = {}
    for name in sorted(DATASETS):
        files = [(sub, label, path.replace("{dataset}", name)) for path, sub, label in REPORTED]
        files += [("0 Summary", "summary (Table 7 reproduced) and the answer", f"{RESULTS}/{name}/tables/summary.html")]
        out[name] = sorted([sub, label, f] for sub, label, f in files if f in made)
    across = [("Across datasets", "which metric holds up across the datasets", f"{RESULTS}/cross_dataset/cross_dataset.html"),
              ("Across datasets", "the criteria on which every metric is kept, per dataset",
               f"{RESULTS}/cross_dataset/figures/cross_dataset.png"),
              ("Metric properties", "the formal properties of every metric (table)", f"{RESULTS}/tables/properties.html"),
              ("Metric properties", "the formal properties of every metric (figure)", f"{RESULTS}/figures/properties.png"),
              ("Overview", "the papers' tables beside ours", f"{RESULTS}/reproduction.html")]
    out[""] = [[sub, label, f] for sub, label, f in across if f in made]
    for name in sorted(LEADERBOARDS):
        lb = [("Leaderboard", "the leaderboard: the answer, the rank sets and the evidence",
               f"{RESULTS}/{name}/leaderboard.html"),
              ("Leaderboard", "the rank sets under each resampling scheme (figure)",
               f"{RESULTS}/{name}/figures/rank_sets.png"),
              ("Leaderboard", "the leaderboard with its rank sets (LaTeX)", f"{RESULTS}/{name}/leaderboard.tex")]
        out[name] = [[sub, label, f] for sub, label, f in lb if f in made]
    return out




def overview_datasets():
    """Rule param of overview: what the front page says of each dataset (by
    name, as in the report's menu: reordering the config changes nothing)."""
    out = []
    for name in sorted(DATASETS):
        spec, settings = SPECS[name], SETTINGS[name]
        task = {"si": "span identification", "tc": f"technique classification, {spec.k} classes"}.get(
            spec.span_task, f"classification, {spec.k} classes")
        why = None
        if not runs_experiments(name):
            why = (f"no meta-evaluation: {N_RANKED[name]} ranked systems, fewer than min_systems = "
                   f"{settings.min_systems} (the experiments compare rankings of systems).")
        out.append({"name": name, "task": task, "n_systems": N_RANKED[name], "why_not": why,
                    "ordinal": spec.ordinal, "primary": spec.primary_metric, "unit": spec.unit_noun("item")})
    return out


def overview_inputs():
    """The overview job's inputs, from which the front page is made."""
    return dict(
        info=[f"{RESULTS}/{d}/dataset.json" for d in DATASETS],
        recommendations=[f"{RESULTS}/{d}/recommendation.json" for d in DATASETS if runs_experiments(d)],
        # each dataset's summary page: Table 7 reproduced, ending with the recommendation's answer
        summaries=[f"{RESULTS}/{d}/summary.csv" for d in DATASETS if runs_experiments(d)],
        similarity=[f"{RESULTS}/{d}/similarity.csv" for d in DATASETS if runs_experiments(d)],
        groups=[f"{RESULTS}/{d}/similarity_groups.csv" for d in DATASETS if runs_experiments(d)],
        # each leaderboard's answer, size and resolution (written by its page's job)
        leaderboards=[f"{RESULTS}/{n}/leaderboard.json" for n in sorted(LEADERBOARDS)],
        reproduction=[f"{RESULTS}/reproduction.csv"] if REPRODUCTION_ENABLED else [],
        published=[str(PUBLISHED)] if REPRODUCTION_ENABLED else [],
    )


_R = f"{RESULTS}/{{dataset}}"
RECOMMENDATION_OUTPUT = dict(
    csv=f"{_R}/recommendation.csv",
    json=f"{_R}/recommendation.json",
    md=f"{_R}/recommendation.md",
    html=reported(f"{_R}/tables/recommendation.html", "recommendation", "0 Summary",
                  "which metric to report, on all the evidence"),
    png=reported(f"{_R}/figures/recommendation.png", "recommendation_figure", "0 Summary",
                 "the criteria with their intervals"),
    pdf=f"{_R}/figures/recommendation.pdf",
    # the test-set size design (metaeval.methods.design), computed in the same job
    design=f"{_R}/design.csv",
    design_needed=f"{_R}/design_needed.csv",
    design_swaps=f"{_R}/design_swaps.csv",
    design_png=reported(f"{_R}/figures/design.png", "design", "9 Test-set size",
                        "minimum detectable difference against the test-set size"),
    design_pdf=f"{_R}/figures/design.pdf",
    design_md=f"{_R}/tables/design.md",
    design_html=reported(f"{_R}/tables/design.html", "design_table", "9 Test-set size",
                         "the test-set size a difference needs (table)"),
)


def summary_pages():
    """Each dataset's summary page, written by the overview job (it needs the
    dataset's experiments and its recommendation: the last job of both)."""
    out = []
    for name in [n for n in sorted(DATASETS) if runs_experiments(n)]:
        d = f"{RESULTS}/{name}"
        html = report(f"{d}/tables/summary.html", caption="../report/summary.rst", category=name,
                      subcategory="0 Summary", labels={"result": "summary (Table 7 reproduced) and the answer"})
        out += [f"{d}/tables/summary.md", html]
    return out


def summary_params():
    """Rule param of overview: what each summary page reads."""
    return {name: STEP_PARAMS[name]["summary_page"] for name in sorted(DATASETS) if runs_experiments(name)}


def recommendation_inputs(name=None):
    """The recommendation job's own inputs (of dataset `name`, or with the
    `{dataset}` wildcard): the dataset, its gameability and the formal
    properties of its shape when they are computed (the rule adds the
    experiments' files, which it draws and reads)."""
    d = f"{RESULTS}/{name}" if name else _R

    def properties(wildcards=None):  # the formal properties on the dataset's shape: metrics of classes only
        n = name or wildcards.dataset
        return [f"{RESULTS}/{n}/properties.csv"] if PROPERTY_SETTINGS is not None and SPECS[n].k >= 2 else []

    def shards(wildcards=None):  # the criteria's resamples drawn in shards (criteria_shards >= 2)
        return criteria_shards(name or wildcards.dataset)

    return dict(
        npz=f"{d}/data.npz",
        gameability=f"{d}/gameability.csv",
        properties=properties(None) if name else properties,
        kernels=f"{RESULTS}/logs/kernels.txt",
        criteria_shards=shards(None) if name else shards,
    )


def recommendation_outputs(name=None):
    """The recommendation files of one dataset, or of every dataset that
    runs the experiments."""
    names = [name] if name else [n for n in sorted(DATASETS) if runs_experiments(n)]
    return [str(f).replace("{dataset}", n) for n in names for f in RECOMMENDATION_OUTPUT.values()]


PROPERTY_FILES = [f"{RESULTS}/properties.csv", f"{RESULTS}/tables/properties.md", f"{RESULTS}/tables/properties.tex",
                  f"{RESULTS}/tables/properties.html", f"{RESULTS}/figures/properties.png",
                  f"{RESULTS}/figures/properties.pdf"]


def cross_kind(name):
    """The kind of task of a dataset (nominal, ordinal, spans), for the
    cross-dataset job."""
    from metaeval.data.config import dataset_kind

    return dataset_kind(SPECS[name])


def cross_skipped():
    """The configured datasets without a meta-evaluation, with why (the
    cross-dataset page names them)."""
    return {d: f"{N_RANKED[d]} ranked systems, fewer than min_systems = {SETTINGS[d].min_systems}"
            for d in sorted(DATASETS) if not runs_experiments(d)}


def cross_custom_metrics(names):
    """Rule param of cross_dataset: the custom metrics of the datasets (their
    declarations, with the SHA-256 of their files)."""
    return {m: d for n in names for m, d in SPECS[n].custom_metrics.items()}


def cross_verdict(names):
    """The verdict's branches of the settings tree (level, verdict) that the cross-dataset
    counts read: the datasets' (their verdict_alpha is the level of the sets
    whose MCS p-values they combine; the first dataset's when they differ)."""
    from dataclasses import fields

    from metaeval.settings import Settings
    from metaeval.settings import GROUPS

    s = SETTINGS[names[0]] if names else Settings()
    return {f.name: getattr(s, f.name) for branch in ("level", "verdict") for f in fields(GROUPS[branch])}


def cross_test_sets(names):
    """Each dataset's test set: its test_set key, or its gold file with the
    gold labels it drops (datasets with one test set count once across
    datasets)."""
    out = {}
    for d in names:
        spec = SPECS[d]
        out[d] = spec.test_set or str(spec.gold_path(DATA_DIR).resolve().relative_to(DATA_DIR)
                                      if spec.gold_path(DATA_DIR).resolve().is_relative_to(DATA_DIR)
                                      else spec.gold_path(DATA_DIR).resolve())
    return out


def properties_run():
    """Whether the run checks the metrics' formal properties: when it is on
    (``properties.enabled``, the default) and the config has a dataset, or
    names ``properties:`` itself (properties of classification metrics say
    nothing of a leaderboard's aggregates)."""
    return PROPERTY_SETTINGS is not None and (bool(DATASETS) or config.get("properties") is not None)


def all_targets():
    out = dataset_targets()
    if properties_run():
        out += PROPERTY_FILES
    if REPRODUCTION_ENABLED:
        out += REPORT_FILES
    cross = [f"{RESULTS}/cross_dataset/cross_dataset.md"] if any(runs_experiments(d) for d in DATASETS) else []
    return out + [OVERVIEW, FRONT] + [str(f) for f in summary_pages()] + recommendation_outputs() + cross
