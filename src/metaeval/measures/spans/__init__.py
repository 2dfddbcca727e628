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

The package holds one topic per module: ``model`` (spans in memory),
``statistics`` (the per-document statistics), ``metrics`` (the span
metrics and their registry), ``synthetic`` (perturbed golds) and
``baselines``; every public name is importable from
``metaeval.measures.spans``.  The span files are read by
``metaeval.data.readers.spans``, and a technique-classification submission
is paired with the gold's spans by ``metaeval.data.readers.alignment``.
"""

from __future__ import annotations

# one topic per module, each importing only the ones above it
from .model import SI, Spans, TC, merge_spans, overlapping_pairs  # spans in memory
from .statistics import STATS, span_statistics  # per-document sufficient statistics
from .metrics import (SPAN_METRIC_IDS, SPAN_REGISTRY, SpanMetric, char_f1, char_f1_macro, evaluate_spans, span_f1,
                      span_f1_exact, span_f1_max, span_f1_min, span_precision, span_recall)
from .synthetic import PERTURBATIONS, perturb_spans, random_spans, synthetic_systems  # the gold, perturbed
from .baselines import SPAN_BASELINES, span_baselines  # systems that never read the task

__all__ = ["span_precision", "span_recall", "span_f1", "span_f1_exact", "span_f1_max", "span_f1_min", "char_f1",
           "char_f1_macro", "Spans", "SpanMetric", "SPAN_REGISTRY", "SPAN_METRIC_IDS", "STATS", "SI", "TC",
           "merge_spans",
           "overlapping_pairs", "span_statistics", "evaluate_spans", "perturb_spans",
           "synthetic_systems", "random_spans", "span_baselines", "PERTURBATIONS", "SPAN_BASELINES"]

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
