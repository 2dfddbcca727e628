"""The recommendation step: which metric to report, its page and figure."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..data.config import DatasetSpec
from ..data.dataset import Dataset
from ..data.files import read_result_csv, write_csv, write_text
from .steps import note as log_note, warn
from .common import write_markdown
from .drawing import save_fig
from .experiments import few_groups_note

def _criteria_parts(paths) -> list[dict] | None:
    """The criteria shards' files, read (None without shards)."""
    if not paths:
        return None
    import numpy as np

    parts = []
    for p in paths:
        with np.load(p, allow_pickle=False) as z:
            parts.append({k: z[k] for k in z.files})
    return parts


def run_recommendation(spec: DatasetSpec, settings, data_npz, gameability_csv, out: Mapping[str, str],
                       properties_csv=None, design_csvs=None, criteria_shards=None) -> None:
    """The recommendation job of a dataset: every criterion with its
    interval (``metaeval.verdict.criteria``), the answer (``metaeval.verdict.recommendation``),
    written to ``recommendation.csv`` (long form), ``.json``, ``.md`` and
    ``.html`` and the figure (``png``, ``pdf``); ``design_csvs``: the
    test-set size design's ``design.csv`` and ``design_needed.csv``, whose
    sentence on the recommended metrics joins the page and the JSON;
    ``criteria_shards``: the criteria_shard jobs' files (the resamples drawn
    there, gathered here).  (The
    summary page, which ends with the same answer, is written by
    ``write_overview``.)"""
    from ..verdict.sentences import answer_sentence
    from ..verdict.page import (dataset_context, recommendation_figure, recommendation_json, recommendation_long,
                                recommendation_markdown)
    from ..verdict.recommendation import recommend_dataset

    ds = Dataset.load(data_npz)
    props = read_result_csv(properties_csv) if properties_csv else None
    rec = recommend_dataset(ds, spec, settings, properties=props, gameability=read_result_csv(gameability_csv),
                            criteria_parts=_criteria_parts(criteria_shards))
    log_note(f"{len(rec.criteria)} criteria ({', '.join(rec.criteria)}), {rec.replicates} resamples of units and "
             f"systems; {answer_sentence(rec)}")
    for n in rec.notes:
        warn(f"dataset {spec.name!r}: {n}")
    long = recommendation_long(rec)
    write_csv(out["csv"], long)
    note = few_groups_note(spec, settings, data_npz)
    if note:
        warn(note)
    size_note = None
    if design_csvs:
        from ..methods.design import design_note

        size_note = design_note(read_result_csv(design_csvs[0]), read_result_csv(design_csvs[1]), rec.size_metrics())
    write_text(out["json"], recommendation_json(rec, resample_note=note, test_set_size=size_note))
    title = f"{spec.name}: which metric to report"
    save_fig(recommendation_figure(rec, spec.name), [out["png"], out["pdf"]])
    context = dataset_context(ds, spec) + (f"\n\n{size_note}" if size_note else "")
    import os

    def figure_from(page):  # the figure's path relative to a page, or None on another drive
        try:
            return Path(os.path.relpath(out["png"], Path(page).parent)).as_posix()
        except ValueError:
            return None

    write_markdown(out["md"], recommendation_markdown(rec, title, context, figure_from(out["md"])))
    if out.get("html"):
        from ..verdict.page import recommendation_html

        write_text(out["html"], recommendation_html(rec, title, context, Path(out["png"]).read_bytes()))
