"""The event bridge on its own: built from a chat and plain callables, no app, no screen.

It is the one translator from engine events to the UI, and it is handed everything it touches;
these tests give it fakes and check what it asked for.
"""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError
from typing import Any

import pytest

from engine import events as ev
from hermes_tui.event_bridge import BridgeCallbacks, EventBridge
from hermes_tui.widgets.chat_entries import Entry


class FakeReply:
    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self.finished: bool | None = None  # the ``cancelled`` it was finished with

    async def start_stream(self) -> None:
        pass

    def write(self, fragment: str) -> None:
        self.entry.text += fragment

    async def finish(self, *, cancelled: bool = False) -> None:
        self.finished = cancelled


class FakeBlock:
    def __init__(self) -> None:
        self.result: tuple | None = None

    def finish(self, result: str, duration_s: float, is_error: bool) -> None:
        self.result = (result, duration_s, is_error)


class FakeChat:
    """Records entries the way ``ChatLog`` keeps them."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.blocks: dict[str, FakeBlock] = {}
        self.streaming_notes = 0
        self.stream_ends = 0

    async def add(self, entry: Entry) -> Any:
        self.entries.append(entry)
        if entry.kind == "tool":
            self.blocks[entry.call_id] = FakeBlock()
        return FakeReply(entry) if entry.kind == "assistant" else object()

    async def discard(self, reply: FakeReply) -> None:
        self.entries.remove(reply.entry)

    def tool_block(self, call_id: str) -> FakeBlock | None:
        return self.blocks.get(call_id)

    def note_output(self, *, streaming: bool = False) -> None:
        self.streaming_notes += streaming

    def stream_ended(self) -> None:
        self.stream_ends += 1

    def kinds(self) -> list[tuple[str, str]]:
        return [(e.kind, e.text) for e in self.entries]


class Calls:
    """Plain callables for every callback, each recording what it was given."""

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []

    def record(self, name: str, result: Any = None):
        def call(*args: Any, **kwargs: Any) -> Any:
            self.log.append((name, (args, kwargs)))
            return result
        return call

    def names(self) -> list[str]:
        return [name for name, _ in self.log]

    def of(self, name: str) -> list[tuple[tuple, dict]]:
        """The ``(args, kwargs)`` of each call to ``name``."""
        return [call for n, call in self.log if n == name]

    def callbacks(self) -> BridgeCallbacks:
        async def shown() -> None:
            self.log.append(("show_session", ((), {})))

        async def frame() -> None:
            self.log.append(("next_frame", ((), {})))

        return BridgeCallbacks(
            wake=self.record("wake"), call_on_ui=self.record("call_on_ui"), set_status=self.record("set_status"),
            refresh_status=self.record("refresh_status"), session_label=lambda: "Quokka notes",
            show_session=shown, memory_changed=self.record("memory_changed"),
            pending_changed=self.record("pending_changed"), notify=self.record("notify"),
            output_shown=self.record("output_shown"), next_frame=frame, reply_finished=self.record("reply_finished"))


def bridge(notifications: str = "on") -> tuple[EventBridge, FakeChat, Calls]:
    chat, calls = FakeChat(), Calls()
    return EventBridge(chat, calls.callbacks(), memory_notifications=notifications), chat, calls


def test_deltas_from_a_thread_wake_the_ui_once_per_batch_and_other_events_go_through_call_on_ui() -> None:
    events, chat, calls = bridge()

    def worker() -> None:
        for piece in ("Hel", "lo", " there"):
            events.emit(ev.TextDelta(piece))
        events.emit(ev.TurnDone("Hello there", "stop"))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert calls.names() == ["wake", "call_on_ui"]
    (handler, event), _ = calls.of("call_on_ui")[0]
    assert handler == events.handle and event == ev.TurnDone("Hello there", "stop")


@pytest.mark.parametrize("closing", [RuntimeError("App is not running"), CancelledError()])
def test_an_app_that_has_closed_or_is_closing_is_not_an_error(closing: Exception) -> None:
    """A background job (a title, a review) may report after the app has gone."""
    chat, calls = FakeChat(), Calls()

    def closed(*_args: Any) -> None:
        raise closing

    events = EventBridge(chat, BridgeCallbacks(**{**calls.callbacks().__dict__, "call_on_ui": closed}))
    events.emit(ev.Notice("late"))  # no exception


async def test_a_streamed_reply_is_written_in_order_then_closed_without_ending_the_turn() -> None:
    events, chat, calls = bridge()
    await events.handle(ev.TurnStarted("s1", "hi"))
    for piece in ("Hel", "lo"):
        events.emit(ev.TextDelta(piece))
    await events.drain_text()
    await events.handle(ev.TurnDone("Hello", "stop"))
    assert chat.kinds() == [("assistant", "Hello")]
    assert chat.stream_ends == 1 and chat.streaming_notes == 1
    assert calls.of("set_status")[0] == ((), {"session": "Quokka notes"})
    assert "next_frame" in calls.names()  # the last text is let show before the reply is tidied
    assert events.reply is None
    assert "refresh_status" not in calls.names()  # the app ends the turn, once, from its worker


async def test_a_reply_that_was_only_a_tool_call_is_taken_back_and_the_tool_block_finished() -> None:
    events, chat, calls = bridge()
    await events.handle(ev.TurnStarted("s1", "remember"))
    await events.handle(ev.ToolCallStarted("call_1", "memory", "{}"))
    await events.handle(ev.ToolCallFinished("call_1", "memory", '{"success": true}', 0.01))
    events.emit(ev.TextDelta("Noted."))
    await events.handle(ev.TurnDone("Noted.", "stop"))
    assert chat.kinds() == [("tool", ""), ("assistant", "Noted.")]
    assert chat.blocks["call_1"].result == ('{"success": true}', 0.01, False)


async def test_a_failed_turn_shows_its_error_and_a_cancelled_one_keeps_its_text() -> None:
    events, chat, _calls = bridge()
    events.emit(ev.TextDelta("Half a"))
    await events.handle(ev.TurnDone("Half a", "cancelled", cancelled=True))
    await events.handle(ev.TurnFailed("The provider timed out.", retryable=True))
    assert chat.kinds() == [("assistant", "Half a"), ("error", "The provider timed out.")]
    assert chat.entries[-1].retryable


async def test_memory_events_reload_the_panels_and_notify_as_configured() -> None:
    events, _chat, calls = bridge("verbose")
    await events.handle(ev.MemoryWritten("user", "add", "foreground", "1% — 17/1,375", preview="Prefers tea"))
    await events.handle(ev.MemoryStaged("0a1b2c3d", "add to user profile: tea", "foreground"))
    assert calls.names().count("memory_changed") == 1 and calls.names().count("pending_changed") == 1
    messages = [args[0] for args, _kwargs in calls.of("notify")]
    assert messages == ["Memory add (user) — 1% — 17/1,375: Prefers tea",
                        "0a1b2c3d: add to user profile: tea — waiting for approval (F3)"]
    quiet, _chat, quiet_calls = bridge("off")
    await quiet.handle(ev.MemoryStaged("0a1b2c3d", "add", "foreground"))
    assert quiet_calls.of("notify") == [] and quiet_calls.names().count("pending_changed") == 1


async def test_usage_goes_to_the_status_bar_and_a_session_switch_reloads_and_says_so() -> None:
    events, chat, calls = bridge()
    await events.handle(ev.UsageUpdated(1200, 128000, 1200, 40, 800, 0, 1))
    assert calls.of("set_status")[-1] == ((), {"prompt_tokens": 1200, "context_window": 128000, "input_tokens": 1200,
                                                "output_tokens": 40, "cache_read_tokens": 800})
    await events.handle(ev.SessionSwitched("s1", "s2", "compression", "Quokka notes #2"))
    assert "show_session" not in calls.names()  # a continuation keeps the chat as it is
    await events.handle(ev.SessionSwitched("s2", "s3", "resume", "Quokka notes"))
    assert calls.names().count("show_session") == 1 and calls.names().count("refresh_status") == 2
    assert chat.kinds()[-2:] == [("notice", "Context compressed into Quokka notes"), ("notice", "Resumed Quokka notes")]
    await events.handle(ev.TitleChanged("s3", "Better title"))
    assert calls.names().count("refresh_status") == 3


async def test_phases_go_to_the_status_bar_a_background_job_to_its_own_field() -> None:
    events, _chat, calls = bridge()
    waiting = ev.Phase("waiting", 1.0, attempt=1, attempts=4)
    review = ev.Phase("reviewing", 2.0, background=True)
    for event in (waiting, review, ev.Phase("idle", 3.0, background=True)):
        await events.handle(event)
    assert [kwargs for _args, kwargs in calls.of("set_status")] == [
        {"phase": waiting}, {"background": review}, {"background": None}]
