"""Reading span tasks' files: article texts, SI/TC span files, the 2021 toxic-spans CSV and submissions.

Part of ``metaeval.measures.spans`` (its docstring states the conventions).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..files import DataError, Problem, read_text_checked, utf8_fault
from ...measures.spans.model import SI, Spans, TC


_ARTICLE_FILE = re.compile(r"^article(.+)\.txt$")


def read_texts(folder: str | Path) -> dict[str, str]:
    """``{article id: text}`` of the ``article<ID>.txt`` files of a folder,
    in name order (read as UTF-8 with universal newlines, as the official
    scorer reads them; offsets count characters, not bytes).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "article1.txt").write_text("Vote now, or lose it all.")
    >>> _ = (d / "article2.txt").write_text("They lie.")
    >>> read_texts(d)
    {'1': 'Vote now, or lose it all.', '2': 'They lie.'}
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError([Problem(str(folder), None, "article folder not found", "file")])
    out, problems = {}, []
    for name in sorted(os.listdir(folder)):
        m = _ARTICLE_FILE.match(name)
        if not m:
            continue
        try:
            out[m.group(1)] = (folder / name).read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            problems.append(Problem(str(folder / name), *utf8_fault(e), "file"))
    if problems:
        raise DataError(problems)
    if not out:
        raise DataError([Problem(str(folder), None, "no article<ID>.txt file in the article folder", "file")])
    return out


def read_articles(folder: str | Path) -> dict[str, int]:
    """``{article id: length in characters}`` of the ``article<ID>.txt``
    files of a folder (``read_texts``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "article1.txt").write_text("Vote now, or lose it all.")
    >>> _ = (d / "article2.txt").write_text("They lie.")
    >>> read_articles(d)
    {'1': 25, '2': 9}
    """
    return {a: len(t) for a, t in read_texts(folder).items()}


@dataclass
class SpanTable:
    """The rows of one span file, checked; ``problems`` lists every fault.

    ``documents``: the documents the file lists (a 2021 submission lists
    every post, spans or not); ``past_end``: spans and characters at or past
    the end of their text that were kept (``offsets_past_end: wrong``).
    ``unit``: what ``lines`` count, lines of a file or rows in memory
    (``span_table``).

    Examples
    --------
    >>> t = span_table([("d1", 0, 4)], "predictions['a']", "si", {"d1": 10})
    >>> t.article, t.start, t.end, t.unit
    (['d1'], [0], [4], 'row')
    """

    path: str
    article: list[str] = field(default_factory=list)
    start: list[int] = field(default_factory=list)
    end: list[int] = field(default_factory=list)
    label: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    past_end_spans: int = 0
    past_end_chars: int = 0
    unit: str = "line"

    def __len__(self) -> int:
        return len(self.article)

    def fault(self, line, message: str, kind: str, count: int = 1) -> None:
        """Record a fault at ``line`` (a line of the file, or a row)."""
        self.problems.append(Problem(self.path, line, message, kind, count, self.unit))

    def _past_end(self, line: int, art: str, s: int, e: int, length: int, policy: str, what: str) -> bool:
        """Whether a span that reaches past the end of its text is kept
        (counted) or is a fault (``refuse``)."""
        if e <= length:
            return True
        if policy == "refuse":
            self.fault(line, f"{what} beyond the end of {art} ({length} characters); the official scorer counts "
                             f"such characters as wrong predictions: set offsets_past_end: wrong to score them so",
                       "past_end")
            return False
        self.past_end_spans += 1
        self.past_end_chars += e - max(s, length)
        return True


def _open_table(path):
    """(an empty ``SpanTable`` of ``path``, a ``fault(line, message, kind)``
    that records a problem in it, the file's text or None when it cannot be
    read)."""
    t = SpanTable(str(path))
    return t, t.fault, read_text_checked(t.path, t.fault)


def read_spans(path: str | Path, kind: str, lengths: Mapping[str, int], labels=None,
               offsets_past_end: str = "wrong") -> SpanTable:
    """Read an SI (``kind="si"``) or TC (``"tc"``) span file.

    Every fault is collected with its line: wrong number of TAB-separated
    fields, offsets that are not integers, negative offsets, start >= end,
    an article that is not in the article folder, a technique not in
    ``labels`` (TC), and with ``offsets_past_end="refuse"`` an end beyond
    the article's length (``wrong``, the default, keeps and counts such
    spans: module docstring).  Empty lines are skipped; a file without any
    span is an empty submission (it predicts nothing), not an error.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "article1.txt").write_text("Vote now, or lose it all.")
    >>> _ = (d / "article2.txt").write_text("They lie.")
    >>> _ = (d / "p.txt").write_text("1\\t0\\t4\\n1\\t9\\t3\\n2\\t0\\t40\\n")
    >>> t = read_spans(d / "p.txt", "si", read_articles(d))
    >>> len(t), t.past_end_chars       # two spans kept, 31 characters past the end of article 2
    (2, 31)
    >>> print(t.problems[0])           # doctest: +ELLIPSIS
    /.../p.txt:2: start 9 is not before end 3 (spans are [start, end), at least one character)
    """
    t, fault, text = _open_table(path)
    if text is None:
        return t
    width = 3 if kind == SI else 4
    known = set(labels) if labels is not None else None
    fmt = "article_id<TAB>start<TAB>end" if kind == SI else "article_id<TAB>technique<TAB>start<TAB>end"
    for i, raw in enumerate(text.splitlines(), 1):
        row = raw.rstrip("\r\n")
        if not row.strip():
            continue
        fields = [f.strip() for f in row.split("\t")]
        if len(fields) != width:
            fault(i, f"expected {width} TAB-separated fields ({fmt}), found {len(fields)}", "ragged")
            continue
        _add_span(t, i, fields[0], fields[1] if kind == TC else "", fields[-2], fields[-1], kind, lengths, known,
                  offsets_past_end, "the article folder")
    return t


def read_technique_names(path: str | Path) -> set[str]:
    """The techniques a TC file names (the second of four TAB-separated
    fields of each line): the labels of a TC gold file when none are given.
    Raises ``DataError`` when the file cannot be read.

    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "gold.labels"
    >>> _ = f.write_text("1\\tDoubt\\t0\\t5\\n1\\tName_Calling,Labeling\\t9\\t20\\n")
    >>> sorted(read_technique_names(f))
    ['Doubt', 'Name_Calling,Labeling']
    """
    t, _, text = _open_table(path)
    if text is None:
        raise DataError(t.problems)
    return {f[1].strip() for f in (line.split("\t") for line in text.splitlines()) if len(f) == 4 and f[1].strip()}


def _integer(x) -> int:
    """An offset given as an integer or as its digits (not 2.5, not True)."""
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        return int(x)
    if isinstance(x, str):
        return int(x)
    raise ValueError(x)


def _add_span(t: SpanTable, i: int, art: str, lab: str, so, eo, kind: str, lengths: Mapping[str, int], known,
              policy: str, texts_where: str) -> None:
    """One span of a file line or a row in memory, checked: integer,
    non-negative offsets with start < end, a known document, the end
    within its text (``policy``), a known technique (TC); else a fault."""
    try:
        s, e = _integer(so), _integer(eo)
    except ValueError:
        t.fault(i, f"offsets must be integers, found start {so!r} and end {eo!r}", "offset")
        return
    if s < 0 or e < 0:
        t.fault(i, f"negative offset (start {s}, end {e})", "offset")
        return
    if s >= e:
        t.fault(i, f"start {s} is not before end {e} (spans are [start, end), at least one character)", "offset")
        return
    if art not in lengths:
        t.fault(i, f"article {art!r} is not in {texts_where}", "unknown_article")
        return
    if not t._past_end(i, f"article {art!r}", s, e, lengths[art], policy, f"end {e} is"):
        return
    if known is not None and kind == TC and lab not in known:
        t.fault(i, f"unknown technique {lab!r}", "label")
        return
    t.article.append(art)
    t.start.append(s)
    t.end.append(e)
    t.label.append(lab)
    t.lines.append(i)


def span_table(rows, source: str, kind: str, lengths: Mapping[str, int], labels=None,
               offsets_past_end: str = "wrong") -> SpanTable:
    """The spans of one system (or the gold) in memory, checked as
    ``read_spans`` checks a file's lines: ``rows`` is a sequence of
    ``(document, start, end)`` tuples (SI) or ``(document, technique,
    start, end)`` (TC), or a DataFrame with the columns ``document``,
    ``start``, ``end`` (and ``label`` or ``technique`` for TC).  A fault names ``source``
    and the row (its position, from 0).

    >>> t = span_table([("d1", 0, 4), ("d1", 6, 5)], "predictions['a']", "si", {"d1": 10})
    >>> len(t), str(t.problems[0])
    (1, "predictions['a'] row 1: start 6 is not before end 5 (spans are [start, end), at least one character)")
    """
    import pandas as pd

    t = SpanTable(str(source), unit="row")
    known = set(labels) if labels is not None else None
    width = 3 if kind == SI else 4
    if isinstance(rows, pd.DataFrame):
        tech = "technique" if "technique" in rows.columns and "label" not in rows.columns else "label"
        cols = ["document", "start", "end"] if kind == SI else ["document", tech, "start", "end"]
        if kind == SI and {"label", "technique"} & set(rows.columns):
            t.fault(None, "a column of techniques in a span identification table: give the gold's techniques too "
                          "(technique classification)", "header")
            return t
        lacking = [c for c in cols if c not in rows.columns]
        if lacking:
            t.fault(None, f"no column {', '.join(map(repr, lacking))} (the columns of a span table: "
                          f"{', '.join(cols)})", "header")
            return t
        rows = rows[cols].itertuples(index=False, name=None)
    what = "(document, start, end)" if kind == SI else "(document, technique, start, end)"
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != width:
            t.fault(i, f"expected a span {what}, found {row!r}", "ragged")
            continue
        _add_span(t, i, str(row[0]), str(row[1]) if kind == TC else "", row[-2], row[-1], kind, lengths, known,
                  offsets_past_end, "the texts")
    return t


# the list of offsets of a toxic-spans file: [], [3], [3, 4, 5] (a trailing comma allowed)
_OFFSET_LIST = re.compile(r"\[\s*(?:-?\d+\s*(?:,\s*-?\d+\s*)*,?\s*)?\]")


def _offsets(field_text: str):
    """The offsets of one list, or None when it is not a list of integers."""
    f = field_text.strip()
    if not _OFFSET_LIST.fullmatch(f):
        return None
    return [int(x) for x in f[1:-1].split(",") if x.strip()]


def _add_offsets(t: SpanTable, doc: str, line: int, offs: list[int], length: int, policy: str) -> None:
    """A post's offsets as spans of ``t``: negative offsets are faults; the
    set of offsets as its maximal runs of consecutive characters; offsets at
    or past the end of the text by ``policy`` (module docstring)."""
    neg = sorted({o for o in offs if o < 0})
    if neg:
        t.problems.append(Problem(t.path, line, f"negative offset(s) {neg[:5]} in post {doc}", "offset"))
        return
    u = np.unique(np.asarray(offs, dtype=np.int64))
    if u.size and u[-1] >= length:
        if policy == "refuse":
            t.problems.append(Problem(t.path, line, f"{int((u >= length).sum())} offset(s) of post {doc} at or "
                                                    f"beyond the end of its text ({length} characters; offsets "
                                                    f"count from 0), from {int(u[u >= length][0])}; the official "
                                                    f"scorer counts "
                                                    f"them as wrong predictions: set offsets_past_end: wrong to "
                                                    f"score them so", "past_end"))
            return
        past = u >= length
        t.past_end_chars += int(past.sum())
        t.past_end_spans += int((np.diff(np.r_[-2, u[past]]) != 1).sum())
    if not u.size:
        return
    first = np.flatnonzero(np.diff(np.r_[-2, u]) != 1)  # a run starts where the offsets jump
    last = np.r_[first[1:], u.size] - 1
    t.article += [doc] * first.size
    t.start += u[first].tolist()
    t.end += (u[last] + 1).tolist()
    t.label += [""] * first.size
    t.lines += [line] * first.size


def read_tsd_gold(path: str | Path, offsets_past_end: str = "wrong") -> tuple[list[str], SpanTable]:
    """The gold of SemEval-2021 Task 5: a CSV with columns ``spans`` (the
    toxic character offsets of a post as a list) and ``text`` (the post).

    Returns the posts' texts (post ``i`` is the i-th data row, blank rows
    skipped, as the task's scorer numbers them) and the gold spans (the
    offsets' maximal runs) with every fault: no ``spans`` or ``text``
    column, a row of the wrong width, a ``spans`` field that is not a list
    of integers, negative offsets, offsets past the end (``refuse``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "gold.csv"
    >>> _ = f.write_text('spans,text\\n"[0, 1, 2, 3]",Damn rude\\n[],Nice day\\n')
    >>> texts, gold = read_tsd_gold(f)
    >>> texts, gold.article, gold.start, gold.end      # the offsets 0..3 as the span [0, 4)
    (['Damn rude', 'Nice day'], ['0'], [0], [4])
    """
    import csv
    import io

    t, fault, text = _open_table(path)
    texts: list[str] = []
    if text is None:
        return texts, t
    if not text.strip():
        fault(None, "empty file (expected a header 'spans,text' and one row per post)", "file")
        return texts, t
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header_line = 1
        header = next(reader)
        while not any(f.strip() for f in header):
            header_line = reader.line_num + 1  # a record may span lines: name the line it starts on
            header = next(reader)
    except StopIteration:
        return texts, t
    head = [h.strip() for h in header]
    if "spans" not in head or "text" not in head:
        fault(header_line, f"missing or wrong header: expected the columns 'spans' and 'text' "
                           f"(comma-separated), found {', '.join(repr(h[:40]) for h in head)}", "header")
        return texts, t
    i_spans, i_text = head.index("spans"), head.index("text")
    line = reader.line_num
    try:
        for row in reader:
            first, line = line + 1, reader.line_num  # a quoted text may span lines: the row starts at `first`
            if not any(f.strip() for f in row):
                continue
            doc = str(len(texts))
            if len(row) != len(head):
                fault(first, f"expected {len(head)} fields as in the header, found {len(row)}", "ragged")
                texts.append("")
                continue
            texts.append(row[i_text])
            offs = _offsets(row[i_spans])
            if offs is None:
                fault(first, f"the spans of post {doc} are not a list of integer offsets: {row[i_spans][:60]!r}",
                      "offset")
                continue
            t.documents.append(doc)
            _add_offsets(t, doc, first, offs, len(row[i_text]), offsets_past_end)
    except csv.Error as e:
        fault(reader.line_num, f"malformed row ({e})", "ragged")
    if not texts and not t.problems:
        fault(None, "no post after the header", "file")
    return texts, t


def read_tsd_predictions(path: str | Path, lengths: Sequence[int], offsets_past_end: str = "wrong") -> SpanTable:
    """A SemEval-2021 Task 5 submission: one line ``post_id<TAB>[offsets]``
    for every post of the gold (``lengths``: the posts' text lengths).

    Faults, as the task's scorer refuses them: a line without exactly two
    TAB-separated fields, an id that is not an integer or not a post of the
    gold, a post listed twice, posts not listed (every post must have a line,
    ``[]`` for none); and a list that is not a list of integers (the task's
    scorer scored it as ``[]`` without a word: refused here), negative
    offsets, offsets past the end (``refuse``).  Ids are read as integers
    (``007`` is post 7).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "sub.txt"
    >>> _ = f.write_text("0\\t[0, 1]\\n1\\t[]\\n")
    >>> t = read_tsd_predictions(f, [9, 8])          # the lengths of posts 0 and 1
    >>> t.article, t.start, t.end, t.problems
    (['0'], [0], [2], [])
    """
    t, fault, text = _open_table(path)
    if text is None:
        return t
    seen: dict[int, int] = {}
    for i, raw in enumerate(text.splitlines(), 1):
        row = raw.rstrip("\r\n")
        if not row.strip():
            continue
        fields = row.split("\t")
        if len(fields) != 2:
            fault(i, f"expected 2 TAB-separated fields (post_id<TAB>[offsets]), found {len(fields)}", "ragged")
            continue
        try:
            post = int(fields[0].strip())
        except ValueError:
            fault(i, f"post id {fields[0].strip()!r} is not an integer", "not_in_gold")
            continue
        if not 0 <= post < len(lengths):
            fault(i, f"post {post} is not in the gold file ({len(lengths):,} posts, numbered from 0)", "not_in_gold")
            continue
        if post in seen:
            fault(i, f"post {post} is listed twice (first on line {seen[post]})", "duplicate")
            continue
        seen[post] = i
        offs = _offsets(fields[1])
        if offs is None:
            fault(i, f"the offsets of post {post} are not a list of integers: {fields[1].strip()[:60]!r}", "offset")
            continue
        t.documents.append(str(post))
        _add_offsets(t, str(post), i, offs, int(lengths[post]), offsets_past_end)
    if not seen and not t.problems:
        fault(None, "empty file (expected one line post_id<TAB>[offsets] per post of the gold)", "file")
        return t
    missing = [p for p in range(len(lengths)) if p not in seen]
    if missing:
        t.problems.append(Problem(
            t.path, None, f"{len(missing):,} post(s) of the gold have no line (the task's scorer needs every post, [] "
                        f"for a post without toxic spans), e.g. {', '.join(map(str, missing[:5]))}"
                        + (", ..." if len(missing) > 5 else ""), "missing", len(missing)))
    return t


def to_spans(t: SpanTable, articles: Mapping[str, int], labels: Mapping[str, int] | None = None) -> Spans:
    """A checked table as codes: articles by ``articles`` (id -> code),
    labels by ``labels`` (None: unlabelled, code 0)."""
    return Spans(np.array([articles[a] for a in t.article], dtype=np.int64), np.array(t.start, dtype=np.int64),
                 np.array(t.end, dtype=np.int64),
                 np.array([labels[x] for x in t.label], dtype=np.int64) if labels is not None
                 else np.zeros(len(t), dtype=np.int64))
