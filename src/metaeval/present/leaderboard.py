"""What people read of a leaderboard: its page (Markdown, whence HTML),
its table in LaTeX, and the figure of its rank confidence sets.

The page puts the answer first (which aggregate to report, under each
resampling scheme), then the leaderboard with each system's rank set and
the bands of systems the data cannot tell apart, then the evidence.  Every
table names its scheme.  Drawn from the tables the computations wrote
(``metaeval.pipeline.leaderboard``): a look never reruns a computation.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..measures import aggregates as A
from ..settings import LEADERBOARD_CRITERIA as CRITERIA, LEADERBOARD_SCHEMES, default_of
from .tables import latex_table, markdown_table, md_escape, plural

__all__ = ["leaderboard_markdown", "leaderboard_latex", "leaderboard_front", "rank_sets_figure", "rank_sets_title",
           "signature_line", "SCHEME_WORDS"]

SCHEME_WORDS = LEADERBOARD_SCHEMES  # (metaeval.settings: the one place the schemes' words are written)


def _name(agg: str) -> str:
    return A.get(agg).name if agg in A.AGGREGATES else agg


MAX_BANDS = 8  # tie bands written in a cell of the page (every band is in resolution_<scheme>.csv)
MAX_DESIGN_ROWS = 40  # rows of the design table on the page (every row is in design.csv)
MAX_TASK_TABLE = (30, 21)  # systems and columns of the scores per task shown on the page (all in task_scores.csv)


def _bands(text, limit: int = MAX_BANDS) -> str:
    """The first ``limit`` tie bands of a ``tie_bands`` cell ("; "-separated), and how many more."""
    if not isinstance(text, str) or not text:
        return "none"
    bands = text.split("; ")
    return "; ".join(bands[:limit]) + (f"; and {len(bands) - limit} more" if len(bands) > limit else "")


def _interval(lo, hi) -> str:
    return f"{int(lo)}" if lo == hi else f"{int(lo)}–{int(hi)}"


def _leaderboard_rows(ranks: pd.DataFrame, agg: str, schemes, no_answers=None) -> pd.DataFrame:
    """The primary aggregate's leaderboard: one row per system (best first),
    its simultaneous rank set under every scheme, the first scheme's
    marginal set and percentile interval of bootstrap ranks."""
    first = schemes[0]
    base = ranks[(ranks["aggregate"] == agg) & (ranks.scheme == first)]
    out = pd.DataFrame({"rank": base["rank"].to_numpy(), "system": base["system"].to_numpy(),
                        "estimate": base["estimate"].to_numpy()})
    if "estimate_low" in base:
        out[f"interval ({first})"] = [f"[{lo:.4f}, {hi:.4f}]" for lo, hi in zip(base.estimate_low, base.estimate_high)]
    if no_answers:
        out["unanswered"] = [f"{no_answers.get(s, 0):,}" for s in base["system"]]
    for s in schemes:
        r = ranks[(ranks["aggregate"] == agg) & (ranks.scheme == s)].set_index("system").loc[base["system"]]
        out[f"rank set ({s})"] = [_interval(a, b) for a, b in zip(r.simultaneous_lower, r.simultaneous_upper)]
    out[f"marginal set ({first})"] = [_interval(a, b) for a, b in zip(base.marginal_lower, base.marginal_upper)]
    out[f"percentile of bootstrap ranks ({first})"] = [_interval(a, b) for a, b in
                                                       zip(base.percentile_lower, base.percentile_upper)]
    return out


def leaderboard_markdown(tables: Mapping[str, pd.DataFrame], info: Mapping[str, Any], primary: str) -> str:
    """The page of one leaderboard from its tables (``ranks.csv``,
    ``resolution.csv``, ``verdict.csv``, ``agreement.csv``,
    ``stability.csv``, ``robustness.csv``, ``gameability.csv``, and
    ``task_scores.csv`` and ``design.csv`` when computed) and
    ``dataset.json``'s ``info`` (with ``figure``, the rank-set figure's
    path relative to the page, shown under the leaderboard)."""
    ranks, res, verdict = tables["ranks.csv"], tables["resolution.csv"], tables["verdict.csv"]
    schemes = list(dict.fromkeys(ranks["scheme"]))
    settings = info.get("settings", {})
    alpha = float(settings.get("leaderboard_alpha", default_of("leaderboard_alpha")))
    family = settings.get("leaderboard_family", default_of("leaderboard_family"))
    n_tasks = len(info["tasks"])
    lines = [f"# Leaderboard: {md_escape(info['name'])}", ""]
    if info.get("description"):
        lines += [str(info["description"]).strip(), ""]  # the config's own words, Markdown and all
    missing = "wrong" if info.get("no_answer_scoring") == "wrong" else "its expected value under a random guess"
    lines += [f"{plural(len(info['systems']), 'system')}, {info['n_items']:,} items in {plural(n_tasks, 'task')}; "
              + (f"answers (a missing answer scored {missing})." if info.get("kind") == "answers"
                 else "per-item scores."), ""]
    lines += ["## The answer", ""]
    for s in schemes:
        sentence = verdict[verdict.scheme == s]["sentence"].iloc[0]
        lines.append(f"- **{SCHEME_WORDS[s]}**: {md_escape(sentence.replace(', ' + SCHEME_WORDS[s], ''))}")
    if info.get("caution"):
        lines += ["", f"**Caution.** {md_escape(info['caution'])}"]
    lines += ["", f"Error-controlled at {alpha:g} per scheme (each criterion's Model Confidence Set at {alpha:g} / C, "
              "Bonferroni over the C criteria that count); the evidence is below.", ""]
    # the leaderboard of the primary aggregate
    r0 = res[(res["aggregate"] == primary) & (res.scheme == schemes[0])].iloc[0]
    lines += [f"## The leaderboard: {md_escape(_name(primary))}", ""]
    bands = _bands(r0["tie_bands"])
    lines += [f"{int(r0.adjacent_resolved)} of {int(r0.adjacent_pairs)} adjacent pairs resolved "
              f"({SCHEME_WORDS[schemes[0]]}: their difference significant, {family} at {1 - alpha:.0%}, the tests "
              "the rank sets are built from); tie bands, systems the data "
              f"cannot tell apart: {md_escape(bands)}."
              + (" (Bands may overlap: a system can be tied with its neighbours on both sides while those two are "
                 "told apart.)" if bands.count("{") > 1 else ""), ""]
    lines += [markdown_table(_leaderboard_rows(ranks, primary, schemes, info.get("no_answers") if
                                               any((info.get("no_answers") or {}).values()) else None), digits=4), ""]
    if info.get("figure"):  # the workflow's page: the figure beside it
        lines += [f"![The rank sets of the {md_escape(_name(primary))} under each resampling scheme]"
                  f"({info['figure']})", ""]
    lines += [f"A rank set holds the system's rank with probability {1 - alpha:.0%}: *simultaneous* sets hold every "
              "system's rank at once, the *marginal* set one system's alone (Mogstad, Romano, Shaikh & Wilhelm "
              "2024, max-|t| bootstrap of the paired differences with stepdown). The percentile interval of the "
              "bootstrap ranks is shown for comparison only: it under-covers systems that are close "
              "(docs/leaderboards.md measures both on leaderboards with known ranks).", ""]
    # resolution of every aggregate
    lines += ["## Which ranks each aggregate resolves", ""]
    t = res.copy()
    t["aggregate"] = [_name(a) for a in t["aggregate"]]
    t = t[["scheme", "aggregate", "adjacent_resolved", "adjacent_pairs", "share_resolved", "pairs_resolved",
           "tie_bands"]].assign(tie_bands=[_bands(b, 4) for b in t["tie_bands"]])
    lines += [markdown_table(t.rename(columns={"adjacent_resolved": "resolved", "adjacent_pairs": "adjacent pairs",
                                               "share_resolved": "share", "pairs_resolved": "all pairs resolved",
                                               "tie_bands": "tie bands"})), ""]
    # the scores per task (small leaderboards: on the page; all of them in task_scores.csv)
    ts = tables.get("task_scores.csv")
    if ts is not None and len(ts):
        if len(ts) <= MAX_TASK_TABLE[0] and ts.shape[1] - 1 <= MAX_TASK_TABLE[1]:
            lines += ["## Scores per task", "", "Each system's mean per-item score on each task (the number of "
                      "items in brackets), best over all items first.", "", markdown_table(ts, digits=3), ""]
        else:
            lines += ["## Scores per task", "", f"{len(ts):,} systems x {ts.shape[1] - 2:,} tasks: in task_scores.csv "
                      "(each system's mean per-item score on each task).", ""]
    # the verdict's evidence
    lines += ["## The evidence", ""]
    for s in schemes:
        v = verdict[verdict.scheme == s]
        n_counted = int(v['counted'].groupby(v['criterion']).first().sum())
        lines += [f"**{SCHEME_WORDS[s]}** ({plural(n_counted, 'criterion', 'criteria')} "
                  f"count{'s' if n_counted == 1 else ''}; ✔ kept by the criterion's set, ✘ eliminated, – not "
                  "judged):", ""]
        grid = v.assign(cell=[("–" if not tp else ("✔" if k else "✘")) + f" {x:.3f} [{lo:.3f}, {hi:.3f}]"
                              for tp, k, x, lo, hi in zip(v.takes_part, v.kept, v.value, v.low, v.high)])
        piv = grid.pivot(index="aggregate", columns="criterion", values="cell").loc[list(dict.fromkeys(v["aggregate"]))]
        piv = piv[list(dict.fromkeys(v.criterion))]
        piv.insert(0, "answer", ["yes" if a else "" for a in v.groupby("aggregate", sort=False)["answer"].first()])
        piv.index = [_name(a) for a in piv.index]
        counts = v.groupby("criterion", sort=False)["counted"].first()
        # the criteria in words, as the verdict's sentences name them; one that does not count said so in its head
        piv = piv.rename(columns={c: CRITERIA.get(c, c) + ("" if counts.get(c, True) else " (does not count: every "
                                                            "aggregate alike)") for c in piv.columns})
        lines += [markdown_table(piv.rename_axis("aggregate").reset_index()), ""]
    lines += ["Criteria (higher is better): rank stability (Kendall tau between the rankings of the two halves of "
              "random half-splits), adjacent pairs resolved (their share: a pair's difference significant, as in "
              "the rank sets), robustness to one "
              "system more or less (1 - the share of other pairs reversed; aggregates whose values depend on each "
              "system's own scores are exempt: exactly 1), resistance to degenerate systems (1 - the share of real "
              "systems the best specialist or constant answer beats).", ""]
    # agreement, stability, robustness, gameability
    ag = tables["agreement.csv"].set_index("aggregate")
    ag.index = [_name(a) for a in ag.index]
    ag.columns = [_name(a) for a in ag.columns]
    lines += ["## Agreement between the aggregates (Kendall tau-b of their rankings)", "",
              markdown_table(ag.rename_axis("aggregate").reset_index()), ""]
    st = tables["stability.csv"]
    piv = st.pivot(index="aggregate", columns="scheme", values="tau_mean").loc[list(dict.fromkeys(st["aggregate"]))]
    sd = st.pivot(index="aggregate", columns="scheme", values="tau_sd").loc[piv.index]
    cells = pd.DataFrame({s: [f"{m:.3f} ± {d:.3f}" for m, d in zip(piv[s], sd[s])]
                          for s in [x for x in schemes if x in piv.columns]},
                         index=[_name(a) for a in piv.index])
    n_splits = int(st["n_splits"].iloc[0])
    lines += [f"## Rank stability (mean ± SD of Kendall tau over {n_splits:,} half-splits)", "",
              "Halves: *items*, half the items of every task; *tasks*, half the tasks; *both*, half the tasks with "
              "half their items against the rest.", "", markdown_table(cells.rename_axis("aggregate").reset_index()),
              ""]
    rb = tables["robustness.csv"].copy()
    rb["aggregate"] = [_name(a) for a in rb["aggregate"]]
    rb["worst_removed"] = [w if isinstance(w, str) and w else "–" for w in rb["worst_removed"]]
    lines += ["## Robustness to one system more or less", "",
              "The share of the other systems' pairs whose order reverses when one system is removed (or added), "
              "averaged over the systems; the worst one to remove.", "",
              markdown_table(rb.rename(columns={"reversal_share": "reversed (mean share)",
                                                "reversals_worst": "reversals (worst)",
                                                "worst_removed": "worst to remove",
                                                "independent_of_others": "no reversal here",
                                                "independent": "independent by construction"})), ""]
    gm = tables["gameability.csv"]
    best = gm.loc[gm.groupby("aggregate", sort=False)["beats_share"].idxmax()]
    best = best.assign(aggregate=[_name(a) for a in best["aggregate"]])
    lines += ["## Degenerate systems", "",
              "The best-placed degenerate system under each aggregate (a specialist right on every item of one "
              "task and guessing on the others; a constant answer), added alone: the share of the real systems "
              "it beats and the rank it would take.", "",
              markdown_table(best.rename(columns={"beats_share": "beats (share)"})),
              "On the benchmark itself (no resampling); every degenerate system is in gameability.csv.", ""]
    if "design.csv" in tables and tables["design.csv"] is not None and not len(tables["design.csv"]):
        lines += ["## What would resolve the unresolved adjacent pairs", "",
                  f"Nothing: every adjacent pair is resolved ({SCHEME_WORDS['items']}).", ""]
    if "design.csv" in tables and tables["design.csv"] is not None and len(tables["design.csv"]):
        d = tables["design.csv"].copy()
        n_rows = len(d)
        if n_rows > MAX_DESIGN_ROWS:  # the primary aggregate's pairs first, the closest to being resolved first
            d = d.assign(_p=d["aggregate"] != primary, _r=d.get("resolved_items", False)).sort_values(
                ["_p", "_r", "questions_per_task_needed"], kind="stable").head(MAX_DESIGN_ROWS)
        d["aggregate"] = [_name(a) for a in d["aggregate"]]

        def need(x, now, resolved=False):
            if resolved:
                return "resolved already"
            if not np.isfinite(x):
                return "inf"
            return f"{int(np.ceil(x)):,}" if x <= 100 * now else f"> 100× ({int(np.ceil(x)):,})"

        t = pd.DataFrame({"aggregate": d["aggregate"], "ahead": d["ahead"], "behind": d["behind"],
                          "difference": [f"{x:.4g}" for x in d["difference"]],
                          "t (items)": [f"{x:.2f}" for x in d["t_items"]],
                          "critical (items)": [f"{x:.2f}" for x in d["critical_items"]],
                          "questions/task": [f"{x:,.0f}" for x in d["questions_per_task_now"]],
                          "questions/task needed": [need(x, n, bool(r)) for x, n, r in zip(
                              d["questions_per_task_needed"], d["questions_per_task_now"],
                              d.get("resolved_items", [False] * len(d)))]})
        if "tasks_needed" in d:
            t["t (tasks)"] = [f"{x:.2f}" for x in d["t_tasks"]]
            t["critical (tasks)"] = [f"{x:.2f}" for x in d["critical_tasks"]]
            t["tasks"] = [f"{x:,.0f}" for x in d["tasks_now"]]
            t["tasks needed"] = [need(x, n, bool(r)) for x, n, r in zip(
                d["tasks_needed"], d["tasks_now"], d.get("resolved_tasks", [False] * len(d)))]
        lines += ["## What would resolve the unresolved adjacent pairs", "",
                  "Every adjacent pair unresolved when the items or the tasks are resampled. At its observed "
                  "difference, each is resolved once |t| reaches the "
                  "critical value; the questions per task (the tasks kept) and the tasks (their questions kept) "
                  "that would take it there, the paired standard error shrinking as measured on the benchmark's "
                  "own halves (inf: it does not measurably shrink). Exponents of that shrinking, with their "
                  "standard errors, are in design.csv"
                  + (f"; here the {MAX_DESIGN_ROWS} pairs nearest to being resolved, those of the "
                     f"{_name(primary)} first, of {n_rows:,} (all in design.csv)." if n_rows > MAX_DESIGN_ROWS
                     else "."), "", markdown_table(t), ""]
    if info.get("notes"):
        lines += ["## Notes on the input", ""] + [f"- {md_escape(n)}" for n in info["notes"]]
        if any((info.get("no_answers") or {}).values()):
            lines += [f"- a missing answer is scored {missing} (no_answer_scoring: {info.get('no_answer_scoring')})"]
        lines += [""]
    lines += [f"`{signature_line(info, schemes)}`", ""]
    return "\n".join(lines)


def leaderboard_front(tables: Mapping[str, pd.DataFrame], info: Mapping[str, Any], primary: str) -> dict:
    """What the front page (``metaeval.present.report.overview_html``) says
    of one leaderboard, from the same tables and ``info`` as its page
    (``leaderboard.json``): its size, the answer under each scheme (the
    first scheme's is the ``headline``, which says whether the others
    agree), the primary aggregate's adjacent
    pairs resolved and tie bands under each scheme, the caution and the
    notes on the input.  Every value is plain JSON."""
    ranks, res, verdict = tables["ranks.csv"], tables["resolution.csv"], tables["verdict.csv"]
    schemes = list(dict.fromkeys(ranks["scheme"]))
    # each scheme's answer without its scheme's words (the page's way), then whether they agree
    answers = {s: str(verdict[verdict.scheme == s]["sentence"].iloc[0]).replace(", " + SCHEME_WORDS[s], "")
               for s in schemes}
    same = len(set(answers.values())) == 1
    # the aggregate to report (the sentence's lead, "Report the mean over items") under every scheme
    same_report = len({a.split(":")[0].removesuffix(" by convention") for a in answers.values()}) == 1
    if same or len(schemes) == 1:
        tail = (" The same under every resampling scheme." if len(schemes) > 1
                else f" That is with {SCHEME_WORDS[schemes[0]]}.")
    elif same_report:
        tail = (f" That is with {SCHEME_WORDS[schemes[0]]}; every scheme reports the same aggregate, the aggregates "
                "it cannot be told from differ (below).")
    else:
        tail = f" That is with {SCHEME_WORDS[schemes[0]]}; the other schemes answer otherwise (below)."
    headline = answers[schemes[0]] + tail
    resolution = {}
    for s in schemes:
        r = res[(res["aggregate"] == primary) & (res.scheme == s)].iloc[0]
        resolution[s] = {"resolved": int(r.adjacent_resolved), "adjacent_pairs": int(r.adjacent_pairs),
                         "tie_bands": _bands(r["tie_bands"], 3)}
    return {"name": str(info["name"]), "n_systems": len(info["systems"]), "n_items": int(info["n_items"]),
            "n_tasks": len(info["tasks"]), "kind": info.get("kind"), "primary": primary,
            "primary_name": _name(primary), "schemes": {s: SCHEME_WORDS[s] for s in schemes},
            "headline": headline, "same_answer": same, "same_report": same_report, "answers": answers,
            "resolution": resolution,
            "caution": info.get("caution"), "warnings": list(info.get("notes") or [])}


def signature_line(info: Mapping[str, Any], schemes) -> str:
    """What the tables were computed with, in one line (as the command
    line's signature): the version, the aggregates, the schemes, the
    resamples and seed, the rank sets' family and level.

    >>> signature_line({"aggregates": ["mean_items"], "settings": {"leaderboard_replicates": 1000,
    ...     "leaderboard_seed": 7, "leaderboard_verdict_replicates": 500, "leaderboard_splits": 1000,
    ...     "leaderboard_family": "simultaneous", "leaderboard_alpha": 0.05}}, ["items"]).split(" | ", 1)[1]
    'leaderboard | aggregates mean_items | schemes items | bootstrap 1000 (seed 7) | verdict resamples 500 | half-splits 1000 | rank sets simultaneous 95%'
    """
    from .. import __version__

    st = info.get("settings", {})
    return " | ".join([f"metaeval {__version__}", "leaderboard",
                       "aggregates " + ",".join(info.get("aggregates", [])), "schemes " + ",".join(schemes),
                       f"bootstrap {st.get('leaderboard_replicates')} (seed {st.get('leaderboard_seed')})",
                       f"verdict resamples {st.get('leaderboard_verdict_replicates')}",
                       f"half-splits {st.get('leaderboard_splits')}",
                       f"rank sets {st.get('leaderboard_family')} "
                       f"{1 - float(st.get('leaderboard_alpha', default_of('leaderboard_alpha'))):.0%}"])


def leaderboard_latex(ranks: pd.DataFrame, primary: str, name: str, alpha: float | None = None,
                      caution: str | None = None) -> str:
    """The primary aggregate's leaderboard with its rank sets, in LaTeX; the
    caption names the sets' level (``alpha``) and ends with the page's
    ``caution`` when there is one."""
    schemes = list(dict.fromkeys(ranks["scheme"]))
    t = _leaderboard_rows(ranks, primary, schemes)
    level = f"{1 - alpha:.0%} " if alpha is not None else ""
    return latex_table(t, digits=4, caption=f"{name}: {_name(primary)} with the simultaneous {level}rank confidence "
                                            f"sets of every resampling scheme ({', '.join(schemes)}; Mogstad, Romano, "
                                            f"Shaikh and Wilhelm), the first scheme's marginal set and percentile "
                                            f"interval of bootstrap ranks." + (f" {caution}" if caution else ""),
                       label=f"tab:{name}-leaderboard")


def rank_sets_title(name: str, aggregate: str) -> str:
    """The rank-set figure's title (the workflow's and the library's).

    >>> rank_sets_title("mmlu_pro", "mean_items")
    'mmlu_pro: rank sets of the mean over items under each resampling scheme'
    """
    return f"{name}: rank sets of the {_name(aggregate)} under each resampling scheme"


def rank_sets_figure(ranks: pd.DataFrame, primary: str, schemes, title: str, alpha: float):
    """The rank sets of one aggregate, one panel per resampling scheme
    (``schemes``: the order of the panels) side by side, the systems in the
    same rows (best estimate at the top): per system the simultaneous set
    (wide bar), the marginal set (narrow bar), the percentile interval of
    bootstrap ranks (thin line below) and the estimated rank (dot)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plots import OKABE_ITO

    schemes = [schemes] if isinstance(schemes, str) else list(schemes)
    first = ranks[(ranks["aggregate"] == primary) & (ranks.scheme == schemes[0])].reset_index(drop=True)
    order = list(first.sort_values(["rank", "system"], kind="stable")["system"])
    p = len(order)
    fig, axes = plt.subplots(1, len(schemes), figsize=(2.2 + 3.6 * len(schemes), 1.2 + 0.32 * p), sharey=True,
                             squeeze=False)
    y = np.arange(p)[::-1]
    blue, orange, red = OKABE_ITO[4], OKABE_ITO[0], OKABE_ITO[5]
    for ax, scheme in zip(axes[0], schemes):
        r = ranks[(ranks["aggregate"] == primary) & (ranks.scheme == scheme)].set_index("system").loc[order]
        ax.barh(y, r.simultaneous_upper - r.simultaneous_lower + 0.8, left=r.simultaneous_lower - 0.4, height=0.62,
                color=blue, alpha=0.35, label=f"simultaneous {1 - alpha:.0%} set")
        ax.barh(y, r.marginal_upper - r.marginal_lower + 0.8, left=r.marginal_lower - 0.4, height=0.3,
                color=orange, alpha=0.8, label=f"marginal {1 - alpha:.0%} set")
        ax.hlines(y - 0.38, r.percentile_lower - 0.3, r.percentile_upper + 0.3, color=red, lw=1.5,
                  label="percentile of bootstrap ranks")
        ax.plot(r["rank"], y, "o", color="black", ms=4, label="estimated rank")
        ax.set_xticks(np.arange(1, p + 1) if p <= 30 else np.unique(np.linspace(1, p, 11).round().astype(int)))
        ax.set_xlim(0.4, p + 0.6)
        ax.set_ylim(-0.6, p - 0.4)  # (no margin: 5 % of 300 rows would be 15 empty rows at each end)
        ax.set_xlabel("rank (1 = best)")
        ax.set_title(SCHEME_WORDS.get(scheme, scheme), fontsize=9)
        ax.grid(axis="x", color="0.9")
        ax.set_axisbelow(True)
    axes[0][0].set_yticks(y, order)
    axes[0][0].set_ylabel("system")
    height = fig.get_size_inches()[1]
    # the title and the legend at a fixed distance in inches (a share of the figure's height would leave a tall
    # figure of hundreds of systems with inches of blank at both ends)
    fig.suptitle(title, fontsize=10, y=1 - 0.1 / height, va="top")
    fig.tight_layout(rect=(0, 0.35 / height, 1, 1 - 0.3 / height))
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", bbox_to_anchor=(0.5, 0.0),
               ncol=4 if len(schemes) > 1 else 2, fontsize=8, frameon=False)
    return fig
