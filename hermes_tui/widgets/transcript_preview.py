"""A read-only transcript preview: a window of a session's messages, grown as the user scrolls.

A session may hold thousands of messages; the preview reads ``PAGE`` of them in a thread worker,
and the page before or after the loaded run only when the view comes within its own height of
that end, so selecting a session in a browser costs one small query whatever its size.
``show(..., focus_message_id=)`` opens the window at the matched message, however deep in the
session it sits (the search screen uses this), and scrolls it to the top of the view.
"""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text
from textual import work
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import AwaitMount
from textual.widgets import Static

from engine.store import SessionDB, StoredMessage
from hermes_tui.formatting import utc_text
from hermes_tui.ui_thread import deliver
from hermes_tui.untrusted import visible, visible_line
from hermes_tui.widgets.literal import literal_line

PAGE = 16  # about what fills a preview (a message takes three rows or more): more is read on scrolling
MESSAGE_CHARS = 1_500  # a preview, not the full text: very long tool outputs are cut
MARKDOWN_ROLES = ("assistant",)  # as in the chat: the user's own text is shown as typed
CONTEXT = 2  # messages read above a focused one at first; the page above follows once it is drawn
RENDERED_KEPT = 512  # messages whose renderable a preview keeps (a Markdown reply is parsed once)
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


class RenderedOnce:
    """A renderable drawn once per width, its segments replayed after that.

    Textual renders a ``Static``'s content to measure its height and again to paint it, and does
    both on every layout of the preview (each page mounted, each resize), so a page of Markdown
    replies was parsed and laid out by Rich several times for one selection. Plain text is not
    wrapped: Textual measures a ``Text`` without rendering it. The widget's own style is applied
    around these segments, so a theme switch still shows.
    """

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._segments: dict[int, list[Segment]] = {}  # width → segments, lines ended by "\n"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        segments = self._segments.get(options.max_width)
        if segments is None:
            segments = self._segments[options.max_width] = list(console.render(self.renderable, options))
        yield from segments

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)



def match_pattern(words: list[str]) -> re.Pattern[str] | None:
    """The matched words (case-insensitive), longest first; ``None`` when there are none."""
    kept = sorted({w for w in words if w.strip()}, key=len, reverse=True)
    return re.compile("|".join(re.escape(w) for w in kept), re.I) if kept else None


class TranscriptPreview(VerticalScroll, can_focus=True):
    """Messages ``first``…``end`` (offsets in the session) of one session; ``show`` switches
    session, scrolling near either end of the loaded run reads the next page there."""

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
        self.first = self.end = 0
        self.more_after = False
        self._reading = False
        self._generation = 0  # bumped by every ``show``: a page read for an earlier one is dropped
        self.focus_message_id: int | None = None
        self.marks: re.Pattern[str] | None = None
        self._above = self._below = Static("")  # replaced by ``show``
        self._title = ""
        self._cleared = False  # ``show(None)`` has emptied it and nothing was shown since
        self._held = False  # ``abandon``: what is shown stays as it is, no page is read, until ``show``
        self._rendered: dict[tuple[int, str | None], RenderableType] = {}  # one store: ids are stable

    @property
    def loaded(self) -> int:
        return self.end - self.first

    def show(self, session_id: str | None, *, focus_message_id: int | None = None, title: str = "",
             marks: re.Pattern[str] | None = None) -> None:
        """Replace the content with the first page of ``session_id`` (``None`` clears it), or the
        page around ``focus_message_id``, which is scrolled to the top with ``marks`` styled."""
        self.session_id, self.first, self.end, self.more_after = session_id, 0, 0, False
        self.focus_message_id, self.marks = focus_message_id, marks
        self._generation += 1
        self._reading = session_id is not None
        self._held = False
        self._title = literal_line(title)  # a str border title would be parsed as markup
        if session_id is None and self._cleared:
            self._set_title()  # already empty: typing a query with no hits mounts nothing
        elif session_id is None:
            self._replace_content([])
            self._cleared = True
        else:  # the shown session stays until the new one's first page replaces it, in one frame
            self._cleared = False
            self._open(self._generation, session_id, focus_message_id)

    def _replace_content(self, widgets: list[Static]) -> AwaitMount:
        """The title of the latest ``show`` over ``widgets`` between fresh status lines: what lies
        beyond the loaded run, above and below it (later pages are mounted between the two)."""
        self._set_title()
        self.remove_children()
        self._above, self._below = (Static("", classes="preview-status") for _ in range(2))
        self._above.display = self._below.display = False
        return self.mount(self._above, *widgets, self._below)

    @property
    def held(self) -> bool:
        """Left as it was by ``abandon``: the next ``show`` brings it up to date."""
        return self._held

    def abandon(self) -> None:
        """Drop the page being read, if any: the results it previews are being replaced (a key was
        typed), and mounting it would cost a frame between two keystrokes. What is shown stays,
        and reads no further page (a layout that moves its scroll would) until the next ``show``."""
        self._held = True
        if self._reading:
            self._generation += 1
            self._reading = False
            if not self.loaded:
                self.session_id = None  # nothing of it was shown: a later open reads it again

    def _set_title(self) -> None:
        """Textual repaints a widget whenever its border title is set, even to the same text: a
        repaint of the whole preview per keystroke that finds nothing."""
        if self.border_title != self._title:
            self.border_title = self._title

    @work(thread=True, exclusive=True, group="preview")
    def _open(self, generation: int, session_id: str, focus_message_id: int | None) -> None:
        at = self.db.message_offset(session_id, focus_message_id) if focus_message_id is not None else None
        start = max(0, at - CONTEXT) if at is not None else 0
        deliver(self, self._place, generation, start, self.db.get_messages(session_id, offset=start, limit=PAGE))

    @work(thread=True, exclusive=True, group="preview")
    def _read(self, generation: int, session_id: str, start: int, count: int) -> None:
        deliver(self, self._place, generation, start, self.db.get_messages(session_id, offset=start, limit=count))

    async def _place(self, generation: int, start: int, messages: list[StoredMessage]) -> None:
        """Mount a page read at offset ``start``: the first one, or one just before or after the
        loaded run; once laid out, the focused message is scrolled to the top, or what the user
        was reading stays where it was."""
        if generation != self._generation:
            return  # the user moved on while this page was read
        widgets = [self._message_widget(m) for m in messages]
        target = next((w for w in widgets if w.has_class("focused-match")), None)
        anchor = None
        if not self.loaded:  # the first page: it replaces what the preview showed
            self.first, self.end, self.more_after = start, start + len(messages), len(messages) == PAGE
            self.scroll_home(animate=False, immediate=True)
            await self._replace_content(widgets)
        elif start < self.first:
            anchor = self.children[self.children.index(self._above) + 1]
            offset = self.scroll_y - anchor.virtual_region.y
            self.first = start
            await self.mount_all(widgets, after=self._above)
        else:
            self.end += len(messages)
            self.more_after = len(messages) == PAGE
            await self.mount_all(widgets, before=self._below)
        self._above.display, self._below.display = self.first > 0, self.more_after or not self.loaded
        self._above.update(Content(f"⋯ {self.first} earlier — scroll up for more"))
        self._below.update(Content(f"⋯ {self.end} shown — scroll for more") if self.loaded else "no messages")

        def settle(tries: int = 10) -> None:
            if generation != self._generation:
                return
            if widgets and not widgets[-1].virtual_region.height and tries:
                self.call_after_refresh(settle, tries - 1)  # not laid out yet: the scroll would be clamped
                return
            if target is not None:
                self.scroll_to_widget(target, top=True, animate=False, immediate=True)
            elif anchor is not None:
                self.scroll_to(y=anchor.virtual_region.y + offset, animate=False, immediate=True)
            self._reading = False
            self._near_edges()

        self.call_after_refresh(settle)

    def _near_edges(self) -> None:
        """Within a view's height of either end of the loaded run, read the next page there."""
        if self.session_id is None or self._reading or self._held or not self.is_mounted:
            return
        if self.first > 0 and self.scroll_y < self.size.height:
            start = max(0, self.first - PAGE)
            self._reading = True
            self._read(self._generation, self.session_id, start, self.first - start)
        elif self.more_after and self.scroll_y > self.max_scroll_y - self.size.height:
            self._reading = True
            self._read(self._generation, self.session_id, self.end, PAGE)

    def _message_widget(self, message: StoredMessage) -> Static:
        classes = f"preview-message role-{message.role}"
        focused = message.id == self.focus_message_id
        if focused:
            classes += " focused-match"
        marks = self.marks if focused else None
        key = (message.id, marks.pattern if marks is not None else None)
        if (rendered := self._rendered.pop(key, None)) is None:
            rendered = message_text(message, marks)
            if not isinstance(rendered, Text):  # a Markdown reply: rendered once (plain text is cheap)
                rendered = RenderedOnce(rendered)
        self._rendered[key] = rendered  # newest last
        if len(self._rendered) > RENDERED_KEPT:
            del self._rendered[next(iter(self._rendered))]
        return Static(rendered, classes=classes, markup=False)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._near_edges()
