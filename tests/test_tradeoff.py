"""When the criteria disagree (metaeval.verdict.tradeoff, METHODS 9.8): the
metrics kept on the most criteria, the declared priorities' sequential
intersection, the trade-off; each against a plain loop over the sets, with
the properties the rule promises (hypothesis), a null of exchangeable
metrics on real data (every priority order keeps all of them, at the rate
of the verdict's own null test) and FNC-1's default verdict (class
discrimination first gives MAE^M; discriminative power first, a subset of
its own set)."""

from __future__ import annotations

import itertools
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metaeval.verdict.tradeoff import decide, if_first, k_of_c, kept_count, passes, sequential, trade_off
from metaeval.verdict.evidence import evidence_sets

CRIT = ("stability", "discrimination", "power", "noise", "priors")


def _sets(members, participants=None, counted=None, admissible=None, criteria=None):
    members = np.asarray(members, dtype=bool)
    c, m = members.shape
    part = np.ones((c, m), bool) if participants is None else np.asarray(participants, dtype=bool)
    return SimpleNamespace(criteria=tuple(criteria or CRIT[:c]), members=members & part, participants=part,
                           counted=np.ones(c, bool) if counted is None else np.asarray(counted, dtype=bool),
                           admissible=np.ones(m, bool) if admissible is None else np.asarray(admissible, dtype=bool))


def _loop_sequential(s, order):
    """METHODS 9.8 written out: A = the candidates; each criterion in turn (the declared, then the others that
    count in the table's order) intersects A unless that leaves nothing."""
    names = list(s.criteria)
    rest = [c for i, c in enumerate(names) if s.counted[i] and c not in order]
    a = [bool(x) for x in s.admissible]
    skipped = []
    for c in [c for c in order if c in names and s.counted[names.index(c)]] + rest:
        i = names.index(c)
        keep = [a[m] and (s.members[i, m] or not s.participants[i, m]) for m in range(len(a))]
        if any(keep):
            a = keep
        else:
            skipped.append(c)
    return a, skipped


@st.composite
def random_sets(draw):
    c = draw(st.integers(1, 5))
    m = draw(st.integers(1, 7))
    bits = st.lists(st.booleans(), min_size=c * m, max_size=c * m)
    members = np.array(draw(bits)).reshape(c, m)
    part = np.array(draw(bits)).reshape(c, m) | draw(st.booleans())
    counted = np.array(draw(st.lists(st.booleans(), min_size=c, max_size=c)))
    adm = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    return _sets(members, part, counted, adm)


@hsettings(max_examples=300, deadline=None)
@given(random_sets(), st.randoms(use_true_random=False))
def test_the_sequential_intersection_is_the_loop_s_and_keeps_its_promises(s, rnd):
    order = [c for c in s.criteria if rnd.random() < 0.6]
    rnd.shuffle(order)
    got = sequential(s, order)
    want, skipped = _loop_sequential(s, order)
    assert got.answer.tolist() == want and list(got.skipped) == skipped
    ok = passes(s)
    if s.admissible.any():
        # never empty; inside every criterion applied; a skipped one would have emptied it at its turn
        assert got.answer.any() and (got.answer <= s.admissible).all()
        for c in got.applied:
            assert (got.answer <= ok[list(s.criteria).index(c)]).all()
    else:
        assert not got.answer.any()
    # when some candidate passes every criterion, every order gives exactly those
    inter = s.admissible & ok[s.counted].all(axis=0)
    if inter.any():
        assert got.answer.tolist() == inter.tolist() and not got.skipped
        assert decide(s, order).kind == "all"


@hsettings(max_examples=300, deadline=None)
@given(random_sets())
def test_k_of_c_is_the_count_over_the_criteria_that_count(s):
    mask, k, c = k_of_c(s)
    n = [sum(1 for i in range(len(s.criteria)) if s.counted[i] and (s.members[i, m] or not s.participants[i, m]))
         for m in range(s.members.shape[1])]
    assert c == int(s.counted.sum())
    assert kept_count(s).tolist() == [x if a else -1 for x, a in zip(n, s.admissible)]
    if s.admissible.any():
        best = max(x for x, a in zip(n, s.admissible) if a)
        assert k == best and mask.tolist() == [bool(a) and x == best for x, a in zip(n, s.admissible)]
    else:
        assert not mask.any()
    d = decide(s)
    assert d.kind in ("all", "k_of_c", "none")
    if s.admissible.any():
        assert d.answer.tolist() == mask.tolist() and d.kind == ("all" if k == c else "k_of_c")


def test_decide_agrees_with_the_verdict_s_intersection():
    """On the verdict's own sets: 'all' is exactly EvidenceSets.answer."""
    rng = np.random.default_rng(7)
    for seed in range(40):
        r = np.random.default_rng(seed)
        v = r.normal(0, 0.03, (3, 6))
        boot = v + 0.01 * r.normal(size=(200, 3, 6))
        s = evidence_sets(v, boot, rng.random(6) < 0.9, 0.05, criteria=("stability", "power", "noise"))
        d = decide(s)
        if s.answer.any():
            assert d.kind == "all" and d.answer.tolist() == s.answer.tolist()
        elif s.admissible.any():
            assert d.kind == "k_of_c" and d.answer.any() and not (d.answer & ~s.admissible).any()


def test_the_trade_off_names_each_criterion_that_costs_a_best_candidate():
    # stability keeps all; discrimination keeps only m0; power keeps m1, m2; noise keeps all
    s = _sets([[1, 1, 1, 1], [1, 0, 0, 0], [0, 1, 1, 0], [1, 1, 1, 1]])
    mask, k, c = k_of_c(s)
    assert (mask.tolist(), k, c) == ([True, True, True, False], 3, 4)
    assert [(cs, a.tolist()) for cs, a in trade_off(s)] == [(("discrimination",), [True, False, False, False]),
                                                            (("power",), [False, True, True, False])]
    assert {c: a.tolist() for c, a in if_first(s).items()} == {
        "stability": [True, False, False, False], "discrimination": [True, False, False, False],
        "power": [False, True, True, False], "noise": [True, False, False, False]}
    # two criteria that give the same answer first are named together
    s2 = _sets([[1, 0], [1, 0], [0, 1], [0, 1]])
    assert [(cs, a.tolist()) for cs, a in trade_off(s2)] == [(("stability", "discrimination"), [True, False]),
                                                             (("power", "noise"), [False, True])]
    # a criterion that eliminates no metric kept on the most is no part of the trade-off
    s3 = _sets([[1, 0, 0], [0, 1, 1], [0, 1, 1]])
    assert k_of_c(s3)[0].tolist() == [False, True, True]
    assert [(cs, a.tolist()) for cs, a in trade_off(s3)] == [(("stability",), [True, False, False])]
    # nothing to trade when a metric is kept everywhere
    assert trade_off(_sets([[1, 1], [1, 0]])) == []


def test_a_criterion_that_does_not_judge_a_metric_does_not_eliminate_it():
    """Exempt (invariant to the priors) or not counted: the metric passes."""
    s = _sets([[1, 0], [0, 0]], participants=[[1, 1], [1, 0]], criteria=("stability", "priors"))
    assert passes(s).tolist() == [[True, False], [False, True]]
    assert sequential(s, ["priors"]).answer.tolist() == [False, True]
    s = _sets([[1, 0], [0, 1]], counted=[True, False])
    assert decide(s).kind == "all" and decide(s).answer.tolist() == [True, False]


def test_the_sets_may_be_0_1_flags_read_from_a_file():
    """recommendation.csv holds the sets as 0/1 (in_set, participant,
    counted, admissible): read as flags, they give the answers of booleans."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        members, part = rng.random((4, 6)) < 0.6, rng.random((4, 6)) < 0.8
        counted, adm = rng.random(4) < 0.8, rng.random(6) < 0.8
        flags = SimpleNamespace(criteria=CRIT[:4], members=(members & part).astype(int), participants=part.astype(int),
                                counted=counted.astype(int), admissible=adm.astype(int))
        bools = _sets(members, part, counted, adm, CRIT[:4])
        assert passes(flags).tolist() == passes(bools).tolist() and passes(flags).dtype == bool
        assert kept_count(flags).tolist() == kept_count(bools).tolist()
        assert [x.tolist() if isinstance(x, np.ndarray) else x for x in k_of_c(flags)] == \
            [x.tolist() if isinstance(x, np.ndarray) else x for x in k_of_c(bools)]
        order = ["power", "stability"]
        assert sequential(flags, order).answer.tolist() == sequential(bools, order).answer.tolist()
        assert {c: a.tolist() for c, a in if_first(flags).items()} == {c: a.tolist() for c, a in if_first(bools).items()}
        assert [(c, a.tolist()) for c, a in trade_off(flags)] == [(c, a.tolist()) for c, a in trade_off(bools)]
        assert decide(flags, order).answer.tolist() == decide(bools, order).answer.tolist()
        # the answers are boolean masks (the pages take ~answer) whatever the flags' type
        assert sequential(flags, order).answer.dtype == bool and decide(flags, order).answer.dtype == bool


def test_a_criterion_that_does_not_count_passes_everyone():
    s = _sets([[1, 0, 0], [0, 1, 0]], counted=[True, False])
    assert passes(s).tolist() == [[True, False, False], [True, True, True]]
    assert kept_count(s).tolist() == [1, 0, 0]


def test_how_each_answer_was_reached_is_recorded():
    """Decision: the kind, k of C and the sequential intersection behind it."""
    none = decide(_sets([[1, 1]], admissible=[False, False]), ["stability"])
    assert (none.kind, none.k, none.c, none.answer.dtype) == ("none", 0, 1, np.dtype(bool))
    assert none.sequential is not None and none.sequential.order == ("stability",)
    assert decide(_sets([[1, 1]], admissible=[False, False])).sequential is None
    kept = decide(_sets([[1, 0], [1, 1]]), ["power"])
    assert (kept.kind, kept.k, kept.c, kept.answer.tolist()) == ("all", 2, 2, [True, False])
    assert kept.sequential is not None and kept.sequential.answer.tolist() == [True, False]
    split = decide(_sets([[1, 0], [0, 1]]))
    assert (split.kind, split.k, split.c, split.sequential) == ("k_of_c", 1, 2, None)
    assert k_of_c(_sets([[1, 1]], admissible=[False, False]))[1:] == (0, 1)


def test_declared_criteria_that_do_not_count_are_passed_over_and_said():
    s = _sets([[1, 0], [0, 1]], counted=[True, False], criteria=("stability", "power"))
    seq = sequential(s, ["discrimination", "power", "stability"])
    assert seq.not_counted == ("discrimination", "power") and seq.order == ("stability",)
    assert seq.answer.tolist() == [True, False]


def test_no_candidate_gives_no_answer():
    s = _sets([[1, 1]], admissible=[False, False])
    d = decide(s, ["stability"])
    assert d.kind == "none" and not d.answer.any() and trade_off(s) == []
    none = SimpleNamespace(criteria=(), members=np.zeros((0, 2), bool), participants=np.zeros((0, 2), bool),
                           counted=np.zeros(0, bool), admissible=np.ones(2, bool))
    assert decide(none).kind == "none"


# -- a null on real data ---------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.realdata
def test_on_a_null_every_priority_order_keeps_every_exchangeable_metric(project_config, data_dir):
    """Issue 47's null: on rumoureval2017's real systems, 12 metrics, each
    accuracy with its own i.i.d. Exponential(1) item weights (no metric is
    better than another by construction); over 40 draws (new weights, new
    resamples), 5 random priority orders each: every order keeps all 12 in
    at least 1 - alpha - 3 Monte Carlo SE of the draws, the rate of the
    verdict's own null test (tests/test_verdict.py)."""
    from dataclasses import replace

    from metaeval.verdict import criteria as CR

    from .test_verdict import _real, _stacked

    spec, ds, real = _real(project_config, data_dir, "rumoureval2017")
    crits = ("stability", "power", "noise")
    cs = CR.CriteriaSpec(criteria=crits, replicates=100, inner_splits=4, point_splits=40, noise_rates=(0.05, 0.1),
                         noise_repeats=4, chunk_size=25)
    draws, alpha, kept = 40, 0.05, 0
    orders = list(itertools.permutations(crits))
    for d in range(draws):
        rng = np.random.default_rng([31, d])
        v, b = _stacked(ds, spec, real, [rng.exponential(1.0, ds.n_items) for _ in range(12)],
                        replace(cs, seed=3000 + d))
        s = evidence_sets(v, b, np.ones(12, bool), alpha, criteria=crits)
        picks = [list(orders[i][:rng.integers(1, 4)]) for i in rng.choice(len(orders), 5, replace=False)]
        kept += all(decide(s, p).answer.all() for p in picks)
    assert kept / draws >= 1 - alpha - 3 * math.sqrt(alpha * (1 - alpha) / draws)


# -- FNC-1's default verdict ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def default_verdicts(project_config, data_dir):  # (about 100 s on 2 cores)
    """The recommendations of fnc1, fnc1_4class and semeval2016t3_c at the
    default settings, with their gameability and formal properties (as the
    workflow computes them; the properties on a smaller domain)."""
    from metaeval.measures import properties as P
    from metaeval.verdict import recommendation as R
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.gameability import dataset_gameability
    from metaeval.workflow import experiment_settings

    specs = dataset_specs(project_config)
    base = P.PropertySettings.from_config({**project_config["properties"], "n_max": 4, "random": 200})
    out = {}
    for name in ("fnc1", "fnc1_4class", "semeval2016t3_c"):
        spec, st = specs[name], experiment_settings(project_config, name)
        ds = load_dataset(spec, data_dir)
        games = dataset_gameability(ds, spec, unit=st.resample_unit, replicates=st.bootstrap_replicates,
                                    seed=st.bootstrap_seed, alpha=st.verdict_alpha)
        props = P.check_all(P.dataset_settings(spec, np.bincount(ds.gold, minlength=ds.k), base), list(spec.metrics))
        out[name] = R.recommend_dataset(ds, spec, st, properties=props, gameability=games)
    return out


@pytest.mark.slow
@pytest.mark.realdata
def test_fnc1_s_priorities_give_mae_m_or_a_subset_of_the_power_set(default_verdicts):
    from metaeval.verdict import sentences as RS

    rec = default_verdicts["fnc1"]
    s = rec.sets["these_systems"]
    names = list(s.criteria)
    disc = [m for m, x in zip(rec.metrics, s.members[names.index("discrimination")]) if x]
    power = [m for m, x in zip(rec.metrics, s.members[names.index("power")]) if x]
    assert disc == ["mae_macro"] and "mae_macro" not in power  # the trade-off the issue saw
    assert rec.decision().kind == "k_of_c" and "mae_macro" in rec.selected
    first = decide(s, ["discrimination"])
    assert first.kind == "priorities" and [m for m, a in zip(rec.metrics, first.answer) if a] == ["mae_macro"]
    by_power = [m for m, a in zip(rec.metrics, decide(s, ["power"]).answer) if a]
    assert by_power and set(by_power) <= set(power)
    head = RS.headline_sentence(rec)
    assert len(head.split()) <= RS.MAX_WORDS and "MAE^M if class discrimination matters more" in head
    assert "if discriminative power does" in head


_WIDTHS = """
var d = document.documentElement, out = {page: [d.scrollWidth, d.clientWidth], tables: []};
document.querySelectorAll('table').forEach(function (t) { out.tables.push([t.scrollWidth, t.clientWidth]); });
document.body.setAttribute('data-widths', JSON.stringify(out));
"""


@pytest.mark.slow
@pytest.mark.realdata
def test_the_pages_read_at_1280_px_and_as_plain_text(default_verdicts, project_config, data_dir, tmp_path):
    """Issue 47: the recommendation pages of fnc1, rumoureval2017 and
    semeval2016t3_c, as the workflow writes them, have no horizontal scroll
    bar at 1,280 px in headless Chromium (neither the page nor any table
    scrolls sideways); their .md has no HTML tag and no escaped bracket."""
    import html as H
    import json
    import subprocess

    from metaeval.verdict import recommendation as R
    from metaeval.verdict import page as RP
    from metaeval.data.config import dataset_specs
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.gameability import dataset_gameability
    from metaeval.present.notation import plain_markdown
    from metaeval.workflow import experiment_settings

    from .test_report import _chromium

    spec = dataset_specs(project_config)["rumoureval2017"]
    st = experiment_settings(project_config, "rumoureval2017")
    ds = load_dataset(spec, data_dir)
    games = dataset_gameability(ds, spec, unit=st.resample_unit, replicates=st.bootstrap_replicates,
                                seed=st.bootstrap_seed, alpha=st.verdict_alpha)
    recs = {"rumoureval2017": R.recommend_dataset(ds, spec, st, gameability=games), **default_verdicts}
    for name in ("fnc1", "rumoureval2017", "semeval2016t3_c"):
        rec = recs[name]
        fig = RP.recommendation_figure(rec, name)
        png = tmp_path / f"{name}.png"
        fig.savefig(png, dpi=100)
        md = plain_markdown(RP.recommendation_markdown(rec, f"{name}: which metric to report", "ctx",
                                                      "figures/recommendation.png"))
        assert not re.search(r"<(i|sup|sub)>|\\\[", md), name
        page = RP.recommendation_html(rec, f"{name}: which metric to report", "ctx", png.read_bytes())
        i = page.rfind("</body>")
        view = tmp_path / f"{name}.html"
        view.write_text(page[:i] + f"<script>setTimeout(function () {{ {_WIDTHS} }}, 300);</script>" + page[i:],
                        encoding="utf-8")
        res = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                              "--virtual-time-budget=5000", "--dump-dom", str(view)],
                             capture_output=True, text=True, timeout=120)
        got = json.loads(H.unescape(re.search(r'data-widths="([^"]*)"', res.stdout).group(1)))
        assert got["page"][0] <= got["page"][1], (name, got)
        assert got["tables"] and all(sw <= cw for sw, cw in got["tables"]), (name, got)


@pytest.mark.slow
@pytest.mark.realdata
def test_the_config_s_priorities_reach_the_answer(project_config, data_dir):
    """priorities: [discrimination] in fnc1's block gives MAE^M, said first."""
    from dataclasses import replace

    from metaeval.verdict import recommendation as R
    from metaeval.verdict import sentences as RS
    from metaeval.data.config import DatasetSpec, dataset_specs
    from metaeval.data.dataset import load_dataset
    from metaeval.methods.gameability import dataset_gameability
    from metaeval.workflow import experiment_settings

    raw = {**project_config["datasets"]["fnc1"], "priorities": ["discrimination"]}
    spec = DatasetSpec.from_config("fnc1", raw)
    assert spec.priorities == ("discrimination",) and dataset_specs(project_config)["fnc1"].priorities == ()
    st = experiment_settings(project_config, "fnc1")
    ds = load_dataset(spec, data_dir)
    games = dataset_gameability(ds, spec, unit=st.resample_unit, replicates=st.bootstrap_replicates,
                                seed=st.bootstrap_seed, alpha=st.verdict_alpha)
    rec = R.recommend_dataset(ds, replace(spec, priorities=("discrimination",)), st, gameability=games)
    assert rec.selected == ["mae_macro"] and rec.decision().kind == "priorities"
    assert RS.headline_sentence(rec).startswith("Under the declared priorities (class discrimination first), report "
                                               "MAE^M")


@pytest.mark.slow
@pytest.mark.realdata
@pytest.mark.parametrize("name", ["fnc1", "fnc1_4class", "semeval2016t3_c"])
def test_the_first_sentence_names_the_metrics_and_the_trade_off(default_verdicts, name):
    from metaeval.verdict import recommendation as R
    from metaeval.verdict import sentences as RS

    rec = default_verdicts[name]
    head = RS.headline_sentence(rec)
    assert len(head.split()) <= RS.MAX_WORDS, head
    named = [m for m in rec.metrics if re.search(rf"(?<![\w^-]){re.escape(R._name(m))}(?![\w^-])", head)]
    assert named and set(named) <= set(rec.selected) | {m for _, ms in rec.tradeoff() for m in ms}, head
    if rec.decision().kind == "k_of_c":
        for cs, _ in rec.tradeoff():
            assert R.CRITERIA[cs[0]] in head
    assert "No metric is kept on every criterion" not in head



def test_a_criterion_named_as_the_pages_name_it_is_suggested_by_its_id():
    """The trial: ``discriminative power`` suggested 'discrimination'; a
    criterion listed twice is named, and the command line says --priority."""
    from metaeval.cli import cli_message
    from metaeval.data.config import ConfigError, check_priorities

    for name, want in (("discriminative power", "power"), ("discriminative_power", "power"),
                        ("rank stability", "stability"), ("class discrimination", "discrimination"),
                        ("robustness to class priors", "priors"), ("Power", "power")):
        with pytest.raises(ConfigError, match=rf"\(did you mean '{want}'\?\); the criteria, in any order: stability "
                                              r"\(rank stability\), discrimination \(class discrimination\), power"):
            check_priorities([name])
    with pytest.raises(ConfigError) as e:
        check_priorities(["power", "noise", "power"])
    assert str(e.value) == ("priorities: 'power' listed more than once (['power', 'noise', 'power']): list each "
                            "criterion once, the one that matters most first")
    assert cli_message(str(e.value)).startswith("--priority: 'power' listed more than once")
