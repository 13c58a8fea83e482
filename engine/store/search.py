"""Running a parsed query against ``state.db``: one SQL statement per search, whichever route.

WORD/TRIGRAM: the FTS table is the outer loop (CROSS JOIN pins it) so FTS5 hands rows over
already ordered by rank; the joins to ``messages``/``sessions`` and ``snippet()`` then run only
for the rows that make the LIMIT, which keeps a search within a whisker of the bare MATCH.

SHORT (CJK terms of 1–2 characters, which no trigram can hold): a trigram *starting with* the
term exists for every occurrence, because the indexed text always ends in padding. So the
trigram index's vocabulary, read as a term range through a temporary ``fts5vocab`` table, yields
exactly the messages containing the term — an index read instead of a ``LIKE`` scan of every
message. Newest messages come first on this route (there is no relevance to rank by).
"""

from __future__ import annotations

import sqlite3
from typing import Any, Collection

from engine.store.lineage import roots_of
from engine.store.models import MATCH_END, MATCH_START, SearchHit
from engine.store.query import ParsedQuery, Route, has_cjk
from engine.store.schema import FTS_TEXT

SNIPPET_TOKENS = {Route.WORD: 16, Route.TRIGRAM: 48}
FTS_TABLE = {Route.WORD: "messages_fts", Route.TRIGRAM: "messages_fts_trigram"}
VOCAB = "temp.hermes_trigram_vocab"
MAX_CHAR = "\U0010ffff"
SNIPPET_BEFORE, SNIPPET_AFTER = 30, 70


def _filters(
    source: str | None, exclude: Collection[str], hide_sources: Collection[str]
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if source is not None:
        clauses.append("s.source = ?")
        params.append(source)
    if exclude:
        clauses.append(f"m.session_id NOT IN ({','.join('?' * len(exclude))})")
        params.extend(exclude)
    if hide_sources:
        clauses.append(f"s.source NOT IN ({','.join('?' * len(hide_sources))})")
        params.extend(hide_sources)
    return "".join(f" AND {c}" for c in clauses), params


def _fts_rows(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, where: str, params: list[Any]) -> list:
    table = FTS_TABLE[parsed.route]
    sql = f"""
SELECT {table}.rowid, snippet({table}, 0, ?, ?, '…', {SNIPPET_TOKENS[parsed.route]}), {table}.rank,
       m.session_id, m.role, m.timestamp, s.title
FROM {table} CROSS JOIN messages m ON m.id = {table}.rowid CROSS JOIN sessions s ON s.id = m.session_id
WHERE {table} MATCH ?{where}
ORDER BY {table}.rank LIMIT ?"""
    return conn.execute(sql, (MATCH_START, MATCH_END, parsed.match_expression(), *params, limit)).fetchall()


def make_snippet(text: str, needles: list[str]) -> str:
    """A window around the first match with every needle marked (case-insensitive for ASCII)."""
    folded = text.lower()
    hits = [(folded.find(n), n) for n in needles if n and folded.find(n) >= 0]
    first = min((pos for pos, _ in hits), default=0)
    start, end = max(0, first - SNIPPET_BEFORE), min(len(text), first + SNIPPET_AFTER)
    window, window_folded = text[start:end], folded[start:end]
    out: list[str] = []
    i = 0
    while i < len(window):
        match = next((n for n in needles if n and window_folded.startswith(n, i)), None)
        if match:
            out.append(f"{MATCH_START}{window[i:i + len(match)]}{MATCH_END}")
            i += len(match)
        else:
            out.append(window[i])
            i += 1
    return ("…" if start else "") + "".join(out).replace("\n", " ") + ("…" if end < len(text) else "")


def _short_rows(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, where: str, params: list[Any]) -> list:
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} USING fts5vocab(main, messages_fts_trigram, instance)"
    )
    indexed = [t for t in parsed.terms if t.op != "NOT" and has_cjk(t.text) and len(t.text) < 3]
    checked = [t for t in parsed.terms if t not in indexed]
    # Only excluded (NOT) short terms: nothing narrows the candidates, every message is checked.
    candidates = " INTERSECT ".join(f"SELECT DISTINCT doc FROM {VOCAB} WHERE term >= ? AND term < ?" for _ in indexed)
    candidates = candidates or "SELECT id FROM messages"
    text = f"lower({FTS_TEXT.format(r='m')})"
    checks = "".join(
        f" AND instr({text}, ?) {'=' if t.op == 'NOT' else '>'} 0" for t in checked
    )
    sql = f"""
WITH cand(id) AS ({candidates})
SELECT m.id, m.content, m.session_id, m.role, m.timestamp, s.title
FROM cand CROSS JOIN messages m ON m.id = cand.id CROSS JOIN sessions s ON s.id = m.session_id
WHERE 1{checks}{where}
ORDER BY m.id DESC LIMIT ?"""
    bounds = [v for t in indexed for v in (t.text.lower(), t.text.lower() + MAX_CHAR)]
    args = [*bounds, *(t.text.lower() for t in checked), *params, limit]
    needles = [t.text.lower() for t in parsed.terms if t.op != "NOT"]
    return [
        (mid, make_snippet(content or "", needles), 0.0, sid, role, ts, title)
        for mid, content, sid, role, ts, title in conn.execute(sql, args)
    ]


def run_search(
    conn: sqlite3.Connection,
    parsed: ParsedQuery,
    *,
    limit: int,
    source: str | None,
    exclude_session_ids: Collection[str],
    hide_sources: Collection[str],
) -> list[SearchHit]:
    if parsed.route is Route.EMPTY or limit <= 0:
        return []
    where, params = _filters(source, list(exclude_session_ids), list(hide_sources))
    if parsed.route is Route.SHORT:
        rows = _short_rows(conn, parsed, limit, where, params)
    else:
        rows = _fts_rows(conn, parsed, limit, where, params)
    roots = roots_of(conn, {row[3] for row in rows})
    return [
        SearchHit(
            session_id=sid, lineage_root=roots.get(sid, sid), title=title, message_id=mid, role=role,
            snippet=snippet, timestamp=ts, rank=rank,
        )
        for mid, snippet, rank, sid, role, ts, title in rows
    ]
