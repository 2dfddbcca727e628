"""Span tasks: SemEval-2020 Task 11 scoring (SI, TC, FLC), SemEval-2021
Task 5 (Toxic Spans Detection), and span metrics.

A span is a half-open character range ``[start, end)`` of a document (an
article, a post), with a label (a propaganda technique) or none.  Files in
the official formats:

* SI: ``article_id<TAB>start<TAB>end``
* TC / FLC: ``article_id<TAB>technique<TAB>start<TAB>end`` (a technique name
  may contain commas, e.g. ``Name_Calling,Labeling``: the label is the whole
  second field; several techniques on identical offsets are separate lines)
* Toxic spans (2021): the gold is a CSV with columns ``spans,text`` (the
  character offsets of a post as a list, ``[3, 4, 5]``, and its text; the
  post id is the row's position, from 0); a submission has one line per
  post, ``post_id<TAB>[offsets]``, an empty list for none.  The offsets are
  read as sets of characters and stored as their maximal runs.

Definitions (Da San Martino, Barrón-Cedeño & Nakov, *Evaluation of
Propaganda Detection Tasks*, SemEval-2020 Task 11 note, eqs. 1-4):

    C(s, t, h) = |s ∩ t| / h · δ(l(s), l(t))
    P(S, T)    = Σ_{s∈S, t∈T} C(s, t, |s|) / |S|
    R(S, T)    = Σ_{s∈S, t∈T} C(s, t, |t|) / |T|
    F1         = 2PR / (P + R)

micro-averaged over all articles (a gold article with no prediction still
counts in |T|).  SI: δ ≡ 1.  FLC: δ on the technique.

Conventions, as in the official scorer (``task-SI_scorer.py``):

* **Merging.**  Overlapping gold spans (sharing at least one character) are
  always merged into their union, per article (and per technique for FLC);
  overlapping predicted spans are merged only when asked (the scorer's
  ``-m``), otherwise the file is refused.  Spans that only touch
  (``end == start``) are not merged.
* **Zero division.**  P = 0 when |S| = 0, R = 0 when |T| = 0; F1 = 1 when
  both are 0, and 0 when P or R is 0.  Every F1 below follows this rule.
* **Offsets past the end of a text** (``offsets_past_end``).  Neither
  official scorer reads the texts: the 2020 scorers take a span as the set
  ``range(start, end)`` and the 2021 scorer the listed offsets, so a
  character past the end is a predicted character that no gold span has,
  i.e. a wrong one.  ``wrong`` (the default) scores them so; ``refuse``
  names the file and line.  They are never clipped (clipping would raise
  the score).

Every span metric is a function of **per-article sufficient statistics**
(``STATS``): sums over the articles of a subset give the metric on that
subset, so the scores of thousands of article resamples come from one
matrix product of 0/1 article masks with the (article, system x statistic)
matrix, as the classification metrics come from confusion tensors.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from .io import DataError, Problem, read_text_checked

__all__ = ["span_precision", "span_recall", "span_f1", "span_f1_exact", "span_f1_max", "span_f1_min", "char_f1",
           "char_f1_macro", "span_table", "read_technique_names", "Spans", "SpanTable", "SpanMetric", "SPAN_REGISTRY", "SPAN_METRIC_IDS", "STATS", "SI", "TC",
           "read_articles", "read_texts", "read_spans", "read_tsd_gold", "read_tsd_predictions", "merge_spans",
           "overlapping_pairs", "span_statistics", "evaluate_spans", "align_tc", "perturb_spans",
           "synthetic_systems", "random_spans", "span_baselines", "PERTURBATIONS", "SPAN_BASELINES"]

SI, TC = "si", "tc"


# ---------------------------------------------------------------------------
# spans in memory
# ---------------------------------------------------------------------------
@dataclass
class Spans:
    """Spans of one system (or the gold) over a dataset's articles.

    ``article``: codes into the dataset's article list; ``label``: codes
    into its label list (all 0 when unlabelled); ``start``/``end``: [start, end).

    Examples
    --------
    >>> s = Spans(article=[0, 0], start=[5, 0], end=[9, 3], label=[])
    >>> len(s), s.take(s.order()).as_array().tolist()    # (article, start, end, label) rows, sorted
    (2, [[0, 0, 3, 0], [0, 5, 9, 0]])
    """

    article: np.ndarray
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray

    def __post_init__(self):
        self.article = np.asarray(self.article, dtype=np.int64)
        self.start = np.asarray(self.start, dtype=np.int64)
        self.end = np.asarray(self.end, dtype=np.int64)
        self.label = np.asarray(self.label, dtype=np.int64) if len(np.atleast_1d(self.label)) else \
            np.zeros(self.article.size, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.article.size)

    @classmethod
    def empty(cls) -> "Spans":
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, z)

    def take(self, idx) -> "Spans":
        return Spans(self.article[idx], self.start[idx], self.end[idx], self.label[idx])

    def order(self) -> np.ndarray:
        """Sort order by (article, label, start, end)."""
        return np.lexsort((self.end, self.start, self.label, self.article))

    def as_array(self) -> np.ndarray:
        return np.stack([self.article, self.start, self.end, self.label], axis=1) if len(self) else \
            np.zeros((0, 4), dtype=np.int64)

    @classmethod
    def from_array(cls, a) -> "Spans":
        a = np.asarray(a, dtype=np.int64).reshape(-1, 4)
        return cls(a[:, 0], a[:, 1], a[:, 2], a[:, 3])


def _groups(spans: Spans, by_label: bool) -> np.ndarray:
    return spans.article * (int(spans.label.max()) + 1 if len(spans) else 1) + spans.label if by_label \
        else spans.article.copy()


def _runs(spans: Spans, by_label: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, run id of each sorted span, whether it opens a new run): a run
    is a maximal chain of spans of one group (article, or article and label)
    that overlap, i.e. share at least one character."""
    g = _groups(spans, by_label)
    order = np.lexsort((spans.end, spans.start, g))
    g, s, e = g[order], spans.start[order], spans.end[order]
    if not len(order):
        return order, order, np.zeros(0, dtype=bool)
    # running maximum of the end within a group: offset the groups so that the
    # maximum never carries over from one group to the next
    big = int(e.max()) + 1
    runmax = np.maximum.accumulate((g - g.min()) * big + e)
    prev = np.concatenate([[-1], runmax[:-1]])
    new = np.ones(len(order), dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | ((g[1:] - g.min()) * big + s[1:] >= prev[1:])
    return order, np.cumsum(new) - 1, new


def merge_spans(spans: Spans, by_label: bool = False) -> Spans:
    """The union of overlapping spans, per document (and per label).

    Parameters
    ----------
    spans : Spans
    by_label : bool, default False
        Merge only spans of the same label (FLC).

    Returns
    -------
    Spans
        Sorted, disjoint within a document (and label); spans that only touch
        (``end == start``) stay apart, as in the official scorer.

    Examples
    --------
    >>> s = merge_spans(Spans(article=[0, 0, 0], start=[0, 5, 12], end=[8, 10, 15], label=[]))
    >>> s.start.tolist(), s.end.tolist()
    ([0, 12], [10, 15])
    """
    if not len(spans):
        return Spans.empty()
    order, run, new = _runs(spans, by_label)
    first = np.flatnonzero(new)
    s = spans.take(order)
    return Spans(s.article[first], s.start[first], np.maximum.reduceat(s.end, first), s.label[first])


def overlapping_pairs(spans: Spans, by_label: bool = False, limit: int = 5) -> list[tuple[int, int]]:
    """Up to ``limit`` pairs of indices of spans that overlap (for error
    messages): each span that does not open a run, with the earlier span of
    its run that reaches furthest.

    Examples
    --------
    >>> overlapping_pairs(Spans(article=[0, 0], start=[0, 5], end=[8, 10], label=[]))
    [(0, 1)]
    """
    order, run, new = _runs(spans, by_label)
    out = []
    for pos in np.flatnonzero(~new)[:limit]:  # a few rows, for a message
        earlier = order[:pos][run[:pos] == run[pos]]
        out.append((int(earlier[np.argmax(spans.end[earlier])]), int(order[pos])))
    return out


# ---------------------------------------------------------------------------
# reading: article texts and span files
# ---------------------------------------------------------------------------
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
            problems.append(Problem(str(folder / name), None, f"not valid UTF-8 text ({e.reason} at byte {e.start})",
                                    "file"))
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


# ---------------------------------------------------------------------------
# TC: the submission covers the gold spans; labels paired to maximise matches
# ---------------------------------------------------------------------------
def _keys(*cols) -> np.ndarray:
    """Row ids of equal tuples across the given columns (np.unique on rows)."""
    if not len(cols[0]):
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)[1].ravel()


def align_tc(gold: Spans, pred: Spans, article_names, path: str, lines=None, unit: str = "line"
             ) -> tuple[np.ndarray, list[Problem]]:
    """The predicted label of every gold instance, as the official TC scorer
    pairs them, or the problems that prevent scoring.

    The submission must hold exactly the gold's offsets: the same articles,
    the same (start, end) pairs, the same count per offset.  Where several
    gold instances share an offset, the predicted labels on it are paired
    with them so that as many as possible match (equal labels first, the
    rest in order).  Returns ``labels`` aligned with ``gold``'s order.
    ``lines``: where each predicted span was read (``unit``: lines of a
    file, or rows in memory), for the messages.

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 10], end=[4, 14], label=[1, 2])
    >>> pred = Spans(article=[0, 0], start=[10, 0], end=[14, 4], label=[2, 0])
    >>> labels, problems = align_tc(gold, pred, ["a"], "p.txt")
    >>> labels.tolist(), problems            # the predicted technique of each gold span, in gold order
    ([0, 2], [])
    """
    n_g = len(gold)
    offs = _keys(np.concatenate([gold.article, pred.article]), np.concatenate([gold.start, pred.start]),
                 np.concatenate([gold.end, pred.end]))
    og, op = offs[:n_g], offs[n_g:]
    k = int(offs.max()) + 1 if offs.size else 0
    cg, cp = np.bincount(og, minlength=k), np.bincount(op, minlength=k)
    if not np.array_equal(cg, cp):
        problems = []
        g_first = {int(o): i for i, o in reversed(list(enumerate(og)))}
        p_first = {int(o): i for i, o in reversed(list(enumerate(op)))}
        missing = np.flatnonzero(cg > cp)
        extra = np.flatnonzero(cp > cg)
        if missing.size:
            ex = [g_first[int(o)] for o in missing[:5]]
            n = int((cg - cp)[missing].sum())
            problems.append(Problem(path, None, f"{n:,} gold span(s) have no prediction (a TC submission labels "
                                                f"exactly the gold spans), e.g. " + ", ".join(
                f"article {article_names[int(gold.article[i])]!r} [{int(gold.start[i])}, {int(gold.end[i])})"
                for i in ex), "missing", n))
        for o in extra[:20]:
            i = p_first[int(o)]
            problems.append(Problem(path, None if lines is None else lines[i],
                                    f"span [{int(pred.start[i])}, {int(pred.end[i])}) of article "
                                    f"{article_names[int(pred.article[i])]!r} is not a gold span"
                                    + ("" if cg[o] == 0 else f" that many times ({int(cp[o])} vs {int(cg[o])} in the gold)"),
                                    "not_in_gold", unit=unit))
        if extra.size > 20:
            problems.append(Problem(path, None, f"... {extra.size - 20} more spans that are not gold spans",
                                    "not_in_gold", int(extra.size - 20)))
        return np.zeros(0, dtype=np.int64), problems
    # pair within each offset: rank every instance among equal (offset, label)
    # pairs; ranks below min(gold count, predicted count) are matches
    lab_k = int(max(gold.label.max(initial=0), pred.label.max(initial=0))) + 1
    kg, kp = og * lab_k + gold.label, op * lab_k + pred.label
    m = np.minimum(np.bincount(kg, minlength=k * lab_k), np.bincount(kp, minlength=k * lab_k))
    rank_g, rank_p = _rank_within(kg), _rank_within(kp)
    match_g, match_p = rank_g < m[kg], rank_p < m[kp]
    out = np.full(n_g, -1, dtype=np.int64)
    out[match_g] = gold.label[match_g]
    # the unmatched predictions of an offset go to its unmatched gold instances, in order
    ug, up = np.flatnonzero(~match_g), np.flatnonzero(~match_p)
    ug = ug[np.lexsort((gold.label[ug], og[ug]))]
    up = up[np.lexsort((pred.label[up], op[up]))]
    out[ug] = pred.label[up]
    return out, []


def _rank_within(keys: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... among the elements with the same key, in array order."""
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    start = np.r_[0, np.flatnonzero(sk[1:] != sk[:-1]) + 1]
    pos = np.arange(keys.size) - np.repeat(start, np.diff(np.r_[start, keys.size]))
    out = np.empty(keys.size, dtype=np.int64)
    out[order] = pos
    return out


# ---------------------------------------------------------------------------
# per-article sufficient statistics
# ---------------------------------------------------------------------------
STATS = ("n_pred", "n_gold", "sum_p", "sum_r", "sum_max", "sum_min", "exact", "char_tp", "char_pred",
         "char_gold", "article_char_f1", "n_articles")
_I = {name: i for i, name in enumerate(STATS)}


def _equal_key_pairs(ka: np.ndarray, kb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j) with ka[i] == kb[j] (an equi-join, vectorised)."""
    order = np.argsort(kb, kind="stable")
    sb = kb[order]
    lo, hi = np.searchsorted(sb, ka, "left"), np.searchsorted(sb, ka, "right")
    cnt = hi - lo
    ia = np.repeat(np.arange(ka.size), cnt)
    within = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    return ia, order[np.repeat(lo, cnt) + within]


def span_statistics(gold: Spans, pred: Spans, n_articles: int, labelled: bool) -> np.ndarray:
    """Per-document sufficient statistics of one system's spans against the gold.

    Parameters
    ----------
    gold, pred : Spans
        As scored (merged as the task requires: ``merge_spans``).
    n_articles : int
        The number of documents A (codes 0 .. A-1).
    labelled : bool
        δ on the label (FLC), else δ ≡ 1 (SI).

    Returns
    -------
    ndarray, shape (A, len(STATS))
        Per document, the columns of ``STATS``: predicted and gold span counts,
        the sums of C(s, t, h) for h = |s|, |t|, max and min, exact matches, the
        characters in both, in predictions and in gold, the document's
        character F1 and 1 (the document count).  Every span metric is a
        function of their sum over documents, so a resample of documents is
        scored from a weighted sum.

    Examples
    --------
    >>> gold = Spans(article=[0, 1], start=[0, 2], end=[10, 6], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> st = span_statistics(gold, pred, 2, labelled=False)
    >>> dict(zip(STATS, st[0].round(2).tolist()))["sum_p"], st.shape
    (0.5, (2, 12))
    """
    a = n_articles
    out = np.zeros((a, len(STATS)))
    out[:, _I["n_pred"]] = np.bincount(pred.article, minlength=a)
    out[:, _I["n_gold"]] = np.bincount(gold.article, minlength=a)
    out[:, _I["n_articles"]] = 1.0
    lab = int(max(gold.label.max(initial=0), pred.label.max(initial=0))) + 1 if labelled else 1
    key = (lambda s: s.article * lab + s.label) if labelled else (lambda s: s.article)
    # partial overlap: every (predicted, gold) pair of an article (and label)
    ip, ig = _equal_key_pairs(key(pred), key(gold))
    inter = np.maximum(0, np.minimum(pred.end[ip], gold.end[ig]) - np.maximum(pred.start[ip], gold.start[ig]))
    ls, lt = (pred.end - pred.start)[ip], (gold.end - gold.start)[ig]
    art = pred.article[ip]
    for name, h in (("sum_p", ls), ("sum_r", lt), ("sum_max", np.maximum(ls, lt)), ("sum_min", np.minimum(ls, lt))):
        out[:, _I[name]] = np.bincount(art, weights=inter / h, minlength=a)
    # exact matches, counted as a multiset: min(count in gold, count predicted) per span
    g_lab = gold.label if labelled else np.zeros(len(gold), dtype=np.int64)
    p_lab = pred.label if labelled else np.zeros(len(pred), dtype=np.int64)
    ids = _keys(np.concatenate([gold.article, pred.article]), np.concatenate([gold.start, pred.start]),
                np.concatenate([gold.end, pred.end]), np.concatenate([g_lab, p_lab]))
    if ids.size:
        k = int(ids.max()) + 1
        both = np.minimum(np.bincount(ids[:len(gold)], minlength=k), np.bincount(ids[len(gold):], minlength=k))
        art_of = np.zeros(k, dtype=np.int64)
        art_of[ids] = np.concatenate([gold.article, pred.article])
        out[:, _I["exact"]] = np.bincount(art_of, weights=both, minlength=a)
    # characters: the union of each side (per label when labelled) is disjoint
    # intervals, so the sum of pairwise overlaps is the size of the intersection
    mg, mp = merge_spans(gold, labelled), merge_spans(pred, labelled)
    jp, jg = _equal_key_pairs(key(mp), key(mg))
    ov = np.maximum(0, np.minimum(mp.end[jp], mg.end[jg]) - np.maximum(mp.start[jp], mg.start[jg]))
    out[:, _I["char_tp"]] = np.bincount(mp.article[jp], weights=ov, minlength=a)
    out[:, _I["char_pred"]] = np.bincount(mp.article, weights=mp.end - mp.start, minlength=a)
    out[:, _I["char_gold"]] = np.bincount(mg.article, weights=mg.end - mg.start, minlength=a)
    tp, pc, gc = out[:, _I["char_tp"]], out[:, _I["char_pred"]], out[:, _I["char_gold"]]
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(pc + gc > 0, 2 * tp / (pc + gc), 1.0)  # both empty: 1 (SemEval-2021 Task 5)
    out[:, _I["article_char_f1"]] = f1
    return out


# ---------------------------------------------------------------------------
# span metrics: functions of summed statistics (..., len(STATS))
# ---------------------------------------------------------------------------
def _prf(num_p, den_p, num_r, den_r) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P, R, F1 with the official scorer's conventions (module docstring)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(den_p > 0, num_p / np.where(den_p > 0, den_p, 1), 0.0)
        r = np.where(den_r > 0, num_r / np.where(den_r > 0, den_r, 1), 0.0)
        f = np.where((p > 0) & (r > 0), 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
    return p, r, np.where((den_p == 0) & (den_r == 0), 1.0, f)


def _st(x, name):
    return np.asarray(x, dtype=float)[..., _I[name]]


def _from_stats(which: int, num_p: str, den_p: str, num_r: str, den_r: str, x) -> np.ndarray:
    """P (0), R (1) or F1 (2) of summed statistics ``x``: ``num_p / den_p``
    and ``num_r / den_r`` (``_prf``'s conventions)."""
    return _prf(_st(x, num_p), _st(x, den_p), _st(x, num_r), _st(x, den_r))[which]


def span_precision(x) -> np.ndarray:
    """Span precision with partial overlap (the official SI / FLC precision).

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    P(S, T) = sum_{s in S, t in T} C(s, t, |s|) / |S|, with
    C(s, t, h) = |s ∩ t| / h (times δ on the label for FLC), S the predicted
    and T the gold spans of every document; 0 when |S| = 0.

    References
    ----------
    Da San Martino, Barrón-Cedeño & Nakov, SemEval-2020 Task 11 evaluation
    note, eq. 2.

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> float(span_precision(x))   # the 5 of its 10 characters that are gold
    0.5
    """
    return _from_stats(0, "sum_p", "n_pred", "sum_r", "n_gold", x)


def span_recall(x) -> np.ndarray:
    """Span recall with partial overlap (the official SI / FLC recall).

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    R(S, T) = sum_{s in S, t in T} C(s, t, |t|) / |T|, micro over all
    documents (a gold document with no prediction still counts in |T|); 0
    when |T| = 0.

    References
    ----------
    SemEval-2020 Task 11 evaluation note, eq. 3.

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> float(span_recall(x))      # half of one of the two gold spans
    0.25
    """
    return _from_stats(1, "sum_p", "n_pred", "sum_r", "n_gold", x)


def span_f1(x) -> np.ndarray:
    """Span F1 with partial overlap: the official score of SemEval-2020 Task 11 SI.

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    F1 = 2 P R / (P + R) of ``span_precision`` and ``span_recall``; 0 when P
    or R is 0, and 1 when both sides are empty (no predicted and no gold
    span).  Equals a plain-loop reimplementation of the official scorer
    (tested).

    References
    ----------
    SemEval-2020 Task 11 evaluation note, eq. 4.

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(span_f1(x)), 4)
    0.3333
    """
    return _from_stats(2, "sum_p", "n_pred", "sum_r", "n_gold", x)


def span_f1_exact(x) -> np.ndarray:
    """Exact-match span F1: a span counts only if it equals a gold span.

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    P = #exact / |S|, R = #exact / |T| (matches counted as a multiset:
    start, end and, for FLC, label equal), F1 their harmonic mean (the
    seqeval / CoNLL convention).

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> float(span_f1_exact(x))    # [5, 15) is no gold span
    0.0
    """
    return _from_stats(2, "exact", "n_pred", "exact", "n_gold", x)


def span_f1_max(x) -> np.ndarray:
    """Span F1 with the overlap over the longer span of each pair.

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    As ``span_f1`` with C(s, t, max(|s|, |t|)) in both P and R (the official
    scorer's unused ``compute_score_max``).

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(span_f1_max(x)), 4)
    0.3333
    """
    return _from_stats(2, "sum_max", "n_pred", "sum_max", "n_gold", x)


def span_f1_min(x) -> np.ndarray:
    """Span F1 with the overlap over the shorter span of each pair (not bounded by 1).

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    As ``span_f1`` with C(s, t, min(|s|, |t|)) in both P and R (the official
    scorer's unused ``compute_score_min``).  A span that overlaps several
    others scores each overlap in full, so one span covering a whole text
    scores above every real system: the metric rewards degenerate systems
    (``gameability``).

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(span_f1_min(x)), 4)
    0.3333
    >>> whole = Spans(article=[0], start=[0], end=[30], label=[])
    >>> float(span_f1_min(span_statistics(gold, whole, 1, False).sum(axis=0)))   # above 1
    1.3333333333333333
    """
    return _from_stats(2, "sum_min", "n_pred", "sum_min", "n_gold", x)


def char_f1(x) -> np.ndarray:
    """Character F1: the characters inside predicted spans against those inside gold spans.

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)

    Notes
    -----
    P = |chars(S) ∩ chars(T)| / |chars(S)|, R = ... / |chars(T)| over all
    documents (per label for FLC), F1 their harmonic mean.

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(char_f1(x)), 4)     # 5 shared characters of 10 predicted and 20 gold
    0.3333
    """
    return _from_stats(2, "char_tp", "char_pred", "char_tp", "char_gold", x)


def char_f1_macro(x) -> np.ndarray:
    """Character F1 per document, averaged over the documents (SemEval-2021 Task 5).

    Parameters
    ----------
    x : array_like, shape (..., len(STATS))
        Span statistics summed over the documents scored (``span_statistics``
        per document; the sum over a resample's documents scores the resample).

    Returns
    -------
    ndarray, shape (...)
        NaN when no document is scored.

    Notes
    -----
    The mean over the documents of each document's character F1, which is 1
    when gold and prediction are both empty and 0 when only one is: the
    official score of Toxic Spans Detection (equal to a plain loop of the
    task's scorer, tested).

    References
    ----------
    Pavlopoulos et al. (SemEval-2021 Task 5), "Toxic Spans Detection".

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, n_articles=1, labelled=False).sum(axis=0)
    >>> round(float(char_f1_macro(x)), 4)
    0.3333
    """
    n = _st(x, "n_articles")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, _st(x, "article_char_f1") / np.where(n > 0, n, 1), np.nan)


@dataclass(frozen=True)
class SpanMetric:
    """A span metric (the same descriptive fields as ``metrics.Metric``).

    Examples
    --------
    >>> m = SPAN_REGISTRY["span_f1"]
    >>> m.name, m.direction
    ('span-F1', 'higher')
    """

    id: str
    name: str
    latex: str
    fn: Callable[[np.ndarray], np.ndarray]
    higher_is_better: bool = True
    reference: str = ""
    bounds: tuple[float, float] = (0.0, 1.0)
    ordinal: bool = False
    params: tuple[str, ...] = ()
    alias: str = ""

    def __call__(self, stats) -> np.ndarray:
        return self.fn(stats)

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"


_NOTE = "Da San Martino et al., SemEval-2020 Task 11 evaluation note, eqs. 1-4"
_SCORER = "official SI scorer (task-SI_scorer.py), compute_score_{}"
_ENTRIES = [
    SpanMetric("span_precision", "span-P", r"span-$P$", span_precision, reference=_NOTE + " (eq. 2)"),
    SpanMetric("span_recall", "span-R", r"span-$R$", span_recall, reference=_NOTE + " (eq. 3)"),
    SpanMetric("span_f1", "span-F1", r"span-$F_1$", span_f1, reference=_NOTE + " (eq. 4): the official score"),
    SpanMetric("span_f1_exact", "span-F1 exact", r"span-$F_1^{exact}$", span_f1_exact,
               reference="exact-match span F1 (seqeval / CoNLL convention): a predicted span counts only if "
                         "start, end (and label) equal a gold span's"),
    SpanMetric("span_f1_max", "span-F1 max", r"span-$F_1^{max}$", span_f1_max,
               reference=_SCORER.format("max") + ": C(s, t, max(|s|, |t|)) in P and R"),
    SpanMetric("span_f1_min", "span-F1 min", r"span-$F_1^{min}$", span_f1_min,
               reference=_SCORER.format("min") + ": C(s, t, min(|s|, |t|)) in P and R; not bounded by 1: a span "
                         "that overlaps several others scores each overlap in full", bounds=(0.0, np.inf)),
    SpanMetric("char_f1", "char-F1", r"char-$F_1$", char_f1,
               reference="character-level F1 over all articles (characters in a predicted span vs in a gold span)"),
    SpanMetric("char_f1_macro", "char-F1 (per document)", r"char-$F_1^{doc}$", char_f1_macro,
               reference="character F1 per document (article, post), averaged over the documents; 1 for a document where both "
                         "sides are empty (SemEval-2021 Task 5, Toxic Spans)"),
]
SPAN_REGISTRY: dict[str, SpanMetric] = {m.id: m for m in _ENTRIES}
SPAN_METRIC_IDS: tuple[str, ...] = tuple(SPAN_REGISTRY)


def evaluate_spans(stats, metric_ids: Iterable[str]) -> dict[str, np.ndarray]:
    """Score summed span statistics with several span metrics at once.

    Parameters
    ----------
    stats : array_like, shape (..., len(STATS))
        Span statistics summed over the scored documents.
    metric_ids : iterable of str
        Span metric ids (``SPAN_METRIC_IDS``).

    Returns
    -------
    dict of str to ndarray

    Examples
    --------
    >>> gold = Spans(article=[0, 0], start=[0, 20], end=[10, 30], label=[])
    >>> pred = Spans(article=[0], start=[5], end=[15], label=[])
    >>> x = span_statistics(gold, pred, 1, labelled=False).sum(axis=0)
    >>> {k: round(float(v), 4) for k, v in evaluate_spans(x, ["span_precision", "span_recall", "span_f1"]).items()}
    {'span_precision': 0.5, 'span_recall': 0.25, 'span_f1': 0.3333}
    """
    stats = np.asarray(stats, dtype=float)
    if stats.shape[-1] != len(STATS):
        raise ValueError(f"span statistics must end in an axis of {len(STATS)} ({', '.join(STATS)}), got {stats.shape}")
    return {m: SPAN_REGISTRY[m](stats) for m in metric_ids}


# ---------------------------------------------------------------------------
# synthetic systems: the gold, perturbed (for studying span metrics)
# ---------------------------------------------------------------------------
PERTURBATIONS = ("jitter", "drop", "split", "spurious", "mixed")


def perturb_spans(gold: Spans, lengths: np.ndarray, kind: str, strength: float,
                  rng: np.random.Generator) -> Spans:
    """A system made from the gold spans by one kind of error, at a strength
    in [0, 1]:

    * ``jitter``: each boundary moves by up to ``strength`` x the median gold
      span length (uniform, independent per boundary), within the article;
    * ``drop``: each span is left out with probability ``strength``;
    * ``split``: each span is cut in two at a random inner point with
      probability ``strength`` (the pieces touch, so they stay two spans);
    * ``spurious``: ``strength`` x |gold| extra spans with gold-like lengths
      at uniform positions (articles drawn by length);
    * ``mixed``: all four, each at the strength.

    The result is merged (overlaps a perturbation made are joined).

    Examples
    --------
    >>> import numpy as np
    >>> gold = Spans(article=[0], start=[2], end=[9], label=[])
    >>> perturb_spans(gold, np.array([20]), "jitter", 0.5, np.random.default_rng(0)).as_array().tolist()
    [[0, 5, 10, 0]]
    """
    if kind == "mixed":
        out = gold
        for k in ("drop", "jitter", "split", "spurious"):
            out = perturb_spans(out, lengths, k, strength, rng)
        return out
    n = len(gold)
    if kind == "jitter":
        w = int(round(strength * float(np.median(gold.end - gold.start)))) if n else 0
        s = gold.start + rng.integers(-w, w + 1, n)
        e = gold.end + rng.integers(-w, w + 1, n)
        lim = lengths[gold.article]
        s = np.clip(s, 0, lim - 1)
        e = np.clip(np.maximum(e, s + 1), 1, lim)
        out = Spans(gold.article, s, e, gold.label)
    elif kind == "drop":
        out = gold.take(rng.random(n) >= strength)
    elif kind == "split":
        cut = (rng.random(n) < strength) & (gold.end - gold.start >= 2)
        at = gold.start + 1 + np.floor(rng.random(n) * np.maximum(gold.end - gold.start - 1, 1)).astype(np.int64)
        first = Spans(gold.article, gold.start, np.where(cut, at, gold.end), gold.label)
        second = gold.take(cut)
        second = Spans(second.article, at[cut], second.end, second.label)
        out = Spans(*(np.concatenate([getattr(first, f), getattr(second, f)])
                      for f in ("article", "start", "end", "label")))
    elif kind == "spurious":
        extra = random_spans(lengths, (gold.end - gold.start) if n else np.array([10]), int(round(strength * n)),
                             rng)
        out = Spans(*(np.concatenate([getattr(gold, f), getattr(extra, f)])
                      for f in ("article", "start", "end", "label")))
    else:
        raise ValueError(f"unknown perturbation {kind!r}; known: {', '.join(PERTURBATIONS)}")
    # overlaps of one label are joined; spans of different labels stay apart (a labelled gold keeps its labels)
    return merge_spans(out, by_label=True)


def random_spans(lengths: np.ndarray, span_lengths: np.ndarray, m: int, rng: np.random.Generator) -> Spans:
    """``m`` spans at uniform positions, unmerged and unlabelled: each in a
    document drawn with probability proportional to its length, its length
    drawn from ``span_lengths`` (with replacement; cut to the document's
    length), its start uniform among the positions where it fits.

    Examples
    --------
    >>> import numpy as np
    >>> random_spans(np.array([20, 30]), np.array([4, 6]), 2, np.random.default_rng(1)).as_array().tolist()
    [[1, 25, 29, 0], [0, 4, 10, 0]]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    if m <= 0 or lengths.sum() <= 0:
        return Spans.empty()
    ln = rng.choice(np.asarray(span_lengths, dtype=np.int64), m)
    art = rng.choice(lengths.size, m, p=lengths / lengths.sum())
    ln = np.minimum(ln, lengths[art])
    s = np.floor(rng.random(m) * (lengths[art] - ln + 1)).astype(np.int64)
    return Spans(art, s, s + ln, np.zeros(m, dtype=np.int64))


def synthetic_systems(gold: Spans, lengths, kinds=PERTURBATIONS, strengths=(0.1, 0.25, 0.5, 0.75),
                      seed: int = 0) -> dict[str, Spans]:
    """``{"<kind>_<strength>": spans}``, one system per kind and strength,
    each from its own random stream (``default_rng([seed, kind, strength])``),
    so adding a kind or a strength does not change the others.

    Examples
    --------
    >>> import numpy as np
    >>> sorted(synthetic_systems(Spans(article=[0], start=[2], end=[9], label=[]), np.array([20]), ("drop",), (0.5,), 1))
    ['drop_0.5']
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    out = {}
    for ki, kind in enumerate(kinds):
        if kind not in PERTURBATIONS:
            raise ValueError(f"unknown perturbation {kind!r}; known: {', '.join(PERTURBATIONS)}")
        for st in strengths:
            rng = np.random.default_rng([int(seed), PERTURBATIONS.index(kind), int(round(st * 1e6))])
            out[f"{kind}_{st:g}"] = perturb_spans(gold, lengths, kind, float(st), rng)
    return out


# ---------------------------------------------------------------------------
# baselines: systems that never read the task, on the scored documents
# ---------------------------------------------------------------------------
SPAN_BASELINES = ("no_spans", "whole_text", "every_token", "random_spans")
_TOKEN = re.compile(r"\S+")


def span_baselines(kinds: Iterable[str], texts: Sequence[str], gold: Spans, seed: int) -> dict[str, Spans]:
    """Generated span baselines, in ``SPAN_BASELINES`` order, for the
    documents ``texts`` (document codes are positions in it):

    * ``no_spans``: predicts nothing (per-document character F1: 1 on every
      document without gold spans, 0 elsewhere);
    * ``whole_text``: one span covering each non-empty document;
    * ``every_token``: every maximal run of non-whitespace characters;
    * ``random_spans``: as many spans as the (merged) gold has, with lengths
      drawn from the gold's, in documents drawn by length, at uniform
      positions (``random_spans``), merged; ``default_rng([seed, 3])``.

    Examples
    --------
    >>> span_baselines(["whole_text", "every_token"], ["ab cd"], Spans.empty(), 0)["every_token"].as_array().tolist()
    [[0, 0, 2, 0], [0, 3, 5, 0]]
    """
    kinds = set(kinds)
    unknown = sorted(kinds - set(SPAN_BASELINES))
    if unknown:
        raise ValueError(f"unknown span baseline(s) {unknown}; known: {', '.join(SPAN_BASELINES)}")
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    out: dict[str, Spans] = {}
    if "no_spans" in kinds:
        out["no_spans"] = Spans.empty()
    if "whole_text" in kinds:
        docs = np.flatnonzero(lengths > 0)
        out["whole_text"] = Spans(docs, np.zeros(docs.size, dtype=np.int64), lengths[docs],
                                  np.zeros(docs.size, dtype=np.int64))
    if "every_token" in kinds:
        rows = [(d, m.start(), m.end()) for d, t in enumerate(texts) for m in _TOKEN.finditer(t)]
        a = np.array(rows, dtype=np.int64).reshape(-1, 3)
        out["every_token"] = Spans(a[:, 0], a[:, 1], a[:, 2], np.zeros(len(a), dtype=np.int64))
    if "random_spans" in kinds:
        g = merge_spans(gold)
        rng = np.random.default_rng([int(seed), SPAN_BASELINES.index("random_spans")])
        out["random_spans"] = merge_spans(random_spans(lengths, g.end - g.start, len(g), rng))
    return out
