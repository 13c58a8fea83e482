"""Fixtures for engine tests that run a whole Agent turn against the loopback model."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import yaml

from hermes_tui.loopback_llm import LoopbackLLM, Reply


@pytest.fixture
def notes_llm() -> Iterator[LoopbackLLM]:
    """A loopback model whose side calls (titles, reviews) answer "Notes"."""
    with LoopbackLLM(side_responder=lambda _body: Reply(text="Notes")) as server:
        yield server


@pytest.fixture
def loopback_home(tmp_path: Path, notes_llm: LoopbackLLM) -> Path:
    """An empty home whose model is ``notes_llm`` (OpenAI wire format)."""
    home = tmp_path / "home"
    home.mkdir()
    config = {"model": {"provider": "openai", "name": "test-model", "base_url": notes_llm.base_url_openai}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    return home
