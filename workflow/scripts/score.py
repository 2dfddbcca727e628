"""Adapter: rules score, score_tc, score_si -> metaeval.workflow.run_score."""
from metaeval.workflow import run_score, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_score(spec, smk.input.npz, smk.input.info, dict(smk.output.items()), settings))
