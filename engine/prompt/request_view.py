"""The request view: what one API call sends, built from the canonical transcript each call.

Nothing built here is persisted (invariant 2). The recall fence rides on the *current* user
message only, so earlier turns keep the exact bytes they were sent with; provider fix-ups (a
tool call without a result after a cancelled turn) are made here, deterministically.
"""

from __future__ import annotations

import copy

from engine.providers.types import call_result_id
from engine.scrub import build_recall_fence

MISSING_RESULT = "[no result: the turn was interrupted before this tool ran]"


def _with_fence(message: dict, recall: str) -> dict:
    fenced = dict(message)
    content = message.get("content")
    fence = build_recall_fence(recall)
    if isinstance(content, list):
        fenced["content"] = [*copy.deepcopy(content), {"type": "text", "text": fence}]
    else:
        fenced["content"] = f"{content or ''}\n\n{fence}"
    return fenced


def _stub_missing_results(messages: list[dict]) -> list[dict]:
    """Give every tool call a result and drop results whose call is gone (providers reject both)."""
    out: list[dict] = []
    pending: list[str] = []

    def close_pending() -> None:
        out.extend({"role": "tool", "tool_call_id": cid, "content": MISSING_RESULT} for cid in pending)
        pending.clear()

    for message in messages:
        if message.get("role") == "tool":
            cid = message.get("tool_call_id")
            if cid in pending:  # a result for a call still open: keep it once
                pending.remove(cid)
                out.append(message)
            continue
        close_pending()
        out.append(message)
        if message.get("role") == "assistant":
            pending.extend(call_result_id(call) for call in message.get("tool_calls") or [])
    close_pending()
    return out


def _as_parts(message: dict) -> dict:
    """A dict ``content`` (one part, as upstream may store it) as a one-part list: providers take
    a string or a list of parts, and a resume replays the structure, not its text."""
    content = message.get("content")
    return {**message, "content": [content]} if isinstance(content, dict) else message


def build_api_messages(messages: list[dict], *, recall: str | None, current_user_index: int | None) -> list[dict]:
    """The messages for one call: the transcript, fixed up, with recall on the current user message."""
    view = [_as_parts(m) for m in messages]
    if recall and recall.strip() and current_user_index is not None and 0 <= current_user_index < len(view):
        view[current_user_index] = _with_fence(view[current_user_index], recall)
    return _stub_missing_results(view)
