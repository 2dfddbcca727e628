"""A metric's name as people read it: typeset in each output format.

The registry gives every metric an ASCII ``name`` (``R^M``, ``alpha^NOM``:
what a CSV cell or a log line holds) and a LaTeX one (``latex``:
``$R^M$``, ``$\\alpha^{NOM}$``).  Pages and figures show the typeset form,
made here from ``latex`` once for every format:

* ``latex``: abbreviations of two letters or more set upright
  (``\\mathrm{MAE}``: LaTeX would set M, A and E as three italic variables);
  for LaTeX tables;
* ``mathtext``: the same string, for matplotlib's mathtext (figures);
* ``html``: ``R<sup>M</sup>``, Greek and script letters as Unicode
  (``α``, ``κ``, ``𝓕``, ``𝔽``), single letters in italics; for HTML pages
  and the Markdown files (CommonMark takes inline HTML; GitHub shows it);
* ``unicode``: plain text with Unicode super- and subscripts where every
  character has one (``Rᴹ``, ``κₗᵢₙ``), else ``^``/``_`` (``MAE^μ``); for
  terminals.

Ids stay ASCII everywhere (``macro_recall``).  Names of metrics that have
another common name carry it in pages (``R^M (balanced accuracy)``:
``long=True``).
"""

from __future__ import annotations

import html as _html
import re

__all__ = ["latex", "mathtext", "html", "unicode", "is_mathtext", "mark", "html_tags", "typeset_html",
           "typeset_markdown", "plain_markdown", "typeset_latex", "typeset_unicode"]

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "kappa": "κ", "mu": "μ", "tau": "τ",
          "rho": "ρ", "sigma": "σ", "phi": "φ", "chi": "χ", "omega": "ω", "pi": "π", "lambda": "λ"}
_SCRIPT = {"F": "𝓕", "A": "𝓐", "C": "𝓒", "R": "𝓡", "P": "𝓟", "M": "𝓜"}
_DOUBLE = {"F": "𝔽", "R": "ℝ", "N": "ℕ", "P": "ℙ"}
_SUP = dict(zip("0123456789+-=()ABDEGHIJKLMNOPRTUVWabcdefghijklmnoprstuvwxyzβγδθιφχ",
                "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵝᵞᵟᶿᶥᵠᵡ"))
_SUB = dict(zip("0123456789+-=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ"))


def _metric(mid):
    from ..measures import labels as M

    return M.get(mid) if isinstance(mid, str) else mid


def _source(mid) -> str:
    """The metric's LaTeX (``latex``), or its name when it has none."""
    m = _metric(mid)
    return getattr(m, "latex", None) or m.name


def _upright(math: str) -> str:
    """Runs of two letters or more in a maths string set upright
    (``\\mathrm``), commands (``\\alpha``) and their arguments left alone."""
    out, i = [], 0
    while i < len(math):
        if math[i] == "\\":  # a command and, for a font command, its braced argument
            j = i + 1
            while j < len(math) and math[j].isalpha():
                j += 1
            if math[i + 1:j] in ("mathcal", "mathbb", "mathrm", "mathit", "mathbf") and j < len(math) \
                    and math[j] == "{":
                j = math.index("}", j) + 1
            out.append(math[i:j])
            i = j
            continue
        m = re.match(r"[A-Za-z]{2,}", math[i:])
        if m:
            out.append(r"\mathrm{" + m.group(0) + "}")
            i += len(m.group(0))
            continue
        out.append(math[i])
        i += 1
    return "".join(out)


def _pieces(source: str):
    """(is_math, text) pieces of a string with ``$...$`` parts."""
    parts = source.split("$")
    return [(k % 2 == 1, p) for k, p in enumerate(parts) if p]


def latex(mid) -> str:
    """The metric's name for LaTeX (maths in ``$...$``, abbreviations upright).

    >>> latex("mae_micro"), latex("accuracy"), latex("macro_f2")
    ('$\\\\mathrm{MAE}^\\\\mu$', 'Acc', 'macro-$F_2$')
    """
    return "".join(f"${_upright(p)}$" if is_math else p for is_math, p in _pieces(_source(mid)))


def mathtext(mid) -> str:
    """The metric's name for a matplotlib figure (mathtext: the same maths
    as ``latex``).  Only these strings are drawn as maths
    (``is_mathtext``): a system's name with a ``$`` is drawn as written."""
    s = latex(mid)
    _MATHTEXT.add(s)
    return s


_MATHTEXT: set[str] = set()


def is_mathtext(text: str) -> bool:
    """Whether ``text`` was made with ``mathtext`` or ``mark`` (drawn as maths)."""
    return text in _MATHTEXT


def mark(text: str) -> str:
    """``text``, which holds metric names made by ``mathtext`` (a title such
    as ``"$R^M$ (higher is better)"``), to be drawn with its maths."""
    _MATHTEXT.add(text)
    return text


def _group(s: str, i: int) -> tuple[str, int]:
    """The argument at ``s[i]``: a braced group or one token (``\\mu`` or a character)."""
    if s[i] == "{":
        depth, j = 1, i + 1
        while depth:
            depth += {"{": 1, "}": -1}.get(s[j], 0)
            j += 1
        return s[i + 1:j - 1], j
    if s[i] == "\\":
        j = i + 1
        while j < len(s) and s[j].isalpha():
            j += 1
        return s[i:j], j
    return s[i], i + 1


_FONTS = ("mathcal", "mathbb", "mathrm", "mathit", "mathbf")


def _tokens(s: str):
    """The tokens of a maths string: ("script", "^" or "_", argument),
    ("font", command, argument), ("command", name) and ("text", a run of
    letters or one other character); braces only group."""
    i = 0
    while i < len(s):
        c = s[i]
        if c in "^_":
            arg, i = _group(s, i + 1)
            yield "script", c, arg
        elif c == "\\":
            j = i + 1
            while j < len(s) and s[j].isalpha():
                j += 1
            cmd = s[i + 1:j]
            if cmd in _FONTS:
                arg, j = _group(s, j)
                yield "font", cmd, arg
            else:
                yield "command", cmd, ""
            i = j
        elif c in "{}":
            i += 1
        else:
            m = re.match(r"[A-Za-z]+", s[i:])
            w = m.group(0) if m else c
            yield "text", w, ""
            i += len(w)


def _letters(cmd: str, arg: str) -> str:
    """A font command's argument in Unicode (script and double-struck letters)."""
    table = {"mathcal": _SCRIPT, "mathbb": _DOUBLE}.get(cmd, {})
    return "".join(table.get(ch, ch) for ch in arg)


def _math_html(s: str) -> str:
    out = []
    for kind, a, arg in _tokens(s):
        if kind == "script":
            tag = "sup" if a == "^" else "sub"
            out.append(f"<{tag}>{_math_html(arg)}</{tag}>")
        elif kind == "font":
            out.append(_html.escape(_letters(a, arg)))
        elif kind == "command":
            out.append(_GREEK.get(a, _html.escape(a)))
        else:
            out.append(f"<i>{a}</i>" if len(a) == 1 and a.isalpha() else _html.escape(a))
    return "".join(out)


def html(mid, long: bool = False) -> str:
    """The metric's name in HTML (also the Markdown files' form): super- and
    subscripts as ``<sup>``/``<sub>``, single letters in italics; with
    ``long``, its other common name beside it.

    >>> html("macro_recall", long=True)
    '<i>R</i><sup><i>M</i></sup> (balanced accuracy)'
    >>> html("alpha_nominal"), html("macro_f1_hm"), html("macro_f1")
    ('α<sup>NOM</sup>', '𝔽<sub>1</sub>', 'macro-<i>F</i><sub>1</sub>')
    """
    m = _metric(mid)
    out = "".join(_math_html(p) if is_math else _html.escape(p) for is_math, p in _pieces(_source(m)))
    also = getattr(m, "alias", "") if long else ""
    return out + (f" ({also})" if also else "")


def html_tags(text: str) -> str:
    """``text`` (HTML escaped from Markdown with raw HTML off) with the tags
    ``html`` writes (``<sup>``, ``<sub>``, ``<i>``, without attributes)
    restored, so that a Markdown table's names show typeset; nothing else is
    restored (a system's name stays text)."""
    return re.sub(r"&lt;(/?)(sup|sub|i)&gt;", r"<\1\2>", text)


def _script(arg: str, table: dict, mark: str) -> str:
    flat = re.sub(r"\\(\w+)", lambda m: _GREEK.get(m.group(1), m.group(1)), arg).replace("{", "").replace("}", "")
    flat = re.sub(r"mathrm|mathit", "", flat)
    return "".join(table[c] for c in flat) if all(c in table for c in flat) else mark + flat


def _math_unicode(s: str) -> str:
    out = []
    for kind, a, arg in _tokens(s):
        if kind == "script":
            out.append(_script(arg, _SUP if a == "^" else _SUB, a))
        elif kind == "font":
            out.append(_letters(a, arg))
        elif kind == "command":
            out.append(_GREEK.get(a, a))
        else:
            out.append(a)
    return "".join(out)


def unicode(mid, long: bool = False) -> str:
    """The metric's name as plain Unicode text (terminals): super- and
    subscripts where every character has one, else ``^``/``_``.

    >>> unicode("macro_recall"), unicode("kappa_linear"), unicode("mae_micro"), unicode("f_avg")
    ('Rᴹ', 'κₗᵢₙ', 'MAE^μ', 'F_avg')
    """
    m = _metric(mid)
    out = "".join(_math_unicode(p) if is_math else p for is_math, p in _pieces(_source(m)))
    also = getattr(m, "alias", "") if long else ""
    return out + (f" ({also})" if also else "")


def _ascii_names() -> dict[str, str]:
    """``_stand_ins`` with each name's HTML form, and every user metric's
    name as itself (``_kept``)."""
    return {**{name: html(m) for name, m in _stand_ins().items()}, **_kept(_html.escape)}


def _kept(escape=str) -> dict[str, str]:
    """A user's metric names (custom metrics, metrics of per-item terms),
    each mapped to itself: matched before the built-in names they may
    contain, so that ``my_kappa`` or ``kappa (mine)`` is shown exactly as
    given, never as ``my_κ``."""
    from ..measures import labels as M

    out = {}
    for reg in (M.REGISTRY, getattr(M, "ITEM_REGISTRY", {})):
        for m in list(reg.values()):
            if getattr(m, "source", ""):
                out[escape(m.name)] = escape(m.name)
    return out


def _stand_ins() -> dict:
    """Every registered metric whose ASCII name its typeset form changes, by
    that name: the names with a super- or subscript, a Greek or
    script letter (``R^M``, ``kappa_lin``, ``macro-F1``, ``kappa``); names
    that are words as they are (``Acc``, ``GMR``) are left alone."""
    from ..measures import labels as M

    out = {}
    for reg in (M.REGISTRY, getattr(M, "ITEM_REGISTRY", {})):
        for m in list(reg.values()):
            if getattr(m, "source", ""):  # a user's metric: its name is shown as given (_kept)
                continue
            typeset = html(m)
            stand_in = bool(re.search(r"[\^_(]", m.name)) or m.name.lower() in _GREEK
            # a name that is a word (Acc, Informedness) or a known one (macro-F1) stays; F1(class) would lose its
            # class in the typeset form
            if not stand_in or "(class)" in m.name:
                continue
            plain = re.sub(r"</?i>", "", typeset)
            if typeset != _html.escape(m.name) and plain != _html.escape(m.name):
                out[m.name] = m
    return out


def _names_pattern(names) -> re.Pattern:
    """The names as whole words: not inside a longer word, nor joined to one
    by ``^`` or ``-`` (``my-kappa`` holds no ``kappa``); the longest first."""
    alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w^-]){'(?:' + alts + ')' if alts else '(?!)'}(?![\w^-])")


def typeset_html(page: str) -> str:
    """``page`` (HTML) with the metrics' ASCII names in its text typeset
    (``R^M`` as ``<i>R</i><sup><i>M</i></sup>``); tags, attributes and
    ``<code>``/``<pre>`` content are left as they are."""
    names = {_html.escape(k): v for k, v in _ascii_names().items()}
    pattern = _names_pattern(names)
    out, code = [], 0
    for part in re.split(r"(<[^>]*>)", page):
        if part.startswith("<"):
            tag = re.match(r"</?(\w+)", part)
            if tag and tag.group(1).lower() in ("code", "pre", "script", "style"):
                code += -1 if part.startswith("</") else 1
            out.append(part)
        else:
            out.append(part if code else pattern.sub(lambda m: names[m.group(0)], part))
    return "".join(out)


def typeset_markdown(md: str, form: str = "html") -> str:
    """``md`` (Markdown) with the metrics' ASCII names typeset, outside code
    spans and fenced blocks; escaped Markdown (``kappa\\_lin``) is matched
    too.  ``form``: ``html``, inline HTML (``R<sup>M</sup>``, which CommonMark
    and GitHub show), or ``plain``, Unicode (``Rᴹ``, ``κₗᵢₙ``: the files
    that are read as plain text, ``plain_markdown``)."""
    names = _ascii_names() if form == "html" else {**{n: unicode(m) for n, m in _stand_ins().items()}, **_kept()}
    variants = {}
    for k, v in names.items():
        variants[k] = v
        variants[k.replace("_", "\\_").replace("(", "\\(").replace(")", "\\)")] = v
    pattern = _names_pattern(variants)
    out, fenced = [], False
    for line in md.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        parts = re.split(r"(`[^`]*`)", line)
        out.append("".join(p if p.startswith("`") else pattern.sub(lambda m: variants[m.group(0)], p)
                           for p in parts))
    return "\n".join(out)


def plain_markdown(md: str) -> str:
    """``md`` as the project's ``.md`` files hold it: Markdown that reads as
    plain text, the metrics' names in Unicode (``Rᴹ``, ``α^NOM`` where a
    character has no superscript) and no HTML tag; the HTML pages are made
    from the same Markdown by ``report.html_page``, which typesets the names
    as HTML.

    >>> plain_markdown("R^M and kappa_lin beat `kappa`")
    'Rᴹ and κₗᵢₙ beat `kappa`'
    """
    return typeset_markdown(md, "plain")


def typeset_latex(text: str, escape) -> str:
    """``text`` already escaped for LaTeX by ``escape`` (``tables.tex_escape``)
    with the metrics' escaped ASCII names as their LaTeX (``R^M`` written
    ``R\\textasciicircum{}M`` becomes ``$R^M$``) and the check mark of the
    recommendation's cells as ``$\\checkmark$`` (``amssymb``, which the
    LaTeX tables need for the blackboard F1 too)."""

    names = {**{escape(name): latex(m) for name, m in _stand_ins().items()}, **_kept(escape)}
    out = _names_pattern(names).sub(lambda m: names[m.group(0)], text) if names else text
    return out.replace("\u2714", r"$\checkmark$")


def typeset_unicode(text: str) -> str:
    """Plain ``text`` (a terminal's) with the metrics' ASCII names in
    Unicode (``R^M`` as ``Rᴹ``, ``kappa_lin`` as ``κₗᵢₙ``)."""

    names = {**{name: unicode(m) for name, m in _stand_ins().items()}, **_kept()}
    return _names_pattern(names).sub(lambda m: names[m.group(0)], str(text)) if names else str(text)
