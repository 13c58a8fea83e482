"""Untrusted text made safe to put on a terminal: every control character visible.

Whatever the model, ``state.db``, memory files, pending records, titles, config or theme files
hold can carry terminal escapes (OSC 0 retitles the window, OSC 52 writes the clipboard,
``ESC[2J`` wipes the screen), bidi overrides that reorder what is read, or lone surrogates that
cannot be encoded at all. ``visible`` turns each into something a person can see, the way a
pager shows ``^[``: C0 controls become the Unicode control pictures (``␛``, ``␇``, ``␀``),
C1 controls and bidi overrides their escape (``\\x9b``, ``\\u202e``), a lone surrogate
``�``. Newlines and tabs stay; a CRLF becomes a newline.

This module is pure Python so the command line uses it without loading Textual; the app's
widgets use it through ``hermes_tui.widgets.literal``, which also keeps the text from being
parsed as markup. The ``--json`` outputs keep the exact stored text.
"""

from __future__ import annotations

import re
from typing import TextIO

DELETE_PICTURE = "\u2421"  # ␡
REPLACEMENT = "\ufffd"
_BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))


def _translation() -> dict[int, str]:
    table = {c: chr(0x2400 + c) for c in range(0x20) if chr(c) not in "\n\t"}
    table[0x7F] = DELETE_PICTURE
    table.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})
    table.update({c: f"\\u{c:04x}" for c in _BIDI_CONTROLS})
    table.update({c: REPLACEMENT for c in range(0xD800, 0xE000)})
    return table


_TABLE = _translation()
_LINE_BREAKS = re.compile(r"[\n\t]+")
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def visible(text: str) -> str:
    """``text`` with every control character shown instead of obeyed (see the module docstring)."""
    if not _UNSAFE.search(text):
        return text
    return text.replace("\r\n", "\n").translate(_TABLE)


def visible_line(text: str) -> str:
    """``visible`` on one line (titles, list rows): each run of newlines and tabs becomes a space."""
    return _LINE_BREAKS.sub(" ", visible(text))


class VisibleWriter:
    """A text stream that shows control characters instead of writing them (human CLI output).

    The command line prints data it did not write (replies, titles, entries, snippets); wrapping
    stdout and stderr once, where the command is dispatched, makes that true of every print.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(visible(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", "utf-8")


def styled_stream(stream: TextIO) -> TextIO:
    """The stream under a ``VisibleWriter``, for a writer of its own escapes (Rich's styles).

    Whoever writes there makes its data visible first (``formatting.snippet_text`` does).
    """
    return stream.stream if isinstance(stream, VisibleWriter) else stream
