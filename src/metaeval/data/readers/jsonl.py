"""JSON-lines label files: one JSON object a line, with the id, the label
(and the group) under their keys; every fault with its line."""

from __future__ import annotations

import json

from ..files import read_text_checked
from .labels import LabelTable, _records_table, empty_table

__all__ = ["read_jsonl"]


def read_jsonl(path: str, *, id_column: str = "item_id", label_column: str = "label",
               group_column: str | None = None) -> LabelTable:
    """A JSON-lines label file (``.jsonl``, ``.ndjson``): a line that is not
    valid JSON, a missing key, an empty id or label, a duplicated id: every
    fault, with its line."""
    table, fault = empty_table(path, group_column)

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
