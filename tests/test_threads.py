"""Threads never change a number (issue 50): every table of a dataset's
meta-evaluation is the same, byte for byte, whether the engine's compiled
passes run on 1, 2 or 3 threads.  Each draw is made from the seed and its
own index (counter-based), never from a stream shared across threads, so the
order in which threads run cannot reach a number.

Each thread count runs in a process of its own, given by the variable a job
gets (``NUMBA_NUM_THREADS``; Snakemake sets ``OMP_NUM_THREADS`` to a job's
``threads``; ``metaeval.engine.kernels.default_threads`` reads both)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# a small dataset with groups, three classes in order and a weight set: every experiment and the verdict run
SCRIPT = r"""
import sys, warnings
import numpy as np
import metaeval
from metaeval.engine import kernels

assert kernels.n_threads() == int(sys.argv[2]), kernels.n_threads()
warnings.simplefilter("ignore")
rng = np.random.default_rng(5)
labels = ["neg", "neu", "pos"]
gold = rng.choice(labels, 240, p=[0.5, 0.3, 0.2])
systems = {f"s{i}": np.where(rng.random(240) < 0.35 + 0.08 * i, gold, rng.choice(labels, 240)) for i in range(7)}
data = metaeval.dataset(list(gold), {k: list(v) for k, v in systems.items()}, labels=labels, ordinal=True,
                        groups=[f"g{i % 24}" for i in range(240)], weights={"w": {"neg": 0.2, "neu": 0.3, "pos": 0.5}})
res = metaeval.meta_evaluate(data, properties=False, n_splits=200, tukey_trials=300, bootstrap_replicates=200,
                             criteria_replicates=60, settings=metaeval.api.settings(noise_repeats=4, chunk_size=37))
res.write(sys.argv[1], figures=False)
"""


@pytest.mark.slow
def test_every_table_is_the_same_on_1_2_and_3_threads(tmp_path):
    out = {}
    for n in (1, 2, 3):
        env = {**os.environ, "NUMBA_NUM_THREADS": str(n)}
        env.pop("OMP_NUM_THREADS", None)
        folder = tmp_path / f"threads{n}"
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), str(n)], env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        out[n] = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
                  if p.is_file()}
    tables = [f for f in out[1] if f.endswith(".csv")]
    assert len(tables) >= 15 and "stability.csv" in tables and "recommendation.csv" in tables
    for n in (2, 3):
        assert out[n].keys() == out[1].keys()
        differ = [f for f in out[1] if out[n][f] != out[1][f]]
        assert not differ, f"{n} threads: {differ}"


def test_n_jobs_and_jobs_change_no_number():
    """The library's ``n_jobs`` and the command line's ``--jobs`` set the
    engine's threads for the call alone (restored after it), and every
    number is the one of the default threads."""

    import pandas as pd

    import metaeval
    from metaeval.engine import kernels

    from .test_api_results import GOLD, SYSTEMS

    data = metaeval.dataset(GOLD, SYSTEMS, metrics=["accuracy", "macro_f1", "kappa"])
    before = kernels.n_threads()
    base = metaeval.evaluate(data, bootstrap_replicates=300)
    for n in (1, 2, 3):
        pd.testing.assert_frame_equal(metaeval.evaluate(data, bootstrap_replicates=300, n_jobs=n), base)
        assert kernels.n_threads() == before
    c1, c2 = (metaeval.compare(data, tukey_trials=400, n_jobs=n) for n in (1, 2))
    pd.testing.assert_frame_equal(c1.pairs, c2.pairs)
    with pytest.raises(ValueError, match="n_jobs: 1 or more threads, got 0"):
        metaeval.evaluate(data, n_jobs=0)


def test_the_command_line_s_jobs_change_no_number(tmp_path):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from metaeval.cli import main

    from .test_api_results import GOLD, SYSTEMS

    (tmp_path / "gold.csv").write_text("item_id,label\n" + "".join(f"{i},{g}\n" for i, g in enumerate(GOLD)))
    files = []
    for s, labels in SYSTEMS.items():
        files.append(tmp_path / f"{s}.csv")
        files[-1].write_text("item_id,label\n" + "".join(f"{i},{x}\n" for i, x in enumerate(labels)))
    outs = []
    for extra in ([], ["--jobs", "1"], ["--jobs", "2"]):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["score", str(tmp_path / "gold.csv"), *map(str, files), "--replicates", "300",
                         "--format", "csv", *extra])
        assert code == 0, err.getvalue()
        outs.append(out.getvalue())
    assert outs[0] == outs[1] == outs[2] and "accuracy_low" in outs[0]
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit):
        main(["score", str(tmp_path / "gold.csv"), *map(str, files), "--jobs", "none"])
    assert "argument --jobs: a whole number of threads, 1 or more, got 'none'" in err.getvalue()


def test_every_pass_gives_the_same_rows_on_any_number_of_threads():
    """Each compiled pass on 1 to 5 threads (more threads than some calls
    have rows), in this process: the same array, bit for bit, and the
    calling thread's setting restored."""
    import numpy as np

    from metaeval.engine import kernels as k
    from metaeval.engine import resample as R

    rng = np.random.default_rng(3)
    n, s, u = 60, 5, 12
    gold = rng.integers(0, 3, n)
    pred = rng.integers(0, 3, (s, n))
    unit = np.sort(rng.integers(0, u, n))
    scores = np.round(rng.random((s, n)), 1)  # ties
    positive = gold == 1
    order = np.argsort(-scores[0], kind="stable")
    sv = scores[0][order]
    starts = np.r_[np.flatnonzero(np.r_[True, sv[1:] != sv[:-1]]), n].astype(np.int64)
    w = rng.integers(0, 3, (7, n)).astype(float)
    noisy = rng.random(w.shape) < 0.4  # a gold per weight row (label noise)
    stats = rng.random((u, s, 2))
    entries = np.argsort(-scores, axis=None, kind="stable")
    sys_of, item_of = np.divmod(entries, n)
    calls = {
        "splits": lambda: R.split_masks(n, range(9), 4, gold),
        "bootstrap": lambda: R.bootstrap_weights(n, range(9), 4, unit),
        "permutations": lambda: R.permutations(u, s, range(9), 4),
        "permuted_confusion": lambda: R.permuted_confusion(gold, pred, 3, range(9), 4, units=unit),
        "permuted_sums": lambda: R.permuted_sums(stats, range(9), 4),
        "tau_rows": lambda: _out(lambda o: k.tau_rows(scores.copy(), scores[::-1].copy(), True, o), (s,)),
        "ranked_weights": lambda: _out(lambda o: k.ranked_weights(w.T.copy(), order, positive[:, None].copy(), starts,
                                                                o), (7, 2)),
        "ranked_weights_own_gold": lambda: _out(lambda o: k.ranked_weights(
            w.T.copy(), order, noisy.T.copy(), starts, o), (7, 2)),
        "ranked_rows": lambda: _out(lambda o: k.ranked_rows(scores.copy(), np.stack([positive] * s), np.ones((s, n)),
                                                            o), (s, 2)),
        "permuted_ranked": lambda: _out(lambda o: k.permuted_ranked(
            R._index_words(np.arange(9), 4, "permutation"), u, s, unit[item_of] * s + sys_of,
            scores.ravel()[entries], positive[item_of], o), (9, s, 2)),
        "pairwise_auc": lambda: _out(lambda o: k.pairwise_auc(w, order, gold[order], starts, 1, 3, o), (7, 3)),
    }
    before = k.n_threads()
    with k.threads(1):
        want = {name: f() for name, f in calls.items()}
    for t in (2, 3, 5):
        with k.threads(t):
            assert k.n_threads() == t
            for name, f in calls.items():
                np.testing.assert_array_equal(f(), want[name], err_msg=f"{name} on {t} threads")
    assert k.n_threads() == before


def _out(run, shape):
    import numpy as np

    o = np.full(shape, -1.0)
    run(o)
    return o


def test_the_default_threads_read_the_job_s_variables(monkeypatch):
    from metaeval.engine.kernels import default_threads

    monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("NUMBA_NUM_THREADS", "2")
    assert default_threads() == 2
    monkeypatch.setenv("NUMBA_NUM_THREADS", "0")
    monkeypatch.setenv("OMP_NUM_THREADS", "x")
    assert default_threads() >= 1


def test_each_of_a_user_s_threads_keeps_its_own_thread_count():
    """``threads(n)`` holds for the calling thread (a context variable, as
    numba's count was per thread): another thread's call keeps its own."""
    import threading

    from metaeval.engine import kernels as k

    seen, inside, release = {}, threading.Event(), threading.Event()

    def other():
        with k.threads(3):
            inside.set()
            release.wait(10)
            seen["other"] = k.n_threads()

    t = threading.Thread(target=other)
    t.start()
    inside.wait(10)
    with k.threads(1):
        seen["main"] = k.n_threads()
        release.set()
        t.join(10)
    assert seen == {"main": 1, "other": 3}


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_map_blocks_runs_every_item_once_in_order_each_on_one_thread(n):
    """Whole steps side by side: every item once (as many items as threads,
    fewer, more), the results in the items' order, the passes of each step
    on one thread, a step's error raised to the caller; then the rows of
    stability_splits over many chunks are those of one thread."""
    import threading

    import numpy as np

    from metaeval.engine import kernels as k

    seen, lock = [], threading.Lock()

    def step(i):
        with lock:
            seen.append(i)
        return i * i, k.n_threads()

    with k.threads(n):
        for items in ([], [4], list(range(n)), list(range(3 * n + 2))):
            seen.clear()
            out = list(k.map_blocks(step, items))
            assert sorted(seen) == items and [r for r, _ in out] == [i * i for i in items]
            # side by side each on one thread; a lone step (or one thread) runs in the caller with its threads
            assert all(t == (1 if len(items) >= 2 else n) for _, t in out)

        def bad(i):
            if i == 3:
                raise ValueError("step 3")
            return i

        with pytest.raises(ValueError, match="step 3"):
            list(k.map_blocks(bad, range(8)))

    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_stability import synthetic

    from metaeval.methods import experiments as E

    spec, ds = synthetic(600, 6, 3)
    settings = E.Settings(include_baselines=(), chunk_size=7)  # 9 chunks
    with k.threads(1):
        want = E.stability_splits(ds, spec, settings, range(60))
    with k.threads(n):
        got = E.stability_splits(ds, spec, settings, range(60))
    for key in ("tau", "tier_tau"):
        np.testing.assert_array_equal(got[key], want[key])
