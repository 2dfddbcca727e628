"""Moved to ``metaeval.engine.resample`` (issue 30); this name keeps working for
one release, with a DeprecationWarning."""

import sys
import warnings

from .engine import resample as _module

warnings.warn("metaeval.resample is now metaeval.engine.resample; the old name goes in the next release",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _module
