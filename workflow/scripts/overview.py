"""Adapter: rule overview -> metaeval.workflow.write_overview."""
from pathlib import Path

from metaeval.workflow import run_step, write_overview

smk = snakemake  # noqa: F821 (injected by Snakemake)
by_dataset = lambda files: {Path(f).parent.name: f for f in files}  # noqa: E731 (results/<dataset>/<file>)
recs = {}
for f in smk.output.recommendations:  # results/<dataset>/recommendation.csv, .md; tables/recommendation.html
    name = Path(f).parent.parent.name if Path(f).parent.name == "tables" else Path(f).parent.name
    recs.setdefault(name, {})[Path(f).suffix.lstrip(".")] = f
run_step(smk, lambda: write_overview(smk.output.overview, smk.params.datasets, by_dataset(smk.input.info),
                                     by_dataset(smk.input.summaries),
                                     smk.input.reproduction[0] if smk.input.reproduction else None,
                                     smk.input.published[0] if smk.input.published else None,
                                     by_dataset(smk.input.noise), by_dataset(smk.input.priors),
                                     smk.input.properties[0] if smk.input.properties else None, recs))
