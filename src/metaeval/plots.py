"""Figures: the grid of per-system confusion matrices (Scarton et al. Figs 2-4).

Matplotlib with the non-interactive Agg backend; the colour map is
``cividis``, designed to be readable with colour-vision deficiencies and in
greyscale.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

__all__ = ["confusion_grid", "save_figure"]

CMAP = "cividis"


def save_figure(fig, paths) -> None:
    """Save one figure to every path given (format from the suffix)."""
    for p in paths:
        Path(p).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(p, dpi=150, bbox_inches="tight")
    plt.close(fig)


def confusion_grid(c: np.ndarray, systems, labels, title: str = "", subtitles=None, ncols: int | None = None):
    """One panel per system: rows = gold class, columns = predicted class,
    each row normalised to the share of that gold class (so the diagonal is
    the per-class recall); cells show the percentage and the count.

    ``c``: (S, K, K) confusion tensor [system, predicted, gold].
    """
    c = np.asarray(c)
    s, k, _ = c.shape
    ncols = ncols or min(5 if k <= 4 else 4, s)
    nrows = math.ceil(s / ncols)
    size = 0.55 * k + 1.3
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols, size * nrows + 0.9), squeeze=False)
    short = [textwrap.shorten(str(lab), 10, placeholder=".") for lab in labels]
    for idx, ax in enumerate(axes.ravel()):
        if idx >= s:
            ax.axis("off")
            continue
        m = c[idx].T.astype(float)  # rows gold, columns predicted
        rows = m.sum(axis=1, keepdims=True)
        share = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
        ax.imshow(share, cmap=CMAP, vmin=0, vmax=1)
        for g in range(k):
            for p in range(k):
                ax.text(p, g, f"{100 * share[g, p]:.0f}%\n{int(m[g, p])}", ha="center", va="center",
                        fontsize=6.5 if k <= 4 else 5.5, color="black" if share[g, p] > 0.55 else "white")
        name = "\n".join(textwrap.wrap(str(systems[idx]), 26)[:2])
        if subtitles is not None:
            name += f"\n{subtitles[idx]}"
        ax.set_title(name, fontsize=7.5)
        ax.set_xticks(range(k), short, fontsize=6.5, rotation=45 if k > 3 else 0, ha="right" if k > 3 else "center")
        ax.set_yticks(range(k), short, fontsize=6.5)
        if idx % ncols == 0:
            ax.set_ylabel("gold class", fontsize=7)
        if idx // ncols == nrows - 1 or idx + ncols >= s:
            ax.set_xlabel("predicted class", fontsize=7)
    fig.suptitle(title or "Confusion matrices", fontsize=11)
    cax = fig.add_axes([0.92, 0.3, 0.012, 0.4])
    cb = fig.colorbar(plt.cm.ScalarMappable(cmap=CMAP, norm=matplotlib.colors.Normalize(0, 1)), cax=cax)
    cb.set_label("share of the gold class", fontsize=7)
    cb.ax.tick_params(labelsize=6)
    fig.subplots_adjust(left=0.07, right=0.9, top=1 - 0.9 / (size * nrows + 0.9), hspace=0.75, wspace=0.45)
    return fig
