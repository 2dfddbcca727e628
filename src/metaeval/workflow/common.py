"""What the steps share: a Markdown page and its HTML twin; a figure saved
to each of its paths."""

from __future__ import annotations

from ..io import write_text


def write_markdown(out_md, md: str, out_html=None, title: str = "") -> None:
    """A Markdown table (``out_md``) and, when ``out_html`` is given, the same
    as an HTML page for the report (sortable, every name escaped)."""
    write_text(out_md, md)
    if out_html:
        from ..report import html_page

        write_text(out_html, html_page(md, title))


def save_fig(fig, paths) -> None:
    """``fig`` saved to each of ``paths`` (PNG and PDF: ``plots.save_figure``);
    matplotlib is imported by the steps that draw, and only then."""
    from ..plots import save_figure

    save_figure(fig, paths)
