r"""MkDocs hook: the site's maths, typeset at build time, offline.

Formulas are written in LaTeX: ``$...$`` inline and ``$$...$$`` on lines of
their own in the pages; in the docstrings the API reference shows, also
numpydoc's ``.. math::`` directive and ``:math:`...``` role.
``pymdownx.arithmatex`` (mkdocs.yml, ``generic: true``) finds them, in the
pages and in mkdocstrings' output alike, and this hook turns each into
MathML with the pure-Python ``latex2mathml`` package: the browser draws the
maths itself, with no JavaScript, no font and no network (Chromium,
Firefox and Safari render MathML).  A formula the converter does not know
fails the build.

One house rule of typesetting: a word of two or more letters that starts
with a capital (MAE, NOM, Acc, Wtd) is an abbreviation, set upright, as
``\mathrm{...}`` would set it (LaTeX itself would set ``$MAE$`` as the
italic product M A E).  Single letters and lower-case words stay italic.

The hook also renders the docstrings' reStructuredText inline literals
(````like this````) on the reference pages: Markdown reads them as code
already, except where a line break splits one (joined here before the
Markdown is read), in a type annotation, a heading or a code block (the
double backticks are dropped there).
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert
from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

# --------------------------------------------------------------------------
# reStructuredText in docstrings -> what arithmatex and Markdown read
# --------------------------------------------------------------------------
_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<first>.*)$")
_ROLE = re.compile(r"(?<![`\w]):math:`([^`]+)`")
_LITERAL = re.compile(r"(?<!`)``([^`]+?)``(?!`)")


def _directives(lines: list[str]) -> list[str]:
    """``.. math::`` (its formula on the line, or in the indented lines
    below: one formula per paragraph) -> ``$$`` blocks."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent = m.group("indent")
        body = [m.group("first")] if m.group("first").strip() else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > len(indent)):
            body.append(lines[i])
            i += 1
        formulas, current = [], []
        for line in body + [""]:
            if line.strip() and not line.strip().startswith(":"):  # (a directive's options: :label: ...)
                current.append(line.strip())
            elif current:
                formulas.append(" ".join(current))
                current = []
        for formula in formulas:
            out += ["", f"{indent}$$", f"{indent}{formula}", f"{indent}$$", ""]
    return out


class _Rst(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(_directives(lines))
        text = _ROLE.sub(lambda m: f"${m.group(1)}$", text)
        # an inline literal over two lines: one line, so that no block (a quote at ">=", a heading at "#")
        # starts inside it
        text = _LITERAL.sub(lambda m: "``" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "``"
                            if "\n" in m.group(1) else m.group(0), text)
        return text.split("\n")


class RstMathExtension(Extension):
    """numpydoc's maths and literals, for arithmatex and Markdown."""

    def extendMarkdown(self, md):
        # after the fenced code blocks are set aside (25), before the raw HTML blocks (20)
        md.preprocessors.register(_Rst(md), "metaeval_rst_maths", 22)


# --------------------------------------------------------------------------
# LaTeX -> MathML
# --------------------------------------------------------------------------
_INLINE = re.compile(r'<span class="arithmatex">\\\((.+?)\\\)</span>', re.S)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(.+?)\\\]</div>', re.S)
# an argument set as text or in a font of its own (left alone), another command, or a capitalised word
_WORDS = re.compile(r"(?P<keep>\\(?:text\w*|math\w+|operatorname|mbox)\s*\{[^{}]*\}|\\[A-Za-z]+)"
                    r"|(?<![A-Za-z])(?P<word>[A-Z][A-Za-z]+)(?![A-Za-z])")


def _upright(tex: str) -> str:
    return _WORDS.sub(lambda m: m.group("keep") or r"\mathrm{" + m.group("word") + "}", tex)


def mathml(tex: str, display: bool = False) -> str:
    r"""The MathML of a LaTeX formula (``display``: a block of its own).

    >>> mathml(r"\alpha^{NOM}")[:45]
    '<math xmlns="http://www.w3.org/1998/Math/Math'
    """
    tex = _upright(tex.strip())
    # |x| as a fence: no operator's spacing around its bars inside a longer formula
    tex = re.sub(r"(?<!\\left)\\lvert\b", r"\\left\\lvert", tex)
    tex = re.sub(r"(?<!\\right)\\rvert\b", r"\\right\\rvert", tex)
    if display:  # a sum's or a product's limits below and above it, as LaTeX sets them in display
        tex = re.sub(r"\\(sum|prod)(?=\s*[_^])", r"\\\1\\limits", tex)
    try:
        out = convert(tex, display="block" if display else "inline")
    except Exception as e:  # (the converter's own errors: an unbalanced brace, a missing argument, ...)
        raise ValueError(f"the formula {tex!r} does not convert to MathML: {type(e).__name__} {e}") from None
    unknown = re.findall(r">(\\[A-Za-z]+)<", out)
    if unknown:  # (the converter keeps a command it does not know as text)
        raise ValueError(f"the formula {tex!r} uses {', '.join(unknown)}, which latex2mathml does not know")
    return out


def _typeset(page_html: str, where: str) -> str:
    def one(m, display):
        try:
            return mathml(html.unescape(m.group(1)), display)
        except ValueError as e:
            raise PluginError(f"{where}: {e}") from None

    page_html = _BLOCK.sub(lambda m: f'<div class="maths">{one(m, True)}</div>', page_html)
    return _INLINE.sub(lambda m: one(m, False), page_html)


# --------------------------------------------------------------------------
# reStructuredText literals left in the reference pages' HTML
# --------------------------------------------------------------------------
_TAG = re.compile(r"(<[^>]*>)")
_CODE = re.compile(r"<(/?)(code|pre)\b", re.I)


def _literals(page_html: str) -> str:
    """````x```` -> ``<code>x</code>`` in text, ``x`` inside code (a type, a
    code block) and in a tag's attributes (a heading's id or class)."""
    parts = _TAG.split(page_html)
    depth = 0
    for k, part in enumerate(parts):
        if k % 2:  # a tag
            m = _CODE.match(part)
            if m:
                depth = max(0, depth + (-1 if m.group(1) else 1))
            parts[k] = part.replace("``", "")
        elif "``" in part:
            parts[k] = _LITERAL.sub(r"\1" if depth else r"<code>\1</code>", part)
    return "".join(parts)


# --------------------------------------------------------------------------
# MkDocs events
# --------------------------------------------------------------------------
@event_priority(100)  # before mkdocstrings reads the Markdown extensions for the docstrings
def on_config(config):
    config.markdown_extensions.append(RstMathExtension())
    return config


def on_page_content(html_text, page, config, files):
    html_text = _typeset(html_text, page.file.src_uri)
    if page.file.src_uri.startswith("reference/"):
        html_text = _literals(html_text)
    return html_text
