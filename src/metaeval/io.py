"""Readers for gold and prediction files, with errors that name the fault.

Prediction files are written by other people's scripts, so every reader
checks its input up front and reports *file, line and fault*; what can be
read unambiguously (a UTF-8 byte-order mark, CRLF line ends, spaces around
fields, blank lines) is read.  Ids are always strings.

Formats (``FORMATS``) are presets of the one delimited-text reader:

* ``csv``: comma-separated, header with ``item_id`` and ``label`` (the
  canonical format; extra columns are allowed and ignored);
* ``semeval_tsv``: SemEval-2016 Task 6 native format, tab-separated,
  header ``ID  Target  Stance`` (``Target`` is the group column).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["FORMATS", "Problem", "DataError", "LabelTable", "read_table"]

FORMATS: dict[str, dict[str, str | None]] = {
    "csv": {"delimiter": ",", "id_column": "item_id", "label_column": "label", "group_column": None},
    "semeval_tsv": {"delimiter": "\t", "id_column": "ID", "label_column": "Stance", "group_column": "Target"},
}


@dataclass(frozen=True)
class Problem:
    """One fault in one input file; ``line`` is 1-based (None: whole file)."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


class DataError(ValueError):
    """Bad input data; ``problems`` lists every fault found (file, line, fault)."""

    MAX_SHOWN = 25

    def __init__(self, problems: list[Problem], context: str = ""):
        self.problems = list(problems)
        self.context = context
        shown = [str(p) for p in self.problems[: self.MAX_SHOWN]]
        more = len(self.problems) - len(shown)
        if more > 0:
            shown.append(f"... and {more} more problem(s)")
        head = f"{context}: " if context else ""
        super().__init__(f"{head}{len(self.problems)} problem(s) in the input data:\n  " + "\n  ".join(shown))


@dataclass
class LabelTable:
    """The rows of one file: ids, labels, optional groups and source lines."""

    path: str
    ids: list[str]
    labels: list[str]
    lines: list[int]
    groups: list[str] | None = None
    problems: list[Problem] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)


def read_table(path: str | Path, *, delimiter: str = ",", id_column: str = "item_id",
               label_column: str = "label", group_column: str | None = None,
               max_problems: int = 20) -> LabelTable:
    """Read a delimited file of ``id, label[, group]`` rows.

    Faults are collected in ``table.problems`` (not raised) so that a caller
    can report every bad file of a dataset at once: unreadable or empty
    file, missing or wrong header, duplicated header column, ragged rows,
    empty id or label, duplicated id (both lines named).
    """
    path = str(path)
    table = LabelTable(path=path, ids=[], labels=[], lines=[], groups=[] if group_column else None)

    def fault(line, msg):
        table.problems.append(Problem(path, line, msg))
        return len(table.problems) >= max_problems

    try:
        with open(path, "r", encoding="utf-8-sig", newline="") as fh:
            text = fh.read()
    except FileNotFoundError:
        fault(None, "file not found")
        return table
    except UnicodeDecodeError as e:
        fault(None, f"not valid UTF-8 text ({e.reason} at byte {e.start})")
        return table
    except OSError as e:
        fault(None, f"cannot read file ({e.strerror})")
        return table

    if not text.strip():
        fault(None, "empty file (expected a header line and one row per item)")
        return table

    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=quoting)
    header = None
    header_line = 0
    for row in reader:
        if any(f.strip() for f in row):
            header = [f.strip() for f in row]
            header_line = reader.line_num
            break
    assert header is not None
    wanted = [id_column, label_column] + ([group_column] if group_column else [])
    missing = [w for w in wanted if w not in header]
    if missing:
        sep = "tab" if delimiter == "\t" else repr(delimiter)
        fault(header_line, f"missing or wrong header: expected columns {', '.join(map(repr, wanted))} "
                           f"({sep}-separated), found {', '.join(map(repr, header))}")
        return table
    dup = sorted({h for h in header if header.count(h) > 1 and h in wanted})
    if dup:
        fault(header_line, f"header repeats column(s) {', '.join(map(repr, dup))}")
        return table
    i_id, i_label = header.index(id_column), header.index(label_column)
    i_group = header.index(group_column) if group_column else None
    width = len(header)
    first_line: dict[str, int] = {}
    try:
        for row in reader:
            line = reader.line_num
            if not any(f.strip() for f in row):
                continue  # blank line (e.g. a trailing newline): nothing to read
            if len(row) != width:
                if fault(line, f"expected {width} fields as in the header, found {len(row)}"):
                    break
                continue
            item = row[i_id].strip()
            label = row[i_label].strip()
            if not item:
                if fault(line, f"empty {id_column!r}"):
                    break
                continue
            if not label:
                if fault(line, f"empty {label_column!r} for item {item!r}"):
                    break
                continue
            if item in first_line:
                if fault(line, f"duplicated item {item!r} (first seen on line {first_line[item]})"):
                    break
                continue
            first_line[item] = line
            table.ids.append(item)
            table.labels.append(label)
            table.lines.append(line)
            if i_group is not None:
                table.groups.append(row[i_group].strip())
    except csv.Error as e:
        fault(reader.line_num, f"malformed row ({e})")
    if not table.ids and not table.problems:
        fault(header_line, "no data rows after the header")
    return table
