"""``hermes-tui sessions …`` driven through ``main`` against a copy of the upstream home."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import subprocess
import sys
from typing import Any
from pathlib import Path

import pytest

from engine.store import SessionDB
from hermes_tui.cli import main

pytestmark = pytest.mark.usefixtures("fixed_clock")
ROOT, TIP = "20261102_083000_3fa9c1", "20261102_091401_c07b5d"
CERT = "20261112_140000_b41e09"  # "Certificate renewal": the session with a tool call, later branched


def run(home: Path, *args: str) -> int:
    return main(["--home", str(home), *args])


@pytest.fixture(autouse=True)
def non_interactive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


def test_list_human_table(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "list", "--limit", "3") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["Title", "Preview", "Last", "active", "ID"]
    assert len(lines) == 5
    assert lines[2].startswith("Backup script review") and lines[2].endswith("20261129_080000_7e2a90")
    assert "yesterday" in lines[2]
    assert lines[3].startswith("—  ")  # untitled


def test_list_json(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "list", "--limit", "0", "--json", "--source", "cli") == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 10 and {r["source"] for r in rows} == {"cli"}
    for key in ("id", "title", "source", "started_at", "ended_at", "end_reason", "parent_session_id", "message_count"):
        assert key in rows[0]


def test_show(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "show", CERT) == 0
    out = capsys.readouterr().out
    assert f"Certificate renewal  {CERT}" in out
    assert '→ terminal({"command": "systemctl status certbot.timer"})' in out and "[tool terminal]" in out
    assert run(upstream_home, "sessions", "show", "整理告警规则", "--json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["session"]["id"] == TIP and [m["role"] for m in shown["messages"]] == ["user", "assistant"]


def test_tree(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "tree", TIP, "--json") == 0
    node = json.loads(capsys.readouterr().out)
    assert node["id"] == ROOT and node["children"][0]["children"][0]["id"] == TIP
    assert set(node) >= {"id", "title", "end_reason", "children"}
    assert run(upstream_home, "sessions", "tree", "--json") == 0
    assert len(json.loads(capsys.readouterr().out)) == 9
    assert run(upstream_home, "sessions", "tree") == 0
    assert f"   └─ 整理告警规则 #3  {TIP} [open]" in capsys.readouterr().out


def test_rename(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "rename", "20261124_074500_9c4d2f", "Load\u202e balancer 502") == 0
    assert "'Load balancer 502'" in capsys.readouterr().out
    assert run(upstream_home, "sessions", "rename", "20261124_074500_9c4d2f", "Certificate renewal") == 1
    assert f"already used by session {CERT}" in capsys.readouterr().err


def test_export_to_file_and_stdout(upstream_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "backup.jsonl"
    assert run(upstream_home, "sessions", "export", str(out)) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 12 and json.loads(lines[0])["id"] == "20260818_091500_4a9e55"
    assert run(upstream_home, "sessions", "export", "-", "--session-id", TIP) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["messages"][0]["content"].startswith("把通知渠道")
    assert run(upstream_home, "sessions", "export", "-", "--source", "telegram") == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def _db_digest(home: Path) -> str:
    conn = sqlite3.connect(home / "state.db")
    dump = "\n".join(conn.iterdump())
    conn.close()
    return hashlib.sha256(dump.encode()).hexdigest()


def test_delete_refuses_without_yes_when_not_interactive(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "list") == 0  # first open adds what is missing (an index)
    before = _db_digest(upstream_home)
    assert run(upstream_home, "sessions", "delete", ROOT) == 1
    captured = capsys.readouterr()
    assert "1 session(s), 4 message(s)" in captured.out and "20261102_085201_8d21e7" in captured.out
    assert "add -y" in captured.err
    assert _db_digest(upstream_home) == before


def test_delete_with_yes_and_interactive(upstream_home: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "delete", ROOT, "-y") == 0
    assert f"Deleted session {ROOT}." in capsys.readouterr().out
    tty = io.StringIO("")
    tty.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stdin", tty)
    answers = iter(["n", "y"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    assert run(upstream_home, "sessions", "delete", TIP) == 1
    assert run(upstream_home, "sessions", "delete", TIP) == 0
    assert run(upstream_home, "sessions", "show", TIP) == 1


def test_unknown_id_exits_1(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (("show", "nope"), ("delete", "nope", "-y"), ("tree", "nope"), ("rename", "nope", "x")):
        assert run(upstream_home, "sessions", *args) == 1
        assert "nope" in capsys.readouterr().err


def test_prune(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "prune", "--older-than", "30") == 1
    assert "5 session(s), 10 message(s)" in capsys.readouterr().out
    assert run(upstream_home, "sessions", "prune", "--older-than", "30", "--source", "telegram", "-y") == 0
    assert "Pruned 2 session(s)" in capsys.readouterr().out
    assert run(upstream_home, "sessions", "prune", "-y") == 0  # default retention 90 days
    assert "Pruned 3 session(s)" in capsys.readouterr().out
    assert run(upstream_home, "sessions", "prune", "--older-than", "30") == 0
    assert "Nothing to prune" in capsys.readouterr().out


def test_stats(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "sessions", "stats", "--json") == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["sessions"], stats["messages"], stats["by_source"]) == (12, 29, {"cli": 10, "telegram": 2})
    assert set(stats) == {"sessions", "messages", "by_source", "db_bytes", "oldest", "newest",
                          "usage", "usage_by_session", "usage_by_week"}  # the usage keys of issue 16
    assert run(upstream_home, "sessions", "stats") == 0
    assert "Messages  29" in capsys.readouterr().out


def test_corrupt_db_exits_2_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "state.db").write_bytes(b"garbage" * 100)
    assert run(tmp_path, "sessions", "list") == 2
    assert "state.db" in capsys.readouterr().err
    assert (tmp_path / "state.db").read_bytes() == b"garbage" * 100


def test_bad_limit_is_usage_error(upstream_home: Path) -> None:
    with pytest.raises(SystemExit) as info:
        run(upstream_home, "sessions", "list", "--limit", "-1")
    assert info.value.code == 2


def test_console_script_smoke(upstream_home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--home", str(upstream_home), "sessions", "list", "--json"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == 12


def test_export_redacts_only_when_asked(tmp_path: Path, capsys: Any) -> None:
    home = tmp_path / "h"
    with SessionDB.open_home(home) as db:
        sid = db.create_session(title="Keys")
        db.append_messages(sid, [{"role": "user", "content": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}])
    assert main(["--home", str(home), "sessions", "export", "-"]) == 0
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" in capsys.readouterr().out
    assert main(["--home", str(home), "sessions", "export", "-", "--redact"]) == 0
    redacted = capsys.readouterr().out
    assert "abcdefghijklmnopqrstuvwxyz" not in redacted and json.loads(redacted)["id"] == sid


ISSUE_SECRETS = {  # the issue's three families, from the redaction corpus's cases
    "postgres password": ("postgres://admin:Qv7pL2xW9mTz4Kd8Rs@db.internal:5432/app", "Qv7pL2xW9mTz4Kd8Rs"),
    "sendgrid": ("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",
                 "Jc3Hd7Kq2Wm5Pn8Rt1Vx4Zb6Lf9Gs0Ea3Yu7Io2Nh5Q"),
    "twilio": ("SK3f9a1c7e5b2d8f4a6c0e9b7d5f3a1c2e", "3f9a1c7e5b2d8f4a6c0e9b7d5f3a1c2e"),
}


@pytest.mark.parametrize("name", ISSUE_SECRETS)
def test_export_redact_masks_database_passwords_sendgrid_and_twilio_keys(tmp_path: Path, capsys: Any,
                                                                        name: str) -> None:
    text, secret = ISSUE_SECRETS[name]
    home = tmp_path / "h"
    with SessionDB.open_home(home) as db:
        sid = db.create_session(title="Keys")
        db.append_messages(sid, [{"role": "user", "content": f"the worker uses {text}"},
                                 {"role": "assistant", "content": [{"type": "text", "text": f"noted: {text}"}]}])
    assert main(["--home", str(home), "sessions", "export", "-", "--redact"]) == 0
    redacted = capsys.readouterr().out
    assert secret not in redacted and json.loads(redacted)["id"] == sid
