"""Adapter: rule stability -> metaeval.workflow.run_stability_gather."""
from metaeval.workflow import run_stability_gather, run_step, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: run_stability_gather(spec, smk.params.settings, list(smk.input), smk.output.csv,
                                           smk.output.splits, [smk.output.png, smk.output.pdf]))
