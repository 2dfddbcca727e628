"""The library's front door: gold labels and systems' predictions in memory,
pandas out, no config file and no Snakemake.

* ``evaluate``: every metric of every system, with bootstrap intervals
  (cluster bootstrap when ``groups`` is given);
* ``compare``: every pair of systems per metric (difference, p-value,
  adjusted p-value where the test has one), the systems that cannot be told
  from the best, and each metric's discriminative power;
* ``recommend``: which metric to report (``metaeval.verdict.recommendation``), with the
  evidence for it;
* ``meta_evaluate``: all of the workflow's experiments on one dataset, as a
  ``MetaEvaluation`` of DataFrames that can write the workflow's files.

Each is the computation the workflow's steps run (``metaeval.workflow``
reads files, calls the same library functions, writes files): the same data
and settings give the same tables.  The inputs are checked as the workflow
checks its files (``dataset.code_dataset``): a wrong length, an unknown
label or a missing item is refused with the system and the item named.

Span tasks (propaganda fragments, toxic spans) take the same calls with
``texts``: the gold and every system's spans as ``(document, start, end)``
tuples (``(document, technique, start, end)`` for technique
classification) or DataFrames, and the documents' texts (``span_dataset``).

``gold`` may also be a dataset read already (``dataset``, ``span_dataset``,
``read_files``: a ``(Dataset, DatasetSpec)`` pair), with no ``predictions``.

Settings are the config's keys (``config/README.md``), as keyword
arguments: ``bootstrap_replicates``, ``tukey_trials``, ``alpha``,
``include_baselines``, ...; a key the config does not know is refused.

Examples
--------
>>> import metaeval
>>> gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
>>> systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
...            "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20}
>>> scores = metaeval.evaluate(gold, systems, metrics=["accuracy", "macro_f1"], bootstrap_replicates=200)
>>> scores[["accuracy", "accuracy_low", "accuracy_high"]].round(3)
        accuracy  accuracy_low  accuracy_high
system
a          0.833         0.767          0.900
b          0.667         0.575          0.734
"""

from __future__ import annotations

import contextvars
import numbers
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from .data.config import BASELINE_KINDS, DatasetSpec, SPAN_BASELINE_KINDS
from .data.dataset import Dataset, RANKED_KINDS, code_dataset, score_dataset
from .data.files import DataError, Problem
from .data.readers.labels import LabelTable
from .measures.labels import closest
from .settings import default_of

__all__ = ["dataset", "span_dataset", "from_tables", "read_files", "settings", "evaluate", "compare", "recommend", "meta_evaluate", "size_design", "SizeDesign", "Comparison",
           "MetaEvaluation"]

GOLD = "gold"
# config/config.yaml's random_seed (the seed of the random baseline): the same data, the workflow's tables
RANDOM_SEED = 20200101


def _source(system: str) -> str:
    """How a system's labels are named in a message (no file: its key)."""
    return f"predictions[{system!r}]"


def _is_missing(x) -> bool:
    return x is None or (isinstance(x, float) and np.isnan(x)) or x is pd.NA or x is pd.NaT


def _table(where: str, values, ids: list[str] | None) -> LabelTable:
    """A ``LabelTable`` of labels in memory, the faults a file reader would
    find collected the same way: a missing label, a duplicated id."""
    if isinstance(values, pd.Series):
        vals = values.tolist()
        own = [str(i) for i in values.index] if ids is None else ids
    else:
        vals = list(values)
        own = ids if ids is not None else [str(i) for i in range(len(vals))]
    t = LabelTable(path=where, ids=[], labels=[], lines=[])
    seen: set[str] = set()
    for item, lab in zip(own, vals):
        if _is_missing(lab):
            t.problems.append(Problem(where, None, f"no label for item {item!r}", "empty"))
            t.skipped_ids.add(item)
            continue
        if item in seen:
            t.problems.append(Problem(where, None, f"duplicated item {item!r}", "duplicate"))
            continue
        seen.add(item)
        t.ids.append(item)
        t.labels.append(str(lab))
        t.lines.append(None)
    return t


def _keyed(values) -> bool:
    """Labels that carry their items' ids: a pandas Series (its index) or a
    mapping of item id to label."""
    return isinstance(values, (pd.Series, Mapping))


def _as_series(values):
    """A mapping of item id to label as a Series indexed by the ids (any
    other input as it is): a dict's keys are ids, never labels."""
    if isinstance(values, Mapping):
        return pd.Series(list(values.values()), index=[str(k) for k in values.keys()], dtype=object)
    return values


def _kind_of(values) -> str:
    return "a pandas Series" if isinstance(values, pd.Series) else type(values).__name__


def _ids(values) -> list[str]:
    """The item ids of labels: a Series' index or a mapping's keys (as
    text); a plain sequence's are its positions, "0" .. "N-1"."""
    return [str(i) for i in values.index] if _keyed(values) else [str(i) for i in range(len(values))]


def _mixed(where: str, gold, values) -> Problem | None:
    """Labels with ids against labels without (a Series or dict against a
    plain sequence): they meet only when the ids are the positions in
    order (a default RangeIndex, ``0 .. N-1``), where matching by id and by
    position agree; otherwise one of the two readings would be silently
    wrong (a shuffled frame's index against its column's values: by id is
    wrong; tweet ids against a list: by position ignores them), and the mix
    is refused with what to pass."""
    if _keyed(values) == _keyed(gold) or _ids(values) == _ids(gold):
        return None
    if _keyed(values):
        why = (f"{_kind_of(values)} indexed by item id (e.g. {_ids(values)[0]!r}), but the gold is a plain "
               f"sequence ({_kind_of(gold)}) without ids: matching them by position would ignore the index. Pass "
               f"the gold as a Series indexed by the same ids, or these labels as a plain sequence in the gold's "
               f"order")
    else:
        why = (f"a plain sequence ({_kind_of(values)}) without ids, but the gold is indexed by item id (e.g. "
               f"{_ids(gold)[0]!r}{', not in the order 0 .. N-1' if _ids(gold)[0].isdigit() else ''}): pass these "
               f"labels as a Series indexed by the gold's ids (or a dict of id to label), or the gold as a plain "
               f"sequence in the order of these labels (e.g. gold.tolist())")
    return Problem(where, None, why, "matching")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def gold_classes(gold_labels, normalize_labels=(), where: str = "gold", name: str = "data") -> list[str]:
    """The classes of a task read off its gold labels (no ``labels`` given),
    sorted (``_sorted_labels``), as ``normalize_labels`` reads them (``strip``:
    without surrounding spaces; with ``case``, the gold's spelling is the
    class's, so a gold spelling one label two ways needs the classes
    named).  Two labels that read as one class (spaces,
    case, a lookalike character: ``data.label_checks.near_duplicates``) are refused:
    taken as two classes, they would split one in silence."""
    from .data.label_checks import near_duplicates

    norm = [normalize_labels] if isinstance(normalize_labels, str) else list(normalize_labels or ())
    values = [str(x).strip() for x in gold_labels] if "strip" in norm else [str(x) for x in gold_labels]
    twins = near_duplicates(values)
    if twins:
        raise DataError([Problem(where, None, f"the gold labels {a!r} and {b!r} differ only by {how}: read as two "
                                              f"classes they would split one. Fix the file"
                                 + (", or set normalize_labels=['strip']" if how == "surrounding spaces" else
                                    ", or name the classes with labels=[...] and normalize_labels=['case']"
                                    if how == "case" else "")
                                 + "; if they are distinct classes, name them all with labels=[...]", "near_duplicate")
                         for a, b, how in twins], f"dataset {name!r}")
    return _sorted_labels(values)


def _sorted_labels(labels) -> list[str]:
    """The distinct labels, sorted: as numbers when all of them are."""
    uniq = list(dict.fromkeys(str(x) for x in labels))
    if all(_number(u) is not None for u in uniq):
        return sorted(uniq, key=_number)
    return sorted(uniq)


def _scalar(x) -> bool:
    return isinstance(x, (str, numbers.Real)) and not isinstance(x, (bool, np.bool_))


def _scalars(x) -> bool:
    return not isinstance(x, (str, Mapping)) and isinstance(x, (Sequence, np.ndarray, pd.Index, pd.Series)) \
        and all(_scalar(v) for v in x)


def _names(x) -> bool:
    return not isinstance(x, (str, Mapping)) and isinstance(x, (Sequence, np.ndarray, set, frozenset)) \
        and all(isinstance(v, str) for v in x)


# the dataset keywords' types, checked before any is converted: a wrong one is
# named with its value, not met as an AttributeError from inside, nor a text read as True
_KEYWORD_TYPES = {
    "labels": (_scalars, "a list of labels"),
    "f_avg_classes": (_scalars, "a list of labels"),
    "baselines": (_names, "a list of baseline kinds (e.g. ['majority', 'random']; [] for none)"),
    "baseline_systems": (_names, "a list of system names"),
    "real_systems": (_names, "a list of system names"),
    "span_metrics": (lambda x: isinstance(x, str) or _names(x), "a list of span metric ids"),
    "normalize_labels": (lambda x: isinstance(x, str) or _names(x), "a list of 'strip' and / or 'case'"),
    "ordinal": (lambda x: isinstance(x, (bool, np.bool_)), "True or False"),
    "allow_unused_labels": (lambda x: isinstance(x, (bool, np.bool_)), "True or False"),
    "merge_overlapping_predictions": (lambda x: isinstance(x, (bool, np.bool_)), "True or False"),
    "normalize_probabilities": (lambda x: isinstance(x, (bool, np.bool_)), "True or False"),
    "random_seed": (lambda x: isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)) and x >= 0,
                    "an integer >= 0"),
    "label_map": (lambda x: isinstance(x, Mapping) and all(_scalar(k) and _scalar(v) for k, v in x.items()),
                  "a mapping of label as written to label"),
    "weights": (lambda x: isinstance(x, Mapping), "a mapping of label to weight, or of set name to such a mapping"),
    "unrelated_label": (_scalar, "one label"),
    "positive_class": (_scalar, "one label"),
    "primary_metric": (lambda x: isinstance(x, str), "a metric id"),
    "score_threshold": (lambda x: isinstance(x, numbers.Real) and not isinstance(x, bool), "a number"),
    "probability_tolerance": (lambda x: isinstance(x, numbers.Real) and not isinstance(x, bool), "a number"),
}


def _check_keywords(values: Mapping[str, Any]) -> None:
    """Refuse a dataset keyword of the wrong type (TypeError naming it and
    its value); None is every keyword's "not given"."""
    for key, value in values.items():
        check = _KEYWORD_TYPES.get(key)
        if value is not None and check is not None and not check[0](value):
            raise TypeError(f"{key}: expected {check[1]}, got {value!r}")


def _weights(weights) -> dict | None:
    """``{label: weight}`` (one set) or ``{name: {label: weight}}``."""
    if weights is None:
        return None
    if not any(isinstance(v, Mapping) for v in weights.values()):
        return {"weights": {str(k): v for k, v in weights.items()}}
    return {str(n): {str(k): v for k, v in w.items()} for n, w in weights.items()}  # values checked by the config


# the keywords the caller of a one-call function gave (``_door``): an explicit keyword overrides ``settings=``
# even when it equals its default
_GIVEN: contextvars.ContextVar[frozenset] = contextvars.ContextVar("metaeval_given", default=frozenset())


def _door(fn):
    """A public function whose unknown keyword is refused with where it
    belongs (``_misplaced``); it records the keywords its caller gave
    (``_GIVEN``) and runs the engine on ``n_jobs`` threads when given."""
    import functools
    import inspect

    params = frozenset(inspect.signature(fn).parameters)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        unknown = [k for k in kwargs if k not in params]
        if unknown:
            raise TypeError(f"{fn.__name__}(): {_misplaced(unknown, params)}")
        token = _GIVEN.set(frozenset(kwargs))
        try:
            if kwargs.get("n_jobs") is None:
                return fn(*args, **kwargs)
            from .engine.kernels import threads  # (numba is imported only by a call that names its threads)

            with threads(kwargs["n_jobs"]):
                return fn(*args, **kwargs)
        finally:
            _GIVEN.reset(token)

    return call


def _misplaced(unknown: Sequence[str], params: frozenset) -> str:
    """Where each of the ``unknown`` keywords of a call taking ``params``
    belongs: a label dataset's keyword (``dataset``), a span task's
    (``span_dataset``), an experiment setting (``settings=`` of the calls
    that compute, or those calls themselves for a data reader), or the
    closest known name."""
    import difflib
    from dataclasses import fields

    from .settings import Settings

    plain, spans = _keywords(dataset) - params, _keywords(span_dataset) - params - _keywords(dataset)
    setting_keys = {f.name for f in fields(Settings)} - params
    computes = "settings" in params

    def named(ks, one, many):
        return f"{', '.join(map(repr, ks))} {'is ' + one if len(ks) == 1 else 'are ' + many}"

    def given(ks):
        return ", ".join(f"{k}=..." for k in ks)

    hints = []
    ks = [k for k in unknown if k in plain]
    if ks:
        hints.append(f"{named(ks, 'a dataset keyword', 'dataset keywords')}: read the data once with "
                     f"metaeval.dataset(gold, predictions, {given(ks)}) (or read_files) and pass what it returns")
    ks = [k for k in unknown if k in spans]
    if ks:
        hints.append(f"{named(ks, 'a keyword', 'keywords')} of span tasks: read the data once with "
                     f"metaeval.span_dataset(gold, predictions, texts=..., {given(ks)}) and pass what it returns")
    ks = [k for k in unknown if k in setting_keys]
    if ks:
        hints.append(f"{named(ks, 'an experiment setting', 'experiment settings')}: "
                     + (f"pass settings=metaeval.api.settings({given(ks)})" if computes else
                        "give it to the call that computes (evaluate, compare, recommend, meta_evaluate, "
                        "size_design), by name or as settings=metaeval.api.settings(...)"))
    lost = [k for k in unknown if k not in plain | spans | setting_keys]
    for k in lost:
        close = difflib.get_close_matches(k, sorted(params | plain | spans | setting_keys), n=1)
        hints.append(f"unknown keyword {k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    if lost:
        hints.append("the experiment settings, each with its default and meaning: `metaeval settings`, or the "
                     "documentation's Configuration page" if computes else
                     f"the keywords: {', '.join(sorted(params - {'gold', 'predictions'}))}")
    return "; ".join(hints)


@_door
def dataset(gold, predictions, *, labels: Sequence | None = None, ordinal: bool = False, groups=None,
            metrics: Sequence[str] | None = None, weights: Mapping | None = None,
            f_avg_classes: Sequence | None = None, unrelated_label=None, positive_class=None,
            baselines: Sequence[str] | None = None, baseline_systems: Sequence[str] = (),
            real_systems: Sequence[str] = (), primary_metric: str | None = None, allow_unused_labels: bool = False,
            label_map: Mapping | None = None,
            normalize_labels: Sequence[str] = (), random_seed: int = RANDOM_SEED,
            name: str = "data") -> tuple[Dataset, DatasetSpec]:
    """A dataset in memory (``dataset.Dataset``) and its spec, checked as
    the workflow checks a dataset's files.

    Parameters
    ----------
    gold : sequence, pandas.Series or mapping
        The gold label of every item.  A Series' index, or a mapping's keys,
        gives the item ids; a plain sequence (list, tuple, array) numbers
        the items from 0.
    predictions : mapping of str to labels, or pandas.DataFrame
        Every system's predicted labels (a DataFrame: one column per
        system, its index the item ids).  Labels with ids (a Series, or a
        mapping of item id to label) are matched to the gold by id, and
        need a gold with ids; plain sequences are matched by position, need
        a plain gold and its length (``Dataset.info["matched_by"]`` records
        which).  A mix of the two is refused unless the ids are the
        positions ``0 .. N-1`` in order (where both readings agree): otherwise
        one reading would pair the wrong items.
    labels : sequence, optional
        The classes, in order (the order of the scale when ``ordinal``).
        Default: the gold's labels, sorted; a predicted label outside them
        is then refused (pass ``labels`` to allow a class the gold lacks,
        with ``allow_unused_labels``).
    ordinal : bool
        Whether ``labels`` are ordered (enables the ordinal metrics).
    groups : sequence, pandas.Series or mapping, optional
        A group per item (e.g. target or source): a Series or mapping by
        item id, a plain sequence in the gold's order: per-group scores, and
        whole groups resampled with ``resample_unit="group"`` (items by
        default, as the workflow does with a dataset's ``group_column``).
    metrics, weights, f_avg_classes, unrelated_label, positive_class, primary_metric
        As the dataset keys of the config (``config/README.md``); ``weights``
        is one ``{label: weight}`` set or ``{name: {label: weight}}`` sets.
    baselines : sequence of str, optional
        Generated reference systems: ``majority``, ``all_class``, ``random``;
        None: all three, as the config's default and ``read_files`` (``[]``
        for none).
    baseline_systems : sequence of str
        Systems of ``predictions`` that are baselines (not ranked unless
        ``include_baselines`` names them).
    real_systems : sequence of str
        Systems of ``predictions`` named like baselines (a word of the name is
        ``baseline``, ``bsl``, ``random`` or ``majority``:
        ``config.baseline_word``) that are real systems.  Such a system that
        neither list names is ranked as a real system and a ``UserWarning``
        says so, with the keyword that declares it either way.
    label_map : mapping, optional
        Labels of the files renamed to classes (``{"Favor": "FAVOR"}``).
    normalize_labels : sequence of {"strip", "case"}
        Labels that differ from a class only in surrounding spaces or in case
        are read as that class (never merged in silence otherwise).
    random_seed : int
        The seed of the ``random`` baseline (default: the project config's
        ``random_seed``, 20200101, so that the same data give the
        workflow's tables).

    Returns
    -------
    (Dataset, DatasetSpec)

    Raises
    ------
    metaeval.data.files.DataError
        Listing every fault, by system and item.
    metaeval.settings.ConfigError
        For a setting the config would refuse.

    Examples
    --------
    >>> gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    >>> systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
    ...            "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
    ...            "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20}
    >>> ds, spec = dataset(gold, systems, baselines=["majority"])
    >>> ds.systems, ds.kinds, spec.labels
    (('a', 'b', 'c', 'majority'), ('system', 'system', 'system', 'baseline'), ('neg', 'neu', 'pos'))
    >>> dataset(gold, {"a": systems["a"][:-1]})
    Traceback (most recent call last):
    ...
    metaeval.data.files.DataError: dataset 'data': 1 problem in 1 input:
      predictions['a']: 1 problem (1 sequence(s) of the wrong length)
        predictions['a']: 119 labels for 120 gold items (plain sequences are matched to the gold by position; pass pandas Series or dicts keyed by item id, gold included, to match by id)
    """
    gold = _as_series(gold)
    _check_label_sequence("gold", gold)
    if isinstance(predictions, pd.DataFrame):
        predictions = {str(c): predictions[c] for c in predictions.columns}
    elif isinstance(predictions, pd.Series) or not isinstance(predictions, Mapping):
        raise TypeError("predictions: a mapping of system name to labels, or a DataFrame with one column per system")
    predictions = {str(k): _as_series(v) for k, v in predictions.items()}
    for system, values in predictions.items():
        _check_label_sequence(_source(system), values)
    n_gold = len(gold)
    if n_gold == 0:
        raise DataError([Problem("gold", None, f"no items ({_kind_of(gold)} of length 0): give one gold label per "
                                               f"item", "empty")], f"dataset {name!r}")
    gold_ids = _ids(gold)
    # matched by id, a plain sequence's ids being its positions; a mix that would match by position in silence is
    # refused (_mixed)
    wrong = [p for p in (_mixed(_source(system), gold, values) for system, values in predictions.items()) if p]
    wrong += [Problem(_source(system), None, f"{len(values):,} labels for {n_gold:,} gold items (plain sequences "
                      "are matched to the gold by position; pass pandas Series or dicts keyed by item id, gold "
                      "included, to match by id)", "length")
              for system, values in predictions.items()
              if not _keyed(values) and not _keyed(gold) and len(values) != n_gold]
    if wrong:
        raise DataError(wrong, f"dataset {name!r}")
    keyed = [_keyed(gold)] + [_keyed(v) for v in predictions.values()]
    matched_by = "item id" if all(keyed) else "position" if not any(keyed) else \
        "position (the ids are the positions 0 .. N-1, in order)"
    gold_t = _table(GOLD, gold, None)
    if groups is not None:  # the labels' rule: by id when the gold and the groups carry ids, by position when neither
        groups = _as_series(groups)
        mixed = _mixed("groups", gold, groups) if _keyed(groups) else None  # (a plain sequence: the gold's order)
        if mixed:
            raise DataError([mixed], f"dataset {name!r}")
        values = groups.tolist() if isinstance(groups, (pd.Series, np.ndarray)) else list(groups)
        if len(values) != n_gold:
            raise DataError([Problem("groups", None, f"{len(values):,} groups for {n_gold:,} gold items", "other")],
                            f"dataset {name!r}")
        of_id = dict(zip(_ids(groups) if _keyed(groups) else gold_ids, values))
        g = [of_id.get(i) for i in gold_ids]  # (ids of their own: a gold item without one has no group)
        # (an empty or blank group name is no group, as the file readers say: not a group of its own)
        missing = [i for i, x in zip(gold_ids, g) if _is_missing(x) or (isinstance(x, str) and not x.strip())]
        if missing:
            raise DataError([Problem("groups", None, f"no group for item {missing[0]!r}", "empty")],
                            f"dataset {name!r}")
        of = dict(zip(gold_ids, (str(x) for x in g)))
        gold_t.groups = [of[i] for i in gold_t.ids]
    tables = {system: _table(_source(system), values, None) for system, values in predictions.items()}
    ds, spec = from_tables(gold_t, tables, labels=labels, ordinal=ordinal, metrics=metrics, weights=weights,
                       f_avg_classes=f_avg_classes, unrelated_label=unrelated_label,
                       positive_class=positive_class,
                       baselines=BASELINE_KINDS if baselines is None else baselines,
                       baseline_systems=baseline_systems, real_systems=real_systems, primary_metric=primary_metric,
                       allow_unused_labels=allow_unused_labels, label_map=label_map,
                       normalize_labels=normalize_labels, random_seed=random_seed, name=name)
    ds.info["matched_by"] = matched_by  # how the predictions met the gold, kept with the data
    return ds, spec


def _check_label_sequence(where: str, values) -> None:
    """One label per item, not a table or a text: a clear TypeError for the
    shapes a caller may pass by mistake."""
    if isinstance(values, pd.DataFrame):
        raise TypeError(f"{where}: one label per item (a list, array or Series), not a DataFrame: pass its label "
                        f"column, e.g. df['label']")
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{where}: a sequence of labels, one per item, not a text ({str(values)[:40]!r})")
    if not hasattr(values, "__iter__") or not hasattr(values, "__len__"):  # a number, a generator: no labels by item
        raise TypeError(f"{where}: a sequence of labels, one per item (a list, array or Series), got "
                        f"{type(values).__name__}")
    first = next(iter(values), None)
    if isinstance(first, (tuple, list)):
        raise TypeError(f"{where} holds tuples ({first!r}): spans? a span task needs the documents' texts: "
                        f"texts={{document: text}} (metaeval.span_dataset)")


def _span_task(gold, labels) -> str:
    """``"tc"`` when the spans carry techniques (``labels`` given, a
    ``label`` column, four-field tuples), else ``"si"``."""
    if labels is not None:
        return "tc"
    if isinstance(gold, pd.DataFrame):
        return "tc" if {"label", "technique"} & set(gold.columns) else "si"
    first = next(iter(gold), None)
    return "tc" if first is not None and not isinstance(first, str) and hasattr(first, "__len__") \
        and len(first) == 4 else "si"


@_door
def span_dataset(gold, predictions, *, texts, labels: Sequence | None = None, metrics: Sequence[str] | None = None,
                 span_metrics: Sequence[str] | None = None, baselines: Sequence[str] | None = None,
                 baseline_systems: Sequence[str] = (), real_systems: Sequence[str] = (),
                 merge_overlapping_predictions: bool = False,
                 offsets_past_end: str = "wrong", primary_metric: str | None = None,
                 random_seed: int = RANDOM_SEED, name: str = "data") -> tuple[Dataset, DatasetSpec]:
    """A span dataset in memory, checked and coded as the workflow reads
    span files (``dataset.code_span_dataset``: the same checks, merges and
    baselines as ``format: semeval2020_si`` / ``semeval2020_tc`` with
    ``documents: all_articles``).

    Parameters
    ----------
    gold : sequence of tuples, or pandas.DataFrame
        The gold spans: ``(document, start, end)`` for span identification
        (SI), ``(document, technique, start, end)`` for technique
        classification (TC); a DataFrame with the columns ``document``,
        ``start``, ``end`` (and ``label``).  Offsets are characters of the
        document's text, ``[start, end)``; overlapping gold spans are merged.
    predictions : mapping of str to spans
        Every system's spans, in the gold's form.  A TC system labels
        exactly the gold spans.
    texts : mapping of str to str, or sequence of str
        The text of every document (a sequence: documents ``"0"``,
        ``"1"``, ...).  Every document is scored, spans or not.
    labels : sequence, optional
        The techniques (TC); default: those of the gold, sorted.  Given, or
        with technique labels in the gold, the task is TC; else SI.
    metrics, span_metrics, baselines, baseline_systems, real_systems, primary_metric
        As the dataset keys of the config (and ``dataset``): the classification metrics of TC,
        the span metrics (``spans.SPAN_METRIC_IDS``; default all), the
        generated baselines (SI: ``no_spans``, ``whole_text``,
        ``every_token``, ``random_spans``; TC: ``majority``, ``all_class``,
        ``random``; None: every one of the task, as ``read_files``; ``[]``
        for none).
    merge_overlapping_predictions : bool
        SI: merge a system's overlapping spans (the official scorer's
        ``-m``) instead of refusing them.
    offsets_past_end : {"wrong", "refuse"}
        A span that reaches past the end of its text: scored as wrong
        characters (the official scorers), or refused.

    Returns
    -------
    (Dataset, DatasetSpec)

    Raises
    ------
    metaeval.data.files.DataError
        Listing every fault, by system and row (its position, from 0).

    Examples
    --------
    >>> ds, spec = span_dataset([("d1", 0, 5), ("d2", 3, 9)], {"a": [("d1", 0, 4)], "b": [("d2", 3, 9)]},
    ...                         texts={"d1": "Vote now, or lose.", "d2": "They always lie."}, baselines=[])
    >>> score_dataset(ds, spec).set_index("system")["span_f1"].round(3).to_dict()
    {'a': 0.571, 'b': 0.667}
    """
    from .data.readers.spans import span_table

    _check_keywords(dict(labels=labels, span_metrics=span_metrics, baselines=baselines,
                         baseline_systems=baseline_systems, real_systems=real_systems, primary_metric=primary_metric,
                         random_seed=random_seed, merge_overlapping_predictions=merge_overlapping_predictions))
    if not isinstance(predictions, Mapping) or isinstance(predictions, pd.DataFrame):
        raise TypeError("predictions: a mapping of system name to spans")
    if not predictions:
        raise ValueError("predictions: no system given")
    if isinstance(texts, Mapping):
        texts = {str(k): str(v) for k, v in texts.items()}
    elif isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError("texts: a mapping of document id to text, or a sequence of texts")
    else:
        texts = {str(i): str(v) for i, v in enumerate(texts)}
    task = _span_task(gold, labels)
    if baselines is None:  # (the config's default: every baseline of the task)
        baselines = SPAN_BASELINE_KINDS if task == "si" else BASELINE_KINDS
    if task == "tc" and labels is None:
        rows = (gold["label" if "label" in gold.columns else "technique"].tolist() if isinstance(gold, pd.DataFrame)
                else [r[1] for r in gold])
        labels = sorted({str(x) for x in rows})
    lengths = {d: len(t) for d, t in texts.items()}
    gold_t = span_table(gold, GOLD, task, lengths, labels, offsets_past_end)
    tables = {str(s): span_table(v, _source(str(s)), task, lengths, labels, offsets_past_end)
              for s, v in predictions.items()}
    raw: dict[str, Any] = {"format": f"semeval2020_{task}", "gold": GOLD, "articles": "texts",
                           "documents": "all_articles", "baselines": list(baselines),
                           "offsets_past_end": offsets_past_end, "random_seed": int(random_seed)}
    if task == "tc":
        raw["labels"] = [str(x) for x in labels]
    elif merge_overlapping_predictions:
        raw["merge_overlapping_predictions"] = True
    for key, v in (("metrics", metrics), ("span_metrics", span_metrics), ("primary_metric", primary_metric)):
        if v is not None:
            raw[key] = v if isinstance(v, str) else list(v)
    spec = DatasetSpec.from_config(name, raw, random_seed=int(random_seed))
    _check_declared(baseline_systems, real_systems, tables)
    from .data.dataset import code_span_dataset

    ds = code_span_dataset(spec, texts, gold_t, tables, texts_where="texts", supplied=set(baseline_systems))
    _say_systems(ds, tables, real_systems)
    return ds, spec


def _check_declared(baseline_systems, real_systems, systems) -> None:
    """``baseline_systems`` and ``real_systems`` name systems of
    ``predictions``, none in both."""
    for key, names in (("baseline_systems", baseline_systems), ("real_systems", real_systems)):
        unknown = sorted(set(names) - set(systems))
        if unknown:
            raise ValueError(f"{key}: {unknown} are not systems of predictions ({sorted(systems)})")
    both = sorted(set(baseline_systems) & set(real_systems))
    if both:
        raise ValueError(f"real_systems: {both} are in baseline_systems too: a system is a baseline or a real "
                         f"system; name it in one of them")


def _say_systems(ds: Dataset, systems, real_systems) -> None:
    """``ds.info["systems"]`` (``data.systems.name_the_systems``) of the given
    ``systems`` (in memory, or files read by ``read_files``: named after
    them), and a ``UserWarning`` now for each one named like a baseline
    that nothing declared (``_prepare`` does not say it again)."""
    from .data.systems import _advice, name_the_systems

    for w in name_the_systems(ds, {s: s for s in systems}, set(real_systems), _advice(None, "library")):
        warnings.warn(f"dataset {ds.name!r}: {w}", stacklevel=_outside())


def _outside() -> int:
    """The ``stacklevel`` of a warning that points at the first caller
    outside the metaeval package (the user's line)."""
    import sys

    here, frame, level = str(Path(__file__).parent), sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(here):
        frame, level = frame.f_back, level + 1
    return level


def _said_when_read(ds: Dataset) -> list[str]:
    """The warnings of ``ds.info`` that the readers said already
    (``_say_systems``): those of systems named like baselines."""
    marked = (ds.info.get("systems") or {}).get("named_like_baselines") or {}
    return [w for w in ds.info.get("warnings", [])
            if any(w.startswith(f"system {s!r}") for s in marked) and " is named like a baseline (the word " in w]


def from_tables(gold_t: LabelTable, tables: Mapping[str, LabelTable], *, labels: Sequence | None = None,
                ordinal: bool = False, metrics: Sequence[str] | None = None, weights: Mapping | None = None,
                f_avg_classes: Sequence | None = None, unrelated_label=None, positive_class=None,
                baselines: Sequence[str] = (),
                baseline_systems: Sequence[str] = (), real_systems: Sequence[str] = (),
                primary_metric: str | None = None,
                allow_unused_labels: bool = False, label_map: Mapping | None = None,
                normalize_labels: Sequence[str] = (), random_seed: int = RANDOM_SEED,
                name: str = "data") -> tuple[Dataset, DatasetSpec]:
    """``dataset`` of label tables (``io.LabelTable``: read from files by
    ``io.read_labels``, with their lines, or made from labels in memory):
    the gold's, and each system's; the gold table's ``groups``, when it has
    them, become the dataset's groups.  Keywords as ``dataset``.

    Examples
    --------
    >>> from metaeval.api import _table
    >>> ds, spec = from_tables(_table("gold", ["x", "y", "y"], None), {"s": _table("s", ["x", "y", "x"], None)})
    >>> ds.gold.tolist(), ds.predictions.tolist()
    ([0, 1, 1], [[0, 1, 0]])
    """
    _check_keywords(dict(labels=labels, ordinal=ordinal, weights=weights, f_avg_classes=f_avg_classes,
                         unrelated_label=unrelated_label, positive_class=positive_class, baselines=baselines,
                         baseline_systems=baseline_systems, real_systems=real_systems,
                         primary_metric=primary_metric, allow_unused_labels=allow_unused_labels, label_map=label_map,
                         normalize_labels=normalize_labels, random_seed=random_seed))
    if not tables:
        raise ValueError("predictions: no system given")
    if gold_t.unreadable:
        raise DataError(list(gold_t.problems), f"dataset {name!r} (gold {gold_t.path})")
    if labels is None:
        if ordinal and not all(_number(x) is not None for x in set(gold_t.labels)):
            raise ValueError("ordinal=True needs labels in the order of the scale (labels=[...]): text labels have "
                             "no order of their own")
        labels = gold_classes(gold_t.labels, normalize_labels, gold_t.path, name)
        if len(labels) == 1:  # (the classes came from the gold: it is the gold that has one, not a keyword)
            raise DataError([Problem(gold_t.path, None, f"every gold label is {labels[0]!r}: a score needs two "
                                     f"classes or more; if the task has others, name every class with "
                                     f"labels=[...] and allow_unused_labels=True (the classes are read from the "
                                     f"gold when not given)", "other")],
                            f"dataset {name!r}")
    labels = [str(x) for x in labels]
    raw: dict[str, Any] = {"gold": gold_t.path, "labels": labels, "ordinal": bool(ordinal),
                           "baselines": list(baselines), "allow_unused_labels": bool(allow_unused_labels),
                           "random_seed": int(random_seed)}
    if metrics is not None:
        raw["metrics"] = _given_metrics(metrics, len(labels))
    if weights is not None:
        raw["weights"] = _weights(weights)
    if primary_metric is not None:
        raw["primary_metric"] = primary_metric
    if f_avg_classes is not None:
        raw["f_avg_classes"] = [str(x) for x in f_avg_classes]
    if unrelated_label is not None:
        raw["unrelated_label"] = str(unrelated_label)
    if positive_class is not None:
        raw["positive_class"] = str(positive_class)
    if label_map:
        raw["label_map"] = {str(k): str(v) for k, v in label_map.items()}
    if normalize_labels:
        raw["normalize_labels"] = [normalize_labels] if isinstance(normalize_labels, str) else list(normalize_labels)
    spec = DatasetSpec.from_config(name, raw, random_seed=int(random_seed))
    _check_declared(baseline_systems, real_systems, tables)
    ds = code_dataset(spec, gold_t, iter(tables.items()), supplied=lambda: set(baseline_systems))
    if gold_t.groups is not None:
        of = dict(zip(gold_t.ids, gold_t.groups))
        names, codes = np.unique(np.asarray([of[i] for i in ds.item_ids], dtype=str), return_inverse=True)
        ds.groups = codes.astype(np.int16 if names.size < 2 ** 15 else np.int32)
        ds.group_names = tuple(names.tolist())
    from .measures.custom import check_registered

    # a custom metric is held to its contract on the systems' own matrices before any work
    check_registered(spec.metrics, ds.confusion(), spec.metric_params(), where=f"the systems of dataset {name!r}")
    if spec.item_metrics:
        from .measures.items import check_items

        check_items(spec.item_metrics, ds.gold, ds.predictions, ds.item_ids, where=f"the systems of dataset {name!r}")
    _say_systems(ds, tables, real_systems)
    return ds, spec


def _given_metrics(metrics, k: int) -> list[str]:
    """The metric ids of a ``metrics`` argument; a mapping registers its
    custom metrics first: ``{"mine": fn}`` (higher is better, any finite
    value), ``{"mine": {"function": fn, "higher_is_better": False,
    "range": [0, 1], ...}}`` (the config's keys; ``function`` a callable or
    ``file.py:name``) or ``{"accuracy": None}`` (a known id)."""
    if not isinstance(metrics, Mapping):  # (an empty text is no metric: the empty list's message)
        return ([metrics] if metrics.strip() else []) if isinstance(metrics, str) else list(metrics)
    from .measures.custom import KEYS, register_metric, resolve

    for mid, given in metrics.items():
        if given is None:
            continue
        if callable(given):
            register_metric(str(mid), given)
            continue
        if not isinstance(given, Mapping):
            raise TypeError(f"metrics[{mid!r}]: a function, a mapping of its declaration ({', '.join(KEYS)}) or "
                            f"None for a known metric, got {type(given).__name__}")
        decl = {key: resolve(v)[0] if key in ("function", "terms", "combine") and isinstance(v, str) else v
                for key, v in given.items()}
        unknown = sorted(set(decl) - set(KEYS))
        if unknown:
            raise TypeError(f"metrics[{mid!r}]: unknown key(s) {unknown}; known: {', '.join(KEYS)}")
        if "terms" in decl or "combine" in decl:  # a metric of per-item terms (metaeval.measures.items)
            from .measures.items import register_item_metric

            register_item_metric(str(mid), decl.pop("terms", None), decl.pop("combine", None), **decl)
        else:
            register_metric(str(mid), decl.pop("function", None), **decl)
    return [str(m) for m in metrics]


def settings(**options):
    """The experiment settings (``experiments.Settings``) from config keys,
    checked as the config's are, with the workflow's defaults.  Its
    signature names every setting with its default (read from the one
    place they are declared, ``metaeval.settings``); an unknown key is
    refused with the closest one.

    Examples
    --------
    >>> s = settings(bootstrap_replicates=500, alpha=0.01)
    >>> s.bootstrap_replicates, s.alpha, s.tukey_trials
    (500, 0.01, 5000)
    >>> settings(resample_unit="group").resample_unit
    'group'
    >>> import inspect
    >>> inspect.signature(settings).parameters["tukey_trials"]
    <Parameter "tukey_trials: 'int' = 5000">
    """
    from .settings import Settings

    return Settings.from_config({k: list(v) if isinstance(v, tuple) else v for k, v in options.items()})


def _settings_signature():
    """``settings``' signature: every field of ``experiments.Settings`` as a
    keyword with its declared default."""
    import inspect
    from dataclasses import MISSING, fields

    from .settings import Settings

    params = []
    for f in fields(Settings):
        default = f.default if f.default is not MISSING else f.default_factory()
        params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=f.type))
    return inspect.Signature(params, return_annotation="Settings")


settings.__signature__ = _settings_signature()


def _keywords(fn) -> set[str]:
    """The keywords of a dataset builder (``dataset``, ``span_dataset``)."""
    import inspect

    return set(inspect.signature(fn).parameters) - {"gold", "predictions"}


def _split(options: Mapping[str, Any]) -> tuple[dict, dict]:
    """The dataset keywords (``_DATA_KEYS``) and the experiment settings of
    a call's options (``_options``: the door refused any other keyword)."""
    return ({k: v for k, v in options.items() if k in _DATA_KEYS},
            {k: v for k, v in options.items() if k not in _DATA_KEYS})


def _prediction_files(predictions) -> list:
    """The prediction files of ``read_files``: one path, or several, each a
    file or a glob pattern (as the config's ``predictions``), in order."""
    import glob as _glob
    import os

    from .data.config import ConfigError

    out = []
    for f in [predictions] if isinstance(predictions, (str, os.PathLike)) else list(predictions):
        if not Path(f).exists() and _glob.has_magic(str(f)):
            matched = sorted(_glob.glob(str(f)))
            if not matched:
                raise ConfigError(f"read_files: no prediction file matches {str(f)!r}")
            out += matched
        else:
            out.append(f)
    return out


@_door
def read_files(gold, predictions: Sequence = (), *, format: str | None = None, id_column: str | None = None,
               label_column: str | None = None, group_column: str | None = None, articles=None,
               documents: str | None = None, name: str | None = None, span_format: str | None = None,
               scores: Sequence | None = None, score_format: Mapping | None = None,
               score_threshold: float | None = None, probability_tolerance: float | None = None,
               normalize_probabilities: bool = False, labels: Sequence | None = None, ordinal: bool = False,
               metrics: Sequence[str] | None = None, weights: Mapping | None = None,
               f_avg_classes: Sequence | None = None, unrelated_label=None, positive_class=None,
               baselines: Sequence[str] | None = None, baseline_systems: Sequence[str] = (),
               real_systems: Sequence[str] = (), primary_metric: str | None = None,
               allow_unused_labels: bool = False, label_map: Mapping | None = None,
               normalize_labels: Sequence[str] = (), random_seed: int = RANDOM_SEED,
               span_metrics: Sequence[str] | None = None, merge_overlapping_predictions: bool = False,
               offsets_past_end: str | None = None) -> tuple[Dataset, DatasetSpec]:
    """``dataset`` of files: a gold file and one prediction file per system
    (the system's name is the file's name without its ending).

    ``format`` is the config's dataset key of that name.  Without it,
    classification files are read by their ending (``io.read_labels``:
    ``.csv``, ``.tsv``, ``.jsonl``, ``.parquet``) with the columns (keys)
    ``id_column`` (default ``item_id``), ``label_column`` (``label``) and,
    for groups, ``group_column`` of the gold.  ``csv`` and ``semeval_tsv``
    read delimited files whatever their ending, with that format's
    delimiter and columns (``io.FORMATS``; SemEval-2016 Task 6: tabs,
    ``ID`` and ``Stance``) unless the columns are given; the gold's groups
    only with ``group_column`` (they change what the calls resample).  The span
    formats (``semeval2020_si``, ``semeval2020_tc``, ``semeval2021_tsd``)
    read span files and, for the 2020 formats, the folder of
    ``article<ID>.txt`` texts (``articles``), with the workflow's own
    reader.  ``scores``: one score or probability file per system (matched
    to its prediction file by name; a system may give scores only), read as
    the config's keys of the same names read them (``score_format``,
    ``score_threshold``, ``probability_tolerance``,
    ``normalize_probabilities``; docs: Scores and probabilities), and the
    metrics of scores listed in ``metrics``.
    ``span_format``: the old name of ``format`` (it warns).  The other keywords as ``dataset`` (span
    files: as ``span_dataset``, and ``documents``); the defaults are the config's, so
    that the files are read as the workflow reads them: every baseline of
    the task is generated (``baselines=[]`` for none), the random ones
    seeded by ``random_seed`` (20200101), and the techniques of a TC gold
    file are its labels, sorted.  Every fault is named with its file and
    line (or row, for Parquet).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "gold.csv").write_text("item_id,label\\n1,pos\\n2,neg\\n3,neg\\n")
    >>> _ = (d / "sys_a.csv").write_text("item_id,label\\n1,pos\\n2,neg\\n3,pos\\n")
    >>> ds, spec = read_files(d / "gold.csv", [d / "sys_a.csv"])
    >>> ds.systems
    ('sys_a', 'majority', 'all_neg', 'all_pos', 'random')
    >>> read_files(d / "gold.csv", [d / "sys_a.csv"], baselines=[])[0].predictions.tolist()
    [[1, 0, 1]]
    >>> _ = (d / "sys_b.csv").write_text("item_id,label\\n1,pos\\n2,maybe\\n3,pos\\n")
    >>> read_files(d / "gold.csv", [d / "sys_b.csv"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    metaeval.data.files.DataError: dataset 'data' (gold file .../gold.csv): 1 problem in 1 file of the input data:
      .../sys_b.csv: 1 problem (1 label(s) outside the label set)
        .../sys_b.csv:3: predicted label 'maybe' of item '2' is not one of 'neg', 'pos'
    """
    from .data.config import ConfigError, SPAN_FORMATS
    from .data.readers.labels import FORMATS

    if span_format is not None:
        if format is not None:
            raise TypeError("read_files: span_format is the old name of format: give format alone")
        warnings.warn("read_files: span_format is now called format (the config's key); the old name works until "
                      "the next release", FutureWarning, stacklevel=2)
        format = span_format
    if format is not None and format not in FORMATS and format not in SPAN_FORMATS:
        raise ValueError(f"read_files: unknown format {format!r}{closest([format], set(FORMATS) | set(SPAN_FORMATS))}"
                         f"; known: {', '.join(list(FORMATS) + list(SPAN_FORMATS))}")
    span_format = format if format in SPAN_FORMATS else None
    name = name or "data"
    predictions = _prediction_files(predictions)
    stems: dict[str, str] = {}
    for f in predictions:
        stem = Path(f).stem
        if stem in stems:
            raise ConfigError(f"two prediction files give the system name {stem!r}: {stems[stem]} and {f}")
        stems[stem] = str(f)
    keys = _read_keys(locals(), span_format is not None)
    _check_keywords({**keys, "score_threshold": score_threshold, "probability_tolerance": probability_tolerance,
                     "normalize_probabilities": normalize_probabilities})
    keys.setdefault("random_seed", RANDOM_SEED)
    if span_format:
        from .data.dataset import load_dataset

        raw = {"format": span_format, "gold": str(Path(gold).resolve()),
               "predictions": [str(Path(f).resolve()) for f in predictions], **keys}
        if articles is not None:
            raw["articles"] = str(Path(articles).resolve())
        for k in ("baselines", "labels", "metrics", "span_metrics"):
            if raw.get(k) is not None:
                raw[k] = list(raw[k])
        if span_format == "semeval2020_tc" and raw.get("labels") is None:  # the gold's techniques, sorted
            from .data.readers.spans import read_technique_names

            raw["labels"] = sorted(read_technique_names(gold))
        _as_patterns(raw)
        spec = DatasetSpec.from_config(name, raw, random_seed=int(keys["random_seed"]))
        return _read_said(spec, load_dataset(spec, "/", advice="library")), spec
    keys.setdefault("baselines", BASELINE_KINDS)  # as the config's default: every baseline
    if scores is not None:  # scores and probabilities: the workflow's own reader (metaeval.data.score_data)
        return _read_with_scores(gold, predictions, scores, name=name, format=format, id_column=id_column,
                                 label_column=label_column, group_column=group_column,
                                 score_format=score_format, score_threshold=score_threshold,
                                 probability_tolerance=probability_tolerance,
                                 normalize_probabilities=normalize_probabilities, keys=keys)
    if not predictions:
        raise ValueError("predictions: no system given (give prediction files, or scores=[...])")
    read = _reader(format, id_column, label_column)
    gold_t = read(gold, group_column)
    tables = {stem: read(f) for stem, f in stems.items()}
    return from_tables(gold_t, tables, name=name, **keys)


def _read_keys(given: Mapping[str, Any], spans: bool) -> dict:
    """The dataset keywords of a ``read_files`` call that differ from their
    defaults; a keyword of the other kind of task (a span keyword for label
    files, a label keyword for span files) is refused."""
    import inspect

    params = inspect.signature(read_files).parameters
    own = (_keywords(span_dataset) - {"texts"} | {"documents"}) if spans else _keywords(dataset) - {"groups"}
    own = own - {"name"}  # (read_files names the dataset itself)
    other = (_keywords(dataset) | _keywords(span_dataset) | {"documents"}) - own - {"texts", "groups", "name"}
    keys, wrong = {}, []
    for k in sorted(own | other):
        v, d = given[k], params[k].default
        if v is d or (isinstance(d, (bool, int, str, tuple)) and type(v) is type(d) and v == d):
            continue
        if k in own:
            keys[k] = v
        else:
            wrong.append(k)
    if wrong:
        raise TypeError(f"read_files: {', '.join(map(repr, wrong))}: keyword(s) of "
                        f"{'label files' if spans else 'span files (format=semeval2020_si, ...)'}; those of "
                        f"{'span' if spans else 'label'} files: {', '.join(sorted(own))}")
    return keys


def _reader(format, id_column, label_column):
    """How ``read_files`` reads a label file: by its ending (``format``
    None), or with the format's delimiter and columns whatever the ending;
    ``id_column``/``label_column`` override the columns."""
    from .data.readers.labels import FORMATS, read_labels, read_table

    if format is None:
        def read(path, group=None):
            return read_labels(path, id_column=id_column or "item_id", label_column=label_column or "label",
                               group_column=group)
    else:
        fmt = FORMATS[format]

        def read(path, group=None):
            return read_table(path, delimiter=fmt["delimiter"], id_column=id_column or fmt["id_column"],
                              label_column=label_column or fmt["label_column"], group_column=group)
    return read


def _read_with_scores(gold, predictions, scores, *, name, format, id_column, label_column, group_column,
                      score_format, score_threshold, probability_tolerance, normalize_probabilities, keys):
    """``read_files`` with score files: one config block of absolute paths,
    read by ``dataset.load_dataset`` as the workflow reads it."""
    from .data.dataset import load_dataset

    raw: dict[str, Any] = {"gold": str(Path(gold).resolve()), "predictions": [str(Path(f).resolve()) for f in predictions],
                           "scores": [str(Path(f).resolve()) for f in scores]}
    if format is not None:
        raw["format"] = format
    for k, v in (("id_column", id_column), ("label_column", label_column), ("group_column", group_column),
                 ("score_threshold", score_threshold), ("probability_tolerance", probability_tolerance)):
        if v is not None:
            raw[k] = v
    if normalize_probabilities:
        raw["normalize_probabilities"] = True
    if score_format is not None:
        raw["score_format"] = dict(score_format)
    labels = keys.pop("labels", None)
    if labels is None:  # the gold's labels, sorted as dataset() sorts them (read as the config will read it)
        gold_t = _reader(format, id_column, label_column)(gold)
        if gold_t.unreadable:
            raise DataError(list(gold_t.problems), f"dataset {name!r} (gold {gold})")
        labels = gold_classes(gold_t.labels, keys.get("normalize_labels") or (), str(gold), name)
    raw["labels"] = [str(x) for x in labels]
    if keys.get("weights") is not None:
        keys["weights"] = _weights(keys["weights"])
    for k, v in keys.items():
        if v is not None:
            raw[k] = list(v) if isinstance(v, tuple) else v
    if raw.get("metrics") is not None:
        raw["metrics"] = _given_metrics(raw["metrics"], len(raw["labels"]))
    _as_patterns(raw)
    spec = DatasetSpec.from_config(name, raw, random_seed=int(keys.get("random_seed", RANDOM_SEED)))
    return _read_said(spec, load_dataset(spec, "/", advice="library")), spec


def _as_patterns(raw: dict) -> None:
    """The system names of ``baseline_systems`` and ``real_systems`` as the
    config's patterns of file names (``*``, ``?`` and ``[`` escaped), in
    place: ``read_files`` with scores or spans reads a config block."""
    import glob as _glob

    for key in ("baseline_systems", "real_systems"):
        if raw.get(key):
            raw[key] = [_glob.escape(str(x)) for x in raw[key]]


def _read_said(spec: DatasetSpec, ds: Dataset) -> Dataset:
    """A dataset ``read_files`` read through a config block: each system
    named like a baseline that nothing declared is said now, as
    ``_say_systems`` says it."""
    for w in _said_when_read(ds):
        warnings.warn(f"dataset {spec.name!r}: {w}", stacklevel=_outside())
    return ds


def _options(fn, given: Mapping[str, Any], settings_obj) -> dict:
    """The options of a one-call function (``evaluate``, ``compare``, ...):
    the fields of ``settings_obj`` (an ``experiments.Settings``, e.g. from
    ``settings(...)``) that differ from their defaults, then the dataset
    keywords and settings among ``given`` (the call's arguments) that differ
    from the signature's defaults or that the caller gave (``_GIVEN``), so an
    explicit keyword overrides ``settings``, even at its default."""
    import inspect
    from dataclasses import fields

    from .settings import Settings

    params = inspect.signature(fn).parameters
    out: dict[str, Any] = {}
    if settings_obj is not None:
        if not isinstance(settings_obj, Settings):
            raise TypeError(f"settings= takes the experiment settings (metaeval.api.settings(...)), got "
                            f"{type(settings_obj).__name__}")
        out.update({f.name: getattr(settings_obj, f.name) for f in fields(settings_obj)
                    if getattr(settings_obj, f.name) != f.default})
    explicit = _GIVEN.get()
    for k in params:
        if k not in _DATA_KEYS and k not in _SETTING_KEYS:
            continue
        v, d = given[k], params[k].default
        same = v is d or (not isinstance(v, np.ndarray) and isinstance(d, (bool, int, float, str, tuple))
                          and type(v) is type(d) and v == d)
        if not same or (k in explicit and k in _SETTING_KEYS and settings_obj is not None):
            out[k] = list(v) if isinstance(v, tuple) and k in _SETTING_KEYS else v
    return out


def _setting_keys() -> frozenset:
    from .settings import GROUP_OF

    return frozenset(GROUP_OF)


_SETTING_KEYS = _setting_keys()
# The dataset keywords the one-call functions take beside gold and predictions;
# the others (``f_avg_classes``, ``real_systems``, ``label_map``, ...) are
# given once to ``dataset``, ``span_dataset`` or ``read_files``.
_DATA_KEYS = frozenset({"labels", "ordinal", "groups", "texts", "metrics", "weights", "baselines"})


def _choose_metrics(spec: DatasetSpec, metrics) -> DatasetSpec:
    """``spec`` computing only ``metrics`` (ids or other names), which must
    be among the metrics it was read with (those were checked against the
    dataset when it was read; another one is refused with where to ask for
    it)."""
    from dataclasses import replace

    from .measures import labels as M

    wanted = [metrics] if isinstance(metrics, str) else list(metrics)
    ids = list(dict.fromkeys(M.canonical(str(m)) for m in wanted))
    have = spec.all_metrics
    missing = [m for m in ids if m not in have]
    if missing:
        raise TypeError(f"metrics {', '.join(map(repr, missing))}: not among the metrics this dataset was read with "
                        f"({', '.join(have)}); give metrics=[...] to read_files(), dataset() or span_dataset() to "
                        "compute them")
    span_ids = set(spec.span_metrics)
    return replace(spec, metrics=tuple(m for m in ids if m in spec.metrics),
                   item_metrics=tuple(m for m in ids if m in spec.item_metrics),
                   score_metrics=tuple(m for m in ids if m in spec.score_metrics),
                   span_metrics=tuple(m for m in ids if m in span_ids))


def _prepare(gold, predictions, kwargs, include_all_baselines: bool = False, all_baselines: bool = False):
    """The dataset and settings of a call: ``all_baselines``: generate every
    baseline of the task unless ``baselines`` says otherwise (as the
    config's default does)."""
    if isinstance(gold, Dataset):
        raise TypeError("gold is a Dataset alone: pass the (dataset, spec) pair that read_files(), dataset() or "
                        "span_dataset() return, as it is")
    if isinstance(gold, tuple) and len(gold) == 2 and isinstance(gold[0], Dataset):  # read already
        if predictions is not None:
            raise TypeError("a dataset read already (dataset(), span_dataset(), read_files()) takes no predictions")
        (ds, spec), opts = gold, dict(kwargs)
        data = {}
        data_given, opts = _split(opts)
        if data_given.get("metrics") is not None:  # a choice among the metrics the dataset was read with
            spec = _choose_metrics(spec, data_given.pop("metrics"))
        given = sorted(k for k, v in data_given.items() if v is not None and v is not False)
        if given:  # (the dataset's keys were decided when it was read)
            raise TypeError(f"{', '.join(map(repr, given))}: keywords of the dataset, which was read already: give "
                            f"them to read_files(), dataset() or span_dataset()")
    else:
        data, opts = _split(kwargs)
        spans = "texts" in data
        if spans and ("groups" in data or "ordinal" in data):
            raise TypeError("groups and ordinal are not keywords of span tasks (their unit is the document)")
        if not all_baselines:  # (evaluate and compare score the systems given, and the baselines asked for)
            data.setdefault("baselines", ())
        ds, spec = (span_dataset if spans else dataset)(gold, predictions, **data)
    if spec.span_task:  # span metrics are sums over documents: whole documents are resampled
        if opts.get("resample_unit", "group") != "group":
            raise ValueError("resample_unit: a span dataset is resampled by document ('group')")
        opts["resample_unit"], opts["stratified"] = "group", False
    from .measures.scores.registry import SCORE_REGISTRY

    within = [m for m in spec.score_metrics if SCORE_REGISTRY[m].kind == "groups"]
    if within:  # rankings within groups: whole groups are resampled, as the config must ask for
        if opts.get("resample_unit", "group") != "group":
            raise ValueError(f"resample_unit: {within} rank the items within each group, so a resample draws whole "
                             f"groups ('group')")
        opts["resample_unit"] = "group"
    if include_all_baselines and "include_baselines" not in opts:  # score every system given or generated
        opts["include_baselines"] = [s for s, k in zip(ds.systems, ds.kinds) if k not in RANKED_KINDS]
    st = settings(**opts)  # (the groups are the dataset's: a setting says whether resamples take them whole)
    from .methods.experiments import few_groups_note

    note = few_groups_note(spec, st, ds)
    if note:  # as the workflow says it (its console and tables)
        warnings.warn(note, stacklevel=_outside())
    said = _said_when_read(ds)  # (systems named like baselines: said by the reader)
    for w in ds.info.get("warnings", []):  # what the workflow's ingestion says: identical or perfect systems
        if w not in said:
            warnings.warn(f"dataset {spec.name!r}: {w}", stacklevel=_outside())
    return ds, spec, st


def _few_systems_warning(ds: Dataset, st) -> None:
    """The workflow meta-evaluates a dataset only when it ranks
    ``min_systems`` systems or more; the API does, and says so."""
    from .methods.scorer import select_systems

    n = len(select_systems(ds, st.include_baselines))
    if 2 <= n < st.min_systems:
        warnings.warn(f"{n} ranked systems (baselines included), fewer than min_systems = {st.min_systems}: the "
                      f"workflow does not meta-evaluate such a dataset; the criteria compare rankings of so few "
                      f"systems that the answer is tentative (settings=metaeval.api.settings(min_systems={n}) silences "
                      f"this)", stacklevel=_outside())


@_door
def evaluate(gold, predictions=None, *, labels: Sequence | None = None, ordinal: bool = False,
             groups=None, texts=None, metrics: Sequence[str] | None = None, weights: Mapping | None = None,
             baselines: Sequence[str] | None = None, include_baselines: Sequence[str] | None = None,
             intervals: bool = True, confidence: float = default_of("confidence"),
             bootstrap_replicates: int = default_of("bootstrap_replicates"),
             bootstrap_seed: int = default_of("bootstrap_seed"),
             interval_method: str = default_of("interval_method"), resample_unit: str | None = None,
             n_jobs: int | None = None, settings=None) -> pd.DataFrame:
    """Every metric of every system, with bootstrap intervals.

    Parameters
    ----------
    gold, predictions
        The data read once (what ``dataset``, ``span_dataset`` or
        ``read_files`` return, with no ``predictions``), or the gold labels
        and every system's predictions, passed to ``dataset`` (to
        ``span_dataset`` with ``texts``).
    labels, ordinal, groups, texts, metrics, weights, baselines
        The dataset keywords most calls need (as ``dataset``: the classes
        in order, ordered or not, a group per item, the documents' texts of
        a span task, the metric ids, class weights, the baselines to
        generate).  The others (``f_avg_classes``, ``real_systems``,
        ``label_map``, ...) are given once to ``dataset``; with data read
        already, ``metrics`` chooses among the metrics it was read with.
    include_baselines : sequence of str, optional
        The baselines ranked with the real systems; None: every baseline
        the data holds for ``evaluate`` and ``compare``, the workflow's
        (majority and random) for the others.
    intervals : bool
        Add ``<metric>_low`` and ``<metric>_high`` beside each metric: the
        ``confidence`` interval of ``bootstrap_replicates`` resamples of
        the units, ``interval_method`` ``percentile`` or ``bca``, seeded by
        ``bootstrap_seed``.
    confidence, bootstrap_replicates, bootstrap_seed, interval_method
        The intervals' settings (``config/README.md``).
    resample_unit : {None, "item", "group"}
        What the resamples draw; None: the workflow's default, items (the
        documents of a span task); ``"group"`` needs ``groups``.
    n_jobs : int, optional
        Threads of the engine's compiled passes (resamples, counts, rankings,
        Kendall's tau); None: the cores available to the process
        (``NUMBA_NUM_THREADS`` or ``OMP_NUM_THREADS`` when set).  Never a
        number changes with it.
    settings : experiments.Settings, optional
        Every other experiment setting (``metaeval.api.settings(n_splits=2000)``); a
        keyword above that the call gives overrides it, even at its
        default.  The defaults are the workflow's (``metaeval.settings``,
        ``config/README.md``).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``system``: its ``kind`` (``system`` or ``baseline``) and
        one column per metric (the workflow's ``scores.csv``), with the
        interval columns when asked (its ``intervals.csv``).

    Examples
    --------
    >>> gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    >>> systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
    ...            "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
    ...            "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20}
    >>> scores = evaluate(gold, systems, metrics=["accuracy", "kappa"], bootstrap_replicates=200)
    >>> scores[["accuracy", "accuracy_low", "accuracy_high", "kappa"]].round(3)
            accuracy  accuracy_low  accuracy_high  kappa
    system
    a          0.833         0.767          0.900  0.750
    b          0.667         0.575          0.734  0.429
    c          0.667         0.600          0.750  0.455
    """
    opts = _options(evaluate, locals(), settings)
    ds, spec, st = _prepare(gold, predictions, opts, include_all_baselines=True)
    from .methods.scorer import select_systems

    scores = score_dataset(ds, spec)
    ranked = [ds.systems[i] for i in select_systems(ds, st.include_baselines)]
    scores = scores[scores["system"].isin(ranked)].reset_index(drop=True)
    if not intervals:
        return scores.set_index("system")
    from .methods.bootstrap import run_bootstrap

    wide = _interval_columns(scores, run_bootstrap(ds, spec, st)["intervals"], list(spec.all_metrics))
    return wide


def _interval_columns(scores: pd.DataFrame, iv: pd.DataFrame, metric_ids) -> pd.DataFrame:
    low = iv.pivot(index="system", columns="metric", values="low")
    high = iv.pivot(index="system", columns="metric", values="high")
    out = scores.set_index("system")[["kind"]].copy()
    for m in metric_ids:
        out[m] = scores.set_index("system")[m]
        out[f"{m}_low"] = low[m].reindex(out.index)
        out[f"{m}_high"] = high[m].reindex(out.index)
    return out


@dataclass
class Comparison:
    """What ``compare`` returns: the workflow's ``significance.csv``
    (``pairs``), ``significance_best.csv`` (``best``) and
    ``discriminative_power.csv`` (``power``), and the test that made them.

    Examples
    --------
    >>> c = compare(["x", "y", "y", "x"] * 10, {"a": ["x", "y", "y", "x"] * 10, "b": ["x", "x", "y", "y"] * 10},
    ...             metrics=["accuracy"], tukey_trials=500)
    >>> c
    Comparison(tukey test, alpha 0.05: 1 pairs of systems x 1 metrics; .pairs, .best, .power)
    """

    pairs: pd.DataFrame
    best: pd.DataFrame
    power: pd.DataFrame
    test: str
    correction: str
    alpha: float

    def __repr__(self) -> str:
        n_metrics = self.pairs["metric"].nunique()
        per = len(self.pairs) // max(n_metrics, 1)
        return (f"Comparison({self.test} test, alpha {self.alpha:g}: {per} pairs of systems x {n_metrics} metrics; "
                f".pairs, .best, .power)")


def _comparison(res, st) -> Comparison:
    tests = res["tests"]
    return Comparison(res["significance"], res["best"], res["power"], tests.test, tests.correction, st.alpha)


@_door
def compare(gold, predictions=None, *, labels: Sequence | None = None, ordinal: bool = False,
            groups=None, texts=None, metrics: Sequence[str] | None = None, weights: Mapping | None = None,
            baselines: Sequence[str] | None = None, include_baselines: Sequence[str] | None = None,
            significance_test: str = default_of("significance_test"), alpha: float = default_of("alpha"),
            tukey_trials: int = default_of("tukey_trials"), tukey_seed: int = default_of("tukey_seed"),
            significance_correction: str = default_of("significance_correction"),
            bootstrap_replicates: int = default_of("bootstrap_replicates"), resample_unit: str | None = None,
            n_jobs: int | None = None, settings=None) -> Comparison:
    """Every pair of systems on every metric.

    The test is ``significance_test``: ``tukey`` (default; the randomised
    Tukey HSD of ``tukey_trials`` trials, family-wise over all pairs of a
    metric; null hypothesis: the systems' outputs are exchangeable item by
    item) or ``bootstrap`` (the paired bootstrap test, adjusted by
    ``significance_correction``: ``holm``, ``bh`` or ``none``), at
    ``alpha``.  The systems ranked are every system given and the
    generated baselines named by ``include_baselines`` (default: all the
    ``baselines`` asked for).

    Parameters
    ----------
    gold, predictions
        The data read once (what ``dataset``, ``span_dataset`` or
        ``read_files`` return, with no ``predictions``), or the gold labels
        and every system's predictions, passed to ``dataset`` (to
        ``span_dataset`` with ``texts``).
    labels, ordinal, groups, texts, metrics, weights, baselines
        The dataset keywords most calls need (as ``dataset``: the classes
        in order, ordered or not, a group per item, the documents' texts of
        a span task, the metric ids, class weights, the baselines to
        generate).  The others (``f_avg_classes``, ``real_systems``,
        ``label_map``, ...) are given once to ``dataset``; with data read
        already, ``metrics`` chooses among the metrics it was read with.
    include_baselines : sequence of str, optional
        The baselines ranked with the real systems; None: every baseline
        the data holds for ``evaluate`` and ``compare``, the workflow's
        (majority and random) for the others.
    significance_test, alpha, tukey_trials, tukey_seed, significance_correction, bootstrap_replicates
        The test (above) and its settings (``config/README.md``).
    resample_unit : {None, "item", "group"}
        What the permutations and resamples draw; None: the workflow's
        default, items (the documents of a span task); ``"group"`` needs
        ``groups``.
    n_jobs : int, optional
        Threads of the engine's compiled passes (resamples, counts, rankings,
        Kendall's tau); None: the cores available to the process
        (``NUMBA_NUM_THREADS`` or ``OMP_NUM_THREADS`` when set).  Never a
        number changes with it.
    settings : experiments.Settings, optional
        Every other experiment setting (``metaeval.api.settings(n_splits=2000)``); a
        keyword above that the call gives overrides it, even at its
        default.

    Returns
    -------
    Comparison
        ``pairs`` (metric, system_a, system_b, difference, p-values),
        ``best`` (per metric, the best system and those that cannot be told
        from it) and ``power`` (per metric, the share of pairs told apart).

    Examples
    --------
    >>> gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    >>> systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
    ...            "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
    ...            "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20}
    >>> c = compare(gold, systems, metrics=["accuracy", "macro_f1"], tukey_trials=1000)
    >>> c.pairs[["metric", "system_a", "system_b", "difference", "p_value"]].round(3)
         metric system_a system_b  difference  p_value
    0  accuracy        a        b       0.167    0.040
    1  accuracy        a        c       0.167    0.040
    2  accuracy        b        c       0.000    1.000
    3  macro_f1        a        b       0.333    0.000
    4  macro_f1        a        c       0.100    0.379
    5  macro_f1        b        c      -0.233    0.005
    >>> c.best[["metric", "best", "indistinguishable_from_best"]]
         metric best indistinguishable_from_best
    0  accuracy    a
    1  macro_f1    a                           c
    """
    from .methods.significance import run_significance

    opts = _options(compare, locals(), settings)
    ds, spec, st = _prepare(gold, predictions, opts, include_all_baselines=True)
    from .methods.scorer import select_systems

    if len(select_systems(ds, st.include_baselines)) < 2:
        raise ValueError("compare needs at least two systems (or a system and a baseline: baselines=[...])")
    return _comparison(run_significance(ds, spec, st), st)


@lru_cache(maxsize=8)
def _shape_properties(k: int, ordinal: bool, weights, f_avg, unrelated, positive, sizes, metrics) -> pd.DataFrame:
    """``properties.csv`` of one dataset shape at the config's default
    domain (``properties.dataset_settings``; cached per shape)."""
    from types import SimpleNamespace

    from .measures.properties import check_all, dataset_settings
    from .settings import PropertySettings

    params = {"weights": None if weights is None else np.asarray(weights), "f_avg_classes": f_avg,
              "unrelated": unrelated, "positive": positive}
    shape = SimpleNamespace(k=k, ordinal=ordinal, metric_params=lambda: params)
    return check_all(dataset_settings(shape, sizes, PropertySettings.from_config({})), list(metrics))


def _properties_of(ds, spec, properties):
    """The dataset's own properties table: given, computed (True) or none (False)."""
    if properties is False or spec.k < 2:
        return None
    if properties is not True:
        return properties
    p = spec.metric_params()
    w = p.get("weights")
    return _shape_properties(spec.k, bool(spec.ordinal), None if w is None else tuple(map(float, w)),
                             None if not p.get("f_avg_classes") else tuple(p["f_avg_classes"]), p.get("unrelated"),
                             p.get("positive"),
                             tuple(int(x) for x in np.bincount(ds.gold, minlength=ds.k)), tuple(spec.metrics))


def _with_verdict_keys(spec, official_metric, official_source, paper_choices, requirements, priorities=()):
    """The spec with the verdict's dataset keys, checked as the config's
    (``priorities`` named as the keyword: ``priorities=``)."""
    from dataclasses import replace

    from .data.config import _verdict_keys

    raw = {"official_metric": official_metric if not official_source else
           {"metric": official_metric, "source": official_source},
           "paper_choices": list(paper_choices), "requirements": list(requirements)}
    raw = {k: v for k, v in raw.items() if v}
    if "official_metric" in raw and raw["official_metric"] is None:
        del raw["official_metric"]
    keys = _verdict_keys(spec.name, raw, spec.all_metrics, bool(spec.ordinal),
                         spec.metric_params() if spec.k >= 2 else {}, spec.span_task, spec.labels)
    keys.pop("test_set", None)
    from .data.config import ConfigError, check_priorities

    try:
        keys["priorities"] = check_priorities(priorities or None, "priorities")
    except ConfigError as e:
        raise ValueError(str(e)) from None
    return replace(spec, **keys)


@_door
def recommend(gold, predictions=None, *, labels: Sequence | None = None, ordinal: bool = False,
              groups=None, texts=None, metrics: Sequence[str] | None = None, weights: Mapping | None = None,
              baselines: Sequence[str] | None = None, include_baselines: Sequence[str] | None = None,
              properties: pd.DataFrame | bool = True, requirements: Sequence[str] = (),
              priorities: Sequence[str] = (),
              official_metric: str | None = None, official_source: str = "",
              paper_choices: Sequence[Mapping] = (),
              n_splits: int = default_of("n_splits"),
              criteria: Sequence[str] = default_of("criteria"), verdict_alpha: float = default_of("verdict_alpha"),
              verdict_scope: str = default_of("verdict_scope"),
              criteria_replicates: int = default_of("criteria_replicates"),
              criteria_seed: int = default_of("criteria_seed"), resample_unit: str | None = None,
              n_jobs: int | None = None, settings=None):
    """Which metric to report on this data (``metaeval.verdict.recommendation``).

    Every evidence criterion (rank stability, class discrimination for
    ordered classes, discriminative power, robustness to label noise and,
    for imbalanced data, to class priors) on the real systems, resampled
    two ways: the items only (*these systems*) and the items and the
    systems together (*new systems*); per criterion the Model Confidence
    Set of the metrics, Bonferroni over the criteria; the answer is the
    metrics kept on every criterion (``verdict_scope`` chooses which scope
    heads it, ``verdict_alpha`` the level).  Gameable metrics (a degenerate
    system significantly better than the median real system) are not
    candidates.  The ranked baselines (``include_baselines``, default
    ``majority`` and ``random``) are a stated variant, never the headline.

    Parameters
    ----------
    gold, predictions
        The data read once (what ``dataset``, ``span_dataset`` or
        ``read_files`` return, with no ``predictions``), or the gold labels
        and every system's predictions, passed to ``dataset`` (to
        ``span_dataset`` with ``texts``).
    labels, ordinal, groups, texts, metrics, weights, baselines
        The dataset keywords most calls need (as ``dataset``: the classes
        in order, ordered or not, a group per item, the documents' texts of
        a span task, the metric ids, class weights, the baselines to
        generate).  The others (``f_avg_classes``, ``real_systems``,
        ``label_map``, ...) are given once to ``dataset``; with data read
        already, ``metrics`` chooses among the metrics it was read with.
    include_baselines : sequence of str, optional
        The baselines ranked with the real systems; None: every baseline
        the data holds for ``evaluate`` and ``compare``, the workflow's
        (majority and random) for the others.
    properties : DataFrame or bool
        The formal properties on this dataset's shape (``properties.csv``
        of the workflow's dataset); True: checked here (about 2 s, once per
        shape and process); False: none (no requirements can be declared).
    requirements : sequence of str
        Formal properties the answer must hold (``properties.PROPERTIES``;
        ``uniform_class_change``: invariance to class priors).  Those not
        declared are shown, and decide nothing.
    priorities : sequence of str
        The evidence criteria in the order that matters for this task
        (``"stability"``, ``"discrimination"``, ``"power"``, ``"noise"``,
        ``"priors"``).  When no metric is kept on every criterion, the
        answer is the sequential intersection of their sets in this order,
        a criterion skipped when its set would leave nothing
        (``metaeval.verdict.tradeoff``); without them, the metrics kept on the most
        criteria, with the trade-off said.
    official_metric, official_source : str
        The task's own metric and where it comes from: the answer says
        where it stands.
    paper_choices : sequence of mapping
        ``{"metrics": [...], "source": "..."}``: metrics a paper chose on
        the same data.

    n_splits : int
        The random half-splits of the stability criterion's point estimate
        (its interval comes from the criteria's resamples).
    criteria, verdict_alpha, verdict_scope, criteria_replicates, criteria_seed
        The verdict's settings: the evidence criteria, the family's level,
        the scope that heads the answer, the resamples and their seed.
    resample_unit : {None, "item", "group"}
        What the resamples draw; None: the workflow's default, items (the
        documents of a span task); ``"group"`` needs ``groups``.
    n_jobs : int, optional
        Threads of the engine's compiled passes (resamples, counts, rankings,
        Kendall's tau); None: the cores available to the process
        (``NUMBA_NUM_THREADS`` or ``OMP_NUM_THREADS`` when set).  Never a
        number changes with it.
    settings : experiments.Settings, optional
        Every other experiment setting (``metaeval.api.settings(min_systems=3)``); a
        keyword above that the call gives overrides it, even at its
        default.  The defaults are the workflow's (``metaeval.settings``,
        ``config/README.md``).
    Returns
    -------
    metaeval.verdict.recommendation.Recommendation
        ``.selected`` (the answer), ``.sets`` (per scope the per-criterion
        sets), ``recommend.answer_sentence(rec)``,
        ``recommend.criteria_table(rec)``, ``recommend.recommendation_long(rec)``.

    Examples
    --------
    >>> gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    >>> systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
    ...            "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
    ...            "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20}
    >>> rec = recommend(gold, systems, properties=False, n_splits=100, criteria_replicates=20,
    ...                 official_metric="accuracy")
    >>> from metaeval.verdict.sentences import answer_sentence
    >>> answer_sentence(rec)
    'The evidence does not separate the 9 candidates: every one is kept on every criterion (report any; the table lists them). The official Acc is kept too. For new systems: not judged (ill-defined: too few distinct systems drawn). Tentative: 3 real systems.'

    Three systems cannot tell nine metrics apart: the honest answer is that
    the data do not choose.
    """
    from .methods.gameability import dataset_gameability
    from .verdict.recommendation import recommend_dataset

    opts = _options(recommend, locals(), settings)
    ds, spec, st = _prepare(gold, predictions, opts, all_baselines=True)
    spec = _with_verdict_keys(spec, official_metric, official_source, paper_choices, requirements, priorities)
    _few_systems_warning(ds, st)
    return recommend_dataset(ds, spec, st, properties=_properties_of(ds, spec, properties),
                             gameability=dataset_gameability(ds, spec, unit=st.resample_unit,
                                                             replicates=st.bootstrap_replicates,
                                                             seed=st.bootstrap_seed, alpha=st.verdict_alpha))


@dataclass
class SizeDesign:
    """What ``size_design`` returns: the workflow's ``design.csv``
    (``design``), ``design_needed.csv`` (``needed``) and
    ``design_swaps.csv`` (``swaps``); ``summary`` is the table at the test
    set's own size (``tables/design.md``), ``sentence(metrics)`` the
    recommendation's sentence for those metrics.

    Examples
    --------
    >>> gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    >>> systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
    ...            "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
    ...            "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20}
    >>> size_design(gold, systems, metrics=["accuracy"], bootstrap_replicates=200,
    ...             settings=settings(design_draws=20))
    SizeDesign(120 items, 1 metrics, 17 sizes from 6 to 480; .design, .needed, .swaps, .summary, .sentence())
    """

    design: pd.DataFrame
    needed: pd.DataFrame
    swaps: pd.DataFrame

    @property
    def summary(self) -> pd.DataFrame:
        from .present.tables import design_summary

        return design_summary(self.design, self.needed)

    def sentence(self, metrics, where: str = "design.csv") -> str | None:
        """The recommendation's sentence on the test-set size of
        ``metrics`` (metric ids), or None; ``where`` names the full table."""
        from .methods.design import design_note

        return design_note(self.design, self.needed, [metrics] if isinstance(metrics, str) else list(metrics), where)

    def __repr__(self) -> str:
        full = self.design[self.design["fraction"] == 1.0]
        sizes = sorted(set(self.design["size"]))
        return (f"SizeDesign({int(full['size'].iloc[0]):,} {full['unit'].iloc[0]}, {self.design['metric'].nunique()} "
                f"metrics, {len(sizes)} sizes from {sizes[0]:,} to {sizes[-1]:,}; .design, .needed, .swaps, .summary, "
                f".sentence())")


@_door
def size_design(gold, predictions=None, *, labels: Sequence | None = None, ordinal: bool = False,
                groups=None, texts=None, metrics: Sequence[str] | None = None, weights: Mapping | None = None,
                baselines: Sequence[str] | None = None, include_baselines: Sequence[str] | None = None,
                design_power: float = default_of("design_power"),
                design_differences: Sequence[float] = default_of("design_differences"),
                alpha: float = default_of("alpha"), bootstrap_replicates: int = default_of("bootstrap_replicates"),
                bootstrap_seed: int = default_of("bootstrap_seed"), resample_unit: str | None = None,
                n_jobs: int | None = None, settings=None) -> SizeDesign:
    """How large a test set must be: every metric's minimum detectable
    difference against the test-set size, the size needed for given
    differences, and swap rates on disjoint subsets (``metaeval.methods.design``).

    The variance of each pair of systems' difference comes from
    ``bootstrap_replicates`` resamples of the units (whole groups with
    ``groups``), scaled by 1/n to every size; the test is a two-sided
    z-test at ``alpha`` with power ``design_power`` (null hypothesis of
    each test: the two systems score alike in expectation).  The systems
    are the workflow's ranked ones (every system given, and the majority
    and random baselines unless ``include_baselines`` says otherwise), so
    the tables equal the workflow's ``design*.csv`` for the same data and
    settings (tested).

    Parameters
    ----------
    gold, predictions
        The data read once (what ``dataset``, ``span_dataset`` or
        ``read_files`` return, with no ``predictions``), or the gold labels
        and every system's predictions, passed to ``dataset`` (to
        ``span_dataset`` with ``texts``).
    labels, ordinal, groups, texts, metrics, weights, baselines
        The dataset keywords most calls need (as ``dataset``: the classes
        in order, ordered or not, a group per item, the documents' texts of
        a span task, the metric ids, class weights, the baselines to
        generate).  The others (``f_avg_classes``, ``real_systems``,
        ``label_map``, ...) are given once to ``dataset``; with data read
        already, ``metrics`` chooses among the metrics it was read with.
    include_baselines : sequence of str, optional
        The baselines ranked with the real systems; None: every baseline
        the data holds for ``evaluate`` and ``compare``, the workflow's
        (majority and random) for the others.
    design_power, design_differences, alpha
        The power and level of the test a size is designed for, and the
        differences to size a test set for; the other ``design_*`` keys
        (``design_min_fraction``, ``design_points``, ``design_draws``, ...)
        through ``settings``.
    bootstrap_replicates, bootstrap_seed
        The resamples the variances come from, and their seed.
    resample_unit : {None, "item", "group"}
        What the resamples draw; None: the workflow's default, items (the
        documents of a span task); ``"group"`` needs ``groups``.
    n_jobs : int, optional
        Threads of the engine's compiled passes (resamples, counts, rankings,
        Kendall's tau); None: the cores available to the process
        (``NUMBA_NUM_THREADS`` or ``OMP_NUM_THREADS`` when set).  Never a
        number changes with it.
    settings : experiments.Settings, optional
        Every other experiment setting (``metaeval.api.settings(n_splits=2000)``); a
        keyword above that the call gives overrides it, even at its
        default.  The defaults are the workflow's (``metaeval.settings``,
        ``config/README.md``).

    Returns
    -------
    SizeDesign
        ``.design`` (per metric and size: ``min_detectable_difference``
        with ``mdd_low``/``mdd_high``, ``within_range``, the predicted and
        measured power, the measured and fitted swap rates), ``.needed``
        (units per difference), ``.swaps`` (per bin of the difference),
        ``.summary`` (at the test set's size), ``.sentence(metrics)``.

    References
    ----------
    Voorhees & Buckley (2002), "The effect of topic set size on retrieval
    experiment error", SIGIR.  Sakai (2016), "Topic set size design",
    Information Retrieval Journal 19.

    Examples
    --------
    >>> gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    >>> systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
    ...            "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
    ...            "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20}
    >>> d = size_design(gold, systems, metrics=["accuracy", "macro_f1"], bootstrap_replicates=300,
    ...                 settings=settings(design_draws=20))
    >>> d.summary[["metric", "MDD with 120 items", "items to detect 0.05"]]
         metric    MDD with 120 items items to detect 0.05
    0  macro-F1  0.129 [0.116, 0.141]       804 [649, 950]
    1       Acc  0.174 [0.160, 0.181]  1,448 [1,227, 1,577]
    >>> print(d.sentence("macro_f1"))  # doctest: +NORMALIZE_WHITESPACE
    Test-set size: with 120 items, macro-F1 separates systems that differ by 0.13 with power 0.8; to separate 0.05
    about 800 items are needed (a two-sided z-test at the experiments' alpha; design.csv).
    """
    from .methods.design import dataset_design
    from .methods.bootstrap import run_bootstrap

    opts = _options(size_design, locals(), settings)
    ds, spec, st = _prepare(gold, predictions, opts, all_baselines=True)
    boot = run_bootstrap(ds, spec, st)
    return SizeDesign(*dataset_design(ds, spec, st, boot["value"], boot["boot"]))


@dataclass
class MetaEvaluation:
    """Every experiment of one dataset, as the workflow's tables.

    ``tables`` maps the workflow's file names (``scores.csv``,
    ``intervals.csv``, ``similarity.csv``, ...) to DataFrames; ``rec`` is
    the recommendation.  ``write(folder)`` writes the CSV files and
    ``recommendation.json``/``.md`` as the workflow writes them.

    Examples
    --------
    >>> r = MetaEvaluation("toy", {"scores.csv": pd.DataFrame({"system": ["a"], "accuracy": [0.9]})}, None, None, None)
    >>> r["scores"]
      system  accuracy
    0      a       0.9
    >>> r.keys()
    ['scores']
    >>> r["score"]
    Traceback (most recent call last):
    KeyError: "no table 'score' (did you mean 'scores'?); the tables: scores"
    """

    name: str
    tables: dict[str, pd.DataFrame]
    rec: Any
    settings: Any
    spec: Any
    notes: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, key: str) -> pd.DataFrame:
        name = key if key.endswith(".csv") else f"{key}.csv"
        if name not in self.tables:
            from .measures.labels import closest

            raise KeyError(f"no table {key!r}{closest([key], self.keys())}; the tables: {', '.join(self.keys())}")
        return self.tables[name]

    def keys(self) -> list[str]:
        """The tables' names (``result[name]``): the workflow's file names
        without ``.csv``."""
        return [k.removesuffix(".csv") for k in self.tables]

    @property
    def recommendation(self) -> str:
        """The answer, as its first sentences, the metrics named as the
        workflow's pages and the command line name them (``Rᴹ``, ``κ``)."""
        from .present.notation import plain_markdown
        from .verdict.sentences import answer_sentence

        return plain_markdown(answer_sentence(self.rec))

    def __repr__(self) -> str:
        return f"MetaEvaluation({self.name!r}: {', '.join(self.tables)}; {self.recommendation})"

    def write(self, folder, figures: bool = True) -> list[Path]:
        """Write every table as the workflow's file of that name (CSV),
        ``recommendation.json`` and ``recommendation.md``, and (``figures``)
        the recommendation's figure, ``figures/recommendation.png`` and
        ``.pdf``; returns the paths written."""
        from .data.files import cannot_write_in, write_csv, write_text
        from .verdict.page import recommendation_json, recommendation_markdown

        folder = Path(folder)
        bad = cannot_write_in(folder, *([folder / "figures"] if figures else []))
        if bad:  # said before any file is written: none is, rather than some
            raise PermissionError(f"MetaEvaluation.write: no file can be written in {', '.join(map(str, bad))}; "
                                  f"nothing was written")
        folder.mkdir(parents=True, exist_ok=True)
        out = []
        for fname, df in self.tables.items():
            write_csv(folder / fname, df)
            out.append(folder / fname)
        out += [folder / "recommendation.json", folder / "recommendation.md"]
        write_text(out[-2], recommendation_json(self.rec, resample_note=self.notes.get("resample"),
                                                test_set_size=self.notes.get("test_set_size")))
        figure = None
        if figures:  # (matplotlib is imported only then)
            from .present.figure_files import save_figure
            from .verdict.page import recommendation_figure

            (folder / "figures").mkdir(exist_ok=True)
            paths = [folder / "figures" / "recommendation.png", folder / "figures" / "recommendation.pdf"]
            save_figure(recommendation_figure(self.rec, self.name), paths)
            out += paths
            figure = "figures/recommendation.png"
        from .present.notation import plain_markdown

        write_text(out[-1 if not figures else -3], plain_markdown(recommendation_markdown(
            self.rec, f"{self.name}: which metric to report", self.notes.get("context", ""), figure)))
        return out


@_door
def meta_evaluate(gold, predictions=None, *, labels: Sequence | None = None, ordinal: bool = False,
                  groups=None, texts=None, metrics: Sequence[str] | None = None, weights: Mapping | None = None,
                  baselines: Sequence[str] | None = None, include_baselines: Sequence[str] | None = None,
                  properties: pd.DataFrame | bool = True, requirements: Sequence[str] = (),
                  priorities: Sequence[str] = (),
                  official_metric: str | None = None, official_source: str = "",
                  paper_choices: Sequence[Mapping] = (),
                  n_splits: int = default_of("n_splits"), bootstrap_replicates: int = default_of("bootstrap_replicates"),
                  tukey_trials: int = default_of("tukey_trials"),
                  criteria: Sequence[str] = default_of("criteria"), verdict_alpha: float = default_of("verdict_alpha"),
                  verdict_scope: str = default_of("verdict_scope"),
                  criteria_replicates: int = default_of("criteria_replicates"),
                  criteria_seed: int = default_of("criteria_seed"), resample_unit: str | None = None,
                  n_jobs: int | None = None, settings=None) -> MetaEvaluation:
    """All of the workflow's experiments on one dataset: scores, intervals,
    ranking similarity, rank stability, class merging (three classes or
    more), significance and discriminative power, label noise and class
    priors, gameability, the Table-7 summary and the recommendation, in
    the workflow's order and with its draws.  Keywords as ``recommend``,
    and ``n_splits`` (rank stability's half-splits), ``bootstrap_replicates``
    (the intervals') and ``tukey_trials`` (the significance test's).

    Examples
    --------
    >>> gold = ["pos", "neg", "neg", "pos", "neu", "neg"] * 20
    >>> systems = {"a": ["pos", "neg", "neu", "pos", "neu", "neg"] * 20,
    ...            "b": ["pos", "pos", "neg", "pos", "neg", "neg"] * 20,
    ...            "c": ["neg", "neg", "neg", "pos", "neu", "pos"] * 20}
    >>> result = meta_evaluate(gold, systems, properties=False, n_splits=100, tukey_trials=500,
    ...                        bootstrap_replicates=200, criteria_replicates=20)
    >>> result["stability"][["metric", "mean_tau"]].head(3).round(3)
            metric  mean_tau
    0     accuracy     0.815
    1     macro_f1     0.922
    2  macro_f1_hm     0.970
    >>> result.recommendation
    'The evidence does not separate the 9 candidates: every one is kept on every criterion (report any; the table lists them). For new systems: not judged (ill-defined: too few distinct systems drawn). Tentative: 3 real systems.'
    >>> import tempfile
    >>> paths = result.write(tempfile.mkdtemp(), figures=False)  # the workflow's files
    """
    from .methods import experiments as E
    from .pipeline.sequence import meta_evaluation

    opts = _options(meta_evaluate, locals(), settings)
    ds, spec, st = _prepare(gold, predictions, opts, all_baselines=True)
    spec = _with_verdict_keys(spec, official_metric, official_source, paper_choices, requirements, priorities)
    _few_systems_warning(ds, st)
    n_ranked = len(E.select_systems(ds, st.include_baselines))
    if n_ranked < 2:
        raise ValueError(f"{n_ranked} ranked system(s): the experiments compare rankings of systems")
    tables, rec, notes = meta_evaluation(ds, spec, st, _properties_of(ds, spec, properties))
    return MetaEvaluation(spec.name, tables, rec, st, spec, notes)
