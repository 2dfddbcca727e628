r"""Metrics of rankings within groups: MAP, MRR and AvgRec as SemEval-2016
Task 3 (Nakov et al. 2016) scores a run, each a sum over the groups
(questions), so that a resample of whole groups is a weight per group.

A system gives each item (a comment, a related question) a real score;
within each group its items are ranked by decreasing score.  Conventions
of the official scorer (``_scorer/ev.py`` and ``metrics.py`` of the task's
distribution, default options), each reproduced to the printed digits on
every official run of ``semeval2016t3_b`` and ``semeval2016t3_c``
(``tests/test_score_data.py``):

* **Ties** keep the items' order in the gold file (the scorer's sort is
  stable, also when reversed), so the order of the gold file is part of
  the metric.
* **Depth** :math:`d = 10`: only the first ten ranks of a group count.
* **AP** of a group: the mean of precision@i over the ranks
  :math:`i \le d` that hold a relevant item, i.e. divided by the number of
  relevant items *retrieved in the top d*, not by all relevant items of the
  group; 0 when none is retrieved.
* **MAP**: the mean of AP over all groups, groups without a relevant item
  included (they count 0, so MAP cannot reach 1 on such data).
* **MRR**: the mean over all groups of :math:`1 / r_q`, :math:`r_q` the
  rank of the first relevant item if it is within the top d, else 0.  The
  scorer prints it times 100; metaeval keeps it in [0, 1].
* **AvgRec**: the mean over :math:`k = 1..d` of
  :math:`\sum_q \mathrm{hits}_k(q) / \sum_q \min(k, R_q)`,
  :math:`\mathrm{hits}_k(q)` the relevant items in the top k of group q and
  :math:`R_q` its relevant items; NaN when no group has a relevant item.

``terms`` gives each group's statistics (AP, RR, 1, hits@1..d,
min(k, R)@1..d) and ``combine`` the metrics of their (weighted) sums: MAP,
MRR and AvgRec of one set of groups or of thousands of resamples are one
matrix product apart.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEPTH", "terms", "combine", "n_terms"]

DEPTH = 10  # the official scorer's threshold (th=10)


def n_terms(depth: int = DEPTH) -> int:
    """The number of statistics per group: AP, RR, count, hits@k, min(k, R)@k.

    >>> n_terms(), n_terms(5)
    (23, 13)
    """
    return 3 + 2 * depth


def terms(scores, y, groups, n_groups: int | None = None, depth: int = DEPTH) -> np.ndarray:
    """Each group's ranking statistics for every system: (G, S, 3 + 2d).

    Parameters
    ----------
    scores : array of shape (S, N) or (N,)
        Each system's score per item, items in the gold file's order (ties
        keep it).
    y : array of shape (N,) or (R, N)
        1 for a relevant item, 0 for another; one gold per row (label
        noise) gives (R, G, S, 3 + 2d).
    groups : array of shape (N,)
        Each item's group code in ``0 .. n_groups - 1``.

    Examples
    --------
    >>> t = terms([0.9, 0.8, 0.7, 0.1], [0, 1, 0, 1], [0, 0, 0, 0])
    >>> combine(t.sum(axis=0))["map"]  # ranks 2 and 4 relevant: (1/2 + 2/4) / 2
    array([0.5])
    """
    s = np.asarray(scores, dtype=np.float64)
    s = s[None, :] if s.ndim == 1 else s
    y = np.asarray(y).astype(bool)
    g = np.asarray(groups, dtype=np.int64)
    n = s.shape[1]
    if y.shape[-1:] != (n,) or y.ndim > 2 or g.shape != (n,):
        raise ValueError(f"scores (S, N), gold (N,) or (R, N) and groups (N,): got {s.shape}, {y.shape} and {g.shape}")
    rows = y.ndim == 2
    yr = y if rows else y[None, :]  # (R, N): a gold per row (label noise), else one
    r = yr.shape[0]
    q = int(g.max()) + 1 if n_groups is None else int(n_groups)
    out = np.zeros((r, q, s.shape[0], n_terms(depth)))
    out[..., 2] = 1.0
    relevant = np.stack([np.bincount(g, weights=row, minlength=q) for row in yr]) if rows else \
        np.bincount(g, weights=y, minlength=q)[None, :]  # R_q
    out[..., 3 + depth:] = np.minimum(np.arange(1, depth + 1), relevant[..., None])[:, :, None, :]
    pos = np.arange(n)
    first = np.zeros(q + 1, dtype=np.int64)  # the first position of each group once sorted by group
    first[1:] = np.cumsum(np.bincount(g, minlength=q))
    offset = (np.arange(r) * q)[:, None]  # row r's groups are r * q + group: one bincount for every row
    for k, row in enumerate(s):  # a loop over the systems (few), never over items, groups or rows
        order = np.lexsort((pos, -row, g))  # by group, then decreasing score, then the gold order
        rank = pos - first[g[order]]  # 0-based rank within the group
        keep = rank < depth  # only the top d of each group counts: the rest is never read again
        order, rank = order[keep], rank[keep]
        go = g[order]
        start = np.searchsorted(go, np.arange(q))  # each group's first kept position
        top = yr[:, order]  # (R, kept): relevant items among each group's top d
        hits = np.cumsum(top, axis=1)
        before = np.concatenate([np.zeros((r, 1), hits.dtype), hits], axis=1)[:, start[go]]
        cum = hits - before  # relevant items retrieved down to this rank (inclusive)
        prec = np.where(top, cum / (rank + 1.0), 0.0)
        idx = (offset + go[None, :]).ravel()
        found = np.bincount(idx, weights=top.ravel(), minlength=r * q).reshape(r, q)
        ap = np.bincount(idx, weights=prec.ravel(), minlength=r * q).reshape(r, q)
        out[:, :, k, 0] = np.divide(ap, found, out=np.zeros((r, q)), where=found > 0)
        first_hit = np.full(r * q, np.inf)
        rr, ii = np.nonzero(top)
        np.minimum.at(first_hit, rr * q + go[ii], rank[ii] + 1.0)
        out[:, :, k, 1] = (1.0 / first_hit).reshape(r, q)  # 0 where no relevant item is in the top d
        at = np.zeros((r * q, depth))
        np.add.at(at, (rr * q + go[ii], rank[ii]), 1.0)
        out[:, :, k, 3:3 + depth] = np.cumsum(at, axis=1).reshape(r, q, depth)  # hits@k for k = 1..d
    return out if rows else out[0]


def combine(sums, depth: int = DEPTH) -> dict[str, np.ndarray]:
    """MAP, MRR and AvgRec of summed group statistics (..., S, 3 + 2d).

    >>> t = terms([[0.9, 0.8, 0.1, 0.7]], [1, 0, 0, 1], [0, 0, 1, 1])  # group 1: its relevant item first
    >>> {k: v.round(4).tolist() for k, v in combine(t.sum(axis=0)).items()}
    {'map': [1.0], 'mrr': [1.0], 'avg_recall': [1.0]}
    """
    t = np.asarray(sums, dtype=np.float64)
    count = t[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        rec = t[..., 3:3 + depth] / t[..., 3 + depth:]
        return {"map": t[..., 0] / count, "mrr": t[..., 1] / count,
                "avg_recall": np.where((t[..., 3 + depth:] > 0).all(-1), rec.mean(-1), np.nan)}
