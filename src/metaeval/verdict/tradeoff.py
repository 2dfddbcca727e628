"""When the criteria disagree: the answer kept on the most criteria, the
answer under declared priorities, and the trade-off between them
(METHODS 9.8; it extends the verdict of ``metaeval.verdict.evidence``).

Every rule here is a deterministic function of the per-criterion Model
Confidence Sets of ``verdict.evidence_sets``.  Those sets hold every
criterion's best at once with probability at least ``1 - alpha``
(Bonferroni over the criteria that count), so whatever is read off them
keeps that guarantee and adds no test and no multiplicity.

**Passing a criterion.**  A candidate *passes* a criterion when the
criterion does not eliminate it: it is in the criterion's set, or the
criterion does not judge it (exempt: invariant to the class priors by
construction; not defined for it), or the criterion does not count (fewer
than two distinct participants).  The verdict's intersection is the
candidates that pass every criterion.

**k of C.**  When the intersection is empty, the answer is the admissible
candidates that pass the largest number k of the C criteria that count.

**Declared priorities** (an ordered list of criteria): the sequential
intersection.  ``A`` = the admissible candidates; for each criterion in the
declared order, then the others in the table's order, ``A = A ∩ pass(c)``
if that leaves a candidate, else ``c`` is *skipped* (its set would leave
nothing) and ``A`` is kept.  The answer is always one metric or a set the
evidence cannot separate; when the intersection is not empty, every order
gives the intersection.  This is a lexicographic (serial) order of the
criteria, which Arrow's theorem allows only because the user declares it
(METHODS 8).

**The trade-off.**  The criteria that eliminate a candidate kept on k of
C: for each, the answer with it first.  "MAE^M if class discrimination
matters more; macro-F1 or κ if discriminative power does."

Everything is a function of the boolean arrays of an ``EvidenceSets``:
``participants``, ``members`` (C, M), ``counted`` (C,), ``admissible``
(M,).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["passes", "kept_count", "k_of_c", "Decision", "decide", "sequential", "if_first", "trade_off"]


def passes(sets) -> np.ndarray:
    """(C, M): True where criterion c does not eliminate candidate m (kept,
    not judged, or a criterion that does not count).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> s = NS(participants=np.array([[1, 1, 0], [1, 1, 1]], bool), members=np.array([[1, 0, 0], [0, 1, 1]], bool),
    ...        counted=np.array([True, False]))
    >>> passes(s).astype(int).tolist()
    [[1, 0, 1], [1, 1, 1]]
    """
    p = np.asarray(sets.participants, dtype=bool)
    out = ~p | np.asarray(sets.members, dtype=bool)
    out[~np.asarray(sets.counted, dtype=bool)] = True
    return out


def kept_count(sets) -> np.ndarray:
    """(M,): the number of counted criteria each admissible candidate
    passes; -1 for a candidate that is not admissible."""
    n = passes(sets)[np.asarray(sets.counted, dtype=bool)].sum(axis=0)
    return np.where(np.asarray(sets.admissible, dtype=bool), n, -1)


def k_of_c(sets) -> tuple[np.ndarray, int, int]:
    """``(mask, k, C)``: the admissible candidates passing the largest
    number ``k`` of the ``C`` counted criteria (``k == C``: the
    intersection).  With no admissible candidate: an empty mask and k 0.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> s = NS(participants=np.ones((2, 3), bool), members=np.array([[1, 0, 0], [0, 1, 1]], bool),
    ...        counted=np.array([True, True]), admissible=np.array([True, True, True]))
    >>> mask, k, c = k_of_c(s)
    >>> mask.tolist(), k, c
    ([True, True, True], 1, 2)
    """
    n = kept_count(sets)
    c = int(np.asarray(sets.counted, dtype=bool).sum())
    if not (n >= 0).any():
        return np.zeros(n.shape, bool), 0, c
    k = int(n.max())
    return n == k, k, c


@dataclass(frozen=True)
class Sequential:
    """The sequential intersection: ``answer`` (M,), the criteria
    ``applied`` and ``skipped`` (their sets would leave nothing), in the
    order they were taken (``order``), and the declared criteria that do
    not count here (``not_counted``)."""

    answer: np.ndarray
    order: tuple[str, ...]
    applied: tuple[str, ...]
    skipped: tuple[str, ...]
    not_counted: tuple[str, ...]


def sequential(sets, priorities: Sequence[str] = ()) -> Sequential:
    """The sequential intersection of the criteria's sets in the order of
    ``priorities`` (criterion names), then the other counted criteria in
    the table's order (``sets.criteria``).

    Examples
    --------
    Class discrimination keeps only the first metric; discriminative power
    eliminates it and keeps the other two:

    >>> from types import SimpleNamespace as NS
    >>> s = NS(criteria=("discrimination", "power"), participants=np.ones((2, 3), bool),
    ...        members=np.array([[1, 0, 0], [0, 1, 1]], bool), counted=np.array([True, True]),
    ...        admissible=np.ones(3, bool))
    >>> sequential(s, ["discrimination"]).answer.tolist(), sequential(s, ["discrimination"]).skipped
    ([True, False, False], ('power',))
    >>> sequential(s, ["power"]).answer.tolist()
    [False, True, True]
    """
    names = list(sets.criteria)
    counted = np.asarray(sets.counted, dtype=bool)
    ok = passes(sets)
    declared = [c for c in dict.fromkeys(priorities)]
    not_counted = tuple(c for c in declared if c not in names or not counted[names.index(c)])
    order = [c for c in declared if c not in not_counted]
    order += [names[i] for i in np.flatnonzero(counted) if names[i] not in order]
    a = np.asarray(sets.admissible, dtype=bool).copy()
    applied, skipped = [], []
    for c in order:
        nxt = a & ok[names.index(c)]
        if nxt.any():
            a = nxt
            applied.append(c)
        else:
            skipped.append(c)
    return Sequential(a, tuple(order), tuple(applied), tuple(skipped), not_counted)


@dataclass(frozen=True)
class Decision:
    """The answer of one scope: ``answer`` (M,) and how it was reached,
    ``kind``: ``all`` (the candidates kept on every criterion),
    ``k_of_c`` (none is: those kept on the most, ``k`` of ``c``),
    ``priorities`` (the declared priorities' sequential intersection,
    ``sequential``; declared but not needed, the kind stays ``all``) or
    ``none`` (no admissible candidate, or no criterion counts)."""

    answer: np.ndarray
    kind: str
    k: int
    c: int
    sequential: Sequential | None = None


def decide(sets, priorities: Sequence[str] = ()) -> Decision:
    """The answer of a scope's sets: the intersection when it is not empty
    (whatever the priorities: every order gives it); else, with declared
    priorities, their sequential intersection; else the candidates kept on
    the most criteria.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> s = NS(criteria=("discrimination", "power"), participants=np.ones((2, 3), bool),
    ...        members=np.array([[1, 0, 0], [0, 1, 1]], bool), counted=np.array([True, True]),
    ...        admissible=np.ones(3, bool))
    >>> d = decide(s)
    >>> d.kind, d.answer.tolist(), (d.k, d.c)
    ('k_of_c', [True, True, True], (1, 2))
    >>> decide(s, ["power"]).kind, decide(s, ["power"]).answer.tolist()
    ('priorities', [False, True, True])
    """
    mask, k, c = k_of_c(sets)
    seq = sequential(sets, priorities) if priorities else None
    if not len(sets.criteria) or not mask.any():  # no evidence at all, or no candidate
        return Decision(np.zeros(mask.shape, bool), "none", k, c, seq)
    if k == c:  # (no criterion counts: k = c = 0, every candidate; the evidence cannot separate them)
        return Decision(mask, "all", k, c, seq)
    if seq is not None:
        return Decision(seq.answer, "priorities", k, c, seq)
    return Decision(mask, "k_of_c", k, c)


def if_first(sets) -> dict[str, np.ndarray]:
    """Per counted criterion, the answer with it first (the others in the
    table's order): what each single priority would give."""
    names = list(sets.criteria)
    return {names[i]: sequential(sets, [names[i]]).answer for i in np.flatnonzero(np.asarray(sets.counted, bool))}


def trade_off(sets) -> list[tuple[tuple[str, ...], np.ndarray]]:
    """The trade-off when no candidate is kept on every criterion: the
    criteria that eliminate a candidate kept on the most criteria, grouped
    by the answer each gives when it is put first, as ``[(criteria,
    answer), ...]`` in the table's order of their first criterion; empty
    when the intersection is not (nothing to trade) or there is no
    candidate.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> s = NS(criteria=("stability", "discrimination", "power"), participants=np.ones((3, 3), bool),
    ...        members=np.array([[1, 1, 1], [1, 0, 0], [0, 1, 1]], bool), counted=np.ones(3, bool),
    ...        admissible=np.ones(3, bool))
    >>> [(c, a.tolist()) for c, a in trade_off(s)]
    [(('discrimination',), [True, False, False]), (('power',), [False, True, True])]
    """
    # (none eliminates a candidate kept on every criterion, nor one of no candidates, nor a criterion not counted:
    # those give no trade-off without a test of their own)
    mask = k_of_c(sets)[0]
    names = list(sets.criteria)
    ok = passes(sets)
    counted = np.asarray(sets.counted, dtype=bool)
    eliminating = [names[i] for i in np.flatnonzero(counted) if (mask & ~ok[i]).any()]
    groups: dict[bytes, tuple[list[str], np.ndarray]] = {}
    for crit in eliminating:
        ans = sequential(sets, [crit]).answer
        groups.setdefault(ans.tobytes(), ([], ans))[0].append(crit)
    return [(tuple(cs), ans) for cs, ans in groups.values()]
