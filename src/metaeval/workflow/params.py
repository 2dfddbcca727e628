"""What every step reads, checked when the workflow starts: the rule params
(dataset fields, experiment settings, the code each step runs), the
input paths, the experiment settings of a dataset."""

from __future__ import annotations

import os
import functools
import re
from dataclasses import fields
from pathlib import Path
from typing import Mapping

from ..data.config import DatasetSpec, from_plain, restricted, to_plain, unsafe_path_reason

# ---------------------------------------------------------------------------
# What every step reads.  Its rule passes exactly these fields of the dataset
# spec and the branches of the settings tree (``metaeval.settings``) of the
# methods it runs, as plain values that Snakemake records, so that editing a
# setting reruns the steps whose methods read it and no others.  A setting
# added to a branch reaches every step of its method with no edit here.  A
# step sees a restricted view (``config.restricted``): reading a field not
# given fails at once.  ``weights:default`` is the default weight set only
# (scores.csv does not depend on the other sets).
# ---------------------------------------------------------------------------
_CLASSIFICATION_FIELDS = ("labels", "metrics", "weights:default", "default_weights", "f_avg_classes",
                          "unrelated_label", "positive_class")

# (the metrics of per-item terms: read by the steps that score every metric, not by the analyses of confusion
# matrices: chance levels, class merging and weights, label noise and priors, formal properties)
_METRIC_FIELDS = _CLASSIFICATION_FIELDS + ("item_metrics", "score_metrics", "span_metrics")

# the methods each part of a step runs, as branches of the settings tree
_STEP_PARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ingest": (("gold", "predictions", "labels", "gold_format", "prediction_format", "label_map",
                "drop_gold_labels", "extra_labels", "extra_label_policy", "baselines", "random_seed",
                "allow_unused_labels", "normalize_labels", "span_task", "span_format", "articles",
                "merge_overlapping_predictions", "synthetic", "offsets_past_end", "documents", "display_names",
                "baseline_systems", "real_systems",
                # scores and probabilities (metaeval.data.score_data): the files, how to read them, the labels of a
                # scores-only system, and the metrics that need probabilities (checked before anything is written)
                "scores", "score_format", "score_threshold", "probability_tolerance", "normalize_probabilities",
                "positive_class", "score_metrics"),
               ()),
    # gameability.csv: the test of a degenerate system against the median real system, resampled like the
    # bootstrap's replicates, at the family's level (the verdict's)
    # (random_seed: the degenerate random_score of the metrics of scores, metaeval.measures.scores.degenerates)
    "score": (_METRIC_FIELDS + ("span_task", "random_seed"), ("resampling", "bootstrap", "level")),
    "score_groups": (_CLASSIFICATION_FIELDS + ("item_metrics", "score_metrics", "primary_metric"), ()),
    # the task's official figures beside the dataset's scores (metaeval.reproduction.official)
    "official": (("official_results", "official_source"), ()),
    "score_tables": (("labels", "metrics", "item_metrics", "score_metrics", "span_metrics", "primary_metric",
                      "weights:default", "default_weights"),
                     ()),
    "confusion_figure": (("labels", "primary_metric"), ()),
    "span_figure": (("span_metrics", "primary_metric"), ()),
    "chance": (_CLASSIFICATION_FIELDS, ()),
    "similarity": (_METRIC_FIELDS, ("ranking", "resampling", "similarity")),
    "stability": (_METRIC_FIELDS + ("unit_names",), ("ranking", "resampling", "stability")),
    "merging": (_CLASSIFICATION_FIELDS, ("ranking", "resampling", "merging")),
    "weights": (("labels", "metrics", "weights", "default_weights", "f_avg_classes", "unrelated_label",
                 "positive_class"), ("ranking", "resampling")),
    "bootstrap": (_METRIC_FIELDS + ("span_task",), ("ranking", "resampling", "bootstrap")),
    # the paired bootstrap test reads the bootstrap's replicates
    "significance": (_METRIC_FIELDS, ("ranking", "resampling", "significance", "bootstrap")),
    # (they reuse the significance experiment's Tukey trials: a file, read when the test is Tukey's)
    "sensitivity": (_CLASSIFICATION_FIELDS + ("ordinal",),
                    ("ranking", "resampling", "noise", "priors", "significance")),
    # the test-set size design (metaeval.methods.design) reads the bootstrap's replicates (a file) and draws its subsets
    "design": (_METRIC_FIELDS + ("span_task", "unit_names"), ("ranking", "resampling", "significance", "design")),
    # the experiments' figures and tables: what their titles say (the rest is in the files they draw)
    "figures": (("primary_metric", "span_task", "unit_names"),
                ("resampling", "similarity", "stability", "bootstrap", "significance")),
    "summary": (("span_task", "synthetic", "predictions", "baselines", "baseline_systems"),
                ("ranking", "stability", "significance", "summary")),
    # the recommendation redraws every criterion (metaeval.verdict.criteria) with the settings of each, and the
    # verdict's own (metaeval.verdict.evidence): the task's official metric, the papers' choices, the declared requirements
    # and priorities
    "recommendation": (_METRIC_FIELDS + ("ordinal", "span_task", "official_metric", "official_source",
                                         "paper_choices", "requirements", "priorities", "unit_names"),
                       ("ranking", "resampling", "stability", "significance", "noise", "priors", "bootstrap",
                        "criteria", "level", "verdict")),
    # the formal properties on the dataset's own shape (its classes, order, weights; the class sizes from its data)
    "dataset_properties": (("labels", "ordinal", "metrics", "weights:default", "default_weights", "f_avg_classes",
                            "unrelated_label", "positive_class"), ()),
}

def _union(*parts: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    spec_f = tuple(dict.fromkeys(f for p in parts for f in _STEP_PARTS[p][0]))
    branches = tuple(dict.fromkeys(b for p in parts for b in _STEP_PARTS[p][1]))
    return spec_f, branches

# A job runs several parts at once: few, large jobs (each Python process
# costs about a second to start), and a job reads the union of its parts'
# settings, so it reruns when any of them changes.
STEPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ingest": _union("ingest"),
    "score": _union("score", "score_tables", "confusion_figure", "span_figure", "chance"),
    "score_groups": _union("score_groups"),
    "official": _union("official"),
    "stability_shard": _union("stability"),
    # (summary.csv is computed from the other parts' results; its page's settings are summary_page's)
    "experiments": _union("similarity", "stability", "merging", "bootstrap", "significance"),
    "weights": _union("weights"),
    # one job after the experiments: label noise and class priors (datasets with classes), the figures, the answer
    "recommendation": _union("recommendation", "sensitivity", "design", "figures"),
    # a shard of the recommendation's criteria resamples: the criteria's settings (the recommendation's part)
    "criteria_shard": _union("recommendation"),
    # the summary page, written by the overview job once the experiments and the recommendation are done
    "summary_page": _union("summary"),
    "dataset_properties": _union("dataset_properties"),
}


# the fields by which a step reads metrics: such a step of a dataset with custom metrics gets their declarations
_READS_METRICS = {"metrics", "item_metrics", "primary_metric", "official_metric", "paper_choices"}
# steps that print the names of the metrics of their input files (the summary page); the class-weights step
# reads the metric list for the built-in weighted metrics alone, not the custom ones
_NAMES_METRICS = {"summary_page"}


def _branches_read(branches, k: int) -> list[str]:
    """The branches a step of a dataset with ``k`` classes reads: class
    merging needs three classes, label noise and class priors two."""
    return [b for b in branches if not (b == "merging" and k < 3) and not (b in ("noise", "priors") and k < 2)]


def step_params(spec: DatasetSpec, settings) -> dict[str, dict[str, dict]]:
    """``{step: {"spec": {...}, "settings": {...}}}``: the plain values each
    step of a dataset reads (rule params): its dataset fields, and every
    setting of the branches its methods read, except the ones that shape the
    jobs and never the numbers (``shards``: the jobs' inputs carry it)."""
    from ..settings import GROUPS

    out = {}
    for step, (spec_fields, branches) in STEPS.items():
        sp = {"name": spec.name}
        for f in spec_fields:
            if f == "random_seed" and not {"random", "random_spans"} & set(spec.baselines):
                continue  # seeds only the random baseline (synthetic systems carry their own seed)
            if f == "weights:default":
                sp["weights"] = ({spec.default_weights: spec.weights[spec.default_weights]}
                                 if spec.default_weights else {})
            else:
                sp[f] = getattr(spec, f)
        if spec.custom_metrics and (_READS_METRICS & set(sp) or step in _NAMES_METRICS) and step != "weights":
            # a custom metric's function and the SHA-256 of its file: an edit reruns the steps that compute it
            sp["custom_metrics"] = spec.custom_metrics
        setting_fields = [f.name for b in _branches_read(branches, spec.k) for f in fields(GROUPS[b])
                          if f.metadata.get("param", True)]
        out[step] = {"spec": to_plain(sp), "settings": to_plain({f: getattr(settings, f) for f in setting_fields})}
    return out

def step_spec(plain: Mapping) -> DatasetSpec:
    """The restricted dataset spec a step is given (from its rule param);
    the custom metrics it reads are registered (loaded from their files)."""
    if plain.get("custom_metrics"):
        from ..measures.custom import register_declared

        register_declared(plain["custom_metrics"])
    return restricted(DatasetSpec, from_plain(dict(plain)))

def step_settings(plain: Mapping):
    """The restricted experiment settings a step is given (from its rule param)."""
    from ..settings import Settings

    return restricted(Settings, from_plain(dict(plain)))

_FROM = re.compile(r"^[ \t]*from[ \t]+(\.+|metaeval\b)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(metaeval[\w.]*)", re.M)


@functools.lru_cache(maxsize=None)
def _package_files(root: Path) -> frozenset[str]:
    """Every module file of the package at ``root``, as paths relative to it
    (one walk of the folder, not a file-system call per name an import could
    mean; strings, not ``Path``s: a run's no-op matched 1,400 names as paths
    in 0.2 s)."""
    return frozenset(p.relative_to(root).as_posix() for p in root.rglob("*.py"))


@functools.lru_cache(maxsize=None)
def _imports(path: Path, root: Path) -> frozenset[Path]:
    """The files of the package at ``root`` that the module at ``path``
    imports, at any depth of its code (an import inside a function counts:
    it runs when the step calls that function), with the packages they are
    in.  Read by pattern, not parsed (a run starts faster): an import
    written in a docstring counts too, which can only add files."""
    here = path.relative_to(root).with_suffix("").parts  # e.g. ("workflow", "experiments")
    pkg = here[:-1]
    found: set[str] = set()

    files = _package_files(root)

    def add(parts) -> None:
        parts = tuple(p for p in parts if p)
        for k in range(len(parts) + 1):  # every package on the way, and the module itself
            base = "/".join(parts[:k])
            for cand in ((f"{base}/__init__.py", f"{base}.py") if base else ("__init__.py",)):
                if cand in files:
                    found.add(cand)

    add(pkg)  # the packages the module is in run first
    text = path.read_text(encoding="utf-8")
    for dots, mod, names in _FROM.findall(text):
        if dots == "metaeval":
            base = ()
        else:
            base = pkg[:len(pkg) - (len(dots) - 1)] if len(dots) > 1 else pkg
        mod_parts = tuple(m for m in mod.split(".") if m)
        add(base + mod_parts)
        for name in re.split(r"[\s,()]+", names):  # ``from . import metrics``: a module too
            name = name.split(" as ")[0].strip()
            if name.isidentifier():
                add(base + mod_parts + (name,))
    for mod in _IMPORT.findall(text):
        add(tuple(mod.split(".")[1:]))
    return frozenset(root / f for f in found)


def code_fingerprint(*modules: str) -> str:
    """The package version and a SHA-256 of the source a step runs: the
    files of ``modules`` (e.g. ``"workflow.experiments"``) and of every
    module of ``metaeval`` they import, at any depth (none given: every
    .py file of the package).  A rule param of every step, so that a change
    of the library reruns exactly the steps whose code it is in (a comment
    in ``plots.py`` reruns the steps that draw, not the stability splits)."""
    import hashlib

    from .. import __version__

    root = Path(__file__).resolve().parents[1]
    if modules:
        todo = [root.joinpath(*m.split(".")).with_suffix(".py") for m in modules]
        todo = [t if t.is_file() else t.with_suffix("") / "__init__.py" for t in todo]
        files = {root / "__init__.py"}
        while todo:  # (the package's own __init__ imports its modules lazily, by name: not followed)
            f = todo.pop()
            if f not in files:
                files.add(f)
                todo.extend(_imports(f, root) - files)
    else:
        files = set(root.rglob("*.py"))
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return f"{__version__}+{h.hexdigest()[:16]}"


# the module each rule's script calls (its code: that module and what it imports)
STEP_MODULES = {
    "ingest": "workflow.reading", "provenance": "workflow.steps", "score": "workflow.scoring",
    "score_groups": "workflow.scoring", "official": "workflow.scoring", "kernels": "workflow.experiments",
    "stability_shard": "workflow.experiments", "experiments": "workflow.experiments",
    "weights": "workflow.experiments", "criteria_shard": "workflow.criteria_shards",
    "recommendation": "workflow.recommendation+workflow.figures+workflow.sensitivity+workflow.design",
    "overview": "workflow.reports", "reproduce": "workflow.reports", "properties": "workflow.reports",
    "dataset_properties": "workflow.dataset_properties",
    "cross_dataset": "workflow.crossdata",
    "leaderboard": "workflow.leaderboards", "leaderboard_page": "workflow.leaderboard_page",
}


def step_code() -> dict[str, str]:
    """``{rule family: code_fingerprint of its modules}`` (``STEP_MODULES``;
    ``a+b``: a job that runs the steps of both)."""
    cache: dict[str, str] = {}
    return {step: cache.setdefault(m, code_fingerprint(*m.split("+"))) for step, m in STEP_MODULES.items()}


def git_commit(path) -> str | None:
    """The commit of the workflow's checkout (with "-dirty" when it has
    uncommitted changes), or None outside a git checkout."""
    import subprocess

    try:
        head = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(path), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None

def n_ranked_systems(spec: DatasetSpec, files: Mapping[str, Path], include_baselines) -> int:
    """Systems the experiments rank: the real (and synthetic) systems plus
    the baselines (generated, or supplied files marked by ``baseline_systems``)
    named in ``include_baselines`` (``experiments.select_systems``);
    ``files``: ``spec.prediction_files`` and ``spec.score_files`` (a
    system may give scores only)."""
    from ..data.systems import baseline_names

    synthetic = len(spec.synthetic["kinds"]) * len(spec.synthetic["strengths"]) if spec.synthetic else 0
    supplied = spec.supplied_baselines(files)
    return (len(files) - len(supplied - set(include_baselines)) + synthetic
            + len(set(baseline_names(spec.labels, spec.baselines)) & set(include_baselines)))

def systems_line(spec: DatasetSpec, files: Mapping[str, Path]) -> str:
    """One line for the console at every start: the systems of a dataset
    that are ranked as real and those that are baselines (supplied files
    that ``baseline_systems`` declares, then the generated ones), and the
    files named like baselines that nothing declares (their warning says
    how to declare them); ``files``: ``spec.prediction_files`` and
    ``spec.score_files``."""
    from ..data.config import baseline_word
    from ..data.systems import baseline_names

    supplied = spec.supplied_baselines(files)
    real = [s for s in sorted(files) if s not in supplied]
    generated = baseline_names(spec.labels, spec.baselines)
    if "all_class" in spec.baselines and spec.k > 4:  # one per class: named by the rule
        at = generated.index(f"all_{spec.labels[0]}")
        shown = generated[:at] + [f"all_<class> for each of the {spec.k} classes"] + generated[at + spec.k:]
    else:
        shown = generated
    undeclared = [s for s in real if s not in spec.declared_real(files) and baseline_word(Path(files[s]).stem)]
    n_synthetic = len(spec.synthetic["kinds"]) * len(spec.synthetic["strengths"]) if spec.synthetic else 0

    def named(n: int, what: str, names) -> str:
        return f"{n} {what}" + (f" ({', '.join(names)})" if names else "")

    return (f"Dataset {spec.name}: " + named(len(real), "real system" + ("s" if len(real) != 1 else ""), real)
            + (f", {n_synthetic} synthetic" if n_synthetic else "")
            + "; baselines: " + named(len(supplied), "supplied", sorted(supplied)) + ", "
            + named(len(generated), "generated", shown)
            + (f"; named like baselines but ranked as real systems, declared neither way: {', '.join(undeclared)}"
               if undeclared else ""))


def data_fingerprint(spec: DatasetSpec, data_dir, prediction_files: Mapping[str, Path]) -> dict[str, str]:
    """The SHA-256 of every input of a dataset, by its path relative to
    ``data_dir`` (as configured when it lies outside): the gold file, each
    prediction and score file, and one hash of the article texts' names and contents
    (``io.folder_sha256``).  What the workflow's jobs depend on: the same
    files in another folder give the same fingerprint."""
    from ..data import files as io

    root = Path(data_dir).resolve()

    def key(p: Path) -> str:
        r = Path(p).resolve()
        return r.relative_to(root).as_posix() if r.is_relative_to(root) else str(p)

    out = {key(spec.gold_path(data_dir)): io.file_sha256(spec.gold_path(data_dir))}
    out.update({key(p): io.file_sha256(p) for p in prediction_files.values()})
    out.update({key(p): io.file_sha256(p) for p in spec.score_files(data_dir).values()})
    folder = spec.article_folder(data_dir)
    if folder is not None:
        out[key(folder) + "/"] = io.folder_sha256(folder)
    if spec.official_results:  # the task's official figures (read by the official step)
        p = Path(data_dir) / spec.official_results["file"]
        out[key(p)] = io.file_sha256(p)
    return dict(sorted(out.items()))


def path_problems(spec: DatasetSpec, data_dir) -> list[str]:
    """Input files of a dataset that the workflow cannot use, each with what
    to do (checked when the workflow starts, before any job runs)."""
    out = []
    # missing inputs named by their config key (Snakemake would only say that
    # some rule lacks an input file)
    def check(configured) -> str:  # an absolute path does not depend on data_dir
        return (". Check the path." if Path(configured).is_absolute() else
                f" (the path is relative to data_dir = {str(data_dir)!r}). Check the path, or data_dir.")

    gold = spec.gold_path(data_dir)
    if not gold.is_file():
        out.append(f"datasets.{spec.name}.gold: no file {str(gold)!r}{check(spec.gold)}")
    if spec.official_results and not (Path(data_dir) / spec.official_results["file"]).is_file():
        out.append(f"datasets.{spec.name}.official_results.file: no file "
                   f"{str(Path(data_dir) / spec.official_results['file'])!r}{check(spec.official_results['file'])}")
    if spec.articles and not (Path(data_dir) / spec.articles).is_dir():
        out.append(f"datasets.{spec.name}.articles: no folder {str(Path(data_dir) / spec.articles)!r}"
                   f"{check(spec.articles)}")
    for what, path in [("gold file", gold)] + [
            ("prediction file", p) for p in spec.prediction_files(data_dir).values()] + [
            ("score file", p) for p in spec.score_files(data_dir).values()] + [
            ("article folder", p) for p in [spec.article_folder(data_dir)] if p is not None]:
        why = unsafe_path_reason(path)
        if why:
            out.append(f"datasets.{spec.name}: the {what} {str(path)!r} cannot be read by the workflow: {why}. "
                       f"Rename it (the system name is the file name without its extension).")
    return out

# ---------------------------------------------------------------------------
# meta-evaluation experiments (see metaeval.methods.experiments)
# ---------------------------------------------------------------------------
def experiment_settings(config: Mapping, dataset: str):
    """Global ``experiments`` settings overridden by the dataset's own.

    A span dataset resamples whole articles (``resample_unit: group``);
    the dataset's own block may not ask for items.  ``group`` on a
    classification dataset needs a group column."""
    from dataclasses import replace

    from ..data.config import ConfigError, FORMATS, SPAN_FORMATS
    from ..settings import Settings

    raw = config["datasets"][dataset]
    own = raw.get("experiments") or {}
    s = Settings.from_config(config.get("experiments"), own)
    if raw.get("format") in SPAN_FORMATS:
        if own.get("resample_unit") == "item":
            raise ConfigError(f"datasets.{dataset}.experiments.resample_unit: a span dataset is resampled by "
                              f"article ('group'): span metrics are sums over articles")
        return replace(s, resample_unit="group", stratified=False)
    if s.resample_unit == "group" and not raw.get("group_column", FORMATS[raw.get("format", "csv")]["group_column"]):
        raise ConfigError(f"datasets.{dataset}: resample_unit 'group' needs a group column (group_column)")
    from ..measures.scores.registry import SCORE_REGISTRY

    within = [m for m in (raw.get("metrics") or []) if isinstance(m, str) and m in SCORE_REGISTRY
              and SCORE_REGISTRY[m].kind == "groups"]
    if within and s.resample_unit != "group":
        raise ConfigError(f"datasets.{dataset}.experiments.resample_unit: {within} rank the items within each group, "
                          f"so a resample draws whole groups: set it to 'group'")
    return s

def unused_settings(name: str, settings, config: Mapping | None = None) -> list[str]:
    """Settings of a dataset that a step does not apply as configured (said
    at the start of every run, not dropped in silence): a correction for
    multiple comparisons other than the default with the Tukey test, whose
    p-values are family-wise by construction; stratified halves asked for a
    span dataset (``config``: the run's config), which resamples whole
    articles."""
    out = []
    if settings.significance_test == "tukey" and settings.significance_correction != "holm":
        out.append(f"dataset {name}: significance_correction {settings.significance_correction!r} does not change "
                   f"the significance experiment: the randomised Tukey HSD test's p-values are family-wise already "
                   f"(the range statistic); it applies to significance_test: bootstrap, and to the recommendation's "
                   f"power criterion (its z-tests)")
    if config is not None:
        from ..data.config import SPAN_FORMATS
        from ..settings import Settings

        raw = config["datasets"][name]
        asked = Settings.from_config(config.get("experiments"), raw.get("experiments") or {})
        if raw.get("format") in SPAN_FORMATS and asked.stratified:
            out.append(f"dataset {name}: stratified is not used: a span dataset's half-splits draw whole articles "
                       f"(stratified halves take half of every gold class of the items)")
    return out

def requirement_problems(specs: Mapping[str, DatasetSpec], properties_enabled: bool) -> list[str]:
    """Declared requirements the run could not check: the formal properties
    switched off (said when the workflow starts, not when a recommendation
    job fails)."""
    if properties_enabled:
        return []
    return [f"datasets.{n}.requirements: {list(s.requirements)} need the formal properties of the dataset's shape: "
            "set properties.enabled: true, or remove the requirements" for n, s in specs.items() if s.requirements]


def dataset_property_settings(block: Mapping | None) -> dict | None:
    """The rule param of a dataset's properties job: the domain keys of the
    ``properties`` block (its weights, F_avg classes and unrelated class are
    the dataset's own), or None when ``enabled: false``."""
    from .dataset_properties import DOMAIN_KEYS

    full = property_settings(block)
    return None if full is None else {k: full[k] for k in DOMAIN_KEYS}


def property_settings(block: Mapping | None) -> dict | None:
    """The rule param of the properties job: the config's ``properties``
    block checked and with every default filled in (so that a change of a
    default reruns it), or None when ``enabled: false``."""
    from dataclasses import asdict

    from ..data.config import ConfigError
    from ..settings import PropertySettings

    block = dict(block or {})
    if not block.get("enabled", True):
        return None
    try:
        return to_plain(asdict(PropertySettings.from_config(block)))
    except ValueError as e:
        raise ConfigError(str(e)) from None


def unwritable_folders(root) -> list[str]:
    """The folders of ``root`` (the results) that this process may not
    write: a read-only disk, or a folder of another user.  The workflow
    says so before its first job (``onstart``): a job, or Snakemake
    removing an old output, would otherwise stop on a traceback half way
    through.  ``os.access`` answers for this process (root passes
    permission bits, not a read-only file system).  A root that does not
    exist yet is judged by the first folder above it that does."""
    root = Path(root)
    if not root.exists():
        folder = next((p for p in root.resolve().parents if p.exists()), Path(root.resolve().anchor))
        return [] if os.access(folder, os.W_OK | os.X_OK) else [str(folder)]
    if not root.is_dir():
        return [f"{root} (a file, not a folder)"]
    return [d for d, _, _ in os.walk(root) if not os.access(d, os.W_OK | os.X_OK)]
