"""Adapter: rule criteria_shard -> metaeval.workflow.criteria_shards.run_criteria_shard."""
from metaeval.workflow import run_criteria_shard, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_criteria_shard(spec, settings, smk.input[0], int(smk.wildcards.shard),
                                         int(smk.wildcards.n), smk.output[0]))
