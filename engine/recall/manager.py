"""Runs the external memory provider's hooks with a time bound, never letting one fail a turn.

Each hook runs on a daemon thread and is waited for at most ``timeout_s``; a hook that raises
or overruns becomes a one-line warning (invariant 7). Daemon threads, not an executor: a hung
provider must not keep the process alive after the user's command has finished.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, TypeVar

from engine.errors import RefusedError
from engine.recall.base import RecallProvider

T = TypeVar("T")
Warn = Callable[[str], None]


def _bounded(fn: Callable[[], T], timeout_s: float) -> tuple[bool, T | None, BaseException | None]:
    """Run ``fn`` on a daemon thread; (finished, value, error)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - a provider's failure is reported, never raised
            box["error"] = exc

    worker = threading.Thread(target=run, name="recall-hook", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        return False, None, None
    return True, box.get("value"), box.get("error")


class RecallManager:
    """Holds at most one external provider and calls it safely."""

    def __init__(self, *, timeout_s: float = 3.0, warn: Warn | None = None) -> None:
        self.provider: RecallProvider | None = None
        self.timeout_s = timeout_s
        self.warn: Warn = warn or (lambda message: None)

    def add_provider(self, provider: RecallProvider) -> None:
        if self.provider is not None:
            raise RefusedError(
                f"memory.provider: only one external memory provider can be active "
                f"({self.provider.name!r} is already registered, refusing {provider.name!r})."
            )
        self.provider = provider

    def _call(self, hook: str, default: T, *args: Any) -> T:
        provider = self.provider
        if provider is None:
            return default
        finished, value, error = _bounded(lambda: getattr(provider, hook)(*args), self.timeout_s)
        if not finished:
            self.warn(f"Memory provider {provider.name!r} did not answer {hook} within {self.timeout_s:g} s; continuing without it.")
            return default
        if error is not None:
            self.warn(f"Memory provider {provider.name!r} failed in {hook}: {error}; continuing without it.")
            return default
        return value if value is not None else default

    def initialize(self, session_id: str | None) -> None:
        self._call("initialize", None, session_id)

    def system_prompt_block(self) -> str:
        return str(self._call("system_prompt_block", "") or "")

    def prefetch(self, query: str) -> str:
        return str(self._call("prefetch", "", query) or "")

    def queue_prefetch(self, query: str) -> None:
        self._call("queue_prefetch", None, query)

    def on_turn_start(self, turn: int, user_text: str) -> None:
        self._call("on_turn_start", None, turn, user_text)

    def sync_turn(self, user_text: str, assistant_text: str) -> None:
        self._call("sync_turn", None, user_text, assistant_text)

    def on_pre_compress(self, messages: list[dict]) -> str:
        return str(self._call("on_pre_compress", "", messages) or "")

    def on_session_switch(self, old_session_id: str | None, new_session_id: str) -> None:
        self._call("on_session_switch", None, old_session_id, new_session_id)

    def on_session_end(self, messages: list[dict]) -> None:
        self._call("on_session_end", None, messages)

    def shutdown(self) -> None:
        self._call("shutdown", None)

    def tools(self) -> list[dict]:
        return list(self._call("tools", []) or [])


def make_recall_manager(name: str, db: Any, *, warn: Warn | None = None, timeout_s: float = 3.0) -> RecallManager:
    """The manager for ``memory.provider`` ("" = none, "local" = the built-in FTS recall)."""
    manager = RecallManager(timeout_s=timeout_s, warn=warn)
    if name == "local":
        from engine.recall.local import LocalRecallProvider

        manager.add_provider(LocalRecallProvider(db))
    elif name:
        raise RefusedError(f"memory.provider: unknown provider {name!r}; this build offers \"local\" or \"\" (none).")
    return manager
