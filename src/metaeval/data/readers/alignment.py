"""Technique classification: the submission covers the gold spans; labels paired to maximise matches.

Part of ``metaeval.measures.spans`` (its docstring states the conventions).
"""

from __future__ import annotations

import numpy as np

from ..files import Problem
from ...measures.spans.model import Spans
from ...measures.spans.statistics import row_keys


def align_tc(gold: Spans, pred: Spans, article_names, path: str, lines=None, unit: str = "line"
             ) -> tuple[np.ndarray, list[Problem]]:
    """The predicted label of every gold instance, as the official TC scorer
    pairs them, or the problems that prevent scoring.

    The submission must hold exactly the gold's offsets: the same articles,
    the same (start, end) pairs, the same count per offset.  Where several
    gold instances share an offset, the predicted labels on it are paired
    with them so that as many as possible match (equal labels first, the
    rest in order).  Returns ``labels`` aligned with ``gold``'s order.
    ``lines``: where each predicted span was read (``unit``: lines of a
    file, or rows in memory), for the messages.

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 10], end=[4, 14], label=[1, 2])
    >>> pred = Spans(article=[0, 0], start=[10, 0], end=[14, 4], label=[2, 0])
    >>> labels, problems = align_tc(gold, pred, ["a"], "p.txt")
    >>> labels.tolist(), problems            # the predicted technique of each gold span, in gold order
    ([0, 2], [])
    """
    n_g = len(gold)
    offs = row_keys(np.concatenate([gold.article, pred.article]), np.concatenate([gold.start, pred.start]),
                 np.concatenate([gold.end, pred.end]))
    og, op = offs[:n_g], offs[n_g:]
    k = int(offs.max()) + 1 if offs.size else 0
    cg, cp = np.bincount(og, minlength=k), np.bincount(op, minlength=k)
    if not np.array_equal(cg, cp):
        problems = []
        g_first = {int(o): i for i, o in reversed(list(enumerate(og)))}
        p_first = {int(o): i for i, o in reversed(list(enumerate(op)))}
        missing = np.flatnonzero(cg > cp)
        extra = np.flatnonzero(cp > cg)
        if missing.size:
            ex = [g_first[int(o)] for o in missing[:5]]
            n = int((cg - cp)[missing].sum())
            problems.append(Problem(path, None, f"{n:,} gold span(s) have no prediction (a TC submission labels "
                                                f"exactly the gold spans), e.g. " + ", ".join(
                f"article {article_names[int(gold.article[i])]!r} [{int(gold.start[i])}, {int(gold.end[i])})"
                for i in ex), "missing", n))
        for o in extra[:20]:
            i = p_first[int(o)]
            problems.append(Problem(path, None if lines is None else lines[i],
                                    f"span [{int(pred.start[i])}, {int(pred.end[i])}) of article "
                                    f"{article_names[int(pred.article[i])]!r} is not a gold span"
                                    + ("" if cg[o] == 0 else f" that many times ({int(cp[o])} vs {int(cg[o])} in the gold)"),
                                    "not_in_gold", unit=unit))
        if extra.size > 20:
            problems.append(Problem(path, None, f"... {extra.size - 20} more spans that are not gold spans",
                                    "not_in_gold", int(extra.size - 20)))
        return np.zeros(0, dtype=np.int64), problems
    # pair within each offset: rank every instance among equal (offset, label)
    # pairs; ranks below min(gold count, predicted count) are matches
    lab_k = int(max(gold.label.max(initial=0), pred.label.max(initial=0))) + 1
    kg, kp = og * lab_k + gold.label, op * lab_k + pred.label
    m = np.minimum(np.bincount(kg, minlength=k * lab_k), np.bincount(kp, minlength=k * lab_k))
    rank_g, rank_p = _rank_within(kg), _rank_within(kp)
    match_g, match_p = rank_g < m[kg], rank_p < m[kp]
    out = np.full(n_g, -1, dtype=np.int64)
    out[match_g] = gold.label[match_g]
    # the unmatched predictions of an offset go to its unmatched gold instances, in order
    ug, up = np.flatnonzero(~match_g), np.flatnonzero(~match_p)
    ug = ug[np.lexsort((gold.label[ug], og[ug]))]
    up = up[np.lexsort((pred.label[up], op[up]))]
    out[ug] = pred.label[up]
    return out, []


def _rank_within(keys: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... among the elements with the same key, in array order."""
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    start = np.r_[0, np.flatnonzero(sk[1:] != sk[:-1]) + 1]
    pos = np.arange(keys.size) - np.repeat(start, np.diff(np.r_[start, keys.size]))
    out = np.empty(keys.size, dtype=np.int64)
    out[order] = pos
    return out
