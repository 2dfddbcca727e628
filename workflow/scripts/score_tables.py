"""Adapter: rule score_tables -> metaeval.workflow.write_tables."""
from metaeval.workflow import run_step, spec_from_snakemake, write_tables

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: write_tables(spec, smk.input.scores, smk.output.md, smk.output.tex, smk.input.info))
