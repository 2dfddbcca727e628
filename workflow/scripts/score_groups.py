"""Adapter: rule score_groups -> metaeval.workflow.score_groups."""
from metaeval.workflow import run_step, score_groups, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: score_groups(spec, smk.input[0], smk.output[0]))
