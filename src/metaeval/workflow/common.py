"""What the steps share: a Markdown page and its HTML twin (the drawing
steps' figure helper is ``workflow.drawing``: the computations never
import matplotlib's code, nor rerun when it changes)."""

from __future__ import annotations

from ..io import write_text


def write_markdown(out_md, md: str, out_html=None, title: str = "") -> None:
    """A Markdown table (``out_md``, the metrics' names typeset as inline
    HTML: ``notation.typeset_markdown``) and, when ``out_html`` is given, the
    same as an HTML page for the report (sortable, every name escaped)."""
    from ..notation import typeset_markdown

    md = typeset_markdown(md)
    write_text(out_md, md)
    if out_html:
        from ..report import html_page

        write_text(out_html, html_page(md, title))

