"""Slash commands as data: parsing, completion, ``/help`` text and close-match suggestions.

Pure Python (no Textual) so it is unit-tested on its own. The table is the single source for
the input's completion, the command palette and ``/help``; the app dispatches a parsed command
to its ``slash_<action>`` method, so a new command is one row here plus one method there.
"""

from __future__ import annotations

import difflib
import shlex
from dataclasses import dataclass

from engine.errors import BadInputError


@dataclass(frozen=True)
class SlashCommand:
    """One command: ``/name``, its argument synopsis, a one-line summary and its sub-words."""

    name: str
    args: str
    summary: str
    subcommands: tuple[str, ...] = ()

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()

    @property
    def action(self) -> str:
        """Name of the app method that runs it (``slash_<name>``)."""
        return f"slash_{self.name}"


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("new", "", "start a new session"),
    SlashCommand("title", "NAME", "rename this session"),
    SlashCommand("resume", "[ID|TITLE]", "resume a session (lists recent ones without an argument)"),
    SlashCommand("compress", "[FOCUS]", "summarize the middle of the conversation now"),
    SlashCommand("branch", "[NAME]", "fork this conversation into a new session"),
    SlashCommand(
        "memory",
        "[pending | approve ID|all | reject ID|all | approval on|off | add|replace|remove … | log [memory|user]]",
        "show memory usage, manage pending writes, edit entries, see where entries came from (F6)",
        ("pending", "approve", "reject", "approval", "add", "replace", "remove", "log"),
    ),
    SlashCommand("sessions", "", "browse session lineages: resume, rename, delete (F7)"),
    SlashCommand("search", "[QUERY]", "search past sessions as you type (ctrl+f)"),
    SlashCommand("usage", "", "prompt-cache inspector: tokens, cache share, cost, prefix breaks"),
    SlashCommand("copy", "", "copy the last reply (or the message selected in the chat) to the clipboard"),
    SlashCommand("theme", "[NAME]", "switch theme (list themes without an argument)"),
    SlashCommand("help", "", "list commands and keys"),
    SlashCommand("quit", "", "leave the app"),
)


@dataclass(frozen=True)
class ParsedCommand:
    name: str
    args: str


def parse(text: str) -> ParsedCommand | None:
    """``"/title  My run"`` → ``ParsedCommand("title", "My run")``; plain text → ``None``.

    A leading ``//`` escapes the slash so a message may start with one.
    """
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or stripped == "/":
        return None
    head, rest = (stripped[1:].split(None, 1) + [""])[:2]
    return ParsedCommand(head.lower(), rest.strip())


class SlashRegistry:
    """The command table with look-up, completion and help; extended by later screens."""

    def __init__(self, commands: tuple[SlashCommand, ...] = COMMANDS) -> None:
        self._commands: dict[str, SlashCommand] = {c.name: c for c in commands}

    def register(self, command: SlashCommand) -> None:
        self._commands[command.name] = command

    def __iter__(self):
        return iter(self._commands.values())

    def get(self, name: str) -> SlashCommand | None:
        return self._commands.get(name)

    def resolve(self, parsed: ParsedCommand) -> SlashCommand:
        """The command for ``parsed``; unknown → BadInputError naming close matches."""
        command = self._commands.get(parsed.name)
        if command is None:
            raise BadInputError(self.unknown_message(parsed.name))
        return command

    def suggest(self, name: str) -> list[str]:
        names = list(self._commands)
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        prefixed = [n for n in names if n.startswith(name[:2]) and n not in close] if len(name) >= 2 else []
        return close + prefixed[: max(0, 3 - len(close))]

    def unknown_message(self, name: str) -> str:
        matches = self.suggest(name)
        if matches:
            listed = ", ".join(f"/{m}" for m in matches)
            return f"Unknown command /{name}. Did you mean {listed}? (/help lists all)"
        return f"Unknown command /{name}. Type /help to list commands."

    def matching(self, text: str) -> list[SlashCommand]:
        """The commands a prompt starting with ``/`` (and no space yet) may be typing: names that
        start with the word first, then names holding it, then (from three letters on) commands
        with a word of their summary starting with it (``/clip`` finds ``/copy``)."""
        if not text.startswith("/") or text.startswith("//") or any(ch.isspace() for ch in text):
            return []
        word = text[1:].lower()
        first = [c for c in self if c.name.startswith(word)]
        inside = [c for c in self if c not in first and word in c.name]
        described = [c for c in self if c not in first + inside and len(word) >= 3
                     and any(w.startswith(word) for w in c.summary.lower().split())]
        return first + inside + described

    def complete(self, text: str) -> list[str]:
        """Completions for what is typed so far: command names, then a command's sub-words."""
        if not text.startswith("/") or "\n" in text:
            return []
        head, space, rest = text[1:].partition(" ")
        if not space:
            return [f"/{n}" for n in self._commands if n.startswith(head.lower())]
        command = self._commands.get(head.lower())
        if command is None or " " in rest:
            return []
        return [f"/{command.name} {w}" for w in command.subcommands if w.startswith(rest)]

    def help_text(self, bindings: list[tuple[str, str]] = ()) -> str:
        """Markdown for ``/help``: the commands, then the keys given as ``(key, description)``."""
        lines = ["**Commands**", ""]
        lines += [f"- `{c.usage}` — {c.summary}" for c in self]
        if bindings:
            lines += ["", "**Keys**", ""]
            lines += [f"- `{key}` — {description}" for key, description in bindings]
        return "\n".join(lines)


TARGETS = ("memory", "user")


@dataclass(frozen=True)
class MemoryCommand:
    """``/memory …`` parsed: one action and the arguments it needs."""

    action: str  # show | pending | approve | reject | approval | add | replace | remove | log
    target: str = ""
    text: str = ""
    old_text: str = ""
    record_id: str = ""
    enabled: bool = False


_MEMORY_USAGE = {
    "approve": "/memory approve ID|all",
    "reject": "/memory reject ID|all",
    "approval": "/memory approval on|off",
    "add": '/memory add memory|user "TEXT"',
    "replace": '/memory replace memory|user "OLD TEXT" "NEW TEXT"',
    "remove": '/memory remove memory|user "OLD TEXT"',
    "log": "/memory log [memory|user]",
}


def parse_memory_args(args: str) -> MemoryCommand:
    """Parse the words after ``/memory``; bad input → BadInputError quoting the usage line."""
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise BadInputError(f"/memory: {exc} (quote text with \"…\").") from exc
    if not words:
        return MemoryCommand("show")
    action, rest = words[0].lower(), words[1:]
    if rest and rest[0] == "--target":  # the command line's spelling is accepted too
        rest = rest[1:]
    elif rest and rest[0].startswith("--target="):
        rest = [rest[0].removeprefix("--target="), *rest[1:]]
    if action == "pending" and not rest:
        return MemoryCommand("pending")
    if action in ("approve", "reject") and len(rest) == 1:
        return MemoryCommand(action, record_id=rest[0])
    if action == "log" and (not rest or len(rest) == 1 and rest[0].lower() in TARGETS):
        return MemoryCommand("log", target=rest[0].lower() if rest else "")
    if action == "approval" and len(rest) == 1 and rest[0].lower() in ("on", "off"):
        return MemoryCommand(action, enabled=rest[0].lower() == "on")
    if action in ("add", "remove", "replace") and rest and rest[0].lower() in TARGETS:
        target, body = rest[0].lower(), rest[1:]
        if action == "replace" and len(body) == 2:
            return MemoryCommand(action, target=target, old_text=body[0], text=body[1])
        if action == "add" and body:
            return MemoryCommand(action, target=target, text=" ".join(body))
        if action == "remove" and body:
            return MemoryCommand(action, target=target, old_text=" ".join(body))
    if action in _MEMORY_USAGE:
        raise BadInputError(f"/memory {action}: usage is {_MEMORY_USAGE[action]}.")
    known = ", ".join(("pending", *_MEMORY_USAGE))
    raise BadInputError(f"/memory: unknown action {action!r}; expected one of {known}.")
