"""Reproduction report: every published cell next to the reproduced value.

The published tables are data (``config/published/*.csv``, typed in from the
papers); ``config/published/tables.yaml`` maps the papers' system and metric
names onto the project's and says which results each table is compared
with.  For every published cell the report gives the reproduced value, the
difference and a status:

* ``match``: equal at the paper's printed precision, i.e.
  ``|reproduced - published| <= 0.5 * 10**-decimals``;
* ``differs``: reproducible in principle, but not equal (the difference is
  given);
* ``not reproducible``: with the reason (system not public, systems
  retrained by the authors, a different random draw, ...); the value we get
  on our data is still shown where there is one.

It also checks the papers against themselves (averages that are not the mean
of their row, Kendall taus that no ranking of the stated number of systems
can produce, statements of the text that contradict a table, ranks that
contradict values) and, for Amemiya & Sakai, states in sentences generated
from the numbers whether our data support each conclusion of section 5.4.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..data.files import read_result_csv
from ..present.tables import ordinal
from .published import _CONCLUSION_FILES, _RESULT_FILES, Published, required_results  # noqa: F401

__all__ = ["MATCH", "DIFFERS", "NOT_REPRODUCIBLE", "Published", "ResultStore", "reproduce", "required_results"]

MATCH, DIFFERS, NOT_REPRODUCIBLE = "match", "differs", "not reproducible"
STATUSES = (MATCH, DIFFERS, NOT_REPRODUCIBLE)


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------
# the published tables and the result files they need: metaeval.reproduction.published
class ResultStore:
    """Reads the pipeline's result files of each dataset on demand.

    ``files``: the result files (``dataset/name``, relative to
    ``results_dir``) the report may read, as declared to the workflow
    (``required_results``); reading any other is an error, so that an
    undeclared input cannot slip in and be read before it is written.
    ``None`` allows every file (for use outside the workflow).
    """

    def __init__(self, results_dir: str | Path, available: set[str] | None = None,
                 files: set[str] | None = None):
        self.root = Path(results_dir)
        self.available = available
        self.files = None if files is None else {str(f) for f in files}
        self._cache: dict[tuple[str, str], Any] = {}

    def has(self, dataset: str, name: str) -> bool:
        if self.available is not None and dataset not in self.available:
            return False
        if self.files is not None and f"{dataset}/{name}" not in self.files:
            return False
        return (self.root / dataset / name).exists()

    def get(self, dataset: str, name: str):
        if self.files is not None and f"{dataset}/{name}" not in self.files:
            raise KeyError(f"the reproduction report reads {dataset}/{name}, which is not among its declared "
                           f"inputs (metaeval.reproduction.reproduce.required_results)")
        key = (dataset, name)
        if key not in self._cache:
            p = self.root / dataset / name
            if name.endswith(".json"):
                self._cache[key] = json.loads(p.read_text())
            elif name == "similarity.csv":
                self._cache[key] = read_result_csv(p, index_col="metric")
            else:
                self._cache[key] = read_result_csv(p)
        return self._cache[key]

    def score(self, dataset: str, system: str, metric: str, weight_set: str | None = None) -> float | None:
        """A system's score; ``chance:<guesser>`` is a chance level
        (``chance.csv``, e.g. Kaushal et al.'s "Random" rows: ``chance:uniform``)."""
        if system.startswith("chance:"):
            if not self.has(dataset, "chance.csv"):
                return None
            ch = self.get(dataset, "chance.csv").set_index("guesser")
            guesser = system.split(":", 1)[1]
            return float(ch.loc[guesser, metric]) if guesser in ch.index and metric in ch.columns else None
        if weight_set is not None and self.has(dataset, "weights.csv"):
            w = self.get(dataset, "weights.csv")
            hit = w[(w.system == system) & (w.metric == metric) & (w.weight_set == weight_set)]
            if len(hit):
                return float(hit["score"].iloc[0])
        df = self.get(dataset, "scores.csv").set_index("system")
        if system not in df.index or metric not in df.columns:
            return None
        return float(df.loc[system, metric])


# ---------------------------------------------------------------------------
# cells
# ---------------------------------------------------------------------------
def _num(s: str) -> float | None:
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def _status(published: float, reproduced: float | None, decimals: int) -> tuple[str, float | None]:
    """match / differs at the printed precision; a value that is missing
    cannot differ: it is not reproducible (the caller says why)."""
    if reproduced is None or np.isnan(reproduced):
        return NOT_REPRODUCIBLE, None
    diff = reproduced - published
    return (MATCH if abs(diff) <= 0.5 * 10.0 ** -decimals + 1e-12 else DIFFERS), diff


def _cell(t, row, column, published, view=None, reproduced=None, status=NOT_REPRODUCIBLE, reason="",
          difference=None):
    return {"table": t["id"], "paper": t["paper"], "row": row, "column": column, "view": view or "",
            "published": published, "reproduced": reproduced, "difference": difference, "status": status,
            "reason": reason}


def _compare(t, row, column, published, view, reproduced, decimals, reason_if_not=None, missing=None):
    """A cell whose reproduction is meaningful (status match/differs), or
    not reproducible with ``reason_if_not`` (value and difference shown);
    without a reproduced value, not reproducible with ``missing`` (why it
    is missing)."""
    p = _num(published)
    if reason_if_not is not None:
        diff = None if reproduced is None or p is None else reproduced - p
        return _cell(t, row, column, published, view, reproduced, NOT_REPRODUCIBLE, reason_if_not, diff)
    status, diff = _status(p, reproduced, decimals)
    reason = {MATCH: "", DIFFERS: "reproduced value differs at the printed precision"}.get(
        status, missing or f"no reproduced value in the results of {view} (the system or metric is not in them)")
    return _cell(t, row, column, published, view, reproduced, status, reason, diff)


def _scores_cells(pub: Published, t, store: ResultStore) -> list[dict]:
    df = pub.table(t)
    paper, decimals = t["paper"], int(t.get("decimals", 3))
    cells = []
    columns = t.get("columns")
    for row, values in df.iterrows():
        if t.get("dataset_column"):
            dataset = t["datasets"][values[t["dataset_column"]]]
            label = f"{values[t['dataset_column']]} / {row}"
        else:
            dataset, label = t["dataset"], row
        system = pub.system(paper, row, t)
        for col, published in values.items():
            if col == t.get("dataset_column") or published == "":
                continue
            if col.endswith("_rank"):
                cells.append(_cell(t, label, col, published, dataset, None, NOT_REPRODUCIBLE,
                                   pub.reason("submission_ranks")))
                continue
            metric, wset = (columns[col] if columns else (pub.metric(paper, col), t.get("weight_set")))
            if system is None:
                cells.append(_cell(t, label, col, published, dataset, None, NOT_REPRODUCIBLE, pub.reason("not_public")))
                continue
            if not store.has(dataset, "scores.csv"):
                cells.append(_cell(t, label, col, published, dataset, None, NOT_REPRODUCIBLE,
                                   f"dataset {dataset} is not configured"))
                continue
            value = store.score(dataset, system, metric, wset)
            reason = pub.reason("random_draw") if system == "random" else None
            cells.append(_compare(t, label, col, published, dataset, value, decimals, reason))
    return cells


def _class_count_cells(pub: Published, t, store: ResultStore) -> list[dict]:
    df = pub.table(t)
    cells = []
    for row, values in df.iterrows():
        for col, published in values.items():
            ds = t["columns"][col]
            value = None
            if store.has(ds, "dataset.json"):
                info = store.get(ds, "dataset.json")
                value = float(info["n_items"] if row == "total" else info["gold_counts"].get(row, np.nan))
            diff = None if value is None else value - float(published)
            cells.append(_cell(t, row, col, published, ds, value, NOT_REPRODUCIBLE, pub.reason(t["reason"]), diff))
    return cells


def _nine(pub: Published, paper: str) -> dict[str, str]:
    return dict(pub.spec["metrics"][paper])


def _view_cells(pub: Published, t, store: ResultStore, lookup) -> list[dict]:
    """Cells of a table computed on each view; ``lookup(view, row, col)``."""
    df = pub.table(t)
    decimals = int(t.get("decimals", 4))
    cells = []
    for view in t["views"]:
        for row, values in df.iterrows():
            for col, published in values.items():
                if published == "":
                    continue
                # a configured dataset whose meta-evaluation did not run (too few systems) has no such file
                value = lookup(view, row, col) if all(store.has(view, f) for f in _RESULT_FILES[t["kind"]]) \
                    else None
                cells.append(_compare(t, row, col, published, view, value, decimals, pub.reason(t["reason"])))
    return cells


def _similarity_lookup(pub, t, store):
    m = _nine(pub, t["paper"])

    def f(view, row, col):
        sim = store.get(view, "similarity.csv")
        return float(sim.loc[m[row], m[col]])
    return f


def _stability_lookup(pub, t, store):
    m = _nine(pub, t["paper"])

    def f(view, row, col):
        return float(store.get(view, "stability.csv").set_index("metric").loc[m[row], "mean_tau"])
    return f


def _merging_lookup(pub, t, store, name):
    m = _nine(pub, t["paper"])

    def f(view, row, col):
        df = store.get(view, name)
        pair = "mean" if col == t.get("average_column") else _pair_key(col, df)
        hit = df[(df.metric == m[row]) & (df.pair == pair)]
        return float(hit["tau"].iloc[0]) if len(hit) else None
    return f


def _pair_key(col: str, df: pd.DataFrame) -> str:
    """Our pair name for the paper's (order of the two classes may differ)."""
    a, b = col.split("+")
    for cand in (f"{a}+{b}", f"{b}+{a}"):
        if cand in set(df["pair"]):
            return cand
    return col


def _split_score_cells(pub: Published, t, store: ResultStore) -> list[dict]:
    df = pub.table(t)
    metric = pub.metric(t["paper"], t["metric"])
    invariant = t.get("invariant") or {}
    cells = []
    for view in t["views"]:
        for row, values in df.iterrows():
            system = pub.system(t["paper"], row, t)
            for col, published in values.items():
                if system is None:
                    cells.append(_cell(t, row, col, published, view, None, NOT_REPRODUCIBLE,
                                       pub.reason("paper_system")))
                    continue
                value = store.score(view, system, metric) if store.has(view, "scores.csv") else None
                missing = None if store.has(view, "scores.csv") else f"dataset {view} is not configured"
                if row in invariant:
                    c = _compare(t, row, col, published, view, value, int(t["decimals"]), missing=missing)
                    c["reason"] = invariant[row] + ("" if c["status"] == MATCH else "; " + c["reason"])
                    cells.append(c)
                else:
                    c = _compare(t, row, col, published, view, value, int(t["decimals"]), pub.reason(t["reason"]))
                    c["reason"] += "; reproduced value is on the full test set"
                    cells.append(c)
    return cells


def nine_metric_summary(pub: Published, paper: str, store: ResultStore, view: str, n_groups: int = 3):
    """Our Table 7 restricted to the paper's nine metrics: similarity groups
    (clustering of the nine-metric tau matrix), stability and discrimination
    ranks among the nine.  Index: the paper's metric names."""
    from ..methods.experiments import cluster_groups
    from ..engine.ranking import competition_rank

    names = _nine(pub, paper)
    ids = list(names.values())
    sim = store.get(view, "similarity.csv").loc[ids, ids]
    groups, _ = cluster_groups(sim, n_groups)
    st = store.get(view, "stability.csv").set_index("metric").loc[ids, "mean_tau"].to_numpy()
    mg = store.get(view, "merging.csv")
    mt = mg[mg.pair == "mean"].set_index("metric").loc[ids, "tau"].to_numpy()
    return pd.DataFrame({"metric": ids, "group": groups.loc[ids].to_numpy(), "stability_tau": st,
                         "consistency_rank": competition_rank(-np.round(st, 12)),
                         "merging_tau": mt, "ordinal_rank": competition_rank(np.round(mt, 12))},
                        index=list(names))


def _summary_cells(pub: Published, t, store: ResultStore) -> list[dict]:
    df = pub.table(t)
    cells = []
    for view in t["views"]:
        ours = (nine_metric_summary(pub, t["paper"], store, view)
                if store.has(view, "similarity.csv") and store.has(view, "stability.csv") else None)
        for row, values in df.iterrows():
            for col, published in values.items():
                if ours is None:
                    cells.append(_cell(t, row, col, published, view, None, NOT_REPRODUCIBLE,
                                       f"dataset {view} is not configured"))
                elif col == "group":
                    cells.append(_cell(t, row, col, published, view, ours.loc[row, "group"], NOT_REPRODUCIBLE,
                                       pub.reason(t["reason"]) + "; group letters name clusters of a different "
                                       "system set (see the conclusions)"))
                else:
                    cells.append(_compare(t, row, col, published, view, float(ours.loc[row, col]), 0,
                                          pub.reason(t["reason"])))
    return cells


# ---------------------------------------------------------------------------
# self-consistency of the papers
# ---------------------------------------------------------------------------
def _tau_granularity_notes(pub: Published, t) -> list[str]:
    """A Kendall tau of n untied systems is an odd (or even) multiple of
    1/P, P = n(n-1)/2: n_c - n_d has the parity of P."""
    n = t.get("n_systems")
    if not n:
        return []
    p = n * (n - 1) // 2
    df = pub.table(t)
    notes = []
    for row, values in df.iterrows():
        for col, published in values.items():
            v = _num(published)
            if v is None or col == t.get("average_column"):
                continue
            m = np.arange(-p, p + 1)
            m = m[(m - p) % 2 == 0]
            nearest = m[np.argsort(np.abs(m / p - v))[:2]]
            if np.min(np.abs(m / p - v)) > 1e-4 + 1e-9:
                cand = ", ".join(f"{k}/{p} = {k / p:.4f}" for k in sorted(nearest))
                notes.append(f"{t['title']}: the value {published} ({row}, {col}) cannot be a Kendall tau "
                             f"between two rankings of {n} systems without ties (n_c - n_d must have the parity "
                             f"of {p}); the nearest possible values are {cand}.")
    return notes


def _average_notes(pub: Published, t) -> list[str]:
    col = t.get("average_column")
    if not col:
        return []
    df = pub.table(t)
    d = int(t.get("decimals", 4))
    notes = []
    for row, values in df.iterrows():
        cells = [float(v) for c, v in values.items() if c != col and v != ""]
        mean = float(np.mean(cells))
        printed = float(values[col])
        # cells and average are each off by at most one unit of the last digit
        if abs(mean - printed) > 2.5 * 10.0 ** -d:
            notes.append(f"{t['title']}: the printed {col} of {row}, {printed:.{d}f}, is not the mean of its "
                         f"row ({' + '.join(f'{c:.{d}f}' for c in cells)}) / {len(cells)} = {mean:.{d}f}; "
                         f"difference {printed - mean:+.{d}f}.")
    return notes


def _rank_notes(pub: Published, t) -> list[str]:
    df = pub.table(t)
    notes = []
    for col in [c for c in df.columns if f"{c}_rank" in df.columns]:
        sub = df[df[f"{col}_rank"] != ""]
        v = sub[col].astype(float)
        r = sub[f"{col}_rank"].astype(int)
        bad, ties = [], []
        for a, b in combinations(sub.index, 2):
            if v[a] != v[b] and (v[a] > v[b]) != (r[a] < r[b]):
                bad.append(f"{a} {v[a]:.3f} ({r[a]}) vs {b} {v[b]:.3f} ({r[b]})")
            elif v[a] == v[b] and r[a] != r[b]:
                ties.append((a, b))
        if bad:
            notes.append(f"{t['title']}, {col}: ranks contradict the printed values: " + "; ".join(bad) + ".")
        if ties:
            tied = sorted({x for pair in ties for x in pair}, key=lambda s: r[s])
            notes.append(f"{t['title']}, {col}: equal printed values get different ranks "
                         f"({', '.join(f'{s} {v[s]:.3f} ({r[s]})' for s in tied)}); the paper does not say how "
                         f"ties were broken (they may differ beyond the printed digits).")
    return notes


def _names(ms: list[str]) -> str:
    return ms[0] if len(ms) == 1 else ", ".join(ms[:-1]) + f" and {ms[-1]}, tied"


def _claim_notes(pub: Published) -> list[str]:
    """The text's statements about the highest / lowest tau of a column,
    checked against the table, ties included."""
    spec = pub.spec.get("claims")
    if not spec:
        return []
    claims = pd.read_csv(pub.folder / spec["file"], comment="#", dtype=str)
    tables = {t["id"]: t for t in pub.spec["tables"]}
    notes = []
    for _, c in claims.iterrows():
        t = tables[c["table"]]
        col = pub.table(t)[c["column"]].astype(float)
        stated, metric = float(c["value"]), c["metric"]
        actual = col[metric]
        extreme = col.max() if c["extreme"] == "highest" else col.min()
        at_extreme = [m for m in col.index if abs(col[m] - extreme) <= 1e-9]
        problems = []
        if abs(actual - stated) > 1e-9:
            problems.append(f"the table gives {metric} {actual:.4f}")
        if abs(extreme - stated) > 1e-9 or metric not in at_extreme:
            problems.append(f"the table's {c['extreme']} value is {extreme:.4f} ({_names(at_extreme)})")
        claim = f"{t['title']}: the text says the {c['extreme']} tau for {c['column']} is {metric} with {stated:.4f}"
        if problems:
            notes.append(f"{claim}, but " + " and ".join(problems) + ".")
        elif len(at_extreme) > 1:
            others = [m for m in at_extreme if m != metric]
            notes.append(f"{claim}; the table agrees, but {' and '.join(others)} "
                         f"{'ties' if len(others) == 1 else 'tie'} with it at {extreme:.4f}.")
    return notes


def _split_tau_notes(pub: Published, t) -> list[str]:
    """Tables 4 and 5 print one split's scores on halves X and Y with the tau
    between the two rankings and within three tiers: recompute both taus
    from the printed scores."""
    if "printed_tau" not in t:
        return []
    from ..methods.experiments import tier_sizes
    from ..engine.ranking import kendall_tau, orient

    df = pub.table(t)
    x, y = orient(df["X"].astype(float).to_numpy()), orient(df["Y"].astype(float).to_numpy())
    tau = float(kendall_tau(x, y))
    order = np.argsort(-x, kind="stable")
    bounds = np.cumsum([0] + tier_sizes(len(df)))
    tiers = [float(kendall_tau(x[order[a:b]], y[order[a:b]])) for a, b in zip(bounds[:-1], bounds[1:])]
    printed, printed_tiers = float(t["printed_tau"]), [float(v) for v in t.get("printed_tier_taus", [])]
    notes = []
    if abs(tau - printed) > 0.5e-4 + 1e-12:
        notes.append(f"{t['title']}: the printed tau between the X and Y rankings, {printed:.4f}, does not follow "
                     f"from the printed scores: Kendall's tau-b of the X and Y columns is {tau:.4f}.")
    if printed_tiers and np.max(np.abs(np.subtract(tiers, printed_tiers))) > 0.5e-4 + 1e-12:
        spans = [f"{a + 1}-{b}" for a, b in zip(bounds[:-1], bounds[1:])]
        notes.append(f"{t['title']}: the tier taus printed in the text ({', '.join(f'{v:.4f}' for v in printed_tiers)}"
                     f" for ranks {', '.join(spans)} on X) do not follow from the printed scores either: they are "
                     f"{', '.join(f'{v:.4f}' for v in tiers)}.")
    return notes


def _auc_vertex_note(pub: Published, store: "ResultStore") -> list[str]:
    """Scarton et al. print the ROC polygon of a hard classifier with the
    vertex (0,1), a typo for (1,0): say so, and show that their own table
    confirms (1,0)."""
    spec = pub.spec.get("auc_vertex")
    if not spec:
        return []
    t = {t["id"]: t for t in pub.spec["tables"]}[spec["table"]]
    published = float(pub.table(t).loc[spec["row"], spec["column"]])
    note = (f"{t['title']}: the paper (section 2) gives the ROC polygon of a hard classifier as (0,0), "
            f"(FPR_c, R_c), (1,1), (0,1). With (0,1) the area is (1 - R_c + FPR_c)/2 = 1 - AUC_c, which "
            f"rewards errors; the vertex must be (1,0), which gives AUC_c = (1 + R_c - FPR_c)/2, and the project "
            f"uses it.")
    system = pub.system(t["paper"], spec["row"], t)
    if store.has(spec["dataset"], "scores.csv") and system is not None:
        ours = store.score(spec["dataset"], system, pub.metric(t["paper"], spec["column"]))
        if ours is not None:
            d = int(t.get("decimals", 3))
            # class weights sum to 1, so the weighted (0,1) area is 1 - wAUC
            verdict = "confirming (1,0)" if abs(ours - published) <= 0.5 * 10.0 ** -d + 1e-12 else "which differs"
            note += (f" Their own numbers confirm it: {spec['row']}'s printed {spec['column']} is {published:.{d}f}; "
                     f"with (1,0) we get {ours:.{d}f}, with (0,1) it would be {1 - ours:.{d}f} ({verdict}).")
    return [note]


def _derived_rank_notes(pub: Published) -> list[str]:
    """Table 7's ranks against the ranks implied by Tables 3 and 6."""
    tables = {t["id"]: t for t in pub.spec["tables"]}
    if not {"amemiya_sakai_table3", "amemiya_sakai_table6", "amemiya_sakai_table7"} <= set(tables):
        return []
    from ..engine.ranking import competition_rank

    t7 = pub.table(tables["amemiya_sakai_table7"])
    st = pub.table(tables["amemiya_sakai_table3"])["tau"].astype(float)
    mg = pub.table(tables["amemiya_sakai_table6"])["average"].astype(float)
    notes = []
    for col, series, sign in (("consistency_rank", st, -1), ("ordinal_rank", mg, 1)):
        derived = pd.Series(competition_rank(sign * series.to_numpy()), index=series.index)
        bad = [f"{m}: {t7.loc[m, col]} vs {derived[m]}" for m in t7.index if int(t7.loc[m, col]) != derived[m]]
        name = tables["amemiya_sakai_table7"]["title"]
        notes.append(f"{name}: the {col.replace('_', ' ')}s " + ("agree with" if not bad else "differ from") +
                     " the order of the printed values of " +
                     ("Table 3" if col == "consistency_rank" else "Table 6 (average column)") +
                     ("." if not bad else ": " + "; ".join(bad) + "."))
    return notes


# ---------------------------------------------------------------------------
# conclusions (Amemiya & Sakai 5.4), sentences generated from the numbers
# ---------------------------------------------------------------------------
def _rand_index(a: Mapping[str, str], b: Mapping[str, str]) -> tuple[float, list[str]]:
    keys = sorted(set(a) & set(b))
    agree, disagree = 0, []
    for x, y in combinations(keys, 2):
        if (a[x] == a[y]) == (b[x] == b[y]):
            agree += 1
        else:
            disagree.append(f"{x} and {y} ({'together' if a[x] == a[y] else 'apart'} in the paper, "
                            f"{'together' if b[x] == b[y] else 'apart'} here)")
    n = len(keys) * (len(keys) - 1) // 2
    return (agree / n if n else float("nan")), disagree


def _verdict(ri: float) -> str:
    return "supported" if ri == 1.0 else ("partly supported" if ri >= 0.75 else "not supported")


def _sets(groups: Mapping[str, str], order) -> str:
    """Groups as sets of metric names, without their letters (so that two
    groupings can be compared in one sentence without mixing letters)."""
    by: dict[str, list[str]] = {}
    for m in order:
        if m in groups:
            by.setdefault(groups[m], []).append(m)
    return ", ".join("{" + ", ".join(v) + "}" for v in sorted(by.values(), key=lambda v: (-len(v), order.index(v[0]))))


def paper_similarity_matrix(pub: Published, table_id: str = "amemiya_sakai_table2") -> pd.DataFrame:
    """The paper's Table 2 (upper triangle as printed) as a full symmetric
    tau matrix over the paper's nine metric names."""
    t = {t["id"]: t for t in pub.spec["tables"]}[table_id]
    half = pub.table(t)
    names = list(pub.spec["metrics"][t["paper"]])
    m = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for r in half.index:
        for c in half.columns:
            if half.loc[r, c] != "":
                m.loc[r, c] = m.loc[c, r] = float(half.loc[r, c])
    return m


def conclusions(pub: Published, store: ResultStore) -> list[str]:
    spec = pub.spec.get("conclusions")
    if not spec:
        return []
    from ..methods.experiments import cluster_groups

    out = []
    paper = spec["paper"]
    names = list(_nine(pub, paper))
    paper_groups = {m: g for g, ms_ in spec["groups"].items() for m in ms_}
    # the same clustering as ours, applied to the paper's own Table 2
    table_groups = cluster_groups(paper_similarity_matrix(pub), len(spec["groups"]))[0].to_dict()
    ri_table, _ = _rand_index(paper_groups, table_groups)
    for view in spec["views"]:
        if not all(store.has(view, f) for f in _CONCLUSION_FILES):
            out.append(f"**{view}**: not run (the dataset is not configured or has too few systems).")
            continue
        s = nine_metric_summary(pub, paper, store, view)
        n_sys = int(store.get(view, "stability.csv")["n_systems"].iloc[0])
        lines = [f"**{view}** ({n_sys} ranked systems; ranks among the paper's nine metrics):"]
        ms, bd, bo, wd = spec["most_stable"], spec["best_discriminator"], spec["best_overall"], spec["worst_discriminator"]
        top = s.sort_values("stability_tau", ascending=False)
        first = top.index[0]
        ok = s.loc[ms, "consistency_rank"] == 1
        lines.append(f"- Most stable metric (paper: {ms}). Here the most stable is {first} (mean tau "
                     f"{top.iloc[0]['stability_tau']:.4f}); {ms} ranks {ordinal(int(s.loc[ms, 'consistency_rank']))} "
                     f"(mean tau {s.loc[ms, 'stability_tau']:.4f}). "
                     f"{'Supported' if ok else 'Not supported'}.")
        low = s.sort_values("merging_tau")
        ok = s.loc[bd, "ordinal_rank"] == 1
        lines.append(f"- Best ordinal discriminator (paper: {bd}). Here the lowest mean merging tau is {low.index[0]}'s "
                     f"({low.iloc[0]['merging_tau']:.4f}); {bd} ranks {ordinal(int(s.loc[bd, 'ordinal_rank']))} "
                     f"({s.loc[bd, 'merging_tau']:.4f}). {'Supported' if ok else 'Not supported'}.")
        ok = s.loc[wd, "ordinal_rank"] == s["ordinal_rank"].max()
        lines.append(f"- Worst ordinal discriminator (paper: {wd}, 9th). Here {wd} ranks "
                     f"{ordinal(int(s.loc[wd, 'ordinal_rank']))} of 9; the worst is "
                     f"{low.index[-1]} ({low.iloc[-1]['merging_tau']:.4f}). {'Supported' if ok else 'Not supported'}.")
        total = s["consistency_rank"] + s["ordinal_rank"]
        best = total[total == total.min()].index.tolist()
        ok = bo in best
        lines.append(f"- Best on both criteria (paper: {bo}, 3rd in stability and 2nd in discrimination). Here {bo} "
                     f"is {ordinal(int(s.loc[bo, 'consistency_rank']))} in stability and "
                     f"{ordinal(int(s.loc[bo, 'ordinal_rank']))} in discrimination, rank sum {int(total[bo])}; "
                     f"the smallest rank sum ({int(total.min())}) is {', '.join(best)}'s. "
                     f"{'Supported' if ok else 'Not supported'}.")
        ours = s["group"].to_dict()
        ri_paper, dis = _rand_index(paper_groups, ours)
        ri_ours_table, _ = _rand_index(table_groups, ours)
        n_paper = len(paper_groups) * (len(paper_groups) - 1) // 2
        between = "".join(
            f" The paper places {m} between two of its groups; here it is clustered with "
            f"{', '.join(x for x, g in ours.items() if g == ours[m] and x != m) or 'no other metric'}."
            for m in spec.get("between_groups", {}))
        lines.append(
            f"- Similarity groups. The paper states the groups {_sets(paper_groups, names)}. "
            f"The same clustering as ours (average linkage on 1 - tau, {len(spec['groups'])} clusters) applied to "
            f"the paper's own Table 2 gives {_sets(table_groups, names)}, which agrees with the stated groups on "
            f"{ri_table:.0%} of the {n_paper} pairs of grouped metrics (Rand index {ri_table:.2f}). "
            f"Here the clustering gives {_sets(ours, names)}: Rand index {ri_paper:.2f} against the paper's stated "
            f"groups, and {ri_ours_table:.2f} against the clusters of the paper's Table 2 (all {len(names)} metrics)."
            + (f" Pairs grouped unlike the stated groups: {'; '.join(dis[:6])}"
               + (f"; and {len(dis) - 6} more" if len(dis) > 6 else "") + "." if dis else "")
            + f" Against the stated groups: {_verdict(ri_paper)}; against the groups the paper's own table implies: "
            f"{_verdict(ri_ours_table)}.{between}")
        out.append("\n".join(lines))
    return out


# ---------------------------------------------------------------------------
def reproduce(published: Published, store: ResultStore) -> tuple[pd.DataFrame, list[str], list[str]]:
    """(cells, notes on the papers' consistency, conclusion paragraphs) of
    the papers whose datasets are configured (``store.available``;
    ``Published.for_datasets``)."""
    published = published.for_datasets(store.available)
    cells: list[dict] = []
    for t in published.spec["tables"]:
        kind = t["kind"]
        if kind == "scores":
            cells += _scores_cells(published, t, store)
        elif kind == "class_counts":
            cells += _class_count_cells(published, t, store)
        elif kind == "similarity":
            cells += _view_cells(published, t, store, _similarity_lookup(published, t, store))
        elif kind == "stability":
            cells += _view_cells(published, t, store, _stability_lookup(published, t, store))
        elif kind in ("merging", "merging_balanced"):
            cells += _view_cells(published, t, store, _merging_lookup(published, t, store, f"{kind}.csv"))
        elif kind == "split_scores":
            cells += _split_score_cells(published, t, store)
        elif kind == "summary":
            cells += _summary_cells(published, t, store)
        else:
            raise ValueError(f"unknown table kind {kind!r} in {t['id']}")
    notes = []
    for t in published.spec["tables"]:
        notes += (_average_notes(published, t) + _tau_granularity_notes(published, t) + _rank_notes(published, t)
                  + _split_tau_notes(published, t))
    notes += _claim_notes(published) + _derived_rank_notes(published) + _auc_vertex_note(published, store)
    return pd.DataFrame(cells, columns=list(_cell({"id": "", "paper": ""}, "", "", ""))), notes, \
        conclusions(published, store)
