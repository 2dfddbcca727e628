"""A toy label format, declared as a module that brings a reader does
(tests/test_extension.py registers it): ``id|label`` lines, no header;
every fault a Problem with the file and the line."""

from __future__ import annotations

from metaeval.data.files import Problem, read_text_checked
from metaeval.data.readers.labels import LabelTable


def read_psv(path: str, *, id_column: str = "item_id", label_column: str = "label",
             group_column: str | None = None) -> LabelTable:
    table = LabelTable(path=path, ids=[], labels=[], lines=[], groups=None)

    def fault(line, msg, kind):
        table.problems.append(Problem(path, line, msg, kind))

    text = read_text_checked(path, fault)
    for line, raw in enumerate((text or "").splitlines(), 1):
        if not raw.strip():
            continue
        item, sep, label = raw.partition("|")
        if not sep or not item.strip() or not label.strip():
            fault(line, f"expected 'id|label', got {raw!r}", "format")
            continue
        table.ids.append(item.strip())
        table.labels.append(label.strip())
        table.lines.append(line)
    return table


SUFFIX = ".psv"
