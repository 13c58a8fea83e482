"""The trust boundary on the screens and dialogs that quote stored text, beyond the main screen.

The home is ``test_untrusted_text``'s hostile home (``fill_hostile_home``: hostile memory entries, pending records,
titles, messages); each test opens one more place that shows them — the memory history and its
session view, a search hit, the summaries, the bulk-approval and delete dialogs, the rename
dialog, the tool phase, hostile config values, and the 100 kB line in every store that takes
it — and checks the text is shown literally, no hostile action link exists, and no raw control
character or corpus escape reaches the terminal output.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
import yaml
from textual.widgets import Input

from engine.memory import MemoryStore, PendingQueue
from engine.memory.history import Cause
from engine.store import SessionDB
from hermes_tui.app import HermesApp
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec
from hermes_tui.screens.confirm import Confirm
from hermes_tui.screens.hit_view import HitView
from hermes_tui.screens.memory_history import ALL, MemoryHistoryScreen, SessionAtMessage
from hermes_tui.screens.search import SearchScreen
from hermes_tui.screens.sessions import RenameSession, SessionsScreen
from hermes_tui.screens.usage import UsageScreen
from hermes_tui.untrusted import visible, visible_line
from hermes_tui.widgets.session_tree import SessionTree
from tests.hostile_text import HOSTILE, LONE_CR, LONG_LINE, SHOWN_ESC
from tests.tui.helpers import SIZE, close_app, make_app, ready, screen_text, shows_match, wait_until
from tests.tui.test_untrusted_text import (
    ESCAPE_TITLE,
    MARKUP_TITLE,
    SIDE_REPLY,
    VALUES,
    assert_clean,
    hostile_home,  # noqa: F401 (a fixture)
    session_ids,
    shown,
    title_llm,  # noqa: F401 (a fixture)
)

MODEL_ENTRY = "from the model " + HOSTILE["csi sentinel"] + " " + HOSTILE["spaced click"]


def toasts(app: HermesApp) -> str:
    return " ".join(str(t.render()) for t in app.screen.query("Toast"))


def set_config(home: Path, **sections: dict) -> None:
    path = home / "config.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    for name, values in sections.items():
        config[name].update(values)
    path.write_text(yaml.safe_dump(config), encoding="utf-8")


# ----- memory history ---------------------------------------------------------------------------


async def test_memory_history_and_the_session_at_its_message_are_literal(hostile_home: Path) -> None:
    escaped = session_ids(hostile_home)["escaped"]
    db = SessionDB.open_home(hostile_home)
    message_id = db.get_messages(escaped, limit=1)[0].id  # "deploy " + the spaced click
    db.close()
    added = MemoryStore(hostile_home / "memories").add(
        "memory", MODEL_ENTRY, cause=Cause("model", session_id=escaped, message_id=message_id))
    assert added["success"], added
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryHistoryScreen) and app.screen.is_mounted)
        history = app.screen
        assert isinstance(history, MemoryHistoryScreen)
        assert_clean(app)
        entries = history.entry_list
        seen = []
        for index in range(entries.option_count):  # every entry, its origin and its history
            option = entries.get_option_at_index(index)
            if option.disabled:
                continue
            entries.highlighted = index
            await pilot.pause()
            assert_clean(app)
            picked = history.selected_entry()
            if picked is not None:
                seen.append(picked[1])
                assert visible(picked[1]) in shown(history.query_one("#history-origin"))
        assert set(seen) == {v.strip() for v in VALUES} | {MODEL_ENTRY}
        at = history.entries["memory"].index(MODEL_ENTRY)
        entries.highlighted = next(i for i in range(entries.option_count)
                                   if entries.get_option_at_index(i).id == f"memory:{at}")
        await pilot.pause()
        origin = shown(history.query_one("#history-origin"))
        assert f"session {escaped}, message {message_id}" in origin and visible_line(ESCAPE_TITLE) in origin
        assert_clean(app)
        await pilot.press("o")  # the session that wrote it, at the message
        await wait_until(pilot, lambda: isinstance(app.screen, SessionAtMessage)
                         and "deploy " + HOSTILE["spaced click"] in screen_text(app))
        assert_clean(app)
        assert SHOWN_ESC in screen_text(app)  # the escapes of the messages around it, shown
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is history)
        entries.highlighted = next(i for i in range(entries.option_count) if entries.get_option_at_index(i).id == ALL)
        await pilot.pause()
        assert_clean(app)
        assert any(c.after == MODEL_ENTRY for c in history.shown)
        for row in range(min(history.change_list.option_count, 20)):  # every change row drawn
            history.change_list.highlighted = row
            await pilot.pause()
            assert_clean(app)
    close_app(app)


# ----- search: a hit, and the summaries ---------------------------------------------------------


async def test_a_search_hit_opened_and_the_summaries_are_literal(hostile_home: Path) -> None:
    escaped = session_ids(hostile_home)["escaped"]
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        search = app.screen
        assert isinstance(search, SearchScreen)
        await pilot.press(*"pwned")  # only in the escaped session: "title\x1b]0;PWNED-TITLE\x07set"
        await wait_until(pilot, lambda: search.shown_query == "pwned" and search.hits)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HitView) and shows_match(app.screen))
        hit = app.screen
        assert isinstance(hit, HitView) and hit.session_id == escaped
        assert visible_line(f"Search hit in “{ESCAPE_TITLE}”") in shown(hit.query_one("#hit-title"))
        await wait_until(pilot, lambda: SHOWN_ESC + "]0;PWNED-TITLE" in screen_text(app))
        assert_clean(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is search)
        await pilot.press("ctrl+s")  # the auxiliary model summarizes what matched
        summary = search.query_one("#summary-text")
        await wait_until(pilot, lambda: shown(summary) and not shown(summary).startswith("Summarizing"))
        await wait_until(pilot, lambda: "Summarizing" not in screen_text(app))
        assert_clean(app)
        assert visible(SIDE_REPLY) in shown(summary)
        assert visible_line(ESCAPE_TITLE) in shown(summary)  # each summary is headed by its session's title
        assert visible(SIDE_REPLY)[:20] in screen_text(app)
    close_app(app)


# ----- dialogs ----------------------------------------------------------------------------------


async def test_bulk_approval_dialog_lists_the_hostile_records_literally(hostile_home: Path) -> None:
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("f3", "ctrl+a")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm) and app.screen.is_mounted)
        question = shown(app.screen.query_one("#confirm-text"))
        records = app.main.approvals.records
        assert f"Approve all {len(records)} pending memory writes?" in question
        for record in records[:8]:
            assert visible_line(f"  {record.id}  {record.summary}") in question
        assert f"… and {len(records) - 8} more" in question
        assert SHOWN_ESC in question
        assert_clean(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, Confirm))
        assert app.main.approvals.count == len(records)
        app.main.prompt.text = "/memory reject all"  # the same question, asked by the command
        app.main.prompt.focus()
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm) and app.screen.is_mounted)
        assert visible_line(f"  {records[0].id}  {records[0].summary}") in shown(app.screen.query_one("#confirm-text"))
        assert_clean(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, Confirm))
        assert app.main.approvals.count == len(records)
    close_app(app)


async def test_delete_and_rename_dialogs_quote_hostile_titles_literally(hostile_home: Path) -> None:
    ids = session_ids(hostile_home)
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen)
                         and app.screen.query_one(SessionTree).find(ids["escaped"]) is not None)
        browser = app.screen
        assert isinstance(browser, SessionsScreen)
        assert browser.tree.select_session(ids["escaped"])
        await pilot.pause()
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm) and app.screen.is_mounted)
        question = shown(app.screen.query_one("#confirm-text"))
        assert visible_line(f"Delete “{ESCAPE_TITLE}” ({ids['escaped']})?") in question
        assert_clean(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is browser)
        assert browser.tree.select_session(ids["marked"])
        await pilot.pause()
        await pilot.press("d")  # a title that is markup, quoted as typed
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm) and app.screen.is_mounted)
        assert f"Delete “{MARKUP_TITLE}” ({ids['marked']})?" in shown(app.screen.query_one("#confirm-text"))
        assert_clean(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is browser)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RenameSession) and app.screen.is_mounted)
        dialog = app.screen
        assert dialog.query_one(Input).value == MARKUP_TITLE
        assert MARKUP_TITLE in screen_text(app)  # the old title, as typed: markup stays text
        assert_clean(app)
        renamed = HOSTILE["click"] + " v2"
        dialog.query_one(Input).value = renamed
        await pilot.press("enter")  # saved; the notification quotes the new title
        await wait_until(pilot, lambda: app.screen is browser and "Renamed to" in toasts(app))
        assert renamed in toasts(app)
        assert_clean(app)
        assert browser.tree.select_session(ids["escaped"])  # a title holding escapes, shown visibly
        await pilot.pause()
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RenameSession) and app.screen.is_mounted)
        assert app.screen.query_one(Input).value == visible_line(ESCAPE_TITLE)
        assert_clean(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is browser)
    close_app(app)
    db = SessionDB.open_home(hostile_home)
    assert db.get_session(ids["escaped"]).title == ESCAPE_TITLE  # neither deleted nor renamed
    assert db.get_session(ids["marked"]).title == renamed
    db.close()


# ----- a running tool named by the model --------------------------------------------------------


async def test_the_status_names_a_running_tool_literally(
        hostile_home: Path, title_llm: LoopbackLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    name = HOSTILE["spaced click"] + HOSTILE["osc title"]
    title_llm.push(Reply(tool_calls=[ToolCallSpec(name, "{}", id="t1")]), Reply(text="ok"))
    app = make_app(hostile_home)
    running, release = threading.Event(), threading.Event()
    tools = app.agent.tools
    call = tools.call

    def slow_call(tool: str, arguments: str, **kwargs):  # the tool runs until the test has looked
        if tool == name:
            running.set()
            release.wait(30)
        return call(tool, arguments, **kwargs)

    monkeypatch.setattr(tools, "call", slow_call)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        app.main.prompt.text = "run it"
        await pilot.press("enter")
        try:
            await wait_until(pilot, lambda: running.is_set() and "running tool" in shown(app.main.status))
            assert "running tool " + visible_line(name) in shown(app.main.status)
            assert "running tool [ @click=" in screen_text(app)
            assert_clean(app)
        finally:
            release.set()
        await wait_until(pilot, lambda: not app.busy)
        assert_clean(app)
    close_app(app)


# ----- hostile config values --------------------------------------------------------------------


async def test_hostile_model_name_and_theme_in_config_are_shown_literally(hostile_home: Path) -> None:
    model = "gpt-4o" + HOSTILE["click"] + HOSTILE["osc title"]
    theme = HOSTILE["spaced click"] + HOSTILE["csi sentinel"]
    set_config(hostile_home, model={"name": model}, display={"theme": theme})
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: "is not available" in toasts(app))
        assert_clean(app)
        assert visible(repr(theme)) in toasts(app)  # the warning quotes the value as written
        assert visible_line(model) in shown(app.main.status)
        assert "gpt-4o[@click=app.slash(" in screen_text(app)
        app.main.prompt.text = "/usage"  # the cache inspector names no model, but runs under this config
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen) and app.screen.is_mounted)
        assert_clean(app)
    close_app(app)


async def test_a_hostile_provider_name_is_refused_in_words_shown_literally(hostile_home: Path) -> None:
    provider = "openai" + HOSTILE["spaced click"] + HOSTILE["csi wipe"]
    set_config(hostile_home, model={"provider": provider})
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        assert app.agent.provider_problem
        await wait_until(pilot, lambda: "[ @click=app.slash(" in screen_text(app))
        assert_clean(app)
    close_app(app)


# ----- the 100 kB line in every store that takes it ---------------------------------------------


async def test_a_100_kb_line_in_a_memory_file_a_pending_record_and_titles(hostile_home: Path) -> None:
    ids = session_ids(hostile_home)
    (hostile_home / "memories" / "USER.md").write_text(LONG_LINE + "\n§\n" + LONE_CR, encoding="utf-8")  # a hand edit
    PendingQueue(hostile_home).stage({"action": "add", "target": "memory", "content": LONG_LINE}, origin="foreground")
    PendingQueue(hostile_home).stage({"action": "add", "target": "user", "content": LONE_CR}, origin="foreground")
    db = SessionDB.open_home(hostile_home)
    long_titled = db.create_session(source="cli", model="gpt-4o")
    db.append_messages(long_titled, [{"role": "user", "content": "long title " + LONE_CR}])
    assert db.set_title(long_titled, LONG_LINE) == "y" * 100  # the store cuts a title, cleanly
    db.close()
    with sqlite3.connect(hostile_home / "state.db") as conn:  # another program writes it whole
        conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (LONG_LINE, long_titled))
    app = make_app(hostile_home, resume=long_titled)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        assert_clean(app)
        assert app.agent.title == LONG_LINE
        assert "gpt-4o · openai │ " + "y" * 40 in shown(app.main.status)
        assert "over the 65,536-char entry limit" in shown(app.main.query_one("#memory-user .memory-warning"))
        assert visible(LONE_CR) in screen_text(app)  # the message's lone CR, shown
        queue = app.main.approvals
        rows = queue.query_one("#approval-list")
        long_row = next(i for i, r in enumerate(queue.records) if r.payload.get("content") == LONG_LINE)
        rows.highlighted = long_row
        await pilot.pause()
        assert "+ " + LONG_LINE in shown(queue.query_one("#approval-preview"))
        assert "y" * 40 in screen_text(app)  # its row (the summary cut at 120 characters)
        assert_clean(app)
        rows.highlighted = next(i for i, r in enumerate(queue.records) if r.payload.get("content") == LONE_CR)
        await pilot.pause()
        assert visible(LONE_CR) in shown(queue.query_one("#approval-preview"))
        assert_clean(app)
        app.main.prompt.text = "/memory add memory " + LONG_LINE  # the store refuses it: one line, no echo
        await pilot.press("enter")
        await wait_until(pilot, lambda: "would exceed the limit" in screen_text(app))
        notice = shown(app.main.chat.query(".notice").last())
        assert notice.startswith("/memory add: Memory at") and "\n" not in notice.strip()
        assert "y" * 200 not in notice
        assert_clean(app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen)
                         and app.screen.query_one(SessionTree).find(long_titled) is not None)
        await wait_until(pilot, lambda: "y" * 40 in screen_text(app))
        assert_clean(app)
        assert ids["marked"]  # the 100 kB message stays in its session, as before
    close_app(app)

