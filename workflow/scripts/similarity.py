"""Adapter: rule similarity -> metaeval.workflow.run_similarity."""
from metaeval.workflow import run_similarity, run_step, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: run_similarity(spec, smk.params.settings, smk.input[0], smk.output.csv, smk.output.groups,
                                     [smk.output.png, smk.output.pdf]))
