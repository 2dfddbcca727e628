"""Adapter: rule significance -> metaeval.workflow.run_significance."""
from metaeval.workflow import run_significance, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_significance(spec, settings, smk.input.data, smk.output.pairs, smk.output.best,
                                       smk.output.power, [smk.output.png, smk.output.pdf],
                                       bootstrap_npz=smk.input.get("bootstrap")))
