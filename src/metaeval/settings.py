"""The settings of every method, in one tree: the only place for their
defaults, types, ranges and meanings.

Each method has a frozen dataclass of its own (``Ranking``, ``Stability``, ``Merging``,
``Bootstrap``, ``Significance``, ``Noise``, ``Priors``, ``Verdict``,
``Design``, ...); ``Experiments`` gathers them.  A field is declared once,
with its default, the JSON-schema of its value (``workflow/schemas/config.schema.yaml``'s
``experiments`` block is this tree's, ``experiments_schema``; a test
compares them) and one line of meaning (``config/README.md``'s table,
``readme_table``; a test compares them too).

The config keeps one flat ``experiments`` block (``n_splits: 1000``, as
before); each key belongs to exactly one method (``GROUP_OF``).  The flat
view the methods read today, ``metaeval.methods.experiments.Settings``, is built
from this tree (``flat_fields``), so its defaults are these.

Examples
--------
>>> Experiments().stability.n_splits
1000
>>> GROUP_OF["design_power"]
'design'
>>> describe(field_of("verdict_alpha"))
'a number in (0, 0.5)'
"""

from __future__ import annotations

import numbers
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, Mapping

from .engine import MAX_SEED  # seeds are counter-based streams of 56 bits


class ConfigError(ValueError):
    """The configuration is inconsistent; the message names the key."""


class MetricFault(ConfigError):
    """A custom metric the configuration lists broke its contract: its code
    is at fault, not a key, so the command line exits with 1 as for bad
    data (2 is for an option)."""


# experiment settings of earlier versions: refused with what replaced them (the check of unknown keys says
# the same, before the schema's own error)
SUPERSEDED_SETTINGS = {
    "tier_alpha": "the top tiers are superseded by the Model Confidence Set: set verdict_alpha instead (the "
                  "family's level, Bonferroni over the criteria; docs/recommendation.md)",
    "min_difference": "the top tiers' smallest meaningful difference is superseded by the Model Confidence Set, "
                      "which has no margin: remove it (docs/recommendation.md)",
}


def closest(wrong, known) -> str:
    """`` (did you mean 'x'?)`` for the first of ``wrong`` with a close
    match among ``known`` (difflib), else an empty string.

    >>> closest(["acuracy"], ["accuracy", "kappa"])
    " (did you mean 'accuracy'?)"
    >>> closest(["f1_macro"], ["macro_f1", "f1_weighted"])   # the same words in another order first
    " (did you mean 'macro_f1'?)"
    """
    import difflib

    known = list(known)
    for w in sorted(wrong):
        words = sorted(str(w).lower().replace("-", "_").split("_"))
        same = [k for k in known if sorted(str(k).lower().split("_")) == words]
        near = same or difflib.get_close_matches(str(w), known, n=1)
        if near:
            return f" (did you mean {near[0]!r}?)"
    return ""


# the evidence criteria of the recommendation, in the tables' order by id, with the names the
# pages give them (verdict.recommendation.CRITERIA)
CRITERION_NAMES = {
    "stability": "rank stability",
    "discrimination": "class discrimination",
    "power": "discriminative power",
    "noise": "robustness to label noise",
    "priors": "robustness to class priors",
}
ALL_CRITERIA = tuple(CRITERION_NAMES)
# the names the criteria setting accepts ('properties': refused with a word, see check): the built-in ones, and
# those registered later (metaeval.verdict.criteria.register_criterion calls declare_criterion)
_CRITERION_ENUM = [*ALL_CRITERIA, "properties"]


def declare_criterion(cid: str, name: str | None) -> None:
    """A criterion registered beside the built-in ones: the criteria setting
    and the declared priorities accept its id, the pages name it ``name``
    (None: forget it again)."""
    if name is None:
        CRITERION_NAMES.pop(cid, None)
        if cid in _CRITERION_ENUM and cid not in ALL_CRITERIA:
            _CRITERION_ENUM.remove(cid)
        return
    CRITERION_NAMES[cid] = name
    if cid not in _CRITERION_ENUM:
        _CRITERION_ENUM.insert(len(_CRITERION_ENUM) - 1, cid)
# the verdict's two questions: which metric ranks these systems reliably (the test units resampled), and which
# would rank new systems like them (units and systems resampled; metaeval.verdict.evidence.SCHEME)
SCOPES = ("these_systems", "new_systems")


# -- declared settings: a dataclass field that carries its default, one line of meaning and the JSON-schema
# of its value; the config's schema, config/README.md's tables and the library's checks are generated from them
def setting(default: Any, meaning: str, *, param: bool = True, **schema) -> Any:
    """A setting: its default, one line of meaning, the JSON-schema of its
    value (without ``type`` for a list: ``items`` says it).  ``param=False``:
    it shapes the workflow's jobs, never a number, and is no rule param of
    the steps of its method: a change reruns only the jobs whose inputs it
    changes (``shards``: the experiments job gathers other files) and what
    follows them, and the numbers stay the same."""
    kw = {"default_factory": (lambda d=default: d)} if isinstance(default, (list, dict)) else {"default": default}
    return field(metadata={"meaning": meaning, "schema": schema, "param": param}, **kw)

# Amemiya & Sakai: 14 systems in tiers of ranks 1-5, 6-10, 11-14
PAPER_TIERS = (5 / 14, 5 / 14, 4 / 14)
# how far the tier fractions may sum from 1 ([0.33, 0.33, 0.33] is thirds: the sizes are rounded to whole systems)
TIER_SUM_TOLERANCE = 0.01


_s = setting  # (short: the tree below is a table of declarations)


def _seed(default: int, what: str) -> Any:
    return _s(default, f"seed of {what} (counter-based: a draw depends only on the seed and its index)",
              type="integer", minimum=0, maximum=MAX_SEED)


@dataclass(frozen=True)
class Ranking:
    """Which systems the experiments rank, and how two rankings are compared."""

    min_systems: int = _s(6, "a dataset whose experiments would rank fewer systems has no meta-evaluation "
                             "(its scores are computed; the run says why)", param=False, type="integer", minimum=2)
    include_baselines: tuple[str, ...] = _s(("majority", "random"), "baselines ranked with the real systems "
                                            "(Amemiya & Sakai rank majority and random among their 14)",
                                            type="array", items={"type": "string"}, uniqueItems=True)
    tau_variant: str = _s("b", "Kendall's tau-b (ties) or a, for every tau the experiments output",
                          type="string", enum=["a", "b"])


@dataclass(frozen=True)
class Resampling:
    """How every experiment draws its resamples."""

    resample_unit: str = _s("item", "what half-splits, replicates and permutations draw: items, or whole groups "
                                    "(span datasets: articles); not with stratified",
                            type="string", enum=["item", "group"])
    chunk_size: int = _s(200, "splits, subsamples, replicates or trials per vectorised chunk: bounds memory, "
                              "not results", type="integer", minimum=1)


@dataclass(frozen=True)
class Similarity:
    """Ranking similarity and its groups (Amemiya & Sakai section 5.1)."""

    n_groups: int = _s(3, "similarity groups (the paper's A, B, C) from hierarchical clustering of 1 - tau",
                       type="integer", minimum=1)
    linkage: str = _s("average", "linkage of that clustering", type="string",
                      enum=["single", "complete", "average", "weighted"])


@dataclass(frozen=True)
class Summary:
    """What the summary pages call distinct."""

    distinct_tau: float = _s(0.9, "the summary calls two similarity groups not distinct when the mean tau "
                                  "between their metrics is at least this (Voorhees' 0.9)", type="number",
                             minimum=-1, maximum=1)


@dataclass(frozen=True)
class Stability:
    """Rank stability over random half-splits (Amemiya & Sakai section 5.2)."""

    n_splits: int = _s(1000, "random half-splits of the test units", type="integer", minimum=1)
    split_seed: int = _seed(20210301, "the half-splits")
    stratified: bool = _s(False, "stratified halves: each takes half of every gold class", type="boolean")
    shards: int = _s(1, "with 2 or more, the splits run as this many independent jobs (byte-identical results)",
                     param=False, type="integer", minimum=1)
    tier_fractions: tuple[float, ...] = _s(PAPER_TIERS, "sizes of the top, middle and bottom tiers as fractions "
                                                        "of the ranked systems, summing to 1 (within 0.01; 14 "
                                                        "systems: 5, 5, 4)",
                                           type="array", items={"type": "number", "exclusiveMinimum": 0},
                                           minItems=3, maxItems=3)


@dataclass(frozen=True)
class Merging:
    """Class merging (ordinal discrimination, Amemiya & Sakai section 5.3)."""

    balanced_repeats: int = _s(100, "class merging on class-balanced subsamples, this many times (1: the "
                                    "paper's single draw)", type="integer", minimum=1)
    balanced_seed: int = _seed(20210302, "the balanced subsamples")


@dataclass(frozen=True)
class Bootstrap:
    """Bootstrap intervals of the scores (and the gameability test's resamples)."""

    bootstrap_replicates: int = _s(1000, "paired bootstrap replicates of the units (every system and metric on "
                                         "the same replicates)", type="integer", minimum=2)
    bootstrap_seed: int = _seed(20210303, "the replicates (and of the gameability test's resamples)")
    confidence: float = _s(0.95, "level of the intervals", type="number", exclusiveMinimum=0, exclusiveMaximum=1)
    interval_method: str = _s("percentile", "percentile, or bca (bias-corrected and accelerated, Efron & "
                                            "Tibshirani 1993, ch. 14)", type="string", enum=["percentile", "bca"])


@dataclass(frozen=True)
class Significance:
    """Significance between systems and the discriminative power (Sakai)."""

    tukey_trials: int = _s(5000, "randomised Tukey HSD: trials, each permuting every unit's predictions across "
                                 "the systems", type="integer", minimum=1)
    tukey_seed: int = _seed(20210304, "the permutations")
    alpha: float = _s(0.05, "significance level of the discriminative power (a pair is significant when p < "
                            "alpha)", type="number", exclusiveMinimum=0, exclusiveMaximum=1)
    significance_test: str = _s("tukey", "tukey (randomised Tukey HSD over all pairs) or bootstrap (the paired "
                                         "bootstrap test per pair)", type="string", enum=["tukey", "bootstrap"])
    significance_correction: str = _s("holm", "the bootstrap test only: holm, bh (Benjamini-Hochberg) or none, "
                                              "over each metric's pairs", type="string", enum=["holm", "bh", "none"])


@dataclass(frozen=True)
class Noise:
    """Robustness to label noise."""

    noise_rates: tuple[float, ...] = _s((0.01, 0.02, 0.05, 0.10), "shares of the gold labels flipped",
                                        type="array", items={"type": "number", "exclusiveMinimum": 0,
                                                             "maximum": 1}, minItems=1)
    noise_mode: str = _s("auto", "where a flipped label goes: uniform (any other class), neighbour (an adjacent "
                                 "class), auto (neighbour if ordinal)", type="string",
                         enum=["auto", "uniform", "neighbour"])
    noise_repeats: int = _s(100, "noisy golds per rate", type="integer", minimum=1)
    noise_seed: int = _seed(20210305, "the flips")
    noise_power_repeats: int = _s(1, "noisy golds of the highest rate on which the discriminative power is "
                                     "measured again (0: none)", type="integer", minimum=0)


@dataclass(frozen=True)
class Priors:
    """Robustness to class priors."""

    prior_gammas: tuple[float, ...] = _s((0.0, 0.5, 2.0, 3.0), "the gold distribution pi re-weighted to "
                                                               "pi^gamma (0: balanced, 1: the test set)",
                                         type="array", items={"type": "number", "minimum": 0}, minItems=1)


@dataclass(frozen=True)
class Criteria:
    """The recommendation's evidence criteria and their resamples (docs/recommendation.md)."""

    criteria: tuple[str, ...] = _s(ALL_CRITERIA, "the evidence criteria of the recommendation",
                                   type="array", items={"type": "string", "enum": _CRITERION_ENUM},
                                   minItems=1, uniqueItems=True)
    criteria_replicates: int = _s(500, "resamples behind every criterion's interval and Model Confidence Set "
                                       "(p-values to 1 / (replicates + 1))", type="integer", minimum=2)
    criteria_splits: int = _s(4, "half-splits inside each resample for its rank stability", type="integer",
                              minimum=1)
    criteria_seed: int = _seed(20210306, "the criteria's resamples")
    criteria_shards: int = _s(1, "with 2 or more, the criteria's resamples run as this many independent jobs "
                                 "(byte-identical results)", param=False, type="integer", minimum=1)


@dataclass(frozen=True)
class Level:
    """The family's error level, of the verdict and of the gameability test."""

    verdict_alpha: float = _s(0.05, "the family's level: each criterion's Model Confidence Set at verdict_alpha / "
                                    "C (Bonferroni); also the gameability test's level", type="number",
                              exclusiveMinimum=0, exclusiveMaximum=0.5)


@dataclass(frozen=True)
class Verdict:
    """The verdict on the criteria (docs/recommendation.md)."""

    verdict_scope: str = _s(SCOPES[0], "the scope whose answer heads the page (both are shown)",
                            type="string", enum=list(SCOPES))
    verdict_mc_level: float = _s(0.95, "level of the Monte Carlo interval of each MCS p-value: a metric is eliminated "
                                       "only when the interval's upper end is below the set's level (Gandy 2009); 0: "
                                       "the p-value itself", type="number", minimum=0, exclusiveMaximum=1)


@dataclass(frozen=True)
class Design:
    """The test-set size design (docs/experiments/design.md)."""

    design_power: float = _s(0.8, "the power at which the minimum detectable difference is given",
                             type="number", exclusiveMinimum=0, exclusiveMaximum=1)
    design_min_fraction: float = _s(0.05, "the smallest size of the design, as a fraction of the test units",
                                    type="number", exclusiveMinimum=0, maximum=1)
    design_max_factor: float = _s(4.0, "the largest size, as a multiple of the test units", type="number",
                                  minimum=1)
    design_points: int = _s(16, "geometric steps between the smallest and the largest size", type="integer",
                            minimum=2)
    design_draws: int = _s(100, "pairs of disjoint random subsets per size (swap rates)", type="integer",
                           minimum=1)
    design_seed: int = _seed(20210307, "the subsets")
    design_bin_width: float = _s(0.01, "swap rates binned by the difference on the first subset",
                                 type="number", exclusiveMinimum=0)
    design_differences: tuple[float, ...] = _s((0.01, 0.02, 0.05), "the units needed to detect each of these "
                                                                    "differences", type="array",
                                               items={"type": "number", "exclusiveMinimum": 0}, minItems=1)


# what each of a leaderboard's resampling schemes resamples, as its tables and pages state it (one place: the
# methods and the pages read it here)
LEADERBOARD_SCHEMES = {"items": "items resampled within each task (the tasks fixed)",
                       "tasks": "tasks resampled (each with all its items)",
                       "both": "tasks resampled, then items within each drawn task"}
# the criteria of the verdict on a leaderboard's aggregates, in words (read by the methods and the page)
LEADERBOARD_CRITERIA = {"stability": "rank stability", "resolution": "adjacent pairs resolved",
                        "robustness": "robustness to one system more or less",
                        "gameability": "resistance to degenerate systems"}


@dataclass(frozen=True)
class Leaderboards:
    """Leaderboards: rank sets, the experiments on aggregates, their verdict and design (docs/leaderboards.md)."""

    leaderboard_schemes: tuple[str, ...] = _s(("items", "tasks", "both"), "the resampling schemes of a "
                                              "leaderboard's tables: items within tasks, tasks, or both",
                                              type="array", items={"type": "string",
                                                                   "enum": ["items", "tasks", "both"]},
                                              minItems=1, uniqueItems=True)
    leaderboard_replicates: int = _s(1000, "bootstrap replicates behind the rank confidence sets and percentile "
                                           "intervals of ranks", type="integer", minimum=20)
    leaderboard_alpha: float = _s(0.05, "1 - the confidence of the rank sets (and the family's level of the "
                                        "verdict on aggregates)", type="number", exclusiveMinimum=0,
                                  exclusiveMaximum=0.5)
    leaderboard_family: str = _s("simultaneous", "the rank sets that decide which pairs are resolved (tie "
                                                 "bands, the resolution criterion, the design): the whole "
                                                 "ranking at once, or each system's rank alone",
                                 type="string", enum=["simultaneous", "marginal"])
    leaderboard_splits: int = _s(1000, "random half-splits for the aggregates' rank stability", type="integer",
                                 minimum=1)
    leaderboard_verdict_replicates: int = _s(500, "shared resamples behind the verdict on aggregates",
                                             type="integer", minimum=20)
    leaderboard_design_halves: int = _s(8, "random halves on which the design measures how the paired "
                                           "standard error shrinks", type="integer", minimum=2)
    leaderboard_seed: int = _seed(20210308, "a leaderboard's resamples and half-splits")


@dataclass(frozen=True)
class Experiments:
    """Every method's settings (the config's ``experiments`` block, a
    dataset's own block overriding it key by key)."""

    ranking: Ranking = field(default_factory=Ranking)
    resampling: Resampling = field(default_factory=Resampling)
    similarity: Similarity = field(default_factory=Similarity)
    summary: Summary = field(default_factory=Summary)
    stability: Stability = field(default_factory=Stability)
    merging: Merging = field(default_factory=Merging)
    bootstrap: Bootstrap = field(default_factory=Bootstrap)
    significance: Significance = field(default_factory=Significance)
    noise: Noise = field(default_factory=Noise)
    priors: Priors = field(default_factory=Priors)
    criteria: Criteria = field(default_factory=Criteria)
    level: Level = field(default_factory=Level)
    verdict: Verdict = field(default_factory=Verdict)
    design: Design = field(default_factory=Design)
    leaderboards: Leaderboards = field(default_factory=Leaderboards)

    @classmethod
    def from_flat(cls, flat) -> "Experiments":
        """The tree of a flat settings object (``experiments.Settings``) or mapping."""
        get = flat.get if isinstance(flat, Mapping) else lambda k, d=None: getattr(flat, k, d)
        return cls(**{name: group(**{f.name: get(f.name, _default(f)) for f in fields(group)})
                      for name, group in GROUPS.items()})


# the methods' settings, by the name of their branch of the tree
GROUPS: dict[str, type] = {f.name: f.type if isinstance(f.type, type) else globals()[f.type]
                           for f in fields(Experiments)}
# each flat config key belongs to exactly one method
GROUP_OF: dict[str, str] = {f.name: g for g, cls in GROUPS.items() for f in fields(cls)}
assert len(GROUP_OF) == sum(len(fields(c)) for c in GROUPS.values()), "a setting declared twice"


def field_of(key: str) -> Field:
    """The declaration of the flat key ``key``.

    >>> field_of("n_splits").default
    1000
    """
    return next(f for f in fields(GROUPS[GROUP_OF[key]]) if f.name == key)


def _default(f: Field) -> Any:
    return f.default if f.default is not MISSING else f.default_factory()


def default_of(key: str) -> Any:
    """The default of the flat key ``key``.

    >>> default_of("design_differences")
    (0.01, 0.02, 0.05)
    """
    return _default(field_of(key))


def flat_fields() -> list[tuple[str, Any, Field]]:
    """``(name, type, field)`` of every setting, branch after branch: the
    fields of the flat view (``experiments.Settings``), with these defaults."""
    return [(f.name, f.type, field(default=_default(f), metadata=f.metadata))
            for cls in GROUPS.values() for f in fields(cls)]


# -- what a value must be ---------------------------------------------------
_TYPE_WORDS = {"integer": "an integer", "number": "a number", "string": "a text", "boolean": "true or false"}


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _bounds(sc: Mapping) -> str:
    lo = ("(", sc["exclusiveMinimum"]) if "exclusiveMinimum" in sc else ("[", sc.get("minimum"))
    hi = (")", sc["exclusiveMaximum"]) if "exclusiveMaximum" in sc else ("]", sc.get("maximum"))
    if lo[1] is not None and hi[1] is not None:
        if sc.get("maximum") == MAX_SEED and sc.get("minimum") == 0:
            return "in [0, 2**56)"
        return f"in {lo[0]}{_num(lo[1])}, {_num(hi[1])}{hi[0]}"
    if lo[1] is not None:
        return f"{'>' if lo[0] == '(' else '>='} {_num(lo[1])}"
    if hi[1] is not None:
        return f"{'<' if hi[0] == ')' else '<='} {_num(hi[1])}"
    return ""


def describe(f: Field) -> str:
    """What a setting's value must be, in words (the messages, the README).

    >>> describe(field_of("design_power")), describe(field_of("tau_variant"))
    ('a number in (0, 1)', "'a' or 'b'")
    >>> describe(field_of("noise_rates"))
    'a non-empty list of numbers in (0, 1]'
    """
    sc = f.metadata["schema"]
    if "enum" in sc:
        opts = [repr(x) for x in sc["enum"]]
        return opts[0] if len(opts) == 1 else ", ".join(opts[:-1]) + " or " + opts[-1]
    if sc.get("type") == "array":
        it = sc.get("items", {})
        n = sc.get("minItems")
        size = (f"a list of {n} " if n is not None and n == sc.get("maxItems") else
                "a non-empty list of " if n == 1 else "a list of ")
        if "enum" in it:
            return size + ", ".join(map(str, it["enum"]))
        word = {"number": "numbers", "string": "texts", "integer": "integers"}[it.get("type", "string")]
        b = _bounds(it)
        return size + word + (f" {b}" if b else "")
    b = _bounds(sc)
    return _TYPE_WORDS[sc["type"]] + (f" {b}" if b else "")


def _is(value, type_: str) -> bool:
    if type_ == "boolean":
        return isinstance(value, bool)
    if type_ == "integer":
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if type_ == "number":
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if type_ == "string":
        return isinstance(value, str)
    return True


def _within(value, sc: Mapping) -> bool:
    if "enum" in sc and value not in sc["enum"]:
        return False
    return (("minimum" not in sc or value >= sc["minimum"]) and ("maximum" not in sc or value <= sc["maximum"])
            and ("exclusiveMinimum" not in sc or value > sc["exclusiveMinimum"])
            and ("exclusiveMaximum" not in sc or value < sc["exclusiveMaximum"]))


def check_value(key: str, value, where: str = "experiments") -> Any:
    """``value`` as the setting ``key`` holds it (a list as a tuple), or a
    ConfigError naming the key, what it must be and what it got.

    >>> check_value("noise_rates", [0.1, 0.2])
    (0.1, 0.2)
    >>> check_value("design_power", 1.5)
    Traceback (most recent call last):
    ...
    metaeval.settings.ConfigError: experiments.design_power must be a number in (0, 1), got 1.5
    """
    f = field_of(key)
    sc = f.metadata["schema"]
    if sc.get("type") == "array":
        it = sc.get("items", {})
        word = {"number": "a list of numbers", "string": "a list of texts", "integer": "a list of integers"}[
            it.get("type", "string")]
        if not isinstance(value, (list, tuple)) or not all(_is(x, it.get("type", "string")) for x in value):
            raise ConfigError(f"{where}.{key}: expected {word}, got {value!r}")
        ok = (len(value) >= sc.get("minItems", 0) and len(value) <= sc.get("maxItems", len(value))
              and all(_within(x, it) for x in value)
              and (not sc.get("uniqueItems") or len(set(value)) == len(value)))
        if not ok:
            raise ConfigError(f"{where}.{key} must be {describe(f)}, got {list(value)!r}")
        return tuple(value)
    if not _is(value, sc["type"]):
        raise ConfigError(f"{where}.{key}: expected {_TYPE_WORDS[sc['type']]}, got {value!r}")
    if not _within(value, sc):
        raise ConfigError(f"{where}.{key} must be {describe(f)}, got {value!r}")
    return value


def check(s) -> None:
    """The checks between settings (each value alone: ``check_value``)."""
    if s.resample_unit == "group" and s.stratified:
        raise ConfigError("experiments.stratified: stratified halves are drawn over items by gold class; they "
                          "cannot be combined with resample_unit: group")
    total = float(sum(s.tier_fractions))
    if abs(total - 1.0) > TIER_SUM_TOLERANCE + 1e-12:  # (never rescaled in silence: [0.5, 0.5, 0.5] is not thirds by intent)
        raise ConfigError(f"experiments.tier_fractions: {list(s.tier_fractions)!r} sum to {total:.6g}, not 1: give "
                          f"the fractions of the ranked systems in the top, middle and bottom tiers, summing to 1 "
                          f"(the paper's: [0.357, 0.357, 0.286])")
    if "properties" in s.criteria:
        raise ConfigError("experiments.criteria: 'properties' is no longer a criterion: the formal properties "
                          "are requirements, declared per dataset (datasets.<name>.requirements: [monotonicity, "
                          "...]); remove it from the list")


# -- the schema and the README, from the tree --------------------------------
def _plain(x):
    return [_plain(v) for v in x] if isinstance(x, (list, tuple)) else x


def experiments_schema() -> dict:
    """The JSON-schema of the ``experiments`` block (``workflow/schemas/config.schema.yaml``,
    ``$defs.experiments``: a test checks that the file says the same)."""
    props = {}
    for cls in GROUPS.values():
        for f in fields(cls):
            props[f.name] = {k: _plain(v) for k, v in f.metadata["schema"].items()}
    return {"type": "object", "properties": props, "additionalProperties": False}


def _default_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, tuple):
        if v == PAPER_TIERS:
            return "[5/14, 5/14, 4/14]"
        return "[" + ", ".join(_default_text(x) for x in v) + "]"
    return f"{v:g}" if isinstance(v, float) else str(v)


README_BEGIN = "<!-- the table below is generated by `python -m metaeval.settings` from src/metaeval/settings.py -->"
README_END = "<!-- end of the generated table -->"


def readme_table() -> str:
    """``config/README.md``'s table of the experiments' settings: per
    method, every key once with its default, what it must be and one line
    of meaning (a test checks that the file holds it)."""
    lines = [README_BEGIN, ""]
    for name, cls in GROUPS.items():
        lines += [f"**{cls.__doc__.strip().rstrip('.')}** (`{name}`)", "",
                  "| key | default | value | meaning |", "|---|---|---|---|"]
        for f in fields(cls):
            lines.append(f"| `{f.name}` | `{_default_text(_default(f))}` | {describe(f)} | "
                         f"{f.metadata['meaning']} |")
        lines.append("")
    return "\n".join(lines + [README_END])


# -- the formal properties' block (its declarations: PropertySettings) --
PROPERTY_K = 3  # the generic shape of the properties: three ordered classes


@dataclass(frozen=True)
class PropertySettings:
    """What the properties are checked on (config key ``properties``; a
    dataset's shape from ``dataset_settings``).

    ``k`` classes, ``ordinal`` or not; the parameters of the parameterised
    metrics (``weights``, ``f_avg_classes``, ``unrelated``: None when the
    shape has no unrelated class); ``class_sizes``: a dataset's gold class
    counts, which the imbalance property follows (None: every order of
    sizes).  Beyond 4 classes the random matrices of the first two kinds
    number ``random`` * 9 / K^2 (at least 200): a K x K matrix has K^2 / 9
    times the cells to move; beyond 3 classes ``random`` concentrated ones
    are added (``concentrated_matrices``).

    Examples
    --------
    >>> s = PropertySettings(n_max=5)
    >>> s.n_max, s.random, s.weights, s.k, s.ordinal
    (5, 2000, (0.5, 0.3, 0.2), 3, True)
    """

    # the config's ``properties`` block: these declarations are its schema and config/README.md's table
    # (metaeval.settings writes them; docs/settings-details.md says more of each)
    n_max: int = setting(8, "every 3 x 3 matrix with at most this many items, every class in the gold (15,795 for "
                            "8); fewer items for more classes", type="integer", minimum=3, maximum=14)
    random: int = setting(2000, "random matrices checked besides, twice: mostly right ones, and as many whose cells "
                                "are drawn alike, right or wrong", type="integer", minimum=0)
    random_n_max: int = setting(1000, "items of the largest mostly-right random matrix (the smallest has K)",
                                type="integer", minimum=3)
    random_sparse_n_max: int = setting(60, "items of the largest right-or-wrong random matrix (Cohen's kappa "
                                           "fails monotonicity from 16 items)", type="integer", minimum=3)
    seed: int = setting(20211206, "seed of the random matrices", type="integer", minimum=0)
    # parameters of the parameterised metrics: unequal weights on purpose (a
    # weighted metric is checked as it is used); F_avg over the outer classes
    # (SemEval-2016 Task 6: FAVOR, AGAINST); the FNC-1 score with the last class
    # as 'unrelated'
    weights: tuple[float, ...] = setting((0.5, 0.3, 0.2), "class weights of wAUC, wF1, wF2 in the generic case "
                                                          "(a dataset's shape uses its own default weights)",
                                         type="array", items={"type": "number", "minimum": 0}, minItems=3,
                                         maxItems=3)
    f_avg_classes: tuple[int, ...] = setting((0, 2), "the classes F_avg averages in the generic case (the outer "
                                                     "ones, as FAVOR and AGAINST)", type="array",
                                             items={"type": "integer", "minimum": 0, "maximum": 2}, minItems=1,
                                             uniqueItems=True)
    unrelated: int | None = setting(2, "the FNC-1 score's 'unrelated' class in the generic case", type="integer",
                                    minimum=0, maximum=2)
    positive: int = setting(0, "the class of the one-class metrics (f1_class, precision_class, recall_class) in the "
                               "generic case", type="integer", minimum=0, maximum=2)
    k: int = PROPERTY_K
    ordinal: bool = True
    class_sizes: tuple[int, ...] | None = None

    @classmethod
    def from_config(cls, block: Mapping | None) -> "PropertySettings":
        """The properties' settings from the config's ``properties`` block
        (``enabled`` is read by the workflow, not here); lists become
        tuples; an unknown setting raises ValueError.

        >>> PropertySettings.from_config({"n_max": 5, "weights": [0.5, 0.3, 0.2]}).n_max
        5
        """
        known = set(cls.__dataclass_fields__)
        block = dict(block or {})
        unknown = set(block) - known - {"enabled"}
        if unknown:
            raise ValueError(f"properties: unknown setting(s) {sorted(unknown)}; known: {', '.join(sorted(known))}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in block.items() if k in known})

    def __post_init__(self):
        k = self.k
        if k < 2:
            raise ValueError(f"properties: at least two classes, got k = {k}")
        if self.n_max < min(k, PROPERTY_K):
            raise ValueError(f"properties.n_max must be at least {min(k, PROPERTY_K)} (every class in the gold)")
        if self.random < 0 or (self.random and min(self.random_n_max, self.random_sparse_n_max) < k):
            raise ValueError(f"properties.random must be >= 0, random_n_max and random_sparse_n_max >= {k}")
        w = [float(x) for x in self.weights]
        if len(w) != k or min(w) < 0 or abs(sum(w) - 1) > 1e-9:
            raise ValueError(f"properties.weights: {k} non-negative weights summing to 1, got {self.weights!r}")
        if not self.f_avg_classes or not set(self.f_avg_classes) <= set(range(k)):
            raise ValueError(f"properties.f_avg_classes: class indices in 0..{k - 1}")
        if self.unrelated is not None and self.unrelated not in range(k):
            raise ValueError(f"properties.unrelated: a class index in 0..{k - 1}")
        if self.positive not in range(k):
            raise ValueError(f"properties.positive: a class index in 0..{k - 1}")
        if self.class_sizes is not None and len(self.class_sizes) != k:
            raise ValueError(f"properties: {k} class sizes, got {self.class_sizes!r}")

    def metric_params(self) -> dict:
        import numpy as np  # (not at the top: the command line's --help reads the defaults of this module)

        return {"weights": np.asarray(self.weights, float), "f_avg_classes": list(self.f_avg_classes),
                "unrelated": None if self.unrelated is None else int(self.unrelated), "positive": int(self.positive)}

    @property
    def random_count(self) -> int:
        """How many random matrices of the first two kinds (``random`` up to
        4 classes, then in proportion to 9 / K^2, at least 200)."""
        return self.random if self.k <= 4 else max(min(200, self.random), self.random * PROPERTY_K * PROPERTY_K // (self.k * self.k))


PROPERTIES_ENABLED = ("false leaves the formal properties out; the recommendations then offer no requirement "
                      "(declaring one is refused) and read the invariance to class priors from the data")


def properties_fields() -> list[Field]:
    """The declared fields of ``properties.PropertySettings``: the keys of the
    config's ``properties`` block (besides ``enabled``), with their defaults."""
    return [f for f in fields(PropertySettings) if "meaning" in f.metadata]


def properties_schema() -> dict:
    """The JSON-schema of the ``properties`` block (``workflow/schemas/config.schema.yaml``:
    a test checks that the file says the same)."""
    props = {"enabled": {"type": "boolean", "default": True}}
    for f in properties_fields():
        props[f.name] = {k: _plain(v) for k, v in f.metadata["schema"].items()}
    return {"type": "object", "description": "formal properties of the metrics (metaeval.measures.properties), checked on "
                                             "generated confusion matrices",
            "properties": props, "additionalProperties": False}


PROPERTIES_BEGIN = ("<!-- the table below is generated by `python -m metaeval.settings` from "
                    "src/metaeval/measures/properties.py -->")
PROPERTIES_END = "<!-- end of the generated table of the properties -->"


def properties_table() -> str:
    """``config/README.md``'s table of the ``properties`` block."""
    lines = [PROPERTIES_BEGIN, "", "| key | default | value | meaning |", "|---|---|---|---|",
             f"| `enabled` | `true` | true or false | {PROPERTIES_ENABLED} |"]
    for f in properties_fields():
        lines.append(f"| `{f.name}` | `{_default_text(_default(f))}` | {describe(f)} | {f.metadata['meaning']} |")
    return "\n".join(lines + ["", PROPERTIES_END])


def flat(cls):
    """Class decorator: ``cls`` as a frozen dataclass with every setting of
    the tree as a flat field, with its default (``experiments.Settings``)."""
    cls.__annotations__ = {name: tp for name, tp, _ in flat_fields()}
    for name, _, f in flat_fields():
        setattr(cls, name, f)
    return dataclass(frozen=True)(cls)


@flat
class Settings:
    """The experiments' settings as one flat object (config key
    ``experiments``; a dataset may override any of them under
    ``datasets.<name>.experiments``).  Its fields, defaults and checks are
    those of the settings tree (``metaeval.settings``: one branch per
    method), the only place they are declared.  Defaults are the papers'
    values where the papers give one."""

    @classmethod
    def from_config(cls, *blocks: Mapping[str, Any] | None) -> "Settings":
        values: dict[str, Any] = {}
        known = {f.name for f in fields(cls)}
        for block in blocks:
            for k, v in (block or {}).items():
                if k in SUPERSEDED_SETTINGS:
                    raise ConfigError(f"experiments.{k}: no longer a setting: {SUPERSEDED_SETTINGS[k]}")
                if k not in known:
                    raise ConfigError(f"experiments.{k}: unknown setting{closest([k], known)}; known: "
                                      f"{', '.join(sorted(known))}")
                values[k] = v
        s = cls(**{k: check_value(k, v) for k, v in values.items()})
        check(s)
        return s

    def tree(self) -> Experiments:
        """The same settings as the tree of the methods' branches."""
        return Experiments.from_flat(self)


def write_generated(root) -> list[str]:
    """Rewrite ``workflow/schemas/config.schema.yaml``'s experiments block and
    ``config/README.md``'s table from the tree (``python -m
    metaeval.settings``); the files changed."""
    import json
    from pathlib import Path

    root = Path(root)
    changed = []
    readme = root / "config" / "README.md"
    text = readme.read_text(encoding="utf-8")
    new = text
    for begin, end, table in ((README_BEGIN, README_END, readme_table()),
                              (PROPERTIES_BEGIN, PROPERTIES_END, properties_table())):
        a, b = new.index(begin), new.index(end) + len(end)
        new = new[:a] + table + new[b:]
    if new != text:
        readme.write_text(new, encoding="utf-8")
        changed.append(str(readme))
    schema = root / "workflow" / "schemas" / "config.schema.yaml"
    text = schema.read_text(encoding="utf-8")
    marker = "\n  experiments:\n    # generated by `python -m metaeval.settings`"
    head = text[:text.index(marker)] if marker in text else text[:text.rindex("\n  experiments:\n")]
    body = ["", "  experiments:", "    # generated by `python -m metaeval.settings` from src/metaeval/settings.py: "
            "do not edit", "    type: object", "    properties:"]
    for key, sc in experiments_schema()["properties"].items():
        body.append(f"      {key}: {json.dumps(sc)}")
    body += ["    additionalProperties: false", ""]
    new = head + "\n".join(body)
    # the properties block, between the root's "properties:" key and the next key of the root
    import re

    a = new.index("\n  properties:\n")
    b = re.compile(r"\n  [A-Za-z_]+:").search(new, a + 1).start()
    sch = properties_schema()
    block = ["", "  properties:", "    # generated by `python -m metaeval.settings` from src/metaeval/measures/properties.py: "
             "do not edit", "    type: object", f"    description: {json.dumps(sch['description'])}",
             "    properties:"]
    block += [f"      {key}: {json.dumps(sc)}" for key, sc in sch["properties"].items()]
    block += ["    additionalProperties: false"]
    new = new[:a] + "\n".join(block) + new[b:]
    if new != text:
        schema.write_text(new, encoding="utf-8")
        changed.append(str(schema))
    return changed


if __name__ == "__main__":  # python -m metaeval.settings [repository root]
    import sys
    from pathlib import Path

    where = Path(sys.argv[1] if len(sys.argv) > 1 else Path.cwd())
    if len(sys.argv) > 2 or not all((where / f).is_file() for f in ("config/README.md",
                                                                     "workflow/schemas/config.schema.yaml")):
        sys.exit("usage: python -m metaeval.settings [REPOSITORY]: rewrites workflow/schemas/config.schema.yaml's "
                 "generated blocks and config/README.md's generated tables from the settings tree; "
                 f"{str(where)!r} has no config/README.md and workflow/schemas/config.schema.yaml (run it in the "
                 "repository's root, or name the root)")
    print("\n".join(write_generated(where)) or "nothing to change")
