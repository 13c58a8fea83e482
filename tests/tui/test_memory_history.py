"""Memory provenance in the app: where an entry came from, opening that turn, undo, hand edits."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from engine.memory import MemoryStore, PendingQueue
from engine.store import SessionDB
from hermes_tui.demo.seed import MEMORY_ENTRIES, seed_home
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec
from hermes_tui.screens.memory_history import MemoryHistoryScreen, SessionAtMessage
from hermes_tui.widgets.memory_panel import SELECTED_STYLE, MemorySection
from hermes_tui.widgets.transcript_preview import TranscriptPreview
from tests.tui.test_turn_lifecycle import footer_labels
from tests.tui.helpers import FIXED_NOW, SIZE, close_app, make_app, ready, screen_text, settle, turn_over, wait_until

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


async def ask_to_remember(pilot, home: Path, expected: list[str]) -> None:
    """Send the turn whose reply writes FACT by a memory tool call; wait until USER.md holds ``expected``."""
    pilot.app.main.prompt.text = "I work on the payments team, remember that"
    await pilot.press("enter")
    await wait_until(pilot, lambda: turn_over(pilot.app) and store(home).entries("user") == expected)


async def test_an_entry_the_model_wrote_shows_its_session_and_turn_and_opens_there(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(tool_calls=[memory_call(FACT)]), Reply(text="Noted."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await ask_to_remember(pilot, home, [FACT])
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
        await wait_until(pilot, lambda: preview.focused_message is not None)
        assert preview.focused_message.id == call.id  # the marked message is the one holding the call
        await wait_until(pilot, lambda: "→ calls memory" in screen_text(app))  # scrolled into view
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


SMALL = (80, 24)
EARLIER = "Prefers tea over coffee"  # in USER.md before the history began


def highlighted(section: MemorySection) -> list[str]:
    """The entries the panel draws with the selection's style, without their bullet ("• ", or "+ "
    for one the session's prompt does not carry yet); none while the panel lacks focus."""
    body = section.query_one(".memory-entries").render()
    return [body.plain[span.start + 2:span.end] for span in body.spans if span.style == SELECTED_STYLE]


async def focus_panel(pilot, app) -> None:
    """From the prompt, as a person would: F2 first when the panel is folded (below 110 columns)."""
    if not app.main.query_one("#side").display:
        await pilot.press("f2")
    await pilot.press("tab")
    await wait_until(pilot, lambda: app.focused is app.main.query_one("#memory-memory").entry_list)


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x36", "80x24"])
async def test_choosing_the_second_entry_in_the_panel_opens_its_provenance(home: Path, llm: LoopbackLLM,
                                                                           size: tuple[int, int]) -> None:
    """up/down choose an entry (across files, highlighted while focused), enter opens the history on
    exactly that entry, o opens the turn that wrote it; F6 does the same on the first entry, which
    predates the history; escape goes home."""
    (home / "memories").mkdir()
    store(home).path("user").write_text(EARLIER, encoding="utf-8")
    llm.push(Reply(tool_calls=[memory_call(FACT)]), Reply(text="Noted."))
    app = make_app(home)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await ask_to_remember(pilot, home, [EARLIER, FACT])
        with SessionDB.open_home(home) as db:
            call = next(m for m in db.get_messages(app.agent.session_id or "") if m.tool_calls)
        user = app.main.query_one("#memory-user", MemorySection)
        await wait_until(pilot, lambda: user.entries == [EARLIER, FACT])
        await focus_panel(pilot, app)  # MEMORY.md is empty: down goes on to USER.md
        await pilot.press("down")
        await wait_until(pilot, lambda: app.focused is user.entry_list and highlighted(user) == [EARLIER])
        await pilot.press("down")
        await wait_until(pilot, lambda: highlighted(user) == [FACT] and user.selected == 1)
        assert "Where from" in footer_labels(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryHistoryScreen) and app.screen.showing)
        screen = app.screen
        assert screen.showing == ("user", FACT)
        text = " ".join(origin_shown(screen).split())
        assert "Where it came from: the model's memory tool call" in text
        assert f"session {app.agent.session_id}, message {call.id}" in text and "o: open it there" in text
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionAtMessage))
        assert app.screen.message_id == call.id
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: app.screen is app.main and app.focused is app.main.prompt)
        assert highlighted(user) == []  # the highlight shows only while the panel has focus
        await focus_panel(pilot, app)
        await pilot.press("down", "up", "up")  # the first USER entry, then up again: into MEMORY.md (empty): stays
        await wait_until(pilot, lambda: highlighted(user) == [EARLIER] and app.focused is user.entry_list)
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryHistoryScreen) and app.screen.showing)
        assert app.screen.showing == ("user", EARLIER)
        assert "origin unknown (written before the history began)" in " ".join(origin_shown(app.screen).split())
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main)
        await focus_panel(pilot, app)
        await pilot.press("escape")
        assert app.focused is app.main.prompt
    close_app(app)


async def test_a_click_on_an_entry_opens_its_history(home: Path) -> None:
    for entry in ("First note", "Second note", "Third note"):
        store(home).add("memory", entry)
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        section = app.main.query_one("#memory-memory", MemorySection)
        await wait_until(pilot, lambda: len(section.entries) == 3)
        await pilot.click(section.query_one(".memory-entries"), offset=(4, 2))
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryHistoryScreen) and app.screen.showing)
        assert app.screen.showing == ("memory", "Third note")
        await pilot.press("escape")
    close_app(app)


def test_snapshot_of_a_chosen_entry_at_80x24_in_the_light_theme(snap_compare, home: Path) -> None:
    """The panel over the chat (F2), the second MEMORY entry chosen and highlighted."""
    for entry in ("The staging database is restored nightly at 02:00 UTC from the production snapshot",
                  "Deploys go out on Tuesdays", "On-call rota lives in the ops wiki"):
        store(home).add("memory", entry)
    store(home).add("user", "Works on the payments team")
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        app.theme = "hermes-light"
        await focus_panel(pilot, app)
        await pilot.press("down")
        section = app.main.query_one("#memory-memory", MemorySection)
        await wait_until(pilot, lambda: highlighted(section) == ["Deploys go out on Tuesdays"])
        await settle(pilot)

    try:
        assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
    finally:
        close_app(app)
