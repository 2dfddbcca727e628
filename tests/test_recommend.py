"""The recommendation (metaeval.verdict.recommendation): candidates and vetoes,
requirements declared or offered (never deciding unless declared), the
priors criterion's exemption, the official metric and the papers' choices,
the two scopes, the outputs; on real data through the config, every
default dataset's page and the span task whose official metric the evidence
cannot tell from the best."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from metaeval.settings import ALL_CRITERIA
from metaeval.verdict import recommendation as R
from metaeval.verdict import page as RP
from metaeval.verdict import sentences as RS
from metaeval.verdict.criteria import CriteriaResult
from metaeval.present.tables import md_escape
from metaeval.verdict.evidence import evidence_sets, paired_interval


def test_relevant_properties_follow_the_data():
    assert "ordinal_invariance" in R.relevant_properties(True, False)
    assert "class_exchange" not in R.relevant_properties(True, False)
    assert "class_exchange" in R.relevant_properties(False, False)
    assert "imbalance" in R.relevant_properties(False, True) and "imbalance" not in R.relevant_properties(False, False)
    # invariance to class priors is offered as a requirement (the property uniform_class_change)
    assert R.PRIORS_PROPERTY in R.relevant_properties(False, True) and R.PRIORS_PROPERTY == "uniform_class_change"
    assert R.is_imbalanced([100, 40]) and not R.is_imbalanced([100, 60]) and not R.is_imbalanced([5, 0, 4])


def test_an_imbalance_ratio_of_exactly_two_is_imbalanced():
    assert R.IMBALANCE_RATIO == 2
    assert R.is_imbalanced([20, 10]) and R.is_imbalanced([10, 15, 20]) and R.is_imbalanced([0, 7, 14])
    assert not R.is_imbalanced([19, 10]) and not R.is_imbalanced([10, 15, 19.99])


def test_applicable_criteria_say_why_each_other_is_left_out():
    crit, why = R.applicable_criteria(ALL_CRITERIA, has_classes=True, k=4, ordinal_data=False, imbalanced=True)
    assert crit == ["stability", "power", "noise", "priors"]
    assert "unordered" in why["discrimination"]
    crit, why = R.applicable_criteria(ALL_CRITERIA, has_classes=True, k=3, ordinal_data=True, imbalanced=False)
    assert crit == ["stability", "discrimination", "power", "noise"] and "balanced" in why["priors"]
    crit, why = R.applicable_criteria(("stability", "power", "noise"), has_classes=False, k=0, ordinal_data=False,
                                      imbalanced=False)
    assert crit == ["stability", "power"] and "span identification" in why["noise"]
    assert "properties" not in ALL_CRITERIA  # requirements, not evidence


# -- synthetic criteria ------------------------------------------------------------------------------
METRICS = ["accuracy", "macro_f1", "kappa", "macro_recall", "gmr"]


def _results(v, sd=0.01, crit=("stability", "power"), metrics=None, seed=0, both_sd=None, baselines=None,
             n_systems=9, replicates=200):
    """{(scheme, subset): CriteriaResult}: replicates spread ``sd`` around
    ``v`` (items), ``both_sd`` (both); ``baselines``: values of the variant."""
    v = np.asarray(v, dtype=float)
    c, m = v.shape
    rng = np.random.default_rng(seed)
    common = rng.normal(size=(replicates, c, 1))
    out = {}
    for sc, s_ in (("items", sd), ("both", both_sd if both_sd is not None else 3 * sd)):
        boot = v + s_ * (0.6 * common + 0.8 * rng.normal(size=(replicates, c, m)))
        out[sc, "real"] = CriteriaResult(metrics or METRICS[:m], list(crit), v, boot, sc, 0.95,
                                         np.tile(np.arange(n_systems), (replicates, 1)))
    if baselines is not None:
        b = np.asarray(baselines, dtype=float)
        out["items", "all"] = CriteriaResult(metrics or METRICS[:m], list(crit), b,
                                             b + sd * rng.normal(size=(replicates, c, m)), "items", 0.95,
                                             np.tile(np.arange(n_systems + 2), (replicates, 1)))
    return out


def _props(rows):
    """properties.csv rows: (metric, property, result)."""
    return pd.DataFrame(rows, columns=["metric", "property", "result"])


def test_a_gameable_metric_is_never_a_candidate_and_a_borderline_one_is_said():
    v = np.array([[0.95, 0.5, 0.6], [0.9, 0.5, 0.6]])
    games = pd.DataFrame([
        {"metric": "accuracy", "degenerate": "all_comment", "score": 0.74, "median_real": 0.70, "rank": 1,
         "n_real": 8, "beats_median": True, "p_value": 0.001, "p_holm": 0.004, "verdict": "gameable"},
        {"metric": "kappa", "degenerate": "all_comment", "score": 0.62, "median_real": 0.60, "rank": 3,
         "n_real": 8, "beats_median": True, "p_value": 0.2, "p_holm": 0.6, "verdict": "borderline"}])
    rec = R.recommend(_results(v), criteria=["stability", "power"], gameability=games)
    assert "accuracy" not in rec.selected and not rec.candidate[0]
    assert "gameable" in rec.excluded["accuracy"] and "all_comment" in rec.excluded["accuracy"]
    assert rec.candidate[2] and "kappa" not in rec.excluded  # borderline: said, not vetoed
    off = R.recommend(_results(v), criteria=["stability", "power"], gameability=games, official="accuracy")
    assert (off.official.metric, off.official.status) == ("accuracy", "vetoed")
    nan = R.recommend(_results(np.array([[0.95, np.nan, 0.6], [0.9, 0.5, 0.6]])), criteria=["stability", "power"],
                      official="macro_f1")
    assert nan.excluded["macro_f1"].startswith("no value on rank stability")
    assert (nan.official.metric, nan.official.status, nan.official.why) == ("macro_f1", "excluded",
                                                                            nan.excluded["macro_f1"])
    js = json.loads(RP.recommendation_json(rec))
    assert js["gameable"][0]["metric"] == "accuracy" and js["borderline"][0]["metric"] == "kappa"
    md = RP.recommendation_markdown(rec, "t", "ctx")
    assert "Gameable on this test set" in md and "**Borderline**" in md and "p = 0.6 (Holm)" in md


def test_gameable_lower_is_better_metric_is_said_to_score_better_not_above():
    games = pd.DataFrame([{"metric": "kappa", "degenerate": "all_discuss", "score": 0.667, "median_real": 0.670,
                           "rank": 9, "n_real": 17, "beats_median": True, "p_value": 0.001, "p_holm": 0.003,
                           "verdict": "gameable"}])
    games.loc[0, "metric"] = "accuracy"
    rec = R.recommend(_results(np.array([[0.9, 0.8], [0.5, 0.6]])), criteria=["stability", "power"],
                      gameability=games)
    assert "scores 0.667 against the median real system's 0.670 (higher is better)" in rec.excluded["accuracy"]


def test_span_precision_and_recall_and_ill_defined_criteria_are_not_candidates():
    v = np.array([[0.9, 0.8, 0.7], [0.9, 0.8, 0.7]])
    res = _results(v, metrics=["span_recall", "span_f1", "char_f1"])
    res["items", "real"].boot[:30, 0, 1] = np.nan  # 15 % of the resamples undefined
    rec = R.recommend(res, criteria=["stability", "power"])
    assert "span precision or recall" in rec.excluded["span_recall"]
    assert "ill-defined" in rec.excluded["span_f1"]
    assert rec.selected == ["char_f1"]
    assert "(30 of 200 undefined)" in RP.recommendation_markdown(rec, "t", "ctx")  # the left-out resamples said


def test_the_answer_is_the_intersection_of_the_sets_of_its_scope():
    v = np.array([[0.90, 0.70, 0.89], [0.80, 0.60, 0.81]])
    rec = R.recommend(_results(v, sd=0.01, both_sd=0.2), criteria=["stability", "power"])
    s = rec.sets["these_systems"]
    assert rec.selected == [m for m, a in zip(rec.metrics, s.members.all(axis=0)) if a] == ["accuracy", "kappa"]
    assert rec.answer("new_systems") == rec.metrics  # the systems' noise separates nothing
    first = RS.answer_sentence(rec)
    assert first.startswith("Report Acc or kappa: each is kept on every criterion (rank stability and "
                            "discriminative power), and the evidence does not separate them.")
    assert "For new systems: all 3 kept." in first
    md = RP.recommendation_markdown(rec, "t", "ctx")
    assert "New systems (the test items and the systems resampled together): the evidence does not separate" in md
    # the other scope heads the page when asked, and the first sentence says so
    rec2 = R.recommend(_results(v, sd=0.01, both_sd=0.2), criteria=["stability", "power"], headline="new_systems")
    assert rec2.selected == rec.metrics and RS.answer_sentence(rec2).startswith("For new systems: ")
    assert "For these systems: 2 of 3 kept." in RS.answer_sentence(rec2)


def test_undeclared_requirements_decide_nothing_and_say_what_they_would():
    """Offered requirements are shown with who fails them and the answer if
    required; the answer is the same as with no properties at all.  A
    declared one removes the metrics that fail it."""
    v = np.array([[0.90, 0.70, 0.89, 0.88], [0.80, 0.60, 0.81, 0.82]])
    props = _props([("accuracy", "monotonicity", "holds"), ("macro_f1", "monotonicity", "holds"),
                    ("kappa", "monotonicity", "fails"), ("macro_recall", "monotonicity", "holds"),
                    ("accuracy", "maximal_agreement", "holds"), ("macro_f1", "maximal_agreement", "holds"),
                    ("kappa", "maximal_agreement", "holds"), ("macro_recall", "maximal_agreement", "fails")])
    plain = R.recommend(_results(v), criteria=["stability", "power"])
    offered = R.recommend(_results(v), criteria=["stability", "power"], properties=props,
                          offered=["monotonicity", "maximal_agreement"])
    assert offered.selected == plain.selected and len(plain.selected) >= 2
    req = {r.id: r for r in offered.requirements}
    assert req["monotonicity"].fails == ["kappa"] and not req["monotonicity"].declared
    hs = offered.sets["these_systems"]
    want = evidence_sets(offered.value, _results(v)["items", "real"].boot,
                         offered.candidate & np.array([True, True, False, True]), 0.05, offered.exempt,
                         offered.criteria).answer
    assert req["monotonicity"].answer == [m for m, a in zip(offered.metrics, want) if a]
    assert hs.admissible.all()
    md = RP.recommendation_markdown(offered, "t", "ctx")
    assert "- **monotonicity** (monotonicity; Goesgens" in md and "not declared) fails for kappa" in md
    assert all("not_checked" not in r for r in json.loads(RP.recommendation_json(offered))["requirements_offered"]
               .values())
    declared = R.recommend(_results(v), criteria=["stability", "power"], properties=props,
                           offered=["monotonicity", "maximal_agreement"], requirements=["monotonicity"])
    assert "kappa" not in declared.selected and not declared.admissible[2]
    off = R.recommend(_results(v), criteria=["stability", "power"], properties=props,
                      offered=["monotonicity", "maximal_agreement"], requirements=["monotonicity"], official="kappa")
    assert (off.official.metric, off.official.status, off.official.why) == ("kappa", "excluded",
                                                                            "fails a declared requirement")
    assert json.loads(RP.recommendation_json(declared))["requirements"] == ["monotonicity"]
    row = RP.criteria_table(declared).set_index("metric").loc["kappa"]
    assert row["status"] == "fails a declared requirement (monotonicity)"
    # the first sentence says the requirement narrowed the candidates (helper trial: it read as the evidence's choice)
    assert RS.answer_sentence(declared).startswith("Among the metrics that meet the declared requirement "
                                                  "(monotonicity), ")
    assert "declared requirement" not in RS.answer_sentence(offered)
    both = R.recommend(_results(v), criteria=["stability", "power"], properties=props,
                       offered=["monotonicity", "maximal_agreement"], requirements=["monotonicity", "maximal_agreement"])
    assert RS.answer_sentence(both).startswith("Among the metrics that meet the declared requirements (monotonicity "
                                              "and maximal_agreement), ")
    with pytest.raises(ValueError, match="not available"):
        R.recommend(_results(v), criteria=["stability", "power"], requirements=["monotonicity"])


def test_the_metrics_invariant_to_the_priors_are_exempt_from_that_criterion():
    """uniform_class_change on the dataset's shape says who is invariant
    (exempt: not judged, never eliminated by the priors); without the
    properties, exactly 1 on the data and on every resample does."""
    v = np.array([[0.90, 0.89, 0.88], [0.70, 0.40, 1.00]])
    res = _results(v, crit=("stability", "priors"), metrics=["accuracy", "kappa", "macro_recall"])
    for sc in ("items", "both"):
        res[sc, "real"].boot[:, 1, 2] = 1.0
    props = _props([("accuracy", "uniform_class_change", "fails"), ("kappa", "uniform_class_change", "fails"),
                    ("macro_recall", "uniform_class_change", "holds")])
    for p in (props, None):
        rec = R.recommend(res, criteria=["stability", "priors"], properties=p,
                          offered=["uniform_class_change"] if p is not None else [])
        assert rec.exempt[1].tolist() == [False, False, True]
        assert "kappa" not in rec.selected and "macro_recall" in rec.selected and "accuracy" in rec.selected
        row = RP.criteria_table(rec).set_index("metric").loc["R^M (balanced accuracy)"]
        assert "exempt (invariant)" in row["robustness to class priors"]
        # the priors alone eliminate a metric here: the page says who is exempt and what requiring it would do
        md = RP.recommendation_markdown(rec, "t", "ctx")
        assert ("\n" + md_escape("Robustness to class priors is the only criterion that eliminates a metric here; the "
                                  "metrics invariant to the priors by construction (R^M) are not judged on it. "
                                  "Requiring that invariance (uniform_class_change) would leave only them.")
                + "\n\n") in md
    plain = R.recommend(_results(np.array([[0.90, 0.70, 0.89], [0.80, 0.81, 0.79]])), criteria=["stability", "power"])
    assert "Robustness to class priors is the only criterion" not in RP.recommendation_markdown(plain, "t", "ctx")


def test_the_official_metric_is_placed_on_each_criterion():
    v = np.array([[0.90, 0.70, 0.89], [0.80, 0.81, 0.79]])
    res = _results(v)
    rec = R.recommend(res, criteria=["stability", "power"], official="macro_f1", official_source="Task paper")
    o = rec.official
    assert o.status == "eliminated" and o.criteria["stability"]["kept"] is False
    st = o.criteria["stability"]
    d, lo, hi, _ = paired_interval(v[0], res["items", "real"].boot[:, 0], 0, 1,
                                   1 - rec.sets["these_systems"].alpha_c)
    assert st["best"] == "accuracy" and (st["d"], st["low"], st["high"]) == pytest.approx((d, lo, hi))
    assert o.criteria["power"]["kept"] is True
    first = RS.answer_sentence(rec)
    assert "The official macro-F1 is eliminated on rank stability (Acc better by 0.200" in first
    assert len(RS.headline_sentence(rec).split()) <= RS.MAX_WORDS == 40
    js = json.loads(RP.recommendation_json(rec))
    assert js["official_metric"]["metric"] == "macro_f1" and js["official_metric"]["source"] == "Task paper"
    assert js["official_metric"]["status"] == "eliminated"
    md = RP.recommendation_markdown(rec, "t", "ctx")
    assert "Official metric (Task paper): macro-F1 is eliminated on rank stability" in md
    # not computed on this dataset, and vetoed
    nc = R.recommend(res, criteria=["stability", "power"], official="fnc_score",
                     not_computed={"fnc_score": "needs the unrelated class"})
    assert "The official FNC score is not computed on this dataset (needs the unrelated class)." in \
        RS.answer_sentence(nc)
    assert "FNC score is not computed (needs the unrelated class)" in RP.recommendation_markdown(nc, "t", "c")
    in_answer = R.recommend(res, criteria=["stability", "power"], official="kappa")
    assert "The official kappa is kept too." in RS.answer_sentence(in_answer)
    none = R.recommend(res, criteria=["stability", "power"])
    assert "No official metric is configured" in RP.recommendation_markdown(none, "t", "ctx")


def test_a_paper_s_choice_is_placed_and_where_the_answers_differ_is_said():
    v = np.array([[0.90, 0.70, 0.89, 0.60], [0.80, 0.60, 0.81, 0.79]])
    rec = R.recommend(_results(v), criteria=["stability", "power"],
                      papers=[{"metrics": ("kappa", "macro_recall"), "source": "Someone et al. (2020)"}])
    (src, standings), = rec.papers
    assert src == "Someone et al. (2020)" and [s.metric for s in standings] == ["kappa", "macro_recall"]
    assert standings[0].status == "answer" and standings[1].eliminated_on() == ["stability"]
    md = RP.recommendation_markdown(rec, "t", "ctx")
    assert "Someone et al. (2020) chose kappa and R^M (balanced accuracy) on these data" in md
    assert "(the answers differ on rank stability)" in md


def test_the_variant_with_the_ranked_baselines_is_said_and_never_decides():
    v = np.array([[0.90, 0.70], [0.60, 0.61]])
    w = np.array([[0.70, 0.90], [0.60, 0.61]])
    rec = R.recommend(_results(v, baselines=w), criteria=["stability", "power"], baselines=["majority", "random"])
    assert rec.selected == ["accuracy"] and rec.with_baselines == ["macro_f1"]
    md = RP.recommendation_markdown(rec, "t", "ctx")
    assert ("With the ranked baselines (majority and random) among the systems (a variant; the answer is decided on "
            "the real systems): macro-F1.") in md
    assert "accuracy" in json.loads(RP.recommendation_json(rec))["recommended"]
    head = "With the ranked baselines (majority and random) among the systems (a variant; the answer is decided on " \
           "the real systems): "
    same = R.recommend(_results(v, baselines=v), criteria=["stability", "power"], baselines=["majority", "random"])
    assert same.with_baselines == same.selected and head + "the same answer." in RP.recommendation_markdown(same, "t", "c")
    v3, w3 = np.array([[0.90, 0.70, 0.70], [0.6, 0.6, 0.6]]), np.array([[0.70, 0.90, 0.90], [0.6, 0.6, 0.6]])
    two = R.recommend(_results(v3, baselines=w3), criteria=["stability", "power"], baselines=["majority", "random"])
    assert two.selected == ["accuracy"] and two.with_baselines == ["macro_f1", "kappa"]
    assert head + "macro-F1 or " + R.display_name("kappa") + "." in RP.recommendation_markdown(two, "t", "c")


def test_the_long_csv_and_the_json_have_the_documented_columns_and_keys():
    v = np.array([[0.9, 0.8, 0.7], [0.6, 0.8, 0.7]])
    rec = R.recommend(_results(v), criteria=["stability", "power"], official="accuracy")
    long = RP.recommendation_long(rec)
    assert list(long.columns) == ["scope", "criterion", "metric", "value", "low", "high", "better", "n_undefined",
                                  "candidate", "admissible", "exempt", "participant", "counted", "in_set", "mcs_p",
                                  "mcs_p_upper", "level", "replicates", "answer", "kept_on", "criteria_counted",
                                  "recommended", "not_defined"]
    assert not long["not_defined"].any()  # the label metrics have every criterion
    assert len(long) == 2 * 2 * 3 and long["scope"].iloc[0] == "these_systems"
    hs = rec.sets["these_systems"]
    got = long[long["scope"] == "these_systems"].pivot(index="criterion", columns="metric", values="mcs_p")
    np.testing.assert_allclose(got.loc[rec.criteria, rec.metrics].to_numpy(), hs.p_value)
    text = RP.recommendation_json(rec)
    # no metric is kept on both criteria: the answer is those kept on one, each the best of its criterion
    assert rec.decision().kind == "k_of_c" and rec.selected == ["accuracy", "macro_f1"]
    assert (long.groupby("metric")["kept_on"].first().to_dict() == {"accuracy": 1, "macro_f1": 1, "kappa": 0}
            and (long["criteria_counted"] == 2).all())
    assert text.startswith('{\n  "recommended": [\n    "accuracy",\n    "macro_f1"\n  ],\n  "answer": "No metric') \
        and text.endswith("\n  }\n}\n") and "NaN" not in text
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        RP.recommendation_json(rec, extra=float("nan"))  # strict JSON: a NaN that slipped through is refused
    js = json.loads(text)
    for key in ("recommended", "official_metric", "requirements", "evidence", "sets", "answers", "gameable",
                "borderline", "excluded", "with_baselines", "headline", "answer_kind", "kept_on", "priorities",
                "tradeoff", "if_first", "systems"):
        assert key in js
    assert js["headline"] == RS.headline_sentence(rec) and js["answer"].startswith(js["headline"] + " ")
    assert (js["answer_kind"], js["kept_on"], js["priorities"]) == ("k_of_c", {"k": 1, "of": 2}, [])
    assert js["tradeoff"] == [{"criteria": ["stability"], "answer": ["accuracy"]},
                              {"criteria": ["power"], "answer": ["macro_f1"]}]
    assert js["if_first"] == {"stability": ["accuracy"], "power": ["macro_f1"]}
    assert js["sets"]["these_systems"]["stability"] == [m for m, x in zip(rec.metrics, hs.members[0]) if x]
    assert js["evidence"] == [c for i, c in enumerate(rec.criteria) if (hs.participants[i] & ~hs.members[i]).any()]
    md = RP.recommendation_markdown(rec, "t", "ctx")
    assert md.splitlines()[2] == md_escape(RS.answer_sentence(rec))  # the answer opens the page, after the title


def test_no_criterion_that_counts_gives_no_answer_and_says_why():
    """experiments.criteria: [discrimination] on unordered classes: the
    page says why there is no answer and the CSV has its columns."""
    from metaeval.api import meta_evaluate

    rng = np.random.default_rng(1)
    labels = ["a", "b", "c", "d"]
    gold = list(rng.choice(labels, 200))
    systems = {f"s{k}": [g if rng.random() < 0.3 + 0.08 * k else rng.choice(labels) for g in gold] for k in range(7)}
    res = meta_evaluate(gold, systems, criteria=["discrimination"], properties=False, criteria_replicates=10,
                        n_splits=20, tukey_trials=50, bootstrap_replicates=20)
    assert res.rec.selected == [] and "none of the configured criteria counts" in res.recommendation
    assert list(res["recommendation"].columns)[:4] == ["scope", "criterion", "metric", "value"]
    assert res["recommendation"].empty
    md = RP.recommendation_markdown(res.rec, "t", "c")
    assert "the classes are unordered" in md and "| metric |" not in md and "Legend" not in md


def test_superseded_settings_are_refused_with_what_replaced_them():
    from metaeval.data.config import ConfigError
    from metaeval.methods.experiments import Settings

    with pytest.raises(ConfigError, match="tier_alpha: no longer a setting.*verdict_alpha"):
        Settings.from_config({"tier_alpha": 0.1})
    with pytest.raises(ConfigError, match="min_difference: no longer a setting"):
        Settings.from_config({"min_difference": {"stability": 0.01}})
    with pytest.raises(ConfigError, match="'properties' is no longer a criterion.*requirements"):
        Settings.from_config({"criteria": ["stability", "properties"]})
    with pytest.raises(ConfigError, match="verdict_scope"):
        Settings.from_config({"verdict_scope": "everything"})


def test_the_dataset_keys_of_the_verdict_are_checked():
    from metaeval.data.config import ConfigError, DatasetSpec

    base = dict(gold="g.csv", predictions=["p/*.csv"], labels=["a", "b", "c"])
    s = DatasetSpec.from_config("d", {**base, "official_metric": {"metric": "macro_f1", "source": "the task"},
                                      "paper_choices": [{"metrics": ["gmr"], "source": "a paper"}],
                                      "requirements": ["monotonicity"], "test_set": "T"})
    assert (s.official_metric, s.official_source, s.requirements, s.test_set) == ("macro_f1", "the task",
                                                                                  ("monotonicity",), "T")
    assert s.paper_choices == ({"metrics": ("gmr",), "source": "a paper"},)
    # a metric the dataset cannot compute is accepted (the page says why); one its list leaves out is not
    assert DatasetSpec.from_config("d", {**base, "official_metric": "fnc_score"}).official_metric == "fnc_score"
    for raw, msg in [({"official_metric": "acuracy"}, "not a metric id.*accuracy"),
                     ({"metrics": ["accuracy"], "official_metric": "macro_f1"}, "not among this dataset's metrics"),
                     ({"requirements": ["monotonic"]}, "not a formal property.*monotonicity"),
                     ({"requirements": ["ordinal_invariance"]}, "ordered classes"),
                     ({"paper_choices": [{"metrics": ["gmr"]}]}, "both keys")]:
        with pytest.raises(ConfigError, match=msg):
            DatasetSpec.from_config("d", {**base, **raw})


# -- real data, through the config -------------------------------------------------------------------
@pytest.fixture(scope="module")
def real(project_config, data_dir):
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.experiments import Settings
    from metaeval.workflow import experiment_settings

    def get(name, **settings):
        spec = dataset_specs(project_config)[name]
        st = experiment_settings(project_config, name)
        st = Settings(**{**st.__dict__, "criteria_replicates": 60, "criteria_splits": 4, "n_splits": 100,
                         "noise_repeats": 6, **settings})
        return spec, st, load_dataset(spec, data_dir)
    return get


def test_a_span_task_s_official_metric_within_noise_of_the_best_is_in_the_answer(real):
    """Issue 29: on a span dataset where the official metric cannot be told
    from the best on any criterion, it is in the answer (it was removed as
    'dominated' by a 0.00x point difference before)."""
    from metaeval.methods.gameability import dataset_gameability

    spec, st, ds = real("semeval2020t11_si_synthetic")
    games = dataset_gameability(ds, spec, unit="group", replicates=200, seed=1)
    rec = R.recommend_dataset(ds, spec, st, gameability=games)
    assert spec.official_metric == "span_f1"
    o = rec.official
    assert all(x["kept"] for x in o.criteria.values()) and "span_f1" in rec.selected
    assert "span_f1_min" not in rec.selected and "gameable" in rec.excluded["span_f1_min"]


@pytest.mark.slow
@pytest.mark.realdata
def test_every_default_dataset_shows_one_answer_and_its_official_metric(project_config, data_dir):
    """Over every default dataset with a meta-evaluation: the answer opens
    recommendation.md, is recommendation.json's and the front page's, is at
    most 40 words, names the official metric and where it stands, names
    exactly the recommended metrics when it names any, holds no vetoed
    metric; and no requirement that was not declared decides it (the answer
    equals the evidence's over every candidate)."""
    import html as H

    from metaeval.measures import properties as P
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.scorer import select_systems
    from metaeval.methods.experiments import Settings
    from metaeval.methods.gameability import dataset_gameability
    from metaeval.present.notation import typeset_html
    from metaeval.present.report import overview_html
    from metaeval.workflow import experiment_settings

    specs = dataset_specs(project_config)
    base = P.PropertySettings.from_config({**project_config["properties"], "n_max": 4, "random": 200})
    seen = 0
    for name, spec in specs.items():
        st = experiment_settings(project_config, name)
        ds = load_dataset(spec, data_dir)
        sel = select_systems(ds, st.include_baselines)
        if len(sel) < st.min_systems:  # no meta-evaluation (the workflow's n_ranked_systems)
            continue
        st = Settings(**{**st.__dict__, "criteria_replicates": 30, "criteria_splits": 2, "n_splits": 20,
                         "noise_repeats": 2})
        games = dataset_gameability(ds, spec, unit=st.resample_unit, replicates=100, seed=st.bootstrap_seed)
        props = (P.check_all(P.dataset_settings(spec, np.bincount(ds.gold, minlength=ds.k), base),
                             list(spec.metrics)) if ds.k >= 2 else None)
        rec = R.recommend_dataset(ds, spec, st, properties=props, gameability=games)
        answer = RS.answer_sentence(rec)
        js = json.loads(RP.recommendation_json(rec))
        md = RP.recommendation_markdown(rec, name, "ctx")
        assert md.splitlines()[2] == md_escape(answer) and js["answer"] == answer
        front = overview_html([{"name": name, "task": "t", "n_systems": len(sel), "recommendation": js["answer"],
                                "headline": js["headline"], "systems": js["systems"]}], None)
        assert typeset_html(H.escape(js["headline"], quote=True)) in front  # the names typeset (metaeval.present.notation)
        assert typeset_html(H.escape(answer, quote=True)) in front  # (and the whole answer, with the dataset)
        assert f"{rec.n_systems - rec.n_synthetic} real system" in js["systems"] and js["systems"] in front
        assert len(js["headline"].split()) <= 40 and answer.startswith(js["headline"]), (name, answer)
        assert rec.official is not None and "official" in answer and "Official metric (" in md, name
        if 1 <= len(rec.selected) <= 4 and rec.decision().kind == "all":
            for mid in rec.selected:
                assert R.display_name(mid) in answer
        assert not set(rec.selected) & {g["metric"] for g in rec.gameable}
        assert js["requirements"] == [] and rec.admissible.tolist() == rec.candidate.tolist()
        seen += 1
    assert seen >= 6


def test_old_and_impossible_settings_are_refused_when_the_workflow_starts():
    """The superseded top-tier settings are named with what replaced them
    before the schema speaks (top level and a dataset's own block), and
    requirements with the formal properties switched off are refused when
    the config is read, not when a recommendation job fails."""
    import yaml

    from metaeval.data.config import DatasetSpec, unknown_keys
    from metaeval.workflow.params import requirement_problems

    from .conftest import ROOT

    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    raw = dict(gold="g.csv", predictions=["p/*.csv"], labels=["a", "b", "c"])
    got = unknown_keys({"experiments": {"tier_alpha": 0.1}, "datasets": {"d": {**raw, "experiments": {
        "min_difference": {"stability": 0.01}}}}}, schema)
    assert got[0].startswith("experiments.tier_alpha: no longer a setting: the top tiers are superseded by the Model "
                             "Confidence Set: set verdict_alpha")
    assert got[1].startswith("datasets.d.experiments.min_difference: no longer a setting")
    specs = {"d": DatasetSpec.from_config("d", {**raw, "requirements": ["monotonicity"]}),
             "e": DatasetSpec.from_config("e", raw)}
    assert requirement_problems(specs, True) == []
    assert requirement_problems(specs, False) == [
        "datasets.d.requirements: ['monotonicity'] need the formal properties of the dataset's shape: set "
        "properties.enabled: true, or remove the requirements"]
    # a requirement given as one word, not a list, is that requirement
    assert DatasetSpec.from_config("d", {**raw, "requirements": "monotonicity"}).requirements == ("monotonicity",)


@pytest.mark.parametrize("n_systems, said", [(6, True), (9, True), (10, False), (14, False)])
def test_the_answer_is_called_tentative_below_ten_real_systems(n_systems, said):
    res = _results(np.array([[0.9, 0.7, 0.89], [0.8, 0.6, 0.81]]))
    for key, r in res.items():
        res[key] = replace(r, system_draws=np.tile(np.arange(n_systems), (200, 1)))
    rec = R.recommend(res, criteria=["stability", "power"])
    assert rec.n_systems == n_systems
    first = RS.answer_sentence(rec)
    assert first.endswith(f" Tentative: {n_systems} real systems.") == said
    md = RP.recommendation_markdown(rec, "t", "ctx")
    line = (f"Only {n_systems} real systems are ranked: one swapped pair moves a tau by "
            f"{2 / (n_systems * (n_systems - 1) / 2):.2f}")
    assert (line in md.replace("\\", "")) == said


def test_a_metric_without_a_value_on_a_criterion_is_no_candidate_and_the_criterion_is_named():
    v = np.array([[0.9, 0.8, 0.85], [0.7, np.nan, 0.75]])
    rec = R.recommend(_results(v), criteria=["stability", "power"])
    assert not rec.candidate[1] and rec.candidate[0] and rec.candidate[2]
    assert rec.excluded["macro_f1"] == "no value on " + R.CRITERIA["power"]
    assert "macro_f1" not in rec.selected


def test_tied_bests_are_kept_together():
    """Two metrics equal on every criterion and every resample (a copy) are
    kept or dropped together; the evidence never picks one of them."""
    v = np.array([[0.9, 0.9, 0.6], [0.8, 0.8, 0.5]])
    res = _results(v)
    for r in res.values():
        r.boot[:, :, 1] = r.boot[:, :, 0]
    rec = R.recommend(res, criteria=["stability", "power"])
    assert rec.selected == ["accuracy", "macro_f1"]
    assert RS.answer_sentence(rec).startswith("Report Acc or macro-F1: each is kept on every criterion (rank "
                                             "stability and discriminative power), and the evidence does not "
                                             "separate them.")


def _rounded(x, digits=10):
    """JSON values with floats rounded (the last digits of a sum may differ between CPUs)."""
    if isinstance(x, float):
        return round(x, digits)
    if isinstance(x, list):
        return [_rounded(v, digits) for v in x]
    if isinstance(x, dict):
        return {k: _rounded(v, digits) for k, v in x.items()}
    return x


def _page(rec, title):
    """Everything a recommendation writes, as one text: the page, the
    criteria table of each scope, the long CSV and the JSON."""
    long = RP.recommendation_long(rec)
    num = long.select_dtypes("number").columns
    long[num] = long[num].round(10)
    parts = [f"===== {title}: answer", RS.answer_sentence(rec), f"===== {title}: recommendation.md",
             RP.recommendation_markdown(rec, title, "ctx: the dataset's context.", figure="criteria.png")]
    for scope in rec.sets:
        parts += [f"===== {title}: criteria table ({scope})", RP.criteria_table(rec, scope).to_csv(index=False),
                  f"===== {title}: sets line ({scope})", RS.sets_line(rec, scope)]
    parts += [f"===== {title}: recommendation.csv", long.to_csv(index=False),
              f"===== {title}: recommendation.json",
              json.dumps(_rounded(json.loads(RP.recommendation_json(rec, note="extra key"))), indent=2)]
    return "\n".join(parts) + "\n"


def _scenarios():
    """Verdicts that between them take every branch of the page: (title, Recommendation)."""
    pages = []
    # 1. everything at once: requirements offered and declared, gameable and borderline metrics, a metric of scores
    # without a priors criterion, undefined resamples, the official metric eliminated, two papers' choices, the
    # ranked baselines, criteria left out, notes, synthetic and set-aside systems, the answer's closest pair
    metrics = ["accuracy", "macro_f1", "kappa", "macro_recall", "gmr", "mcc", "map"]
    v = np.array([[0.90, 0.70, 0.89, 0.88, 0.86, 0.87, 0.85],
                  [0.80, 0.62, 0.81, 0.82, 0.80, 0.79, 0.78],
                  [0.95, 0.60, 0.93, 1.00, 0.94, 0.90, np.nan]])
    crit = ("stability", "power", "priors")
    w = v.copy()
    w[0, 2] = 0.99
    res = _results(v, sd=0.01, crit=crit, metrics=metrics, baselines=w, both_sd=0.05)
    for sc in ("items", "both"):
        res[sc, "real"].boot[:, 2, 3] = 1.0
        res[sc, "real"].boot[:, 2, 6] = np.nan
        res[sc, "real"].boot[:10, 0, 4] = np.nan  # 10 of 200 undefined: said, not excluded
    res["items", "all"].boot[:, 2, 6] = np.nan
    props = _props([(m, p, "fails" if (m, p) in {("kappa", "monotonicity"), ("macro_recall", "maximal_agreement")}
                     else "holds") for m in metrics[:6] for p in ("monotonicity", "maximal_agreement")]
                   + [(m, "uniform_class_change", "holds" if m == "macro_recall" else "fails") for m in metrics[:6]])
    games = pd.DataFrame([
        {"metric": "accuracy", "degenerate": "all_comment", "score": 0.74, "median_real": 0.70, "rank": 1,
         "n_real": 8, "beats_median": True, "p_value": 0.001, "p_holm": 0.004, "verdict": "gameable",
         "set_aside": "copycat; echo"},
        {"metric": "mcc", "degenerate": "all_query", "score": 0.31, "median_real": 0.30, "rank": 4,
         "n_real": 8, "beats_median": True, "p_value": 0.2, "p_holm": 0.6, "verdict": "borderline",
         "set_aside": None}])
    rec = R.recommend(res, criteria=list(crit), left_out={"discrimination": "the classes are unordered",
                                                          "noise": "no labels to flip"},
                      properties=props, offered=["monotonicity", "maximal_agreement", "uniform_class_change"],
                      requirements=["maximal_agreement"], gameability=games, baselines=["majority", "random"],
                      official="macro_f1", official_source="Task paper",
                      papers=[{"metrics": ("kappa", "accuracy"), "source": "Someone et al. (2020)"},
                              {"metrics": ("fnc_score",), "source": "Other et al. (2021)"}],
                      not_computed={"fnc_score": "needs the unrelated class"}, n_units=480, unit="items",
                      power_test="paired bootstrap test", n_synthetic=2)
    rec.notes = ["a metric given twice is used once"]
    pages.append(("everything", rec))
    # 2. few resamples (no metric can be eliminated) and few systems; the official metric vetoed; headline new systems
    v = np.array([[0.90, 0.70, 0.89, 0.60], [0.80, 0.60, 0.81, 0.79]])
    games = pd.DataFrame([{"metric": "kappa", "degenerate": "all_a", "score": 0.5, "median_real": 0.4, "rank": 1,
                           "n_real": 5, "beats_median": True, "p_value": 0.01, "p_holm": np.nan,
                           "verdict": "gameable"}])
    rec = R.recommend(_results(v, n_systems=5, replicates=10), criteria=["stability", "power"], gameability=games,
                      official="kappa", headline="new_systems")
    pages.append(("few", rec))
    # 3. ten candidates that the evidence keeps together; an official metric outside the dataset's metrics
    many = ["accuracy", "macro_f1", "kappa", "macro_recall", "gmr", "mcc", "macro_f2", "f1_weighted",
            "markedness", "informedness"]
    v = np.tile([[0.80], [0.70]], (1, 10)) + np.linspace(0, 0.001, 10)
    rec = R.recommend(_results(v, metrics=many, sd=0.05), criteria=["stability", "power"], official="fnc_score")
    pages.append(("many", rec))
    # 4. each metric best on one criterion: no metric kept on both; the official metric kept alone on one
    v = np.array([[0.90, 0.60, 0.50], [0.50, 0.90, 0.40]])
    rec = R.recommend(_results(v, sd=0.005), criteria=["stability", "power"], official="accuracy",
                      official_source="the task")
    pages.append(("split", rec))
    # 4b. the same with power declared first: macro-F1, stability skipped; and a three-way trade-off of three
    # criteria, one of them not counted in the declared priorities' list
    rec = R.recommend(_results(v, sd=0.005), criteria=["stability", "power"], official="accuracy",
                      official_source="the task", priorities=["power"])
    pages.append(("split, power first", rec))
    v3 = np.array([[0.90, 0.60, 0.60, 0.60], [0.60, 0.90, 0.60, 0.60], [0.60, 0.60, 0.90, 0.60]])
    rec = R.recommend(_results(v3, sd=0.005, crit=("stability", "power", "noise"), metrics=METRICS[:4]),
                      criteria=["stability", "power", "noise"])
    pages.append(("three ways", rec))
    v = np.array([[0.90, 0.60, 0.60, 0.89], [0.60, 0.90, 0.60, 0.59], [0.60, 0.60, 0.90, 0.91]])
    rec = R.recommend(_results(v, sd=0.005, crit=("stability", "power", "noise"), metrics=METRICS[:4]),
                      criteria=["stability", "power", "noise"])
    pages.append(("kept on the most", rec))
    rec = R.recommend(_results(v, sd=0.005, crit=("stability", "power", "noise"), metrics=METRICS[:4]),
                      criteria=["stability", "power", "noise"], priorities=["priors", "noise", "power"])
    pages.append(("three ways, declared", rec))
    # 5. one metric kept, the official one, borderline gameable; the other scope keeps two
    v = np.array([[0.90, 0.70, 0.60], [0.80, 0.60, 0.50]])
    games = pd.DataFrame([{"metric": "accuracy", "degenerate": "all_b", "score": 0.61, "median_real": 0.60,
                           "rank": 3, "n_real": 12, "beats_median": True, "p_value": 0.3, "p_holm": 0.9,
                           "verdict": "borderline"}])
    rec = R.recommend(_results(v, sd=0.005, both_sd=0.2, n_systems=12), criteria=["stability", "power"],
                      official="accuracy", gameability=games)
    pages.append(("one", rec))
    # 6. eight candidates, six kept: the few eliminated named with where; fourteen, ten kept: counted
    names = ["accuracy", "macro_f1", "macro_f1_hm", "macro_f2", "f1_weighted", "macro_recall", "gmr", "kappa",
             "kappa_linear", "alpha_nominal", "mcc", "informedness", "markedness", "cem_ord"]
    v = np.array([[0.90] * 6 + [0.50, 0.90], [0.80] * 6 + [0.80, 0.40]])
    rec = R.recommend(_results(v, metrics=names[:8], sd=0.01, n_systems=12), criteria=["stability", "power"])
    pages.append(("six of eight", rec))
    v = np.array([[0.90] * 10 + [0.50, 0.50, 0.90, 0.90], [0.80] * 10 + [0.80, 0.80, 0.40, 0.40]])
    rec = R.recommend(_results(v, metrics=names, sd=0.01, n_systems=12), criteria=["stability", "power"])
    pages.append(("ten of fourteen", rec))
    v = np.array([[0.90] * 6 + [0.50] * 2 + [0.90] * 2, [0.80] * 6 + [0.80] * 2 + [0.40] * 2])
    rec = R.recommend(_results(v, metrics=names[:10], sd=0.01, n_systems=12), criteria=["stability", "power"])
    pages.append(("six of ten", rec))
    return pages


def _pages():
    return "\n".join(_page(rec, title) for title, rec in _scenarios())


def test_the_recommendation_pages_are_the_ones_read_and_approved():
    """Eight verdicts' pages, tables, CSV and JSON, equal to those read and
    approved in tests/fixtures/recommendation_pages.txt.  A change of the
    wording, a column or a number fails here: read the new pages, then
    replace the fixture with them (METAEVAL_WRITE_FIXTURE=1 writes it)."""
    import os

    from .conftest import FIXTURES

    got = _pages()
    path = FIXTURES / "recommendation_pages.txt"
    if os.environ.get("METAEVAL_WRITE_FIXTURE"):
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("unit,stratified,replicates", [("item", False, 40), ("item", True, 40), ("group", False, 40),
                                                       ("item", False, 201)])
def test_the_units_needed_use_the_exponent_measured_on_half_the_units(unit, stratified, replicates):
    """recommend_dataset measures how the closest pair's paired standard
    error shrinks with the test units: the criterion recomputed on a random
    half of the units (items, or whole groups; seeded by criteria_seed),
    the median over the candidates' pairs of se(half) / se(all), the
    exponent log(ratio) / log(n / n_half), and n (critical / t)^(1 /
    exponent) units; a loop over the pairs and a half built by hand.  The
    half's criterion takes at most 200 resamples (a ratio of standard
    errors, not a test)."""
    from dataclasses import replace as dc_replace

    from metaeval.verdict import criteria as CR
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset
    from metaeval.methods.scorer import Scorer
    from metaeval.methods.experiments import Settings

    rng = np.random.default_rng(3)
    n, s_n, g_n = 240, 8, 24
    gold = rng.integers(0, 3, n)
    acc = np.linspace(0.45, 0.8, s_n)[:, None] + rng.uniform(-0.1, 0.1, (s_n, 3))
    pred = np.where(rng.random((s_n, n)) < acc[:, gold], gold, rng.integers(0, 3, (s_n, n)))
    groups = np.repeat(np.arange(g_n), n // g_n)
    spec = DatasetSpec.from_config("half", dict(gold="-", predictions=[], labels=["a", "b", "c"],
                                                metrics=["accuracy", "macro_f1", "kappa", "macro_recall"],
                                                baselines=[]))
    ds = Dataset("half", ("a", "b", "c"), np.arange(n).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(s_n)), ("system",) * s_n, pred.astype(np.int8),
                 groups=groups.astype(np.int16), group_names=tuple(f"g{i}" for i in range(g_n)))
    st = Settings(include_baselines=(), criteria=("stability", "power"), criteria_replicates=replicates,
                  criteria_splits=2, n_splits=20, resample_unit=unit, stratified=stratified, criteria_seed=17)
    rec = R.recommend_dataset(ds, spec, st)
    s = rec.separation
    assert s is not None and s["exponent_measured"]
    # the half, by hand
    half_rng = np.random.default_rng([17, 29])
    if unit == "group":
        kept = np.sort(half_rng.permutation(g_n)[: g_n // 2])
        keep = np.flatnonzero(np.isin(groups, kept))
        code = np.full(g_n, -1)
        code[kept] = np.arange(kept.size)
        half = dc_replace(ds, item_ids=ds.item_ids[keep], gold=ds.gold[keep], predictions=ds.predictions[:, keep],
                          groups=code[groups[keep]].astype(np.int16), group_names=tuple(f"g{i}" for i in kept))
        n_full, n_half = g_n, kept.size
    else:
        keep = np.sort(half_rng.permutation(n)[: n // 2])
        half = dc_replace(ds, item_ids=ds.item_ids[keep], gold=ds.gold[keep], predictions=ds.predictions[:, keep],
                          groups=ds.groups[keep])
        n_full, n_half = n, keep.size
    c = rec.criteria.index(s["criterion"])
    cs = CR.CriteriaSpec(criteria=(s["criterion"],), replicates=min(replicates, 200), inner_splits=2, seed=17,
                         point_splits=20, chunk_size=max(1, st.chunk_size // 4))
    hb = CR.criteria(Scorer(half, spec, np.arange(s_n), unit), cs, schemes=("items",),
                     strata=half.gold if stratified else None)["items", "all"].boot[:, 0]
    full = CR.criteria(Scorer(ds, spec, np.arange(s_n), unit),
                       dc_replace(cs, criteria=tuple(rec.criteria), replicates=replicates), schemes=("items",),
                       strata=ds.gold if stratified else None)["items", "all"].boot[:, c]
    ratios = []
    for i in range(4):
        for j in range(i + 1, 4):
            se_f = np.nanstd(full[:, i] - full[:, j], ddof=1)
            se_h = np.nanstd(hb[:, i] - hb[:, j], ddof=1)
            if se_f > 1e-9 and np.isfinite(se_h):
                ratios.append(se_h / se_f)
    ratio = float(np.median(ratios))
    exponent = np.log(ratio) / np.log(n_full / n_half)
    assert s["se_ratio_half"] == pytest.approx(ratio, rel=1e-12)
    assert s["exponent"] == pytest.approx(exponent, rel=1e-12)
    units = n_full * (s["critical"] / abs(s["t"])) ** (1 / exponent) if exponent > 0.05 else np.inf
    assert s["units_needed"] == pytest.approx(units, rel=1e-9)
    assert rec.n_units == n_full and rec.unit == ("groups" if unit == "group" else "items")


def test_the_criteria_figure_shows_the_headline_scope_with_its_levels():
    """recommendation_figure: a panel per criterion named in words, a row per
    metric, the answer in bold, a metric failing a declared requirement
    greyed like a non-candidate, the title with the confidence and the
    criterion's level; a verdict without criteria says so in a message."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from metaeval.present.plots import OKABE_ITO

    title, rec = _scenarios()[0]
    fig = RP.recommendation_figure(rec, "ds")
    try:
        assert fig._suptitle.get_text() == (
            "ds: the criteria with their 95% intervals (these systems; filled: kept in the criterion's 98.33% "
            "confidence set; highlighted: the answer)")
        axes = [ax for ax in fig.axes if ax.get_title()]
        assert [ax.get_title() for ax in axes] == [R.CRITERIA[c] for c in rec.criteria]
        labels = axes[0].get_yticklabels()
        assert len(labels) == len(rec.metrics)
        bold = [lab.get_text() for lab in labels if lab.get_fontweight() == "bold"]
        assert len(bold) == len(rec.selected) == 2
        # the interval lines: the candidates' in blue, the others' (vetoed, failing a declared requirement) in grey
        grey, blue = to_hex(OKABE_ITO[7]), to_hex(OKABE_ITO[4])
        first = axes[0]
        colours = [to_hex(col.get_color()[0]) for col in first.collections
                   if col.__class__.__name__ == "LineCollection"]
        assert colours == [blue, grey]
        segs = {to_hex(col.get_color()[0]): len(col.get_segments()) for col in first.collections
                if col.__class__.__name__ == "LineCollection"}
        assert segs == {blue: int(rec.admissible.sum()), grey: int((~rec.admissible).sum())}
    finally:
        plt.close(fig)
    empty = R.recommend(_results(np.array([[0.9, 0.8]])), criteria=[])
    fig = RP.recommendation_figure(empty, "ds")
    try:
        texts = " ".join(t.get_text() for t in fig.texts + [tx for ax in fig.axes for tx in ax.texts])
        assert "ds: no criterion counts on this dataset" in texts
    finally:
        plt.close(fig)


def test_the_offered_properties_are_exactly_these():
    base = ["maximal_agreement", "monotonicity", "uniform_change", "constant_baseline", "uniform_class_change"]
    assert R.relevant_properties(True, False) == base + ["ordinal_invariance", "ordinal_monotonicity"]
    assert R.relevant_properties(False, False) == base + ["class_exchange"]
    assert R.relevant_properties(True, True) == base + ["ordinal_invariance", "ordinal_monotonicity", "imbalance"]
    assert R.relevant_properties(False, True) == base + ["class_exchange", "imbalance"]


def test_the_size_sentence_speaks_of_the_answer_or_else_of_the_official_metric():
    """size_metrics: the answer when it has one to three metrics; else the
    official metric when it is a candidate (in the answer or eliminated)."""
    v = np.array([[0.9, 0.5, 0.6], [0.9, 0.5, 0.6]])
    one = R.recommend(_results(v), criteria=["stability", "power"], official="kappa")
    assert one.selected == ["accuracy"] and one.size_metrics() == ["accuracy"]
    _, split = _scenarios()[3]
    # no metric kept on both criteria: the answer is the two kept on one, and the size sentence speaks of them
    assert split.selected == ["accuracy", "macro_f1"] and split.size_metrics() == ["accuracy", "macro_f1"]
    split.selected = []  # (an empty answer: the official metric, a candidate)
    assert split.size_metrics() == ["accuracy"]
    _, many = _scenarios()[2]
    assert len(many.selected) == 10 and many.size_metrics() == []  # its official metric is not computed
    many.official = R.Standing("macro_f1", "answer")
    assert many.size_metrics() == ["macro_f1"]
    many.official = R.Standing("macro_f1", "vetoed")
    assert many.size_metrics() == []
    _, few = _scenarios()[1]
    assert few.selected == ["accuracy", "macro_f1", "macro_recall"] and few.size_metrics() == few.selected
    few.selected = ["accuracy", "macro_f1", "macro_recall", "kappa"]
    few.official = None
    assert few.size_metrics() == []


@pytest.mark.parametrize("n,text", [(0, "0"), (7.4, "7"), (99.4, "99"), (100, "100"), (4321, "4,300"),
                                    (98_765, "99,000"), (12_345_678, "12,000,000"), (149.9, "150")])
def test_sizes_are_said_to_two_significant_figures(n, text):
    assert RS._about(n) == text


def test_the_dataset_context_names_the_task_its_classes_and_their_balance():
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset

    def ds_of(gold, **kw):
        spec = DatasetSpec.from_config("ctx", dict(gold="-", predictions=[], labels=["a", "b", "c"], baselines=[],
                                                   **kw))
        return Dataset("ctx", ("a", "b", "c"), np.arange(len(gold)).astype(str), np.array(gold, np.int8),
                       ("s",), ("system",), np.array([gold], np.int8)), spec

    ds, spec = ds_of([0] * 2000 + [1] * 999 + [2] * 1000, ordinal=True)
    assert RP.dataset_context(ds, spec) == (
        "ctx: classification, 3 ordered classes, imbalanced (largest class 2,000 items, smallest 999; imbalanced "
        "means a ratio of 2 or more).")
    ds, spec = ds_of([0] * 30 + [1] * 20 + [2] * 0, unit_names={"items": "tweets"})
    assert RP.dataset_context(ds, spec) == (
        "ctx: classification, 3 unordered classes, not imbalanced (largest class 30 tweets, smallest 20; "
        "imbalanced means a ratio of 2 or more).")
    spec_tc = replace(spec, span_task="tc")
    assert RP.dataset_context(ds, spec_tc).startswith("ctx: technique classification, 3 unordered classes, not "
                                                      "imbalanced (largest class 30 spans, smallest 20;")
    assert RP.dataset_context(ds, replace(spec, span_task="si")) == "ctx: span identification."


def _assembled(ds, spec, st, *, criteria, left_out, cs_kw, power_test, not_computed, unit, properties=None,
               offered=(), n_synthetic=0):
    """The recommendation assembled by hand from the criteria and recommend,
    every argument written out: what recommend_dataset must pass on."""
    from metaeval.verdict import criteria as CR
    from metaeval.methods.scorer import Scorer, select_systems

    sel = select_systems(ds, st.include_baselines)
    real = np.array([i for i, j in enumerate(sel) if ds.kinds[j] in ("system", "synthetic")])
    subsets = {"real": real}
    baselines = [ds.systems[j] for j in sel if ds.kinds[j] not in ("system", "synthetic")]
    if baselines:
        subsets["all"] = np.arange(sel.size)
    scorer = Scorer(ds, spec, sel, st.resample_unit)
    res = CR.criteria(scorer, CR.CriteriaSpec(criteria=tuple(criteria), **cs_kw), subsets=subsets,
                      schemes=("items", "both"), strata=ds.gold if st.stratified else None,
                      confidence=st.confidence)
    return R.recommend(res, criteria=criteria, left_out=left_out, properties=properties, offered=list(offered),
                       requirements=tuple(spec.requirements), baselines=baselines, alpha=st.verdict_alpha,
                       mc_level=st.verdict_mc_level, headline=st.verdict_scope, official=spec.official_metric,
                       official_source=spec.official_source, not_computed=not_computed,
                       papers=spec.paper_choices, n_units=scorer.n_units, unit=unit, power_test=power_test,
                       n_synthetic=n_synthetic)


def _same(got, want):
    """Two recommendations alike in every output (the measured exponent apart: recommend_dataset's own step)."""
    a, b = json.loads(RP.recommendation_json(got)), json.loads(RP.recommendation_json(want))
    a.pop("separation"), b.pop("separation")
    assert a == b
    for scope in got.sets:
        np.testing.assert_array_equal(got.low[scope], want.low[scope])
        np.testing.assert_array_equal(got.high[scope], want.high[scope])
    np.testing.assert_array_equal(got.value, want.value)
    pd.testing.assert_frame_equal(RP.recommendation_long(got), RP.recommendation_long(want))


def test_recommend_dataset_passes_every_setting_on_ordered_imbalanced_classes():
    """Ordered, imbalanced classes with every criterion, non-default
    settings (tau-a, BH, neighbour noise from ``auto``, rates, repeats,
    seeds, gammas, chunk size, levels), a ranked baseline, the properties
    offered, an official metric and papers' choices the dataset cannot
    compute: recommend_dataset equals the recommendation assembled by hand."""
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset
    from metaeval.data.systems import make_baselines
    from metaeval.methods.experiments import Settings

    rng = np.random.default_rng(8)
    n, s_n = 300, 7
    gold = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    acc = np.linspace(0.4, 0.85, s_n)[:, None] + rng.uniform(-0.1, 0.1, (s_n, 3))
    pred = np.where(rng.random((s_n, n)) < acc[:, gold], gold, rng.integers(0, 3, (s_n, n)))
    names, base = make_baselines(gold, 3, ("a", "b", "c"), ("majority", "random"), seed=4)
    spec = DatasetSpec.from_config("ord", dict(
        gold="-", predictions=[], labels=["a", "b", "c"], ordinal=True, baselines=["majority", "random"],
        metrics=["accuracy", "macro_f1", "kappa", "mae_micro"], official_metric={"metric": "fnc_score",
                                                                                 "source": "the task"},
        paper_choices=[{"metrics": ["wf1", "span_f1", "f1_class"], "source": "Someone (2020)"}]))
    ds = Dataset("ord", ("a", "b", "c"), np.arange(n).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(s_n)) + tuple(names), ("system",) * s_n + ("baseline",) * 2,
                 np.vstack([pred, base]).astype(np.int8))
    st = Settings(include_baselines=("majority",), criteria=("stability", "discrimination", "power", "noise",
                                                             "priors"),
                  criteria_replicates=30, criteria_splits=2, criteria_seed=5, n_splits=20, split_seed=6,
                  tau_variant="a", alpha=0.1, significance_test="bootstrap", significance_correction="bh",
                  noise_mode="auto", noise_rates=(0.05, 0.15), noise_repeats=2, noise_seed=3, prior_gammas=(0.0, 3.0),
                  chunk_size=40, confidence=0.9, verdict_alpha=0.1)
    props = _props([(m, p, "holds") for m in spec.metrics for p in R.relevant_properties(True, True)])
    got = R.recommend_dataset(ds, spec, st, properties=props)
    want = _assembled(
        ds, spec, st, criteria=["stability", "discrimination", "power", "noise", "priors"], left_out={},
        cs_kw=dict(replicates=30, inner_splits=2, seed=5, point_splits=20, split_seed=6, tau_variant="a",
                   alpha=0.1, correction="bh", merge_pairs=((0, 1), (1, 2)), chunk_size=10, noise_rates=(0.05, 0.15),
                   noise_repeats=2, noise_seed=3, noise_mode="neighbour", prior_gammas=(0.0, 3.0)),
        power_test=("two-sided z-tests of each pair's difference over its bootstrap standard error (null hypothesis: "
                    "the two systems score alike in expectation), at alpha 0.1, Benjamini-Hochberg-adjusted over the "
                    "pairs of each resample; the experiments' discriminative_power.csv uses the paired bootstrap "
                    "test, too costly to repeat in every resample"),
        not_computed={"fnc_score": "it needs an unrelated class, which this dataset's classes do not have",
                      "wf1": "it needs class weights, which this dataset does not set",
                      "span_f1": "not a metric of this kind of task",
                      "f1_class": "it needs a named class (positive_class), which this dataset does not set"},
        unit="items", properties=props, offered=R.relevant_properties(True, True))
    _same(got, want)
    assert got.baselines == ["majority"] and got.with_baselines is not None
    assert got.official.why == "it needs an unrelated class, which this dataset's classes do not have"


def test_recommend_dataset_passes_every_setting_on_unordered_classes_and_groups():
    """Unordered, balanced classes resampled by whole groups, the Tukey
    test named, uniform noise asked for, a synthetic system counted, no
    properties: the criteria the data have, and the rest said."""
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset
    from metaeval.methods.experiments import Settings

    rng = np.random.default_rng(9)
    n, s_n, g_n = 240, 7, 30
    gold = rng.integers(0, 3, n)
    acc = np.linspace(0.4, 0.85, s_n)[:, None] + rng.uniform(-0.1, 0.1, (s_n, 3))
    pred = np.where(rng.random((s_n, n)) < acc[:, gold], gold, rng.integers(0, 3, (s_n, n)))
    spec = DatasetSpec.from_config("un", dict(
        gold="-", predictions=[], labels=["a", "b", "c"], baselines=[], metrics=["accuracy", "macro_f1", "kappa"],
        official_metric="mae_micro", paper_choices=[{"metrics": ["accuracy"], "source": "Other (2021)"}]))
    ds = Dataset("un", ("a", "b", "c"), np.arange(n).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(s_n)), ("system",) * (s_n - 1) + ("synthetic",),
                 pred.astype(np.int8), groups=np.repeat(np.arange(g_n), n // g_n).astype(np.int16),
                 group_names=tuple(f"g{i}" for i in range(g_n)))
    st = Settings(include_baselines=(), criteria=("stability", "discrimination", "power", "noise", "priors"),
                  criteria_replicates=30, criteria_splits=2, criteria_seed=5, n_splits=20, resample_unit="group",
                  significance_test="tukey", significance_correction="holm", noise_mode="uniform",
                  noise_rates=(0.1,), noise_repeats=2, prior_gammas=(0.0, 2.0))
    got = R.recommend_dataset(ds, spec, st)
    crit, why = R.applicable_criteria(st.criteria, has_classes=True, k=3, ordinal_data=False, imbalanced=False)
    assert crit == ["stability", "power", "noise"] and set(why) == {"discrimination", "priors"}
    want = _assembled(
        ds, spec, st, criteria=crit, left_out=why,
        cs_kw=dict(replicates=30, inner_splits=2, seed=5, point_splits=20, noise_rates=(0.1,), noise_repeats=2,
                   noise_mode="uniform", chunk_size=max(1, st.chunk_size // 4)),
        power_test=("two-sided z-tests of each pair's difference over its bootstrap standard error (null hypothesis: "
                    "the two systems score alike in expectation), at alpha 0.05, Holm-adjusted over the pairs of each "
                    "resample; the experiments' discriminative_power.csv uses the randomised Tukey HSD, too costly "
                    "to repeat in every resample"),
        not_computed={"mae_micro": "it needs ordered classes; this dataset's are unordered"},
        unit="groups", n_synthetic=1)
    _same(got, want)
    assert got.n_synthetic == 1 and got.unit == "groups" and got.n_units == g_n
    # too few real systems: refused with the count
    few = Dataset("un", ("a", "b", "c"), ds.item_ids, ds.gold, ("s0", "m"), ("system", "baseline"),
                  pred[:2].astype(np.int8), groups=ds.groups, group_names=ds.group_names)
    with pytest.raises(ValueError, match=r"dataset 'un': 1 real system\(s\) ranked; the verdict compares rankings "
                                         r"of real systems \(at least two\)"):
        R.recommend_dataset(few, spec, st)


def test_recommend_s_refusals_and_exclusions_are_worded_exactly():
    v = np.array([[0.9, 0.8, 0.7], [0.9, 0.8, 0.7]])
    res = {("items", "real"): _results(v)["items", "real"]}
    with pytest.raises(ValueError, match=r"^the headline scope 'new_systems' needs the 'both' resamples$"):
        R.recommend(res, criteria=["stability", "power"], headline="new_systems")
    with pytest.raises(ValueError, match=re.escape(
            "requirements ['monotonicity']: the formal properties of this dataset's shape are not available "
            "(properties.enabled: false, or properties=False)")):
        R.recommend(_results(v), criteria=["stability", "power"], requirements=["monotonicity"])
    rec = R.recommend(_results(v, metrics=["span_recall", "span_precision", "char_f1"]),
                      criteria=["stability", "power"])
    assert rec.excluded == {m: "span precision or recall alone rewards a degenerate system (few spans, or many)"
                            for m in ("span_recall", "span_precision")}


def test_a_property_without_a_row_counts_as_held_and_the_property_decides_the_exemption():
    """properties.csv has no row where a property does not apply: the metric
    meets it.  The exemption from the priors criterion follows the property
    where it is checked, whatever the data: a metric that holds
    uniform_class_change is exempt though its values are not exactly 1, and
    one that fails it is judged though they are."""
    v = np.array([[0.90, 0.89, 0.88], [0.70, 0.99, 1.00]])
    res = _results(v, crit=("stability", "priors"), metrics=["accuracy", "kappa", "macro_recall"])
    for sc in ("items", "both"):
        res[sc, "real"].boot[:, 1, 2] = 1.0
    props = _props([("accuracy", "uniform_class_change", "fails"), ("kappa", "uniform_class_change", "holds"),
                    ("macro_recall", "uniform_class_change", "fails"), ("accuracy", "monotonicity", "holds")])
    rec = R.recommend(res, criteria=["stability", "priors"], properties=props,
                      offered=["uniform_class_change", "monotonicity"], requirements=["monotonicity"])
    assert rec.exempt[1].tolist() == [False, True, False]
    assert rec.admissible.tolist() == [True, True, True]  # no monotonicity row for kappa, R^M: not applicable
    req = {r.id: r for r in rec.requirements}
    assert req["monotonicity"].fails == [] and req["uniform_class_change"].fails == ["accuracy", "macro_recall"]


def test_a_metric_ill_defined_in_the_other_scope_only_is_not_judged_there():
    """Resamples of systems can leave a criterion undefined where the items
    alone do not: a metric undefined in too many of the new-systems
    resamples is judged for these systems and left out of the other scope's
    sets (and of its answer)."""
    v = np.array([[0.90, 0.89, 0.70], [0.80, 0.81, 0.60]])
    res = _results(v, sd=0.01, both_sd=0.01)
    res["both", "real"].boot[:60, 0, 1] = np.nan  # 30 % of the new-systems resamples
    rec = R.recommend(res, criteria=["stability", "power"])
    assert "macro_f1" in rec.selected and rec.candidate[1]
    assert not rec.sets["new_systems"].admissible[1] and "macro_f1" not in rec.answer("new_systems")
    everything = res["both", "real"].boot
    everything[:, :, :] = np.nan
    none = R.recommend(res, criteria=["stability", "power"])
    assert "For new systems: not judged (ill-defined: too few distinct systems drawn)." in RS.answer_sentence(none)


def test_the_separation_with_a_test_set_of_one_unit_and_without_system_draws():
    """units_needed is computed for any test set of at least one unit; a
    result without its system draws counts no systems (no tentative clause),
    and the systems needed are then those of no system."""
    v = np.array([[0.90, 0.89, 0.60], [0.80, 0.79, 0.50]])
    res = _results(v, sd=0.01)
    rec = R.recommend(res, criteria=["stability", "power"], n_units=1)
    assert rec.separation is not None and rec.separation["units_needed"] is not None
    for key in res:
        res[key].system_draws = None
    bare = R.recommend(res, criteria=["stability", "power"])
    assert bare.n_systems == 0 and "tentative" not in RS.answer_sentence(bare)
    only_both = {("both", "real"): _results(v, sd=0.01)["both", "real"]}
    rec = R.recommend(only_both, criteria=["stability", "power"], headline="new_systems")
    assert set(rec.sets) == {"new_systems"} and "systems_needed" not in (rec.separation or {})


def test_each_wording_of_an_offered_or_declared_requirement():
    """_requirement_line, branch by branch: what fails or holds, what was
    not checked (one metric: it; more: them), and what requiring it would
    do (the answer meets it; nothing changes, with or without failing
    non-candidates; the same answer, or none; the sets recomputed)."""
    from types import SimpleNamespace

    from metaeval.measures.properties import PROPERTIES
    from metaeval.verdict.recommendation import PRIORS_PROPERTY, Requirement, display_name
    from metaeval.verdict.sentences import _requirement_line

    rec = SimpleNamespace(metrics=["accuracy", "macro_f1", "kappa", "roc_auc", "span_f1"],
                          candidate=[True, True, False, True, False], admissible=[True, True, False, True, False],
                          selected=["accuracy"])
    acc, f1, kap, item, span = (display_name(m) for m in rec.metrics)
    p = PROPERTIES["monotonicity"]
    head = f"({'monotonicity'}; {p.source}; "

    def line(**kw):
        r = Requirement(**{"id": "monotonicity", "declared": False, "holds": [], "fails": [], "answer": [], **kw})
        return _requirement_line(rec, r)

    assert line(declared=True, fails=["accuracy", "kappa"], unchecked=["roc_auc"]) == (p.name, (
        head + f"declared) fails for {acc} and {kap}; not checked for {item} (the properties are of confusion "
        "matrices), so requiring it leaves it out; the answer above meets it."))
    assert line(unchecked=["span_f1", "kappa"])[1] == (
        head + f"not declared) every metric checked holds it; not checked for {span} and {kap} (the properties are "
        "of confusion matrices), so requiring it leaves them out; requiring it changes nothing.")
    assert line()[1] == head + "not declared) every metric holds it; requiring it changes nothing."
    assert line(fails=["kappa"])[1] == (head + f"not declared) fails for {kap}; requiring it changes nothing "
                                               "(no candidate fails it).")
    assert line(fails=["macro_f1"], answer=["accuracy"])[1].endswith("; if required, the same answer.")
    rec.selected = []
    assert line(fails=["macro_f1"], answer=[])[1].endswith("; if required, the same answer (no metric).")
    assert line(fails=["macro_f1"], holds=["accuracy", "roc_auc", "kappa"], answer=["accuracy", "roc_auc"])[1] \
        .endswith(f"; if required (the sets recomputed among the 2 candidates that meet it): {acc} or {item}.")
    rec.selected = ["macro_f1"]
    assert line(fails=["accuracy"], holds=["macro_f1"], answer=[])[1].endswith(
        "; if required (the sets recomputed among the 1 candidate that meets it): no metric.")
    r = Requirement(PRIORS_PROPERTY, True, [], [], [])
    assert _requirement_line(rec, r)[0] == f"invariance to class priors: {PROPERTIES[PRIORS_PROPERTY].name}"


def test_the_answers_of_no_recommendation_word_for_word():
    """No criterion that counts, every metric excluded, no candidate
    meeting the declared requirements: each its own sentence."""
    from types import SimpleNamespace

    none = np.zeros(3, bool)
    assert RS.headline_sentence(SimpleNamespace(criteria=(), candidate=none, admissible=none)) == (
        "No metric can be recommended: none of the configured criteria counts on this dataset (the criteria that do "
        "not count, and why, are below).")
    assert RS.headline_sentence(SimpleNamespace(criteria=("stability",), candidate=none, admissible=none)) == (
        "No metric can be recommended: every metric is excluded (below).")
    assert RS.headline_sentence(SimpleNamespace(criteria=("stability",), candidate=~none, admissible=none)) == (
        "No metric can be recommended: no candidate meets the declared requirements (below).")



_NAMES = ["accuracy", "macro_f1", "macro_f1_hm", "macro_f2", "f1_weighted", "macro_recall", "gmr", "kappa",
          "kappa_linear", "alpha_nominal", "mcc", "informedness", "markedness", "cem_ord"]


def _verdict(v, crit=("stability", "power"), **kw):
    """A verdict on the values ``v`` (C, M): replicates tight around them, so that the sets follow the values."""
    v = np.asarray(v, dtype=float)
    return R.recommend(_results(v, sd=0.005, crit=crit, metrics=_NAMES[:v.shape[1]], n_systems=12),
                       criteria=list(crit), **kw)


def test_each_first_sentence_word_for_word():
    """headline_sentence, branch by branch: one metric; a few kept that the
    evidence does not separate; many kept, the few eliminated named; many
    kept, counted; none kept on every criterion (the trade-off: each side
    with the criterion that favours it, or the metrics kept on the most and
    what the criterion that eliminates them gives); declared priorities
    (what they give, what they skip); no criterion that counts.  Every one
    at most 40 words."""
    def say(v, crit=("stability", "power"), **kw):
        text = RS.headline_sentence(_verdict(v, crit, **kw))
        assert len(text.split()) <= RS.MAX_WORDS
        return text

    both = "(rank stability and discriminative power)"
    assert say([[0.9, 0.6, 0.5], [0.9, 0.6, 0.5]]) == f"Report Acc: the only candidate kept on every criterion {both}."
    assert say([[0.9, 0.9, 0.5], [0.9, 0.9, 0.5]]) == (
        f"Report Acc or macro-F1: each is kept on every criterion {both}, and the evidence does not separate them.")
    assert say([[0.9, 0.9, 0.9], [0.8, 0.8, 0.8]]) == (
        "Report Acc, macro-F1 or F1(P^M,R^M): the evidence does not separate them (each is kept on every "
        "criterion).")
    assert say([[0.9] * 6 + [0.5, 0.9], [0.8] * 6 + [0.8, 0.4]]) == (
        "Report any of Acc, macro-F1, F1(P^M,R^M), macro-F2, F1_Wtd or R^M: the evidence keeps these 6 of the 8 "
        "candidates on every criterion and eliminates only GMR on rank stability; kappa on discriminative power.")
    assert say([[0.9] * 10 + [0.5, 0.5, 0.9, 0.9], [0.8] * 10 + [0.8, 0.8, 0.4, 0.4]]) == (
        "Report any of Acc, macro-F1, F1(P^M,R^M), macro-F2, F1_Wtd, R^M, GMR, kappa, kappa_lin or alpha^NOM: the "
        "evidence keeps these 10 of the 14 candidates on every criterion.")
    # no metric kept on every criterion: the trade-off
    assert say([[0.9, 0.5, 0.5], [0.5, 0.9, 0.5]]) == (
        "No metric is kept on both criteria; report Acc if rank stability matters more, or macro-F1 if "
        "discriminative power does (each kept on 1 of 2).")
    assert say([[0.9] * 5 + [0.5] * 5, [0.5] * 5 + [0.9] * 5]) == (
        "No metric is kept on both criteria; report Acc, macro-F1, F1(P^M,R^M), macro-F2 or F1_Wtd if rank "
        "stability matters more, or R^M, GMR, kappa, kappa_lin or alpha^NOM if discriminative power does (each "
        "kept on 1 of 2).")
    three = ("stability", "power", "noise")
    assert say([[0.9, 0.9, 0.5, 0.9], [0.5, 0.5, 0.9, 0.5], [0.9, 0.9, 0.9, 0.5]], three) == (
        "No metric is kept on all 3 criteria; report Acc or macro-F1 if rank stability matters more, or "
        "F1(P^M,R^M) if discriminative power does (each kept on 2 of 3).")
    # one metric kept on the most, eliminated by one criterion, which puts another first
    assert say([[0.9, 0.5, 0.5], [0.9, 0.5, 0.5], [0.5, 0.9, 0.5]], three) == (
        "No metric is kept on all 3 criteria; report Acc (kept on 2), or macro-F1 if robustness to label noise "
        "matters more.")
    # declared priorities: their answer, and the criterion skipped because its set would leave nothing
    assert say([[0.9, 0.5, 0.5], [0.5, 0.9, 0.5]], priorities=["power"]) == (
        "Under the declared priorities (discriminative power first), report macro-F1; rank stability skipped "
        "(would leave nothing).")
    assert say([[0.9, 0.9, 0.5], [0.5, 0.5, 0.9]], priorities=["stability"]) == (
        "Under the declared priorities (rank stability first), report Acc or macro-F1 (the evidence does not "
        "separate them); discriminative power skipped (would leave nothing).")
    # priorities where the intersection is not empty change nothing, and the page says so
    kept = _verdict([[0.9, 0.9, 0.5], [0.9, 0.9, 0.5]], priorities=["power"])
    assert kept.decision().kind == "all" and kept.selected == ["accuracy", "macro_f1"]
    assert "The declared priorities (discriminative power) change nothing" in RP.recommendation_markdown(kept, "t", "c")
    # a declared priority that does not count here is said, not passed over in silence (the trial's nominal task)
    kept = _verdict([[0.9, 0.9, 0.5], [0.9, 0.9, 0.5]], priorities=["discrimination", "power"])
    assert RS.tradeoff_lines(kept) == [
        "The declared priorities (discriminative power) change nothing: the metrics kept on every criterion are the "
        "answer in every order. Declared but not counted here: class discrimination.", ""]
    alone = _verdict([[0.9, 0.9, 0.5], [0.9, 0.9, 0.5]], priorities=["discrimination"])
    assert RS.tradeoff_lines(alone) == ["Declared but not counted here: class discrimination.", ""]
    # no criterion counts (the candidates are copies): any of them
    copies = _results(np.array([[0.9, 0.9], [0.8, 0.8]]), sd=0.01, metrics=_NAMES[:2])
    for r in copies.values():
        r.boot[:, :, 1] = r.boot[:, :, 0]
    assert RS.headline_sentence(R.recommend(copies, criteria=["stability", "power"])) == (
        "No criterion separates the 2 candidates: report any of them.")


def test_the_other_scope_s_clause_word_for_word():
    """_scope_answer for the scope that does not head the page, branch by branch."""
    from metaeval.verdict.sentences import _scope_answer

    def say(v, crit=("stability", "power"), **kw):
        rec = _verdict(v, crit, **kw)
        rec.sets["new_systems"] = rec.sets["these_systems"]  # (its words, on a scope with known sets)
        rec.decisions.pop("new_systems", None)
        return _scope_answer(rec, "new_systems")

    w = "new systems"
    assert say([[0.9, 0.6, 0.5], [0.9, 0.6, 0.5]]) == f"Acc alone for {w}"
    assert say([[0.9, 0.9, 0.9], [0.8, 0.8, 0.8]]) == f"the evidence does not separate the 3 candidates for {w}"
    assert say([[0.9, 0.9, 0.5], [0.9, 0.9, 0.5]]) == (
        f"the evidence keeps 2 of the 3 candidates on every criterion for {w}: Acc and macro-F1")
    assert say([[0.9] * 10 + [0.5, 0.5, 0.9, 0.9], [0.8] * 10 + [0.8, 0.8, 0.4, 0.4]]) == (
        f"the evidence keeps 10 of the 14 candidates on every criterion for {w}")
    assert say([[0.9, 0.5, 0.5], [0.5, 0.9, 0.5]]) == (
        f"no metric is kept on both criteria for {w}; kept on 1: Acc and macro-F1")
    assert say([[0.9, 0.5, 0.5], [0.5, 0.9, 0.5]], priorities=["power"]) == (
        f"under the declared priorities, macro-F1 for {w}")
    rec = _verdict([[0.9, 0.6, 0.5], [0.9, 0.6, 0.5]])
    rec.sets["new_systems"] = replace(rec.sets["these_systems"], admissible=np.zeros(3, bool))
    assert _scope_answer(rec, "new_systems") == (
        f"no metric can be judged for {w}: its criteria are undefined in more than 5% of the resamples (too few "
        "distinct systems or units drawn)")


def test_why_each_criterion_is_left_out():
    from metaeval.verdict.recommendation import IMBALANCE_RATIO, applicable_criteria

    not_configured = "not among the configured criteria (experiments.criteria)"
    used, why = applicable_criteria(["stability", "noise", "priors"], has_classes=False, k=0, ordinal_data=False,
                                    imbalanced=True)
    spans = "span identification has no classes to merge, flip or re-weight"
    assert used == ["stability"]
    assert why == {"discrimination": spans, "noise": spans, "priors": spans,
                   **{c: not_configured for c in ALL_CRITERIA if c not in ("stability", "discrimination", "noise",
                                                                           "priors")}}
    used, why = applicable_criteria(list(ALL_CRITERIA), has_classes=True, k=2, ordinal_data=True, imbalanced=False)
    assert why == {"discrimination": "merging the two classes of a two-class task leaves one class",
                   "priors": f"the classes are balanced (largest under {IMBALANCE_RATIO:g} times the smallest)"}
    assert used == [c for c in ALL_CRITERIA if c not in why]
    used, why = applicable_criteria(list(ALL_CRITERIA), has_classes=True, k=3, ordinal_data=False, imbalanced=True)
    assert why == {"discrimination": "the classes are unordered: merging two of them is not a coarsening of a scale, "
                                     "so no direction of change is better (merging.csv still shows it)"}
    used, why = applicable_criteria(list(ALL_CRITERIA), has_classes=True, k=3, ordinal_data=True, imbalanced=True)
    assert used == list(ALL_CRITERIA) and why == {}


def test_the_metrics_named_by_the_task_or_papers_that_this_dataset_cannot_compute():
    """The official metric and the papers' choices outside this dataset's
    metrics: each not computed, with what it needs (ordered classes, an
    unrelated class, weights, the F_avg classes, a positive class) or that
    it is not a metric of this kind of task; the power test's wording
    without a correction."""
    from dataclasses import replace as dc_replace

    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import Dataset
    from metaeval.methods.experiments import Settings

    rng = np.random.default_rng(5)
    n, s_n = 90, 6
    gold = rng.integers(0, 3, n)
    pred = np.where(rng.random((s_n, n)) < np.linspace(0.4, 0.8, s_n)[:, None], gold, rng.integers(0, 3, (s_n, n)))
    spec = DatasetSpec.from_config("nc", dict(gold="-", predictions=[], labels=["a", "b", "c"],
                                              metrics=["accuracy", "macro_f1"], baselines=[]))
    spec = dc_replace(spec, official_metric="mae_macro", paper_choices=(
        {"metrics": ("fnc_score", "wf1", "f_avg", "f1_class", "span_f1"), "source": "P"},))
    ds = Dataset("nc", ("a", "b", "c"), np.arange(n).astype(str), gold.astype(np.int8),
                 tuple(f"s{i}" for i in range(s_n)), ("system",) * s_n, pred.astype(np.int8))
    st = Settings(include_baselines=(), criteria=("stability",), criteria_replicates=20, criteria_splits=2,
                  n_splits=10, significance_correction="none", significance_test="bootstrap")
    rec = R.recommend_dataset(ds, spec, st)
    assert (rec.official.status, rec.official.why) == ("not computed",
                                                       "it needs ordered classes; this dataset's are unordered")
    (source, standings), = rec.papers
    assert source == "P" and [(x.metric, x.status, x.why) for x in standings] == [
        ("fnc_score", "not computed", "it needs an unrelated class, which this dataset's classes do not have"),
        ("wf1", "not computed", "it needs class weights, which this dataset does not set"),
        ("f_avg", "not computed", "it needs the classes it averages, which this dataset does not set"),
        ("f1_class", "not computed", "it needs a named class (positive_class), which this dataset does not set"),
        ("span_f1", "not computed", "not a metric of this kind of task")]
    assert rec.settings["power_test"].startswith("two-sided z-tests of each pair's difference over its bootstrap "
                                                 "standard error (null hypothesis: the two systems score alike in "
                                                 "expectation), at alpha 0.05, not adjusted;")
