"""Each session's token tally and where it was billed, for the usage totals of ``sessions stats``.

The tally is upstream's columns on ``sessions`` (every program that made calls in the session
added to them); ``recorded`` is what our request log (``hermes_tui_requests``) holds of those
calls, grouped by model, server and day, so they can be priced and dated call by call.
Read as the cells are: a cell another program filled with the wrong type counts as zero (a
count) or unknown (a name, a time), never as an error.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from engine.store.listing import readable_time
from engine.store.request_log import RequestGroup, daily_groups

_SQL = """
SELECT id, title, source, model, started_at, api_call_count, input_tokens, output_tokens, cache_read_tokens,
       cache_write_tokens, billing_provider, billing_base_url
FROM sessions
WHERE COALESCE(api_call_count, 0) > 0 OR COALESCE(input_tokens, 0) > 0 OR COALESCE(output_tokens, 0) > 0
ORDER BY started_at, id
"""


@dataclass(frozen=True)
class SessionUsage:
    id: str
    title: str | None
    source: str | None
    model: str | None
    started_at: float | None
    api_calls: int
    input_tokens: int  # the whole prompts, cached parts included
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    billing_provider: str | None
    billing_base_url: str | None
    recorded: tuple[RequestGroup, ...] = ()  # the calls our request log holds, by model, server and day


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def usage_rows(conn: sqlite3.Connection) -> list[SessionUsage]:
    """Sessions that made model calls, oldest first, with what the request log holds of each."""
    recorded = daily_groups(conn)
    return [
        SessionUsage(str(sid), _text(title), _text(source), _text(model), readable_time(started), _count(calls),
                     _count(inp), _count(out), _count(read), _count(write), _text(provider), _text(base_url),
                     tuple(recorded.get(str(sid), ())))
        for sid, title, source, model, started, calls, inp, out, read, write, provider, base_url
        in conn.execute(_SQL)
    ]
