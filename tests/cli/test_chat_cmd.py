"""``hermes-tui chat -q``: one turn on stdout, continuation, JSON, and the exit-status contract."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from engine.store import SessionDB
from hermes_tui.cli import main
from hermes_tui.loopback_llm import HttpError, LoopbackLLM, Reply


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM(side_responder=lambda _body: Reply(text="Arithmetic")) as server:
        yield server


@pytest.fixture
def home(tmp_path: Path, llm: LoopbackLLM, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "home"
    path.mkdir()
    config = {"model": {"provider": "openai", "name": "test-model", "base_url": llm.base_url_openai}}
    (path / "config.yaml").write_text(yaml.safe_dump(config))
    return path


def chat(home: Path, *args: str) -> int:
    return main(["--home", str(home), "chat", *args])


def test_reply_on_stdout_and_session_stored(home: Path, llm: LoopbackLLM, capsys: Any) -> None:
    llm.push(Reply(text="Four."))
    assert chat(home, "-q", "2+2?") == 0
    assert capsys.readouterr().out == "Four.\n"
    with SessionDB.open_home(home) as db:
        (session,) = db.list_sessions()
        assert session.source == "cli" and session.message_count == 2


def test_continue_reuses_the_stored_system_prompt(home: Path, llm: LoopbackLLM, capsys: Any) -> None:
    llm.push(Reply(text="One."), Reply(text="Two."))
    assert chat(home, "-q", "first", "--json") == 0
    first = json.loads(capsys.readouterr().out)
    assert first["reply"] == "One." and set(first["usage"]) == {
        "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"}
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "USER.md").write_text("Changed between runs")
    assert chat(home, "-c", "-q", "second", "--json") == 0
    second = json.loads(capsys.readouterr().out)
    assert second["session_id"] == first["session_id"]
    bodies = [json.loads(r.body_bytes) for r in llm.requests if r.json.get("tools")]
    assert bodies[0]["messages"][0] == bodies[1]["messages"][0]
    assert [m["content"] for m in bodies[1]["messages"][1:]] == ["first", "One.", "second"]
    assert second["usage"]["cache_read_tokens"] > 0


def test_session_of_an_ended_parent_continues_at_the_tip(home: Path, llm: LoopbackLLM, capsys: Any) -> None:
    with SessionDB.open_home(home) as db:
        parent = db.create_session(title="Base")
        db.end_session(parent, "compression")
        tip = db.create_session(parent_session_id=parent, title="Base #2")
    llm.push(Reply(text="ok"))
    assert chat(home, "--session", parent, "-q", "hi", "--json") == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["session_id"] == tip
    assert tip in captured.err


def test_unknown_session_is_exit_1(home: Path, capsys: Any) -> None:
    assert chat(home, "--session", "20990101_000000_ffffff", "-q", "hi") == 1
    assert "20990101_000000_ffffff" in capsys.readouterr().err


def test_missing_key_is_exit_2_naming_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    (tmp_path / "h").mkdir()
    assert main(["--home", str(tmp_path / "h"), "chat", "-q", "hi"]) == 2
    err = capsys.readouterr().err
    assert "ANTHROPIC_API_KEY" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("status", "needle"), [(401, "rejected the API key"), (404, "test-model")])
def test_auth_and_model_errors_are_exit_1(home: Path, llm: LoopbackLLM, capsys: Any, status: int, needle: str) -> None:
    llm.push(HttpError(status))
    assert chat(home, "-q", "hi") == 1
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_empty_message_is_bad_usage(home: Path, capsys: Any) -> None:
    assert chat(home, "-q", "   ") == 2


def test_console_script_delivers_the_whole_reply_and_the_exit_status(home: Path, llm: LoopbackLLM) -> None:
    """``python -m hermes_tui`` ends with ``os._exit``: piped output must still arrive in full,
    the session must be stored, and a failure must keep its exit status."""
    import subprocess
    import sys

    long_reply = "line of the reply\n" * 5_000  # far more than one pipe buffer
    llm.push(Reply(text=long_reply))
    done = subprocess.run([sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-q", "hi"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout == long_reply
    with SessionDB.open_home(home) as db:
        (session,) = db.list_sessions()
        assert session.message_count == 2
    missing = subprocess.run([sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "--session", "nope",
                              "-q", "hi"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert missing.returncode == 1 and "nope" in missing.stderr
