"""Declared settings: a dataclass field that carries its default, one line
of meaning and the JSON-schema of its value.

A method's settings are a frozen dataclass of such fields (the experiments'
branches in ``metaeval.settings``, the formal properties' matrices in
``metaeval.properties``); the config's schema, ``config/README.md``'s
tables and the library's checks are generated from these declarations
(``metaeval.settings``), so none of them can hold another default.

Examples
--------
>>> from dataclasses import dataclass, fields
>>> @dataclass(frozen=True)
... class Toy:
...     n: int = setting(3, "how many", type="integer", minimum=1)
>>> f = fields(Toy)[0]
>>> Toy().n, f.metadata["meaning"], f.metadata["schema"]
(3, 'how many', {'type': 'integer', 'minimum': 1})
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

__all__ = ["setting"]


def setting(default: Any, meaning: str, *, param: bool = True, **schema) -> Any:
    """A setting: its default, one line of meaning, the JSON-schema of its
    value (without ``type`` for a list: ``items`` says it).  ``param=False``:
    it shapes the workflow's jobs, never a number, and is no rule param of
    the steps of its method: a change reruns only the jobs whose inputs it
    changes (``shards``: the experiments job gathers other files) and what
    follows them, and the numbers stay the same."""
    kw = {"default_factory": (lambda d=default: d)} if isinstance(default, (list, dict)) else {"default": default}
    return field(metadata={"meaning": meaning, "schema": schema, "param": param}, **kw)
