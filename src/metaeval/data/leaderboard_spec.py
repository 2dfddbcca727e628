"""A leaderboard's configuration (the config's ``leaderboards:`` block):
where its files are, how they read, which aggregates it judges, and the
settings of its experiments (the ``leaderboards`` branch of the settings
tree, overridden key by key in its own ``experiments:`` block).

Examples
--------
>>> s = LeaderboardSpec.from_config("mmlu_pro", {"gold": "mmlu_pro/gold.csv",
...     "predictions": ["mmlu_pro/predictions/*.csv"], "task_column": "category", "no_answer": "none",
...     "options_column": "n_options"})
>>> s.input, s.no_answer_scoring, s.primary_aggregate
('answers', 'wrong', 'mean_items')
"""

from __future__ import annotations

import glob
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from ..settings import ConfigError, GROUPS, Settings, check_value, closest
from .benchmark import NO_ANSWER_SCORING

__all__ = ["LeaderboardSpec", "leaderboard_specs", "leaderboard_settings", "LEADERBOARD_KEYS"]

LEADERBOARD_SETTING_KEYS = tuple(f.name for f in fields(GROUPS["leaderboards"]))


@dataclass(frozen=True)
class LeaderboardSpec:
    """One leaderboard of the config (keys as in ``config/README.md``)."""

    name: str
    gold: str
    predictions: tuple[str, ...]
    description: str = ""
    input: str = "answers"  # noqa: A003 - the config's key
    id_column: str = "item_id"
    label_column: str = "label"
    task_column: str = "task"
    options_column: str | None = None
    no_answer: str | tuple[str, ...] | None = None  # one value, or several (systems write it differently)
    score_column: str = "score"
    no_answer_scoring: str = "wrong"
    aggregates: tuple[str, ...] | None = None
    primary_aggregate: str = "mean_items"
    priorities: tuple[str, ...] = ()
    require: tuple[str, ...] = ()
    experiments: Mapping[str, Any] = field(default_factory=dict)
    # the config's custom_aggregates, as plain declarations (function, SHA-256 of its files, contract): every step
    # registers them, and an edit of their code reruns the leaderboard's steps
    custom_aggregates: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_config(cls, name: str, block: Mapping[str, Any]) -> "LeaderboardSpec":
        known = {f.name for f in fields(cls)} - {"name"}
        unknown = sorted(set(block) - known)
        if unknown:
            raise ConfigError(f"leaderboards.{name}: unknown key(s) {unknown}{closest(unknown, known)}; known: "
                              f"{', '.join(sorted(known))}")
        for key in ("gold", "predictions"):
            if key not in block:
                raise ConfigError(f"leaderboards.{name}: {key!r} is required")
        b = dict(block)
        if b.get("custom_aggregates"):  # (declared already: a step's param carries the declarations)
            from ..measures.aggregates import register_declared_aggregates

            register_declared_aggregates(b["custom_aggregates"])
        if isinstance(b.get("no_answer"), (list, tuple)):
            b["no_answer"] = tuple(str(x) for x in b["no_answer"])
        for key in ("predictions", "aggregates", "priorities", "require"):
            if isinstance(b.get(key), str):
                b[key] = [b[key]]
            if b.get(key) is not None:
                b[key] = tuple(str(x) for x in b[key])
        spec = cls(name=name, **b)
        spec.check()
        return spec

    def check(self) -> None:
        """Refuse values that cannot work, naming the key (the verdict's
        priorities and requirements are checked where the verdict is known:
        ``metaeval.pipeline.leaderboard.check_spec``)."""
        from ..measures import aggregates as A

        where = f"leaderboards.{self.name}"
        if self.input not in ("answers", "scores"):
            raise ConfigError(f"{where}.input: 'answers' or 'scores', got {self.input!r}")
        if self.no_answer_scoring not in NO_ANSWER_SCORING:
            raise ConfigError(f"{where}.no_answer_scoring: one of {', '.join(NO_ANSWER_SCORING)}, got "
                              f"{self.no_answer_scoring!r}")
        if self.no_answer_scoring == "guess" and self.options_column is None:
            raise ConfigError(f"{where}.no_answer_scoring 'guess' needs options_column (each item's number of "
                              "options: a guess is right with probability 1 / n_options)")
        if self.input == "scores" and self.no_answer is not None:
            raise ConfigError(f"{where}.no_answer: per-item scores have no answers (leave it out)")
        bad = sorted(set(self.aggregates or ()) - set(A.AGGREGATES))
        if bad:
            raise ConfigError(f"{where}.aggregates: unknown {bad}{closest(bad, A.AGGREGATES)}; known: "
                              f"{', '.join(A.AGGREGATES)}")
        if self.primary_aggregate not in A.AGGREGATES:
            raise ConfigError(f"{where}.primary_aggregate: unknown {self.primary_aggregate!r}"
                              f"{closest([self.primary_aggregate], A.AGGREGATES)}")
        chance = [a for a in (self.aggregates or ()) if A.get(a).feature == "chance"]
        if chance and self.options_column is None:
            raise ConfigError(f"{where}.aggregates: {chance} read the chance-corrected score, which needs "
                              "options_column")
        if self.aggregates is not None and self.primary_aggregate not in self.aggregates:
            raise ConfigError(f"{where}.primary_aggregate {self.primary_aggregate!r} is not among its aggregates")
        bad = sorted(set(self.experiments) - set(LEADERBOARD_SETTING_KEYS))
        if bad:
            raise ConfigError(f"{where}.experiments: not a leaderboard setting: {bad}"
                              f"{closest(bad, LEADERBOARD_SETTING_KEYS)}; known: {', '.join(LEADERBOARD_SETTING_KEYS)}")
        for k, v in self.experiments.items():
            check_value(k, v, where=f"{where}.experiments")

    def aggregate_ids(self) -> list[str]:
        """The aggregates judged: those listed, else every registered one the
        benchmark can compute (the chance-corrected ones need options)."""
        from ..measures import aggregates as A

        if self.aggregates is not None:
            return list(self.aggregates)
        return [a for a in A.AGGREGATES if A.get(a).feature == "score" or self.options_column is not None]

    def prediction_files(self, data_dir: str | Path) -> dict[str, Path]:
        """``{system: path}`` of the prediction globs under ``data_dir``,
        sorted; a glob matching nothing and two files of one name are
        config errors."""
        out: dict[str, Path] = {}
        for pattern in self.predictions:
            matches = [m for m in sorted(glob.glob(str(Path(data_dir) / pattern))) if os.path.isfile(m)]
            if not matches:
                raise ConfigError(f"leaderboards.{self.name}.predictions: {pattern!r} matches no file under {data_dir}")
            for m in matches:
                stem = Path(m).stem
                if stem in out:
                    raise ConfigError(f"leaderboards.{self.name}.predictions: two files give the system name "
                                      f"{stem!r}: {out[stem]} and {m}")
                out[stem] = Path(m)
        return out

    def gold_path(self, data_dir: str | Path) -> Path:
        return Path(data_dir) / self.gold

    def reading(self) -> dict[str, Any]:
        """The keywords of ``read_benchmark`` this spec gives."""
        return {"task_column": self.task_column, "id_column": self.id_column, "label_column": self.label_column,
                "options_column": self.options_column, "input": self.input, "no_answer": self.no_answer,
                "score_column": self.score_column}

    def plain(self) -> dict[str, Any]:
        """Plain values (rule params)."""
        d = asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else dict(v) if isinstance(v, Mapping) else v)
                for k, v in d.items()}


def leaderboard_settings(config: Mapping, name: str) -> Settings:
    """The global ``experiments`` settings overridden by the leaderboard's own."""
    own = (config.get("leaderboards") or {})[name].get("experiments") or {}
    return Settings.from_config(config.get("experiments"), own)


def leaderboard_specs(config: Mapping, base_dir: str | Path = ".") -> dict[str, LeaderboardSpec]:
    """Every leaderboard of the config, checked; a name shared with a
    dataset is refused (their results share ``results/``).  The config's
    ``custom_aggregates`` (paths relative to ``base_dir``, the config
    file's folder) are declared, registered and held to their contract
    first, and reach every leaderboard's steps."""
    from ..measures.aggregates import AggregateContractError, declare_aggregate

    blocks = config.get("leaderboards") or {}
    clash = sorted(set(blocks) & set(config.get("datasets") or {}))
    if clash:
        raise ConfigError(f"leaderboards {clash}: a dataset has the same name (results/<name>/ would hold both)")
    declared = {}
    for agg_id, block in (config.get("custom_aggregates") or {}).items():
        try:
            declared[agg_id] = declare_aggregate(agg_id, block or {}, base_dir)
        except (AggregateContractError, ImportError, OSError, AttributeError) as e:
            raise ConfigError(f"custom_aggregates.{agg_id}: {e}") from None
    return {name: LeaderboardSpec.from_config(name, {**(block or {}), "custom_aggregates": declared})
            for name, block in blocks.items()}


LEADERBOARD_KEYS = tuple(f.name for f in fields(LeaderboardSpec) if f.name != "name")
