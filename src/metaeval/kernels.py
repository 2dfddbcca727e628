"""Moved to ``metaeval.engine.kernels`` (issue 30); this name keeps working for
one release, with a DeprecationWarning."""

import sys
import warnings

from .engine import kernels as _module

warnings.warn("metaeval.kernels is now metaeval.engine.kernels; the old name goes in the next release",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _module
