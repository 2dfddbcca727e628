"""Adapter: rule merging -> metaeval.workflow.run_merging."""
from metaeval.workflow import run_merging, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_merging(spec, settings, smk.input[0], smk.output.csv, smk.output.balanced,
                                  [smk.output.png, smk.output.pdf]))
