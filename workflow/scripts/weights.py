"""Adapter: rule weights -> metaeval.workflow.run_weights."""
from metaeval.workflow import run_step, run_weights, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_weights(spec, settings, smk.input[0], smk.output.csv, smk.output.tau,
                                  smk.output.md, smk.output.html))
