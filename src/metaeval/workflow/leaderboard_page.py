"""The leaderboard's page (Markdown, HTML), LaTeX table and rank-set
figure, drawn from the files the leaderboard's computing steps wrote
(``workflow.leaderboards``): a module of its own, so that editing the page
or the figure reruns no computation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

from .leaderboards import _spec

__all__ = ["run_leaderboard_page"]


def run_leaderboard_page(spec_plain, settings_plain, info_json, tables: Mapping[str, list[str] | str],
                         out_md, out_html, out_tex, figures, out_json=None) -> None:
    """The page, the LaTeX table and the rank-set figure from the files the
    other steps wrote (``tables``: ``ranks``, ``resolution`` and ``verdict``
    lists of per-scheme files; ``agreement``, ``stability``, ``robustness``,
    ``gameability``, ``design`` paths); ``out_json``: what the front page
    says of it (``present.leaderboard.leaderboard_front``)."""
    import pandas as pd

    from ..data.files import write_text
    from ..present.figure_files import save_figure
    from ..present.leaderboard import (leaderboard_front, leaderboard_latex, leaderboard_markdown,
                                       rank_sets_figure, rank_sets_title)
    from ..present.report import html_page
    from ..settings import default_of

    spec = _spec(spec_plain)
    st = dict(settings_plain)
    info = json.loads(Path(info_json).read_text(encoding="utf-8"))
    from ..methods.leaderboards.resampling import caution

    info.update(aggregates=spec.aggregate_ids(), primary_aggregate=spec.primary_aggregate, settings=st,
                caution=caution(len(info["tasks"]), len(info["systems"]), st.get("leaderboard_schemes", ())))

    def read(p):
        return pd.read_csv(p, keep_default_na=False, na_values=["", "NaN", "nan"],
                           dtype={"system": str, "ahead": str, "behind": str, "tie_bands": str, "worst_removed": str,
                                  "degenerate": str, "sentence": str})

    t = {f"{k}.csv": (pd.concat([read(p) for p in v], ignore_index=True) if isinstance(v, (list, tuple))
                      else read(v)) for k, v in tables.items()}
    import os

    figure = Path(os.path.relpath(list(figures)[0], Path(out_md).parent)).as_posix()
    md = leaderboard_markdown(t, {**info, "figure": figure}, spec.primary_aggregate)
    write_text(out_md, md)
    write_text(out_html, html_page(md, f"Leaderboard: {spec.name}", wrap=True))
    write_text(out_tex, leaderboard_latex(t["ranks.csv"], spec.primary_aggregate, spec.name,
                                          st.get("leaderboard_alpha", default_of("leaderboard_alpha")),
                                          info.get("caution")))
    schemes = list(st.get("leaderboard_schemes", default_of("leaderboard_schemes")))
    alpha = st.get("leaderboard_alpha", default_of("leaderboard_alpha"))
    fig = rank_sets_figure(t["ranks.csv"], spec.primary_aggregate, schemes,
                           rank_sets_title(spec.name, spec.primary_aggregate), alpha)
    save_figure(fig, list(figures))
    if out_json is not None:  # what the front page says of the leaderboard
        write_text(out_json, json.dumps(leaderboard_front(t, info, spec.primary_aggregate), indent=1,
                                        ensure_ascii=False) + "\n")
