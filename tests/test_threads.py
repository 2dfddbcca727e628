"""Threads never change a number (issue 50): every table of a dataset's
meta-evaluation is the same, byte for byte, whether the engine's compiled
passes run on 1, 2 or 3 threads.  Each draw is made from the seed and its
own index (counter-based), never from a stream shared across threads, so the
order in which threads run cannot reach a number.

Each thread count runs in a process of its own: numba sizes its pool when it
is imported (``NUMBA_NUM_THREADS``; Snakemake sets ``OMP_NUM_THREADS`` to a
job's ``threads``, which ``metaeval.engine.kernels`` reads)."""

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

assert kernels.nb.get_num_threads() == int(sys.argv[2]), kernels.nb.get_num_threads()
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
    before = kernels.nb.get_num_threads()
    base = metaeval.evaluate(data, bootstrap_replicates=300)
    for n in (1, 2, 3):
        pd.testing.assert_frame_equal(metaeval.evaluate(data, bootstrap_replicates=300, n_jobs=n), base)
        assert kernels.nb.get_num_threads() == before
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
