"""Adapter: rule dataset_properties -> metaeval.workflow.run_dataset_properties."""
from metaeval.workflow import run_dataset_properties, run_step, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
run_step(smk, lambda: run_dataset_properties(spec, dict(smk.params.properties), smk.input.npz, smk.output.csv))
