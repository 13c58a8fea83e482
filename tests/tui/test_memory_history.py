"""Memory provenance in the app: where an entry came from, opening that turn, undo, hand edits."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from engine.memory import MemoryStore, PendingQueue
from engine.store import SessionDB
from hermes_tui.demo.seed import MEMORY_ENTRIES, seed_home
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec
from hermes_tui.screens.memory_history import MemoryHistoryScreen, SessionAtMessage
from hermes_tui.widgets.transcript_preview import TranscriptPreview
from tests.tui.helpers import FIXED_NOW, SIZE, close_app, make_app, ready, screen_text, settle, wait_until

FACT = "Works on the payments team"


def memory_call(content: str) -> ToolCallSpec:
    return ToolCallSpec("memory", json.dumps({"action": "add", "target": "user", "content": content}), id="call_m")


def store(home: Path) -> MemoryStore:
    return MemoryStore(home / "memories")


def origin_shown(screen: MemoryHistoryScreen) -> str:
    return str(screen.query_one("#history-origin").render())


async def open_history(pilot, app) -> MemoryHistoryScreen:
    await pilot.press("f6")
    await wait_until(pilot, lambda: isinstance(app.screen, MemoryHistoryScreen))
    return app.screen


async def highlight_entry(pilot, screen: MemoryHistoryScreen, text: str) -> None:
    """Move down the entry list, as a person would, until ``text`` is the one shown."""
    for _ in range(screen.entry_list.option_count):
        if screen.showing is not None and screen.showing[1] == text:
            return
        await pilot.press("down")
        await pilot.pause()
    raise AssertionError(f"{text!r} is not in the entry list")


async def test_an_entry_the_model_wrote_shows_its_session_and_turn_and_opens_there(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(tool_calls=[memory_call(FACT)]), Reply(text="Noted."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.main.prompt.text = "I work on the payments team, remember that"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.busy and store(home).entries("user") == [FACT])
        session_id = app.agent.session_id
        with SessionDB.open_home(home) as db:
            call = next(m for m in db.get_messages(session_id) if m.tool_calls)
        screen = await open_history(pilot, app)
        await highlight_entry(pilot, screen, FACT)
        text = origin_shown(screen)
        assert "Where it came from: the model's memory tool call" in text
        assert f"session {session_id}, message {call.id}" in text and "o: open it there" in text
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionAtMessage))
        preview = app.screen.query_one(TranscriptPreview)
        await wait_until(pilot, lambda: preview.query(".focused-match"))
        marked = preview.query_one(".focused-match")
        await wait_until(pilot, lambda: marked.region.y < preview.region.bottom)  # scrolled into view
        assert "→ calls memory" in screen_text(app)  # the marked message is the one holding the call
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: app.screen is app.main)
    close_app(app)


async def test_undo_of_an_approve_from_the_history_removes_exactly_that_entry(home: Path) -> None:
    store(home).add("memory", "Kept from before")
    record = PendingQueue(home).stage({"action": "add", "target": "memory", "content": "Deploys on Tuesdays"},
                                      origin="foreground")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f3", "enter")
        await wait_until(pilot, lambda: store(home).entries("memory") == ["Kept from before", "Deploys on Tuesdays"])
        store(home).add("memory", "Added after the approval")
        screen = await open_history(pilot, app)
        await highlight_entry(pilot, screen, "Deploys on Tuesdays")
        assert screen.selected_change().action == "approve"
        assert "approved by you, in the app" in str(screen.change_list.get_option_at_index(0).prompt)
        await pilot.press("u")
        await wait_until(pilot, lambda: store(home).entries("memory") == ["Kept from before", "Added after the approval"])
        await wait_until(pilot, lambda: app.main.approvals.count == 1)  # the record is pending again
        assert [r.id for r in PendingQueue(home).list()[0]] == [record.id]
        undo = store(home).history.changes()[-1]
        assert (undo.action, undo.actor) == ("restore", "app")
        await pilot.press("escape")
    close_app(app)


async def test_a_hand_edit_is_recorded_as_such(home: Path) -> None:
    store(home).add("user", "Prefers tea")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        store(home).path("user").write_text("Prefers coffee", encoding="utf-8")  # an editor, outside the app
        await wait_until(pilot, lambda: any(c.actor == "hand_edit" for c in store(home).history.changes()))
        change = store(home).history.changes()[-1]
        assert (change.action, change.before, change.after) == ("replace", "Prefers tea", "Prefers coffee")
        screen = await open_history(pilot, app)
        await highlight_entry(pilot, screen, "Prefers coffee")
        assert "Where it came from: a hand edit (the file changed outside hermes-tui)" in origin_shown(screen)
        await pilot.press("escape")
    close_app(app)


async def test_an_entry_older_than_the_history_says_origin_unknown_and_opens_nothing(home: Path) -> None:
    (home / "memories").mkdir()
    store(home).path("memory").write_text("Written by upstream Hermes", encoding="utf-8")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_history(pilot, app)
        await highlight_entry(pilot, screen, "Written by upstream Hermes")
        assert "origin unknown (written before the history began)" in origin_shown(screen)
        await pilot.press("o")
        await wait_until(pilot, lambda: any("No session to open" in str(n.message) for n in app._notifications))
        assert app.screen is screen
        await pilot.press("escape")
    close_app(app)


async def test_ctrl_z_in_the_queue_is_recorded_in_the_history(home: Path) -> None:
    PendingQueue(home).stage({"action": "add", "target": "memory", "content": "Deploys on Tuesdays"},
                             origin="foreground")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f3", "enter")
        await wait_until(pilot, lambda: store(home).entries("memory") == ["Deploys on Tuesdays"])
        await pilot.press("ctrl+z")
        await wait_until(pilot, lambda: store(home).entries("memory") == [])
        approve, revert, restore = store(home).history.changes()
        assert approve.action == "approve" and revert.undoes == restore.undoes == approve.id
        assert (revert.action, revert.before) == ("remove", "Deploys on Tuesdays")
    close_app(app)


def test_snapshot_of_the_provenance_view(snap_compare, home: Path, monkeypatch) -> None:
    """The demo home's history: the highlighted entry was written by the model in a seeded session."""
    counter = itertools.count()
    monkeypatch.setattr("secrets.token_hex", lambda n=4: f"{next(counter):0{2 * n}x}")
    seed_home(home, FIXED_NOW)
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        screen = await open_history(pilot, app)
        await highlight_entry(pilot, screen, MEMORY_ENTRIES[3])
        await settle(pilot)

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        close_app(app)


async def test_enter_on_a_memory_section_and_the_slash_command_open_it_at_that_file(home: Path) -> None:
    store(home).add("memory", "A note")
    store(home).add("user", "Prefers tea")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.main.query_one("#memory-user .memory-scroll").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryHistoryScreen) and app.screen.showing)
        assert app.screen.showing == ("user", "Prefers tea")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main)
        await app.run_slash("/memory log memory")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryHistoryScreen) and app.screen.showing)
        assert app.screen.showing == ("memory", "A note")
        await pilot.press("escape")
    close_app(app)
