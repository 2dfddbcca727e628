"""Adapter: rule similarity -> metaeval.workflow.run_similarity."""
from metaeval.workflow import run_similarity, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_similarity(spec, settings, smk.input[0], smk.output.csv, smk.output.groups,
                                     [smk.output.png, smk.output.pdf]))
