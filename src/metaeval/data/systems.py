"""The systems of a dataset: the baselines generated beside them and their
names, the systems named like baselines (said, with how to rank them),
identical and perfect systems, and the ids read without their spaces
(said once per file)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping

import numpy as np

from .config import DatasetSpec
from .files import DataError, Problem, file_sha256

if TYPE_CHECKING:  # (the data floor's own module; imported where the scores are read)
    pass

__all__ = ["make_baselines", "baseline_names", "named_like_baseline", "name_the_systems", "stripped_warnings"]


def _perfect_warnings(gold, predictions, systems, what: str = "item") -> list[str]:
    """A submission that agrees with the gold on every item is suspicious
    (the gold file copied into the predictions?): said, not refused."""
    return [f"system {s!r} predicts every {what} exactly as the gold: a suspicious perfect score (is the file "
            f"a copy of the gold?)" for s, row in zip(systems, predictions) if np.array_equal(row, gold)]


def _seed(spec: DatasetSpec) -> int | None:
    """The seed of the random baseline (``random``, ``random_spans``); None
    when there is none (the seed then is not a setting this dataset's
    ingestion reads)."""
    return spec.random_seed if {"random", "random_spans"} & set(spec.baselines) else None


def _file_hashes(gpath, files: Mapping[str, Path]) -> dict:
    return {"gold": {"path": str(gpath), "sha256": file_sha256(gpath)},
            **{s: {"path": str(p), "sha256": file_sha256(p)} for s, p in files.items()}}


def make_baselines(gold: np.ndarray, k: int, labels, kinds, seed: int) -> tuple[list[str], np.ndarray]:
    """Reference systems on the scored items.

    ``majority``: the most frequent gold class (ties: first in label order);
    ``all_class``: one system ``all_<label>`` per class (Scarton et al.'s
    all-deny / all-support); ``random``: uniform over the K classes from
    ``numpy.random.default_rng(seed)``, one draw per item in gold order.
    """
    names, rows = baseline_names(labels, kinds), []
    n = gold.shape[0]
    if "majority" in kinds:
        rows.append(np.full(n, int(np.argmax(np.bincount(gold, minlength=k)))))
    if "all_class" in kinds:
        rows += [np.full(n, code) for code in range(len(labels))]
    if "random" in kinds:
        rows.append(np.random.default_rng(seed).integers(0, k, size=n))
    pred = np.vstack(rows).astype(np.int8) if rows else np.zeros((0, n), dtype=np.int8)
    return names, pred


def baseline_names(labels, kinds) -> list[str]:
    """Names of the baselines ``make_baselines`` generates, in its order,
    and of the span baselines (``spans.span_baselines``) among ``kinds``."""
    from ..measures.spans import SPAN_BASELINES

    return ((["majority"] if "majority" in kinds else []) +
            ([f"all_{lab}" for lab in labels] if "all_class" in kinds else []) +
            (["random"] if "random" in kinds else []) + [k for k in SPAN_BASELINES if k in kinds])


def named_like_baseline(system: str, word: str, how: str, file=None) -> str:
    """The warning for a system whose name marks it as a baseline
    (``config.baseline_word`` gives ``word``) and that nothing declared:
    it is ranked as a real system.  ``how``: the way to declare it, both
    ways (``_advice``); ``file``: its file, when it has one.

    >>> named_like_baseline("Random_bsl__x", "Random", "...", "predictions/Random_bsl__x.csv")
    "system 'Random_bsl__x' (predictions/Random_bsl__x.csv) is named like a baseline (the word 'Random') and is
    ranked as a real system: if it is a baseline, ..."
    """
    return (f"system {system!r}" + (f" ({file})" if file else "") + f" is named like a baseline (the word {word!r}) "
            f"and is ranked as a real system: if it is a baseline, {how}")


def _advice(spec: DatasetSpec, advice: str):
    """``(system, stem) -> text``: how to declare a system a baseline or a
    real system, in the config's lines (``advice`` "config", with the
    dataset's patterns already declared) or as the library's keywords
    (``"library"``)."""
    import glob

    from .config import declare_line

    if advice == "library":
        return lambda system, stem: (f"give baseline_systems=[{system!r}]; if it is a real system, "
                                     f"real_systems=[{system!r}] silences this")

    def how(system: str, stem: str) -> str:
        base = declare_line("baseline_systems", [*spec.baseline_systems, glob.escape(stem)])
        real = declare_line("real_systems", [*spec.real_systems, glob.escape(stem)])
        return (f"add the line \"{base}\" to datasets.{spec.name} in the config; if it is a real system, add "
                f"\"{real}\" (either line silences this)")
    return how


def name_the_systems(ds, stems: Mapping[str, str], declared_real, how, files=None) -> list[str]:
    """Say which systems ``ds`` ranks as real and which are baselines:
    ``ds.info["systems"]`` (``real``, ``supplied_baselines``,
    ``generated_baselines``, ``synthetic``, and ``named_like_baselines``:
    every supplied system whose name marks it as a baseline, with the word,
    what it is treated as and what declared it), and one warning in
    ``ds.info["warnings"]`` for each system named like a baseline that is
    ranked as a real system without ``real_systems`` declaring it.

    ``stems``: ``{system: the name the rule reads}`` of the supplied
    systems (a file's name without extension, or the system's name);
    ``declared_real``: the systems declared real; ``how(system, stem)``:
    how to declare one (``_advice``); ``files``: ``{system: file}``, named
    in the warnings.  Returns the new warnings."""
    from .config import baseline_word

    kinds = dict(zip(ds.systems, ds.kinds))
    real = set(declared_real)
    marked = {s: w for s, stem in stems.items() if (w := baseline_word(stem)) is not None}
    ds.info["systems"] = {
        "real": [s for s in ds.systems if kinds[s] == "system"],
        "supplied_baselines": [s for s in ds.systems if kinds[s] == "baseline" and s in stems],
        "generated_baselines": [s for s in ds.systems if kinds[s] == "baseline" and s not in stems],
        "synthetic": [s for s in ds.systems if kinds[s] == "synthetic"],
        "named_like_baselines": {s: {"word": w, "treated_as": "baseline" if kinds[s] == "baseline" else "real system",
                                     "declared_by": "baseline_systems" if kinds[s] == "baseline" else
                                     "real_systems" if s in real else None}
                                 for s, w in marked.items()},
    }
    new = [named_like_baseline(s, w, how(s, stems[s]), (files or {}).get(s)) for s, w in marked.items()
           if kinds[s] == "system" and s not in real]
    ds.info.setdefault("warnings", []).extend(new)
    return new


def stripped_warnings(stripped: Mapping[str, Mapping[str, Mapping]]) -> list[str]:
    """One warning per file whose ids or group values were read without the
    spaces around them (``LabelTable.stripped``): the reading that matches
    them, said, since it can change which items meet.

    >>> stripped_warnings({"gold.csv": {"ids": {"count": 2, "example": " 7677 "}}})
    ["gold.csv: 2 item ids had spaces around them (' 7677 '), read without them (as '7677')"]
    """
    out = []
    for path, what in stripped.items():
        said = [f"{v['count']:,} {'item id' if key == 'ids' else 'group value'}{'' if v['count'] == 1 else 's'} "
                f"had spaces around {'it' if v['count'] == 1 else 'them'} ({v['example']!r}), read without them "
                f"(as {v['example'].strip()!r})" for key, v in what.items()]
        out.append(f"{path}: " + "; ".join(said))
    return out


def _refuse_clashes(generated, files: Mapping[str, Path], context: str, what: str) -> None:
    """A supplied file may not take a generated system's name."""
    clash = sorted(set(generated) & set(files))
    if clash:
        raise DataError([Problem(str(files[c]), None, f"system name {c!r} is {what}: rename the file, or give it "
                                                      f"another name with display_names")
                         for c in clash], context)


def _identical_systems(systems, outputs, supplied: set[str]) -> list[list[str]]:
    """Groups of systems whose outputs (``outputs``: one key per system, its
    predictions or sorted spans as bytes) are identical on every item (every
    span), where at least one of them is a supplied file: ranked twice, they
    would count as two systems.  A generated baseline equal to another
    generated one (``all_x`` and ``majority``) is no news and is left out."""
    groups: dict[bytes, list[str]] = {}
    for s, key in zip(systems, outputs):
        groups.setdefault(key, []).append(s)
    return [g for g in groups.values() if len(g) > 1 and any(s in supplied for s in g)]


def _identical_warnings(groups: list[list[str]], files=(), marked=()) -> list[str]:
    """One warning per group of identical systems, with the advice that
    fits it: ``files`` are the supplied files (the others are generated
    baselines), ``marked`` those already marked as baselines
    (``baseline_systems``), which are never told to be marked again."""
    # (ingestion does not know which baselines an experiment ranks: include_baselines is the experiments')
    out = []
    for g in groups:
        systems = [s for s in g if s in files and s not in marked]
        if not systems:
            advice = "name at most one of them in include_baselines, or drop the copies"
        else:
            names = ", ".join(map(repr, systems))
            advice = (f"drop the copies, or, if {names} {'is a baseline' if len(systems) == 1 else 'are baselines'},"
                      f" mark {'it' if len(systems) == 1 else 'them'} with baseline_systems")
        out.append(f"systems {', '.join(map(repr, g))} predict exactly the same on every item: each of them that "
                   f"is ranked (a real system, or a baseline named in include_baselines) counts as a system of its "
                   f"own ({advice})")
    return out
