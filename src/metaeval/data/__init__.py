"""The data: files in, a dataset in memory out.

* ``files``: fault records (file, line, fault), checked reading, atomic
  writers of results;
* ``readers``: one module per format (label files, span files, score files,
  the alignment of a technique-classification submission);
* ``config``: the configuration checked up front (schema, keys, metrics);
* ``dataset``: a dataset in memory (label codes, span statistics);
  ``score_data``: the systems' scores aligned with its items;
* ``resources``: where the installed workflow, config and schema are.

Imports ``engine``, ``settings`` and ``measures``.
"""

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
