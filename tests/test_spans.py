"""Span tasks (SemEval-2020 Task 11): hand-drawn cases of the official
definitions, a plain-loop reference of the official scorer on random spans,
the TC pairing rule, the readers' errors, and the per-article statistics
that make article resampling one matrix product."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.data.readers import spans as span_files
from metaeval.data.readers.alignment import align_tc
from metaeval.measures import spans as SP
from metaeval.data.files import DataError

from . import reference as ref
from .conftest import FIXTURES


def _sp(rows):
    """Spans from (article, label, start, end) tuples."""
    rows = list(rows)
    if not rows:
        return SP.Spans.empty()
    a, lab, s, e = (np.array(x) for x in zip(*rows))
    return SP.Spans(a, s, e, lab)


def _score(gold, pred, n_articles=3, labelled=False, merge_pred=True):
    g = SP.merge_spans(_sp(gold), labelled)
    p = _sp(pred)
    p = SP.merge_spans(p, labelled) if merge_pred else p
    stats = SP.span_statistics(g, p, n_articles, labelled)
    return SP.evaluate_spans(stats.sum(0), SP.SPAN_METRIC_IDS), stats


# -- the definitions by hand ---------------------------------------------------------
def test_partial_overlap():
    r, _ = _score([(0, 0, 0, 10)], [(0, 0, 5, 15)])
    assert r["span_precision"] == 0.5 and r["span_recall"] == 0.5 and r["span_f1"] == 0.5
    assert r["span_f1_exact"] == 0.0 and r["char_f1"] == 0.5
    assert r["span_f1_max"] == 0.5 and r["span_f1_min"] == 0.5  # |s| = |t| = 10


def test_max_and_min_normalisations():
    # |s ∩ t| = 5, |s| = 20, |t| = 10: max -> 5/20, min -> 5/10, in both P and R
    r, _ = _score([(0, 0, 0, 10)], [(0, 0, 5, 25)])
    assert r["span_f1_max"] == pytest.approx(0.25) and r["span_f1_min"] == pytest.approx(0.5)
    assert r["span_precision"] == 0.25 and r["span_recall"] == 0.5


def test_several_predictions_over_one_gold_span():
    # P = (3/3 + 5/5) / 2 = 1; R = (3/10 + 5/10) / 1 = 0.8
    r, _ = _score([(0, 0, 0, 10)], [(0, 0, 0, 3), (0, 0, 5, 10)])
    assert r["span_precision"] == 1.0 and r["span_recall"] == pytest.approx(0.8)
    assert r["span_f1"] == pytest.approx(2 * 0.8 / 1.8)


def test_nested_gold_spans_are_merged_touching_ones_are_not():
    gold = [(0, 0, 0, 10), (0, 0, 2, 5), (0, 0, 10, 20)]  # [2,5) inside [0,10); [10,20) touches it
    merged = SP.merge_spans(_sp(gold))
    assert merged.start.tolist() == [0, 10] and merged.end.tolist() == [10, 20]
    r, _ = _score(gold, [(0, 0, 0, 20)])
    # one prediction over two gold spans: P = 10/20 + 10/20 = 1; R = 10/10 + 10/10 over 2 = 1
    assert r["span_precision"] == 1.0 and r["span_recall"] == 1.0 and r["span_f1_exact"] == 0.0
    assert r["char_f1"] == 1.0


def test_a_gold_article_without_prediction_counts_in_recall():
    r, st_ = _score([(0, 0, 0, 10), (1, 0, 0, 10)], [(0, 0, 0, 10)])
    assert r["span_precision"] == 1.0 and r["span_recall"] == 0.5 and r["span_f1"] == pytest.approx(2 / 3)
    # per article: article 1 has gold and nothing predicted (char F1 0); article 2 has neither (1)
    assert st_[:, SP.STATS.index("article_char_f1")].tolist() == [1.0, 0.0, 1.0]
    assert r["char_f1_macro"] == pytest.approx(2 / 3)


def test_empty_predictions_and_empty_gold():
    r, _ = _score([(0, 0, 0, 10)], [])
    assert r["span_precision"] == 0 and r["span_recall"] == 0 and r["span_f1"] == 0 and r["char_f1"] == 0
    r, _ = _score([], [])
    assert r["span_f1"] == 1.0 and r["span_f1_exact"] == 1.0 and r["char_f1"] == 1.0  # the scorer's convention
    r, _ = _score([], [(0, 0, 0, 5)])
    assert r["span_precision"] == 0 and r["span_f1"] == 0


def test_flc_needs_the_same_technique():
    gold, pred = [(0, 1, 0, 10)], [(0, 2, 0, 10)]
    assert _score(gold, pred, labelled=True)[0]["span_f1"] == 0.0
    assert _score(gold, pred, labelled=False)[0]["span_f1"] == 1.0
    # same offsets, two techniques in the gold: each technique is its own span
    r, _ = _score([(0, 1, 0, 10), (0, 2, 0, 10)], [(0, 2, 0, 10)], labelled=True)
    assert r["span_precision"] == 1.0 and r["span_recall"] == 0.5


# -- TC: the submission covers the gold spans, labels paired to maximise matches ---------
def test_tc_several_gold_techniques_on_one_offset_are_paired_to_match():
    gold = _sp([(0, 1, 0, 5), (0, 2, 0, 5), (0, 1, 7, 9)])
    gold = gold.take(np.lexsort((gold.label, gold.end, gold.start, gold.article)))
    for pred_labels, expected in (([2, 1, 1], [1, 2, 1]),  # swapped on the shared offset: both match
                                  ([2, 2, 0], [2, 2, 0]),  # one of the two can match
                                  ([3, 1, 1], [1, 3, 1])):
        pred = _sp([(0, lab, s, e) for lab, (s, e) in zip(pred_labels, [(0, 5), (0, 5), (7, 9)])])
        out, problems = align_tc(gold, pred, ["a0"], "p.txt")
        assert not problems and out.tolist() == expected, pred_labels


def test_tc_submission_that_misses_or_adds_spans_is_refused():
    gold = _sp([(0, 1, 0, 5), (0, 2, 0, 5), (0, 1, 7, 9)])
    pred = _sp([(0, 1, 0, 5), (0, 1, 7, 9), (0, 1, 7, 10)])
    out, problems = align_tc(gold, pred, ["a0"], "p.txt", lines=[1, 2, 3])
    text = "\n".join(map(str, problems))
    assert out.size == 0
    assert "1 gold span(s) have no prediction" in text and "[0, 5)" in text
    assert "p.txt:3: span [7, 10) of article 'a0' is not a gold span" in text


# -- a plain-loop reference of the official scorer on random spans ------------------
_span = st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 40), st.integers(1, 15))


@settings(max_examples=300, deadline=None)
@given(st.lists(_span, max_size=8), st.lists(_span, max_size=8), st.booleans())
def test_span_metrics_equal_the_plain_loop_scorer(gold, pred, labelled):
    gold = [(a, lab, s, s + n) for a, lab, s, n in gold]
    pred = [(a, lab, s, s + n) for a, lab, s, n in pred]
    ours, stats = _score(gold, pred, labelled=labelled)
    want = ref.span_scores_loop(gold, pred, labelled)
    for m in ("span_precision", "span_recall", "span_f1", "span_f1_max", "span_f1_min", "span_f1_exact", "char_f1"):
        assert ours[m] == pytest.approx(want[m], abs=1e-12), m
    per_article = stats[:, SP.STATS.index("article_char_f1")]
    for a, v in want["char_f1_macro_by_article"].items():
        assert per_article[a] == pytest.approx(v, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(_span, max_size=10), st.lists(_span, max_size=10), st.lists(st.booleans(), min_size=3, max_size=3))
def test_statistics_of_an_article_subset_equal_scoring_the_subset(gold, pred, keep):
    """The resampling engine sums per-article statistics: the sum over a
    subset of articles must equal scoring that subset from scratch."""
    gold = [(a, lab, s, s + n) for a, lab, s, n in gold]
    pred = [(a, lab, s, s + n) for a, lab, s, n in pred]
    _, stats = _score(gold, pred)
    mask = np.array(keep, dtype=float)
    summed = SP.evaluate_spans(mask @ stats, SP.SPAN_METRIC_IDS)
    sub = [r for r in gold if keep[r[0]]], [r for r in pred if keep[r[0]]]
    direct = ref.span_scores_loop(*sub)
    for m in ("span_precision", "span_recall", "span_f1", "span_f1_exact", "char_f1"):
        assert summed[m] == pytest.approx(direct[m], abs=1e-12), m
    if any(keep):
        macro = np.mean([v for a, v in direct["char_f1_macro_by_article"].items()] +
                        [1.0] * sum(1 for a in range(3) if keep[a] and a not in direct["char_f1_macro_by_article"]))
        assert summed["char_f1_macro"] == pytest.approx(macro, abs=1e-12)


def test_merging_matches_the_official_pairwise_unions():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        rows = [(0, 0, int(s), int(s + w)) for s, w in zip(rng.integers(0, 50, n), rng.integers(1, 10, n))]
        ours = SP.merge_spans(_sp(rows))
        want = sorted((min(x), max(x) + 1) for x in ref._merge_sets([set(range(s, e)) for _, _, s, e in rows]))
        assert list(zip(ours.start.tolist(), ours.end.tolist())) == want


# -- readers ------------------------------------------------------------------------
@pytest.fixture
def arts(tmp_path):
    d = tmp_path / "articles"
    d.mkdir()
    (d / "article1.txt").write_text("x" * 100, encoding="utf-8")
    (d / "article2.txt").write_text("é" * 50 + "\n", encoding="utf-8")  # characters, not bytes
    (d / "notes.md").write_text("not an article")
    return d


def test_articles_are_read_as_characters(arts):
    assert span_files.read_articles(arts) == {"1": 100, "2": 51}


@pytest.mark.parametrize("line,kind,needle", [
    ("1\t5\t5", "si", "start 5 is not before end 5"),
    ("1\t-3\t5", "si", "negative offset"),
    ("2\t10\t52", "si", "end 52 is beyond the end of article '2' (51 characters); the official scorer counts"),
    ("3\t0\t5", "si", "article '3' is not in the article folder"),
    ("1\t0", "si", "expected 3 TAB-separated fields"),
    ("1\tx\t5", "si", "offsets must be integers"),
    ("1\tDoubt\t0\t5\textra", "tc", "expected 4 TAB-separated fields"),
    ("1\tName_Calling\t0\t5", "tc", "unknown technique 'Name_Calling'"),
])
def test_malformed_span_lines_are_named(arts, tmp_path, line, kind, needle):
    f = tmp_path / "sub.txt"
    good = "1\t0\t10" if kind == "si" else "1\tName_Calling,Labeling\t0\t10"
    f.write_text(good + "\n" + line + "\n")
    t = span_files.read_spans(f, kind, span_files.read_articles(arts), ["Doubt", "Name_Calling,Labeling"], offsets_past_end="refuse")
    assert len(t.problems) == 1 and len(t) == 1
    assert t.problems[0].line == 2 and needle in t.problems[0].message
    assert t.label == (["Name_Calling,Labeling"] if kind == "tc" else [""])  # the whole second field


def test_missing_article_folder_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="article folder not found"):
        span_files.read_articles(tmp_path / "nowhere")


# -- synthetic systems -----------------------------------------------------------------
def test_synthetic_systems_are_seeded_and_independent():
    gold = SP.merge_spans(_sp([(a, 0, s, s + 8) for a in range(3) for s in (0, 20, 40, 60)]))
    lengths = np.array([100, 100, 100])
    a = SP.synthetic_systems(gold, lengths, ["jitter", "drop"], [0.25, 0.5], seed=1)
    b = SP.synthetic_systems(gold, lengths, ["drop", "jitter", "split"], [0.5, 0.25, 0.75], seed=1)
    for name in a:  # adding kinds or strengths does not change the others
        np.testing.assert_array_equal(a[name].as_array(), b[name].as_array())
    c = SP.synthetic_systems(gold, lengths, ["jitter"], [0.25], seed=2)
    assert not np.array_equal(c["jitter_0.25"].as_array(), a["jitter_0.25"].as_array())
    for sp in b.values():  # valid spans, inside their articles, no overlap
        assert (sp.start >= 0).all() and (sp.end <= lengths[sp.article]).all() and (sp.start < sp.end).all()
        assert len(SP.merge_spans(sp)) == len(sp)


def test_split_spans_leave_the_official_f1_unchanged_but_not_the_exact_f1():
    """A property of the official definition the synthetic set exposes:
    cutting a span in two keeps P and R (each piece has full precision, the
    pieces' recall adds up), while exact-match F1 drops."""
    gold = SP.merge_spans(_sp([(a, 0, s, s + 8) for a in range(3) for s in (0, 20, 40, 60)]))
    sp = SP.synthetic_systems(gold, np.array([100] * 3), ["split"], [0.75], seed=0)["split_0.75"]
    r = SP.evaluate_spans(SP.span_statistics(gold, sp, 3, False).sum(0), SP.SPAN_METRIC_IDS)
    assert len(sp) > len(gold)
    assert r["span_f1"] == pytest.approx(1.0) and r["char_f1"] == 1.0 and r["span_f1_exact"] < 0.5


def test_span_f1_min_is_not_bounded_by_one():
    """Each piece of a split prediction overlaps the gold span in full
    relative to the smaller side: C = 5/5 twice, so R = 2 / 1."""
    r, _ = _score([(0, 0, 0, 10)], [(0, 0, 0, 5), (0, 0, 5, 10)], merge_pred=False)
    assert r["span_f1_min"] == pytest.approx(2 * 1 * 2 / 3) and r["span_f1_min"] > 1
    assert SP.SPAN_REGISTRY["span_f1_min"].bounds[1] == np.inf


def test_span_dataset_errors_name_the_dataset_and_the_fault(tmp_path, arts):
    from metaeval.data.config import ConfigError, DatasetSpec
    from metaeval.data.dataset import load_dataset, score_dataset

    (tmp_path / "gold.si").write_text("1\t0\t10\n2\t5\t9\n")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "a.si").write_text("1\t0\t6\n1\t4\t10\n1\t5\t8\n3\t0\t4\n")
    raw = dict(format="semeval2020_si", gold="gold.si", articles="articles", predictions=["p/*.si"])
    with pytest.raises(DataError) as e:
        load_dataset(DatasetSpec.from_config("mine", raw), tmp_path)
    msg = str(e.value)
    assert "dataset 'mine'" in msg
    # [0,6), [4,10), [5,8) merge into one span: 2 overlap an earlier one; both pairs are shown as examples
    assert "3 problems (2 overlapping span(s), 1 span(s) of an article without a text)" in msg
    assert "2 span(s) overlap an earlier one" in msg and "a.si:3: span [5, 8) of article '1' overlaps" in msg
    with pytest.raises(DataError, match="(?s)dataset 'mine'.*article folder not found"):
        load_dataset(DatasetSpec.from_config("mine", {**raw, "articles": "nowhere"}), tmp_path)
    with pytest.raises(ConfigError, match="merge_overlapping_predictions: only for span identification"):
        DatasetSpec.from_config("tc", dict(format="semeval2020_tc", gold="g", articles="a", predictions=[],
                                           labels=["x", "y"], merge_overlapping_predictions=True))
    (tmp_path / "p" / "a.si").write_text("1\t0\t6\n2\t5\t9\n")
    spec = DatasetSpec.from_config("mine", raw)
    df = score_dataset(load_dataset(spec, tmp_path), spec)  # the library's way to every metric of a dataset
    assert list(df.columns) == ["system", "kind", *SP.SPAN_METRIC_IDS] and df.loc[0, "span_recall"] == 0.8


# -- issue 18: faults the suite let through -------------------------------------------------------
def test_jitter_moves_both_boundaries_both_ways_within_the_width():
    """Catches the jitter perturbation moving start boundaries only to the right (or beyond its width)."""
    # 3 articles x 1000 spans of 20 characters, 60 apart: jitter 0.25 x median length 20 = up to 5 either way,
    # so no span leaves its article, crosses another or gets shorter than 1 (the merge keeps every span apart)
    n_per, width = 1000, 5
    gold = SP.merge_spans(_sp([(a, 0, 30 + 60 * i, 50 + 60 * i) for a in range(3) for i in range(n_per)]))
    lengths = np.full(3, 60 * n_per + 30)
    out = SP.perturb_spans(gold, lengths, "jitter", 0.25, np.random.default_rng(18))
    assert len(out) == len(gold) and np.array_equal(out.article, gold.article)
    for moves in (out.start - gold.start, out.end - gold.end):
        counts = {d: int((moves == d).sum()) for d in range(-width - 1, width + 2)}
        assert counts[-width - 1] == counts[width + 1] == 0 and (np.abs(moves) <= width).all()
        left, right = int((moves < 0).sum()), int((moves > 0).sum())
        assert abs(left - right) < 200, (left, right)  # 5/11 of 3000 = 1364 each way, sd of the difference ~ 52
        # uniform on -5..5: each of the 11 moves about 3000 / 11 = 273 times (sd about 16)
        assert all(200 < counts[d] < 350 for d in range(-width, width + 1)), counts
        assert abs(moves.mean()) < 0.3


# -- SemEval-2021 Task 5 (toxic spans), offsets past the end, documents, baselines (issue 18) --------
TSD = FIXTURES / "tsd"
TSD_RAW = dict(format="semeval2021_tsd", gold="tsd/gold.csv", predictions=["tsd/predictions/*.txt"])


def _tsd(tmp_path=None, **extra):
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import load_dataset

    spec = DatasetSpec.from_config("toxic", {**TSD_RAW, **extra})
    return spec, load_dataset(spec, FIXTURES if tmp_path is None else tmp_path)


def test_the_2021_format_is_read_by_config_alone_and_scored_as_the_official_scorer():
    """Per-post character F1 of every file, against a plain loop of the
    official scorer over the files as they are (offsets as sets, both
    empty = 1, one empty = 0, mean over every post of the gold)."""
    from metaeval.data.dataset import score_dataset

    from .reference import tsd_score_files

    spec, ds = _tsd()
    assert spec.primary_metric == "char_f1_macro" and ds.spans.n_articles == 12
    df = score_dataset(ds, spec).set_index("system")
    for f in sorted((TSD / "predictions").glob("*.txt")):
        want = tsd_score_files(f, TSD / "gold.csv")
        assert df.loc[f.stem, "char_f1_macro"] == pytest.approx(want, abs=1e-15), f.stem
    assert df.loc["close", "char_f1_macro"] < 1 and df.loc["past_end", "char_f1_macro"] < 1
    # the baselines, on the same posts: no_spans scores the share of posts without gold spans
    assert df.loc["no_spans", "kind"] == "baseline"
    assert df.loc["no_spans", "char_f1_macro"] == pytest.approx(5 / 12)  # posts 1, 3, 6, 9, 11
    assert ds.info["documents"] == {"source": "every post of the gold file", "n": 12}


def test_offsets_past_the_end_count_as_wrong_characters_never_clipped(tmp_path):
    from metaeval.data.dataset import score_dataset

    from .reference import tsd_f1

    spec, ds = _tsd()
    # "Pathetic." has 9 characters: offsets 9, 10, 11 are past it; "ok" has 2: 5 and 6 are
    assert ds.info["offsets_past_end"] == {"policy": "wrong", "files": {"past_end": {
        "path": str(TSD / "predictions/past_end.txt"), "spans": 2, "characters": 5}}}
    assert any("system 'past_end': 5 character(s) in 2 span(s) lie past the end" in w for w in ds.info["warnings"])
    got = score_dataset(ds, spec).set_index("system").loc["past_end", "char_f1_macro"]
    # clipping would drop the wrong characters and raise the score
    gold8, gold11 = list(range(8)), []
    wrong = (tsd_f1(list(range(12)), gold8) + tsd_f1([5, 6], gold11)) / 12
    clipped = (tsd_f1(list(range(9)), gold8) + tsd_f1([], gold11)) / 12
    assert got == pytest.approx(10 / 12 + wrong) and got < 10 / 12 + clipped
    with pytest.raises(DataError) as e:
        _tsd(offsets_past_end="refuse")
    msg = str(e.value)
    assert "past_end.txt: 2 problems (2 line(s) with offsets past the end of the text)" in msg
    assert ("past_end.txt:9: 3 offset(s) of post 8 at or beyond the end of its text (9 characters; offsets count "
            "from 0), from 9;") in msg
    assert "past_end.txt:12: 2 offset(s) of post 11" in msg and "offsets_past_end: wrong" in msg


def test_a_submission_that_predicts_nothing_and_copies_of_baselines_are_said():
    spec, ds = _tsd()
    assert ds.info["predicts_no_spans"] == ["silent"]
    assert any("system 'silent' predicts no spans" in w for w in ds.info["warnings"])
    groups = sorted(sorted(g) for g in ds.info["identical_systems"])
    assert groups == [["everything", "whole_text"], ["no_spans", "silent"]]
    assert any("'silent', 'no_spans' predict exactly the same" in w for w in ds.info["warnings"])


def test_display_names_and_supplied_baselines(tmp_path):
    from metaeval.data.config import ConfigError

    spec, ds = _tsd(display_names={"__435053": "team_x"}, baseline_systems=["organisers_*"])
    kinds = dict(zip(ds.systems, ds.kinds))
    assert "team_x" in kinds and "__435053" not in kinds and kinds["team_x"] == "system"
    assert kinds["organisers_baseline"] == "baseline" and ds.info["supplied_baselines"] == ["organisers_baseline"]
    assert ds.info["files"]["team_x"]["path"].endswith("__435053.txt")
    from metaeval.workflow import n_ranked_systems

    files = spec.prediction_files(FIXTURES)
    assert n_ranked_systems(spec, files, ("majority", "random")) == 6  # 7 files, one of them a baseline
    assert n_ranked_systems(spec, files, ("organisers_baseline", "no_spans")) == 8
    with pytest.raises(ConfigError, match="display_names: no prediction file is named 'nobody'"):
        _tsd(display_names={"nobody": "x"})
    with pytest.raises(ConfigError, match="baseline_systems: 'bsl_.*' matches no prediction file"):
        _tsd(baseline_systems=["bsl_*"])
    with pytest.raises(ConfigError, match="two files give the system name 'close'"):
        _tsd(display_names={"tokens": "close"})
    with pytest.raises(DataError, match="system name 'no_spans' is reserved for a baseline"):
        _tsd(display_names={"silent": "no_spans"})


@pytest.mark.parametrize("name,text,needle", [
    ("missing.txt", "0\t[]\n1\t[]\n", "10 post(s) of the gold have no line"),
    ("twice.txt", "".join(f"{i}\t[]\n" for i in range(12)) + "3\t[1]\n", "13: post 3 is listed twice (first on line 4)"),
    ("foreign.txt", "".join(f"{i}\t[]\n" for i in range(12)) + "12\t[]\n", "13: post 12 is not in the gold file"),
    ("bad_id.txt", "x\t[]\n", "1: post id 'x' is not an integer"),
    ("bad_list.txt", "".join(f"{i}\t[]\n" for i in range(11)) + "11\t[1, 2\n", "12: the offsets of post 11 are not a list"),
    ("floats.txt", "".join(f"{i}\t[]\n" for i in range(11)) + "11\t[1.0]\n", "the offsets of post 11 are not a list"),
    ("negative.txt", "".join(f"{i}\t[]\n" for i in range(11)) + "11\t[-1, 0]\n", "12: negative offset(s) [-1] in post 11"),
    ("ragged.txt", "0 []\n", "1: expected 2 TAB-separated fields"),
    ("empty.txt", "", "empty file"),
])
def test_malformed_2021_submissions_are_named_with_file_and_line(tmp_path, name, text, needle):
    shutil.copytree(TSD, tmp_path / "tsd")
    (tmp_path / "tsd/predictions" / name).write_text(text)
    with pytest.raises(DataError) as e:
        _tsd(tmp_path)
    assert f"{name}:" in str(e.value) and needle in str(e.value), str(e.value)


def test_the_2021_gold_is_checked():
    from metaeval.data.readers.spans import read_tsd_gold

    texts, t = read_tsd_gold(TSD / "gold.csv")
    assert len(texts) == 12 and texts[5] == "Line one is calm.\nLine two: moron." and not t.problems
    assert t.documents == [str(i) for i in range(12)] and t.lines[t.article.index("5")] == 7  # a row of two lines
    assert (t.article[:2], t.start[:2], t.end[:2]) == (["0", "0"], [11, 23], [16, 27])  # runs of the offsets


@pytest.mark.parametrize("text,needle", [
    ("label,text\n[],x\n", "expected the columns 'spans' and 'text'"),
    ("spans,text\n\"[1,x]\",abc\n", "2: the spans of post 0 are not a list"),
    ("spans,text\n[],a,b\n", "2: expected 2 fields as in the header, found 3"),
    ("", "empty file"),
    ('"[1, 2]",a text\n', "1: missing or wrong header"),  # no header: the first record is named, at its line
    ('"a text\nof two lines",[1]\n', "1: missing or wrong header"),
])
def test_a_malformed_2021_gold_is_named(tmp_path, text, needle):
    from metaeval.data.readers.spans import read_tsd_gold

    (tmp_path / "g.csv").write_text(text)
    _, t = read_tsd_gold(tmp_path / "g.csv")
    assert any(needle in str(p) for p in t.problems), t.problems


def test_extra_article_files_are_not_scored_and_are_named(tmp_path):
    """Articles that neither the gold nor any prediction mentions would
    count as articles with empty gold (and raise every per-article F1)."""
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import load_dataset, score_dataset

    shutil.copytree(FIXTURES / "spans", tmp_path / "spans")
    raw = dict(format="semeval2020_si", gold="spans/si/gold.labels", articles="spans/articles",
               predictions=["spans/si/predictions/*.txt"], merge_overlapping_predictions=True)
    spec = DatasetSpec.from_config("si", raw)
    base = score_dataset(load_dataset(spec, tmp_path), spec).set_index("system")
    for i in range(200):
        (tmp_path / f"spans/articles/article9{i:03d}.txt").write_text("text of an unrelated article\n")
    ds = load_dataset(spec, tmp_path)
    after = score_dataset(ds, spec).set_index("system")
    pd.testing.assert_frame_equal(base.drop(index="random_spans"), after.drop(index="random_spans"))
    assert ds.info["documents"]["n"] == 3 and ds.info["documents"]["unscored_article_files"] == 201
    w = [x for x in ds.info["warnings"] if "mentioned neither" in x]
    assert len(w) == 1 and "201 article file(s)" in w[0] and "'article104.txt'" in w[0] and ", ...)" in w[0]
    # documents: all_articles makes the folder the test set: the extra articles count (F1 per article rises)
    spec_all = DatasetSpec.from_config("si", {**raw, "documents": "all_articles"})
    ds_all = load_dataset(spec_all, tmp_path)
    assert ds_all.spans.n_articles == 204 and not [x for x in ds_all.info["warnings"] if "mentioned neither" in x]
    assert score_dataset(ds_all, spec_all).set_index("system").loc["close", "char_f1_macro"] > \
        after.loc["close", "char_f1_macro"]


def test_an_empty_2020_prediction_file_predicts_no_spans_and_is_said(tmp_path):
    from metaeval.data.config import DatasetSpec
    from metaeval.data.dataset import load_dataset, score_dataset

    shutil.copytree(FIXTURES / "spans", tmp_path / "spans")
    (tmp_path / "spans/si/predictions/nothing.txt").write_text("")
    spec = DatasetSpec.from_config("si", dict(format="semeval2020_si", gold="spans/si/gold.labels",
                                              articles="spans/articles", predictions=["spans/si/predictions/*.txt"],
                                              merge_overlapping_predictions=True))
    ds = load_dataset(spec, tmp_path)
    assert ds.info["predicts_no_spans"] == ["nothing"]
    assert any("system 'nothing' predicts no spans" in w for w in ds.info["warnings"])
    assert ["no_spans", "nothing"] in [sorted(g) for g in ds.info["identical_systems"]]
    df = score_dataset(ds, spec).set_index("system")
    assert df.loc["nothing", "span_f1"] == 0 and df.loc["nothing", "span_recall"] == 0


def test_span_baselines():
    texts = ["ab cd  e", "", "xyz"]
    gold = SP.merge_spans(_sp([(0, 0, 0, 2), (0, 0, 3, 5), (2, 0, 0, 3)]))
    b = SP.span_baselines(SP.SPAN_BASELINES, texts, gold, seed=1)
    assert list(b) == list(SP.SPAN_BASELINES)
    assert len(b["no_spans"]) == 0
    assert b["whole_text"].as_array().tolist() == [[0, 0, 8, 0], [2, 0, 3, 0]]  # no span in an empty text
    tok = [(int(a), texts[a][s:e]) for a, s, e in zip(b["every_token"].article, b["every_token"].start,
                                                       b["every_token"].end)]
    assert tok == [(0, "ab"), (0, "cd"), (0, "e"), (2, "xyz")]
    r = b["random_spans"]
    assert (r.start >= 0).all() and (r.end <= np.array([8, 0, 3])[r.article]).all() and len(r) <= len(gold)
    again = SP.span_baselines(["random_spans"], texts, gold, seed=1)["random_spans"]
    np.testing.assert_array_equal(again.as_array(), r.as_array())  # seeded


def test_random_span_baseline_has_the_gold_s_density_and_lengths():
    """Many documents: about |gold| spans (fewer only where two overlap and
    merge), lengths from the gold's, documents drawn by length."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(50, 500, 400)
    texts = ["x" * n for n in lengths]
    g = [(a, 0, s, s + ln) for a in range(400) for s, ln in ((5, 4), (30, 9))]
    gold = SP.merge_spans(_sp(g))
    r = SP.span_baselines(["random_spans"], texts, gold, seed=3)["random_spans"]
    assert 0.9 * len(gold) <= len(r) <= len(gold)
    raw = SP.random_spans(lengths, gold.end - gold.start, 4000, np.random.default_rng(1))  # before merging
    ln = raw.end - raw.start
    assert set(ln.tolist()) == {4, 9} and abs((ln == 4).mean() - 0.5) < 0.03
    assert (raw.start >= 0).all() and (raw.end <= lengths[raw.article]).all()
    per_char = np.bincount(r.article, minlength=400) / lengths
    assert per_char[lengths > 300].mean() == pytest.approx(per_char[lengths < 150].mean(), rel=0.35)


def test_perturbations_keep_the_labels_of_overlapping_spans():
    """Two overlapping gold spans of different labels stay two labelled spans
    (merging without regard to labels would make one span of one label)."""
    gold = _sp([(0, 1, 0, 10), (0, 2, 5, 15)])
    for kind in ("jitter", "drop", "split", "spurious"):
        out = SP.perturb_spans(gold, np.array([100]), kind, 0.0, np.random.default_rng(0))
        assert sorted(zip(out.label.tolist(), out.start.tolist(), out.end.tolist())) == [(1, 0, 10), (2, 5, 15)], kind


def test_the_scorer_s_conventions_on_summed_statistics():
    """Precision 0 without a predicted span, recall 0 without a gold one,
    F1 1 when neither exists, F1 0 when spans exist but none overlaps (or
    one side is empty), and the document-averaged character F1 NaN without
    a document."""
    from metaeval.measures.spans.statistics import STATS

    def x(**kw):
        v = np.zeros(len(STATS))
        for k, val in kw.items():
            v[STATS.index(k)] = val
        return v

    ids = ["span_precision", "span_recall", "span_f1"]
    cases = [(x(), [0.0, 0.0, 1.0]),  # nothing predicted, nothing in the gold
             (x(n_pred=2, n_gold=3), [0.0, 0.0, 0.0]),  # spans on both sides, no overlap
             (x(n_pred=2), [0.0, 0.0, 0.0]),  # predictions only
             (x(n_gold=2), [0.0, 0.0, 0.0]),  # gold only
             (x(n_pred=2, n_gold=4, sum_p=1.0, sum_r=1.0), [0.5, 0.25, 1 / 3])]
    for stats, want in cases:
        got = SP.evaluate_spans(stats, ids)
        np.testing.assert_allclose([got[m] for m in ids], want, atol=1e-15, err_msg=str(stats))
    assert np.isnan(SP.evaluate_spans(x(), ["char_f1_macro"])["char_f1_macro"])
    assert SP.evaluate_spans(x(article_char_f1=1.5, n_articles=2), ["char_f1_macro"])["char_f1_macro"] == 0.75
    with pytest.raises(ValueError) as e:
        SP.evaluate_spans(np.zeros(3), ids)
    assert e.value.args[0] == (f"span statistics must end in an axis of {len(STATS)} ({', '.join(STATS)}), "
                               "got (3,)")


def test_tc_refusals_list_each_fault_whole():
    """Missing gold spans: one problem, their count and the first five;
    predicted spans not in the gold (or more often than in the gold): one
    problem each, the first twenty, then one for the rest with its count;
    where each was read, as a line or a row."""
    from metaeval.data.files import Problem

    gold = _sp([(1, 1, 10 * i, 10 * i + 5) for i in range(7)] + [(0, 2, 0, 5), (0, 3, 0, 3)])
    gold = gold.take(gold.order())
    # [0, 3) of a0 is in both once: neither missing nor extra
    pred = _sp([(0, 2, 0, 5), (0, 1, 0, 5)] + [(0, 1, 100 + i, 120) for i in range(21)] + [(0, 3, 0, 3)])
    lines = list(range(3, 3 + len(pred)))
    out, problems = align_tc(gold, pred, ["a0", "a1"], "p.txt", lines=lines, unit="row")
    assert out.dtype == np.int64 and out.size == 0
    missing = ("7 gold span(s) have no prediction (a TC submission labels exactly the gold spans), e.g. "
               + ", ".join(f"article 'a1' [{10 * i}, {10 * i + 5})" for i in range(5)))
    want = [Problem("p.txt", None, missing, "missing", 7),
            Problem("p.txt", 3, "span [0, 5) of article 'a0' is not a gold span that many times (2 vs 1 in the gold)",
                    "not_in_gold", unit="row")]
    want += [Problem("p.txt", 5 + i, f"span [{100 + i}, 120) of article 'a0' is not a gold span", "not_in_gold",
                     unit="row") for i in range(19)]
    want += [Problem("p.txt", None, "... 2 more spans that are not gold spans", "not_in_gold", 2)]
    assert problems == want
    # exactly twenty: no line for the rest; no lines given: None; twenty-one: one more
    _, problems = align_tc(gold, pred.take(np.r_[np.arange(21), 23]), ["a0", "a1"], "p.txt")
    assert [p.line for p in problems] == [None] * 21 and problems[-1].message.startswith("span [")
    _, problems = align_tc(gold, pred.take(np.r_[np.arange(22), 23]), ["a0", "a1"], "p.txt")
    assert len(problems) == 22 and problems[-1] == Problem("p.txt", None, "... 1 more spans that are not gold spans",
                                                           "not_in_gold", 1)


def test_tc_empty_gold_and_submission_align_to_nothing():
    out, problems = align_tc(SP.Spans.empty(), SP.Spans.empty(), [], "p.txt")
    assert out.tolist() == [] and problems == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=12), st.randoms())
def test_tc_pairing_matches_as_many_labels_as_possible(rows, rnd):
    """Against a plain count: on every offset, the gold instances whose
    label the pairing gives back are sum over labels of min(gold count,
    predicted count), and the labels handed out are the predicted ones."""
    from collections import Counter

    gold = _sp([(0, lab, 10 * o, 10 * o + 5) for o, lab in rows])
    pred_rows = [(0, rnd.randrange(4), 10 * o, 10 * o + 5) for o, _ in rows]
    rnd.shuffle(pred_rows)
    pred = _sp(pred_rows)
    out, problems = align_tc(gold, pred, ["a0"], "p.txt")
    assert problems == []
    for o in {o for o, _ in rows}:
        gi = [i for i in range(len(gold)) if gold.start[i] == 10 * o]
        g_lab = Counter(int(gold.label[i]) for i in gi)
        p_lab = Counter(lab for _, lab, s, _ in pred_rows if s == 10 * o)
        assert Counter(int(out[i]) for i in gi) == p_lab
        assert sum(int(out[i]) == int(gold.label[i]) for i in gi) == sum(min(g_lab[k], p_lab[k]) for k in g_lab)


def test_spans_hold_int64_columns_and_round_trip_through_arrays():
    """The columns are int64 whatever the input's integer type; an empty
    label list means unlabelled (0 for every span); as_array and
    from_array round-trip, empty or not."""
    s = SP.Spans(article=np.array([1, 0], np.int32), start=np.array([5, 0], np.int16), end=np.array([9, 3], np.int8),
                 label=[])
    for col in (s.article, s.start, s.end, s.label):
        assert col.dtype == np.int64
    assert s.label.tolist() == [0, 0]
    assert SP.Spans(article=[0], start=[0], end=[1], label=np.array([2], np.int16)).label.dtype == np.int64
    a = s.as_array()
    assert a.dtype == np.int64 and a.tolist() == [[1, 5, 9, 0], [0, 0, 3, 0]]
    back = SP.Spans.from_array(a.ravel().tolist())
    assert back.as_array().tolist() == a.tolist() and back.start.dtype == np.int64
    e = SP.Spans.empty()
    assert len(e) == 0 and e.article.dtype == np.int64 and e.label.dtype == np.int64
    assert e.as_array().shape == (0, 4) and e.as_array().dtype == np.int64
    assert len(SP.Spans.from_array(np.zeros((0, 4)))) == 0


def test_merging_is_across_labels_by_default_and_sorted_by_label_within_an_article():
    from metaeval.measures.spans.model import merge_spans, overlapping_pairs

    s = SP.Spans(article=[0, 0, 0, 1], start=[0, 4, 2, 0], end=[6, 9, 3, 5], label=[2, 1, 2, 1])
    m = merge_spans(s)
    assert m.as_array().tolist() == [[0, 0, 9, 2], [1, 0, 5, 1]]  # one run per article, the first span's label
    m = merge_spans(s, by_label=True)
    assert m.as_array().tolist() == [[0, 4, 9, 1], [0, 0, 6, 2], [1, 0, 5, 1]]
    assert overlapping_pairs(s) == [(0, 2), (0, 1)]  # across labels: [2, 3) and [4, 9) overlap [0, 6)
    assert overlapping_pairs(s, by_label=True) == [(0, 2)]  # labels 1 and 2 may overlap
    assert overlapping_pairs(SP.Spans.empty()) == [] and overlapping_pairs(SP.Spans.empty(), by_label=True) == []


def test_an_overlap_is_named_with_the_earlier_span_that_reaches_furthest():
    from metaeval.measures.spans.model import overlapping_pairs

    s = SP.Spans(article=[0, 0, 0], start=[0, 1, 5], end=[3, 10, 8], label=[])
    assert overlapping_pairs(s) == [(0, 1), (1, 2)]
    many = SP.Spans(article=[0] * 8, start=list(range(8)), end=[20] * 8, label=[])
    assert overlapping_pairs(many) == [(0, i) for i in range(1, 6)]  # five by default
    assert len(overlapping_pairs(many, limit=7)) == 7


def test_generated_span_baselines_on_short_and_empty_documents():
    from metaeval.measures.spans.baselines import span_baselines

    texts = ["a", "", "to be"]
    got = span_baselines(["every_token", "whole_text", "no_spans"], texts, SP.Spans.empty(), 0)
    assert list(got) == ["no_spans", "whole_text", "every_token"]
    assert got["whole_text"].as_array().tolist() == [[0, 0, 1, 0], [2, 0, 5, 0]]  # one character is a document
    assert got["every_token"].as_array().tolist() == [[0, 0, 1, 0], [2, 0, 2, 0], [2, 3, 5, 0]]
    assert len(got["no_spans"]) == 0
    assert len(span_baselines(["every_token"], ["  ", ""], SP.Spans.empty(), 0)["every_token"]) == 0
    with pytest.raises(ValueError) as e:
        span_baselines(["whole_text", "all_spans", "half"], texts, SP.Spans.empty(), 0)
    assert e.value.args[0] == ("unknown span baseline(s) ['all_spans', 'half']; known: no_spans, whole_text, "
                               "every_token, random_spans")
