"""The stages the workflow's jobs run, one per job: each takes a dataset,
its spec and its settings (and what earlier stages returned) and returns
tables named by the workflow's files.  This module imports only what its
stages compute with, so a job's code fingerprint (``workflow.params``)
holds no recommendation or figure code: editing those reruns no
experiment."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Callable, ContextManager

import numpy as np
import pandas as pd

from ..methods import experiments as E
from ..methods.bootstrap import run_bootstrap
from ..methods.significance import run_significance

__all__ = ["experiment_tables", "sensitivity_power"]


def _quiet(label: str) -> ContextManager:
    return nullcontext()


def experiment_tables(ds, spec, settings, *, stability_parts=None, merging: bool | None = None,
                      timed: Callable[[str], ContextManager] = _quiet) -> tuple[dict[str, pd.DataFrame], dict]:
    """Stage 2: ``(tables, arrays)``.  ``tables``: ``similarity.csv``,
    ``similarity_groups.csv``, ``stability.csv``, ``stability_splits.csv``,
    ``merging.csv`` and ``merging_balanced.csv`` (``merging``; default:
    three classes or more), ``intervals.csv``, ``similarity_intervals.csv``,
    ``significance.csv``, ``significance_best.csv``,
    ``discriminative_power.csv``, ``summary.csv``.  ``arrays``: the
    bootstrap's (``boot``, ``value``, ``systems``, ``metrics``) and the
    Tukey trials' confusion tensors (``permuted``, None with the bootstrap
    test), which later stages reuse.  ``stability_parts``: the half-splits'
    results drawn elsewhere (the workflow's shards), else drawn here."""
    st = settings
    merging = spec.k >= 3 if merging is None else merging
    t: dict[str, pd.DataFrame] = {}
    with timed(f"similarity ({st.n_groups} groups, {st.linkage} linkage)"):
        sim, groups = E.similarity_tables(ds, spec, st)
        t["similarity.csv"], t["similarity_groups.csv"] = sim.rename_axis("metric").reset_index(), groups
    with timed(f"rank stability ({st.n_splits} {'stratified ' if st.stratified else ''}half-splits, "
               + (f"gathered from {len(stability_parts)} shards)" if stability_parts else f"seed {st.split_seed})")):
        parts = list(stability_parts) if stability_parts else [E.stability_splits(ds, spec, st, np.arange(st.n_splits))]
        t["stability.csv"], t["stability_splits.csv"] = E.stability_summary(parts, st.n_splits)
    if merging:
        with timed(f"class merging ({st.balanced_repeats} balanced subsamples, seed {st.balanced_seed})"):
            t["merging.csv"], t["merging_balanced.csv"] = E.merging(ds, spec, st), E.merging_balanced(ds, spec, st)
    with timed(f"bootstrap intervals ({st.bootstrap_replicates} replicates, seed {st.bootstrap_seed}, "
               f"{st.interval_method}, {st.confidence:g})"):
        boot = run_bootstrap(ds, spec, st)
        t["intervals.csv"], t["similarity_intervals.csv"] = boot["intervals"], boot["similarity"]
    test = (f"randomised Tukey HSD, {st.tukey_trials} trials, seed {st.tukey_seed}"
            if st.significance_test == "tukey" else
            f"paired bootstrap test on the {st.bootstrap_replicates} replicates, {st.significance_correction} "
            f"correction")
    with timed(f"significance ({test}, alpha {st.alpha:g})"):
        sig = run_significance(ds, spec, st, boot["boot"] if st.significance_test == "bootstrap" else None)
        t["significance.csv"], t["significance_best.csv"], t["discriminative_power.csv"] = (
            sig["significance"], sig["best"], sig["power"])
    with timed("summary"):
        t["summary.csv"] = E.summary(groups.set_index("metric")["group"], t["stability.csv"], t.get("merging.csv"),
                                     sig["power"])
    arrays = {"boot": boot["boot"], "value": boot["value"], "systems": boot["systems"], "metrics": boot["metrics"],
              "permuted": sig.get("permuted_confusion")}
    return t, arrays


def sensitivity_power(spec, settings, permuted, power: pd.DataFrame | None) -> np.ndarray | None:
    """Stage 3's reuse of stage 2: the discriminative power of the metrics
    on the Tukey trials (``discriminative_power.csv``), which label noise
    compares against; None when the trials are not Tukey's."""
    if permuted is None or power is None or settings.significance_test != "tukey":
        return None
    return power.set_index("metric")["discriminative_power"].loc[list(spec.metrics)].to_numpy()
