"""Adapter: rule merging -> metaeval.workflow.run_merging."""
from metaeval.workflow import run_merging, run_step, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: run_merging(spec, smk.params.settings, smk.input[0], smk.output.csv, smk.output.balanced,
                                  [smk.output.png, smk.output.pdf]))
