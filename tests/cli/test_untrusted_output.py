"""The command line's human output shows stored text's control characters, never writes them;
``--json`` keeps the exact stored text."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from engine.memory import PendingQueue
from engine.store import SessionDB
from hermes_tui.cli import main
from hermes_tui.loopback_llm import LoopbackLLM, Reply
from hermes_tui.untrusted import visible
from tests.hostile_text import HOSTILE, leaks

VALUES = list(HOSTILE.values())
TITLE = "Deploy " + HOSTILE["link"]


@pytest.fixture
def llm(notes_llm: LoopbackLLM) -> LoopbackLLM:
    return notes_llm


@pytest.fixture
def home(loopback_home: Path) -> Path:
    path = loopback_home
    (path / "memories").mkdir()
    (path / "memories" / "MEMORY.md").write_text("\n§\n".join(VALUES), encoding="utf-8")
    for value in VALUES:
        PendingQueue(path).stage({"action": "add", "target": "user", "content": value}, origin="foreground")
    db = SessionDB.open_home(path)
    session = db.create_session(source="cli", model="test-model", title=TITLE, session_id="20261130_120000_abc123")
    db.append_messages(session, [{"role": "user", "content": f"deploy {v}"} for v in VALUES])
    db.close()
    return path


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def run(home: Path, capsys: Any, *args: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("args", [
    ("sessions", "list"), ("sessions", "show", "20261130_120000_abc123"), ("sessions", "tree"),
    ("search", "deploy"), ("memory", "show"), ("memory", "pending"),
])
def test_human_output_shows_control_characters(home: Path, capsys: Any, args: tuple[str, ...]) -> None:
    code, out, err = run(home, capsys, *args)
    assert code == 0
    assert leaks(out, terminal=False) == [] and leaks(err, terminal=False) == []
    assert "␛" in out or args[:2] in (("sessions", "list"), ("sessions", "tree"))


def test_sessions_show_quotes_every_message_visibly(home: Path, capsys: Any) -> None:
    _code, out, _err = run(home, capsys, "sessions", "show", "20261130_120000_abc123")
    for value in VALUES:
        assert visible(value).splitlines()[0] in out
    assert TITLE in out  # markup stays as typed: a terminal does not parse it


@pytest.mark.parametrize("args", [
    ("sessions", "show", "20261130_120000_abc123", "--json"), ("memory", "show", "--json"),
    ("memory", "pending", "--json"), ("search", "deploy", "--json"),
])
def test_json_output_keeps_the_exact_stored_text(home: Path, capsys: Any, args: tuple[str, ...]) -> None:
    code, out, _err = run(home, capsys, *args)
    assert code == 0
    data = json.loads(out)
    if args[0] == "memory" and args[1] == "show":
        assert data["memory"]["entries"] == [v.strip() for v in VALUES]
    text = "".join(strings(data))
    assert "\x1b" in text and "␛" not in text  # the raw escapes, as stored


def test_chat_reply_is_shown_visibly_and_kept_exactly_in_json(home: Path, llm: LoopbackLLM, capsys: Any) -> None:
    reply = "Done " + HOSTILE["osc clipboard"] + HOSTILE["csi wipe"]
    llm.push(Reply(text=reply))
    code, out, err = run(home, capsys, "chat", "-q", "hello")
    assert code == 0 and out == visible(reply) + "\n"
    assert leaks(out, terminal=False) == [] and leaks(err, terminal=False) == []
    llm.push(Reply(text=reply))
    code, out, _err = run(home, capsys, "chat", "-q", "again", "--json")
    assert code == 0 and json.loads(out)["reply"] == reply


def test_an_error_quoting_stored_text_is_shown_visibly(home: Path, capsys: Any) -> None:
    code, _out, err = run(home, capsys, "memory", "remove", "--target", "memory", "absent\x1b[2J")
    assert code == 1
    assert leaks(err, terminal=False) == [] and "absent␛[2J" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_search_on_a_terminal_highlights_matches_but_writes_no_stored_escape(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    assert main(["--home", str(home), "search", "deploy"]) == 0
    out = terminal.getvalue()
    assert "\x1b[" in out  # Rich's own highlighting of the matches
    assert leaks(out) == [] and "␛" in out  # stored escapes are shown, below our own styles
