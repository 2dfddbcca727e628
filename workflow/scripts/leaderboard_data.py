"""Adapter: rule leaderboard_data -> metaeval.workflow.leaderboards.run_leaderboard_data."""
from metaeval.workflow import run_leaderboard_data, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)
run_step(smk, lambda: run_leaderboard_data(smk.params.spec, smk.params.data_dir, smk.output.npz, smk.output.info))
