"""``chat -q`` against a provider that fails inside a 200 stream or never answers: one line on
stderr, exit 1, the user's message kept — never a traceback, never a wait past the limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from engine.store import SessionDB
from hermes_tui.cli import main
from hermes_tui.loopback_llm import (
    KeepAliveDrip,
    LoopbackLLM,
    Reply,
    Silent,
    StreamError,
)


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM(side_responder=lambda _body: Reply(text="Title")) as server:
        yield server


def make_home(tmp_path: Path, llm: LoopbackLLM, **timeouts: float) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    model = {"provider": "openai", "name": "test-model", "base_url": llm.base_url_openai}
    if timeouts:
        model["timeouts"] = timeouts
    (home / "config.yaml").write_text(yaml.safe_dump({"model": model}))
    return home


def chat(home: Path, *args: str) -> int:
    return main(["--home", str(home), "chat", *args])


def only_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_an_error_event_in_a_200_stream_is_one_line_and_exit_1(tmp_path: Path, llm: LoopbackLLM, capsys: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    home = make_home(tmp_path, llm)
    llm.push(StreamError("Input validation error: prompt is too long", status=400))
    assert chat(home, "-q", "hello") == 1
    line = only_line(capsys.readouterr().err)
    assert "error event in its stream: Input validation error: prompt is too long" in line
    with SessionDB.open_home(home) as db:
        (session,) = db.list_sessions()
        assert [m["role"] for m in db.load_transcript(session.id)] == ["user"]


@pytest.mark.parametrize(("step", "key"), [(Silent(), "first_byte"), (KeepAliveDrip(text="Let me"), "idle")],
                         ids=["silent", "keep-alive drip"])
def test_a_provider_that_stops_talking_ends_the_command(tmp_path: Path, llm: LoopbackLLM, capsys: Any,
                                                        monkeypatch: pytest.MonkeyPatch, step: object,
                                                        key: str) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    home = make_home(tmp_path, llm, first_byte=30 if key == "idle" else 0.5, idle=0.5)
    llm.push(step)
    assert chat(home, "-q", "hello") == 1
    assert only_line(capsys.readouterr().err).endswith(f"(model.timeouts.{key})")
