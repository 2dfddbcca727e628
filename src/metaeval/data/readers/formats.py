"""The registry of label-file readers, by file ending.

A reader is ``reader(path, *, id_column, label_column, group_column) ->
LabelTable``: every record it reads, and every fault it finds as a
``Problem`` with the file and the line (or row) and what is wrong, never an
exception for bad data.  ``metaeval.data.readers`` registers the built-in
ones (``.csv``, ``.tsv``, ``.jsonl``, ``.ndjson``, ``.parquet``);
``register_reader`` adds another, which ``read_labels``, ``read_files`` and
the command line then read by its ending.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["LABEL_READERS", "register_reader", "unregister_reader"]

# file ending (lower case, with its dot) -> reader
LABEL_READERS: dict[str, Callable] = {}


def register_reader(suffix: str, reader: Callable) -> Callable:
    """Read files ending in ``suffix`` (``".psv"``) with ``reader``; an
    ending registered already is refused (``unregister_reader`` first).
    Returns the reader.

    Examples
    --------
    >>> import metaeval.data.readers  # (registers the built-in formats)
    >>> from metaeval.data.readers.labels import read_csv
    >>> _ = register_reader(".txt", read_csv)  # comma-separated text under another ending
    >>> sorted(LABEL_READERS)
    ['.csv', '.jsonl', '.ndjson', '.parquet', '.tsv', '.txt']
    >>> register_reader(".csv", print)
    Traceback (most recent call last):
    ...
    ValueError: files ending in .csv have a reader already (read_csv)
    >>> unregister_reader(".txt")
    """
    if not (isinstance(suffix, str) and suffix.startswith(".") and len(suffix) > 1 and suffix == suffix.lower()):
        raise ValueError(f"a reader's file ending is a lower-case ending with its dot ('.psv'), got {suffix!r}")
    if not callable(reader):
        raise TypeError(f"the reader of {suffix} must be callable, got {type(reader).__name__}")
    if suffix in LABEL_READERS and LABEL_READERS[suffix] is not reader:
        raise ValueError(f"files ending in {suffix} have a reader already ({LABEL_READERS[suffix].__name__})")
    LABEL_READERS[suffix] = reader
    return reader


def unregister_reader(suffix: str) -> None:
    """Forget the reader of ``suffix`` (nothing happens when it has none).

    >>> unregister_reader(".none")
    """
    LABEL_READERS.pop(suffix, None)
