"""The experiments' small rules, each pinned: the settings' blocks and
refusals, the few-groups warning, the similarity groups (lettering, NaN
taus, the dendrogram's order against scipy), the parameters of a merged
task and the tables of the merging experiment."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.cluster.hierarchy import fcluster, leaves_list, linkage
from scipy.spatial.distance import squareform

from metaeval.methods import experiments as E
from metaeval.data.config import ConfigError, DatasetSpec
from metaeval.settings import SUPERSEDED_SETTINGS
from metaeval.data.dataset import Dataset


# ---------------------------------------------------------------- settings
def test_later_blocks_override_earlier_ones():
    s = E.Settings.from_config({"n_splits": 50, "alpha": 0.1}, None, {"n_splits": 60, "tukey_trials": 200})
    assert (s.n_splits, s.alpha, s.tukey_trials) == (60, 0.1, 200)
    assert E.Settings.from_config().n_splits == E.Settings().n_splits


def test_superseded_and_unknown_settings_are_refused():
    for key, why in SUPERSEDED_SETTINGS.items():
        with pytest.raises(ConfigError) as e:
            E.Settings.from_config({key: 1})
        assert str(e.value) == f"experiments.{key}: no longer a setting: {why}"
    with pytest.raises(ConfigError) as e:
        E.Settings.from_config({"n_splits": 10}, {"n_split": 3})
    msg = str(e.value)
    assert msg.startswith("experiments.n_split: unknown setting (did you mean 'n_splits'?); known: alpha, "
                          "balanced_repeats, ")
    assert msg.endswith(", verdict_mc_level, verdict_scope")
    with pytest.raises(ConfigError, match=re.escape("experiments.n_splits: expected an integer, got 'many'")):
        E.Settings.from_config({"n_splits": "many"})


# ---------------------------------------------------------------- the few-groups warning
def _grouped(n_groups, spec_extra=None):
    n = 4 * n_groups
    ds = Dataset(name="d", labels=("a", "b"), item_ids=np.array([f"i{j}" for j in range(n)]),
                 gold=(np.arange(n) % 2).astype(np.int8), systems=("s",), kinds=("system",),
                 predictions=np.zeros((1, n), dtype=np.int8), groups=(np.arange(n) % n_groups).astype(np.int16),
                 group_names=tuple(f"g{j}" for j in range(n_groups)))
    spec = DatasetSpec(name="mine", gold="g", predictions=(), labels=("a", "b"), **(spec_extra or {}))
    return ds, spec


def test_the_few_groups_note():
    ds, spec = _grouped(5)
    group = E.Settings.from_config({"resample_unit": "group"})
    assert E.few_groups_note(spec, group, ds) == (
        "resample_unit is 'group' and mine has only 5 groups: resampling whole groups draws few distinct samples, "
        "so its intervals are too narrow and its tests and half-splits coarse (use at least 20 groups, or "
        "resample_unit: item).")
    ranked = DatasetSpec(**{**spec.__dict__, "score_metrics": ("map", "mrr", "brier")})
    assert E.few_groups_note(ranked, group, ds).endswith(
        "(use at least 20 groups; map, mrr rank within groups, so items cannot be resampled alone).")
    assert E.few_groups_note(spec, E.Settings.from_config({"resample_unit": "item"}), ds) is None
    assert E.few_groups_note(spec, group, _grouped(E.MIN_GROUPS)[0]) is None
    assert E.few_groups_note(spec, group, _grouped(E.MIN_GROUPS - 1)[0]) is not None
    assert E.few_groups_note(spec, group, _grouped(1)[0]) is None  # one group: refused elsewhere
    assert E.few_groups_note(spec, group, _grouped(2)[0]) is not None
    spans = DatasetSpec(**{**spec.__dict__, "span_task": "si"})
    assert E.few_groups_note(spans, group, ds) is None


# ---------------------------------------------------------------- similarity groups
def _sim():
    return pd.DataFrame([[1, .9, .1, np.nan], [.9, 1, .2, .1], [.1, .2, 1, .3], [np.nan, .1, .3, 1]],
                        index=list("wxyz"), columns=list("wxyz"))


@pytest.mark.parametrize("method", ["average", "complete", "single"])
def test_similarity_groups_against_scipy(method):
    sim = _sim()
    d = 1 - np.nan_to_num(sim.to_numpy(), nan=0.0)  # an undefined tau: distance 1
    np.fill_diagonal(d, 0)
    z = linkage(squareform(d, checks=False), method=method)
    groups, order = E.cluster_groups(sim, 2, method)
    assert order == [list("wxyz")[i] for i in leaves_list(z)]
    raw = fcluster(z, t=2, criterion="maxclust")
    assert all((groups.iloc[i] == groups.iloc[j]) == (raw[i] == raw[j]) for i in range(4) for j in range(4))


def test_similarity_groups_are_lettered_by_size_then_first_member():
    groups, _ = E.cluster_groups(_sim(), 2)
    assert groups.to_dict() == {"w": "A", "x": "A", "y": "B", "z": "B"}  # equal sizes: w's group first
    assert groups.name == "group"
    t = np.zeros((5, 5))
    t[2:, 2:] = 0.95
    np.fill_diagonal(t, 1.0)
    three = pd.DataFrame(t, index=list("pqrst"), columns=list("pqrst"))
    g, _ = E.cluster_groups(three, 3)
    assert g["r"] == g["s"] == g["t"] == "A"  # the largest group is A although p comes first
    assert sorted(g[["p", "q"]]) == ["B", "C"] and g["p"] == "B"
    assert E.cluster_groups(_sim(), 9)[0].tolist() == ["A", "B", "C", "D"]  # more groups than metrics
    one, order = E.cluster_groups(_sim().iloc[:1, :1], 3)
    assert one.tolist() == ["A"] and order == ["w"]
    none, order = E.cluster_groups(_sim().iloc[:0, :0], 3)
    assert none.tolist() == [] and order == []


# ---------------------------------------------------------------- merged tasks
def test_merged_params_of_the_unrelated_class():
    g = E.merge_groups(4, (0, 2))  # classes 0 and 2 merged: 0,1,0,2
    assert g.tolist() == [0, 1, 0, 2]
    assert E.merged_params({"unrelated": 3}, g)["unrelated"] == 2  # not merged: renumbered
    assert E.merged_params({"unrelated": 2}, g)["unrelated"] is None  # merged with a related class: undefined
    assert E.merged_params({"unrelated": 1}, g)["unrelated"] == 1
    assert E.merged_params({"weights": [0.1, 0.2, 0.3, 0.4]}, g)["weights"].tolist() == pytest.approx(
        [0.4, 0.2, 0.4])
    assert E.merged_params({"f_avg_classes": [0, 2, 3]}, g)["f_avg_classes"] == [0, 2]
    kept = {"weights": None, "other": "x"}
    assert E.merged_params(kept, g) == kept


def test_the_merging_table_has_a_row_per_pair_and_a_mean():
    spec = DatasetSpec(name="d", gold="g", predictions=(), labels=("a", "b", "c"), metrics=("accuracy", "kappa"))
    pairs = E.class_pairs(3)
    assert pairs == [(0, 1), (0, 2), (1, 2)]
    tau = np.array([[0.5, np.nan], [0.7, 0.2], [0.9, np.nan]])
    df = E._merging_frame(spec, pairs, tau)
    assert df["pair"].tolist() == ["a+b", "a+c", "b+c", "mean"] * 2
    assert df.loc[df["metric"] == "accuracy", "tau"].tolist() == pytest.approx([0.5, 0.7, 0.9, 0.7])
    assert df.loc[df["metric"] == "kappa", "tau"].tolist()[-1] == pytest.approx(0.2)  # the mean of the defined
    assert "sd" not in df.columns
    with_sd = E._merging_frame(spec, pairs, tau, sd=np.full((3, 2), 0.1))
    assert with_sd["sd"].isna().tolist() == [False, False, False, True] * 2


def test_similarity_groups_of_two_metrics_an_odd_matrix_and_the_default_count():
    two = pd.DataFrame([[1.0, 0.1], [0.1, 1.0]], index=["p", "q"], columns=["p", "q"])
    assert E.cluster_groups(two, 2)[0].tolist() == ["A", "B"]
    v = _sim().to_numpy(copy=True)
    v[0, 1], v[1, 0] = 0.8, 1.0  # asymmetric: the mean of both is the distance
    np.fill_diagonal(v, np.nan)  # an undefined diagonal: distance 0 to itself all the same
    odd = pd.DataFrame(v, index=list("wxyz"), columns=list("wxyz"))
    sym = _sim()
    g1, o1 = E.cluster_groups(odd, 2)
    g2, o2 = E.cluster_groups(sym, 2)
    assert g1.equals(g2) and o1 == o2
    n = -np.ones((4, 4)) + 2 * np.eye(4)
    n[0, 1] = n[1, 0] = 0.9
    neg = pd.DataFrame(n, index=list("abcd"), columns=list("abcd"))
    g, _ = E.cluster_groups(neg)  # the default: 3 groups
    assert sorted(set(g)) == ["A", "B", "C"] and g["a"] == g["b"] == "A"


def _summary():
    return pd.DataFrame({"metric": ["m1", "m2", "m3", "m4", "span"],
                         "stability_rank": [2, 1, 3, 4, 5], "power_rank": [1, 3, 2, 4, 5],
                         "discrimination_rank": [3, 2, 1, 4, np.nan]})


def test_table7_ranks_again_among_the_complete_rows_and_sorts_ties():
    t = E.table7(_summary())
    assert list(t.columns) == ["metric", "stability_rank", "power_rank", "discrimination_rank", "rank_sum",
                               "worst_rank"]
    assert t["metric"].tolist() == ["m2", "m1", "m3", "m4", "span"]  # 6, 6 (stability 1 first), 6, 12, none
    assert t["rank_sum"].tolist()[:4] == [6, 6, 6, 12] and pd.isna(t["rank_sum"].iloc[4])
    assert t["worst_rank"].tolist()[:4] == [3, 3, 3, 4] and pd.isna(t["worst_rank"].iloc[4])
    assert t.index.tolist() == [0, 1, 2, 3, 4]
    # the span metric's ranks do not move the others': ranked among the complete rows
    s = _summary()
    s.loc[4, ["stability_rank", "power_rank"]] = [1, 1]
    s.loc[:3, ["stability_rank", "power_rank"]] += 1
    assert E.table7(s)["metric"].tolist() == ["m2", "m1", "m3", "m4", "span"]
    assert E.table7(s).loc[0, "stability_rank"] == 1
    # ties in a criterion keep the smallest rank (competition ranks)
    tie = _summary().iloc[:4].assign(power_rank=[1, 1, 3, 4])
    assert E.table7(tie).set_index("metric").loc[["m1", "m2"], "power_rank"].tolist() == [1, 1]
    only = E.table7(_summary()[["metric", "stability_rank"]])
    assert list(only.columns) == ["metric", "stability_rank", "rank_sum", "worst_rank"]


def test_group_separation_of_every_two_groups():
    sim = _sim()
    groups = pd.Series(["A", "A", "B", "C"], index=list("wxyz"))
    sep = E.group_separation(sim, groups)
    assert list(sep.columns) == ["group_a", "group_b", "mean_tau", "min_tau"]
    want = {("A", "B"): [0.1, 0.2], ("A", "C"): [np.nan, 0.1], ("B", "C"): [0.3]}
    got = {(r.group_a, r.group_b): (r.mean_tau, r.min_tau) for r in sep.itertuples()}
    for pair, vals in want.items():
        assert got[pair] == pytest.approx((np.nanmean(vals), np.nanmin(vals)))
    assert sep["mean_tau"].tolist() == sorted(sep["mean_tau"], reverse=True)


def test_similarity_tables_of_a_dataset_against_a_loop():
    from scipy.stats import kendalltau

    from metaeval.measures import labels as M
    from metaeval.api import dataset
    from metaeval.engine.ranking import orient
    from metaeval.methods.scorer import select_systems

    rng = np.random.default_rng(12)
    labels = ["a", "b", "c"]
    gold = rng.choice(labels, 80)
    systems = {f"s{i}": list(np.where(rng.random(80) < 0.3 + 0.1 * i, gold, rng.choice(labels, 80)))
               for i in range(6)}
    systems["s6"] = systems["s5"]  # a tie in every ranking: tau-a and tau-b differ
    ds, spec = dataset(list(gold), systems, baselines=["majority", "random"],
                       metrics=["accuracy", "macro_f1", "kappa", "gmr", "macro_recall"])
    st = E.Settings.from_config({"tau_variant": "a", "n_groups": 2, "linkage": "complete",
                                 "include_baselines": ["random"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim, table = E.similarity_tables(ds, spec, st)
    sel = select_systems(ds, ["random"])
    assert len(sel) == 8  # the 7 systems and the random baseline
    c = ds.confusion()[sel]
    ids = list(spec.metrics)
    scores = {m: orient(M.get(m)(c), M.get(m).higher_is_better) for m in ids}
    for a in ids:
        for b in ids:
            x, y = scores[a], scores[b]
            pairs = [(i, j) for i in range(8) for j in range(i + 1, 8)]
            s = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in pairs)
            assert sim.loc[a, b] == pytest.approx(s / len(pairs)), (a, b)  # tau-a
    assert sim.loc["accuracy", "kappa"] != pytest.approx(kendalltau(scores["accuracy"], scores["kappa"]).statistic)
    groups, order = E.cluster_groups(sim, 2, "complete")
    assert table["metric"].tolist() == ids and table["group"].tolist() == groups.tolist()
    assert table["leaf_order"].tolist() == [order.index(m) for m in ids]
    assert list(table.columns) == ["metric", "group", "leaf_order"]


def test_the_summary_with_the_discriminative_power():
    groups = pd.Series(["A", "A", "B"], index=["m1", "m2", "m3"])
    stability = pd.DataFrame({"metric": ["m1", "m2", "m3"], "mean_tau": [0.9, 0.8, 0.95]})
    power = pd.DataFrame({"metric": ["m3", "m1", "m2"], "discriminative_power": [0.5, 0.5 + 1e-14, np.nan],
                          "test": ["tukey"] * 3, "correction": ["tukey_hsd"] * 3})
    s = E.summary(groups, stability, None, power)
    dp = s["discriminative_power"].tolist()  # in the groups' order m1, m2, m3
    assert dp[0] == pytest.approx(0.5) and np.isnan(dp[1]) and dp[2] == 0.5
    assert s["power_rank"].tolist() == [1, 3, 1]  # equal to 12 decimals: tied; undefined: last
    assert s["power_test"].tolist() == ["tukey"] * 3 and s["power_correction"].tolist() == ["tukey_hsd"] * 3
    assert s["stability_rank"].tolist() == [2, 3, 1] and "discrimination_rank" not in s.columns
    plain = E.summary(groups, stability, None, power.drop(columns=["test", "correction"]))
    assert "power_test" not in plain.columns and "power_rank" in plain.columns
    assert "power_rank" not in E.summary(groups, stability, None).columns


def test_stability_shards_merged_in_split_order():
    from metaeval.methods.experiments import TIER_NAMES

    rng = np.random.default_rng(2)
    tau = rng.random((6, 2))
    tau[4, 1] = np.nan
    tier = rng.random((6, 2, len(TIER_NAMES)))
    parts = [{"metrics": np.array(["m1", "m2"]), "splits": np.array([3, 0, 5]), "tau": tau[[3, 0, 5]],
              "tier_tau": tier[[3, 0, 5]], "n_systems": 7},
             {"metrics": np.array(["m1", "m2"]), "splits": np.array([1, 4, 2]), "tau": tau[[1, 4, 2]],
              "tier_tau": tier[[1, 4, 2]], "n_systems": 7}]
    summ, per_split = E.stability_summary(parts, 6)
    assert per_split.columns.tolist() == ["split", "m1", "m2"] and per_split["split"].tolist() == list(range(6))
    assert np.allclose(per_split[["m1", "m2"]].to_numpy(), tau, equal_nan=True)
    ok = tau[~np.isnan(tau[:, 1]), 1]
    row = summ.set_index("metric").loc["m2"]
    assert row["mean_tau"] == pytest.approx(ok.mean()) and row["sd_tau"] == pytest.approx(ok.std(ddof=1))
    assert row["q025"] == pytest.approx(np.quantile(ok, 0.025)) and row["q975"] == pytest.approx(np.quantile(ok,
                                                                                                          0.975))
    assert (row["n_splits"], row["n_undefined"], row["n_systems"]) == (6, 1, 7)
    assert row[f"tau_{TIER_NAMES[0]}"] == pytest.approx(tier[:, 1, 0].mean())
    with pytest.raises(ValueError, match=re.escape("stability shards do not cover splits 0..6 exactly once")):
        E.stability_summary(parts, 7)
    one = [{**parts[0], "splits": np.array([0]), "tau": np.array([[0.5, np.nan]]), "tier_tau": tier[:1]}]
    s1 = E.stability_summary(one)[0].set_index("metric")
    assert s1.loc["m1", "mean_tau"] == 0.5 and np.isnan(s1.loc["m1", "sd_tau"])
    assert np.isnan(s1.loc["m2", "mean_tau"]) and np.isnan(s1.loc["m2", "q025"]) and np.isnan(s1.loc["m2", "q975"])


def test_weight_sensitivity_ranks_and_taus():
    from metaeval.measures import labels as M
    from metaeval.api import dataset

    rng = np.random.default_rng(4)
    labels = ["a", "b", "c"]
    gold = rng.choice(labels, 90)
    systems = {f"s{i}": list(np.where(rng.random(90) < 0.3 + 0.1 * i, gold, rng.choice(labels, 90))) for i in range(5)}
    ds, spec = dataset(list(gold), systems, baselines=["majority"], metrics=["accuracy", "wauc", "wf1"],
                       weights={"even": {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, "skew": {"a": 0.7, "b": 0.2, "c": 0.1}})
    st = E.Settings.from_config({"tau_variant": "a", "include_baselines": ["majority"]})
    long, taus = E.weight_sensitivity(ds, spec, st)
    assert list(long.columns) == ["system", "kind", "metric", "weight_set", "score", "rank"]
    assert str(long["rank"].dtype) == "Int64"
    base = long[long["kind"] == "baseline"]
    assert len(base) and base["rank"].isna().all()
    w = long[(long["metric"] == "wauc") & (long["weight_set"] == "skew") & (long["kind"] == "system")]
    want = M.wauc(ds.confusion()[:5], [0.7, 0.2, 0.1])
    assert np.allclose(w["score"], want)
    assert w["rank"].tolist() == list((-want).argsort().argsort() + 1)  # 1 = best
    assert list(taus.columns) == ["metric", "weight_set_a", "weight_set_b", "tau"]
    assert taus[["metric", "weight_set_a", "weight_set_b"]].values.tolist() == [["wauc", "even", "skew"],
                                                                              ["wf1", "even", "skew"]]
    c = ds.confusion()  # the 5 systems and majority, ranked together; tau-a, as the settings say
    for mid, fn in (("wauc", M.wauc), ("wf1", M.weighted_fbeta)):
        x, y = fn(c, [1 / 3] * 3), fn(c, [0.7, 0.2, 0.1])
        pairs = [(i, j) for i in range(6) for j in range(i + 1, 6)]
        want_tau = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in pairs) / len(pairs)
        assert taus.loc[taus["metric"] == mid, "tau"].iloc[0] == pytest.approx(want_tau)
    none_long, none_taus = E.weight_sensitivity(ds, dataset(list(gold), systems, metrics=["accuracy"])[1], st)
    assert none_long.empty and none_taus.empty and list(none_taus.columns) == list(taus.columns)


def _small_dataset(seed=5, n=60, absent=False):
    from metaeval.api import dataset

    rng = np.random.default_rng(seed)
    labels = ["a", "b", "c", "d"]
    used = labels[:3] if absent else labels
    gold = rng.choice(used, n)
    systems = {f"s{i}": list(np.where(rng.random(n) < 0.3 + 0.1 * i, gold, rng.choice(used, n))) for i in range(5)}
    return dataset(list(gold), systems, labels=labels, baselines=[], allow_unused_labels=absent,
                   metrics=["accuracy", "macro_f1", "kappa"])


def test_every_long_pass_reports_its_progress_to_the_end():
    from metaeval.engine.progress import reporting
    from metaeval.methods.scorer import Scorer, select_systems

    ds, spec = _small_dataset()
    st = E.Settings.from_config({"balanced_repeats": 7, "chunk_size": 3, "include_baselines": []})
    seen = []
    with reporting(lambda done, total, what: seen.append((done, total, what))):
        E.stability_splits(ds, spec, st, range(11))
        E.merging_balanced(ds, spec, st)
        sc = Scorer(ds, spec, select_systems(ds, []), unit="item")
        list(sc.left_out_counts(chunk=25))
    by = {}
    for done, total, what in seen:
        by.setdefault(what, []).append((done, total))
    assert by["half-splits"][-1] == (11, 11) and by["balanced subsamples"] == [(3, 7), (6, 7), (7, 7)]
    assert by["jackknife (BCa)"] == [(25, 60), (50, 60), (60, 60)]
    assert all(d == sorted(d) for d in by.values())


def test_merging_on_balanced_subsamples_against_a_loop():
    from metaeval.engine.resample import balanced_masks

    ds, spec = _small_dataset(absent=True)  # class d has no gold item: the subsamples keep the smallest present
    st = E.Settings.from_config({"balanced_repeats": 5, "balanced_seed": 9, "include_baselines": [], "chunk_size": 2})
    df = E.merging_balanced(ds, spec, st)
    counts = np.bincount(ds.gold, minlength=4)
    assert (df["class_size"] == counts[counts > 0].min()).all() and (df["repeats"] == 5).all()
    from metaeval.engine.confusion import confusion_tensor

    taus = []
    for m in balanced_masks(ds.gold, range(5), 9):
        c = confusion_tensor(ds.gold[m], ds.predictions[:, m], 4)
        taus.append(E._merge_taus(c, list(spec.metrics), spec.metric_params(), st.tau_variant)[1])
    t = np.stack(taus)  # (R, P, M)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean, sd = np.nanmean(t, axis=0), np.nanstd(t, axis=0, ddof=1)
    rows = df[df["pair"] != "mean"]
    assert np.allclose(rows["tau"], mean.T.ravel(), equal_nan=True)
    assert np.allclose(rows["sd"], sd.T.ravel(), equal_nan=True)
    one = E.merging_balanced(ds, spec, E.Settings.from_config({"balanced_repeats": 1, "include_baselines": []}))
    assert one["sd"].isna().all() and (one["repeats"] == 1).all()


# ---------------------------------------------------------------- stability splits against a loop
def _tau_a(x, y):
    """Kendall's tau-a by its definition: (concordant - discordant) over all pairs."""
    n, s = len(x), 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s += np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
    return s / (n * (n - 1) / 2)


def test_stability_splits_equal_a_loop_with_tau_a_stratified_halves_and_their_own_tiers():
    """Every setting stability_splits reads reaches it: tau-a (ties lower
    it, unlike tau-b), stratified half-splits, tiers of the given fractions
    (one of exactly two systems, one of one: NaN) ranked on the oriented
    full-set scores (MAE: lower is better), each split's X and Y the
    halves of split_masks."""
    from scipy.stats import kendalltau

    from metaeval.measures import labels as M
    from metaeval.engine.ranking import orient
    from metaeval.engine.resample import split_masks

    rng = np.random.default_rng(5)
    n, k, s = 40, 3, 6
    gold = rng.choice(k, n, p=[0.5, 0.3, 0.2]).astype(np.int8)
    pred = np.where(rng.random((s, n)) < np.linspace(0.9, 0.3, s)[:, None], gold,
                    rng.integers(0, k, (s, n))).astype(np.int8)
    ds = Dataset(name="d", labels=("a", "b", "c"), item_ids=np.array([f"i{j}" for j in range(n)]), gold=gold,
                 systems=tuple(f"s{j}" for j in range(s)), kinds=("system",) * s, predictions=pred)
    ids = ["accuracy", "mae_macro"]
    spec = DatasetSpec(name="d", gold="g", predictions=(), labels=("a", "b", "c"), metrics=tuple(ids), ordinal=True)
    st = E.Settings(include_baselines=(), tau_variant="a", stratified=True, tier_fractions=(3, 2, 1), split_seed=8)
    res = E.stability_splits(ds, spec, st, range(4))

    def scores(w):  # (M, S) oriented, each item weighted by w
        c = np.stack([np.histogram2d(p, gold, bins=(k, k), range=((0, k), (0, k)), weights=w)[0] for p in pred])
        return orient(np.stack([M.get(m)(c) for m in ids]), np.array([M.get(m).higher_is_better for m in ids])[:, None])

    full = scores(np.ones(n))
    assert E.tier_sizes(s, st.tier_fractions) == [3, 2, 1]
    masks = split_masks(n, range(4), st.split_seed, gold)
    tau_b = []
    for b, x_mask in enumerate(masks):
        x, y = scores(x_mask.astype(float)), scores((~x_mask).astype(float))
        tau_b.append([kendalltau(x[m], y[m]).statistic for m in range(len(ids))])
        for m in range(len(ids)):
            assert res["tau"][b, m] == pytest.approx(_tau_a(x[m], y[m]), abs=1e-12), (b, ids[m])
            order = np.argsort(-full[m], kind="stable")
            for t, members in enumerate((order[:3], order[3:5], order[5:])):
                want = _tau_a(x[m, members], y[m, members]) if members.size >= 2 else np.nan
                assert res["tier_tau"][b, m, t] == pytest.approx(want, abs=1e-12, nan_ok=True), (b, ids[m], t)
    assert not np.allclose(res["tau"], tau_b)  # ties: tau-a is not tau-b here


def test_stability_splits_of_a_span_task_resample_whole_documents(project_config, data_dir):
    """A span task has no confusion engine: its half-splits take whole
    documents (the memory bound counts them), each half scored by the span
    metrics."""
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset

    spec = dataset_specs(project_config)["semeval2020t11_si_synthetic"]
    ds = load_dataset(spec, data_dir)
    st = E.Settings(include_baselines=(), n_splits=3, resample_unit="group", split_seed=2)
    res = E.stability_splits(ds, spec, st, range(3), chunk_size=2)
    assert res["tau"].shape == (3, len(res["metrics"])) and np.isfinite(res["tau"]).all()
    np.testing.assert_array_equal(res["tau"], E.stability_splits(ds, spec, st, range(3), chunk_size=1)["tau"])
