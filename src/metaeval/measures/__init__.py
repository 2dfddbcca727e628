"""The measures: pure functions that turn sufficient statistics into scores.

* ``labels``: the metrics of labels, functions of confusion tensors
  ``(..., K, K)`` (``c[..., i, j]``: predicted i, gold j), and the registry
  of every metric;
* ``custom``: the metrics users bring (``metaeval.register_metric``), held to
  their declared contract; ``items``: metrics of per-item terms;
* ``scores``: metrics of scores and probabilities; ``spans``: span statistics
  and span metrics;
* ``chance``: chance levels; ``properties``: the formal properties checked on
  generated confusion matrices.

Imports ``metaeval.engine`` and ``metaeval.settings`` only.
"""

from metaeval import _submodules  # noqa: E402

__getattr__ = _submodules(__name__)  # its modules, imported on first use
