"""Adapter: rule leaderboard_design -> metaeval.workflow.leaderboards.run_leaderboard_design."""
from metaeval.workflow import run_leaderboard_design, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)
run_step(smk, lambda: run_leaderboard_design(smk.params.spec, smk.params.settings, smk.input[0], smk.output[0]))
