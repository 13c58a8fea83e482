"""The system prompt: three layers built once per session and then frozen (invariant 1).

*stable* (identity, tool and memory guidance, platform notes) → *context* (the project file) →
*volatile* (frozen memory blocks, the external provider's block, the day, the model), joined by a
blank line. Nothing here may vary within a day for the same inputs: no clock finer than the
date, no random ids, no dict-order surprises — the provider caches the byte-identical prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from engine import clock
from engine.memory import MEMORY_GUIDANCE, MemorySnapshot
from engine.prompt.context_files import context_layer

DEFAULT_IDENTITY = (
    "You are Hermes, a capable assistant working with one person over many sessions. "
    "Be direct and concrete, say when you are unsure, and prefer doing the work to describing it."
)

TOOL_GUIDANCE = (
    "Tools: use `session_search` to look up what happened in earlier sessions before asking the "
    "user to repeat themselves. Use `memory` only for durable facts, as described below."
)

PLATFORM_NOTES = {
    "tui": "Platform: a full-screen terminal app. Replies render as Markdown; keep them readable in a terminal.",
    "cli": "Platform: a one-shot command line. Reply in plain Markdown suited to a terminal.",
}


@dataclass(frozen=True)
class PromptInputs:
    """Everything the prompt depends on, so the same inputs always give the same bytes."""

    home: Path
    cwd: Path
    snapshot: MemorySnapshot
    model: str
    provider: str
    source: str = "tui"
    provider_block: str = ""
    memory_enabled: bool = True
    user_profile_enabled: bool = True


def identity(home: Path) -> str:
    """``SOUL.md`` in the home when present and non-empty, else the built-in identity."""
    soul = home / "SOUL.md"
    try:
        text = soul.read_text(encoding="utf-8-sig").strip()
    except OSError:
        text = ""
    return text or DEFAULT_IDENTITY


def conversation_started(timestamp: float) -> str:
    """Day precision on purpose: a clock in the prompt would break the cache every call."""
    day = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    return f"Conversation started: {day:%A, %B} {day.day}, {day.year}"


def stable_layer(inputs: PromptInputs) -> str:
    parts = [identity(inputs.home), TOOL_GUIDANCE, MEMORY_GUIDANCE]
    note = PLATFORM_NOTES.get(inputs.source)
    if note:
        parts.append(note)
    return "\n\n".join(parts)


def volatile_layer(inputs: PromptInputs) -> str:
    parts = [
        inputs.snapshot.block("memory") if inputs.memory_enabled else "",
        inputs.snapshot.block("user") if inputs.user_profile_enabled else "",
        inputs.provider_block.strip(),
        conversation_started(clock.now()),
        f"Model: {inputs.model}\nProvider: {inputs.provider}",
    ]
    return "\n\n".join(p for p in parts if p)


def build_system_prompt(inputs: PromptInputs) -> str:
    """Assemble the three layers. Call once per session; store the result and reuse it."""
    layers = [stable_layer(inputs), context_layer(inputs.cwd), volatile_layer(inputs)]
    return "\n\n".join(layer for layer in layers if layer)
