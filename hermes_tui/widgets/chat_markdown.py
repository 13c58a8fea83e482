"""The chat items drawn as Markdown: streamed replies and formatted app output.

Kept apart from the other chat widgets because Textual's ``Markdown`` (markdown-it, Pygments)
takes ~70 ms to import: a new session's first frame does not wait for it, the first reply does.
"""

from __future__ import annotations

import re

from rich.markdown import Markdown as RichMarkdown
from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Markdown

from hermes_tui.untrusted import visible
from hermes_tui.widgets.chat_entries import Entry

FREEZE_CHARS = 80  # the live tail is frozen at the first safe block boundary past this size
CANCELLED = Content.styled("⏹ cancelled — kept what was shown", "dim")

# A line that may continue the block above it across a blank line (an indented continuation, or
# the next item of a loose list): cutting before it could change how the Markdown renders.
_CONTINUES_BLOCK = re.compile(r"[ \t]|(?:[-+*]|\d{1,9}[.)])[ \t\n]")


def block_boundary(text: str) -> int:
    """The last place to cut Markdown without changing how it renders; 0 when there is none.

    That is after a blank line outside a code fence, before a complete line that starts a new
    block (not indented, not a list item).
    """
    pos = text.rfind("\n\n")
    while pos > 0:
        start = pos + 2
        end = text.find("\n", start)
        if end > start and not _CONTINUES_BLOCK.match(text, start) and text.count("```", 0, pos) % 2 == 0:
            return start
        pos = text.rfind("\n\n", 0, pos)
    return 0


Lines = tuple[object, list[Strip]]  # rendered lines and what they were rendered for (width, style, …)
Drawn = tuple[str, Lines]  # a finished reply's source and its lines, kept with its entry

_JOIN = "x\n\n"  # a one-line paragraph rendered before a later part, then dropped (see _render)


class AssistantMessage(Widget):
    """A reply as ONE widget: its finished blocks, the end still streaming, and a cancelled note.

    Finished blocks are rendered once per width, a part at a time as they are frozen; the tail
    (about ``FREEZE_CHARS`` characters, more while a code block is open) is replaced on every
    write and rendered once per screen refresh, however many writes came in between. One widget
    rather than a container of three: a streamed frame lays out and repaints one widget per reply
    instead of the reply, its frozen part and its tail, each over the whole view as it scrolls
    (Textual repaints a widget in full whenever its size changes, and a growing reply's parts
    all change size).
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes="assistant-message")
        self.entry = entry
        self._parts: list[str] = [entry.text] if entry.text else []  # the frozen Markdown, a part per freeze
        drawn = entry.drawn
        self._frozen: Lines = drawn[1] if drawn and drawn[0] == entry.text else (None, [])
        self._tail_text = ""
        self._tail: Lines = (None, [])
        self._streaming = False

    def on_unmount(self) -> None:
        if not self._streaming:
            self.entry.drawn = self.drawn

    @property
    def drawn(self) -> Drawn:
        """The frozen source with its rendered lines, for a later widget showing the same reply."""
        return "".join(self._parts), self._frozen

    @property
    def source(self) -> str:
        """The Markdown on screen: the frozen part plus the tail."""
        return "".join(self._parts) + self._tail_text

    @property
    def tail_source(self) -> str:
        return self._tail_text

    @property
    def streaming(self) -> bool:
        return self._streaming

    async def start_stream(self) -> None:
        """Begin the tail; it always starts at a block boundary so code fences stay in context."""
        self._streaming, self._tail_text, self._tail = True, "", (None, [])
        self.add_class("-streaming")

    def write(self, fragment: str) -> None:
        self.entry.text += fragment
        if not self._streaming:
            return
        self._tail_text += fragment
        cut = block_boundary(self._tail_text) if len(self._tail_text) >= FREEZE_CHARS else 0
        if cut:
            head, self._tail_text = self._tail_text[:cut], self._tail_text[cut:]
            self._freeze(head)
        self._tail = (None, [])
        self.refresh(layout=True)

    def _freeze(self, markdown: str) -> None:
        """Append finished blocks (cut at a ``block_boundary``), rendering only them."""
        self._parts.append(markdown)
        key, lines = self._frozen
        if key is not None:
            lines.extend(self._render(markdown, key[0], after_blocks=len(self._parts) > 1))

    async def finish(self, *, cancelled: bool = False) -> None:
        """Freeze the tail; a cancelled reply keeps what was shown and says so."""
        if self._streaming:
            self._streaming = False
            if self._tail_text:
                self._freeze(self._tail_text)
            self._tail_text, self._tail = "", (None, [])
        self.remove_class("-streaming")
        self.entry.cancelled = cancelled
        self.refresh(layout=True)

    def _render(self, markdown: str, width: int, *, after_blocks: bool) -> list[Strip]:
        """``markdown`` as lines, exactly as in a render of the whole source.

        Rich puts a blank line between two blocks only when something was rendered before the
        second, so a part that follows blocks is rendered after a one-line paragraph, which is
        then dropped.
        """
        if not after_blocks:
            return self._strips(markdown, width)
        return self._strips(_JOIN + markdown, width)[1:]

    def _strips(self, markdown: str, width: int) -> list[Strip]:
        # The model's text: Markdown is its format, but its control characters are shown, not obeyed,
        # and a link shows its address beside its text instead of becoming a terminal hyperlink
        # (OSC 8) whose target the text need not match.
        visual = visualize(self, RichMarkdown(visible(markdown), code_theme="monokai", hyperlinks=False))
        return Visual.to_strips(self, visual, width, None, self.visual_style)

    def rendered(self, width: int) -> list[Strip]:
        """The frozen part's lines at ``width``: rendered again only when the width or the style changes."""
        key = (width, self.visual_style)
        if self._frozen[0] != key:
            self._frozen = (key, [line for index, part in enumerate(self._parts)
                                  for line in self._render(part, width, after_blocks=index > 0)])
        return self._frozen[1]

    def _tail_lines(self, width: int) -> list[Strip]:
        key = (width, self.visual_style)
        if self._tail[0] != key:
            text = self._tail_text
            self._tail = (key, self._render(text, width, after_blocks=bool(self._parts)) if text else [])
        return self._tail[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not width:
            return 0
        frozen = len(self.rendered(width)) if self._parts else 0
        tail = len(self._tail_lines(width)) if self._streaming and self._tail_text else 0
        return frozen + tail + (not self._streaming and self.entry.cancelled)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        frozen = self.rendered(width) if self._parts else []
        if y < len(frozen):
            return frozen[y]
        y -= len(frozen)
        if self._streaming:
            tail = self._tail_lines(width) if self._tail_text else []
            if y < len(tail):
                return tail[y]
        elif self.entry.cancelled and y == 0:
            return Visual.to_strips(self, CANCELLED, width, 1, self.visual_style)[0]
        return Strip.blank(width, self.visual_style.rich_style)


class InfoMessage(Markdown):
    """Our own documentation (``/help``, the demo's guide): Markdown, set apart from the replies.

    Only text this app wrote goes here; output that holds stored data is a ``report``
    (``chat_messages.ReportMessage``), since Markdown links in it would be clickable.
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry.text, classes="info-message")
        self.entry = entry


MARKDOWN_WIDGETS: dict[str, type[Widget]] = {"assistant": AssistantMessage, "info": InfoMessage}
