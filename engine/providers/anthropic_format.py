"""Canonical (OpenAI-format) messages and tools → Anthropic Messages API blocks.

Pure functions of their input, so the same transcript always becomes the same request bytes —
the condition for Anthropic's prefix cache to hit.
"""

from __future__ import annotations

import json
from typing import Any

from engine.providers.types import call_result_id


def tool_input(arguments: str) -> dict[str, Any]:
    """The ``input`` object of a tool_use block from a call's raw JSON arguments.

    Arguments that are not a JSON object become ``{}``: deterministic (the same bytes every
    replay), and the tool's own error result already told the model what was wrong.
    """
    try:
        parsed = json.loads(arguments) if arguments else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _image_block(part: dict[str, Any]) -> dict[str, Any]:
    url = str((part.get("image_url") or {}).get("url", ""))
    if url.startswith("data:") and ";base64," in url:
        media_type, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _content_blocks(content: Any) -> list[dict[str, Any]]:
    """OpenAI message content (string or parts) as Anthropic blocks, empty text dropped."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind == "text" and part.get("text"):
            blocks.append({"type": "text", "text": part["text"]})
        elif kind == "image_url":
            blocks.append(_image_block(part))
    return blocks


def _tool_result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in _content_blocks(content) if b["type"] == "text")


def _convert(message: dict[str, Any]) -> tuple[str, list[dict[str, Any]]] | None:
    role = message.get("role")
    if role == "tool":
        block = {
            "type": "tool_result",
            "tool_use_id": message.get("tool_call_id") or "",
            "content": _tool_result_text(message.get("content")),
        }
        return "user", [block]
    if role == "assistant":
        blocks = _content_blocks(message.get("content"))
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call_result_id(call),
                    "name": function.get("name", ""),
                    "input": tool_input(function.get("arguments", "")),
                }
            )
        return "assistant", blocks
    if role == "user":
        return "user", _content_blocks(message.get("content"))
    return None  # system messages travel in ``system``; unknown roles are not sent


def to_anthropic_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic messages: tool results become user tool_result blocks, same roles are merged.

    A lone text stays a plain string (what the SDK examples send); merged or structured content
    becomes a block list.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        converted = _convert(message)
        if converted is None:
            continue
        role, blocks = converted
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for message in out:
        blocks = message["content"]
        if len(blocks) == 1 and blocks[0]["type"] == "text":
            message["content"] = blocks[0]["text"]
    return out


def to_anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function-tool schemas as Anthropic tools, in the order given."""
    converted = []
    for tool in tools:
        function = tool.get("function", tool)
        entry: dict[str, Any] = {"name": function["name"]}
        if function.get("description"):
            entry["description"] = function["description"]
        entry["input_schema"] = function.get("parameters") or {"type": "object", "properties": {}}
        converted.append(entry)
    return converted
