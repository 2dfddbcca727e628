"""Mutation testing of the modules that compute or decide (mutmut 3).

    python tools/mutation.py verdict.py design.py     # these modules
    python tools/mutation.py --all                    # every module of tools/mutation.toml
    python tools/mutation.py --report                 # the scores of the last runs, as docs/checks.md's table

Each module runs in a scratch copy of the checkout (``.mutation/<module>/``,
kept between runs: mutmut re-tests only the functions that changed; its
results are also kept in tools/mutation-state/, in git, and a fresh clone
starts from them) against
the quick tests tools/mutation.toml lists for it.  A mutant is *killed* when
a test fails (or it times out: a test that hangs is a test that notices); it
*survives* when every test that calls the mutated function passes, or when
no test calls it.  The score is killed / (mutants - equivalent), where the
equivalent mutants are listed, each with its reason, in
tools/mutation-equivalent.toml: a survivor is killed by a new test or listed
there.

Not mutated: decorated functions (the numba kernels: mutmut 3 mutates a
function through a trampoline, which a compiled kernel cannot be; the kernels
are checked against plain loops instead) and code outside functions.
The workflow's tests (Snakemake in a subprocess) are not used: a
subprocess imports the library, not the mutant.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "tools" / "mutation.toml"
EQUIVALENT = ROOT / "tools" / "mutation-equivalent.toml"
SCRATCH = ROOT / ".mutation"
RESULTS = ROOT / "tools" / "mutation-scores.json"
STATE = ROOT / "tools" / "mutation-state"  # each module's last results, kept in git: a fresh clone resumes from them
COPIED = ("src", "tests", "config", "workflow", ".test", "pyproject.toml")
KILLED = {1, 3, 36, 24, -24, 152, 255, -11, -9, 37}  # a failing test, a timeout, a crash, a type error
SURVIVED = {0, 5, 33}  # every test passed, or no test calls it


def _slug(module: str) -> str:
    """A module's name for its scratch folder and its kept results (engine/scoring.py: engine__scoring)."""
    return module.replace("/", "__").removesuffix(".py")


def _modules() -> dict[str, list[str]]:
    return {m: v["tests"] for m, v in tomllib.loads(CONFIG.read_text())["modules"].items()}


def _diffs(module: str, names) -> dict[str, tuple[list[str], list[str]]]:
    """``{mutant: (lines removed, lines added)}`` of the module's mutants
    (mutmut's own diff, read in the scratch copy)."""
    names = sorted(names)
    if not names:
        return {}
    where = SCRATCH / _slug(module)
    code = ("import json, sys\n"
            "from mutmut.mutation.diff_apply import get_diff_for_mutant\n"
            f"path = 'src/metaeval/{module}'\n"
            "out = {}\n"
            "for n in json.load(sys.stdin):\n"
            "    try:\n"
            "        d = get_diff_for_mutant(n, path=path).splitlines()\n"
            "    except Exception:  # a mutant of a function changed since: tested again on the next run\n"
            "        continue\n"
            "    out[n] = ([x[1:] for x in d if x.startswith('-') and not x.startswith('---')],\n"
            "              [x[1:] for x in d if x.startswith('+') and not x.startswith('+++')])\n"
            "json.dump(out, sys.stdout)\n")
    res = subprocess.run([sys.executable, "-c", code], cwd=where, input=json.dumps(names), capture_output=True,
                         text=True, check=True)
    return {k: (v[0], v[1]) for k, v in json.loads(res.stdout).items()}


def _function(mutant: str) -> str:
    """The function a mutant changes, as tools/mutation-equivalent.toml
    names it: ``name`` for a function, ``Class.name`` for a method (mutmut
    spells them ``x_name`` and ``xǁClassǁname``)."""
    last = mutant.rsplit(".", 1)[1].split("__mutmut_")[0]
    return last[2:] if last.startswith("x_") else ".".join(p for p in last[1:].split("ǁ") if p)


def _equivalent(module: str, survivors) -> dict[str, str]:
    """``{mutant: why no test can tell it apart}`` among ``survivors``:
    tools/mutation-equivalent.toml's entries by name, and its rules (a
    regular expression over the lines a mutant removes and over those it
    adds, within the functions named)."""
    if not EQUIVALENT.is_file():
        return {}
    conf = tomllib.loads(EQUIVALENT.read_text())
    out = {k: v for k, v in conf.get("mutant", {}).items() if k in survivors}
    rules = conf.get("rule", [])
    rest = [n for n in survivors if n not in out]
    if not rules or not rest:
        return out
    for name, (removed, added) in _diffs(module, rest).items():
        function = _function(name)
        for r in rules:
            if r.get("modules") and module not in r["modules"]:
                continue
            if r.get("functions") and not any(fnmatch.fnmatch(function, f) for f in r["functions"]):
                continue
            if re.search(r.get("removed", ""), "\n".join(removed)) and re.search(r.get("added", ""),
                                                                                 "\n".join(added)):
                out[name] = r["reason"]
                break
    return out


def _scratch(module: str, tests: list[str]) -> Path:
    """The module's scratch checkout: the project's files copied afresh,
    its mutants and mutmut's records kept."""
    where = SCRATCH / _slug(module)
    where.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        src, dst = ROOT / name, where / name
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis"))
        else:
            shutil.copy2(src, dst)
    conf = (dst := where / "pyproject.toml").read_text()
    conf += ("\n[tool.mutmut]\n"
             'source_paths = ["src/metaeval"]\n'
             f'only_mutate = ["src/metaeval/{module}"]\n'
             # one process: the tests' own workers would not see the mutant
             'pytest_add_cli_args = ["-n", "0", "-p", "no:cacheprovider"]\n'
             f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
             'also_copy = ["config", "workflow", ".test"]\n')
    dst.write_text(conf)
    return where


def _tests_hash(selection=()) -> str:
    """The hash of every test file, and of the module's selection of them (a new selection is new tests)."""
    h = hashlib.sha256(json.dumps(list(selection)).encode())
    for f in sorted((ROOT / "tests").rglob("*.py")):
        h.update(f.relative_to(ROOT).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _meta(module: str) -> Path:
    """mutmut's record of a module's mutants in its scratch copy."""
    return SCRATCH / _slug(module) / "mutants" / "src" / "metaeval" / f"{module}.meta"


def _stamp(module: str) -> Path:
    """The hash of the tests a module's scratch copy last ran against."""
    return SCRATCH / _slug(module) / "tests.sha256"


def _state(module: str) -> Path:
    return STATE / f"{_slug(module)}.json"


def save_state(module: str) -> None:
    """Keep a module's results in tools/mutation-state/ (git): per function,
    mutmut's hash of its source and the exit code of each of its mutants
    (in mutant order; null: not checked), and the hash of the tests they ran
    against."""
    meta, stamp = json.loads(_meta(module).read_text()), _stamp(module)
    tests_hash = stamp.read_text() if stamp.is_file() else None
    codes: dict[str, dict[int, int | None]] = {}
    for key, code in meta["exit_code_by_key"].items():
        func, n = key.rsplit(".", 1)[1].rsplit("__mutmut_", 1)
        codes.setdefault(func, {})[int(n)] = code
    lines = [f"  {json.dumps(f, ensure_ascii=False)}: "
             f"{json.dumps([c.get(i) for i in range(1, max(c) + 1)], separators=(',', ':'))}"
             for f, c in sorted(codes.items())]
    hashes = json.dumps(meta.get("hash_by_function_name", {}), ensure_ascii=False, sort_keys=True, indent=2)
    STATE.mkdir(exist_ok=True)
    _state(module).write_text('{\n "tests_sha256": ' + json.dumps(tests_hash) + ',\n "hash_by_function_name": '
                              + hashes.replace("\n", "\n ") + ',\n "exit_codes": {\n' + ",\n".join(lines)
                              + "\n }\n}\n", encoding="utf-8")


def restore_state(module: str) -> None:
    """A scratch copy without results (a fresh clone) starts from the kept
    ones: mutmut then re-tests the mutants of every function whose source
    hash differs, and run() the survivors when the tests changed."""
    meta, kept = _meta(module), _state(module)
    if meta.is_file() or not kept.is_file():
        return
    s = json.loads(kept.read_text(encoding="utf-8"))
    stem = "metaeval." + module.removesuffix(".py").replace("/", ".")
    codes = {f"{stem}.{f}__mutmut_{i + 1}": c for f, cs in s["exit_codes"].items() for i, c in enumerate(cs)}
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": s["hash_by_function_name"],
                                "type_check_error_by_key": {}, "durations_by_key": {},
                                "estimated_durations_by_key": {}}, ensure_ascii=False))
    if s["tests_sha256"]:
        _stamp(module).write_text(s["tests_sha256"])


def run(module: str, tests: list[str], children: int) -> None:
    """mutmut on the module's scratch copy: the mutants not yet tested (new,
    or of functions that changed) and, when the tests changed since the last
    run, the survivors again (mutmut keeps a mutant's result otherwise)."""
    where = _scratch(module, tests)
    restore_state(module)
    stamp, now = _stamp(module), _tests_hash(tests)  # the tests this run copied
    before = stamp.read_text() if stamp.is_file() else None
    env = {**os.environ, "METAEVAL_DATA_DIR": os.environ.get("METAEVAL_DATA_DIR",
                                                             str(ROOT.parent / "shared" / "data"))}
    cmd = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children)]
    # which tests call which function: mutmut traces the tests it has not seen, not a test whose body changed
    # (a test that now calls another function would never run against its mutants): traced afresh whenever
    # the tests changed
    stats = where / "mutants" / "mutmut-stats.json"
    ran_before = tally(module) is not None
    if before != now:
        stats.unlink(missing_ok=True)
    subprocess.run(cmd, cwd=where, env=env, check=True)
    survivors = (tally(module) or {}).get("survivors", [])
    current = _tests_hash(tests)
    # again against the tests as they are now: changed since the last run, or during this one (a long pass)
    if survivors and ((ran_before and before != current) or current != now):
        _scratch(module, tests)
        if current != now:
            stats.unlink(missing_ok=True)
        now = current
        subprocess.run(cmd + survivors, cwd=where, env=env, check=True)
    stamp.write_text(now)
    save_state(module)


def tally(module: str) -> dict | None:
    """The counts of a module's last run (None when it has not run)."""
    meta = _meta(module)
    if not meta.is_file():
        return None
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    stem = "metaeval." + module.removesuffix(".py").replace("/", ".")
    names = {k: v for k, v in codes.items() if k.startswith(stem + ".")}
    equivalent = _equivalent(module, [k for k, v in names.items() if v in SURVIVED])
    eq = [k for k in names if k in equivalent]
    killed = [k for k, v in names.items() if v in KILLED and k not in equivalent]
    survived = sorted(k for k, v in names.items() if v in SURVIVED and k not in equivalent)
    unchecked = [k for k, v in names.items() if v is None]
    scored = len(names) - len(eq) - len(unchecked)
    return {"module": module, "mutants": len(names), "killed": len(killed), "survived": len(survived),
            "equivalent": len(eq), "not_checked": len(unchecked),
            "score": round(len(killed) / scored, 4) if scored else None, "survivors": survived,
            "equivalents": {k: equivalent[k] for k in sorted(eq)},
            "date": _dt.date.fromtimestamp(meta.stat().st_mtime).isoformat()}


def report(modules) -> str:
    """The table of ``modules``' last runs; tools/mutation-scores.json keeps
    every module's (those not run now as they were)."""
    kept = {t["module"]: t for t in json.loads(RESULTS.read_text())} if RESULTS.is_file() else {}
    kept.update({m: t for m in modules if (t := tally(m))})
    for m in modules:
        if _meta(m).is_file():
            save_state(m)
    order = list(_modules())
    RESULTS.write_text(json.dumps(sorted(kept.values(), key=lambda t: order.index(t["module"])
                                         if t["module"] in order else len(order)), indent=1) + "\n")
    lines = ["| module | mutants | killed | survived | equivalent | score | measured |", "|---|---:|---:|---:|---:|---:|---|"]
    for m in modules:
        if m not in kept:
            lines.append(f"| `{m}` | | | | | not run yet | |")
            continue
        t = kept[m]
        # a run stopped half-way has no score yet: its killed share would be of the mutants it reached
        score = (f"not finished ({t['not_checked']} not checked)" if t.get("not_checked") else
                 "" if t["score"] is None else f"{100 * t['score']:.1f} %")
        lines.append(f"| `{t['module']}` | {t['mutants']} | {t['killed']} | {t['survived']} | {t['equivalent']} | "
                     f"{score} | {t['date']} |")
    return "\n".join(lines) + "\n"


def equivalents_page(kept: list[dict]) -> str:
    """docs/mutation-equivalents.md: every equivalent mutant of the last
    runs, by module and by reason, as tools/mutation-scores.json holds them."""
    out = ["# Equivalent mutants", "",
           "<!-- written by python tools/mutation.py --report --docs: do not edit -->", "",
           "The mutants of the last runs that no test can tell apart from the code, each with the reason it is "
           "stated equivalent (`tools/mutation-equivalent.toml`; [How it is checked](checks.md#mutation-testing) "
           "says how they are counted). A mutant is named by its function and its number in that function "
           "(`python -m mutmut show NAME` in the module's scratch copy shows its change).", ""]
    for t in kept:
        if not t["equivalents"]:
            continue
        out += [f"## `{t['module']}` ({len(t['equivalents'])})", ""]
        by_reason: dict[str, list[str]] = {}
        for name, why in t["equivalents"].items():
            by_reason.setdefault(why, []).append(name.rsplit(".", 1)[1].removeprefix("x_").replace("ǁ", "."))
        for why, names in sorted(by_reason.items(), key=lambda x: (-len(x[1]), x[0])):
            out.append(f"- {why}: " + ", ".join(f"`{n}`" for n in sorted(names)))
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("modules", nargs="*", help="paths under src/metaeval (default with --all: every listed module)")
    p.add_argument("--all", action="store_true", help="every module of tools/mutation.toml")
    p.add_argument("--report", action="store_true", help="print the table of the last runs only")
    p.add_argument("--max-children", type=int, default=os.cpu_count() or 2, help="mutants run at once")
    p.add_argument("--docs", action="store_true", help="write the table of every module run into docs/checks.md "
                                                        "and their equivalent mutants into docs/mutation-equivalents.md")
    a = p.parse_args(argv)
    listed = _modules()
    given = [m.removeprefix("src/metaeval/") for m in a.modules]  # (the path from the checkout's root works too)
    chosen = list(listed) if a.all or (a.report and not given) else given
    if not chosen:
        p.error("name the modules to mutate (paths under src/metaeval, e.g. verdict.py), or --all")
    unknown = [m for m in chosen if m not in listed]
    if unknown:
        p.error(f"not in {CONFIG.relative_to(ROOT)}: {', '.join(unknown)}; its modules: {', '.join(listed)}")
    if not a.report:
        import importlib.util

        if importlib.util.find_spec("mutmut") is None:
            p.error("mutmut is not installed here: pip install -e '.[mutation]'")
        for m in chosen:
            run(m, listed[m], a.max_children)
    table = report(chosen)
    sys.stdout.write(table)
    if a.docs:
        docs = ROOT / "docs" / "checks.md"
        text = docs.read_text()
        start, end = "<!-- mutation-table -->\n", "<!-- /mutation-table -->"
        every = report(list(dict.fromkeys([t["module"] for t in json.loads(RESULTS.read_text())] + list(listed))))
        docs.write_text(text[:text.index(start) + len(start)] + every + text[text.index(end):])
        (ROOT / "docs" / "mutation-equivalents.md").write_text(equivalents_page(json.loads(RESULTS.read_text())),
                                                                encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
