"""The steps the Snakemake rules run, as plain functions of paths.

``workflow/scripts/*.py`` only unpack ``snakemake.input/params/output`` and
call these, so every step can also be run (and tested) without Snakemake.
Writes are atomic (temporary file, then rename), so an interrupted step
never leaves a half-written result.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from . import metrics as M
from .config import DatasetSpec, from_plain, restricted, to_plain, unsafe_path_reason
from .dataset import RANKED_KINDS, Dataset, confusion_from_long, confusion_long, load_dataset, score_dataset
from .io import DataError, atomic_path, read_result_csv, write_csv, write_text
from .steps import note as log_note, run_step, timed, warn, write_provenance  # noqa: F401 (re-exported for the job scripts)
from .tables import markdown_table, md_escape, scores_latex, scores_markdown

__all__ = ["unused_settings", "ingest", "score", "write_gameability", "score_groups", "write_tables", "confusion_figure", "span_figure", "atomic_path", "STEPS",
           "step_params", "step_spec", "step_settings", "path_problems", "n_ranked_systems", "run_properties",
           "property_settings", "run_sensitivity", "run_recommendation", "write_summary_page", "write_overview"]

# ---------------------------------------------------------------------------
# What every step reads.  Its rule passes exactly these fields of the dataset
# spec and of the experiment settings as params, as plain values that
# Snakemake records, so that editing a setting reruns the steps that read it
# and no others.  A step sees a restricted view (``config.restricted``):
# reading a field not listed here fails at once.  ``weights:default`` is the
# default weight set only (scores.csv does not depend on the other sets).
# ---------------------------------------------------------------------------
_CLASSIFICATION_FIELDS = ("labels", "metrics", "weights:default", "default_weights", "f_avg_classes",
                          "unrelated_label")
_METRIC_FIELDS = _CLASSIFICATION_FIELDS + ("span_metrics",)
_STEP_PARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ingest": (("gold", "predictions", "labels", "gold_format", "prediction_format", "label_map",
                "drop_gold_labels", "extra_labels", "extra_label_policy", "baselines", "random_seed",
                "allow_unused_labels", "normalize_labels", "span_task", "span_format", "articles",
                "merge_overlapping_predictions", "synthetic", "offsets_past_end", "documents", "display_names",
                "baseline_files"),
               ()),
    "score": (_METRIC_FIELDS, ()),
    "score_groups": (_CLASSIFICATION_FIELDS + ("primary_metric",), ()),
    "score_tables": (("labels", "metrics", "span_metrics", "primary_metric", "weights:default", "default_weights"),
                     ()),
    "confusion_figure": (("labels", "primary_metric"), ()),
    "span_figure": (("span_metrics", "primary_metric"), ()),
    "chance": (_CLASSIFICATION_FIELDS, ()),
    "similarity": (_METRIC_FIELDS, ("include_baselines", "tau_variant", "n_groups", "linkage")),
    "stability_shard": (_METRIC_FIELDS, ("include_baselines", "tau_variant", "n_splits", "split_seed",
                                         "stratified", "tier_fractions", "chunk_size", "resample_unit")),
    "stability": ((), ("n_splits", "stratified", "tau_variant", "resample_unit")),
    "merging": (_CLASSIFICATION_FIELDS, ("include_baselines", "tau_variant", "balanced_repeats", "balanced_seed",
                                         "chunk_size")),
    "weights": (("labels", "metrics", "weights", "default_weights", "f_avg_classes", "unrelated_label"),
                ("include_baselines", "tau_variant")),
    "bootstrap": (_METRIC_FIELDS + ("primary_metric", "span_task"),
                  ("include_baselines", "resample_unit", "bootstrap_replicates", "bootstrap_seed", "confidence",
                   "interval_method", "tau_variant", "chunk_size")),
    # the paired bootstrap test reads the bootstrap's replicates
    "significance": (_METRIC_FIELDS, ("include_baselines", "resample_unit", "tukey_trials", "tukey_seed", "alpha",
                                      "significance_test", "significance_correction", "bootstrap_replicates",
                                      "bootstrap_seed", "chunk_size")),
    "sensitivity": (_CLASSIFICATION_FIELDS + ("ordinal",),
                    ("include_baselines", "tau_variant", "noise_rates", "noise_mode", "noise_repeats", "noise_seed",
                     "noise_power_repeats", "prior_gammas", "tukey_trials", "tukey_seed", "alpha", "chunk_size",
                     "resample_unit")),
    "summary": (("span_task", "synthetic", "predictions", "baselines", "baseline_files"),
                ("n_splits", "distinct_tau", "alpha", "significance_test", "include_baselines")),
    # the recommendation redraws every criterion (metaeval.criteria) and reads the settings of each
    "recommendation": (_METRIC_FIELDS + ("ordinal", "span_task"),
                       ("include_baselines", "resample_unit", "tau_variant", "n_splits", "split_seed", "stratified",
                        "alpha", "significance_correction", "significance_test", "noise_rates", "noise_mode",
                        "noise_repeats", "noise_seed", "prior_gammas", "confidence", "chunk_size", "criteria", "criteria_replicates",
                        "criteria_splits", "criteria_seed", "tier_alpha", "min_difference")),
}


def _union(*parts: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    spec_f = tuple(dict.fromkeys(f for p in parts for f in _STEP_PARTS[p][0]))
    set_f = tuple(dict.fromkeys(f for p in parts for f in _STEP_PARTS[p][1]))
    return spec_f, set_f


# A job runs several parts at once: few, large jobs (each Python process
# costs about a second to start), and a job reads the union of its parts'
# settings, so it reruns when any of them changes.
STEPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ingest": _union("ingest"),
    "score": _union("score", "score_tables", "confusion_figure", "span_figure", "chance"),
    "score_groups": _union("score_groups"),
    "stability_shard": _union("stability_shard"),
    "experiments": _union("similarity", "stability", "merging", "bootstrap", "significance", "sensitivity",
                          "summary"),
    "weights": _union("weights"),
    "recommendation": _union("recommendation"),
    # the summary page, written by the overview job once the experiments and the recommendation are done
    "summary_page": _union("summary"),
}
# With one shard (the default) there is no stability_shard job: the
# experiments job draws the half-splits itself and reads their settings too.
_ONE_SHARD_EXPERIMENTS = _union("similarity", "stability_shard", "stability", "merging", "bootstrap",
                                "significance", "sensitivity", "summary")
# label noise and class priors need classes (not span identification)
_SENSITIVITY_SETTINGS = ("noise_rates", "noise_mode", "noise_repeats", "noise_seed", "noise_power_repeats",
                         "prior_gammas")


def step_params(spec: DatasetSpec, settings) -> dict[str, dict[str, dict]]:
    """``{step: {"spec": {...}, "settings": {...}}}``: the plain values each
    step of a dataset reads (rule params)."""
    out = {}
    for step, (spec_fields, setting_fields) in STEPS.items():
        if step == "experiments" and settings.shards == 1:
            spec_fields, setting_fields = _ONE_SHARD_EXPERIMENTS
        sp = {"name": spec.name}
        for f in spec_fields:
            if f == "random_seed" and not {"random", "random_spans"} & set(spec.baselines):
                continue  # seeds only the random baseline (synthetic systems carry their own seed)
            if f == "weights:default":
                sp["weights"] = ({spec.default_weights: spec.weights[spec.default_weights]}
                                 if spec.default_weights else {})
            else:
                sp[f] = getattr(spec, f)
        # class merging needs three classes: without it, its settings are not read
        setting_fields = [f for f in setting_fields if spec.k >= 3 or f not in ("balanced_repeats", "balanced_seed")]
        setting_fields = [f for f in setting_fields if spec.k >= 2 or f not in _SENSITIVITY_SETTINGS]
        # the Tukey test's p-values are family-wise: only the bootstrap test reads the correction
        # (and the recommendation's power, whose z-tests are corrected over each resample's pairs)
        setting_fields = [f for f in setting_fields if settings.significance_test == "bootstrap"
                          or f != "significance_correction" or step == "recommendation"]
        out[step] = {"spec": to_plain(sp), "settings": to_plain({f: getattr(settings, f) for f in setting_fields})}
    return out


def step_spec(plain: Mapping) -> DatasetSpec:
    """The restricted dataset spec a step is given (from its rule param)."""
    return restricted(DatasetSpec, from_plain(dict(plain)))


def step_settings(plain: Mapping):
    """The restricted experiment settings a step is given (from its rule param)."""
    from .experiments import Settings

    return restricted(Settings, from_plain(dict(plain)))


def code_fingerprint() -> str:
    """The package version and a SHA-256 of its source (every .py file of
    ``metaeval``, by path and content): a rule param of every step, so that
    a change of the library reruns the steps by itself."""
    import hashlib

    from . import __version__

    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return f"{__version__}+{h.hexdigest()[:16]}"


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
    the baselines (generated, or supplied files marked by ``baseline_files``)
    named in ``include_baselines`` (``experiments.select_systems``);
    ``files``: ``spec.prediction_files``."""
    from .dataset import baseline_names

    synthetic = len(spec.synthetic["kinds"]) * len(spec.synthetic["strengths"]) if spec.synthetic else 0
    supplied = spec.supplied_baselines(files)
    return (len(files) - len(supplied - set(include_baselines)) + synthetic
            + len(set(baseline_names(spec.labels, spec.baselines)) & set(include_baselines)))


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
    if spec.articles and not (Path(data_dir) / spec.articles).is_dir():
        out.append(f"datasets.{spec.name}.articles: no folder {str(Path(data_dir) / spec.articles)!r}"
                   f"{check(spec.articles)}")
    for what, path in [("gold file", gold)] + [
            ("prediction file", p) for p in spec.prediction_files(data_dir).values()] + [
            ("article folder", p) for p in [spec.article_folder(data_dir)] if p is not None]:
        why = unsafe_path_reason(path)
        if why:
            out.append(f"datasets.{spec.name}: the {what} {str(path)!r} cannot be read by the workflow: {why}. "
                       f"Rename it (the system name is the file name without its extension).")
    return out


def ingest(spec: DatasetSpec, data_dir, out_npz, out_json, results_dir=None, logs_dir=None,
           log=None) -> Dataset:
    """Read and check every input file of a dataset; write the coded labels.

    On bad input, every previous result of the dataset (``results_dir``)
    and the logs of its other jobs (``logs_dir``, all but this job's
    ``log``) are removed before the ``DataError`` propagates, so no stale
    table or log is left looking valid (the workflow's ``onerror`` then
    removes the reports that summarise it).
    """
    try:
        ds = load_dataset(spec, data_dir)
    except DataError:
        if results_dir is not None and Path(results_dir).is_dir():
            shutil.rmtree(results_dir)
        if logs_dir is not None and Path(logs_dir).is_dir():
            keep = Path(log).resolve() if log else None
            for f in Path(logs_dir).iterdir():
                if f.is_file() and f.resolve() != keep:
                    f.unlink()
        raise
    with atomic_path(out_npz) as tmp:
        ds.save(tmp)
    write_text(out_json, json.dumps(ds.info, indent=2) + "\n")
    log_note(_read_summary(spec, ds))
    for w in ds.info.get("warnings", []):  # to the job's log and the console
        warn(f"dataset {spec.name!r}: {w}")
    return ds


def _read_summary(spec: DatasetSpec, ds: Dataset) -> str:
    """One line for the ingestion's log: what was read."""
    info, kinds = ds.info, list(ds.kinds)
    what = (f"{info['n_gold_spans']:,} gold spans in {info['n_articles']:,} documents"
            + (f", {ds.n_items:,} items in {ds.k} classes" if ds.k else "")) if spec.span_task else \
        f"{ds.n_items:,} items in {ds.k} classes"
    base = [s for s, k in zip(ds.systems, kinds) if k == "baseline"]
    return (f"read {spec.gold}: {what}; {kinds.count('system')} system(s), {kinds.count('synthetic')} synthetic, "
            f"{len(base)} baseline(s) ({', '.join(base) or 'none'}); {len(info.get('warnings', []))} warning(s)")


def score(spec: DatasetSpec, data_npz, out_scores, out_confusion) -> pd.DataFrame:
    """``scores.csv`` (system, kind, one column per metric: classification
    metrics, then span metrics) and ``confusion.csv`` (system, predicted,
    gold, count; no rows for span identification, which has no classes)."""
    ds = Dataset.load(data_npz)
    c = ds.confusion()
    df = score_dataset(ds, spec)
    write_csv(out_scores, df)
    write_csv(out_confusion, confusion_long(c, ds.systems, ds.labels))
    return df


def write_chance(spec: DatasetSpec, data_npz, scores_csv, out_chance, out_above, out_md, out_html=None):
    """``chance.csv``: every classification metric of the uniform,
    prior-matched and majority guessers, from their expected confusion
    matrices (``metaeval.chance``); ``above_chance.csv``: each system's
    margin over each; a table of the levels with how many systems beat
    the strongest of them."""
    from .chance import GUESSERS, above_chance, chance_scores

    ds = Dataset.load(data_npz)
    chance = chance_scores(np.bincount(ds.gold, minlength=spec.k), spec.metrics, spec.metric_params())
    write_csv(out_chance, chance)
    above = above_chance(read_result_csv(scores_csv), chance, spec.metrics)
    write_csv(out_above, above)
    real = above[above["kind"].isin(RANKED_KINDS)]
    margin = real[[f"above_{g}" for g in GUESSERS]].min(axis=1)
    rows = []
    for mid in spec.metrics:
        info, m = M.get(mid), margin[real["metric"] == mid]
        rows.append({"metric": f"{info.name} ({info.direction} is better)",
                     **{g: float(chance.loc[chance["guesser"] == g, mid].iloc[0]) for g in GUESSERS},
                     "systems above every level": f"{int((m > 1e-12).sum())} of {int(m.size)}"})
    md = (f"# {md_escape(spec.name)}: chance levels\n\n"
          "The score of three guessers that never look at an item, from their expected confusion "
          "matrices: **uniform** (every class with probability 1/K), **prior** (each class with its share "
          "of the gold), **majority** (always the most frequent gold class). The last column counts the "
          "systems (real or synthetic) that beat all three.\n\n"
          + markdown_table(pd.DataFrame(rows)))
    write_markdown(out_md, md, out_html, f"{spec.name}: chance levels")


def score_groups(spec: DatasetSpec, data_npz, out_csv, out_md=None, out_html=None) -> pd.DataFrame:
    """Scores per item group (e.g. per target), long form
    ``group, system, kind, <metrics>``, plus the unweighted mean over groups
    (``group = "mean"``, Kaushal et al.'s avgF1) and the mean weighted by
    group size (``group = "weighted_mean"``, their avg_wF1)."""
    ds = Dataset.load(data_npz)
    cg = ds.confusion_by_group()  # (G, S, K, K)
    scores = M.evaluate(cg, spec.metrics, **spec.metric_params())
    sizes = np.bincount(ds.groups, minlength=len(ds.group_names)).astype(float)
    frames = []
    for g, gname in enumerate(ds.group_names):
        frames.append(pd.DataFrame({"group": gname, "system": ds.systems, "kind": ds.kinds,
                                    **{m: scores[m][g] for m in spec.metrics}}))
    frames.append(pd.DataFrame({"group": "mean", "system": ds.systems, "kind": ds.kinds,
                                **{m: np.nanmean(scores[m], axis=0) for m in spec.metrics}}))
    frames.append(pd.DataFrame({"group": "weighted_mean", "system": ds.systems, "kind": ds.kinds,
                                **{m: (scores[m] * sizes[:, None]).sum(0) / sizes.sum() for m in spec.metrics}}))
    df = pd.concat(frames, ignore_index=True)
    log_note(f"scored {len(ds.systems)} systems in {len(ds.group_names)} groups with {len(spec.metrics)} metrics")
    write_csv(out_csv, df)
    if out_md:
        from .tables import groups_markdown

        title = f"{spec.name}: {M.get(spec.primary_metric).name} per item group"
        write_markdown(out_md, groups_markdown(df, spec.primary_metric, title), out_html, title)
    return df


def write_tables(spec: DatasetSpec, scores_csv, out_md, out_tex, info_json=None, out_html=None) -> None:
    """Markdown and LaTeX score tables (value and rank per metric)."""
    from .tables import md_escape

    df = read_result_csv(scores_csv)
    n, unused = "", []
    if info_json:
        info = json.loads(Path(info_json).read_text())
        n = (f" ({info['n_articles']} articles, {info['n_gold_spans_scored']} gold spans)" if info.get("task") == "si"
             else f" ({info['n_items']} items)")
        unused = info.get("unused_labels", [])
    title = f"{spec.name}{n}: scores of every system"
    md = scores_markdown(df, spec.all_metrics, spec.primary_metric, title=title)
    if spec.weights:
        w = spec.weights[spec.default_weights]
        md += ("\nClass weights of wAUC / wF1 / wF2 (" + md_escape(spec.default_weights) + "): " +
               ", ".join(f"{md_escape(lab)} {v:g}" for lab, v in zip(spec.labels, w)) + ".\n")
    note = ""
    if unused:
        note = (f"The label(s) {', '.join(unused)} never occur in the gold (accepted by allow_unused_labels): "
                f"their recall counts as 0, so GMR is 0 for every system and macro averages include them as 0.")
        md += "\n" + md_escape(note) + "\n"
    write_markdown(out_md, md, out_html, title)
    write_text(out_tex, scores_latex(df, spec.all_metrics, spec.primary_metric,
                                      caption=f"{spec.name}{n}: scores and ranks." + (f" {note}" if note else ""),
                                      label=f"tab:{spec.name}-scores"))


def write_markdown(out_md, md: str, out_html=None, title: str = "") -> None:
    """A Markdown table (``out_md``) and, when ``out_html`` is given, the same
    as an HTML page for the report (sortable, every name escaped)."""
    write_text(out_md, md)
    if out_html:
        from .report import html_page

        write_text(out_html, html_page(md, title))


def confusion_figure(spec: DatasetSpec, confusion_csv, scores_csv, out_paths, include_baselines: bool = False):
    """The grid of row-normalised confusion matrices, one panel per system."""
    from .plots import confusion_grid

    long = read_result_csv(confusion_csv)
    systems, c = confusion_from_long(long, spec.labels)
    df = read_result_csv(scores_csv, index_col="system")
    keep = [i for i, s in enumerate(systems) if include_baselines or df.loc[s, "kind"] in RANKED_KINDS]
    prim = M.get(spec.primary_metric)
    keep.sort(key=lambda i: (-df.loc[systems[i], spec.primary_metric] if prim.higher_is_better
                             else df.loc[systems[i], spec.primary_metric]))
    subs = [f"{prim.name} {df.loc[systems[i], spec.primary_metric]:.3f}" for i in keep]
    fig = confusion_grid(c[keep], [systems[i] for i in keep], spec.labels, subtitles=subs,
                         title=f"{spec.name}: confusion matrices (rows: gold class, normalised; "
                               f"sorted by {prim.name})")
    _save_fig(fig, out_paths)


def span_figure(spec: DatasetSpec, scores_csv, out_paths, include_baselines: bool = True):
    """Every span metric of every system on one dot plot, systems sorted by
    the primary metric: how the official partial-overlap F1 relates to the
    exact-match and character-level F1s, system by system; the baselines
    (no spans, the whole text, ...) among them, shaded, as the floor a real
    system must clear."""
    from .plots import span_scores_plot

    df = read_result_csv(scores_csv)
    if not include_baselines:
        df = df[df["kind"].isin(RANKED_KINDS)]
    _save_fig(span_scores_plot(df, list(spec.span_metrics), spec.primary_metric,
                               f"{spec.name}: span metrics of every system"), out_paths)


# ---------------------------------------------------------------------------
# meta-evaluation experiments (see metaeval.experiments)
# ---------------------------------------------------------------------------
def experiment_settings(config: Mapping, dataset: str):
    """Global ``experiments`` settings overridden by the dataset's own.

    A span dataset resamples whole articles (``resample_unit: group``);
    the dataset's own block may not ask for items.  ``group`` on a
    classification dataset needs a group column."""
    from dataclasses import replace

    from .config import FORMATS, SPAN_FORMATS, ConfigError
    from .experiments import Settings

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
    return s


def unused_settings(name: str, settings) -> list[str]:
    """Settings of a dataset that none of its steps reads, as configured
    (said at the start of every run, not dropped in silence): a correction
    for multiple comparisons other than the default with the Tukey test,
    whose p-values are family-wise by construction."""
    out = []
    if settings.significance_test == "tukey" and settings.significance_correction != "holm":
        out.append(f"dataset {name}: significance_correction {settings.significance_correction!r} is not used: the "
                   f"randomised Tukey HSD test's p-values are family-wise already (the range statistic); it applies "
                   f"to significance_test: bootstrap")
    return out


def _save_fig(fig, paths) -> None:
    from .plots import save_figure

    save_figure(fig, paths)


def run_similarity(spec: DatasetSpec, settings, data_npz, out_csv, out_groups, fig_paths):
    """similarity.csv (metric x metric tau), similarity_groups.csv, heatmap."""
    from . import experiments as E
    from .plots import similarity_heatmap

    ds = Dataset.load(data_npz)
    sim, table = E.similarity_tables(ds, spec, settings)
    write_csv(out_csv, sim.rename_axis("metric").reset_index())
    write_csv(out_groups, table)
    order = table.sort_values("leaf_order")["metric"].tolist()
    n = len(E.select_systems(ds, settings.include_baselines))
    _save_fig(similarity_heatmap(sim, order, table.set_index("metric")["group"],
                                 f"{spec.name}: Kendall's tau between metrics' rankings of {n} systems",
                                 method=settings.linkage), fig_paths)


def write_kernels(out_txt) -> None:
    """The kernels job: compile the engine's kernels into numba's cache
    (``resample.compile_kernels``) and list the compiled signatures."""
    from .resample import compile_kernels  # first: metaeval.kernels sets numba's threading layer

    import numba

    sigs = compile_kernels()
    write_text(out_txt, f"numba {numba.__version__}: the kernels of metaeval.kernels, compiled and cached\n"
               + "".join(f"{s}\n" for s in sigs))


def shard_splits(settings, shard: int, n_shards: int) -> np.ndarray:
    """The split indices of one shard (contiguous, as even as possible)."""
    return np.array_split(np.arange(settings.n_splits), n_shards)[shard]


def run_stability_shard(spec: DatasetSpec, settings, data_npz, shard: int, n_shards: int, out_npz):
    from .experiments import stability_splits

    ds = Dataset.load(data_npz)
    idx = shard_splits(settings, shard, n_shards)
    res = stability_splits(ds, spec, settings, idx)
    log_note(f"shard {shard + 1} of {n_shards}: {idx.size} half-splits ({idx[:1].tolist()} to {idx[-1:].tolist()}) "
             f"of {settings.n_splits}, seed {settings.split_seed}")
    with atomic_path(out_npz) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **res)


def run_stability_gather(spec: DatasetSpec, settings, shard_paths, out_csv, out_splits, fig_paths, data_npz=None):
    """stability.csv (per metric), stability_splits.csv (per split), figure.
    Without shard files (``shards: 1``) the splits are drawn here, from
    ``data_npz``: the same numbers as one shard, one process fewer."""
    from .experiments import stability_splits, stability_summary
    from .plots import stability_plot

    parts = []
    for p in shard_paths:
        with np.load(p, allow_pickle=False) as z:
            parts.append({k: z[k] for k in z.files})
    if not shard_paths:
        parts.append(stability_splits(Dataset.load(data_npz), spec, settings, shard_splits(settings, 0, 1)))
    summ, per_split = stability_summary(parts, settings.n_splits)
    write_csv(out_csv, summ)
    write_csv(out_splits, per_split)
    kind = "stratified" if settings.stratified else "random"
    _save_fig(stability_plot(summ, per_split, f"{spec.name}: rank stability over {settings.n_splits} {kind} "
                                               f"half-splits (tau-{settings.tau_variant})"), fig_paths)


def run_merging(spec: DatasetSpec, settings, data_npz, out_csv, out_balanced, fig_paths):
    """merging.csv, merging_balanced.csv and their heatmaps."""
    from . import experiments as E
    from .plots import merging_heatmap

    ds = Dataset.load(data_npz)
    mg = E.merging(ds, spec, settings)
    mb = E.merging_balanced(ds, spec, settings)
    write_csv(out_csv, mg)
    write_csv(out_balanced, mb)
    _save_fig(merging_heatmap(mg, mb, f"{spec.name}: class merging (low tau = metric distinguishes the "
                                      f"merged classes)"), fig_paths)


def run_weights(spec: DatasetSpec, settings, data_npz, out_csv, out_tau, out_md, out_html=None):
    """weights.csv (long form), weights_tau.csv, tables/weights.md (and .html)."""
    from .experiments import weight_sensitivity
    from .tables import weights_markdown

    ds = Dataset.load(data_npz)
    long, taus = weight_sensitivity(ds, spec, settings)
    log_note(f"{len(spec.weights)} weight sets ({', '.join(spec.weights)}) of {len(ds.systems)} systems")
    write_csv(out_csv, long)
    write_csv(out_tau, taus)
    title = f"{spec.name}: weighted metrics under every class-weight set"
    write_markdown(out_md, weights_markdown(long, taus, spec.weights, spec.labels, title), out_html, title)


def run_summary(spec: DatasetSpec, settings, groups_csv, stability_csv, merging_csv, out_csv, power_csv=None):
    """``summary.csv``: Amemiya & Sakai's Table 7 for one dataset
    (``merging_csv`` None: a two-class task, without class merging), with
    the discriminative power (``power_csv``) beside it.  (Its page,
    ``tables/summary.md``, is written by the recommendation job: it names
    the one recommended metric.)"""
    from .experiments import summary

    g = read_result_csv(groups_csv, index_col="metric")["group"]
    df = summary(g, read_result_csv(stability_csv), read_result_csv(merging_csv) if merging_csv else None,
                 read_result_csv(power_csv) if power_csv else None)
    write_csv(out_csv, df)


def write_summary_page(spec: DatasetSpec, settings, summary_csv, similarity_csv, groups_csv, answer: str, out_md,
                       out_html=None, note=None, n_systems: int = 0) -> None:
    """``tables/summary.md`` (and .html): the Table-7 summary, labelled as
    a reproduction of Amemiya & Sakai's table, and the recommendation's
    answer (``metaeval.recommend``: the one answer every page shows)."""
    from .experiments import group_separation, table7
    from .tables import summary_markdown

    df = read_result_csv(summary_csv)
    g = read_result_csv(groups_csv, index_col="metric")["group"]
    sim = read_result_csv(similarity_csv, index_col="metric")
    no_merging = ("span identification has no classes to merge" if spec.span_task == "si" else
                  "the task has two classes, and merging them leaves a single class, on which every system ties")
    title = f"{spec.name}: summary of the meta-evaluation"
    md = summary_markdown(df, title, n_systems, settings.n_splits,
                          group_separation(sim, g), settings.distinct_tau, systems=_ranked_phrase(spec, settings),
                          no_merging=no_merging, alpha=settings.alpha, test=settings.significance_test,
                          table7=table7(df))
    md += ("\n**Which metric to report** (the whole argument: recommendation.md): " + md_escape(answer) + "\n")
    if note:
        md += f"\n**Warning:** {md_escape(note)}\n"
    write_markdown(out_md, md, out_html, title)


def run_recommendation(spec: DatasetSpec, settings, data_npz, gameability_csv, out: Mapping[str, str],
                       properties_csv=None) -> None:
    """The recommendation job of a dataset: every criterion with its
    interval (``metaeval.criteria``), the answer (``metaeval.recommend``),
    written to ``recommendation.csv`` (long form), ``.json``, ``.md`` and
    ``.html`` and the figure (``png``, ``pdf``).  (The summary page, which
    ends with the same answer, is written by ``write_overview``.)"""
    from .recommend import (answer_sentence, dataset_context, recommend_dataset, recommendation_figure,
                            recommendation_json, recommendation_long, recommendation_markdown)

    ds = Dataset.load(data_npz)
    props = read_result_csv(properties_csv) if properties_csv else None
    rec = recommend_dataset(ds, spec, settings, properties=props, gameability=read_result_csv(gameability_csv))
    log_note(f"{len(rec.criteria)} criteria ({', '.join(rec.criteria)}), {rec.replicates} resamples of units and "
             f"systems; {answer_sentence(rec)}")
    for n in rec.notes:
        warn(f"dataset {spec.name!r}: {n}")
    long = recommendation_long(rec)
    write_csv(out["csv"], long)
    note = few_groups_note(spec, settings, data_npz)
    if note:
        warn(note)
    write_text(out["json"], recommendation_json(rec, resample_note=note))
    title = f"{spec.name}: which metric to report"
    _save_fig(recommendation_figure(rec, spec.name), [out["png"], out["pdf"]])
    context = dataset_context(ds, spec)
    import os

    def figure_from(page):  # the figure's path relative to a page, or None on another drive
        try:
            return Path(os.path.relpath(out["png"], Path(page).parent)).as_posix()
        except ValueError:
            return None

    write_markdown(out["md"], recommendation_markdown(rec, title, context, figure_from(out["md"])))
    if out.get("html"):
        from .report import html_page

        write_text(out["html"], html_page(recommendation_markdown(rec, title, context, figure_from(out["html"])),
                                          title))


def run_score(spec: DatasetSpec, data_npz, info_json, out: Mapping[str, str]) -> None:
    """The scoring job: ``scores.csv``, ``confusion.csv``, the score tables,
    and the figures the dataset has (``out`` keys ``confusion_png/pdf``,
    ``span_png/pdf``)."""
    df = score(spec, data_npz, out["scores"], out["confusion"])
    log_note(f"scored {len(df)} systems with {len(spec.all_metrics)} metrics (primary: {spec.primary_metric})")
    write_tables(spec, out["scores"], out["md"], out["tex"], info_json, out.get("html"))
    if "confusion_png" in out:
        confusion_figure(spec, out["confusion"], out["scores"], [out["confusion_png"], out["confusion_pdf"]])
    if "span_png" in out:
        span_figure(spec, out["scores"], [out["span_png"], out["span_pdf"]])
    if "chance" in out:
        write_chance(spec, data_npz, out["scores"], out["chance"], out["above_chance"], out["chance_md"],
                     out.get("chance_html"))
    if "gameability" in out:
        write_gameability(spec, data_npz, out["scores"], out["gameability"], out["gameability_md"],
                          out.get("gameability_html"))


def write_gameability(spec: DatasetSpec, data_npz, scores_csv, out_csv, out_md, out_html=None) -> pd.DataFrame:
    """``gameability.csv``: every metric scored for the degenerate systems
    on this test set (``metaeval.gameability``) against the median real
    system, and the table of it."""
    from .gameability import dataset_gameability, gameability_markdown

    ds = Dataset.load(data_npz)
    table = dataset_gameability(ds, spec, read_result_csv(scores_csv))
    write_csv(out_csv, table)
    n = int(table.groupby("metric")["beats_median"].any().sum()) if len(table) else 0
    log_note(f"gameability: {table['degenerate'].nunique()} degenerate systems, {n} of {len(spec.all_metrics)} "
             "metrics gameable")
    title = f"{spec.name}: can a system that never reads the task beat the real systems?"
    write_markdown(out_md, gameability_markdown(table, title), out_html, title)
    return table


def few_groups_note(spec: DatasetSpec, settings, data_npz) -> str | None:
    """``experiments.few_groups_note`` of a dataset file."""
    from .experiments import few_groups_note as note

    return note(spec, settings, Dataset.load(data_npz))


def run_experiments(spec: DatasetSpec, settings, data_npz, shard_paths, out: Mapping[str, str]) -> None:
    """The experiments job of a dataset, one after the other on one loaded
    dataset: ranking agreement, rank stability (gathering the shards, or
    drawing the splits when there are none),
    class merging (when ``out`` has ``merging``), bootstrap intervals,
    significance and discriminative power, label noise and class priors (when
    ``out`` has ``noise``), and the summary."""
    note = few_groups_note(spec, settings, data_npz)
    if note:
        warn(note)
    ds = Dataset.load(data_npz)
    from .experiments import select_systems

    sel = select_systems(ds, settings.include_baselines)
    ranked_base = [ds.systems[i] for i in sel if ds.kinds[i] == "baseline"]
    log_note(f"{len(sel)} ranked systems (baselines among them: {', '.join(ranked_base) or 'none'}), "
             f"{len(spec.all_metrics)} metrics, resampling "
             f"{'articles' if spec.span_task else settings.resample_unit + 's'}; Kendall's tau-{settings.tau_variant}")
    with timed(f"similarity ({settings.n_groups} groups, {settings.linkage} linkage)"):
        run_similarity(spec, settings, data_npz, out["similarity"], out["groups"],
                       [out["similarity_png"], out["similarity_pdf"]])
    with timed(f"rank stability ({settings.n_splits} {'stratified ' if settings.stratified else ''}half-splits, "
               + (f"gathered from {len(shard_paths)} shards)" if shard_paths else f"seed {settings.split_seed})")):
        run_stability_gather(spec, settings, shard_paths, out["stability"], out["stability_splits"],
                             [out["stability_png"], out["stability_pdf"]], data_npz=data_npz)
    if "merging" in out:
        with timed(f"class merging ({settings.balanced_repeats} balanced subsamples, seed {settings.balanced_seed})"):
            run_merging(spec, settings, data_npz, out["merging"], out["merging_balanced"],
                        [out["merging_png"], out["merging_pdf"]])
    with timed(f"bootstrap intervals ({settings.bootstrap_replicates} replicates, seed {settings.bootstrap_seed}, "
               f"{settings.interval_method}, {settings.confidence:g})"):
        run_bootstrap(spec, settings, data_npz, out["intervals"], out["similarity_intervals"], out["bootstrap"],
                      out["intervals_md"], out["intervals_tex"], [out["scores_png"], out["scores_pdf"]],
                      out_html=out.get("intervals_html"), note=note)
    test = (f"randomised Tukey HSD, {settings.tukey_trials} trials, seed {settings.tukey_seed}"
            if settings.significance_test == "tukey" else
            f"paired bootstrap test on the {settings.bootstrap_replicates} replicates, "
            f"{settings.significance_correction} correction")
    with timed(f"significance ({test}, alpha {settings.alpha:g})"):
        sig = run_significance(spec, settings, data_npz, out["significance"], out["significance_best"],
                               out["power"], [out["power_png"], out["power_pdf"]],
                               bootstrap_npz=out["bootstrap"] if settings.significance_test == "bootstrap" else None,
                               out_md=out.get("significance_md"), out_html=out.get("significance_html"))
    if "noise" in out:  # the Tukey trials' confusion tensors are reused for the power under label noise
        power = sig["power"].set_index("metric")["discriminative_power"] if settings.significance_test == "tukey" \
            else None
        with timed(f"label noise (rates {', '.join(f'{r:g}' for r in settings.noise_rates)}, "
                   f"{settings.noise_repeats} repeats, "
                   f"{settings.noise_mode if settings.noise_mode != 'auto' else ('neighbour' if spec.ordinal else 'uniform')}"
                   f" noise) and class priors (gammas "
                   f"{', '.join(f'{g:g}' for g in settings.prior_gammas)})"):
            run_sensitivity(spec, settings, data_npz, out, permuted=sig.get("permuted_confusion"),
                            power_clean=None if power is None else power.loc[list(spec.metrics)].to_numpy())
    with timed("summary"):
        run_summary(spec, settings, out["groups"], out["stability"], out.get("merging"), out["summary"],
                    power_csv=out["power"])


def _ranked_phrase(spec: DatasetSpec, settings) -> str:
    """What the ranked systems are, for the summary's sentence."""
    parts = []
    if spec.predictions:
        parts.append("real systems")
    if spec.synthetic:
        parts.append("synthetic systems")
    if set(settings.include_baselines) & set(spec.baselines):
        parts.append("the baselines named in the config")
    return " and ".join(parts) or "no system"


def run_bootstrap(spec: DatasetSpec, settings, data_npz, out_intervals, out_similarity, out_npz, out_md, out_tex,
                  fig_paths, out_html=None, note=None):
    """Bootstrap intervals of every score (``intervals.csv``), of the taus
    between metrics (``similarity_intervals.csv``), the replicates
    (``bootstrap.npz``, for the paired bootstrap test), tables and figure."""
    from .plots import interval_plot
    from .significance import run_bootstrap as bootstrap
    from .tables import intervals_latex, intervals_markdown, md_escape

    ds = Dataset.load(data_npz)
    res = bootstrap(ds, spec, settings)
    write_csv(out_intervals, res["intervals"])
    write_csv(out_similarity, res["similarity"])
    with atomic_path(out_npz) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, boot=res["boot"], value=res["value"], systems=np.array(res["systems"], dtype=str),
                     metrics=np.array(res["metrics"], dtype=str))
    unit = "articles" if spec.span_task else ("groups" if settings.resample_unit == "group" else "items")
    method = {"bca": "BCa"}.get(settings.interval_method, settings.interval_method)
    how = (f"{settings.confidence:.0%} {method} bootstrap intervals, "
           f"{settings.bootstrap_replicates} replicates of the {unit}")
    md = intervals_markdown(res["intervals"], res["metrics"], spec.primary_metric, f"{spec.name}: scores with {how}")
    write_markdown(out_md, md + (f"\n**Warning:** {md_escape(note)}\n" if note else ""), out_html,
                   f"{spec.name}: intervals")
    write_text(out_tex, intervals_latex(res["intervals"], res["metrics"], spec.primary_metric,
                                        caption=f"{spec.name}: scores with {how}.", label=f"tab:{spec.name}-ci"))
    base = [s for s, k in zip(ds.systems, ds.kinds) if k == "baseline"]
    _save_fig(interval_plot(res["intervals"], res["metrics"], f"{spec.name}: {how}", baselines=base), fig_paths)


def run_significance(spec: DatasetSpec, settings, data_npz, out_pairs, out_best, out_power, fig_paths,
                     bootstrap_npz=None, out_md=None, out_html=None):
    """Significance of every pair of systems (``significance.csv``), the
    systems that cannot be told from the best, discriminative power, the
    achieved-significance-level curves, and the significance page of the
    report (``out_md``, ``out_html``: those tables, and the p-values of the
    pairs per metric)."""
    from .plots import asl_curves
    from .significance import run_significance as significance
    from .tables import significance_markdown, test_label

    ds = Dataset.load(data_npz)
    boot = None
    if bootstrap_npz:
        with np.load(bootstrap_npz, allow_pickle=False) as z:
            boot = z["boot"]
    res = significance(ds, spec, settings, boot)
    write_csv(out_pairs, res["significance"])
    write_csv(out_best, res["best"])
    write_csv(out_power, res["power"])
    tests = res["tests"]
    trials = settings.tukey_trials if tests.test == "tukey" else settings.bootstrap_replicates
    how = test_label(tests.test, tests.correction, trials)
    _save_fig(asl_curves(res["significance"], res["metrics"], settings.alpha,
                         f"{spec.name}: achieved significance levels ({how})", column=tests.decisive_column),
              fig_paths)
    if out_md:
        title = f"{spec.name}: significance between the {len(res['systems'])} ranked systems"
        values = pd.DataFrame(res["value"].T, index=res["systems"], columns=res["metrics"])
        write_markdown(out_md, significance_markdown(res["significance"], res["best"], res["power"], values,
                                                     res["metrics"], settings.alpha, tests.test, tests.correction,
                                                     tests.decisive_column, title, trials), out_html, title)
    return res


def run_sensitivity(spec: DatasetSpec, settings, data_npz, out: Mapping[str, str], permuted=None,
                    power_clean=None) -> None:
    """Label noise and class priors (``metaeval.sensitivity``): ``noise.csv``
    and ``priors.csv``, their tables and figures.  ``permuted``,
    ``power_clean``: the Tukey trials' confusion tensors and the
    discriminative power on the clean gold, if already computed."""
    from . import experiments as E
    from .plots import noise_heatmap, priors_heatmap
    from .sensitivity import dataset_sensitivity
    from .tables import sensitivity_markdown

    ds = Dataset.load(data_npz)
    sel = E.select_systems(ds, settings.include_baselines)
    noise, priors = dataset_sensitivity(ds, spec, settings, permuted, power_clean)
    write_csv(out["noise"], noise)
    write_csv(out["priors"], priors)
    title = f"{spec.name}: sensitivity of the rankings of {len(sel)} systems to label noise and class priors"
    write_markdown(out["sensitivity_md"], sensitivity_markdown(noise, priors, title), out.get("sensitivity_html"),
                   title)
    _save_fig(noise_heatmap(noise, f"{spec.name}: label noise ({len(sel)} systems)"),
              [out["noise_png"], out["noise_pdf"]])
    _save_fig(priors_heatmap(priors, f"{spec.name}: class priors ({len(sel)} systems)"),
              [out["priors_png"], out["priors_pdf"]])


def property_settings(block: Mapping | None) -> dict | None:
    """The rule param of the properties job: the config's ``properties``
    block checked and with every default filled in (so that a change of a
    default reruns it), or None when ``enabled: false``."""
    from dataclasses import asdict

    from .config import ConfigError
    from .properties import settings_from

    block = dict(block or {})
    if not block.get("enabled", True):
        return None
    try:
        return to_plain(asdict(settings_from(block)))
    except ValueError as e:
        raise ConfigError(str(e)) from None


def run_properties(block: Mapping | None, out: Mapping[str, str]) -> None:
    """The properties job: ``properties.csv`` (every classification metric x
    every property of ``metaeval.properties``), its Markdown/HTML and LaTeX
    tables and the grid figure.  ``block``: the config's ``properties``."""
    from dataclasses import replace

    from .plots import properties_grid
    from .properties import PROPERTIES, check_all, domain_matrices, settings_from
    from .tables import properties_latex, properties_markdown

    settings = settings_from(block)
    df = check_all(settings)
    log_note(f"checked {df['metric'].nunique()} metrics against {df['property'].nunique()} properties")
    write_csv(out["csv"], df)
    n = len(domain_matrices(settings))
    enumerated = len(domain_matrices(replace(settings, random=0)))
    domain = (f"{n:,} confusion matrices of 3 classes in which every class occurs in the gold: all {enumerated:,} with "
              f"at most {settings.n_max} items and {n - enumerated:,} random ones ({settings.random:,} mostly right, "
              f"of up to {settings.random_n_max:,} items; the others with cells drawn alike, right or wrong, of up "
              f"to {settings.random_sparse_n_max} items; seed {settings.seed}); weighted metrics with weights "
              f"{', '.join(f'{w:g}' for w in settings.weights)}, F_avg over classes "
              f"{', '.join(str(c) for c in settings.f_avg_classes)}, the FNC-1 score with class "
              f"{settings.unrelated} as unrelated")
    title = "Formal properties of the metrics"
    write_markdown(out["md"], properties_markdown(df, PROPERTIES, domain, title), out.get("html"), title)
    write_text(out["tex"], properties_latex(df, caption=f"{title}, checked on {domain}.", label="tab:properties"))
    _save_fig(properties_grid(df, PROPERTIES, f"{title} (3 classes, {n:,} matrices)"), [out["png"], out["pdf"]])


def write_overview(out_html, datasets: list[Mapping], info_jsons: Mapping[str, str],
                   recommendation_jsons: Mapping[str, str], reproduction_csv=None, published_yaml=None,
                   summaries: Mapping[str, Mapping] | None = None) -> None:
    """The report's front page (``results/report/overview.html``): the
    reproduction summary and, per dataset, the answer of its recommendation
    (``recommendation.json``, written by ``run_recommendation``) and the
    warnings of its ingestion.  ``datasets``: per dataset ``name``, ``task``
    (text), ``n_systems`` (ranked), ``why_not`` (why it has no
    meta-evaluation, or None), ``ordinal`` and ``primary`` (metric id).
    ``summaries``: per dataset its summary page to write
    (``write_summary_page``: ``csv``, ``similarity``, ``groups``, ``md``,
    ``html`` paths and the ``spec`` and ``settings`` of the step), which
    ends with the same answer."""
    from .report import overview_html

    for name, page in (summaries or {}).items():
        spec, settings = step_spec(page["spec"]), step_settings(page["settings"])
        answer = json.loads(Path(recommendation_jsons[name]).read_text(encoding="utf-8"))
        write_summary_page(spec, settings, page["csv"], page["similarity"], page["groups"], answer["answer"],
                           page["md"], page.get("html"), answer.get("resample_note"), answer["n_systems"])
    entries = []
    for d in datasets:
        info = json.loads(Path(info_jsons[d["name"]]).read_text(encoding="utf-8"))
        entry = {**d, "n_items": info.get("n_items"), "n_gold_spans": info.get("n_gold_spans"),
                 "n_articles": info.get("n_articles"), "warnings": list(info.get("warnings", []))}
        if d["name"] in recommendation_jsons:
            rec = json.loads(Path(recommendation_jsons[d["name"]]).read_text(encoding="utf-8"))
            entry["recommendation"] = rec["answer"]
            entry["recommended"] = rec["recommended"]
        entries.append(entry)
    summary = None
    if reproduction_csv:
        from .reproduce import Published, reproduction_summary

        summary = reproduction_summary(read_result_csv(reproduction_csv), Published.load(published_yaml))
    write_text(out_html, overview_html(entries, summary))
    log_note(f"front page of {len(entries)} datasets, {sum('recommendation' in e for e in entries)} recommendations")


def run_reproduce(published_yaml, results_dir, available, out_csv, out_md, result_files=None, out_html=None) -> None:
    """results/reproduction.csv and .md (see metaeval.reproduce).
    ``result_files``: the declared inputs (paths); the report reads no other."""
    from .reproduce import Published, ResultStore, reproduce, write_report

    files = None
    if result_files is not None:
        root = Path(results_dir).resolve()
        files = {Path(f).resolve().relative_to(root).as_posix() for f in result_files}
    pub = Published.load(published_yaml)
    cells, notes, paragraphs = reproduce(pub, ResultStore(results_dir, set(available), files))
    omitted = [p for p in pub.papers() if p not in pub.for_datasets(set(available)).papers()]
    log_note(f"{len(cells)} published cells of the datasets {', '.join(sorted(available)) or '(none)'}"
             + (f"; papers left out (no dataset configured): {', '.join(omitted)}" if omitted else ""))
    write_report(cells, notes, paragraphs, pub, out_csv, out_md, out_html, omitted=omitted)
