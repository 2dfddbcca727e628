"""Adapter: rule summary -> metaeval.workflow.run_summary."""
from metaeval.workflow import run_step, run_summary, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_summary(spec, settings, smk.input.similarity, smk.input.groups, smk.input.stability,
                                  smk.input.get("merging"), smk.output.csv, smk.output.md,
                                  power_csv=smk.input.power))
