"""Adapter: rule confusion_figure -> metaeval.workflow.confusion_figure."""
from metaeval.workflow import confusion_figure, run_step, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: confusion_figure(spec, smk.input.confusion, smk.input.scores,
                                       [smk.output.png, smk.output.pdf]))
