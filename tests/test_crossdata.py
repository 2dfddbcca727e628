"""Across datasets (metaeval.crossdata): the replicability count against
METHODS.md's check vector, and the answer across datasets unchanged by an
exact copy of a metric or a metric worse on every criterion everywhere."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval import crossdata as X

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


def _long(tiers: np.ndarray, k0: np.ndarray, kinds=("nominal",)) -> pd.DataFrame:
    """A gathered table of D datasets x C criteria x M metrics from tier
    membership (D, C, M) and K0 membership (D, M)."""
    rows = []
    d_, c_, m_ = tiers.shape
    for d in range(d_):
        for c in range(c_):
            for m in range(m_):
                rows.append({"dataset": f"d{d}", "kind": kinds[d % len(kinds)], "criterion": f"c{c}",
                             "metric": METRICS[m], "value": 0.5 + 0.1 * tiers[d, c, m], "low": 0.4, "high": 0.7,
                             "top_tier": bool(tiers[d, c, m]), "k0": bool(k0[d, m]),
                             "tier": bool(tiers[d, c, m] and k0[d, m]), "tier_p": 0.5 if tiers[d, c, m] else 0.01,
                             "recommended": False, "candidate": True})
    return pd.DataFrame(rows)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(2, 4), st.data())
def test_a_copy_or_a_metric_dominated_everywhere_never_changes_the_answer(n_d, n_c, n_m, data):
    tiers = np.array(data.draw(st.lists(st.booleans(), min_size=n_d * n_c * n_m, max_size=n_d * n_c * n_m)),
                     dtype=bool).reshape(n_d, n_c, n_m)
    k0 = np.array(data.draw(st.lists(st.booleans(), min_size=n_d * n_m, max_size=n_d * n_m)),
                  dtype=bool).reshape(n_d, n_m)
    base = X.cross_recommendation(_long(tiers, k0))
    chosen = set(base.loc[base["selected"], "metric"])
    # an exact copy of metric 0 (named as metric n_m): the same tiers and K0 on every dataset
    t2 = np.concatenate([tiers, tiers[:, :, :1]], axis=2)
    k2 = np.concatenate([k0, k0[:, :1]], axis=1)
    with_copy = X.cross_recommendation(_long(t2, k2))
    got = set(with_copy.loc[with_copy["selected"], "metric"]) - {METRICS[n_m]}
    assert got == chosen
    copy_selected = METRICS[n_m] in set(with_copy.loc[with_copy["selected"], "metric"])
    assert copy_selected == (METRICS[0] in chosen)
    # a metric worse than another on every criterion of every dataset: in no K0, no tier
    t3 = np.concatenate([tiers, np.zeros((n_d, n_c, 1), dtype=bool)], axis=2)
    k3 = np.concatenate([k0, np.zeros((n_d, 1), dtype=bool)], axis=1)
    with_dom = X.cross_recommendation(_long(t3, k3))
    assert set(with_dom.loc[with_dom["selected"], "metric"]) == chosen


def test_the_counts_and_the_selection_on_a_small_table():
    tiers = np.zeros((3, 2, 3), dtype=bool)
    tiers[:, :, 0] = True  # accuracy in every top tier of every dataset
    tiers[0, 0, 1] = True  # macro_f1 in one
    k0 = np.ones((3, 3), dtype=bool)
    long = _long(tiers, k0)
    rec = X.cross_recommendation(long)
    assert rec.loc[rec["selected"], "metric"].tolist() == ["accuracy"]
    assert rec.set_index("metric").loc["macro_f1", "dominated_by"] == "accuracy"
    rep = X.replicability(long, 0.05).set_index(["criterion", "metric"])
    assert rep.loc[("c0", "accuracy"), "n_top_tier"] == 3 and rep.loc[("c0", "accuracy"), "k_short_bonferroni"] == 0
    # kappa: p = 0.01 on all three datasets: Bonferroni p^(u/3) = (3 - u + 1) 0.01 <= 0.05 for u = 1, 2, 3
    assert rep.loc[("c0", "kappa"), "k_short_bonferroni"] == 3 and rep.loc[("c0", "kappa"), "short_on"] == "d0; d1; d2"
