"""Adapter: rule bootstrap -> metaeval.workflow.run_bootstrap."""
from metaeval.workflow import run_bootstrap, run_step, step_settings, step_spec

smk = snakemake  # noqa: F821 (injected by Snakemake)
spec = step_spec(smk.params.spec)
settings = step_settings(smk.params.settings)
run_step(smk, lambda: run_bootstrap(spec, settings, smk.input[0], smk.output.intervals, smk.output.similarity,
                                    smk.output.npz, smk.output.md, smk.output.tex,
                                    [smk.output.png, smk.output.pdf]))
