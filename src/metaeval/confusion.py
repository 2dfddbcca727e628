"""Moved to ``metaeval.engine.confusion`` (issue 30); this name keeps working for
one release, with a DeprecationWarning."""

import sys
import warnings

from .engine import confusion as _module

warnings.warn("metaeval.confusion is now metaeval.engine.confusion; the old name goes in the next release",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _module
