"""Adapter: rule confusion_figure -> metaeval.workflow.confusion_figure."""
from metaeval.workflow import confusion_figure, run_step, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
run_step(smk, lambda: confusion_figure(spec, smk.input.confusion, smk.input.scores,
                                       [smk.output.png, smk.output.pdf]))
