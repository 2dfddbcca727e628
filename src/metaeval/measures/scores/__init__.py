"""Scores and probabilities, not only labels: reading score files
(``readers``), the metrics of scores (``binary``, ``multiclass``,
``ranking``) and their registry (``registry``)."""

__all__ = ["SCORE_METRIC_IDS", "SCORE_REGISTRY", "ScoreMetric"]


def __getattr__(name):  # the registry on first use: its modules import this package
    if name in __all__:
        from . import registry

        return getattr(registry, name)
    raise AttributeError(name)
