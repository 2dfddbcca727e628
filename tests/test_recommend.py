"""The recommendation (metaeval.recommend): Tiered Pareto Selection with its
invariances (hypothesis over generated criterion tables, and on real
datasets through the config), METHODS.md 8's Borda counterexamples, the
exclusions (gameable metrics, span precision and recall, ill-defined
criteria), the answer with and without the baselines, and the outputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metaeval import recommend as R
from metaeval.criteria import CriteriaResult
from metaeval.tables import md_escape


def test_relevant_properties_follow_the_data():
    assert "ordinal_invariance" in R.relevant_properties(True, False)
    assert "class_exchange" not in R.relevant_properties(True, False)
    assert "class_exchange" in R.relevant_properties(False, False)
    assert "imbalance" in R.relevant_properties(False, True) and "imbalance" not in R.relevant_properties(False, False)
    # the class-size invariance is the priors criterion, measured on the data: not counted twice
    assert "uniform_class_change" not in R.relevant_properties(False, True)
    assert R.is_imbalanced([100, 40]) and not R.is_imbalanced([100, 60]) and not R.is_imbalanced([5, 0, 4])


def test_an_imbalance_ratio_of_exactly_two_is_imbalanced():
    assert R.IMBALANCE_RATIO == 2
    assert R.is_imbalanced([20, 10]) and R.is_imbalanced([10, 15, 20]) and R.is_imbalanced([0, 7, 14])
    assert not R.is_imbalanced([19, 10]) and not R.is_imbalanced([10, 15, 19.99])


def test_applicable_criteria_say_why_each_other_is_left_out():
    crit, why = R.applicable_criteria(R.ALL_CRITERIA, has_classes=True, k=4, ordinal_data=False, imbalanced=True,
                                      has_properties=True)
    assert crit == ["stability", "power", "noise", "priors", "properties"]
    assert "unordered" in why["discrimination"]
    crit, why = R.applicable_criteria(R.ALL_CRITERIA, has_classes=True, k=3, ordinal_data=True, imbalanced=False,
                                      has_properties=False)
    assert crit == ["stability", "discrimination", "power", "noise"]
    assert "balanced" in why["priors"] and "properties" in why
    crit, why = R.applicable_criteria(("stability", "power", "noise"), has_classes=False, k=0, ordinal_data=False,
                                      imbalanced=False, has_properties=True)
    assert crit == ["stability", "power"] and "span identification" in why["noise"]


# -- Tiered Pareto Selection ---------------------------------------------------------------------------
def _tps(v, se=None, cand=None, delta=None, alpha=0.05):
    v = np.asarray(v, dtype=float)
    c, m = v.shape
    se = np.zeros((c, m, m)) if se is None else se
    return R.tiered_pareto(v, se, np.ones(m, bool) if cand is None else cand,
                           np.zeros(c) if delta is None else delta, alpha)


def _selected(v, **kw):
    return set(np.flatnonzero(_tps(v, **kw)["selected"]).tolist())


def test_the_borda_counterexamples_of_methods_8_sway_a_rank_sum_not_tps():
    """Clones: A > B, A > B, B > A; a rank sum picks A, and with two clones
    of B below B it picks B.  TPS (point values, zero margins): the answer
    among A and B is the same with and without the clones."""
    from metaeval.experiments import table7

    def borda(v):  # ranks per criterion, summed (the rank sum of Table 7)
        r = (-v).argsort(axis=1).argsort(axis=1) + 1
        return int(np.argmin(r.sum(axis=0)))

    ab = np.array([[2.0, 1.0], [2.0, 1.0], [1.0, 2.0]])  # criteria x (A, B)
    clones = np.array([[2.0, 1.0, 0.9, 0.8], [2.0, 1.0, 0.9, 0.8], [1.0, 2.0, 1.9, 1.8]])
    assert borda(ab) == 0 and borda(clones) == 1  # the rank sum flips to B
    assert _selected(ab) & {0, 1} == _selected(clones) & {0, 1}
    # irrelevant dominated: A > B, B > A, B > A; D and E worse than A everywhere
    ab2 = np.array([[2.0, 1.0], [1.0, 2.0], [1.0, 2.0]])
    de = np.array([[2.0, 0.5, 1.5, 1.2], [1.0, 2.0, 0.9, 0.8], [1.0, 2.0, 0.9, 0.8]])  # A, B, D, E
    assert borda(ab2) == 1 and borda(de) == 0  # the rank sum flips to A
    assert _selected(ab2) == _selected(de) & {0, 1}
    # table7 is the paper's rank sum: the same flip (a reproduction, not a recommendation)
    rows = lambda v: pd.DataFrame({"metric": [f"m{i}" for i in range(v.shape[1])],  # noqa: E731
                                   "stability_rank": (-v[0]).argsort().argsort() + 1,
                                   "power_rank": (-v[1]).argsort().argsort() + 1,
                                   "discrimination_rank": (-v[2]).argsort().argsort() + 1})
    assert table7(rows(ab2))["metric"].iloc[0] == "m1" and table7(rows(de))["metric"].iloc[0] == "m0"


def test_not_separable_when_every_candidate_is_within_the_margin():
    v = np.array([[0.90, 0.89, 0.88], [0.5, 0.51, 0.52]])
    se = np.full((2, 3, 3), 0.05)
    out = _tps(v, se=se)
    assert out["selected"].all() and out["tiers"].all()
    rec = _rec(v, se)
    assert not rec.separable and "does not separate" in R.answer_sentence(rec)
    assert "not separable at this resolution" in R.answer_sentence(rec)


def test_a_tier_is_closed_upwards_and_contains_the_best():
    """A candidate with a better point value is never in a lower tier, even
    when its paired test against the best rejects and a worse one's does
    not (a larger standard error)."""
    v = np.array([[1.0, 0.9, 0.8], [0.0, 0.1, 0.2]])  # the second criterion keeps all three in K0
    se = np.zeros((2, 3, 3))
    se[0, 0, 2] = se[0, 2, 0] = 1.0  # the worst is within noise of the best; the middle one is not
    tiers = _tps(v, se=se)["tiers"][0]
    assert tiers.tolist() == [True, True, True]
    assert _tps(v)["tiers"][0].tolist() == [True, False, False]


def test_min_difference_widens_a_tier():
    v = np.array([[0.90, 0.895, 0.80], [0.0, 0.1, 0.2]])
    assert _tps(v)["tiers"][0].tolist() == [True, False, False]
    assert _tps(v, delta=np.array([0.01, 0.0]))["tiers"][0].tolist() == [True, True, False]


def _tables(draw_c, draw_m):
    """A random criterion table with ties and paired standard errors (symmetric, zero diagonal)."""
    return st.tuples(
        st.lists(st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.5, 0.55, 0.9, 1.0]), min_size=draw_m, max_size=draw_m),
                 min_size=draw_c, max_size=draw_c),
        st.lists(st.sampled_from([0.0, 0.01, 0.05, 0.2]), min_size=draw_c * draw_m * draw_m,
                 max_size=draw_c * draw_m * draw_m),
        st.lists(st.booleans(), min_size=draw_m, max_size=draw_m))


@st.composite
def tables(draw):
    c, m = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    v, s, cand = draw(_tables(c, m))
    v = np.array(v)
    se = np.array(s).reshape(c, m, m)
    se = (se + se.swapaxes(1, 2)) / 2
    se[:, np.arange(m), np.arange(m)] = 0
    return v, se, np.array(cand)


def _with_copy(v, se, cand, j):
    """Metric j copied as the last column: identical values, identical paired SEs, SE 0 to its original."""
    m = v.shape[1]
    v2 = np.concatenate([v, v[:, [j]]], axis=1)
    se2 = np.zeros((v.shape[0], m + 1, m + 1))
    se2[:, :m, :m] = se
    se2[:, m, :m] = se[:, j, :]
    se2[:, :m, m] = se[:, :, j]
    se2[:, m, j] = se2[:, j, m] = 0
    return v2, se2, np.append(cand, cand[j])


@hsettings(max_examples=300, deadline=None)
@given(tables(), st.integers(0, 5), st.sampled_from([0.05, 0.2]))
def test_adding_an_exact_copy_never_changes_the_answer(t, j, alpha):
    v, se, cand = t
    j = j % v.shape[1]
    base = _tps(v, se=se, cand=cand, alpha=alpha)["selected"]
    v2, se2, cand2 = _with_copy(v, se, cand, j)
    got = _tps(v2, se=se2, cand=cand2, alpha=alpha)["selected"]
    assert got[:-1].tolist() == base.tolist()
    assert got[-1] == base[j]


@hsettings(max_examples=300, deadline=None)
@given(tables(), st.integers(0, 5), st.floats(0.001, 0.5), st.lists(st.floats(0, 0.3), min_size=6, max_size=6),
       st.sampled_from([0.05, 0.2]))
def test_adding_or_removing_a_metric_worse_on_every_criterion_never_changes_the_answer(t, j, gap, se_new, alpha):
    """A metric strictly below candidate j on every criterion (any standard
    errors against the others): adding it leaves the answer as it was, and
    so removing it from a table that has it."""
    v, se, cand = t
    c, m = v.shape
    j = j % m
    cand = cand.copy()
    cand[j] = True  # the dominating metric is a candidate
    d = v[:, j] - gap
    v2 = np.concatenate([v, d[:, None]], axis=1)
    se2 = np.zeros((c, m + 1, m + 1))
    se2[:, :m, :m] = se
    se2[:, m, :m] = se2[:, :m, m] = np.array(se_new)[:m]
    base = _tps(v, se=se, cand=cand, alpha=alpha)["selected"]
    got = _tps(v2, se=se2, cand=np.append(cand, True), alpha=alpha)["selected"]
    assert got[:-1].tolist() == base.tolist() and not got[-1]


def test_tiered_pareto_is_vectorised_over_resamples():
    rng = np.random.default_rng(3)
    v = rng.random((20, 3, 5))
    se = np.abs(rng.normal(0, 0.1, (3, 5, 5)))
    se = (se + se.swapaxes(1, 2)) / 2
    cand = np.array([True, True, False, True, True])
    out = R.tiered_pareto(v, se, cand, np.zeros(3))
    for b in range(20):
        one = R.tiered_pareto(v[b], se, cand, np.zeros(3))
        for k in ("k0", "tiers", "selected"):
            np.testing.assert_array_equal(out[k][b], one[k])


# -- recommend: exclusions, baselines, outputs --------------------------------------------------------
def _result(v, boot=None, metrics=None, crit=None):
    v = np.asarray(v, dtype=float)
    c, m = v.shape
    boot = np.broadcast_to(v, (50, c, m)).copy() if boot is None else boot
    return CriteriaResult(metrics or ["accuracy", "macro_f1", "kappa", "macro_recall"][:m],
                          crit or ["stability", "power", "noise"][:c], v, boot, "both", 0.95,
                          np.zeros((50, 9), dtype=int))


def _rec(v, se=None, **kw):
    v = np.asarray(v, dtype=float)
    rng = np.random.default_rng(0)
    sd = 0.0 if se is None else float(np.max(se)) / np.sqrt(2)
    boot = v[None] + rng.normal(0, sd, (50,) + v.shape) if sd else None
    res = _result(v, boot, metrics=["accuracy", "macro_f1", "kappa"][:v.shape[1]], crit=["stability", "power"])
    return R.recommend(res, criteria=["stability", "power"], **kw)


def test_a_gameable_metric_is_never_recommended_and_the_output_says_why():
    v = np.array([[0.95, 0.5, 0.6], [0.9, 0.5, 0.6], [0.99, 0.4, 0.5]])
    games = pd.DataFrame([{"metric": "accuracy", "degenerate": "all_comment", "score": 0.74, "median_real": 0.70,
                           "rank": 1, "n_real": 8}])
    res = _result(v, metrics=["accuracy", "macro_f1", "kappa"])
    rec = R.recommend(res, criteria=["stability", "power", "noise"], gameable=games)
    assert "accuracy" not in rec.selected and rec.selected == ["kappa"]
    assert "gameable" in rec.excluded["accuracy"] and "all_comment" in rec.excluded["accuracy"]
    js = json.loads(R.recommendation_json(rec))
    assert js["gameable"][0]["metric"] == "accuracy" and js["gameable"][0]["degenerate"] == "all_comment"
    assert "accuracy" not in js["recommended"]
    md = R.recommendation_markdown(rec, "t", "ctx")
    assert "Gameable on this test set" in md and "all_comment" in md


def test_span_precision_and_recall_and_ill_defined_criteria_are_not_candidates():
    v = np.array([[0.9, 0.8, 0.7], [0.9, 0.8, 0.7]])
    boot = np.broadcast_to(v, (50, 2, 3)).copy()
    boot[:10, 0, 1] = np.nan  # 20 % of the resamples undefined
    res = CriteriaResult(["span_recall", "span_f1", "char_f1"], ["stability", "power"], v, boot, "both", 0.95,
                         np.zeros((50, 4), dtype=int))
    rec = R.recommend(res, criteria=["stability", "power"])
    assert rec.selected == ["char_f1"]
    assert "span precision or recall" in rec.excluded["span_recall"]
    assert "ill-defined" in rec.excluded["span_f1"]
    assert "(10 of 50 undefined)" in R.recommendation_markdown(rec, "t", "ctx")  # the left-out resamples said


def test_the_first_sentence_says_when_the_baselines_change_the_answer():
    v = np.array([[0.9, 0.8], [0.9, 0.8]])
    w = np.array([[0.7, 0.8], [0.7, 0.8]])
    res, wo = _result(v, crit=["stability", "power"]), _result(w, crit=["stability", "power"])
    rec = R.recommend(res, without=wo, criteria=["stability", "power"], baselines=["majority", "random"])
    first = R.answer_sentence(rec)
    assert rec.selected == ["accuracy"] and rec.without_baselines == ["macro_f1"]
    assert "without the baselines (majority and random)" in first and "macro-F1" in first
    rec = R.recommend(res, without=res, criteria=["stability", "power"], baselines=["majority"])
    assert "the same without the baselines" in R.answer_sentence(rec)


def test_system_resample_share_counts_the_resamples_with_the_same_answer():
    v = np.array([[0.9, 0.8], [0.9, 0.8]])
    boot = np.broadcast_to(v, (50, 2, 2)).copy()
    boot[:20, 0, 0] = 0.5  # in 20 of 50 system resamples macro-F1 leads on stability
    systems = _result(v, boot, crit=["stability", "power"])
    rec = R.recommend(_result(v, crit=["stability", "power"]), systems, criteria=["stability", "power"])
    assert rec.system_resample_share == pytest.approx(30 / 50)
    assert "in the system resamples Acc is selected in 100%, this exact answer in 60%" in R.answer_sentence(rec)
    assert "often join it" not in R.answer_sentence(rec)
    assert rec.selection_share["macro_f1"] == pytest.approx(20 / 50)
    boot[:40, 0, 0] = 0.5  # below one half: said to change with the systems
    rec = R.recommend(_result(v, crit=["stability", "power"]), _result(v, boot, crit=["stability", "power"]),
                      criteria=["stability", "power"])
    assert "this exact answer in 20% (other metrics join it in the other resamples)" in R.answer_sentence(rec)
    boot[:10, 1, 0] = 0.1  # and the answer itself is lost in some (macro-F1 ahead on both)
    rec = R.recommend(_result(v, crit=["stability", "power"]), _result(v, boot, crit=["stability", "power"]),
                      criteria=["stability", "power"])
    assert "(other metrics often join or replace it when the systems change)" in R.answer_sentence(rec)


def test_the_long_csv_and_the_json_have_the_documented_columns_and_keys():
    v = np.array([[0.9, 0.8, 0.7], [0.6, 0.8, 0.7]])
    rec = R.recommend(_result(v, metrics=["accuracy", "macro_f1", "kappa"], crit=["stability", "power"]),
                      criteria=["stability", "power"])
    long = R.recommendation_long(rec)
    assert list(long.columns[:7]) == ["criterion", "metric", "value", "low", "high", "better", "top_tier"]
    assert len(long) == 6 and set(long["better"]) == {"higher"}
    js = json.loads(R.recommendation_json(rec))
    for key in ("recommended", "without_baselines", "system_resample_share", "gameable"):
        assert key in js
    assert js["recommended"] == ["accuracy", "macro_f1"]
    md = R.recommendation_markdown(rec, "t", "ctx")
    assert md.splitlines()[2] == md_escape(R.answer_sentence(rec))  # the answer opens the page, after the title


# -- real data, through the config -------------------------------------------------------------------
@pytest.fixture(scope="module")
def real(project_config, data_dir):
    from metaeval.config import dataset_specs
    from metaeval.dataset import load_dataset
    from metaeval.experiments import Settings
    from metaeval.workflow import experiment_settings

    def get(name, metrics=None, **settings):
        cfg = json.loads(json.dumps(project_config))
        if metrics is not None:
            cfg["datasets"][name]["metrics"] = metrics
        spec = dataset_specs(cfg)[name]
        st = experiment_settings(cfg, name)
        st = Settings(**{**st.__dict__, "criteria_replicates": 60, "criteria_splits": 5, "n_splits": 200,
                         "noise_repeats": 10, **settings})
        ds = load_dataset(spec, data_dir)
        return spec, st, ds
    return get


def _answer(spec, st, ds):
    return R.recommend_dataset(ds, spec, st)


@pytest.mark.parametrize("name", ["rumoureval2017", "semeval2016t6"])
def test_real_data_copies_and_dominated_metrics_do_not_change_the_answer(real, name):
    """Through the config: removing a metric that another beats on every
    criterion from ``metrics:`` leaves the answer unchanged; an exact copy
    of a metric (its values and resamples duplicated) too."""
    from metaeval import metrics as M

    spec, st, ds = real(name)
    rec = _answer(spec, st, ds)
    dominated = [m for m, k, c in zip(rec.metrics, rec.k0, rec.candidate) if c and not k]
    assert dominated, "the test needs a metric outside K0"
    keep = [m for m in spec.metrics if m not in dominated]
    spec2, st2, ds2 = real(name, metrics=keep)
    rec2 = _answer(spec2, st2, ds2)
    assert rec2.selected == rec.selected
    assert set(M.get(m).name for m in rec.selected)
    # an exact copy of each metric in turn, on the resamples already drawn
    for j, mid in enumerate(rec.metrics):
        if not rec.candidate[j]:
            continue
        v = np.concatenate([rec.value, rec.value[:, [j]]], axis=1)
        cand = np.append(rec.candidate, True)
        se = _paired_se_with_copy(rec, j)
        got = R.tiered_pareto(v, se, cand, np.zeros(len(rec.criteria)), st.tier_alpha)["selected"]
        assert [m for m, s in zip(rec.metrics, got[:-1]) if s] == rec.selected
        assert got[-1] == (mid in rec.selected)


def _paired_se_with_copy(rec, j):
    se = rec.paired_se
    c, m, _ = se.shape
    out = np.zeros((c, m + 1, m + 1))
    out[:, :m, :m] = se
    out[:, m, :m] = se[:, j, :]
    out[:, :m, m] = se[:, :, j]
    out[:, m, j] = out[:, j, m] = 0
    return out


def test_a_whole_text_system_games_span_f1_min_and_it_is_not_recommended(project_config, data_dir):
    """On a span dataset the whole text as one span per document beats the
    median real system on span-F1 min: flagged gameable, not recommended."""
    from metaeval.config import dataset_specs
    from metaeval.dataset import load_dataset
    from metaeval.experiments import Settings
    from metaeval.workflow import experiment_settings

    name = "semeval2020t11_si_synthetic"
    spec = dataset_specs(project_config)[name]
    st = experiment_settings(project_config, name)
    st = Settings(**{**st.__dict__, "criteria_replicates": 40, "criteria_splits": 4, "n_splits": 100})
    ds = load_dataset(spec, data_dir)
    games = _span_gameability(spec, ds)
    flagged = set(games.loc[games["beats_median"], "metric"])
    assert "span_f1_min" in flagged
    assert games.loc[(games["metric"] == "span_f1_min") & games["beats_median"], "degenerate"].eq("whole_text").any()
    rec = R.recommend_dataset(ds, spec, st, gameability=games)
    assert "span_f1_min" not in rec.selected and "gameable" in rec.excluded["span_f1_min"]


def _span_gameability(spec, ds):
    from metaeval.gameability import dataset_gameability

    return dataset_gameability(ds, spec)


def test_a_constant_class_games_accuracy_on_rumoureval2017(real):
    spec, st, ds = real("rumoureval2017")
    from metaeval.gameability import dataset_gameability

    games = dataset_gameability(ds, spec)
    hit = games[(games["metric"] == "accuracy") & games["beats_median"]]
    assert "all_comment" in set(hit["degenerate"])
    rec = R.recommend_dataset(ds, spec, st, gameability=games)
    assert "accuracy" not in rec.selected and "all_comment" in rec.excluded["accuracy"]


def test_every_default_dataset_shows_one_answer_on_every_page(project_config, data_dir):
    """Over every default dataset with a meta-evaluation: the answer opens
    recommendation.md, is recommendation.json's, is what the summary page
    and the front page print (they are given the json's answer), and names
    exactly the recommended metrics; none of them is gameable."""
    import html as H

    from metaeval import metrics as M
    from metaeval.config import dataset_specs
    from metaeval.dataset import load_dataset
    from metaeval.experiments import Settings, select_systems
    from metaeval.report import overview_html
    from metaeval.tables import md_escape
    from metaeval.gameability import dataset_gameability
    from metaeval.workflow import experiment_settings

    specs = dataset_specs(project_config)
    seen = 0
    for name, spec in specs.items():
        st = experiment_settings(project_config, name)
        ds = load_dataset(spec, data_dir)
        sel = select_systems(ds, st.include_baselines)
        if len(sel) < st.min_systems:  # no meta-evaluation (the workflow's n_ranked_systems)
            continue
        st = Settings(**{**st.__dict__, "criteria_replicates": 20, "criteria_splits": 2, "n_splits": 20,
                         "noise_repeats": 2})
        games = dataset_gameability(ds, spec)
        rec = R.recommend_dataset(ds, spec, st, gameability=games)
        answer = R.answer_sentence(rec)
        js = json.loads(R.recommendation_json(rec))
        md = R.recommendation_markdown(rec, name, "ctx")
        assert md.splitlines()[2] == md_escape(answer) and js["answer"] == answer
        front = overview_html([{"name": name, "task": "t", "n_systems": len(sel), "recommendation": js["answer"]}],
                              None)
        assert H.escape(answer, quote=True) in front
        for mid in rec.selected:
            assert M.get(mid).name in answer
        assert not set(rec.selected) & set(games.loc[games["beats_median"], "metric"])
        seen += 1
    assert seen >= 8


def test_a_metric_outside_k0_as_good_as_a_tier_member_is_shown_in_the_tier_and_its_dominator_named():
    """The tiers shown are closed upwards over every candidate: kappa, a hair
    below accuracy on both criteria (so outside K0), is as good as the tier
    on stability and is marked there; its status names the metric ahead of
    it everywhere.  The selection itself uses K0's tiers."""
    v = np.array([[0.9, 0.8, 0.9 - 1e-9], [0.5, 0.7, 0.5 - 1e-9]])
    boot = v[None] + np.random.default_rng(1).normal(0, 0.007, (50, 2, 3))
    rec = R.recommend(_result(v, boot, metrics=["accuracy", "macro_f1", "kappa"], crit=["stability", "power"]),
                      criteria=["stability", "power"])
    assert not rec.k0[2] and rec.candidate[2]
    assert rec.marks[0, 2] and not rec.tiers[0, 2]
    row = R.criteria_table(rec).set_index("metric").loc["kappa"]
    assert row["status"] == "Acc is ahead of it on every criterion"
    assert row["rank stability"].startswith("\u2714")
    assert "kappa" not in rec.selected


def test_gameable_lower_is_better_metric_is_said_to_score_better_not_above():
    v = np.array([[0.9, 0.8], [0.5, 0.6]])
    games = pd.DataFrame([{"metric": "mae_macro", "degenerate": "all_discuss", "score": 0.667, "median_real": 0.670,
                           "rank": 9, "n_real": 17}])
    res = _result(v, metrics=["accuracy", "mae_macro"], crit=["stability", "power"])
    rec = R.recommend(res, criteria=["stability", "power"], gameable=games)
    why = rec.excluded["mae_macro"]
    assert "scores 0.667, better than the median real system's 0.670 (lower is better)" in why
    assert "above" not in why


def test_the_answer_says_when_only_the_exact_properties_separate_the_candidates():
    v = np.array([[0.9, 0.89], [0.5, 0.51], [6, 5]])
    boot = v[None] + np.random.default_rng(2).normal(0, 0.05, (50, 3, 2))
    boot[:, 2] = v[2]
    res = CriteriaResult(["accuracy", "kappa"], ["stability", "power", "noise"], v, boot, "both", 0.95,
                         np.zeros((50, 12), dtype=int))
    rec = R.recommend(res, criteria=["stability", "power", "noise"])
    assert rec.selected == ["accuracy"]
    assert "separated on robustness to label noise only" in R.answer_sentence(rec)
    assert "no baseline among the ranked systems" in R.answer_sentence(rec)


def test_the_answer_names_the_fewer_criteria_when_most_separate_the_candidates():
    """'separated on A, B, C and D only' read badly for four of five
    criteria: the one that holds every candidate is named instead."""
    v = np.array([[0.9, 0.5], [0.5, 0.9], [0.9, 0.5], [0.5, 0.9], [0.7, 0.7]])
    res = _result(v, crit=["stability", "discrimination", "power", "noise", "priors"])
    rec = R.recommend(res, criteria=["stability", "discrimination", "power", "noise", "priors"])
    first = R.answer_sentence(rec)
    assert "every candidate is in the top tier of robustness to class priors" in first
    assert "separated on" not in first


def test_no_criterion_that_counts_gives_no_answer_and_says_why():
    """experiments.criteria: [discrimination] on unordered classes crashed
    the recommendation job (KeyError); now the page says why there is no
    answer and the CSV has its columns."""
    from metaeval.api import meta_evaluate

    rng = np.random.default_rng(1)
    labels = ["a", "b", "c", "d"]
    gold = list(rng.choice(labels, 200))
    systems = {f"s{k}": [g if rng.random() < 0.3 + 0.08 * k else rng.choice(labels) for g in gold] for k in range(7)}
    res = meta_evaluate(gold, systems, criteria=["discrimination"], properties=False, criteria_replicates=10,
                        n_splits=20, tukey_trials=50, bootstrap_replicates=20, min_difference={"discrimination": 0.05})
    assert res.rec.notes == ["min_difference for class discrimination is not used: the criterion does not count "
                             "here (the classes are unordered: merging two of them is not a coarsening of a scale, "
                             "so no direction of change is better (merging.csv still shows it))"]
    assert res.rec.selected == [] and "none of the configured criteria counts" in res.recommendation
    assert list(res["recommendation"].columns)[:7] == ["criterion", "metric", "value", "low", "high", "better",
                                                       "top_tier"] and res["recommendation"].empty
    md = R.recommendation_markdown(res.rec, "t", "c")
    assert "the classes are unordered" in md and "| metric |" not in md and "Legend" not in md
    assert "**Not used:** min_difference for class discrimination" in md


def test_the_tier_p_values_decide_the_tiers_of_k0():
    """recommendation.csv's tier_p: a member of K0 whose tier test keeps it
    (p >= tier_alpha) is in the top tier; one that the test rejects is in it
    only by the upward closure (at least as good as a member)."""
    rng = np.random.default_rng(2)
    for _ in range(30):
        c, m = 3, 4
        value = rng.uniform(0.3, 0.9, (c, m))
        boot = value + rng.normal(0, 0.03, (50, c, m))
        rec = R.recommend(_result(value, boot), criteria=["stability", "power", "noise"])
        p = R.tier_pvalues(rec, closed=False)
        for ci in range(c):
            members = np.flatnonzero(rec.k0)
            floor = rec.value[ci, rec.tiers[ci]].min()
            for i in members:
                if p[ci, i] >= 0.05:
                    assert rec.tiers[ci, i]
                elif rec.tiers[ci, i]:
                    assert rec.value[ci, i] >= floor
            best = members[np.argmax(rec.value[ci, members])]
            assert p[ci, best] >= 0.5


def test_the_closed_tier_p_values_are_the_marks():
    """recommendation.csv's tier_p (closed upwards): a candidate is marked
    in a top tier exactly when tier_p >= tier_alpha, with and without a
    smallest meaningful difference and with gameable (non-candidate)
    metrics; the cross-dataset 'short on' counts read these p-values, so a
    marked metric is never counted short (the trial found five rows of the
    default run marked and short at once with the test's own p-value)."""
    rng = np.random.default_rng(7)
    seen_closure = 0
    for trial in range(60):
        c, m = 3, 6
        value = rng.uniform(0.3, 0.9, (c, m))
        boot = value + rng.normal(0, rng.uniform(0.005, 0.06, (1, c, m)), (80, c, m))
        delta = {"power": 0.02} if trial % 2 else {}
        names = ["accuracy", "macro_f1", "kappa", "macro_recall", "gmr", "alpha_nominal"]
        games = pd.DataFrame([{"metric": "gmr", "degenerate": "all_comment", "score": 0.74, "median_real": 0.70,
                               "rank": 1, "n_real": 8}]) if trial % 3 == 0 else None
        rec = R.recommend(_result(value, boot, metrics=names), criteria=["stability", "power", "noise"],
                          min_difference=delta, gameable=games)
        closed, own = R.tier_pvalues(rec), R.tier_pvalues(rec, closed=False)
        assert np.array_equal(rec.marks, rec.candidate[None, :] & (closed >= 0.05))
        assert (closed >= own).all()
        seen_closure += int((rec.marks & (own < 0.05)).sum())
    assert seen_closure > 0  # the closure is exercised, not only the test
