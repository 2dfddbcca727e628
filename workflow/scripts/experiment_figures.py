"""Adapter: rules experiment_figures* -> metaeval.workflow.sensitivity.run_sensitivity (datasets with
classes), then metaeval.workflow.figures.run_experiment_figures."""
from metaeval.workflow import run_experiment_figures, run_sensitivity, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
out, inp = dict(smk.output.items()), dict(smk.input.items())


def step():
    if "noise" in out:
        run_sensitivity(spec, settings, inp["npz"], out, trials_npz=inp["trials"], power_csv=inp["power"])
    run_experiment_figures(spec, settings, {**inp, **out}, out)


run_step(smk, step)
