"""How the memory panel fits a narrow side panel: header forms and the split between sections.

Pure arithmetic, so the rules are tested without an app: a header shows the longest of its
forms that fits on one line, and the two sections share the panel's height by what they hold.
"""

from __future__ import annotations

from engine.memory import Usage

MIN_ENTRY_ROWS = 3  # a section squeezed by a long neighbour still shows this many entry rows


def header_forms(title: str, usage: Usage) -> tuple[str, ...]:
    """Longest first: the system prompt's own header, then shorter ones for narrow panels.

    ``MEMORY (your personal notes) [67% — 1,474/2,200 chars]`` → ``MEMORY [67% — 1,474/2,200]``
    → ``MEMORY 67% 1,474/2,200`` → ``MEMORY 67%``.
    """
    name = title.split(" (")[0]
    figures = f"{usage.chars:,}/{usage.limit:,}"
    return (f"{title} [{usage.text}]", f"{name} [{usage.pct}% — {figures}]", f"{name} {usage.pct}% {figures}",
            f"{name} {usage.pct}%")


def fitting(forms: tuple[str, ...], width: int) -> str:
    """The first form no wider than ``width`` (the shortest when none is)."""
    return next((form for form in forms if len(form) <= width), forms[-1])


def share_rows(available: int, needs: tuple[int, int], fixed: tuple[int, int]) -> tuple[int, int]:
    """Heights of the two sections, given the rows each needs to show everything (``needs``) and
    the rows each spends before its first entry (``fixed``: header, bar, notes).

    When both fit, each gets what it needs and the second the rest. Otherwise a section needing
    no more than half keeps all it needs and the other scrolls in the rest; when both need more
    than half they get half each. Neither drops below its fixed rows plus ``MIN_ENTRY_ROWS``.
    """
    first, second = needs
    if first + second <= available:
        return first, max(second, available - first)
    half = available // 2
    if first <= half:
        top = first
    elif second <= available - half:
        top = available - second
    else:
        top = half
    top = max(top, min(first, fixed[0] + MIN_ENTRY_ROWS))
    bottom = max(available - top, min(second, fixed[1] + MIN_ENTRY_ROWS))
    return top, bottom


def whole_entries(rows: int, entry_heights: list[int]) -> int:
    """The rows of the leading entries that fit in ``rows`` whole (all ``rows`` when even the first
    does not fit), so a section that scrolls ends on an entry's last line, not in the middle of one."""
    used = 0
    for height in entry_heights:
        if used + height > rows:
            break
        used += height
    return used or rows
