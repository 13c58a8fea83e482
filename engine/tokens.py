"""Token estimates from characters, for budgets decided before (or without) a provider count.

Why characters: the engine talks to several providers whose tokenizers differ, and a budget only
needs to be conservative and stable. Latin text runs ~4 characters a token; CJK and kana/hangul
~1 character a token, so counting them apart keeps Chinese conversations from being under-counted
4×. The provider-reported prompt tokens replace this estimate whenever they are known.

``content_text`` lives here because estimates were its first user; it is the project's one way
to turn message content (plain or multimodal parts) into text, for the store and the UI too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4  # role markers and separators each message costs in every chat format
TOOL_CALL_OVERHEAD = 4

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
TRUNCATION_NOTE = "\n[… truncated]"


TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})
IMAGE_PART_TYPES = frozenset({"image", "image_url", "input_image"})
AUDIO_PART_TYPES = frozenset({"audio", "input_audio"})
STRUCTURED_MARKER = "[structured content]"
MAX_PART_DEPTH = 8  # tool results nest parts; a deeper (hostile) structure is only marked


def content_text(content: Any, *, markers: bool = True) -> str:
    """The text of a message ``content`` — a string, ``None``, a part or a list of parts — for
    display, estimates and the search index: the one flattener, so every view agrees.

    A non-text part becomes a short marker (``[image]``, ``[audio]``, ``[<type>]``), never its
    payload (base64); ``markers=False`` keeps the text parts only (what the search index holds).
    """
    return _flatten(content, markers, 0)


def _flatten(content: Any, markers: bool, depth: int) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if depth > MAX_PART_DEPTH:
        return STRUCTURED_MARKER if markers else ""
    if isinstance(content, list):
        return "\n".join(text for text in (_flatten(p, markers, depth + 1) for p in content) if text)
    if isinstance(content, Mapping):
        return _part_text(content, markers, depth)
    return str(content)


def _part_text(part: Mapping[str, Any], markers: bool, depth: int) -> str:
    kind = part.get("type") if isinstance(part.get("type"), str) else None
    if isinstance(part.get("text"), str) and (kind is None or kind in TEXT_PART_TYPES):
        return part["text"]
    if "content" in part and kind in (None, "tool_result"):  # a tool result holding its own parts
        return _flatten(part["content"], markers, depth + 1)
    if not markers:
        return ""
    if kind in IMAGE_PART_TYPES:
        return "[image]"
    if kind in AUDIO_PART_TYPES:
        return "[audio]"
    return f"[{kind}]" if kind else STRUCTURED_MARKER


def estimate_text_tokens(text: str) -> int:
    """Tokens of ``text``: one per CJK character plus one per four other characters."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    other = len(text) - cjk
    return cjk + -(-other // CHARS_PER_TOKEN)


def estimate_message_tokens(message: Mapping[str, Any]) -> int:
    """Tokens one chat-format message costs: content, tool calls and a fixed overhead."""
    total = MESSAGE_OVERHEAD + estimate_text_tokens(content_text(message.get("content")))
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        text = f"{function.get('name', '')}{function.get('arguments', '')}"
        total += TOOL_CALL_OVERHEAD + estimate_text_tokens(text)
    return total


def estimate_tokens(
    messages: Iterable[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] = (),
    system_prompt: str = "",
) -> int:
    """Tokens of a whole request: system prompt, tool schemas and messages."""
    total = sum(estimate_message_tokens(m) for m in messages)
    if system_prompt:
        total += MESSAGE_OVERHEAD + estimate_text_tokens(system_prompt)
    if tools:
        total += estimate_text_tokens(json.dumps(list(tools), sort_keys=True, ensure_ascii=False))
    return total


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """``text`` cut so that it, plus a visible truncation note, fits ``max_tokens``.

    Cuts at the last line break of the kept part when one is near, so sections stay whole.
    """
    if estimate_text_tokens(text) <= max_tokens:
        return text
    room = max(0, max_tokens - estimate_text_tokens(TRUNCATION_NOTE))
    cjk = other = 0
    end = 0
    for end, char in enumerate(text):
        if _CJK.match(char):
            cjk += 1
        else:
            other += 1
        if cjk + -(-other // CHARS_PER_TOKEN) > room:
            break
    kept = text[:end]
    newline = kept.rfind("\n")
    if newline >= len(kept) * 0.8:
        kept = kept[:newline]
    return kept.rstrip() + TRUNCATION_NOTE
