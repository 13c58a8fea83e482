"""Every model call as the provider reported it, in ``hermes_tui_requests`` (ours, additive).

One row per request, written by the usage meter in the same transaction that adds the call to
the session's tallies (upstream's ``sessions`` columns), so the two never disagree about a call
this program made. Upstream Hermes never reads the table; an upstream home has none until our
first write creates it (``schema.ensure_schema``), and every read here copes without it.

A row holds the figures, who served the call (model, provider, base URL), when, the session and
the user turn it answered, the newest stored message it carried, and where its bytes stopped
matching the request before it (``prefix_break``, the JSON of ``engine.prompt.prefix.PrefixBreak``;
``compared`` is 0 when there was no earlier request in the same run to compare with). Cells
another program filled with the wrong type read as zero or unknown, never as an error.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any, Sequence

from engine.store.listing import readable_time
from engine.store.schema import requests_kept

FIELDS = ("session_id", "at", "turn", "message_id", "model", "provider", "base_url", "input_tokens",
          "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "compared", "prefix_break")
INSERT = f"INSERT INTO hermes_tui_requests ({', '.join(FIELDS)}) VALUES ({', '.join('?' * len(FIELDS))})"
SELECT = f"SELECT id, {', '.join(FIELDS)} FROM hermes_tui_requests"
# A session's calls per model, server and UTC day, for ``sessions stats`` (one row per group, not per call).
DAILY = """
SELECT session_id, model, base_url, MIN(at), COUNT(*), CAST(SUM(input_tokens) AS INTEGER),
       CAST(SUM(output_tokens) AS INTEGER), CAST(SUM(cache_read_tokens) AS INTEGER),
       CAST(SUM(cache_write_tokens) AS INTEGER)
FROM hermes_tui_requests
GROUP BY session_id, model, base_url, CAST(at / 86400 AS INTEGER)
ORDER BY session_id, MIN(at), MIN(id)
"""


@dataclass(frozen=True)
class RequestRow:
    """One stored request; ``id`` is ``None`` until it is written."""

    session_id: str
    at: float | None
    turn: int
    message_id: int | None
    model: str | None
    provider: str | None
    base_url: str | None
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    compared: bool
    prefix_break: dict[str, Any] | None
    id: int | None = None

    def values(self) -> tuple[Any, ...]:
        brk = json.dumps(self.prefix_break, ensure_ascii=False) if self.prefix_break is not None else None
        return (self.session_id, self.at, int(self.turn), self.message_id, self.model, self.provider, self.base_url,
                int(self.input_tokens), int(self.output_tokens), int(self.cache_read_tokens),
                int(self.cache_write_tokens), int(self.reasoning_tokens), int(bool(self.compared)), brk)


@dataclass(frozen=True)
class RequestGroup:
    """The calls of one session at one model and server on one UTC day."""

    session_id: str
    model: str | None
    base_url: str | None
    at: float | None  # the first call's time
    api_calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _break(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, str):
        return None
    try:
        found = json.loads(value)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _row(cells: Sequence[Any]) -> RequestRow:
    (rid, sid, at, turn, message_id, model, provider, base_url, inp, out, read, write, reasoning, compared,
     brk) = cells
    return RequestRow(str(sid), readable_time(at), _count(turn), message_id if _count(message_id) else None,
                      _text(model), _text(provider), _text(base_url), _count(inp), _count(out), _count(read),
                      _count(write), _count(reasoning), compared == 1, _break(brk), rid)


def insert(conn: sqlite3.Connection, row: RequestRow) -> int:
    """Write one request inside the caller's transaction; its id."""
    return int(conn.execute(INSERT, row.values()).lastrowid or 0)


def lineage_requests(conn: sqlite3.Connection, path: Sequence[str]) -> list[RequestRow]:
    """The requests along a lineage path (root first), oldest first: each ancestor's up to the
    moment its child on the path began (a branched parent may have gone on after the fork)."""
    if not path or not requests_kept(conn):
        return []
    marks = ",".join("?" * len(path))
    starts = {sid: readable_time(started)
              for sid, started in conn.execute(f"SELECT id, started_at FROM sessions WHERE id IN ({marks})", list(path))}
    rows: list[RequestRow] = []
    for index, session_id in enumerate(path):
        child = path[index + 1] if index + 1 < len(path) else None
        cutoff = starts.get(child) if child is not None else None
        if cutoff is None:
            found = conn.execute(f"{SELECT} WHERE session_id = ? ORDER BY id", (session_id,))
        else:
            found = conn.execute(f"{SELECT} WHERE session_id = ? AND at <= ? ORDER BY id", (session_id, cutoff))
        rows += [_row(cells) for cells in found]
    return rows


def daily_groups(conn: sqlite3.Connection) -> dict[str, list[RequestGroup]]:
    """Every session's recorded calls by model, server and day; ``{}`` where the table is not there yet."""
    if not requests_kept(conn):
        return {}
    groups: dict[str, list[RequestGroup]] = {}
    for sid, model, base_url, at, calls, inp, out, read, write in conn.execute(DAILY):
        group = RequestGroup(str(sid), _text(model), _text(base_url), readable_time(at), _count(calls), _count(inp),
                             _count(out), _count(read), _count(write))
        groups.setdefault(group.session_id, []).append(group)
    return groups
