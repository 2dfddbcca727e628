"""The recommendation on all the evidence (metaeval.recommend): which
criteria a dataset makes relevant, ranks with ties, Pareto separation, and
sentences that follow the numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval import recommend as R


def _summary(rows):
    return pd.DataFrame(rows, columns=["metric", "group", "stability_tau", "merging_tau", "discriminative_power"])


def _noise(taus, kept=None):
    return pd.DataFrame([{"metric": m, "rate": r, "mean_tau": t, "winner_kept": (kept or {}).get(m, 0.5)}
                         for m, t in taus.items() for r in (0.05, 0.1)])


def _priors(taus):
    return pd.DataFrame([{"metric": m, "gamma": g, "tau": t} for m, t in taus.items() for g in (0.0, 2.0)])


def _properties(held):
    rows = []
    for m, n in held.items():
        for i, p in enumerate(R.relevant_properties(True, True)):
            rows.append({"metric": m, "property": p, "result": "holds" if i < n else "fails"})
    return pd.DataFrame(rows)


def test_relevant_properties_follow_the_data():
    assert "ordinal_invariance" in R.relevant_properties(True, False)
    assert "class_exchange" not in R.relevant_properties(True, False)
    assert "class_exchange" in R.relevant_properties(False, False)
    assert "imbalance" in R.relevant_properties(False, True) and "imbalance" not in R.relevant_properties(False, False)
    # the class-size invariance is the priors criterion, measured on the data: not counted twice
    assert "uniform_class_change" not in R.relevant_properties(False, True)
    assert R.is_imbalanced([100, 40]) and not R.is_imbalanced([100, 60]) and not R.is_imbalanced([5, 0, 4])


def test_a_dominating_metric_is_recommended_and_said_to_be():
    s = _summary([["mae_macro", "A", 0.95, 0.2, 0.8], ["accuracy", "B", 0.90, 0.5, 0.6],
                  ["macro_f1", "A", 0.91, 0.4, 0.7]])
    table, used, relevant = R.evidence(s, _noise({"mae_macro": 0.99, "accuracy": 0.90, "macro_f1": 0.95}),
                                       _priors({"mae_macro": 1.0, "accuracy": 0.5, "macro_f1": 0.8}),
                                       _properties({"mae_macro": 6, "accuracy": 3, "macro_f1": 4}),
                                       ordinal_data=True, gold_counts=[100, 20, 10])
    assert used == ["stability", "discrimination", "power", "noise", "priors", "properties"]
    assert table["metric"].tolist() == ["mae_macro", "macro_f1", "accuracy"]
    assert table["rank_sum"].tolist() == [6, 12, 18]
    text = R.sentences(table, used, relevant, primary="accuracy")
    assert text[0].startswith("Report MAE^M: of the 3 metrics ranked, it has the smallest sum of ranks (6)")
    assert "It is at least as good on every criterion as macro-F1, Acc." in text
    assert any(t.startswith("The dataset's primary metric, Acc, comes 3rd of 3") for t in text)
    assert not any("does not separate" in t for t in text)


def test_mixed_evidence_is_said_to_be_mixed():
    s = _summary([["kappa", "A", 0.95, 0.2, 0.5], ["gmr", "A", 0.80, 0.3, 0.9]])
    table, used, relevant = R.evidence(s, ordinal_data=False, gold_counts=[10, 10])
    text = R.sentences(table, used, relevant)
    assert used == ["stability", "discrimination", "power"]
    i = next(i for i, t in enumerate(text) if "does not separate" in t)
    assert text[i].startswith("The evidence does not separate it outright from 1 of the 1 other metrics")
    assert text[i + 1] == ("GMR (rank sum 5) is ahead on discriminative power; kappa on rank stability and class "
                           "discrimination.")


def test_values_equal_to_two_decimals_tie_and_ties_are_named():
    s = _summary([["kappa", "A", 0.901, 0.2, 0.5], ["alpha_nominal", "A", 0.898, 0.2, 0.5]])
    table, used, relevant = R.evidence(s, ordinal_data=False, gold_counts=[10, 10])
    assert table["stability_rank"].tolist() == [1, 1]
    text = R.sentences(table, used, relevant)
    assert text[0].startswith("The evidence cannot choose between")
    assert "kappa" in text[0] and "alpha^NOM" in text[0]


def test_priors_count_only_on_imbalanced_data_and_missing_values_leave_a_metric_out():
    s = _summary([["accuracy", "A", 0.9, 0.3, 0.5], ["span_f1", "B", 0.95, np.nan, 0.9]])
    pri = _priors({"accuracy": 0.4})
    table, used, _ = R.evidence(s, priors=pri, ordinal_data=False, gold_counts=[10, 12])
    assert "priors" not in used  # balanced: the class priors are not a criterion
    table, used, _ = R.evidence(s, priors=pri, ordinal_data=False, gold_counts=[10, 40])
    assert "priors" in used
    span = table[table["metric"] == "span_f1"].iloc[0]
    assert np.isnan(span["rank_sum"]) and np.isnan(span["position"])
    assert table["metric"].iloc[0] == "accuracy"


def test_markdown_has_every_metric_and_criterion():
    s = _summary([["kappa", "A", 0.95, 0.2, 0.5], ["gmr", "A", 0.80, 0.3, 0.9]])
    table, used, relevant = R.evidence(s, _noise({"kappa": 0.9, "gmr": 0.8}), ordinal_data=False,
                                       gold_counts=[10, 10])
    md = R.recommendation_markdown(table, used, relevant, R.sentences(table, used, relevant), "t: which", "ctx")
    assert md.startswith("# t: which")
    for name in ("kappa", "GMR", "rank stability", "robustness to label noise", "0.950 (1st)"):
        assert name in md, name


def test_a_criterion_without_values_is_dropped():
    """Span identification: no formal properties for span metrics, so they
    are not a criterion (instead of leaving every metric without a rank sum)."""
    s = _summary([["span_f1", "A", 0.95, np.nan, 0.5], ["char_f1", "A", 0.80, np.nan, 0.9]])
    s = s.drop(columns="merging_tau")
    props = pd.DataFrame({"metric": ["accuracy"], "property": ["monotonicity"], "result": ["holds"]})
    table, used, relevant = R.evidence(s, properties=props, ordinal_data=False, gold_counts=[])
    assert used == ["stability", "power"]
    assert table["rank_sum"].notna().all()


def test_span_precision_and_recall_alone_are_not_recommended():
    s = _summary([["span_precision", "A", 0.99, np.nan, 0.9], ["span_f1", "A", 0.90, np.nan, 0.8]])
    s = s.drop(columns="merging_tau")
    table, used, relevant = R.evidence(s, ordinal_data=False, gold_counts=[])
    assert table["metric"].tolist() == ["span_f1", "span_precision"]  # shown, not ranked
    assert table["stability_rank"].tolist()[0] == 1 and np.isnan(table["stability_rank"].tolist()[1])
    text = R.sentences(table, used, relevant)
    assert text[0].startswith("Report " + R.M.get("span_f1").name + ": of the 1 metrics ranked")
    assert f"{R.M.get('span_precision').name} is not ranked: alone, either rewards a degenerate system" in " ".join(text)


def test_the_noise_sentence_names_a_changing_winner_only_when_one_changes():
    s = _summary([["kappa", "A", 0.95, 0.2, 0.8], ["gmr", "B", 0.90, 0.5, 0.6]])

    def noise_sentence(kept):
        table, used, relevant = R.evidence(s, _noise({"kappa": 0.9, "gmr": 0.8}, kept), ordinal_data=False,
                                           gold_counts=[10, 10])
        return next(t for t in R.sentences(table, used, relevant) if t.startswith("Under label noise"))

    text = noise_sentence({"kappa": 1.0, "gmr": 1.0})
    assert "GMR's ranking moves most (tau 0.800 between the clean and the noisy rankings, the mean over" in text
    assert "every metric's winner stays first" in text and "changes most often" not in text
    text = noise_sentence({"kappa": 0.75, "gmr": 1.0})
    assert "kappa's winner changes most often (first in 75% of the noisy golds at the highest rate)" in text


def test_metrics_not_ranked_cannot_move_the_ranks_of_those_ranked():
    """Span precision (never recommended) and span metrics beside
    classification ones (no merging, noise or priors) are shown but not
    ranked: ranked among all, kappa would be 4th on stability behind three
    span metrics, and GMR's rank sum would tie with kappa's.  A trial read
    "comes 3rd of 6" for the 3rd row of 8."""
    s = _summary([["kappa", "A", 0.90, 0.2, 0.50], ["gmr", "B", 0.80, 0.5, 0.60],
                  ["span_f1", "C", 0.99, np.nan, 0.70], ["span_f1_exact", "C", 0.98, np.nan, 0.40],
                  ["span_precision", "C", 0.97, np.nan, 0.65]])
    table, used, relevant = R.evidence(s, _noise({"kappa": 0.9, "gmr": 0.8}), ordinal_data=False,
                                       gold_counts=[10, 10])
    assert table["metric"].tolist()[:2] == ["kappa", "gmr"]
    ranked = table.set_index("metric")
    assert ranked.loc["kappa", "stability_rank"] == 1 and ranked.loc["gmr", "power_rank"] == 1
    assert ranked[["stability_rank", "power_rank", "rank_sum"]].loc[["span_f1", "span_f1_exact",
                                                                     "span_precision"]].isna().all().all()
    text = R.sentences(table, used, relevant, primary="span_f1")
    joined = " ".join(text)
    assert text[0].startswith("Report kappa: of the 2 metrics ranked, it has the smallest sum of ranks (5) over "
                              "rank stability, class discrimination, discriminative power and robustness to label "
                              "noise: ")
    assert ("Not ranked, without a value on class discrimination and robustness to label noise: span-F1, "
            "span-F1 exact.") in joined
    assert "The dataset's primary metric, span-F1, is not ranked (above)." in joined
    md = R.recommendation_markdown(table, used, relevant, text, "t", "ctx")
    assert "| 0.990 (-) |" in md and "(-): shown, not ranked" in md
    assert "The dataset's primary metric, GMR, comes 2nd of 2" in " ".join(
        R.sentences(table, used, relevant, primary="gmr"))


def test_few_systems_make_the_recommendation_tentative():
    s = _summary([["kappa", "A", 0.95, 0.2, 0.8], ["gmr", "B", 0.90, 0.5, 0.6]])
    table, used, relevant = R.evidence(s, ordinal_data=False, gold_counts=[10, 10])
    few = R.sentences(table, used, relevant, n_systems=6)
    assert few[-1] == ("Only 6 systems are ranked: one pair of systems swapping places moves a Kendall tau by "
                       "2/15 = 0.13, so the tau-based criteria are coarse and this recommendation is tentative.")
    for n in (R.FEW_SYSTEMS, 30, None):
        assert not any("tentative" in t for t in R.sentences(table, used, relevant, n_systems=n))


def test_the_legend_explains_the_group_and_only_the_criteria_shown():
    s = _summary([["span_f1", "A", 0.95, np.nan, 0.5], ["char_f1", "B", 0.80, np.nan, 0.9]])
    s = s.drop(columns="merging_tau")
    table, used, relevant = R.evidence(s, ordinal_data=False, gold_counts=[])
    md = R.recommendation_markdown(table, used, relevant, R.sentences(table, used, relevant), "t", "ctx")
    legend = md.strip().splitlines()[-1]
    assert "Group: the metric's similarity group" in legend and "similarity.csv). Rank stability:" in legend
    assert "discriminative power:" in legend
    for absent in ("class discrimination", "label noise", "class priors", "formal properties"):
        assert absent not in legend, absent


# -- issue 18: faults the suite let through -------------------------------------------------------
def test_a_rank_sum_tie_is_broken_by_the_worst_rank_not_the_name():
    """Catches a rank-sum tie broken by the metric's name instead of by the worst rank."""
    # by hand: stability (higher better) 1 accuracy, 2 kappa, 3 macro-F1; class discrimination (lower better)
    # 1 macro-F1, 2 kappa, 3 accuracy; power (higher better) 1 macro-F1, 2 accuracy and kappa (a tie)
    # rank sums: macro-F1 3 + 1 + 1 = 5; kappa 2 + 2 + 2 = 6, worst 2; accuracy 1 + 3 + 2 = 6, worst 3
    s = _summary([["accuracy", "A", 0.95, 0.6, 0.7], ["kappa", "A", 0.90, 0.3, 0.7],
                  ["macro_f1", "B", 0.80, 0.1, 0.9]])
    table, used, relevant = R.evidence(s, ordinal_data=False, gold_counts=[10, 10, 10])
    assert used == ["stability", "discrimination", "power"]
    assert table["metric"].tolist() == ["macro_f1", "kappa", "accuracy"]  # "accuracy" < "kappa" by name
    assert table["rank_sum"].tolist() == [5, 6, 6] and table["worst_rank"].tolist() == [3, 2, 3]
    assert table["position"].tolist() == [1, 2, 3]
    text = R.sentences(table, used, relevant, primary="kappa")
    assert "The dataset's primary metric, kappa, comes 2nd of 3." in text


def test_an_imbalance_ratio_of_exactly_two_is_imbalanced():
    """Catches a largest class of exactly IMBALANCE_RATIO (2) times the smallest not counted as imbalanced."""
    assert R.IMBALANCE_RATIO == 2
    assert R.is_imbalanced([20, 10]) and R.is_imbalanced([10, 15, 20]) and R.is_imbalanced([0, 7, 14])
    assert not R.is_imbalanced([19, 10]) and not R.is_imbalanced([10, 15, 19.99])
    s = _summary([["accuracy", "A", 0.9, 0.3, 0.5], ["kappa", "B", 0.8, 0.2, 0.6]])
    pri = _priors({"accuracy": 0.4, "kappa": 0.9})
    props = _properties({"accuracy": 3, "kappa": 3})
    _, used, relevant = R.evidence(s, priors=pri, properties=props, ordinal_data=True, gold_counts=[10, 15, 20])
    assert "priors" in used and "imbalance" in relevant
    _, used, relevant = R.evidence(s, priors=pri, properties=props, ordinal_data=True, gold_counts=[10, 15, 19])
    assert "priors" not in used and "imbalance" not in relevant


def test_the_noise_criterion_is_the_mean_over_the_noise_rates():
    """Catches the noise criterion computed from the highest noise rate only instead of the mean over the rates."""
    taus = {"kappa": {0.01: 1.00, 0.05: 0.85, 0.10: 0.70},  # mean 0.85, lowest at the highest rate
            "gmr": {0.01: 0.82, 0.05: 0.82, 0.10: 0.76}}    # mean 0.80, better at the highest rate
    noise = pd.DataFrame([{"metric": m, "rate": r, "mean_tau": t, "winner_kept": 1.0}
                          for m, by in taus.items() for r, t in by.items()])
    s = _summary([["kappa", "A", 0.90, 0.3, 0.5], ["gmr", "B", 0.90, 0.3, 0.5]])
    table, used, _ = R.evidence(s, noise, ordinal_data=False, gold_counts=[10, 10, 10])
    t = table.set_index("metric")
    for m, by in taus.items():
        want = 0.0
        for v in by.values():
            want += v / len(by)
        assert t.loc[m, "noise_tau"] == pytest.approx(want)
    assert t.loc["kappa", "noise_rank"] == 1 and t.loc["gmr", "noise_rank"] == 2
    assert table["metric"].tolist() == ["kappa", "gmr"]
