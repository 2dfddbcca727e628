"""Readers of label files (gold and predictions), with errors that name the fault.

Prediction files are written by other people's scripts, so every reader
checks its input up front and reports *file, line and fault*; what can be
read unambiguously (a UTF-8 byte-order mark, CRLF line ends, spaces around
fields, blank lines) is read.  Ids are always strings.

``read_labels`` reads a file of ``id, label[, group]`` records by its
ending, with the reader registered for it (``metaeval.data.readers``:
``.csv`` and ``.tsv`` here, ``.jsonl`` in ``jsonl``, ``.parquet`` in
``parquet``); the faults of a Parquet file are named by row (1-based),
those of the others by line.

Formats (``FORMATS``) are presets of the one delimited-text reader:

* ``csv``: comma-separated, header with ``item_id`` and ``label`` (the
  canonical format; extra columns are allowed and ignored);
* ``semeval_tsv``: SemEval-2016 Task 6 native format, tab-separated,
  header ``ID  Target  Stance`` (``Target`` is the group column).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..files import FOLDER_NOT_FILE, Problem, delimited_header, read_text_checked
from .formats import LABEL_READERS

__all__ = ["FORMATS", "LabelTable", "read_table", "read_csv", "read_tsv", "read_labels", "looks_like_float"]

FORMATS: dict[str, dict[str, str | None]] = {
    "csv": {"delimiter": ",", "id_column": "item_id", "label_column": "label", "group_column": None},
    "semeval_tsv": {"delimiter": "\t", "id_column": "ID", "label_column": "Stance", "group_column": "Target"},
}


def looks_like_float(item: str) -> bool:
    """An id written as a floating-point number (``9.027467945761833e+17``,
    ``12.0``): what a spreadsheet makes of a long numeric id."""
    return bool(_FLOAT_ID.match(item))


_FLOAT_ID = re.compile(r"^[+-]?(\d+\.\d*[eE][+-]?\d+|\d+[eE][+-]?\d+|\d+\.0+)$")


@dataclass
class LabelTable:
    """The rows of one file: ids, labels, optional groups and source lines."""

    path: str
    ids: list[str]
    labels: list[str]
    lines: list[int]
    groups: list[str] | None = None
    problems: list[Problem] = field(default_factory=list)
    skipped_ids: set[str] = field(default_factory=set)  # ids of rows refused (so not also "missing")
    # ids of whole rows refused for an empty label or group: in the file, so a
    # prediction of them is not also "not in the gold"
    emptied_ids: set[str] = field(default_factory=set)
    noun: str = "prediction"  # what a row gives ("score" for labels read from a score file), in messages
    # rows whose id ("ids") or group ("groups") had spaces around it, dropped: {"count": n, "example": the
    # first as written}, said by the dataset (data.systems.stripped_warnings)
    stripped: dict[str, dict] = field(default_factory=dict)

    @property
    def unreadable(self) -> bool:
        """The file as a whole could not be read (no rows to check)."""
        return any(p.kind in ("file", "header") for p in self.problems)

    def __len__(self) -> int:
        return len(self.ids)


def empty_table(path: str, group_column: str | None = None):
    """A table of ``path`` with nothing read yet, and ``fault(line, message,
    kind)``, which records a ``Problem`` of that file in it."""
    table = LabelTable(path=path, ids=[], labels=[], lines=[], groups=[] if group_column else None)

    def fault(line, msg, kind):
        table.problems.append(Problem(path, line, msg, kind))
    return table, fault


def _accept(table: LabelTable, fault, first_line: dict, line, item: str, label: str, group, id_column: str,
            label_column: str, group_column: str | None = None) -> None:
    """One row of any reader: refused for an empty id, label or group (a
    group read must name one: an empty one would become a group of its own
    that the intervals resample) or an id seen before (the first line
    named), else added to ``table``.  Spaces around the id and the group
    are dropped (the same item, the same group) and counted in
    ``table.stripped``, which the dataset says; the label is kept as written
    (``normalize_labels`` decides)."""
    if item != item.strip() and item.strip():
        table.stripped.setdefault("ids", {"count": 0, "example": item})["count"] += 1
        item = item.strip()
    if group is not None and group != group.strip() and group.strip():
        table.stripped.setdefault("groups", {"count": 0, "example": group})["count"] += 1
        group = group.strip()
    if not item:
        fault(line, f"empty {id_column!r}", "empty")
        return
    if not label.strip():
        fault(line, f"empty {label_column!r} for item {item!r}", "empty")
        table.skipped_ids.add(item)
        table.emptied_ids.add(item)
        return
    if group is not None and not group:
        fault(line, f"empty {group_column!r} for item {item!r} (every item needs its group: the intervals "
                    "and tests resample whole groups)", "empty")
        table.skipped_ids.add(item)
        table.emptied_ids.add(item)
        return
    if item in first_line:
        fault(line, f"duplicated item {item!r} (first seen on line {first_line[item]})", "duplicate")
        return
    first_line[item] = line
    table.ids.append(item)
    table.labels.append(label)
    table.lines.append(line)
    if group is not None:
        table.groups.append(group)


def read_table(path: str | Path, *, delimiter: str = ",", id_column: str = "item_id",
               label_column: str = "label", group_column: str | None = None) -> LabelTable:
    """Read a delimited file of ``id, label[, group]`` rows.

    Ids and groups are read without surrounding spaces; labels as written
    (``dataset.load_dataset`` decides, by the config, whether " neg " is
    "neg").  Faults are collected in ``table.problems`` (not raised), every one of
    them, so that a caller can report every bad file of a dataset at once
    with true counts: unreadable or empty file, missing or wrong header,
    duplicated header column, ragged rows, empty id or label, duplicated id
    (both lines named).
    """
    path = str(path)
    table, fault = empty_table(path, group_column)
    text = read_text_checked(path, fault)
    if text is None:
        return table

    if not text.strip():
        fault(None, "empty file (expected a header line and one row per item)", "file")
        return table

    wanted = [id_column, label_column] + ([group_column] if group_column else [])
    reader, header, header_line = delimited_header(text, delimiter, wanted, fault)
    if header is None:
        return table
    i_id, i_label = header.index(id_column), header.index(label_column)
    i_group = header.index(group_column) if group_column else None
    width = len(header)
    first_line: dict[str, int] = {}
    last_line = len(text.rstrip("\r\n").splitlines())
    try:
        for row in reader:
            line = reader.line_num
            if not any(f.strip() for f in row):
                continue  # blank line (e.g. a trailing newline): nothing to read
            if len(row) != width:
                cut = (" (the last line is incomplete: the file may be truncated)"
                       if len(row) < width and line == last_line and not text.endswith(("\n", "\r")) else "")
                fault(line, f"expected {width} fields as in the header, found {len(row)}{cut}", "ragged")
                if len(row) > i_id:
                    table.skipped_ids.add(row[i_id].strip())
                continue
            # the label as written: surrounding spaces are the config's to forgive (normalize_labels)
            _accept(table, fault, first_line, line, row[i_id], row[i_label],
                    row[i_group] if i_group is not None else None, id_column, label_column, group_column)
    except csv.Error as e:
        fault(reader.line_num, f"malformed row ({e})", "ragged")
    if not table.ids and not table.problems:
        fault(header_line, "no data rows after the header", "file")
    return table


def _missing_value(value) -> bool:
    """A JSON null or a Parquet NaN: no value (not the text "None" or "nan")."""
    return value is None or (isinstance(value, float) and value != value)


def _records_table(path: str, records, id_column: str, label_column: str, group_column: str | None,
                   table: LabelTable) -> LabelTable:
    """Check ``(line, record dict)`` pairs as ``read_table`` checks rows."""
    first_line: dict[str, int] = {}

    def fault(line, msg, kind):
        table.problems.append(Problem(path, line, msg, kind))

    wanted = [id_column, label_column] + ([group_column] if group_column else [])
    for line, rec in records:
        if not isinstance(rec, dict):
            fault(line, f"expected an object with keys {', '.join(map(repr, wanted))}, found "
                        f"{type(rec).__name__}", "ragged")
            continue
        lacking = [w for w in wanted if w not in rec]
        if lacking:
            fault(line, f"no {', '.join(map(repr, lacking))} (found keys {', '.join(map(repr, rec))})", "ragged")
            if id_column in rec and rec[id_column] is not None:
                table.skipped_ids.add(str(rec[id_column]).strip())
            continue
        label = rec[label_column]
        _accept(table, fault, first_line, line, "" if rec[id_column] is None else str(rec[id_column]),
                "" if _missing_value(label) else str(label),
                ("" if _missing_value(rec[group_column]) else str(rec[group_column])) if group_column else None,
                id_column, label_column, group_column)
    if not table.ids and not table.problems:
        fault(None, "no records", "file")
    return table


def read_csv(path: str, *, id_column: str = "item_id", label_column: str = "label",
             group_column: str | None = None) -> LabelTable:
    """A comma-separated label file (``read_table``)."""
    return read_table(path, delimiter=",", id_column=id_column, label_column=label_column,
                      group_column=group_column)


def read_tsv(path: str, *, id_column: str = "item_id", label_column: str = "label",
             group_column: str | None = None) -> LabelTable:
    """A tab-separated label file (``read_table``)."""
    return read_table(path, delimiter="\t", id_column=id_column, label_column=label_column,
                      group_column=group_column)


def read_labels(path: str | Path, *, id_column: str = "item_id", label_column: str = "label",
                group_column: str | None = None) -> LabelTable:
    """A file of ``id, label[, group]`` records, read by its ending with the
    reader registered for it (``metaeval.data.readers.LABEL_READERS``):
    every fault with its line or row (a missing key, an empty id or label,
    a duplicated id)."""
    path = str(path)
    table, fault = empty_table(path, group_column)
    if Path(path).is_dir():
        fault(None, FOLDER_NOT_FILE, "file")
        return table
    reader = LABEL_READERS.get(Path(path).suffix.lower())
    if reader is None:
        fault(None, f"unknown file type {Path(path).suffix or '(none)'!r}: expected one of {', '.join(LABEL_READERS)}",
              "file")
        return table
    return reader(path, id_column=id_column, label_column=label_column, group_column=group_column)
