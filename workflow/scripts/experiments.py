"""Adapter: rules experiments* -> metaeval.workflow.experiments.run_experiments (files only)."""
from metaeval.workflow import run_experiments, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_experiments(spec, settings, smk.input.npz, list(smk.input.shards),
                                      dict(smk.output.items())))
