"""The cross-dataset step (``metaeval.verdict.crossdata``): one job over every
dataset with a recommendation, reading their ``recommendation.csv``."""

from __future__ import annotations

from typing import Mapping

from ..data.files import read_result_csv, write_csv
from .steps import note as log_note
from .common import write_markdown


def run_cross_dataset(kinds: Mapping[str, str], verdict: Mapping, recommendation_csvs: Mapping[str, str],
                      out: Mapping[str, str], skipped: Mapping[str, str] | None = None,
                      test_sets: Mapping[str, str] | None = None,
                      custom_metrics: Mapping[str, Mapping] | None = None) -> None:
    """``results/cross_dataset/``: ``criteria.csv`` (every dataset's
    recommendation table, gathered), ``replicability.csv``,
    ``recommendation.csv`` (per kind of task), the page and the heatmap.
    ``kinds``: the kind of task of each dataset; ``verdict``: the verdict's
    branch of the settings (``verdict_alpha``, the level of the
    replicability counts; ``verdict_mc_level``); ``skipped``: the configured datasets without a
    meta-evaluation, with why (the page names them); ``test_sets``: each
    dataset's test set (those that share one count once); ``custom_metrics``:
    the datasets' custom metrics (their names are printed)."""
    from ..verdict import crossdata as X
    from ..measures.custom import register_declared

    register_declared(custom_metrics or {})
    from ..present.plots import cross_dataset_heatmap
    from ..present.figure_files import save_figure

    alpha, mc_level = verdict["verdict_alpha"], verdict["verdict_mc_level"]
    long = X.gather({name: read_result_csv(path) for name, path in recommendation_csvs.items()}, kinds, test_sets)
    rep = X.replicability(long, alpha)
    rec = X.cross_recommendation(long, rep, alpha)
    write_csv(out["criteria"], long)
    write_csv(out["replicability"], rep)
    write_csv(out["recommendation"], rec)
    write_markdown(out["md"], X.cross_tables(long, rep, rec, alpha, skipped, mc_level), out.get("html"), "Across datasets")
    save_figure(cross_dataset_heatmap(long, f"Across {long['dataset'].nunique()} datasets: the criteria on which "
                                            f"each metric is kept"), [out["png"], out["pdf"]])
    if skipped:
        log_note("not included (no meta-evaluation): " + "; ".join(f"{d} ({w})" for d, w in skipped.items()))
    for kind in dict.fromkeys(long["kind"]):
        g = long[long["kind"] == kind]
        log_note(X.cross_answer(rec, kind, list(dict.fromkeys(g["dataset"])), list(dict.fromkeys(g["test_set"]))))
