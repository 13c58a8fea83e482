"""A guard on the source: the UI uses what the engine offers, never its internals.

The agent's store connection, its auxiliary providers and the raw config mapping are the
engine's own; the UI gets the store from whoever opened it, asks the agent for a search or a
list of sessions, reads the typed config, and saves settings through ``set_config_value``.
Dotted config look-ups (``config.get("a.b")``) are gone everywhere but in ``engine.config``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INTERNALS = re.compile(r"\bagent\.(db|aux)\b|\bagent\.config\.data\b|\bconfig\.data\b")
DOTTED_LOOKUP = re.compile(r"""\bconfig\.get\(\s*f?["'][a-z_]+\.""")
# Not yet switched to the typed section: owned by the security work in progress.
DOTTED_LOOKUP_LEFT = {"engine/security/redact.py"}


def _sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_the_ui_never_reaches_into_engine_internals() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
             for p in _sources("hermes_tui")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if INTERNALS.search(line)]
    assert found == []


def test_config_is_read_through_typed_sections() -> None:
    found = {str(p.relative_to(ROOT)) for folder in ("hermes_tui", "engine") for p in _sources(folder)
             if DOTTED_LOOKUP.search(p.read_text(encoding="utf-8")) and p.parent.name != "config"}
    assert found <= DOTTED_LOOKUP_LEFT


def test_the_guard_sees_what_it_forbids() -> None:
    assert INTERNALS.search("rows = self.agent.db.list_sessions()")
    assert INTERNALS.search("provider = agent.aux['session_search']")
    assert INTERNALS.search('self.agent.config.data["display"]["theme"] = name')
    assert DOTTED_LOOKUP.search('config.get("memory.write_approval")')
    assert not INTERNALS.search("self.app.db.get_session(tip)")
