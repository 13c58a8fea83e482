"""The demo's scripted model: answers the app's real requests so every feature can be tried offline.

It is served through ``LoopbackLLM`` on the OpenAI-compatible path, so the demo exercises the
same provider code as a real server. Requests are told apart by what they carry: tools offered
(a conversation turn or the background review) or not (titles, compression summaries, search
summaries — the side jobs, recognised by their system prompt).
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.auto_titles import TITLE_SYSTEM
from engine.compression.summary import SUMMARY_SECTIONS
from engine.live_compression import SUMMARIZER_SYSTEM
from engine.review import REVIEW_SYSTEM
from engine.session_search import SUMMARY_SYSTEM
from engine.tokens import content_text
from hermes_tui.loopback_llm import Reply, ToolCallSpec

CHUNK_CHARS = 6
_REMEMBER = re.compile(r"\b(?:remember(?: that)?|note that|记住)\s*[:：]?\s*(?P<fact>.+)", re.IGNORECASE | re.DOTALL)
_CJK = re.compile(r"[\u4e00-\u9fff]")

WELCOME = (
    "Hi! I am the **demo model** — scripted, offline, and served on loopback through the same "
    "OpenAI-compatible path a real server would use.\n\n"
    "Things to try:\n\n"
    "- `remember that I deploy on Fridays` — a memory write that **waits for your approval** (write approval is on)\n"
    "- `/compress` (after a few messages) — summarize this conversation into a continuation session\n"
    "- `/sessions` — the lineage tree (a 3-step compression lineage and a branch are seeded)\n"
    "- `/search` or `ctrl+f` — try `postgres`, `支付` or `\"retry helper\"`\n"
    "- `/theme hermes-light` — switch theme live\n"
)
REPLIES = (
    (("retry", "backoff"), "Use bounded retries with jitter:\n\n```python\nimport random, time\n\n"
     "def retry(fn, attempts=3, base=0.2):\n    for i in range(attempts):\n        try:\n            return fn()\n"
     "        except OSError:\n            if i == attempts - 1:\n                raise\n"
     "            time.sleep(base * 2 ** i * random.uniform(0.5, 1.5))\n```\n"),
    (("postgres", "database", "migration"), "For the migration: dump with `pg_dump -Fc`, restore into the new "
     "cluster with `pg_restore --jobs 4`, then switch the connection string behind a feature flag."),
    (("支付", "迁移", "数据库"), "好的。先在预发环境跑一遍迁移脚本，确认 `session_store` 的读写都走 PostgreSQL，"
     "再逐步切换生产流量。"),
)


def _last(messages: list[dict[str, Any]], role: str) -> dict[str, Any] | None:
    return next((m for m in reversed(messages) if m.get("role") == role), None)


def _text(message: dict[str, Any] | None) -> str:
    return content_text((message or {}).get("content"), markers=False)


def _system(request: dict[str, Any]) -> str:
    return _text(_last(request.get("messages") or [], "system"))


def chat_reply(request: dict[str, Any]) -> Reply:
    """A conversation turn (tools offered): a memory call for "remember …", else a canned answer."""
    messages = request.get("messages") or []
    if _system(request).startswith(REVIEW_SYSTEM):
        return Reply(text="Nothing new worth keeping.")
    if messages and messages[-1].get("role") == "tool":
        result = _text(messages[-1])
        if '"success": false' in result:
            return Reply(text=f"The memory write was refused: {result[:200]}", chunk_chars=CHUNK_CHARS)
        return Reply(text="Done — that is in memory now (or waiting in the approvals queue: **F3** to review).",
                     chunk_chars=CHUNK_CHARS)
    user = _text(_last(messages, "user"))
    user = user.split("<memory-context>")[0].strip()
    wish = _REMEMBER.search(user)
    if wish:
        fact = wish.group("fact").strip().rstrip(".。")
        arguments = json.dumps({"action": "add", "target": "user", "content": fact[:1].upper() + fact[1:]},
                               ensure_ascii=False)
        return Reply(text="I'll save that to your profile.", tool_calls=[ToolCallSpec("memory", arguments)],
                     chunk_chars=CHUNK_CHARS)
    lowered = user.casefold()
    for words, answer in REPLIES:
        if any(w in lowered for w in words):
            return Reply(text=answer, chunk_chars=CHUNK_CHARS)
    return Reply(text=WELCOME, chunk_chars=CHUNK_CHARS)


def side_reply(request: dict[str, Any]) -> Reply:
    """A side job (no tools): a title, a compression summary or a search summary."""
    system = _system(request)
    body = _text(_last(request.get("messages") or [], "user"))
    if system.startswith(TITLE_SYSTEM[:40]):
        asked = body.split("\n\nAssistant:")[0]  # the user's language, not the reply's (the welcome quotes 支付)
        return Reply(text="演示对话" if _CJK.search(asked) else "Demo conversation")
    if system.startswith(SUMMARIZER_SYSTEM[:40]):
        sections = {name: "None" for name in SUMMARY_SECTIONS}
        sections["Task snapshot"] = "Trying out hermes-tui in demo mode."
        sections["Goal"] = "See memory approvals, compression, the lineage tree and search."
        sections["Completed Actions"] = "Chatted with the scripted demo model."
        return Reply(text="\n\n".join(f"## {k}\n{v}" for k, v in sections.items()))
    if system.startswith(SUMMARY_SYSTEM[:40]):
        return Reply(text="The user and the assistant discussed this topic; the key commands and decisions are "
                          "in the excerpt: the migration ran on staging first, then production behind a flag.")
    return Reply(text="OK.")
