"""Turning a person's search text into a safe FTS5 query and choosing the index that can serve it.

No user text reaches FTS5 unquoted: every term becomes a quoted string, so characters such as
``(``, ``:``, ``+`` or a stray ``"`` cannot raise a syntax error. What survives as syntax is what
people mean: balanced ``"phrases"``, ``OR``, ``NOT``, implicit AND and a trailing ``prefix*``.

Routing: the word index (unicode61) cannot find CJK text inside a run of characters, so any
CJK term sends the query to the trigram index; a term shorter than three characters cannot be
served by trigrams at all and takes the short-term path (see ``search.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from engine.store.messages import clean_text

MAX_TERMS = 64  # a 10 kB paste still becomes a bounded query
OPERATORS = ("AND", "OR", "NOT")
_ITEM = re.compile(r'"([^"]*)"(\*?)|(\S+)')
_WORDISH = re.compile(r"\w")
_CJK = re.compile(
    "[\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)
TRIGRAM_MIN = 3


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


class Route(Enum):
    EMPTY = "empty"
    WORD = "word"  # messages_fts (unicode61)
    TRIGRAM = "trigram"  # messages_fts_trigram
    SHORT = "short"  # CJK terms of 1–2 characters: no index term is that short


@dataclass(frozen=True)
class Term:
    text: str
    phrase: bool = False
    prefix: bool = False
    op: str = "AND"  # how the term joins the ones before it: AND, OR or NOT

    def fts(self, allow_prefix: bool = True) -> str:
        quoted = '"' + self.text.replace('"', '""') + '"'
        star = "*" if self.prefix and allow_prefix else ""
        return quoted + star


@dataclass(frozen=True)
class ParsedQuery:
    terms: tuple[Term, ...]
    route: Route

    def match_expression(self) -> str:
        """The FTS5 MATCH text for the WORD and TRIGRAM routes."""
        trigram = self.route is Route.TRIGRAM
        parts: list[str] = []
        for term in self.terms:
            if parts and term.op != "AND":
                parts.append(term.op)
            parts.append(term.fts(allow_prefix=not trigram))
        return " ".join(parts)


def _split_items(text: str) -> list[Term | str]:
    if text.count('"') % 2:
        cut = text.rfind('"')
        text = text[:cut] + " " + text[cut + 1 :]
    items: list[Term | str] = []
    for match in _ITEM.finditer(text):
        phrase, phrase_star, bare = match.groups()
        if bare is None:
            items.append(Term(" ".join(phrase.split()), phrase=True, prefix=bool(phrase_star)))
        elif bare in OPERATORS:
            items.append(bare)
        else:
            items.append(Term(bare.replace("*", " ").strip(), prefix=bare.endswith("*")))
    return items


def _join_operators(items: list[Term | str]) -> list[Term]:
    terms: list[Term] = []
    pending = "AND"
    for item in items:
        if isinstance(item, str):
            pending = item
            continue
        if not _WORDISH.search(item.text):
            continue  # nothing an index could match ("*", "++", "(")
        op = pending if terms else "AND"  # a leading operator has nothing to apply to
        terms.append(Term(item.text, item.phrase, item.prefix, op))
        pending = "AND"
    return terms[:MAX_TERMS]


def parse_query(text: str) -> ParsedQuery:
    """Parse and route; never raises, an unusable query becomes ``Route.EMPTY``.

    Lone surrogates (a non-UTF-8 argument) become U+FFFD, as they are stored: SQLite cannot bind them.
    """
    terms = _join_operators(_split_items(clean_text(text)))
    if not terms:
        return ParsedQuery((), Route.EMPTY)
    cjk_terms = [t for t in terms if has_cjk(t.text)]
    if not cjk_terms:
        return ParsedQuery(tuple(terms), Route.WORD)
    if any(len(t.text) < TRIGRAM_MIN for t in cjk_terms):
        return ParsedQuery(tuple(terms), Route.SHORT)
    # Trigrams match nothing shorter than three characters: such terms ("CI") are dropped.
    kept = [t for t in terms if len(t.text) >= TRIGRAM_MIN]
    if kept and kept[0].op != "AND":
        kept[0] = Term(kept[0].text, kept[0].phrase, kept[0].prefix, "AND")
    return ParsedQuery(tuple(kept), Route.TRIGRAM)
