"""Adapter: rules recommendation* -> metaeval.workflow.sensitivity.run_sensitivity (datasets with classes),
metaeval.workflow.design.run_design, metaeval.workflow.figures.run_experiment_figures,
metaeval.workflow.recommendation.run_recommendation."""
from metaeval.workflow import (run_design, run_experiment_figures, run_recommendation, run_sensitivity, run_step,
                               step_settings, step_spec)

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
out, inp = dict(smk.output.items()), dict(smk.input.items())


def step():
    if "noise" in out:
        run_sensitivity(spec, settings, inp["npz"], out, trials_npz=inp["trials"], power_csv=inp["power"])
    run_design(spec, settings, inp["npz"], inp["bootstrap"], out)
    run_experiment_figures(spec, settings, {**inp, **out}, out)
    run_recommendation(spec, settings, inp["npz"], inp["gameability"], out,
                       smk.input.properties[0] if smk.input.properties else None, design_csvs=(out["design"],
                                                                                             out["design_needed"]),
                       criteria_shards=list(smk.input.criteria_shards))


run_step(smk, step)
