"""Chat pane widgets on their own: streamed segments, transcript conversion, the mounted window."""

from __future__ import annotations

import random

import pytest
from textual.app import App, ComposeResult

from hermes_tui.widgets.chat_log import ChatLog
from hermes_tui.widgets.chat_entries import Entry, entries_from_transcript
from hermes_tui.widgets.chat_markdown import FREEZE_CHARS, AssistantMessage, block_boundary
from tests.tui.helpers import drawn_frames, wait_until

REPLY = "".join(
    f"## Part {n}\n\nSome text for part {n}.\n\n```python\ndef f{n}():\n\n    return {n}\n```\n\n- a\n- b\n\n"
    for n in range(30)
) + "The end."


class ChatApp(App):
    def compose(self) -> ComposeResult:
        yield ChatLog(window=20, page=10)


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("para one\n\npara two\n", len("para one\n\n")),
        ("para one\n\npara tw", 0),  # the next line is not complete: it might be a list item
        ("```\ncode\n\nmore code\n", 0),  # the blank line is inside an open fence
        ("```\ncode\n```\n\nafter\n", len("```\ncode\n```\n\n")),
        ("- a\n\n- b\n", 0),  # a loose list goes on
        ("1. a\n\n2.\nmore\n", 0),  # an empty item is still an item
        ("a\n\n---\n", len("a\n\n")),  # a rule, not a list item
        ("- a\n\n  more of a\n", 0),  # an indented continuation of the item
        ("a\n\n\nb\n", len("a\n\n\n")),
        ("no blank line at all\n", 0),
    ],
)
def test_block_boundary(text: str, cut: int) -> None:
    assert block_boundary(text) == cut


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_streamed_reply_in_any_chunking_renders_exactly_the_reply(seed: int) -> None:
    rng = random.Random(seed)
    app = ChatApp()
    async with app.run_test() as pilot:
        log = app.query_one(ChatLog)
        widget = await log.add(Entry("assistant"))
        assert isinstance(widget, AssistantMessage)
        await widget.start_stream()
        tail_sizes = []
        pos = 0
        while pos < len(REPLY):  # fences and blank lines split at random places
            step = rng.randint(1, 120)
            widget.write(REPLY[pos : pos + step])
            pos += step
            tail_sizes.append(len(widget.tail_source))
            if rng.random() < 0.2:
                await pilot.pause()  # a frame now and then, as while streaming
                assert widget.source == REPLY[:pos]
        await widget.finish()
        await pilot.pause()
        assert widget.source == REPLY and widget.entry.text == REPLY
        assert max(tail_sizes) < FREEZE_CHARS + 120 + len("```python\ndef f0():\n\n    return 0\n```\n\n")
        assert not widget.streaming and widget.tail_source == ""  # the tail was frozen
        whole = await log.add(Entry("assistant", text=REPLY))  # as a resumed session shows it
        await pilot.pause()
        width = widget.content_size.width
        assert [list(line) for line in widget.rendered(width)] == [list(line) for line in whole.rendered(width)]
        assert widget.size == whole.size


def mounted_texts(log: ChatLog) -> list[str]:
    return [child.entry.text for child in log.children]


async def test_only_a_window_is_mounted_and_older_items_load_on_demand() -> None:
    app = ChatApp()
    async with app.run_test() as pilot:
        log = app.query_one(ChatLog)
        await log.load([Entry("user", text=f"message {n}") for n in range(100)])
        # A page at first, and more while the view is not full (one-line items here), up to the window.
        await wait_until(pilot, lambda: log.mounted_count == log.window)
        assert mounted_texts(log)[-1] == "message 99"
        assert await log.load_older() == 10
        assert log.mounted_count == 30
        assert mounted_texts(log)[0] == "message 70"
        for n in range(25):
            await log.add(Entry("notice", text=f"new {n}"))
        assert log.mounted_count == 20 and len(log.entries) == 125


async def test_scrolled_back_the_window_slides_and_never_grows_past_its_size() -> None:
    app = ChatApp()
    async with app.run_test(size=(80, 12)) as pilot:  # fewer items in view than the window holds
        log = app.query_one(ChatLog)
        await log.load([Entry("user", text=f"message {n}") for n in range(100)])
        await pilot.pause()
        for _ in range(5):  # the user at the top of what is mounted (the anchor released)
            await pilot.pause()
            log.scroll_to(y=0, animate=False, immediate=True)
            await log.load_older()
            assert log.mounted_count <= log.window + log.page
        assert not log.at_end and "message 99" not in mounted_texts(log)
        while True:  # and back down at the bottom of it
            await pilot.pause()  # laid out, as between a user's scrolls
            log.scroll_to(y=log.max_scroll_y, animate=False, immediate=True)
            if not await log.load_newer():
                break
            assert log.mounted_count <= log.window + log.page
        assert log.at_end and mounted_texts(log)[-1] == "message 99"
        log.scroll_to_start()
        await wait_until(pilot, lambda: mounted_texts(log)[0] == "message 0")
        await log.add(Entry("notice", text="a notice while far back"))  # waits, with the hint
        assert log.unseen and "a notice while far back" not in mounted_texts(log)
        log.jump_to_end()
        await wait_until(pilot, lambda: mounted_texts(log)[-1] == "a notice while far back")


def test_entries_from_transcript_folds_tool_results_into_their_call() -> None:
    messages = [
        {"role": "user", "content": "remember tea"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "memory", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "memory", "content": '{"success": true}'},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}], "finish_reason": "cancelled"},
    ]
    entries = entries_from_transcript(messages)
    assert [e.kind for e in entries] == ["user", "tool", "assistant"]
    assert entries[1].result == '{"success": true}' and entries[1].call_id == "c1"
    assert entries[2].text == "Done." and entries[2].cancelled


async def test_scrollbar_is_hidden_only_while_a_followed_reply_streams() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 10)) as pilot:
        log = app.query_one(ChatLog)
        await log.load([Entry("user", text=f"message {n}") for n in range(30)])
        await pilot.pause()
        log.note_output(streaming=True)
        assert log.has_class("-tailing")
        log.release_anchor()  # the user scrolls up to read
        log.note_output(streaming=True)
        assert not log.has_class("-tailing") and log.unseen
        log.jump_to_end()
        log.note_output(streaming=True)
        assert log.has_class("-tailing")
        log.note_output()  # output that is not a streaming reply
        assert not log.has_class("-tailing")


def top_of_view(log: ChatLog) -> tuple[str, int]:
    """The item at (or just above) the top of the view and how many lines of it are scrolled past."""
    y = round(log.scroll_y)
    top = max((child for child in log.children if child.virtual_region.y <= y), key=lambda c: c.virtual_region.y)
    return top.entry.text, y - top.virtual_region.y


async def test_older_items_mount_after_the_scrolls_frame_and_what_is_read_never_moves() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(ChatLog)
        await log.load([Entry("user", text=f"message {n}\nsecond line\nthird line") for n in range(200)])
        await wait_until(pilot, lambda: log.mounted_count >= log.page and log.scroll_y == log.max_scroll_y)
        frames = drawn_frames(app, lambda: (*top_of_view(log), log._first_mounted))
        first = log._first_mounted
        log.scroll_to(y=log.scroll_y - 5, animate=False, immediate=True)  # up, near the top of the run
        await wait_until(pilot, lambda: log._first_mounted < first and not log._window_lock.locked())
        await pilot.pause()
        assert frames[0][2] == first  # the scroll was drawn before any older item was mounted
        assert {frame[:2] for frame in frames} == {frames[0][:2]}  # and the same line stayed on top
        assert log.mounted_count <= log.window + log.step  # the far end went as the older came


async def test_a_reply_scrolled_back_into_view_reuses_the_lines_it_drew(monkeypatch: pytest.MonkeyPatch) -> None:
    app = ChatApp()
    async with app.run_test() as pilot:
        log = app.query_one(ChatLog)
        entry = Entry("assistant", text=REPLY)
        widget = await log.add(entry)
        await pilot.pause()
        width = widget.content_size.width
        drawn = widget.rendered(width)
        await widget.remove()  # unmounted, as when it leaves the mounted window

        def rendered_again(*_args) -> None:
            raise AssertionError("the reply's Markdown was rendered again")

        monkeypatch.setattr(AssistantMessage, "_strips", rendered_again)
        again = AssistantMessage(entry)  # mounted again, as when scrolled back into the window
        await log.mount(again)
        await pilot.pause()
        assert again.rendered(width) is drawn
        monkeypatch.undo()
        entry.text += "\n\nmore"  # other text (never, once a reply is finished): drawn afresh
        edited = AssistantMessage(entry)
        await log.mount(edited)
        await pilot.pause()
        assert edited.rendered(width) is not drawn
