"""Human output helpers shared by the commands and the TUI: relative times, aligned tables, snippets,
search hits grouped by conversation.

Widths are terminal cells, not characters, so CJK titles (two cells a character) line up.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

from rich.cells import cell_len
from rich.text import Text

from engine.store.models import MATCH_END, MATCH_START, SearchHit
from hermes_tui.untrusted import visible

_UNITS = ((60, "minute"), (3600, "hour"), (86400, "day"), (7 * 86400, "week"), (30 * 86400, "month"),
          (365 * 86400, "year"))


def relative_time(ts: float | None, now: float) -> str:
    """``"2 hours ago"``, ``"yesterday"``, ``"3 weeks ago"``; ``"—"`` when unknown."""
    if ts is None:
        return "—"
    delta = now - ts
    if delta < 45:
        return "just now"
    if 86400 <= delta < 2 * 86400:
        return "yesterday"
    size, name = _UNITS[0]
    for unit_size, unit_name in _UNITS:
        if delta >= unit_size:
            size, name = unit_size, unit_name
    count = max(1, round(delta / size))
    if count == 1:
        return f"an {name} ago" if name == "hour" else f"a {name} ago"
    return f"{count} {name}s ago"


def utc_text(ts: float | None) -> str:
    """An absolute UTC time for detail views, ``"2026-11-30 14:15 UTC"``."""
    if ts is None:
        return "—"
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def truncate(text: str, width: int) -> str:
    """Cut to ``width`` cells, ending in ``…`` when something was cut."""
    if cell_len(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def _pad(text: str, width: int) -> str:
    return text + " " * (width - cell_len(text))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], max_widths: Sequence[int]) -> str:
    """Left-aligned columns two spaces apart, each cut to its max width; a rule under the header."""
    cut = [[truncate(one_line(cell), w) for cell, w in zip(row, max_widths)] for row in rows]
    widths = [max([cell_len(h), *(cell_len(r[i]) for r in cut)]) for i, h in enumerate(headers)]
    lines = ["  ".join(_pad(h, w) for h, w in zip(headers, widths)).rstrip(), "─" * (sum(widths) + 2 * (len(widths) - 1))]
    lines.extend("  ".join(_pad(c, w) for c, w in zip(row, widths)).rstrip() for row in cut)
    return "\n".join(lines)


def snippet_text(snippet: str, style: str = "bold reverse") -> Text:
    """A store snippet as Rich text with its matches styled (the TUI and a terminal use this).

    The snippet is stored text: its control characters are shown, not written.
    """
    text = Text()
    rest = visible(snippet)
    while MATCH_START in rest:
        before, _, tail = rest.partition(MATCH_START)
        match, _, rest = tail.partition(MATCH_END)
        text.append(before)
        text.append(match, style=style)
    text.append(rest)
    return text


def snippet_plain(snippet: str, mark: tuple[str, str] = ("**", "**")) -> str:
    """The snippet for plain output (a pipe or file): matches wrapped in ``mark``."""
    return one_line(snippet.replace(MATCH_START, mark[0]).replace(MATCH_END, mark[1]))


def group_by_lineage(hits: list[SearchHit]) -> dict[str, list[SearchHit]]:
    """Groups in order of their best hit; hits keep their order inside a group."""
    groups: dict[str, list[SearchHit]] = {}
    for hit in hits:
        groups.setdefault(hit.lineage_root, []).append(hit)
    return groups
