"""The built-in ``local`` provider: recall relevant earlier turns from state.db through FTS.

Fully offline. The current lineage is excluded (its turns are already in context), and the
query is the salient words of the user message joined with OR, so a long question still finds
sessions that share a few rare words with it.
"""

from __future__ import annotations

import re
from typing import Any

from engine.recall.base import RecallProvider

_WORD = re.compile(r"[\w\u4e00-\u9fff][\w\u4e00-\u9fff\-\.]{2,}", re.UNICODE)
_STOP = frozenset(
    "the and for with that this from have what when where which about there their would could "
    "should into your you are was were been will just like them then than also does did how why".split()
)
MAX_TERMS = 8
MAX_HITS = 3
SNIPPET_CHARS = 280


def salient_terms(text: str) -> list[str]:
    """Distinct non-stopword terms, longest first (rarer words tend to be longer)."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        word = word.strip(".-")
        if len(word) >= 3 and word not in _STOP:
            seen.setdefault(word, None)
    return sorted(seen, key=lambda w: (-len(w), w))[:MAX_TERMS]


class LocalRecallProvider(RecallProvider):
    name = "local"

    def __init__(self, db: Any) -> None:
        self.db = db
        self.session_id: str | None = None

    def initialize(self, session_id: str | None) -> None:
        self.session_id = session_id

    def on_session_switch(self, old_session_id: str | None, new_session_id: str) -> None:
        self.session_id = new_session_id

    def prefetch(self, query: str) -> str:
        terms = salient_terms(query)
        if not terms:
            return ""
        exclude = self.db.lineage_ids(self.session_id) if self.session_id else []
        hits = self.db.search(" OR ".join(f'"{t}"' for t in terms), limit=MAX_HITS * 4,
                              exclude_session_ids=exclude, hide_sources=("tool", "subagent"))
        lines: list[str] = []
        seen_sessions: set[str] = set()
        for hit in hits:
            if hit.lineage_root in seen_sessions:
                continue
            seen_sessions.add(hit.lineage_root)
            snippet = re.sub(r"\s+", " ", hit.snippet)[:SNIPPET_CHARS]
            lines.append(f"- [{hit.title or hit.session_id}] {hit.role}: {snippet}")
            if len(lines) == MAX_HITS:
                break
        return "Relevant earlier conversations:\n" + "\n".join(lines) if lines else ""
