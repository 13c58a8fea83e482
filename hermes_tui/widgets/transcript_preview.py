"""A read-only transcript preview: a window of a session's messages, grown as the user scrolls.

A session may hold thousands of messages; the preview reads ``PAGE`` of them in a thread worker,
and the page before or after the loaded run only when the view comes within its own height of
that end, so selecting a session in a browser costs one small query whatever its size.
``show(..., focus_message_id=)`` opens the window at the matched message, however deep in the
session it sits (the search screen uses this), and scrolls it to the top of the view.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual import work
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize

from engine.store import SessionDB, StoredMessage
from hermes_tui.formatting import utc_text
from hermes_tui.ui_thread import deliver
from hermes_tui.untrusted import visible, visible_line
from hermes_tui.widgets.literal import literal_line

PAGE = 16  # about what fills a preview (a message takes three rows or more): more is read on scrolling
MESSAGE_CHARS = 1_500  # a preview, not the full text: very long tool outputs are cut
MARKDOWN_ROLES = ("assistant",)  # as in the chat: the user's own text is shown as typed
CONTEXT = 2  # messages read above a focused one at first; the page above follows once it is drawn
RENDERED_KEPT = 512  # messages whose lines a preview keeps (a Markdown reply is rendered once per width)
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



@dataclass
class Layout:
    """The loaded run drawn as lines at one width and look: what ``render_line`` hands out."""

    key: tuple[int, VisualStyle] | None = None  # the width and style the lines were drawn at
    full: int = 0  # the content width the view had (the lines are narrower under a scrollbar)
    lines: list[Strip] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # where each loaded message's lines begin


class TranscriptPreview(ScrollView, can_focus=True):
    """Messages ``first``…``end`` (offsets in the session) of one session; ``show`` switches
    session, scrolling near either end of the loaded run reads the next page there.

    One widget drawing its own lines, not a widget per message: a page placed costs its new
    messages' rendering and one frame, with no widgets to mount, style and lay out (which took
    most of a selection's time). A message's lines are kept per width and look, so paging and
    scrolling render nothing twice.
    """

    COMPONENT_CLASSES = {"preview--user-bar", "preview--tool", "preview--focused", "preview--focused-bar",
                         "preview--status"}
    DEFAULT_CSS = """
    TranscriptPreview { padding: 0 1; overflow-x: hidden; }
    TranscriptPreview > .preview--user-bar { color: $accent; }
    TranscriptPreview > .preview--tool { color: $text-muted; }
    TranscriptPreview > .preview--focused { background: $boost; }
    TranscriptPreview > .preview--focused-bar { color: $warning; }
    TranscriptPreview > .preview--status { color: $text-muted; text-style: italic; }
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
        self._title = ""
        self._cleared = False  # ``show(None)`` has emptied it and nothing was shown since
        self._held = False  # ``abandon``: what is shown stays as it is, no page is read, until ``show``
        self._messages: list[StoredMessage] = []  # what is drawn: the loaded run, or the last one
        self._status: tuple[str | None, str | None] = (None, None)  # the lines above and below it
        self._drawn: dict[tuple[int, bool, str | None], tuple[object, list[Strip]]] = {}  # newest last
        self._layout = Layout()
        self._anchor: tuple[int, int] | None = None  # the view's top as ``_top`` says, kept for a resize

    @property
    def loaded(self) -> int:
        return self.end - self.first

    @property
    def messages(self) -> list[StoredMessage]:
        """The messages drawn, in order (those of the last session shown until a new page is in)."""
        return list(self._messages)

    @property
    def focused_message(self) -> StoredMessage | None:
        """The message ``show`` focused, once its page is drawn."""
        return next((m for m in self._messages if m.id == self.focus_message_id and self.loaded), None)

    @property
    def status_lines(self) -> list[str]:
        """The notes drawn above and below the messages ("⋯ 16 earlier…", "no messages")."""
        return [line for line in self._status if line is not None]

    def message_lines(self, message_id: int) -> list[Strip]:
        """The lines a loaded message is drawn as, at the current width."""
        index = next(i for i, m in enumerate(self._messages) if m.id == message_id)
        starts, lines = self._layout.starts, self._layout.lines
        end = starts[index + 1] if index + 1 < len(starts) else len(lines) - (self._status[1] is not None)
        return lines[starts[index] : end - 1]  # without the blank line after it

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
        if session_id is None:
            self._set_title()
            if not self._cleared:  # once: a query with no hits after another draws nothing
                self._messages, self._status = [], (None, None)
                self._redraw(None)
                self._cleared = True
        else:  # the shown session and its title stay until the new one's first page replaces them
            self._cleared = False
            self._open(self._generation, session_id, focus_message_id)

    @property
    def held(self) -> bool:
        """Left as it was by ``abandon``: the next ``show`` brings it up to date."""
        return self._held

    def abandon(self) -> None:
        """Drop the page being read, if any: the results it previews are being replaced (a key was
        typed), and drawing it would cost a frame between two keystrokes. What is shown stays,
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

    def _place(self, generation: int, start: int, messages: list[StoredMessage]) -> None:
        """Draw a page read at offset ``start``: the first one, or one just before or after the
        loaded run. The focused message is scrolled to the top, or what the user was reading
        stays where it was."""
        if generation != self._generation:
            return  # the user moved on while this page was read
        top = self._top()
        if not self.loaded:  # the first page: it replaces what the preview showed
            self.first, self.end, self.more_after = start, start + len(messages), len(messages) == PAGE
            self._messages, top = list(messages), None
            self._set_title()
        elif start < self.first:
            self.first = start
            self._messages[:0] = messages
            top = (top[0] + len(messages), top[1]) if top is not None else (len(messages), 0)
        else:
            self.end += len(messages)
            self.more_after = len(messages) == PAGE
            self._messages.extend(messages)
        self._status = (f"⋯ {self.first} earlier — scroll up for more" if self.first else None,
                        f"⋯ {self.end} shown — scroll for more" if self.more_after
                        else None if self.loaded else "no messages")
        focused = next((i for i, m in enumerate(messages) if m.id == self.focus_message_id), None)
        self._redraw(top if top is not None else (focused, 0) if focused is not None else None)
        self._reading = False
        self._near_edges()

    def _top(self) -> tuple[int, int] | None:
        """The message at the top of the view, and how many of its lines are scrolled past."""
        starts = self._layout.starts
        at = bisect_right(starts, round(self.scroll_y)) - 1
        return (at, round(self.scroll_y) - starts[at]) if at >= 0 else None

    def _redraw(self, top: tuple[int, int] | None) -> None:
        """Draw the loaded run at the width it will be shown at, size the scroll to it, and put
        message ``top[0]`` at the top of the view, ``top[1]`` of its lines scrolled past (the
        start of the run when ``None``). Before the first layout nothing is drawn: the first
        size (``on_resize``) draws it.

        Under a vertical scrollbar the lines are a column narrower; the scrollbar shows when they
        are more than the view holds, so they are drawn narrow first and again at full width only
        when they fit."""
        full = self.content_region.width
        if not full:
            self._layout, self._anchor = Layout(), top
            return
        self._layout = self._laid_out(max(1, full - self.styles.scrollbar_size_vertical), full)
        if len(self._layout.lines) <= self.content_region.height:
            self._layout = self._laid_out(full, full)
        size = Size(self._layout.key[0], len(self._layout.lines))
        if size != self.virtual_size:
            # Sized without a layout of the screen (a virtual size's own refresh lays it all out,
            # about half of a page's frame); a scrollbar that comes or goes still lays it out.
            self.set_reactive(TranscriptPreview.virtual_size, size)
            self._scroll_update(size)
        y = self._layout.starts[top[0]] + top[1] if top is not None else 0
        # forced: the scrollbar these lines need is not shown until the next layout
        self.scroll_to(y=y, animate=False, force=True)
        self._anchor = self._top()
        self.refresh()

    def _laid_out(self, width: int, full: int) -> Layout:
        lines: list[Strip] = []
        starts: list[int] = []
        above, below = self._status
        if above is not None:
            lines.append(self._status_line(above, width))
        for message in self._messages:
            starts.append(len(lines))
            lines.extend(self._message_lines(message, width))
            lines.append(Strip.blank(width, self.visual_style.rich_style))  # the space between two
        if below is not None:
            lines.append(self._status_line(below, width))
        return Layout((width, self.visual_style), full, lines, starts)

    def on_resize(self) -> None:
        """A new width wraps the messages anew: the one at the top of the view stays there (as
        the view was last scrolled: the frame before this event may have drawn the new width)."""
        if self.content_region.width != self._layout.full:
            self._redraw(self._anchor)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if self._layout.key != (width, self.visual_style):  # a new theme, or a width not foreseen
            self._layout = self._laid_out(width, self._layout.full)
        lines = self._layout.lines
        at = round(self.scroll_y) + y
        return lines[at] if at < len(lines) else Strip.blank(width, self.visual_style.rich_style)

    def _status_line(self, text: str, width: int) -> Strip:
        return Visual.to_strips(self, Content(text), width, 1, self.get_visual_style("preview--status"), pad=True)[0]

    def _message_lines(self, message: StoredMessage, width: int) -> list[Strip]:
        """A message's lines: the user's set off by a bar, the focused one marked and highlighted."""
        focused = message.id == self.focus_message_id
        marks = self.marks if focused else None
        key = (message.id, focused, marks.pattern if marks is not None else None)
        look = (width, self.visual_style)
        kept = self._drawn.pop(key, None)
        strips = kept[1] if kept is not None and kept[0] == look else self._draw(message, width, focused, marks)
        self._drawn[key] = (look, strips)
        if len(self._drawn) > RENDERED_KEPT:
            del self._drawn[next(iter(self._drawn))]
        return strips

    def _draw(self, message: StoredMessage, width: int, focused: bool, marks: re.Pattern[str] | None) -> list[Strip]:
        parts = [name for name, on in (("preview--tool", message.role == "tool"), ("preview--focused", focused)) if on]
        style = self.get_visual_style(*parts)
        bar = "preview--focused-bar" if focused else "preview--user-bar" if message.role == "user" else None
        inner = max(1, width - 2) if bar else width
        strips = Visual.to_strips(self, visualize(self, message_text(message, marks)), inner, None, style, pad=True)
        if bar is None:
            return strips
        edge = self.get_visual_style(*parts, bar)
        if focused:  # a thick bar, as a "thick" left border draws it
            glyph = Segment("█", edge.rich_style)
        else:  # a thin bar at the cell's right, as a "tall" left border draws it
            glyph = Segment("▊", RichStyle(color=edge.background.rich_color, bgcolor=edge.foreground.rich_color))
        bar_strip = Strip([glyph, Segment(" ", style.rich_style)], 2)
        return [Strip.join([bar_strip, strip]) for strip in strips]

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

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._anchor = self._top()
        self._near_edges()
