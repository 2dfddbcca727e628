"""Adapter: rule leaderboard_experiments -> metaeval.workflow.leaderboards.run_leaderboard_experiments."""
from metaeval.workflow import run_leaderboard_experiments, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)
outputs = {k: getattr(smk.output, k) for k in ("agreement", "stability", "robustness", "gameability", "task_scores")}
run_step(smk, lambda: run_leaderboard_experiments(smk.params.spec, smk.params.settings, smk.input[0], outputs))
