"""Benchmarks (``metaeval.data.benchmark``) and the aggregates of a
leaderboard (``metaeval.measures.aggregates``), each against an independent
reference: pandas group-bys, scipy's ranks, NumPy's median of the expanded
multiset, and a plain loop over systems and tasks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import rankdata

from metaeval.data.benchmark import Benchmark, read_benchmark
from metaeval.data.files import DataError
from metaeval.measures import aggregates as A

MMLU = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlu_pro"


def _reference(means: np.ndarray, copies: np.ndarray, items: np.ndarray) -> dict[str, np.ndarray]:
    """Every built-in aggregate of one row, (S, T), by a plain loop."""
    s, t = means.shape
    drawn = [k for k in range(t) if copies[k] > 0]
    out = {a: np.zeros(s) for a in ("mean_items", "mean_tasks", "mean_rank", "borda", "win_rate", "geometric",
                                    "median")}
    for j in range(s):
        out["mean_items"][j] = sum(items[k] * means[j, k] for k in drawn) / sum(items[k] for k in drawn)
        out["mean_tasks"][j] = sum(copies[k] * means[j, k] for k in drawn) / sum(copies[k] for k in drawn)
        ranks = [rankdata(-means[:, k], method="min")[j] for k in drawn]
        out["mean_rank"][j] = sum(copies[k] * r for k, r in zip(drawn, ranks)) / sum(copies[k] for k in drawn)
        beaten = [sum(means[i, k] < means[j, k] for i in range(s)) for k in drawn]
        tied = [sum(means[i, k] == means[j, k] for i in range(s) if i != j) for k in drawn]
        out["borda"][j] = sum(copies[k] * b for k, b in zip(drawn, beaten))
        out["win_rate"][j] = sum(copies[k] * (b + h / 2) / (s - 1) for k, b, h in zip(drawn, beaten, tied)) / sum(
            copies[k] for k in drawn)
        vals = [means[j, k] for k in drawn]
        w = [copies[k] for k in drawn]
        out["geometric"][j] = 0.0 if min(vals) == 0 else np.exp(np.average(np.log(vals), weights=w))
        out["median"][j] = np.median(np.repeat(vals, np.asarray(w, dtype=int)))
    return out


@given(st.integers(2, 6), st.integers(1, 7), st.integers(0, 10**6))
@settings(max_examples=60, deadline=None)
def test_aggregates_equal_a_plain_loop(s, t, seed):
    rng = np.random.default_rng(seed)
    r = 3
    means = rng.integers(0, 5, (r, s, t)) / 4.0  # coarse values: ties and zeros are common
    copies = rng.integers(0, 3, (r, t)).astype(float)
    copies[:, 0] = np.maximum(copies[:, 0], 1)  # at least one task drawn per row
    items = copies * rng.integers(1, 50, t)
    means = np.where(copies[:, None, :] > 0, means, np.nan)  # a task not drawn has no mean
    got = A.evaluate(means, [a for a in A.AGGREGATES if A.get(a).feature == "score"], copies=copies, items=items)
    for b in range(r):
        ref = _reference(means[b], copies[b], items[b])
        for a, v in ref.items():
            np.testing.assert_allclose(got[a][b], v, rtol=1e-12, atol=1e-12, err_msg=a)


def test_rank_aggregates_agree_without_ties():
    rng = np.random.default_rng(1)
    m = rng.random((6, 9))
    r = A.evaluate(m, ["mean_rank", "borda", "win_rate"])
    assert np.allclose(r["borda"], 9 * (6 - 1) * r["win_rate"])
    assert np.allclose(r["borda"], 9 * 6 - 9 * r["mean_rank"])  # sum_t (S - r_jt)


def test_aggregates_contract_refuses_a_reversed_direction():
    with pytest.raises(A.AggregateContractError, match="at least as good as system 1 on every task"):
        A.register_aggregate("neg", lambda scores, **_: -np.nanmean(scores, axis=-1), range=(-1, 0))
    with pytest.raises(A.AggregateContractError, match="built-in"):
        A.register_aggregate("median", lambda scores, **_: scores[..., 0])
    assert "neg" not in A.AGGREGATES


def test_benchmark_in_memory_scores_and_chance():
    b = Benchmark.from_answers("t", gold=["A", "B", "C"], tasks=["x", "x", "y"],
                               answers={"s": ["A", "none", "D"]}, no_answer="none", n_options=[4, 2, 1])
    f = b.features("guess")
    assert f[0, :, 0].tolist() == [1.0, 0.5, 0.0]
    # chance-corrected: (1 - 1/4) / (3/4) = 1; a guess is 0; a single-option item 0
    assert f[0, :, 1].tolist() == [1.0, 0.0, 0.0]
    assert b.features("wrong")[0, :, 1].tolist() == [1.0, -1.0, 0.0]
    assert any("single option" in n for n in b.notes)


@pytest.mark.realdata
def test_mmlu_pro_means_equal_pandas():
    gold = pd.read_csv(MMLU / "gold.csv", dtype={"item_id": str})
    preds = {p.stem: p for p in sorted((MMLU / "predictions").glob("*.csv"))}
    b = read_benchmark("mmlu_pro", MMLU / "gold.csv", preds, task_column="category", options_column="n_options",
                       no_answer="none")
    assert b.n_systems == 12 and b.n_items == 12032 and b.n_tasks == 14
    for policy in ("wrong", "guess"):
        tt = b.totals(policy)
        got = A.evaluate(tt.means("score"), ["mean_items", "mean_tasks"], copies=tt.copies, items=tt.items)
        for j, system in enumerate(b.systems):
            p = pd.read_csv(preds[system], dtype={"item_id": str}, keep_default_na=False).merge(gold, on="item_id")
            none = p["label_x"] == "none"
            x = (p["label_x"] == p["label_y"]).astype(float)
            if policy == "guess":  # the expected value of a random letter among the item's options
                x = x.where(~none, 1 / p["n_options"])
            assert abs(got["mean_items"][j] - x.mean()) < 1e-12
            assert abs(got["mean_tasks"][j] - x.groupby(p["category"]).mean().mean()) < 1e-12
            if policy == "wrong":  # the page's scores per task, against the same group-by
                from metaeval.methods.leaderboards.experiments import task_scores

                row = task_scores(b).set_index("system").loc[system]
                per_task = x.groupby(p["category"]).mean()
                for cat, value in per_task.items():
                    assert abs(row[f"{cat} ({int((p['category'] == cat).sum())})"] - value) < 1e-12
            if policy == "guess":
                # ten-option questions: accuracy + (share of none) / 10; the others by the per-item formula
                ten = p["n_options"] == 10
                acc10 = (p["label_x"] == p["label_y"])[ten].mean()
                tt10 = x[ten].mean()
                assert abs(tt10 - (acc10 + none[ten].mean() / 10)) < 1e-12
                other = ~ten
                assert abs(x[other].sum() - ((p["label_x"] == p["label_y"])[other].sum()
                                             + (1 / p["n_options"][other & none]).sum())) < 1e-9


def test_read_benchmark_names_every_fault(tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("item_id,label,task,n_options\n1,A,x,4\n2,B,x,zero\n3,none,y,2\n4,C,y,2.5\n")
    a = tmp_path / "a.csv"
    a.write_text("item_id,label\n1,A\n2,B\n9,C\n")
    with pytest.raises(DataError) as e:
        read_benchmark("toy", gold, {"a": a}, options_column="n_options", no_answer="none")
    said = [str(p) for p in e.value.problems]
    assert any(f"{gold}:3" in p and "not a number" in p for p in said)  # n_options 'zero'
    assert any(f"{gold}:4" in p and "declared to mean no answer" in p for p in said)
    assert any(f"{gold}:5" in p and "whole number" in p for p in said)
    assert any(f"{a}:4" in p and "'9' is not in the gold file" in p for p in said)
    assert any("2 gold item(s) have no answer" in p for p in said) and len(said) == 5
    assert "benchmark 'toy'" in str(e.value)


def test_read_benchmark_says_answers_no_gold_label_has(tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("item_id,label,task\n" + "".join(f"{i},{'AB'[i % 2]},{'xy'[i % 2]}\n" for i in range(10)))
    a = tmp_path / "a.csv"
    a.write_text("item_id,label\n0,a\n1,(B)\n2,Z\n" + "".join(f"{i},{'AB'[i % 2]}\n" for i in range(3, 10)))
    b = read_benchmark("toy", gold, {"a": a})
    assert b.right[0, :3].tolist() == [0.0, 0.0, 0.0] and b.right[0, 3:].all()
    # 'a' and '(B)' read as labels written otherwise: said; 'Z' is an answer like any wrong one
    assert any("2 answer(s) written unlike the gold labels, scored wrong: 'a' (1), '(B)' (1)" in n for n in b.notes)
    # most of a system's answers so: a format, refused with the file named
    a.write_text("item_id,label\n" + "".join(f"{i},{'ab'[i % 2]}\n" for i in range(10)))
    with pytest.raises(DataError) as e:
        read_benchmark("toy", gold, {"a": a})
    assert f"{a}: 10 problems" in str(e.value) and "10 of 10 answers are written unlike the gold labels" in str(e.value)


def test_in_memory_answers_are_checked_as_files_are(tmp_path):
    """The library's in-memory benchmark says (and refuses) what the files'
    reading does: answers written unlike the gold, identical systems; the
    same notes word for word."""
    gold, tasks = [("AB"[i % 2]) for i in range(10)], [("xy"[i % 2]) for i in range(10)]
    answers = {"a": ["a", "(B)", "Z"] + gold[3:], "b": list(gold), "c": list(gold)}
    mem = Benchmark.from_answers("toy", gold=gold, tasks=tasks, answers=answers)
    g = tmp_path / "gold.csv"
    g.write_text("item_id,label,task\n" + "".join(f"{i},{gold[i]},{tasks[i]}\n" for i in range(10)))
    files = {}
    for name, values in answers.items():
        files[name] = tmp_path / f"{name}.csv"
        files[name].write_text("item_id,label\n" + "".join(f"{i},{v}\n" for i, v in enumerate(values)))
    read = read_benchmark("toy", g, files)
    assert any("system 'a': 2 answer(s) written unlike the gold labels, scored wrong: 'a' (1), '(B)' (1)" in n
               for n in mem.notes)
    assert any("same score on every item" in n and "b, c" in n for n in mem.notes)
    assert sorted(mem.notes) == sorted(read.notes)
    assert np.array_equal(mem.right, read.right)
    with pytest.raises(ValueError, match=r"answers of system 'a': 10 of 10 answers are written unlike the gold"):
        Benchmark.from_answers("toy", gold=gold, tasks=tasks, answers={"a": [x.lower() for x in gold]})
    scores = Benchmark.from_scores("toy", tasks=tasks, scores={"a": [1.0] * 10, "b": [1.0] * 10, "c": [2.0] * 10})
    assert any("same score on every item" in n and "a, b" in n for n in scores.notes)
    assert any("outside [0, 1] (c)" in n for n in scores.notes)


def test_identical_systems_and_scores_outside_0_1_are_said(tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("item_id,task\n1,x\n2,y\n")
    for name, text in (("a", "1,1\n2,0\n"), ("b", "2,0\n1,1\n"), ("c", "1,50\n2,7\n")):
        (tmp_path / f"{name}.csv").write_text("item_id,score\n" + text)
    b = read_benchmark("toy", gold, {k: tmp_path / f"{k}.csv" for k in "abc"}, input="scores")
    assert any("same score on every item" in n and "a, b" in n for n in b.notes)
    assert any("outside [0, 1] (c)" in n for n in b.notes)


def test_read_benchmark_of_scores(tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("item_id,task\n1,x\n2,y\n3,y\n")
    a = tmp_path / "a.csv"
    a.write_text("item_id,score\n3,0.5\n1,1\n2,0.25\n")
    b = read_benchmark("toy", gold, {"a": a}, input="scores")
    assert b.right.tolist() == [[1.0, 0.25, 0.5]] and b.task_names == ("x", "y") and b.kind == "scores"


def test_custom_aggregates_from_the_config(tmp_path):
    """A config's custom aggregate: declared with its file's SHA-256,
    registered, listed by a leaderboard; one that breaks its contract is
    refused naming its key."""
    from metaeval.data.leaderboard_spec import leaderboard_specs
    from metaeval.settings import ConfigError

    (tmp_path / "agg.py").write_text("import numpy as np\n\n\ndef worst(scores, *, copies, items):\n"
                                     "    return np.where(copies[..., None, :] > 0, scores, np.inf).min(axis=-1)\n\n\n"
                                     "def total(scores, *, copies, items):\n    return scores.sum()\n")
    cfg = {"custom_aggregates": {"worst": {"function": "agg.py:worst", "higher_is_better": True, "range": [0, 1]}},
           "leaderboards": {"b": {"gold": "g.csv", "predictions": ["p/*.csv"], "aggregates": ["mean_items", "worst"]}}}
    try:
        specs = leaderboard_specs(cfg, tmp_path)
        decl = specs["b"].custom_aggregates["worst"]
        assert decl["function"] == f"{tmp_path / 'agg.py'}:worst" and len(decl["fingerprint"]) == 64
        assert A.get("worst")(np.array([[0.5, 0.2], [0.4, 0.3]])).tolist() == [0.2, 0.3]
        bad = {**cfg, "custom_aggregates": {"total": {"function": "agg.py:total", "higher_is_better": True}}}
        with pytest.raises(ConfigError, match=r"custom_aggregates\.total: .*expected one value per system"):
            leaderboard_specs(bad, tmp_path)
    finally:
        A.unregister_aggregate("worst")
        A.unregister_aggregate("total")


def test_answers_that_read_as_no_answer_are_said_with_the_key_to_declare_them(tmp_path):
    """'none' or 'N/A' where no_answer declares nothing: scored wrong as any
    wrong answer, and said with the key that would declare them; most of a
    system's answers so is an abstaining system, not a format slip ('N/A'
    holds the label 'A' but is not refused as one written otherwise)."""
    gold, tasks = list("ABAB" * 5), ["x"] * 20
    answers = {"s": ["none"] * 3 + ["N/A", "b"] + gold[5:], "u": ["N/A"] * 15 + gold[15:]}
    b = Benchmark.from_answers("t", gold=gold, tasks=tasks, answers=answers)
    assert "system 's': 1 answer(s) written unlike the gold labels, scored wrong: 'b' (1)" in b.notes
    assert ("system 's': 4 answer(s) that read as no answer, scored wrong: 'none' (3), 'N/A' (1); if they mean that "
            "none was given, declare them in no_answer (one value or a list: 'none' among them; their scoring: "
            "no_answer_scoring)") in b.notes
    assert any(n.startswith("system 'u': 15 answer(s) that read as no answer") and "'N/A' among them" in n
               for n in b.notes)
    assert b.right[1, :15].sum() == 0 and not b.unanswered.any()
    declared = Benchmark.from_answers("t", gold=gold, tasks=tasks, answers=answers, no_answer="N/A")
    assert declared.unanswered[1, :15].all() and not any("system 'u'" in n and "read as no answer" in n
                                                          for n in declared.notes)
    g = tmp_path / "gold.csv"
    g.write_text("item_id,label,task\n" + "".join(f"{i},{x},x\n" for i, x in enumerate(gold)))
    f = tmp_path / "u.csv"
    f.write_text("item_id,label\n" + "".join(f"{i},{x}\n" for i, x in enumerate(answers["u"])))
    assert read_benchmark("t", g, {"u": f}).notes == tuple(n for n in b.notes if n.startswith("system 'u'"))


def test_no_answer_may_list_the_ways_systems_write_it(tmp_path):
    """Two systems write a missing answer differently ('none', 'N/A'): a
    list declares both, from memory, from files, by config and on the
    command line; a gold label that is one of them is refused."""
    from metaeval.data.leaderboard_spec import LeaderboardSpec

    gold, tasks = list("ABAB" * 5), ["x"] * 20
    answers = {"s": ["none"] * 3 + gold[3:], "u": ["N/A"] * 5 + gold[5:]}
    b = Benchmark.from_answers("t", gold=gold, tasks=tasks, answers=answers, no_answer=["none", "N/A"])
    assert b.unanswered.sum(axis=1).tolist() == [3, 5] and not any("read as no answer" in n for n in b.notes)
    g = tmp_path / "gold.csv"
    g.write_text("item_id,label,task\n" + "".join(f"{i},{x},x\n" for i, x in enumerate(gold)))
    files = {}
    for name, values in answers.items():
        files[name] = tmp_path / f"{name}.csv"
        files[name].write_text("item_id,label\n" + "".join(f"{i},{v}\n" for i, v in enumerate(values)))
    read = read_benchmark("t", g, files, no_answer=["none", "N/A"])
    assert np.array_equal(read.unanswered, b.unanswered)
    spec = LeaderboardSpec.from_config("t", {"gold": "g.csv", "predictions": ["*.csv"], "no_answer": ["none", "N/A"]})
    assert spec.no_answer == ("none", "N/A")
    assert LeaderboardSpec.from_config("t", {k: v for k, v in spec.plain().items() if k != "name"}) == spec
    with pytest.raises(DataError, match=r"gold label of item '1' is 'B', a value declared to mean no answer"):
        read_benchmark("t", g, files, no_answer=["none", "B"])
    from metaeval.cli import main
    import io
    from contextlib import redirect_stderr, redirect_stdout

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["leaderboard", str(g), *map(str, files.values()), "--no-answer", "none", "--no-answer", "N/A",
                     "--format", "json", "--no-design", "--replicates", "50", "--scheme", "items", "--set",
                     "leaderboard_verdict_replicates=20", "--set", "leaderboard_splits=10"])
    import json

    assert code == 0, err.getvalue()
    assert not any("read as no answer" in n for n in json.loads(out.getvalue())["notes"])
