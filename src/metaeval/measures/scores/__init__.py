"""Scores and probabilities, not only labels: reading score files
(``readers``), the metrics of scores (``binary``, ``multiclass``,
``ranking``) and their registry (``registry``)."""

__all__ = ["SCORE_METRIC_IDS", "SCORE_REGISTRY", "ScoreMetric"]


from metaeval import _submodules  # noqa: E402

_modules = _submodules(__name__)


def __getattr__(name):  # the registry on first use (its modules import this package), and every module
    if name in __all__:
        from . import registry

        return getattr(registry, name)
    return _modules(name)
