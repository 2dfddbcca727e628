"""The pages that gather a run: each dataset's summary page, the report's
front page, the reproduction of the papers' tables, the formal properties."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

from ..data.config import DatasetSpec
from ..data.files import read_result_csv, write_csv, write_text
from .steps import note as log_note
from ..present.tables import md_escape, plural
from .common import write_markdown
from .drawing import save_fig
from .params import step_settings, step_spec

def _ranked_phrase(spec: DatasetSpec, settings) -> str:
    """What the ranked systems are, for the summary's sentence."""
    parts = []
    if spec.predictions:
        parts.append("real systems")
    if spec.synthetic:
        parts.append("synthetic systems")
    if set(settings.include_baselines) & set(spec.baselines):
        parts.append("the baselines named in the config")
    return " and ".join(parts) or "no system"

def write_summary_page(spec: DatasetSpec, settings, summary_csv, similarity_csv, groups_csv, answer: str, out_md,
                       out_html=None, note=None, n_systems: int = 0, systems: str | None = None) -> None:
    """``tables/summary.md`` (and .html): the Table-7 summary, labelled as
    a reproduction of Amemiya & Sakai's table, and the recommendation's
    answer (``metaeval.verdict.recommendation``: the one answer every page shows).
    ``n_systems``: the systems the experiments rank; ``systems``: what they
    are, as the recommendation counts them (``17 real systems + 2
    baselines``)."""
    from ..methods.experiments import group_separation, table7
    from ..present.tables import summary_markdown

    df = read_result_csv(summary_csv)
    g = read_result_csv(groups_csv, index_col="metric")["group"]
    sim = read_result_csv(similarity_csv, index_col="metric")
    no_merging = ("span identification has no classes to merge" if spec.span_task == "si" else
                  "the task has two classes, and merging them leaves a single class, on which every system ties")
    title = f"{spec.name}: summary of the meta-evaluation"
    md = summary_markdown(df, title, n_systems, settings.n_splits,
                          group_separation(sim, g), settings.distinct_tau, systems=systems or _ranked_phrase(spec,
                                                                                                            settings),
                          no_merging=no_merging, alpha=settings.alpha, test=settings.significance_test,
                          table7=table7(df))
    md += ("\n**Which metric to report** (the whole argument: recommendation.md): " + md_escape(answer) + "\n")
    if note:
        md += f"\n**Warning:** {md_escape(note)}\n"
    write_markdown(out_md, md, out_html, title)

def ranked_in_words(n_ranked, systems: dict | None) -> str | None:
    """The ranked systems as the recommendation counts them (``17 real
    systems + 2 baselines``), for a dataset without one: ``n_ranked``
    (real, synthetic and the baselines include_baselines names) and
    ``dataset.json``'s ``systems``; None without them.

    >>> ranked_in_words(4, {"real": ["a", "b"], "synthetic": []})
    '2 real systems + 2 baselines'
    """
    if n_ranked is None or not systems:
        return None
    real, synthetic = len(systems.get("real") or ()), len(systems.get("synthetic") or ())
    baselines = max(int(n_ranked) - real - synthetic, 0)
    parts = [plural(real, "real system")] + ([plural(synthetic, "synthetic system")] if synthetic else [])
    return " + ".join(parts + ([plural(baselines, "baseline")] if baselines else []))


def write_overview(out_html, datasets: list[Mapping], info_jsons: Mapping[str, str],
                   recommendation_jsons: Mapping[str, str], reproduction_csv=None, published_yaml=None,
                   summaries: Mapping[str, Mapping] | None = None, front_html=None,
                   links: Mapping[str, list] | None = None,
                   leaderboard_jsons: Mapping[str, str] | None = None) -> None:
    """The report's front page (``results/report/overview.html``): the
    reproduction summary and, per dataset, the answer of its recommendation
    (``recommendation.json``, written by ``run_recommendation``) and the
    warnings of its ingestion.  ``datasets``: per dataset ``name``, ``task``
    (text), ``n_systems`` (ranked), ``why_not`` (why it has no
    meta-evaluation, or None), ``ordinal`` and ``primary`` (metric id).
    ``summaries``: per dataset its summary page to write
    (``write_summary_page``: ``csv``, ``similarity``, ``groups``, ``md``,
    ``html`` paths and the ``spec`` and ``settings`` of the step), which
    ends with the same answer.  ``front_html``: the same front as an HTML
    fragment, which the report's front page includes; ``links``: per
    dataset (and "" for the pages across datasets) ``[subcategory, label,
    path]`` of each page and figure, which ``out_html`` links (a stand-alone
    page: ``report.overview_page``); ``leaderboard_jsons``: per
    leaderboard its ``leaderboard.json`` (``present.leaderboard.
    leaderboard_front``: its answer, size and resolution)."""
    from ..present.report import overview_html, overview_page

    ranked = {d["name"]: d.get("n_systems") for d in datasets}
    for name, page in (summaries or {}).items():
        spec, settings = step_spec(page["spec"]), step_settings(page["settings"])
        answer = json.loads(Path(recommendation_jsons[name]).read_text(encoding="utf-8"))
        # the experiments rank the real systems and the baselines named in include_baselines: counted as the
        # recommendation counts them ("17 real systems + 2 baselines")
        write_summary_page(spec, settings, page["csv"], page["similarity"], page["groups"], answer["answer"],
                           page["md"], page.get("html"), answer.get("resample_note"),
                           ranked.get(name) or answer["n_systems"], answer.get("systems"))
    entries = []
    for d in datasets:
        info = json.loads(Path(info_jsons[d["name"]]).read_text(encoding="utf-8"))
        entry = {**d, "n_items": info.get("n_items"), "n_gold_spans": info.get("n_gold_spans"),
                 "n_articles": info.get("n_articles"), "warnings": list(info.get("warnings", [])),
                 "systems": ranked_in_words(d.get("n_systems"), info.get("systems"))}
        if d["name"] in recommendation_jsons:
            rec = json.loads(Path(recommendation_jsons[d["name"]]).read_text(encoding="utf-8"))
            entry["recommendation"] = rec["answer"]
            entry["headline"] = rec.get("headline")
            entry["systems"] = rec.get("systems") or entry["systems"]
            entry["recommended"] = rec["recommended"]
        entries.append(entry)
    summary = None
    if reproduction_csv:
        from ..reproduction.reproduce import Published
        from ..reproduction.summary import reproduction_summary

        summary = reproduction_summary(read_result_csv(reproduction_csv), Published.load(published_yaml))
    import os

    here = Path(out_html).parent
    rel = {name: [(sub, label, Path(os.path.relpath(f, here)).as_posix()) for sub, label, f in files]
           for name, files in (links or {}).items()}
    boards = [json.loads(Path(f).read_text(encoding="utf-8")) for _, f in sorted((leaderboard_jsons or {}).items())]
    write_text(out_html, overview_page(entries, summary, rel, boards))
    if front_html is not None:
        write_text(front_html, overview_html(entries, summary, leaderboards=boards))
    log_note(f"front page of {plural(len(entries), 'dataset')} ({sum('recommendation' in e for e in entries)} "
             f"with a recommendation) and {plural(len(boards), 'leaderboard')}")

def run_reproduce(published_yaml, results_dir, available, out_csv, out_md, result_files=None, out_html=None) -> None:
    """results/reproduction.csv and .md (see metaeval.reproduction.reproduce).
    ``result_files``: the declared inputs (paths); the report reads no other."""
    from ..reproduction.reproduce import Published, ResultStore, reproduce
    from ..reproduction.summary import write_report

    files = None
    if result_files is not None:
        root = Path(results_dir).resolve()
        files = {Path(f).resolve().relative_to(root).as_posix() for f in result_files}
    pub = Published.load(published_yaml)
    cells, notes, paragraphs = reproduce(pub, ResultStore(results_dir, set(available), files))
    omitted = [p for p in pub.papers() if p not in pub.for_datasets(set(available)).papers()]
    log_note(f"{len(cells)} published cells of the datasets {', '.join(sorted(available)) or '(none)'}"
             + (f"; papers left out (no dataset configured): {', '.join(omitted)}" if omitted else ""))
    write_report(cells, notes, paragraphs, pub, out_csv, out_md, out_html, omitted=omitted)

def run_properties(block: Mapping | None, out: Mapping[str, str]) -> None:
    """The properties job: ``properties.csv`` (every classification metric x
    every property of ``metaeval.measures.properties``), its Markdown/HTML and LaTeX
    tables and the grid figure.  ``block``: the config's ``properties``."""
    from dataclasses import replace

    from ..present.plots import properties_grid
    from ..measures.properties import PROPERTIES, check_all
    from ..settings import PropertySettings
    from ..measures.matrices import domain_matrices
    from ..present.tables import properties_latex, properties_markdown

    settings = PropertySettings.from_config(block)
    df = check_all(settings)
    log_note(f"checked {df['metric'].nunique()} metrics against {df['property'].nunique()} properties")
    write_csv(out["csv"], df)
    n = len(domain_matrices(settings))
    enumerated = len(domain_matrices(replace(settings, random=0)))
    domain = (f"{n:,} confusion matrices of 3 classes in which every class occurs in the gold: all {enumerated:,} with "
              f"at most {settings.n_max} items and {n - enumerated:,} random ones ({settings.random:,} mostly right, "
              f"of up to {settings.random_n_max:,} items; the others with cells drawn alike, right or wrong, of up "
              f"to {settings.random_sparse_n_max} items; seed {settings.seed}); weighted metrics with weights "
              f"{', '.join(f'{w:g}' for w in settings.weights)}, F_avg over classes "
              f"{', '.join(str(c) for c in settings.f_avg_classes)}, the FNC-1 score with class "
              f"{settings.unrelated} as unrelated")
    title = "Formal properties of the metrics"
    write_markdown(out["md"], properties_markdown(df, PROPERTIES, domain, title), out.get("html"), title)
    write_text(out["tex"], properties_latex(df, caption=f"{title}, checked on {domain}.", label="tab:properties"))
    save_fig(properties_grid(df, PROPERTIES, f"{title} (3 classes, {n:,} matrices)"), [out["png"], out["pdf"]])

