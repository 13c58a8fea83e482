"""Stored content on the command line: a non-UTF-8 argument to ``chat -q``, upstream's structured
rows in ``sessions show`` and ``search``, and OR between short CJK terms."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from engine.store import SessionDB
from engine.store.messages import JSON_PREFIX
from hermes_tui.cli import main
from hermes_tui.loopback_llm import LoopbackLLM, Reply

CERT = "20261112_140000_b41e09"  # "Certificate renewal" in the upstream home
PNG = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUg" * 10
PARTS = [{"type": "text", "text": "the certbot dashboard"}, {"type": "image_url", "image_url": {"url": PNG}}]
RAW_LEFTOVERS = ("\x00", "json:", "image_url", "iVBOR", "base64")


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM(side_responder=lambda _body: Reply(text="Cafe")) as server:
        yield server


@pytest.fixture
def home(tmp_path: Path, llm: LoopbackLLM, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "home"
    path.mkdir()
    config = {"model": {"provider": "openai", "name": "test-model", "base_url": llm.base_url_openai}}
    (path / "config.yaml").write_text(yaml.safe_dump(config))
    return path


def test_chat_with_a_non_utf8_argument_stores_a_replacement_character(
    home: Path, llm: LoopbackLLM, capsys: Any
) -> None:
    llm.push(Reply(text="Un café."))
    # What Python puts in argv for the bytes b"caf\xe9" (surrogateescape).
    assert main(["--home", str(home), "chat", "-q", "caf\udce9"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "Un café.\n" and "Traceback" not in captured.err
    with SessionDB.open_home(home) as db:
        (session,) = db.list_sessions()
        assert session.message_count == 2
        assert [m["content"] for m in db.load_transcript(session.id)] == ["caf\ufffd", "Un café."]


@pytest.fixture
def structured_home(upstream_home: Path) -> Path:
    """The upstream home plus a row as upstream's ``append_message`` encodes list content."""
    with sqlite3.connect(upstream_home / "state.db") as conn:
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                     (CERT, JSON_PREFIX + json.dumps(PARTS), 1_794_500_000.0))
    return upstream_home


def test_sessions_show_decodes_structured_content(structured_home: Path, capsys: Any) -> None:
    assert main(["--home", str(structured_home), "sessions", "show", CERT]) == 0
    out = capsys.readouterr().out
    assert "[user]\n  the certbot dashboard\n  [image]\n" in out
    assert not any(bad in out for bad in RAW_LEFTOVERS)
    assert main(["--home", str(structured_home), "sessions", "show", CERT, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["messages"][-1]["content"] == PARTS  # --json keeps the parts


def test_search_shows_structured_rows_as_text(structured_home: Path, capsys: Any) -> None:
    assert main(["--home", str(structured_home), "search", "dashboard", "--json"]) == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert hit["snippet"] == "the certbot >>>dashboard<<< [image]"


def test_search_or_between_short_cjk_terms(upstream_home: Path, capsys: Any) -> None:
    assert main(["--home", str(upstream_home), "search", "告警 OR 漓江", "--json"]) == 0
    either = json.loads(capsys.readouterr().out)
    assert main(["--home", str(upstream_home), "search", "告警", "--json"]) == 0
    assert either and either == json.loads(capsys.readouterr().out)  # 漓江 is nowhere in the home
