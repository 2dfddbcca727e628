"""Adapter: rule span_figure -> metaeval.workflow.span_figure."""
from metaeval.workflow import run_step, span_figure, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
run_step(smk, lambda: span_figure(spec, smk.input.scores, [smk.output.png, smk.output.pdf]))
