"""JSON session logs: upstream's shape, atomic writes, redaction, the fewer-messages guard and
the backup of an unreadable existing log."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from engine import session_log
from engine.errors import BadInputError
from engine.security.redact import keep, redact
from engine.session_log import SessionLogSnapshot, session_log_path, write_session_log

SID = "20261130_141502_a1b2c3"
TOKEN = "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt0123"
START = 1_796_030_000.0  # 2026-11-30 09:13:20 UTC


def _snapshot(n: int = 2, **over: object) -> SessionLogSnapshot:
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"} for i in range(n)]
    fields: dict[str, object] = {
        "session_id": SID,
        "model": "claude-sonnet-4-5",
        "session_start": START,
        "messages": messages,
        "base_url": None,
        "platform": "cli",
        "system_prompt": "You are Hermes.",
        "tools": [{"name": "memory"}],
    }
    fields.update(over)
    return SessionLogSnapshot(**fields)  # type: ignore[arg-type]


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_writes_exactly_the_upstream_shape(tmp_path: Path, fixed_clock: float) -> None:
    path = write_session_log(tmp_path, _snapshot(), redactor=None)
    assert path == tmp_path / "sessions" / f"session_{SID}.json"
    data = _read(path)
    assert list(data) == ["session_id", "model", "base_url", "platform", "session_start", "last_updated",
                          "system_prompt", "tools", "message_count", "messages"]
    assert data["session_start"] == "2026-11-30T09:13:20+00:00"
    assert datetime.fromisoformat(data["last_updated"]).timestamp() == fixed_clock
    assert data["message_count"] == 2
    assert data["messages"][1] == {"role": "assistant", "content": "message 1"}
    assert data["tools"] == [{"name": "memory"}]
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind


def test_mapping_input_gives_the_same_file_as_the_dataclass(tmp_path: Path, fixed_clock: float) -> None:
    from dataclasses import asdict

    a = write_session_log(tmp_path / "a", _snapshot(), redactor=None)
    b = write_session_log(tmp_path / "b", asdict(_snapshot()), redactor=None)
    assert a is not None and b is not None
    assert a.read_text(encoding="utf-8") == b.read_text(encoding="utf-8")


def test_secrets_are_redacted_when_a_redactor_is_given(tmp_path: Path, fixed_clock: float) -> None:
    snap = _snapshot(
        system_prompt=f"key {TOKEN}",
        base_url="https://proxy.example.com/v1?api_key=abcdef",
        messages=[
            {"role": "user", "content": f"use {TOKEN}"},
            {"role": "assistant", "content": [{"type": "tool_use", "input": {"api_key": "hunter2", "q": "x"}}]},
        ],
    )
    raw = write_session_log(tmp_path, snap, redactor=redact).read_text(encoding="utf-8")  # type: ignore[union-attr]
    assert TOKEN not in raw and "hunter2" not in raw and "abcdef" not in raw
    data = json.loads(raw)
    assert data["system_prompt"] == "key sk-ant…0123"
    assert data["base_url"] == "https://proxy.example.com/v1?api_key=***"
    assert data["messages"][1]["content"][0]["input"] == {"api_key": "***", "q": "x"}


@pytest.mark.parametrize("redactor", [None, keep])
def test_without_redaction_the_text_is_kept(tmp_path: Path, fixed_clock: float, redactor) -> None:
    snap = _snapshot(messages=[{"role": "user", "content": f"use {TOKEN}"}])
    assert TOKEN in write_session_log(tmp_path, snap, redactor=redactor).read_text(encoding="utf-8")  # type: ignore[union-attr]


def test_a_log_with_more_messages_is_never_overwritten(tmp_path: Path, fixed_clock: float) -> None:
    path = write_session_log(tmp_path, _snapshot(5), redactor=None)
    assert path is not None
    before = path.read_bytes()
    assert write_session_log(tmp_path, _snapshot(3), redactor=None) is None
    assert path.read_bytes() == before


def test_equal_or_more_messages_replace_the_log(tmp_path: Path, fixed_clock: float) -> None:
    write_session_log(tmp_path, _snapshot(2), redactor=None)
    write_session_log(tmp_path, _snapshot(2, system_prompt="second"), redactor=None)
    path = write_session_log(tmp_path, _snapshot(4), redactor=None)
    assert path is not None
    data = _read(path)
    assert data["message_count"] == 4 and data["system_prompt"] == "You are Hermes."


def test_existing_count_falls_back_to_the_messages_list(tmp_path: Path, fixed_clock: float) -> None:
    path = session_log_path(tmp_path, SID)
    path.parent.mkdir()
    path.write_text(json.dumps({"messages": [{}, {}, {}]}), encoding="utf-8")
    assert write_session_log(tmp_path, _snapshot(2), redactor=None) is None
    assert write_session_log(tmp_path, _snapshot(3), redactor=None) == path


@pytest.mark.parametrize("junk", ["{not json", "[1, 2]", '{"message_count": "many"}', "\udcff"])
def test_an_unreadable_log_is_backed_up_then_replaced(tmp_path: Path, fixed_clock: float, junk: str) -> None:
    path = session_log_path(tmp_path, SID)
    path.parent.mkdir()
    path.write_bytes(junk.encode("utf-8", "surrogateescape"))
    assert write_session_log(tmp_path, _snapshot(1), redactor=None) == path
    backup = path.with_name(f"{path.name}.bak.20261130T120000Z")
    assert backup.read_bytes() == junk.encode("utf-8", "surrogateescape")
    assert _read(path)["message_count"] == 1
    # A second bad file in the same second gets its own backup name.
    path.write_text("{", encoding="utf-8")
    write_session_log(tmp_path, _snapshot(1), redactor=None)
    assert backup.with_name(f"{backup.name}.1").read_text(encoding="utf-8") == "{"


def test_no_messages_writes_nothing(tmp_path: Path) -> None:
    assert write_session_log(tmp_path, _snapshot(0), redactor=None) is None
    assert not (tmp_path / "sessions").exists()


@pytest.mark.parametrize(
    ("snapshot", "message"),
    [
        ({"session_id": SID, "model": "m", "messages": []}, "missing session_start"),
        ({"session_id": SID, "model": "m", "session_start": START, "messages": [], "colour": 1}, "unknown field 'colour'"),
        ({"session_id": "../../etc/x", "model": "m", "session_start": START, "messages": [{}]}, "'../../etc/x' is not a valid"),
        ({"session_id": SID, "model": "m", "session_start": START, "messages": "hi"}, "messages must be a list"),
        ({"session_id": SID, "model": "m", "session_start": START, "messages": [{}, "x"]}, r"messages\[1\] is not an object"),
        ({"session_id": SID, "model": "m", "session_start": START, "messages": [{}], "tools": {}}, "tools must be a list"),
        ({"session_id": SID, "model": "m", "session_start": "yesterday", "messages": [{}]}, "session_start is 'yesterday'"),
        ("not a snapshot", "expected a snapshot or a mapping"),
    ],
)
def test_bad_snapshots_are_refused_before_anything_is_written(tmp_path: Path, snapshot, message: str) -> None:
    with pytest.raises(BadInputError, match=message):
        write_session_log(tmp_path, snapshot, redactor=None)
    assert not (tmp_path / "sessions").exists()


def test_an_unwritable_folder_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "sessions").write_text("a file where the folder should be", encoding="utf-8")
    with pytest.raises(BadInputError, match=f"session_{SID}.json: cannot write the session log"):
        write_session_log(tmp_path, _snapshot(), redactor=None)


def test_a_failed_write_leaves_the_old_log_intact(tmp_path: Path, fixed_clock: float, monkeypatch) -> None:
    path = write_session_log(tmp_path, _snapshot(2), redactor=None)
    assert path is not None
    before = path.read_bytes()

    def fail(_path: Path, _text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(session_log, "atomic_write_text", fail)
    with pytest.raises(BadInputError, match="No space left on device"):
        write_session_log(tmp_path, _snapshot(3), redactor=None)
    assert path.read_bytes() == before


@pytest.mark.parametrize("text, secret", [
    ("postgres://admin:Qv7pL2xW9mTz4Kd8Rs@db.internal:5432/app", "Qv7pL2xW9mTz4Kd8Rs"),
    ("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", "Jc3Hd7Kq2Wm5Pn8Rt1Vx4Zb6Lf9Gs0Ea3Yu7Io2Nh5Q"),
    ("SK3f9a1c7e5b2d8f4a6c0e9b7d5f3a1c2e", "3f9a1c7e5b2d8f4a6c0e9b7d5f3a1c2e"),
], ids=["postgres password", "sendgrid", "twilio"])
def test_the_log_masks_database_passwords_sendgrid_and_twilio_keys(tmp_path: Path, fixed_clock: float,
                                                                  text: str, secret: str) -> None:
    snap = _snapshot(messages=[{"role": "user", "content": f"the worker uses {text}"},
                               {"role": "assistant", "content": [{"type": "text", "text": text}]}])
    raw = write_session_log(tmp_path, snap, redactor=redact).read_text(encoding="utf-8")  # type: ignore[union-attr]
    assert secret not in raw
