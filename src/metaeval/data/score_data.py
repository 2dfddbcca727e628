"""Scores and probabilities of a dataset's systems, read, checked and
aligned with its items (``ScoreView``), and the labels of a system that
gives scores only.

A system's score file is matched to its prediction file by name (the file
name without extension, or its ``display_names`` entry).  A system with
scores and no prediction file gets labels from its scores, and the console
and ``dataset.json`` say so: by argmax of its class probabilities (a tie
for the top is refused, not broken), by ``score >= score_threshold`` for a
binary score, or from a SemEval-2016 Task 3 run file's own label column.
A system with labels and no scores is refused: its scores would be
invented.  metaeval's generated baselines (majority, all_<class>, random)
have labels only; their scores are the one-hot vectors of their labels
(probability 1 on the predicted class), which gives a constant for
majority and all_<class>.

Refused, with file, line and fault (every fault of every file at once,
before anything is written): items of the gold without a score, items not
in the gold, and when the values are probabilities (one column per class,
or a single column with Brier score, log loss or ECE listed): a value
outside [0, 1], or a row whose sum is more than ``probability_tolerance``
from 1.  ``normalize_probabilities: true`` divides each row by its sum
instead, and says how many rows it changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .config import DatasetSpec
from .files import DataError, Problem, file_sha256, in_memory
from .readers.labels import LabelTable
from .readers.scores import ScoreTable, read_scores
from ..measures.scores.registry import needs_probabilities

__all__ = ["ScoreView", "read_score_tables", "labels_from_scores", "code_scores"]


@dataclass
class ScoreView:
    """The scores of every system of a dataset (its ``systems`` order), on
    its items (their order): ``values`` (S, N, C), C = 1 for a binary task's
    positive-class score, else one probability per class (``columns``, the
    dataset's labels)."""

    values: np.ndarray
    columns: tuple[str, ...]
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def probabilities(self) -> bool:
        """Every value in [0, 1] (a probability)."""
        return bool(((self.values >= 0) & (self.values <= 1)).all())

    def arrays(self) -> dict[str, np.ndarray]:
        return {"score_values": self.values, "score_columns": np.array(self.columns, dtype=str)}

    @classmethod
    def from_arrays(cls, z) -> "ScoreView":
        return cls(values=z["score_values"], columns=tuple(z["score_columns"].tolist()))


def read_score_tables(spec: DatasetSpec, data_dir: str | Path) -> tuple[dict[str, ScoreTable], dict[str, Path]]:
    """Every score file of ``spec`` read (faults collected in each table)."""
    files = spec.score_files(data_dir)
    fmt = dict(spec.score_format)
    return {s: read_scores(p, **fmt) for s, p in files.items()}, files


def labels_from_scores(spec: DatasetSpec, table: ScoreTable) -> tuple[LabelTable, str]:
    """The labels of a system given by its scores only, as a label table (so
    that they are checked as any prediction file is), and how they were
    derived."""
    lt = LabelTable(path=table.path, ids=list(table.ids), labels=[], lines=list(table.lines),
                    problems=list(table.problems), skipped_ids=set(table.skipped_ids), noun="score",
                    stripped=dict(table.stripped))
    if table.labels is not None:  # a run file's own labels
        lt.labels = list(table.labels)
        return lt, "the run file's label column"
    cols = spec.score_format.get("columns")
    if cols:
        labels = list(cols)
        for item, vals, line in zip(table.ids, table.values, table.lines):
            v = np.asarray(vals)
            top = np.flatnonzero(v == v.max())
            if top.size > 1:
                lt.problems.append(Problem(table.path, line, f"item {item!r}: classes "
                                           f"{', '.join(repr(labels[t]) for t in top)} tie for the highest "
                                           f"probability, so no label follows by argmax; give the system's labels "
                                           f"(a prediction file)", "tie"))
                lt.skipped_ids.add(item)
            lt.labels.append(labels[int(top[0])])
        return lt, "argmax of its probabilities"
    t = spec.score_threshold
    if t is None:
        lt.problems.insert(0, Problem(table.path, None, "scores without labels: give the system's prediction file, "
                                      f"or set datasets.{spec.name}.score_threshold (a score >= it predicts "
                                      f"{spec.positive_class!r})", "file"))
        return lt, ""
    other = next(lab for lab in spec.labels if lab != spec.positive_class)
    lt.labels = [spec.positive_class if v[0] >= t else other for v in table.values]
    return lt, f"score >= {t:g} predicts {spec.positive_class!r}"


def code_scores(spec: DatasetSpec, ds, tables: Mapping[str, ScoreTable], files: Mapping[str, Path],
                gold_ids) -> ScoreView:
    """The ``ScoreView`` of dataset ``ds`` (coded from its labels) from the
    score tables of its supplied systems; raises ``DataError`` listing every
    fault.  ``gold_ids``: every id of the gold file (an id that is not in it
    is a fault; one of a dropped gold row is not)."""
    problems: list[Problem] = []
    position = {item: p for p, item in enumerate(ds.item_ids.tolist())}
    n, labels = ds.n_items, tuple(spec.labels)
    cols = spec.score_format.get("columns")
    c = len(labels) if cols and len(labels) > 2 else 1
    probabilistic = bool(cols) or bool(needs_probabilities(spec.score_metrics))
    tol = spec.probability_tolerance
    values = np.full((len(ds.systems), n, c), np.nan)
    all_gold = set(gold_ids)
    normalised: dict[str, int] = {}
    ties: dict[str, int] = {}
    for s, system in enumerate(ds.systems):
        t = tables.get(system)
        if t is None:
            if ds.kinds[s] == "baseline" and system not in files:  # generated: the one-hot of its labels
                pred = ds.predictions[s].astype(np.int64)
                if c == 1:
                    values[s, :, 0] = pred == labels.index(spec.positive_class)
                else:
                    values[s] = np.eye(c)[pred]
            continue
        if system not in ds.info.get("files", {}):  # (a system with labels: its file's faults were said with theirs)
            problems += t.problems
        if t.unreadable:  # a missing column or an unreadable file: said, nothing to align
            continue
        seen = np.zeros(n, dtype=bool)
        rows = np.asarray(t.values, dtype=np.float64).reshape(len(t.ids), -1)
        for r, item in enumerate(t.ids):
            p = position.get(item)
            if p is None:
                if item not in all_gold:
                    problems.append(Problem(t.path, t.lines[r], f"item {item!r} is not in the gold file", "not_in_gold"))
                continue
            seen[p] = True
            v = rows[r]
            if probabilistic:
                bad = [(labels[j] if cols else spec.positive_class, x) for j, x in enumerate(v) if not 0 <= x <= 1]
                if bad:
                    why = "" if cols else (f" ({', '.join(needs_probabilities(spec.score_metrics))} need "
                                           f"probabilities: give them, or leave those metrics out)")
                    problems.append(Problem(t.path, t.lines[r], f"item {item!r}: not a probability in [0, 1]: "
                                            + ", ".join(f"{float(x):g} for class {c!r}" for c, x in bad) + why,
                                            "range"))
                    continue
                if cols:
                    total = float(v.sum())
                    if abs(total - 1.0) > tol:
                        if not spec.normalize_probabilities or total <= 0:
                            problems.append(Problem(t.path, t.lines[r], f"item {item!r}: the class probabilities "
                                                    f"sum to {total:.6g}, not 1 (probability_tolerance {tol:g}; "
                                                    f"normalize_probabilities: true divides each row by its sum)",
                                                    "sum"))
                            continue
                        normalised[system] = normalised.get(system, 0) + 1
                        v = v / total
            if cols and c == 1:  # a binary task's two columns: the positive class's probability
                v = v[[labels.index(spec.positive_class)]]
            values[s, p] = v
        lacking = [i for i in np.flatnonzero(~seen) if ds.item_ids[i] not in t.skipped_ids]
        if lacking:
            shown = ", ".join(repr(str(ds.item_ids[i])) for i in lacking[:5])
            problems.insert(0, Problem(t.path, None, f"{len(lacking):,} gold item(s) have no score, e.g. {shown}"
                                       + (", ..." if len(lacking) > 5 else ""), "missing", len(lacking)))
        if c == 1 and not problems:
            col = values[s, :, 0]
            ties[system] = int(n - np.unique(col).size)
    if problems:
        gpath = spec.gold
        raise DataError(problems, f"dataset {spec.name!r}" + ("" if in_memory(str(gpath)) else " (scores)"))
    info = {"columns": list(labels if c > 1 else (spec.positive_class,)), "probabilities": probabilistic,
            "files": {s: {"path": str(p), "sha256": file_sha256(p)} for s, p in files.items()},
            "normalized_rows": normalised, "tied_items": ties}
    return ScoreView(values=values, columns=tuple(info["columns"]), info=info)
