"""Where the compiled kernels are kept: one folder per version of their
source, outside the checkout, so that a fresh clone or a fresh install of
the same code compiles nothing (issue 50).

numba keeps a function's compiled code beside its source by default
(``__pycache__``): every new checkout, every CI run, every copy of the
package compiled the engine's kernels again (about half a minute here, a
job that the experiments waited for).  ``KernelCacheLocator`` keeps the
kernels of ``engine/kernels.py`` in

    ``$METAEVAL_CACHE_DIR`` (default ``$XDG_CACHE_HOME/metaeval``, else
    ``~/.cache/metaeval``) ``/numba/<the first 16 hex digits of the SHA-256
    of kernels.py>``,

so the folder changes with every change of the source, and two copies of
the same source share it wherever they lie.  numba still checks each entry
against the source's SHA-256 (its own stamp) and against the machine it was
compiled for (the CPU and its features, numba's version): a shared home on
a cluster of different nodes holds one entry per kind of node.  Entries are
written atomically (numba writes a temporary file and renames it), so jobs
that compile at once do not break one another.

``NUMBA_CACHE_DIR`` set: numba's own folder is used, as numba documents.
A folder that cannot be written: numba's default (beside the source).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["cache_root", "kernel_cache_dir", "install"]


def cache_root() -> Path:
    """The folder of metaeval's caches: ``METAEVAL_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/metaeval``, else ``~/.cache/metaeval``."""
    if os.environ.get("METAEVAL_CACHE_DIR"):
        return Path(os.environ["METAEVAL_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "metaeval"


def kernel_cache_dir(source: str | os.PathLike) -> Path:
    """The folder of the kernels compiled from ``source`` (its contents'
    SHA-256, not its path or time)."""
    digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16]
    return cache_root() / "numba" / digest


def _locator_class():
    """The locator, built on numba's (a private API: None where it has
    moved, and numba's default is kept)."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba without the module
        return None
    base = getattr(caching, "_CacheLocator", None)
    mixin = getattr(caching, "_SourceFileBackedLocatorMixin", None)
    if base is None or mixin is None:  # pragma: no cover - another numba
        return None

    class KernelCacheLocator(mixin, base):
        """numba's locator for the engine's kernels: the source's stamp
        (its SHA-256) as numba makes it, the folder from its contents."""

        _source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels.py")

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(kernel_cache_dir(py_file))

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.environ.get("NUMBA_CACHE_DIR") or not os.path.exists(py_file) or \
                    not os.path.samefile(py_file, cls._source):
                return None  # numba's own locators
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:  # not writable: numba's default
                return None
            return self

    return KernelCacheLocator


def install() -> bool:
    """Put the locator first in numba's list (once); False where numba's
    internals have moved (its default folder is then used)."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover
        return False
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if not isinstance(classes, list):  # pragma: no cover - another numba
        return False
    if any(c.__name__ == "KernelCacheLocator" for c in classes):
        return True
    cls = _locator_class()
    if cls is None:  # pragma: no cover
        return False
    classes.insert(0, cls)
    return True
