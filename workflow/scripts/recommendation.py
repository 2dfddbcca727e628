"""Adapter: rule recommendation -> metaeval.workflow.run_recommendation."""
from metaeval.workflow import run_recommendation, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_recommendation(spec, settings, smk.input.npz, smk.input.gameability,
                                         dict(smk.output.items()),
                                         smk.input.properties[0] if smk.input.properties else None))
