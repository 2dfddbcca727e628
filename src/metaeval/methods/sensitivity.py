"""How fragile is a metric's ranking of the systems?  Label noise in the
gold and a shift of the class priors.

1. **Label noise.**  A share rho of the gold labels (``noise_rates``, e.g. 1, 2,
   5, 10 %: round(rho N) items) is flipped, ``uniform``ly to any other class or
   to a ``neighbour``ing class (one position up or down, at random; the end
   classes have one neighbour), ``noise_repeats`` times per rate.  Per metric:
   Kendall's tau between the ranking on the clean gold and on each noisy
   gold (mean, sd, 2.5 / 97.5 % quantiles), how often the clean winner is
   still ranked first, and the discriminative power (share of system pairs a
   randomised Tukey HSD finds significant, the trials of the significance
   experiment) on the first ``noise_power_repeats`` noisy golds of the
   highest rate, next to the clean one.
   The draws are counter-based (``resample.random_keys``, streams ``noise``
   and ``noise_class``): item i of repeat r gets a selection key and a
   class key that depend only on (seed, r, i).  Rate rho flips the round(rho N)
   items with the smallest selection keys, so the flips of 1 % are among
   those of 2 % (common random numbers: the rates differ by the rate alone).
   The noisy confusion tensors of all repeats come from the subset engine:
   for each new class b, the (pred, old gold) counts of the items flipped to
   b are one masked product (``SubsetConfusion``), and
   c' = c - sum_b c_b + sum_b (row sums of c_b moved into column b).
   No Python loop over repeats or items.

2. **Class priors.**  The test items are re-weighted so that the gold
   distribution pi becomes pi' proportional to pi^gamma (``prior_gammas``):
   gamma = 0 is balanced, 1 the original, > 1 more imbalanced than the test
   set (the classes absent from the gold stay absent).  Each item of gold
   class j counts w_j = N pi'_j / n_j times, so the confusion matrix becomes
   c'_ij = c_ij w_j (exact, no sampling; N is kept).  Per metric: tau between
   the original ranking and the re-weighted one.  Metrics that depend on the
   confusion matrix through per-class recalls only (R^M, GMR, MAE^M) are
   invariant by construction (their tau is 1): Sokolova & Lapalme's
   invariance under a uniform change of a class, in ``metaeval.measures.properties``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..engine.progress import report
from ..engine.ranking import kendall_tau, orient
from ..engine.resample import SubsetConfusion, chunk_indices, count_dtype, permuted_confusion, random_keys
from ..settings import default_of

__all__ = ["noisy_labels", "noisy_confusion", "noise_sensitivity", "prior_weights", "prior_sensitivity",
           "dataset_sensitivity", "NOISE_MODES"]

NOISE_MODES = ("uniform", "neighbour")


def _flip_counts(n: int, rates) -> np.ndarray:
    m = np.rint(np.asarray(rates, dtype=float) * n).astype(np.int64)
    if (np.asarray(rates) < 0).any() or (np.asarray(rates) > 1).any():
        raise ValueError(f"noise rates must lie in [0, 1], got {list(rates)}")
    return m


def _new_class(gold: np.ndarray, u: np.ndarray, k: int, mode: str) -> np.ndarray:
    """The class each item would be flipped to, from uniform numbers u in
    [0, 1) (R, N): uniform over the K-1 other classes, or a neighbour."""
    if mode == "uniform":
        return (gold[None, :] + 1 + np.floor(u * (k - 1)).astype(np.int64)) % k
    if mode == "neighbour":
        step = np.where(u < 0.5, -1, 1)
        new = gold[None, :] + step
        return np.where((new < 0) | (new >= k), gold[None, :] - step, new)
    raise ValueError(f"noise mode must be one of {NOISE_MODES}, got {mode!r}")


def _flip_rank(keys: np.ndarray, upto: int | None = None) -> np.ndarray:
    """(R, N) rank of each item's key in its row (ties broken by the item's
    index, as a stable sort does), exact for the ``upto`` smallest keys; the
    others get N.  So ``rank < m`` is the same for every m <= ``upto`` as
    with the full ranks: the first ``upto`` of a partition, sorted, instead
    of sorting every row (the flips are at most a few per cent of the
    items)."""
    r, n = keys.shape
    upto = n if upto is None else int(min(max(upto, 0), n))
    rank = np.full((r, n), n, dtype=np.int64)
    if upto == 0:
        return rank
    if upto < n:
        part = np.argpartition(keys, upto - 1, axis=1)[:, :upto]
        kth = np.take_along_axis(keys, part, axis=1).max(axis=1)
        # a key equal to the boundary's outside the partition: which of the
        # tied items comes first is the index's call, so sort the whole rows
        exact = not ((keys <= kth[:, None]).sum(axis=1) > upto).any()
    if upto == n or not exact:
        order = np.argsort(keys, axis=1, kind="stable")[:, :upto]
    else:
        part.sort(axis=1)  # by index: the stable sort below breaks ties by index
        order = np.take_along_axis(part, np.argsort(np.take_along_axis(keys, part, axis=1), axis=1, kind="stable"),
                                   axis=1)
    np.put_along_axis(rank, order, np.arange(upto)[None, :].repeat(r, 0), axis=1)
    return rank


def _draws(n: int, repeats, seed: int, streams=("noise", "noise_class"), upto: int | None = None):
    """Per repeat and item: the flip order (rank of the selection key, exact
    for the ``upto`` first: ``_flip_rank``) and a uniform number for the new
    class."""
    idx = np.asarray(repeats, dtype=np.int64)
    rank = _flip_rank(random_keys(n, idx, seed, streams[0]), upto)
    u = (random_keys(n, idx, seed, streams[1]) >> np.uint64(11)).astype(np.float64) / float(1 << 53)
    return rank, u


def noisy_labels(gold, k: int, rate: float, repeats, seed: int, mode: str = "uniform") -> np.ndarray:
    """(R, N) noisy gold vectors: ``rate`` of the items flipped (see the
    module's docstring)."""
    gold = np.asarray(gold, dtype=np.int64)
    if k < 2:
        raise ValueError("label noise needs at least two classes")
    m = _flip_counts(gold.size, [rate])[0]
    rank, u = _draws(gold.size, repeats, seed, upto=m)
    return np.where(rank < m, _new_class(gold, u, k, mode), gold[None, :])


def noisy_confusion(eng: SubsetConfusion, rates, repeats, seed: int, mode: str = "uniform") -> np.ndarray:
    """(rates, R, S, K, K) confusion tensors of the engine's systems against
    the noisy golds of every rate and repeat (counts, int64)."""
    k, n = eng.k, eng.n
    counts = _flip_counts(n, rates)
    rank, u = _draws(n, repeats, seed, upto=counts.max(initial=0))
    new = _new_class(eng.gold, u, k, mode)
    out = np.broadcast_to(eng.total, (len(counts), rank.shape[0]) + eng.total.shape).copy()
    for ri, m in enumerate(counts):  # a loop over the few rates, not over repeats or items
        flipped = rank < m
        for b in range(k):  # and over the K new classes
            mask = flipped & (new == b)
            if not mask.any():
                continue
            cb = eng.confusion(mask.astype(eng.dtype))  # (R, S, K, K): flipped to b, by (pred, old gold)
            out[ri] -= cb
            out[ri][..., :, b] += cb.sum(axis=-1)
    return out


def _tau_summary(tau: np.ndarray) -> dict:
    ok = tau[~np.isnan(tau)]
    return {"mean_tau": ok.mean() if ok.size else np.nan, "sd_tau": ok.std(ddof=1) if ok.size > 1 else np.nan,
            "q025": np.quantile(ok, 0.025) if ok.size else np.nan,
            "q975": np.quantile(ok, 0.975) if ok.size else np.nan, "n_undefined": int(np.isnan(tau).sum())}


def _winners(oriented: np.ndarray) -> np.ndarray:
    """Boolean (..., S): the systems ranked first (ties included)."""
    return oriented == oriented.max(axis=-1, keepdims=True)


def noise_sensitivity(gold, predictions, k: int, metric_ids, params, *, rates, repeats: int, seed: int,
                      mode: str = "uniform", tau_variant: str = default_of("tau_variant"), power_repeats: int = 0,
                      tukey_trials: int = default_of("tukey_trials"), tukey_seed: int = default_of("tukey_seed"),
                      alpha: float = default_of("alpha"), units=None,
                      chunk_size: int = default_of("chunk_size"), permuted_clean: np.ndarray | None = None,
                      power_clean: np.ndarray | None = None) -> pd.DataFrame:
    """One row per (metric, rate): ``mean_tau, sd_tau, q025, q975`` of tau
    between the clean and the noisy rankings over ``repeats`` noisy golds,
    ``winner_kept`` (share of repeats whose first-ranked systems include a
    clean winner), and with ``power_repeats`` > 0 ``power_clean`` and, at
    the highest rate (NaN at the others), ``power_noisy`` (mean over the
    first ``power_repeats`` noisy golds) and ``power_change``.  ``units``:
    the unit of the Tukey permutations (group codes; None: items).
    ``permuted_clean``, ``power_clean``: the Tukey trials' confusion tensors
    (T, S, K, K) on the clean gold and the clean power per metric, when
    already computed (the significance experiment's: same trials, seed and
    units)."""
    from .significance import discriminative_power, tukey_test

    gold = np.asarray(gold, dtype=np.int64)
    pred = np.atleast_2d(np.asarray(predictions, dtype=np.int64))
    metric_ids = list(metric_ids)
    eng = SubsetConfusion(gold, pred, k)
    dirs = np.array([M.get(m).higher_is_better for m in metric_ids])[:, None]

    def scores(c):  # (..., S, K, K) -> raw (..., M, S)
        sc = M.evaluate(c, metric_ids, **params)
        return np.stack([np.asarray(sc[m], dtype=float) for m in metric_ids], axis=-2)

    clean_raw = scores(eng.total)
    clean = orient(clean_raw, dirs)
    reps = np.arange(repeats)
    taus, kept = [], []
    for idx in chunk_indices(reps, chunk_size, gold.size):  # chunks of repeats bound the memory
        noisy = orient(scores(noisy_confusion(eng, rates, idx, seed, mode)), dirs)  # (rates, R, M, S)
        taus.append(kendall_tau(clean, noisy, tau_variant))
        kept.append((_winners(noisy) & _winners(clean)).any(axis=-1))
        report(int(idx[-1]) + 1, repeats, "noisy golds")
    tau = np.concatenate(taus, axis=1)  # (rates, R, M)
    kept = np.concatenate(kept, axis=1)

    power = None
    if power_repeats > 0:
        trials = np.arange(tukey_trials)
        chunks = list(chunk_indices(trials, chunk_size, 1))
        unit = np.arange(gold.size) if units is None else np.asarray(units, dtype=np.int64)

        def permuted(g, items, t):  # (T_chunk, S, K, K) of these items in trials t, their units' permutations
            return permuted_confusion(g[items], pred[:, items], k, t, tukey_seed, unit[items])

        def power_of(total, trial_scores):
            value = scores(total)
            tests = tukey_test(value, trial_scores, alpha)
            return discriminative_power(metric_ids, value, tests, alpha)["discriminative_power"].to_numpy(dtype=float)

        perm_clean = permuted_clean
        if perm_clean is None:  # held compactly: (T, S, K, K) counts of every trial
            every = np.arange(gold.size)
            perm_clean = np.concatenate([permuted(gold, every, t).astype(count_dtype(gold.size)) for t in chunks])
        # trial scores are computed chunk by chunk: a trial's tensor in int64 exists for one chunk only
        if power_clean is None:
            power_clean = power_of(eng.total, np.concatenate([scores(perm_clean[t].astype(np.int64)) for t in chunks]))
        power = {"clean": np.asarray(power_clean, dtype=float)}
        top = int(np.argmax(rates))
        got = []
        for g in noisy_labels(gold, k, rates[top], np.arange(min(power_repeats, repeats)), seed, mode):
            # the trials permute each unit alike whatever its gold: only the flipped items' counts change
            flipped = np.flatnonzero(g != gold)
            noisy_scores = np.concatenate([scores(perm_clean[t].astype(np.int64) - permuted(gold, flipped, t)
                                                  + permuted(g, flipped, t)) for t in chunks])
            got.append(power_of(SubsetConfusion(g, pred, k).total, noisy_scores))
        power[top] = np.mean(got, axis=0)

    rows = []
    for m, mid in enumerate(metric_ids):
        for ri, rate in enumerate(rates):
            row = {"metric": mid, "rate": float(rate), "flipped": int(_flip_counts(gold.size, [rate])[0]),
                   "mode": mode, "repeats": int(repeats), **_tau_summary(tau[ri, :, m]),
                   "winner_kept": float(kept[ri, :, m].mean())}
            if power is not None:
                noisy = power[ri][m] if ri in power else np.nan
                row.update({"power_clean": power["clean"][m], "power_noisy": noisy,
                            "power_change": noisy - power["clean"][m],
                            "power_repeats": int(min(power_repeats, repeats))})
            rows.append(row)
    return pd.DataFrame(rows)


def prior_weights(gold_counts, gammas) -> np.ndarray:
    """(G, K) item weights w_j = N pi'_j / n_j with pi' proportional to
    pi^gamma over the classes present in the gold (absent classes: 0).
    ``gold_counts`` (..., K) gives (..., G, K): one gold per leading index
    (e.g. every bootstrap resample's)."""
    n = np.asarray(gold_counts, dtype=float)[..., None, :]  # (..., 1, K)
    present = n > 0
    pi = n / n.sum(axis=-1, keepdims=True)
    g = np.asarray(gammas, dtype=float)[:, None]
    with np.errstate(divide="ignore"):
        target = np.where(present, np.exp(g * np.log(np.where(present, pi, 1.0))), 0.0)  # pi^gamma, 0^0 avoided
    target /= target.sum(axis=-1, keepdims=True)
    return np.where(present, n.sum(axis=-1, keepdims=True) * target / np.where(present, n, 1.0), 0.0)


def prior_sensitivity(c: np.ndarray, metric_ids, params, gammas, labels, tau_variant: str = "b") -> pd.DataFrame:
    """One row per (metric, gamma): ``tau`` between the ranking of the
    systems' confusion tensors ``c`` (S, K, K) and their ranking with the
    items re-weighted to the prior pi^gamma; ``distribution`` (the shifted
    gold shares, by label) and ``majority_share``."""
    c = np.asarray(c, dtype=float)
    metric_ids = list(metric_ids)
    gold = c[0].sum(axis=0)
    w = prior_weights(gold, gammas)  # (G, K)
    shifted = c[None] * w[:, None, None, :]  # (G, S, K, K): column j times w_j
    dirs = np.array([M.get(m).higher_is_better for m in metric_ids])[:, None]

    def oriented(x):
        sc = M.evaluate(x, metric_ids, **params)
        return orient(np.stack([np.asarray(sc[m], dtype=float) for m in metric_ids], axis=-2), dirs)

    tau = kendall_tau(oriented(c), oriented(shifted), tau_variant)  # (G, M)
    share = (gold[None, :] * w) / gold.sum()
    rows = []
    for m, mid in enumerate(metric_ids):
        for gi, gamma in enumerate(gammas):
            rows.append({"metric": mid, "gamma": float(gamma), "tau": tau[gi, m],
                         "majority_share": float(share[gi].max()),
                         "distribution": " ".join(f"{lab}:{s:.3f}" for lab, s in zip(labels, share[gi]))})
    return pd.DataFrame(rows)


def dataset_sensitivity(ds, spec, settings, permuted=None, power_clean=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``noise.csv`` and ``priors.csv`` of a loaded dataset (``dataset.Dataset``)
    with its spec and experiment settings, over its ranked systems.
    ``noise_mode: auto`` is neighbour noise for ordered classes and uniform
    noise otherwise.  ``permuted``, ``power_clean``: the Tukey trials'
    confusion tensors and the discriminative power on the clean gold, if
    the significance experiment has computed them already."""
    from .scorer import select_systems

    sel = select_systems(ds, settings.include_baselines)
    mode = settings.noise_mode if settings.noise_mode != "auto" else ("neighbour" if spec.ordinal else "uniform")
    units = ds.groups if settings.resample_unit == "group" else None
    metric_ids, params = list(spec.metrics), spec.metric_params()
    noise = noise_sensitivity(ds.gold, ds.predictions[sel], ds.k, metric_ids, params, rates=settings.noise_rates,
                              repeats=settings.noise_repeats, seed=settings.noise_seed, mode=mode,
                              tau_variant=settings.tau_variant, power_repeats=settings.noise_power_repeats,
                              tukey_trials=settings.tukey_trials, tukey_seed=settings.tukey_seed,
                              alpha=settings.alpha, units=units, chunk_size=settings.chunk_size,
                              permuted_clean=permuted, power_clean=power_clean)
    priors = prior_sensitivity(ds.confusion()[sel], metric_ids, params, settings.prior_gammas, spec.labels,
                               settings.tau_variant)
    return noise, priors
