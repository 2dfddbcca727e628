"""Adapter: rule stability -> metaeval.workflow.run_stability_gather."""
from metaeval.workflow import run_stability_gather, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_stability_gather(spec, settings, list(smk.input), smk.output.csv,
                                           smk.output.splits, [smk.output.png, smk.output.pdf]))
