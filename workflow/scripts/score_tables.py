"""Adapter: rule score_tables -> metaeval.workflow.write_tables."""
from metaeval.workflow import run_step, step_spec, write_tables

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
run_step(smk, lambda: write_tables(spec, smk.input.scores, smk.output.md, smk.output.tex, smk.input.info))
