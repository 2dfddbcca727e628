"""The recommendation's page, tables, JSON and figure: the answer first,
then the trade-off, the requirements in one line, the compact grid
(metric x criterion), the numbers with their intervals, then the details."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..present.tables import markdown_table, md_escape, plural
from .criteria import REGISTRY
from .criteria.priors import IMBALANCE_RATIO
from .recommendation import (_SCOPE_HOW, CRITERIA, FEW_SYSTEMS, SCOPE_NAMES, Recommendation, Standing, _and, _game_text,
                             _name, display_name, is_imbalanced)
from .sentences import (_num, _p, _requirement_line, _scope_answer, _separation_line, _standing_text, answer_sentence,
                        headline_sentence, if_first_lines, requirements_line, sets_line, tradeoff_lines)
from .evidence import (SCOPES)


__all__ = ["grid_table", "numbers_table", "criteria_table", "systems_count", "ranked_systems_line",
           "recommendation_markdown", "recommendation_html", "recommendation_long", "recommendation_json",
           "dataset_context", "recommendation_figure", "method_paragraph"]


def _order(rec: Recommendation, scope: str) -> list[int]:
    """The metrics in the tables' order: the answer first, then the
    candidates by the number of criteria they are kept on, then the rest."""
    from .tradeoff import kept_count

    d, n = rec.decision(scope), kept_count(rec.sets[scope])
    return sorted(range(len(rec.metrics)), key=lambda i: (not d.answer[i], not rec.candidate[i], -n[i], i))


def _status(rec: Recommendation, scope: str, i: int, short: bool = False) -> str:
    """A metric's status in a scope, in words (``short``: for the grid)."""
    from .tradeoff import kept_count

    s, d = rec.sets[scope], rec.decision(scope)
    mid = rec.metrics[i]
    n = int(kept_count(s)[i])
    if d.answer[i]:
        one = d.answer.sum() == 1
        word = "recommended" if one else "in the answer"
        return word if d.kind in ("all", "none") else f"{word} (kept on {n} of {d.c})"
    if mid in rec.excluded:
        why = rec.excluded[mid]
        return ("gameable" if why.startswith("gameable") else "excluded") if short else "excluded: " + why
    if not rec.admissible[i]:
        failed_req = [r.id for r in rec.requirements if r.declared and mid in r.fails]
        if short:
            return "fails a requirement" if failed_req else "not checked for a requirement"
        return ("fails a declared requirement (" + _and(failed_req) + ")") if failed_req else \
            ("not checked for a declared requirement (" + _and([r.id for r in rec.requirements if r.declared])
             + ": its properties are of confusion matrices)")
    if not s.admissible[i]:
        return "ill-defined here" if short else "not judged in this scope (its criteria are ill-defined here)"
    lost = [rec.criteria[c] for c in np.flatnonzero(s.counted) if s.participants[c, i] and not s.members[c, i]]
    if short:
        return f"kept on {n} of {d.c}"
    return f"kept on {n} of {d.c}; eliminated on " + _and([CRITERIA[c] for c in lost])


# the grid's marks
KEPT, OUT, APART = "✔", "✘", "–"


def grid_table(rec: Recommendation, scope: str | None = None) -> pd.DataFrame:
    """The verdict at a glance: per metric (the answer first) and criterion
    that counts, ✔ kept, ✘ eliminated, – not judged (invariant by
    construction, or the criterion is not defined for it), empty for a
    metric that is not a candidate; and its status.  Columns are the
    criteria's ids (those ``priorities`` takes)."""
    scope = scope or rec.headline
    s = rec.sets[scope]
    rows = []
    for i in _order(rec, scope):
        row = {"metric": display_name(rec.metrics[i])}
        for c_i, c in enumerate(rec.criteria):
            if not rec.admissible[i]:  # not a candidate, or failing a declared requirement
                cell = ""
            elif rec.undefined is not None and rec.undefined[c_i, i] or rec.exempt[c_i, i]:
                cell = APART
            elif not s.participants[c_i, i]:
                cell = ""
            else:
                cell = KEPT if s.members[c_i, i] or not s.counted[c_i] else OUT
            row[c] = cell
        row["status"] = _status(rec, scope, i, short=True)
        rows.append(row)
    return pd.DataFrame(rows, columns=["metric", *rec.criteria, "status"])


def numbers_table(rec: Recommendation, scope: str | None = None) -> pd.DataFrame:
    """Per metric (the grid's order): each criterion's value with the
    scope's interval, ✔ when kept, its MCS p-value."""
    scope = scope or rec.headline
    s = rec.sets[scope]
    rows = []
    lo, hi, nan = rec.low[scope], rec.high[scope], rec.n_undefined[scope]
    for i in _order(rec, scope):
        mid = rec.metrics[i]
        row = {"metric": display_name(mid)}
        for c_i, c in enumerate(rec.criteria):
            v = rec.value[c_i, i]
            cell = _num(v) + (f" [{lo[c_i, i]:.3f}, {hi[c_i, i]:.3f}]" if np.isfinite(lo[c_i, i]) else "")
            if nan[c_i, i] > 0:  # resamples left out of the interval: said, not hidden
                cell += f" ({int(nan[c_i, i])} of {rec.replicates} undefined)"
            if rec.undefined is not None and rec.undefined[c_i, i]:
                cell = "not defined for it"
            elif rec.exempt[c_i, i]:
                cell += " exempt (invariant)"
            elif s.participants[c_i, i] and s.counted[c_i]:
                cell = (f"{KEPT} " if s.members[c_i, i] else "") + cell + f" p={_p(rec, s.p_value[c_i, i], scope)}"
            row[CRITERIA[c]] = cell
        rows.append(row)
    return pd.DataFrame(rows)


def criteria_table(rec: Recommendation, scope: str | None = None) -> pd.DataFrame:
    """Per metric (the answer first): each criterion's value with the
    scope's interval, ✔ when kept, its MCS p-value; its status; the offered
    properties it fails on this dataset's shape (the numbers table of the
    page with the grid's status, for the command line)."""
    scope = scope or rec.headline
    out = numbers_table(rec, scope)
    order = _order(rec, scope)
    out["status"] = [_status(rec, scope, i) for i in order]
    out["fails (properties)"] = [(", ".join(rec.failed[rec.metrics[i]]) or "none") if rec.metrics[i] in rec.failed
                                 else "n/a" for i in order]
    return out


def method_paragraph(rec: Recommendation) -> str:
    s = rec.settings
    a_c = s["alpha_c"][rec.headline]
    return (
        f"**Method.** Each criterion is computed on the real systems; its {s['confidence']:.0%} interval "
        f"is the point value plus the percentiles of the deviations of {rec.replicates} resamples from their median "
        "(the resamples are biased: a resample's half-splits hold fewer distinct units), every metric on the same "
        "resamples. Two "
        f"scopes: *these systems* ({_SCOPE_HOW['these_systems'].format(unit=rec.unit)}) and *new systems* "
        f"({_SCOPE_HOW['new_systems'].format(unit=rec.unit)}; Deutsch, Dror & Roth 2021). Per criterion, the Model "
        "Confidence Set (Hansen, Lunde & Nason 2011, range statistic) keeps the candidates the evidence cannot tell "
        "from the best (null hypothesis of each step: every candidate still in has the same expected value; the "
        "candidate most beaten is eliminated while the test rejects); ✔ marks them, p is each metric's MCS p-value, "
        "and a metric is eliminated only when the upper end of its p-value's 95% Monte Carlo interval is below the "
        "level (the resamples leave no doubt). "
        f"Each set is taken at alpha {s['verdict_alpha']:g} over the criteria that count (Bonferroni: "
        f"{a_c:.3g} each), so that with probability at least {1 - s['verdict_alpha']:.0%} every set "
        "holds its criterion's best at once; the answer is the metrics kept on every criterion. When no metric "
        "is, the answer is the metrics kept on the most criteria, and the trade-off says which to take if one "
        "criterion matters more; declared priorities (`datasets.<name>.priorities`) intersect the sets in their "
        "order, skipping a criterion whose set would leave nothing. Both are read off the same sets, so they add "
        "no test and keep the error control. More candidates "
        "can only widen a set; a copy of a metric changes nothing. Differences are given with their interval at "
        "the criterion's level, from the paired standard error of the resamples. Gameable metrics (a degenerate "
        "system significantly better than the median real system: gameability.csv) are never candidates; "
        "borderline ones are said. Requirements (formal properties, checked on this dataset's own shape: "
        "properties.csv of the dataset) restrict the candidates only when declared (`datasets.<name>.requirements`).")


def recommendation_markdown(rec: Recommendation, title: str, context: str, figure: str | None = None) -> str:
    """``recommendation.md``: the answer first (at most 40 words, then where
    the official metric stands), the trade-off when the criteria disagree,
    the requirements in one line, the grid (kept or not per metric and
    criterion) and the figure; then the numbers with their intervals, the
    requirements, the other scope, the papers' choices, what is left out
    and why, and the method."""
    lines = [f"# {md_escape(title)}", "", md_escape(answer_sentence(rec)), ""]
    lines += tradeoff_lines(rec)
    req = requirements_line(rec)
    if req:
        lines += [md_escape(req), ""]
    if rec.criteria:
        lines += [md_escape(f"At a glance ({SCOPE_NAMES[rec.headline]}): {KEPT} kept, {OUT} eliminated, {APART} not "
                            "judged (invariant by construction, or not defined for it); a blank: not a candidate."), ""]
        lines += [markdown_table(grid_table(rec)), ""]
        lines += if_first_lines(rec)
    if figure and rec.criteria:
        lines += [f"![criteria with intervals]({figure})", ""]
    if rec.criteria:
        used = _and([CRITERIA[c] for c in rec.criteria])
        lines += ["## The numbers", "",
                  f"Criteria that count here: {used} (higher is better for each; {SCOPE_NAMES[rec.headline]}: "
                  f"the value, its {rec.settings['confidence']:.0%} interval, {KEPT} kept, p its MCS p-value).", ""]
        lines += [markdown_table(numbers_table(rec)), ""]
    lines += ["## Details", ""]
    other = [s for s in SCOPES if s != rec.headline and s in rec.sets]
    for scope in other:
        lines += [md_escape(f"{SCOPE_NAMES[scope].capitalize()} ({_SCOPE_HOW[scope].format(unit=rec.unit)}): "
                            + _scope_answer(rec, scope) + "."), ""]
    if rec.criteria:
        lines += [md_escape(sets_line(rec)), ""]
        hs = rec.sets[rec.headline]
        decisive = [rec.criteria[c] for c in np.flatnonzero(hs.counted) if (hs.participants[c] & ~hs.members[c]).any()]
        if decisive == ["priors"] and rec.exempt[rec.criteria.index("priors")].any():
            inv = [_name(m) for m, e in zip(rec.metrics, rec.exempt[rec.criteria.index("priors")]) if e]
            lines += [md_escape(f"Robustness to class priors is the only criterion that eliminates a metric here; the "
                                f"metrics invariant to the priors by construction ({_and(inv)}) are not judged on it. "
                                "Requiring that invariance (uniform_class_change) would leave only them."), ""]
    sep = _separation_line(rec)
    if sep:
        lines += [md_escape(sep), ""]
    if rec.official is not None:
        src = f" ({rec.official_source})" if rec.official_source else ""
        lines += [md_escape(f"Official metric{src}: {_standing_text(rec.official, rec)}."), ""]
    else:
        lines += ["No official metric is configured (`datasets.<name>.official_metric`).", ""]
    for source, standings in rec.papers:
        chosen = _and([display_name(st.metric) for st in standings])
        differ = sorted({c for st in standings for c in st.eliminated_on()}, key=list(CRITERIA).index)
        lines += [md_escape(f"{source} chose {chosen} on these data; here " + "; ".join(_standing_text(st, rec)
                                                                                    for st in standings)
                            + (f" (the answers differ on {_and([CRITERIA[c] for c in differ])})" if differ else "")
                            + "."), ""]
    if rec.with_baselines is not None:
        same = set(rec.with_baselines) == set(rec.selected)
        lines += [md_escape(f"With the ranked baselines ({_and(rec.baselines)}) among the systems (a variant; the "
                            "answer is decided on the real systems): "
                            + ("the same answer." if same else
                               (_and([display_name(x) for x in rec.with_baselines], "or") or "no metric") + ".")), ""]
    from .evidence import mc_upper

    floor = float(mc_upper(1.0 / (rec.replicates + 1), rec.replicates, rec.sets[rec.headline].mc_level))
    if rec.criteria and floor >= rec.sets[rec.headline].alpha_c:
        lines += [md_escape(f"With {rec.replicates} resamples no metric can be eliminated: the smallest MCS p-value, "
                            f"1/{rec.replicates + 1}, is not below the level {rec.sets[rec.headline].alpha_c:.3g} "
                            f"beyond Monte Carlo doubt (upper end {floor:.3g}). Raise criteria_replicates (500 by "
                            "default)."), ""]
    if rec.n_systems and rec.n_systems < FEW_SYSTEMS:
        lines += [md_escape(f"Only {plural(rec.n_systems, 'real system')} {'is' if rec.n_systems == 1 else 'are'} "
                            "ranked: one swapped pair moves a tau by "
                            f"{2 / (rec.n_systems * (rec.n_systems - 1) / 2):.2f}, so the tau-based criteria are "
                            "coarse and the answer tentative."), ""]
    lines += [md_escape(context), ""]
    if rec.requirements:
        lines += ["## Requirements", ""]
        lines += [f"- **{md_escape(h)}** {md_escape(t)}" for h, t in (_requirement_line(rec, r)
                                                                      for r in rec.requirements)]
        lines += ["", "(Requirements are formal properties checked on this dataset's shape, its properties.csv; "
                      "only declared ones, `datasets.<name>.requirements`, restrict the answer.)", ""]
    not_cand = [(m, rec.excluded[m]) for m in rec.metrics if m in rec.excluded and m not in
                {g["metric"] for g in rec.gameable}]
    if not_cand:
        lines += ["**Not candidates:** " + "; ".join(f"{md_escape(_name(m))}: {md_escape(w)}" for m, w in not_cand)
                  + ".", ""]
    a_game = rec.settings["verdict_alpha"]  # the gameability test's level
    if rec.gameable:
        lines += ["**Gameable on this test set** (never candidates): "
                  + "; ".join(f"{md_escape(_name(g['metric']))}: {md_escape(_game_text(g, a_game))}" for g in rec.gameable)
                  + ".", ""]
    if rec.borderline:
        lines += ["**Borderline** (a degenerate system beats the median real system here, not significantly; not "
                  "vetoed): " + "; ".join(f"{md_escape(_name(g['metric']))}: {md_escape(_game_text(g, a_game))}"
                                          for g in rec.borderline) + ".", ""]
    if rec.undefined is not None and rec.undefined.any():  # "not defined for it" in the table: why
        from ..measures.scores.registry import not_defined

        by_why: dict[tuple[str, str], list[str]] = {}
        for c_i, c in enumerate(rec.criteria):
            for i in np.flatnonzero(rec.undefined[c_i]):
                by_why.setdefault((CRITERIA[c], not_defined(rec.metrics[i], c)), []).append(_name(rec.metrics[i]))
        lines += ["**Not defined for it:** " + "; ".join(
            f"{_and(ms)} on {crit} ({md_escape(why)})" for (crit, why), ms in by_why.items())
            + ". They are judged on the other criteria.", ""]
    if rec.left_out:
        by_reason: dict[str, list[str]] = {}
        for c, w in rec.left_out.items():
            by_reason.setdefault(w, []).append(CRITERIA.get(c, c))
        lines += ["Criteria that do not count here: " + "; ".join(f"{_and(cs)}: {md_escape(w)}"
                                                                for w, cs in by_reason.items()) + ".", ""]
    if rec.notes:
        lines += ["**Not used:** " + "; ".join(md_escape(n) for n in rec.notes) + ".", ""]
    if rec.set_aside:
        lines += [md_escape("Not counted as real systems by the gameability test, since they predict exactly what a "
                            f"degenerate system predicts: {_and(rec.set_aside)} (the criteria still rank them: they "
                            "are submitted systems)."), ""]
    lines += [md_escape(ranked_systems_line(rec)), "", method_paragraph(rec)]
    if rec.criteria:
        lines += ["", "Legend: " + "; ".join(f"{c} ({CRITERIA[c]}): "
                                             + REGISTRY[c].legend.format(power_test=rec.settings["power_test"]).replace(
                                                 " ()", "") for c in rec.criteria) + "."]
    return "\n".join(lines) + "\n"


def recommendation_html(rec: Recommendation, title: str, context: str, png: bytes | None = None) -> str:
    """``tables/recommendation.html``: the page of ``recommendation_markdown``
    for browsers (the names typeset, the grid's marks coloured, the tables'
    cells wrapping so that the page fits 1,280 px), the figure ``png``
    inside it as a data URI (a relative path does not resolve in
    Snakemake's report, which shows the page apart from the results
    folder)."""
    import base64

    from ..present.report import html_page

    inline = "data:image/png;base64," + base64.b64encode(png).decode("ascii") if png else None
    return html_page(recommendation_markdown(rec, title, context, inline), title, wrap=True)


def systems_count(rec: Recommendation) -> str:
    """The ranked systems in words, as every page counts them: ``17 real
    systems + 2 baselines`` (the baselines are ranked in the variant only)."""
    real = rec.n_systems - rec.n_synthetic
    parts = [plural(real, "real system")] + ([plural(rec.n_synthetic, "synthetic system")] if rec.n_synthetic else [])
    return " + ".join(parts + ([plural(len(rec.baselines), "baseline")] if rec.baselines else []))


def ranked_systems_line(rec: Recommendation) -> str:
    """Which systems the verdict ranks (real, synthetic) and which only its variant (the baselines)."""
    return (f"Ranked systems: {systems_count(rec)}"
            + (f"; the baselines ({_and(rec.baselines)}) are ranked in the variant only." if rec.baselines else
               "."))


def recommendation_long(rec: Recommendation) -> pd.DataFrame:
    """``recommendation.csv``: one row per scope, criterion and metric: the
    point value, the scope's interval, ``participant`` (judged on the
    criterion), ``in_set`` (kept: ``mcs_p_upper >= level``), ``mcs_p`` (its
    MCS p-value) and ``mcs_p_upper`` (the upper end of its 95 % Monte Carlo
    interval: an elimination must not be a matter of the resamples drawn),
    ``level`` (the criterion's level, verdict_alpha over the
    criteria that count), ``replicates`` (the resamples: the p-values'
    resolution is 1 / (replicates + 1)), ``answer`` (in the scope's answer:
    kept on every criterion, or when none is, on the most, or under the
    declared priorities), ``kept_on`` (the criteria that count on which the
    metric is not eliminated, of ``criteria_counted``; -1 for a metric that
    is not a candidate) and ``recommended`` (in the headline answer)."""
    from .tradeoff import kept_count

    rows = []
    for scope in [rec.headline] + [s for s in SCOPES if s != rec.headline and s in rec.sets]:
        s = rec.sets[scope]
        d = rec.decision(scope)
        n_kept = kept_count(s)
        for c_i, c in enumerate(rec.criteria):
            for i, mid in enumerate(rec.metrics):
                part = bool(s.participants[c_i, i])
                rows.append({"scope": scope, "criterion": c, "metric": mid, "value": rec.value[c_i, i],
                             "low": rec.low[scope][c_i, i], "high": rec.high[scope][c_i, i], "better": "higher",
                             "n_undefined": int(rec.n_undefined[scope][c_i, i]),
                             "candidate": bool(rec.candidate[i]), "admissible": bool(rec.admissible[i]),
                             "exempt": bool(rec.exempt[c_i, i]), "participant": part,
                             "counted": bool(s.counted[c_i]), "in_set": bool(s.members[c_i, i]),
                             "mcs_p": float(s.p_value[c_i, i]) if part else np.nan,
                             "mcs_p_upper": float(s.p_upper[c_i, i]) if part and s.p_upper is not None else np.nan,
                             "level": s.alpha_c,
                             "replicates": rec.replicates,
                             "answer": bool(d.answer[i]), "kept_on": int(n_kept[i]),
                             "criteria_counted": d.c, "recommended": mid in rec.selected,
                             "not_defined": bool(rec.undefined is not None and rec.undefined[c_i, i])})
    return pd.DataFrame(rows, columns=["scope", "criterion", "metric", "value", "low", "high", "better",
                                       "n_undefined", "candidate", "admissible", "exempt", "participant", "counted",
                                       "in_set", "mcs_p", "mcs_p_upper", "level", "replicates", "answer",
                                       "kept_on", "criteria_counted", "recommended", "not_defined"])


def _standing_json(st: Standing | None):
    if st is None:
        return None
    return {"metric": st.metric, "status": st.status, "why": st.why or None,
            "criteria": {c: {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in x.items()}
                         for c, x in st.criteria.items()}}


def recommendation_json(rec: Recommendation, **extra) -> str:
    """``recommendation.json`` (``extra``: more keys, e.g. a warning on the
    resampling to repeat on the summary page)."""
    hs = rec.sets[rec.headline]
    evidence = [rec.criteria[c] for c in np.flatnonzero(hs.counted)
                if (hs.participants[c] & ~hs.members[c]).any()]
    d = rec.decision()
    out = {
        "recommended": list(rec.selected),
        "answer": answer_sentence(rec),
        "headline": headline_sentence(rec),
        # how the answer was reached: all (kept on every criterion), k_of_c (none is: kept on the most, k of C),
        # priorities (the declared priorities' sequential intersection), none
        "answer_kind": d.kind,
        "kept_on": {"k": d.k, "of": d.c},
        "priorities": list(rec.priorities),
        "priorities_applied": list(d.sequential.applied) if d.sequential else None,
        "priorities_skipped": list(d.sequential.skipped) if d.sequential else None,
        "priorities_not_counted": list(d.sequential.not_counted) if d.sequential else None,
        "tradeoff": [{"criteria": cs, "answer": ms} for cs, ms in rec.tradeoff()],
        "if_first": rec.if_first(),
        "headline_scope": rec.headline,
        "separable": rec.separable,
        "official_metric": None if rec.official is None else {**_standing_json(rec.official),
                                                              "source": rec.official_source or None},
        "requirements": [r.id for r in rec.requirements if r.declared],
        "requirements_offered": {r.id: {"fails": r.fails, "answer_if_required": r.answer, "declared": r.declared,
                                        **({"not_checked": r.unchecked} if r.unchecked else {})}
                                 for r in rec.requirements},
        "evidence": evidence,
        "sets": {scope: {rec.criteria[c]: [rec.metrics[i] for i in np.flatnonzero(s.members[c])]
                         for c in np.flatnonzero(s.counted)} for scope, s in rec.sets.items()},
        "answers": {scope: rec.answer(scope) for scope in rec.sets},
        "alpha_per_criterion": {scope: s.alpha_c for scope, s in rec.sets.items()},
        "papers": [{"source": src, "metrics": [_standing_json(st) for st in sts]} for src, sts in rec.papers],
        "with_baselines": rec.with_baselines,
        "baselines_ranked_in_variant": list(rec.baselines),
        "separation": None if rec.separation is None else {k: (float(v) if isinstance(v, (float, np.floating))
                                                               and np.isfinite(v) else (None if isinstance(
                                                                   v, (float, np.floating)) else v))
                                                           for k, v in rec.separation.items()},
        "gameable": [{"metric": g["metric"], "degenerate": g["degenerate"], "score": float(g["score"]),
                      "median_real": float(g["median_real"]), "p_holm": _finite(g.get("p_holm"))}
                     for g in rec.gameable],
        "borderline": [{"metric": g["metric"], "degenerate": g["degenerate"], "score": float(g["score"]),
                        "median_real": float(g["median_real"]), "p_holm": _finite(g.get("p_holm"))}
                       for g in rec.borderline],
        "excluded": rec.excluded,
        "failed_properties": {m: f for m, f in rec.failed.items() if f},
        "criteria": list(rec.criteria),
        "criteria_left_out": rec.left_out,
        "n_systems": rec.n_systems,
        "n_synthetic": rec.n_synthetic,
        "systems": systems_count(rec),
        "n_units": rec.n_units,
        "unit": rec.unit,
        "settings": rec.settings,
        **extra,
    }
    return json.dumps(out, indent=2, allow_nan=False) + "\n"


def _finite(x):
    return float(x) if x is not None and np.isfinite(x) else None


def recommendation_figure(rec: Recommendation, name: str):
    """The criteria figure: one panel per criterion, every metric's value
    and its interval (headline scope), the metrics kept filled, the answer
    in bold."""
    from ..present.plots import criteria_plot
    from ..present.figure_files import message_figure

    if not rec.criteria:
        return message_figure(f"{name}: no criterion counts on this dataset", answer_sentence(rec))
    conf = rec.settings["confidence"]
    long = recommendation_long(rec)
    long = long[long["scope"] == rec.headline].copy()
    long["candidate"] = long["admissible"]  # a metric failing a declared requirement is greyed too
    level = 100 * (1 - rec.sets[rec.headline].alpha_c)
    from ..present.notation import mathtext

    d = rec.decision()
    how = {"k_of_c": f", each kept on {d.k} of {d.c}", "priorities": " under the declared priorities"}.get(d.kind, "")
    return criteria_plot(long, {m: mathtext(m) for m in rec.metrics},
                         f"{name}: the criteria with their {conf:.0%} intervals ({SCOPE_NAMES[rec.headline]}; filled: "
                         f"kept in the criterion's {level:.4g}% confidence set; highlighted: the answer{how})",
                         rec.selected, CRITERIA)


def dataset_context(ds, spec) -> str:
    """The sentence under the answer: the kind of task, its classes and
    whether they are imbalanced."""
    if spec.span_task == "si":
        return f"{spec.name}: span identification."
    counts = np.bincount(ds.gold, minlength=ds.k)
    noun = "spans" if spec.span_task == "tc" else (spec.unit_names or {}).get("items", "items")
    return (f"{spec.name}: {'technique ' if spec.span_task == 'tc' else ''}classification, {ds.k} "
            f"{'ordered' if spec.ordinal else 'unordered'} classes, "
            + ("imbalanced" if is_imbalanced(counts) else "not imbalanced")
            + f" (largest class {counts.max():,} {noun}, smallest {counts[counts > 0].min():,}; imbalanced "
            f"means a ratio of {IMBALANCE_RATIO:g} or more).")


