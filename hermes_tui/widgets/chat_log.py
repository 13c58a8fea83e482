"""The scrolling transcript: follows new output, and keeps only a window of recent items mounted.

Long sessions stay fast because at most ``window`` widgets exist; the rest live as ``Entry``
data and are mounted again (a page at a time) when the user scrolls to the top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget

from hermes_tui.messages import CopyRequested
from hermes_tui.widgets.chat_entries import Entry
from hermes_tui.widgets.chat_messages import ToolBlock, widget_for
from hermes_tui.widgets.message_cursor import MessageCursor, entry_text

if TYPE_CHECKING:
    from hermes_tui.widgets.chat_markdown import AssistantMessage


class ChatLog(VerticalScroll, can_focus=True):
    """All chat items as data; the newest ``window`` of them as widgets. With focus, up/down
    select an item and enter copies it (``MessageCursor``)."""

    BINDINGS = [
        Binding("up", "select_item(-1)", "Previous", show=False),
        Binding("down", "select_item(1)", "Next", show=False),
        Binding("enter", "copy_item", "Copy message"),
    ]

    def __init__(self, *, window: int = 60, page: int = 20, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cursor = MessageCursor(self)
        self.window = window
        self.page = page
        self.entries: list[Entry] = []
        self._first_mounted = 0  # index in ``entries`` of the oldest mounted widget
        self.unseen = False  # output arrived while the user was scrolled up

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        """True unless the user scrolled away from the bottom (Textual releases the anchor then)."""
        return not self._anchor_released

    async def add(self, entry: Entry) -> Widget:
        """Append an item and mount it, dropping the oldest mounted one beyond the window."""
        self.entries.append(entry)
        widget = widget_for(entry)
        with self.app.batch_update():
            await self.mount(widget)
            await self._trim()
        self.note_output()
        return widget

    async def discard(self, reply: "AssistantMessage") -> None:
        """Take back a reply that stayed empty (the model only called a tool)."""
        await reply.remove()
        self.entries.remove(reply.entry)

    async def _trim(self) -> None:
        mounted = list(self.children)
        excess = len(mounted) - self.window
        if excess > 0:
            await self.remove_children(mounted[:excess])
            self._first_mounted += excess

    async def load(self, entries: list[Entry]) -> None:
        """Replace everything with ``entries`` (a resumed session), mounting only the newest."""
        await self.remove_children()
        self.entries = list(entries)
        self._first_mounted = max(0, len(self.entries) - self.window)
        with self.app.batch_update():
            await self.mount_all([widget_for(e) for e in self.entries[self._first_mounted :]])
        self.anchor()

    async def clear(self) -> None:
        await self.load([])

    async def load_older(self) -> int:
        """Mount the page of items just above the window; returns how many were mounted."""
        start = max(0, self._first_mounted - self.page)
        older = self.entries[start : self._first_mounted]
        if not older:
            return 0
        widgets = [widget_for(e) for e in older]
        first = self.children[0] if self.children else None
        with self.app.batch_update():
            await self.mount_all(widgets, before=first)
        self._first_mounted = start
        if first is not None:  # keep what the user was reading where it was
            self.call_after_refresh(lambda: self.scroll_to(y=first.virtual_region.y, animate=False))
        return len(older)

    @property
    def mounted_count(self) -> int:
        return len(self.children)

    def note_output(self, *, streaming: bool = False) -> None:
        """Record that content arrived; when scrolled up, the screen shows a "new output ↓" hint.

        ``streaming``: a reply is arriving. While the view follows it the scrollbar is hidden
        (``-tailing``): its thumb changes on every frame and redrawing it cost a fifth of each
        streamed frame. The gutter stays, so no line is re-wrapped when it comes back.
        """
        self.unseen = not self.following
        self.set_class(self.unseen, "-unseen")
        self.set_class(streaming and not self.unseen, "-tailing")

    def stream_ended(self) -> None:
        """A reply stopped streaming: the scrollbar comes back (see ``note_output``)."""
        self.remove_class("-tailing")

    def jump_to_end(self) -> None:
        self.unseen = False
        self.remove_class("-unseen")
        self.anchor()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new <= 0 and old > 0 and self._first_mounted > 0:
            self.run_worker(self.load_older(), group="chat-older", exclusive=True)
        if self.unseen and self.following:
            self.jump_to_end()

    def last_assistant(self) -> "AssistantMessage | None":
        found = self.query("AssistantMessage")  # by type name: no import of the Markdown widgets
        return cast("AssistantMessage", found.last()) if found else None

    def tool_block(self, call_id: str) -> ToolBlock | None:
        for block in self.query(ToolBlock):
            if block.entry.call_id == call_id:
                return block
        return None

    def action_select_item(self, delta: int) -> None:
        self.cursor.move(delta)

    def action_copy_item(self) -> None:
        entry = self.cursor.entry
        if entry is not None:
            self.post_message(CopyRequested(entry_text(entry), "the selected message"))

    def last_reply_text(self) -> str | None:
        for entry in reversed(self.entries):
            if entry.kind == "assistant" and entry.text.strip():
                return entry.text
        return None
