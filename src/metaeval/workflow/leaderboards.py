"""The leaderboards' steps, as plain functions of paths: read and check a
benchmark (``leaderboard_data``), its rank sets per scheme
(``leaderboard_ranks``), the experiments on its aggregates
(``leaderboard_experiments``), the verdict per scheme
(``leaderboard_verdict``), the design (``leaderboard_design``); its page, LaTeX table and figure are
``workflow.leaderboard_page``'s, drawn from the files these write (a look
never reruns a computation).

Every step reads its leaderboard's spec and the ``leaderboards`` branch of
the settings as rule params (``leaderboard_params``), so an edit of either
reruns exactly the leaderboard's steps that read it, and the data's
fingerprint (the SHA-256 of the gold file and of every prediction file): a
new or changed prediction file reruns that leaderboard's jobs and no other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

__all__ = ["LEADERBOARD_STEPS", "leaderboard_params", "leaderboard_fingerprint", "leaderboard_line", "save_benchmark",
           "load_benchmark",
           "run_leaderboard_data", "run_leaderboard_ranks", "run_leaderboard_experiments", "run_leaderboard_verdict",
           "run_leaderboard_design"]

# step -> the branches of the settings tree it reads
LEADERBOARD_STEPS = {"leaderboard_data": (), "leaderboard_ranks": ("leaderboards",),
                     "leaderboard_experiments": ("leaderboards",), "leaderboard_verdict": ("leaderboards",),
                     "leaderboard_design": ("leaderboards",), "leaderboard_page": ("leaderboards",)}


def leaderboard_params(spec, settings) -> dict[str, dict]:
    """``{step: {"spec": {...}, "settings": {...}}}``: the plain values each
    leaderboard step reads."""
    from dataclasses import fields

    from ..settings import GROUPS

    out = {}
    plain = spec.plain()
    plain.pop("experiments")  # the settings reach a step as its own param
    for step, branches in LEADERBOARD_STEPS.items():
        keys = [f.name for b in branches for f in fields(GROUPS[b]) if f.metadata.get("param", True)]
        st = {k: getattr(settings, k) for k in keys}
        sp = {k: v for k, v in plain.items() if k not in _JUDGING} if step == "leaderboard_data" else plain
        out[step] = {"spec": sp, "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in st.items()}}
    return out


# what a leaderboard judges and how: not read by the reading of its files
_JUDGING = ("aggregates", "primary_aggregate", "priorities", "require", "custom_aggregates")


def leaderboard_fingerprint(spec, data_dir) -> dict[str, str]:
    """The SHA-256 of the gold file and of every prediction file, by path
    relative to ``data_dir``."""
    from ..data.files import file_sha256

    root = Path(data_dir).resolve()

    def key(p: Path) -> str:
        r = Path(p).resolve()
        return r.relative_to(root).as_posix() if r.is_relative_to(root) else str(p)

    files = [spec.gold_path(data_dir), *spec.prediction_files(data_dir).values()]
    return dict(sorted((key(p), file_sha256(p)) for p in files))


def leaderboard_line(spec, settings, systems, limit: int = 12) -> str:
    """One line for the console at every start (as a dataset's systems
    line): the leaderboard's systems (the first ``limit`` named), what they
    give, the aggregate it reports and the schemes.

    >>> from metaeval.data.leaderboard_spec import LeaderboardSpec
    >>> from metaeval.settings import Settings
    >>> spec = LeaderboardSpec("lb", "g.csv", ("p/*.csv",), no_answer="none", options_column="n_options")
    >>> leaderboard_line(spec, Settings(), ["a", "b", "c"], limit=2)
    'Leaderboard lb: 3 systems (a, b and 1 more) giving answers (a missing answer scored wrong); 8 aggregates judged, the mean over items reported; resampling: items, tasks, both'
    """
    from ..measures import aggregates as A

    systems = list(systems)
    names = ", ".join(systems[:limit]) + (f" and {len(systems) - limit} more" if len(systems) > limit else "")
    missing = "wrong" if spec.no_answer_scoring == "wrong" else "its expected value under a random guess"
    what = f"answers (a missing answer scored {missing})" if spec.input == "answers" else "per-item scores"
    primary = A.get(spec.primary_aggregate).name if spec.primary_aggregate in A.AGGREGATES else spec.primary_aggregate
    return (f"Leaderboard {spec.name}: {len(systems)} system{'s' if len(systems) != 1 else ''} ({names}) giving "
            f"{what}; {len(spec.aggregate_ids())} aggregates judged, the {primary} reported; resampling: "
            + ", ".join(settings.leaderboard_schemes))


def _spec(plain: Mapping):
    from ..data.leaderboard_spec import LeaderboardSpec

    d = dict(plain)
    name = d.pop("name")
    return LeaderboardSpec.from_config(name, {k: v for k, v in d.items()})


def _settings(plain: Mapping):
    from ..settings import Settings

    return Settings.from_config(plain)


# -- the benchmark's file ----------------------------------------------------------------------------------------
def save_benchmark(bench, path) -> None:
    import numpy as np

    from ..data.files import atomic_path

    arrays = {"item_ids": np.asarray(bench.item_ids, dtype=str), "tasks": bench.tasks,
              "task_names": np.asarray(bench.task_names, dtype=str), "systems": np.asarray(bench.systems, dtype=str),
              "right": bench.right, "unanswered": bench.unanswered, "kind": np.asarray(bench.kind),
              "notes": np.asarray(bench.notes, dtype=str)}
    if bench.n_options is not None:
        arrays["n_options"] = bench.n_options
    if bench.labels is not None:
        arrays["labels"] = np.asarray(bench.labels, dtype=str)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)


def load_benchmark(path, name: str):
    import numpy as np

    from ..data.benchmark import Benchmark

    with np.load(path, allow_pickle=False) as z:
        return Benchmark(name, tuple(z["item_ids"].tolist()), z["tasks"], tuple(z["task_names"].tolist()),
                         tuple(z["systems"].tolist()), z["right"], z["unanswered"],
                         z["n_options"] if "n_options" in z else None, str(z["kind"]), tuple(z["notes"].tolist()),
                         {}, z["labels"].astype(object) if "labels" in z else None)


# -- the steps -----------------------------------------------------------------------------------------------------
def run_leaderboard_data(spec_plain: Mapping, data_dir, out_npz, out_json) -> None:
    """Read and check the benchmark's files; write it and ``dataset.json``
    (its shape, what changed a score, the files' hashes); say the notes."""
    from ..data.benchmark import read_benchmark
    from ..data.files import file_sha256, write_text
    from .steps import note, warn

    spec = _spec(spec_plain)
    files = spec.prediction_files(data_dir)
    bench = read_benchmark(spec.name, spec.gold_path(data_dir), files, **spec.reading())
    from ..pipeline.leaderboard_stages import check_ranked

    check_ranked(bench)
    for n in bench.notes_scored(spec.no_answer_scoring):
        warn(f"leaderboard {spec.name!r}: {n}")
    note(f"{bench.n_systems} systems, {bench.n_items:,} items in {bench.n_tasks} tasks")
    save_benchmark(bench, out_npz)
    import numpy as np

    info = {"name": spec.name, "description": spec.description, "kind": bench.kind, "systems": list(bench.systems),
            "n_items": bench.n_items,
            "tasks": {t: int(c) for t, c in zip(bench.task_names, np.bincount(bench.tasks, minlength=bench.n_tasks))},
            "no_answers": {s: int(k) for s, k in zip(bench.systems, bench.no_answers)},
            "no_answer_scoring": spec.no_answer_scoring, "notes": list(bench.notes_scored(spec.no_answer_scoring)),
            "files": {"gold": {"path": str(spec.gold_path(data_dir)), "sha256": file_sha256(spec.gold_path(data_dir))},
                      **{s: {"path": str(p), "sha256": file_sha256(p)} for s, p in files.items()}}}
    write_text(out_json, json.dumps(info, indent=1) + "\n")


def run_leaderboard_ranks(spec_plain, settings_plain, npz, scheme: str, out_ranks, out_resolution) -> None:
    from ..data.files import write_csv
    from ..pipeline.leaderboard_stages import ranks_stage

    spec = _spec(spec_plain)
    t = ranks_stage(load_benchmark(npz, spec.name), spec, _settings(settings_plain), scheme)
    write_csv(out_ranks, t["ranks.csv"])
    write_csv(out_resolution, t["resolution.csv"])


def run_leaderboard_experiments(spec_plain, settings_plain, npz, outputs: Mapping[str, str]) -> None:
    """``outputs``: ``agreement``, ``stability``, ``robustness``, ``gameability``, ``task_scores`` paths."""
    from ..data.files import write_csv
    from ..pipeline.leaderboard_stages import experiments_stage

    spec = _spec(spec_plain)
    t = experiments_stage(load_benchmark(npz, spec.name), spec, _settings(settings_plain))
    for key, path in outputs.items():
        write_csv(path, t[f"{key}.csv"])


def run_leaderboard_verdict(spec_plain, settings_plain, npz, scheme: str, out_csv) -> None:
    from ..data.files import write_csv
    from ..pipeline.leaderboard_stages import check_spec, verdict_stage, verdict_table

    spec = check_spec(_spec(spec_plain))
    v = verdict_stage(load_benchmark(npz, spec.name), spec, _settings(settings_plain), scheme)
    write_csv(out_csv, verdict_table(v, spec.primary_aggregate))


def run_leaderboard_design(spec_plain, settings_plain, npz, out_csv) -> None:
    from ..data.files import write_csv
    from ..pipeline.leaderboard_stages import design_stage

    spec = _spec(spec_plain)
    write_csv(out_csv, design_stage(load_benchmark(npz, spec.name), spec, _settings(settings_plain)))
