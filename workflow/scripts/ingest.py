"""Adapter: rule ingest -> metaeval.workflow.ingest."""
from metaeval.workflow import ingest, run_step, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
run_step(smk, lambda: ingest(spec, str(smk.params.data_dir), smk.output.npz, smk.output.info,
                             results_dir=smk.params.results_dir, logs_dir=smk.params.logs_dir, log=smk.log[0]))
