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
``OR`` keeps FTS5's meaning (AND and NOT bind tighter): each OR group's candidates are the
intersection of its terms' (a longer term's come from a trigram MATCH), the groups are united,
and every candidate is then tested against the whole query.

``newest_first`` (WORD/TRIGRAM): the index walked newest first (rowid order), stopping at the
limit. Ranking by ``bm25`` scores every match before the limit applies (a common word: 180k rows,
half a second); the walk costs about what a bare ``MATCH … LIMIT`` does, so an interactive
search can show it at once and rank while the user pauses.
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache
from typing import Any, Callable, Collection, Sequence

from engine.store.cells import as_bytes, cell_text, readable_time
from engine.store.lineage import roots_of
from engine.store.messages import JSON_PREFIX, decode_content
from engine.store.models import MATCH_END, MATCH_START, SearchHit
from engine.store.query import TRIGRAM_MIN, ParsedQuery, Route, Term, has_cjk
from engine.tokens import content_text

VOCAB = "temp.hermes_trigram_vocab"
MAX_CHAR = "\U0010ffff"
SNIPPET_BEFORE, SNIPPET_AFTER = 30, 70
RECENT_WINDOW = 500  # messages the newest-first walk looks back per 20 wanted hits
# Every hit row ends with its session's parent (when that row exists) and the parent's parent:
# a lineage of depth ≤ 1, the usual case, needs no further walk to find its root.
# Text another program wrote may be a BLOB or not UTF-8: role and title come back as bytes and
# ``run_search`` decodes them (a title that is not text is no title, as in a listing).
HIT_COLUMNS = (f"m.session_id, {as_bytes('m.role')}, m.timestamp, "
               f"CASE WHEN typeof(s.title) = 'text' THEN {as_bytes('s.title')} END, p.id, p.parent_session_id")
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


def _text_literal(text: str) -> str:
    """An SQL text literal that may hold NUL (SQLite's quoted strings and text functions stop at one)."""
    return f"CAST(X'{text.encode().hex()}' AS TEXT)"


# The raw cell of a structured row (upstream's ``\x00json:`` text), else NULL: its snippet is
# made from the decoded text, because an index filled by upstream's triggers holds the JSON.
# A byte range, not substr(): SQLite's text functions see nothing after the prefix's NUL.
_PREFIX_END = JSON_PREFIX[:-1] + chr(ord(JSON_PREFIX[-1]) + 1)
STRUCTURED_RAW = as_bytes(
    f"CASE WHEN m.content >= {_text_literal(JSON_PREFIX)} AND m.content < {_text_literal(_PREFIX_END)}"
    " THEN m.content END"
)

# No ``rank`` column in the output: selecting it makes FTS5 compute bm25 a second time per row.
# WORD: FTS5's snippet() (cheap over unicode61 tokens, and it knows tokenization, diacritics and
# prefixes). TRIGRAM: snippet() would re-tokenize each hit into trigrams, which costs more than
# the query itself, so the stored text comes back as it does in a bare query and the window is
# cut in Python (a trigram match is a case-insensitive substring, which a regex finds exactly).
# Either comes back as bytes: the index holds a BLOB content's bytes as they are, UTF-8 or not.
_FTS_SELECT = {
    route: f"""
SELECT {table}.rowid, {as_bytes(text)}, {STRUCTURED_RAW}, {HIT_COLUMNS}
FROM {table} CROSS JOIN messages m ON m.id = {table}.rowid CROSS JOIN sessions s ON s.id = m.session_id {PARENT_JOIN}
WHERE {table} MATCH ?{{where}}
ORDER BY {{order}} LIMIT ?"""
    for route, table, text in (
        (Route.WORD, "messages_fts", f"snippet(messages_fts, 0, '{MATCH_START}', '{MATCH_END}', '…', 16)"),
        (Route.TRIGRAM, "messages_fts_trigram", "messages_fts_trigram.content"),
    )
}


_FTS_TABLE = {Route.WORD: "messages_fts", Route.TRIGRAM: "messages_fts_trigram"}


def _fts_rows(
    conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, where: str, params: list[Any], newest_first: bool
) -> list:
    table = _FTS_TABLE[parsed.route]
    order = f"{table}.rowid DESC" if newest_first else f"{table}.rank"
    sql = _FTS_SELECT[parsed.route].format(where=where, order=order)
    return conn.execute(sql, (parsed.match_expression(), *params, limit)).fetchall()


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


def _snippet(parsed: ParsedQuery, text: str | None, structured_raw: str | None) -> str:
    """What a hit shows: structured content as its text and markers, never its JSON or base64."""
    needles = [t.text.lower() for t in parsed.terms if t.op != "NOT"]
    if structured_raw is not None:
        return make_snippet(content_text(decode_content(structured_raw)), needles)
    if parsed.route is Route.WORD:
        return text or ""  # already FTS5's snippet()
    return make_snippet((text or "").rstrip(), needles)  # the index text ends in padding


def _or_groups(terms: tuple[Term, ...]) -> list[list[Term]]:
    """The terms split at each OR: as in FTS5, AND and NOT bind tighter (``a b OR c`` = ``(a b) OR c``)."""
    groups: list[list[Term]] = []
    for term in terms:
        if term.op == "OR" or not groups:
            groups.append([term])
        else:
            groups[-1].append(term)
    return groups


def _joined(groups: list[list[Term]], test: Callable[[Term], str]) -> str:
    """The groups' tests joined as the query joins its terms (AND within a group, OR between)."""
    return " OR ".join("(" + " AND ".join(test(t) for t in group) + ")" for group in groups)


def _check_sql(groups: list[list[Term]], column: str = "t.content") -> tuple[str, list[str]]:
    """The whole query as ``instr`` tests over ``column`` (the indexed text), with their parameters.

    ``lower()`` (a copy of every row's text) only for terms with case.
    """
    def test(term: Term) -> str:
        text = column if term.text.lower() == term.text.upper() else f"lower({column})"
        return f"instr({text}, ?) {'=' if term.op == 'NOT' else '>'} 0"

    return _joined(groups, test), [t.text.lower() for group in groups for t in group]


def _like_sql(groups: list[list[Term]], column: str) -> tuple[str, list[str]]:
    """The same tests as ``_check_sql`` written as ``LIKE`` (SQLite folds ASCII case only, in
    ``LIKE`` as in ``lower()``), which makes no lowered copy of each row: over 10,000 titles 3.6 ms
    instead of 5.5, a scan that runs on every keystroke of a search."""
    def test(term: Term) -> str:
        return f"{column} {'NOT ' if term.op == 'NOT' else ''}LIKE ? ESCAPE '\\'"

    def pattern(text: str) -> str:
        return "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

    return _joined(groups, test), [pattern(t.text) for group in groups for t in group]


# ``t`` is the trigram index's own text: what the triggers (or ``insert_message``) indexed, so
# structured rows are tested on their text parts, never on their JSON.
_SHORT_SELECT = f"""
SELECT m.id, {as_bytes('t.content')}, {STRUCTURED_RAW}, {HIT_COLUMNS}
FROM {{source}} CROSS JOIN messages m ON m.id = cand.id CROSS JOIN messages_fts_trigram t ON t.rowid = m.id
CROSS JOIN sessions s ON s.id = m.session_id {PARENT_JOIN}
WHERE ({{checks}}){{where}}
ORDER BY m.timestamp DESC, m.id DESC LIMIT ?"""


_WALK_SELECT = f"""
SELECT m.id, {as_bytes('t.content')}, {STRUCTURED_RAW}, {HIT_COLUMNS}
FROM messages m CROSS JOIN messages_fts_trigram t ON t.rowid = m.id
CROSS JOIN sessions s ON s.id = m.session_id {PARENT_JOIN}
WHERE m.timestamp >= (SELECT timestamp FROM messages ORDER BY timestamp DESC LIMIT 1 OFFSET ?)
  AND ({{checks}}){{where}}
ORDER BY m.timestamp DESC, m.id DESC LIMIT ?"""


def _short_rows(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, where: str, params: list[Any]) -> list:
    """Newest matches first. A common term is found among the newest messages (RECENT_WINDOW
    of them per 20 hits wanted); a rarer one is looked up through the trigram vocabulary (cost
    grows with its occurrences)."""
    groups = _or_groups(parsed.terms)
    checks, check_params = _check_sql(groups)
    # Walk the timestamp index newest first (stopping at ``limit`` matches), no further back
    # than the window's newest messages (wider for a longer page).
    walk = _WALK_SELECT.format(checks=checks, where=where)
    window = RECENT_WINDOW * max(1, limit // 20)
    rows = conn.execute(walk, [window - 1, *check_params, *params, limit]).fetchall()
    if len(rows) < limit:
        rows = _vocab_rows(conn, groups, limit, where, params)
    return rows


def _vocabulary_terms(terms: list[Term]) -> tuple[str, list[str]]:
    """Messages holding every one of ``terms`` (1–2 characters), from the trigram vocabulary."""
    sql = " INTERSECT ".join(f"SELECT DISTINCT doc FROM {VOCAB} WHERE term >= ? AND term < ?" for _ in terms)
    return sql, [v for t in terms for v in (t.text.lower(), t.text.lower() + MAX_CHAR)]


def _group_candidates(group: list[Term]) -> tuple[str, list[str]] | None:
    """Messages that can match one OR group, from the cheapest index read its terms allow.

    First its 1–2 character CJK terms (the vocabulary), else its longer terms (one trigram
    MATCH), else its 2-character others ("CI": a vocabulary read, but a long one). None when
    nothing narrows it: a 1-character Latin term can end the indexed text's tool name, where
    no trigram starts with it.
    """
    positive = [t for t in group if t.op != "NOT"]
    short_cjk = [t for t in positive if has_cjk(t.text) and len(t.text) < TRIGRAM_MIN]
    if short_cjk:
        return _vocabulary_terms(short_cjk)
    longer = [t for t in positive if len(t.text) >= TRIGRAM_MIN]
    if longer:
        match = " ".join(t.fts(allow_prefix=False) for t in longer)
        return "SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?", [match]
    pairs = [t for t in positive if len(t.text) == 2]
    return _vocabulary_terms(pairs) if pairs else None


def _candidates(groups: list[list[Term]]) -> tuple[str, list[str]]:
    """The union of the OR groups' candidates; every message when a group has nothing to narrow it."""
    selects: list[str] = []
    params: list[str] = []
    for group in groups:
        found = _group_candidates(group)
        if found is None:
            return "SELECT id FROM messages", []
        selects.append(found[0])
        params.extend(found[1])
    if len(selects) == 1:
        return selects[0], params
    return " UNION ".join(f"SELECT * FROM ({sql})" for sql in selects), params


def _vocab_rows(conn: sqlite3.Connection, groups: list[list[Term]], limit: int, where: str, params: list[Any]) -> list:
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} USING fts5vocab(main, messages_fts_trigram, instance)"
    )
    candidates, candidate_params = _candidates(groups)
    checks, check_params = _check_sql(groups)
    sql = f"WITH cand(id) AS ({candidates})" + _SHORT_SELECT.format(source="cand", checks=checks, where=where)
    return conn.execute(sql, [*candidate_params, *check_params, *params, limit]).fetchall()


def run_search(
    conn: sqlite3.Connection,
    parsed: ParsedQuery,
    *,
    limit: int,
    source: str | None,
    exclude_session_ids: Collection[str],
    hide_sources: Collection[str],
    newest_first: bool = False,
) -> list[SearchHit]:
    if parsed.route is Route.EMPTY or limit <= 0:
        return []
    where, params = _filters(source, list(exclude_session_ids), list(hide_sources))
    if parsed.route is Route.SHORT:
        rows = _short_rows(conn, parsed, limit, where, params)
    else:
        rows = _fts_rows(conn, parsed, limit, where, params, newest_first)
    deeper = roots_of(conn, {parent for *_, parent, grandparent in rows if grandparent is not None})
    return [_hit(position, row, parsed, deeper) for position, row in enumerate(rows, start=1)]


def _hit(position: int, row: Sequence[Any], parsed: ParsedQuery, deeper: dict[str, str]) -> SearchHit:
    """A hit from a selected row, its cells read leniently: one bad message degrades its hit only."""
    mid, text, raw, sid, role, ts, title, parent, grandparent = row
    when = readable_time(ts)
    return SearchHit(
        session_id=sid, lineage_root=_root(sid, parent, grandparent, deeper), title=cell_text(title), message_id=mid,
        role=cell_text(role) or "", snippet=_snippet(parsed, cell_text(text), cell_text(raw)),
        timestamp=0.0 if when is None else when, rank=position, unreadable=() if when is not None else ("timestamp",),
    )


def title_matches(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int,
                  among: Sequence[str] | None = None) -> list[str]:
    """Ids of the sessions whose title holds the query (each term a case-insensitive substring,
    OR/NOT as in a message search), newest first: a title is often the only place a word is.
    ``among``: only these sessions are looked at (every match is known to be one of them)."""
    if parsed.route is Route.EMPTY or limit <= 0 or (among is not None and not among):
        return []
    checks, params = _like_sql(_or_groups(parsed.terms), "s.title")
    within, ids = ("", []) if among is None else (f"s.id IN ({','.join('?' * len(among))}) AND ", list(among))
    sql = (f"SELECT s.id FROM sessions s WHERE {within}s.title IS NOT NULL AND ({checks}) "
           "ORDER BY s.started_at DESC, s.rowid DESC LIMIT ?")
    return [row[0] for row in conn.execute(sql, [*ids, *params, limit])]


def narrows(query: ParsedQuery, earlier: ParsedQuery) -> bool:
    """Whether every title ``query`` matches is one ``earlier`` matches: both only AND their terms,
    and each earlier term is part of one of the new ones ("kub" then "kube", "deploy" then
    "deploy sta"), as typing a query usually goes. Compared as the ``LIKE`` patterns are made."""
    def texts(parsed: ParsedQuery) -> list[str] | None:
        if parsed.route is Route.EMPTY or any(t.op != "AND" for t in parsed.terms):
            return None
        return [t.text.lower() for t in parsed.terms]

    new, old = texts(query), texts(earlier)
    return new is not None and old is not None and all(any(o in n for n in new) for o in old)


def _root(sid: str, parent: str | None, grandparent: str | None, deeper: dict[str, str]) -> str:
    """The furthest existing ancestor (a missing parent row ends the walk)."""
    if parent is None:
        return sid
    return deeper.get(parent, parent) if grandparent is not None else parent
