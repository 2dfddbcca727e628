"""Across datasets (metaeval.verdict.crossdata): the replicability count against
METHODS.md's check vector, test sets that several datasets share counted
once, and the answer across datasets unchanged by an exact copy of a
metric."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.verdict import crossdata as X

from .test_significance import _holm_loop

METRICS = ["accuracy", "macro_f1", "kappa", "macro_recall", "gmr"]


def test_the_replicability_count_of_the_methods_check_vector():
    p = np.array([0.168, 0.297, 0.357, 0.019, 0.218, 0.001])
    kb, pb = X.partial_conjunction(p, 0.05, "bonferroni")
    kf, _ = X.partial_conjunction(p, 0.05, "fisher")
    assert (kb, kf) == (1, 2)
    np.testing.assert_allclose(pb[:2], [6 * 0.001, 5 * 0.019])  # (N - u + 1) p_(u), non-decreasing
    assert X._holm_set(p, 0.05).tolist() == [False] * 5 + [True]  # Holm rejects dataset 6
    assert kb == X._holm_set(p, 0.05).sum()  # the Bonferroni count is Holm's number of rejections
    from scipy.stats import chi2

    assert X.partial_conjunction([0.01, 0.02], 0.05, "fisher")[1][0] == chi2.sf(-2 * np.log([0.01, 0.02]).sum(), 4)


def _long(p: np.ndarray, kinds=("nominal",), test_sets=None) -> pd.DataFrame:
    """A gathered table of D datasets x C criteria x M metrics from MCS
    p-values (D, C, M) (kept: p >= 0.0125)."""
    rows = []
    d_, c_, m_ = p.shape
    for d in range(d_):
        for c in range(c_):
            for m in range(m_):
                rows.append({"dataset": f"d{d}", "kind": kinds[d % len(kinds)],
                             "test_set": (test_sets or {}).get(d, f"d{d}"), "criterion": f"c{c}",
                             "metric": METRICS[m], "value": 0.5, "low": 0.4, "high": 0.7, "participant": True,
                             "counted": True, "in_set": bool(p[d, c, m] >= 0.0125), "mcs_p": p[d, c, m],
                             "recommended": False, "candidate": True})
    return pd.DataFrame(rows)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(2, 4), st.data())
def test_a_copy_never_changes_the_answer_and_is_selected_with_its_original(n_d, n_c, n_m, data):
    p = np.array(data.draw(st.lists(st.sampled_from([0.001, 0.004, 0.02, 0.3, 1.0]), min_size=n_d * n_c * n_m,
                                    max_size=n_d * n_c * n_m))).reshape(n_d, n_c, n_m)
    base = X.cross_recommendation(_long(p))
    chosen = set(base.loc[base["selected"], "metric"])
    with_copy = X.cross_recommendation(_long(np.concatenate([p, p[:, :, :1]], axis=2)))
    got = set(with_copy.loc[with_copy["selected"], "metric"])
    assert got - {METRICS[n_m]} == chosen
    assert (METRICS[n_m] in got) == (METRICS[0] in chosen)


def test_the_counts_and_the_selection_on_a_small_table():
    p = np.full((3, 2, 3), 0.001)
    p[:, :, 0] = 1.0  # accuracy kept everywhere
    p[0, 0, 1] = 1.0  # macro_f1 in one
    p[:, :, 2] = 0.01  # kappa: p = 0.01 on all three datasets
    long = _long(p)
    rep = X.replicability(long, 0.05).set_index(["criterion", "metric"])
    rec = X.cross_recommendation(long, rep.reset_index())
    assert rec.loc[rec["selected"], "metric"].tolist() == ["accuracy"]
    assert rec.set_index("metric").loc["macro_f1", "short_on"] == "c0; c1"
    assert rep.loc[("c0", "accuracy"), "n_kept"] == 3 and rep.loc[("c0", "accuracy"), "k_short_bonferroni"] == 0
    # Bonferroni p^(u/3) = (3 - u + 1) 0.01 <= 0.05 for u = 1, 2, 3
    assert rep.loc[("c0", "kappa"), "k_short_bonferroni"] == 3 and rep.loc[("c0", "kappa"), "short_on"] == "d0; d1; d2"


def test_datasets_that_share_a_test_set_count_once():
    """Two views of one test set are one test set: its p-value is the
    Bonferroni combination of the views (min(1, k min p)), and the counts
    run over test sets, not datasets."""
    p = np.full((3, 1, 2), 1.0)
    p[0, 0, 1], p[1, 0, 1], p[2, 0, 1] = 0.005, 0.4, 0.001
    long = _long(p, test_sets={0: "T", 1: "T", 2: "U"})
    ts = X.pvalues_by_test_set(long).set_index(["test_set", "metric"])
    assert ts.loc[("T", "macro_f1"), "p"] == pytest.approx(0.01) and ts.loc[("T", "macro_f1"), "views"] == 2
    assert not ts.loc[("T", "macro_f1"), "kept"]  # one view drops it
    rep = X.replicability(long).set_index("metric")
    assert rep.loc["accuracy", "n_test_sets"] == 2 and rep.loc["macro_f1", "k_short_bonferroni"] == 2
    page = X.cross_tables(long, rep.reset_index(), X.cross_recommendation(long), 0.05)
    assert "Datasets sharing a test set: d0 and d1 (T)." in page and "2 test sets" in page
    # in the answer: counted per test set (every view of it names the metric), once (helper trial of issue 29:
    # "in the answer of 2 of 3" counted the shared test set twice)
    long.loc[long["metric"] == "accuracy", "recommended"] = True
    long.loc[(long["metric"] == "macro_f1") & (long["dataset"] == "d0"), "recommended"] = True
    rep = X.replicability(long).set_index("metric")
    assert rep.loc["accuracy", "n_recommended"] == 2  # T (d0 and d1) and U
    assert rep.loc["macro_f1", "n_recommended"] == 0  # d1 does not name it: not in T's answer
    page = X.cross_tables(long, rep.reset_index(), X.cross_recommendation(long), 0.05)
    assert "2 of 2 test sets" in page and "of 3" not in page
    long.loc[(long["metric"] == "accuracy") & (long["dataset"] == "d2"), "candidate"] = False  # vetoed on d2
    rec = X.cross_recommendation(long)
    assert not rec.set_index("metric").loc["accuracy", "selected"]
    page = X.cross_tables(long, X.replicability(long), rec, 0.05)
    assert "| d2 ‡ |" in page  # the summary table says where it is no candidate


def test_the_floor_of_the_count_is_per_metric():
    """A metric judged on one test set reaches a smaller p-value than one
    judged on all of them (Bonferroni multiplies by the test sets that judge
    it): the page does not say 'no metric can be counted short' when one
    can (helper trial of issue 29: the FNC score, judged on one of four
    test sets, was counted short under that sentence)."""
    p = np.full((4, 1, 2), 1.0)
    long = _long(p).assign(replicates=500, level=0.0125)
    floor_all = X._smallest_count_p(long, 0.05)
    one = long[(long["metric"] == "accuracy") | (long["dataset"] == "d0")]
    assert X._smallest_count_p(one, 0.05) == pytest.approx(floor_all / 4)
    short = long[~((long["metric"] == "macro_f1") & (long["dataset"] != "d0"))].copy()
    short.loc[short["metric"] == "macro_f1", ["mcs_p", "in_set"]] = [0.0, False]
    rep = X.replicability(short)
    assert int(rep.set_index("metric").loc["macro_f1", "k_short_bonferroni"]) == 1
    page = X.cross_tables(short, rep, X.cross_recommendation(short), 0.05)
    assert "no metric can be counted short" not in page


@pytest.mark.parametrize("level", [0.0, 0.95, 0.99])
def test_the_floor_reads_the_datasets_monte_carlo_level(level):
    """The smallest attainable p-value is 1 / (B + 1) read at the upper end
    of the datasets' Monte Carlo interval (verdict_mc_level), as their sets
    are: written out here (4 test sets judge accuracy; Bonferroni x 4)."""
    from statistics import NormalDist

    p = np.full((4, 1, 2), 1.0)
    long = _long(p).assign(replicates=500, level=0.0125)
    s = 1 / 501
    upper = s + NormalDist().inv_cdf(0.5 + level / 2) * np.sqrt(s * (1 - s) / 500)
    assert X._smallest_count_p(long, 0.05, level) == pytest.approx(4 * 0.05 / 0.0125 * upper, rel=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_the_partial_conjunction_p_values_equal_a_plain_loop(seed):
    """Benjamini & Heller's p^{u/N} from the sorted p-values, NaN left out,
    made non-decreasing (the monotone step), and k_hat counted at alpha."""
    from scipy.stats import chi2

    rng = np.random.default_rng(seed)
    p = list(rng.choice([rng.uniform(0, 0.02), rng.uniform(0, 1)], 7) * rng.uniform(0.2, 1, 7))
    p[seed % 7] = float("nan")
    kept = sorted(x for x in p if not np.isnan(x))
    n = len(kept)
    for method in ("bonferroni", "fisher"):
        raw = []
        for u in range(1, n + 1):
            if method == "bonferroni":
                raw.append(min(1.0, (n - u + 1) * kept[u - 1]))
            else:
                raw.append(chi2.sf(-2 * sum(np.log(x) for x in kept[u - 1:]), 2 * (n - u + 1)))
        mono = [max(raw[:u + 1]) for u in range(n)]
        for alpha in (0.05, 0.2):
            k, pc = X.partial_conjunction(p, alpha, method)
            np.testing.assert_allclose(pc, mono, rtol=1e-10)
            assert k == sum(x <= alpha for x in mono)
    assert X.partial_conjunction([float("nan")] * 3) == (0, pytest.approx(np.zeros(0)))
    assert X.partial_conjunction([0.025, 0.05], 0.05)[0] == 2  # p* = (0.05, 0.05): at alpha counts
    with pytest.raises(ValueError, match="method must be 'bonferroni' or 'fisher', got 'holm'"):
        X.partial_conjunction([0.1], 0.05, "holm")


def _random_long(seed):
    """A long table of three datasets on two test sets (a and b share
    one), two criteria and four metrics, with MCS p-values, their upper
    ends and levels, participation, counting, candidacy and answers."""
    rng = np.random.default_rng(seed)
    rows = []
    for ds, ts in (("a", "t1"), ("b", "t1"), ("c", "t2")):
        level = rng.choice([0.05, 0.025])
        for crit in ("stability", "power"):
            counted = bool(rng.random() < 0.9)
            for mid in METRICS[:4]:
                p = float(rng.choice([rng.uniform(0, 0.02), rng.uniform(0, 1), 1.0]))
                participant = bool(rng.random() < 0.85)
                rows.append({"dataset": ds, "kind": "nominal", "test_set": ts, "criterion": crit, "metric": mid,
                             "value": rng.uniform(0.3, 0.9), "mcs_p": p,
                             "mcs_p_upper": min(1.0, p + rng.uniform(0, 0.01)), "level": level,
                             "in_set": p >= level, "participant": participant, "counted": counted,
                             "candidate": mid != "kappa" or ds != "c", "recommended": p >= level})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("seed", range(6))
def test_the_test_set_p_values_and_counts_equal_a_plain_loop(seed):
    """pvalues_by_test_set: the views that judge the metric (participant
    of a counted criterion), their upper ends rescaled to alpha (min(1,
    p alpha / level)), combined as min(1, k min p); kept when every view
    keeps it.  replicability: Dror's counts over the test sets, Holm's
    short_on, the test sets whose every dataset recommends the metric.
    cross_recommendation: short on the criteria with a Bonferroni count,
    and no answer for a metric that is no candidate somewhere."""
    alpha = 0.05
    long = _random_long(seed)
    got = X.pvalues_by_test_set(long, alpha)
    want = []
    for (crit, mid, ts), x in long.groupby(["criterion", "metric", "test_set"], sort=False):
        judged = x[x["participant"] & x["counted"]]
        if judged.empty:
            continue
        p = [min(1.0, u * alpha / lv) for u, lv in zip(judged["mcs_p_upper"], judged["level"])]
        want.append((crit, mid, ts, min(1.0, len(p) * min(p)), bool(judged["in_set"].all()), len(judged),
                     "; ".join(judged["dataset"])))
    rows = [tuple(r) for r in got[["criterion", "metric", "test_set", "p", "kept", "views", "datasets"]]
            .itertuples(index=False)]
    rows, want = sorted(rows), sorted(want)  # (the order: of first appearance among the judged rows)
    assert [r[:3] + r[4:] for r in rows] == [w[:3] + w[4:] for w in want]
    assert [r[3] for r in rows] == pytest.approx([w[3] for w in want], rel=1e-12)
    rep = X.replicability(long, alpha)
    for (crit, mid), g in got.groupby(["criterion", "metric"], sort=False):
        r = rep[(rep["criterion"] == crit) & (rep["metric"] == mid)].iloc[0]
        p = g["p"].to_numpy()
        assert (r["n_test_sets"], r["n_kept"]) == (len(g), int(g["kept"].sum()))
        assert r["kept_share"] == pytest.approx(g["kept"].mean())
        assert r["k_short_bonferroni"] == X.partial_conjunction(p, alpha, "bonferroni")[0]
        assert r["k_short_fisher"] == X.partial_conjunction(p, alpha, "fisher")[0]
        holm = _holm_loop(list(p))
        assert r["short_on"] == "; ".join(t for t, q in zip(g["test_set"], holm) if q <= alpha)
        every = long[long["metric"] == mid].drop_duplicates("dataset").groupby("test_set")["recommended"].all()
        assert r["n_recommended"] == int(every.sum())
    rec = X.cross_recommendation(long, rep, alpha)
    sets = set(long["test_set"])
    for _, row in rec.iterrows():
        r = rep[rep["metric"] == row["metric"]]
        assert set(got.loc[got["metric"] == row["metric"], "test_set"]) == sets  # judged on every test set
        short = [c for c, k in zip(r["criterion"], r["k_short_bonferroni"]) if k > 0]
        out = sorted(set(long.loc[(long["metric"] == row["metric"]) & ~long["candidate"], "dataset"]))
        assert row["short_on"] == "; ".join(short) and row["not_a_candidate_on"] == "; ".join(out)
        assert row["selected"] == (not short and not out)
        assert row["kept_share"] == pytest.approx(got.loc[got["metric"] == row["metric"], "kept"].mean())
        assert row["n_test_sets"] == 2
    assert set(rec["metric"]) == {m for m in METRICS[:4]
                                  if set(got.loc[got["metric"] == m, "test_set"]) == sets}


def test_the_kind_of_a_dataset_and_the_list_in_words():
    from types import SimpleNamespace as NS

    assert [X.dataset_kind(NS(span_task=t, ordinal=o)) for t, o in
            ((None, False), (None, True), ("si", False), ("si", True), ("tc", True), ("tc", False))] == \
        ["nominal", "ordinal", "spans", "spans", "ordinal", "nominal"]
    assert [X._and(x) for x in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a and b", "a, b and c"]
    assert X._and(("x", "y"), "or") == "x or y"


def test_gather_keeps_each_dataset_s_headline_scope_in_order():
    a = pd.DataFrame({"scope": ["new_systems", "new_systems", "these_systems"], "criterion": ["power"] * 3,
                      "metric": ["accuracy", "kappa", "accuracy"], "value": [0.9, 0.8, 0.7]})
    b = pd.DataFrame({"criterion": ["noise"], "metric": ["gmr"], "value": [0.5]})  # an older table: no scope
    empty = pd.DataFrame(columns=["scope", "criterion", "metric", "value"])
    long = X.gather({"b": b, "a": a, "e": empty}, {"a": "ordinal", "b": "nominal", "e": "nominal"},
                    test_sets={"a": "shared"})
    assert long[["dataset", "kind", "test_set", "metric"]].values.tolist() == [
        ["b", "nominal", "b", "gmr"], ["a", "ordinal", "shared", "accuracy"], ["a", "ordinal", "shared", "kappa"]]
    assert long.columns.tolist()[:3] == ["dataset", "kind", "test_set"]
    assert long["value"].tolist() == [0.5, 0.9, 0.8]
    none = X.gather({}, {})
    assert none.columns.tolist() == ["dataset", "kind", "test_set"] and none.empty


@pytest.mark.parametrize("seed", range(4))
def test_the_smallest_count_p_equals_a_plain_loop(seed):
    """The floor of the replicability count: per dataset the smallest MCS
    p-value its resamples allow (1 / (B + 1) at its Monte Carlo upper end,
    on alpha's scale), per test set the smallest times its views, per
    metric the smallest over the test sets judging it times their number."""
    from metaeval.verdict.evidence import mc_upper

    long = _random_long(seed)
    rng = np.random.default_rng(seed)
    reps = {d: int(rng.choice([50, 200, 999])) for d in "abc"}
    long["replicates"] = long["dataset"].map(reps)
    alpha, level = 0.05, 0.9
    smallest = {}
    for d, x in long.groupby("dataset"):
        n = reps[d]
        smallest[d] = min(1.0, alpha / x["level"].iloc[0] * float(mc_upper(1 / (n + 1), n, level)))
    views = long.drop_duplicates("dataset").groupby("test_set")["dataset"].apply(list)
    floor = {ts: min(smallest[d] * len(ds) for d in ds) for ts, ds in views.items()}
    judged = long[long["participant"] & long["counted"]]
    want = min(min(floor[t] for t in set(x["test_set"])) * len(set(x["test_set"]))
               for _, x in judged.groupby(["criterion", "metric"]))
    assert X._smallest_count_p(long, alpha, level) == pytest.approx(want, rel=1e-12)
    assert X._smallest_count_p(long.drop(columns="replicates"), alpha, level) is None
    assert X._smallest_count_p(long.assign(participant=False), alpha, level) is None


def _answers(metrics, shares, nrec, selected, kind="nominal"):
    return pd.DataFrame({"kind": [kind] * len(metrics), "metric": metrics, "n_test_sets": [3] * len(metrics),
                         "kept_share": shares, "n_recommended": nrec, "short_on": [""] * len(metrics),
                         "selected": selected})


SIX = ["accuracy", "macro_f1", "kappa", "macro_recall", "gmr", "mcc"]


@pytest.mark.parametrize("rec, call, said", [
    (_answers([], [], [], []), ("nominal", ["a", "b", "c"]),
     "Across the 3 nominal datasets (a, b and c): no metric is judged on every test set."),
    (_answers(["accuracy", "kappa"], [0.5, 0.4], [0, 1], [False, False]), ("nominal", ["a", "b", "c"]),
     "Across the 3 nominal datasets (a, b and c): every metric judged on every test set falls short of the best "
     "on some criterion of some test set; none is named."),
    (_answers(["accuracy", "kappa", "gmr"], [0.5, 0.75, 1.0], [0, 1, 3], [True, True, False], "ordinal"),
     ("ordinal", ["a", "b", "c"], ["t", "t", "u"]),
     "Across the 3 ordinal datasets (a, b and c), 2 test sets: Acc (kept on 50% of the criteria that judge it; in "
     "the answer of 0 of 2 test sets) and kappa (kept on 75% of the criteria that judge it; in the answer of 1 of 2 "
     "test sets) are shown short of the best on none of 2 test sets; with so few test sets the answer across tasks "
     "is tentative."),
    (_answers(SIX, [1, 0.9, 1, 0.8, 0.7, 1], [1, 2, 3, 1, 1, 1], [True] * 6), ("nominal", ["a", "b", "c", "d"], None,
                                                                              {"macro_recall", "gmr"}),
     "Across the 4 nominal datasets (a, b, c and d): 6 of the 6 metrics judged on every test set are shown short "
     "of the best on none (Acc, macro-F1, kappa, R^M (balanced accuracy), GMR and MCC (R_K)); Acc, kappa and MCC "
     "(R_K) are kept on 100% of the criteria that judge them; R^M (balanced accuracy) and GMR are not judged on "
     "the class priors (invariant by construction)."),
    (_answers(SIX, [1] * 6, [1] * 6, [True] * 6, "spans"), ("spans", ["a"]),
     "Across the 1 span dataset (a): 6 of the 6 metrics judged on every test set are shown short of the best on "
     "none (Acc, macro-F1, kappa, R^M (balanced accuracy), GMR and MCC (R_K)); all are kept on 100% of the "
     "criteria that judge them; with so few test sets the answer across tasks is tentative."),
    (_answers(SIX[:5], [1, 0.5, 0.5, 0.5, 0.5], [1] * 5, [True] * 5), ("nominal", ["a", "b", "c"]),
     "Across the 3 nominal datasets (a, b and c): 5 of the 5 metrics judged on every test set are shown short of "
     "the best on none (Acc, macro-F1, kappa, R^M (balanced accuracy) and GMR); Acc is kept on 100% of the "
     "criteria that judge it."),
    (_answers(["gmr"], [1.0], [1], [True]), ("nominal", ["a", "b", "c"], None, {"gmr"}),
     "Across the 3 nominal datasets (a, b and c): GMR is shown short of the best on none of 3 test sets (kept on "
     "100% of the criteria that judge it; in the answer of 1 of 3 test sets); GMR is not judged on the class "
     "priors (invariant by construction)."),
])
def test_the_answer_sentence_across_datasets(rec, call, said):
    assert X.cross_answer(rec, *call) == said


def test_the_cross_dataset_page_is_the_one_read_and_approved():
    """The whole page of a table with every mark (✔, n/a, undefined
    resamples, exempt, ‡, a metric not judged, a shared test set, a skipped
    dataset, the floor of the count, two kinds), equal to the page read and
    approved in tests/fixtures/cross_tables.md.  A change of the page's
    wording or numbers fails here: read the new page, then replace the
    fixture with it."""
    from .conftest import FIXTURES

    long = _random_long(2)
    rng = np.random.default_rng(0)
    long["low"] = long["value"] - 0.05
    long["high"] = long["value"] + 0.05
    long["n_undefined"] = np.where(rng.random(len(long)) < 0.15, 7, 0)
    long["exempt"] = (long["criterion"] == "power") & (long["metric"] == "macro_recall")
    long["replicates"] = 30
    long.loc[(long["dataset"] == "b") & (long["metric"] == "kappa") & (long["criterion"] == "stability"),
             "value"] = np.nan
    ordinal = long[long["dataset"] == "c"].assign(dataset="o", kind="ordinal", test_set="o", replicates=999)
    both = pd.concat([long, ordinal], ignore_index=True)
    rep = X.replicability(both)
    rep = rep[~((rep["metric"] == "macro_f1") & (rep["criterion"] == "power") & (rep["kind"] == "nominal"))]
    rec = X.cross_recommendation(both, rep)
    page = X.cross_tables(both, rep, rec, 0.05, skipped={"tiny": "fewer than 6 ranked systems"}, mc_level=0.95)
    assert page + "\n" == (FIXTURES / "cross_tables.md").read_text(encoding="utf-8")
