"""Chance levels: the scores of guessers that never look at an item, from
their expected confusion matrices (exact, no sampling).

A guesser that predicts class i with probability q_i, whatever the item,
fills the confusion matrix (``c[i, j]``: predicted i, gold j) of a test set
with gold class counts n_j, in expectation, as

    E[c_ij] = q_i * n_j.

Three guessers (``GUESSERS``):

* ``uniform``: q_i = 1 / K (a fair K-sided die);
* ``prior``: q_i = n_i / N, the gold distribution of the scored items (the
  prior-matched or "stratified" guesser);
* ``majority``: q = the most frequent gold class with probability 1 (ties:
  the first in label order, as the ``majority`` baseline).  Its confusion
  matrix is not random at all: its chance level is the ``majority``
  baseline's score.

The chance level of a metric is the metric of the expected confusion matrix
(a matrix of real numbers; every metric of the registry takes one).  This is
the convention of Kaushal et al. (2021), whose "Random" rows of Table 3 are
the uniform guesser's values (0.333 / 0.353 / 0.313 accuracy / F1_Wtd /
F1_Macro on SemEval-2016 Task 6): a random draw would not give exactly 1/3
and 1/4 accuracy.  For metrics that are not linear in the confusion matrix
(F1, kappa, GMR, ...) it is not the expected score of a random draw, which
differs from it by O(1/N).

Chance levels are defined for classification metrics; span metrics have no
confusion matrix and get none.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from . import labels as M

__all__ = ["GUESSERS", "guesser_distributions", "expected_confusion", "chance_scores", "above_chance"]

GUESSERS = ("uniform", "prior", "majority")


def guesser_distributions(gold_counts) -> np.ndarray:
    """(3, K): the prediction distribution q of each guesser of ``GUESSERS``
    on a test set with these gold class counts.

    Examples
    --------
    >>> guesser_distributions([6, 3, 1]).round(3).tolist()   # uniform, prior, majority
    [[0.333, 0.333, 0.333], [0.6, 0.3, 0.1], [1.0, 0.0, 0.0]]
    """
    n = np.asarray(gold_counts, dtype=float)
    if n.ndim != 1 or n.size < 1 or (n < 0).any() or n.sum() <= 0:
        raise ValueError(f"gold_counts must be K >= 1 non-negative counts with a positive sum, got {n!r}")
    k = n.size
    q = np.zeros((len(GUESSERS), k))
    q[0] = 1.0 / k
    q[1] = n / n.sum()
    q[2, int(np.argmax(n))] = 1.0  # argmax: the first of tied classes
    return q


def expected_confusion(gold_counts, q=None) -> np.ndarray:
    """Expected confusion matrices E[c_ij] = q_i n_j, shape (..., K, K) for
    ``q`` of shape (..., K); by default the three guessers (3, K, K).

    Examples
    --------
    >>> expected_confusion([6, 3, 1], [0.6, 0.3, 0.1]).round(2).tolist()   # E[c_ij] = q_i n_j
    [[3.6, 1.8, 0.6], [1.8, 0.9, 0.3], [0.6, 0.3, 0.1]]
    """
    n = np.asarray(gold_counts, dtype=float)
    q = guesser_distributions(n) if q is None else np.asarray(q, dtype=float)
    if q.shape[-1] != n.size:
        raise ValueError(f"q has {q.shape[-1]} classes, gold_counts {n.size}")
    return q[..., :, None] * n[None, :]


def chance_scores(gold_counts, metric_ids: Sequence[str], params: Mapping | None = None) -> pd.DataFrame:
    """One row per guesser (``guesser`` column, in ``GUESSERS`` order), one
    column per metric: the metric of the guesser's expected confusion
    matrix.  ``params``: the metrics' parameters (``DatasetSpec.metric_params``).

    Examples
    --------
    >>> chance_scores([6, 3, 1], ["accuracy", "macro_f1"]).round(3)
        guesser  accuracy  macro_f1
    0   uniform     0.333     0.299
    1     prior     0.460     0.333
    2  majority     0.600     0.250
    """
    c = expected_confusion(gold_counts)
    scores = M.evaluate(c, list(metric_ids), **dict(params or {}))
    df = pd.DataFrame({"guesser": list(GUESSERS)})
    for mid in metric_ids:
        df[mid] = np.asarray(scores[mid], dtype=float)
    return df


def above_chance(scores: pd.DataFrame, chance: pd.DataFrame, metric_ids: Sequence[str]) -> pd.DataFrame:
    """How far each system is above every chance level, in the metric's
    direction: score - chance where higher is better, chance - score where
    lower is better (MAE), so a positive margin is always better than
    chance.  Long form: ``system, kind, metric, score`` and, per guesser,
    ``chance_<guesser>`` and ``above_<guesser>``.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({"system": ["a"], "kind": ["system"], "accuracy": [0.7]})
    >>> margins = above_chance(scores, chance_scores([6, 3, 1], ["accuracy"]), ["accuracy"])
    >>> margins[["system", "above_uniform", "above_prior", "above_majority"]].round(3)
      system  above_uniform  above_prior  above_majority
    0      a          0.367         0.24             0.1
    """
    rows = []
    levels = chance.set_index("guesser")
    for mid in metric_ids:
        sign = 1.0 if M.get(mid).higher_is_better else -1.0
        part = pd.DataFrame({"system": scores["system"], "kind": scores["kind"], "metric": mid,
                             "score": scores[mid].astype(float)})
        for g in GUESSERS:
            level = float(levels.loc[g, mid])
            part[f"chance_{g}"] = level
            part[f"above_{g}"] = sign * (part["score"] - level)
        rows.append(part)
    cols = ["system", "kind", "metric", "score"] + [f"{p}_{g}" for g in GUESSERS for p in ("chance", "above")]
    return pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)
