"""The compiled kernels' cache: one folder per version of their source,
wherever the source lies (metaeval.engine.kernel_cache)."""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from metaeval.engine import kernel_cache as KC

SRC = Path(__file__).resolve().parents[1] / "src"


def test_the_folder_follows_the_contents_not_the_path_or_the_time(tmp_path, monkeypatch):
    monkeypatch.setenv("METAEVAL_CACHE_DIR", str(tmp_path / "cache"))
    kernels = SRC / "metaeval" / "engine" / "kernels.py"
    a, b = tmp_path / "a.py", tmp_path / "b" / "kernels.py"
    b.parent.mkdir()
    shutil.copyfile(kernels, a)
    shutil.copyfile(kernels, b)
    os.utime(b, (1, 1))
    assert KC.kernel_cache_dir(a) == KC.kernel_cache_dir(b) == KC.kernel_cache_dir(kernels)
    assert KC.kernel_cache_dir(a).parent == tmp_path / "cache" / "numba"
    b.write_text(b.read_text() + "\n# changed\n")
    assert KC.kernel_cache_dir(b) != KC.kernel_cache_dir(a)


def test_the_cache_root_reads_its_variables(monkeypatch, tmp_path):
    monkeypatch.delenv("METAEVAL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert KC.cache_root() == tmp_path / "metaeval"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert KC.cache_root() == Path(os.path.expanduser("~")) / ".cache" / "metaeval"
    monkeypatch.setenv("METAEVAL_CACHE_DIR", str(tmp_path / "x"))
    assert KC.cache_root() == tmp_path / "x"


_PROBE = """
import json, numba
from metaeval.engine import kernels as k
from metaeval.engine.resample import compile_kernels
if __import__("sys").argv[-1] == "compile":
    compile_kernels()
fns = [getattr(k, n) for n in dir(k) if isinstance(getattr(k, n), numba.core.registry.CPUDispatcher)
       and isinstance(getattr(k, n)._cache, numba.core.caching.FunctionCache)]  # those with cache=True
print(json.dumps({"paths": sorted({f._cache.cache_path for f in fns}),
                  "hits": sum(sum(f.stats.cache_hits.values()) for f in fns),
                  "misses": sum(sum(f.stats.cache_misses.values()) for f in fns)}))
"""


def _probe(src: Path, env: dict, compile: bool = True) -> dict:
    import json

    res = subprocess.run([sys.executable, "-c", _PROBE, "compile" if compile else "load"], env={**env, "PYTHONPATH": str(src)}, capture_output=True,
                         text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _copies(tmp_path):
    """The package twice, at two paths, the second's kernels.py with another
    time (a fresh clone), and an environment whose cache is in tmp_path."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "METAEVAL_CACHE_DIR")}
    env["METAEVAL_CACHE_DIR"] = str(tmp_path / "cache")
    copies = []
    for name in ("one", "two"):
        dst = tmp_path / name / "src"
        shutil.copytree(SRC / "metaeval", dst / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
        copies.append(dst)
    os.utime(copies[1] / "metaeval" / "engine" / "kernels.py", (1, 1))
    digest = hashlib.sha256((SRC / "metaeval" / "engine" / "kernels.py").read_bytes()).hexdigest()[:16]
    return copies, env, str(tmp_path / "cache" / "numba" / digest)


def test_every_kernel_of_any_copy_is_kept_in_its_version_s_folder(tmp_path):
    """numba's cache of each kernel: the folder of the source's contents,
    the same for two copies; with NUMBA_CACHE_DIR numba's own folder (the
    locator steps aside)."""
    copies, env, want = _copies(tmp_path)
    for src in copies:
        assert _probe(src, env, compile=False)["paths"] == [want]
    own = _probe(copies[1], {**env, "NUMBA_CACHE_DIR": str(tmp_path / "numba_own")}, compile=False)
    assert own["paths"] and all(p.startswith(str(tmp_path / "numba_own")) for p in own["paths"])


@pytest.mark.slow
def test_a_fresh_copy_of_the_same_code_compiles_nothing(tmp_path):
    """Two checkouts of the same code at different paths, with different
    file times (a fresh clone): the second loads every kernel the first
    compiled (numba's cache hits, no miss)."""
    copies, env, want = _copies(tmp_path)
    first = _probe(copies[0], env)
    assert first["paths"] == [want] and first["misses"] > 0  # an empty cache: compiled
    second = _probe(copies[1], env)
    assert second["misses"] == 0 and second["hits"] >= first["misses"]
