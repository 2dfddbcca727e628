"""Adapter: rule leaderboard_verdict -> metaeval.workflow.leaderboards.run_leaderboard_verdict."""
from metaeval.workflow import run_leaderboard_verdict, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)
run_step(smk, lambda: run_leaderboard_verdict(smk.params.spec, smk.params.settings, smk.input[0],
                                              smk.wildcards.scheme, smk.output[0]))
