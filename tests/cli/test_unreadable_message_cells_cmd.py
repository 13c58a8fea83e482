"""Every read command takes a message cell (or a session's text) of the wrong type or not UTF-8: the row
is shown degraded, exit 0."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.cli import main

pytestmark = pytest.mark.usefixtures("fixed_clock")
BACKUP, CERT = "20261129_080000_7e2a90", "20261112_140000_b41e09"
BLOB_TEXT = b"Review the restic backup \xff script"
# Each as another program would leave it: messages 28/29 are BACKUP's, 11/12 CERT's tool call and result.
SPOILS = {
    "timestamp-text": "UPDATE messages SET timestamp = 'noon' WHERE id IN (28, 29)",
    "content-blob": f"UPDATE messages SET content = x'{BLOB_TEXT.hex()}' WHERE id = 28",
    "content-not-utf8": f"UPDATE messages SET content = CAST(x'{BLOB_TEXT.hex()}' AS TEXT) WHERE id = 28",
    "role-blob": "UPDATE messages SET role = x'ff' WHERE id = 29",
    "title-not-utf8": f"UPDATE sessions SET title = CAST(x'41ff42' AS TEXT), model = CAST(x'ff' AS TEXT) "
                      f"WHERE id = '{BACKUP}'",
    "tool-cells": "UPDATE messages SET tool_calls = '[1, \"x\"]' WHERE id = 11; "
                  "UPDATE messages SET tool_call_id = x'ff', tool_name = x'ff', reasoning = x'ff' WHERE id = 12",
}
READS = [("sessions", "show", BACKUP), ("sessions", "show", BACKUP, "--json"), ("sessions", "show", CERT),
         ("sessions", "show", CERT, "--json"), ("sessions", "export", "-"), ("sessions", "export", "--redact", "-"),
         ("sessions", "export", "--session-id", BACKUP, "-"), ("search", "restic"), ("search", "restic", "--json"),
         ("search", "snapshots"), ("search", "certbot", "--json"), ("sessions", "list", "--limit", "0"),
         ("sessions", "list", "--json"), ("sessions", "stats"), ("sessions", "tree"), ("sessions", "tree", "--json")]


def run(home: Path, *args: str) -> int:
    return main(["--home", str(home), *args])


@pytest.fixture(autouse=True)
def non_interactive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


@pytest.fixture(params=list(SPOILS), ids=list(SPOILS))
def spoiled(request: pytest.FixtureRequest, upstream_home: Path) -> Path:
    with closing(sqlite3.connect(upstream_home / "state.db")) as conn, conn:
        conn.executescript(SPOILS[request.param])
    return upstream_home


def test_every_read_command_takes_the_bad_row(spoiled: Path, capsys: Any) -> None:
    before = hashlib.sha256((spoiled / "state.db").read_bytes()).hexdigest()
    for args in READS:
        assert run(spoiled, *args) == 0, args
        out, err = capsys.readouterr()
        assert err == "" and out, args
        if "--json" in args:
            json.loads(out)
        elif "export" in args:
            [json.loads(line) for line in out.splitlines()]
    assert hashlib.sha256((spoiled / "state.db").read_bytes()).hexdigest() == before


def test_search_shows_an_unknown_time_as_unknown(upstream_home: Path, capsys: Any) -> None:
    with closing(sqlite3.connect(upstream_home / "state.db")) as conn, conn:
        conn.execute("UPDATE messages SET timestamp = 'noon' WHERE id = 29")
    assert run(upstream_home, "search", "snapshots") == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if BACKUP in l and "assistant" in l)
    assert line.split()[:2] == ["assistant", "—"]
    assert run(upstream_home, "search", "snapshots", "--json") == 0
    hit = next(h for h in json.loads(capsys.readouterr().out) if h["message_id"] == 29)
    assert hit["timestamp"] is None


def test_a_blob_content_is_shown_and_exported_as_text(upstream_home: Path, capsys: Any) -> None:
    with closing(sqlite3.connect(upstream_home / "state.db")) as conn, conn:
        conn.execute(f"UPDATE messages SET content = x'{BLOB_TEXT.hex()}' WHERE id = 28")
    assert run(upstream_home, "sessions", "show", BACKUP) == 0
    assert "  Review the restic backup \ufffd script" in capsys.readouterr().out.splitlines()
    assert run(upstream_home, "sessions", "export", "--session-id", BACKUP, "-") == 0
    assert json.loads(capsys.readouterr().out)["messages"][0]["content"] == "Review the restic backup \ufffd script"
