"""Adapter: rules experiment_figures* -> metaeval.workflow.figures.run_experiment_figures."""
from metaeval.workflow import run_experiment_figures, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_experiment_figures(spec, settings, dict(smk.input.items()), dict(smk.output.items())))
