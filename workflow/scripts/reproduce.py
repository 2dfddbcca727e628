"""Adapter: rule reproduce -> metaeval.workflow.run_reproduce."""
from metaeval.workflow import run_reproduce, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)
run_step(smk, lambda: run_reproduce(smk.input.tables, smk.params.results_dir, smk.params.available,
                                    smk.output.csv, smk.output.md, result_files=list(smk.input.results),
                                    out_html=smk.output.html))
