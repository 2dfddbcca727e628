"""The experiments' figures and tables, drawn from their files (the
computations are ``workflow.experiments``'): a figure's look never reruns
a computation, and a computation's settings reach a figure only through
its files and the titles' few settings (rule params)."""

from __future__ import annotations

from typing import Mapping

from ..data.config import DatasetSpec
from ..data.dataset import Dataset
from ..data.files import read_result_csv, write_text
from .steps import note as log_note
from .common import write_markdown
from .drawing import save_fig


def run_experiment_figures(spec: DatasetSpec, settings, inp: Mapping[str, str], out: Mapping[str, str]) -> None:
    """Every figure and table of a dataset's experiments from their files
    (``inp``: the experiments' and, when ``out`` has ``noise_png``, the
    label-noise step's outputs, and ``npz``, the dataset: which systems are
    baselines); ``out``: the figures (PNG, PDF) and the Markdown, HTML and
    LaTeX tables."""
    from ..present import plots as P
    from ..methods.corrections import TUKEY_CORRECTION
    from ..present.tables import (intervals_latex, intervals_markdown, md_escape, sensitivity_markdown,
                                  significance_markdown, test_label)

    ds = Dataset.load(inp["npz"])
    few = None
    if settings.resample_unit == "group" and not spec.span_task:
        from ..methods.experiments import few_groups_note

        few = few_groups_note(spec, settings, ds)
    stability = read_result_csv(inp["stability"])
    n = int(stability["n_systems"].iloc[0])
    # ranking agreement
    sim = read_result_csv(inp["similarity"], index_col="metric")
    groups = read_result_csv(inp["groups"])
    order = groups.sort_values("leaf_order")["metric"].tolist()
    save_fig(P.similarity_heatmap(sim, order, groups.set_index("metric")["group"],
                                   f"{spec.name}: Kendall's tau between metrics' rankings of {n} systems",
                                   method=settings.linkage), [out["similarity_png"], out["similarity_pdf"]])
    # rank stability
    kind = "stratified" if settings.stratified else "random"
    save_fig(P.stability_plot(stability, read_result_csv(inp["stability_splits"]),
                               f"{spec.name}: rank stability over {settings.n_splits} {kind} half-splits "
                               f"(tau-{settings.tau_variant})"), [out["stability_png"], out["stability_pdf"]])
    if "merging_png" in out:
        save_fig(P.merging_heatmap(read_result_csv(inp["merging"]), read_result_csv(inp["merging_balanced"]),
                                    f"{spec.name}: class merging (low tau = metric distinguishes the merged classes)"),
                  [out["merging_png"], out["merging_pdf"]])
    # intervals
    iv = read_result_csv(inp["intervals"])
    metrics = list(dict.fromkeys(iv["metric"]))
    systems = list(dict.fromkeys(iv["system"]))
    unit = spec.unit_noun(settings.resample_unit)
    method = {"bca": "BCa"}.get(settings.interval_method, settings.interval_method)
    how = (f"{settings.confidence:.0%} {method} bootstrap intervals, "
           f"{settings.bootstrap_replicates} replicates of the {unit}")
    md = intervals_markdown(iv, metrics, spec.primary_metric, f"{spec.name}: scores with {how}")
    write_markdown(out["intervals_md"], md + (f"\n**Warning:** {md_escape(few)}\n" if few else ""),
                   out.get("intervals_html"), f"{spec.name}: intervals")
    write_text(out["intervals_tex"], intervals_latex(iv, metrics, spec.primary_metric,
                                                     caption=f"{spec.name}: scores with {how}.",
                                                     label=f"tab:{spec.name}-ci"))
    base = [s for s, k in zip(ds.systems, ds.kinds) if k == "baseline"]
    save_fig(P.interval_plot(iv, metrics, f"{spec.name}: {how}", baselines=base),
              [out["scores_png"], out["scores_pdf"]])
    # significance
    pairs, best = read_result_csv(inp["significance"]), read_result_csv(inp["significance_best"])
    power = read_result_csv(inp["power"])
    test, correction = str(power["test"].iloc[0]), str(power["correction"].iloc[0])
    decisive = "p_value" if test == "tukey" or correction in ("none", TUKEY_CORRECTION) else f"p_{correction}"
    trials = settings.tukey_trials if test == "tukey" else settings.bootstrap_replicates
    label = test_label(test, correction, trials)
    save_fig(P.asl_curves(pairs, metrics, settings.alpha, f"{spec.name}: achieved significance levels ({label})",
                           column=decisive), [out["power_png"], out["power_pdf"]])
    title = f"{spec.name}: significance between the {len(systems)} ranked systems"
    values = iv.pivot(index="system", columns="metric", values="value").loc[systems, metrics]
    write_markdown(out["significance_md"], significance_markdown(pairs, best, power, values, metrics, settings.alpha,
                                                                 test, correction, decisive, title, trials),
                   out.get("significance_html"), title)
    # label noise and class priors
    if "noise_png" in out:
        noise, priors = read_result_csv(inp["noise"]), read_result_csv(inp["priors"])
        title = f"{spec.name}: sensitivity of the rankings of {n} systems to label noise and class priors"
        write_markdown(out["sensitivity_md"], sensitivity_markdown(noise, priors, title), out.get("sensitivity_html"),
                       title)
        save_fig(P.noise_heatmap(noise, f"{spec.name}: label noise ({n} systems)"),
                  [out["noise_png"], out["noise_pdf"]])
        save_fig(P.priors_heatmap(priors, f"{spec.name}: class priors ({n} systems)"),
                  [out["priors_png"], out["priors_pdf"]])
    # test-set size design
    if "design_png" in out:
        from ..present.tables import design_markdown

        design, needed = read_result_csv(inp["design"]), read_result_csv(inp["design_needed"])
        title = f"{spec.name}: test-set size design ({n} ranked systems)"
        save_fig(P.design_plot(design, title), [out["design_png"], out["design_pdf"]])
        write_markdown(out["design_md"], design_markdown(design, needed, title), out.get("design_html"), title)
    log_note(f"figures and tables of {n} ranked systems, {len(metrics)} metrics")
