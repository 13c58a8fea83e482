"""One search hit in its own session: the transcript scrolled to the matched message, the match marked.

The search results' ``enter`` opens it over the results; ``c`` (or ``enter`` again) continues the
conversation from its lineage tip (the search screen then hands the hit to the app, which resumes
the tip), ``escape`` goes back to the results as they were. The session shown is the one that
holds the match, which in a compressed conversation is often not the tip the chat resumes.
"""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from engine.store import MATCH_END, MATCH_START, SessionDB
from hermes_tui.screens.styled_once import StyledOnceScreen
from hermes_tui.widgets.footer import CoalescingFooter
from hermes_tui.widgets.literal import literal_line
from hermes_tui.widgets.transcript_preview import TranscriptPreview, match_pattern

_MARKED = re.compile(re.escape(MATCH_START) + "(.*?)" + re.escape(MATCH_END), re.DOTALL)


def matched_words(snippet: str) -> list[str]:
    """What the store marked as matching in a hit's snippet."""
    return _MARKED.findall(snippet)


class HitView(StyledOnceScreen[bool]):
    """Dismisses with ``True`` to continue from the lineage tip, ``False`` to go back."""

    DEFAULT_CSS = """
    HitView { layout: vertical; }
    HitView > #hit-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    HitView > TranscriptPreview { height: 1fr; border: round $secondary; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back to results"),
        Binding("c,enter", "continue", "Continue from the tip"),
    ]

    def __init__(self, db: SessionDB, session_id: str, message_id: int, *, title: str, snippet: str) -> None:
        super().__init__()
        self.db = db
        self.session_id, self.message_id = session_id, message_id
        self.session_title, self.snippet = title, snippet

    def compose(self) -> ComposeResult:
        yield Static(literal_line(f"Search hit in “{self.session_title}” ({self.session_id})"), id="hit-title")
        yield TranscriptPreview(self.db, id="hit-transcript")
        yield CoalescingFooter()

    @property
    def transcript(self) -> TranscriptPreview:
        return self.query_one(TranscriptPreview)

    def on_mount(self) -> None:
        self.transcript.show(self.session_id, focus_message_id=self.message_id, title=self.session_title,
                             marks=match_pattern(matched_words(self.snippet)))
        self.transcript.focus()

    def action_back(self) -> None:
        self.dismiss(False)

    def action_continue(self) -> None:
        self.dismiss(True)
