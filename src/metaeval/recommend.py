"""``metaeval.recommend`` is the function ``metaeval.api.recommend``; the
module that had this name is ``metaeval.recommendation`` (issue 30).

This file keeps the old module path working for one release: importing it
gives a module that is also the function (callable, with its signature and
docstring), and whose other attributes are those of
``metaeval.recommendation``, with a DeprecationWarning."""

import importlib
import inspect
import sys
import types
import warnings


class _Forward(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return importlib.import_module("metaeval.api").recommend(*args, **kwargs)

    @property
    def __signature__(self):
        return inspect.signature(importlib.import_module("metaeval.api").recommend)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        warnings.warn(f"metaeval.recommend.{name} is now metaeval.recommendation.{name} (metaeval.recommend is "
                      "the function); the old path goes in the next release", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module("metaeval.recommendation"), name)


sys.modules[__name__].__class__ = _Forward
