"""Dataset specifications: one block of config per dataset, checked up front.

The JSON schema (``workflow/schemas/config.schema.yaml``) checks the shape of the config;
``DatasetSpec.from_config`` checks what a schema cannot (labels referred to
by other keys exist, weights sum to 1, ...) and fills in defaults, so the
same checks run under Snakemake and in a notebook.
"""

from __future__ import annotations

import fnmatch
import glob
import numbers
import os
import re
import warnings
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..measures import labels as M
from ..settings import CRITERION_NAMES, SUPERSEDED_SETTINGS, ConfigError, MetricFault  # noqa: F401
from .readers.labels import FORMATS

__all__ = ["ConfigError", "DatasetSpec", "load_config", "dataset_specs", "resolve_data_dir",
           "BASELINE_KINDS", "SPAN_BASELINE_KINDS", "EXTRA_LABEL_POLICIES", "SPAN_FORMATS", "OFFSETS_PAST_END",
           "to_plain", "from_plain", "restricted", "unsafe_path_reason", "unknown_keys", "label_scalars",
           "BASELINE_WORDS", "name_words", "baseline_word", "declare_line"]

# generated baselines: of the classes (classification and TC), of the spans (span identification)
BASELINE_KINDS = ("majority", "all_class", "random")
SPAN_BASELINE_KINDS = ("no_spans", "whole_text", "every_token", "random_spans")
# span formats (metaeval.measures.spans): the format names the task, SI (unlabelled spans) or TC
SPAN_FORMATS = {"semeval2020_si": "si", "semeval2020_tc": "tc", "semeval2021_tsd": "si"}
# span formats whose texts are article<ID>.txt files (the 2021 format has them in its gold CSV)
ARTICLE_FORMATS = ("semeval2020_si", "semeval2020_tc")
# what to do with a span offset at or past the end of its text: the official scorers of both tasks
# count such characters as predicted (or gold) characters that no text has, i.e. wrong ones
OFFSETS_PAST_END = ("wrong", "refuse")
EXTRA_LABEL_POLICIES = ("map", "error", "drop_item")
WEIGHT_TOLERANCE = 1e-6

# the words of a file name that mark its system as a baseline (``baseline_word``), and the word after
# ``random`` that makes it a random forest, not a guess
BASELINE_WORDS = ("baseline", "baselines", "bsl", "random", "majority")
_NOT_A_GUESS_AFTER_RANDOM = ("forest", "forests")
# the words of a name: an acronym before a capitalised word (LSTMBaseline: LSTM), a capitalised or lower-case
# word, an acronym, a number, a run of other letters (not ASCII)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_A-Za-z]+")


def name_words(stem: str) -> list[str]:
    """The words of a system's name (a file name without extension): split
    on anything that is not a letter or a digit, between digits and letters,
    and at camelCase.

    >>> name_words("branchLSTM_RE2019baseline_devrun")
    ['branch', 'LSTM', 'RE', '2019', 'baseline', 'devrun']
    >>> name_words("Random_bsl__x"), name_words("LSTMBaseline"), name_words("baseline-ir")
    (['Random', 'bsl', 'x'], ['LSTM', 'Baseline'], ['baseline', 'ir'])
    """
    return _WORD.findall(stem)


def baseline_word(stem: str) -> str | None:
    """The word of a system's name (a file name without extension) that
    marks it as a baseline, or None: the rule of the readers, ``metaeval
    init`` and the workflow, which rank such a system apart (declared in
    ``baseline_systems``) or say that they rank it as a real system.

    A name is marked when one of its words (``name_words``) is, in any case,
    ``baseline``, ``baselines``, ``bsl``, ``random`` or ``majority``; but
    ``random`` followed by the word ``forest`` is a random forest, a trained
    model, not a guess, and a word that only contains a marking word
    (``randomforest``, ``baselined``) is not that word.

    The names of the shared data (``../shared/data``):

    >>> [baseline_word(s) for s in ("baseline", "baseline_rerun_msci598", "varshanth_baseline_quotes",
    ...                             "branchLSTM_RE2019baseline_devrun", "branchLSTM_baseline", "baseline-ir",
    ...                             "organizers_baseline")]
    ['baseline', 'baseline', 'baseline', 'baseline', 'baseline', 'baseline', 'baseline']
    >>> [baseline_word(s) for s in ("uw_jliu_random_forest", "jmrf_laser_randomforest", "RandomForest",
    ...                             "talos", "BUT-FIT_TOP-N_s_avg-logits", "chips_ahoy")]
    [None, None, None, None, None, None]

    Others: the word as the name spells it.

    >>> baseline_word("Random_bsl__x"), baseline_word("MajorityVote"), baseline_word("random_guess_2")
    ('Random', 'Majority', 'random')
    >>> baseline_word("my-Baselines"), baseline_word("randomized_trees"), baseline_word("random-forest-3")
    ('Baselines', None, None)
    """
    words = name_words(stem)
    for i, w in enumerate(words):
        low = w.lower()
        if low not in BASELINE_WORDS:
            continue
        if low == "random" and i + 1 < len(words) and words[i + 1].lower() in _NOT_A_GUESS_AFTER_RANDOM:
            continue
        return w
    return None


def declare_line(key: str, patterns) -> str:
    """The config line that declares ``patterns`` under ``key``
    (``baseline_systems`` or ``real_systems``), as YAML writes it; a file
    name is a pattern of itself once ``glob.escape`` has escaped its
    ``*``, ``?`` and ``[``.

    >>> declare_line("real_systems", ["baseline"])
    'real_systems: [baseline]'
    >>> declare_line("baseline_systems", ["baseline-*", glob.escape("run [2]"), "yes"])
    "baseline_systems: [baseline-*, 'run [[]2]', 'yes']"
    """
    import yaml

    text = yaml.safe_dump(list(patterns), default_flow_style=True, width=10 ** 6).strip()
    return f"{key}: {text}"


def unknown_keys(cfg: Mapping, schema: Mapping) -> list[str]:
    """Keys of ``cfg`` that ``schema`` (a JSON schema: ``properties``,
    ``additionalProperties``, ``$ref`` into ``$defs``) does not allow, each
    with its place and the closest known key: a typo reads
    ``datasets.mine.ordnial: unknown key (did you mean 'ordinal'?)``
    instead of a validation error that prints the whole schema.  A key that
    is known elsewhere says where it belongs:
    ``datasets.mine.resample_unit: unknown key here: it is a key of
    'experiments' (top level) or 'datasets.<name>.experiments'``."""
    import difflib

    defs = schema.get("$defs", {})

    def resolve(s):
        while isinstance(s, Mapping) and "$ref" in s:
            s = defs[s["$ref"].rsplit("/", 1)[-1]]
        return s

    # where every key of the schema may stand: {key: [place, ...]}
    places: dict[str, list[str]] = {}

    def collect(s, where: str, depth: int = 0) -> None:
        s = resolve(s)
        if not isinstance(s, Mapping) or depth > 4:
            return
        for k, sub in s.get("properties", {}).items():
            places.setdefault(k, []).append(where or "the top level")
            collect(sub, f"{where}.{k}" if where else k, depth + 1)
        extra = s.get("additionalProperties")
        if isinstance(extra, Mapping):
            collect(extra, f"{where}.<name>" if where else "<name>", depth + 1)

    collect(schema, "")
    out: list[str] = []

    def walk(value, s, where: str) -> None:
        s = resolve(s)
        if not isinstance(value, Mapping) or not isinstance(s, Mapping):
            return
        props = s.get("properties", {})
        extra = s.get("additionalProperties", True)
        for k, v in value.items():
            here = f"{where}.{k}" if where else str(k)
            if k in props:
                walk(v, props[k], here)
            elif k in SUPERSEDED_SETTINGS and here.split(".")[-2:-1] == ["experiments"]:
                out.append(f"{here}: no longer a setting: {SUPERSEDED_SETTINGS[k]}")
            elif extra is False:
                elsewhere = places.get(k)
                close = difflib.get_close_matches(str(k), list(props), n=1)
                if elsewhere:
                    out.append(f"{here}: unknown key here: it belongs under "
                               + " or ".join(repr(p) for p in elsewhere)
                               + (" (experiment settings go in the top-level 'experiments' block, or in a "
                                  "dataset's own 'experiments' block to override them for that dataset)"
                                  if any(p.endswith("experiments") for p in elsewhere) else ""))
                else:
                    out.append(f"{here}: unknown key" + (f" (did you mean {close[0]!r}?)" if close else
                                                         f"; known here: {', '.join(sorted(props))}"))
            elif isinstance(extra, Mapping):
                walk(v, extra, here)

    walk(cfg, schema, "")
    return out


# keys of a dataset block whose values (or keys) are class labels
_LABEL_LISTS = ("labels", "drop_gold_labels", "f_avg_classes")
_LABEL_MAPS = ("label_map", "extra_labels")


def label_scalars(cfg: Mapping) -> list[str]:
    """Make the labels of a (loaded, not yet validated) config strings, in
    place; return what cannot be made one.

    YAML reads unquoted ``0``, ``1.5`` as numbers and ``true``, ``false``,
    ``yes``, ``no``, ``on``, ``off`` as booleans.  A number's text is kept as
    a label (``labels: [0, 1]`` means the labels ``"0"`` and ``"1"``); a
    boolean's spelling is lost (``false`` or ``False`` or ``no``), so it is
    refused with the way out: quote it as the files spell it.  Applies to
    ``labels``, ``drop_gold_labels``, ``f_avg_classes``, ``unrelated_label``, ``positive_class``,
    the keys and values of ``label_map`` and ``extra_labels`` and the keys of
    every weight set."""
    problems: list[str] = []

    def fix(x, where: str):
        if isinstance(x, bool):
            problems.append(f"{where}: {x!r} was read by YAML as a boolean (unquoted true/false/yes/no/on/off are "
                            f"booleans in YAML), not as a label; quote it as the data files spell it, e.g. "
                            f"'{str(x).lower()}' or '{x}'")
            return x
        if isinstance(x, (int, float)):
            return str(x)
        return x

    for name, block in (cfg.get("datasets") or {}).items():
        if not isinstance(block, dict):
            continue
        where = f"datasets.{name}"
        for key in _LABEL_LISTS:
            if isinstance(block.get(key), list):
                block[key] = [fix(x, f"{where}.{key}") for x in block[key]]
        for key in ("unrelated_label", "positive_class"):
            if key in block:
                block[key] = fix(block[key], f"{where}.{key}")
        for key in _LABEL_MAPS:
            if isinstance(block.get(key), dict):
                block[key] = {fix(k, f"{where}.{key}"): fix(v, f"{where}.{key}.{k}") for k, v in block[key].items()}
        if isinstance(block.get("weights"), dict):
            for wname, wmap in block["weights"].items():
                if isinstance(wmap, dict):
                    block["weights"][wname] = {fix(k, f"{where}.weights.{wname}"): v for k, v in wmap.items()}
        if isinstance(block.get("display_names"), dict):
            block["display_names"] = {fix(k, f"{where}.display_names"): fix(v, f"{where}.display_names.{k}")
                                      for k, v in block["display_names"].items()}
    return problems


def duplicate_keys(path: str | Path) -> list[str]:
    """The keys a YAML file writes twice in one mapping, each with its place
    and both lines: YAML keeps the last block and drops the first in
    silence (a dataset written twice would lose its first settings), so a
    config with one is refused.  A file that is not YAML is left to the
    loader's own message.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as fh:
    ...     _ = fh.write("datasets:\\n  a: {gold: x}\\n  a: {gold: y}\\n")
    >>> duplicate_keys(fh.name)[0].endswith("datasets.a is written twice (lines 2 and 3): YAML would keep the "
    ...                                     "last and drop the first in silence; merge them or rename one")
    True
    >>> os.unlink(fh.name)
    """
    import yaml

    try:
        root = yaml.compose(Path(path).read_text(encoding="utf-8"), Loader=yaml_loader())
    except (yaml.YAMLError, OSError, UnicodeDecodeError):
        return []
    found: list[str] = []

    def walk(node, where: str) -> None:
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                name = str(key.value) if isinstance(key, yaml.ScalarNode) else None
                place = f"{where}.{name}" if where else str(name)
                if name is not None and name in first:
                    found.append(f"{path}:{key.start_mark.line + 1}: {place} is written twice (lines "
                                 f"{first[name]} and {key.start_mark.line + 1}): YAML would keep the last and "
                                 "drop the first in silence; merge them or rename one")
                elif name is not None:
                    first[name] = key.start_mark.line + 1
                walk(value, place)
        elif isinstance(node, yaml.SequenceNode):
            for i, value in enumerate(node.value):
                walk(value, f"{where}[{i}]")

    walk(root, "")
    return found


def load_config(path: str | Path, schema: str | Path | None = None) -> dict:
    """Read a YAML config; validate it against ``schema`` (by default the
    workflow's, ``metaeval.data.resources.config_schema()``) and fill in the
    schema's defaults."""

    path = Path(path)
    twice = duplicate_keys(path)
    if twice:
        raise ConfigError("\n  ".join(twice))
    with open(path, encoding="utf-8") as fh:
        cfg = yaml_load(fh) or {}
    bad = label_scalars(cfg)
    if bad:
        raise ConfigError(f"{path}: " + "\n  ".join(bad))
    if schema is None:
        from .resources import config_schema

        schema = config_schema()
    if schema is not None:
        with open(schema, encoding="utf-8") as fh:
            sch = yaml_load(fh)
        msgs = schema_errors(cfg, sch)
        if msgs:
            raise ConfigError(f"{path}: config does not match {schema}:\n  " + "\n  ".join(msgs))
        schema_defaults(cfg, sch)
    return cfg


def schema_errors(cfg: Mapping, schema: Mapping) -> list[str]:
    """Each place where ``cfg`` breaks the config schema, as ``path: what``
    (a list with an entry twice names the entry, as the library says it).

    >>> schema_errors({"labels": ["neg", "pos", "neg"]}, {"properties": {"labels": {"uniqueItems": True}}})
    ["labels: 'neg' listed more than once"]
    """
    import json

    import jsonschema

    out = []
    for e in sorted(jsonschema.Draft202012Validator(schema).iter_errors(cfg), key=lambda e: list(e.path)):
        where = "/".join(map(str, e.path)) or "<root>"
        if e.validator == "uniqueItems":  # (entries compared as JSON: a list entry may be unhashable)
            keys = [json.dumps(x, sort_keys=True, default=str) for x in e.instance]
            twice = [x for i, x in enumerate(e.instance) if keys.index(keys[i]) == i and keys.count(keys[i]) > 1]
            out.append(f"{where}: {', '.join(map(repr, twice))} listed more than once")
        elif e.validator in ("oneOf", "anyOf") and e.context:
            out.append(f"{where}: {_alternative_error(e)}")
        elif e.validator == "type" and e.schema.get("description"):  # what the key takes, not only its type
            out.append(f"{where}: {e.message} (expected {e.schema['description']})")
        else:
            out.append(f"{where}: {e.message}")
    return out


def _alternative_error(e) -> str:
    """What is wrong with a value that matches none of a key's forms
    (``oneOf``): the fault of the form of its own type (a mapping without
    its required key, not "is not valid under any of the given schemas"),
    and what the key takes (its description).

    >>> import jsonschema
    >>> sch = {"description": "an id, or {metric: <id>, source: <text>}", "oneOf": [{"type": "string"},
    ...        {"type": "object", "required": ["metric"]}]}
    >>> _alternative_error(next(jsonschema.Draft202012Validator(sch).iter_errors({"source": "x"})))
    "'metric' is a required property (expected an id, or {metric: <id>, source: <text>})"
    """
    from jsonschema.exceptions import best_match

    own = [c for c in e.context if not (c.validator == "type" and not c.relative_path)]  # forms of another type
    sub = best_match(own or e.context)
    what = e.schema.get("description")
    return sub.message + (f" (expected {what})" if what else "")


def yaml_loader():
    """PyYAML's safe loader with libyaml's parser where PyYAML has it (the
    same values as ``yaml.SafeLoader``, several times faster: a run reads
    the config and the schema at every start)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def yaml_load(text):
    """YAML text (or an open file) as Python values (``yaml.safe_load``'s,
    through ``yaml_loader``)."""
    import yaml

    return yaml.load(text, Loader=yaml_loader())


def schema_defaults(cfg: dict, schema: Mapping) -> dict:
    """Fill in ``cfg``, in place, the schema's defaults wherever a
    ``properties`` keyword validates it, at any depth (through ``$ref`` and
    ``additionalProperties``): what ``snakemake.utils.validate`` does with
    ``set_default=True`` (the jsonschema FAQ's validator), without reading
    the schema file again.  A config that breaks the schema raises
    ``jsonschema.ValidationError`` (``schema_errors`` words the faults
    first)."""
    from jsonschema import Draft202012Validator, validators

    properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, props, instance, sub):
        if isinstance(instance, dict):
            for key, subschema in props.items():
                if isinstance(subschema, Mapping) and "default" in subschema:
                    instance.setdefault(key, subschema["default"])
        yield from properties(validator, props, instance, sub)

    validators.extend(Draft202012Validator, {"properties": set_defaults})(schema).validate(cfg)
    return cfg


def dataset_kind(spec) -> str:
    """``spans`` for span identification, ``ordinal`` for ordered classes,
    ``nominal`` otherwise (technique classification too: its candidates are
    the metrics of its unordered classes; its span metrics have no value on
    label noise or priors).

    >>> from types import SimpleNamespace
    >>> dataset_kind(SimpleNamespace(span_task=None, ordinal=True))
    'ordinal'
    >>> dataset_kind(SimpleNamespace(span_task="tc", ordinal=False))
    'nominal'
    """
    if spec.span_task == "si":
        return "spans"
    return "ordinal" if spec.ordinal else "nominal"


def resolve_data_dir(data_dir: str | Path, base: str | Path | None = None) -> Path:
    """The data folder as an absolute path; a clear error when it is missing."""
    p = Path(data_dir)
    if not p.is_absolute():
        p = Path(base or os.getcwd()) / p
    p = p.resolve()
    if not p.is_dir():
        raise ConfigError(
            f"data_dir {str(data_dir)!r} (resolved to {p}) is not a folder. Point the config key "
            f"'data_dir' at the shared evaluation data, e.g. "
            f"`snakemake --config data_dir=/path/to/shared/data`.")
    return p


@dataclass(frozen=True)
class DatasetSpec:
    """Everything needed to read and score one dataset (one config block)."""

    name: str
    gold: str
    predictions: tuple[str, ...]
    labels: tuple[str, ...]
    ordinal: bool = False
    description: str = ""
    gold_format: Mapping[str, Any] = field(default_factory=dict)
    prediction_format: Mapping[str, Any] = field(default_factory=dict)
    label_map: Mapping[str, str] = field(default_factory=dict)
    drop_gold_labels: tuple[str, ...] = ()
    extra_labels: Mapping[str, str] = field(default_factory=dict)
    extra_label_policy: str = "map"
    weights: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    default_weights: str | None = None
    f_avg_classes: tuple[str, ...] | None = None
    unrelated_label: str | None = None
    positive_class: str | None = None
    metrics: tuple[str, ...] = ()
    primary_metric: str = "accuracy"
    baselines: tuple[str, ...] = BASELINE_KINDS
    random_seed: int = 0
    enabled: bool = True
    allow_unused_labels: bool = False
    normalize_labels: tuple[str, ...] = ()  # "strip" (surrounding spaces), "case"
    # span tasks (metaeval.measures.spans): "si" or "tc", the folder of article<ID>.txt
    # texts, the scorer's -m, generated systems, and the span metrics
    span_task: str | None = None
    articles: str | None = None
    merge_overlapping_predictions: bool = False
    synthetic: Mapping[str, Any] | None = None
    span_metrics: tuple[str, ...] = ()
    span_format: str | None = None  # the reader: semeval2020_si, semeval2020_tc, semeval2021_tsd
    offsets_past_end: str = "wrong"  # OFFSETS_PAST_END
    documents: str = "gold"  # the scored documents of a 2020 span format: "gold" or "all_articles"
    # the name shown for a prediction file (by its name without extension), the supplied files that are
    # baselines and those named like baselines that are real systems (fnmatch patterns of those names)
    display_names: Mapping[str, str] = field(default_factory=dict)
    # the nouns of the units in titles and sentences (plural): the items (posts, comments), the groups of a
    # grouped resampling (threads, questions) and a span task's documents (articles, posts); filled in
    unit_names: Mapping[str, str] = field(default_factory=dict)
    baseline_systems: tuple[str, ...] = ()
    real_systems: tuple[str, ...] = ()
    # the verdict (metaeval.verdict.recommendation): the task's own metric and where it comes from, the metrics papers chose
    # on the same data (({"metrics": (...), "source": "..."}, ...)), the formal properties the user requires of
    # the answer, and the name of the test set (datasets with one name count once across datasets)
    official_metric: str | None = None
    official_source: str = ""
    paper_choices: tuple[Mapping[str, Any], ...] = ()
    requirements: tuple[str, ...] = ()
    # the evidence criteria in the order the user ranks them (metaeval.verdict.tradeoff: the answer when no metric is kept
    # on every criterion)
    priorities: tuple[str, ...] = ()
    test_set: str = ""
    # the custom metrics the dataset computes (metaeval.measures.custom.declare's plain declarations: the function,
    # the SHA-256 of its file, its contract), a rule param of every step that reads metrics
    custom_metrics: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # the metrics of per-item terms the dataset computes (metaeval.measures.items: not of confusion matrices)
    item_metrics: tuple[str, ...] = ()
    # scores and probabilities (metaeval.measures.scores): the score files' patterns and how to read them, the labels of a
    # system given by its scores only (binary: score >= threshold; else argmax), the tolerance of a probability
    # row's sum, and the metrics of scores the dataset computes
    scores: tuple[str, ...] = ()
    # the task's official figures, a file of the data compared cell by cell (metaeval.reproduction.official): {file,
    # system_column, columns: {column: metric id}, scale: {column: factor}}
    official_results: Mapping[str, Any] = field(default_factory=dict)
    score_format: Mapping[str, Any] = field(default_factory=dict)
    score_threshold: float | None = None
    probability_tolerance: float = 1e-4
    normalize_probabilities: bool = False
    score_metrics: tuple[str, ...] = ()

    # ------------------------------------------------------------------
    @classmethod
    def from_config(cls, name: str, raw: Mapping[str, Any], *, random_seed: int = 0,
                    custom: Mapping[str, Mapping[str, Any]] | None = None,
                    base_dir: str | Path = ".") -> "DatasetSpec":
        """The spec of one dataset block; ``custom``: the config's
        top-level custom metrics (declared), ``base_dir``: the folder the
        paths of the dataset's own ``custom_metrics`` are relative to."""
        def err(key, msg):
            return ConfigError(f"datasets.{name}.{key}: {msg}")

        custom = dict(custom or {})
        own = declare_custom_metrics(raw.get("custom_metrics"), base_dir, f"datasets.{name}.custom_metrics")
        twice = sorted(set(own) & set(custom))
        if twice:
            raise err("custom_metrics", f"{twice} are declared at the top level too: a metric id names one "
                                        f"metric in the whole config; give this one another id")
        custom.update(own)

        fmt = raw.get("format", "csv")
        span_task = SPAN_FORMATS.get(fmt)
        span = _span_settings(name, raw, span_task, random_seed)
        labels = tuple(str(x) for x in raw.get("labels") or ())
        if span_task == "si":
            if labels:
                raise err("labels", f"span identification (format {fmt}) has no classes; remove labels")
        elif len(set(labels)) != len(labels):
            twice = sorted({x for x in labels if labels.count(x) > 1})
            raise err("labels", f"{', '.join(map(repr, twice))} listed more than once in {list(labels)}: each class "
                                "once (label_map merges spellings of one class)")
        elif len(labels) < 2:
            raise err("labels", f"need at least two labels (classes), got {list(labels)}")
        lab = set(labels)

        if span_task:
            gold_format = prediction_format = {"span": span_task}
        else:
            pfmt = raw.get("prediction_format", fmt)
            for key, f in (("format", fmt), ("prediction_format", pfmt)):
                if f not in FORMATS:
                    raise err(key, f"unknown format {f!r}; known: {', '.join([*FORMATS, *SPAN_FORMATS])}")
            overrides = {k: raw[k] for k in ("id_column", "label_column", "group_column", "delimiter") if k in raw}
            gold_format = {**FORMATS[fmt], **overrides}
            prediction_format = {**FORMATS[pfmt], **{k: v for k, v in overrides.items() if k != "group_column"},
                                 "group_column": None}

        label_map = {str(k): str(v) for k, v in (raw.get("label_map") or {}).items()}
        drop = tuple(str(x) for x in raw.get("drop_gold_labels") or ())
        if lab & set(drop):
            raise err("drop_gold_labels", f"{sorted(lab & set(drop))} are also in labels")
        extra = {str(k): str(v) for k, v in (raw.get("extra_labels") or {}).items()}
        policy = raw.get("extra_label_policy", "map")
        if policy not in EXTRA_LABEL_POLICIES:
            raise err("extra_label_policy", f"must be one of {EXTRA_LABEL_POLICIES}, got {policy!r}")
        for k, v in extra.items():
            if k in lab:
                raise err("extra_labels", f"{k!r} is already a class label")
            if v not in lab:
                raise err("extra_labels", f"{k!r} maps to {v!r}, which is not in labels {list(labels)}")

        weights = {}
        for wname, wmap in (raw.get("weights") or {}).items():
            keys = set(map(str, wmap))
            if keys != lab:
                raise err(f"weights.{wname}", f"needs exactly one weight per label {list(labels)}, "
                                              f"got {sorted(keys)}")
            given = {str(k): v for k, v in wmap.items()}
            bad = [x for x in labels if not _finite_number(given[x])]
            if bad:  # a NaN weight would make every weighted score NaN without a word
                raise err(f"weights.{wname}.{bad[0]}", f"a weight must be a finite number >= 0, got {given[bad[0]]!r}")
            w = tuple(float(given[x]) for x in labels)
            if min(w) < 0 or abs(sum(w) - 1.0) > WEIGHT_TOLERANCE:
                raise err(f"weights.{wname}", f"weights must be >= 0 and sum to 1, got sum {sum(w):.6g}")
            weights[str(wname)] = w
        default_weights = raw.get("default_weights")
        if default_weights is None and weights:
            default_weights = next(iter(weights))
        if default_weights is not None and default_weights not in weights:
            raise err("default_weights", f"{default_weights!r} is not a weight set ({sorted(weights)})")

        f_avg_classes = raw.get("f_avg_classes")
        if f_avg_classes is not None:
            f_avg_classes = tuple(map(str, f_avg_classes))
            bad = set(f_avg_classes) - lab
            if bad or not f_avg_classes:
                raise err("f_avg_classes", f"must be a non-empty subset of labels, got {list(f_avg_classes)}")
        unrelated = raw.get("unrelated_label")
        if unrelated is not None and unrelated not in lab:
            raise err("unrelated_label", f"{unrelated!r} is not in labels {list(labels)}")
        positive = raw.get("positive_class")
        if positive is not None and positive not in lab:
            raise err("positive_class", f"{positive!r} is not in labels {list(labels)}{M.closest([positive], lab)}")

        ordinal = bool(raw.get("ordinal", False))
        if span_task and ordinal:
            raise err("ordinal", "the techniques of a span task are not ordered")
        params = _params(labels, weights, default_weights, f_avg_classes, unrelated, positive)
        wanted = raw.get("metrics")
        if wanted is not None and not isinstance(wanted, str) and not len(wanted) and not raw.get("span_metrics"):
            raise err("metrics", "an empty list: name at least one metric id (`metaeval metrics` lists them), or "
                                 "leave it out for the default metrics")
        if wanted is not None and not isinstance(wanted, str):  # other names of a metric read as its id
            wanted = list(dict.fromkeys(M.canonical(m) if isinstance(m, str) else m for m in wanted))
            if M.DEFAULT_ENTRY in wanted and span_task != "si":  # the default candidates, then the ones named
                at = wanted.index(M.DEFAULT_ENTRY)
                wanted = list(dict.fromkeys(wanted[:at] + M.applicable_metrics(ordinal, params) + wanted[at + 1:]))
        if span_task == "si" and wanted:
            raise err("metrics", "span identification has no classification metrics; use span_metrics")
        from ..measures.items import ITEM_REGISTRY  # metrics of per-item terms: not of confusion matrices

        item_ids = tuple(m for m in (wanted or ()) if m in ITEM_REGISTRY)
        if item_ids:
            wanted = [m for m in wanted if m not in ITEM_REGISTRY]
        from ..measures.scores.registry import SCORE_REGISTRY  # metrics of scores and probabilities (metaeval.scores)

        score_ids = tuple(m for m in (wanted or ()) if isinstance(m, str) and m in SCORE_REGISTRY)
        if score_ids:
            wanted = [m for m in wanted if m not in SCORE_REGISTRY]
        score = _score_settings(name, raw, labels, score_ids, positive, span_task, gold_format)
        try:
            metric_ids = tuple(M.applicable_metrics(ordinal, params, wanted)) if span_task != "si" else ()
        except KeyError as e:
            raise err("metrics", str(e.args[0])) from None
        if wanted is not None:
            # a metric asked for by name is computed or refused, never dropped in silence
            reasons = [f"{m!r} {M.why_not_applicable(m, ordinal, params)}" for m in wanted if m not in metric_ids]
            if reasons:
                raise err("metrics", "; ".join(reasons) + " (remove it from the list or add what it needs)")
        all_ids = metric_ids + item_ids + score_ids + span.get("span_metrics", ())
        custom = {m: custom[m] for m in metric_ids + item_ids if m in custom}
        from ..measures.custom import MetricContractError, check_shape, is_custom

        # a custom metric is held to its contract on this dataset's shape before any job (on its data: when scored)
        if any(map(is_custom, metric_ids)):
            try:
                check_shape(metric_ids, len(labels), params, where=f"dataset {name!r}")
            except MetricContractError as e:
                raise MetricFault(str(err("metrics", str(e)))) from None
        default = {"semeval2021_tsd": "char_f1_macro", "semeval2020_si": "span_f1"}.get(fmt, "accuracy")
        # without a primary metric of its own, a dataset whose metric list leaves out the default sorts its
        # tables by the first metric listed (the primary metric orders tables; it changes no score)
        listed = [m for m in list(wanted or ()) + list(raw.get("span_metrics") or ()) if m in all_ids]
        primary = raw.get("primary_metric", default if default in all_ids or not all_ids else
                          (listed or list(all_ids))[0])
        primary = M.canonical(primary) if isinstance(primary, str) else primary
        if primary not in all_ids:
            raise err("primary_metric", f"{primary!r} is not among this dataset's metrics {list(all_ids)}")

        kinds = SPAN_BASELINE_KINDS if span_task == "si" else BASELINE_KINDS
        baselines = tuple(raw.get("baselines", kinds))
        bad = sorted(set(baselines) - set(kinds))
        if bad:
            other = ("span identification's baselines are spans" if span_task == "si" else
                     "the span baselines are for span identification") if set(bad) & set(
                SPAN_BASELINE_KINDS + BASELINE_KINDS) else "unknown"
            raise err("baselines", f"{bad}: {other}; this dataset's kinds: {', '.join(kinds)}")
        display = {str(k): str(v) for k, v in (raw.get("display_names") or {}).items()}
        shown = [v for v in display.values()]
        if any(not v.strip() for v in shown) or len(set(shown)) != len(shown):
            raise err("display_names", "display names must be non-empty and distinct, got "
                                       + ", ".join(sorted(map(repr, shown))))
        baseline_systems = tuple(str(x) for x in _renamed(name, raw, "baseline_files", "baseline_systems") or ())
        real_systems = tuple(str(x) for x in raw.get("real_systems") or ())
        both = sorted(set(baseline_systems) & set(real_systems))
        if both:
            raise err("real_systems", f"{', '.join(map(repr, both))} is in baseline_systems too: a system is a "
                                      f"baseline or a real system; keep it in one of them")
        given = {str(k): str(v).strip() for k, v in (raw.get("unit_names") or {}).items()}
        if any(not v for v in given.values()):
            raise err("unit_names", "a unit's noun cannot be empty")
        fmt = span.get("span_format")
        unit_names = {"items": given.get("items", "items"), "groups": given.get("groups", "groups"),
                      "documents": given.get("documents", "articles" if fmt in ARTICLE_FORMATS else
                                             "posts" if fmt == "semeval2021_tsd" else "documents")}

        official_results = _official_results(name, raw.get("official_results"), all_ids)
        verdict = _verdict_keys(name, raw, metric_ids + score_ids + span.get("span_metrics", ()), ordinal, params,
                                span_task, labels)

        preds = raw.get("predictions") or []
        if isinstance(preds, str):
            preds = [preds]
        return cls(
            name=name, gold=str(raw["gold"]), predictions=tuple(map(str, preds)), labels=labels,
            ordinal=ordinal, description=str(raw.get("description", "")),
            gold_format=gold_format, prediction_format=prediction_format, label_map=label_map,
            drop_gold_labels=drop, extra_labels=extra, extra_label_policy=policy, weights=weights,
            default_weights=default_weights, f_avg_classes=f_avg_classes, unrelated_label=unrelated,
            positive_class=positive, custom_metrics=custom, item_metrics=item_ids,
            metrics=metric_ids, primary_metric=primary, baselines=baselines,
            random_seed=int(raw.get("random_seed", random_seed)), enabled=bool(raw.get("enabled", True)),
            allow_unused_labels=bool(raw.get("allow_unused_labels", False)),
            normalize_labels=_normalize_setting(name, raw.get("normalize_labels") or ()),
            display_names=display, baseline_systems=baseline_systems, real_systems=real_systems,
            unit_names=unit_names, **span, **verdict,
            official_results=official_results, **score,
        )

    def unit_noun(self, resample_unit: str = "item") -> str:
        """The noun (plural) of the units a resampling draws: a span task's
        documents, else the groups (``resample_unit`` "group") or the items
        (``unit_names``)."""
        names = self.unit_names or {}
        if self.span_task:
            return names.get("documents", "documents")
        return names.get("groups", "groups") if resample_unit == "group" else names.get("items", "items")

    # ------------------------------------------------------------------
    @property
    def k(self) -> int:
        return len(self.labels)

    @property
    def all_metrics(self) -> tuple[str, ...]:
        """Classification metric ids, metrics of per-item terms, metrics of
        scores, then span metric ids (scores.csv columns)."""
        return tuple(self.metrics) + tuple(self.item_metrics) + tuple(self.score_metrics) + tuple(self.span_metrics)

    def article_folder(self, data_dir: str | Path) -> Path | None:
        """The folder of the article texts (a 2020 span format), or None."""
        return Path(data_dir) / self.articles if self.articles else None

    def metric_params(self, weight_set: str | None = None) -> dict[str, Any]:
        """Keyword parameters for ``metrics.evaluate`` (``weights``,
        ``f_avg_classes``, ``unrelated``, ``positive``) with a chosen weight set."""
        return _params(self.labels, self.weights, weight_set or self.default_weights,
                       self.f_avg_classes, self.unrelated_label, self.positive_class)

    def gold_path(self, data_dir: str | Path) -> Path:
        return Path(data_dir) / self.gold

    def prediction_files(self, data_dir: str | Path) -> dict[str, Path]:
        """``{system name: path}`` from the prediction globs, in sorted order.

        The system name is the file name without its extension, or its
        ``display_names`` entry.  A glob that matches nothing, two files with
        one name, a display name, a ``baseline_systems`` or a
        ``real_systems`` pattern that names no file, and a file that both
        name are config errors.
        """
        out = self._matched(self.predictions, "predictions", data_dir)
        stems = {p.stem for p in out.values()}
        unknown = sorted(set(self.display_names) - stems)
        if unknown and not self.scores:
            raise ConfigError(f"datasets.{self.name}.display_names: no prediction file is named "
                              f"{', '.join(map(repr, unknown))} (keys are file names without extension)")
        if not self.scores:
            self._check_declared(stems, "prediction file")
        return out

    def score_files(self, data_dir: str | Path) -> dict[str, Path]:
        """``{system name: path}`` from the score globs (``scores``), named
        as ``prediction_files`` names them; a display name or a baseline
        pattern that names neither a prediction nor a score file is a config
        error."""
        out = self._matched(self.scores, "scores", data_dir)
        if self.scores:
            stems = {p.stem for p in out.values()} | {p.stem for p in self.prediction_files(data_dir).values()}
            unknown = sorted(set(self.display_names) - stems)
            if unknown:
                raise ConfigError(f"datasets.{self.name}.display_names: no prediction or score file is named "
                                  f"{', '.join(map(repr, unknown))} (keys are file names without extension)")
            self._check_declared(stems, "prediction or score file")
        return out

    def _check_declared(self, stems, what: str) -> None:
        """Every pattern of ``baseline_systems`` and ``real_systems`` names a
        file (of ``stems``, the file names without extension), and no file
        is named by both."""
        for key in ("baseline_systems", "real_systems"):
            for pattern in getattr(self, key):
                if not any(fnmatch.fnmatchcase(s, pattern) for s in stems):
                    raise ConfigError(f"datasets.{self.name}.{key}: {pattern!r} matches no {what} (patterns match "
                                      f"file names without extension)")
        for stem in sorted(stems):
            base = [p for p in self.baseline_systems if fnmatch.fnmatchcase(stem, p)]
            real = [p for p in self.real_systems if fnmatch.fnmatchcase(stem, p)]
            if base and real:
                raise ConfigError(f"datasets.{self.name}: the file {stem!r} is a baseline by baseline_systems "
                                  f"{base[0]!r} and a real system by real_systems {real[0]!r}: a system is one or "
                                  f"the other; narrow one of the patterns")

    def _matched(self, patterns, key: str, data_dir) -> dict[str, Path]:
        out: dict[str, Path] = {}
        for pattern in patterns:
            matches = sorted(glob.glob(str(Path(data_dir) / pattern)))
            matches = [m for m in matches if os.path.isfile(m)]
            if not matches:
                raise ConfigError(f"datasets.{self.name}.{key}: {pattern!r} matches no file under {data_dir}")
            for m in matches:
                stem = Path(m).stem
                system = self.display_names.get(stem, stem)
                if system in out:
                    raise ConfigError(f"datasets.{self.name}.{key}: two files give the system name "
                                      f"{system!r}: {out[system]} and {m}"
                                      + (" (after display_names)" if self.display_names else ""))
                out[system] = Path(m)
        return out

    def supplied_baselines(self, files: Mapping[str, Path]) -> set[str]:
        """The system names (of ``prediction_files``) whose files
        ``baseline_systems`` marks as baselines."""
        return {name for name, p in files.items()
                if any(fnmatch.fnmatchcase(Path(p).stem, pat) for pat in self.baseline_systems)}

    def declared_real(self, files: Mapping[str, Path]) -> set[str]:
        """The system names (of ``prediction_files``) whose files
        ``real_systems`` declares real systems (named like baselines)."""
        return {name for name, p in files.items()
                if any(fnmatch.fnmatchcase(Path(p).stem, pat) for pat in self.real_systems)}


def _normalize_setting(name: str, value) -> tuple[str, ...]:
    bad = sorted(set(value) - {"strip", "case"})
    if bad:
        raise ConfigError(f"datasets.{name}.normalize_labels: unknown {bad}; known: strip, case")
    return tuple(x for x in ("strip", "case") if x in value)


_SPAN_ONLY = ("articles", "merge_overlapping_predictions", "synthetic", "span_metrics", "offsets_past_end",
              "documents")
_CSV_ONLY = ("id_column", "label_column", "group_column", "delimiter", "prediction_format", "label_map",
             "normalize_labels",
             "drop_gold_labels", "extra_labels", "weights", "default_weights", "f_avg_classes", "unrelated_label",
             "positive_class")


def _official_results(name: str, raw, all_ids) -> dict[str, Any]:
    """``official_results``: ``{file, system_column, columns: {column:
    metric id}, scale: {column: factor}}``, every metric among the
    dataset's own."""
    if raw is None:
        return {}
    key = f"datasets.{name}.official_results"
    if not isinstance(raw, Mapping) or not raw.get("file") or not raw.get("columns"):
        raise ConfigError(f"{key}: {{file: <path under data_dir>, columns: {{column: metric id}}}}, and optionally "
                          f"system_column (default run) and scale ({{column: factor}}); got {raw!r}")
    unknown = sorted(set(raw) - {"file", "system_column", "columns", "scale"})
    if unknown:
        raise ConfigError(f"{key}: unknown key(s) {unknown}; known: file, system_column, columns, scale")
    columns = {str(k): M.canonical(str(v)) for k, v in dict(raw["columns"]).items()}
    missing = [m for m in columns.values() if m not in all_ids]
    if missing:
        raise ConfigError(f"{key}.columns: {missing} are not among this dataset's metrics {list(all_ids)}")
    scale = {str(k): float(v) for k, v in dict(raw.get("scale") or {}).items()}
    stray = sorted(set(scale) - set(columns))
    if stray:
        raise ConfigError(f"{key}.scale: {stray} are not among its columns {list(columns)}")
    return {"file": str(raw["file"]), "system_column": str(raw.get("system_column", "run")), "columns": columns,
            "scale": scale}


def _score_settings(name: str, raw: Mapping[str, Any], labels: tuple[str, ...], score_ids: tuple[str, ...],
                    positive: str | None, span_task: str | None, gold_format: Mapping[str, Any]) -> dict[str, Any]:
    """The score fields of a DatasetSpec (``scores``, ``score_format``,
    ``score_threshold``, ``probability_tolerance``,
    ``normalize_probabilities``), checked against the dataset's labels and
    its metrics of scores."""
    def err(key, msg):
        return ConfigError(f"datasets.{name}.{key}: {msg}")

    from .readers.scores import SCORE_FORMATS
    from ..measures.scores.registry import SCORE_REGISTRY

    files = raw.get("scores") or ()
    files = (files,) if isinstance(files, str) else tuple(map(str, files))
    keys = ("scores", "score_format", "score_threshold", "probability_tolerance", "normalize_probabilities")
    if span_task:
        given = [k for k in keys if k in raw] + (["metrics"] if score_ids else [])
        if given:
            raise err(given[0], "a span task has no scores per item")
        return {}
    if score_ids and not files:
        raise err("metrics", f"{list(score_ids)} are metrics of scores: give the score files (datasets.{name}.scores)")
    if not files:
        extra = [k for k in keys[1:] if k in raw]
        if extra:
            raise err(extra[0], "set without score files (datasets.{name}.scores)".replace("{name}", name))
        return {}
    fmt = dict(raw.get("score_format") or {})
    unknown = sorted(set(fmt) - {"format", "id_column", "column", "columns"})
    if unknown:
        raise err("score_format", f"unknown key(s) {unknown}; known: format, id_column, column, columns")
    kind = fmt.get("format", "tsv" if raw.get("delimiter") == "\t" else "csv")
    if kind not in SCORE_FORMATS:
        raise err("score_format.format", f"{kind!r}: one of {', '.join(SCORE_FORMATS)}")
    out_fmt: dict[str, Any] = {"format": kind}
    k = len(labels)
    if kind != "semeval2016t3":
        out_fmt["id_column"] = str(fmt.get("id_column", gold_format.get("id_column", "item_id")))
    columns = fmt.get("columns")
    if columns is not None:
        if kind == "semeval2016t3":
            raise err("score_format.columns", "a SemEval-2016 Task 3 run file has one score per item")
        columns = {str(a): str(b) for a, b in dict(columns).items()}
        if set(columns) != set(labels):
            raise err("score_format.columns", f"one probability column per label {list(labels)}, got {sorted(columns)}")
        out_fmt["columns"] = {lab: columns[lab] for lab in labels}
        if k == 2 and positive is None:
            raise err("positive_class", "a binary task's metrics of scores read the positive class's probability: "
                                        f"name it (one of {list(labels)})")
    else:
        if k > 2:
            raise err("score_format", f"a {k}-class dataset needs one probability column per class "
                                      f"(score_format.columns: {{label: column}})")
        if positive is None:
            raise err("positive_class", "one score per item is the score of the positive class: name it "
                                        f"(one of {list(labels)})")
        if kind != "semeval2016t3":
            out_fmt["column"] = str(fmt.get("column", "score"))
    needs_groups = [m for m in score_ids if SCORE_REGISTRY[m].kind == "groups"]
    if needs_groups and k != 2:
        raise err("metrics", f"{needs_groups} rank the positive class of a binary task; this dataset has {k} classes")
    if needs_groups and not gold_format.get("group_column"):
        raise err("metrics", f"{needs_groups} rank the items of each group: name the gold's group column "
                             f"(datasets.{name}.group_column)")
    threshold = raw.get("score_threshold")
    if threshold is not None:
        if columns is not None:
            raise err("score_threshold", "class probabilities give labels by their argmax, not by a threshold")
        threshold = float(threshold)
    tol = float(raw.get("probability_tolerance", 1e-4))
    if not 0 <= tol <= 0.5:
        raise err("probability_tolerance", f"between 0 and 0.5, got {tol}")
    return {"scores": files, "score_format": out_fmt, "score_threshold": threshold, "probability_tolerance": tol,
            "normalize_probabilities": bool(raw.get("normalize_probabilities", False)), "score_metrics": score_ids}


def _span_settings(name: str, raw: Mapping[str, Any], task: str | None, random_seed: int) -> dict[str, Any]:
    """The span fields of a DatasetSpec, checked (every span key is refused
    for a classification format, and the reader keys of CSV files for a span
    format)."""
    from ..measures.spans import PERTURBATIONS, SPAN_METRIC_IDS

    def err(key, msg):
        return ConfigError(f"datasets.{name}.{key}: {msg}")

    if task is None:
        for key in _SPAN_ONLY:
            if key in raw:
                raise err(key, f"only for the span formats ({', '.join(SPAN_FORMATS)})")
        return {}
    for key in _CSV_ONLY:
        if key in raw:
            raise err(key, f"not used by the span format {raw['format']!r}")
    if task == "tc" and "merge_overlapping_predictions" in raw:
        raise err("merge_overlapping_predictions", "only for span identification: a TC submission labels the gold "
                                                    "spans, and its FLC view always merges overlaps of one technique")
    fmt = raw["format"]
    if fmt in ARTICLE_FORMATS and not raw.get("articles"):
        raise err("articles", "a span dataset needs the folder of its article<ID>.txt texts (offsets are checked "
                              "against them)")
    if fmt not in ARTICLE_FORMATS and "articles" in raw:
        raise err("articles", f"the format {fmt!r} reads the texts from the gold file's 'text' column; remove "
                              f"articles")
    documents = raw.get("documents", "gold")
    if documents not in ("gold", "all_articles") or (documents == "all_articles" and fmt not in ARTICLE_FORMATS):
        raise err("documents", f"'gold' (the documents the gold defines) or, for the formats with an articles "
                               f"folder ({', '.join(ARTICLE_FORMATS)}), 'all_articles' (every article file of the "
                               f"folder is a document of the test set), got {documents!r}")
    past_end = raw.get("offsets_past_end", "wrong")
    if past_end not in OFFSETS_PAST_END:
        raise err("offsets_past_end", f"must be one of {', '.join(OFFSETS_PAST_END)}, got {past_end!r}")
    wanted = raw.get("span_metrics")
    bad = sorted(set(wanted or ()) - set(SPAN_METRIC_IDS))
    if bad:
        from ..measures.labels import closest

        raise err("span_metrics", f"unknown span metric(s) {bad}{closest(bad, SPAN_METRIC_IDS)}; known: "
                                  f"{', '.join(SPAN_METRIC_IDS)}")
    span_metrics = tuple(m for m in SPAN_METRIC_IDS if wanted is None or m in wanted)
    synthetic = raw.get("synthetic")
    if synthetic is not None:
        if task != "si":
            raise err("synthetic", "synthetic systems are generated for span identification only")
        kinds = tuple(synthetic.get("kinds", PERTURBATIONS))
        unknown = sorted(set(kinds) - set(PERTURBATIONS))
        if unknown:
            raise err("synthetic.kinds", f"unknown perturbation(s) {unknown}; known: {', '.join(PERTURBATIONS)}")
        strengths = tuple(float(x) for x in synthetic.get("strengths", (0.1, 0.25, 0.5, 0.75)))
        if not strengths or min(strengths) < 0 or max(strengths) > 1:
            raise err("synthetic.strengths", f"strengths must be in [0, 1], got {list(strengths)}")
        synthetic = {"kinds": list(kinds), "strengths": list(strengths),
                     "seed": int(synthetic.get("seed", raw.get("random_seed", random_seed)))}
    return {"span_task": task, "span_format": fmt, "articles": str(raw["articles"]) if raw.get("articles") else None,
            "span_metrics": span_metrics, "offsets_past_end": past_end, "documents": documents,
            "merge_overlapping_predictions": bool(raw.get("merge_overlapping_predictions", False)),
            "synthetic": synthetic}


def _known_metric(mid) -> bool:
    from ..measures.scores.registry import SCORE_REGISTRY
    from ..measures.spans import SPAN_REGISTRY

    return M.canonical(mid) in M.REGISTRY or mid in SPAN_REGISTRY or mid in SCORE_REGISTRY




def check_priorities(value, where: str = "priorities") -> tuple[str, ...]:
    """The declared priorities, checked: evidence criteria by id
    (``settings.CRITERION_NAMES``: the registered ones), each once; ``where`` names the key in the
    message.

    >>> check_priorities(["discrimination", "power"])
    ('discrimination', 'power')
    >>> check_priorities("power")
    ('power',)
    """
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else tuple(value)
    for c in items:
        if not isinstance(c, str) or c not in CRITERION_NAMES:
            raise ConfigError(f"{where}: {c!r} is not an evidence criterion{_closest_criterion(c)}; the criteria, "
                              f"in any order: " + ", ".join(f"{k} ({v})" for k, v in CRITERION_NAMES.items()))
    twice = sorted({c for c in items if items.count(c) > 1}, key=items.index)
    if twice:
        raise ConfigError(f"{where}: {', '.join(map(repr, twice))} listed more than once ({list(items)}): list "
                          f"each criterion once, the one that matters most first")
    return tuple(items)


def _closest_criterion(given) -> str:
    """``M.closest`` over the criteria's ids and their names on the pages
    (``discriminative power`` is ``power``), as its " (did you mean ...?)"."""
    text = str(given).strip().casefold().replace("_", " ").replace("-", " ")
    by_name = [k for k, v in CRITERION_NAMES.items() if text in (v, v.split()[-1]) or v.startswith(text + " ")]
    if by_name:
        return f" (did you mean {by_name[0]!r}?)"
    return M.closest([str(given)], list(CRITERION_NAMES))


def _verdict_keys(name, raw, all_ids, ordinal, params, span_task, labels) -> dict[str, Any]:
    """``official_metric`` (an id, or ``{metric, source}``), ``paper_choices``
    (a list of ``{metrics: [...], source}``), ``requirements`` (formal
    property ids) and ``test_set``, checked.  A metric named there that is
    not computed on the dataset is accepted only when it cannot be (the page
    says why); one the dataset's ``metrics:`` list leaves out is refused."""

    def err(key, msg):
        return ConfigError(f"datasets.{name}.{key}: {msg}")

    def check(key, mid):
        mid = M.canonical(mid) if isinstance(mid, str) else mid
        if not isinstance(mid, str) or not _known_metric(mid):
            from ..measures.spans import SPAN_REGISTRY

            # the closest of the task's own kind of metric (a span metric is no suggestion for classes)
            kind = list(SPAN_REGISTRY) if span_task == "si" else list(M.REGISTRY) + (
                list(SPAN_REGISTRY) if span_task else [])
            raise err(key, f"{mid!r} is not a metric id{M.closest([str(mid)], list(all_ids) + kind)}")
        if mid not in all_ids and mid in M.REGISTRY and M.why_not_applicable(mid, ordinal, params) is None \
                and span_task != "si":
            raise err(key, f"{mid!r} is not among this dataset's metrics {list(all_ids)}: add it to 'metrics'")

    out: dict[str, Any] = {}
    om = raw.get("official_metric")
    if om is not None:
        if isinstance(om, Mapping):
            unknown = set(om) - {"metric", "source"}
            if unknown or "metric" not in om:
                raise err("official_metric", "a metric id, or {metric: <id>, source: <text>}; got "
                                             f"{dict(om)!r}")
            out["official_source"] = str(om.get("source", ""))
            om = om["metric"]
        check("official_metric", om)
        out["official_metric"] = M.canonical(str(om))
    choices = []
    for i, ch in enumerate(raw.get("paper_choices") or []):
        key = f"paper_choices[{i}]"
        if not isinstance(ch, Mapping) or set(ch) - {"metrics", "source"} or not ch.get("metrics") \
                or not ch.get("source"):
            raise err(key, f"{{metrics: [<id>, ...], source: <text>}} with both keys; got {ch!r}")
        ids = [ch["metrics"]] if isinstance(ch["metrics"], str) else list(ch["metrics"])
        for mid in ids:
            check(key, mid)
        choices.append({"metrics": tuple(M.canonical(str(x)) for x in ids), "source": str(ch["source"])})
    out["paper_choices"] = tuple(choices)
    req = raw.get("requirements") or ()
    req = (req,) if isinstance(req, str) else tuple(str(r) for r in req)
    if req:  # (the properties' module imports pandas: a config without requirements does not need it)
        from ..measures.properties import PROPERTIES
    for r in req:
        if r not in PROPERTIES:
            raise err("requirements", f"{r!r} is not a formal property{M.closest([r], list(PROPERTIES))}; known: "
                                      f"{', '.join(PROPERTIES)} (uniform_class_change: invariance to class priors)")
        if span_task == "si":
            raise err("requirements", "span identification has no classes: its metrics have no formal properties "
                                      "to require")
        if r.startswith("ordinal_") and not ordinal:
            raise err("requirements", f"{r!r} is a property of ordered classes; this dataset's are unordered "
                                      "(ordinal: false)")
        if r == "imbalance" and len(labels) < 2:
            raise err("requirements", "imbalance needs two classes or more")
    if len(set(req)) != len(req):
        raise err("requirements", f"a property is listed twice: {list(req)}")
    out["requirements"] = req
    out["priorities"] = check_priorities(raw.get("priorities"), f"datasets.{name}.priorities")
    if raw.get("test_set") is not None:
        out["test_set"] = str(raw["test_set"])
    return out


def _finite_number(value) -> bool:
    """A real number, not NaN or infinite (nor a bool or a text YAML read)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and bool(np.isfinite(value))


def _params(labels, weights, weight_set, f_avg_classes, unrelated, positive=None) -> dict[str, Any]:
    index = {lab: i for i, lab in enumerate(labels)}
    return {
        "weights": np.asarray(weights[weight_set]) if weight_set else None,
        "f_avg_classes": [index[x] for x in f_avg_classes] if f_avg_classes else None,
        "unrelated": index[unrelated] if unrelated is not None else None,
        "positive": index[positive] if positive is not None else None,
    }


def declare_custom_metrics(block: Mapping[str, Any] | None, base_dir: str | Path, where: str) -> dict[str, dict]:
    """The plain declarations of a ``custom_metrics`` block, each metric
    loaded, registered and held to its contract
    (``metaeval.measures.custom.declare``); a fault is a ConfigError naming
    its place."""
    from ..measures.custom import MetricContractError, declare

    out = {}
    for mid, entry in (block or {}).items():
        try:
            out[str(mid)] = declare(str(mid), entry if isinstance(entry, Mapping) else {}, base_dir)
        except MetricContractError as e:
            raise MetricFault(f"{where}.{mid}: {e}") from None
    return out


def dataset_specs(config: Mapping[str, Any], *, enabled_only: bool = True,
                  base_dir: str | Path = ".") -> dict[str, DatasetSpec]:
    """All dataset specs of a (schema-validated) config, in config order;
    ``base_dir``: the folder of the config file, which the paths of its
    custom metrics are relative to."""
    seed = int(config.get("random_seed", 0))
    custom = declare_custom_metrics(config.get("custom_metrics"), base_dir, "custom_metrics")
    specs = {name: DatasetSpec.from_config(name, raw, random_seed=seed, custom=custom, base_dir=base_dir)
             for name, raw in (config.get("datasets") or {}).items()}
    return {n: s for n, s in specs.items() if s.enabled or not enabled_only}


# ---------------------------------------------------------------------------
# plain values: what a Snakemake rule records as a param
# ---------------------------------------------------------------------------
def to_plain(value: Any) -> Any:
    """``value`` as plain built-in data (dict, list, str, int, float, bool,
    None), so that Snakemake can record it as a param and notice a change."""
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def from_plain(value: Any) -> Any:
    """Inverse of ``to_plain`` for the spec and settings fields: lists become
    tuples (the dataclasses hold tuples), dicts stay dicts."""
    if isinstance(value, Mapping):
        return {k: from_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(from_plain(v) for v in value)
    return value


def _renamed(name: str, raw: Mapping[str, Any], old: str, new: str):
    """The value of the dataset key ``new``, or of its old name ``old``
    (a FutureWarning says to rename it; both at once are refused)."""
    if old not in raw:
        return raw.get(new)
    if new in raw:
        raise ConfigError(f"datasets.{name}: {old} and {new} are one key ({old} is its old name): keep {new}")
    warnings.warn(f"datasets.{name}.{old} is now called {new} (the library's and the command line's name); the "
                  f"old name works until the next release", FutureWarning, stacklevel=3)
    return raw[old]


_RESTRICTED: dict[type, type] = {}


def restricted(cls: type, values: Mapping[str, Any]):
    """An instance of the dataclass ``cls`` that knows only ``values``.

    Reading any other field raises ``AttributeError`` naming it.  A pipeline
    step is given such a view of the dataset spec and settings, built from its
    rule params; a step that reads a setting it was not given fails at once
    instead of silently using a value Snakemake does not track (which would
    let a config edit leave a stale result).
    """
    names = frozenset(f.name for f in fields(cls))
    unknown = set(values) - names
    if unknown:
        raise ConfigError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
    sub = _RESTRICTED.get(cls)
    if sub is None:
        def __getattribute__(self, name):
            if name in names and name not in object.__getattribute__(self, "_given"):
                raise AttributeError(f"{cls.__name__}.{name} was not given to this step: list it among the "
                                     f"step's fields, or its branch of the settings tree among the "
                                     f"step's branches, in metaeval.workflow.STEPS, so that its rule records it")
            return object.__getattribute__(self, name)

        def __repr__(self):
            given = sorted(object.__getattribute__(self, "_given"))
            return f"{cls.__name__}[" + ", ".join(f"{k}={getattr(self, k)!r}" for k in given) + "]"

        sub = type(f"Restricted{cls.__name__}", (cls,), {
            "__getattribute__": __getattribute__, "__repr__": __repr__,
            "__eq__": object.__eq__, "__hash__": object.__hash__})
        _RESTRICTED[cls] = sub
    obj = object.__new__(sub)
    for k, v in values.items():
        object.__setattr__(obj, k, v)
    object.__setattr__(obj, "_given", frozenset(values))
    return obj


# Snakemake reads {...} in a path as a wildcard and <...> as a path variable:
# such a file cannot be an input of a rule.  Control characters break logs and tables.
_UNSAFE_PATH_CHARS = "{}<>"


def unsafe_path_reason(path: str | Path) -> str | None:
    """Why a file cannot be used by the workflow (None when it can)."""
    s = str(path)
    bad = sorted({ch for ch in s if ch in _UNSAFE_PATH_CHARS})
    if bad:
        return (f"its path contains {' '.join(repr(c) for c in bad)}, which Snakemake reads as wildcard or "
                f"path-variable syntax")
    ctrl = sorted({ch for ch in s if ord(ch) < 32 or ord(ch) == 127})
    if ctrl:
        return f"its path contains the control character(s) {', '.join(repr(c) for c in ctrl)}"
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return "its file name is not valid UTF-8"
    return None
