"""Adapter: rule stability_shard -> metaeval.workflow.run_stability_shard."""
from metaeval.workflow import run_stability_shard, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_stability_shard(spec, settings, smk.input[0], int(smk.wildcards.shard),
                                          int(smk.wildcards.n), smk.output[0]))
