"""A read-only transcript preview, loaded a page at a time as the user scrolls.

A session may hold thousands of messages; the preview reads ``PAGE`` of them in a thread worker
and the next page only when the view nears its end, so selecting a session in a browser costs
one small query whatever its size. ``show(..., focus_message_id=)`` keeps paging until the
matched message is mounted, then scrolls it into view (the search screen uses this).
"""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from engine.store import SessionDB, StoredMessage
from hermes_tui.formatting import utc_text
from hermes_tui.ui_thread import deliver
from hermes_tui.untrusted import visible, visible_line
from hermes_tui.widgets.literal import literal_line

PAGE = 40
MESSAGE_CHARS = 1_500  # a preview, not the full text: very long tool outputs are cut
MARKDOWN_ROLES = ("assistant",)  # as in the chat: the user's own text is shown as typed
FOCUS_PAGES = 50  # how far (in pages) to look for a focused message before giving up
MATCH_STYLE = "bold reverse"


def message_text(message: StoredMessage, marks: re.Pattern[str] | None = None) -> RenderableType:
    """Role and time on one line, then the content (tool calls named, long content cut).

    A reply is drawn as Markdown, the way the chat draws it: Rich's renderer (no markup is parsed
    from it) over the text with its control characters made visible, and links shown as text,
    never as hyperlinks a click would follow. The user's text and tool output stay plain.
    ``marks`` (a matched message): its matches are styled and a long body is cut around the first
    of them, so the match is on screen however far into the message it sits; such a message is
    drawn as plain text, where the marks can be placed exactly.
    """
    head = Text(visible_line(message.role), style="bold")
    if message.tool_name:
        head.append(f" · {visible_line(message.tool_name)}", style="italic")
    head.append(f"  {utc_text(message.timestamp)}", style="dim")
    body = message.text.strip()
    if message.tool_calls:
        names = ", ".join(str(c.get("function", {}).get("name", "?")) for c in message.tool_calls)
        body = f"{body}\n→ calls {names}".strip()
    first = marks.search(body) if marks is not None else None
    start = max(0, first.start() - MESSAGE_CHARS // 3) if first is not None and first.end() > MESSAGE_CHARS else 0
    if start or len(body) > MESSAGE_CHARS:
        body = ("… " if start else "") + body[start : start + MESSAGE_CHARS] + (" …" if start + MESSAGE_CHARS < len(body) else "")
    if not body:
        return Text.assemble(head, "\n", Text("(empty)", style="dim italic"))
    if message.role in MARKDOWN_ROLES and marks is None:
        from rich.markdown import Markdown  # markdown-it: imported when a preview first shows a message

        return Group(head, Markdown(visible(body), code_theme="monokai", hyperlinks=False))
    text = Text(visible(body))
    if marks is not None:
        text.highlight_regex(marks, MATCH_STYLE)
    return Text.assemble(head, "\n", text)


def match_pattern(words: list[str]) -> re.Pattern[str] | None:
    """The matched words (case-insensitive), longest first; ``None`` when there are none."""
    kept = sorted({w for w in words if w.strip()}, key=len, reverse=True)
    return re.compile("|".join(re.escape(w) for w in kept), re.I) if kept else None


class TranscriptPreview(VerticalScroll, can_focus=True):
    """Messages of one session; ``show`` switches session, scrolling near the end loads more."""

    DEFAULT_CSS = """
    TranscriptPreview { padding: 0 1; }
    TranscriptPreview > .preview-message { margin-bottom: 1; }
    TranscriptPreview > .role-user { border-left: tall $accent; padding-left: 1; }
    TranscriptPreview > .role-tool { color: $text-muted; }
    TranscriptPreview > .focused-match { background: $boost; border-left: thick $warning; padding-left: 1; }
    TranscriptPreview > .preview-status { color: $text-muted; text-style: italic; }
    """

    def __init__(self, db: SessionDB, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.db = db
        self.session_id: str | None = None
        self.loaded = 0
        self.exhausted = True
        self._reading = False
        self._generation = 0  # bumped by every ``show``: a page read for an earlier one is dropped
        self.focus_message_id: int | None = None
        self.marks: re.Pattern[str] | None = None

    def show(self, session_id: str | None, *, focus_message_id: int | None = None, title: str = "",
             marks: re.Pattern[str] | None = None) -> None:
        """Replace the content with the first page of ``session_id`` (``None`` clears it); pages
        are read up to ``focus_message_id``, which is scrolled to the top with ``marks`` styled."""
        self.session_id, self.loaded, self.exhausted = session_id, 0, session_id is None
        self.focus_message_id, self.marks = focus_message_id, marks
        self._generation += 1
        self._reading = session_id is not None
        self.border_title = literal_line(title)  # a str border title would be parsed as markup
        self.remove_children()
        if session_id is not None:
            self._load(self._generation, session_id, 0, FOCUS_PAGES if focus_message_id is not None else 1)

    def load_more(self) -> None:
        if self.session_id is not None and not self.exhausted and not self._reading:
            self._reading = True
            self._load(self._generation, self.session_id, self.loaded, 1)

    @work(thread=True, exclusive=True, group="preview")
    def _load(self, generation: int, session_id: str, offset: int, max_pages: int) -> None:
        messages: list[StoredMessage] = []
        full = True
        for page in range(max_pages):
            batch = self.db.get_messages(session_id, offset=offset + len(messages), limit=PAGE)
            messages.extend(batch)
            full = len(batch) == PAGE
            if not full or any(m.id == self.focus_message_id for m in batch):
                break
        deliver(self, self._append, generation, messages, full)

    def _append(self, generation: int, messages: list[StoredMessage], more: bool) -> None:
        if generation != self._generation:
            return  # the user moved on while this page was read
        self._reading = False
        self.query(".preview-status").remove()
        widgets = [self._message_widget(m) for m in messages]
        self.loaded += len(messages)
        self.exhausted = not more
        if not more and self.loaded == 0:
            widgets.append(Static("no messages", classes="preview-status"))
        elif more:
            widgets.append(Static(Content(f"⋯ {self.loaded} shown — scroll for more"), classes="preview-status"))
        self.mount_all(widgets)
        target = next((w for w in widgets if w.has_class("focused-match")), None)
        if target is not None:
            self.call_after_refresh(self.scroll_to_widget, target, top=True, animate=False)

    def _message_widget(self, message: StoredMessage) -> Static:
        classes = f"preview-message role-{message.role}"
        focused = message.id == self.focus_message_id
        if focused:
            classes += " focused-match"
        return Static(message_text(message, self.marks if focused else None), classes=classes, markup=False)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new >= self.max_scroll_y - 2:
            self.load_more()

