"""Fixtures every test folder may use: a writable copy of the upstream home, and a pinned clock."""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path
from typing import Iterator

import pytest
import yaml

from engine import clock
from hermes_tui.loopback_llm import LoopbackLLM, Reply

# A home written by upstream Hermes Agent 0.19.0 (scripts/make_upstream_fixture.py; see its README).
FIXTURE_HOME = Path(__file__).resolve().parent / "fixtures" / "upstream_home_v22"
# The one pinned "now" of the whole suite: 2026-11-30 12:00 UTC, a day after the fixture's newest
# activity (its last session, 2026-11-29 08:00, and its two pending writes, 08:01 and 08:03:30).
FIXED_NOW = 1_796_040_000.0


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze the heap the suite has loaded (Textual, both SDKs, the corpora) once per process.

    A full collection walks every object the collector tracks: ~0.45 s over this heap on a
    2-core machine, dozens of times per worker as the app tests make and drop apps. The SDKs
    are loaded lazily by the app but by almost every worker's tests, so they are loaded here.
    The app's own start-up freeze would freeze each test's app with it (``tests/tui/conftest.py``).
    """
    import anthropic  # noqa: F401
    import openai  # noqa: F401

    gc.collect()
    gc.freeze()


def copy_home(dest: Path) -> Path:
    """Copy the read-only fixture and make the copy writable, as a user's own home would be."""
    shutil.copytree(FIXTURE_HOME, dest, copy_function=shutil.copyfile)
    for root, _dirs, _files in os.walk(dest):
        os.chmod(root, 0o755)
    return dest


@pytest.fixture
def upstream_home(tmp_path: Path) -> Path:
    return copy_home(tmp_path / "upstream_home")


@pytest.fixture
def fixed_clock() -> Iterator[float]:
    clock.set_clock(lambda: FIXED_NOW)
    yield FIXED_NOW
    clock.set_clock(None)


@pytest.fixture
def notes_llm() -> Iterator[LoopbackLLM]:
    """A loopback model whose side calls (titles, reviews) answer "Notes"."""
    with LoopbackLLM(side_responder=lambda _body: Reply(text="Notes")) as server:
        yield server


@pytest.fixture
def loopback_home(tmp_path: Path, notes_llm: LoopbackLLM) -> Path:
    """An empty home whose model is ``notes_llm`` (OpenAI wire format), for whole-turn tests."""
    home = tmp_path / "home"
    home.mkdir()
    config = {"model": {"provider": "openai", "name": "test-model", "base_url": notes_llm.base_url_openai}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    return home
