"""Approvals happen only by a deliberate act on a visible record, and every decision can be undone.

Typed text never decides: a sentence typed while the queue has focus is a message; the bulk
actions ask first; the inline prompt takes focus only once the user pauses, and then only its own
keys choose.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.memory import MemoryStore, PendingQueue
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec
from hermes_tui.screens.confirm import Confirm
from hermes_tui.widgets.approval_prompt import ApprovalPrompt
from hermes_tui.widgets.approval_queue import PendingList
from tests.tui.helpers import SIZE, close_app, make_app, ready, turn_over, type_spaced, wait_until, write_config

FIRST, SECOND = "Deploys go out on Tuesdays", "The staging database is restored nightly"


@pytest.fixture
def queued_home(home: Path) -> Path:
    """Two staged adds, the older first."""
    queue = PendingQueue(home)
    queue.stage({"action": "add", "target": "memory", "content": FIRST}, origin="foreground")
    record = queue.stage({"action": "add", "target": "memory", "content": SECOND}, origin="background_review")
    path = queue.folder / f"{record.id}.json"
    data = json.loads(path.read_text())
    data["created_at"] += 1  # a strict order for the list
    path.write_text(json.dumps(data))
    return home


def memory(home: Path) -> list[str]:
    return MemoryStore(home / "memories").entries("memory")


async def type_keys(pilot, text: str) -> None:
    """Type ``text`` key by key, as a person would (Pilot names space and punctuation)."""
    names = {" ": "space", "?": "question_mark", ",": "comma", ".": "full_stop"}
    await pilot.press(*[names.get(ch, ch) for ch in text])


async def test_a_sentence_typed_while_the_queue_has_focus_is_a_message(queued_home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="Yes, I can."))
    app = make_app(queued_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f3")
        assert isinstance(app.focused, PendingList)
        await type_keys(pilot, "Are you able to read my notes? Really")
        assert app.focused is app.main.prompt
        assert app.main.prompt.text == "Are you able to read my notes? Really"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turn_over(app) and app.agent.session_id)
        assert app.main.chat.entries[0].text == "Are you able to read my notes? Really"
        assert app.main.approvals.count == 2 and PendingQueue(queued_home).count() == 2
        assert memory(queued_home) == []
    close_app(app)


async def test_a_burst_typed_into_the_queue_reaches_the_prompt_in_the_order_typed(queued_home: Path) -> None:
    """Keys arrive while the focus is moving: the first are sent to the list, the ones after the
    move straight to the prompt. However the two interleave (each key handled a few event-loop
    turns after the one before), the prompt reads them in the order typed."""
    sentence = "yes approve all 1 2 3 a d y"
    app = make_app(queued_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for turns in range(1, 7):
            app.main.prompt.clear()
            await pilot.press("f3")
            assert isinstance(app.focused, PendingList)
            await type_spaced(app, sentence, turns)
            await wait_until(pilot, lambda: len(app.main.prompt.text) == len(sentence))
            assert (turns, app.main.prompt.text) == (turns, sentence)
            assert app.focused is app.main.prompt
        assert app.main.approvals.count == 2 and memory(queued_home) == []
    close_app(app)


async def test_escape_brings_focus_home_from_the_queue_and_the_chat_log(queued_home: Path) -> None:
    app = make_app(queued_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f3")
        await pilot.press("escape")
        assert app.focused is app.main.prompt
        app.main.chat.focus()
        await pilot.pause()
        await pilot.press("escape")
        assert app.focused is app.main.prompt
        assert app.main.approvals.count == 2
    close_app(app)


async def test_enter_approves_delete_rejects_and_ctrl_z_undoes_each(queued_home: Path) -> None:
    app = make_app(queued_home)
    queue = PendingQueue(queued_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        first_id = app.main.approvals.records[0].id
        await pilot.press("f3", "enter")
        await wait_until(pilot, lambda: app.main.approvals.count == 1)
        assert memory(queued_home) == [FIRST]
        await pilot.press("ctrl+z")  # undo the approval: exactly that entry goes, the record comes back
        await wait_until(pilot, lambda: app.main.approvals.count == 2)
        assert memory(queued_home) == [] and queue.get(first_id).payload["content"] == FIRST
        await pilot.press("delete")  # the highlighted (first) record
        await wait_until(pilot, lambda: app.main.approvals.count == 1)
        assert [r.id for r in queue.list()[0]] != [first_id] and memory(queued_home) == []
        await pilot.press("ctrl+z")
        await wait_until(pilot, lambda: app.main.approvals.count == 2)
        assert queue.get(first_id).payload["content"] == FIRST
    close_app(app)


async def test_undo_of_an_approval_refuses_when_the_entry_was_edited_since(queued_home: Path) -> None:
    app = make_app(queued_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f3", "enter")
        await wait_until(pilot, lambda: memory(queued_home) == [FIRST])
        MemoryStore(queued_home / "memories").replace("memory", "Tuesdays", "Deploys go out on Wednesdays")
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert memory(queued_home) == ["Deploys go out on Wednesdays"]  # the user's later edit is kept
        assert app.main.approvals.count == 1
        assert len(app.main.approvals.decided) == 1  # still undoable once put right
    close_app(app)


async def test_bulk_approval_asks_first_naming_the_count(queued_home: Path) -> None:
    app = make_app(queued_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f3", "ctrl+a")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm))
        dialog = app.screen
        assert "Approve all 2 pending memory writes?" in str(dialog.query_one("#confirm-text").render())
        dialog.grace = 3600.0  # however slow this machine, the next key lands inside the grace period
        await pilot.press("y")  # in flight: not an answer
        assert app.screen is dialog and memory(queued_home) == []
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, Confirm))
        assert app.main.approvals.count == 2 and memory(queued_home) == []
        await pilot.press("ctrl+a")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm))
        app.screen.grace = 0.0  # the period is over
        await pilot.press("y")
        await wait_until(pilot, lambda: app.main.approvals.count == 0)
        assert memory(queued_home) == [FIRST, SECOND]
    close_app(app)


async def test_reject_all_by_command_asks_too_and_keeps_everything_on_cancel(queued_home: Path) -> None:
    app = make_app(queued_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.main.prompt.text = "/memory reject all"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm))
        assert "Reject all 2" in str(app.screen.query_one("#confirm-text").render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, Confirm))
        assert PendingQueue(queued_home).count() == 2
    close_app(app)


def memory_call(content: str) -> ToolCallSpec:
    return ToolCallSpec("memory", json.dumps({"action": "add", "target": "user", "content": content}), id="call_m")


def model_stages_a_memory_write(home: Path, llm: LoopbackLLM) -> None:
    """Write approval on; the model's next turn asks to remember a fact, then answers."""
    write_config(home, llm, write_approval=True)
    llm.push(Reply(tool_calls=[memory_call("Works on the payments team")]), Reply(text="Noted."))


async def inline_prompt_up(app, pilot) -> ApprovalPrompt:
    """The app started, a message sent: the inline approval prompt its memory write brings up."""
    await ready(pilot)
    app.main.prompt.text = "I work on payments"
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.main.query(ApprovalPrompt))
    return app.main.query_one(ApprovalPrompt)


async def test_the_inline_prompt_waits_for_a_pause_and_typing_never_decides_it(home: Path, llm: LoopbackLLM) -> None:
    model_stages_a_memory_write(home, llm)
    app = make_app(home, approval_idle=3600.0)  # the user never pauses, until the test says so
    async with app.run_test(size=SIZE) as pilot:
        prompt = await inline_prompt_up(app, pilot)
        await type_keys(pilot, "2 more notes")
        assert app.main.prompt.text == "2 more notes" and not prompt.future.done()
        assert not prompt.has_class("-active")
        prompt.idle = 0.0  # a pause: it takes focus, visibly
        await wait_until(pilot, lambda: prompt.has_focus and prompt.has_class("-active"))
        prompt.grace, prompt.idle = 0.0, 3600.0
        await pilot.press("x")  # typing again: the text goes to the prompt, focus with it
        assert app.focused is app.main.prompt and app.main.prompt.text == "2 more notesx"
        assert not prompt.future.done() and not prompt.has_class("-active")
        prompt.idle = 0.0
        await wait_until(pilot, lambda: prompt.has_focus)  # the next pause
        await pilot.press("enter")  # nothing picked with the arrows yet: enter is not a choice
        assert not prompt.future.done()
        await pilot.press("3")
        await wait_until(pilot, lambda: turn_over(app))
        assert MemoryStore(home / "memories").entries("user") == []
        assert app.main.prompt.text == "2 more notesx"  # the draft survived
    close_app(app)


async def test_keys_in_flight_as_the_inline_prompt_takes_focus_decide_nothing(home: Path, llm: LoopbackLLM) -> None:
    """A digit typed for the chat a moment before the prompt took focus lands after it did: for
    its grace period the prompt's own keys choose nothing; after it, they do."""
    model_stages_a_memory_write(home, llm)
    app = make_app(home)  # takes focus at the first pause, at once
    async with app.run_test(size=SIZE) as pilot:
        prompt = await inline_prompt_up(app, pilot)
        prompt.grace = 3600.0  # however slow this machine, the next keys land inside the grace period
        await wait_until(pilot, lambda: prompt.has_focus and prompt.has_class("-active"))
        await pilot.press("1", "right", "enter", "2")
        assert not prompt.future.done() and prompt.selected is None
        prompt.grace = 0.0  # the period is over
        await pilot.press("1")
        await wait_until(pilot, lambda: turn_over(app))
        assert MemoryStore(home / "memories").entries("user") == ["Works on the payments team"]
    close_app(app)
