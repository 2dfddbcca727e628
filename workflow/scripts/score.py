"""Adapter: rule score -> metaeval.workflow.score."""
from metaeval.workflow import run_step, score, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: score(spec, smk.input[0], smk.output.scores, smk.output.confusion))
