"""Adapter: rule score -> metaeval.workflow.score."""
from metaeval.workflow import run_step, score, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
run_step(smk, lambda: score(spec, smk.input[0], smk.output.scores, smk.output.confusion))
