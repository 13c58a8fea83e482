"""Running a parsed query against ``state.db``: a few statements per search, never one per hit.

WORD/TRIGRAM: the FTS table is the outer loop (CROSS JOIN pins it) so FTS5 hands rows over
already ordered by rank; the joins to ``messages``/``sessions`` and ``snippet()`` then run only
for the rows that make the LIMIT, which keeps a search within a whisker of the bare MATCH.

SHORT (CJK terms of 1–2 characters, which no trigram can hold): a trigram *starting with* the
term exists for every occurrence, because the indexed text always ends in padding. So the
trigram index's vocabulary, read as a term range through a temporary ``fts5vocab`` table, yields
exactly the messages containing the term — an index read instead of a ``LIKE`` scan of every
message. A common term would make that read long, so the newest messages are tried first and
usually fill the page. Newest messages come first on this route (there is no relevance to rank by).
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache
from typing import Any, Collection

from engine.store.lineage import roots_of
from engine.store.models import MATCH_END, MATCH_START, SearchHit
from engine.store.query import ParsedQuery, Route, Term, has_cjk
from engine.store.schema import FTS_TEXT

VOCAB = "temp.hermes_trigram_vocab"
MAX_CHAR = "\U0010ffff"
SNIPPET_BEFORE, SNIPPET_AFTER = 30, 70
RECENT_WINDOW = 500
# Every hit row ends with its session's parent (when that row exists) and the parent's parent:
# a lineage of depth ≤ 1, the usual case, needs no further walk to find its root.
HIT_COLUMNS = "m.session_id, m.role, m.timestamp, s.title, p.id, p.parent_session_id"
PARENT_JOIN = "LEFT JOIN sessions p ON p.id = s.parent_session_id"


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


# No ``rank`` column in the output: selecting it makes FTS5 compute bm25 a second time per row.
# WORD: FTS5's snippet() (cheap over unicode61 tokens, and it knows tokenization, diacritics and
# prefixes). TRIGRAM: snippet() would re-tokenize each hit into trigrams, which costs more than
# the query itself, so the stored text comes back as it does in a bare query and the window is
# cut in Python (a trigram match is a case-insensitive substring, which a regex finds exactly).
_FTS_SELECT = {
    route: f"""
SELECT {table}.rowid, {text}, {HIT_COLUMNS}
FROM {table} CROSS JOIN messages m ON m.id = {table}.rowid CROSS JOIN sessions s ON s.id = m.session_id {PARENT_JOIN}
WHERE {table} MATCH ?{{where}}
ORDER BY {table}.rank LIMIT ?"""
    for route, table, text in (
        (Route.WORD, "messages_fts", f"snippet(messages_fts, 0, '{MATCH_START}', '{MATCH_END}', '…', 16)"),
        (Route.TRIGRAM, "messages_fts_trigram", "messages_fts_trigram.content"),
    )
}


def _fts_rows(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, where: str, params: list[Any]) -> list:
    sql = _FTS_SELECT[parsed.route].format(where=where)
    rows = conn.execute(sql, (parsed.match_expression(), *params, limit)).fetchall()
    if parsed.route is Route.TRIGRAM:
        rows = _with_snippets(rows, parsed)
    return rows


def _marked(match: re.Match[str]) -> str:
    return f"{MATCH_START}{match.group(0)}{MATCH_END}"


@lru_cache(maxsize=64)
def _needle_pattern(needles: tuple[str, ...]) -> re.Pattern[str] | None:
    """Compiled once per distinct query, not once per hit."""
    alternatives = "|".join(re.escape(n) for n in sorted(set(needles), key=len, reverse=True) if n)
    return re.compile(alternatives, re.I) if alternatives else None


def make_snippet(text: str, needles: list[str]) -> str:
    """A window around the first match with every needle marked (case-insensitive)."""
    pattern = _needle_pattern(tuple(needles))
    first = pattern.search(text) if pattern else None
    pos = first.start() if first else 0
    start, end = max(0, pos - SNIPPET_BEFORE), min(len(text), pos + SNIPPET_AFTER)
    window = text[start:end]
    if pattern:
        window = pattern.sub(_marked, window)
    return ("…" if start else "") + window.replace("\n", " ") + ("…" if end < len(text) else "")


def _with_snippets(rows: list, parsed: ParsedQuery) -> list:
    """Replace each row's text (second column) by its snippet."""
    needles = [t.text.lower() for t in parsed.terms if t.op != "NOT"]
    return [(mid, make_snippet(text or "", needles), *rest) for mid, text, *rest in rows]


def _check_sql(terms: list[Term]) -> str:
    """``instr`` per term; ``lower()`` (a copy of every row's text) only for terms with case."""
    raw = FTS_TEXT.format(r="m")
    return "".join(
        f" AND instr({raw if t.text.lower() == t.text.upper() else f'lower({raw})'}, ?)"
        f" {'=' if t.op == 'NOT' else '>'} 0"
        for t in terms
    )


_SHORT_SELECT = f"""
SELECT m.id, m.content, {HIT_COLUMNS}
FROM {{source}} CROSS JOIN messages m ON m.id = cand.id CROSS JOIN sessions s ON s.id = m.session_id {PARENT_JOIN}
WHERE 1{{checks}}{{where}}
ORDER BY m.timestamp DESC, m.id DESC LIMIT ?"""


_WALK_SELECT = f"""
SELECT m.id, m.content, {HIT_COLUMNS}
FROM messages m CROSS JOIN sessions s ON s.id = m.session_id {PARENT_JOIN}
WHERE m.timestamp >= (SELECT timestamp FROM messages ORDER BY timestamp DESC LIMIT 1 OFFSET ?){{checks}}{{where}}
ORDER BY m.timestamp DESC, m.id DESC LIMIT ?"""


def _short_rows(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, where: str, params: list[Any]) -> list:
    """Newest matches first. A common term is found among the newest RECENT_WINDOW messages; a
    rarer one is looked up through the trigram vocabulary (cost grows with its occurrences)."""
    lowered = [t.text.lower() for t in parsed.terms]
    # Walk the timestamp index newest first (stopping at ``limit`` matches), no further back
    # than the RECENT_WINDOW-th newest message.
    walk = _WALK_SELECT.format(checks=_check_sql(list(parsed.terms)), where=where)
    rows = conn.execute(walk, [RECENT_WINDOW - 1, *lowered, *params, limit]).fetchall()
    if len(rows) < limit:
        rows = _vocab_rows(conn, parsed, limit, where, params)
    return _with_snippets(rows, parsed)


def _vocab_rows(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, where: str, params: list[Any]) -> list:
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} USING fts5vocab(main, messages_fts_trigram, instance)"
    )
    indexed = [t for t in parsed.terms if t.op != "NOT" and has_cjk(t.text) and len(t.text) < 3]
    checked = [t for t in parsed.terms if t not in indexed]
    # Only excluded (NOT) short terms: nothing narrows the candidates, every message is checked.
    candidates = " INTERSECT ".join(f"SELECT DISTINCT doc FROM {VOCAB} WHERE term >= ? AND term < ?" for _ in indexed)
    candidates = candidates or "SELECT id FROM messages"
    sql = f"WITH cand(id) AS ({candidates})" + _SHORT_SELECT.format(
        source="cand", checks=_check_sql(checked), where=where
    )
    bounds = [v for t in indexed for v in (t.text.lower(), t.text.lower() + MAX_CHAR)]
    return conn.execute(sql, [*bounds, *(t.text.lower() for t in checked), *params, limit]).fetchall()


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
    deeper = roots_of(conn, {parent for *_, parent, grandparent in rows if grandparent is not None})
    return [
        SearchHit(
            session_id=sid, lineage_root=_root(sid, parent, grandparent, deeper), title=title, message_id=mid,
            role=role, snippet=snippet, timestamp=ts, rank=position,
        )
        for position, (mid, snippet, sid, role, ts, title, parent, grandparent) in enumerate(rows, start=1)
    ]


def _root(sid: str, parent: str | None, grandparent: str | None, deeper: dict[str, str]) -> str:
    """The furthest existing ancestor (a missing parent row ends the walk)."""
    if parent is None:
        return sid
    return deeper.get(parent, parent) if grandparent is not None else parent
