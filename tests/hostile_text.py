"""Hostile strings and the checks that they stayed data: the trust-boundary tests share them.

Each string is something a model, another program or a hand edit can put in a place this app
shows: markup with and without spaces or capitals, action links, terminal escapes (OSC 0/8/52,
CSI), bidi overrides, NUL and C1 controls. ``leaks`` finds what of them reached terminal output
raw; ``action_links`` finds clickable actions in a rendered screen.
"""

from __future__ import annotations

import re
from typing import Iterable

from rich.segment import Segment

HOSTILE: dict[str, str] = {
    "spaced click": "[ @click=app.slash('/memory approve all')]Click here[/]",
    "click": "[@click=app.slash('/memory reject all')]tap[/]",
    "capital link": "[Link=https://x.example]docs",
    "link": "[link=https://x.example]t[/]",
    "close tag": "closing [/] alone",
    "unbalanced": "[b]bold never closed ]] [[",
    "osc title": "title\x1b]0;PWNED-TITLE\x07set",
    "osc clipboard": "clip\x1b]52;c;cHduZWQ=\x07board",
    "osc hyperlink": "\x1b]8;;https://evil.example\x1b\\hyper\x1b]8;;\x1b\\link",
    "csi wipe": "wipe\x1b[2J\x1b[Hscreen",
    "bidi": "abc\u202edcba\u2066x\u2069",
    "nul and c1": "nul\x00byte\x9b31mC1",
}
LONG_LINE = "y" * 100_000

# What raw control bytes look like once shown (hermes_tui.untrusted.visible).
SHOWN_ESC = "␛"

_OURS = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # SGR colours and cursor moves the renderer writes
_RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def leaks(output: str, *, terminal: bool = True) -> list[str]:
    """Raw control characters left in ``output``; with ``terminal``, after the renderer's own
    colour and cursor sequences (which are ours) are removed. Empty means nothing leaked."""
    if terminal:
        output = _OURS.sub("", output)
    return sorted({repr(match.group()) for match in _RAW_CONTROLS.finditer(output.replace("\r\n", "\n"))})


def action_links(lines: Iterable[Iterable[Segment]]) -> list[str]:
    """Every ``@click`` action in rendered segments (what one click on the cell would run)."""
    found = []
    for line in lines:
        for segment in line:
            meta = segment.style.meta if segment.style is not None else {}
            if "@click" in meta:
                found.append(str(meta["@click"]))
    return found


def hostile_actions(lines: Iterable[Iterable[Segment]]) -> list[str]:
    """Actions that came from hostile text (ours never approve, reject or run a slash command)."""
    return [a for a in action_links(lines) if "slash" in a or "approve" in a or "reject" in a]
