"""Adapter: rule properties -> metaeval.workflow.run_properties."""
from metaeval.workflow import run_properties, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)
run_step(smk, lambda: run_properties(dict(smk.params.settings), dict(smk.output.items())))
