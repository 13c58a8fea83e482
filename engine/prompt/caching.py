"""Anthropic prompt caching, strategy "system_and_3" (DESIGN.md "Prompt caching").

Breakpoints go on the system prompt and the last three non-system messages — at most four, the
API's limit — so each call reads the cached prefix written by the previous one. Markers are put
on a deep copy: the caller's request (and so the canonical transcript) is never touched.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.errors import ConfigError

CACHE_TTLS = ("5m", "1h")
MESSAGE_BREAKPOINTS = 3


def cache_marker(ttl: str) -> dict[str, str]:
    """The ``cache_control`` value for ``ttl`` (5m is the API default, so it is left implicit)."""
    if ttl not in CACHE_TTLS:
        raise ConfigError(f"prompt_caching.cache_ttl must be one of 5m, 1h (got {ttl!r})")
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}


def _mark_last_block(message: dict[str, Any], marker: dict[str, str]) -> bool:
    """Put ``marker`` on the message's last content block; False when it has no content to mark."""
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            return False
        message["content"] = [{"type": "text", "text": content, "cache_control": dict(marker)}]
        return True
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        content[-1]["cache_control"] = dict(marker)
        return True
    return False


def apply_cache_control(
    system_blocks: list[dict[str, Any]], messages: list[dict[str, Any]], ttl: str = "5m"
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Copies of ``system_blocks`` and Anthropic-format ``messages`` with cache breakpoints set."""
    marker = cache_marker(ttl)
    system = copy.deepcopy(system_blocks)
    marked = copy.deepcopy(messages)
    if system:
        system[-1]["cache_control"] = dict(marker)
    placed = 0
    for message in reversed(marked):
        if placed == MESSAGE_BREAKPOINTS:
            break
        if message.get("role") != "system" and _mark_last_block(message, marker):
            placed += 1
    return system, marked
