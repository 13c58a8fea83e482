"""External memory: the provider interface, the manager that keeps failures away from the turn,
and the built-in ``local`` provider that recalls earlier turns from state.db."""

from engine.recall.base import MemoryProvider
from engine.recall.manager import MemoryManager, make_memory_manager

__all__ = ["MemoryProvider", "MemoryManager", "make_memory_manager"]
