"""Aggregates of a leaderboard: one score per system from its per-task
scores, the metrics a leaderboard is judged by.

A benchmark (``metaeval.data.benchmark``) gives each system a score per
item (1 if its answer is right, else 0; or any per-item score) and each item
a task.  What every aggregate reads is a function of the per-task sums of
those scores (``TaskTotals``), computed for the whole benchmark or for
thousands of resamples at once (``metaeval.methods.leaderboards``):

* ``scores`` (..., S, T): each system's mean per-item score on each task
  (NaN where a resample did not draw the task);
* ``copies`` (..., T): how many times each task is in the resample (1 when
  the tasks are fixed, 0 for a task not drawn): tasks are weighted by it;
* ``items`` (..., T): how many items each task contributes (with
  multiplicity: a task drawn twice contributes its items twice).

An aggregate is ``fn(scores, *, copies, items) -> (..., S)``, vectorised
over every leading axis (no loop over resamples), with a declared
direction and range, and the per-item score it reads (``feature``:
``score``, the per-item score, or ``chance``, the chance-corrected one
``(x - 1/n_options) / (1 - 1/n_options)``).  The built-in ones
(``AGGREGATES``):

==================  ==================================================================================
``mean_items``      the mean over items: ``sum_t items_t m_st / sum_t items_t`` (accuracy)
``mean_tasks``      the mean over tasks: ``sum_t copies_t m_st / sum_t copies_t`` (macro-average)
``chance_tasks``    the mean over tasks of the chance-corrected per-item score (0 = guessing)
``mean_rank``       the mean over tasks of each system's competition rank ``1 + #{k: m_kt > m_jt}``
                    (1 is best; lower is better; tied systems share the best of their ranks)
``borda``           the Borda count over tasks: ``sum_t copies_t #{k: m_kt < m_jt}`` (systems beaten)
``win_rate``        the mean pairwise win rate over tasks (HELM's): ``sum_t copies_t (#{k: m_kt < m_jt}
                    + #{k != j: m_kt = m_jt} / 2) / ((S - 1) sum_t copies_t)``
``geometric``       the geometric mean over tasks: ``exp(sum_t copies_t log m_st / sum_t copies_t)``
                    (0 when any drawn task's mean is 0)
``median``          the median over tasks, each task counted ``copies_t`` times (the mean of the two
                    middle values for an even count)
==================  ==================================================================================

Without ties, ``mean_rank``, ``borda`` and ``win_rate`` order the systems
identically (``borda_j = T (S - 1) win_rate_j = sum_t (S - r_jt)``): they
differ only in how ties count, and the agreement table shows it.  All three
depend on which other systems are ranked (an irrelevant system can reverse
two others), which ``metaeval.methods.leaderboards`` measures.

Users register their own aggregate with ``register_aggregate``; it is held
to its contract (shape, range, finite values, the same answer batched and
alone, and a system at least as good on every task never below another)
when registered.

Examples
--------
>>> import numpy as np
>>> m = np.array([[0.9, 0.2, 0.5], [0.6, 0.6, 0.6]])  # 2 systems x 3 tasks
>>> one, n = np.ones(3), np.array([100.0, 300.0, 100.0])
>>> evaluate(m, ["mean_items", "mean_tasks", "mean_rank", "median"], copies=one, items=n)
{'mean_items': array([0.4, 0.6]), 'mean_tasks': array([0.53333333, 0.6       ]), 'mean_rank': array([1.66666667, 1.33333333]), 'median': array([0.5, 0.6])}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

__all__ = ["Aggregate", "AGGREGATES", "DEFAULT_AGGREGATES", "FEATURES", "TaskTotals", "evaluate",
           "register_aggregate", "unregister_aggregate", "AggregateContractError", "check_aggregate", "beaten_tied",
           "declare_aggregate", "register_declared_aggregates", "AGGREGATE_KEYS"]

# the per-item scores an aggregate may read: the score itself, and its chance-corrected form
FEATURES = ("score", "chance")


class AggregateContractError(ValueError):
    """An aggregate that breaks its declared contract."""


@dataclass(frozen=True)
class TaskTotals:
    """The per-task sums every aggregate reads, for one benchmark or many
    resamples of it (any leading axes ``...``).

    ``sums`` (..., S, T, F): per system and task, the sum over the task's
    drawn items (with multiplicity) of each per-item feature (``features``
    names the F features: ``score``, and ``chance`` where the benchmark
    knows each item's number of options); ``items`` (..., T): the item
    draws of each task; ``copies`` (..., T): the draws of each task.

    >>> t = TaskTotals(np.array([[[[3.0], [1.0]]]]), np.array([[4.0, 2.0]]), np.array([[1.0, 1.0]]), ("score",))
    >>> t.means("score").tolist()
    [[[0.75, 0.5]]]
    """

    sums: np.ndarray
    items: np.ndarray
    copies: np.ndarray
    features: tuple[str, ...]

    def means(self, feature: str = "score") -> np.ndarray:
        """(..., S, T): each system's mean of ``feature`` per task (NaN where
        the task has no item drawn)."""
        if feature not in self.features:
            raise KeyError(f"this benchmark has no per-item {feature!r} score (it has {', '.join(self.features)})")
        s = self.sums[..., self.features.index(feature)]
        n = self.items[..., None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, s / np.where(n > 0, n, 1), np.nan)


@dataclass(frozen=True)
class Aggregate:
    """One entry of the aggregate registry: ``fn(scores, *, copies, items)``
    of per-task means (..., S, T) to (..., S), its direction, range, the
    per-item score it reads (``feature``), names and reference.
    ``nonnegative``: defined only for non-negative task means (the
    geometric mean)."""

    id: str
    name: str
    latex: str
    fn: Callable[..., np.ndarray]
    higher_is_better: bool
    feature: str = "score"
    bounds: tuple[float, float] = (0.0, 1.0)
    reference: str = ""
    nonnegative: bool = False
    source: str = ""  # where a user's function comes from; empty for the built-in ones
    # each system's value depends on its own task scores only (the means, the median): no other system can
    # reverse two systems' order (independence of irrelevant alternatives, a requirement users may declare)
    independent: bool = False
    # a rank-based aggregate's function of the per-task counts of systems beaten and tied (beaten_tied), the
    # number of systems ``n`` and the task draws: one system more or less then changes the counts by a
    # comparison, without sorting again (metaeval.methods.leaderboards.experiments); None for the others
    of_ranks: Callable[..., np.ndarray] | None = None

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"

    def __call__(self, scores, *, copies=None, items=None) -> np.ndarray:
        scores = np.asarray(scores, dtype=np.float64)
        t = scores.shape[-1]
        copies = np.ones(scores.shape[:-2] + (t,)) if copies is None else np.asarray(copies, dtype=np.float64)
        items = copies if items is None else np.asarray(items, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(self.fn(scores, copies=copies, items=items), dtype=np.float64)


def _weighted(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_t w_t values_st / sum_t w_t, values (..., S, T), w (..., T); a
    task of weight 0 counts nothing, whatever its value (NaN included)."""
    w = np.asarray(w, dtype=np.float64)
    v = np.where(w[..., None, :] > 0, values, 0.0)
    return np.matmul(v, w[..., :, None])[..., 0] / w.sum(axis=-1)[..., None]  # (a product per row, not a temporary)


def mean_items(scores, *, copies, items):
    """The mean over items: each task weighted by the items it contributes
    (the accuracy over the whole benchmark for 0/1 scores)."""
    return _weighted(scores, items)


def mean_tasks(scores, *, copies, items):
    """The mean over tasks of the per-task means (the macro-average)."""
    return _weighted(scores, copies)


def beaten_tied(scores):
    """(#{k: m_kt < m_jt}, #{k != j: m_kt = m_jt}), each (..., S, T): one
    sort of the systems per task; in sorted order, a system beats every
    system before its run of equal values and ties the rest of its run
    (memory O(S) per task, not a matrix of pairs).

    >>> [x[:, 0].tolist() for x in beaten_tied(np.array([[0.5], [0.9], [0.5]]))]
    [[0.0, 2.0, 0.0], [1.0, 0.0, 1.0]]
    """
    x = np.moveaxis(np.nan_to_num(scores, nan=-np.inf), -2, -1)  # (..., T, S)
    s = x.shape[-1]
    order = np.argsort(x, axis=-1, kind="stable")
    xs = np.take_along_axis(x, order, axis=-1)
    pos = np.broadcast_to(np.arange(s), xs.shape)
    differs = xs[..., 1:] != xs[..., :-1]
    edge = np.ones(xs.shape[:-1] + (1,), dtype=bool)
    start = np.maximum.accumulate(np.where(np.concatenate([edge, differs], axis=-1), pos, 0), axis=-1)
    end = np.minimum.accumulate(np.where(np.concatenate([differs, edge], axis=-1), pos, s)[..., ::-1],
                                axis=-1)[..., ::-1]
    beaten, tied = np.empty(xs.shape), np.empty(xs.shape)
    np.put_along_axis(beaten, order, start, axis=-1)
    np.put_along_axis(tied, order, end - start, axis=-1)
    return np.moveaxis(beaten, -1, -2), np.moveaxis(tied, -1, -2)


def mean_rank_of(beaten, tied, *, copies, n):
    """The mean rank from each system's per-task counts of systems beaten
    and tied among ``n``: ``n - beaten - tied`` is its competition rank."""
    return _weighted(n - beaten - tied, copies)


def borda_of(beaten, tied, *, copies, n):
    """The Borda count from the per-task counts of systems beaten."""
    return (np.where(copies[..., None, :] > 0, beaten, 0.0) * copies[..., None, :]).sum(axis=-1)


def win_rate_of(beaten, tied, *, copies, n):
    """The mean win rate from the per-task counts (a tie half a win).  The
    counts are summed before the one division, so that two systems of equal
    wins get equal values (a division per task first left them 1e-16 apart,
    and a tie read as an order)."""
    return _weighted(beaten + tied / 2, copies) / max(n - 1, 1)


def _from_ranks(of):
    """The aggregate of per-task means computed by ``of`` from the counts of
    systems beaten and tied (``beaten_tied``)."""
    def fn(scores, *, copies, items):
        beaten, tied = beaten_tied(scores)
        return of(beaten, tied, copies=copies, n=scores.shape[-2])

    fn.__doc__ = of.__doc__
    return fn


mean_rank = _from_ranks(mean_rank_of)
borda = _from_ranks(borda_of)
win_rate = _from_ranks(win_rate_of)


def geometric(scores, *, copies, items):
    """The geometric mean over tasks (0 when a drawn task's mean is 0)."""
    with np.errstate(divide="ignore"):
        return np.exp(_weighted(np.log(scores), copies))


def median(scores, *, copies, items):
    """The median over tasks, task t counted ``copies_t`` times: the mean
    of the values at positions floor((W+1)/2) and floor(W/2)+1 (1-based)
    of the sorted multiset of W = sum_t copies_t values."""
    c = np.broadcast_to(copies[..., None, :], scores.shape)
    x = np.where(c > 0, scores, np.inf)
    order = np.argsort(x, axis=-1, kind="stable")
    xs = np.take_along_axis(x, order, axis=-1)
    cum = np.cumsum(np.take_along_axis(c, order, axis=-1), axis=-1)
    w = cum[..., -1:]
    lo = np.floor((w + 1) / 2)
    hi = np.floor(w / 2) + 1
    # the first sorted value whose cumulative count reaches each position
    at_lo = np.take_along_axis(xs, (cum < lo).sum(axis=-1, keepdims=True), axis=-1)
    at_hi = np.take_along_axis(xs, np.minimum((cum < hi).sum(axis=-1, keepdims=True), xs.shape[-1] - 1), axis=-1)
    return ((at_lo + at_hi) / 2)[..., 0]


AGGREGATES: dict[str, Aggregate] = {a.id: a for a in [
    Aggregate("mean_items", "mean over items", r"\mathrm{Mean}_{items}", mean_items, True,
              reference="accuracy over the whole benchmark", independent=True),
    Aggregate("mean_tasks", "mean over tasks", r"\mathrm{Mean}_{tasks}", mean_tasks, True,
              reference="macro-average over tasks", independent=True),
    Aggregate("chance_tasks", "chance-corrected mean over tasks", r"\mathrm{Mean}^{cc}_{tasks}", mean_tasks,
              True, feature="chance", bounds=(-np.inf, 1.0),
              reference="per item (x - 1/n_options) / (1 - 1/n_options), then the mean over tasks", independent=True),
    Aggregate("mean_rank", "mean rank over tasks", r"\overline{r}", mean_rank, False, bounds=(1.0, np.inf),
              reference="competition ranks (1 + systems strictly better) averaged over tasks",
              of_ranks=mean_rank_of),
    Aggregate("borda", "Borda count", r"\mathrm{Borda}", borda, True, bounds=(0.0, np.inf),
              reference="systems beaten, summed over tasks", of_ranks=borda_of),
    Aggregate("win_rate", "mean win rate", r"\mathrm{WR}", win_rate, True,
              reference="HELM's mean win rate (Liang et al. 2023), a tie half a win", of_ranks=win_rate_of),
    Aggregate("geometric", "geometric mean over tasks", r"\mathrm{GM}_{tasks}", geometric, True,
              nonnegative=True, reference="exp of the mean log task score", independent=True),
    Aggregate("median", "median over tasks", r"\mathrm{Med}_{tasks}", median, True,
              reference="the median of the task means", independent=True),
]}
BUILT_IN = tuple(AGGREGATES)
DEFAULT_AGGREGATES = BUILT_IN


def get(agg_id: str) -> Aggregate:
    """The registered aggregate ``agg_id`` (a KeyError naming the known ones)."""
    try:
        return AGGREGATES[agg_id]
    except KeyError:
        raise KeyError(f"unknown aggregate {agg_id!r}; known: {', '.join(AGGREGATES)}") from None


def evaluate(scores, agg_ids: Sequence[str], *, copies=None, items=None,
             chance=None) -> dict[str, np.ndarray]:
    """``{id: (..., S)}``: each aggregate of per-task means ``scores``
    (..., S, T) (``chance``: the chance-corrected per-task means, for the
    aggregates that read them).  ``metaeval.methods.leaderboards`` calls it
    with ``TaskTotals``' means of a benchmark or of its resamples."""
    out = {}
    for a in agg_ids:
        agg = get(a)
        x = scores if agg.feature == "score" else chance
        if x is None:
            raise KeyError(f"aggregate {a!r} reads the {agg.feature!r} per-item score, which was not given")
        out[a] = agg(x, copies=copies, items=items)
    return out


# ------------------------------------------------------------------------------------------------------------
# users' aggregates, and their contract
def _probe() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-task means of 4 probe rows (3 systems x 5 tasks): a system better
    on every task than the next, ties, zeros, ones, and a task not drawn."""
    m = np.array([[[0.9, 0.8, 0.7, 0.6, 0.5], [0.5, 0.4, 0.3, 0.2, 0.1], [0.5, 0.4, 0.0, 0.2, 0.1]],
                  [[0.3, 0.3, 0.3, 0.3, 0.3], [0.3, 0.3, 0.3, 0.3, 0.3], [1.0, 1.0, 1.0, 1.0, 1.0]],
                  [[0.2, 0.9, 0.4, 0.6, 0.7], [0.1, 0.8, 0.4, 0.5, 0.7], [0.6, 0.1, 0.9, 0.2, 0.3]],
                  [[0.2, 0.9, np.nan, 0.6, 0.7], [0.1, 0.8, np.nan, 0.5, 0.7], [0.6, 0.1, np.nan, 0.2, 0.3]]])
    copies = np.array([[1.0] * 5, [1.0] * 5, [2.0, 0.0, 1.0, 1.0, 1.0], [1.0, 2.0, 0.0, 1.0, 1.0]])
    items = copies * np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    return m, copies, items


def check_aggregate(agg: Aggregate) -> None:
    """Hold ``agg`` to its contract on the probe rows (``_probe``): one
    finite value per system within its range, the same batched and row by
    row, and never worse for a system at least as good on every drawn
    task (rows 0 and 2: system 0 dominates system 1)."""
    m, copies, items = _probe()
    head = f"aggregate {agg.id!r} ({getattr(agg.fn, '__qualname__', repr(agg.fn))})"
    try:
        batched = agg(m, copies=copies, items=items)
        single = np.stack([agg(m[r], copies=copies[r], items=items[r]) for r in range(m.shape[0])])
    except Exception as e:  # noqa: BLE001 - a user's function: any failure is a contract fault, said as such
        raise AggregateContractError(f"{head}: raised {type(e).__name__}: {e} on the probe task scores") from None
    if batched.shape != m.shape[:-1]:
        raise AggregateContractError(f"{head}: expected one value per system, shape {m.shape[:-1]} for task "
                                     f"scores of shape {m.shape}; found shape {batched.shape}")
    if not np.all(np.isfinite(batched)):
        raise AggregateContractError(f"{head}: a value is not finite on the probe task scores: {batched.tolist()}")
    lo, hi = agg.bounds
    if np.any(batched < lo - 1e-12) or np.any(batched > hi + 1e-12):
        raise AggregateContractError(f"{head}: a value outside its range [{lo:g}, {hi:g}]: {batched.tolist()}")
    if not np.allclose(batched, single, rtol=1e-12, atol=1e-12, equal_nan=True):
        raise AggregateContractError(f"{head}: batched and one row at a time give different values "
                                     f"({batched.tolist()} against {single.tolist()})")
    if agg.independent:  # declared: the other systems' values stay when system 2 leaves
        alone = agg(m[:, :2], copies=copies, items=items)
        if not np.allclose(alone, batched[:, :2], rtol=1e-12, atol=1e-12):
            raise AggregateContractError(f"{head}: declared independent of the other systems, yet removing system 2 "
                                         f"changes the values of systems 0 and 1 ({batched[:, :2].tolist()} -> "
                                         f"{alone.tolist()})")
    sign = 1 if agg.higher_is_better else -1
    for r in (0, 2):
        if sign * (batched[r, 0] - batched[r, 1]) < -1e-12:
            raise AggregateContractError(
                f"{head}: system 0 is at least as good as system 1 on every task of probe row {r}, yet its value "
                f"{batched[r, 0]:.6g} is {'below' if sign > 0 else 'above'} {batched[r, 1]:.6g} "
                f"({'higher' if agg.higher_is_better else 'lower'} is better, as declared)")


def register_aggregate(agg_id: str, fn: Callable[..., Any], *, higher_is_better: bool = True,
                       feature: str = "score", name: str | None = None, latex: str | None = None,
                       reference: str = "", range: Sequence[float | None] | None = None,  # noqa: A002
                       nonnegative: bool = False, independent: bool = False, source: str = "") -> Aggregate:
    """Register an aggregate beside the built-in ones, held to its contract.

    Parameters
    ----------
    agg_id : str
        The id it is listed by (``aggregates=[...]``, the config's
        ``aggregates:``); not the id of a built-in one.
    fn : callable
        ``fn(scores, *, copies, items) -> (..., S)``: per-task means
        (..., S, T) (NaN for a task not drawn), the draws of each task
        (..., T) and the items each contributes (..., T), to one value per
        system, vectorised over the leading axes.
    higher_is_better, feature, name, latex, reference, range, nonnegative, independent
        As ``Aggregate``: its direction, the per-item score it reads
        (``score`` or ``chance``), names, reference, the values it can
        take (``None`` for an open end; default any finite number),
        whether it needs non-negative task scores, and whether each
        system's value depends on its own task scores only (declared, and
        checked on the probe: removing a system changes no other's value).

    Examples
    --------
    >>> import numpy as np
    >>> def worst_task(scores, *, copies, items):
    ...     return np.where(copies[..., None, :] > 0, scores, np.inf).min(axis=-1)
    >>> a = register_aggregate("worst_task", worst_task, range=(0, 1))
    >>> a(np.array([[0.5, 0.2], [0.4, 0.3]])).tolist()
    [0.2, 0.3]
    >>> register_aggregate("sum_all", lambda scores, **_: scores.sum())
    Traceback (most recent call last):
    ...
    metaeval.measures.aggregates.AggregateContractError: aggregate 'sum_all' (<lambda>): expected one value per system, shape (4, 3) for task scores of shape (4, 3, 5); found shape ()
    >>> unregister_aggregate("worst_task")
    """
    if not isinstance(agg_id, str) or not agg_id.isidentifier():
        raise AggregateContractError(f"aggregate {agg_id!r}: an id is a name of letters, digits and _")
    if agg_id in BUILT_IN:
        raise AggregateContractError(f"aggregate {agg_id!r}: a built-in aggregate has this id; choose another")
    if not callable(fn):
        raise AggregateContractError(f"aggregate {agg_id!r}: the function is not callable ({fn!r})")
    if feature not in FEATURES:
        raise AggregateContractError(f"aggregate {agg_id!r}: feature is one of {', '.join(FEATURES)}, got {feature!r}")
    lo, hi = (-np.inf, np.inf) if range is None else (
        -np.inf if range[0] is None else float(range[0]), np.inf if range[1] is None else float(range[1]))
    if not lo < hi:
        raise AggregateContractError(f"aggregate {agg_id!r}: range [{lo:g}, {hi:g}] is empty")
    agg = Aggregate(agg_id, name or agg_id, latex or name or agg_id, fn, bool(higher_is_better), feature, (lo, hi),
                    reference, bool(nonnegative), source or getattr(fn, "__qualname__", repr(fn)), bool(independent))
    check_aggregate(agg)
    AGGREGATES[agg_id] = agg
    return agg


def unregister_aggregate(agg_id: str) -> None:
    """Forget a user's aggregate (a built-in one stays)."""
    if agg_id not in BUILT_IN:
        AGGREGATES.pop(agg_id, None)


AGGREGATE_KEYS = ("function", "higher_is_better", "feature", "name", "latex", "reference", "range", "nonnegative",
                  "independent")


def declare_aggregate(agg_id: str, block: Mapping[str, Any], base_dir=".") -> dict[str, Any]:
    """The plain declaration of one ``custom_aggregates`` entry of the
    config: its function as an absolute ``file.py:name`` (or
    ``package.module:name``) with the SHA-256 of its files (an edit reruns
    the leaderboards that compute it), and its contract; registered and
    held to the contract now.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "mine.py").write_text("import numpy as np\\n"
    ...     "def worst(scores, *, copies, items):\\n"
    ...     "    return np.where(copies[..., None, :] > 0, scores, np.inf).min(axis=-1)\\n")
    >>> decl = declare_aggregate("worst", {"function": "mine.py:worst", "higher_is_better": True, "range": [0, 1],
    ...                                    "independent": True}, d)
    >>> decl["function"].endswith("mine.py:worst"), len(decl["fingerprint"]), "worst" in AGGREGATES
    (True, 64, True)
    >>> unregister_aggregate("worst")
    """
    from .custom import _is_path, _source_file, fingerprint, resolve

    unknown = sorted(set(block) - set(AGGREGATE_KEYS))
    if unknown:
        raise AggregateContractError(f"custom aggregate {agg_id!r}: unknown key(s) {unknown}; known: "
                                     f"{', '.join(AGGREGATE_KEYS)}")
    for key in ("function", "higher_is_better"):
        if key not in block:
            raise AggregateContractError(f"custom aggregate {agg_id!r}: {key} is required")
    function = str(block["function"])
    fn, path = resolve(function, base_dir)
    _, mod, attr = _source_file(function, Path(base_dir))
    decl = {"function": f"{path}:{attr}" if path is not None and _is_path(mod) else function,
            "fingerprint": fingerprint(path) if path is not None else "",
            "higher_is_better": bool(block["higher_is_better"]), "feature": str(block.get("feature", "score")),
            "name": str(block.get("name") or agg_id), "latex": str(block.get("latex") or block.get("name") or agg_id),
            "reference": str(block.get("reference") or ""),
            "range": None if block.get("range") is None else [None if x is None else float(x) for x in block["range"]],
            "nonnegative": bool(block.get("nonnegative", False)), "independent": bool(block.get("independent", False))}
    _register_declared(agg_id, decl, fn)
    return decl


def _register_declared(agg_id: str, d: Mapping[str, Any], fn) -> Aggregate:
    return register_aggregate(agg_id, fn, higher_is_better=d["higher_is_better"], feature=d["feature"],
                              name=d["name"], latex=d["latex"], reference=d["reference"], range=d["range"],
                              nonnegative=d["nonnegative"], independent=d["independent"], source=d["function"])


def register_declared_aggregates(declared: Mapping[str, Mapping[str, Any]]) -> list[Aggregate]:
    """Register plain declarations (``declare_aggregate``'s, as a
    leaderboard step's rule param carries them)."""
    from .custom import resolve

    return [_register_declared(a, d, resolve(d["function"])[0]) for a, d in declared.items()]


def describe(agg_ids: Sequence[str]) -> Mapping[str, Mapping[str, Any]]:
    """``{id: {name, direction, feature, reference}}``: what a table says of each aggregate."""
    return {a: {"name": get(a).name, "direction": get(a).direction, "feature": get(a).feature,
                "reference": get(a).reference} for a in agg_ids}
