"""Adapter: rule leaderboard_ranks -> metaeval.workflow.leaderboards.run_leaderboard_ranks."""
from metaeval.workflow import run_leaderboard_ranks, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)
run_step(smk, lambda: run_leaderboard_ranks(smk.params.spec, smk.params.settings, smk.input[0], smk.wildcards.scheme,
                                            smk.output.ranks, smk.output.resolution))
