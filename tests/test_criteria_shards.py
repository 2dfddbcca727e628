"""The criteria's resamples in shards (issue 50): drawn apart, in other calls
or processes, and gathered, they give the recommendation of one job drawing
them all, bit for bit (``verdict.criteria.compute.replicate_rows``,
``verdict.recommendation.criteria_shard``)."""

from __future__ import annotations

import numpy as np
import pytest

import metaeval
from metaeval.verdict.criteria import CriteriaSpec
from metaeval.verdict.criteria.compute import replicate_shards
from metaeval.verdict.page import recommendation_long
from metaeval.verdict.recommendation import criteria_shard, recommend_dataset


def _data(scores: bool, tmp_path=None):
    rng = np.random.default_rng(4)
    n = 180
    gold = rng.choice(["neg", "neu", "pos"], n, p=[0.5, 0.3, 0.2])
    systems = {f"s{i}": np.where(rng.random(n) < 0.4 + 0.07 * i, gold, rng.choice(["neg", "neu", "pos"], n))
               for i in range(6)}
    kw = dict(labels=["neg", "neu", "pos"], ordinal=True, groups=[f"g{i % 30}" for i in range(n)])
    if scores:  # real-valued scores of one class, ranked within groups: the rank metrics' own arithmetic
        gold = np.where(gold == "pos", "pos", "neg")
        (tmp_path / "gold.csv").write_text("item_id,label,group\n" + "".join(
            f"{i},{g},q{i % 30}\n" for i, g in enumerate(gold)))
        files = []
        for k in systems:
            sc = np.round(np.where(gold == "pos", 0.6, 0.4) + rng.normal(0, 0.3, n), 2)
            files.append(tmp_path / f"{k}.csv")
            files[-1].write_text("item_id,score\n" + "".join(f"{i},{x}\n" for i, x in enumerate(sc)))
        return metaeval.read_files(tmp_path / "gold.csv", scores=files, group_column="group", positive_class="pos",
                                   score_threshold=0.5,
                                   metrics=["accuracy", "macro_f1", "roc_auc", "average_precision", "map"])
    return metaeval.dataset(list(gold), {k: list(v) for k, v in systems.items()}, **kw)


@pytest.mark.parametrize("scores", [False, True])
@pytest.mark.parametrize("n_shards", [2, 3, 7])
def test_shards_gather_into_the_bits_of_one_job(scores, n_shards, tmp_path):
    ds, spec = _data(scores, tmp_path)
    settings = metaeval.api.settings(criteria_replicates=40, chunk_size=24, n_splits=50, noise_repeats=3,
                                     resample_unit="group" if scores else "item")
    whole = recommendation_long(recommend_dataset(ds, spec, settings))
    parts = [criteria_shard(ds, spec, settings, i, n_shards) for i in range(n_shards)]
    rows = np.concatenate([p["rows"] for p in parts])
    assert np.array_equal(np.sort(rows), np.arange(40)) and sum(p["rows"].size > 0 for p in parts) > 1
    gathered = recommendation_long(recommend_dataset(ds, spec, settings, criteria_parts=parts[::-1]))
    assert gathered.to_csv() == whole.to_csv()


def test_shards_start_at_the_engine_s_calls():
    """A shard starts where one of the whole run's engine calls starts, so
    each of its calls is that call (the same matrix products)."""
    spec = CriteriaSpec(replicates=500, chunk_size=250 // 4)
    parts = replicate_shards(spec, 70, 3)
    assert [p[0] for p in parts] == [0, 186, 372] and parts[-1][-1] == 499
    assert sum(p.size for p in parts) == 500
    assert len(replicate_shards(CriteriaSpec(replicates=5, chunk_size=10), 70, 4)) == 1  # one call: one shard


def test_parts_that_miss_a_replicate_are_refused():
    ds, spec = _data(False)
    settings = metaeval.api.settings(criteria_replicates=20, n_splits=20, noise_repeats=2, chunk_size=20)
    parts = [criteria_shard(ds, spec, settings, i, 2) for i in range(2)]
    with pytest.raises(ValueError, match=r"the parts' replicates must be 0 \.\. 19, each once; got 10 rows"):
        recommend_dataset(ds, spec, settings, criteria_parts=parts[:1])
