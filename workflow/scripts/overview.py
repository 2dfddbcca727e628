"""Adapter: rule overview -> metaeval.workflow.write_overview."""
from pathlib import Path

from metaeval.workflow import run_step, write_overview

smk = snakemake  # noqa: F821 (injected by Snakemake)
by_dataset = lambda files: {Path(f).parent.name: f for f in files}  # noqa: E731 (results/<dataset>/<file>)
pages = {}
for f in smk.output.summaries:  # results/<dataset>/tables/summary.md, .html
    pages.setdefault(Path(f).parent.parent.name, {})[Path(f).suffix.lstrip(".")] = f
summaries = {name: {"csv": by_dataset(smk.input.summaries)[name], "similarity": by_dataset(smk.input.similarity)[name],
                    "groups": by_dataset(smk.input.groups)[name], **pages[name], **smk.params.summaries[name]}
             for name in pages}
run_step(smk, lambda: write_overview(smk.output.overview, smk.params.datasets, by_dataset(smk.input.info),
                                     by_dataset(smk.input.recommendations),
                                     smk.input.reproduction[0] if smk.input.reproduction else None,
                                     smk.input.published[0] if smk.input.published else None, summaries,
                                     front_html=smk.output.front, links=smk.params.links,
                                     leaderboard_jsons=by_dataset(smk.input.leaderboards)))
