"""Adapter: rule sensitivity -> metaeval.workflow.sensitivity.run_sensitivity."""
from metaeval.workflow import run_sensitivity, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_sensitivity(spec, settings, smk.input.npz, dict(smk.output.items()),
                                      trials_npz=smk.input.trials, power_csv=smk.input.power))
