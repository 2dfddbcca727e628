"""Metrics that users bring: declared, registered beside the built-in ones,
and held to their contract before any work.

A custom metric is a function of confusion tensors, as every built-in one
(``metaeval.measures.labels``)::

    def my_metric(c, **params):      # c: (..., K, K) floats, c[..., i, j] = items predicted i, gold j
        ...                          # returns (...): one score per matrix, no loop over matrices

with a declared contract: which way is better (``higher_is_better``), the
range of its values (``range``, ``[low, high]``, ``None`` for an open
end), what it needs (``needs``: ``ordinal`` for ordered classes, and the
dataset keys it reads, passed as keywords: ``weights`` -> ``weights=``,
``positive_class`` -> ``positive=``, ``f_avg_classes`` -> ``classes=``,
``unrelated_label`` -> ``unrelated=``; ``positions`` -> ``positions=``, the
classes' numeric positions, default 0 .. K-1), a display ``name``, a
``latex`` name and a ``reference``.

It is registered from the config (a ``custom_metrics:`` block, for all
datasets or in one dataset's block: ``function`` is ``path/to/file.py:name``,
absolute or relative to the config file, or ``package.module:name``), from
the library (``register_metric``, or ``metrics={"mine": fn}`` in the
one-call functions) or from the command line (``--metric-module``), and
listed in ``metrics:`` by its id.  From then on it is a metric like the
others: scores, intervals, significance, every experiment, formal
properties, chance levels, gameability, the verdict and the report.

The contract is checked (``check``) on matrices made for the purpose
(every class present, one missing, a perfect and a constant system) when
the metric is registered, and on the dataset's own matrices before any
result is written.  A function that returns the wrong shape, a value
outside its range or an infinite one, NaN on a matrix where no class is
missing from the gold or the predictions, that answers differently
batched and one matrix at a time, or raises, is refused with the metric's
name, what was expected and what was found.

The workflow reruns exactly what reads a custom metric when its code
changes: the SHA-256 of the file that defines the function and of the
modules it imports from its own folder (``fingerprint``) is part of the rule
params of every step of the datasets that compute it.  An installed package
it imports is not followed: ``snakemake --forcerun`` after upgrading one.

Examples
--------
>>> import numpy as np
>>> def worst_recall(c):
...     tp = np.diagonal(c, axis1=-2, axis2=-1)
...     gold = c.sum(axis=-2)
...     return np.where(gold > 0, tp / np.where(gold > 0, gold, 1), 1.0).min(axis=-1)
>>> m = register_metric("worst_recall", worst_recall, higher_is_better=True, range=(0, 1), name="min R")
>>> from metaeval.measures import labels as M
>>> float(M.get("worst_recall")([[5, 1], [0, 4]]))
0.8
>>> unregister_metric("worst_recall")
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from . import labels as M

__all__ = ["register_metric", "unregister_metric", "register_item_metric", "unregister_item_metric", "ItemMetric", "declare", "register_declared", "load_module", "check",
           "check_registered", "check_shape",
           "is_custom", "resolve", "fingerprint", "MetricContractError", "NEEDS", "KEYS"]

# what a metric may need: ordered classes, and the dataset keys it reads (the metric parameter each gives)
NEEDS = {"ordinal": None, "positions": None, "weights": "weights", "positive_class": "positive",
         "f_avg_classes": "f_avg_classes", "unrelated_label": "unrelated"}
# the keys of a declaration (the config's ``custom_metrics`` entries)
KEYS = ("function", "terms", "combine", "higher_is_better", "name", "latex", "reference", "needs", "range")
_TOL = 1e-9


class MetricContractError(ValueError):
    """A custom metric that breaks its declared contract (or cannot be loaded)."""


def is_custom(metric_id: str) -> bool:
    """Whether ``metric_id`` is a registered custom metric."""
    m = M.REGISTRY.get(metric_id)
    return m is not None and bool(getattr(m, "source", ""))


def _check_id(metric_id) -> None:
    from .spans import SPAN_REGISTRY  # (a module of the same floor)

    if not isinstance(metric_id, str) or not metric_id.isidentifier() or not metric_id[0].isalpha():
        raise MetricContractError(f"custom metric {metric_id!r}: an id is a name of letters, digits and _, "
                                  f"starting with a letter")
    if metric_id in M.METRIC_IDS or metric_id in M.ALIASES or metric_id in SPAN_REGISTRY:
        raise MetricContractError(f"custom metric {metric_id!r}: a built-in metric has this id; choose another")
    if metric_id == M.DEFAULT_ENTRY:
        raise MetricContractError(f"custom metric {metric_id!r}: in a list of metrics this id stands for the "
                                  f"default candidates; choose another")


def _range(value, metric_id) -> tuple[float, float]:
    if value is None:
        return (-np.inf, np.inf)
    try:
        lo, hi = value
        lo = -np.inf if lo is None else float(lo)
        hi = np.inf if hi is None else float(hi)
    except (TypeError, ValueError):
        raise MetricContractError(f"custom metric {metric_id!r}: range is [low, high] (null for an open end), "
                                  f"got {value!r}") from None
    if not lo < hi:
        raise MetricContractError(f"custom metric {metric_id!r}: range [{lo:g}, {hi:g}] is empty")
    return lo, hi


def register_metric(metric_id: str, fn: Callable[..., Any], *, higher_is_better: bool = True,
                    name: str | None = None, latex: str | None = None, reference: str = "",
                    range: Sequence[float | None] | None = None, needs: Sequence[str] = (),  # noqa: A002
                    source: str = "", k: int | None = None) -> M.Metric:
    """Register a metric function beside the built-in ones.

    Parameters
    ----------
    metric_id : str
        The id it is listed by (``metrics=[...]``, the config's
        ``metrics:``, ``--metrics``); not an id of a built-in metric.
        Registering an id again replaces its metric.
    fn : callable
        ``fn(c, **params) -> scores``: confusion tensors (..., K, K),
        ``c[..., i, j]`` = items predicted i whose gold class is j, to one
        score per matrix (...).
    higher_is_better : bool
        The metric's direction.
    name, latex : str, optional
        Its names in tables and figures (default: the id).
    reference : str
        Where it is defined (printed beside it).
    range : (low, high), optional
        The values it can take (``None`` for an open end); default: any
        finite number.
    needs : sequence of str
        ``ordinal`` (ordered classes), ``positions``, and the dataset keys
        it reads: ``weights``, ``positive_class``, ``f_avg_classes``,
        ``unrelated_label`` (``NEEDS``).
    source : str
        Where the function comes from (``file.py:name``), for messages.
    k : int, optional
        Check the contract now, on probe matrices of ``k`` classes (the
        contract is checked anyway, on a dataset's shape and its systems'
        matrices, before the metric scores it: ``check_dataset``).

    Returns
    -------
    metaeval.measures.labels.Metric

    Raises
    ------
    MetricContractError
        A built-in id, an unknown need, an empty range, or a function that
        breaks its contract on the probe matrices (``check``).

    Examples
    --------
    >>> import numpy as np
    >>> m = register_metric("err", lambda c: 1 - np.trace(c, axis1=-2, axis2=-1) / c.sum((-2, -1)),
    ...                     higher_is_better=False, range=(0, 1))
    >>> m.direction, round(float(m([[3, 1], [1, 5]])), 6)
    ('lower', 0.2)
    >>> register_metric("bad", lambda c: c.sum(-1), k=3)
    Traceback (most recent call last):
    ...
    metaeval.measures.custom.MetricContractError: custom metric 'bad' (<lambda>): expected one score per matrix, shape (6,) for confusion tensors of shape (6, 3, 3); found shape (6, 3) on the probe matrices of 3 classes
    >>> unregister_metric("err")
    """
    _check_id(metric_id)
    if metric_id in M.ITEM_REGISTRY:
        raise MetricContractError(f"custom metric {metric_id!r}: a metric of per-item terms has this id")
    if not callable(fn):
        raise MetricContractError(f"custom metric {metric_id!r}: the function is not callable ({fn!r})")
    unknown = sorted(set(needs) - set(NEEDS))
    if unknown:
        raise MetricContractError(f"custom metric {metric_id!r}: unknown need(s) {unknown}{M.closest(unknown, NEEDS)}; "
                                  f"known: {', '.join(NEEDS)}")
    lo, hi = _range(range, metric_id)
    metric = M.Metric(metric_id, name or metric_id, latex or name or metric_id, fn, bool(higher_is_better),
                      ordinal="ordinal" in needs or "positions" in needs,
                      params=tuple(NEEDS[n] for n in needs if NEEDS[n]), reference=reference, bounds=(lo, hi),
                      uses_positions="positions" in needs, default=False,
                      source=source or getattr(fn, "__qualname__", repr(fn)))
    if k is not None:
        check(metric, _probe(k), _probe_params(k), where=f"the probe matrices of {k} classes")
        check_direction(metric, k, _probe_params(k))
    M.REGISTRY[metric_id] = metric
    return metric


def unregister_metric(metric_id: str) -> None:
    """Remove a custom metric from the registry (a built-in one stays)."""
    if is_custom(metric_id):
        del M.REGISTRY[metric_id]


# ------------------------------------------------------------------------------------------------------------
# The contract
# ------------------------------------------------------------------------------------------------------------
def _probe_params(k: int) -> dict:
    return {"weights": np.full(k, 1.0 / k), "f_avg_classes": [0, k - 1], "unrelated": k - 1, "positive": k - 1}


def _probe_with(k: int, params: Mapping[str, Any] | None) -> dict:
    """The probe's parameters of ``k`` classes with ``params`` (a dataset's,
    a merged task's) laid over them; a None value leaves the probe's."""
    return {**_probe_params(k), **{key: v for key, v in dict(params or {}).items() if v is not None}}


_DEFINED: dict = {}


def defined_on(metric_id: str, k: int, params: Mapping[str, Any] | None = None) -> bool:
    """Whether a metric holds its contract on matrices of ``k`` classes
    (always, for a built-in one): a custom metric written for a number of
    classes (a K x K cost matrix) is not defined after two classes are
    merged, and its merged scores are then left undefined (NaN), as those of
    a metric whose parameter a merge removes.  Tried once per metric,
    ``k`` and parameters (the merged task's laid over the probe's) on the
    probe matrices: each merge has parameters of its own."""
    if not is_custom(metric_id):
        return True
    m = M.REGISTRY[metric_id]
    p = _probe_with(k, params)
    key = (metric_id, id(m.fn), k, repr(sorted((key_, np.asarray(v).tolist()) for key_, v in p.items())))
    if key not in _DEFINED:
        try:
            check(m, _probe(k), p)
            _DEFINED[key] = True
        except MetricContractError:
            _DEFINED[key] = False
    return _DEFINED[key]


def check_shape(metric_ids: Sequence[str], k: int, params: Mapping[str, Any], *, where: str) -> None:
    """``check`` every custom metric among ``metric_ids`` on the probe
    matrices of a dataset's ``k`` classes with its parameters (before any
    data is read: the config's check)."""
    for mid in metric_ids:
        if is_custom(mid):
            p = _probe_with(k, params)
            check(M.REGISTRY[mid], _probe(k), p, where=f"the probe matrices of {where} ({k} classes)")
            check_direction(M.REGISTRY[mid], k, p)


def _probe(k: int) -> np.ndarray:
    """Matrices of ``k`` classes the contract is tried on: a perfect
    system, mostly right ones, random ones with every class in the gold and
    the predictions, one with a class missing from both, a constant system."""
    rng = np.random.default_rng(20261127)
    eye = np.eye(k)
    mats = [eye * 10, eye * 20 + 1, rng.integers(1, 9, (k, k)).astype(float),
            rng.integers(1, 9, (k, k)) + eye * 30]
    missing = rng.integers(1, 9, (k, k)).astype(float)
    missing[-1, :] = missing[:, -1] = 0  # the last class neither predicted nor in the gold
    constant = np.zeros((k, k))
    constant[0, :] = rng.integers(1, 9, k)
    return np.stack(mats + [missing, constant])


def _fn_name(metric: M.Metric) -> str:
    return getattr(metric, "source", "") or getattr(metric.fn, "__qualname__", "?")


def check(metric: M.Metric, c, params: Mapping[str, Any] | None = None, *, where: str = "") -> None:
    """Hold a metric to its contract on confusion tensors ``c`` (S, K, K).

    The metric must return one finite score per matrix (NaN only where a
    class is missing from the gold or the predictions), within its declared
    range, the same batched as one matrix at a time, without raising.

    Raises
    ------
    MetricContractError
        Naming the metric, what was expected and what was found.
    """
    c = np.asarray(c, dtype=np.float64)
    params = dict(params or {})
    head = f"custom metric {metric.id!r} ({_fn_name(metric)})"
    on = f" on {where}" if where else ""

    def call(x):
        try:
            with np.errstate(all="ignore"):
                return np.asarray(metric(x, **params))
        except MetricContractError:
            raise
        except Exception as e:  # noqa: BLE001 (any fault of the user's function is reported as such)
            raise MetricContractError(f"{head} raised {type(e).__name__}: {str(e).strip()}{on}, called on "
                                      f"confusion tensors of shape {x.shape}") from e

    out = call(c)
    if out.shape != c.shape[:-2]:
        raise MetricContractError(f"{head}: expected one score per matrix, shape {c.shape[:-2]} for confusion "
                                  f"tensors of shape {c.shape}; found shape {out.shape}{on}")
    if not (np.issubdtype(out.dtype, np.floating) or np.issubdtype(out.dtype, np.integer)
            or out.dtype == np.bool_):
        raise MetricContractError(f"{head}: expected numbers, found {out.dtype}{on}")
    out = out.astype(np.float64)
    missing = (c.sum(axis=-2) == 0).any(axis=-1) | (c.sum(axis=-1) == 0).any(axis=-1)
    bad_nan = np.isnan(out) & ~missing
    if bad_nan.any():
        i = int(np.flatnonzero(bad_nan)[0])
        raise MetricContractError(f"{head}: expected a number where every class is in the gold and the predictions; "
                                  f"found NaN{on} (matrix {i}, predicted x gold: {c[i].astype(int).tolist()})")
    lo, hi = metric.bounds
    infinite = np.isinf(out)
    outside = infinite | (out < lo - _TOL) | (out > hi + _TOL)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        what = "finite values" if infinite[i] else f"values in its range [{lo:g}, {hi:g}]"
        raise MetricContractError(f"{head}: expected {what}; found {float(out[i]):.17g}{on} "
                                  f"(matrix {i}, predicted x gold: {c[i].astype(int).tolist()})")
    one = np.array([call(c[i]) for i in range(len(c))], dtype=np.float64).reshape(out.shape)
    twice = call(np.stack([c, c]))
    if twice.shape != (2,) + out.shape or not np.allclose(one, out, rtol=1e-9, atol=1e-12, equal_nan=True) \
            or not np.allclose(twice.astype(np.float64), np.stack([out, out]), rtol=1e-9, atol=1e-12, equal_nan=True):
        raise MetricContractError(f"{head}: expected the same scores for a stack of matrices as for each matrix "
                                  f"alone (a function of the last two axes, vectorised over the others); found "
                                  f"otherwise{on}")


def _extremes(k: int) -> np.ndarray:
    """The perfect system and one wrong on every item, on the same gold of
    ``k`` classes (10 items each): the diagonal, and every class predicted as
    the next one (a cyclic shift: each class is still predicted and in the
    gold, so no score is undefined)."""
    eye = np.eye(k) * 10
    return np.stack([eye, np.roll(eye, 1, axis=0)])


def direction_contradiction(head: str, higher_is_better: bool, perfect: float, wrong: float, what: str) -> str | None:
    """The message refusing a declared direction the scores contradict: a
    perfect system scored worse than one wrong on every item (equal scores
    contradict nothing); None when they agree."""
    if not (np.isfinite(perfect) and np.isfinite(wrong)):
        return None
    if (perfect < wrong) if higher_is_better else (perfect > wrong):
        return (f"{head} has higher_is_better: {str(bool(higher_is_better)).lower()} (as declared, or the default), "
                f"but it scores a perfect system {perfect:.6g} and a system wrong on every item {wrong:.6g} ({what}): "
                f"declare higher_is_better: {str(not higher_is_better).lower()} (in the library: {{'function': fn, "
                f"'higher_is_better': {not higher_is_better}}}), or check the function")
    return None


def check_direction(metric: M.Metric, k: int, params: Mapping[str, Any] | None = None) -> None:
    """Hold a metric to its declared direction (``higher_is_better``): on
    the probe matrices of ``k`` classes, the perfect system may not score
    worse than the system wrong on every item (``_extremes``).

    Raises
    ------
    MetricContractError
        With both scores and the declaration to change.
    """
    head = f"custom metric {metric.id!r} ({_fn_name(metric)})"
    with np.errstate(all="ignore"):
        try:
            perfect, wrong = (float(x) for x in np.asarray(metric(_extremes(k), **dict(params or {})), dtype=float))
        except Exception:  # noqa: BLE001 (the contract's own check names a function that raises)
            return
    said = direction_contradiction(head, metric.higher_is_better, perfect, wrong,
                                   f"the probe matrices of {k} classes")
    if said:
        raise MetricContractError(said)


def check_registered(metric_ids: Sequence[str], c, params: Mapping[str, Any], *, where: str) -> None:
    """``check`` every custom metric among ``metric_ids`` on a dataset's
    confusion tensors ``c`` (S, K, K) with its parameters, and its declared
    direction on the probe matrices of the dataset's K classes."""
    for mid in metric_ids:
        if is_custom(mid):
            check(M.REGISTRY[mid], c, params, where=where)
            check_direction(M.REGISTRY[mid], np.shape(c)[-1], _probe_with(np.shape(c)[-1], params))


# ------------------------------------------------------------------------------------------------------------
# Metrics of per-item terms (metaeval.measures.items: the engine's side)
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ItemMetric:
    """A metric of per-item terms: ``terms(gold, pred, items) -> (S, N,
    F)``, ``combine(sums (..., F)) -> (...)``, with the descriptive fields
    of ``metrics.Metric``."""

    id: str
    name: str
    latex: str
    terms: Callable[..., Any]
    combine: Callable[..., Any]
    higher_is_better: bool
    reference: str = ""
    bounds: tuple[float, float] = (-np.inf, np.inf)
    source: str = ""
    ordinal: bool = False
    params: tuple[str, ...] = ()
    uses_positions: bool = False
    alias: str = ""
    default: bool = False

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"

    def statistics(self, gold, pred, items) -> np.ndarray:
        """(S, N, F) float64 terms of systems ``pred`` (S, N) on items of ``gold`` (N,)."""
        gold = np.asarray(gold, dtype=np.int64)
        pred = np.atleast_2d(np.asarray(pred, dtype=np.int64))
        return np.asarray(self.terms(gold, pred, np.asarray(items, dtype=str)), dtype=np.float64)

    def __call__(self, sums) -> np.ndarray:
        """The scores of sums of terms (..., F)."""
        return np.asarray(self.combine(np.asarray(sums, dtype=np.float64)), dtype=np.float64)


def register_item_metric(metric_id: str, terms: Callable[..., Any], combine: Callable[..., Any], *,
                         higher_is_better: bool = True, name: str | None = None, latex: str | None = None,
                         reference: str = "", range: Sequence[float | None] | None = None,  # noqa: A002
                         source: str = "") -> ItemMetric:
    """Register a metric of per-item terms (see the module's docstring).

    Parameters
    ----------
    metric_id : str
        The id it is listed by in ``metrics``; not a built-in id.
    terms : callable
        ``terms(gold, pred, items) -> (S, N, F)``.
    combine : callable
        ``combine(sums) -> scores``: sums (..., F) to scores (...).
    higher_is_better, name, latex, reference, range
        As ``custom_metrics.register_metric``.
    source : str
        Where the functions come from, for messages.

    Returns
    -------
    ItemMetric

    Raises
    ------
    MetricContractError
        A built-in id, or functions that are not callable.  The contract is
        checked on a dataset's own items (``check_items``: the terms may
        read item ids), before any score.
    """
    _check_id(metric_id)
    if metric_id in M.REGISTRY:
        raise MetricContractError(f"custom metric {metric_id!r}: a metric of confusion matrices has this id")
    for what, fn in (("terms", terms), ("combine", combine)):
        if not callable(fn):
            raise MetricContractError(f"custom metric {metric_id!r}: {what} is not callable ({fn!r})")
    lo, hi = _range(range, metric_id)
    m = ItemMetric(metric_id, name or metric_id, latex or name or metric_id, terms, combine, bool(higher_is_better),
                   reference=reference, bounds=(lo, hi),
                   source=source or f"{getattr(terms, '__qualname__', '?')}, {getattr(combine, '__qualname__', '?')}")
    # (no probe on made-up items: the terms may read the dataset's own item ids; ``check_items`` holds the
    # metric to its contract on the dataset's items before any score)
    M.ITEM_REGISTRY[metric_id] = m
    return m


def unregister_item_metric(metric_id: str) -> None:
    """Remove a metric of per-item terms from the registry."""
    M.ITEM_REGISTRY.pop(metric_id, None)


def _check_item_metric(m: ItemMetric, gold, pred, items, where: str) -> int:
    """Hold ``m`` to the contract on systems ``pred`` of ``gold``; return F."""
    head = f"custom metric {m.id!r} ({m.source})"
    on = f" on {where}" if where else ""

    def call(what, fn, *args):
        try:
            with np.errstate(all="ignore"):
                return np.asarray(fn(*args))
        except Exception as e:  # noqa: BLE001 (any fault of the user's function is reported as such)
            raise MetricContractError(f"{head}: {what} raised {type(e).__name__}: {str(e).strip()}{on}") from e

    s, n = pred.shape
    t = call("terms", m.terms, np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64),
             np.asarray(items, dtype=str))
    if t.ndim != 3 or t.shape[:2] != (s, n) or t.shape[2] < 1:
        raise MetricContractError(f"{head}: expected terms of shape (systems, items, F) = ({s}, {n}, F); found shape "
                                  f"{t.shape}{on}")
    t = t.astype(np.float64)
    if not np.isfinite(t).all():
        raise MetricContractError(f"{head}: expected finite terms; found {t[~np.isfinite(t)][0]}{on}")
    f = t.shape[2]
    sums = t.sum(axis=1)  # (S, F)
    out = call("combine", m.combine, sums)
    if out.shape != (s,):
        raise MetricContractError(f"{head}: expected one score per system, shape ({s},), from sums of shape "
                                  f"{sums.shape}; found shape {out.shape}{on}")
    out = out.astype(np.float64)
    lo, hi = m.bounds
    bad = ~np.isfinite(out) | (out < lo - _TOL) | (out > hi + _TOL)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise MetricContractError(f"{head}: expected finite values in its range [{lo:g}, {hi:g}]; found "
                                  f"{float(out[i]):.17g}{on} (system {i})")
    twice = call("combine", m.combine, np.stack([sums, sums]))
    if twice.shape != (2, s) or not np.allclose(twice.astype(np.float64), np.stack([out, out]), rtol=1e-9,
                                                  atol=1e-12):
        raise MetricContractError(f"{head}: expected combine to give the same scores for a stack of sums as for "
                                  f"each alone (a function of the last axis); found otherwise{on}")
    g = np.asarray(gold, dtype=np.int64)
    k = max(int(g.max(initial=0)) + 1, int(np.asarray(pred).max(initial=0)) + 1, 2)
    extremes = np.stack([g, (g + 1) % k])  # the gold itself, and every item given the next class
    with np.errstate(all="ignore"):
        try:
            ends = np.asarray(m.combine(np.asarray(m.terms(g, extremes, np.asarray(items, dtype=str)),
                                                   dtype=np.float64).sum(axis=1)), dtype=np.float64)
        except Exception:  # noqa: BLE001 (held to the contract above on the systems themselves)
            ends = np.full(2, np.nan)
    said = direction_contradiction(head, m.higher_is_better, float(ends[0]), float(ends[1]),
                                   f"the gold of {where or 'the dataset'} and every item given the next class")
    if said:
        raise MetricContractError(said)
    return f


# ------------------------------------------------------------------------------------------------------------
# Declarations (the config's custom_metrics block) and the files they name
# ------------------------------------------------------------------------------------------------------------
def local_imports(path: str | Path) -> list[Path]:
    """The file and, at any depth, the modules it imports from its own
    folder (``import helpers``, ``from helpers import f``, ``from . import
    x``): what a custom metric's code is, besides installed packages."""
    import ast

    todo, seen = [Path(path).resolve()], []
    while todo:
        f = todo.pop()
        if f in seen or not f.is_file():
            continue
        seen.append(f)
        try:
            tree = ast.parse(f.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                ([node.module or ""] + [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                first = name.split(".")[0]
                if first:
                    todo += [f.parent / f"{first}.py", f.parent / first / "__init__.py"]
    return sorted(seen)


def fingerprint(path: str | Path) -> str:
    """The SHA-256 of a custom metric's code: its defining file and the
    modules it imports from its own folder (``local_imports``), so that an
    edit of a helper module next to it reruns what reads the metric too."""
    h = hashlib.sha256()
    for f in local_imports(path):
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _source_file(function: str, base_dir: Path) -> tuple[Path | None, str, str]:
    """(the file, the module part, the function's name) of ``file.py:name``
    or ``package.module:name``."""
    if ":" not in function:
        raise MetricContractError(f"function {function!r}: write path/to/file.py:function or "
                                  f"package.module:function")
    mod, _, attr = function.rpartition(":")
    if not attr.isidentifier():
        raise MetricContractError(f"function {function!r}: {attr!r} is not a function name")
    if _is_path(mod):
        path = Path(mod).expanduser()
        path = path if path.is_absolute() else (base_dir / path)
        if not path.is_file():
            raise MetricContractError(f"function {function!r}: no file {path}")
        return path.resolve(), mod, attr
    try:
        spec = importlib.util.find_spec(mod)
    except (ImportError, ValueError) as e:
        raise MetricContractError(f"function {function!r}: cannot find module {mod!r} ({e})") from None
    if spec is None:
        raise MetricContractError(f"function {function!r}: no module {mod!r} on the Python path")
    return (Path(spec.origin).resolve() if spec.origin and Path(spec.origin).is_file() else None), mod, attr


def _is_path(mod: str) -> bool:
    return mod.endswith(".py") or "/" in mod or "\\" in mod


def _import(path: Path | None, mod: str, what: str):
    """The module of a file (loaded afresh, under a name of its own) or of a dotted name."""
    try:
        if path is not None:
            if str(path.parent) not in sys.path:  # (the file imports its neighbours, as a script would)
                sys.path.insert(0, str(path.parent))
            name = "metaeval_custom_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
            # (read as Python source whatever the file's suffix)
            spec = importlib.util.spec_from_file_location(name, path,
                                                          loader=importlib.machinery.SourceFileLoader(name, str(path)))
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            return module
        return importlib.import_module(mod)
    except Exception as e:  # noqa: BLE001 (the user's module failed to import: say so, with the fault)
        raise MetricContractError(f"{what}: importing {path or mod} raised {type(e).__name__}: {e}") from e


def load_module(module: str, base_dir: str | Path = ".") -> list[str]:
    """Import a file (``path/to/file.py``) or module (``package.module``) of
    custom metrics, the command line's ``--metric-module``, and register
    them: the entries of its ``METRICS`` dict (``{id: {"function": fn,
    "higher_is_better": ..., ...}}``, the config's keys; ``function`` a
    callable or a name in the module), or the ``register_metric`` calls it
    makes when imported.

    Returns
    -------
    list of str
        The ids it registered.
    """
    path = None
    if _is_path(module):
        path = Path(module).expanduser()
        path = (path if path.is_absolute() else Path(base_dir) / path).resolve()
        if not path.is_file():
            raise MetricContractError(f"metric module {module!r}: no file {path}")
    before = {**{m: M.REGISTRY[m] for m in M.REGISTRY if is_custom(m)}, **M.ITEM_REGISTRY}
    mod = _import(path, module, f"metric module {module!r}")
    declared = getattr(mod, "METRICS", None) or {}
    if not isinstance(declared, Mapping):
        raise MetricContractError(f"metric module {module!r}: METRICS is a dict of id -> declaration, got "
                                  f"{type(declared).__name__}")
    for mid, d in declared.items():
        d = dict(d) if isinstance(d, Mapping) else {"function": d}
        for key in ("function", "terms", "combine"):  # a name in the module, or the function itself
            if isinstance(d.get(key), str):
                fn = getattr(mod, d[key], None)
                if not callable(fn):
                    raise MetricContractError(f"custom metric {mid!r} of {module!r}: {key} {d[key]!r} is not a "
                                              f"function of the module")
                d[key] = fn
        unknown = sorted(set(d) - set(KEYS))
        if unknown:
            raise MetricContractError(f"custom metric {mid!r} of {module!r}: unknown key(s) {unknown}"
                                      f"{M.closest(unknown, KEYS)}; known: {', '.join(KEYS)}")
        if "terms" in d or "combine" in d:
            register_item_metric(str(mid), d.pop("terms", None), d.pop("combine", None),
                                 source=f"{path or module}", **d)
        else:
            fn = d.pop("function", None)
            register_metric(str(mid), fn, source=f"{path or module}:{getattr(fn, '__name__', mid)}", **d)
    now = {**{m: M.REGISTRY[m] for m in M.REGISTRY if is_custom(m)}, **M.ITEM_REGISTRY}
    ids = [m for m in now if before.get(m) is not now[m]]
    if not ids:
        raise MetricContractError(f"metric module {module!r} defines no metric: give it a METRICS dict "
                                  f"({{id: {{'function': ..., 'higher_is_better': ...}}}}) or call "
                                  f"metaeval.measures.custom.register_metric when it is imported")
    return ids


def resolve(function: str, base_dir: str | Path = ".") -> tuple[Callable[..., Any], Path | None]:
    """The callable a ``function`` entry names, and its defining file.

    ``path/to/file.py:name`` is loaded from its file (relative to
    ``base_dir``) under a module name of its own; ``package.module:name``
    is imported.
    """
    path, mod, attr = _source_file(function, Path(base_dir))
    module = _import(path if _is_path(mod) else None, mod, f"function {function!r}")
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise MetricContractError(f"function {function!r}: {path or mod} has no function {attr!r}")
    return fn, path


def declare(metric_id: str, block: Mapping[str, Any], base_dir: str | Path = ".") -> dict[str, Any]:
    """The plain declaration of one ``custom_metrics`` entry: its function
    (or, for a metric of per-item terms, its ``terms`` and ``combine``
    functions: ``metaeval.measures.items``) as an absolute ``file.py:name``
    (or ``package.module:name``) with the SHA-256 of the files, and its
    contract; checked (the functions are loaded and tried on probe data).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "mine.py").write_text("def acc(c):\\n    return c.trace(axis1=-2, axis2=-1) / c.sum((-2, -1))\\n")
    >>> decl = declare("acc2", {"function": "mine.py:acc", "higher_is_better": True, "range": [0, 1]}, d)
    >>> decl["function"].endswith("mine.py:acc"), len(decl["fingerprint"])
    (True, 64)
    >>> unregister_metric("acc2")
    """
    unknown = sorted(set(block) - set(KEYS))
    if unknown:
        raise MetricContractError(f"custom metric {metric_id!r}: unknown key(s) {unknown}"
                                  f"{M.closest(unknown, KEYS)}; known: {', '.join(KEYS)}")
    per_item = "terms" in block or "combine" in block
    required = ("terms", "combine", "higher_is_better") if per_item else ("function", "higher_is_better")
    for key in required:
        if key not in block:
            raise MetricContractError(f"custom metric {metric_id!r}: {key} is required"
                                      + (" (a metric of per-item terms has terms and combine, no function)"
                                         if per_item and key != "higher_is_better" else ""))
    if per_item and ("function" in block or block.get("needs")):
        raise MetricContractError(f"custom metric {metric_id!r}: a metric of per-item terms (terms, combine) has no "
                                  f"function and no needs")
    out: dict[str, Any] = {}
    fns, prints = {}, []
    for key in (("terms", "combine") if per_item else ("function",)):
        function = str(block[key])
        fn, path = resolve(function, base_dir)
        _, mod, attr = _source_file(function, Path(base_dir))
        out[key] = f"{path}:{attr}" if path is not None and _is_path(mod) else function
        fns[key] = fn
        prints.append(fingerprint(path) if path is not None else "")
    out.update({"fingerprint": "+".join(dict.fromkeys(prints)),
                "higher_is_better": bool(block["higher_is_better"]), "name": str(block.get("name") or metric_id),
                "latex": str(block.get("latex") or block.get("name") or metric_id),
                "reference": str(block.get("reference") or ""), "needs": [str(n) for n in block.get("needs") or ()],
                "range": None if block.get("range") is None else [None if x is None or np.isinf(float(x)) else float(x)
                                                                   for x in block["range"]]})
    _register(metric_id, out, fns)
    return out


def _register(metric_id: str, d: Mapping[str, Any], fns: Mapping[str, Callable[..., Any]]):
    """Register a declaration with its loaded functions."""
    common = dict(higher_is_better=d["higher_is_better"], name=d["name"], latex=d["latex"],
                  reference=d["reference"], range=d["range"])
    if "terms" in d:
        return register_item_metric(metric_id, fns["terms"], fns["combine"], source=f"{d['terms']}, {d['combine']}",
                                    **common)
    return register_metric(metric_id, fns["function"], needs=d["needs"], source=d["function"], **common)


def register_declared(declared: Mapping[str, Mapping[str, Any]]) -> list:
    """Register plain declarations (``declare``'s, as a step's rule param
    carries them): a job of the workflow gets the custom metrics it reads."""
    return [_register(mid, d, {k: resolve(d[k])[0] for k in ("function", "terms", "combine") if k in d})
            for mid, d in declared.items()]
