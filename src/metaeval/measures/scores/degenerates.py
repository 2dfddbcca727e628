"""The degenerate systems of scores (gameability): what a system that knows
nothing about the items, or only the test set's class prior, gets.

* ``all_<label>``: the one-hot vector of the label on every item (the
  scores metaeval gives its generated label baselines): a constant;
* ``prior_probability``: the test set's class prior on every item (C = 1:
  the positive class's share): a constant too, and perfectly calibrated in
  one bin, so ECE is 0 for it;
* ``random_score``: a score drawn at random for every item (C = 1: uniform
  on [0, 1]; C = K: a flat Dirichlet draw), from
  ``numpy.random.default_rng(seed)``.

A constant ties every item: ROC-AUC is 1/2 and AP the positive share; a
ranking within groups keeps the gold file's order, so MAP, MRR and AvgRec
of a constant are those of the gold file's order (for SemEval-2016 Task 3,
the search engine's: the IR baseline).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SCORE_DEGENERATES", "degenerate_values"]

SCORE_DEGENERATES = ("prior_probability", "random_score")


def degenerate_values(gold, labels, positive: int | None, seed: int) -> tuple[list[str], np.ndarray]:
    """(names, values (D, N, C)) of the degenerate systems: ``all_<label>``
    for every class, then ``SCORE_DEGENERATES``.  ``positive``: the
    positive class's code when the scores are one per item (C = 1), else
    None (one probability per class).

    Examples
    --------
    >>> names, v = degenerate_values([0, 1, 1, 1], ["a", "b"], positive=1, seed=0)
    >>> names[:3], v[:3, :, 0].tolist()
    (['all_a', 'all_b', 'prior_probability'], [[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [0.75, 0.75, 0.75, 0.75]])
    """
    gold = np.asarray(gold, dtype=np.int64)
    k, n = len(labels), gold.size
    prior = np.bincount(gold, minlength=k) / max(n, 1)
    rng = np.random.default_rng(seed)
    if positive is None:
        onehot = np.broadcast_to(np.eye(k)[:, None, :], (k, n, k))
        rows = [onehot, np.broadcast_to(prior, (1, n, k)), rng.dirichlet(np.ones(k), size=(1, n))]
    else:
        const = (np.arange(k) == positive).astype(np.float64)
        rows = [np.broadcast_to(const[:, None, None], (k, n, 1)), np.full((1, n, 1), prior[positive]),
                rng.random((1, n, 1))]
    return [f"all_{lab}" for lab in labels] + list(SCORE_DEGENERATES), np.concatenate(rows).astype(np.float64)
