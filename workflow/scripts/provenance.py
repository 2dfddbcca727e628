"""Adapter: rule provenance -> metaeval.workflow.steps.write_provenance (a light import: no pandas)."""
from metaeval.workflow.steps import run_step, write_provenance

smk = snakemake  # noqa: F821 (injected by Snakemake)
run_step(smk, lambda: write_provenance(smk.output[0], smk.wildcards.dataset, smk.params.config, smk.params.settings,
                                       smk.params.code, smk.params.commit, str(smk.params.data_dir), smk.params.data,
                                       properties=smk.params.properties))
