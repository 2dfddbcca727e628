"""Moved to ``metaeval.engine.ranking`` (issue 30); this name keeps working for
one release, with a DeprecationWarning."""

import sys
import warnings

from .engine import ranking as _module

warnings.warn("metaeval.ranking is now metaeval.engine.ranking; the old name goes in the next release",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _module
