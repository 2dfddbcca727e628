"""A dataset in memory: gold codes, every system's predicted codes, baselines.

``load_dataset`` reads the gold file and every prediction file of a
``DatasetSpec``, checks them all, and raises one ``DataError`` listing every
fault (file, line or item, what is wrong) before anything is computed.

Item handling, in this order:

1. gold rows whose label is in ``drop_gold_labels`` are not scored (FNC-1's
   ``unrelated`` rows for the 3-class view); predictions for them are read
   and ignored;
2. every scored item must have exactly one prediction in every file, and
   every predicted item must be in the gold file;
3. ``label_map`` renames labels (gold and predictions) before checking;
4. a predicted label listed in ``extra_labels`` (a label systems may emit
   that is not a class, e.g. ``unrelated`` in the 3-class FNC-1 view) is
   handled by ``extra_label_policy``: ``map`` to the configured class,
   ``error``, or ``drop_item``, which removes the item for *all* systems so
   that every system is scored on the same items.  Any other label outside
   the label set is an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np
import pandas as pd

from ..measures import labels as M
from .config import DatasetSpec
from ..engine.confusion import confusion_by_group, confusion_tensor
from .files import DataError, Problem, folder_sha256, in_memory
from .readers.labels import LabelTable, read_table
from .label_checks import (_check_used_labels, _cross_file_hints, _examples, _label_problem, _normalizer)
from .systems import (_advice, _file_hashes, _identical_systems, _identical_warnings, _perfect_warnings, _refuse_clashes,
                      _seed, make_baselines, name_the_systems, stripped_warnings)
from ..measures.spans import Spans

if TYPE_CHECKING:  # (the data floor's own module; imported where the scores are read)
    from .score_data import ScoreView

__all__ = ["Dataset", "SpanView", "load_dataset", "load_span_dataset", "score_table", "score_dataset",
           "RANKED_KINDS", "code_dataset"]


# kinds of systems that are ranked with the real ones (baselines only when named)
RANKED_KINDS = ("system", "synthetic")


@dataclass
class Dataset:
    """Integer-coded labels of one dataset; class k is ``labels[k]``."""

    name: str
    labels: tuple[str, ...]
    item_ids: np.ndarray  # (N,) str
    gold: np.ndarray  # (N,) int8
    systems: tuple[str, ...]
    kinds: tuple[str, ...]  # "system" | "synthetic" (generated, ranked like systems) | "baseline"
    predictions: np.ndarray  # (S, N) int8
    groups: np.ndarray | None = None  # (N,) int, codes into group_names
    group_names: tuple[str, ...] = ()
    info: dict[str, Any] = field(default_factory=dict)
    spans: "SpanView | None" = None  # span tasks: the spans of the gold and of every system
    scores: "ScoreView | None" = None  # the systems' scores or probabilities (metaeval.data.score_data)

    @property
    def k(self) -> int:
        return len(self.labels)

    @property
    def n_items(self) -> int:
        return int(self.gold.shape[0])

    def confusion(self) -> np.ndarray:
        """(S, K, K) confusion tensor, [system, predicted, gold]."""
        return confusion_tensor(self.gold, self.predictions, self.k)

    def confusion_by_group(self) -> np.ndarray:
        """(G, S, K, K) confusion tensors per group (e.g. per target)."""
        if self.groups is None:
            raise ValueError(f"dataset {self.name!r} has no group column")
        return confusion_by_group(self.gold, self.predictions, self.groups, len(self.group_names), self.k)

    # -- persistence: one .npz (arrays) ---------------------------------
    def save(self, path: str | Path) -> None:
        arrays = dict(
            name=np.array(self.name), labels=np.array(self.labels, dtype=str), item_ids=self.item_ids.astype(str),
            gold=self.gold, systems=np.array(self.systems, dtype=str), kinds=np.array(self.kinds, dtype=str),
            predictions=self.predictions, info=np.array(json.dumps(self.info)),
        )
        if self.groups is not None:
            arrays.update(groups=self.groups, group_names=np.array(self.group_names, dtype=str))
        if self.spans is not None:
            arrays.update(self.spans.arrays())
        if self.scores is not None:
            arrays.update(self.scores.arrays())
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> "Dataset":
        with np.load(path, allow_pickle=False) as z:
            has_groups = "groups" in z
            return cls(
                name=str(z["name"]), labels=tuple(z["labels"].tolist()), item_ids=z["item_ids"],
                gold=z["gold"], systems=tuple(z["systems"].tolist()), kinds=tuple(z["kinds"].tolist()),
                predictions=z["predictions"], groups=z["groups"] if has_groups else None,
                group_names=tuple(z["group_names"].tolist()) if has_groups else (),
                info=json.loads(str(z["info"])), spans=SpanView.from_arrays(z) if "span_gold" in z else None,
                scores=_score_view(z) if "score_values" in z else None,
            )


def _score_view(z):
    from .score_data import ScoreView

    return ScoreView.from_arrays(z)


@dataclass
class SpanView:
    """The spans of a span task as scored: the gold and every system's,
    merged as the task requires (``labelled``: FLC, δ on the technique)."""

    articles: tuple[str, ...]  # article ids; spans refer to them by position
    lengths: np.ndarray  # (A,) characters per article
    labels: tuple[str, ...]
    labelled: bool
    gold: Spans
    systems: list[Spans]  # one per system of the dataset, in its order
    # systems that never read the task, on the scored documents (metaeval.methods.gameability):
    # no_spans, whole_text, every_token (span identification); all_<label> (technique classification)
    degenerate: dict[str, Spans] = field(default_factory=dict)

    @property
    def n_articles(self) -> int:
        return len(self.articles)

    def statistics(self, select=None) -> np.ndarray:
        """(S, A, F) per-article sufficient statistics (``spans.STATS``) of
        the selected systems (all by default)."""
        from ..measures.spans import STATS, span_statistics

        idx = range(len(self.systems)) if select is None else select
        out = [span_statistics(self.gold, self.systems[i], self.n_articles, self.labelled) for i in idx]
        return np.stack(out) if out else np.zeros((0, self.n_articles, len(STATS)))

    def degenerate_statistics(self) -> dict[str, np.ndarray]:
        """``{name: (len(STATS),)}`` summed statistics of each degenerate system."""
        from ..measures.spans import span_statistics

        return {name: span_statistics(self.gold, sp, self.n_articles, self.labelled).sum(axis=0)
                for name, sp in self.degenerate.items()}

    def arrays(self) -> dict[str, np.ndarray]:
        sys = [np.column_stack([np.full(len(sp), i), sp.as_array()]) for i, sp in enumerate(self.systems)]
        deg = [np.column_stack([np.full(len(sp), i), sp.as_array()]) for i, sp in enumerate(self.degenerate.values())]
        return {"span_articles": np.array(self.articles, dtype=str), "span_lengths": np.asarray(self.lengths),
                "span_labels": np.array(self.labels, dtype=str), "span_labelled": np.array(self.labelled),
                "span_gold": self.gold.as_array(),
                "span_systems": np.concatenate(sys) if sys else np.zeros((0, 5), dtype=np.int64),
                "span_n_systems": np.array(len(self.systems)),
                "span_degenerate_names": np.array(list(self.degenerate), dtype=str),
                "span_degenerate": np.concatenate(deg) if deg else np.zeros((0, 5), dtype=np.int64)}

    @classmethod
    def from_arrays(cls, z) -> "SpanView":
        sys = z["span_systems"]
        deg = z["span_degenerate"] if "span_degenerate" in z else np.zeros((0, 5), dtype=np.int64)
        names = z["span_degenerate_names"].tolist() if "span_degenerate_names" in z else []
        return cls(tuple(z["span_articles"].tolist()), z["span_lengths"], tuple(z["span_labels"].tolist()),
                   bool(z["span_labelled"]), Spans.from_array(z["span_gold"]),
                   [Spans.from_array(sys[sys[:, 0] == i, 1:]) for i in range(int(z["span_n_systems"]))],
                   {name: Spans.from_array(deg[deg[:, 0] == i, 1:]) for i, name in enumerate(names)})


# ---------------------------------------------------------------------------


def load_dataset(spec: DatasetSpec, data_dir: str | Path, *, advice: str = "config") -> Dataset:
    """Read, check and code the gold and all prediction files of ``spec``.

    Raises ``DataError`` (listing every fault) before returning anything.
    A span dataset (``spec.span_task``) is read by ``load_span_dataset``.
    ``info["systems"]`` names the real systems and the baselines; a file
    named like a baseline that neither ``baseline_systems`` nor
    ``real_systems`` declares is said in ``info["warnings"]``, with how to
    declare it (``advice``: ``"config"``, the config's lines, or
    ``"library"``, the keywords of ``metaeval.read_files``).
    """
    if spec.span_task:
        return load_span_dataset(spec, data_dir, advice=advice)
    data_dir = Path(data_dir)
    gpath = spec.gold_path(data_dir)
    files: dict[str, Path] = {}
    score_tables: dict = {}
    score_files: dict[str, Path] = {}
    derived: dict[str, str] = {}

    def tables():  # the prediction files are listed and read once the gold can be read
        files.update(spec.prediction_files(data_dir) if spec.predictions else {})
        if spec.scores:
            from .score_data import labels_from_scores, read_score_tables

            st, sf = read_score_tables(spec, data_dir)
            score_tables.update(st)
            score_files.update(sf)
        for system, path in files.items():
            t = read_table(path, **spec.prediction_format)
            if spec.scores and system not in score_files:
                t.problems.insert(0, Problem(str(path), None, f"system {system!r} has labels but no score file "
                                             f"(datasets.{spec.name}.scores: {', '.join(spec.scores)}); its scores "
                                             f"cannot be made up: give them, or leave the file out", "file"))
            yield system, t
        for system in score_files:  # systems given by their scores only: labels from the scores, said
            if system not in files:
                lt, how = labels_from_scores(spec, score_tables[system])
                derived[system] = how
                yield system, lt

    gold_t = read_table(gpath, **spec.gold_format)
    ds = code_dataset(spec, gold_t, tables(), supplied=lambda: spec.supplied_baselines({**score_files, **files}),
                      files=lambda: _file_hashes(gpath, files),
                      # the faults of the score files of systems with labels, said with the labels' faults
                      more_problems=lambda: [p for s, t in score_tables.items() if s in files for p in t.problems])
    if spec.scores:
        from .score_data import code_scores

        ds.scores = code_scores(spec, ds, score_tables, score_files, gold_t.ids)
        ds.info["scores"] = {**ds.scores.info, "derived_labels": derived}
        # systems are copies only when their labels and their scores are the same
        sources = {**score_files, **files}
        marked = set(ds.info["supplied_baselines"])
        old = _identical_warnings(ds.info["identical_systems"], sources, marked)
        identical = _identical_systems(ds.systems, [p.tobytes() + v.tobytes() for p, v in
                                                    zip(ds.predictions, ds.scores.values)], set(sources))
        ds.info["identical_systems"] = identical
        ds.info["warnings"] = [w for w in ds.info["warnings"] if w not in old] + _identical_warnings(
            identical, sources, marked)
        if derived:
            ways = sorted(set(derived.values()))
            ds.info["warnings"].append(
                f"the labels of {len(derived)} system(s) come from their scores, "
                + "; ".join(f"by {w}: {', '.join(s for s, h in derived.items() if h == w)}" for w in ways))
        spaced = {str(t.path): t.stripped for s, t in score_tables.items() if s in files and t.stripped}
        if spaced:  # (the score files of systems given by their scores alone: said as their labels)
            ds.info["stripped"] = {**ds.info["stripped"], **spaced}
            ds.info["warnings"] += stripped_warnings(spaced)
        norm = ds.scores.info.get("normalized_rows") or {}
        if norm:
            ds.info["warnings"].append("class probabilities divided by their row's sum (normalize_probabilities): "
                                       + ", ".join(f"{s} {n:,} row(s)" for s, n in norm.items()))
    sources = {**score_files, **files}
    name_the_systems(ds, {s: Path(p).stem for s, p in sources.items()}, spec.declared_real(sources),
                     _advice(spec, advice), sources)
    return ds


def code_dataset(spec: DatasetSpec, gold_t: LabelTable, tables, *, supplied=None, files=None,
                 more_problems=None) -> Dataset:
    """Check and code a gold table and the prediction tables of every system
    (``tables``: ``(system, LabelTable)`` pairs, taken once the gold can be
    read), as ``load_dataset`` does for files and ``metaeval.api`` for labels
    in memory: one set of checks for both.

    ``supplied``: a callable giving the systems that are supplied baselines;
    ``files``: a callable giving ``info["files"]`` (the inputs' paths and
    hashes).  Raises ``DataError`` (listing every fault) before returning
    anything.  ``more_problems``: a callable giving the faults of other files
    of the systems (their score files), reported with the predictions' so
    that every fault is said at once."""
    problems: list[Problem] = []
    labels = spec.labels
    code = {lab: i for i, lab in enumerate(labels)}
    lmap = spec.label_map

    # -- gold ------------------------------------------------------------
    gpath = gold_t.path
    problems += gold_t.problems
    keep_rows: list[int] = []
    dropped_gold: dict[str, int] = {}
    norm = _normalizer(spec, labels + spec.drop_gold_labels + tuple(spec.extra_labels) + tuple(lmap))
    for r, lab in enumerate(gold_t.labels):
        lab = norm(lab)
        if lab in spec.drop_gold_labels:
            dropped_gold[lab] = dropped_gold.get(lab, 0) + 1
        elif lab in code:
            keep_rows.append(r)
        else:
            problems.append(_label_problem(gold_t, r, lab, labels + spec.drop_gold_labels, "gold"))
    all_gold_ids = set(gold_t.ids) | gold_t.emptied_ids  # a gold row refused as empty is still in the gold
    scored_ids = [gold_t.ids[r] for r in keep_rows]  # rows whose label is a class
    gold_codes = np.array([code[norm(gold_t.labels[r])] for r in keep_rows], dtype=np.int8)
    # a gold file that cannot be read at all stops here; one with bad rows is
    # checked on, so that the predictions can say what the rows would have been
    context = f"dataset {spec.name!r}" + ("" if in_memory(str(gpath)) else f" (gold file {gpath})")
    if gold_t.unreadable or not scored_ids:
        if not gold_t.problems and not problems:
            problems.append(Problem(str(gpath), None, "no gold item is left to score", "file"))
        raise DataError(problems, context, _cross_file_hints(gpath, gold_t.ids, {}, {}, 0),
                        ["the prediction files are checked once the gold file can be read"]
                        if not in_memory(str(gpath)) else [])

    # -- predictions ------------------------------------------------------
    position = {item: p for p, item in enumerate(scored_ids)}
    n = len(scored_ids)
    rows: list[np.ndarray] = []
    sources: dict[str, str] = {}  # system -> its table's path (its file, or its name in memory)
    extra_hits: dict[str, dict[str, int]] = {}
    drop_mask = np.zeros(n, dtype=bool)
    missing: dict[str, list[str]] = {}  # per file: gold items without a prediction
    foreign: dict[str, list[str]] = {}  # per file: items that are not in the gold
    n_read = 0
    stripped = {str(gpath): gold_t.stripped} if gold_t.stripped else {}
    for s, (system, t) in enumerate(tables):
        sources[system] = t.path
        if t.stripped:
            stripped[str(t.path)] = t.stripped
        rows.append(np.full(n, -1, dtype=np.int16))
        problems += t.problems
        if t.unreadable:
            continue
        # rows that could be read are checked too, so that every fault is counted
        n_read += 1
        seen = np.zeros(n, dtype=bool)
        file_problems: list[Problem] = []
        for r, (item, lab) in enumerate(zip(t.ids, t.labels)):
            if item not in all_gold_ids:
                foreign.setdefault(t.path, []).append(item)
                file_problems.append(Problem(t.path, t.lines[r], f"item {item!r} is not in the gold file",
                                             "not_in_gold"))
                continue
            p = position.get(item)
            if p is None:
                continue  # a gold item that is not scored (dropped gold label)
            seen[p] = True
            lab = norm(lab)
            if lab in code:
                rows[s][p] = code[lab]
            elif lab in spec.extra_labels and spec.extra_label_policy != "error":
                extra_hits.setdefault(system, {}).setdefault(lab, 0)
                extra_hits[system][lab] += 1
                if spec.extra_label_policy == "map":
                    rows[s][p] = code[spec.extra_labels[lab]]
                else:  # drop_item
                    drop_mask[p] = True
                    rows[s][p] = 0
            else:
                file_problems.append(_label_problem(t, r, lab, labels, "predicted"))
        lacking = [i for i in np.flatnonzero(~seen) if scored_ids[i] not in t.skipped_ids]
        if lacking:
            missing[t.path] = [scored_ids[i] for i in lacking]
            shown = ", ".join(f"{scored_ids[i]!r}" + (f" (gold line {gold_t.lines[keep_rows[i]]})"
                                                      if gold_t.lines[keep_rows[i]] is not None else "")
                              for i in lacking[:5])
            file_problems.insert(0, Problem(t.path, None, f"{len(lacking):,} gold item(s) have no {t.noun}, "
                                                          f"e.g. {shown}" + (", ..." if len(lacking) > 5 else ""),
                                            "missing", len(lacking)))
        problems += file_problems
    if more_problems is not None:
        problems += more_problems()
    if problems:
        raise DataError(problems, context, _cross_file_hints(gpath, gold_t.ids, missing, foreign, n_read))

    pred_codes = np.vstack(rows) if rows else np.zeros((0, n), dtype=np.int16)
    keep = ~drop_mask
    if not keep.any():
        raise DataError([Problem(str(gpath), None, "extra_label_policy 'drop_item' dropped every item")],
                        f"dataset {spec.name!r} (gold file {gpath})")
    item_ids = np.array(scored_ids, dtype=str)[keep]
    gold_codes = gold_codes[keep]
    pred_codes = pred_codes[:, keep].astype(np.int8)

    gold_counts, unused = _check_used_labels(spec, gold_codes, gpath,
                                             " among the items left after extra_label_policy 'drop_item'"
                                             if drop_mask.any() else "")

    groups, group_names = None, ()
    if spec.gold_format.get("group_column"):
        gvals = np.array([gold_t.groups[r] for r in keep_rows], dtype=str)[keep]
        group_names, groups = np.unique(gvals, return_inverse=True)
        group_names = tuple(group_names.tolist())
        groups = groups.astype(np.int16)

    base_names, base_pred = make_baselines(gold_codes, len(labels), labels, spec.baselines, _seed(spec))
    _refuse_clashes(base_names, sources, f"dataset {spec.name!r} (gold file {gpath})", "reserved for a baseline")
    supplied = set(supplied()) if supplied is not None else set()
    systems = tuple(sources) + tuple(base_names)
    kinds = tuple("baseline" if s in supplied else "system" for s in sources) + ("baseline",) * len(base_names)
    predictions = np.vstack([pred_codes, base_pred]) if len(base_names) else pred_codes
    identical = _identical_systems(systems, [row.tobytes() for row in predictions], set(sources))

    # what was read (metric settings are not recorded here: they are the
    # scoring steps' params, and this file must not change when they do)
    info = {
        "dataset": spec.name,
        "warnings": stripped_warnings(stripped) + _perfect_warnings(gold_codes, pred_codes, list(sources))
        + _identical_warnings(identical, sources, supplied),
        "stripped": stripped,
        "labels": list(labels),
        "n_gold_rows": len(gold_t),
        "n_items": int(keep.sum()),
        "gold_counts": {lab: int(v) for lab, v in zip(labels, gold_counts)},
        "unused_labels": unused,
        "dropped_gold_labels": dropped_gold,
        "extra_label_policy": spec.extra_label_policy,
        "extra_labels": dict(spec.extra_labels),
        "extra_label_predictions": extra_hits,
        "items_dropped_by_policy": int(drop_mask.sum()),
        "random_seed": _seed(spec),
        "identical_systems": identical,
        "supplied_baselines": sorted(supplied),
        "display_names": dict(spec.display_names),
        "files": files() if files is not None else {},
    }
    return Dataset(name=spec.name, labels=labels, item_ids=item_ids, gold=gold_codes, systems=systems,
                   kinds=kinds, predictions=predictions, groups=groups, group_names=group_names, info=info)


# ---------------------------------------------------------------------------
def score_table(c: np.ndarray, systems, kinds, spec: DatasetSpec) -> pd.DataFrame:
    """``system, kind, <metric ids...>`` for a (S, K, K) confusion tensor."""
    scores = M.evaluate(c, spec.metrics, **spec.metric_params())
    df = pd.DataFrame({"system": list(systems), "kind": list(kinds)})
    for mid in spec.metrics:
        df[mid] = scores[mid]
    return df


def score_dataset(ds: Dataset, spec: DatasetSpec) -> pd.DataFrame:
    """``system, kind, <metric ids...>``: every metric of the dataset, the
    classification metrics from its confusion tensors and, for a span
    dataset, the span metrics from its per-article statistics.  A custom
    metric is first held to its contract on the systems' matrices
    (``custom_metrics.check``): a fault stops the step before it writes."""
    from ..measures.custom import check_registered

    c = ds.confusion()
    if spec.metrics:
        check_registered(spec.metrics, c, spec.metric_params(), where=f"the systems of dataset {spec.name!r}")
    df = score_table(c, ds.systems, ds.kinds, spec)
    if spec.item_metrics:  # metrics of per-item terms: held to their contract on the items, then summed
        from ..measures.items import check_items, evaluate_items, item_statistics

        check_items(spec.item_metrics, ds.gold, ds.predictions, ds.item_ids,
                    where=f"the systems of dataset {spec.name!r}")
        terms, slices = item_statistics(spec.item_metrics, ds.gold, ds.predictions, ds.item_ids)
        for m, v in evaluate_items(terms.sum(axis=1), slices).items():
            df[m] = v
    if spec.score_metrics:  # metrics of scores and probabilities (metaeval.measures.scores)
        from ..measures.scores.registry import evaluate

        one = ds.scores.values.shape[2] == 1
        gold = (ds.gold == ds.labels.index(spec.positive_class)).astype(np.int64) if one else ds.gold
        with np.errstate(invalid="ignore", divide="ignore"):
            ev = evaluate(spec.score_metrics, ds.scores.values, gold, ds.groups, None,
                          len(ds.group_names) if ds.groups is not None else None)
        for m in spec.score_metrics:
            df[m] = ev[m]
    if spec.span_metrics:
        from ..measures.spans import evaluate_spans

        for m, v in evaluate_spans(ds.spans.statistics().sum(axis=1), spec.span_metrics).items():
            df[m] = v
    return df


def confusion_long(c: np.ndarray, systems, labels) -> pd.DataFrame:
    """Long form ``system, predicted, gold, count`` of a (S, K, K) tensor."""
    s, k, _ = c.shape
    si, pi, gi = np.meshgrid(np.arange(s), np.arange(k), np.arange(k), indexing="ij")
    lab = np.array(labels, dtype=object)
    return pd.DataFrame({"system": np.array(systems, dtype=object)[si.ravel()], "predicted": lab[pi.ravel()],
                         "gold": lab[gi.ravel()], "count": c.ravel().astype(np.int64)})


def confusion_from_long(df: pd.DataFrame, labels) -> tuple[list[str], np.ndarray]:
    """Inverse of ``confusion_long``: (systems in file order, (S, K, K))."""
    systems = list(dict.fromkeys(df["system"].astype(str)))
    idx = {lab: i for i, lab in enumerate(labels)}
    sidx = {s: i for i, s in enumerate(systems)}
    c = np.zeros((len(systems), len(labels), len(labels)), dtype=np.int64)
    np.add.at(c, (df["system"].astype(str).map(sidx).to_numpy(), df["predicted"].astype(str).map(idx).to_numpy(),
                  df["gold"].astype(str).map(idx).to_numpy()), df["count"].to_numpy())
    return systems, c


# ---------------------------------------------------------------------------
# span tasks (SemEval-2020 Task 11): see metaeval.measures.spans
# ---------------------------------------------------------------------------
def load_span_dataset(spec: DatasetSpec, data_dir: str | Path, *, advice: str = "config") -> Dataset:
    """Read, check and code a span dataset (``format: semeval2020_si``,
    ``semeval2020_tc`` or ``semeval2021_tsd``).

    Every file is checked against the texts (offsets, documents, techniques)
    and every fault of every file is reported at once.

    * **Documents.**  The scored documents are the ones the gold defines:
      every post of a 2021 gold file; for the 2020 formats, whose gold files
      cannot list an article without spans, the articles of the gold file
      and those a prediction file has spans in (an article without
      propaganda that a submission covers).  Article files that neither
      mentions are not scored, and are named in a warning.  With
      ``documents: all_articles`` every article file of the folder is a
      document (the PTC layout, where the folder is the split).
    * TC: each submission must label exactly the gold spans; its labels are
      paired with the gold's (``spans.align_tc``) and the classification
      view holds one item per gold instance (grouped by article), with the
      generated baselines.  The span view (FLC: δ on the technique) holds the
      gold instances and each system's labels on them, overlapping spans of
      one technique merged, as the official FLC scorer does.
    * SI (and toxic spans): gold spans are merged; a submission with
      overlapping spans is refused unless ``merge_overlapping_predictions``
      (the scorer's ``-m``; toxic-spans offsets are sets, never overlapping).
      ``synthetic`` adds systems generated from the gold
      (``spans.synthetic_systems``), ``baselines`` the span baselines
      (``spans.span_baselines``).

    Said in ``dataset.json`` (``warnings``, and the counts) and on the
    console: offsets past the end of a text (``offsets_past_end``), files
    that predict no span, unscored article files, articles scored because
    only predictions mention them, systems identical to another system or
    to a baseline.
    """
    from ..measures import spans as SP
    from .readers import spans as span_files

    data_dir = Path(data_dir)
    gpath = spec.gold_path(data_dir)
    context = f"dataset {spec.name!r} (gold file {gpath})"
    tc = spec.span_task == SP.TC
    labels = tuple(spec.labels)
    policy = spec.offsets_past_end
    files = spec.prediction_files(data_dir)
    if spec.span_format == "semeval2021_tsd":
        all_texts, gold_t = span_files.read_tsd_gold(gpath, policy)
        texts = {str(i): t for i, t in enumerate(all_texts)}
    else:
        try:
            texts = span_files.read_texts(data_dir / spec.articles)
        except DataError as e:
            raise DataError(e.problems, context) from None
        gold_t = span_files.read_spans(gpath, spec.span_task, {a: len(t) for a, t in texts.items()},
                               labels if tc else None, policy)
    _refuse_bad_gold(gold_t, context)
    lengths = {a: len(t) for a, t in texts.items()}
    post_lengths = list(lengths.values())  # 2021: post i is the i-th
    tables = {system: (span_files.read_tsd_predictions(path, post_lengths, policy) if spec.span_format == "semeval2021_tsd"
                       else span_files.read_spans(path, spec.span_task, lengths, labels if tc else None, policy))
              for system, path in files.items()}
    ds = code_span_dataset(spec, texts, gold_t, tables, texts_where=str(data_dir / spec.articles)
                           if spec.articles else str(gpath), supplied=spec.supplied_baselines(files),
                           files=_file_hashes(gpath, files))
    if spec.articles:
        ds.info["articles_sha256"] = folder_sha256(data_dir / spec.articles)
    name_the_systems(ds, {s: Path(p).stem for s, p in files.items()}, spec.declared_real(files),
                     _advice(spec, advice), files)
    return ds


def _refuse_bad_gold(gold_t, context: str) -> None:
    if not gold_t.problems and not len(gold_t):
        gold_t.fault(None, "no gold span", "file")
    if gold_t.problems:
        raise DataError(gold_t.problems, context, notes=["the prediction files are checked once the gold file reads "
                                                         "cleanly"])


def code_span_dataset(spec: DatasetSpec, texts: Mapping[str, str], gold_t, tables: Mapping[str, Any], *,
                      texts_where: str, supplied=frozenset(), files: Mapping | None = None) -> Dataset:
    """Check and code the span tables of a gold and of every system
    (``spans.SpanTable``: read from files by ``load_span_dataset``, or
    built from spans in memory by ``spans.span_table``) against the texts
    (``{document id: text}``), as ``code_dataset`` does for labels: one set
    of checks for files and memory.  ``texts_where``: where the texts come
    from (a folder, the gold file, ``texts``), for the messages;
    ``supplied``: the systems that are supplied baselines; ``files``:
    ``info["files"]``.  Raises ``DataError`` (listing every fault) before
    returning anything."""
    from ..measures import spans as SP
    from .readers.alignment import _rank_within, align_tc  # the gold's repeated techniques on identical offsets
    from ..measures.spans.statistics import row_keys
    from .readers.spans import to_spans

    gpath = gold_t.path
    context = f"dataset {spec.name!r}" + (f" (gold file {gpath})" if gold_t.unit == "line" else "")
    _refuse_bad_gold(gold_t, context)
    tc = spec.span_task == SP.TC
    labels = tuple(spec.labels)
    lcode = {lab: i for i, lab in enumerate(labels)} if tc else None
    policy = spec.offsets_past_end
    sources = {system: t.path for system, t in tables.items()}
    warnings: list[str] = []
    documents: dict[str, Any] = {}

    # -- the documents -------------------------------------------------------------
    if spec.span_format == "semeval2021_tsd":
        doc_ids = tuple(texts)  # every post of the gold, in file order
        documents.update(source="every post of the gold file", n=len(doc_ids))
    elif spec.documents == "all_articles":  # the folder is the test set (the PTC layout)
        doc_ids = tuple(sorted(texts))
        in_gold = set(gold_t.article)
        documents.update(source="every article file of the articles folder (documents: all_articles)"
                         if gold_t.unit == "line" else "every document of the texts",
                         n=len(doc_ids), n_in_gold=len(in_gold),
                         scored_without_gold_spans=sorted(set(doc_ids) - in_gold))
    else:
        in_gold = set(gold_t.article)
        predicted = {a for t in tables.values() for a in t.article}
        doc_ids = tuple(sorted(in_gold | predicted))
        only_predicted = sorted(predicted - in_gold)
        unscored = sorted(set(texts) - in_gold - predicted)
        documents.update(source="the articles of the gold file, and those with predicted spans", n=len(doc_ids),
                         n_in_gold=len(in_gold), scored_without_gold_spans=only_predicted,
                         unscored_article_files=len(unscored))
        if only_predicted:
            warnings.append(f"{len(only_predicted)} article(s) have no gold span but are scored because prediction "
                            f"files have spans in them ({_examples(only_predicted)}): those spans are false "
                            f"positives, and the articles count in the per-article character F1")
        if unscored:
            warnings.append(f"{len(unscored):,} article file(s) in {texts_where} are mentioned neither "
                            f"by the gold nor by any prediction file and are not scored "
                            f"({_examples(['article' + a + '.txt' for a in unscored], 10)})")
    acode = {a: i for i, a in enumerate(doc_ids)}
    doc_texts = [texts[a] for a in doc_ids]
    alen = np.array([len(t) for t in doc_texts], dtype=np.int64)
    gold = to_spans(gold_t, acode, lcode)

    # -- the predictions ---------------------------------------------------------
    problems: list[Problem] = []
    read: dict[str, int] = {}
    sys_spans: list = []
    merged: dict[str, int] = {}
    pred_rows = []
    if tc:
        gi = gold.take(np.lexsort((gold.label, gold.end, gold.start, gold.article)))
    for system, t in tables.items():
        problems += t.problems
        if tc:
            if t.problems:
                continue
            lab, probs = align_tc(gi, to_spans(t, acode, lcode), doc_ids, t.path, t.lines, t.unit)
            problems += probs
            pred_rows.append(lab)
            read[system] = len(t)
            continue
        if any(p.kind == "file" for p in t.problems):
            continue
        sp = to_spans(t, acode)  # the rows that read cleanly are checked too (true counts)
        n_overlap = len(sp) - len(SP.merge_spans(sp))
        if n_overlap and not spec.merge_overlapping_predictions:
            # one problem counted per overlapping span; the pairs shown are examples of it
            how = (f"set datasets.{spec.name}.merge_overlapping_predictions: true in the config (on the command "
                   f"line: --set merge_overlapping_predictions=true; in the library: read_files(..., "
                   f"merge_overlapping_predictions=True))" if t.unit == "line" else
                   "pass merge_overlapping_predictions=True")
            problems.append(Problem(
                t.path, None, f"{n_overlap:,} span(s) overlap an earlier one: the official scorer refuses "
                f"overlapping spans unless told to merge them (-m); {how} to merge them", "overlap",
                n_overlap, t.unit))
            for i, j in SP.overlapping_pairs(sp):
                problems.append(Problem(
                    t.path, t.lines[j], f"span [{t.start[j]}, {t.end[j]}) of article {t.article[j]!r} overlaps "
                    f"the span [{t.start[i]}, {t.end[i]}) on {t.unit} {t.lines[i]}", "overlap", 0, t.unit))
            continue
        if t.problems:
            continue
        read[system] = len(t)
        merged[system] = n_overlap
        sys_spans.append(SP.merge_spans(sp))
    if problems:
        raise DataError(problems, context)

    past_end = {s: {"path": t.path, "spans": t.past_end_spans, "characters": t.past_end_chars}
                for s, t in tables.items() if t.past_end_chars}
    if gold_t.past_end_chars:
        past_end = {"(gold)": {"path": str(gpath), "spans": gold_t.past_end_spans,
                               "characters": gold_t.past_end_chars}, **past_end}
    for s, v in past_end.items():
        warnings.append(f"{'the gold file' if s == '(gold)' else f'system {s!r}'}: {v['characters']:,} character(s) "
                        f"in {v['spans']:,} span(s) lie past the end of their text ({v['path']}); scored as "
                        f"{'gold characters no system can find' if s == '(gold)' else 'wrong predicted characters'}, "
                        f"as the official scorer does (offsets_past_end: wrong; 'refuse' refuses the file)")
    empty = [s for s, t in tables.items() if not len(t)]
    warnings += [f"system {s!r} predicts no spans ({sources[s]}): scored as predicting nothing (an empty submission)"
                 for s in empty]

    if tc:
        gold_codes = gi.label.astype(np.int8)
        _, unused = _check_used_labels(spec, gold_codes, gpath)
        base_names, base_pred = make_baselines(gold_codes, len(labels), labels, spec.baselines, _seed(spec))
        _refuse_clashes(base_names, sources, context, "reserved for a baseline")
        pred = np.vstack(pred_rows + list(base_pred)).astype(np.int8) if len(tables) + len(base_names) else \
            np.zeros((0, len(gi)), dtype=np.int8)
        systems = tuple(tables) + tuple(base_names)
        kinds = tuple("baseline" if s in supplied else "system" for s in tables) + ("baseline",) * len(base_names)
        dup = _rank_within(row_keys(gi.article, gi.start, gi.end))
        item_ids = np.array([f"{doc_ids[a]}:{s}-{e}" + (f"#{d}" if d else "")
                             for a, s, e, d in zip(gi.article, gi.start, gi.end, dup)], dtype=str)
        view = SP.merge_spans(gi, by_label=True)
        sys_spans = [SP.merge_spans(SP.Spans(gi.article, gi.start, gi.end, row), by_label=True) for row in pred]
        degenerate = {f"all_{lab}": SP.merge_spans(SP.Spans(gi.article, gi.start, gi.end, np.full(len(gi), code)),
                                                   by_label=True) for code, lab in enumerate(labels)}
        ds = Dataset(name=spec.name, labels=labels, item_ids=item_ids, gold=gold_codes, systems=systems, kinds=kinds,
                     predictions=pred, groups=gi.article.astype(np.int16), group_names=doc_ids,
                     spans=SpanView(doc_ids, alen, labels, True, view, sys_spans, degenerate))
        counts = {lab: int(v) for lab, v in zip(labels, np.bincount(gold_codes, minlength=len(labels)))}
    else:
        view_gold = SP.merge_spans(gold)
        if len(view_gold) < len(gold):  # the task's reading (docs/spans.md), said with its count
            warnings.append(f"{gpath}: {len(gold) - len(view_gold):,} gold span(s) overlap another and "
                            f"are merged with it, as the official scorer merges them ({len(view_gold):,} gold "
                            f"spans scored of {len(gold):,} read)")
        warnings += [f"{tables[s].path}: {n:,} span(s) overlap an earlier one and are merged with it "
                     f"(merge_overlapping_predictions)" for s, n in merged.items() if n]
        systems = list(tables)
        kinds = ["baseline" if s in supplied else "system" for s in tables]
        if spec.synthetic:
            gen = SP.synthetic_systems(view_gold, alen, spec.synthetic["kinds"], spec.synthetic["strengths"],
                                       spec.synthetic["seed"])
            _refuse_clashes(gen, sources, context, "taken by a synthetic system")
            systems += list(gen)
            kinds += ["synthetic"] * len(gen)
            sys_spans += list(gen.values())
        base = SP.span_baselines(spec.baselines, doc_texts, view_gold, _seed(spec) or 0)
        _refuse_clashes(base, sources, context, "reserved for a baseline")
        systems += list(base)
        kinds += ["baseline"] * len(base)
        sys_spans += list(base.values())
        if not tables and not spec.synthetic:
            raise DataError([Problem(str(gpath), None, "no system to score (no prediction file, no synthetic "
                                                       "system)", "file")], context)
        degenerate = SP.span_baselines(("no_spans", "whole_text", "every_token"), doc_texts, view_gold, 0)
        ds = Dataset(name=spec.name, labels=(), item_ids=np.zeros(0, dtype=str), gold=np.zeros(0, dtype=np.int8),
                     systems=tuple(systems), kinds=tuple(kinds), predictions=np.zeros((len(systems), 0), np.int8),
                     spans=SpanView(doc_ids, alen, (), False, view_gold, sys_spans, degenerate))
        unused, counts = [], {}
    same = [s for s, sp, k in zip(ds.systems, ds.spans.systems, ds.kinds) if s in tables
            and np.array_equal(sp.as_array()[sp.order()], ds.spans.gold.as_array()[ds.spans.gold.order()])]
    identical = _identical_systems(ds.systems, [sp.as_array()[sp.order()].tobytes() for sp in ds.spans.systems]
                                   if not tc else [row.tobytes() for row in ds.predictions], set(tables))
    ds.info = {
        "dataset": spec.name, "task": spec.span_task, "format": spec.span_format,
        "warnings": _perfect_warnings([0], [[0]] * len(same), same, "span")
        + _identical_warnings(identical, set(tables),
                              {s for s, k in zip(ds.systems, ds.kinds) if k == "baseline" and s in tables})
        + warnings,
        "labels": list(labels), "n_articles": len(doc_ids), "documents": documents,
        "n_gold_spans": len(gold), "n_gold_spans_scored": len(ds.spans.gold),
        "n_items": int(ds.n_items), "gold_counts": counts, "unused_labels": unused,
        "spans_read": read, "overlapping_spans_merged": {} if tc else merged,
        "offsets_past_end": {"policy": policy, "files": past_end},
        "predicts_no_spans": empty, "identical_systems": identical,
        "supplied_baselines": sorted(supplied), "display_names": dict(spec.display_names),
        "synthetic": dict(spec.synthetic) if spec.synthetic else None, "random_seed": _seed(spec),
        "files": dict(files or {}),
    }
    return ds

