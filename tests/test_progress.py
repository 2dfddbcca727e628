"""The progress hook (metaeval.engine.progress): the long passes report
after each chunk to a listener, when there is one, and their numbers do not
depend on it."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.api import dataset, settings
from metaeval.engine.progress import report, reporting

GOLD = list("aabbbccc") * 15
SYSTEMS = {"x": list("aabbcccc") * 15, "y": list("abbbbccc") * 15, "z": list("abcbbcca") * 15}


def _listen():
    seen: list[tuple[int, int, str]] = []
    return seen, lambda done, total, what: seen.append((done, total, what))


def _passes(seen) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for done, total, what in seen:
        out.setdefault(what, []).append((done, total))
    return out


def test_the_bootstrap_and_the_tukey_test_report_every_chunk_up_to_the_total():
    from metaeval.methods.bootstrap import run_bootstrap
    from metaeval.methods.significance import run_significance

    ds, spec = dataset(GOLD, SYSTEMS, metrics=["accuracy", "macro_f1"])
    st = settings(bootstrap_replicates=230, tukey_trials=130, chunk_size=50, interval_method="bca")
    quiet = run_bootstrap(ds, spec, st)["boot"], run_significance(ds, spec, st)["p"]
    seen, listener = _listen()
    with reporting(listener):
        loud = run_bootstrap(ds, spec, st)["boot"], run_significance(ds, spec, st)["p"]
    passes = _passes(seen)
    assert passes["bootstrap replicates"] == [(50, 230), (100, 230), (150, 230), (200, 230), (230, 230)]
    assert passes["Tukey trials"] == [(50, 130), (100, 130), (130, 130)]
    assert passes["jackknife (BCa)"][-1] == (ds.n_items, ds.n_items)
    for a, b in zip(quiet, loud):  # the numbers do not depend on the listener
        np.testing.assert_array_equal(a, b)
    report(1, 2, "after the block")  # no one listens any more
    assert seen[-1][2] != "after the block"


@pytest.mark.parametrize("call", ["recommend", "size_design"])
def test_the_recommendation_and_the_design_report_increasing_counts(call):
    import metaeval

    kw = dict(metrics=["accuracy", "macro_f1"], settings=metaeval.api.settings(
        bootstrap_replicates=60, criteria_replicates=40, n_splits=30, design_draws=12, chunk_size=16, noise_repeats=5,
        min_systems=2))
    if call == "recommend":
        kw["properties"] = False
    seen, listener = _listen()
    with reporting(listener):
        getattr(metaeval, call)(GOLD, SYSTEMS, **kw)
    passes = _passes(seen)
    want = {"recommend": {"criteria resamples", "half-splits", "gameability resamples"},
            "size_design": {"bootstrap replicates", "design subsets"}}[call]
    assert want <= set(passes)
    for what, steps in passes.items():
        for run in _runs(steps):  # a pass may run more than once (e.g. on half of the units)
            done = [d for d, _ in run]
            assert done == sorted(done) and done[0] > 0 and done[-1] == run[-1][1], (what, run)


def _runs(steps):
    """The reports of a pass split where it starts again."""
    runs, cur = [], []
    for d, t in steps:
        if cur and (d <= cur[-1][0] or t != cur[-1][1]):
            runs.append(cur)
            cur = []
        cur.append((d, t))
    return runs + [cur]
