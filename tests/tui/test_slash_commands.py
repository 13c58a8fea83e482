"""Slash command parsing, completion, help and suggestions (pure Python, no app)."""

from __future__ import annotations

import pytest

from engine.errors import BadInputError
from hermes_tui.slash_commands import (
    COMMANDS,
    MemoryCommand,
    ParsedCommand,
    SlashCommand,
    SlashRegistry,
    parse,
    parse_memory_args,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/title  My run ", ParsedCommand("title", "My run")),
        ("/NEW", ParsedCommand("new", "")),
        ("/memory approve all", ParsedCommand("memory", "approve all")),
        ("  /resume 2026", ParsedCommand("resume", "2026")),
        ("/compress\nfocus on the API", ParsedCommand("compress", "focus on the API")),
        ("hello /title", None),
        ("//not a command", None),
        ("/", None),
    ],
)
def test_parse(text: str, expected: ParsedCommand | None) -> None:
    assert parse(text) == expected


def test_issue_commands_are_all_in_the_table() -> None:
    names = {c.name for c in COMMANDS}
    assert {"new", "title", "resume", "compress", "branch", "memory", "usage", "copy", "theme", "quit",
            "help"} <= names
    assert all(c.action == f"slash_{c.name}" for c in COMMANDS)


def test_complete_names_then_subcommands() -> None:
    registry = SlashRegistry()
    assert registry.complete("/ti") == ["/title"]
    assert set(registry.complete("/")) == {f"/{c.name}" for c in COMMANDS}
    assert registry.complete("/memory ap") == ["/memory approve", "/memory approval"]
    assert registry.complete("/memory approve x") == []
    assert registry.complete("hello") == []
    assert registry.complete("/zzz") == []


def test_unknown_command_lists_close_matches() -> None:
    registry = SlashRegistry()
    with pytest.raises(BadInputError, match=r"Unknown command /memroy\. Did you mean /memory"):
        registry.resolve(ParsedCommand("memroy", ""))
    assert "/help" in registry.unknown_message("xyzzy")
    assert registry.suggest("tittle")[0] == "title"


def test_register_extends_completion_and_help() -> None:
    registry = SlashRegistry()
    registry.register(SlashCommand("tree", "[ID]", "browse session lineages"))
    assert registry.complete("/tr") == ["/tree"]
    assert "`/tree [ID]` — browse session lineages" in registry.help_text()
    assert "tree" not in {c.name for c in SlashRegistry()}  # the shared table is untouched


def test_help_text_lists_commands_and_keys() -> None:
    text = SlashRegistry().help_text([("f2", "Memory panel")])
    assert "`/title NAME` — rename this session" in text
    assert "**Keys**" in text and "`f2` — Memory panel" in text


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("", MemoryCommand("show")),
        ("pending", MemoryCommand("pending")),
        ("approve all", MemoryCommand("approve", record_id="all")),
        ("reject 5b3e8d1a", MemoryCommand("reject", record_id="5b3e8d1a")),
        ("approval ON", MemoryCommand("approval", enabled=True)),
        ("approval off", MemoryCommand("approval", enabled=False)),
        ("add user prefers tea", MemoryCommand("add", target="user", text="prefers tea")),
        ('remove memory "Go 1.22"', MemoryCommand("remove", target="memory", old_text="Go 1.22")),
        ('replace user "tea" "prefers green tea"',
         MemoryCommand("replace", target="user", old_text="tea", text="prefers green tea")),
    ],
)
def test_parse_memory_args(args: str, expected: MemoryCommand) -> None:
    assert parse_memory_args(args) == expected


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("approve", r"usage is /memory approve ID\|all"),
        ("approval maybe", r"usage is /memory approval on\|off"),
        ("add notes hello", r"usage is /memory add memory\|user"),
        ('replace user "only old"', r"usage is /memory replace"),
        ('add user "unterminated', r"No closing quotation"),
        ("frobnicate", r"unknown action 'frobnicate'"),
        ("pending extra", r"unknown action 'pending'"),
    ],
)
def test_parse_memory_args_refuses_bad_input(args: str, message: str) -> None:
    with pytest.raises(BadInputError, match=message):
        parse_memory_args(args)
