"""Issue 18 §6 on the command line: a mistyped --home, a broken config.yaml reported the same way
by every command, an empty search query, and both memory-edit spellings."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.memory import MemoryStore
from hermes_tui.cli import build_parser, main, new_home_note
from tests.conftest import copy_home

NEEDS_A_HOME = [
    ["sessions", "list"], ["sessions", "tree"], ["sessions", "stats"], ["sessions", "show", "x"],
    ["search", "postgres"], ["memory", "show"], ["memory", "pending"], ["memory", "add", "user", "hi"],
]


def run(home: Path, *args: str) -> int:
    return main(["--home", str(home), *args])


@pytest.mark.parametrize("command", NEEDS_A_HOME, ids=" ".join)
def test_a_missing_home_is_exit_2_and_is_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     command: list[str]) -> None:
    typo = tmp_path / "hermse"
    assert run(typo, *command) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"hermes-tui: {typo}: no Hermes home there (check --home or $HERMES_HOME); "
                            "hermes-tui or hermes-tui chat creates one.\n")
    assert not typo.exists()


def test_chat_creates_a_missing_home_and_says_so_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    new = tmp_path / "new-home"
    run(new, "chat", "-q", "hi")  # no key: exit 2, but the home is there now
    assert new.is_dir()
    assert capsys.readouterr().err.count(f"New Hermes home created at {new}.") == 1
    run(new, "chat", "-q", "hi")
    assert "New Hermes home created" not in capsys.readouterr().err


def test_the_app_may_create_a_missing_home_and_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "fresh"
    assert new_home_note(build_parser().parse_args([]), missing) == f"New Hermes home created at {missing}."
    assert new_home_note(build_parser().parse_args(["--demo"]), missing) == ""  # the demo has its own home
    missing.mkdir()
    assert new_home_note(build_parser().parse_args([]), missing) == ""  # said once: it exists now


@pytest.mark.parametrize("command", [*NEEDS_A_HOME, ["chat", "-q", "hi"], ["memory", "approve", "all"]], ids=" ".join)
def test_a_broken_config_is_the_same_exit_2_for_every_command(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              command: list[str]) -> None:
    home = copy_home(tmp_path / "home")
    config = home / "config.yaml"
    config.write_text("memory:\n  write_approval: true\n   nudge_interval: [\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert run(home, *command) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hermes-tui: {config}") and "line 3" in err and len(err.splitlines()) == 1
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("query", ["", "  "])
def test_an_empty_search_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str) -> None:
    home = copy_home(tmp_path / "home")
    assert run(home, "search", query) == 2
    assert capsys.readouterr().err == ("hermes-tui: search: the query is empty; give words to look for "
                                       "(hermes-tui search QUERY).\n")


@pytest.mark.parametrize("spelling", [["--target", "user"], ["user"], ["--target=user"]], ids=" ".join)
def test_memory_add_takes_the_target_either_way(tmp_path: Path, spelling: list[str]) -> None:
    home = copy_home(tmp_path / "home")
    assert run(home, "memory", "add", *spelling, "Drinks green tea") == 0
    assert "Drinks green tea" in MemoryStore(home / "memories").entries("user")


@pytest.mark.parametrize(("words", "message"), [
    (["Drinks tea"], "memory add: name the target first: memory add memory|user …"),
    (["--target", "user", "memory", "Drinks tea"],
     "memory add: the target is named twice (--target user and memory); give it once."),
])
def test_memory_add_without_one_target_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        words: list[str], message: str) -> None:
    home = copy_home(tmp_path / "home")
    before = (home / "memories" / "USER.md").read_bytes()
    assert run(home, "memory", "add", *words) == 2
    assert capsys.readouterr().err == f"hermes-tui: {message}\n"
    assert (home / "memories" / "USER.md").read_bytes() == before


def test_memory_show_says_when_a_file_is_over_its_limit(upstream_home: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """What ``memory show`` prints is what enters the prompt; a hand-grown file is cut to its
    limit there, so the human output says so instead of showing the cut silently."""
    memory = upstream_home / "memories" / "MEMORY.md"
    memory.write_text("\n§\n".join(f"hand-written note {n} " + "x" * 200 for n in range(40)), encoding="utf-8")
    assert run(upstream_home, "memory", "show") == 0
    out, err = capsys.readouterr()
    assert "hand-written note 0 " in out and "hand-written note 39" not in out
    assert err.startswith("hermes-tui: warning: MEMORY.md holds ") and "over its 2,200-char limit" in err
    assert len(err.strip().splitlines()) == 1
