"""Baselines of span identification: systems that never read the task, on the scored documents.

Part of ``metaeval.measures.spans`` (its docstring states the conventions).
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

import numpy as np

from .model import Spans, merge_spans
from .synthetic import random_spans


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
