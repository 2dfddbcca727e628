"""One call on label lists: the score of one system, as scikit-learn's
metrics take them (``metaeval.score``).

Every metric of the registry is a function of a confusion tensor whose
rows are the predictions and whose columns are the gold classes
(``c[i, j]`` = items predicted i whose gold class is j): the transpose of
scikit-learn's ``confusion_matrix(y_true, y_pred)``, whose rows are the
true classes.  ``score`` builds that tensor from two label lists, or takes
a matrix whose orientation is named in the call; a square matrix without
its orientation is refused, since nothing in it says which way it reads
(``macro_recall`` of a transposed matrix is macro precision).

Examples
--------
>>> y_true = ["pos", "neg", "neg", "pos", "neu", "neg"]
>>> y_pred = ["pos", "neg", "pos", "pos", "neu", "neu"]
>>> round(score(y_true, y_pred, "macro_recall"), 4)   # balanced accuracy
0.7778
>>> {k: round(v, 4) for k, v in score(y_true, y_pred, ["accuracy", "kappa"]).items()}
{'accuracy': 0.6667, 'kappa': 0.52}
>>> from sklearn.metrics import confusion_matrix
>>> cm = confusion_matrix(y_true, y_pred, labels=["neg", "neu", "pos"])   # rows: the true classes
>>> round(score(confusion=cm, metric="macro_recall", orientation="true_rows"), 4)
0.7778
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .measures import labels as M
from .engine.confusion import confusion_tensor

__all__ = ["score", "ORIENTATIONS"]

# how a given matrix reads: its rows are the true (gold) classes, as scikit-learn's confusion_matrix, or the
# predicted ones, as metaeval's tensors
ORIENTATIONS = {"true_rows": "true_rows", "sklearn": "true_rows", "pred_rows": "pred_rows", "metaeval": "pred_rows"}


def _labels(y_true, y_pred, labels) -> list:
    if labels is not None:
        labels = list(labels)
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels: each label once, got {labels}")
        unknown = sorted((set(y_true) | set(y_pred)) - set(labels), key=repr)
        if unknown:
            from .data.label_checks import near_duplicates

            like = [f"{u!r} reads as {a!r} ({how})" for u in unknown if isinstance(u, str)
                    for a, _, how in near_duplicates([str(x) for x in labels if isinstance(x, str)] + [u])
                    if _ == u]
            raise ValueError(f"labels {unknown} of y_true or y_pred are not in labels={labels}"
                             + (f": {'; '.join(like)}" if like else ""))
        return labels
    texts = [x for x in dict.fromkeys(list(y_true) + list(y_pred)) if isinstance(x, str)]
    from .data.label_checks import near_duplicates

    twins = near_duplicates(texts)
    if twins:  # (scikit-learn would score them as two classes, in silence)
        a, b, how = twins[0]
        raise ValueError(f"y_true and y_pred hold the labels {a!r} and {b!r}, which differ only by {how}: as two "
                         f"classes they would split one. Fix the labels; if they are distinct classes, name every "
                         f"class with labels=[...]")
    try:  # as scikit-learn: the sorted labels of both lists
        return sorted(set(y_true) | set(y_pred))
    except TypeError:
        raise ValueError("y_true and y_pred mix labels that do not sort (e.g. numbers and texts): give labels=[...] "
                         "in their order") from None


def _params(labels: Sequence, weights, f_avg_classes, unrelated_label, positions, positive_class=None) -> dict:
    """The metrics' parameters, given by label, as class positions."""
    index = {lab: i for i, lab in enumerate(labels)}

    def pos(lab, what):
        if lab not in index:
            raise ValueError(f"{what}: {lab!r} is not one of the labels {list(labels)}")
        return index[lab]

    out = {}
    if weights is not None:
        if isinstance(weights, Mapping):
            missing = [lab for lab in labels if lab not in weights]
            if missing or set(weights) - set(labels):
                raise ValueError(f"weights: one weight per label {list(labels)}, got {dict(weights)}")
            weights = [weights[lab] for lab in labels]
        out["weights"] = np.asarray(weights, dtype=np.float64)
    if f_avg_classes is not None:
        out["f_avg_classes"] = tuple(pos(lab, "f_avg_classes") for lab in f_avg_classes)
    if unrelated_label is not None:
        out["unrelated"] = pos(unrelated_label, "unrelated_label")
    if positive_class is not None:
        out["positive"] = pos(positive_class, "positive_class")
    if positions is not None:
        out["positions"] = np.asarray(positions, dtype=np.float64)
    return out


def score(y_true=None, y_pred=None, metric: str | Sequence[str] = "accuracy", *, labels: Sequence | None = None,
          confusion=None, orientation: str | None = None, weights=None, f_avg_classes: Sequence | None = None,
          unrelated_label=None, positive_class=None,
          positions: Sequence[float] | None = None, items: Sequence | None = None) -> float | dict[str, float]:
    """The score of one system on label lists (or on a confusion matrix).

    Parameters
    ----------
    y_true, y_pred : sequence
        The gold and the predicted label of every item, in the same order
        (any hashable labels), as scikit-learn reads them; two pandas
        Series must have the same index (their items in the same order).
    metric : str or sequence of str
        A metric id (``metaeval.measures.labels.METRIC_IDS``), or several.
    labels : sequence, optional
        The classes in their order (ordinal metrics and class positions
        read it); default: the sorted labels of both lists, as
        scikit-learn's.
    confusion : array_like, shape (K, K), optional
        A confusion matrix instead of the lists; ``orientation`` must say
        how it reads, and ``labels`` (optional) names its classes.
    orientation : {"true_rows", "sklearn", "pred_rows", "metaeval"}
        ``true_rows`` (``sklearn``): rows are the true classes, as
        ``sklearn.metrics.confusion_matrix(y_true, y_pred)``;
        ``pred_rows`` (``metaeval``): rows are the predicted classes, as
        metaeval's tensors.  Required with ``confusion``.
    weights : mapping or sequence, optional
        Class weights of the weighted metrics (``wauc``, ``wf1``, ``wf2``):
        ``{label: weight}``, or one per label in ``labels``' order.
    f_avg_classes : sequence, optional
        The labels F_avg averages (``f_avg``).
    unrelated_label : optional
        The FNC-1 score's unrelated class (``fnc_score``).
    positive_class : optional
        The class of the one-class metrics (``f1_class``,
        ``precision_class``, ``recall_class``), as scikit-learn's
        ``pos_label``.
    positions : sequence of float, optional
        The classes' numeric positions (MAE, linear kappa, interval alpha);
        default 0 .. K-1.
    items : sequence, optional
        The item ids, for a metric of per-item terms
        (``metaeval.measures.items``; default: the index of a pandas Series
        ``y_true``, else ``"0"`` .. ``"N-1"``).

    Returns
    -------
    float, or dict of str to float
        One metric: its score; several: ``{metric: score}``.

    Raises
    ------
    ValueError
        Lists of different lengths or empty, a label outside ``labels``, a
        matrix that is not square or without its orientation, an unknown
        metric id or a metric missing its parameter.

    Examples
    --------
    >>> score([0, 1, 1, 2], [0, 1, 2, 2], "macro_f1")
    0.7777777777777777
    >>> score(["yes", "no", "yes"], ["yes", "yes", "yes"], "f1_class", positive_class="yes")
    0.8
    >>> score(confusion=[[2, 1], [0, 3]], metric="accuracy")
    Traceback (most recent call last):
    ...
    ValueError: confusion: a square matrix does not say which way it reads: name it, orientation='true_rows' (rows are the true classes, as sklearn.metrics.confusion_matrix) or 'pred_rows' (rows are the predictions, as metaeval's tensors)
    """
    ids = [metric] if isinstance(metric, str) else list(metric)
    if not ids:
        raise ValueError("metric: at least one metric id")
    for mid in ids:
        try:
            M.get(mid)  # (a span metric id is refused below, by what it scores)
        except KeyError:
            raise KeyError(f"unknown metric {mid!r}{M.closest([mid], M.METRIC_IDS)}; known: "
                           f"{', '.join(M.METRIC_IDS)}") from None
    y_true_index = None
    if confusion is not None:
        if y_true is not None or y_pred is not None:
            raise ValueError("give y_true and y_pred, or confusion, not both")
        if orientation is None:
            raise ValueError("confusion: a square matrix does not say which way it reads: name it, "
                             "orientation='true_rows' (rows are the true classes, as "
                             "sklearn.metrics.confusion_matrix) or 'pred_rows' (rows are the predictions, as "
                             "metaeval's tensors)")
        if orientation not in ORIENTATIONS:
            raise ValueError(f"orientation: one of {', '.join(map(repr, ORIENTATIONS))}, got {orientation!r}")
        c = np.asarray(confusion)
        if c.ndim != 2 or c.shape[0] != c.shape[1] or c.shape[0] < 1:
            raise ValueError(f"confusion: a square K x K matrix, got shape {c.shape}")
        if not np.issubdtype(c.dtype, np.number) or (c < 0).any() or not np.all(c == np.round(c)):
            raise ValueError("confusion: counts of items (non-negative integers)")
        c = c.astype(np.int64)
        if ORIENTATIONS[orientation] == "true_rows":
            c = c.T  # metaeval's c[i, j]: predicted i, gold j
        labels = list(range(c.shape[0])) if labels is None else list(labels)
        if len(labels) != c.shape[0]:
            raise ValueError(f"labels: {c.shape[0]} classes for a {c.shape[0]} x {c.shape[0]} matrix, got {labels}")
    else:
        if y_true is None or y_pred is None:
            raise ValueError("give y_true and y_pred (or confusion= with its orientation)")
        y_true_index = list(y_true.index) if hasattr(y_true, "index") and not isinstance(y_true, (list, tuple)) \
            else None
        if y_true_index is not None and hasattr(y_pred, "index") and not isinstance(y_pred, (list, tuple)) \
                and list(y_pred.index) != y_true_index:  # two indexes that disagree: by position would ignore them
            raise ValueError("y_true and y_pred: two pandas Series whose indexes differ (other items or another "
                             "order); score() reads both in order, as scikit-learn does: align them first, e.g. "
                             "y_pred.reindex(y_true.index), or use metaeval.evaluate, which matches by index")
        y_true, y_pred = list(y_true), list(y_pred)
        if len(y_true) != len(y_pred) or not y_true:
            raise ValueError(f"y_true and y_pred: one label per item each, got {len(y_true)} and {len(y_pred)}")
        for what, values in (("y_true", y_true), ("y_pred", y_pred)):
            missing = [i for i, x in enumerate(values) if x is None or (isinstance(x, float) and x != x)]
            if missing:
                raise ValueError(f"{what}: no label (None or NaN) at position {missing[0]}"
                                 + (f" and {len(missing) - 1} more" if len(missing) > 1 else "")
                                 + ": every item needs a label")
        labels = _labels(y_true, y_pred, labels)
        index = {lab: i for i, lab in enumerate(labels)}
        code = np.array([index[x] for x in y_true + y_pred], dtype=np.int64)
        c = confusion_tensor(code[:len(y_true)], code[len(y_true):], len(labels))
        gold_codes, pred_codes = code[:len(y_true)], code[len(y_true):]
    params = _params(labels, weights, f_avg_classes, unrelated_label, positions, positive_class)
    from .measures.items import ItemMetric  # (a module of the measures floor)

    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for mid in ids:
            m = M.get(mid)
            if isinstance(m, ItemMetric):  # per-item terms: of the label lists, not of a matrix
                if confusion is not None:
                    raise ValueError(f"{mid!r} is a metric of per-item terms: give y_true and y_pred, not a matrix")
                if items is None:  # a Series' index gives the item ids (as evaluate's), else their positions
                    items = y_true_index if y_true_index is not None else range(len(y_true))
                ids_ = [str(i) for i in items]
                if len(ids_) != len(y_true):
                    raise ValueError(f"items: one id per item, got {len(ids_)} for {len(y_true)} items")
                out[mid] = float(m(m.statistics(gold_codes, pred_codes[None, :], ids_).sum(axis=1))[0])
                continue
            if not isinstance(m, M.Metric):
                raise ValueError(f"{mid!r} is a span metric: it scores spans (metaeval.measures.spans), not labels")
            out[mid] = float(m(c, **params))
    return out[ids[0]] if isinstance(metric, str) else out
