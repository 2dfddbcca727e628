"""Statistical meta-evaluation: significance between every pair of
systems, discriminative power of every metric (the intervals on every score
and on the meta-evaluation, items 1 and 5, are ``metaeval.methods.bootstrap``'s).

Every metric is recomputed from resampled confusion tensors (and per-article
span statistics), so the methods hold for metrics that do not decompose over
items (macro-F1, GMR, kappa, alpha, CEM-ORD), which per-topic tools (MATTERS,
Sakai's scripts, ranx) cannot resample.

2. **Randomised Tukey HSD** (``tukey_test``; Carterette 2012; Sakai,
   *Statistical Reform in Information Retrieval?*, 2014).  Null hypothesis:
   within every unit (item or group) the systems' outputs are exchangeable
   (which system produced which output is arbitrary): Noreen's (1989) and
   Yeh's (2000) approximate randomisation, extended from two systems to S
   with the range statistic.  In each of T trials the outputs of every unit
   are permuted across the systems (one uniformly random permutation per
   unit and trial, ``resample.permutations``), every metric is recomputed
   from the permuted outputs, and the trial records, per metric, the range
   R_t = largest minus smallest score over the systems.  A pair's p-value is
   p = #{t : R_t >= |d|} / T (Sakai's count / T, no +1; p = 0 means below
   1 / T), family-wise over all pairs by construction.  Every metric uses
   the same trials.  A trial in which a system's score is undefined (NaN)
   for a metric is left out for that metric (``tukey_test`` says why).
3. **Paired bootstrap test** (the ``significance_test: bootstrap`` option,
   ``bootstrap_test``): the unstudentised shift method (Efron & Tibshirani
   1993, sec. 16.4; Berg-Kirkpatrick et al. 2012), p = #{|d_b - d| >= |d|} / B,
   per pair; not Sakai's (2006) studentised test.  Its p-values are adjusted
   for the number of pairs (``significance_correction``: Holm by default,
   Benjamini-Hochberg, or none).
4. **Discriminative power** (Sakai 2006): per metric, the share of system
   pairs significantly different at ``alpha`` (p < alpha, strictly), with
   the test and correction that produced it, the trials used, the pairs
   whose verdict is within Monte Carlo error of alpha, the smallest
   difference found significant and Sakai's estimated difference required.
   Every p-value comes with its Monte Carlo standard error sqrt(p(1-p)/T).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..measures import labels as M
from ..engine.ranking import orient, system_pairs
from ..engine.progress import report
from ..engine.resample import chunk_indices, count_dtype
from ..settings import default_of
from .bootstrap import _scorer, bootstrap_scores
from .corrections import (BORDERLINE_Z, CORRECTIONS, TUKEY_CORRECTION, _count_below, _rounded, adjust, monte_carlo_se,
                          significant)

__all__ = ["PairTests", "tukey_ranges", "tukey_test", "tukey_pvalues", "bootstrap_pvalues",
           "bootstrap_difference_required", "bootstrap_test", "pair_table", "best_groups", "discriminative_power",
           "run_significance"]


# ---------------------------------------------------------------------------
# 2-4. significance between systems, discriminative power
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PairTests:
    """Every pair of systems tested, per metric (pairs in ``ranking.system_pairs`` order).

    ``p`` (M, P): the unadjusted p-values; ``n`` (M, P): the trials (or
    replicates) each was estimated from; ``required`` (M,): Sakai's
    estimated difference required for significance; ``test``: ``tukey`` or
    ``bootstrap``; ``correction``: what the verdicts use (``holm``, ``bh``,
    ``none``; ``TUKEY_CORRECTION`` for the Tukey test, whose p-values are
    family-wise already).

    Examples
    --------
    >>> import numpy as np
    >>> t = tukey_test(np.array([[0.9, 0.5, 0.6]]), np.array([[[0.6, 0.7, 0.5]], [[0.3, 0.8, 0.4]]]))
    >>> t.test, t.p.tolist(), t.se.round(3).tolist()
    ('tukey', [[0.5, 0.5, 1.0]], [[0.354, 0.354, 0.0]])
    >>> t.borderline(0.05).tolist()     # 2 trials: nothing is settled
    [[True, True, False]]
    """

    test: str
    correction: str
    p: np.ndarray
    n: np.ndarray
    required: np.ndarray

    @property
    def se(self) -> np.ndarray:
        """Monte Carlo standard error of every p-value."""
        return monte_carlo_se(self.p, self.n)

    def adjusted(self, correction: str | None = None, p=None) -> np.ndarray:
        """``p`` (default: these p-values) adjusted by ``correction``
        (default: this test's), over each metric's pairs; the Tukey test's
        p-values stay as they are whatever ``correction`` (family-wise)."""
        p = self.p if p is None else np.asarray(p, dtype=np.float64)
        return p if self.test == "tukey" else adjust(p, correction or self.correction)

    @property
    def decisive(self) -> np.ndarray:
        """The p-values the verdicts (p < alpha) are taken on."""
        return self.adjusted()

    @property
    def decisive_column(self) -> str:
        """The column of ``pair_table`` that holds ``decisive``."""
        return "p_value" if self.test == "tukey" or self.correction == "none" else f"p_{self.correction}"

    def borderline(self, alpha: float, z: float = BORDERLINE_Z) -> np.ndarray:
        """(M, P) booleans: the pairs whose verdict is not settled by the
        trials drawn.  Every p-value is moved ``z`` Monte Carlo standard
        errors down, then up (within [0, 1]); a pair is borderline when it
        is significant at the first and not at the second (adjusted
        p-values are non-decreasing in every raw p-value, so no p-vector in
        that box gives a verdict outside the two).  Unadjusted, this is
        p - z se < alpha <= p + z se: alpha within z standard errors of p."""
        lo, hi = (np.clip(self.p + sign * z * self.se, 0.0, 1.0) for sign in (-1.0, 1.0))
        return significant(self.adjusted(p=lo), alpha) & ~significant(self.adjusted(p=hi), alpha)


def tukey_ranges(permuted: np.ndarray) -> np.ndarray:
    """The range statistic of every randomised trial and metric.

    Parameters
    ----------
    permuted : ndarray, shape (T, M, S)
        The scores of the randomised trials.

    Returns
    -------
    ndarray, shape (T, M)
        The largest minus the smallest score over the systems, rounded to
        ``ranking.TIE_DECIMALS``; NaN when any system's score is undefined in
        that trial (the trial is then left out for that metric: ``tukey_test``).

    Examples
    --------
    >>> import numpy as np
    >>> tukey_ranges(np.array([[[0.5, 0.7, 0.6]], [[0.6, float("nan"), 0.5]]])).tolist()
    [[0.2], [nan]]
    """
    with np.errstate(invalid="ignore"):
        return _rounded(np.max(permuted, axis=2) - np.min(permuted, axis=2))  # NaN propagates


def tukey_test(value: np.ndarray, permuted: np.ndarray, alpha: float = default_of("alpha")) -> PairTests:
    """Randomised Tukey HSD test of every pair of systems.

    Parameters
    ----------
    value : ndarray, shape (M, S)
        The observed scores.
    permuted : ndarray, shape (T, M, S)
        The scores of T randomised trials (``experiments.Scorer.permuted_counts``
        then ``Scorer.score``: every metric recomputed from the permuted outputs).
    alpha : float, default 0.05
        For ``required``.

    Returns
    -------
    PairTests
        ``p`` (M, P), family-wise; ``n`` the trials used; ``required`` Sakai's
        estimated difference required.

    Notes
    -----
    Null hypothesis: within every unit (item or group) the systems' outputs are
    exchangeable, so each of the S! assignments of a unit's outputs to the
    systems is equally likely (approximate randomisation, Noreen 1989, Yeh
    2000, extended to S systems by the range statistic: Carterette 2012, Sakai
    2014).  A trial draws one permutation per unit and rescores every metric
    from the permuted outputs (non-decomposable metrics are recomputed, never
    averaged over items); its statistic is the range R_t = max_s - min_s of the
    scores.  For a pair with observed difference d,

        p = #{t used : R_t >= |d|} / T_used      (no +1: Sakai's convention)

    with ranges and differences compared at ``TIE_DECIMALS`` decimals.  The
    range bounds every pair's difference, so the p-values are family-wise over
    all pairs (Tukey's HSD): no further correction.  The count over T estimates
    the exact permutation p-value with Monte Carlo standard error
    sqrt(p (1 - p) / T); (count + 1) / (T + 1) would be valid at every T
    (Phipson & Smyth 2010) and differs by less than 1 / T.  p = 0 means below
    1 / T_used.

    Undefined scores: a trial in which any system's score is NaN for a metric
    is left out for that metric (T_used counts the others): under the null
    every trial is a draw from the permutation distribution, and leaving out
    the undefined ones conditions it on the range being defined, which the
    observed data satisfy, so the test stays exact conditionally.  Pairs
    involving a system whose observed score is NaN have p = NaN.

    ``required``: Sakai's (2006) estimated difference required for
    significance, here the critical value of the range statistic: with the used
    ranges sorted decreasingly and c the largest count with c / T_used < alpha,
    the (c + 1)-th largest range; a pair is significant if and only if
    round(|d|) > required.

    References
    ----------
    Carterette (2012), "Multiple testing in statistical analysis of
    systems-based information retrieval experiments", ACM TOIS 30(1);
    Sakai (2014), *Statistical reform in information retrieval?*, SIGIR Forum.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])
    >>> permuted = 0.66 + rng.normal(0, 0.04, (2000, 1, 3))  # the trials' scores
    >>> t = tukey_test(value, permuted)
    >>> t.p.round(3).tolist()                 # pairs (0, 1), (0, 2), (1, 2)
    [[0.002, 0.0, 0.985]]
    >>> round(float(t.required[0]), 3)        # a difference above this is significant
    0.132
    """
    ranges = tukey_ranges(permuted)
    pairs = system_pairs(value.shape[1])
    diff = _rounded(np.abs(value[:, pairs[:, 0]] - value[:, pairs[:, 1]]))  # (M, P)
    p = np.full(diff.shape, np.nan)
    used = np.sum(~np.isnan(ranges), axis=0)  # (M,)
    required = np.full(value.shape[0], np.nan)
    for m in range(value.shape[0]):  # over the metrics: one sort of the trials' ranges each
        k = int(used[m])
        if k == 0:
            continue
        r = np.sort(ranges[:, m])[:k]  # NaN sort last
        ok = ~np.isnan(diff[m])
        p[m, ok] = (k - np.searchsorted(r, diff[m, ok], side="left")) / k
        required[m] = r[k - 1 - _count_below(alpha, k)]
    return PairTests("tukey", TUKEY_CORRECTION, p, np.repeat(used[:, None], diff.shape[1], axis=1), required)


def tukey_pvalues(value: np.ndarray, permuted: np.ndarray) -> np.ndarray:
    """The p-values of the randomised Tukey HSD (``tukey_test``).

    Parameters
    ----------
    value : ndarray, shape (M, S)
    permuted : ndarray, shape (T, M, S)

    Returns
    -------
    ndarray, shape (M, P)
        In ``ranking.system_pairs`` order.

    Examples
    --------
    >>> import numpy as np
    >>> tukey_pvalues(np.array([[0.9, 0.5]]), np.array([[[0.6, 0.7]], [[0.3, 0.8]]])).tolist()
    [[0.5]]
    """
    return tukey_test(value, permuted).p


def _centred(value: np.ndarray, boot: np.ndarray):
    """Per pair: the observed difference d (M, P), the replicates' centred
    distances |d_b - d| rounded (B, M, P; NaN where d_b is undefined) and
    the replicates used n (M, P)."""
    pairs = system_pairs(value.shape[1])
    d = value[:, pairs[:, 0]] - value[:, pairs[:, 1]]
    db = boot[:, :, pairs[:, 0]] - boot[:, :, pairs[:, 1]]
    with np.errstate(invalid="ignore"):
        return d, _rounded(np.abs(db - d)), np.sum(~np.isnan(db), axis=0)


def bootstrap_pvalues(value: np.ndarray, boot: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the paired bootstrap test (the shift method).

    Parameters
    ----------
    value : ndarray, shape (M, S)
    boot : ndarray, shape (B, M, S)
        Paired replicates (the same resamples for every system).

    Returns
    -------
    ndarray, shape (M, P)
        p = #{b : |d_b - d| >= |d|} / B_used per pair (``bootstrap_test``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])             # 1 metric x 3 systems
    >>> boot = value + rng.normal(0, 0.03, (1000, 1, 3))   # 1,000 replicates
    >>> bootstrap_pvalues(value, boot).round(3).tolist()
    [[0.0, 0.0, 0.82]]
    """
    d, dist, n = _centred(value, boot)
    with np.errstate(invalid="ignore"):
        hit = np.sum(dist >= _rounded(np.abs(d)), axis=0)  # NaN compares False
        return np.where((n > 0) & ~np.isnan(d), hit / np.maximum(n, 1), np.nan)


def bootstrap_difference_required(value: np.ndarray, boot: np.ndarray, alpha: float = default_of("alpha")) -> np.ndarray:
    """Per pair, the difference the paired bootstrap test requires at ``alpha``.

    Parameters
    ----------
    value : ndarray, shape (M, S)
    boot : ndarray, shape (B, M, S)
    alpha : float, default 0.05

    Returns
    -------
    ndarray, shape (M, P)
        Unadjusted.

    Notes
    -----
    With the pair's centred distances |d_b - d| sorted decreasingly and c the
    largest count with c / B_used < alpha, the (c + 1)-th largest (Sakai 2006:
    the rank-B*alpha replicate, the 50th of 1,000).  An observed |d| is
    significant if and only if it exceeds it (at ``TIE_DECIMALS`` decimals), as
    ``bootstrap_pvalues`` counts |d_b - d| >= |d|.

    References
    ----------
    Sakai (2006), "Evaluating evaluation metrics based on the bootstrap", SIGIR.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])             # 1 metric x 3 systems
    >>> boot = value + rng.normal(0, 0.03, (1000, 1, 3))   # 1,000 replicates
    >>> bootstrap_difference_required(value, boot).round(3).tolist()
    [[0.084, 0.084, 0.084]]
    """
    d, dist, n = _centred(value, boot)
    ordered = np.sort(dist, axis=0)  # NaN last
    at = np.maximum(n - 1 - _count_below(alpha, n), 0)
    req = np.take_along_axis(ordered, at[None], axis=0)[0]
    return np.where((n > 0) & ~np.isnan(d), req, np.nan)


def bootstrap_test(value: np.ndarray, boot: np.ndarray, alpha: float = default_of("alpha"),
                   correction: str = default_of("significance_correction")) -> PairTests:
    """Paired bootstrap test of every pair of systems.

    Parameters
    ----------
    value : ndarray, shape (M, S)
        The observed scores.
    boot : ndarray, shape (B, M, S)
        The scores on B paired bootstrap replicates.
    alpha : float, default 0.05
        For ``required``.
    correction : {"holm", "bh", "none"}, default "holm"
        The adjustment over the family of all pairs of one metric.

    Returns
    -------
    PairTests

    Notes
    -----
    The unstudentised shift method (Efron & Tibshirani 1993, sec. 16.4;
    Berg-Kirkpatrick, Burkett & Klein 2012).  Null hypothesis: the distribution
    of a pair's difference is the bootstrap one, shifted to centre on 0:

        p = #{b used : |d_b - d| >= |d|} / B_used   (two-sided; no +1),

    a replicate being used when d_b is defined.  This is *not* Sakai's (2006)
    test, which studentises per-topic differences and has no counterpart for
    non-decomposable metrics.  Each pair is tested on its own, so the p-values
    are adjusted by ``correction`` (Holm: family-wise error; BH: false
    discovery rate; none), and its discriminative power is not comparable with
    the Tukey test's.  ``required``: the largest over the pairs of
    ``bootstrap_difference_required`` (Sakai's conservative choice), unadjusted.

    References
    ----------
    Efron & Tibshirani (1993), sec. 16.4; Berg-Kirkpatrick, Burkett & Klein
    (2012), "An empirical investigation of statistical significance in NLP".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> value = np.array([[0.80, 0.60, 0.59]])             # 1 metric x 3 systems
    >>> boot = value + rng.normal(0, 0.03, (1000, 1, 3))   # 1,000 replicates
    >>> t = bootstrap_test(value, boot, correction="holm")
    >>> t.adjusted().round(3).tolist()
    [[0.0, 0.0, 0.82]]
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")
    _, _, n = _centred(value, boot)
    per_pair = bootstrap_difference_required(value, boot, alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a metric without any defined pair: NaN
        required = np.nanmax(per_pair, axis=1) if per_pair.shape[1] else np.full(value.shape[0], np.nan)
    return PairTests("bootstrap", correction, bootstrap_pvalues(value, boot), n, required)


def pair_table(metric_ids, systems, value: np.ndarray, tests: PairTests) -> pd.DataFrame:
    """Every pair of systems per metric, as a table.

    Parameters
    ----------
    metric_ids : sequence of str
    systems : sequence of str
    value : ndarray, shape (M, S)
    tests : PairTests

    Returns
    -------
    pandas.DataFrame
        ``metric, system_a, system_b, difference, p_value, p_value_se, p_holm,
        p_bh`` (difference = a - b): the unadjusted p-value, its Monte Carlo
        standard error and the Holm and Benjamini-Hochberg adjusted ones (family:
        the metric's pairs; equal to ``p_value`` for the Tukey test, whose
        p-values are family-wise already).

    Examples
    --------
    >>> import numpy as np
    >>> value = np.array([[0.9, 0.5]])
    >>> t = tukey_test(value, np.array([[[0.6, 0.7]], [[0.3, 0.8]]]))
    >>> pair_table(["accuracy"], ["a", "b"], value, t)[["system_a", "system_b", "difference", "p_value"]]
      system_a system_b  difference  p_value
    0        a        b         0.4      0.5
    """
    pairs = system_pairs(len(systems))
    names = np.asarray(systems, dtype=object)
    se, holm_p, bh_p = tests.se, tests.adjusted("holm"), tests.adjusted("bh")
    frames = [pd.DataFrame({"metric": mid, "system_a": names[pairs[:, 0]], "system_b": names[pairs[:, 1]],
                            "difference": value[m, pairs[:, 0]] - value[m, pairs[:, 1]], "p_value": tests.p[m],
                            "p_value_se": se[m], "p_holm": holm_p[m], "p_bh": bh_p[m]})
              for m, mid in enumerate(metric_ids)]
    return pd.concat(frames, ignore_index=True)


def best_groups(metric_ids, systems, value: np.ndarray, p: np.ndarray, alpha: float) -> pd.DataFrame:
    """Per metric, the best system and the systems that cannot be told from it.

    Parameters
    ----------
    metric_ids : sequence of str
    systems : sequence of str
    value : ndarray, shape (M, S)
    p : ndarray, shape (M, P)
        The p-values the verdicts are taken on (``PairTests.decisive``).
    alpha : float

    Returns
    -------
    pandas.DataFrame
        ``metric, best, n_indistinguishable, indistinguishable_from_best``
        (best first; lower-is-better metrics negated before choosing the best).

    Examples
    --------
    >>> import numpy as np
    >>> value = np.array([[0.8, 0.6, 0.78]])
    >>> p = np.array([[0.01, 0.40, 0.02]])   # pairs (a, b), (a, c), (b, c)
    >>> best_groups(["accuracy"], ["a", "b", "c"], value, p, 0.05)
         metric best  n_indistinguishable indistinguishable_from_best
    0  accuracy    a                    1                           c
    """
    pairs = system_pairs(len(systems))
    rows = []
    for m, mid in enumerate(metric_ids):
        o = orient(value[m], M.get(mid).higher_is_better)
        best = int(np.argmax(o))
        pm = np.ones(len(systems))
        hit = (pairs == best).any(axis=1)
        other = np.where(pairs[hit, 0] == best, pairs[hit, 1], pairs[hit, 0])
        pm[other] = p[m, hit]
        same = ~significant(pm, alpha)
        order = [i for i in np.argsort(-o, kind="stable") if i == best or same[i]]
        rows.append({"metric": mid, "best": systems[best], "n_indistinguishable": len(order) - 1,
                     "indistinguishable_from_best": "; ".join(systems[i] for i in order if i != best)})
    return pd.DataFrame(rows)


def discriminative_power(metric_ids, value: np.ndarray, tests: PairTests | np.ndarray, alpha: float) -> pd.DataFrame:
    """Per metric, the share of system pairs it tells apart (Sakai 2006).

    Parameters
    ----------
    metric_ids : sequence of str
    value : ndarray, shape (M, S)
    tests : PairTests or ndarray of shape (M, P)
        A bare array is taken as family-wise p-values (of the Tukey test); the
        columns that need the trials are then empty.
    alpha : float

    Returns
    -------
    pandas.DataFrame
        ``metric, test, correction, n_pairs, n_trials, n_significant,
        n_borderline, discriminative_power, smallest_significant_difference,
        difference_required``.

    Notes
    -----
    * ``n_significant`` / ``discriminative_power``: the pairs (their share of
      ``n_pairs``) ``significant`` at ``alpha`` on ``PairTests.decisive``
      (Holm- or BH-adjusted for the bootstrap test, as its correction says).
    * ``n_trials``: the trials the p-values were estimated from (for the
      bootstrap test, the fewest replicates used by any pair).
    * ``n_borderline``: pairs whose verdict could flip with another seed
      (``PairTests.borderline``: p within 2.576 Monte Carlo standard errors of
      alpha): the Monte Carlo uncertainty of ``n_significant``.
    * ``smallest_significant_difference``: the smallest observed |a - b| among
      the significant pairs.
    * ``difference_required``: Sakai's estimated difference required
      (``PairTests.required``).

    Discriminative power depends on the numbers of systems and items and on the
    test: compare metrics on the same systems, items and test only.

    References
    ----------
    Sakai (2006), "Evaluating evaluation metrics based on the bootstrap", SIGIR.

    Examples
    --------
    >>> import numpy as np
    >>> value = np.array([[0.8, 0.6, 0.78]])
    >>> p = np.array([[0.01, 0.40, 0.02]])
    >>> discriminative_power(["accuracy"], value, p, 0.05)[["metric", "n_pairs", "n_significant", "discriminative_power"]]
         metric  n_pairs  n_significant  discriminative_power
    0  accuracy        3              2              0.666667
    """
    if not isinstance(tests, PairTests):
        p = np.asarray(tests, dtype=np.float64)
        tests = PairTests("tukey", TUKEY_CORRECTION, p, np.zeros(p.shape, dtype=np.int64),
                          np.full(p.shape[0], np.nan))
    pairs = system_pairs(value.shape[1])
    sig = significant(tests.decisive, alpha)
    border = tests.borderline(alpha)
    known = tests.n.size > 0 and tests.n.max() > 0
    rows = []
    for m, mid in enumerate(metric_ids):
        d = np.abs(value[m, pairs[:, 0]] - value[m, pairs[:, 1]])
        defined = ~np.isnan(tests.p[m])
        rows.append({"metric": mid, "test": tests.test, "correction": tests.correction,
                     "n_pairs": int(pairs.shape[0]),
                     "n_trials": int(tests.n[m, defined].min()) if known and defined.any() else pd.NA,
                     "n_significant": int(sig[m].sum()),
                     "n_borderline": int(border[m].sum()) if known else pd.NA,
                     "discriminative_power": sig[m].mean() if pairs.shape[0] else np.nan,
                     "smallest_significant_difference": float(d[sig[m]].min()) if sig[m].any() else np.nan,
                     "difference_required": float(tests.required[m])})
    df = pd.DataFrame(rows)
    return df.astype({"n_trials": "Int64", "n_borderline": "Int64"})


def run_significance(ds, spec, settings, boot: np.ndarray | None = None) -> dict:
    """Every pair of a dataset's ranked systems tested, per metric.

    Parameters
    ----------
    ds : metaeval.data.dataset.Dataset
    spec : metaeval.data.config.DatasetSpec
    settings : metaeval.methods.experiments.Settings
        ``significance_test`` (``tukey`` or ``bootstrap``), ``tukey_trials``,
        ``tukey_seed``, ``alpha``, ``significance_correction`` (the bootstrap
        test only: the Tukey test's p-values are family-wise), ...
    boot : ndarray, optional
        The bootstrap replicates of ``run_bootstrap`` (the bootstrap test reuses
        them).

    Returns
    -------
    dict
        ``significance`` (``pair_table``), ``best`` (``best_groups``), ``power``
        (``discriminative_power``), ``tests`` (``PairTests``), and with the
        Tukey test ``permuted_confusion``: the trials' confusion tensors
        (T, S, K, K) in the smallest integer type that holds the counts (None
        without classification metrics).

    Examples
    --------
    >>> from metaeval.api import dataset, settings
    >>> ds, spec = dataset(list("aabbbccc") * 10, {"x": list("aabbbccc") * 10, "y": list("abbbbcca") * 10},
    ...                    metrics=["accuracy"], baselines=[])
    >>> res = run_significance(ds, spec, settings(tukey_trials=1000))
    >>> res["significance"][["system_a", "system_b", "difference", "p_value"]]
      system_a system_b  difference  p_value
    0        x        y        0.25      0.0
    """
    scorer, systems = _scorer(ds, spec, settings)
    value = scorer.score(scorer.total)
    ids = list(scorer.metric_ids)
    kept = None
    if settings.significance_test == "tukey":
        trials = np.arange(settings.tukey_trials)
        scores = []
        for idx in chunk_indices(trials, settings.chunk_size, 1):
            counts = scorer.permuted_counts(idx, settings.tukey_seed)
            scores.append(scorer.score(counts))
            if counts.confusion is not None:  # the trials' confusion tensors, in the smallest type that holds them
                if kept is None:
                    kept = np.empty((trials.size,) + counts.confusion.shape[1:], dtype=count_dtype(ds.n_items))
                kept[idx] = counts.confusion
            report(int(idx[-1]) + 1, trials.size, "Tukey trials")
        tests = tukey_test(value, np.concatenate(scores), settings.alpha)
    else:
        if boot is None:
            boot = bootstrap_scores(scorer, settings.bootstrap_replicates, settings.bootstrap_seed,
                                    settings.chunk_size)
        tests = bootstrap_test(value, boot, settings.alpha, settings.significance_correction)
    return {"significance": pair_table(ids, systems, value, tests),
            "best": best_groups(ids, systems, value, tests.decisive, settings.alpha),
            "power": discriminative_power(ids, value, tests, settings.alpha), "tests": tests, "p": tests.p,
            "value": value, "systems": systems, "metrics": ids,
            "permuted_confusion": kept}
