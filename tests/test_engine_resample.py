"""The resampling engine's draws and counts one by one: seeds and streams,
the sizes and strata of halves, subsamples and bootstrap replicates, the
placement of columns (``pos``), the permutations of the randomised test
against loops that apply them, and the subset confusion tensors against
counting by hand."""

from __future__ import annotations

import re

import numpy as np
import pytest

from metaeval.engine import resample as RS
from metaeval.engine.confusion import confusion_tensor


# ---------------------------------------------------------------- seeds and streams
@pytest.mark.parametrize("seed", [0, 1, RS.MAX_SEED])
def test_seeds_of_the_whole_range_are_accepted(seed):
    k = RS.random_keys(4, [0, 1], seed)
    assert k.shape == (2, 4) and k.dtype == np.uint64


@pytest.mark.parametrize("seed", [-1, RS.MAX_SEED + 1, 2**60])
def test_seeds_outside_the_range_are_refused(seed):
    with pytest.raises(ValueError, match=re.escape(f"seed must be an integer in [0, 2**56), got {seed}")):
        RS.random_keys(4, [0], seed)
    with pytest.raises(ValueError, match="seed must be an integer"):
        RS.split_masks(4, [0], seed)


def test_every_stream_draws_its_own_keys():
    keys = {s: RS.random_keys(50, [0, 1, 2], 3, s) for s in RS.STREAMS}
    assert len(set(RS.STREAMS.values())) == len(RS.STREAMS)
    for a in RS.STREAMS:
        for b in RS.STREAMS:
            if a < b:
                assert not (keys[a] == keys[b]).any(), (a, b)
    # a key depends on (stream, seed, index, item) only: any chunk of indices gets the same keys
    assert np.array_equal(RS.random_keys(50, [2], 3, "design"), keys["design"][2:])
    assert np.array_equal(RS.random_keys(50, np.array([1, 2]), 3), keys["split"][1:])
    assert RS.random_keys(50, [0], 3, "split")[0, 0] != RS.random_keys(50, [0], 4, "split")[0, 0]


# ---------------------------------------------------------------- halves, subsamples, replicates
def test_split_masks_sizes_strata_and_dtype():
    strata = np.repeat([0, 1, 2], [7, 4, 1])
    plain = RS.split_masks(12, range(20), 5)
    assert plain.dtype == bool and (plain.sum(1) == 6).all()
    strat = RS.split_masks(12, range(20), 5, strata)
    for c, n_c in zip(range(3), (7, 4, 1)):
        assert (strat[:, strata == c].sum(1) == n_c // 2).all()
    assert len({r.tobytes() for r in strat}) > 10  # the halves differ from split to split
    f = RS.split_masks(12, range(20), 5, strata, dtype=np.float32)
    assert f.dtype == np.float32 and np.array_equal(f.astype(bool), strat)
    assert np.array_equal(RS.split_mask(12, 3, 5, strata), strat[3])
    assert np.array_equal(RS.split_mask(12, 3, 5), plain[3])
    # another stream, other halves of the same size
    other = RS.split_masks(12, range(20), 5, stream="criteria_split")
    assert (other.sum(1) == 6).all() and not np.array_equal(other, plain)


def test_pos_places_each_item_in_its_column():
    rng = np.random.default_rng(0)
    perm = rng.permutation(10)
    gold = rng.integers(0, 3, 10)
    plain = RS.split_masks(10, range(6), 2, gold)
    placed = RS.split_masks(10, range(6), 2, gold, pos=perm)
    # item i's draw goes to column perm[i]
    assert np.array_equal(placed[:, perm], plain)
    boot = RS.bootstrap_weights(10, range(6), 2)
    assert np.array_equal(RS.bootstrap_weights(10, range(6), 2, pos=perm)[:, perm], boot)
    bal = RS.balanced_masks(gold, range(6), 2)
    assert np.array_equal(RS.balanced_masks(gold, range(6), 2, pos=perm)[:, perm], bal)


@pytest.mark.parametrize("seed", range(4))
def test_columns_walked_in_order_give_the_same_subsets(seed, monkeypatch):
    """Columns that keep each class's items in item order (the engine's:
    grouped by gold class; or classes interleaved) are walked in column
    order, without scattered writes: the same subsets as the item-order walk
    (a random column order, which keeps no order, takes the item-order walk)."""
    rng = np.random.default_rng(seed)
    n = 200
    gold = rng.integers(0, 3, n)
    plain = RS.split_masks(n, range(30), 4, gold)
    balanced = RS.balanced_masks(gold, range(30), 4)
    engine = np.empty(n, dtype=np.int64)
    engine[np.argsort(gold, kind="stable")] = np.arange(n)
    descending = np.empty(n, dtype=np.int64)
    descending[np.argsort(-gold, kind="stable")] = np.arange(n)
    walks = []
    select = RS._kernels().select
    monkeypatch.setattr(RS._kernels(), "select", lambda *a: (walks.append(np.array_equal(a[5], np.arange(n))),
                                                             select(*a)))
    for pos, in_order in ((engine, True), (descending, True), (rng.permutation(n), False)):
        walks.clear()
        assert np.array_equal(RS.split_masks(n, range(30), 4, gold, pos=pos)[:, pos], plain)
        assert np.array_equal(RS.balanced_masks(gold, range(30), 4, pos=pos)[:, pos], balanced)
        assert walks == [in_order, in_order]

def test_balanced_masks_keep_size_items_of_every_class():
    gold = np.repeat([0, 1, 2], [5, 3, 8])
    m = RS.balanced_masks(gold, range(15), 9)
    for c in range(3):
        assert (m[:, gold == c].sum(1) == 3).all()
    m2 = RS.balanced_masks(gold, range(15), 9, size=2, dtype=np.float32)
    assert m2.dtype == np.float32
    for c in range(3):
        assert (m2[:, gold == c].sum(1) == 2).all()
    # a size above a class's count keeps the whole class
    m5 = RS.balanced_masks(gold, range(3), 9, size=5)
    assert m5[:, gold == 1].all() and (m5[:, gold == 2].sum(1) == 5).all()


def test_bootstrap_weights_draw_n_items_or_g_groups():
    w = RS.bootstrap_weights(9, range(30), 4)
    assert w.dtype == np.int64 and (w.sum(1) == 9).all() and (w >= 0).all()
    groups = np.array([0, 0, 0, 1, 1, 2, 3, 3, 3])
    g = RS.bootstrap_weights(9, range(30), 4, groups)
    for code in range(4):  # every item of a group gets its group's count
        cols = g[:, groups == code]
        assert (cols == cols[:, :1]).all()
    counts = np.stack([g[:, np.flatnonzero(groups == code)[0]] for code in range(4)], 1)
    assert (counts.sum(1) == 4).all()
    assert RS.bootstrap_weights(9, range(3), 4, dtype=np.float32).dtype == np.float32
    assert np.array_equal(RS.unit_draws(9, range(30), 4), w)


def test_system_draws_are_sorted_multisets_of_the_systems_stream():
    d = RS.system_draws(5, range(40), 6)
    assert d.shape == (40, 5) and (np.diff(d, axis=1) >= 0).all()
    counts = RS.bootstrap_weights(5, range(40), 6, stream="systems")
    assert np.array_equal(RS.system_counts(d, 5), counts)
    assert not np.array_equal(counts, RS.bootstrap_weights(5, range(40), 6))


def test_system_counts_against_a_loop():
    rng = np.random.default_rng(1)
    d = rng.integers(0, 7, (12, 5))
    want = np.zeros((12, 9), dtype=np.int64)
    for b in range(12):
        for s in d[b]:
            want[b, s] += 1
    got = RS.system_counts(d, 9)
    assert got.dtype == np.int64 and np.array_equal(got, want)


@pytest.mark.parametrize("n,want", [(0, np.int16), (32767, np.int16), (32768, np.int32), (2**31 - 1, np.int32),
                                    (2**31, np.int64)])
def test_count_dtype_is_the_smallest_that_holds_n(n, want):
    assert RS.count_dtype(n) is want


def test_chunks_are_bounded_by_the_chunk_size_and_by_the_cells(monkeypatch):
    idx = np.arange(23)
    chunks = list(RS.chunk_indices(idx, 5, 10))
    assert [len(c) for c in chunks] == [5, 5, 5, 5, 3] and np.array_equal(np.concatenate(chunks), idx)
    monkeypatch.setattr(RS, "MAX_MASK_ELEMENTS", 40)  # at most 4 subsets of 10 items
    assert [len(c) for c in RS.chunk_indices(idx, 5, 10)] == [4] * 5 + [3]
    assert [len(c) for c in RS.chunk_indices(idx, 5, 100)] == [1] * 23  # never fewer than one
    assert list(RS.chunk_indices(np.arange(0), 5, 10)) == []
    assert [len(c) for c in RS.chunk_indices(idx, 50, 0)] == [23]


# ---------------------------------------------------------------- the randomised test's permutations
def test_permutations_are_permutations_drawn_per_trial_and_unit():
    p = RS.permutations(6, 4, [0, 1, 7], 3)
    assert p.shape == (3, 6, 4) and p.dtype == np.int64
    assert (np.sort(p, axis=2) == np.arange(4)).all()
    assert np.array_equal(RS.permutations(6, 4, [7], 3)[0], p[2])
    assert len({r.tobytes() for r in p.reshape(-1, 4)}) > 5


@pytest.mark.parametrize("units", [None, "groups"])
def test_permuted_confusion_applies_the_permutations(units):
    rng = np.random.default_rng(2)
    n, s, k = 30, 3, 3
    gold = rng.integers(0, k, n)
    pred = rng.integers(0, k, (s, n))
    pred[:, :4] = pred[0, :4]  # items on which every system agrees
    u = None if units is None else rng.integers(0, 7, n)
    trials = [0, 1, 2, 5]
    got = RS.permuted_confusion(gold, pred, k, trials, 11, units=u)
    unit = np.arange(n) if u is None else u
    perms = RS.permutations(int(unit.max()) + 1, s, trials, 11)
    for t in range(len(trials)):
        shuffled = np.empty_like(pred)
        for i in range(n):
            shuffled[:, i] = pred[perms[t, unit[i]], i]  # slot s takes system perm[t, u, s]
        assert np.array_equal(got[t], confusion_tensor(gold, shuffled, k)), t


def test_permuted_sums_apply_the_same_permutations():
    rng = np.random.default_rng(3)
    stats = rng.random((5, 3, 2))
    got = RS.permuted_sums(stats, [0, 4], 9)
    perms = RS.permutations(5, 3, [0, 4], 9)
    for t in range(2):
        want = sum(stats[u, perms[t, u]] for u in range(5))
        assert np.allclose(got[t], want)


# ---------------------------------------------------------------- subset confusion tensors
@pytest.mark.parametrize("max_bytes", [1, 512 * 2**20])
def test_subset_confusion_of_weighted_subsets_against_counting(max_bytes):
    rng = np.random.default_rng(4)
    n, s, k = 40, 5, 4
    gold = rng.integers(0, k, n)
    pred = rng.integers(0, k, (s, n))
    eng = RS.SubsetConfusion(gold, pred, k, max_bytes=max_bytes)
    assert (eng.block == 1) == (max_bytes == 1) and (eng._cache is None) == (max_bytes == 1)
    w = RS.bootstrap_weights(n, range(6), 1)
    got = eng.confusion(w)
    assert got.shape == (6, s, k, k) and got.dtype == np.int64
    for b in range(6):
        items = np.repeat(np.arange(n), w[b])
        assert np.array_equal(got[b], confusion_tensor(gold[items], pred[:, items], k))
    # the same weights in the engine's order; pos, its inverse, indexes arrays (integers)
    assert np.array_equal(eng.confusion(w[:, eng.order], ordered=True), got)
    assert eng.pos.dtype == np.int64 and np.array_equal(w[:, eng.order][:, eng.pos], w)
    assert np.array_equal(eng.total, confusion_tensor(gold, pred, k))
    assert np.array_equal(eng.confusion(w), got)  # a second call (cached one-hot blocks) gives the same
    chunks = list(eng.chunks(lambda idx: RS.bootstrap_weights(n, idx, 1), np.arange(6), 4))
    assert [c[0].tolist() for c in chunks] == [[0, 1, 2, 3], [4, 5]]
    assert np.array_equal(np.concatenate([c[1] for c in chunks]), got)


def test_subset_confusion_of_two_classes_and_one_system():
    gold, pred = [0, 1, 1, 0, 1], [1, 1, 0, 0, 1]
    eng = RS.SubsetConfusion(gold, pred, 2)
    m = np.array([[1, 1, 0, 0, 1], [0, 0, 1, 1, 0]])
    got = eng.confusion(m)
    assert got.shape == (2, 1, 2, 2)
    assert got[0, 0].tolist() == confusion_tensor([0, 1, 1], [1, 1, 1], 2).tolist()
    assert got[1, 0].tolist() == confusion_tensor([1, 0], [0, 0], 2).tolist()
    assert eng.dtype == np.float32


def test_subset_confusion_refuses_masks_of_another_length():
    eng = RS.SubsetConfusion([0, 1, 1], [[0, 1, 0]], 2)
    for bad in (np.ones((2, 4)), np.ones(3)):
        with pytest.raises(ValueError, match=re.escape(f"masks must have shape (B, 3), got {bad.shape}")):
            eng.confusion(bad)


# ---------------------------------------------------------------- the kernels' warm-up
KERNELS = ("select", "bootstrap", "bootstrap_within", "permutations", "permuted_confusion", "permuted_sums", "tau_rows", "ranked_weights",
           "ranked_rows", "permuted_ranked")


def _recording(monkeypatch):
    """Replace every compiled loop (``_name``, which the threads' function
    ``name`` calls per block of rows) by one that notes the numba types of
    its arguments, then runs it."""
    import numba

    from metaeval.engine import kernels as K

    seen: dict[str, set] = {}
    for name in KERNELS:
        real = getattr(K, "_" + name)

        def rec(*args, _real=real, _name=name):
            seen.setdefault(_name, set()).add(tuple(str(numba.typeof(a)) for a in args))
            return _real(*args)

        rec.signatures = real.signatures
        monkeypatch.setattr(K, "_" + name, rec)
    return seen


def test_compile_kernels_warms_every_type_the_engine_passes(monkeypatch):
    """The workflow compiles the kernels once, in their own job, for the
    argument types the experiments pass: a type missing there would be
    compiled again in every experiments job (about 12 s each)."""
    seen = _recording(monkeypatch)
    RS.compile_kernels()
    warmed = {k: set(v) for k, v in seen.items()}
    assert set(warmed) == set(KERNELS)
    seen.clear()
    # the engine's own calls, as its callers make them (experiments, significance, criteria, sensitivity,
    # gameability): draws into the engine's columns or in unit order, as float32 weights or int64 counts
    rng = np.random.default_rng(0)
    n, k = 30, 3
    gold = rng.integers(0, k, n)
    pred = rng.integers(0, k, (4, n))
    eng = RS.SubsetConfusion(gold, pred, k)
    idx = np.arange(3)
    for pos in (eng.pos, None):
        eng.confusion(RS.split_masks(n, idx, 1, gold, pos=pos, dtype=np.float32), ordered=pos is not None)
        RS.split_masks(n, idx, 1, None, pos=pos, dtype=np.float32)
        RS.bootstrap_weights(n, idx, 1, pos=pos, dtype=np.float32)
    RS.split_masks(n, idx.ravel(), 1, gold, dtype=np.float32, stream="criteria_split")
    RS.balanced_masks(gold, idx, 1, pos=eng.pos, dtype=np.float32)
    RS.bootstrap_weights(n, idx, 1, gold % 2, dtype=np.float32)
    RS.unit_draws(n, idx, 1)
    RS.system_draws(4, idx, 1)
    RS.permuted_confusion(gold, pred, k, idx, 1)
    RS.permuted_confusion(gold, pred, k, idx, 1, gold)
    RS.permuted_sums(rng.random((n, 4, 2)), idx, 1)
    RS.permutations(n, 4, idx, 1)
    from metaeval.engine import ranking
    monkeypatch.setattr(ranking, "SMALL_TAU", 0)
    ranking.kendall_tau(rng.random((3, 5)), rng.random(5))
    for name, types in seen.items():
        assert types <= warmed[name], (name, types - warmed[name])


def test_compile_kernels_returns_the_signatures_of_every_kernel():
    sigs = RS.compile_kernels()
    assert {s.split("(")[0] for s in sigs} == set(KERNELS)
    assert any(s.startswith("bootstrap(") and s.endswith("array(int64, 2d, C))") for s in sigs), sigs
    assert "tau_rows(array(float64, 2d, C), array(float64, 2d, C), bool, array(float64, 1d, C))" in sigs


# the types compile_kernels warms (numba.typeof of each argument): those the engine's callers pass
_A = "array({}, {}d, C)"
WARMED = {
    "select": {(_A.format("uint64", 1),) + (_A.format("int64", 1),) * 5 + (_A.format("float32", 2),)},
    "bootstrap": {(_A.format("uint64", 1), _A.format("int64", 1), "int64", _A.format("int64", 1), _A.format(t, 2))
                  for t in ("float32", "int64")},
    "bootstrap_within": {(_A.format("uint64", 1), "bool") + (_A.format("int64", 1),) * 3 + (_A.format(t, 2),)
                         for t in ("float64", "int64")},
    "permutations": {(_A.format("uint64", 1), "int64", "int64", _A.format("int64", 3))},
    "permuted_confusion": {(_A.format("uint64", 1),) + (_A.format("int64", 1),) * 3
                           + (_A.format("int8", 2), _A.format("int64", 1), "int64", _A.format("int64", 4))},
    "permuted_sums": {(_A.format("uint64", 1), _A.format("float64", 3), _A.format("float64", 3))},
    "tau_rows": {(_A.format("float64", 2), _A.format("float64", 2), "bool", _A.format("float64", 1))},
    "ranked_weights": {(_A.format("float64", 2), _A.format("int64", 1), _A.format("bool", 2), _A.format("int64", 1),
                        "int64", "int64", _A.format("float64", 2))},
    "ranked_rows": {(_A.format("float64", 2), _A.format("bool", 2), _A.format("float64", 2), _A.format("float64", 2))},
    "permuted_ranked": {(_A.format("uint64", 1), "int64", "int64", _A.format("int64", 1), _A.format("float64", 1),
                         _A.format("bool", 1), _A.format("float64", 3))},
}


def test_compile_kernels_warms_exactly_these_types(monkeypatch):
    seen = _recording(monkeypatch)
    RS.compile_kernels()
    assert seen == WARMED


def test_draws_are_the_published_ones():
    """A seed gives the same subsets in every version: results computed
    before stay reproducible (the generator's constants and stream words)."""
    assert RS.split_masks(6, [0, 1], seed=1).astype(int).tolist() == [[1, 1, 0, 0, 1, 0], [1, 0, 1, 0, 1, 0]]
    assert RS.bootstrap_weights(5, [0, 1], seed=1).tolist() == [[0, 1, 1, 3, 0], [0, 2, 1, 1, 1]]
    assert RS.balanced_masks([0, 0, 0, 1, 1, 2, 2, 2], [0], seed=1).astype(int).tolist() == [[1, 1, 0, 1, 1, 0, 1, 1]]
    assert RS.permutations(2, 3, [0], seed=1).tolist() == [[[1, 0, 2], [2, 1, 0]]]
    assert [hex(int(x)) for x in RS.random_keys(2, [3], 5, "bootstrap")[0]] == ["0x923c01d752658857",
                                                                              "0x6f47f37f79767164"]


def test_indices_may_be_any_iterable():
    gen = RS.split_masks(10, (i for i in range(4)), 2)
    assert np.array_equal(gen, RS.split_masks(10, range(4), 2))
    assert np.array_equal(RS.split_masks(10, np.arange(4), 2), gen)
    gold = [0, 1] * 5
    assert np.array_equal(RS.balanced_masks(gold, (i for i in range(3)), 2), RS.balanced_masks(gold, [0, 1, 2], 2))
    assert np.array_equal(RS.bootstrap_weights(7, (i for i in range(3)), 2), RS.bootstrap_weights(7, [0, 1, 2], 2))


def test_draws_and_permutations_of_no_items():
    assert RS.bootstrap_weights(0, [0, 1], 3).shape == (2, 0)
    assert RS.bootstrap_weights(0, [0, 1], 3, np.zeros(0, dtype=np.int64)).shape == (2, 0)
    assert RS.split_masks(0, [0], 3).shape == (1, 0)
    out = RS.permuted_confusion(np.zeros(0, dtype=np.int64), np.zeros((2, 0), dtype=np.int64), 3, [0, 1], 4)
    assert out.shape == (2, 2, 3, 3) and not out.any()


def test_unit_draws_are_integer_counts():
    d = RS.unit_draws(6, range(5), 2)
    assert d.dtype == np.int64 and (d.sum(1) == 6).all()
    assert RS.system_draws(6, range(5), 2).dtype == np.int64


def test_permuted_confusion_of_more_classes_than_a_byte_holds():
    rng = np.random.default_rng(5)
    k, n = 130, 400
    gold = rng.integers(0, k, n)
    pred = rng.integers(100, k, (2, n))  # classes above 127 predicted
    got = RS.permuted_confusion(gold, pred, k, [0, 3], 8)
    perms = RS.permutations(n, 2, [0, 3], 8)
    for t in range(2):
        shuffled = np.stack([pred[perms[t, i], i] for i in range(n)], axis=1)
        assert np.array_equal(got[t], confusion_tensor(gold, shuffled, k))


@pytest.mark.parametrize("n,dtype", [(2**24 - 1, np.float32), (2**24, np.float64)])
def test_subset_weights_are_float32_only_while_it_counts_exactly(n, dtype):
    """float32 holds every integer up to 2**24: the engine's weights are
    float32 below that many items, float64 from there."""
    gold = np.broadcast_to(np.int64(0), (n,))
    eng = RS.SubsetConfusion(gold, gold[None, :], 2)
    assert eng.dtype == dtype


def test_chunks_of_weights_in_the_engine_s_order():
    rng = np.random.default_rng(6)
    gold, pred = rng.integers(0, 3, 25), rng.integers(0, 3, (2, 25))
    eng = RS.SubsetConfusion(gold, pred, 3)
    want = eng.confusion(RS.split_masks(25, range(5), 3, gold))
    got = list(eng.chunks(lambda idx: RS.split_masks(25, idx, 3, gold, pos=eng.pos, dtype=np.float32), range(5), 2,
                          ordered=True))
    assert np.array_equal(np.concatenate([c for _, c in got]), want)


# ---------------------------------------------------------------- draws within strata (the leaderboards' schemes)
def _within_loop(strata, replicates, seed, two_stage):
    """``bootstrap_within`` as a plain loop of the documented draw, with
    the generator's Python hash (``resample._splitmix64``)."""
    strata = np.asarray(strata)
    g = strata.max() + 1
    members = [np.flatnonzero(strata == t) for t in range(g)]
    stream = "two_stage" if two_stage else "strata"
    out = np.zeros((len(replicates), strata.size), dtype=np.int64)
    to_unit = 2.0 ** -53
    with np.errstate(over="ignore"):
        for r, b in enumerate(replicates):
            w = RS._index_words([b], seed, stream)[0]
            copies = [1] * g
            if two_stage:
                copies = [0] * g
                w2 = RS._splitmix64(w ^ np.uint64(0x2545F4914F6CDD1D))
                for j in range(g):
                    u = int(RS._splitmix64(w2 ^ (np.uint64(j) * RS._ITEM)) >> np.uint64(11)) * to_unit
                    copies[min(int(u * g), g - 1)] += 1
            j = 0
            for t in range(g):
                for _ in range(copies[t] * members[t].size):
                    u = int(RS._splitmix64(w ^ (np.uint64(j) * RS._ITEM)) >> np.uint64(11)) * to_unit
                    out[r, members[t][min(int(u * members[t].size), members[t].size - 1)]] += 1
                    j += 1
    return out


@pytest.mark.parametrize("two_stage", [False, True])
def test_bootstrap_within_is_the_documented_draw(two_stage):
    rng = np.random.default_rng(3)
    strata = rng.permutation(np.repeat(np.arange(4), [5, 1, 7, 3]))
    reps = [0, 1, 7, 40]
    expected = _within_loop(strata, reps, 9, two_stage)
    got = RS.bootstrap_within(strata, reps, 9, two_stage=two_stage)
    assert np.array_equal(got, expected)
    perm = rng.permutation(strata.size)  # written into the columns pos gives
    assert np.array_equal(RS.bootstrap_within(strata, reps, 9, two_stage=two_stage, pos=perm,
                                              dtype=np.float64)[:, perm], expected)
    assert np.array_equal(RS.bootstrap_within(strata, [7], 9, two_stage=two_stage), expected[2:3])  # any chunk


def test_bootstrap_within_keeps_each_stratum_and_draws_uniformly():
    strata = np.repeat(np.arange(3), [4, 10, 2])
    w = RS.bootstrap_within(strata, range(4000), 2)
    for t, n_t in enumerate([4, 10, 2]):
        assert (w[:, strata == t].sum(axis=1) == n_t).all()  # every task keeps its size
    # each item's count is Binomial(n_t, 1/n_t): mean 1, variance 1 - 1/n_t
    assert np.allclose(w.mean(axis=0), 1, atol=4 * np.sqrt(1 / 4000))
    assert np.allclose(w.var(axis=0), 1 - 1 / np.repeat([4, 10, 2], [4, 10, 2]), atol=0.08)


def test_bootstrap_within_two_stage_draws_strata_then_items():
    strata = np.repeat(np.arange(3), [4, 10, 2])
    w = RS.bootstrap_within(strata, range(4000), 2, two_stage=True)
    copies = np.stack([w[:, strata == t].sum(axis=1) / n for t, n in enumerate([4, 10, 2])], axis=1)
    assert np.allclose(copies, np.round(copies)) and (copies.sum(axis=1) == 3).all()  # 3 strata drawn per row
    assert np.allclose(copies.mean(axis=0), 1, atol=0.05)  # each stratum drawn once on average
    assert np.allclose(copies.var(axis=0), 2 / 3, atol=0.06)  # Binomial(3, 1/3)
    # within a stratum drawn m times, an item's count has mean m (m n_t draws among n_t items)
    one = copies[:, 1] == 1
    assert abs(w[one][:, strata == 1].mean() - 1) < 0.03
    assert not np.array_equal(w, RS.bootstrap_within(strata, range(4000), 2))  # its own stream


def test_bootstrap_within_refuses_bad_strata():
    with pytest.raises(ValueError, match="at least one item"):
        RS.bootstrap_within([0, 2, 2], [0], 1)
    with pytest.raises(ValueError, match="non-negative"):
        RS.bootstrap_within([0, -1], [0], 1)
