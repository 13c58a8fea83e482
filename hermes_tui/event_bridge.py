"""The one place engine events become widget calls.

The agent's threads call ``EventBridge.emit``. Text deltas are coalesced: they go into a buffer
and one ``wake`` asks the UI thread to drain it, so a fast stream never waits on a screen
refresh per token. Every other event goes through ``call_on_ui`` (blocking, so the worker keeps
pace) and drains the buffered text first, which keeps the order. Handlers run on the UI thread.

The bridge is given what it drives — the chat log, and callbacks for everything outside it — and
never reaches for the app: it renders a turn's end and says so (``reply_finished``); the app
decides what ends the turn. Widgets never see engine events, and the engine never
sees widgets.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from concurrent.futures import CancelledError
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, cast

from textual.css.query import NoMatches

from engine import events as ev
from hermes_tui.widgets.chat_entries import Entry

if TYPE_CHECKING:
    from hermes_tui.widgets.chat_markdown import AssistantMessage
    from hermes_tui.widgets.chat_messages import ToolBlock


# The longest a finished reply waits for a frame (see ``_next_frame``).
FRAME_WAIT_S = 0.2
SWITCH_LABELS = {"compression": "Context compressed into", "branch": "Branched to", "new": "New session",
                 "resume": "Resumed"}


class ChatView(Protocol):
    """The part of ``ChatLog`` the bridge writes to."""

    async def add(self, entry: Entry) -> Any: ...
    async def discard(self, widget: Any) -> None: ...
    def tool_block(self, call_id: str) -> "ToolBlock | None": ...
    def note_output(self, *, streaming: bool = False) -> None: ...
    def stream_ended(self) -> None: ...


@dataclass(frozen=True)
class BridgeCallbacks:
    """Everything the bridge does outside the chat log; the app supplies these."""

    wake: Callable[[], None]  # any thread: buffered reply text is waiting (posts ``TextArrived``)
    call_on_ui: Callable[..., Any]  # any thread: run ``fn(*args)`` on the UI thread and wait for it
    set_status: Callable[..., None]  # change some of the status bar's fields
    refresh_status: Callable[[], None]  # recompute the whole status bar from the agent
    session_label: Callable[[], str]
    show_session: Callable[[], Awaitable[None]]  # a new or resumed session: show its transcript
    memory_changed: Callable[[], None]
    pending_changed: Callable[[], None]  # the approval queue on disk changed
    notify: Callable[..., None]  # ``(message, *, title, severity)``
    output_shown: Callable[[], None]  # something new is in the chat (the "new output" hint)
    next_frame: Callable[[], Awaitable[None]]  # resolves once the screen has drawn again
    reply_finished: Callable[[], None]  # a turn's reply is complete on screen (``TurnDone``)


class EventBridge:
    """Translate ``engine.events`` into calls on the chat log and the callbacks."""

    # Recap is not rendered: a resumed session's transcript is shown in full.

    def __init__(self, chat: ChatView, ui: BridgeCallbacks, *, memory_notifications: str = "on") -> None:
        self.chat = chat
        self.ui = ui
        self.memory_notifications = memory_notifications
        self.reply: "AssistantMessage | None" = None
        self._text: list[str] = []
        self._text_lock = threading.Lock()
        self._write_lock = asyncio.Lock()
        self._handlers: dict[type, Callable[[Any], Awaitable[None] | None]] = {
            ev.TurnStarted: self.on_turn_started,
            ev.TextDelta: self.on_text_delta,
            ev.ToolCallStarted: self.on_tool_started,
            ev.ToolCallFinished: self.on_tool_finished,
            ev.MemoryWritten: self.on_memory_written,
            ev.MemoryStaged: self.on_memory_staged,
            ev.UsageUpdated: self.on_usage,
            ev.Notice: self.on_notice,
            ev.TurnFailed: self.on_turn_failed,
            ev.TurnDone: self.on_turn_done,
            ev.SessionSwitched: self.on_session_switched,
            ev.CompressionDone: self.on_compression_done,
            ev.TitleChanged: self.on_title_changed,
            ev.Phase: self.on_phase,
        }

    def emit(self, event: ev.EngineEvent) -> None:
        """Any thread but the UI's: queue a delta, or deliver an event and wait for the widgets."""
        if isinstance(event, ev.TextDelta):
            with self._text_lock:
                self._text.append(event.text)
                first = len(self._text) == 1
            if first:
                self.ui.wake()
            return
        try:
            self.ui.call_on_ui(self.handle, event)
        except (RuntimeError, NoMatches, CancelledError):  # the app has closed, or is closing
            pass

    async def drain_text(self) -> None:
        """UI thread: write everything buffered so far as one fragment.

        Writes await (a segment of the reply may be frozen mid-write), so drains are serialized:
        each takes the buffer only once it holds the lock, which keeps the text in order.
        """
        async with self._write_lock:
            with self._text_lock:
                text, self._text = "".join(self._text), []
            if text:
                await self.on_text_delta(ev.TextDelta(text))
                self.ui.output_shown()

    async def handle(self, event: ev.EngineEvent) -> None:
        await self.drain_text()
        handler = self._handlers.get(type(event))
        if handler is not None:
            result = handler(event)
            if result is not None:
                await result
            self.ui.output_shown()

    # ----- the reply ------------------------------------------------------------------------

    async def _ensure_reply(self) -> "AssistantMessage":
        """The live reply widget; a new one after a tool block so text follows the call it explains."""
        if self.reply is None:
            widget = cast("AssistantMessage", await self.chat.add(Entry("assistant")))
            await widget.start_stream()
            self.reply = widget
        return self.reply

    async def _next_frame(self) -> None:
        """Wait for the next frame, briefly: the agent's worker waits for this handler, so a
        frame that does not come (a suspended app, another screen on top) must not hold it."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.ui.next_frame(), timeout=FRAME_WAIT_S)

    async def _close_reply(self, *, cancelled: bool = False) -> None:
        if self.reply is not None:
            reply, self.reply = self.reply, None
            await reply.finish(cancelled=cancelled)
            self.chat.stream_ended()
            if not reply.entry.text and not cancelled:
                await self.chat.discard(reply)

    async def on_turn_started(self, event: ev.TurnStarted) -> None:
        self.ui.set_status(session=self.ui.session_label())
        await self._ensure_reply()

    async def on_text_delta(self, event: ev.TextDelta) -> None:
        reply = await self._ensure_reply()
        reply.write(event.text)
        self.chat.note_output(streaming=True)

    async def on_tool_started(self, event: ev.ToolCallStarted) -> None:
        await self._close_reply()
        await self.chat.add(Entry("tool", name=event.name, arguments=event.arguments, call_id=event.call_id))

    def on_tool_finished(self, event: ev.ToolCallFinished) -> None:
        block = self.chat.tool_block(event.call_id)
        if block is not None:
            block.finish(event.result, event.duration_s, event.is_error)

    async def on_turn_done(self, event: ev.TurnDone) -> None:
        """The turn is shown finished in the frame that draws the reply's last text (``handle``
        wrote it just before), and the reply is tidied up only after that frame: closing it
        moves its tail into the finished part, which costs a render and a layout, and done
        first it held the last line back by that much. The screen looks the same after it.
        """
        self.ui.reply_finished()
        if self.reply is not None:
            await self._next_frame()
        await self._close_reply(cancelled=event.cancelled)

    async def on_turn_failed(self, event: ev.TurnFailed) -> None:
        await self._close_reply()
        await self.chat.add(Entry("error", text=event.message, retryable=event.retryable))

    async def on_notice(self, event: ev.Notice) -> None:
        await self.chat.add(Entry("notice", text=event.message, level=event.level))

    # ----- memory -----------------------------------------------------------------------------

    def on_memory_written(self, event: ev.MemoryWritten) -> None:
        self.ui.memory_changed()
        if self.memory_notifications != "off":
            detail = f": {event.preview}" if self.memory_notifications == "verbose" and event.preview else ""
            self.ui.notify(f"Memory {event.action} ({event.target}) — {event.usage}{detail}", title="Memory")

    def on_memory_staged(self, event: ev.MemoryStaged) -> None:
        self.ui.pending_changed()
        if self.memory_notifications != "off":
            self.ui.notify(f"{event.pending_id}: {event.summary} — waiting for approval (F3)",
                           title="Memory write staged", severity="warning")

    # ----- session ----------------------------------------------------------------------------

    def on_usage(self, event: ev.UsageUpdated) -> None:
        self.ui.set_status(
            prompt_tokens=event.prompt_tokens,
            context_window=event.context_window,
            input_tokens=event.input_tokens,
            output_tokens=event.output_tokens,
            cache_read_tokens=event.cache_read_tokens,
        )

    async def on_session_switched(self, event: ev.SessionSwitched) -> None:
        if event.reason in ("new", "resume"):
            await self.ui.show_session()
        self.ui.memory_changed()
        self.ui.refresh_status()
        label = SWITCH_LABELS.get(event.reason, event.reason)
        # A new session has no title or id until its first message: "New session." says it all.
        text = f"{label}." if event.reason == "new" else f"{label} {self.ui.session_label()}"
        await self.chat.add(Entry("notice", text=text))

    async def on_compression_done(self, event: ev.CompressionDone) -> None:
        how = " (fallback summary)" if event.used_fallback else ""
        text = (f"Compressed {event.removed_messages} messages: ~{event.tokens_before:,} → "
                f"~{event.tokens_after:,} tokens{how}.")
        await self.chat.add(Entry("notice", text=text))

    def on_title_changed(self, event: ev.TitleChanged) -> None:
        self.ui.refresh_status()

    def on_phase(self, event: ev.Phase) -> None:
        """The status bar names what runs; a background job's ``idle`` clears its field."""
        if event.background:
            self.ui.set_status(background=None if event.kind == "idle" else event)
        else:
            self.ui.set_status(phase=event)
