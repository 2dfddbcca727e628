"""Adapter: rule leaderboard_page -> metaeval.workflow.leaderboards.run_leaderboard_page."""
from metaeval.workflow import run_leaderboard_page, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)
i = smk.input
tables = {"ranks": list(i.ranks), "resolution": list(i.resolution), "verdict": list(i.verdict),
          "agreement": i.agreement, "stability": i.stability, "robustness": i.robustness,
          "gameability": i.gameability, "task_scores": i.task_scores, "design": i.design[0]}
run_step(smk, lambda: run_leaderboard_page(smk.params.spec, smk.params.settings, i.info, tables, smk.output.md,
                                           smk.output.html, smk.output.tex, [smk.output.png, smk.output.pdf],
                                           smk.output.json))
