"""Adapter: rule ingest -> metaeval.workflow.ingest."""
from metaeval.workflow import ingest, run_step, spec_from_snakemake

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = spec_from_snakemake(smk.config, smk.wildcards.dataset)
run_step(smk, lambda: ingest(spec, smk.params.data_dir, smk.output.npz, smk.output.info,
                             results_dir=smk.params.results_dir))
