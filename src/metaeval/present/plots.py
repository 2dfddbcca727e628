"""Figures: the grid of per-system confusion matrices (Scarton et al. Figs 2-4)
and the figures of the meta-evaluation experiments.

Matplotlib with the non-interactive Agg backend; the colour maps are
``cividis`` and ``PuOr``, readable with colour-vision deficiencies.  Text is
never parsed as mathtext: system names are file names, and ``$x$`` in one
must print as written (``plain_text``).  ``save_figure`` writes PNG and PDF
files that are byte-identical from run to run.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from .figure_files import plain_text

__all__ = ["confusion_grid", "similarity_heatmap", "stability_plot", "merging_heatmap", "span_scores_plot",
           "interval_plot", "asl_curves", "properties_grid", "noise_heatmap", "priors_heatmap", "criteria_plot",
           "design_plot", "cross_dataset_heatmap"]

# Okabe & Ito's colour-blind-safe palette (black left out), with a marker per
# series so that series stay apart in greyscale too
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")

CMAP = "cividis"


def _wrap_name(name: str, width: int, max_lines: int = 3, keep_end: bool = False) -> str:
    """Wrap a system name after its own separators (_ - .), not mid-word;
    what does not fit is cut ("..."), at the end or, with ``keep_end``, in
    the middle of the last line."""
    parts = re.findall(r"[^_.-]+[_.-]?|[_.-]", name)
    lines, cur = [], ""
    for part in parts:
        if cur and len(cur) + len(part) > width:
            lines.append(cur)
            cur = ""
        cur += part
    lines.append(cur)
    if len(lines) > max_lines:
        rest = "".join(lines[max_lines - 1:])
        if len(rest) > width:
            tail = (width - 3) // 2 if keep_end else 0
            rest = rest[: width - 3 - tail] + "..." + rest[len(rest) - tail:]
        lines = lines[: max_lines - 1] + [rest]
    return "\n".join(lines)


def _wrap_names(names, width: int, max_lines: int = 3) -> list[str]:
    """``_wrap_name`` of each name, kept apart so that a reader can tell
    every system: names cut to the same text keep their ends too; names
    that still read the same (``NLRG__interse...best_3_ckpts`` three times:
    they differ in the middle) show their beginning and the part where they
    differ from the others (``NLRG__inte...spanbert_large_b...``); and a
    name that cannot be told apart within the width is shown whole."""
    names = [str(n) for n in names]
    short = [_wrap_name(n, width, max_lines) for n in names]
    seen = Counter(short)
    short = [_wrap_name(n, width, max_lines, keep_end=True) if seen[w] > 1 and w != n else w
             for n, w in zip(names, short)]
    seen = Counter(short)
    groups: dict[str, list[int]] = {}
    for i, w in enumerate(short):
        if seen[w] > 1 and w != names[i]:
            groups.setdefault(w, []).append(i)
    for idx in groups.values():
        for i in idx:
            short[i] = _wrap_name(_distinct_part(names[i], [names[j] for j in idx if j != i], width * max_lines),
                                  width, max_lines)
    seen = Counter(short)  # what still reads the same is shown whole (system names are unique)
    return [_wrap_name(n, max(width, len(n)), max_lines) if seen[w] > 1 else w for n, w in zip(names, short)]


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def _distinct_part(name: str, others, budget: int) -> str:
    """``name`` in at most ``budget`` characters: its beginning, then the
    part from where it first differs from the most similar of ``others``,
    with up to two characters before it ("..." marks what is left out);
    the whole name when the budget cannot hold both."""
    if len(name) <= budget:
        return name
    p = max((_common_prefix(name, o) for o in others), default=0)
    if p < budget - 3:  # the difference is in the first characters: cut the end
        return name[:budget - 3] + "..."
    head = min(max(4, budget // 3), p)
    avail = budget - head - 3  # after the head and its "..."
    if len(name) - p <= avail:  # from the difference to the end fits
        c = min(2, avail - (len(name) - p), p - head)
        return name[:head] + "..." + name[p - c:]
    c = min(2, avail - 4, p - head)  # room for the context, the differing character and a closing "..."
    if c < 0:
        return name
    return name[:head] + "..." + name[p - c:p - c + avail - 3] + "..."


def _short_labels(labels, width: int) -> list[str]:
    """Class names cut to ``width`` characters ("." marks a cut); numbered
    when two cut names would read the same."""
    cut = [lab if len(lab) <= width else lab[: width - 1] + "." for lab in map(str, labels)]
    if len(set(cut)) < len(cut):
        cut = [f"{i}:{c[: width - 3]}" for i, c in enumerate(cut, 1)]
    return cut


@plain_text
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
    annotate = k <= 8  # beyond 8 classes the cells are too small for numbers: colour only
    size = 0.55 * k + 1.3 if annotate else 0.25 * k + 1.6
    head = 1.4  # inches above the first row: suptitle plus up-to-3-line panel titles
    height = (size + 0.35) * nrows + head
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols, height), squeeze=False)
    short = _short_labels(labels, 10 if annotate else 16)
    titles = _wrap_names(systems, 26)
    for idx, ax in enumerate(axes.ravel()):
        if idx >= s:
            ax.axis("off")
            continue
        m = c[idx].T.astype(float)  # rows gold, columns predicted
        rows = m.sum(axis=1, keepdims=True)
        share = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
        ax.imshow(share, cmap=CMAP, vmin=0, vmax=1)
        for g in range(k if annotate else 0):
            for p in range(k):
                ax.text(p, g, f"{100 * share[g, p]:.0f}%\n{int(m[g, p])}", ha="center", va="center",
                        fontsize=6.5 if k <= 4 else 5.5, color="black" if share[g, p] > 0.55 else "white")
        name = titles[idx]
        if subtitles is not None:
            name += f"\n{subtitles[idx]}"
        ax.set_title(name, fontsize=7.5)
        tick = 6.5 if annotate else 5
        left, bottom = idx % ncols == 0, idx // ncols == nrows - 1 or idx + ncols >= s
        # every panel has the same classes in the same order: without numbers
        # in the cells (many classes), the class names go on the outer panels
        # only, as in a facet grid (a thousand tick labels cost seconds to draw)
        ax.set_xticks(range(k), short if annotate or bottom else [], fontsize=tick,
                      rotation=45 if k > 3 else 0, ha="right" if k > 3 else "center")
        ax.set_yticks(range(k), short if annotate or left else [], fontsize=tick)
        if left:
            ax.set_ylabel("gold class", fontsize=7)
        if bottom:
            ax.set_xlabel("predicted class", fontsize=7)
    fig.suptitle(title or "Confusion matrices", fontsize=11)
    cax = fig.add_axes([0.92, 0.3, 0.012, 0.4])
    cb = fig.colorbar(plt.cm.ScalarMappable(cmap=CMAP, norm=matplotlib.colors.Normalize(0, 1)), cax=cax)
    cb.set_label("share of the gold class", fontsize=7)
    cb.ax.tick_params(labelsize=6)
    # without inner tick labels (many classes) the panels need room for their titles only
    fig.subplots_adjust(left=0.07, right=0.9, top=1 - head / height, hspace=0.75 if annotate else 0.4,
                        wspace=0.45 if annotate else 0.15)
    return fig


def _metric_labels(ids):
    """The metrics' names typeset (``notation.mathtext``: drawn as maths)."""
    from .notation import mathtext

    return [mathtext(m) for m in ids]


def _mark(text: str) -> str:
    """A label holding typeset metric names, drawn with its maths."""
    from .notation import mark

    return mark(text)


@plain_text
def similarity_heatmap(sim, order, groups, title: str = "", method: str = "average"):
    """Clustered heatmap of Kendall's tau between metrics, with a dendrogram
    (linkage ``method``, as for the groups) and the value in every cell; tick
    labels carry the metric's group."""
    from scipy.cluster.hierarchy import dendrogram, linkage
    from scipy.spatial.distance import squareform

    ids = list(order)
    m = sim.loc[ids, ids].to_numpy()
    n = len(ids)
    fig = plt.figure(figsize=(0.55 * n + 3.2, 0.55 * n + 2.4))
    ax_d = fig.add_axes([0.2, 0.82, 0.62, 0.12])
    ax = fig.add_axes([0.2, 0.1, 0.62, 0.7])
    cax = fig.add_axes([0.85, 0.1, 0.02, 0.7])
    d = 1.0 - np.nan_to_num(sim.to_numpy(), nan=0.0)
    np.fill_diagonal(d, 0.0)
    z = linkage(squareform(np.clip((d + d.T) / 2, 0, 2), checks=False), method=method)
    dendrogram(z, ax=ax_d, no_labels=True, color_threshold=0, above_threshold_color="0.3")
    ax_d.set_xlim(0, 10 * n)  # leaves sit at 5, 15, ...: align them with the columns
    ax_d.axis("off")
    im = ax.imshow(m, cmap="PuOr_r", vmin=-1, vmax=1, aspect="auto")
    for i in range(n):
        for j in range(n):
            ax.text(j, i, "n/a" if np.isnan(m[i, j]) else f"{m[i, j]:.2f}", ha="center", va="center",
                    fontsize=6.5, color="white" if abs(np.nan_to_num(m[i, j])) > 0.6 else "black")
    labels = [_mark(f"{lab} [{groups[i]}]") for lab, i in zip(_metric_labels(ids), ids)]
    ax.set_xticks(range(n), labels, rotation=60, ha="right", fontsize=7.5)
    ax.set_yticks(range(n), labels, fontsize=7.5)
    ax.set_xlabel("metric [group]")
    ax.set_ylabel("metric [group]")
    fig.colorbar(im, cax=cax).set_label("Kendall's tau between system rankings", fontsize=8)
    fig.suptitle(title or "Ranking agreement between metrics", fontsize=11)
    return fig


@plain_text
def stability_plot(summary, per_split, title: str = ""):
    """Distribution of tau(X ranking, Y ranking) over the splits, one box
    per metric, sorted by mean tau; the 95% interval as whiskers."""
    df = summary.sort_values("mean_tau", ascending=True)
    ids = df["metric"].tolist()
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(ids) + 1.6))
    data = [per_split[m].dropna().to_numpy() for m in ids]
    bp = ax.boxplot(data, vert=False, whis=(2.5, 97.5), showfliers=False, patch_artist=True,
                    medianprops={"color": "black"}, widths=0.6)
    for patch in bp["boxes"]:
        patch.set_facecolor("#9ecae1")
    ax.scatter(df["mean_tau"], np.arange(1, len(ids) + 1), color="#d95f02", zorder=3, s=18, label="mean")
    ax.set_yticks(np.arange(1, len(ids) + 1), _metric_labels(ids), fontsize=8)
    ax.set_xlabel("Kendall's tau between the rankings on halves X and Y")
    ax.set_ylabel("metric")
    ax.grid(axis="x", alpha=0.3)
    n = int(summary["n_splits"].iloc[0])
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize=8, frameon=False,
              title=f"{n} splits; box: quartiles; whiskers: 95% interval", title_fontsize=8)
    ax.set_title(title or "Rank stability", fontsize=11)
    return fig


@plain_text
def merging_heatmap(merge, balanced, title: str = ""):
    """Two heatmaps (all items; class-balanced subsamples) of tau between the
    ranking before and after merging each pair of classes; low tau = the
    metric tells the merged classes apart.  Metrics sorted by mean tau.

    Up to 12 pairs (5 classes) the pairs are columns with every value
    written; with more (14 techniques: 91 pairs) the pairs become rows,
    coloured only, so the figure stays a page tall and readable."""
    frames = [("all test items", merge)]
    if balanced is not None:
        reps = int(balanced["repeats"].iloc[0])
        frames.append((f"balanced subsamples ({int(balanced['class_size'].iloc[0])} per class, "
                       f"mean of {reps})", balanced))
    pairs = [p for p in merge["pair"].unique() if p != "mean"] + ["mean"]
    ids = merge[merge["pair"] == "mean"].sort_values("tau")["metric"].tolist()
    wide = len(pairs) <= 13
    # the colour scale starts at the lowest tau (at most 0.5): taus that all lie
    # between 0.6 and 1 still get distinct colours
    lowest = np.nanmin([np.nanmin(df["tau"].to_numpy(dtype=float)) for _, df in frames] + [0.5])
    vmin = max(-1.0, np.floor(10 * lowest) / 10)
    n_row, n_col = (len(ids), len(pairs)) if wide else (len(pairs), len(ids))
    cell_w, cell_h = (1.3, 0.36) if wide else (0.42, 0.16)
    # one y axis for both panels: the row names are written once, on the
    # left, and cannot run into the first panel
    fig, axes = plt.subplots(1, len(frames), figsize=(3.2 + cell_w * n_col * len(frames), cell_h * n_row + 2.4),
                             squeeze=False, sharey=True)
    for ax, (name, df) in zip(axes[0], frames):
        m = df.pivot(index="metric", columns="pair", values="tau").loc[ids, pairs].to_numpy()
        if not wide:
            m = m.T
        im = ax.imshow(m, cmap="cividis", vmin=vmin, vmax=1, aspect="auto")
        for i in range(m.shape[0] if wide else 0):
            for j in range(m.shape[1]):
                if np.isnan(m[i, j]):  # metric undefined on the merged task (e.g. FNC score)
                    ax.text(j, i, "n/a", ha="center", va="center", fontsize=7, color="0.4")
                else:
                    ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="black" if m[i, j] > vmin + 0.55 * (1 - vmin) else "white")
        metric_ticks, pair_ticks = _metric_labels(ids), [_wrap_name(p, 60, 1) for p in pairs]
        if wide:
            ax.set_xticks(range(len(pairs)), pair_ticks, rotation=30, ha="right", fontsize=7.5)
            ax.set_yticks(range(len(ids)), metric_ticks, fontsize=7.5)
            ax.axvline(len(pairs) - 1.5, color="white", lw=2)
            ax.set_xlabel("merged classes")
        else:
            ax.set_xticks(range(len(ids)), metric_ticks, rotation=60, ha="right", fontsize=7)
            ax.set_yticks(range(len(pairs)), pair_ticks, fontsize=5)
            ax.axhline(len(pairs) - 1.5, color="white", lw=2)
            ax.set_xlabel("metric")
        if ax is axes[0][0]:
            ax.set_ylabel("metric" if wide else "merged classes (last row: mean)")
        else:
            ax.tick_params(labelleft=False)
        ax.set_title(name, fontsize=9)
    fig.colorbar(im, ax=axes[0].tolist(), fraction=0.04).set_label(
        "tau(original ranking, merged ranking)\nlow = distinguishes the classes", fontsize=8)
    fig.suptitle(title or "Class discrimination by merging", fontsize=11)
    return fig


@plain_text
def span_scores_plot(scores, metric_ids, primary: str, title: str = ""):
    """One row per system (sorted by the primary metric, best on top), one
    marker per span metric: where the official partial-overlap F1 and the
    exact-match and character F1s agree, and where they part."""
    from ..measures import labels as M

    prim = M.get(primary)
    df = scores.sort_values(primary, ascending=not prim.higher_is_better, kind="stable").iloc[::-1]
    n = len(df)
    fig, ax = plt.subplots(figsize=(8.0, 0.28 * n + 2.2))
    y = np.arange(n)
    base = (df["kind"] == "baseline").to_numpy() if "kind" in df else np.zeros(n, dtype=bool)
    for yi in y[base]:  # the baselines: shaded rows, "(baseline)" after the name
        ax.axhspan(yi - 0.5, yi + 0.5, color="0.9", zorder=0, lw=0)
    for i, m in enumerate(metric_ids):
        ax.scatter(df[m], y, s=26, marker=MARKERS[i % len(MARKERS)], color=OKABE_ITO[i % len(OKABE_ITO)],
                   edgecolor="black", linewidth=0.3, zorder=3, label=_metric_labels([m])[0])
    names = _wrap_names(df["system"], 40, 1)
    ax.set_yticks(y, [f"{w} (baseline)" if b else w for w, b in zip(names, base)], fontsize=7)
    ax.set_ylim(-0.7, n - 0.3)
    top = np.nanmax(df[list(metric_ids)].to_numpy(dtype=float), initial=1.0)
    ax.set_xlim(-0.02, max(1.0, top) + 0.02)  # span-F1 min can exceed 1: never hide a point
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("score (all higher is better)")
    ax.set_ylabel(_mark(f"system (sorted by {_metric_labels([primary])[0]})"))
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7.5, frameon=False, title="metric",
              title_fontsize=8)
    ax.set_title(title or "Span metrics", fontsize=11)
    return fig


_LABEL_PAD = 0.05  # inches between a system name and its axes


# the interval figure: panels of 4.6 in (442 px at 96 dpi) in a grid of up
# to three columns (one column of 15 metrics x 34 systems was 960 x 9,877 px,
# a page no report could show); one or two metrics: a column a page wide
_PANEL_WIDTH = 4.6
_COLUMN_WIDTH = 6.4
_GRID_COLUMNS = 3
_NAME_SIZE = 7.0


@plain_text
def interval_plot(intervals, metric_ids, title: str = "", ncols: int | None = None, baselines=()):
    """One panel per metric: every system's score with its interval, systems
    sorted by that metric (best on top), in a grid of ``ncols`` columns
    (default: one for one or two metrics, else three).  ``baselines``: the
    systems named "(baseline)"."""
    import textwrap

    from matplotlib.font_manager import FontProperties

    from ..measures import labels as M

    n = len(metric_ids)
    ncols = min(ncols or (1 if n <= 2 else _GRID_COLUMNS), n)
    panel_width = _COLUMN_WIDTH if ncols == 1 else _PANEL_WIDTH
    nrows = math.ceil(n / ncols)
    n_sys = intervals["system"].nunique()
    h = 0.17 * n_sys + 1.1
    title = textwrap.fill(title or "Scores with intervals", int(11 * panel_width * ncols))  # about 11 characters an inch
    extra = 0.2 * title.count("\n")  # each further line of the title
    width, height = panel_width * ncols, h * nrows + 0.9 + extra
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False)
    systems = intervals["system"].unique()
    names = dict(zip(systems, _wrap_names(systems, 36, 1)))
    names.update({s: f"{names[s]} (baseline)" for s in baselines if s in names})
    # system names as plain texts left of the axes, not tick labels: each
    # row has its point, and a tick is five artists to build and draw (the
    # hundreds of them were a third of this figure's time)
    label_at = matplotlib.transforms.ScaledTranslation(-_LABEL_PAD, 0, fig.dpi_scale_trans)
    for ax, mid in zip(axes.ravel(), metric_ids):
        info = M.get(mid)
        d = intervals[intervals["metric"] == mid].sort_values("value", ascending=info.higher_is_better,
                                                               kind="stable", na_position="first")
        y = np.arange(len(d))
        ax.errorbar(d["value"], y, xerr=[d["value"] - d["low"], d["high"] - d["value"]], fmt="o", ms=3,
                    color=OKABE_ITO[4], ecolor="0.45", elinewidth=1, capsize=1.5)
        ax.set_yticks([])
        transform = ax.get_yaxis_transform() + label_at
        for yi, system in zip(y, d["system"]):
            ax.text(0, yi, names[system], transform=transform, ha="right", va="center", fontsize=_NAME_SIZE)
        ax.set_title(_mark(f"{_metric_labels([mid])[0]} ({info.direction} is better)"), fontsize=9)
        ax.tick_params(axis="x", labelsize=7.5)
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlabel("score", fontsize=7)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    # the title a fixed 0.2 in from the top (matplotlib's default, 2 % of the
    # height, reached into the panels' titles on figures over 21 in tall)
    fig.suptitle(title, fontsize=11, y=1 - 0.2 / height)
    # Margins from the widest system name, measured once: a tight layout
    # would lay out all the panels' labels (a second of work on 34 systems x
    # 17 metrics); the same room is left on every panel's left.
    renderer = fig.canvas.get_renderer()
    font = FontProperties(size=_NAME_SIZE)
    label_w = max((renderer.get_text_width_height_descent(t, font, ismath=False)[0] for t in names.values()),
                  default=0.0) / fig.dpi + _LABEL_PAD + 0.02  # inches, with the pad
    axes_w = (width - 0.15 - ncols * label_w) / ncols
    axes_h = (height - 0.75 - extra - 0.45 - (nrows - 1) * 0.75) / nrows
    fig.subplots_adjust(left=label_w / width, right=1 - 0.15 / width, wspace=label_w / axes_w,
                        top=1 - (0.75 + extra) / height, bottom=0.45 / height, hspace=0.75 / axes_h)
    fig._metaeval_exact_layout = True  # its margins are measured: save_figure need not lay it out again
    return fig


@plain_text
def asl_curves(significance, metric_ids, alpha: float, title: str = "", column: str = "p_value"):
    """Achieved significance level curves (Sakai): per metric, the p-values
    of all system pairs sorted increasingly; the further a curve stays below
    alpha, the more pairs the metric tells apart.  ``column``: the p-values
    the verdicts are taken on (``p_holm`` or ``p_bh`` for an adjusted
    bootstrap test), so that the share of a curve below alpha is the
    metric's discriminative power; the title should name the test and the
    correction."""

    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    styles = ("-", "--", ":", "-.")
    for i, mid in enumerate(metric_ids):
        p = np.sort(significance.loc[significance["metric"] == mid, column].to_numpy(dtype=float))
        ax.plot(np.arange(1, p.size + 1), p, color=OKABE_ITO[i % len(OKABE_ITO)],
                linestyle=styles[(i // len(OKABE_ITO)) % len(styles)], lw=1.4, label=_metric_labels([mid])[0])
    ax.axhline(alpha, color="black", lw=0.8)
    ax.text(1, alpha, f" alpha = {alpha:g}", va="bottom", fontsize=8)
    ax.set_xlabel("system pairs, sorted by p-value")
    ax.set_ylabel("achieved significance level (p-value)" if column == "p_value"
                  else f"adjusted p-value ({column})")
    ax.set_ylim(-0.01, 1.01)
    ax.grid(alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7.5, frameon=False, title="metric",
              title_fontsize=8)
    ax.set_title(title or "Achieved significance levels", fontsize=10)
    return fig


@plain_text
def properties_grid(df, properties: dict, title: str = ""):
    """The metric x property table as a grid: blue ✓ holds, orange ✗ fails,
    grey – not applicable (Okabe-Ito colours, and a symbol in every cell
    for greyscale); a black frame marks a result a paper states, a red-
    brown one with (!) a result that contradicts it.  Columns are grouped
    by the paper that states the property."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch, Rectangle


    metrics = list(dict.fromkeys(df["metric"]))
    props = list(dict.fromkeys(df["property"]))
    code = {"holds": 0, "fails": 1, "not applicable": 2}
    sym = {"holds": "✓", "fails": "✗", "not applicable": "–"}
    colours = ("#0072B2", "#E69F00", "#DDDDDD")
    res = df.set_index(["metric", "property"])
    grid = np.array([[code[res.loc[(m, p), "result"]] for p in props] for m in metrics])
    fig, ax = plt.subplots(figsize=(0.55 * len(props) + 3.0, 0.33 * len(metrics) + 3.2))
    ax.imshow(grid, cmap=ListedColormap(colours), vmin=-0.5, vmax=2.5, aspect="auto")
    for i, m in enumerate(metrics):
        for j, p in enumerate(props):
            r = res.loc[(m, p)]
            ax.text(j, i, sym[r["result"]] + ("!" if r["agrees"] == "no" else ""), ha="center", va="center",
                    fontsize=9, color="white" if r["result"] == "holds" else "black")
            if r["published"]:
                ax.add_patch(Rectangle((j - 0.45, i - 0.45), 0.9, 0.9, fill=False, lw=1.4,
                                       edgecolor="#D55E00" if r["agrees"] == "no" else "black"))
    ax.set_xticks(range(len(props)), [properties[p].name for p in props], rotation=50, ha="right", fontsize=8)
    ax.set_yticks(range(len(metrics)), _metric_labels(metrics), fontsize=8)
    ax.set_xlabel("property")
    ax.set_ylabel("metric")
    ax.set_xticks(np.arange(len(props) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(metrics) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="minor", length=0)
    # the paper of each group of columns, above them
    sources = [properties[p].source.split(" (")[0] for p in props]
    start = 0
    for j in range(1, len(props) + 1):
        if j == len(props) or sources[j] != sources[start]:
            ax.annotate(sources[start], xy=((start + j - 1) / 2, -0.7), ha="center", va="bottom", fontsize=8,
                        annotation_clip=False)
            if j < len(props):
                ax.axvline(j - 0.5, color="black", lw=1.2)
            start = j
    handles = [Patch(facecolor=c, label=f"{s} {name}") for c, s, name in
               zip(colours, ("✓", "✗", "–"), ("holds", "fails", "not applicable"))]
    handles.append(Patch(facecolor="white", edgecolor="black", label="stated by a paper"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=4, fontsize=8, frameon=False)
    ax.set_title(title or "Formal properties of the metrics", fontsize=11, pad=22)
    return fig


def _value_heatmap(ax, m: np.ndarray, vmin: float, vmax: float, cmap: str = "cividis", fmt: str = "{:.2f}"):
    """A heatmap with every value written in its cell (n/a for NaN)."""
    im = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if np.isnan(m[i, j]):
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=7, color="0.4")
            else:
                ax.text(j, i, fmt.format(m[i, j]), ha="center", va="center", fontsize=7,
                        color="black" if m[i, j] > vmin + 0.55 * (vmax - vmin) else "white")
    return im


@plain_text
def noise_heatmap(noise, title: str = ""):
    """Label noise: per metric (rows, most robust first) and noise rate, the
    mean tau between the clean and the noisy rankings; and, when measured,
    the discriminative power on the clean gold and at the highest rate."""
    rates = sorted(noise["rate"].unique())
    mean = noise.groupby("metric", sort=False)["mean_tau"].mean()
    ids = mean.sort_values(ascending=False, kind="stable").index.tolist()
    tau = noise.pivot(index="metric", columns="rate", values="mean_tau").loc[ids, rates].to_numpy(dtype=float)
    power = "power_noisy" in noise.columns
    fig, axes = plt.subplots(1, 2 if power else 1, figsize=(3.4 + 0.75 * len(rates) + (3.0 if power else 0),
                                                          0.36 * len(ids) + 2.3), squeeze=False, sharey=True,
                             width_ratios=[len(rates), 2] if power else None)
    lowest = np.nanmin(np.append(tau, 0.5))
    vmin = max(-1.0, np.floor(10 * lowest) / 10)
    im = _value_heatmap(axes[0][0], tau, vmin, 1.0)
    cols = [f"{r:.0%}" if r * 100 == round(r * 100) else f"{r:.1%}" for r in rates]
    axes[0][0].set_xticks(range(len(rates)), cols, fontsize=8)
    axes[0][0].set_yticks(range(len(ids)), _metric_labels(ids), fontsize=7.5)
    axes[0][0].set_xlabel("gold labels flipped")
    axes[0][0].set_ylabel("metric (most robust first)")
    reps, mode = int(noise["repeats"].iloc[0]), noise["mode"].iloc[0]
    axes[0][0].set_title(f"mean tau(clean, noisy ranking)\n{reps} noisy golds per rate, {mode} flips", fontsize=9)
    fig.colorbar(im, ax=axes[0][0], fraction=0.06).set_label("Kendall's tau", fontsize=8)
    if power:
        top = noise[noise["rate"] == rates[-1]].set_index("metric")
        m = np.column_stack([top["power_clean"].loc[ids].to_numpy(dtype=float),
                             top["power_noisy"].loc[ids].to_numpy(dtype=float)])
        im2 = _value_heatmap(axes[0][1], m, 0.0, 1.0, cmap="viridis")
        axes[0][1].set_xticks(range(2), ["clean", cols[-1]], fontsize=8)
        axes[0][1].tick_params(labelleft=False)
        axes[0][1].set_xlabel("gold labels flipped")
        n_gold = int(noise["power_repeats"].iloc[0])
        axes[0][1].set_title(f"discriminative power\n(Tukey HSD; {n_gold} noisy gold{'s' if n_gold != 1 else ''})",
                             fontsize=9)
        fig.colorbar(im2, ax=axes[0][1], fraction=0.06).set_label("share of system pairs significantly different",
                                                                   fontsize=8)
    fig.suptitle(title or "Sensitivity to label noise", fontsize=11)
    return fig


@plain_text
def priors_heatmap(priors, title: str = ""):
    """Class priors: per metric and prior exponent gamma, tau between the
    ranking on the test set and on the test set re-weighted to pi^gamma (the
    column labels give the majority class's share)."""
    gammas = sorted(priors["gamma"].unique())
    mean = priors.groupby("metric", sort=False)["tau"].mean()
    ids = mean.sort_values(ascending=False, kind="stable").index.tolist()
    m = priors.pivot(index="metric", columns="gamma", values="tau").loc[ids, gammas].to_numpy(dtype=float)
    share = priors.groupby("gamma")["majority_share"].first()
    fig, ax = plt.subplots(figsize=(3.6 + 0.95 * len(gammas), 0.36 * len(ids) + 2.3))
    vmin = max(-1.0, np.floor(10 * np.nanmin(np.append(m, 0.5))) / 10)
    im = _value_heatmap(ax, m, vmin, 1.0)
    names = {0.0: "balanced", 1.0: "as tested"}
    ax.set_xticks(range(len(gammas)), [f"gamma {g:g}\n{names.get(g, '')}\nmajority {share[g]:.0%}".replace("\n\n", "\n")
                                       for g in gammas], fontsize=7.5)
    ax.set_yticks(range(len(ids)), _metric_labels(ids), fontsize=7.5)
    ax.set_xlabel("class prior re-weighted to pi^gamma (gamma < 1: more balanced, > 1: more imbalanced)")
    ax.set_ylabel("metric (most robust first)")
    fig.colorbar(im, ax=ax, fraction=0.06).set_label("tau(original ranking, re-weighted ranking)", fontsize=8)
    ax.set_title(title or "Sensitivity to the class priors", fontsize=11)
    return fig


@plain_text
def criteria_plot(long, names: dict, title: str = "", recommended=(), criterion_names: dict | None = None):
    """The recommendation's evidence: one panel per criterion, a row per
    metric (the same order in every panel), the point value with its
    interval; a filled marker for the criterion's top tier, a hollow one
    otherwise; metrics that cannot be recommended in grey; the recommended
    ones in bold.  ``long``: ``recommendation.csv`` (``criterion, metric,
    value, low, high, top_tier, candidate``); ``names``: metric id ->
    display name."""
    crit = list(dict.fromkeys(long["criterion"]))
    metrics = list(dict.fromkeys(long["metric"]))
    n = len(metrics)
    fig, axes = plt.subplots(1, len(crit), figsize=(1.2 + 2.0 * len(crit), 0.9 + 0.26 * n), sharey=True,
                             squeeze=False)
    axes = axes[0]
    y = np.arange(n)[::-1]
    for ax, c in zip(axes, crit):
        d = long[long["criterion"] == c].set_index("metric").loc[metrics]
        cand = d["candidate"].to_numpy(dtype=bool)
        top = d["in_set" if "in_set" in d.columns else "top_tier"].to_numpy(dtype=bool)
        exempt = d["exempt"].to_numpy(dtype=bool) if "exempt" in d.columns else np.zeros(n, bool)
        v, lo, hi = (d[k].to_numpy(dtype=float) for k in ("value", "low", "high"))
        # one collection per kind of mark (a line per metric would be 3 artists a metric and panel)
        for ok, colour in ((cand, OKABE_ITO[4]), (~cand, OKABE_ITO[7])):
            iv = ok & ~np.isnan(lo)
            if iv.any():
                ax.hlines(y[iv], lo[iv], hi[iv], color=colour, lw=1.4)
            for filled in (True, False):
                pt = ok & (top == filled) & ~np.isnan(v) & ~exempt
                if pt.any():
                    ax.scatter(v[pt], y[pt], s=22, marker="o", zorder=3, linewidths=1.2, edgecolors=colour,
                               facecolors=colour if filled else "white")
            pt = ok & exempt & ~np.isnan(v)
            if pt.any():  # not judged on this criterion (invariant by construction)
                ax.scatter(v[pt], y[pt], s=26, marker="D", zorder=3, linewidths=1.2, edgecolors=colour,
                           facecolors="white")
        ax.set_title((criterion_names or {}).get(c, c), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", color="#dddddd", lw=0.5)
        ax.set_axisbelow(True)
        ax.set_xlabel("value (higher is better)" if c == "properties" else "value, 95% interval", fontsize=7)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels([_mark(names[m]) if m in names else m for m in metrics], fontsize=7)
    # the answer highlighted: a box behind the name (a typeset name's maths takes no bold weight)
    for lab, m in zip(axes[0].get_yticklabels(), metrics):
        if m in set(recommended):
            lab.set_fontweight("bold")
            lab.set_bbox(dict(facecolor="#FFE08A", edgecolor="none", pad=1.2))
    axes[0].set_ylim(-0.7, n - 0.3)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", color=OKABE_ITO[4], markerfacecolor=OKABE_ITO[4],
                      label="kept (in the criterion's confidence set)"),
               Line2D([], [], marker="o", color=OKABE_ITO[4], markerfacecolor="white", label="eliminated"),
               Line2D([], [], marker="D", color=OKABE_ITO[4], markerfacecolor="white",
                      label="not judged (invariant by construction)"),
               Line2D([], [], marker="o", color=OKABE_ITO[7], markerfacecolor=OKABE_ITO[7],
                      label="not a candidate (the table says why)")]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=7, frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    fig.suptitle(title, fontsize=9)
    # fixed margins (tight_layout measures every label: half the figure's cost): room for the names on the left
    width, height = fig.get_size_inches()
    # (the characters drawn: a typeset name's markup takes no room)
    longest = max((len(re.sub(r"\\math\w+|\\|[{}$^_]", "", names.get(m, m))) for m in metrics), default=4)
    fig.subplots_adjust(left=min(0.4, (0.25 + 0.055 * longest) / width), right=0.98, wspace=0.12,
                        top=1 - 0.55 / height, bottom=0.75 / height)
    return fig


_LINESTYLES = ("-", "--", "-.", ":")


@plain_text
def design_plot(design, title: str = ""):
    """Test-set size design: left, each metric's minimum detectable
    difference against the number of units (log-log), the test set's own
    size marked; right, the swap rate measured on disjoint subsets (dots)
    and extrapolated (lines).  One colour, marker and line style per
    metric (Okabe & Ito's palette)."""
    ids = list(dict.fromkeys(design["metric"]))
    full = design[design["fraction"] == 1.0].set_index("metric")["min_detectable_difference"]
    ids.sort(key=lambda m: (not np.isfinite(full.get(m, np.nan)), full.get(m, np.inf)))  # most sensitive first
    n_units = int(design.loc[design["fraction"] == 1.0, "size"].iloc[0])
    unit = str(design["unit"].iloc[0])
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 5.2))
    fig.subplots_adjust(left=0.08, right=0.84, bottom=0.12, top=0.84, wspace=0.28)
    labels = dict(zip(ids, _metric_labels(ids)))
    beyond = False
    for i, mid in enumerate(ids):
        d = design[design["metric"] == mid].sort_values("size")
        # past the eighth metric the markers shift against the colours, so no two metrics share both
        marker = MARKERS[(i + 3 * (i // len(OKABE_ITO))) % len(MARKERS)]
        style = dict(color=OKABE_ITO[i % len(OKABE_ITO)], linestyle=_LINESTYLES[(i // len(OKABE_ITO)) % 4],
                     linewidth=1.3)
        # an MDD wider than the metric's range is no difference it can have: the line starts where it is one
        ok = d["within_range"].to_numpy(dtype=bool) if "within_range" in d else np.ones(len(d), dtype=bool)
        beyond |= not ok.all()
        axes[0].plot(d["size"].to_numpy()[ok], d["min_detectable_difference"].to_numpy()[ok], label=labels[mid],
                     marker=marker, markersize=3.5, markevery=2, **style)
        meas = d[np.isfinite(d["swap_rate"].to_numpy(dtype=float))]
        axes[1].plot(d["size"], d["swap_rate_fit"], **style)
        axes[1].plot(meas["size"], meas["swap_rate"], linestyle="none", marker=marker,
                     markersize=2.5, color=style["color"], alpha=0.8)
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    plain = FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")  # no mathtext: text is drawn as written
    # minor ticks at 2 and 5 of each decade only: the default 2..9 made the
    # ticks half of this figure's time
    few_decades = design["size"].max() / design["size"].min() < 100  # (label 2 and 5 too, or one tick shows)
    for ax in axes:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))  # a locator per axis: it keeps its axis
        ax.xaxis.set_minor_formatter(plain if few_decades else NullFormatter())
        ax.tick_params(which="both", labelsize=8)
        ax.axvline(n_units, color="0.35", linewidth=0.9, linestyle=":")
        ax.set_xlabel(f"test-set size ({unit}, log scale)")
        ax.grid(True, which="major", color="0.9", linewidth=0.6)
    axes[0].set_yscale("log")
    axes[0].yaxis.set_major_formatter(plain)
    axes[0].yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
    axes[0].yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axes[0].set_ylabel("minimum detectable difference (log scale)")
    axes[0].set_title(f"smallest difference detected with power {_design_power(design)}\n"
                      f"(dotted: this test set, {n_units:,} {unit}"
                      + (";\nlines begin where the difference fits the metric's range)" if beyond else ")"),
                      fontsize=9)
    axes[1].set_ylabel("swap rate (share of pairs ordered differently)")
    axes[1].set_title("swap rate on two disjoint subsets\n(dots: measured up to half the units; lines: "
                      "exponential fit)", fontsize=9)
    axes[1].set_ylim(bottom=0)
    handles, names = axes[0].get_legend_handles_labels()
    axes[1].legend(handles, names, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
                   title="metric", title_fontsize=8)
    fig.suptitle(title or "Test-set size design", fontsize=11)
    return fig


def _design_power(design) -> str:
    return f"{float(design['target_power'].iloc[0]):g}"


@plain_text
def cross_dataset_heatmap(long, title: str = ""):
    """Across datasets: per metric (rows) and dataset (columns, grouped by
    kind of task), the share of the criteria that judge the metric on which
    it is kept in the Model Confidence Set (the cell's number; n/a: not
    judged), with a black frame where the dataset's answer names the
    metric."""
    from matplotlib.patches import Rectangle

    datasets = list(dict.fromkeys(long.sort_values("kind", kind="stable")["dataset"]))
    kinds = long.drop_duplicates("dataset").set_index("dataset")["kind"]
    ids = list(dict.fromkeys(long["metric"]))
    judged = long[long["participant"].astype(bool) & long["counted"].astype(bool)]
    share = judged.assign(t=judged["in_set"].astype(bool)).groupby(["metric", "dataset"])["t"].mean()
    rec = long.groupby(["metric", "dataset"])["recommended"].any()
    m = np.array([[share.get((mid, d), np.nan) for d in datasets] for mid in ids], dtype=float)
    order = np.argsort(-np.nan_to_num(np.nanmean(np.where(np.isnan(m), 0, m), axis=1)), kind="stable")
    ids, m = [ids[i] for i in order], m[order]
    fig, ax = plt.subplots(figsize=(2.4 + 0.85 * len(datasets), 1.6 + 0.32 * len(ids)))
    im = _value_heatmap(ax, m, 0.0, 1.0, cmap="viridis", fmt="{:.0%}")
    for i, mid in enumerate(ids):
        for j, d in enumerate(datasets):
            if bool(rec.get((mid, d), False)):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=2))
    ax.set_xticks(range(len(datasets)), [f"{_wrap_name(d, 14)}\n({kinds[d]})" for d in datasets], fontsize=7,
                  rotation=30, ha="right")
    ax.set_yticks(range(len(ids)), _metric_labels(ids), fontsize=7.5)
    ax.set_xlabel("dataset (kind of task)")
    ax.set_ylabel("metric (most often kept first)")
    fig.colorbar(im, ax=ax, fraction=0.05).set_label("share of the criteria judging it on which it is kept",
                                                     fontsize=8)
    ax.set_title("framed: in the dataset's answer; n/a: not judged (not a candidate)", fontsize=8)
    fig.suptitle(title or "Across datasets", fontsize=11)
    return fig
