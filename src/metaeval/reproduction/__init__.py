"""The papers' published tables against ours (``reproduce``) and a task's
official figures against the dataset's scores (``official``): apart from the
core, no method reads them.
"""

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
