"""The package's structure: no import circle, no import that runs up a floor.

Every import of ``src/metaeval`` is read from the syntax tree, at any depth
(an import inside a function runs when the function does, so it counts).
The floors are those of ``docs/architecture.md``: a module may import its
own floor and the floors below it, never one above.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "metaeval"

# from the ground up: the folders of src/metaeval (a name ending in "." is the folder) and the few modules at
# its root; a module may import its own floor and the floors below it, never one above
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("engine", ("engine", "engine.")),
    ("settings", ("settings",)),
    ("measures", ("measures", "measures.")),
    ("data", ("data", "data.")),
    ("present", ("present", "present.")),
    ("methods", ("methods", "methods.")),
    ("verdict", ("verdict", "verdict.")),
    # the papers' tables, apart from the core: nothing below reads them
    ("reproduction", ("reproduction", "reproduction.")),
    ("pipeline", ("pipeline", "pipeline.")),
    ("interfaces", ("api", "label_scores", "cli", "__main__", "workflow", "workflow.")),
]
# the package's entry point, which imports its public names lazily, by name (``__getattr__``)
OUTSIDE = {""}


def _modules() -> dict[str, Path]:
    out = {}
    for f in SRC.rglob("*.py"):
        parts = f.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def _imports(name: str, path: Path, modules) -> set[str]:
    """The modules of the package that ``name`` imports, at any depth."""
    pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    pkg = [p for p in pkg if p]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[:len(pkg) - (node.level - 1)]
            elif node.module and (node.module == "metaeval" or node.module.startswith("metaeval.")):
                base = []
                node_module = node.module.split(".", 1)[1] if "." in node.module else ""
                targets.append(node_module)
                targets += [".".join(filter(None, [node_module, a.name])) for a in node.names]
                base = None
            else:
                continue
            if base is not None:
                mod = ".".join(base + ([node.module] if node.module else []))
                targets.append(mod)
                targets += [".".join(filter(None, [mod, a.name])) for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name.split(".", 1)[1] for a in node.names if a.name.startswith("metaeval.")]
        found |= {t for t in targets if t in modules and t != name}
    return found


def _floor(name: str) -> int | None:
    for i, (_, members) in enumerate(FLOORS):
        if any(name == m or (m.endswith(".") and name.startswith(m)) for m in members):
            return i
    return None


MODULES = _modules()
GRAPH = {m: _imports(m, f, MODULES) for m, f in MODULES.items()}


def test_every_module_has_a_floor():
    """A new module is placed on a floor (here and on the architecture page)."""
    assert sorted(m for m in MODULES if m not in OUTSIDE and _floor(m) is None) == []


def _upward(graph) -> list[str]:
    return [f"{m} ({FLOORS[_floor(m)][0]}) imports {t} ({FLOORS[_floor(t)][0]})"
            for m, ts in graph.items() if m not in OUTSIDE for t in sorted(ts)
            if t not in OUTSIDE and _floor(t) > _floor(m)]


def test_no_import_runs_up_a_floor():
    assert _upward(GRAPH) == []


def test_an_upward_import_is_found():
    assert _upward({"present.tables": {"methods.experiments", "measures.labels"},
                    "methods.scorer": {"data.dataset"}, "engine.ranking": {"settings"}}) == [
        "present.tables (present) imports methods.experiments (methods)",
        "engine.ranking (engine) imports settings (settings)"]


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    assert _cycles(GRAPH) == []


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
])
def test_the_circle_finder_finds_circles(graph, expected):
    assert _cycles(graph) == expected


def test_the_import_reader_sees_imports_inside_functions_and_up_the_package():
    """the workflow's modules import the library with two dots, the
    measures' modules with three; an import inside a function counts."""
    assert "methods.scorer" in GRAPH["methods.design"]
    assert "data.config" in GRAPH["workflow.params"]
    assert "engine.resample" in GRAPH["methods.scorer"]
    assert "measures.labels" in GRAPH["measures.scores.registry"] or "measures.scores.multiclass" in GRAPH[
        "measures.scores.registry"]


def test_every_subpackage_is_shipped():
    """pyproject.toml lists the packages explicitly (it maps workflow/ into
    the package): a new subpackage of src/metaeval is listed there, and the
    workflow's files are package data."""
    import tomllib

    from setuptools import find_packages

    root = SRC.parents[1]
    tool = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert sorted(p for p in tool["packages"] if not p.startswith("metaeval._workflow")) == sorted(
        find_packages(str(root / "src")))
    assert tool["package-dir"]["metaeval._workflow"] == "workflow"
    shipped = {f for pkg, globs in tool["package-data"].items() if pkg.startswith("metaeval._workflow")
               for g in globs for f in (root / "workflow" / pkg[len("metaeval._workflow."):].replace(".", "/")).glob(g)}
    wanted = {f for f in (root / "workflow").rglob("*") if f.is_file() and "__pycache__" not in f.parts}
    assert wanted - shipped == set()


def test_the_engine_imports_nothing_of_the_project():
    """``engine/`` is below everything: it knows neither datasets nor
    metrics nor settings (the seeds' range is written in the engine and read
    by ``settings``)."""
    assert {m: sorted(t for t in GRAPH[m] if not t.startswith("engine")) for m in GRAPH
            if _floor(m) == 0} == {m: [] for m in GRAPH if _floor(m) == 0}


def test_a_floor_is_a_folder():
    """The floors are folders a newcomer can see: at the root of the package
    only the entry points, the settings and the interfaces."""
    root = sorted(m for m in MODULES if "." not in m and not (SRC / m).is_dir())
    assert root == ["__main__", "api", "cli", "label_scores", "settings"]


def test_the_public_door_holds_only_public_names():
    """``dir(metaeval)`` lists the public functions, the data object, the
    version and the floors; nothing it imports for itself leaks, and the
    old flat module names are gone (the project has not been released)."""
    import importlib
    import subprocess
    import sys

    import metaeval

    names = dir(metaeval)
    assert not [n for n in names if n.startswith("_") and n != "__version__"]
    assert {"importlib", "version", "annotations", "PackageNotFoundError"}.isdisjoint(names)
    assert set(metaeval.__all__) == {"__version__", "dataset", "span_dataset", "read_files", "evaluate", "compare",
                                     "recommend", "meta_evaluate", "size_design", "Dataset", "score",
                                     "register_metric", "leaderboard", "Benchmark", "read_benchmark",
                                     "register_aggregate"}
    for name in metaeval.__all__:
        assert getattr(metaeval, name) is not None
    for old in ("metrics", "confusion", "resample", "kernels", "ranking", "recommendation", "io", "config",
                "engine.scoring", "spans", "scores", "declare", "steps", "recommend"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"metaeval.{old}")
    # importing the package imports none of its floors
    code = "import sys, metaeval; print(sorted(m for m in sys.modules if m.startswith('metaeval')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['metaeval']"
