"""Memory tests run on a pinned clock (backup names and ``created_at`` carry timestamps)."""

from __future__ import annotations

from typing import Iterator

import pytest


@pytest.fixture(autouse=True)
def _pinned_clock(fixed_clock: float) -> Iterator[float]:
    yield fixed_clock
