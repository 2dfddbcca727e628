"""The figure helper of the steps that draw (a module of its own: a step
that imports it has ``plots.py`` in its code fingerprint, so only the
drawing steps rerun when the plotting code changes)."""

from __future__ import annotations


def save_fig(fig, paths) -> None:
    """``fig`` saved to each of ``paths`` (PNG and PDF: ``present.figure_files.save_figure``);
    matplotlib is imported when a step draws, and only then."""
    from ..present.figure_files import save_figure

    save_figure(fig, paths)
