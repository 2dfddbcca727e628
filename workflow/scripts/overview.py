"""Adapter: rule overview -> metaeval.workflow.write_overview."""
from pathlib import Path

from metaeval.workflow import run_step, write_overview

smk = snakemake  # noqa: F821 (injected by Snakemake)
by_dataset = lambda files: {Path(f).parent.name: f for f in files}  # noqa: E731 (results/<dataset>/<file>)
run_step(smk, lambda: write_overview(smk.output.overview, smk.params.datasets, by_dataset(smk.input.info),
                                     by_dataset(smk.input.recommendations),
                                     smk.input.reproduction[0] if smk.input.reproduction else None,
                                     smk.input.published[0] if smk.input.published else None))
