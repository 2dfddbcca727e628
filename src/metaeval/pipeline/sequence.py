"""Every stage on one dataset, in memory, in the workflow's order and with
its draws (``metaeval.meta_evaluate``)."""

from __future__ import annotations

import pandas as pd

from ..methods import experiments as E
from ..data.dataset import score_dataset
from ..methods.design import dataset_design, design_note
from ..methods.gameability import dataset_gameability
from ..verdict.page import dataset_context, recommendation_long
from ..verdict.recommendation import recommend_dataset
from ..methods.sensitivity import dataset_sensitivity
from .stages import experiment_tables, sensitivity_power

__all__ = ["meta_evaluation"]


def meta_evaluation(ds, spec, settings, properties: pd.DataFrame | None = None):
    """Every stage on one dataset, in the workflow's order and with its
    draws: ``(tables, rec, notes)``, the tables named by the workflow's
    files, the recommendation, and the notes of its page (``context``,
    ``resample``, ``test_set_size``)."""
    st = settings
    t: dict[str, pd.DataFrame] = {}
    t["scores.csv"] = scores = score_dataset(ds, spec)
    exp, arrays = experiment_tables(ds, spec, st)
    t.update(exp)
    if spec.k >= 2:
        permuted = arrays["permuted"] if st.significance_test == "tukey" else None
        t["noise.csv"], t["priors.csv"] = dataset_sensitivity(
            ds, spec, st, permuted, sensitivity_power(spec, st, permuted, t["discriminative_power.csv"]))
    # (the summary stays after label noise in the tables' order, as the workflow's files were listed)
    t["summary.csv"] = t.pop("summary.csv")
    t["gameability.csv"] = games = dataset_gameability(ds, spec, scores, unit=st.resample_unit,
                                                       replicates=st.bootstrap_replicates, seed=st.bootstrap_seed,
                                                       alpha=st.verdict_alpha)
    if properties is not None:
        t["properties.csv"] = properties
    rec = recommend_dataset(ds, spec, st, properties=properties, gameability=games)
    t["recommendation.csv"] = recommendation_long(rec)
    t["design.csv"], t["design_needed.csv"], t["design_swaps.csv"] = dataset_design(
        ds, spec, st, arrays["value"], arrays["boot"])
    size_note = design_note(t["design.csv"], t["design_needed.csv"], rec.size_metrics())
    notes = {"context": dataset_context(ds, spec) + (f"\n\n{size_note}" if size_note else ""),
             "resample": E.few_groups_note(spec, st, ds), "test_set_size": size_note}
    return t, rec, {k: v for k, v in notes.items() if v}
