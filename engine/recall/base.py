"""The interface an external memory provider implements (Honcho, Mem0, … or the local one).

Every hook is optional to override; the manager calls them with a time bound and swallows
failures, so a provider can never cost the user their turn (invariant 7).
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class RecallProvider(ABC):
    """One recall backend. Methods run on the agent's worker thread, bounded by the manager."""

    name: str = "provider"

    def initialize(self, session_id: str | None) -> None:
        """Called once when the agent starts (``session_id`` is None for a not-yet-stored session)."""

    def system_prompt_block(self) -> str:
        """Static text for the volatile layer; read once per session snapshot."""
        return ""

    @abstractmethod
    def prefetch(self, query: str) -> str:
        """Recalled text relevant to ``query`` for the current turn ("" for nothing)."""

    def queue_prefetch(self, query: str) -> None:
        """A hint that ``query`` will come next; providers may warm a cache."""

    def on_turn_start(self, turn: int, user_text: str) -> None:
        """A new user turn begins."""

    def sync_turn(self, user_text: str, assistant_text: str) -> None:
        """A completed exchange, to store in the provider's own memory."""

    def on_pre_compress(self, messages: list[dict]) -> str:
        """Last look at the messages about to be summarized; may return notes to keep."""
        return ""

    def on_session_switch(self, old_session_id: str | None, new_session_id: str) -> None:
        """The live session changed (compression rotation, branch, new, resume)."""

    def on_session_end(self, messages: list[dict]) -> None:
        """The session ended; flush what is pending."""

    def shutdown(self) -> None:
        """Release resources."""

    def tools(self) -> list[dict]:
        """Extra tool schemas the provider offers the model (none by default)."""
        return []
