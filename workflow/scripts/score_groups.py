"""Adapter: rule score_groups -> metaeval.workflow.score_groups."""
from metaeval.workflow import run_step, score_groups, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
run_step(smk, lambda: score_groups(spec, smk.input[0], smk.output.csv, smk.output.md, smk.output.html))
