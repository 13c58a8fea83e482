"""Store tests run at a pinned time with a fresh database or a copy of the upstream home."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from engine.store import SessionDB


@pytest.fixture(autouse=True)
def _pinned(fixed_clock: float) -> float:
    return fixed_clock


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SessionDB]:
    store = SessionDB.open_home(tmp_path / "home")
    yield store
    store.close()


@pytest.fixture
def upstream_db(upstream_home: Path) -> Iterator[SessionDB]:
    store = SessionDB.open_home(upstream_home)
    yield store
    store.close()
