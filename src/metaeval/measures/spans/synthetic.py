"""Synthetic systems: the gold, perturbed (for studying span metrics).

Part of ``metaeval.measures.spans`` (its docstring states the conventions).
"""

from __future__ import annotations

import numpy as np

from .model import Spans, merge_spans


PERTURBATIONS = ("jitter", "drop", "split", "spurious", "mixed")


def perturb_spans(gold: Spans, lengths: np.ndarray, kind: str, strength: float,
                  rng: np.random.Generator) -> Spans:
    """A system made from the gold spans by one kind of error, at a strength
    in [0, 1]:

    * ``jitter``: each boundary moves by up to ``strength`` x the median gold
      span length (uniform, independent per boundary), within the article;
    * ``drop``: each span is left out with probability ``strength``;
    * ``split``: each span is cut in two at a random inner point with
      probability ``strength`` (the pieces touch, so they stay two spans);
    * ``spurious``: ``strength`` x |gold| extra spans with gold-like lengths
      at uniform positions (articles drawn by length);
    * ``mixed``: all four, each at the strength.

    The result is merged (overlaps a perturbation made are joined).

    Examples
    --------
    >>> import numpy as np
    >>> gold = Spans(article=[0], start=[2], end=[9], label=[])
    >>> perturb_spans(gold, np.array([20]), "jitter", 0.5, np.random.default_rng(0)).as_array().tolist()
    [[0, 5, 10, 0]]
    """
    if kind == "mixed":
        out = gold
        for k in ("drop", "jitter", "split", "spurious"):
            out = perturb_spans(out, lengths, k, strength, rng)
        return out
    n = len(gold)
    if kind == "jitter":
        w = int(round(strength * float(np.median(gold.end - gold.start)))) if n else 0
        s = gold.start + rng.integers(-w, w + 1, n)
        e = gold.end + rng.integers(-w, w + 1, n)
        lim = lengths[gold.article]
        s = np.clip(s, 0, lim - 1)
        e = np.clip(np.maximum(e, s + 1), 1, lim)
        out = Spans(gold.article, s, e, gold.label)
    elif kind == "drop":
        out = gold.take(rng.random(n) >= strength)
    elif kind == "split":
        cut = (rng.random(n) < strength) & (gold.end - gold.start >= 2)
        at = gold.start + 1 + np.floor(rng.random(n) * np.maximum(gold.end - gold.start - 1, 1)).astype(np.int64)
        first = Spans(gold.article, gold.start, np.where(cut, at, gold.end), gold.label)
        second = gold.take(cut)
        second = Spans(second.article, at[cut], second.end, second.label)
        out = Spans(*(np.concatenate([getattr(first, f), getattr(second, f)])
                      for f in ("article", "start", "end", "label")))
    elif kind == "spurious":
        extra = random_spans(lengths, (gold.end - gold.start) if n else np.array([10]), int(round(strength * n)),
                             rng)
        out = Spans(*(np.concatenate([getattr(gold, f), getattr(extra, f)])
                      for f in ("article", "start", "end", "label")))
    else:
        raise ValueError(f"unknown perturbation {kind!r}; known: {', '.join(PERTURBATIONS)}")
    # overlaps of one label are joined; spans of different labels stay apart (a labelled gold keeps its labels)
    return merge_spans(out, by_label=True)


def random_spans(lengths: np.ndarray, span_lengths: np.ndarray, m: int, rng: np.random.Generator) -> Spans:
    """``m`` spans at uniform positions, unmerged and unlabelled: each in a
    document drawn with probability proportional to its length, its length
    drawn from ``span_lengths`` (with replacement; cut to the document's
    length), its start uniform among the positions where it fits.

    Examples
    --------
    >>> import numpy as np
    >>> random_spans(np.array([20, 30]), np.array([4, 6]), 2, np.random.default_rng(1)).as_array().tolist()
    [[1, 25, 29, 0], [0, 4, 10, 0]]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    if m <= 0 or lengths.sum() <= 0:
        return Spans.empty()
    ln = rng.choice(np.asarray(span_lengths, dtype=np.int64), m)
    art = rng.choice(lengths.size, m, p=lengths / lengths.sum())
    ln = np.minimum(ln, lengths[art])
    s = np.floor(rng.random(m) * (lengths[art] - ln + 1)).astype(np.int64)
    return Spans(art, s, s + ln, np.zeros(m, dtype=np.int64))


def synthetic_systems(gold: Spans, lengths, kinds=PERTURBATIONS, strengths=(0.1, 0.25, 0.5, 0.75),
                      seed: int = 0) -> dict[str, Spans]:
    """``{"<kind>_<strength>": spans}``, one system per kind and strength,
    each from its own random stream (``default_rng([seed, kind, strength])``),
    so adding a kind or a strength does not change the others.

    Examples
    --------
    >>> import numpy as np
    >>> sorted(synthetic_systems(Spans(article=[0], start=[2], end=[9], label=[]), np.array([20]), ("drop",), (0.5,), 1))
    ['drop_0.5']
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    out = {}
    for ki, kind in enumerate(kinds):
        if kind not in PERTURBATIONS:
            raise ValueError(f"unknown perturbation {kind!r}; known: {', '.join(PERTURBATIONS)}")
        for st in strengths:
            rng = np.random.default_rng([int(seed), PERTURBATIONS.index(kind), int(round(st * 1e6))])
            out[f"{kind}_{st:g}"] = perturb_spans(gold, lengths, kind, float(st), rng)
    return out
