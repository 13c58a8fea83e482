"""The scrolling transcript: follows new output, and mounts only a window of items near the view.

Long sessions stay fast because every item is kept as ``Entry`` data and only a contiguous run
of them — about ``window`` — exists as widgets; a frame lays out and renders only those. A
session opens with the newest page mounted (more only if it does not fill the view). Scrolling
up, a few older items are mounted per frame while the view is within two of its heights of the
top of what is mounted (after the frame that shows the scroll, and kept in place in the frame
that mounts them), and newer ones likewise scrolling down; the far end of the run is unmounted
beyond the window, never an item in view. Resuming 5,000 messages thus costs what resuming 20
does, and scrolling through them what scrolling through 60 does.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget

from hermes_tui.collector import READING, hold_full_collections, release_full_collections
from hermes_tui.messages import CopyRequested
from hermes_tui.widgets.chat_entries import Entry
from hermes_tui.widgets.chat_messages import ToolBlock, widget_for
from hermes_tui.widgets.message_cursor import MessageCursor, entry_text

if TYPE_CHECKING:
    from hermes_tui.widgets.chat_markdown import AssistantMessage


LOOKAHEAD_VIEWS = 2  # more items are mounted while the view is this many heights from the run's end


class ChatLog(VerticalScroll, can_focus=True):
    """All chat items as data; a window of them (``entries[_first_mounted:_end_mounted]``) as
    widgets. With focus, up/down select an item and enter copies it (``MessageCursor``)."""

    BINDINGS = [
        Binding("up", "select_item(-1)", "Previous", show=False),
        Binding("down", "select_item(1)", "Next", show=False),
        Binding("enter", "copy_item", "Copy message"),
    ]

    def __init__(self, *, window: int = 60, page: int = 20, step: int = 5, id: str | None = None) -> None:
        """``page``: items mounted at once on opening and while the view is not full; ``step``:
        items mounted per frame while scrolling (few, so a held key is never waited for long)."""
        super().__init__(id=id)
        self.cursor = MessageCursor(self)
        self.window = window
        self.page = page
        self.step = step
        self.entries: list[Entry] = []
        self._first_mounted = 0  # index in ``entries`` of the oldest mounted widget
        self._end_mounted = 0  # one past the newest mounted widget; below len(entries): newer ones wait
        self.unseen = False  # output arrived while the user was scrolled up
        # Changes to the mounted run take turns: each reads the indices the one before left.
        self._window_lock = asyncio.Lock()
        self._load_scheduled = False  # a page is to be mounted after the next frame

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

    async def load_older(self, count: int | None = None) -> int:
        """Mount ``count`` items (a page) just above the window; returns how many were mounted.

        What the user was reading stays where it was, in the same frame; beyond the window the
        newest mounted items below the view are unmounted (never a reply still streaming: it
        writes into its widget).
        """
        async with self._window_lock:
            start = max(0, self._first_mounted - (count or self.page))
            older = self.entries[start : self._first_mounted]
            if not older:
                return 0
            first = self.children[0] if self.children else None
            self._first_mounted = start
            with self.app.batch_update():
                kept_at = self._content_y(first)
                await self.mount_all([widget_for(e) for e in older], before=first)
                if not self.following:
                    below = self.scroll_y + self.size.height  # laid out as before the mount
                    newest = [w for w in list(self.children)[self.window :] if w.virtual_region.y >= below]
                    if newest and not any(getattr(w, "streaming", False) for w in newest):
                        self._end_mounted -= len(newest)
                        self._detach()
                        await self.remove_children(newest)
                if first is not None and not self.following:
                    self._keep_in_place(first, kept_at)
        return len(older)

    async def load_newer(self, count: int | None = None) -> int:
        """Mount ``count`` items (a page) just below the window (scrolling back down), unmounting
        the oldest beyond the window that are above the view; returns how many were mounted."""
        async with self._window_lock:
            newer = self.entries[self._end_mounted : self._end_mounted + (count or self.page)]
            if not newer:
                return 0
            children = list(self.children)
            above = self.scroll_y  # only items wholly above the view are unmounted
            oldest = [w for w in children[: max(0, len(children) + len(newer) - self.window)] if w.virtual_region.bottom <= above]
            kept = children[len(oldest)] if len(oldest) < len(children) else None
            self._end_mounted += len(newer)
            self._first_mounted += len(oldest)
            with self.app.batch_update():
                kept_at = self._content_y(kept)
                await self.mount_all([widget_for(e) for e in newer])
                if oldest:
                    await self.remove_children(oldest)
                    if kept is not None:
                        self._keep_in_place(kept, kept_at)
        if self.at_end:
            self._anchored = True  # from here the bottom follows new output again (Textual re-anchors there)
        return len(newer)

    def _content_y(self, widget: Widget | None) -> int:
        return widget.virtual_region.y if widget is not None else 0

    def _keep_in_place(self, widget: Widget, was_at: int) -> None:
        """Scroll so ``widget`` stays where it was on screen after items above it came or went.

        Called inside a batch update: the screen is laid out now (Textual would do it at the
        next frame) so the new position is known, and the frame that shows the change already
        shows it scrolled; scrolling a frame later showed what the user read jump for a frame.
        ``Screen._refresh_layout`` is Textual's own (private) layout pass; inside a batch it
        only lays out, and the frame is drawn when the batch ends (a Pilot test watches every
        frame of a load).
        """
        self.screen._refresh_layout()
        shift = widget.virtual_region.y - was_at
        if shift:
            self.scroll_to(y=max(0, self.scroll_y + shift), animate=False, immediate=True)

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
        """Near either end of the mounted run, the next page is mounted, after the frame that
        shows this scroll: the key's own frame never waits for a page of items to be built."""
        super().watch_scroll_y(old, new)
        if new != old:
            # tell the screen of the scroll now, not at this widget's next idle: else the screen can
            # go idle first and run the load scheduled below before the scroll's frame is drawn
            self._check_refresh()
            self._load_when_near_an_end(older=new < old)
            (release_full_collections if self.following else hold_full_collections)(READING)
        if self.unseen and self.following:
            self.jump_to_end()

    def _load_when_near_an_end(self, *, older: bool) -> None:
        """Within ``LOOKAHEAD_VIEWS`` heights of the mounted run's end the user moves towards,
        mount the next ``step`` items there (once the current frame is drawn), and look again."""
        if self._load_scheduled or self._window_lock.locked():
            return
        ahead = LOOKAHEAD_VIEWS * self.size.height
        if older and self.scroll_y < ahead and self._first_mounted > 0:
            load = self.load_older
        elif not older and self.scroll_y > self.max_scroll_y - ahead and not self.at_end:
            load = self.load_newer
        else:
            return
        self._load_scheduled = True

        async def load_then_look_again() -> None:
            self._load_scheduled = False
            if await load(self.step):
                self.call_after_refresh(self._load_when_near_an_end, older=older)

        self.call_after_refresh(lambda: self.run_worker(load_then_look_again(), group="chat-window"))

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
