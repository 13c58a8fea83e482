"""One-line errors instead of tracebacks, read-only commands that change nothing, bad cells shown degraded."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import pytest

from hermes_tui.cli import main

pytestmark = pytest.mark.usefixtures("fixed_clock")
BLOB_TITLE, TEXT_START = "20260818_091500_4a9e55", "20261112_152000_e6f3a8"
PENDING = "c94f2e07"


def run(home: Path, *args: str) -> int:
    return main(["--home", str(home), *args])


@pytest.fixture(autouse=True)
def non_interactive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


def snapshot(home: Path) -> dict[str, str]:
    return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(home.rglob("*")) if p.is_file()}


def one_line_error(capsys: pytest.CaptureFixture[str], *names: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hermes-tui: ") and "Traceback" not in err, err
    assert all(name in err for name in names), err
    return err


def test_a_failed_read_on_an_upstream_home_changes_nothing(upstream_home: Path, capsys: Any) -> None:
    before = snapshot(upstream_home)
    assert run(upstream_home, "sessions", "show", "no-such") == 1
    one_line_error(capsys, "no-such")
    for args in (("sessions", "list"), ("sessions", "tree"), ("sessions", "stats"), ("search", "backup"),
                 ("sessions", "show", "20261129_080000_7e2a90"), ("sessions", "export", "-")):
        assert run(upstream_home, *args) == 0
    assert snapshot(upstream_home) == before


def test_a_damaged_page_is_one_line_and_the_rename_writes_nothing(upstream_home: Path, capsys: Any) -> None:
    assert run(upstream_home, "sessions", "rename", BLOB_TITLE, "first") == 0  # migrated: a home of ours
    path = upstream_home / "state.db"
    data = bytearray(path.read_bytes())
    data[6 * 4096: 7 * 4096] = b"\x5a" * 4096  # page 7: the open check does not read it
    path.write_bytes(bytes(data))
    capsys.readouterr()
    before = snapshot(upstream_home)
    assert run(upstream_home, "sessions", "rename", BLOB_TITLE, "second") == 2
    one_line_error(capsys, str(path), "corrupt")
    assert snapshot(upstream_home) == before


def test_search_limit_beyond_sqlite_is_a_usage_error(upstream_home: Path, capsys: Any) -> None:
    with pytest.raises(SystemExit) as info:
        run(upstream_home, "search", "backup", "--limit", "9223372036854775808")
    assert info.value.code == 2
    assert "too large" in capsys.readouterr().err
    assert run(upstream_home, "search", "backup", "--limit", "9223372036854775807", "--json") == 0
    assert json.loads(capsys.readouterr().out)


def test_prune_older_than_nan_is_a_usage_error(upstream_home: Path, capsys: Any) -> None:
    with pytest.raises(SystemExit) as info:
        run(upstream_home, "sessions", "prune", "--older-than", "nan", "-y")
    assert info.value.code == 2
    assert "'nan' is not a number of days" in capsys.readouterr().err


def test_export_to_an_existing_directory_is_one_line_and_leaves_nothing(upstream_home: Path, tmp_path: Path,
                                                                       capsys: Any) -> None:
    out = tmp_path / "exports"
    out.mkdir()
    assert run(upstream_home, "sessions", "export", str(out)) == 2
    one_line_error(capsys, str(out))
    assert list(out.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["exports", "upstream_home"]


@pytest.fixture
def read_only(upstream_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every change under the home fails as on a read-only mount (tests may run as root)."""
    def refuse(real: Callable[..., Any], *path_args: int) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            paths = [args[i] for i in path_args if i < len(args)] + [kwargs.get("dir")]
            if any(p is not None and Path(p).resolve().is_relative_to(upstream_home.resolve()) for p in paths):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(paths[0] or kwargs.get("dir")))
            return real(*args, **kwargs)
        return wrapper

    for name in ("utime", "rename", "replace", "unlink", "link"):
        monkeypatch.setattr(os, name, refuse(getattr(os, name), 0, 1))
    monkeypatch.setattr(tempfile, "mkstemp", refuse(tempfile.mkstemp))
    return upstream_home


@pytest.mark.parametrize("args", [("memory", "reject", PENDING), ("memory", "reject", "all"),
                                  ("memory", "approve", PENDING), ("memory", "approve", "all"),
                                  ("memory", "approval", "on")],
                         ids=["reject-id", "reject-all", "approve-id", "approve-all", "approval-on"])
def test_memory_changes_in_a_read_only_home_are_one_line(read_only: Path, args: tuple[str, ...], capsys: Any) -> None:
    before = snapshot(read_only)
    assert run(read_only, *args) == 2
    one_line_error(capsys, str(read_only))
    assert snapshot(read_only) == before


@pytest.fixture
def spoiled(upstream_home: Path) -> Path:
    with sqlite3.connect(upstream_home / "state.db") as conn:
        conn.execute("UPDATE sessions SET title = x'00ff10' WHERE id = ?", (BLOB_TITLE,))
        conn.execute("UPDATE sessions SET started_at = 'yesterday' WHERE id = ?", (TEXT_START,))
    return upstream_home


def test_bad_cells_show_as_degraded_rows(spoiled: Path, capsys: Any) -> None:
    assert run(spoiled, "sessions", "list", "--limit", "0") == 0
    rows = {line.split()[-1]: line for line in capsys.readouterr().out.splitlines()[2:]}
    assert len(rows) == 12 and rows[BLOB_TITLE].startswith("(unreadable title)")
    assert run(spoiled, "sessions", "show", TEXT_START) == 0
    assert "started — ·" in capsys.readouterr().out
    assert run(spoiled, "sessions", "show", "Certificate renewal") == 0  # a title family holding the bad row
    capsys.readouterr()
    assert run(spoiled, "sessions", "tree") == 0
    assert f"(unreadable title)  {BLOB_TITLE}" in capsys.readouterr().out
    for args in (("sessions", "list", "--json"), ("sessions", "tree", "--json"), ("sessions", "stats", "--json")):
        assert run(spoiled, *args) == 0
        json.loads(capsys.readouterr().out)
    assert run(spoiled, "sessions", "stats") == 0 and "Oldest    2026-08-18" in capsys.readouterr().out
    assert run(spoiled, "sessions", "export", "-") == 0
    assert len(capsys.readouterr().out.splitlines()) == 12
