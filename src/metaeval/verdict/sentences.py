"""The recommendation in words: the answer first (at most ``MAX_WORDS``
words), the trade-off when the criteria disagree, the requirements, each
metric's standing; plain text that reads as Markdown."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..settings import default_of
from ..present.tables import format_p, md_escape, plural
from .recommendation import (CRITERIA, FEW_SYSTEMS, PRIORS_PROPERTY, SCOPE_NAMES, Recommendation, Requirement,
                             Standing, _and, _name, display_name)
from .evidence import (SCOPES)


__all__ = ["answer_sentence", "headline_sentence", "answer_notes", "tradeoff_lines", "requirements_line",
           "sets_line", "MAX_WORDS", "if_first_lines", "tradeoff_k_of_c"]


def _num(x: float) -> str:
    return f"{x:.3f}" if np.isfinite(x) else "n/a"


# the longest first sentence (words): the answer must be read at a glance, on a page and on the front page
MAX_WORDS = 40


def _words(text: str) -> int:
    return len(text.split())


def _p(rec: Recommendation, p: float, scope: str | None = None) -> str:
    """An MCS p-value, by the project's rule (``tables.format_p``), never
    rounded onto or across the criterion's level nor the family's."""
    s = rec.sets[scope or rec.headline]
    return format_p(p, (s.alpha_c, s.alpha))


def _names(mids: Sequence[str], word: str = "and") -> str:
    return _and([_name(m) for m in mids], word)


def _loss(st: Standing, crit: str) -> str:
    """``macro-F1 better by 0.176 [0.114, 0.239]``: who beats a metric on a
    criterion that eliminates it, by how much, with the interval at the
    criterion's level."""
    x = st.criteria[crit]
    return f"{_name(x['best'])} better by {_num(x['d'])} [{_num(x['low'])}, {_num(x['high'])}]"


def _official_clause(rec: Recommendation) -> str:
    """Where the official metric stands in the headline scope, in a few words."""
    o = rec.official
    if o is None:
        return ""
    name = display_name(o.metric)
    if o.status == "not computed":
        return f"the official {name} is not computed on this dataset ({o.why})"
    if o.status == "vetoed":
        return f"the official {name} is vetoed as gameable"
    if o.status == "excluded":
        return f"the official {name} cannot be a candidate ({o.why})"
    border = " (borderline gameable)" if any(g["metric"] == o.metric for g in rec.borderline) else ""
    out = [(c, x) for c, x in o.criteria.items() if not x["kept"]]
    if o.status == "answer":
        if rec.selected == [o.metric]:
            return "it is the official metric" + border
        if out:  # in an answer of k of C, or the priorities' one
            return (f"the official {name} is in the answer, not kept on {_and([CRITERIA[c] for c, _ in out])}"
                    + border)
        return f"the official {name} is kept too" + border
    if not out:
        return f"the official {name} is not in the answer"
    c, x = min(out, key=lambda cx: cx[1]["p"])
    more = f" and {len(out) - 1} more" if len(out) > 1 else ""
    return f"the official {name} is eliminated on {CRITERIA[c]}{more} ({_loss(o, c)}){border}"


def _scope_answer(rec: Recommendation, scope: str) -> str:
    """The answer of a scope other than the headline's, as a clause."""
    s = rec.sets[scope]
    d = rec.decision(scope)
    ans = rec.answer(scope)
    n_c = int(s.admissible.sum())
    where = SCOPE_NAMES[scope]
    if n_c == 0 and rec.admissible.any():  # every candidate ill-defined in this scope
        return (f"no metric can be judged for {where}: its criteria are undefined in more than "
                f"{rec.settings['max_undefined']:.0%} of the resamples (too few distinct "
                "systems or units drawn)")
    if d.c == 0:
        return (f"no criterion separates the {plural(n_c, 'candidate')} for {where}" if n_c > 1 else
                f"{_name(ans[0]) if ans else 'no metric'} is the only candidate")
    if d.kind == "k_of_c":
        return (f"no metric is kept on {_all_c(d.c)} for {where}; kept on {d.k}: "
                + (_names(ans) if len(ans) <= 8 else plural(len(ans), "metric")))
    if d.kind == "priorities":
        return f"under the declared priorities, {_names(ans, 'or')} for {where}"
    if len(ans) == 1:
        return f"{display_name(ans[0])} alone for {where}"
    if not s.separable:
        return f"the evidence does not separate the {plural(len(ans), 'candidate')} for {where}"
    return (f"the evidence keeps {len(ans)} of the {plural(n_c, 'candidate')} on every criterion for {where}"
            + (f": {_names(ans)}" if len(ans) <= 8 else ""))


def sets_line(rec: Recommendation, scope: str | None = None) -> str:
    """Who each criterion keeps, and the candidates kept on all criteria but one."""
    scope = scope or rec.headline
    s = rec.sets[scope]
    parts = []
    for c in np.flatnonzero(s.counted):
        kept = [rec.metrics[i] for i in np.flatnonzero(s.members[c])]
        n_in = int(s.participants[c].sum())
        parts.append(f"{CRITERIA[rec.criteria[c]]}: " + (_and([_name(x) for x in kept]) if len(kept) <= 4 else
                                                         f"{len(kept)} of {n_in}"))
    return f"Kept per criterion ({SCOPE_NAMES[scope]}): " + "; ".join(parts) + "."


def _all_c(c: int) -> str:
    """``both criteria``, ``all 5 criteria``."""
    return "both criteria" if c == 2 else f"all {c} criteria"


def _list(mids: Sequence[str], most: int = 4) -> str:
    """``A, B or C`` for a few metrics, ``one of 7 (A, B, ...)`` beyond ``most``."""
    return _names(mids, "or") if len(mids) <= most else f"one of {len(mids)} (listed below)"


def _first_sentence(rec: Recommendation) -> list[str]:
    """The candidates for the first sentence, the fullest first (``answer_sentence`` takes the first that fits)."""
    if not rec.criteria:
        return ["No metric can be recommended: none of the configured criteria counts on this dataset (the "
                "criteria that do not count, and why, are below)"]
    if not rec.candidate.any():
        return ["No metric can be recommended: every metric is excluded (below)"]
    if not rec.admissible.any():
        return ["No metric can be recommended: no candidate meets the declared requirements (below)"]
    s, d = rec.sets[rec.headline], rec.decision()
    ans = rec.answer()
    n_c = int(s.admissible.sum())
    counted = [rec.criteria[c] for c in np.flatnonzero(s.counted)]
    if n_c == 0:
        return [_scope_answer(rec, rec.headline)]
    if d.kind == "none":
        return ["No metric can be recommended (below)"]
    if d.c == 0:
        return [f"No criterion separates the {plural(n_c, 'candidate')}: report any of them" if n_c > 1 else
                f"Report {_name(ans[0])}: the only candidate"]
    if d.kind == "k_of_c":
        trade = rec.tradeoff()
        in_best = all(m in ans for _, metrics in trade for m in metrics)
        each = f" (each kept on {d.k} of {d.c})" if in_best else ""
        def clauses(most):
            parts = [f"{_list(metrics, most)} if {_and([CRITERIA[c] for c in cs], 'or')} "
                     + ("matters more" if i == 0 else "does") for i, (cs, metrics) in enumerate(trade)]
            return ", ".join(parts[:-1]) + ", or " + parts[-1] if len(parts) > 1 else parts[0]
        head = f"No metric is kept on {_all_c(d.c)}; report "
        if len(trade) >= 2:
            return [head + clauses(most) + each for most in (8, 4, 2, 1)] + [head + clauses(1)]
        # one criterion eliminates every metric kept on the most: they are the answer, and it the price
        cs, metrics = trade[0] if trade else ([], [])
        base = f"No metric is kept on {_all_c(d.c)}; report {_list(ans)} (kept on {d.k})"
        if not trade:
            return [base]
        return [f"No metric is kept on {_all_c(d.c)}; report {_list(ans, most)} (kept on {d.k}), or "
                f"{_list(metrics, most)} if {_and([CRITERIA[c] for c in cs], 'or')} matters more"
                for most in (8, 4, 2)] + [base]
    if d.kind == "priorities":
        first = d.sequential.order[0]
        skipped = list(d.sequential.skipped)
        rest = (f"; {_and([CRITERIA[c] for c in skipped])} skipped (would leave nothing)" if skipped else "")
        sep = " (the evidence does not separate them)" if len(ans) > 1 else ""
        return [f"Under the declared priorities ({CRITERIA[first]} first), report {_list(ans, most)}{sep}{rest}"
                for most in (8, 4)] + [
                f"Under the declared priorities ({CRITERIA[first]} first), report {_list(ans)}{sep}",
                f"Under the declared priorities, report {_list(ans, 2)}"]
    # the metrics kept on every criterion
    crit = _and([CRITERIA[c] for c in counted])
    if len(ans) == 1:
        how = "the only candidate kept on every criterion" if n_c > 1 else "the only candidate"
        return [f"Report {display_name(ans[0])}: {how} ({crit})", f"Report {display_name(ans[0])}: {how}"]
    if not s.separable:
        if len(ans) <= 4:
            return [f"Report {_names(ans, 'or')}: the evidence does not separate them (each is kept on every "
                    "criterion)"]
        return [f"The evidence does not separate the {plural(len(ans), 'candidate')}: every one is kept on every "
                "criterion (report any; the table lists them)"]
    if len(ans) <= 4:
        return [f"Report {_names(ans, 'or')}: each is kept on every criterion ({crit}), and the evidence does not "
                "separate them", f"Report {_names(ans, 'or')}: each is kept on every criterion, and the evidence "
                "does not separate them"]
    out = [i for i in np.flatnonzero(s.admissible & ~d.answer)]
    by: dict[tuple, list[str]] = {}
    for i in out:  # metrics eliminated on the same criteria together
        where_i = tuple(CRITERIA[rec.criteria[c]] for c in np.flatnonzero(s.counted)
                        if s.participants[c, i] and not s.members[c, i])
        by.setdefault(where_i, []).append(_name(rec.metrics[i]))
    lost = "; ".join(f"{_and(names)} on {_and(list(cr))}" for cr, names in by.items())
    return [f"Report any of {_names(ans, 'or')}: the evidence keeps these {len(ans)} of the "
            f"{plural(n_c, 'candidate')} on every criterion and eliminates only {lost}",
            f"Report any of {_names(ans, 'or')}: the evidence keeps these {len(ans)} of the "
            f"{plural(n_c, 'candidate')} on every criterion",
            f"The evidence keeps {len(ans)} of the {plural(n_c, 'candidate')} on every criterion (the table lists "
            "them)"]


def headline_sentence(rec: Recommendation) -> str:
    """The first sentence, at most ``MAX_WORDS`` words: the metrics to
    report (or the set) and, when no metric is kept on every criterion, the
    trade-off between the criteria (``tradeoff``)."""
    settings = getattr(rec, "settings", {})
    declared = list(settings.get("requirements", ()))
    options = _first_sentence(rec)
    if settings.get("headline", default_of("verdict_scope")) != SCOPES[0]:  # the scope chosen to head the page: said
        options = [f"For {SCOPE_NAMES[rec.headline]}: " + o[0].lower() + o[1:] for o in options]
    if declared and rec.admissible.any():  # the requirement narrowed the candidates before the evidence: said
        lead = (f"Among the metrics that meet the declared requirement{'s' if len(declared) > 1 else ''} "
                f"({_and(declared)}), ")
        options = [lead + o[0].lower() + o[1:] for o in options]
    # the fullest that fits, else the shortest (a requirement or a scope is never dropped to fit)
    text = next((o for o in options if _words(o) <= MAX_WORDS), min(options, key=_words))
    return text[0].upper() + text[1:] + "."


def answer_notes(rec: Recommendation) -> list[str]:
    """The sentences after the first: where the official metric stands, the
    other scope's answer when it differs, and a caution when few systems are
    ranked."""
    out = []
    off = _official_clause(rec)
    if off:
        out.append(off[0].upper() + off[1:] + ".")
    other = [sc for sc in SCOPES if sc != rec.headline and sc in rec.sets]
    if other and set(rec.answer(other[0])) != set(rec.selected):
        o = rec.sets[other[0]]
        ans = rec.answer(other[0])
        n_o = int(o.admissible.sum())
        d = rec.decision(other[0])
        short = ("not judged (ill-defined: too few distinct systems drawn)" if n_o == 0 else
                 f"all {len(ans)} kept" if ans and not o.separable else
                 f"{len(ans)} of {n_o} kept on {d.k} of {d.c} criteria" if d.kind == "k_of_c" else
                 f"{len(ans)} of {n_o} kept" if len(ans) > 1 else (display_name(ans[0]) if ans else "none kept"))
        out.append(f"For new systems: {short}." if other[0] == "new_systems" else
                   f"For {SCOPE_NAMES[other[0]]}: {short}.")
    if rec.n_systems and rec.n_systems < FEW_SYSTEMS:
        out.append(f"Tentative: {plural(rec.n_systems, 'real system')}.")
    return out


def answer_sentence(rec: Recommendation) -> str:
    """The answer as a paragraph: the first sentence (``headline_sentence``,
    at most 40 words), then ``answer_notes``."""
    return " ".join([headline_sentence(rec)] + answer_notes(rec))


def tradeoff_lines(rec: Recommendation) -> list[str]:
    """The trade-off, right under the answer: when no metric is kept on
    every criterion, the metrics kept on the most, each with the criteria
    that eliminate it and who beats it there (the difference, with its
    interval at the criterion's level); which answer each priority gives;
    how to declare one.  With declared priorities, the criteria applied and
    skipped.  Markdown lines; none when the answer needs no trade-off."""
    d = rec.decision()
    if d.kind not in ("k_of_c", "priorities") and not (rec.priorities and d.kind == "all"):
        return []
    if d.kind == "all":
        s = rec.sets[rec.headline]
        counted = {rec.criteria[c] for c in np.flatnonzero(s.counted)}
        ignored = [c for c in rec.priorities if c not in counted]
        applied = [c for c in rec.priorities if c in counted]
        text = (f"The declared priorities ({_and([CRITERIA.get(c, c) for c in applied])}) change nothing: the metrics "
                "kept on every criterion are the answer in every order." if applied else "")
        if ignored:
            text += (" " if text else "") + f"Declared but not counted here: {_and([CRITERIA.get(c, c) for c in ignored])}."
        return [md_escape(text), ""]
    lines = []
    best = [m for m, x in zip(rec.metrics, tradeoff_k_of_c(rec)) if x]
    lines += ["**The trade-off.** " + md_escape(f"The metrics kept on {d.k} of the {d.c} criteria, and where each "
                                                 "is eliminated:")]
    for m in best[:8]:
        st = rec.standings.get(m)
        lost = [c for c, x in (st.criteria.items() if st else []) if not x["kept"]]
        lines.append("- " + md_escape(f"{_name(m)}: not {_and([f'{CRITERIA[c]} ({_loss(st, c)})' for c in lost])}"))
    if len(best) > 8:
        lines.append("- " + md_escape(f"and {len(best) - 8} more (the table below)"))
    lines.append("")
    if d.kind == "priorities":
        seq = d.sequential
        declared = [c for c in rec.priorities if c not in seq.not_counted]
        text = (f"Under the declared priorities ({_and([CRITERIA[c] for c in declared])}, then the table's order): "
                f"{_names(rec.answer(), 'or')}" + (" (the evidence does not separate them)" if len(rec.answer()) > 1
                                                    else "")
                + ". Applied in turn: " + _and([CRITERIA[c] for c in seq.applied])
                + (f"; skipped, since its set would leave nothing: {_and([CRITERIA[c] for c in seq.skipped])}"
                   if seq.skipped else "")
                + (f"; declared but not counted here: {_and([CRITERIA.get(c, c) for c in seq.not_counted])}"
                   if seq.not_counted else "") + ".")
        return lines + [md_escape(text), ""]
    trade = rec.tradeoff()
    if trade:
        lines.append(md_escape(" ".join(f"If {_and([CRITERIA[c] for c in cs], 'or')} matters more: "
                                        f"{_names(ms, 'or')}." for cs, ms in trade)))
        lines.append("")
    firsts = rec.if_first()
    example = trade[0][0][0] if trade else next(iter(firsts), "stability")
    lines += [md_escape(f"To decide, declare which criterion matters most for this task: priorities: [{example}] in "
                        "the dataset's block of the config (library: priorities=[...]; command line: --priority "
                        f"{example}). Criteria: {', '.join(rec.criteria)}."), ""]
    return lines


def if_first_lines(rec: Recommendation) -> list[str]:
    """What each criterion put first gives (the others then in the table's
    order), one short line each: shown when no priorities are declared and
    no metric is kept on every criterion."""
    if rec.priorities or rec.decision().kind != "k_of_c":
        return []
    firsts = rec.if_first()
    if len(firsts) < 2:
        return []
    return ([md_escape("Each criterion put first (the others then in the table's order), as priorities would "
                       "declare it:")]
            + ["- " + md_escape(f"{c} first: {_names(ms, 'or')}") for c, ms in firsts.items()] + [""])


def tradeoff_k_of_c(rec: Recommendation, scope: str | None = None) -> np.ndarray:
    """(M,): the metrics kept on the most criteria of a scope (``tradeoff.k_of_c``)."""
    from .tradeoff import k_of_c

    return k_of_c(rec.sets[scope or rec.headline])[0]


def requirements_line(rec: Recommendation) -> str:
    """The requirements in one line: which are declared, and how many of
    those offered would change the answer (the details are further down)."""
    if not rec.requirements:
        return ""
    declared = [r.id for r in rec.requirements if r.declared]
    change = [r.id for r in rec.requirements if not r.declared and set(r.answer) != set(rec.selected)
              and [x for x in list(r.fails) + list(r.unchecked) if x in rec.metrics
                   and rec.candidate[rec.metrics.index(x)]]]
    head = (f"Requirements: {_and(declared)} declared (the answer meets {'it' if len(declared) == 1 else 'them'})"
            if declared else "Requirements: none declared")
    n_off = len(rec.requirements) - len(declared)
    if not n_off:
        return head + "."
    which = ("it" if n_off == 1 else "both" if n_off == 2 else f"all {n_off}") if len(change) == n_off else \
        f"{len(change)} of the {n_off}"
    return (head + (f"; {which} offered would change the answer ({_and(change)}): see Requirements below."
                    if change else "; declaring any of those offered would not change the answer (Requirements "
                                   "below)."))


def _requirement_line(rec: Recommendation, r: Requirement) -> tuple[str, str]:
    """(the requirement's name, what holds it and the answer if required)."""
    from ..measures.properties import PROPERTIES

    p = PROPERTIES[r.id]
    what = "invariance to class priors: " if r.id == PRIORS_PROPERTY else ""
    head = f"{what}{p.name}"
    fails = [display_name(x) for x in r.fails]
    body = (f"({r.id}; {p.source}; {'declared' if r.declared else 'not declared'}) "
            + (f"fails for {_and(fails)}" if fails else "every metric checked holds it" if r.unchecked
               else "every metric holds it")
            + (f"; not checked for {_and([display_name(x) for x in r.unchecked])} (the properties are of confusion "
               f"matrices), so requiring it leaves {'them' if len(r.unchecked) > 1 else 'it'} out"
               if r.unchecked else ""))
    if r.declared:
        tail = "the answer above meets it"
    elif not [x for x in list(r.fails) + list(r.unchecked) if rec.candidate[rec.metrics.index(x)]]:
        tail = "requiring it changes nothing" + (" (no candidate fails it)" if r.fails else "")
    elif set(r.answer) == set(rec.selected):
        tail = "if required, the same answer" + ("" if r.answer else " (no metric)")
    else:  # the sets recomputed among the metrics that meet it: the best among them, not the best of all
        n_meet = int(sum(rec.admissible[rec.metrics.index(x)] for x in r.holds))
        tail = (f"if required (the sets recomputed among the {plural(n_meet, 'candidate')} that "
                f"{'meets' if n_meet == 1 else 'meet'} it): "
                + (_and([display_name(x) for x in r.answer], "or") or "no metric"))
    return head, f"{body}; {tail}."


def _standing_text(st: Standing, rec: Recommendation | None = None) -> str:
    name = display_name(st.metric)
    if st.status in ("not computed", "vetoed", "excluded"):
        return f"{name} is {st.status}" + (f" ({st.why})" if st.why else "")
    out = [f"{CRITERIA[c]} ({_loss(st, c)}, p = {_p(rec, x['p']) if rec else format_p(x['p'])})"
           for c, x in st.criteria.items() if not x["kept"]]
    if not out:
        return f"{name} is kept on every criterion"
    return ((f"{name} is in the answer, " if st.status == "answer" else f"{name} is ")
            + f"eliminated on {_and(out)} (each difference with its interval at the criterion's level, "
            "1 - alpha / C)")


def _about(n: float) -> str:
    """A number to two significant figures (an extrapolation is no finer)."""
    if n < 100:
        return f"{n:,.0f}"
    k = 10 ** (len(str(int(n))) - 2)
    return f"{int(round(n / k) * k):,}"


def _separation_line(rec: Recommendation) -> str | None:
    s = rec.separation
    if not s:
        return None
    if s["d"] == 0:  # (two metrics whose criterion values coincide: nothing to extrapolate)
        return (f"The two closest members of the answer, {_name(s['better'])} and {_name(s['worse'])}, have the same "
                f"value on {CRITERIA[s['criterion']]}: no number of test {rec.unit} or of systems would separate "
                "them.")
    parts = []
    n = s.get("units_needed")
    if n is not None:
        how = (f"the paired standard error shrinks as n^-{s['exponent']:.2f} here, measured on a random half of "
               f"the {rec.unit}" if s.get("exponent_measured") else "the paired standard error taken to shrink as "
               "one over the square root of n, not measured here")
        if np.isfinite(n):
            parts.append(f"at about {_about(n)} test {rec.unit} with these systems ({how})")
        else:
            parts.append(f"with no number of test {rec.unit} ({how})")
    if s.get("systems_needed") is not None:
        m = s["systems_needed"]
        parts.append(f"with about {_about(m)} systems at this test-set size (an upper estimate: the systems' part of "
                     "the variance taken to shrink as 1/S)" if np.isfinite(m) else
                     "with no number of systems at this test-set size (the test set's own noise is too large)")
    return (f"The two closest members of the answer, {_name(s['better'])} and {_name(s['worse'])}, differ by "
            f"{_num(s['d'])} on {CRITERIA[s['criterion']]} (t = {s['t']:.2f}, critical value {s['critical']:.2f}); "
            "that difference, if it held, would separate them " + ", or ".join(parts) + ".")


