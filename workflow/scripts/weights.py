"""Adapter: rule weights -> metaeval.workflow.run_weights."""
from metaeval.workflow import run_step, run_weights, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: run_weights(spec, smk.params.settings, smk.input[0], smk.output.csv, smk.output.tau,
                                  smk.output.md))
