"""Files: the fault records every reader collects (``Problem``, raised
together as ``DataError``: file, line and fault), the checked reading of a
text file, the header of a delimited file, and the atomic writers of results
(temporary file, then rename: an interrupted step never leaves a
half-written result).  The readers of each format are ``data.readers``.
"""

from __future__ import annotations

import csv
import glob
import io
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Problem", "DataError", "KIND_TEXT", "atomic_path", "write_text", "write_csv", "read_result_csv",
           "read_text_checked", "file_sha256", "folder_sha256"]

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
