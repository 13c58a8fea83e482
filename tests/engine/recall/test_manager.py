"""The memory manager: one external provider, bounded hooks, failures become warnings (invariant 7)."""

from __future__ import annotations

import threading
import time

import pytest

from engine.errors import RefusedError
from engine.recall import RecallManager, RecallProvider


class Recorder(RecallProvider):
    name = "recorder"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def prefetch(self, query: str) -> str:
        self.calls.append(query)
        return f"recalled: {query}"


class Raises(RecallProvider):
    name = "raises"

    def prefetch(self, query: str) -> str:
        raise ConnectionError("backend down")

    def sync_turn(self, user_text: str, assistant_text: str) -> None:
        raise RuntimeError("sync broke")


class Hangs(RecallProvider):
    name = "hangs"

    def __init__(self) -> None:
        self.release = threading.Event()

    def prefetch(self, query: str) -> str:
        self.release.wait(30)
        return "too late"


def test_prefetch_passes_through() -> None:
    manager = RecallManager()
    provider = Recorder()
    manager.add_provider(provider)
    assert manager.prefetch("tea") == "recalled: tea"
    assert provider.calls == ["tea"]


def test_second_external_provider_is_refused() -> None:
    manager = RecallManager()
    manager.add_provider(Recorder())
    with pytest.raises(RefusedError, match="only one external memory provider"):
        manager.add_provider(Raises())


def test_raising_provider_becomes_a_warning() -> None:
    warnings: list[str] = []
    manager = RecallManager(warn=warnings.append)
    manager.add_provider(Raises())
    assert manager.prefetch("x") == ""
    manager.sync_turn("u", "a")
    assert len(warnings) == 2
    assert "backend down" in warnings[0] and "prefetch" in warnings[0]
    assert "sync_turn" in warnings[1]


def test_hanging_provider_is_abandoned_within_the_bound() -> None:
    warnings: list[str] = []
    manager = RecallManager(timeout_s=0.2, warn=warnings.append)
    provider = Hangs()
    manager.add_provider(provider)
    started = time.monotonic()
    assert manager.prefetch("x") == ""
    assert time.monotonic() - started < 2
    assert "within 0.2 s" in warnings[0]
    provider.release.set()


def test_no_provider_is_a_no_op() -> None:
    manager = RecallManager()
    assert manager.prefetch("x") == "" and manager.tools() == []
