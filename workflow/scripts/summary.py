"""Adapter: rule summary -> metaeval.workflow.run_summary."""
from metaeval.workflow import run_step, run_summary, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: run_summary(spec, smk.params.settings, smk.input.groups, smk.input.stability,
                                  smk.input.merging, smk.output.csv, smk.output.md, smk.params.n_systems))
