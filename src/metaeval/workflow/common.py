"""What the steps share: a Markdown page and its HTML twin (the drawing
steps' figure helper is ``workflow.drawing``: the computations never
import matplotlib's code, nor rerun when it changes)."""

from __future__ import annotations

from ..data.files import write_text


def write_markdown(out_md, md: str, out_html=None, title: str = "") -> None:
    """A Markdown page (``out_md``, plain text: the metrics' names in
    Unicode, no HTML, ``notation.plain_markdown``) and, when ``out_html`` is
    given, the same as an HTML page for the report (the names typeset as
    HTML, tables sortable, every name from the data escaped)."""
    from ..present.notation import plain_markdown

    write_text(out_md, plain_markdown(md))
    if out_html:
        from ..present.report import html_page

        write_text(out_html, html_page(md, title))

