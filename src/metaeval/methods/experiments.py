"""Meta-evaluation experiments: judging the metrics themselves.

1. Ranking agreement (Amemiya & Sakai 5.1): Kendall's tau between the system
   rankings of every pair of metrics; metrics grouped by hierarchical
   clustering of 1 - tau.
2. Rank stability (5.2): random half-splits X / Y of the test items; tau
   between the rankings on X and on Y, per metric, over many splits; also
   within the top / middle / bottom tiers of systems.
3. Class merging (5.3): merge two classes in gold and predictions; tau
   between the rankings before and after (low tau = the metric tells those
   classes apart); also on class-balanced subsamples.
4. Weight sensitivity (Scarton et al. section 4): the weighted metrics under
   every named class-weight set; tau between the weight sets' rankings.
5. Summary (Amemiya & Sakai Table 7): group, stability rank and
   discrimination rank of every metric.

Every function is vectorised over splits / subsamples: confusion tensors of
all subsets come from ``metaeval.engine.resample.SubsetConfusion`` and every metric
and every tau is one call over the stacked tensors.
"""

from __future__ import annotations

import string
import warnings
from contextlib import contextmanager
from itertools import combinations
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..data.config import DatasetSpec
from ..data.dataset import Dataset, RANKED_KINDS
from ..engine.confusion import merge_classes
from ..engine.progress import report
from ..engine.ranking import competition_rank, kendall_tau, orient, tau_matrix
from ..engine.resample import SubsetConfusion, balanced_masks, chunk_indices, split_masks
# the engine's scorer, here before it had a package of its own (``metaeval.engine``): these names keep working
from .scorer import Counts, Scorer, directions, oriented, select_systems  # noqa: F401
# the settings tree declares every setting once, with the flat Settings of its leaves (``metaeval.settings``:
# reading a config imports no pandas); ALL_CRITERIA, PAPER_TIERS and Settings keep this home too
from ..settings import ALL_CRITERIA, Experiments, PAPER_TIERS, Settings, check, check_value, flat  # noqa: F401

__all__ = ["Settings", "few_groups_note", "MIN_GROUPS", "similarity", "similarity_of", "similarity_tables", "cluster_groups", "tier_sizes",
           "stability_splits", "stability_summary", "merge_groups", "merged_params", "merging",
           "merging_balanced", "weight_sensitivity", "summary", "table7", "TABLE7_CRITERIA", "group_separation"]



TIER_NAMES = ("top", "middle", "bottom")


# Resampling whole groups: with fewer groups than this, the resamples are few
# and alike (2 groups: every bootstrap replicate is one of 3 mixtures), so
# intervals come out too narrow and tests and splits coarse.
MIN_GROUPS = 20


def few_groups_note(spec: DatasetSpec, settings: Settings, ds: Dataset) -> str | None:
    """A warning when the experiments resample whole item groups and the
    dataset has fewer than ``MIN_GROUPS`` of them (None otherwise)."""
    if settings.resample_unit != "group" or spec.span_task:
        return None
    g = len(ds.group_names)
    if g >= MIN_GROUPS or g < 2:  # (a single group is refused by the engine, not warned about)
        return None
    from ..measures.scores.registry import SCORE_REGISTRY

    within = [m for m in spec.score_metrics if SCORE_REGISTRY[m].kind == "groups"]
    way = (f"use at least {MIN_GROUPS} groups; {', '.join(within)} rank within groups, so items cannot be "
           f"resampled alone" if within else f"use at least {MIN_GROUPS} groups, or resample_unit: item")
    return (f"resample_unit is 'group' and {spec.name} has only {g} groups: resampling whole groups draws "
            f"few distinct samples, so its intervals are too narrow and its tests and half-splits coarse "
            f"({way}).")


# ---------------------------------------------------------------------------
# 1. ranking agreement
# ---------------------------------------------------------------------------
def similarity(c: np.ndarray, metric_ids, params, variant: str = "b") -> pd.DataFrame:
    """Square metric x metric DataFrame of Kendall's tau between rankings."""
    return similarity_of(oriented(c, metric_ids, params), metric_ids, variant)


def similarity_of(scores: np.ndarray, metric_ids, variant: str = "b") -> pd.DataFrame:
    """``similarity`` of oriented (M, S) scores (e.g. ``scorer.score(scorer.total, oriented=True)``)."""
    tau = tau_matrix(scores, variant)
    return pd.DataFrame(tau, index=list(metric_ids), columns=list(metric_ids))


def similarity_tables(ds: Dataset, spec: DatasetSpec, settings: Settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Ranking agreement of a dataset's ranked systems (Amemiya & Sakai
    5.1): the metric x metric tau matrix (``similarity.csv``) and the
    similarity groups with the dendrogram's leaf order
    (``similarity_groups.csv``: ``metric, group, leaf_order``)."""
    sel = select_systems(ds, settings.include_baselines)
    scorer = Scorer(ds, spec, sel)
    sim = similarity_of(scorer.score(scorer.total, oriented=True), list(spec.all_metrics), settings.tau_variant)
    groups, order = cluster_groups(sim, settings.n_groups, settings.linkage)
    table = pd.DataFrame({"metric": groups.index, "group": groups.to_numpy(),
                          "leaf_order": [order.index(m) for m in groups.index]})
    return sim, table


def cluster_groups(sim: pd.DataFrame, n_groups: int = 3, method: str = "average") -> tuple[pd.Series, list[str]]:
    """Hierarchical clustering of the metrics on the distance 1 - tau.

    Returns (group letter per metric, dendrogram leaf order).  Groups are
    lettered A, B, C... by decreasing size (ties: the group whose first
    member comes first in the matrix).  NaN taus count as distance 1.
    """
    from scipy.cluster.hierarchy import fcluster, leaves_list, linkage
    from scipy.spatial.distance import squareform

    ids = list(sim.index)
    d = 1.0 - np.nan_to_num(sim.to_numpy(), nan=0.0)
    np.fill_diagonal(d, 0.0)
    d = np.clip((d + d.T) / 2, 0.0, 2.0)
    if len(ids) < 2:
        return pd.Series(["A"] * len(ids), index=ids, name="group"), ids
    z = linkage(squareform(d, checks=False), method=method)
    raw = fcluster(z, t=min(n_groups, len(ids)), criterion="maxclust")
    order = sorted(set(raw), key=lambda g: (-(raw == g).sum(), int(np.flatnonzero(raw == g)[0])))
    letter = {g: string.ascii_uppercase[i] for i, g in enumerate(order)}
    return (pd.Series([letter[g] for g in raw], index=ids, name="group"),
            [ids[i] for i in leaves_list(z)])


# ---------------------------------------------------------------------------
# 2. rank stability
# ---------------------------------------------------------------------------
def tier_sizes(n_systems: int, fractions=PAPER_TIERS) -> list[int]:
    """Tier sizes proportional to ``fractions`` summing to ``n_systems``
    (largest remainder; 14 systems give the paper's 5, 5, 4)."""
    f = np.asarray(fractions, dtype=float)
    f = f / f.sum()
    raw = f * n_systems
    sizes = np.floor(raw).astype(int)
    for i in np.argsort(-(raw - sizes), kind="stable")[: n_systems - sizes.sum()]:
        sizes[i] += 1
    return sizes.tolist()


def _tiers(full: np.ndarray, sizes) -> list[np.ndarray]:
    """Per tier, the system indices of that tier of each metric's full-set
    ranking: (M, size of the tier) each (every metric's tier has the same
    size, so one call of ``kendall_tau`` takes a tier of every metric)."""
    order = np.argsort(-full, axis=-1, kind="stable")  # (M, S): each row sorted alone, as a loop over rows would
    bounds = np.cumsum([0] + list(sizes))
    return [order[:, bounds[t]:bounds[t + 1]] for t in range(len(sizes))]


def stability_splits(ds: Dataset, spec: DatasetSpec, settings: Settings, splits, *,
                     chunk_size: int | None = None) -> dict[str, np.ndarray]:
    """Tau between the X and Y rankings of each split in ``splits``.

    A half-split takes half of the units (``settings.resample_unit``: items,
    or whole groups such as articles with all their spans).  Returns
    ``splits`` (B,), ``tau`` (B, M) and ``tier_tau`` (B, M, 3); the tiers are
    those of the ranking on the full test set.
    """
    sel = select_systems(ds, settings.include_baselines)
    scorer = Scorer(ds, spec, sel, settings.resample_unit)
    metric_ids = scorer.metric_ids
    full = scorer.score(scorer.total, oriented=True)  # (M, S)
    tiers = _tiers(full, tier_sizes(len(sel), settings.tier_fractions))
    strata = ds.gold if settings.stratified else None
    splits = np.asarray(list(splits), dtype=np.int64)
    tau = np.empty((splits.size, len(metric_ids)))
    tier_tau = np.empty((splits.size, len(metric_ids), 3))
    from ..engine.kernels import map_blocks, n_threads  # (numba: imported by the jobs that resample only)

    width = scorer.eng.n if scorer.eng is not None else scorer.n_units  # the weights' width in memory (items)
    # the memory bound holds for all the chunks in flight at once (one per thread), not for each
    chunks = list(chunk_indices(splits, chunk_size or settings.chunk_size, width * n_threads()))
    first = np.cumsum([0] + [idx.size for idx in chunks])

    def chunk(c):  # one chunk of splits, start to end: it writes its own rows only
        idx, sl = chunks[c], slice(first[c], first[c + 1])
        half = scorer.counts(split_masks(scorer.n_units, idx, settings.split_seed, strata, pos=scorer.draw_pos,
                                         dtype=np.float32), engine_order=True)
        x, y = scorer.score(half, oriented=True), scorer.score(scorer.total - half, oriented=True)
        tau[sl] = kendall_tau(x, y, settings.tau_variant)
        for t, members in enumerate(tiers):  # each tier of every metric at once: (B, M, size of the tier)
            tier_tau[sl, :, t] = (kendall_tau(np.take_along_axis(x, members[None], axis=-1),
                                              np.take_along_axis(y, members[None], axis=-1), settings.tau_variant)
                                  if members.shape[1] >= 2 else np.nan)
        return sl.stop - sl.start

    done = 0
    for size in map_blocks(chunk, range(len(chunks))):  # whole chunks side by side on the threads
        done += size
        report(done, splits.size, "half-splits")
    return {"splits": splits, "tau": tau, "tier_tau": tier_tau, "metrics": np.array(metric_ids),
            "n_systems": np.array(len(sel))}


def stability_summary(parts: Sequence[Mapping[str, np.ndarray]], n_splits: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Merge shard results; one row per metric: mean, sd and 95% interval of
    tau over the splits, and the mean tau within each tier.  Also returns
    the per-split taus (split x metric).  Checks that every split from 0 to
    ``n_splits - 1`` is present exactly once."""
    metric_ids = [str(m) for m in parts[0]["metrics"]]
    splits = np.concatenate([p["splits"] for p in parts])
    order = np.argsort(splits, kind="stable")
    splits = splits[order]
    if n_splits is not None and not np.array_equal(splits, np.arange(n_splits)):
        raise ValueError(f"stability shards do not cover splits 0..{n_splits - 1} exactly once")
    tau = np.concatenate([p["tau"] for p in parts])[order]
    tier = np.concatenate([p["tier_tau"] for p in parts])[order]
    rows = []
    with np.errstate(invalid="ignore"), _quiet():
        for m, mid in enumerate(metric_ids):
            t = tau[:, m]
            ok = t[~np.isnan(t)]
            rows.append({
                "metric": mid, "mean_tau": ok.mean() if ok.size else np.nan,
                "sd_tau": ok.std(ddof=1) if ok.size > 1 else np.nan,
                "q025": np.quantile(ok, 0.025) if ok.size else np.nan,
                "q975": np.quantile(ok, 0.975) if ok.size else np.nan,
                **{f"tau_{name}": np.nanmean(tier[:, m, i]) for i, name in enumerate(TIER_NAMES)},
                "n_splits": int(t.size), "n_undefined": int(np.isnan(t).sum()),
                "n_systems": int(parts[0]["n_systems"]),
            })
    per_split = pd.DataFrame(tau, columns=metric_ids)
    per_split.insert(0, "split", splits)
    return pd.DataFrame(rows), per_split


@contextmanager
def _quiet():
    """Silence numpy's warnings on all-NaN slices (a metric undefined on
    every split gives a NaN mean, which is the intended answer)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


# ---------------------------------------------------------------------------
# 3. class merging
# ---------------------------------------------------------------------------
def merge_groups(k: int, pair: tuple[int, int]) -> np.ndarray:
    """New class of each old class when classes ``pair`` are merged.

    The merged class takes the lowest position of its two members and the
    positions are renumbered 0..K-2 in the original order (so ordinal
    metrics see the merged class where its first member was).
    """
    a, b = sorted(pair)
    old = np.arange(k)
    old[b] = a
    return np.unique(old, return_inverse=True)[1]


def merged_params(params: Mapping[str, Any], groups: np.ndarray) -> dict[str, Any]:
    """Metric parameters of the merged task: class weights of merged classes
    add up; ``f_avg`` averages the merged classes its classes fall into;
    the one-class metrics (``f1_class``, ...) score the merged class their
    ``positive`` class falls into; the FNC-1 score is undefined when
    ``unrelated`` is merged with a class."""
    out = dict(params)
    m = int(groups.max()) + 1
    if params.get("weights") is not None:
        out["weights"] = np.bincount(groups, weights=np.asarray(params["weights"], float), minlength=m)
    if params.get("f_avg_classes") is not None:
        out["f_avg_classes"] = sorted({int(groups[c]) for c in params["f_avg_classes"]})
    if params.get("positive") is not None:  # renumbered: a class above the merged pair moves down by one
        out["positive"] = int(groups[int(params["positive"])])
    if params.get("unrelated") is not None:
        u = params["unrelated"]
        out["unrelated"] = int(groups[u]) if (groups == groups[u]).sum() == 1 else None
    return out


def class_pairs(k: int) -> list[tuple[int, int]]:
    """Every pair of the ``k`` classes (i, j), i < j: the merges of the
    class-merging experiment."""
    return list(combinations(range(k), 2))


def _merge_taus(c: np.ndarray, metric_ids, params, variant) -> tuple[list[tuple[int, int]], np.ndarray]:
    """tau(original ranking, merged ranking) per pair: (..., P, M); NaN for
    a metric not defined on the merged task (its parameter merged away, or a
    custom metric written for K classes: ``custom_metrics.defined_on``)."""
    from ..measures.custom import defined_on

    k = c.shape[-1]
    base = oriented(c, metric_ids, params)  # (..., M, S)
    out = []
    for pair in class_pairs(k):
        g = merge_groups(k, pair)
        mp = merged_params(params, g)
        ids_ok = [mid for mid in metric_ids if all(mp.get(p) is not None for p in M.get(mid).params)
                  and defined_on(mid, k - 1, mp)]
        merged = np.full(base.shape, np.nan)
        if ids_ok:
            sel = [metric_ids.index(mid) for mid in ids_ok]
            merged[..., sel, :] = oriented(merge_classes(c, g), ids_ok, mp)
        tau = kendall_tau(base, merged, variant)
        tau[..., [i for i, mid in enumerate(metric_ids) if mid not in ids_ok]] = np.nan
        out.append(tau)
    return class_pairs(k), np.stack(out, axis=-2)


def merging(ds: Dataset, spec: DatasetSpec, settings: Settings) -> pd.DataFrame:
    """``metric, pair, tau`` for every pair of classes, plus ``pair = mean``."""
    sel = select_systems(ds, settings.include_baselines)
    c = SubsetConfusion(ds.gold, ds.predictions[sel], ds.k).total
    pairs, tau = _merge_taus(c, list(spec.metrics), spec.metric_params(), settings.tau_variant)
    return _merging_frame(spec, pairs, tau)


def _pair_name(labels, pair) -> str:
    return f"{labels[pair[0]]}+{labels[pair[1]]}"


def _merging_frame(spec, pairs, tau, sd=None) -> pd.DataFrame:
    rows = []
    for m, mid in enumerate(spec.metrics):
        for p, pair in enumerate(pairs):
            row = {"metric": mid, "pair": _pair_name(spec.labels, pair), "tau": tau[p, m]}
            if sd is not None:
                row["sd"] = sd[p, m]
            rows.append(row)
        with _quiet():
            mean = {"metric": mid, "pair": "mean", "tau": np.nanmean(tau[:, m])}
        if sd is not None:
            mean["sd"] = np.nan
        rows.append(mean)
    return pd.DataFrame(rows)


def merging_balanced(ds: Dataset, spec: DatasetSpec, settings: Settings) -> pd.DataFrame:
    """The merging experiment on class-balanced subsamples (every class
    down-sampled to the smallest class), repeated ``balanced_repeats`` times;
    ``tau`` is the mean over repeats, ``sd`` its standard deviation."""
    sel = select_systems(ds, settings.include_baselines)
    eng = SubsetConfusion(ds.gold, ds.predictions[sel], ds.k)
    reps = np.arange(settings.balanced_repeats)
    taus = []
    for r, c in eng.chunks(lambda r: balanced_masks(ds.gold, r, settings.balanced_seed, pos=eng.pos,
                                                    dtype=np.float32), reps, settings.chunk_size, ordered=True):
        pairs, t = _merge_taus(c, list(spec.metrics), spec.metric_params(), settings.tau_variant)
        taus.append(t)  # (R, P, M)
        report(int(r[-1]) + 1, reps.size, "balanced subsamples")
    t = np.concatenate(taus)
    with _quiet():
        mean = np.nanmean(t, axis=0)
        sd = np.nanstd(t, axis=0, ddof=1) if t.shape[0] > 1 else np.full(mean.shape, np.nan)
    df = _merging_frame(spec, pairs, mean, sd)
    df["repeats"] = t.shape[0]
    counts = np.bincount(ds.gold, minlength=ds.k)
    df["class_size"] = int(counts[counts > 0].min())  # what balanced_masks draws per present class
    return df


# ---------------------------------------------------------------------------
# 4. weight sensitivity
# ---------------------------------------------------------------------------
WEIGHTED = ("wauc", "wf1", "wf2")


def weight_sensitivity(ds: Dataset, spec: DatasetSpec, settings: Settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scores and ranks of the weighted metrics under every weight set
    (long form ``system, kind, metric, weight_set, score, rank``; ranks among
    real systems), and tau between the weight sets' rankings per metric."""
    from ..present.tables import rank

    c = ds.confusion()
    is_sys = np.array([k in RANKED_KINDS for k in ds.kinds])
    rows, taus = [], []
    metric_ids = [m for m in WEIGHTED if m in spec.metrics]
    by_set = {}
    for wname in spec.weights:
        sc = M.evaluate(c, metric_ids, **spec.metric_params(wname))
        by_set[wname] = sc
        for mid in metric_ids:
            r = np.zeros(len(ds.systems), dtype=np.int64)
            r[is_sys] = rank(sc[mid][is_sys], True)
            for i, (s, kind) in enumerate(zip(ds.systems, ds.kinds)):
                rows.append({"system": s, "kind": kind, "metric": mid, "weight_set": wname,
                             "score": sc[mid][i], "rank": int(r[i]) if kind in RANKED_KINDS else None})
    sel = select_systems(ds, settings.include_baselines)
    for mid in metric_ids:
        for a, b in combinations(spec.weights, 2):
            taus.append({"metric": mid, "weight_set_a": a, "weight_set_b": b,
                         "tau": float(kendall_tau(orient(by_set[a][mid][sel]), orient(by_set[b][mid][sel]),
                                                  settings.tau_variant))})
    # (no weighted metric among the dataset's metrics: empty tables with their columns)
    long = pd.DataFrame(rows, columns=["system", "kind", "metric", "weight_set", "score", "rank"])
    long["rank"] = long["rank"].astype("Int64")
    return long, pd.DataFrame(taus, columns=["metric", "weight_set_a", "weight_set_b", "tau"])


# ---------------------------------------------------------------------------
# 5. summary
# ---------------------------------------------------------------------------
def summary(groups: pd.Series, stability: pd.DataFrame, merge: pd.DataFrame | None,
            power: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per metric: similarity group, stability rank (1 = highest mean tau),
    discrimination rank (1 = lowest mean merging tau) and discriminative
    power rank (1 = largest share of significantly different pairs), with
    the values, and the test and correction that made the power
    (``power_test``, ``power_correction``, when ``power`` has them).
    Without a merging experiment (``merge=None``: a two-class task) the
    discrimination columns are left out; without ``power``, the
    discriminative-power columns."""
    st = stability.set_index("metric")
    ids = [m for m in groups.index]
    df = pd.DataFrame({"metric": ids, "group": groups.loc[ids].to_numpy(),
                       "stability_tau": st["mean_tau"].reindex(ids).to_numpy()})
    df["stability_rank"] = competition_rank(np.nan_to_num(-df["stability_tau"].to_numpy(), nan=np.inf))
    if "n_undefined" in st.columns:  # splits where the metric ranks no system (e.g. GMR 0 for all): said, not hidden
        df["stability_undefined"] = st["n_undefined"].reindex(ids).to_numpy()
        df["stability_splits"] = st["n_splits"].reindex(ids).to_numpy()
    if merge is not None:
        mg = merge[merge["pair"] == "mean"].set_index("metric")["tau"]
        df.insert(3, "merging_tau", mg.reindex(ids).to_numpy())
        # ranked among the metrics the merging experiment scores (span metrics are not merged);
        # a merged metric undefined on every merge (NaN) ranks last
        rank = pd.array([pd.NA] * len(ids), dtype="Int64")
        merged = np.isin(ids, mg.index.to_numpy())
        rank[merged] = competition_rank(np.nan_to_num(df["merging_tau"].to_numpy()[merged], nan=np.inf))
        df["discrimination_rank"] = rank
    if power is not None:
        pw = power.set_index("metric")
        dp = pw["discriminative_power"].reindex(ids).to_numpy(dtype=float)
        df["discriminative_power"] = dp
        df["power_rank"] = competition_rank(np.nan_to_num(-np.round(dp, 12), nan=np.inf))
        # which test and correction made the power: powers of different tests are not comparable
        for col in ("test", "correction"):
            if col in pw.columns:
                df[f"power_{col}"] = pw[col].reindex(ids).to_numpy()
    return df


# the criteria of the summary whose ranks Amemiya & Sakai's Table 7 adds up (1 = best)
TABLE7_CRITERIA = {"stability_rank": "stability", "power_rank": "discriminative power",
                   "discrimination_rank": "class discrimination"}


def table7(summary_df: pd.DataFrame) -> pd.DataFrame:
    """Amemiya & Sakai's Table-7 reading of a summary, reproduced: not this
    tool's recommendation (``metaeval.verdict.recommendation`` alone makes that: a rank
    sum is a Borda count, which a copy of a metric or a metric worse on
    every criterion can sway).  Per metric, its ranks
    on the criteria the dataset measures (``CRITERIA`` present in
    ``summary_df``), their sum (``rank_sum``) and the worst (``worst_rank``);
    sorted by rank sum, then worst rank, then stability rank, then metric id.
    The first row is the recommendation; rows with the same rank sum and
    worst rank tie.  A metric without a rank on some criterion (a span
    metric, which class merging does not score) has no rank sum and comes
    last, and the others' ranks are counted among themselves (competition
    ranks, ties kept) so that it cannot move them.  On the paper's own
    Table 7 (stability and class discrimination) this picks CEM^ORD, 3rd
    and 2nd, as the paper does."""
    cols = [c for c in TABLE7_CRITERIA if c in summary_df.columns]
    ranks = summary_df[cols].astype("Float64")
    complete = ranks.notna().all(axis=1)
    # ranked again among the complete rows only: the summary ranks every
    # metric with a value (span metrics beside classification ones), which
    # would move the candidates' ranks without being candidates themselves
    ranks.loc[complete] = ranks.loc[complete].rank(method="min")
    df = summary_df[["metric"] + cols].copy()
    df[cols] = ranks
    df["rank_sum"] = ranks.sum(axis=1).where(complete)
    df["worst_rank"] = ranks.max(axis=1).where(complete)
    df = df.sort_values(["rank_sum", "worst_rank", "stability_rank", "metric"], na_position="last",
                        ignore_index=True)
    return df


def group_separation(sim: pd.DataFrame, groups: pd.Series) -> pd.DataFrame:
    """Mean Kendall tau between the members of every two similarity groups
    (``group_a, group_b, mean_tau, min_tau``), most similar pair first.

    Hierarchical clustering always returns the number of groups asked for,
    even when every metric ranks the systems alike; a high mean tau between
    two groups says that they are not distinct.
    """
    letters = sorted(groups.unique())
    rows = []
    for a, b in combinations(letters, 2):
        block = sim.loc[groups.index[groups == a], groups.index[groups == b]].to_numpy(dtype=float)
        with _quiet():  # all-NaN block (a metric undefined for every system): NaN
            rows.append({"group_a": a, "group_b": b, "mean_tau": float(np.nanmean(block)),
                         "min_tau": float(np.nanmin(block))})
    df = pd.DataFrame(rows, columns=["group_a", "group_b", "mean_tau", "min_tau"])
    return df.sort_values(["mean_tau", "group_a", "group_b"], ascending=[False, True, True],
                          ignore_index=True)
