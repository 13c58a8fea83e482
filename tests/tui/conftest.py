"""Fixtures for the app tests: a fixed clock and UTC, a loopback model, homes, and the real Agent."""

from __future__ import annotations

import itertools
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest
from textual._styles_cache import StylesCache

from engine import clock
from hermes_tui.collector import release_full_collections
from hermes_tui.loopback_llm import LoopbackLLM
from tests.conftest import copy_home
from tests.tui.helpers import FIXED_NOW, write_config


@pytest.fixture(autouse=True)
def pinned_time_and_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    clock.set_clock(lambda: FIXED_NOW)
    yield
    clock.set_clock(None)
    time.tzset()


@pytest.fixture(autouse=True)
def collector_per_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The app freezes its start-up heap (``gc.freeze``) and holds full collections during a
    turn; neither may outlive a test's app. Its freeze is left out here: frozen, a test's app
    could never be collected, and unfreezing would thaw the heap the suite froze once
    (``tests/conftest.py``)."""
    monkeypatch.setattr("hermes_tui.app.freeze_startup_objects", lambda: None)
    yield
    release_full_collections()
    # Textual 8.2 caches this per widget (an ``lru_cache`` on a method), so it holds the line
    # caches of up to 1,024 closed widgets: ~100k objects every full collection would walk.
    StylesCache.get_inner_outer.cache_clear()


@pytest.fixture(autouse=True)
def no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app must never reach a real provider from a test."""
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "HERMES_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM() as server:
        yield server


@pytest.fixture
def home(tmp_path: Path, llm: LoopbackLLM) -> Path:
    """An empty home whose model is the loopback server (OpenAI wire format)."""
    path = tmp_path / "home"
    write_config(path, llm)
    return path


@pytest.fixture
def upstream_home(tmp_path: Path, llm: LoopbackLLM) -> Path:
    """A private, writable copy of the upstream Hermes home, its model pointed at the loopback server."""
    path = copy_home(tmp_path / "upstream")
    write_config(path, llm)
    return path


@pytest.fixture
def keyless_home(tmp_path: Path) -> Path:
    path = tmp_path / "keyless"
    path.mkdir()
    return path


@pytest.fixture
def fixed_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pending-record and session ids are random; pin them so the start screen is the same every run."""
    counter = itertools.count()
    monkeypatch.setattr("secrets.token_hex", lambda n=4: f"{next(counter):0{2 * n}x}")


@pytest.fixture
def demo_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the demo may create its temporary home (and nowhere else)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    return folder
