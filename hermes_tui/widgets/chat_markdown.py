"""The chat items drawn as Markdown: streamed replies and formatted app output.

Kept apart from the other chat widgets because Textual's ``Markdown`` (markdown-it, Pygments)
takes ~70 ms to import: a new session's first frame does not wait for it, the first reply does.
"""

from __future__ import annotations

import re

from rich.markdown import Markdown as RichMarkdown
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Markdown, Static

from hermes_tui.untrusted import visible
from hermes_tui.widgets.chat_entries import Entry

FREEZE_CHARS = 80  # the live tail is frozen at the first safe block boundary past this size

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


Drawn = tuple[str, tuple[object, list[Strip]]]  # a source and its lines, keyed by width and style

_JOIN = "x\n\n"  # a one-line paragraph rendered before a later part, then dropped (see _render)


class FrozenMarkdown(Widget):
    """Finished Markdown as ONE widget: Rich renders it once per width, a part at a time.

    Textual's ``Markdown`` makes a widget per block and every screen refresh lays all of them
    out, and Textual drops a widget's render cache on every repaint, so re-rendering a long
    reply (syntax highlighting included) on each streamed fragment or keystroke made both slow.
    Here the lines are cached, and ``extend`` renders only the part that was added.
    """

    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"

    def __init__(self, source: str = "", drawn: Drawn | None = None) -> None:
        """``drawn``: what ``drawn`` returned before; its lines are reused if drawn from ``source``."""
        super().__init__(classes="frozen-markdown")
        self._parts: list[str] = [source] if source else []
        self._lines: tuple[object, list[Strip]] = drawn[1] if drawn and drawn[0] == source else (None, [])

    @property
    def drawn(self) -> Drawn:
        """The source with its rendered lines, for a later widget showing the same source."""
        return self.source, self._lines

    @property
    def source(self) -> str:
        return "".join(self._parts)

    @property
    def is_empty(self) -> bool:
        return not self._parts

    def extend(self, markdown: str) -> None:
        """Append finished blocks (cut at a ``block_boundary``)."""
        self._parts.append(markdown)
        key, lines = self._lines
        if key is not None:
            lines.extend(self._render(len(self._parts) - 1, key[0]))
        self.refresh(layout=True)

    def _render(self, index: int, width: int) -> list[Strip]:
        """Part ``index`` as lines, exactly as in a render of the whole source.

        Rich puts a blank line between two blocks only when something was rendered before the
        second, so a later part is rendered after a one-line paragraph, which is then dropped.
        """
        if not self._follows_blocks(index):
            return self._strips(self._parts[index], width)
        return self._strips(_JOIN + self._parts[index], width)[1:]

    def _follows_blocks(self, index: int) -> bool:
        """Whether part ``index`` comes after rendered blocks (so a blank line goes before it)."""
        return index > 0

    def _strips(self, markdown: str, width: int) -> list[Strip]:
        # The model's text: Markdown is its format, but its control characters are shown, not obeyed,
        # and a link shows its address beside its text instead of becoming a terminal hyperlink
        # (OSC 8) whose target the text need not match.
        visual = visualize(self, RichMarkdown(visible(markdown), code_theme="monokai", hyperlinks=False))
        return Visual.to_strips(self, visual, width, None, self.visual_style)

    def rendered(self, width: int) -> list[Strip]:
        """All lines at ``width``: rendered again only when the width or the style changes."""
        key = (width, self.visual_style)
        if self._lines[0] != key:
            self._lines = (key, [line for index in range(len(self._parts)) for line in self._render(index, width)])
        return self._lines[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rendered(width)) if width and self._parts else 0

    def render_line(self, y: int) -> Strip:
        lines = self.rendered(self.size.width)
        return lines[y] if y < len(lines) else Strip.blank(self.size.width, self.visual_style.rich_style)


class MarkdownTail(FrozenMarkdown):
    """The end of a reply that is still streaming: replaced on every write, rendered lazily.

    A write only swaps the text and asks for a layout; Rich renders the tail (about
    ``FREEZE_CHARS`` characters, more while a code block is open) once per screen refresh,
    however many writes came in between — the batching a ``MarkdownStream`` does, without a
    widget per Markdown block.
    """

    def __init__(self) -> None:
        super().__init__()
        self._after_frozen = False

    def replace(self, markdown: str, *, after_frozen: bool) -> None:
        """Show ``markdown``; ``after_frozen``: it follows finished blocks (a blank line between)."""
        self._parts = [markdown] if markdown else []
        self._after_frozen = after_frozen
        self._lines = (None, [])
        self.refresh(layout=True)

    def _follows_blocks(self, index: int) -> bool:
        return self._after_frozen


class AssistantMessage(Vertical):
    """A reply: its finished blocks in one ``FrozenMarkdown`` and the streaming end in a
    ``MarkdownTail``; no token re-renders more than the tail.

    The tail stays small: once it holds ``FREEZE_CHARS``, its finished blocks move to the frozen
    part (rendered once, a part at a time) and the tail keeps only the rest; at the end all of it
    moves.
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes="assistant-message")
        self.entry = entry
        self._frozen = FrozenMarkdown(entry.text, entry.drawn)
        self._tail: MarkdownTail | None = None
        self._tail_text = ""

    def compose(self) -> ComposeResult:
        yield self._frozen
        # Built in its final state: updating it on mount asked for a layout of the whole chat per
        # reply, which made mounting a page of older replies cost a frame each.
        status = Static(self._status_text(), classes="reply-status")
        status.display = self.entry.cancelled
        yield status

    def on_unmount(self) -> None:
        if not self.streaming:
            self.entry.drawn = self._frozen.drawn

    @property
    def source(self) -> str:
        """The Markdown on screen: the frozen part plus the tail."""
        return self._frozen.source + self._tail_text

    @property
    def tail_source(self) -> str:
        return self._tail_text

    @property
    def streaming(self) -> bool:
        return self._tail is not None

    async def start_stream(self) -> None:
        """Begin the tail; it always starts at a block boundary so code fences stay in context."""
        self._tail = MarkdownTail()
        self._tail_text = ""
        await self.mount(self._tail, before=self.query_one(".reply-status"))
        self.add_class("-streaming")

    def write(self, fragment: str) -> None:
        self.entry.text += fragment
        if self._tail is None:
            return
        self._tail_text += fragment
        cut = block_boundary(self._tail_text) if len(self._tail_text) >= FREEZE_CHARS else 0
        if cut:
            head, self._tail_text = self._tail_text[:cut], self._tail_text[cut:]
            self._frozen.extend(head)
        self._tail.replace(self._tail_text, after_frozen=not self._frozen.is_empty)

    async def finish(self, *, cancelled: bool = False) -> None:
        """Freeze the tail; a cancelled reply keeps what was shown and says so."""
        if self._tail is not None:
            tail, self._tail = self._tail, None
            with self.app.batch_update():
                if self._tail_text:
                    self._frozen.extend(self._tail_text)
                await tail.remove()
            self._tail_text = ""
        self.remove_class("-streaming")
        self.entry.cancelled = cancelled
        self.refresh_status()

    def _status_text(self) -> Content:
        return Content.styled("⏹ cancelled — kept what was shown", "dim") if self.entry.cancelled else Content("")

    def refresh_status(self) -> None:
        status = self.query_one(".reply-status", Static)
        status.update(self._status_text())
        status.display = self.entry.cancelled


class InfoMessage(Markdown):
    """Our own documentation (``/help``, the demo's guide): Markdown, set apart from the replies.

    Only text this app wrote goes here; output that holds stored data is a ``report``
    (``chat_messages.ReportMessage``), since Markdown links in it would be clickable.
    """

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry.text, classes="info-message")
        self.entry = entry


MARKDOWN_WIDGETS: dict[str, type[Widget]] = {"assistant": AssistantMessage, "info": InfoMessage}
