"""One definition of every experiment setting (issue 30): the settings tree
(``metaeval.settings``) declares each default, type, range and meaning once;
the config schema, ``config/README.md``, ``experiments.Settings``, the
design's defaults and the default config agree with it."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from metaeval import settings as S
from metaeval.data.config import ConfigError
from metaeval.methods.design import DesignSpec
from metaeval.methods.experiments import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_declared_once_in_one_branch():
    names = [f.name for cls in S.GROUPS.values() for f in fields(cls)]
    assert len(names) == len(set(names)) == len(S.GROUP_OF)
    assert set(S.GROUPS) == {f.name for f in fields(S.Experiments)}


def test_the_flat_settings_are_the_tree():
    """``experiments.Settings`` has exactly the tree's settings, with its
    defaults, and converts to the tree and back."""
    flat = {f.name: f.default for f in fields(Settings)}
    assert flat == {k: S.default_of(k) for k in S.GROUP_OF}
    s = Settings(n_splits=7, design_power=0.9)
    t = s.tree()
    assert t.stability.n_splits == 7 and t.design.design_power == 0.9 and t.noise == S.Noise()
    assert Settings(**{k: getattr(getattr(t, S.GROUP_OF[k]), k) for k in S.GROUP_OF}) == s


def test_the_schema_is_the_tree():
    """``workflow/schemas/config.schema.yaml``'s experiments block is the tree's
    (``python -m metaeval.settings`` writes it)."""
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text(encoding="utf-8"))
    assert schema["$defs"]["experiments"] == S.experiments_schema()


def test_the_readme_is_the_tree():
    text = (ROOT / "config" / "README.md").read_text(encoding="utf-8")
    assert S.readme_table() in text
    for key in S.GROUP_OF:  # every key once in the table
        assert text.count(f"| `{key}` |") == 1, key


def test_the_library_defaults_are_the_tree():
    """The design's own defaults (``DesignSpec``: alpha and the design_*
    keys without their prefix) are the tree's."""
    d = DesignSpec()
    assert d.alpha == S.default_of("alpha")
    for f in fields(DesignSpec):
        if f.name != "alpha":
            assert getattr(d, f.name) == S.default_of(f"design_{f.name}"), f.name


def test_the_default_config_sets_only_what_it_changes():
    """``config/config.yaml`` holds only what a user changes: no experiment
    setting at its default (it had 38 copies of them)."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    blocks = [cfg.get("experiments") or {}] + [d.get("experiments") or {} for d in cfg["datasets"].values()]
    at_default = [k for b in blocks for k, v in b.items()
                  if (tuple(v) if isinstance(v, list) else v) == S.default_of(k)]
    assert at_default == []


@pytest.mark.parametrize("key, value, message", [
    ("bootstrap_replicates", "10", "experiments.bootstrap_replicates: expected an integer, got '10'"),
    ("bootstrap_replicates", 1, "experiments.bootstrap_replicates must be an integer >= 2, got 1"),
    ("design_power", 1.5, "experiments.design_power must be a number in (0, 1), got 1.5"),
    ("tau_variant", "c", "experiments.tau_variant must be 'a' or 'b', got 'c'"),
    ("split_seed", 2 ** 56, "experiments.split_seed must be an integer in [0, 2**56), got 72057594037927936"),
    ("tier_fractions", [0.5, 0.5], "experiments.tier_fractions must be a list of 3 numbers > 0, got [0.5, 0.5]"),
    ("tier_fractions", [0.5, 0.5, 0.5], "experiments.tier_fractions: [0.5, 0.5, 0.5] sum to 1.5, not 1: give the "
                                        "fractions of the ranked systems"),  # (issue 48: was rescaled in silence)
    ("noise_rates", [], "experiments.noise_rates must be a non-empty list of numbers in (0, 1], got []"),
    ("noise_rates", [0.1, "x"], "experiments.noise_rates: expected a list of numbers, got [0.1, 'x']"),
    ("stratified", 1, "experiments.stratified: expected true or false, got 1"),
    ("verdict_alpha", 0.5, "experiments.verdict_alpha must be a number in (0, 0.5), got 0.5"),
    ("criteria", ["stability", "stability"], "experiments.criteria must be a non-empty list of"),
])
def test_a_bad_value_is_refused_with_the_key_what_it_must_be_and_what_it_got(key, value, message):
    with pytest.raises(ConfigError) as e:
        Settings.from_config({key: value})
    assert str(e.value).startswith(message)


def test_tier_fractions_that_sum_to_1_within_a_rounding_are_read_as_given():
    assert Settings.from_config({"tier_fractions": [0.33, 0.33, 0.33]}).tier_fractions == (0.33, 0.33, 0.33)
    with pytest.raises(ConfigError, match=r"sum to 0\.98, not 1"):
        Settings.from_config({"tier_fractions": [0.33, 0.33, 0.32]})


def test_every_value_the_schema_allows_the_library_allows_and_the_other_way():
    """The schema and the library's checks come from the same declaration:
    on values at and around every bound, jsonschema and ``check_value``
    agree (the library refuses exactly what the schema refuses)."""
    import jsonschema

    sch = S.experiments_schema()
    probes = [-1, 0, 1, 2, 0.5, 0.9999, 1.0001, 2 ** 56 - 1, 2 ** 56, "b", "x", True, [], [0.5], [0.1, 0.2, 0.3],
              ["stability"], ["majority", "majority"], [0, 1.5]]
    for key in S.GROUP_OF:
        for v in probes:
            ok_schema = jsonschema.Draft202012Validator(sch).is_valid({key: v})
            try:
                S.check_value(key, v)
                ok_lib = True
            except ConfigError:
                ok_lib = False
            assert ok_schema == ok_lib, (key, v)


# parameters of the library named otherwise than their setting: (object, parameter) -> the setting's key
ALIASES = {
    ("metaeval.verdict.criteria.base:CriteriaSpec", "replicates"): "criteria_replicates",
    ("metaeval.verdict.criteria.base:CriteriaSpec", "inner_splits"): "criteria_splits",
    ("metaeval.verdict.criteria.base:CriteriaSpec", "seed"): "criteria_seed",
    ("metaeval.verdict.criteria.base:CriteriaSpec", "point_splits"): "n_splits",
    ("metaeval.verdict.criteria.base:CriteriaSpec", "correction"): "significance_correction",
    ("metaeval.methods.design:DesignSpec", "power"): "design_power",
    ("metaeval.methods.design:DesignSpec", "seed"): "design_seed",
    ("metaeval.methods.sensitivity:noise_sensitivity", "tukey_seed"): "tukey_seed",
    ("metaeval.methods.gameability:dataset_gameability", "replicates"): "bootstrap_replicates",
    ("metaeval.methods.gameability:dataset_gameability", "seed"): "bootstrap_seed",
    ("metaeval.methods.gameability:dataset_gameability", "alpha"): "verdict_alpha",
    # the leaderboards' settings (metaeval.settings.Leaderboards)
    ("metaeval.methods.leaderboards.design:se_exponent", "replicates"): "leaderboard_replicates",
    ("metaeval.methods.leaderboards.design:se_exponent", "seed"): "leaderboard_seed",
    ("metaeval.methods.leaderboards.design:se_exponent", "halves"): "leaderboard_design_halves",
    ("metaeval.methods.leaderboards.design:design", "replicates"): "leaderboard_replicates",
    ("metaeval.methods.leaderboards.design:design", "seed"): "leaderboard_seed",
    ("metaeval.methods.leaderboards.design:design", "alpha"): "leaderboard_alpha",
    ("metaeval.methods.leaderboards.design:design", "family"): "leaderboard_family",
    ("metaeval.methods.leaderboards.design:design", "halves"): "leaderboard_design_halves",
    ("metaeval.methods.leaderboards.experiments:stability", "n_splits"): "leaderboard_splits",
    ("metaeval.methods.leaderboards.experiments:stability", "seed"): "leaderboard_seed",
    ("metaeval.methods.leaderboards.experiments:resolution", "replicates"): "leaderboard_replicates",
    ("metaeval.methods.leaderboards.experiments:resolution", "seed"): "leaderboard_seed",
    ("metaeval.methods.leaderboards.experiments:resolution", "alpha"): "leaderboard_alpha",
    ("metaeval.methods.leaderboards.experiments:resolution", "family"): "leaderboard_family",
    ("metaeval.methods.leaderboards.experiments:criteria_replicates", "replicates"): "leaderboard_verdict_replicates",
    ("metaeval.methods.leaderboards.experiments:criteria_replicates", "n_splits"): "leaderboard_splits",
    ("metaeval.methods.leaderboards.experiments:criteria_replicates", "seed"): "leaderboard_seed",
    ("metaeval.methods.leaderboards.experiments:criteria_replicates", "alpha"): "leaderboard_alpha",
    ("metaeval.methods.leaderboards.ranks:rank_sets", "alpha"): "leaderboard_alpha",
    ("metaeval.methods.leaderboards.ranks:percentile_rank_intervals", "alpha"): "leaderboard_alpha",
    ("metaeval.methods.leaderboards.resampling:aggregate_replicates", "replicates"): "leaderboard_replicates",
    ("metaeval.methods.leaderboards.resampling:aggregate_replicates", "seed"): "leaderboard_seed",
    ("metaeval.methods.leaderboards.simulate:rank_coverage", "alpha"): "leaderboard_alpha",
    ("metaeval.methods.leaderboards.simulate:exchangeable_null", "alpha"): "leaderboard_alpha",
    ("metaeval.verdict.leaderboard:leaderboard_verdict", "replicates"): "leaderboard_verdict_replicates",
    ("metaeval.verdict.leaderboard:leaderboard_verdict", "n_splits"): "leaderboard_splits",
    ("metaeval.verdict.leaderboard:leaderboard_verdict", "seed"): "leaderboard_seed",
    ("metaeval.verdict.leaderboard:leaderboard_verdict", "alpha"): "leaderboard_alpha",
}


# parameters named like a setting that are not that setting, or that the dataset decides: with why
NOT_THE_SETTING = {
    ("metaeval.verdict.criteria.base:CriteriaSpec", "criteria"): "the two criteria every dataset has; the workflow adds those its "
                                                    "classes allow",
    ("metaeval.verdict.criteria.base:CriteriaSpec", "noise_mode"): "the tree's 'auto' resolved for unordered classes",
    ("metaeval.settings:Experiments", "criteria"): "the tree's branch of the criteria's settings",
    ("metaeval.verdict.recommendation:Standing", "criteria"): "a metric's standing per criterion, not the criteria's list",
    ("metaeval.workflow.scoring:confusion_figure", "include_baselines"): "whether the figure shows baselines",
    ("metaeval.workflow.scoring:span_figure", "include_baselines"): "whether the figure shows baselines",
}


def _library_defaults():
    """(where, parameter, default, key) of every parameter of a public
    function or class of the library that is a setting: by its name (a
    flat key such as ``alpha`` or ``tukey_trials``) or by ``ALIASES``."""
    import importlib
    import inspect
    import pkgutil

    import metaeval

    out = []
    for info in pkgutil.walk_packages(metaeval.__path__, "metaeval."):
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
                continue
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            for p in sig.parameters.values():
                # (None: taken from elsewhere; a chunk size bounds memory, never a result)
                if p.default is inspect.Parameter.empty or p.default is None or p.name == "chunk_size" \
                        or (f"{mod.__name__}:{name}", p.name) in NOT_THE_SETTING:
                    continue
                key = ALIASES.get((f"{mod.__name__}:{name}", p.name),
                                  p.name if p.name in S.GROUP_OF else None)
                if key is not None:
                    out.append((f"{mod.__name__}:{name}", p.name, p.default, key))
    return out


def test_the_library_signatures_default_to_the_tree():
    """Every library parameter that is a setting defaults to the tree's
    value, so that a function called with its defaults computes what the
    workflow computes (before issue 30: the Tukey trials of label noise
    10,000 with seed 0 against the workflow's 5,000 with seed 20210304, the
    criteria's 200 resamples of 20 splits against 500 of 4)."""
    found = _library_defaults()
    assert len(found) >= 30  # the reader sees them (CriteriaSpec, DesignSpec, noise_sensitivity, alpha, ...)
    wrong = [(where, p, d, S.default_of(k)) for where, p, d, k in found
             if (tuple(d) if isinstance(d, list) else d) != S.default_of(k)]
    assert wrong == []
    for key in ALIASES:
        assert any((w, p) == key for w, p, _, _ in found), key


# -- a rule's params are the branches of the methods its step runs (issue 30, item 1) ----------------------------
@pytest.mark.parametrize("labels", [["neg", "pos"], ["neg", "neu", "pos"]])
def test_a_steps_settings_are_the_branches_it_reads(labels):
    """Catches a step given a setting outside its branches, one left out of
    a branch it reads, or a job-shaping setting (param=False) recorded as a
    param; every branch and every recorded setting reaches some step."""
    from dataclasses import fields

    from metaeval.data.config import DatasetSpec
    from metaeval.methods.experiments import Settings
    from metaeval.settings import GROUPS
    from metaeval.workflow.params import STEPS, step_params

    spec = DatasetSpec.from_config("d", {"gold": "g.csv", "predictions": ["p/*.csv"], "labels": labels})
    params = step_params(spec, Settings.from_config({}))
    seen = set()
    for step, (_, branches) in STEPS.items():
        read = [b for b in branches if not (b == "merging" and len(labels) < 3)]
        want = {f.name for b in read for f in fields(GROUPS[b]) if f.metadata["param"]}
        assert set(params[step]["settings"]) == want, step
        seen |= set(branches)
    # the leaderboards' steps (metaeval.workflow.leaderboards): the leaderboards branch, the data step none
    from metaeval.data.leaderboard_spec import LeaderboardSpec
    from metaeval.workflow.leaderboards import LEADERBOARD_STEPS, leaderboard_params

    lb = leaderboard_params(LeaderboardSpec.from_config("b", {"gold": "g.csv", "predictions": ["p/*.csv"]}),
                            Settings.from_config({}))
    for step, branches in LEADERBOARD_STEPS.items():
        want = {f.name for b in branches for f in fields(GROUPS[b]) if f.metadata["param"]}
        assert set(lb[step]["settings"]) == want, step
        seen |= set(branches)
    assert seen == set(GROUPS)
    assert {f.name for c in GROUPS.values() for f in fields(c) if not f.metadata["param"]} == {"shards", "min_systems",
                                                                                           "criteria_shards"}


# -- one name per concept (issue 30, item 4): old names work for one release, with a warning ----------------------
def test_baseline_files_is_the_old_name_of_baseline_systems():
    """Catches the old key dropped in silence (its baselines ranked as
    systems), accepted without a warning, or accepted beside the new one."""
    from metaeval.data.config import DatasetSpec

    raw = {"gold": "g.csv", "predictions": ["p/*.csv"], "labels": ["neg", "pos"]}
    new = DatasetSpec.from_config("d", {**raw, "baseline_systems": ["bsl_*"]})
    with pytest.warns(FutureWarning, match=r"datasets\.d\.baseline_files is now called baseline_systems"):
        old = DatasetSpec.from_config("d", {**raw, "baseline_files": ["bsl_*"]})
    assert old.baseline_systems == new.baseline_systems == ("bsl_*",)
    with pytest.raises(ConfigError, match="baseline_files and baseline_systems are one key"):
        DatasetSpec.from_config("d", {**raw, "baseline_files": ["a"], "baseline_systems": ["b"]})


# -- the formal properties' block: declared once, in properties.PropertySettings -------------------------------------------
def test_the_properties_block_is_its_declaration():
    """Catches the schema's, the README's or the config's ``properties``
    block holding a default or a bound of its own (before issue 30 the
    README and config.yaml repeated every default by hand)."""
    from metaeval.measures import properties as P

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text(encoding="utf-8"))
    assert schema["properties"]["properties"] == S.properties_schema()
    assert S.properties_table() in (ROOT / "config" / "README.md").read_text(encoding="utf-8")
    declared = {f.name: f.default for f in S.properties_fields()}
    assert declared == {k: getattr(P.PropertySettings(), k) for k in declared} and len(declared) == 9
    assert yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))["properties"] == {}
    assert P.PropertySettings.from_config({}) == P.PropertySettings()


def test_settings_a_step_does_not_apply_are_said():
    """The trial of issue 30: stratified halves on a span dataset were
    dropped without a word; the correction with the Tukey test is said to
    reach the recommendation's power only."""
    from metaeval.workflow.params import experiment_settings, unused_settings

    config = {"experiments": {"stratified": True, "significance_correction": "bh"},
              "datasets": {"si": {"format": "semeval2020_si", "gold": "g", "predictions": ["p/*"]},
                           "cls": {"gold": "g.csv", "predictions": ["p/*.csv"]}}}
    said = {n: unused_settings(n, experiment_settings(config, n), config) for n in ("si", "cls")}
    assert any("stratified is not used" in m for m in said["si"])
    assert not any("stratified" in m for m in said["cls"])
    assert all(any("recommendation's power criterion" in m for m in ms) for ms in said.values())


# -- every default written once ---------------------------------------------------------------------------------
# a parameter of the library or an option of the command line named after a setting carries that setting's value:
# its default is read from the settings tree (default_of), never written again as a literal
PARAM_SETTING = {"alpha": "alpha", "confidence": "confidence", "chunk_size": "chunk_size",
                 "mc_level": "verdict_mc_level", "headline": "verdict_scope", "correction": "significance_correction",
                 "power": "design_power", "replicates": "bootstrap_replicates", "trials": "tukey_trials",
                 "tukey_trials": "tukey_trials", "bootstrap_replicates": "bootstrap_replicates",
                 "n_splits": "n_splits", "verdict_alpha": "verdict_alpha"}
# literals that are not the setting's default on purpose, and why
LITERAL_ON_PURPOSE = {
    ("methods/leaderboards/simulate.py", "replicates"): "a coverage simulation's own size (sims x replicates), not "
                                                        "the leaderboards' setting",
    ("present/tables.py", "correction"): "the Table-7 page's correction names the test's own ('none': the Tukey "
                                         "HSD's p-values are family-wise already), not the bootstrap test's setting",
}


def _literal_defaults(source: str) -> list[tuple[str, int, object]]:
    """``(parameter, line, value)`` of every literal default of a function
    parameter or dataclass field named in ``PARAM_SETTING``."""
    import ast

    out = []
    for node in ast.walk(ast.parse(source)):
        pairs = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            pos = a.posonlyargs + a.args
            pairs = [(x.arg, d) for x, d in zip(pos[len(pos) - len(a.defaults):], a.defaults)]
            pairs += [(x.arg, d) for x, d in zip(a.kwonlyargs, a.kw_defaults)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            pairs = [(node.target.id, node.value)]
        out += [(name, d.lineno, d.value) for name, d in pairs
                if name in PARAM_SETTING and isinstance(d, ast.Constant) and d.value is not None]
    return out


def test_a_default_is_written_once_in_the_settings_tree():
    """Issue 49: 1000 replicates, 5000 trials, confidence 0.95, alpha 0.05,
    the Monte Carlo level, the headline scope and the chunk size were
    written in several places; each is now read from ``metaeval.settings``."""
    src = ROOT / "src" / "metaeval"
    found = [f"{f.relative_to(src)}:{line}: {name} = {value!r}"
             for f in sorted(src.rglob("*.py")) if f.name != "settings.py"
             for name, line, value in _literal_defaults(f.read_text(encoding="utf-8"))
             if (f.relative_to(src).as_posix(), name) not in LITERAL_ON_PURPOSE]
    assert found == []
    assert _literal_defaults("def f(x, alpha=0.05, *, confidence: float = 0.95): pass\n") == [
        ("alpha", 1, 0.05), ("confidence", 1, 0.95)]  # (the scan finds what it looks for)


def test_the_command_line_s_defaults_are_the_settings_tree_s():
    from metaeval.cli import build_parser

    sub = {a.dest: a for a in build_parser()._subparsers._group_actions[0].choices["score"]._actions}
    assert sub["replicates"].default == S.default_of("bootstrap_replicates")
    assert sub["confidence"].default == S.default_of("confidence")
    assert sub["interval_method"].default == S.default_of("interval_method")
    compare = {a.dest: a for a in build_parser()._subparsers._group_actions[0].choices["compare"]._actions}
    for dest, key in [("trials", "tukey_trials"), ("alpha", "alpha"), ("test", "significance_test"),
                      ("correction", "significance_correction")]:
        assert compare[dest].default == S.default_of(key), dest
        assert f"default: {S.default_of(key)}" in compare[dest].help, dest


def test_the_library_s_defaults_are_the_settings_tree_s():
    import inspect

    from metaeval.methods import design, significance
    from metaeval.methods import bootstrap
    from metaeval.verdict import criteria, evidence, recommendation

    def default(fn, name):
        return inspect.signature(fn).parameters[name].default

    assert default(significance.tukey_test, "alpha") == S.default_of("alpha")
    assert default(bootstrap.intervals, "confidence") == S.default_of("confidence")
    assert default(bootstrap.bootstrap_scores, "chunk_size") == S.default_of("chunk_size")
    assert default(design.size_needed, "power") == S.default_of("design_power")
    assert default(criteria.criteria, "confidence") == S.default_of("confidence")
    assert evidence.EvidenceSets.__dataclass_fields__["mc_level"].default == S.default_of("verdict_mc_level")
    assert default(recommendation.recommend, "headline") == S.default_of("verdict_scope") == S.SCOPES[0]


# -- the schema's defaults: filled as snakemake.utils.validate fills them, without reading the schema again -------
def _snakemake_defaults(cfg: dict) -> dict:
    from snakemake.utils import validate

    validate(cfg, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    return cfg


@pytest.mark.parametrize("config", ["config/config.yaml", ".test/config.yaml", "overrides"])
def test_the_schema_defaults_are_snakemake_s_at_every_depth(config):
    import copy

    from metaeval.data.config import schema_defaults, yaml_load

    schema = yaml_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    if config == "overrides":  # a dataset of its own settings, weights and custom metrics: the nested defaults
        cfg = {"data_dir": "x", "datasets": {"d": {"gold": "g.csv", "predictions": ["p/*.csv"], "labels": ["a", "b"],
                                                  "experiments": {"n_splits": 10}, "weights": {"w": {"a": 1, "b": 2}}}},
               "experiments": {"alpha": 0.01}}
    else:
        cfg = yaml_load((ROOT / config).read_text())
    mine, theirs = schema_defaults(copy.deepcopy(cfg), schema), _snakemake_defaults(copy.deepcopy(cfg))
    assert mine == theirs
    assert mine != cfg  # (defaults were filled in)


def test_yaml_load_reads_what_safe_load_reads():
    import yaml

    from metaeval.data.config import yaml_load

    for f in [ROOT / "config" / "config.yaml", ROOT / ".test" / "config.yaml",
              ROOT / "workflow" / "schemas" / "config.schema.yaml", *sorted((ROOT / "config").rglob("*.yaml"))]:
        text = f.read_text(encoding="utf-8")
        assert yaml_load(text) == yaml.safe_load(text), f
