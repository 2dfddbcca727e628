"""The compiled passes of the resampling engine (numba), in one module so
that only the jobs that resample pay for importing numba: ``resample`` and
``ranking`` import it on first use.

Each kernel runs one subset (split, replicate, trial, row) per thread and
loops over items in compiled code.  numba's OpenMP threads spin while they
wait between kernels and take the cores from OpenBLAS's threads in the
matrix products that follow (seen here: 2x to 10x slower products); its own
work queue does not spin, so it is the default (an explicit
NUMBA_THREADING_LAYER wins).

The kernels use as many threads as the process was given: numba's
NUMBA_NUM_THREADS when set, else OMP_NUM_THREADS (which Snakemake sets to a
job's ``threads``, as it sets OpenBLAS's), else every core.  A job never
runs more threads than it asked for, so jobs that share a machine do not
fight over its cores.
"""

from __future__ import annotations

import contextlib
import os

import sys  # noqa: E402

os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")
_omp = os.environ.get("OMP_NUM_THREADS", "")
_job_threads = int(_omp) if "NUMBA_NUM_THREADS" not in os.environ and _omp.isdigit() and int(_omp) >= 1 else None
# Before numba's import, the job's threads size numba's pool (one thread in
# a one-thread job, no idle workers).  After it, the variable must not change: numba rereads it
# at every compilation and fails once its threads run ("Cannot set
# NUMBA_NUM_THREADS ..."); set_num_threads below limits the pool instead.
if _job_threads and "numba" not in sys.modules:
    os.environ["NUMBA_NUM_THREADS"] = str(min(_job_threads, os.cpu_count() or 1))

import numba as nb  # noqa: E402
import numpy as np  # noqa: E402

if _job_threads:
    nb.set_num_threads(min(_job_threads, nb.config.NUMBA_NUM_THREADS))

_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@contextlib.contextmanager
def threads(n: int | None):
    """The compiled passes on ``n`` threads inside the block (None: as the
    process was given; at most numba's pool, ``NUMBA_NUM_THREADS``).  Never a
    number changes: every draw is made from the seed and its own index, and
    each thread writes its own rows (``tests/test_threads.py``).

    >>> with threads(1):
    ...     nb.get_num_threads()
    1
    """
    if n is None:
        yield
        return
    if int(n) < 1:
        raise ValueError(f"n_jobs: 1 or more threads, got {n}")
    before = nb.get_num_threads()
    nb.set_num_threads(min(int(n), nb.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        nb.set_num_threads(before)


@nb.njit(inline="always")
def sm64(x):
    """``_splitmix64`` on one uint64, compiled (the same bits)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@nb.njit(parallel=True, cache=True)
def select(words, strata, take, left_at, pos, out):  # pragma: no cover - compiled
    """Selection sampling per row: ``take[c]`` of the items of every stratum
    c, each subset of that size equally likely.  Item i, with ``left_at[i]``
    items of its stratum not yet passed (itself included), is taken when
    u_i * left < need, u_i the top 32 bits of its key as a fraction (the
    probability need / left, to within 2**-32).  Item i goes to column
    ``pos[i]`` of ``out`` (1 taken, 0 not).  The products u_i * left do not
    depend on earlier choices: they are made first, so that the pass that
    carries ``need`` from item to item is short."""
    n = strata.size
    one = take.size == 1
    for b in nb.prange(words.size):
        w = words[b]
        v = np.empty(n, np.uint64)
        for i in range(n):
            v[i] = (sm64(w ^ (np.uint64(i) * np.uint64(0xD1B54A32D192ED03))) >> np.uint64(32)) * np.uint64(left_at[i])
        row = out[b]
        if one:
            need = np.uint64(take[0]) << np.uint64(32)
            for i in range(n):
                t = v[i] < need
                row[pos[i]] = t
                need -= np.uint64(t) << np.uint64(32)
        else:
            need_c = take.astype(np.uint64) << np.uint64(32)
            for i in range(n):
                c = strata[i]
                t = v[i] < need_c[c]
                row[pos[i]] = t
                need_c[c] -= np.uint64(t) << np.uint64(32)


@nb.njit(parallel=True, cache=True)
def bootstrap(words, units, n_units, pos, out):  # pragma: no cover - compiled
    """Bootstrap counts per row: ``n_units`` draws with replacement among
    the units (draw j picks unit floor(u_j * n_units)); item i gets the count
    of its unit ``units[i]`` in column ``pos[i]``."""
    for b in nb.prange(words.size):
        counts = np.zeros(n_units, np.int64)
        w = words[b]
        for j in range(n_units):
            u = (sm64(w ^ (np.uint64(j) * np.uint64(0xD1B54A32D192ED03))) >> np.uint64(11)) * _TO_UNIT
            counts[min(int(u * n_units), n_units - 1)] += 1
        for i in range(units.size):
            out[b, pos[i]] = counts[units[i]]


@nb.njit(inline="always")
def shuffle(state, values):  # pragma: no cover - compiled
    """Fisher-Yates shuffle of ``values`` in place, its random numbers the
    splitmix64 sequence from ``state`` (bounded by Lemire's multiply-shift on
    the top 32 bits); returns the next state."""
    for j in range(values.size - 1, 0, -1):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        r = int(((sm64(state) >> np.uint64(32)) * np.uint64(j + 1)) >> np.uint64(32))
        values[j], values[r] = values[r], values[j]
    return state


@nb.njit(parallel=True, cache=True)
def permutations(words, n_units, n_systems, out):  # pragma: no cover - compiled
    """out[t, u] = the permutation of the systems for unit u in trial t."""
    for t in nb.prange(words.size):
        for u in range(n_units):
            perm = np.arange(n_systems)
            shuffle(sm64(words[t] ^ (np.uint64(u) * np.uint64(0xD1B54A32D192ED03))), perm)
            out[t, u] = perm


@nb.njit(parallel=True, cache=True)
def permuted_confusion(words, unit_start, unit_items, todo, pred_t, gold, k, out):  # pragma: no cover - compiled
    """Confusion tensors (T, S, K, K) of the permuted systems, added to
    ``out``: in trial t, slot s takes, on every item of unit u, the
    prediction of system perm[t, u][s] (``_permutations``; the units' items
    are ``unit_items[unit_start[u]:unit_start[u + 1]]``; ``pred_t``: (N, S)),
    for the units ``todo`` (the others' counts are the same in every trial:
    the caller puts them in ``out``).  A one-item unit shuffles its
    predictions themselves, which the same swaps turn into exactly
    pred[perm[s]]."""
    n_sys = pred_t.shape[1]
    for t in nb.prange(words.size):
        perm = np.empty(n_sys, np.int64)
        vals = np.empty(n_sys, pred_t.dtype)
        acc = np.zeros((n_sys, k, k), np.int64)
        for j in range(todo.size):
            u = todo[j]
            lo, hi = unit_start[u], unit_start[u + 1]
            if hi == lo:  # a unit without items (a subset of the units: metaeval.methods.sensitivity)
                continue
            state = sm64(words[t] ^ (np.uint64(u) * np.uint64(0xD1B54A32D192ED03)))
            if hi - lo == 1:
                i = unit_items[lo]
                vals[:] = pred_t[i]
                shuffle(state, vals)
                g = gold[i]
                for s in range(n_sys):
                    acc[s, vals[s], g] += 1
            else:
                for s in range(n_sys):
                    perm[s] = s
                shuffle(state, perm)
                for j in range(lo, hi):
                    i = unit_items[j]
                    g = gold[i]
                    for s in range(n_sys):
                        acc[s, pred_t[i, perm[s]], g] += 1
        out[t] += acc


@nb.njit(parallel=True, cache=True)
def permuted_sums(words, stats, out):  # pragma: no cover - compiled
    """Summed per-unit statistics (T, S, F) of the permuted systems: slot s
    takes unit u's statistics of system perm[t, u][s] (``stats``: (U, S, F))."""
    n_units, n_sys, f = stats.shape
    for t in nb.prange(words.size):
        perm = np.empty(n_sys, np.int64)
        for u in range(n_units):
            for s in range(n_sys):
                perm[s] = s
            shuffle(sm64(words[t] ^ (np.uint64(u) * np.uint64(0xD1B54A32D192ED03))), perm)
            for s in range(n_sys):
                for x in range(f):
                    out[t, s, x] += stats[u, perm[s], x]


@nb.njit(parallel=True, cache=True)
def tau_rows(x, y, variant_b, out):  # pragma: no cover - compiled
    """Kendall's tau of every row pair (x[r], y[r]) over all S(S-1)/2 system
    pairs, one row per thread: n_c - n_d from the signs of the pairwise
    differences, divided as ``kendall_tau`` says."""
    rows, s = x.shape
    for r in nb.prange(rows):
        num = 0
        nx = 0
        ny = 0
        for i in range(s):
            xi, yi = x[r, i], y[r, i]
            for j in range(i + 1, s):
                dx = (xi > x[r, j]) - (xi < x[r, j])
                dy = (yi > y[r, j]) - (yi < y[r, j])
                num += dx * dy
                nx += dx != 0
                ny += dy != 0
        den = np.sqrt(float(nx) * float(ny)) if variant_b else s * (s - 1) / 2.0
        out[r] = num / den if den > 0 else np.nan


@nb.njit(inline="always")
def _tie_group(pg, ng, tp, fp, auc, ap):  # pragma: no cover - compiled
    """The running sums after a group of tied scores (positive weight pg,
    negative ng), walked from the top: a negative counts the positives above
    it and half of those tied with it (AUC); AP adds the group's precision
    for its positive weight."""
    auc += ng * (tp + 0.5 * pg)
    tp += pg
    fp += ng
    if tp + fp > 0.0:
        ap += pg * tp / (tp + fp)
    return tp, fp, auc, ap


@nb.njit(inline="always")
def _auc_ap(tp, fp, auc, ap):  # pragma: no cover - compiled
    """AUC (NaN without a positive or a negative) and AP (NaN without a positive) of the final sums."""
    return (auc / (tp * fp) if tp > 0.0 and fp > 0.0 else np.nan), (ap / tp if tp > 0.0 else np.nan)


@nb.njit(parallel=True, cache=True)
def ranked_weights(w, order, positive, starts, out):  # pragma: no cover - compiled
    """ROC-AUC and average precision of one system on each row of ``w``
    (B, N) weights: the items in ``order`` (decreasing score), ``positive``
    the gold in item order, one row for every weight row (1, N) or a row of
    its own each (B, N: label noise moves items between the classes, the
    system's order of its scores stays), ``starts`` the first position of
    each group of tied scores (and N at the end); ``out`` (B, 2) gets AUC
    (ties one half; NaN without a positive or a negative) and AP
    (scikit-learn's; NaN without a positive).  One pass per row, no
    temporary of the row's size."""
    own = positive.shape[0] > 1
    for b in nb.prange(w.shape[0]):
        gold = positive[b] if own else positive[0]
        tp = 0.0
        fp = 0.0
        auc = 0.0
        ap = 0.0
        for g in range(starts.size - 1):
            pg = 0.0
            ng = 0.0
            for k in range(starts[g], starts[g + 1]):
                i = order[k]
                v = w[b, i]
                if gold[i]:
                    pg += v
                else:
                    ng += v
            tp, fp, auc, ap = _tie_group(pg, ng, tp, fp, auc, ap)
        out[b, 0], out[b, 1] = _auc_ap(tp, fp, auc, ap)


@nb.njit(parallel=True, cache=True)
def ranked_rows(sv, positive, w, out):  # pragma: no cover - compiled
    """ROC-AUC and average precision of each row of ``sv`` (R, N), every row
    its own scores, gold (``positive``) and weights (``w``), all (R, N) in
    item order (a permuted system, a noisy gold): each row sorted here, in
    parallel, then walked from its highest score down, groups of tied scores
    found on the fly; ``out`` (R, 2) as in ``ranked_weights``."""
    n = sv.shape[1]
    for r in nb.prange(sv.shape[0]):
        row = sv[r]
        order = np.argsort(row)  # increasing: walked backwards
        tp = 0.0
        fp = 0.0
        auc = 0.0
        ap = 0.0
        k = n - 1
        while k >= 0:
            pg = 0.0
            ng = 0.0
            v = row[order[k]]
            while k >= 0 and row[order[k]] == v:
                i = order[k]
                if positive[r, i]:
                    pg += w[r, i]
                else:
                    ng += w[r, i]
                k -= 1
            tp, fp, auc, ap = _tie_group(pg, ng, tp, fp, auc, ap)
        out[r, 0], out[r, 1] = _auc_ap(tp, fp, auc, ap)


@nb.njit(inline="always")
def _sift_down(key, idx, size, i):  # pragma: no cover - compiled
    """Restore the max-heap (``key``, its ``idx``) below position i."""
    while True:
        left = 2 * i + 1
        if left >= size:
            return
        top = left
        if left + 1 < size and key[left + 1] > key[left]:
            top = left + 1
        if key[top] <= key[i]:
            return
        key[i], key[top] = key[top], key[i]
        idx[i], idx[top] = idx[top], idx[i]
        i = top


@nb.njit(parallel=True, cache=True)
def permuted_ranked_merge(words, sv, positive, start, out):  # pragma: no cover - compiled
    """ROC-AUC and AP (T, S, 2) of the systems after permuting whole units
    across them (``permutations``: in trial t, slot s takes unit u's scores
    of system perm[t, u][s]), without sorting again: ``sv`` (S, N) holds each
    system's scores unit by unit (unit u at ``start[u]:start[u + 1]``), each
    unit's block in decreasing order, ``positive`` (S, N) the gold in that
    order; a slot's ranking is the merge of its units' blocks (a heap of the
    blocks' heads, N log U per slot), walked from the top as
    ``ranked_weights`` walks a sorted system (every item weight 1)."""
    n_units = start.size - 1
    n_sys = sv.shape[0]
    for t in nb.prange(words.size):
        perms = np.empty((n_units, n_sys), np.int64)
        for u in range(n_units):
            p = np.arange(n_sys)
            shuffle(sm64(words[t] ^ (np.uint64(u) * np.uint64(0xD1B54A32D192ED03))), p)
            perms[u] = p
        key = np.empty(n_units)
        idx = np.empty(n_units, np.int64)
        head = np.empty(n_units, np.int64)
        for s in range(n_sys):
            size = 0
            for u in range(n_units):
                head[u] = start[u]
                if start[u] < start[u + 1]:
                    key[size] = sv[perms[u, s], start[u]]
                    idx[size] = u
                    size += 1
            for i in range(size // 2 - 1, -1, -1):
                _sift_down(key, idx, size, i)
            tp = 0.0
            fp = 0.0
            auc = 0.0
            ap = 0.0
            while size > 0:
                v = key[0]
                pg = 0.0
                ng = 0.0
                while size > 0 and key[0] == v:  # every item tied at v, from any unit
                    u = idx[0]
                    if positive[perms[u, s], head[u]]:
                        pg += 1.0
                    else:
                        ng += 1.0
                    head[u] += 1
                    if head[u] < start[u + 1]:
                        key[0] = sv[perms[u, s], head[u]]
                    else:
                        size -= 1
                        key[0] = key[size]
                        idx[0] = idx[size]
                    _sift_down(key, idx, size, 0)
                tp, fp, auc, ap = _tie_group(pg, ng, tp, fp, auc, ap)
            out[t, s, 0], out[t, s, 1] = _auc_ap(tp, fp, auc, ap)


@nb.njit(parallel=True, cache=True)
def pairwise_auc(w, order, cls, starts, positive, k, out):  # pragma: no cover - compiled
    """A(i|j) for the one class i = ``positive`` against every class j, on
    each row of ``w`` (B, N): the items in ``order`` (decreasing score of
    class i's column), ``cls`` their gold classes in that order, ``starts``
    the groups of tied scores; ``out`` (B, K): the probability that an item
    of class i scores above one of class j, ties one half (NaN without
    either; column i is left NaN).  Hand & Till's M in K passes, not
    K(K - 1)."""
    for b in nb.prange(w.shape[0]):
        above = 0.0  # class i's weight above the current group
        num = np.zeros(k)
        tot = np.zeros(k)
        grp = np.zeros(k)
        for g in range(starts.size - 1):
            for c in range(k):
                grp[c] = 0.0
            for q in range(starts[g], starts[g + 1]):
                grp[cls[q]] += w[b, order[q]]
            pi = grp[positive]
            for c in range(k):
                num[c] += grp[c] * (above + 0.5 * pi)
                tot[c] += grp[c]
            above += pi
        for c in range(k):
            out[b, c] = num[c] / (above * tot[c]) if c != positive and above > 0.0 and tot[c] > 0.0 else np.nan
