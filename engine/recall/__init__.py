"""External memory: the provider interface, the manager that keeps failures away from the turn,
and the built-in ``local`` provider that recalls earlier turns from state.db."""

from engine.recall.base import RecallProvider
from engine.recall.manager import RecallManager, make_recall_manager

__all__ = ["RecallProvider", "RecallManager", "make_recall_manager"]
