"""``hermes-tui memory replace|remove`` refusals from issue 14: one line saying what to do, memory untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.cli import main

from tests.engine.memory.test_drift import NEW, hand_appended


def run(home: Path, *args: str) -> int:
    return main(["--home", str(home), "memory", *args])


def _memories(home: Path) -> dict[str, bytes]:
    folder = home / "memories"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.suffix != ".lock"}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "memories").mkdir()
    return tmp_path


def test_an_ambiguous_remove_names_each_match_on_one_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "memories" / "MEMORY.md").write_text(
        "Deploys go out on Fridays after the 14:00 freeze\n§\nDeploy keys live in the team vault under infra/\n§\n"
        "Runs Debian 12", encoding="utf-8")
    before = _memories(home)
    assert run(home, "remove", "--target", "memory", "Deploy") == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "hermes-tui: 2 entries in MEMORY.md contain 'Deploy': \"Deploys go out on Fridays…\", "
        "\"Deploy keys live in the team…\"; give more of the text.\n")
    assert _memories(home) == before


def test_short_and_multi_line_matches_are_shown_whole_on_the_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "memories" / "USER.md").write_text("Likes tea\n§\nLikes\ncoffee", encoding="utf-8")
    assert run(home, "replace", "--target", "user", "Likes", "Likes water") == 1
    assert capsys.readouterr().err == (
        "hermes-tui: 2 entries in USER.md contain 'Likes': \"Likes tea\", \"Likes coffee\"; give more of the text.\n")


def test_the_issues_hand_appended_user_md_is_refused_with_a_backup(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / "memories" / "USER.md"
    raw = hand_appended(1659)
    path.write_text(raw, encoding="utf-8")
    assert run(home, "replace", "--target", "user", "User likes", NEW) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"hermes-tui: Refusing to change {path}: the entry at line 1 has 1,659 chars")
    assert err.count("\n") == 1
    [backup] = sorted(path.parent.glob("USER.md.bak.*"))
    assert f"a copy was saved to {backup}." in err
    assert path.read_text(encoding="utf-8") == raw and backup.read_text(encoding="utf-8") == raw
