"""The scrolling transcript: follows new output, and mounts only a window of items near the view.

Long sessions stay fast because every item is kept as ``Entry`` data and only a contiguous run
of them — at most ``window`` — exists as widgets; a frame lays out and renders only those. A
session opens with the newest page mounted (more only if it does not fill the view), older pages
are mounted as the user scrolls to the top of what is mounted and newer ones as they scroll back
down, and the far end of the run is unmounted so it never grows past the window. Resuming 5,000
messages thus costs what resuming 20 does.
"""

from __future__ import annotations

import asyncio
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
    """All chat items as data; a window of them (``entries[_first_mounted:_end_mounted]``) as
    widgets. With focus, up/down select an item and enter copies it (``MessageCursor``)."""

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
        self._end_mounted = 0  # one past the newest mounted widget; below len(entries): newer ones wait
        self.unseen = False  # output arrived while the user was scrolled up
        # Changes to the mounted run take turns: each reads the indices the one before left.
        self._window_lock = asyncio.Lock()

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        """True unless the user scrolled away from the bottom (Textual releases the anchor then)."""
        return self._anchored and not self._anchor_released

    def _detach(self) -> None:
        """The newest items are not mounted: reaching the bottom of what is must not follow."""
        self.anchor(False)
        self.release_anchor()

    @property
    def at_end(self) -> bool:
        """The newest item is mounted (the user has not scrolled back a window's worth)."""
        return self._end_mounted == len(self.entries)

    async def add(self, entry: Entry) -> Widget:
        """Append an item and mount it, dropping the oldest mounted one beyond the window.

        Far back in the history (the newest items unmounted), a notice only waits with the "new
        output" hint; a reply, which streams into its widget, brings the newest items back first.
        """
        async with self._window_lock:
            if not self.at_end and entry.kind == "assistant":
                await self._mount_end()
            shown = self.at_end
            self.entries.append(entry)
            widget = widget_for(entry)
            if shown:
                self._end_mounted += 1
                with self.app.batch_update():
                    await self.mount(widget)
                    await self._trim()
        self.note_output()
        return widget

    async def discard(self, reply: "AssistantMessage") -> None:
        """Take back a reply that stayed empty (the model only called a tool)."""
        async with self._window_lock:
            index = self.entries.index(reply.entry)
            await reply.remove()
            del self.entries[index]
            self._end_mounted -= index < self._end_mounted
            self._first_mounted -= index < self._first_mounted

    async def _trim(self) -> None:
        mounted = list(self.children)
        excess = len(mounted) - self.window
        if excess > 0:
            self._first_mounted += excess
            await self.remove_children(mounted[:excess])

    async def load(self, entries: list[Entry]) -> None:
        """Replace everything with ``entries`` (a resumed session), mounting only the newest."""
        async with self._window_lock:
            self.entries = list(entries)
            await self._mount_end()

    async def _show_end(self) -> None:
        async with self._window_lock:
            await self._mount_end()

    async def _mount_end(self) -> None:
        """Mount the newest page (and older ones until the view is full), following the end."""
        await self._mount_range(max(0, len(self.entries) - self.page), len(self.entries))
        self.anchor()
        self.call_after_refresh(self._fill_view)

    async def _mount_range(self, start: int, end: int) -> None:
        self._first_mounted, self._end_mounted = start, end
        await self.remove_children()
        with self.app.batch_update():
            await self.mount_all([widget_for(e) for e in self.entries[start:end]])

    async def _fill_view(self, downwards: bool = False) -> None:
        """While the mounted items do not fill the view, mount more: older ones, or, shown from
        the start, newer ones."""
        more = not self.at_end if downwards else self._first_mounted > 0
        if self.is_attached and more and self.mounted_count < self.window and self.virtual_size.height <= self.size.height:
            await (self.load_newer() if downwards else self.load_older())
            self.call_after_refresh(self._fill_view, downwards)

    async def clear(self) -> None:
        await self.load([])

    async def load_older(self) -> int:
        """Mount the page of items just above the window; returns how many were mounted.

        What the user was reading stays where it was; beyond the window the newest mounted
        items are unmounted (never a reply still streaming: it writes into its widget).
        """
        async with self._window_lock:
            start = max(0, self._first_mounted - self.page)
            older = self.entries[start : self._first_mounted]
            if not older:
                return 0
            first = self.children[0] if self.children else None
            self._first_mounted = start
            with self.app.batch_update():
                await self.mount_all([widget_for(e) for e in older], before=first)
                if not self.following:
                    newest = list(self.children)[self.window :]
                    if newest and not any(getattr(w, "streaming", False) for w in newest):
                        self._end_mounted -= len(newest)
                        self._detach()
                        await self.remove_children(newest)
        if first is not None and not self.following:  # keep what the user was reading where it was
            self.call_after_refresh(lambda: self.scroll_to(y=first.virtual_region.y + self.scroll_y, animate=False))
        return len(older)

    async def load_newer(self) -> int:
        """Mount the page of items just below the window (scrolling back down), unmounting the
        oldest beyond the window; returns how many were mounted."""
        async with self._window_lock:
            newer = self.entries[self._end_mounted : self._end_mounted + self.page]
            if not newer:
                return 0
            children = list(self.children)
            oldest = children[: max(0, len(children) + len(newer) - self.window)]
            kept = children[len(oldest)] if len(oldest) < len(children) else None
            shift = kept.virtual_region.y if kept is not None else 0
            self._end_mounted += len(newer)
            self._first_mounted += len(oldest)
            with self.app.batch_update():
                await self.mount_all([widget_for(e) for e in newer])
                if oldest:
                    await self.remove_children(oldest)
        if self.at_end:
            self._anchored = True  # from here the bottom follows new output again (Textual re-anchors there)
        if shift:  # the unmounted items were above the view: what the user reads moves up by them
            self.call_after_refresh(lambda: self.scroll_to(y=max(0, self.scroll_y - shift), animate=False))
        return len(newer)

    def scroll_to_start(self) -> None:
        """Home at the prompt: the session's first items, from the top."""
        self.run_worker(self._mount_start(), group="chat-window")

    async def _mount_start(self) -> None:
        async with self._window_lock:
            self._detach()
            await self._mount_range(0, min(len(self.entries), self.page))
        self.scroll_home(animate=False)
        self.call_after_refresh(self._fill_view, True)

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
        if self.at_end:
            self.anchor()
        else:  # mounted back at the end, then followed
            self.run_worker(self._show_end(), group="chat-window")

    def watch_scroll_y(self, old: float, new: float) -> None:
        """Within a view's height of either end of the mounted run, the next page is mounted: a
        held page-up keeps moving instead of stopping at the top while a page loads."""
        super().watch_scroll_y(old, new)
        idle = not self._window_lock.locked()
        if idle and new < old and new < self.size.height and self._first_mounted > 0:
            self.run_worker(self.load_older(), group="chat-window")
        elif idle and new > old and new > self.max_scroll_y - self.size.height and not self.at_end:
            self.run_worker(self.load_newer(), group="chat-window")
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
