"""Adapter: rule cross_dataset -> metaeval.workflow.crossdata.run_cross_dataset."""
from metaeval.workflow import run_cross_dataset, run_step

smk = snakemake  # noqa: F821 (injected by Snakemake)


def step():
    run_cross_dataset(smk.params.kinds, smk.params.verdict, dict(zip(smk.params.datasets, smk.input.recommendations)),
                      dict(smk.output.items()), skipped=smk.params.skipped, test_sets=smk.params.test_sets,
                      custom_metrics=smk.params.custom_metrics)


run_step(smk, step)
