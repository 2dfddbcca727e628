"""The checks of a dataset's labels as they are read: labels that YAML would
turn into numbers, labels that differ from another only by spaces, case
or a look-alike character, labels outside the declared classes (with the
hint that names the other file), and classes the gold never uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .config import DatasetSpec
from .files import DataError, Problem
from .readers.labels import LabelTable, looks_like_float

if TYPE_CHECKING:  # (the data floor's own module; imported where the scores are read)
    pass

__all__ = ["near_duplicates"]


def _yaml_number(text: str) -> str | None:
    """The label an unquoted ``text`` becomes in a YAML config (``010`` is
    the octal 8, ``1_000`` is 1000, ``0x1A`` is 26), or None when YAML
    keeps it as written: a config label that does not match the files'
    spelling for that reason is named as such."""
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or str(value) == text:
        return None
    return str(value)


def _code_points(text: str) -> str:
    """The characters of ``text`` beyond ASCII, by code point and name
    (``U+0435 CYRILLIC SMALL LETTER IE``): what a message cannot show."""
    import unicodedata

    seen = dict.fromkeys(ch for ch in text if ord(ch) > 127)
    return ", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}" for ch in seen)


def _lookalike(label: str, allowed) -> tuple[str, str] | None:
    """The allowed label that ``label`` matches but for non-ASCII
    characters in its place (a Cyrillic ``е`` in ``quеry``: printed, the two
    look the same), with those characters named; None otherwise."""
    for a in allowed:
        if len(a) == len(label) and a != label:
            diff = [(x, y) for x, y in zip(label, a) if x != y]
            if all(ord(x) > 127 and y.isascii() for x, y in diff):
                return a, _code_points("".join(x for x, _ in diff))
    return None


def near_duplicates(labels) -> list[tuple[str, str, str]]:
    """Pairs of distinct labels that read as one class: ``(a, b, how they
    differ)``, by surrounding spaces, by case, or by a lookalike non-ASCII
    character (``quеry``, a Cyrillic е); read as two classes they split one.

    >>> near_duplicates(["support", "support ", "deny", "Deny", "query"])
    [('support', 'support ', 'surrounding spaces'), ('deny', 'Deny', 'case')]
    """
    out, labels = [], list(dict.fromkeys(labels))
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if a.strip() == b.strip():
                out.append((a, b, "surrounding spaces"))
            elif a.strip().casefold() == b.strip().casefold():
                out.append((a, b, "case"))
            elif _lookalike(a, [b]) or _lookalike(b, [a]):
                odd = a if any(ord(ch) > 127 for ch in a) else b
                out.append((a, b, f"a lookalike character ({_code_points(odd)})"))
    return out


def _label_problem(table: LabelTable, row: int, label: str, allowed, what: str) -> Problem:
    hint = ""
    folded = {a.casefold(): a for a in allowed}
    if label.strip() in allowed:
        hint = (f" (it differs from {label.strip()!r} only by surrounding spaces: fix the file, or set "
                f"normalize_labels: [strip])")
    elif label.strip().casefold() in folded:
        hint = (f" (did you mean {folded[label.strip().casefold()]!r}? it differs only in case"
                f"{' and spaces' if label != label.strip() else ''}: add a label_map entry, or set "
                f"normalize_labels: [{'strip, ' if label != label.strip() else ''}case])")
    elif _lookalike(label, allowed):
        like, chars = _lookalike(label, allowed)
        hint = (f" (it differs from {like!r} only in {chars}, a character that looks like the ASCII one in its "
                f"place: fix the file, or add a label_map entry)")
    elif any(ord(ch) > 127 for ch in label) and all(a.isascii() for a in allowed):
        hint = f" (it holds {_code_points(label)}, and the label set is plain ASCII)"
    elif _yaml_number(label.strip()) in allowed:
        hint = (f" (YAML reads the unquoted {label.strip()} as the number {_yaml_number(label.strip())}"
                f"{' (a leading 0 makes it octal)' if label.strip().lstrip('+-').startswith('0') else ''}: "
                f"quote the labels in the config, e.g. '{label.strip()}')")
    return Problem(table.path, table.lines[row],
                   f"{what} label {label!r} of item {table.ids[row]!r} is not one of "
                   f"{', '.join(map(repr, allowed))}{hint}", "label")


def _normalizer(spec: DatasetSpec, allowed):
    """The label as the config says to read it: ``normalize_labels`` may
    strip surrounding spaces and / or match the labels regardless of case;
    then ``label_map``.  Nothing is normalised unless asked: labels that
    differ only in case or spaces are refused with a hint, never merged in
    silence."""
    strip, case = "strip" in spec.normalize_labels, "case" in spec.normalize_labels
    folded = {a.casefold(): a for a in allowed}
    lmap = spec.label_map

    def norm(lab: str) -> str:
        if strip:
            lab = lab.strip()
        if case:
            lab = folded.get(lab.casefold(), lab)
        return lmap.get(lab, lab)
    return norm


def _examples(items, n: int = 5) -> str:
    items = list(items)
    return ", ".join(repr(i) for i in items[:n]) + (", ..." if len(items) > n else "")


def _cross_file_hints(gold_path, gold_ids, missing: dict[str, list[str]], foreign: dict[str, list[str]],
                      n_read: int) -> list[str]:
    """What the faults of all prediction files suggest together.

    ``missing``/``foreign``: per prediction file, the gold items it lacks and
    the items it has that the gold lacks; ``n_read``: prediction files read.
    """
    hints = []
    for what, sets, culprit in (
            ("lacks the same {n} gold item(s)", missing,
             "the gold file is the likely culprit (rows from another split or appended), not the systems"),
            ("has the same {n} item(s) that are not in the gold file", foreign,
             "the gold file is the likely culprit (truncated, or another split), not the systems")):
        # the same set in every file (files list their items in their own order)
        if n_read >= 2 and len(sets) == n_read and len({frozenset(v) for v in sets.values()}) == 1:
            items = next(iter(sets.values()))
            hints.append(f"every prediction file {what.format(n=f'{len(items):,}')} (e.g. {_examples(items, 3)}): "
                         f"{culprit}; check {gold_path}")
    floaty = [(path, next(i for i in ids if looks_like_float(i)))
              for path, ids in [(str(gold_path), gold_ids), *foreign.items()] if any(looks_like_float(i) for i in ids)]
    for path, example in floaty[:3]:
        hints.append(f"ids in {path} look like floating-point numbers (e.g. {example!r}): a spreadsheet probably "
                     f"converted long numeric ids; ids are compared as text, so export the id column as text "
                     f"from the original file")
    if len(floaty) > 3:
        hints.append(f"... and {len(floaty) - 3} more file(s) with ids that look like floating-point numbers")
    return hints


def _check_used_labels(spec: DatasetSpec, gold_codes, gpath, after: str = ""):
    """(gold counts per class, labels the gold never uses); a class the gold
    never uses has no recall: refused unless the config accepts it."""
    gold_counts = np.bincount(gold_codes, minlength=len(spec.labels))
    unused = [lab for lab, cnt in zip(spec.labels, gold_counts) if cnt == 0]
    if unused and not spec.allow_unused_labels:
        raise DataError([Problem(
            str(gpath), None,
            f"label(s) {', '.join(map(repr, unused))} of datasets.{spec.name}.labels never occur in the gold"
            f"{after}: their recall is undefined, so GMR would be 0 for every system and macro averages would "
            f"count them as 0. Remove them from labels, or set allow_unused_labels: true to score them anyway",
            "unused_label")], f"dataset {spec.name!r} (gold file {gpath})")
    return gold_counts, unused
