"""Readers for gold and prediction files, with errors that name the fault.

Prediction files are written by other people's scripts, so every reader
checks its input up front and reports *file, line and fault*; what can be
read unambiguously (a UTF-8 byte-order mark, CRLF line ends, spaces around
fields, blank lines) is read.  Ids are always strings.

``read_labels`` reads a file of ``id, label[, group]`` records by its
ending (the command line's formats): ``.csv``, ``.tsv``, ``.jsonl`` (one
JSON object a line) and ``.parquet`` (with pandas' Parquet engine,
``pip install 'metaeval[parquet]'``); the faults of a Parquet file are
named by row (1-based), those of the others by line.

Formats (``FORMATS``) are presets of the one delimited-text reader:

* ``csv``: comma-separated, header with ``item_id`` and ``label`` (the
  canonical format; extra columns are allowed and ignored);
* ``semeval_tsv``: SemEval-2016 Task 6 native format, tab-separated,
  header ``ID  Target  Stance`` (``Target`` is the group column).
"""

from __future__ import annotations

import csv
import glob
import io
import os
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["FORMATS", "Problem", "DataError", "LabelTable", "read_table", "read_labels", "LABEL_FILE_TYPES",
           "looks_like_float", "KIND_TEXT",
           "atomic_path", "write_text", "write_csv", "read_result_csv", "read_text_checked", "file_sha256",
           "folder_sha256"]

FORMATS: dict[str, dict[str, str | None]] = {
    "csv": {"delimiter": ",", "id_column": "item_id", "label_column": "label", "group_column": None},
    "semeval_tsv": {"delimiter": "\t", "id_column": "ID", "label_column": "Stance", "group_column": "Target"},
}


@dataclass(frozen=True)
class Problem:
    """One fault in one input file; ``line`` is 1-based (None: whole file).

    ``kind`` groups faults of the same sort in a file's summary line;
    ``count`` > 1 marks a problem that stands for several faults (e.g. 68 gold
    items with no prediction, reported once with examples).  ``unit``: what
    ``line`` counts, ``"line"`` of a file (``path:line``) or ``"row"`` of
    data in memory (``path row 3``, from 0).
    """

    path: str
    line: int | None
    message: str
    kind: str = "other"
    count: int = 1
    unit: str = "line"

    def __str__(self) -> str:
        if self.line is None:
            where = self.path
        else:
            where = f"{self.path}:{self.line}" if self.unit == "line" else f"{self.path} {self.unit} {self.line}"
        return f"{where}: {self.message}"


# how a file's summary line names each kind of fault (count, then this)
KIND_TEXT = {
    "file": "unreadable or empty file", "header": "header fault", "ragged": "row(s) of the wrong width",
    "empty": "empty id(s), label(s) or group(s)", "duplicate": "duplicated item(s)", "label": "label(s) outside the label set",
    "not_in_gold": "item(s) not in the gold file", "missing": "gold item(s) with no prediction",
    "offset": "bad offset(s)", "overlap": "overlapping span(s)", "unused_label": "label(s) the gold never uses",
    "unknown_article": "span(s) of an article without a text",
    "length": "sequence(s) of the wrong length",
    "matching": "input(s) whose ids cannot be matched to the gold's",
    "near_duplicate": "pair(s) of labels that read as one class",
    "past_end": "line(s) with offsets past the end of the text",
    "json": "line(s) that are not valid JSON",
    "other": "other fault(s)",
}


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def in_memory(source: str) -> bool:
    """Whether a problem's source names data in memory (``metaeval.api``:
    ``gold``, ``groups``, ``predictions['a']``), not a file."""
    return source in ("gold", "groups") or source.startswith("predictions[")


class DataError(ValueError):
    """Bad input data; ``problems`` lists every fault found (file, line, fault).

    The message names every bad file, with its number of problems, a summary
    line by kind of fault, and its first ``MAX_EXAMPLES`` problems (whole-file
    problems first); ``hints`` say what the faults suggest across files (a
    truncated gold file, ids mangled by a spreadsheet...).
    """

    MAX_EXAMPLES = 3

    def __init__(self, problems: list[Problem], context: str = "", hints: list[str] | tuple[str, ...] = (),
                 notes: list[str] | tuple[str, ...] = ()):
        self.problems = list(problems)
        self.context = context
        self.hints = list(hints)
        self.notes = list(notes)
        by_file: dict[str, list[Problem]] = {}
        for p in self.problems:
            by_file.setdefault(p.path, []).append(p)
        self.n_problems = sum(p.count for p in self.problems)
        head = f"{context}: " if context else ""
        # labels or spans in memory (metaeval.api) are inputs, not files
        memory = all(in_memory(p) for p in by_file)
        lines = [f"{head}{_plural(self.n_problems, 'problem')} in {_plural(len(by_file), 'input' if memory else 'file')}"
                 + ("" if memory else " of the input data") + ":"]
        for path, probs in by_file.items():
            probs = sorted(probs, key=lambda p: (p.line is not None, p.line or 0))  # whole-file first, then by line
            n = sum(p.count for p in probs)
            kinds: dict[str, int] = {}
            for p in probs:
                kinds[p.kind] = kinds.get(p.kind, 0) + p.count
            lines.append(f"  {path}: {_plural(n, 'problem')} ("
                         + ", ".join(f"{c:,} {KIND_TEXT.get(k, k)}" for k, c in kinds.items()) + ")")
            shown = probs[: self.MAX_EXAMPLES]
            lines += [f"    {p}" for p in shown]
            if len(probs) > len(shown):
                lines.append(f"    ... and {len(probs) - len(shown):,} more in this file")
        if self.hints:
            lines.append("Likely cause:" if len(self.hints) == 1 else "Likely causes:")
            lines += [f"  - {h}" for h in self.hints]
        lines += [f"Note: {n}" for n in self.notes]
        super().__init__("\n".join(lines))


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
    # first as written}, said by the dataset (dataset.stripped_warnings)
    stripped: dict[str, dict] = field(default_factory=dict)

    @property
    def unreadable(self) -> bool:
        """The file as a whole could not be read (no rows to check)."""
        return any(p.kind in ("file", "header") for p in self.problems)

    def __len__(self) -> int:
        return len(self.ids)


def utf8_fault(e: UnicodeDecodeError) -> tuple[int, str]:
    """``(line, message)`` of a file that is not UTF-8: the line of its first
    bad byte and its place in the line, counted in bytes (an editor finds a
    line, not a byte offset of the file), and the way out.

    >>> utf8_fault(UnicodeDecodeError("utf-8", b"id,label\\n1,caf\\xe9\\n", 14, 15, "invalid continuation byte"))
    (2, "not valid UTF-8 text: byte 0xe9, the line's byte 6 (invalid continuation byte); save the file as UTF-8 (a Latin-1 or Windows-1252 export is the usual cause)")
    """
    data = e.object if isinstance(e.object, (bytes, bytearray)) else b""
    before = data[:e.start]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    byte = f" 0x{data[e.start]:02x}" if e.start < len(data) else ""
    return line, (f"not valid UTF-8 text: byte{byte}, the line's byte {column} ({e.reason}); save the file as UTF-8 "
                  "(a Latin-1 or Windows-1252 export is the usual cause)")


FOLDER_NOT_FILE = "a folder, not a file: give the path of the file itself"


def read_text_checked(path, fault) -> str | None:
    """The text of a UTF-8 file (a byte-order mark dropped, line ends kept);
    None after ``fault(None, message, "file")`` when it cannot be read."""
    try:
        with open(path, "r", encoding="utf-8-sig", newline="") as fh:
            return fh.read()
    except FileNotFoundError:
        fault(None, "file not found", "file")
    except IsADirectoryError:
        fault(None, FOLDER_NOT_FILE, "file")
    except UnicodeDecodeError as e:
        line, message = utf8_fault(e)
        fault(line, message, "file")
    except OSError as e:
        fault(None, f"cannot read file ({e.strerror})", "file")
    return None


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


def delimited_header(text: str, delimiter: str, wanted, fault):
    r"""``(reader, header, line)`` of a delimited text: the csv reader (tabs
    unquoted, as SemEval's TSV files are written), the first non-blank row's
    fields without surrounding spaces and its line; the header None after
    ``fault(line, message, "header")`` when a ``wanted`` column is missing
    or repeated.

    >>> header = delimited_header("\nitem_id,label\n1,a\n", ",", ["item_id", "label"], print)[1:]
    >>> header
    (['item_id', 'label'], 2)
    """
    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=quoting)
    header, line = [], 0
    for row in reader:
        if any(f.strip() for f in row):
            header, line = [f.strip() for f in row], reader.line_num
            break
    missing = [w for w in wanted if w not in header]
    if missing:
        sep = "tab" if delimiter == "\t" else repr(delimiter)
        fault(line, f"missing or wrong header: expected columns {', '.join(map(repr, wanted))} "
                    f"({sep}-separated), found {', '.join(map(repr, header))}", "header")
        return reader, None, line
    dup = sorted({h for h in header if header.count(h) > 1 and h in wanted})
    if dup:
        fault(line, f"header repeats column(s) {', '.join(map(repr, dup))}", "header")
        return reader, None, line
    return reader, header, line


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
    table = LabelTable(path=path, ids=[], labels=[], lines=[], groups=[] if group_column else None)

    def fault(line, msg, kind):
        table.problems.append(Problem(path, line, msg, kind))

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


LABEL_FILE_TYPES = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}


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


def read_labels(path: str | Path, *, id_column: str = "item_id", label_column: str = "label",
                group_column: str | None = None) -> LabelTable:
    """A file of ``id, label[, group]`` records, read by its ending
    (``LABEL_FILE_TYPES``): CSV and TSV by ``read_table``, JSON lines and
    Parquet checked the same way (a missing key, an empty id or label, a
    duplicated id: every fault, with its line or row)."""
    path = str(path)
    kind = LABEL_FILE_TYPES.get(Path(path).suffix.lower())
    if kind in ("csv", "tsv"):
        return read_table(path, delimiter="," if kind == "csv" else "\t", id_column=id_column,
                          label_column=label_column, group_column=group_column)
    table = LabelTable(path=path, ids=[], labels=[], lines=[], groups=[] if group_column else None)

    def fault(line, msg, kind_):
        table.problems.append(Problem(path, line, msg, kind_))

    if Path(path).is_dir():
        fault(None, FOLDER_NOT_FILE, "file")
        return table
    if kind is None:
        fault(None, f"unknown file type {Path(path).suffix or '(none)'!r}: expected one of "
                    f"{', '.join(LABEL_FILE_TYPES)}", "file")
        return table
    if kind == "jsonl":
        import json

        text = read_text_checked(path, fault)
        if text is None:
            return table
        records = []
        for line, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                continue
            try:
                records.append((line, json.loads(raw)))
            except json.JSONDecodeError as e:
                fault(line, f"not valid JSON ({e.msg} at column {e.colno})", "json")
        return _records_table(path, records, id_column, label_column, group_column, table)
    try:
        import pandas as pd

        df = pd.read_parquet(path)
    except ImportError:
        fault(None, "reading Parquet needs pyarrow: pip install 'metaeval[parquet]'", "file")
        return table
    except FileNotFoundError:
        fault(None, "file not found", "file")
        return table
    except Exception as e:  # a damaged or foreign file: pyarrow's own words
        fault(None, f"cannot read as Parquet ({type(e).__name__}: {e})", "file")
        return table
    missing = [c for c in [id_column, label_column] + ([group_column] if group_column else []) if c not in df]
    if missing:
        fault(None, f"missing column(s) {', '.join(map(repr, missing))}; found {', '.join(map(repr, df.columns))}",
              "header")
        return table
    cols = [id_column, label_column] + ([group_column] if group_column else [])
    records = ((row, dict(zip(cols, values))) for row, values in enumerate(df[cols].itertuples(index=False), 1))
    return _records_table(path, records, id_column, label_column, group_column, table)


def file_sha256(path) -> str:
    """SHA-256 of a file's bytes."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def folder_sha256(folder, pattern: str = "article*.txt") -> str:
    """One SHA-256 of the files of a folder that match ``pattern``: their
    names and contents, in name order (a file added, removed, renamed or
    edited changes it)."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted(Path(folder).glob(pattern)):
        if p.is_file():
            h.update(p.name.encode() + b"\0" + bytes.fromhex(file_sha256(p)))
    return h.hexdigest()


# ---------------------------------------------------------------------------
# result files: atomic writes, and reads that keep names as written
# ---------------------------------------------------------------------------
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()  # what open() would give a new file


@contextmanager
def atomic_path(path: str | Path):
    """Yield a temporary path beside ``path``; rename it onto ``path`` on
    success, so an interrupted write never leaves a half-written result.
    The file gets the mode a plain ``open()`` would give it (the umask), not
    the private 0600 of a temporary file.  A symbolic link is written
    through (its target replaced, the link kept); a device, pipe or socket
    is refused, never replaced by a file."""
    path = Path(os.path.realpath(path))
    if path.exists() and not path.is_file():
        raise OSError(f"{path} is not a regular file (a folder, device, pipe or socket): it is not replaced")
    path.parent.mkdir(parents=True, exist_ok=True)
    # a killed earlier write of this file left its temporary behind: one job
    # writes a given result at a time, so those are leftovers, not in use
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*{glob.escape(path.suffix)}"):
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def can_create(folder: str | Path) -> bool:
    """Whether a file can be made in ``folder``, tried (permission bits do not
    tell: a read-only mount, /sys, any folder for root)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".metaeval-write-check.")
    except OSError:
        return False
    os.close(fd)
    os.remove(tmp)
    return True


def cannot_write_in(*folders) -> list[Path]:
    """The folders among ``folders`` in which no file can be made: each, or
    the nearest of its parents that exists (a folder to be made), tried."""
    bad = []
    for f in map(Path, folders):
        near = next(p for p in [f, *f.parents] if p.exists())
        if not near.is_dir() or not can_create(near):
            bad.append(near)
    return bad


def write_text(path, text: str) -> None:
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")


def write_csv(path, df) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, lineterminator="\n")


TEXT_COLUMNS = ("system", "kind", "predicted", "gold", "group", "metric", "pair", "weight_set",
                "metric_a", "metric_b", "system_a", "system_b", "weight_set_a", "weight_set_b")


def read_result_csv(path, index_col: str | None = None, text_columns=TEXT_COLUMNS):
    """A result CSV with its name columns read as written: a system, label or
    group called ``NA``, ``null`` or ``nan`` stays that string (pandas' default
    would make it missing).  Empty cells of the other columns are NaN."""
    import pandas as pd

    cols = list(pd.read_csv(path, nrows=0).columns)
    text = [c for c in cols if c in text_columns]
    df = pd.read_csv(path, dtype={c: str for c in text}, keep_default_na=False,
                     na_values={c: ["", "NaN", "nan"] for c in cols if c not in text})
    return df.set_index(index_col) if index_col else df
