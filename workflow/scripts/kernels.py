"""Adapter: rule kernels -> metaeval.workflow.write_kernels."""
from metaeval.workflow import run_step, write_kernels

smk = snakemake  # noqa: F821 (injected by Snakemake)
run_step(smk, lambda: write_kernels(smk.output[0]))
