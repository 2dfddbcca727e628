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

# from the ground up; a name ending in "." is a package prefix
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("io", "resources", "declare", "mcs", "engine.confusion", "engine.kernels",
                    "engine.resample", "engine.ranking", "engine.progress")),
    ("measures", ("metrics", "custom_metrics", "item_metrics", "scores", "scores.", "spans", "spans.", "chance",
                  "properties")),
    ("formatting", ("notation", "report", "tables", "plots")),
    ("data", ("config", "settings", "dataset", "score_data")),
    ("engine", ("engine.scoring",)),
    ("methods", ("experiments", "design", "significance", "sensitivity", "criteria", "verdict", "tradeoff",
                 "gameability", "crossdata", "recommendation")),
    # the papers' tables, apart from the core: nothing below reads them
    ("reproduction", ("reproduce", "official")),
    ("pipeline", ("pipeline", "pipeline.")),
    ("interfaces", ("api", "label_scores", "cli", "__main__", "steps", "workflow", "workflow.")),
]
# package entry points that import lazily by name (``__getattr__``), the
# modules that moved (their old names forward to the new home for one release)
# and metaeval.recommend (the function; its old module path forwards)
OUTSIDE = {"", "engine", "confusion", "resample", "kernels", "ranking", "recommend"}


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
    assert _upward({"tables": {"experiments", "metrics"}, "engine.scoring": {"dataset"}}) == [
        "tables (formatting) imports experiments (methods)"]


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
    """design.py imports the engine's scorer inside a function; the workflow's
    modules import the library with two dots."""
    assert "engine.scoring" in GRAPH["design"]
    assert "config" in GRAPH["workflow.params"]
    assert "engine.resample" in GRAPH["engine.scoring"]


def _fresh(code: str) -> None:
    """Run ``code`` in a fresh interpreter (a DeprecationWarning comes once
    per process) and check that it printed ok."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_the_moved_modules_keep_their_old_names_with_a_warning():
    """``metaeval.resample`` and the others moved into ``metaeval.engine``
    (issue 30): the old import paths and attributes give the same module,
    with a DeprecationWarning (a fresh interpreter: the warning comes once)."""
    code = ("import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
            "import metaeval, importlib\n"
            "for m in ('confusion', 'resample', 'kernels', 'ranking'):\n"
            "    try:\n"
            "        importlib.import_module('metaeval.' + m)\n"
            "    except DeprecationWarning as w:\n"
            "        assert 'metaeval.engine.' + m in str(w), w\n"
            "    else:\n"
            "        raise SystemExit('no warning for ' + m)\n"
            "warnings.simplefilter('ignore')\n"
            "from metaeval.resample import SubsetConfusion\n"
            "import metaeval.engine.resample as r\n"
            "assert SubsetConfusion is r.SubsetConfusion and metaeval.ranking is metaeval.engine.ranking\n"
            "from metaeval.experiments import Scorer, select_systems\n"
            "assert Scorer is metaeval.engine.Scorer\n"
            "print('ok')\n")
    _fresh(code)


def test_metaeval_recommend_is_the_function_and_its_old_module_path_forwards():
    """``metaeval.recommend(...)`` is the one-call function (it raised
    "module is not callable" while the module had its name); the module is
    ``metaeval.recommendation``, and ``from metaeval.recommend import X``
    keeps working for one release, with a DeprecationWarning."""
    code = ("import inspect, warnings, metaeval\n"
            "import metaeval.api as api\n"
            "assert metaeval.recommend is api.recommend\n"
            "warnings.simplefilter('error', DeprecationWarning)\n"
            "try:\n"
            "    from metaeval.recommend import recommend_dataset\n"
            "except DeprecationWarning as w:\n"
            "    assert 'metaeval.recommendation.recommend_dataset' in str(w), w\n"
            "else:\n"
            "    raise SystemExit('no warning')\n"
            "warnings.simplefilter('ignore')\n"
            "import metaeval.recommend as R, metaeval.recommendation as N\n"
            "from metaeval.recommend import recommend_dataset\n"
            "assert recommend_dataset is N.recommend_dataset and callable(R)\n"
            "assert inspect.signature(R) == inspect.signature(api.recommend)\n"
            "print('ok')\n")
    _fresh(code)


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
