"""Session titles: what a person can see and type back (``-c TITLE``), numbered within a lineage."""

from __future__ import annotations

import re
import unicodedata

from engine.errors import BadInputError

MAX_TITLE_CHARS = 100
_NUMBERED = re.compile(r"^(.*) #(\d+)$", re.DOTALL)


def sanitize_title(raw: str) -> str:
    """Drop control, zero-width, bidi and other invisible format characters; one line, ≤ 100 chars.

    Invisible characters make two titles look equal while differing (or reorder what is shown),
    so they never reach the database.
    """
    kept = []
    for ch in raw:
        category = unicodedata.category(ch)
        if ch.isspace():
            kept.append(" ")
        elif category not in ("Cc", "Cf", "Co", "Cs", "Cn"):
            kept.append(ch)
    title = " ".join("".join(kept).split())[:MAX_TITLE_CHARS].rstrip()
    if not title:
        raise BadInputError(f"title {raw!r} is empty once control and invisible characters are removed.")
    return title


def split_numbered(title: str) -> tuple[str, int]:
    """``"Base #3"`` → ``("Base", 3)``; an unnumbered title is number 1."""
    match = _NUMBERED.match(title)
    if match and match.group(1):
        return match.group(1), int(match.group(2))
    return title, 1


def numbered(base: str, number: int) -> str:
    """``Base #N``, the base shortened when needed so the result stays within the limit."""
    if number <= 1:
        return base[:MAX_TITLE_CHARS]
    suffix = f" #{number}"
    return base[: MAX_TITLE_CHARS - len(suffix)].rstrip() + suffix


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
