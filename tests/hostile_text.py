"""Hostile strings and the checks that they stayed data: the trust-boundary tests share them.

Each string is something a model, another program or a hand edit can put in a place this app
shows: markup with and without spaces or capitals, action links, terminal escapes (OSC 0/8/52,
CSI), bidi overrides, NUL and C1 controls, a Markdown link. ``leaks`` finds what of them reached
terminal output raw; ``action_links`` finds clickable actions in a rendered screen.

The corpus's CSI sequences are ones the renderer never writes (``ESC[2J``, a bare ``ESC[H``, an
SGR with the unused parameter 7777): a terminal frame is full of the renderer's own ``ESC[…m``
and ``ESC[y;xH``, so a raw hostile CSI is recognised by its exact text, not by its shape.
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
    "csi sentinel": "red\x1b[7777mcolour\x1b[7777;1Hmove",
    "markdown link": "See [the docs](https://evil.example/x) now",
}
LONG_LINE = "y" * 100_000
# A lone carriage return (a terminal moves back to the line's start and overwrites it). Not in
# HOSTILE: memory files read it as a line break, as they do a CRLF (engine.memory.files), so the
# corpus's "stored bytes stay exact" checks could not hold for it. Messages, titles and pending
# records keep it; ``visible`` shows it as ``␍``.
LONE_CR = "over\rwritten"

# What raw control bytes look like once shown (hermes_tui.untrusted.visible).
SHOWN_ESC = "␛"

_OURS = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # SGR colours and cursor moves the renderer writes
_RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # \r included
_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x9b[0-9;?]*[ -/]*[@-~]")
# Every escape sequence the corpus holds, exactly as written: found raw in any output, it leaked.
HOSTILE_SEQUENCES: tuple[str, ...] = tuple(sorted({seq for value in HOSTILE.values() for seq in _SEQUENCE.findall(value)}))


def leaks(output: str, *, terminal: bool = True) -> list[str]:
    """What of the corpus or of any control character reached ``output`` raw; empty means
    nothing leaked. Each of the corpus's escape sequences is looked for as it is written; then,
    with ``terminal``, the renderer's own colour and cursor sequences (which are ours) are
    removed and any control character left (ESC, a lone CR, C1, bidi) is one that leaked."""
    found = {repr(seq) for seq in HOSTILE_SEQUENCES if seq in output}
    if terminal:
        output = _OURS.sub("", output)
    found |= {repr(match.group()) for match in _RAW_CONTROLS.finditer(output.replace("\r\n", "\n"))}
    return sorted(found)


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
