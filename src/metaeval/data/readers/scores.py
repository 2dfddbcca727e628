"""Reading score and probability files, every fault with its file and line
(collected, not raised, as ``io.read_table`` collects them).

Formats (``score_format`` of a dataset):

* a CSV (or TSV) file with a header: the item id column (``id_column``,
  default ``item_id``) and either one score column (``column``, default
  ``score``: a binary task's score of the positive class, any real number,
  or its probability) or one probability column per class (``columns``:
  ``{label: column}``, every class of the dataset);
* ``semeval2016t3``: a SemEval-2016 Task 3 run file as released, one item
  per line, fields separated by white space and no header:
  ``question_id item_id rank score label`` (the rank is not used, as the
  official scorer does not use it; the label, ``true`` or ``false``, is the
  run's predicted label).

A score that is not a number, NaN or infinite, an empty or repeated item
id, a row of the wrong width and a missing column are refused here; the
checks that need the dataset (items missing or foreign, probabilities
outside [0, 1], rows that do not sum to 1, argmax ties) are made when the
scores are coded (``scores.coding``).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ..files import Problem, delimited_header, read_text_checked

__all__ = ["ScoreTable", "read_scores", "SCORE_FORMATS"]

SCORE_FORMATS = ("csv", "tsv", "semeval2016t3")


@dataclass
class ScoreTable:
    """The rows of one score file: ids, the values of each row (one score or
    one probability per class, in ``columns`` order), optional labels and
    groups (a run file's own), source lines, and the faults found.

    >>> t = ScoreTable("run.csv", ("score",), ids=["a"], values=[(0.5,)], lines=[2])
    >>> len(t), t.unreadable
    (1, False)
    """

    path: str
    columns: tuple[str, ...]  # the value columns read (a class label each for probabilities)
    ids: list[str] = field(default_factory=list)
    values: list[tuple[float, ...]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    labels: list[str] | None = None
    groups: list[str] | None = None
    problems: list[Problem] = field(default_factory=list)
    skipped_ids: set[str] = field(default_factory=set)
    stripped: dict[str, dict] = field(default_factory=dict)  # ids read without their spaces (io.LabelTable's)

    @property
    def unreadable(self) -> bool:
        return any(p.kind in ("file", "header") for p in self.problems)

    def __len__(self) -> int:
        return len(self.ids)


def _number(text: str) -> tuple[float | None, str]:
    """The float of a field, or None and why not."""
    t = text.strip()
    try:
        v = float(t)
    except ValueError:
        return None, f"is {t!r}, not a number" if t else "is empty"
    if math.isnan(v):
        return None, "is NaN"
    if math.isinf(v):
        return None, f"is infinite ({t})"
    return v, ""


def read_scores(path: str | Path, *, format: str = "csv", id_column: str = "item_id", column: str = "score",
                columns: Mapping[str, str] | None = None) -> ScoreTable:
    """Read one score file (see the module's formats).

    Parameters
    ----------
    format : {"csv", "tsv", "semeval2016t3"}
    id_column : str
        The item id column of a CSV or TSV file.
    column : str
        The one score column (binary tasks), when ``columns`` is not given.
    columns : mapping of label to column, optional
        One probability column per class.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "run.csv")
    >>> _ = open(p, "w").write("item_id,score\\na,0.9\\nb,oops\\n")
    >>> t = read_scores(p)
    >>> t.ids, t.values, [(x.line, x.message) for x in t.problems]
    (['a'], [(0.9,)], [(3, "score of item 'b' is 'oops', not a number")])
    """
    path = str(path)
    if format not in SCORE_FORMATS:
        raise ValueError(f"score format {format!r}: one of {', '.join(SCORE_FORMATS)}")
    names = tuple(columns) if columns else (column,)
    table = ScoreTable(path=path, columns=names)

    def fault(line, msg, kind):
        table.problems.append(Problem(path, line, msg, kind))

    text = read_text_checked(path, fault)
    if text is None:
        return table
    if not text.strip():
        fault(None, "empty file (expected one row per item)", "file")
        return table
    if format == "semeval2016t3":
        return _run_file(table, text, fault)
    value_cols = list(columns.values()) if columns else [column]
    reader, header, header_line = delimited_header(text, "\t" if format == "tsv" else ",", [id_column] + value_cols,
                                                   fault)
    if header is None:
        return table
    i_id, i_vals = header.index(id_column), [header.index(c) for c in value_cols]
    width = len(header)
    first: dict[str, int] = {}
    try:
        for row in reader:
            line = reader.line_num
            if not any(f.strip() for f in row):
                continue
            if len(row) != width:
                fault(line, f"expected {width} fields as in the header, found {len(row)}", "ragged")
                if len(row) > i_id:
                    table.skipped_ids.add(row[i_id].strip())
                continue
            _accept(table, fault, first, line, row[i_id], [row[i] for i in i_vals], value_cols)
    except csv.Error as e:
        fault(reader.line_num, f"malformed row ({e})", "ragged")
    if not table.ids and not table.problems:
        fault(header_line, "no data rows after the header", "file")
    return table


def _accept(table: ScoreTable, fault, first: dict, line: int, item: str, fields: Sequence[str],
            value_cols: Sequence[str], label: str | None = None, group: str | None = None) -> None:
    if item != item.strip() and item.strip():  # the same item: counted, and said by the dataset
        table.stripped.setdefault("ids", {"count": 0, "example": item})["count"] += 1
        item = item.strip()
    if not item:
        fault(line, "empty item id", "empty")
        return
    if item in first:
        fault(line, f"duplicated item {item!r} (first seen on line {first[item]})", "duplicate")
        return
    vals = []
    for col, f in zip(value_cols, fields):
        v, why = _number(f)
        if v is None:
            fault(line, f"{col} of item {item!r} {why}", "score")
            table.skipped_ids.add(item)
            return
        vals.append(v)
    first[item] = line
    table.ids.append(item)
    table.values.append(tuple(vals))
    table.lines.append(line)
    if label is not None:
        table.labels.append(label)
    if group is not None:
        table.groups.append(group)


def _run_file(table: ScoreTable, text: str, fault) -> ScoreTable:
    """``question_id item_id rank score label`` per line (SemEval-2016 Task 3)."""
    table.labels, table.groups = [], []
    first: dict[str, int] = {}
    for line, raw in enumerate(text.splitlines(), 1):
        fields = raw.split()
        if not fields:
            continue
        if len(fields) != 5:
            fault(line, f"expected 5 fields (question_id item_id rank score label), found {len(fields)}", "ragged")
            if len(fields) > 1:
                table.skipped_ids.add(fields[1])
            continue
        question, item, _rank, score, label = fields
        _accept(table, fault, first, line, item, [score], ["score"], label, question)
    if not table.ids and not table.problems:
        fault(None, "no rows", "file")
    return table
