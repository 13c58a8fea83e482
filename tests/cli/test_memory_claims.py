"""``hermes-tui memory approve|reject`` when another process decides the same records, and for a
record whose file name is not its id: exit statuses, one-line errors, counts, nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.memory import PendingQueue, PendingRecord
from hermes_tui.cli import main
from tests.engine.memory.test_pending_claims import steal_on_rename


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def run(home: Path, *args: str) -> int:
    return main(["--home", str(home), "memory", *args])


def _stage(home: Path, *contents: str) -> list[PendingRecord]:
    queue = PendingQueue(home)
    return [queue.stage({"action": "add", "target": "memory", "content": c}, origin="foreground") for c in contents]


def _snapshot(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*"))
            if p.is_file() and p.suffix != ".lock"}


def test_approve_all_counts_only_what_it_approved(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    records = _stage(home, "fact one", "fact two", "fact three")
    taken = records[1]
    steal_on_rename(monkeypatch, PendingQueue(home).folder / f"{taken.id}.json")
    assert run(home, "approve", "all") == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 2 and all(line.startswith("Approved ") for line in lines)
    assert taken.id not in captured.out and captured.err == ""
    assert "fact two" not in (home / "memories" / "MEMORY.md").read_text("utf-8")


def test_reject_all_counts_only_what_it_rejected(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    records = _stage(home, "a", "b", "c")
    steal_on_rename(monkeypatch, PendingQueue(home).folder / f"{records[0].id}.json")
    assert run(home, "reject", "all") == 0
    assert capsys.readouterr().out == "Rejected 2 pending memory write(s).\n"


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_the_loser_of_a_race_exits_1_with_one_line(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str], verb: str) -> None:
    (record,) = _stage(home, "contested")
    steal_on_rename(monkeypatch, PendingQueue(home).folder / f"{record.id}.json")
    assert run(home, verb, record.id) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith(
        f"hermes-tui: no pending memory write with id '{record.id}' in ")
    assert captured.err.rstrip().endswith("(another process decided it, or it never existed).")
    assert not (home / "memories" / "MEMORY.md").exists()


def _misnamed(home: Path) -> tuple[PendingRecord, Path]:
    (real,) = _stage(home, "the real record")
    path = PendingQueue(home).folder / "0badc0de.json"
    path.write_text(json.dumps({**real.to_dict(), "payload": {"action": "add", "target": "memory",
                                                              "content": "impostor"}}), encoding="utf-8")
    return real, path


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_misnamed_record_exits_2_and_changes_nothing(home: Path, capsys: pytest.CaptureFixture[str],
                                                       verb: str) -> None:
    real, path = _misnamed(home)
    before = _snapshot(home)
    assert run(home, verb, "0badc0de") == 2
    assert capsys.readouterr().err == (
        f"hermes-tui: {path}: it holds id {real.id!r}, not '0badc0de'; delete or rename the file.\n")
    assert _snapshot(home) == before


def test_pending_and_approve_all_warn_about_a_misnamed_record_and_leave_it(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real, path = _misnamed(home)
    assert run(home, "pending") == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [real.line()]
    assert captured.err == f"hermes-tui: warning: skipped {path}: it holds id {real.id!r}, not '0badc0de'; " \
                           "delete or rename the file\n"
    assert run(home, "approve", "all") == 0
    assert capsys.readouterr().out.startswith(f"Approved {real.id}: Entry added.")
    assert (home / "memories" / "MEMORY.md").read_text("utf-8") == "the real record"
    assert [p.name for p in PendingQueue(home).folder.iterdir()] == ["0badc0de.json"]
