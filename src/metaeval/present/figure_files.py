"""Figures written as files: PNG (palette-reduced, reproducible bytes) and
PDF without a creation date, so that the same figure is the same file
(``save_figure``), and a figure that says why there is nothing to draw
(``message_figure``)."""

from __future__ import annotations

import functools
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["save_figure", "message_figure", "plain_text", "PNG_DPI"]


def plain_text(fn):
    """Build the figure with mathtext off: every string is drawn as written."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context({"text.parse_math": False}):
            return fn(*args, **kwargs)
    return wrapper


# no creation date in PDFs (and no software version that changes with an
# upgrade of matplotlib's patch level in either format): same input, same bytes
_METADATA = {"pdf": {"CreationDate": None, "Producer": "metaeval"}, "png": {"Software": "metaeval"}}


# PNGs are written with a palette of 128 colours (Pillow's fast octree
# quantiser), zlib at its best (``optimize``): the report embeds them all and
# must stay mailable.  256 colours at level 6 were a quarter of the bytes of
# full-colour ones (the default run's 150-dpi figures: 18.1 MB -> 4.8 MB); with
# issue 33's datasets, 128 colours and ``optimize`` take the default run's
# figures from 3.13 to 2.70 MB (fnc1's: 370 KB at level 6, 326 KB optimised,
# 0.23 s and 0.58 s to encode, 2026-11-27).  Figures use few colours (the
# Okabe-Ito palette, cividis and diverging maps for values): 128 keep a heat
# map's bands apart (32 merged tau -0.21 with 0, seen on fnc1's similarity).
_PNG_PALETTE = 128
_PNG_OPTIONS = {"optimize": True}


def _write_png(fig, path, dpi, bbox) -> None:
    """The figure as a palette PNG (see ``_PNG_PALETTE``)."""
    import io

    from PIL import Image, PngImagePlugin

    raw = io.BytesIO()  # rendered once, stored uncompressed, then quantised
    fig.savefig(raw, dpi=dpi, bbox_inches=bbox, format="png", pil_kwargs={"compress_level": 0})
    raw.seek(0)
    with Image.open(raw) as im:
        pal = im.convert("RGB").quantize(colors=_PNG_PALETTE, method=Image.Quantize.FASTOCTREE)
    info = PngImagePlugin.PngInfo()
    for k, v in _METADATA["png"].items():
        info.add_text(k, v)
    pal.save(path, format="png", pnginfo=info, dpi=(dpi, dpi), **_PNG_OPTIONS)


# PNGs at 96 dpi, the CSS pixel's (150 made every report over 10 MB: the
# default run's figures at 150 dpi were 4.8 MB even as palette images; 100
# put the report with issue 33's datasets at 10.01 MB); the PDFs are vector
# graphics, for print
PNG_DPI = 96


def save_figure(fig, paths, dpi: int = PNG_DPI) -> None:
    """Write ``fig`` to every path (format from the suffix), atomically and
    reproducibly, then close it."""
    from ..data.files import atomic_path

    from .notation import is_mathtext

    # maths only in the metrics' typeset names (notation.mathtext, mark): a system's name is drawn as written
    for t in fig.findobj(matplotlib.text.Text):
        t.set_parse_math(is_mathtext(t.get_text()))
    # tick labels can be made at draw time: mathtext must be off then too
    with matplotlib.rc_context({"text.parse_math": False}):
        # the tight bounding box once for all formats: savefig(bbox_inches=
        # "tight") would lay the figure out again for each (figures were
        # half of the time of a pipeline run); get_tightbbox lays out what
        # it measures, so no draw is needed first
        # (a figure whose builder measured its own margins is saved as laid
        # out: the tight box would measure every label once more)
        bbox = (None if getattr(fig, "_metaeval_exact_layout", False) else
                fig.get_tightbbox(fig.canvas.get_renderer()).padded(matplotlib.rcParams["savefig.pad_inches"]))
        for p in paths:
            fmt = Path(p).suffix.lstrip(".")
            with atomic_path(p) as tmp:
                if fmt == "png":
                    _write_png(fig, tmp, dpi, bbox)
                else:
                    fig.savefig(tmp, dpi=dpi, bbox_inches=bbox, format=fmt, metadata=_METADATA.get(fmt))
    plt.close(fig)


@plain_text
def message_figure(title: str, message: str):
    """A figure that says why there is nothing to draw (a figure a rule
    promises is written all the same, and says so)."""
    import textwrap

    fig = plt.figure(figsize=(6.4, 1.6))
    fig.suptitle(title, fontsize=10)
    fig.text(0.5, 0.4, textwrap.fill(message, 90), ha="center", va="center", fontsize=8)
    return fig
