"""Adapter: rule official -> metaeval.workflow.official_figures."""
from metaeval.workflow import official_figures, run_step, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
run_step(smk, lambda: official_figures(spec, smk.input.scores, smk.params.data_dir, smk.output.csv, smk.output.md,
                                       smk.output.html))
