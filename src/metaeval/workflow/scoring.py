"""The scoring steps: ingestion, scores, chance levels, gameability, the
score tables and their figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..data.config import DatasetSpec
from ..data.dataset import Dataset, RANKED_KINDS, confusion_from_long, confusion_long, score_dataset
from ..data.files import read_result_csv, write_csv, write_text
from .steps import note as log_note
from ..present.tables import markdown_table, md_escape, scores_latex, scores_markdown
from .common import write_markdown


def _save_fig(fig, paths) -> None:
    from ..present.figure_files import save_figure

    save_figure(fig, paths)





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
    matrices (``metaeval.measures.chance``); ``above_chance.csv``: each system's
    margin over each; a table of the levels with how many systems beat
    the strongest of them."""
    from ..measures.chance import GUESSERS, above_chance, chance_scores

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
    from ..measures.custom import check_registered
    from ..measures.items import check_items

    ds = Dataset.load(data_npz)
    where = f"the systems of dataset {spec.name!r}"  # (a custom metric is held to its contract before any score)
    check_registered(spec.metrics, ds.confusion(), spec.metric_params(), where=where)
    check_items(spec.item_metrics, ds.gold, ds.predictions, ds.item_ids, where=where)
    cg = ds.confusion_by_group()  # (G, S, K, K)
    scores = M.evaluate(cg, spec.metrics, **spec.metric_params())
    if spec.item_metrics:  # metrics of per-item terms: their terms summed per group
        from ..measures.items import evaluate_items, item_statistics

        terms, slices = item_statistics(spec.item_metrics, ds.gold, ds.predictions, ds.item_ids)  # (S, N, F)
        per = np.zeros((len(ds.group_names),) + terms.shape[:1] + terms.shape[2:])
        np.add.at(per, np.asarray(ds.groups, dtype=np.int64), terms.transpose(1, 0, 2))
        scores.update(evaluate_items(per, slices))
    if spec.score_metrics:  # metrics of scores: each group's items as a weight row (MAP: each group alone)
        from ..measures.scores.registry import evaluate

        one = ds.scores.values.shape[2] == 1
        gold = (ds.gold == ds.labels.index(spec.positive_class)).astype(np.int64) if one else ds.gold
        masks = (np.asarray(ds.groups)[None, :] == np.arange(len(ds.group_names))[:, None]).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            scores.update(evaluate(spec.score_metrics, ds.scores.values, gold, ds.groups, masks,
                                   len(ds.group_names)))
    ids = list(spec.metrics) + list(spec.item_metrics) + list(spec.score_metrics)
    sizes = np.bincount(ds.groups, minlength=len(ds.group_names)).astype(float)
    frames = []
    for g, gname in enumerate(ds.group_names):
        frames.append(pd.DataFrame({"group": gname, "system": ds.systems, "kind": ds.kinds,
                                    **{m: scores[m][g] for m in ids}}))
    frames.append(pd.DataFrame({"group": "mean", "system": ds.systems, "kind": ds.kinds,
                                **{m: np.nanmean(scores[m], axis=0) for m in ids}}))
    frames.append(pd.DataFrame({"group": "weighted_mean", "system": ds.systems, "kind": ds.kinds,
                                **{m: (scores[m] * sizes[:, None]).sum(0) / sizes.sum() for m in ids}}))
    df = pd.concat(frames, ignore_index=True)
    log_note(f"scored {len(ds.systems)} systems in {len(ds.group_names)} groups with {len(ids)} metrics")
    write_csv(out_csv, df)
    if out_md:
        from ..present.tables import groups_markdown

        title = f"{spec.name}: {M.get(spec.primary_metric).name} per item group"
        write_markdown(out_md, groups_markdown(df, spec.primary_metric, title), out_html, title)
    return df

def write_tables(spec: DatasetSpec, scores_csv, out_md, out_tex, info_json=None, out_html=None) -> None:
    """Markdown and LaTeX score tables (value and rank per metric)."""
    from ..present.tables import md_escape

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

def confusion_figure(spec: DatasetSpec, confusion_csv, scores_csv, out_paths, include_baselines: bool = False):
    """The grid of row-normalised confusion matrices, one panel per system."""
    from ..present.plots import confusion_grid

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
    from ..present.plots import span_scores_plot

    df = read_result_csv(scores_csv)
    if not include_baselines:
        df = df[df["kind"].isin(RANKED_KINDS)]
    _save_fig(span_scores_plot(df, list(spec.span_metrics), spec.primary_metric,
                               f"{spec.name}: span metrics of every system"), out_paths)

def run_score(spec: DatasetSpec, data_npz, info_json, out: Mapping[str, str], settings=None) -> None:
    """The scoring job: ``scores.csv``, ``confusion.csv``, the score tables,
    the figures the dataset has (``out`` keys ``confusion_png/pdf``,
    ``span_png/pdf``), the chance levels and the gameability test
    (``settings``: its resampling settings; None: the point comparison
    only)."""
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
                          out.get("gameability_html"), settings)

def write_gameability(spec: DatasetSpec, data_npz, scores_csv, out_csv, out_md, out_html=None,
                      settings=None) -> pd.DataFrame:
    """``gameability.csv``: every metric scored for the degenerate systems
    on this test set (``metaeval.methods.gameability``) against the median real
    system, the test of each (``settings``: ``resample_unit``,
    ``bootstrap_replicates``, ``bootstrap_seed``, ``verdict_alpha``), and
    the table of it."""
    from ..methods.gameability import dataset_gameability, gameability_markdown

    ds = Dataset.load(data_npz)
    test = {} if settings is None else dict(unit=settings.resample_unit, replicates=settings.bootstrap_replicates,
                                            seed=settings.bootstrap_seed, alpha=settings.verdict_alpha)
    table = dataset_gameability(ds, spec, read_result_csv(scores_csv), **test)
    write_csv(out_csv, table)
    verdict = table["verdict"] if "verdict" in table.columns else table["beats_median"].map(
        {True: "borderline", False: "not gameable"})
    n = int((verdict == "gameable").groupby(table["metric"]).any().sum()) if len(table) else 0
    nb = int(((verdict == "borderline").groupby(table["metric"]).any() & ~(verdict == "gameable").groupby(
        table["metric"]).any()).sum()) if len(table) else 0
    log_note(f"gameability: {table['degenerate'].nunique()} degenerate systems, {n} of {len(spec.all_metrics)} "
             f"metrics gameable, {nb} borderline"
             + (f" ({settings.bootstrap_replicates} resamples of the units and the real systems)" if settings else ""))
    title = f"{spec.name}: can a system that never reads the task beat the real systems?"
    write_markdown(out_md, gameability_markdown(table, title, **({} if settings is None else
                                                                 {"alpha": settings.verdict_alpha})), out_html, title)
    return table


def official_figures(spec: DatasetSpec, scores_csv, data_dir, out_csv, out_md, out_html) -> pd.DataFrame:
    """The task's official figures (``official_results``, a file under
    ``data_dir``) beside the dataset's scores: official.csv and its page."""
    from ..reproduction.official import compare_official, official_markdown

    off = spec.official_results
    table = compare_official(read_result_csv(scores_csv),
                             pd.read_csv(Path(data_dir) / off["file"], dtype=str, keep_default_na=False), off)
    write_csv(out_csv, table)
    title = f"{spec.name}: the official figures reproduced"
    write_markdown(out_md, official_markdown(table, title, spec.official_source), out_html, title)
    counts = table["status"].value_counts()
    log_note(f"official figures: {int(counts.get('match', 0))} of {len(table)} reproduced to the printed digits"
             + (f", {int(counts.get('differs', 0))} differ" if counts.get("differs", 0) else ""))
    return table
