"""Shape checks on a transcript before compression touches it.

A malformed message would otherwise surface as a KeyError deep in the algorithm; this names the
message at fault instead, before anything is computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import BadInputError
from engine.providers.types import call_result_id

ROLES = ("user", "assistant", "tool")


def _check_calls(where: str, calls: Any) -> None:
    if not isinstance(calls, list):
        raise BadInputError(f"{where}: tool_calls must be a list, not {type(calls).__name__}.")
    for j, call in enumerate(calls):
        ids = [call.get(key) for key in ("call_id", "id")] if isinstance(call, Mapping) else []
        if not any(isinstance(value, str) and value for value in ids):
            raise BadInputError(f"{where}: tool_calls[{j}] has no id.")
        function = call.get("function")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise BadInputError(f"{where}: tool_calls[{j}] ({call_result_id(call)}) has no function name.")


def validate_messages(messages: Any) -> None:
    """Raise ``BadInputError`` naming ``messages[i]`` for the first message of a wrong shape."""
    if not isinstance(messages, list):
        raise BadInputError(f"messages must be a list of chat messages, not {type(messages).__name__}.")
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, Mapping):
            raise BadInputError(f"{where} is {type(message).__name__}, not a chat message mapping.")
        role = message.get("role")
        if role not in ROLES:
            raise BadInputError(
                f"{where}: role {role!r} is not one of {', '.join(ROLES)} "
                "(the system prompt is passed separately)."
            )
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise BadInputError(f"{where}: content must be text, a list of parts or null.")
        if message.get("tool_calls") is not None:
            if role != "assistant":
                raise BadInputError(f"{where}: only assistant messages carry tool_calls.")
            _check_calls(where, message["tool_calls"])
        if role == "tool" and not (isinstance(message.get("tool_call_id"), str) and message["tool_call_id"]):
            raise BadInputError(f"{where}: tool result has no tool_call_id.")
