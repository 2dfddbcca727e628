"""The compiled passes of the resampling engine (numba), in one module so
that only the jobs that resample pay for importing numba: ``resample`` and
``ranking`` import it on first use.

Each pass is a serial compiled loop over its rows (splits, replicates,
trials, weight rows) that releases the GIL (``nogil``); the function of the
same name without the underscore cuts the rows into one contiguous block
per thread and runs the blocks on a pool of Python threads (``_by_rows``).
Serial loops, not numba's ``parallel=True``: the same speed per thread, and
they compile in two fifths of the time (a fresh install compiled for about a
minute before the experiments could start; ``benchmarks/README.md``).
Every row is computed from its own inputs and its seed's word alone, so
the numbers never depend on the threads (``tests/test_threads.py``).

The passes use as many threads as the process was given
(``default_threads``): NUMBA_NUM_THREADS or OMP_NUM_THREADS when set
(Snakemake sets OMP_NUM_THREADS to a job's ``threads``), else the cores the
process may run on; ``threads(n)`` changes it inside a block (the library's
``n_jobs``, the command line's ``--jobs``).  A job never runs more threads
than it asked for, so jobs that share a machine do not fight over its cores.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba as nb
import numpy as np

from .kernel_cache import install

install()  # the compiled kernels kept per version of this file, outside the checkout (``kernel_cache``)

_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def default_threads() -> int:
    """The threads the process was given: NUMBA_NUM_THREADS, else
    OMP_NUM_THREADS (a positive integer), else the cores it may run on.

    >>> default_threads() >= 1
    True
    """
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        v = os.environ.get(var, "").strip()
        if v.isdigit() and int(v) >= 1:
            return int(v)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# the calling context's threads (a context variable, as numba's thread count was per thread: two of a user's
# threads may each run a call with its own n_jobs)
_THREADS = contextvars.ContextVar("metaeval_engine_threads", default=default_threads())
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def n_threads() -> int:
    """The threads the compiled passes use now (``threads`` changes it)."""
    return _THREADS.get()


@contextlib.contextmanager
def threads(n: int | None):
    """The compiled passes on ``n`` threads inside the block (None: as the
    process was given, ``default_threads``).  Never a number changes: every
    draw is made from the seed and its own index, and each thread writes its
    own rows (``tests/test_threads.py``).

    >>> with threads(1):
    ...     n_threads()
    1
    """
    if n is None:
        yield
        return
    if int(n) < 1:
        raise ValueError(f"n_jobs: 1 or more threads, got {n}")
    token = _THREADS.set(int(n))
    try:
        yield
    finally:
        _THREADS.reset(token)


def _pool(n: int) -> ThreadPoolExecutor:
    """A pool of at least ``n`` threads, kept for the process."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL._max_workers < n:
            if _POOL is not None:
                _POOL.shutdown(wait=False)
            _POOL = ThreadPoolExecutor(max_workers=n, thread_name_prefix="metaeval-engine")
        return _POOL


def _by_rows(rows: int, run) -> None:
    """``run(lo, hi)`` on contiguous blocks of ``rows`` rows, one block per
    thread (``n_threads``), in the calling thread when there is one."""
    n = min(_THREADS.get(), rows)
    if n <= 1:
        run(0, rows)
        return
    bounds = np.linspace(0, rows, n + 1).round().astype(np.int64)
    futures = [_pool(n).submit(run, int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    for f in futures:
        f.result()  # re-raises a block's error


def map_blocks(fn, items):
    """``fn(item)`` for every item, up to ``n_threads`` of them at once, each
    with the compiled passes and BLAS on one thread; yields the results in
    the items' order (one thread: a plain loop).  For loops whose every
    step is a whole pipeline (draw, count, score, rank: the random
    half-splits' chunks): the metrics in NumPy hold Python's lock between
    their array loops, so splitting each pass over the threads left them on
    one core, where whole steps side by side use every core.  A step must
    write only its own rows (the numbers then never depend on the
    threads); BLAS is held to one thread meanwhile (``threadpoolctl``): two
    products each on every core were slower than one."""
    items = list(items)
    n = min(_THREADS.get(), len(items))
    if n <= 1:
        for item in items:
            yield fn(item)
        return
    from collections import deque
    from itertools import islice

    from threadpoolctl import threadpool_limits

    def run(item):
        with threads(1):
            return fn(item)

    with threadpool_limits(1, user_api="blas"):
        pool = _pool(n)
        todo = iter(items)
        pending = deque(pool.submit(run, item) for item in islice(todo, n))  # n in flight at most
        while pending:
            result = pending.popleft().result()  # re-raises a step's error
            for item in todo:
                pending.append(pool.submit(run, item))
                break
            yield result


@nb.njit(inline="always")
def sm64(x):
    """``_splitmix64`` on one uint64, compiled (the same bits)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@nb.njit(nogil=True, cache=True)
def _select(words, item, strata, take, left_at, col, out):  # pragma: no cover - compiled
    """Selection sampling per row: ``take[c]`` of the items of every stratum
    c, each subset of that size equally likely.  The items are visited in
    the order q = 0, 1, ...: item ``item[q]`` of stratum ``strata[q]``, with
    ``left_at[q]`` items of its stratum not yet passed (itself included), is
    taken when u * left < need, u the top 32 bits of the item's key as a
    fraction (the probability need / left, to within 2**-32); it goes to
    column ``col[q]`` of ``out`` (1 taken, 0 not).  The subset depends on the
    order only within a stratum: ``_fill`` visits the columns in order (no
    scattered writes) where that keeps each stratum's items in item order.
    The products u * left do not depend on earlier choices: they are made
    first, so that the pass that carries ``need`` from item to item is short."""
    n = strata.size
    v = np.empty(n, np.uint64)
    for b in range(words.size):
        w = words[b]
        for q in range(n):
            v[q] = (sm64(w ^ (np.uint64(item[q]) * np.uint64(0xD1B54A32D192ED03))) >> np.uint64(32)) * np.uint64(left_at[q])
        row = out[b]
        # one pass for one stratum or many: a scalar ``need`` for a single stratum was compiled to a branch on
        # each item's coin (mispredicted half the time: 2.5x slower on 100,000 items); the array is not
        need_c = take.astype(np.uint64) << np.uint64(32)
        for q in range(n):
            c = strata[q]
            t = v[q] < need_c[c]
            row[col[q]] = t
            need_c[c] -= np.uint64(t) << np.uint64(32)


@nb.njit(nogil=True, cache=True)
def _bootstrap(words, units, n_units, pos, out):  # pragma: no cover - compiled
    """Bootstrap counts per row: ``n_units`` draws with replacement among
    the units (draw j picks unit floor(u_j * n_units)); item i gets the count
    of its unit ``units[i]`` in column ``pos[i]``."""
    for b in range(words.size):
        counts = np.zeros(n_units, np.int64)
        w = words[b]
        for j in range(n_units):
            u = (sm64(w ^ (np.uint64(j) * np.uint64(0xD1B54A32D192ED03))) >> np.uint64(11)) * _TO_UNIT
            counts[min(int(u * n_units), n_units - 1)] += 1
        for i in range(units.size):
            out[b, pos[i]] = counts[units[i]]


@nb.njit(nogil=True, cache=True)
def _bootstrap_within(words, two_stage, start, members, pos, out):  # pragma: no cover - compiled
    """Bootstrap counts per row drawn within strata: stratum t (its items
    ``members[start[t]:start[t + 1]]``, n_t of them) gets n_t draws with
    replacement among its own items (draw j picks item
    floor(u_j * n_t) of the stratum, u_j from the row's word and j), so
    every stratum keeps its size.  ``two_stage``: the G strata are first
    drawn with replacement (G draws from the row's second word, as
    ``_bootstrap`` draws units), and each copy of a stratum then draws its
    n_t items; the stratum's items take the sum over its copies.  Item i's
    count goes to column ``pos[i]``."""
    g = start.size - 1
    n = members.size
    copies = np.ones(g, np.int64)
    counts = np.zeros(n, np.int64)
    for b in range(words.size):
        w = words[b]
        if two_stage:
            copies[:] = 0
            w2 = sm64(w ^ np.uint64(0x2545F4914F6CDD1D))
            for j in range(g):
                u = (sm64(w2 ^ (np.uint64(j) * np.uint64(0xD1B54A32D192ED03))) >> np.uint64(11)) * _TO_UNIT
                copies[min(int(u * g), g - 1)] += 1
        counts[:] = 0
        j = 0
        for t in range(g):
            lo = start[t]
            size = start[t + 1] - lo
            for _ in range(copies[t] * size):
                u = (sm64(w ^ (np.uint64(j) * np.uint64(0xD1B54A32D192ED03))) >> np.uint64(11)) * _TO_UNIT
                counts[members[lo + min(int(u * size), size - 1)]] += 1
                j += 1
        for i in range(n):
            out[b, pos[i]] = counts[i]


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


@nb.njit(inline="always")
def _swaps(state, swap):  # pragma: no cover - compiled
    """The positions ``shuffle`` swaps, drawn alone: swap[j] for j = n - 1
    down to 1, from the same splitmix64 sequence (``shuffle`` on any values
    is then ``values[j], values[swap[j]] = values[swap[j]], values[j]`` in
    that order).  ``shuffle``'s draw written apart on purpose (it swaps as
    it draws, without a buffer); tests/test_engine_resample.py holds the two
    to the same permutations."""
    for j in range(swap.size - 1, 0, -1):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        swap[j] = int(((sm64(state) >> np.uint64(32)) * np.uint64(j + 1)) >> np.uint64(32))
    return state


@nb.njit(nogil=True, cache=True)
def _permutations(words, n_units, n_systems, out):  # pragma: no cover - compiled
    """out[t, u] = the permutation of the systems for unit u in trial t."""
    for t in range(words.size):
        for u in range(n_units):
            perm = np.arange(n_systems)
            shuffle(sm64(words[t] ^ (np.uint64(u) * np.uint64(0xD1B54A32D192ED03))), perm)
            out[t, u] = perm


@nb.njit(nogil=True, cache=True)
def _permuted_confusion(words, unit_start, unit_items, todo, pred_t, gold, k, out):  # pragma: no cover - compiled
    """Confusion tensors (T, S, K, K) of the permuted systems, added to
    ``out``: in trial t, slot s takes, on every item of unit u, the
    prediction of system perm[t, u][s] (``_permutations``; the units' items
    are ``unit_items[unit_start[u]:unit_start[u + 1]]``; ``pred_t``: (N, S)),
    for the units ``todo`` (the others' counts are the same in every trial:
    the caller puts them in ``out``).  A one-item unit shuffles its
    predictions themselves, which the same swaps turn into exactly
    pred[perm[s]]; its swaps are drawn first (``_swaps``), then made, so
    that the draws do not wait on the swaps (1.3x to 1.5x faster here).
    The counts of a trial go to a flat (S K K) array first."""
    n_sys = pred_t.shape[1]
    kk = k * k
    perm = np.empty(n_sys, np.int64)
    vals = np.empty(n_sys, np.int64)
    swap = np.empty(n_sys, np.int64)
    acc = np.empty(n_sys * kk, np.int64)
    for t in range(words.size):
        acc[:] = 0
        for j in range(todo.size):
            u = todo[j]
            lo, hi = unit_start[u], unit_start[u + 1]
            if hi == lo:  # a unit without items (a subset of the units: metaeval.methods.sensitivity)
                continue
            state = sm64(words[t] ^ (np.uint64(u) * np.uint64(0xD1B54A32D192ED03)))
            if hi - lo == 1:
                i = unit_items[lo]
                _swaps(state, swap)
                for s in range(n_sys):
                    vals[s] = pred_t[i, s]
                for q in range(n_sys - 1, 0, -1):
                    r = swap[q]
                    vals[q], vals[r] = vals[r], vals[q]
                g = gold[i]
                for s in range(n_sys):
                    acc[s * kk + vals[s] * k + g] += 1
            else:
                for s in range(n_sys):
                    perm[s] = s
                shuffle(state, perm)
                for m in range(lo, hi):
                    i = unit_items[m]
                    g = gold[i]
                    for s in range(n_sys):
                        acc[s * kk + pred_t[i, perm[s]] * k + g] += 1
        for s in range(n_sys):
            for a in range(k):
                for b in range(k):
                    out[t, s, a, b] += acc[s * kk + a * k + b]


@nb.njit(nogil=True, cache=True)
def _permuted_sums(words, stats, out):  # pragma: no cover - compiled
    """Summed per-unit statistics (T, S, F) of the permuted systems: slot s
    takes unit u's statistics of system perm[t, u][s] (``stats``: (U, S, F))."""
    n_units, n_sys, f = stats.shape
    for t in range(words.size):
        perm = np.empty(n_sys, np.int64)
        for u in range(n_units):
            for s in range(n_sys):
                perm[s] = s
            shuffle(sm64(words[t] ^ (np.uint64(u) * np.uint64(0xD1B54A32D192ED03))), perm)
            for s in range(n_sys):
                for x in range(f):
                    out[t, s, x] += stats[u, perm[s], x]


@nb.njit(nogil=True, cache=True)
def _tau_rows(x, y, variant_b, out):  # pragma: no cover - compiled
    """Kendall's tau of every row pair (x[r], y[r]) over all S(S-1)/2 system
    pairs: n_c - n_d from the signs of the pairwise
    differences, divided as ``kendall_tau`` says."""
    rows, s = x.shape
    for r in range(rows):
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
def _one_item(is_pos, v, tp, fp, auc, ap):  # pragma: no cover - compiled
    """``_tie_group`` of one item of weight v (a score no other item has),
    with the same bits: the terms it leaves out add +0.0 (the sums are
    never -0.0: they start at 0 and add non-negative weights), and a
    negative needs no division (ranking 2x faster with continuous scores)."""
    if is_pos:
        tp += v
        if tp + fp > 0.0:
            ap += v * tp / (tp + fp)
    else:
        auc += v * tp
        fp += v
    return tp, fp, auc, ap


@nb.njit(inline="always")
def _auc_ap(tp, fp, auc, ap):  # pragma: no cover - compiled
    """AUC (NaN without a positive or a negative) and AP (NaN without a positive) of the final sums."""
    return (auc / (tp * fp) if tp > 0.0 and fp > 0.0 else np.nan), (ap / tp if tp > 0.0 else np.nan)


@nb.njit(nogil=True, cache=True)
def _ranked_weights(wt, order, positive, starts, lo, hi, out):  # pragma: no cover - compiled
    """ROC-AUC and average precision of one system on the weight rows
    ``lo:hi``, the weights given by column: ``wt`` (N, B), column b the
    weights of row b; the items in ``order`` (decreasing score),
    ``positive`` the gold per item, (N, 1) for every row or (N, B) a gold
    per row (label noise moves items between the classes, the system's
    order of its scores stays), ``starts`` the first position of each group
    of tied scores (and N at the end); ``out`` (B, 2) gets AUC (ties one
    half; NaN without a positive or a negative) and AP (scikit-learn's; NaN
    without a positive).  One walk of the ranking for all the rows at once:
    an item's weights in every row are read together (contiguous), and each
    row's sums are made in the order of a walk of that row alone, so the
    bits are those of a row at a time (``tests/test_score_engine.py``)."""
    own = positive.shape[1] > 1
    m = hi - lo
    tp = np.zeros(m)
    fp = np.zeros(m)
    auc = np.zeros(m)
    ap = np.zeros(m)
    pg = np.zeros(m)
    ng = np.zeros(m)
    for g in range(starts.size - 1):
        a, z = starts[g], starts[g + 1]
        if z - a == 1:
            i = order[a]
            v = wt[i, lo:hi]
            if own:
                gold = positive[i, lo:hi]
                for b in range(m):
                    tp[b], fp[b], auc[b], ap[b] = _one_item(gold[b], v[b], tp[b], fp[b], auc[b], ap[b])
            elif positive[i, 0]:
                for b in range(m):
                    tp[b], fp[b], auc[b], ap[b] = _one_item(True, v[b], tp[b], fp[b], auc[b], ap[b])
            else:
                for b in range(m):
                    tp[b], fp[b], auc[b], ap[b] = _one_item(False, v[b], tp[b], fp[b], auc[b], ap[b])
            continue
        for k in range(a, z):
            i = order[k]
            v = wt[i, lo:hi]
            if own:
                gold = positive[i, lo:hi]
                for b in range(m):
                    if gold[b]:
                        pg[b] += v[b]
                    else:
                        ng[b] += v[b]
            elif positive[i, 0]:
                for b in range(m):
                    pg[b] += v[b]
            else:
                for b in range(m):
                    ng[b] += v[b]
        for b in range(m):
            tp[b], fp[b], auc[b], ap[b] = _tie_group(pg[b], ng[b], tp[b], fp[b], auc[b], ap[b])
            pg[b] = 0.0
            ng[b] = 0.0
    for b in range(m):
        out[lo + b, 0], out[lo + b, 1] = _auc_ap(tp[b], fp[b], auc[b], ap[b])


@nb.njit(nogil=True, cache=True)
def _ranked_rows(sv, positive, w, out):  # pragma: no cover - compiled
    """ROC-AUC and average precision of each row of ``sv`` (R, N), every row
    its own scores, gold (``positive``) and weights (``w``), all (R, N) in
    item order (a permuted system, a noisy gold): each row sorted here,
    then walked from its highest score down, groups of tied scores
    found on the fly; ``out`` (R, 2) as in ``ranked_weights``."""
    n = sv.shape[1]
    for r in range(sv.shape[0]):
        row = sv[r]
        order = np.argsort(row)  # increasing: walked backwards
        tp = 0.0
        fp = 0.0
        auc = 0.0
        ap = 0.0
        k = n - 1
        while k >= 0:
            v = row[order[k]]
            if k == 0 or row[order[k - 1]] != v:  # a score of one item
                i = order[k]
                tp, fp, auc, ap = _one_item(positive[r, i], w[r, i], tp, fp, auc, ap)
                k -= 1
                continue
            pg = 0.0
            ng = 0.0
            while k >= 0 and row[order[k]] == v:
                i = order[k]
                if positive[r, i]:
                    pg += w[r, i]
                else:
                    ng += w[r, i]
                k -= 1
            tp, fp, auc, ap = _tie_group(pg, ng, tp, fp, auc, ap)
        out[r, 0], out[r, 1] = _auc_ap(tp, fp, auc, ap)


@nb.njit(nogil=True, cache=True)
def _pairwise_auc(w, order, cls, starts, positive, k, out):  # pragma: no cover - compiled
    """A(i|j) for the one class i = ``positive`` against every class j, on
    each row of ``w`` (B, N): the items in ``order`` (decreasing score of
    class i's column), ``cls`` their gold classes in that order, ``starts``
    the groups of tied scores; ``out`` (B, K): the probability that an item
    of class i scores above one of class j, ties one half (NaN without
    either; column i is left NaN).  Hand & Till's M in K passes, not
    K(K - 1)."""
    for b in range(w.shape[0]):
        above = 0.0  # class i's weight above the current group
        num = np.zeros(k)
        tot = np.zeros(k)
        grp = np.zeros(k)
        for g in range(starts.size - 1):
            if starts[g + 1] - starts[g] == 1:  # one item: the only terms that are not +0.0 (``_one_item``)
                q = starts[g]
                v = w[b, order[q]]
                c = cls[q]
                if c == positive:
                    num[c] += v * (above + 0.5 * v)
                    above += v
                else:
                    num[c] += v * above
                tot[c] += v
                continue
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


@nb.njit(nogil=True, cache=True)
def _permuted_ranked(words, n_units, n_sys, key, value, positive, out):  # pragma: no cover - compiled
    """ROC-AUC and AP (T, S, 2) of the systems after permuting whole units
    across them (``permutations``: in trial t, slot s takes unit u's scores
    of system perm[t, u][s]), without sorting again.  Every (system, item)
    score of the data sorted once, decreasingly, into ``value``, with
    ``key`` = unit * S + system and the item's gold (``positive``): in a
    trial each entry belongs to exactly one slot (the slot its unit gives
    its system), so one walk of the sorted entries walks every slot's own
    ranking from the top at once, as ``ranked_weights`` walks one system
    (every item weight 1), the tied scores of a slot (from any unit)
    counted together.  Each slot's sums are added in the order of its
    distinct scores, as a walk of that slot alone adds them."""
    n = value.size
    slot = np.empty(n_units * n_sys, np.int64)
    perm = np.empty(n_sys, np.int64)
    tp = np.empty(n_sys)
    fp = np.empty(n_sys)
    auc = np.empty(n_sys)
    ap = np.empty(n_sys)
    pg = np.zeros(n_sys)
    ng = np.zeros(n_sys)
    touched = np.empty(n_sys, np.int64)
    for t in range(words.size):
        for u in range(n_units):
            for s in range(n_sys):
                perm[s] = s
            shuffle(sm64(words[t] ^ (np.uint64(u) * np.uint64(0xD1B54A32D192ED03))), perm)
            for s in range(n_sys):
                slot[u * n_sys + perm[s]] = s
        tp[:] = 0.0
        fp[:] = 0.0
        auc[:] = 0.0
        ap[:] = 0.0
        e = 0
        while e < n:
            if e + 1 == n or value[e + 1] != value[e]:  # a score no other entry has: its slot's group of one
                s = slot[key[e]]
                tp[s], fp[s], auc[s], ap[s] = _one_item(positive[e], 1.0, tp[s], fp[s], auc[s], ap[s])
                e += 1
                continue
            v = value[e]
            m = 0
            while e < n and value[e] == v:  # the entries tied at v, of any slot
                s = slot[key[e]]
                if pg[s] == 0.0 and ng[s] == 0.0:
                    touched[m] = s
                    m += 1
                if positive[e]:
                    pg[s] += 1.0
                else:
                    ng[s] += 1.0
                e += 1
            for q in range(m):
                s = touched[q]
                tp[s], fp[s], auc[s], ap[s] = _tie_group(pg[s], ng[s], tp[s], fp[s], auc[s], ap[s])
                pg[s] = 0.0
                ng[s] = 0.0
        for s in range(n_sys):
            out[t, s, 0], out[t, s, 1] = _auc_ap(tp[s], fp[s], auc[s], ap[s])


# ---------------------------------------------------------------------------
# the passes, their rows on the threads (``_by_rows``): the same arguments as
# the compiled loops, every row-indexed argument cut into the same blocks
def select(words, item, strata, take, left_at, col, out) -> None:
    """``_select`` on the threads."""
    _by_rows(words.size, lambda lo, hi: _select(words[lo:hi], item, strata, take, left_at, col, out[lo:hi]))


def bootstrap(words, units, n_units, pos, out) -> None:
    """``_bootstrap`` on the threads."""
    _by_rows(words.size, lambda lo, hi: _bootstrap(words[lo:hi], units, n_units, pos, out[lo:hi]))


def bootstrap_within(words, two_stage, start, members, pos, out) -> None:
    """``_bootstrap_within`` on the threads."""
    _by_rows(words.size, lambda lo, hi: _bootstrap_within(words[lo:hi], two_stage, start, members, pos, out[lo:hi]))


def permutations(words, n_units, n_systems, out) -> None:
    """``_permutations`` on the threads."""
    _by_rows(words.size, lambda lo, hi: _permutations(words[lo:hi], n_units, n_systems, out[lo:hi]))


def permuted_confusion(words, unit_start, unit_items, todo, pred_t, gold, k, out) -> None:
    """``_permuted_confusion`` on the threads."""
    _by_rows(words.size, lambda lo, hi: _permuted_confusion(words[lo:hi], unit_start, unit_items, todo, pred_t, gold,
                                                            k, out[lo:hi]))


def permuted_sums(words, stats, out) -> None:
    """``_permuted_sums`` on the threads."""
    _by_rows(words.size, lambda lo, hi: _permuted_sums(words[lo:hi], stats, out[lo:hi]))


def permuted_ranked(words, n_units, n_sys, key, value, positive, out) -> None:
    """``_permuted_ranked`` on the threads."""
    _by_rows(words.size, lambda lo, hi: _permuted_ranked(words[lo:hi], n_units, n_sys, key, value, positive,
                                                         out[lo:hi]))


def tau_rows(x, y, variant_b, out) -> None:
    """``_tau_rows`` on the threads."""
    _by_rows(out.size, lambda lo, hi: _tau_rows(x[lo:hi], y[lo:hi], variant_b, out[lo:hi]))


def ranked_weights(wt, order, positive, starts, out) -> None:
    """``_ranked_weights`` on the threads: the weight rows (columns of ``wt``) in one block per thread."""
    _by_rows(wt.shape[1], lambda lo, hi: _ranked_weights(wt, order, positive, starts, lo, hi, out))


def ranked_rows(sv, positive, w, out) -> None:
    """``_ranked_rows`` on the threads."""
    _by_rows(sv.shape[0], lambda lo, hi: _ranked_rows(sv[lo:hi], positive[lo:hi], w[lo:hi], out[lo:hi]))


def pairwise_auc(w, order, cls, starts, positive, k, out) -> None:
    """``_pairwise_auc`` on the threads."""
    _by_rows(w.shape[0], lambda lo, hi: _pairwise_auc(w[lo:hi], order, cls, starts, positive, k, out[lo:hi]))
