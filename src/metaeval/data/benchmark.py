"""A benchmark in memory: many systems, many tasks, one score per system
and item; read from files with every fault named by file and line.

A leaderboard's input: a gold file of ``item_id, label, task[, n_options]``
rows (the task column is the benchmark's task or category; ``n_options``
the number of options where answers are choices) and, per system, either
its answers (``item_id, label``: right when equal to the gold label, with a
declared value meaning "no answer") or its per-item scores (``item_id,
score``: 1/0 correctness or any per-item score; the gold file then needs no
label).  Every system must score every item of the gold file.

The per-item score of an answer is 1 if right and 0 if wrong; a missing
answer (``no_answer``) is scored by the ``no_answer_scoring`` policy:
``wrong`` (0) or ``guess``, its expected value under a uniform random guess
among the item's options, ``1 / n_options`` (MMLU-Pro's own scorer draws a
random letter there).  Where each item's number of options is known, the
chance-corrected per-item score ``(x - 1/n) / (1 - 1/n)`` is a second
feature (0 = guessing, 1 = right); an item with one option cannot be
answered wrongly, so its chance-corrected score is 0 (it shows nothing
above chance), and the benchmark says how many such items it holds.

Examples
--------
>>> b = Benchmark.from_answers("toy", gold=["A", "B", "C", "A"], tasks=["x", "x", "y", "y"],
...                            answers={"s1": ["A", "none", "C", "B"], "s2": ["A", "B", "none", "A"]},
...                            no_answer="none", n_options=[4, 4, 2, 2])
>>> b.features("wrong")[..., 0].tolist()
[[1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 1.0]]
>>> b.features("guess")[..., 0].tolist()      # a missing answer: 1/n_options
[[1.0, 0.25, 1.0, 0.0], [1.0, 1.0, 0.5, 1.0]]
>>> b.no_answers.tolist()
[1, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..measures.aggregates import TaskTotals
from .files import DataError, Problem
from .readers.labels import read_labels
from .readers.scores import read_scores

__all__ = ["Benchmark", "NO_ANSWER_SCORING", "read_benchmark"]

NO_ANSWER_SCORING = ("wrong", "guess")


@dataclass(frozen=True)
class Benchmark:
    """Systems' per-item scores on a benchmark of tasks.

    ``right`` (S, N): the per-item score of each system where it answered
    (1/0 for answers; the score read for per-item scores); ``unanswered``
    (S, N): no answer given (always False for per-item scores); ``tasks``
    (N,): task codes into ``task_names``; ``n_options`` (N,) or None;
    ``notes``: what the input changed in a score, said by the workflow in
    ``dataset.json`` and on the console.
    """

    name: str
    item_ids: tuple[str, ...]
    tasks: np.ndarray
    task_names: tuple[str, ...]
    systems: tuple[str, ...]
    right: np.ndarray
    unanswered: np.ndarray
    n_options: np.ndarray | None = None
    kind: str = "answers"
    notes: tuple[str, ...] = ()
    info: Mapping = field(default_factory=dict)
    labels: np.ndarray | None = None  # (N,) the gold answers, for answers (the constant-answer gamer)

    def __post_init__(self):
        s, n = np.shape(self.right)
        if np.shape(self.unanswered) != (s, n) or np.shape(self.tasks) != (n,) or len(self.item_ids) != n:
            raise ValueError("a benchmark's right (S, N), unanswered (S, N), tasks (N,) and item ids (N) must agree")
        if len(self.systems) != s:
            raise ValueError(f"{len(self.systems)} system names for {s} rows of scores")
        if n and (self.tasks.min() < 0 or self.tasks.max() >= len(self.task_names)):
            raise ValueError("task codes must index task_names")
        if self.n_options is not None and (np.shape(self.n_options) != (n,) or np.any(np.asarray(self.n_options) < 1)):
            raise ValueError("n_options must be one integer >= 1 per item")

    # -- constructors -----------------------------------------------------------------------------------------
    @classmethod
    def from_answers(cls, name: str, *, gold: Sequence, tasks: Sequence, answers: Mapping[str, Sequence],
                     no_answer: str | Sequence[str] | None = None, n_options: Sequence[int] | None = None,
                     item_ids: Sequence | None = None) -> "Benchmark":
        """A benchmark of answers in memory: ``answers[system][i]`` the answer
        to item i (``no_answer``: the value, or values, meaning none was
        given).  As from
        files, answers written unlike every gold label (``b`` for ``B``) are
        scored wrong and said in ``notes``, and a system most of whose
        answers are so is refused (``ValueError``)."""
        gold = np.asarray([str(g) for g in gold], dtype=object)
        names, codes = np.unique(np.asarray([str(t) for t in tasks], dtype=object), return_inverse=True)
        systems = tuple(answers)
        ans = np.asarray([[str(a) for a in answers[s]] for s in systems], dtype=object).reshape(len(systems), -1)
        if ans.shape[1] != gold.size or codes.size != gold.size:
            raise ValueError(f"gold ({gold.size}), tasks ({codes.size}) and answers ({ans.shape[1]}) must have one "
                             "entry per item each")
        unanswered = np.isin(ans, no_answer_values(no_answer))
        right = (ans == gold[None, :]) & ~unanswered
        known, odd = set(gold), {}
        for s, system in enumerate(systems):  # answers no gold label has, as from files: most refused, a few said
            odd[system], fault = _odd_answers(ans[s][~unanswered[s]], known)
            if fault:
                raise ValueError(f"answers of system {system!r}: {fault}")
        ids = tuple(str(i) for i in (item_ids if item_ids is not None else range(gold.size)))
        notes = (list(_notes_of(None if n_options is None else np.asarray(n_options), unanswered, systems))
                 + _same_and_scale_notes(systems, right, unanswered, "answers") + _odd_notes(odd))
        return cls(name, ids, codes.astype(np.int64), tuple(names), systems, right.astype(np.float64), unanswered,
                   None if n_options is None else np.asarray(n_options, dtype=np.int64), "answers", tuple(notes), {},
                   gold)

    @classmethod
    def from_scores(cls, name: str, *, tasks: Sequence, scores: Mapping[str, Sequence[float]],
                    n_options: Sequence[int] | None = None, item_ids: Sequence | None = None) -> "Benchmark":
        """A benchmark of per-item scores in memory: ``scores[system][i]``."""
        names, codes = np.unique(np.asarray([str(t) for t in tasks], dtype=object), return_inverse=True)
        systems = tuple(scores)
        right = np.asarray([np.asarray(scores[s], dtype=np.float64) for s in systems]).reshape(len(systems), -1)
        if right.shape[1] != codes.size:
            raise ValueError(f"tasks ({codes.size}) and scores ({right.shape[1]}) must have one entry per item each")
        if not np.all(np.isfinite(right)):
            raise ValueError("every per-item score must be a finite number")
        ids = tuple(str(i) for i in (item_ids if item_ids is not None else range(codes.size)))
        unanswered = np.zeros(right.shape, dtype=bool)
        notes = (list(_notes_of(None if n_options is None else np.asarray(n_options), unanswered, systems))
                 + _same_and_scale_notes(systems, right, unanswered, "scores"))
        return cls(name, ids, codes.astype(np.int64), tuple(names), systems, right, unanswered,
                   None if n_options is None else np.asarray(n_options, dtype=np.int64), "scores", tuple(notes))

    def notes_scored(self, no_answer_scoring: str) -> tuple[str, ...]:
        """``notes`` with the scoring of a missing answer in words (the
        benchmark holds the answers, not how a missing one is scored).

        >>> b = Benchmark.from_answers("t", gold=["A", "B"], tasks=["x", "x"], answers={"s": ["A", "-"]},
        ...                            no_answer="-")
        >>> b.notes_scored("guess")[0]
        '1 of 1 systems left items unanswered, scored as their expected value under a random guess (no_answer_scoring: guess): s 1'
        """
        words = "wrong" if no_answer_scoring == "wrong" else "as their expected value under a random guess"
        return tuple(n.replace("scored by no_answer_scoring:", f"scored {words} (no_answer_scoring: "
                                                              f"{no_answer_scoring}):") for n in self.notes)

    # -- what the methods read --------------------------------------------------------------------------------
    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_tasks(self) -> int:
        return len(self.task_names)

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The per-item scores the aggregates may read: ``score``, and
        ``chance`` where each item's number of options is known."""
        return ("score",) if self.n_options is None else ("score", "chance")

    @property
    def no_answers(self) -> np.ndarray:
        """(S,): how many items each system left unanswered."""
        return self.unanswered.sum(axis=1)

    def features(self, no_answer_scoring: str = "wrong") -> np.ndarray:
        """(S, N, F): each system's per-item scores (``feature_names``), a
        missing answer scored by ``no_answer_scoring`` (``wrong``: 0;
        ``guess``: 1 / n_options)."""
        if no_answer_scoring not in NO_ANSWER_SCORING:
            raise ValueError(f"no_answer_scoring is one of {', '.join(NO_ANSWER_SCORING)}, got {no_answer_scoring!r}")
        x = self.right.copy()
        if no_answer_scoring == "guess" and self.unanswered.any():
            if self.n_options is None:
                raise ValueError(f"benchmark {self.name!r}: no_answer_scoring 'guess' needs each item's number of "
                                 "options (the options column)")
            x = np.where(self.unanswered, 1.0 / self.n_options[None, :], x)
        if self.n_options is None:
            return x[..., None]
        n = self.n_options[None, :].astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            chance = np.where(n > 1, (x - 1.0 / n) / (1.0 - 1.0 / np.where(n > 1, n, 2.0)), 0.0)
        return np.stack([x, chance], axis=-1)

    def totals(self, no_answer_scoring: str = "wrong") -> TaskTotals:
        """The per-task sums of the whole benchmark (every item and task once)."""
        x = self.features(no_answer_scoring)  # (S, N, F)
        sums = np.zeros((self.n_systems, self.n_tasks, x.shape[-1]))
        np.add.at(sums, (slice(None), self.tasks), x)  # (a loop over nothing: one scatter-add per call)
        items = np.bincount(self.tasks, minlength=self.n_tasks).astype(np.float64)
        return TaskTotals(sums, items, np.ones(self.n_tasks), self.feature_names)

    def items(self, keep) -> "Benchmark":
        """The benchmark on the items ``keep`` (indices or a mask), its tasks
        coded again (a task left without items is dropped)."""
        keep = np.flatnonzero(keep) if np.asarray(keep).dtype == bool else np.asarray(keep, dtype=np.int64)
        used, codes = np.unique(self.tasks[keep], return_inverse=True)
        return Benchmark(self.name, tuple(self.item_ids[i] for i in keep), codes.astype(np.int64),
                         tuple(self.task_names[t] for t in used), self.systems, self.right[:, keep],
                         self.unanswered[:, keep], None if self.n_options is None else self.n_options[keep],
                         self.kind, self.notes, self.info, None if self.labels is None else self.labels[keep])

    def without(self, systems: Sequence[str]) -> "Benchmark":
        """The benchmark without the named systems (the robustness of ranks
        to removing one)."""
        keep = [i for i, s in enumerate(self.systems) if s not in set(systems)]
        return Benchmark(self.name, self.item_ids, self.tasks, self.task_names, tuple(self.systems[i] for i in keep),
                         self.right[keep], self.unanswered[keep], self.n_options, self.kind, self.notes, self.info,
                         self.labels)


def _same_and_scale_notes(systems, right, unanswered, kind: str) -> list[str]:
    """Systems whose every per-item score (and missing answer) is another's
    (a file copied, or one system submitted twice: both are ranked, never
    resolved from each other), and per-item scores outside [0, 1] (the
    chance correction and the guess of a missing answer assume a
    probability of being right)."""
    notes = []
    key = {}
    for s, row, miss in zip(systems, right, unanswered):
        key.setdefault(row.tobytes() + miss.tobytes(), []).append(s)
    same = [v for v in key.values() if len(v) > 1]
    if same:
        notes.append("systems with the same score on every item (both ranked, never told apart): "
                     + "; ".join(", ".join(v) for v in same))
    if kind == "scores" and right.size and (right.min() < 0 or right.max() > 1):
        out = [s for s, row in zip(systems, right) if row.min() < 0 or row.max() > 1]
        notes.append(f"per-item scores outside [0, 1] ({', '.join(out[:5])}{', ...' if len(out) > 5 else ''}): the "
                     "aggregates average them as given; a chance-corrected score assumes a probability of being right")
    return notes


def _notes_of(n_options, unanswered, systems) -> tuple[str, ...]:
    """What changes a score without being an error: said by the workflow."""
    notes = []
    if n_options is not None and np.any(n_options == 1):
        notes.append(f"{int(np.sum(n_options == 1)):,} item(s) have a single option: their chance-corrected score "
                     "is 0 (an item that cannot be answered wrongly shows nothing above chance)")
    left = [(s, int(k)) for s, k in zip(systems, unanswered.sum(axis=1)) if k]
    if left:
        each = (", ".join(f"{s} {k:,}" for s, k in left) if len(left) <= 12 else
                f"{min(k for _, k in left):,} to {max(k for _, k in left):,} each (every system's count: "
                "dataset.json's no_answers)")
        notes.append(f"{len(left)} of {len(systems)} systems left items unanswered, scored by no_answer_scoring: "
                     + each)
    return tuple(notes)


# -----------------------------------------------------------------------------------------------------------
# reading from files
# answers that read as "no answer given" (case-folded): when no gold label is one and no_answer does not declare
# them, they are scored wrong as any wrong answer, and said with the key that would declare them
NO_ANSWER_WORDS = frozenset({"none", "n/a", "na", "null", "nan", "-", "?", "no answer", "noanswer", "missing",
                             "unanswered", "abstain", "[none]", "(none)"})


def no_answer_values(no_answer) -> tuple[str, ...]:
    """The answers declared to mean that none was given: ``no_answer``,
    one value or several (systems may write it differently), as a tuple.

    >>> no_answer_values(None), no_answer_values("none"), no_answer_values(["none", "N/A"])
    ((), ('none',), ('none', 'N/A'))
    """
    if no_answer is None:
        return ()
    return (str(no_answer),) if isinstance(no_answer, str) else tuple(str(x) for x in no_answer)


def _reads_as_absent(answer: str) -> bool:
    return answer.casefold().strip() in NO_ANSWER_WORDS


def _odd_answers(answers, known) -> tuple[dict[str, int], str | None]:
    """The given answers (no declared missing one) no gold label has that
    read as a label written otherwise (``_looks_like_a_label``) or as no
    answer (``NO_ANSWER_WORDS``), ``{answer: count}`` in the order they
    first appear, and, when the former are most of them (a format, not a
    system's mistakes), the fault to refuse them with (None otherwise).
    Judged once per distinct answer (a few), not per item."""
    arr = np.asarray(answers, dtype=object)
    if not arr.size:
        return {}, None
    values, first, counts = np.unique(arr, return_index=True, return_counts=True)
    odd = {values[i]: int(counts[i]) for i in np.argsort(first, kind="stable")
           if values[i] not in known and (_reads_as_absent(values[i]) or _looks_like_a_label(values[i], known))}
    slips = {x: c for x, c in odd.items() if not _reads_as_absent(x)}
    n_slips = sum(slips.values())
    if not slips or n_slips * 2 <= arr.size:
        return odd, None
    shown = ", ".join(repr(x) for x in list(slips)[:5])
    return odd, (f"{n_slips:,} of {arr.size:,} answers are written unlike the gold labels ({shown}; the gold's: "
                 + ", ".join(map(repr, sorted(known)[:6])) + (", ..." if len(known) > 6 else "")
                 + "): write them as the gold does")


def _odd_notes(odd_by_system: Mapping[str, Mapping[str, int]]) -> list[str]:
    """Answers no gold label has, per system (``{answer: count}``): labels
    written otherwise (a case or format slip?) and words meaning no answer
    (``no_answer`` not declaring them): scored wrong, and said."""
    notes = []
    for system, odd in odd_by_system.items():
        for absent in (False, True):
            these = {x: c for x, c in odd.items() if _reads_as_absent(x) is absent}
            if not these:
                continue
            ranked = sorted(these.items(), key=lambda kv: -kv[1])  # (stable: ties in the order they appear)
            shown = ", ".join(f"{x!r} ({c:,})" for x, c in ranked[:5])
            notes.append(f"system {system!r}: {sum(these.values()):,} answer(s) " + (
                f"that read as no answer, scored wrong: {shown}; if they mean that none was given, declare "
                f"them in no_answer (one value or a list: {ranked[0][0]!r} among them; their scoring: "
                "no_answer_scoring)" if absent else
                f"written unlike the gold labels, scored wrong: {shown}"))
    return notes


def _looks_like_a_label(answer: str, labels) -> bool:
    """An answer no gold label has that reads as one written otherwise
    (``a`` or ``(A)`` or ``A.`` for ``A``): scored wrong, as it is, and said,
    since a format slip would otherwise cost a system in silence.  An answer
    unlike every label (an option no question has as its answer) is just
    wrong."""
    folded = answer.casefold().strip()
    return any(folded == lab.casefold() or (len(answer) <= 3 * max(len(lab), 1) and lab in answer)
               for lab in labels)



def _aligned(path: str, ids, lines, position: Mapping[str, int], skipped, noun: str):
    """(rows, columns, problems): the rows of a file's ids that are gold
    items and their positions; ids not in the gold (each line named) and
    gold items the file lacks (counted, with examples) as problems."""
    problems, rows, cols = [], [], []
    for r, item in enumerate(ids):
        p = position.get(item)
        if p is None:
            problems.append(Problem(path, lines[r], f"item {item!r} is not in the gold file", "not_in_gold"))
            continue
        rows.append(r)
        cols.append(p)
    seen = np.zeros(len(position), dtype=bool)
    seen[cols] = True
    gold_ids = list(position)
    lacking = [gold_ids[i] for i in np.flatnonzero(~seen) if gold_ids[i] not in skipped]
    if lacking:
        problems.insert(0, Problem(path, None, f"{len(lacking):,} gold item(s) have no {noun}, e.g. "
                                   + ", ".join(map(repr, lacking[:5])) + (", ..." if len(lacking) > 5 else ""),
                                   "missing", len(lacking)))
    return np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64), problems


def read_benchmark(name: str, gold: str | Path, predictions: Mapping[str, str | Path], *, task_column: str = "task",
                   id_column: str = "item_id", label_column: str = "label", options_column: str | None = None,
                   input: str = "answers", no_answer: str | Sequence[str] | None = None,  # noqa: A002
                   score_column: str = "score") -> Benchmark:
    """Read a benchmark: the gold file and one file per system.

    Parameters
    ----------
    gold : path
        ``item_id, label, task[, n_options]`` rows (any readable label
        format; ``label`` is not needed for per-item scores).
    predictions : mapping of system name to path
        Each system's answers (``item_id, label``) or per-item scores
        (``item_id, score``).
    input : {"answers", "scores"}
    no_answer : str or list of str, optional
        The answer meaning "none given" (e.g. ``none``), or several (systems
        write it differently: ``["none", "N/A"]``); a gold label equal to
        one is refused.
    options_column : str, optional
        The gold file's column of the number of options per item.

    Raises
    ------
    DataError
        Every fault of every file at once, with its file and line: the
        readers' own, an id not in the gold or a gold item a system lacks,
        a number of options that is not an integer >= 1, a gold label equal
        to ``no_answer``.
    """
    if input not in ("answers", "scores"):
        raise ValueError(f"input is 'answers' or 'scores', got {input!r}")
    gold = str(gold)
    problems: list[Problem] = []
    if input == "answers":
        g = read_labels(gold, id_column=id_column, label_column=label_column, group_column=task_column)
    else:  # the task column read as the table's label
        g = read_labels(gold, id_column=id_column, label_column=task_column)
        g.groups = list(g.labels)
    problems += g.problems
    if g.unreadable:  # no gold to align the systems' files with: its own faults only (not one per item of theirs)
        raise DataError(problems, f"benchmark {name!r}")
    ids = list(g.ids)
    position = {item: i for i, item in enumerate(ids)}
    n_options = None
    if options_column is not None and not g.unreadable:
        o = read_scores(gold, id_column=id_column, column=options_column)
        problems += [p for p in o.problems if p.kind not in ("file", "duplicate", "empty")]
        n_options = np.zeros(len(ids), dtype=np.int64)
        for item, (v,), line in zip(o.ids, o.values, o.lines):
            if item not in position:
                continue
            if v != int(v) or v < 1:
                problems.append(Problem(gold, line, f"{options_column!r} of item {item!r} is {v:g}, not a whole "
                                                    "number of options >= 1", "other"))
                continue
            n_options[position[item]] = int(v)
    absent = no_answer_values(no_answer)
    if input == "answers" and absent:
        problems += [Problem(gold, line, f"the gold label of item {item!r} is {lab.strip()!r}, a value declared to "
                                         "mean no answer (no_answer)", "label")
                     for item, lab, line in zip(g.ids, g.labels, g.lines) if lab.strip() in absent]
    systems = tuple(predictions)
    n = len(ids)
    right = np.zeros((len(systems), n))
    unanswered = np.zeros((len(systems), n), dtype=bool)
    foreign: dict[str, dict[str, int]] = {}
    gold_labels = np.asarray([lab.strip() for lab in g.labels], dtype=object) if input == "answers" else None
    known = set(gold_labels) if gold_labels is not None else set()
    for s, system in enumerate(systems):
        path = str(predictions[system])
        if input == "answers":
            t = read_labels(path, id_column=id_column, label_column=label_column)
            values = [v.strip() for v in t.labels]
        else:
            t = read_scores(path, id_column=id_column, column=score_column)
            values = [v[0] for v in t.values]
        problems += t.problems
        if t.unreadable:
            continue
        rows, cols, faults = _aligned(path, t.ids, t.lines, position, t.skipped_ids,
                                      "answer" if input == "answers" else "score")
        problems += faults
        if input == "answers":
            v = np.asarray(values, dtype=object)[rows] if rows.size else np.zeros(0, dtype=object)
            none = np.isin(v, absent) if v.size else np.zeros(0, dtype=bool)
            unanswered[s, cols] = none
            right[s, cols] = (v == gold_labels[cols]) & ~none
            odd, fault = _odd_answers(v[~none], known)
            if fault:
                problems.append(Problem(path, None, fault, "label",
                                        sum(c for x, c in odd.items() if not _reads_as_absent(x))))
            else:
                foreign[system] = odd
        else:
            right[s, cols] = np.asarray(values, dtype=np.float64)[rows]
    if problems:
        raise DataError(problems, f"benchmark {name!r}")
    names, codes = np.unique(np.asarray([str(t) for t in g.groups], dtype=object), return_inverse=True)
    notes = list(_notes_of(n_options, unanswered, systems))
    notes += _same_and_scale_notes(systems, right, unanswered, input)
    notes += _odd_notes(foreign)
    info = {"gold": gold, "predictions": {s: str(p) for s, p in predictions.items()}, "input": input,
            "no_answer": no_answer, "options_column": options_column, "task_column": task_column}
    return Benchmark(name, tuple(ids), codes.astype(np.int64), tuple(names), systems, right, unanswered, n_options,
                     input, tuple(notes), info, gold_labels)
