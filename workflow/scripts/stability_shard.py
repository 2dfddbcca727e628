"""Adapter: rule stability_shard -> metaeval.workflow.run_stability_shard."""
from metaeval.workflow import run_stability_shard, run_step, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: run_stability_shard(spec, smk.params.settings, smk.input[0], int(smk.wildcards.shard),
                                          int(smk.wildcards.n), smk.output[0]))
