"""The deterministic summary used when no model summary is available, and the same extraction
guarding a model's summary.

Built from the compacted turns alone, so compression never stalls (or repeats every turn) when the
auxiliary model is down: it keeps the goal, every user ask, every file path mentioned, the tools
called and the assistant's last state. Sections come in the order that matters most if the
budget cuts the end: goal and files first, the earlier summary last.
"""

from __future__ import annotations

import re
from collections import Counter

from engine.compression.pairs import Message
from engine.tokens import content_text, estimate_text_tokens, truncate_to_tokens

ASK_CHARS = 240
STATE_CHARS = 600
ASKS_KEPT_FIRST = 3
ASKS_KEPT_LAST = 12
TOOL_NAMES_SHOWN = 20

_EXTENSIONS = (
    "py|pyi|ipynb|md|rst|txt|json|jsonl|yaml|yml|toml|ini|cfg|conf|env|lock|csv|tsv|sql|db|log|"
    "js|jsx|ts|tsx|mjs|cjs|css|scss|html|vue|svelte|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|swift|php|"
    "sh|bash|zsh|ps1|tf|proto|xml|gradle|dockerfile|tcss"
)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
# A path: starts with ~/ ./ ../ or /, or has a slash and a known extension, or is a bare file name
# with a known extension. Letters are required so dates and ratios (1/2/2024) do not match.
_PATH = re.compile(
    rf"(?<![\w/.~-])(?:"
    rf"(?:~|\.\.?)?/[\w.@+-]+(?:/[\w.@+-]+)*/?"
    rf"|[\w.@+-]+(?:/[\w.@+-]+)+\.(?:{_EXTENSIONS})"
    rf"|[\w@+-][\w.@+-]*\.(?:{_EXTENSIONS})"
    rf")(?![\w/])",
    re.IGNORECASE,
)
_GOAL_SECTION = re.compile(r"^## Goal[ \t]*\n(.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)


def find_paths(text: str) -> list[str]:
    """File and directory paths named in ``text``, in order of first mention, without repeats."""
    found: dict[str, None] = {}
    for match in _PATH.finditer(_URL.sub(" ", text)):
        path = match.group(0).rstrip(".")
        if re.search(r"[A-Za-z]", path) and path not in ("/", "~/", "./", "../"):
            found.setdefault(path, None)
    return list(found)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _section(name: str, lines: list[str]) -> str:
    return f"## {name}\n" + "\n".join(lines)


def _ask_lines(asks: list[str]) -> list[str]:
    if len(asks) <= ASKS_KEPT_FIRST + ASKS_KEPT_LAST:
        return [f"- {ask}" for ask in asks]
    omitted = len(asks) - ASKS_KEPT_FIRST - ASKS_KEPT_LAST
    return (
        [f"- {ask}" for ask in asks[:ASKS_KEPT_FIRST]]
        + [f"- ({omitted} more asks in between, see the parent session)"]
        + [f"- {ask}" for ask in asks[-ASKS_KEPT_LAST:]]
    )


def _tool_lines(transcript: list[Message]) -> list[str]:
    counts: Counter[str] = Counter(
        (call.get("function") or {}).get("name", "?")
        for message in transcript
        for call in message.get("tool_calls") or ()
    )
    shown = [f"{name} ×{n}" if n > 1 else name for name, n in counts.most_common(TOOL_NAMES_SHOWN)]
    more = len(counts) - len(shown)
    return [f"- tools called: {', '.join(shown)}" + (f" and {more} more" if more > 0 else "")]


def _asks(transcript: list[Message]) -> list[str]:
    texts = (content_text(m.get("content")) for m in transcript if m["role"] == "user")
    return [_one_line(text, ASK_CHARS) for text in texts if text.strip()]


def _goal(head: list[Message], asks: list[str], previous_summary: str | None) -> str | None:
    """The first ask of the head, else the earlier summary's goal, else the first compacted ask."""
    head_asks = [content_text(m.get("content")) for m in head if m["role"] == "user"]
    previous_goal = _GOAL_SECTION.search(previous_summary or "")
    if head_asks and head_asks[0].strip():
        return _one_line(head_asks[0], ASK_CHARS)
    if previous_goal and previous_goal.group(1).strip():
        return _one_line(previous_goal.group(1), ASK_CHARS * 2)
    return asks[0] if asks else None


def fallback_summary(
    head: list[Message],
    transcript: list[Message],
    *,
    previous_summary: str | None,
    focus: str | None,
    budget_tokens: int,
) -> str:
    """A structured summary of ``transcript`` (the pre-passed middle) without any model."""
    asks = _asks(transcript)
    everything = "\n".join(
        [previous_summary or ""]
        + [content_text(m.get("content")) for m in transcript]
        + [
            str((call.get("function") or {}).get("arguments", ""))
            for m in transcript
            for call in m.get("tool_calls") or ()
        ]
    )
    paths = find_paths(everything)
    last_state = next(
        (
            _one_line(content_text(m.get("content")), STATE_CHARS)
            for m in reversed(transcript)
            if m["role"] == "assistant" and content_text(m.get("content")).strip()
        ),
        "",
    )
    snapshot = (
        f"Compacted {len(transcript)} messages ({len(asks)} user asks) without a model summary; "
        "the full turns remain in the parent session."
    )
    if focus:
        snapshot += f" Focus requested: {_one_line(focus, ASK_CHARS)}."
    goal = _goal(head, asks, previous_summary) or "Not stated in the compacted turns."
    sections = [_section("Task snapshot", [snapshot]), _section("Goal", [goal])]
    sections.append(_section("Relevant Files", [f"- {p}" for p in paths] or ["None mentioned."]))
    sections.append(_section("Pending User Asks", _ask_lines(asks) or ["None in the compacted turns."]))
    if any(m.get("tool_calls") for m in transcript):
        sections.append(_section("Completed Actions", _tool_lines(transcript)))
    if last_state:
        sections.append(_section("Active State", [f"Last assistant message: {last_state}"]))
    if previous_summary:
        quoted = "\n".join(f"> {line}" for line in previous_summary.splitlines())
        sections.append(_section("Critical Context", ["Earlier summary, carried over:", quoted]))
    return truncate_to_tokens("\n\n".join(sections), budget_tokens)


def with_essentials(
    body: str,
    head: list[Message],
    transcript: list[Message],
    *,
    previous_summary: str | None,
    budget_tokens: int,
) -> str:
    """A model's summary cut to the budget, plus the goal and the file paths the user named
    that it left out — a model summary may be plausible yet incomplete, and these two are
    what the task cannot survive without. They are kept ahead of the model's text when cut."""
    lines = []
    goal = None if any(m["role"] == "user" for m in head) else _goal(head, _asks(transcript), previous_summary)
    if goal and goal not in body:
        lines.append(f"- Goal: {goal}")
    named = "\n".join(
        [previous_summary or ""] + [content_text(m.get("content")) for m in transcript if m["role"] == "user"]
    )
    missing = [path for path in find_paths(named) if path not in body]
    if missing:
        lines.append(f"- Files named earlier: {', '.join(missing)}")
    if not lines:
        return truncate_to_tokens(body, budget_tokens)
    extra = _section("Critical Context", ["Kept verbatim from the compacted turns:", *lines])
    room = max(0, budget_tokens - estimate_text_tokens(extra) - 1)
    return truncate_to_tokens(f"{truncate_to_tokens(body, room)}\n\n{extra}", budget_tokens)
