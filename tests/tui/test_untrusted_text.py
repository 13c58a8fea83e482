"""The trust boundary in the app: stored and streamed text is data, never markup, escapes or a click.

A home is filled with hostile strings in every place the app shows stored text (memory entries,
pending records, titles, messages, a theme file); the model streams more (a reply, a tool call,
an auto-title). For each screen: the app runs, the text is shown literally, no action link
exists, and no raw control character reaches the terminal output. Notifications are on here
(``run_test`` leaves them out by default): they quote staged writes and titles too.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Iterator

import pytest
import yaml

from engine import clock
from engine.memory import MemoryStore, PendingQueue
from engine.security import scan
from engine.store import SessionDB
from hermes_tui.app import HermesApp
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec
from hermes_tui.screens.usage import UsageScreen
from hermes_tui.untrusted import visible
from hermes_tui.widgets.approval_prompt import ApprovalPrompt
from hermes_tui.widgets.chat_messages import ToolBlock
from tests.hostile_text import HOSTILE, LONE_CR, LONG_LINE, SHOWN_ESC, hostile_actions, leaks
from tests.tui.helpers import (
    FIXED_NOW,
    SIZE,
    close_app,
    make_app,
    ready,
    screen_text,
    terminal_frame,
    wait_until,
    write_config,
)

VALUES = list(HOSTILE.values())
MARKUP_TITLE = HOSTILE["spaced click"]
ESCAPE_TITLE = "Escapes " + HOSTILE["osc title"] + HOSTILE["csi wipe"]


def assert_clean(app: HermesApp) -> None:
    """Nothing hostile reached the terminal, and nothing on screen is a hostile action link."""
    output, lines = terminal_frame(app)
    assert leaks(output) == []
    assert hostile_actions(lines) == []


def shown(widget) -> str:
    """The plain text a Static shows (what the user reads), whatever it was built from."""
    return str(widget.render())


SIDE_REPLY = HOSTILE["link"] + HOSTILE["osc clipboard"]  # what the model's side calls answer


def hostile_model() -> LoopbackLLM:
    """A model whose side calls (the auto-title, search summaries) answer with markup and escapes."""
    return LoopbackLLM(side_responder=lambda _body: Reply(text=SIDE_REPLY))


@pytest.fixture
def title_llm() -> Iterator[LoopbackLLM]:
    with hostile_model() as server:
        yield server


@pytest.fixture
def hostile_home(tmp_path: Path, title_llm: LoopbackLLM) -> Path:
    return fill_hostile_home(tmp_path / "hostile", title_llm)


def fill_hostile_home(home: Path, title_llm: LoopbackLLM) -> Path:
    """A home with hostile strings in every store the app shows (shared with test_untrusted_screens)."""
    write_config(home, title_llm, write_approval=True)
    memories = home / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text("\n§\n".join(VALUES[:7]), encoding="utf-8")
    (memories / "USER.md").write_text("\n§\n".join(VALUES[7:]), encoding="utf-8")
    queue = PendingQueue(home)
    # One second apart, so the queue (ordered by time, then by random id) lists them in this order:
    # the bulk-approval dialog shows the first eight, and those must include an escape sequence.
    for second, value in enumerate(VALUES):
        clock.set_clock(lambda second=second: FIXED_NOW + second)
        queue.stage({"action": "add", "target": "memory", "content": value}, origin="foreground")
    clock.set_clock(lambda: FIXED_NOW + len(VALUES))
    queue.stage({"action": "replace", "target": "user", "old_text": VALUES[8], "content": VALUES[0]},
                origin="background_review")
    clock.set_clock(lambda: FIXED_NOW)
    db = SessionDB.open_home(home)
    escaped = db.create_session(source="cli\x1b[31m", model="gpt-4o")
    db.append_messages(escaped, [{"role": "user", "content": f"deploy {v}"} for v in VALUES]
                       + [{"role": "assistant", "content": f"deploy reply {v}"} for v in VALUES])
    marked = db.create_session(source="cli", model="gpt-4o", title=MARKUP_TITLE)
    db.append_messages(marked, [{"role": "user", "content": "deploy " + LONG_LINE}])
    linked = db.create_session(source="cli", model="gpt-4o", title=HOSTILE["link"])
    db.append_messages(linked, [{"role": "user", "content": "a link title"}])
    db.close()
    with sqlite3.connect(home / "state.db") as conn:  # another program wrote a title with escapes
        conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (ESCAPE_TITLE, escaped))
    (home / "themes").mkdir()
    theme = {"name": "[@click=app.slash('/memory approve all')]evil\x1b]0;x\x07", "primary": "#ff0000"}
    (home / "themes" / "evil.yaml").write_text(yaml.safe_dump(theme), encoding="utf-8")
    (home / "session_ids.json").write_text(json.dumps({"escaped": escaped, "marked": marked}))
    return home


def session_ids(home: Path) -> dict[str, str]:
    return json.loads((home / "session_ids.json").read_text())


async def test_the_app_starts_and_shows_every_stored_string_literally(hostile_home: Path) -> None:
    escaped = session_ids(hostile_home)["escaped"]
    app = make_app(hostile_home, resume=escaped)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        assert_clean(app)
        panel = shown(app.main.query_one("#memory-memory .memory-entries")) + shown(
            app.main.query_one("#memory-user .memory-entries"))
        for value in VALUES:
            assert visible(value) in panel
        assert SHOWN_ESC + "]0;PWNED-TITLE" in panel
        status = shown(app.main.status)
        assert visible(ESCAPE_TITLE) in status
        assert "evil" not in app.available_themes  # a theme named with markup and escapes is refused
        assert app.main.approvals.count == len(VALUES) + 1
        for line in range(len(VALUES) + 1):  # every record and its preview
            app.main.approvals.query_one("#approval-list").highlighted = line
            await pilot.pause()
            assert_clean(app)
        replace_row = next(i for i, r in enumerate(app.main.approvals.records) if r.action == "replace")
        app.main.approvals.query_one("#approval-list").highlighted = replace_row
        await pilot.pause()
        preview = shown(app.main.approvals.query_one("#approval-preview"))
        assert "replace in user" in preview and visible(VALUES[0]) in preview
        chat = " ".join(shown(w) for w in app.main.chat.query(".user-message"))
        assert visible(HOSTILE["csi wipe"]) in chat
    close_app(app)


async def test_resuming_a_session_titled_with_markup_by_its_title(hostile_home: Path) -> None:
    app = make_app(hostile_home, resume=HOSTILE["link"])  # hermes-tui -r '[link=https://x.example]t[/]'
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        assert app.agent.title == HOSTILE["link"]
        assert HOSTILE["link"] in shown(app.main.status)
        assert_clean(app)
    close_app(app)


async def test_a_click_on_stored_markup_runs_nothing(hostile_home: Path) -> None:
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        entries = app.main.query_one("#memory-memory .memory-entries")
        for y in range(min(entries.size.height, 12)):  # every line of the spaced-click entry and more
            await pilot.click(entries, offset=(4, y))
        await pilot.pause()
        assert app.main.approvals.count == len(VALUES) + 1
        assert PendingQueue(hostile_home).count() == len(VALUES) + 1
    close_app(app)


async def test_reports_of_stored_data_are_literal(hostile_home: Path) -> None:
    app = make_app(hostile_home, resume=session_ids(hostile_home)["escaped"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        for command in ("/memory pending", "/resume", "/theme", "/memory"):
            app.main.prompt.text = command
            await pilot.press("enter")
            await pilot.pause()
            report = app.main.chat.query(".report-message").last()
            assert_clean(app)
            if command == "/memory pending":
                assert visible(MARKUP_TITLE) in shown(report)
            if command == "/resume":
                assert MARKUP_TITLE in shown(report) and visible(ESCAPE_TITLE) in shown(report)
        app.main.prompt.text = "/usage"  # a screen of its own, titled with the session's title
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen) and app.screen.is_mounted)
        assert_clean(app)
        assert visible(ESCAPE_TITLE) in shown(app.screen.query_one("#usage-title"))
        assert app.main.approvals.count == len(VALUES) + 1
    close_app(app)


async def test_browsers_show_hostile_titles_messages_and_snippets_literally(hostile_home: Path) -> None:
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("f7")
        await wait_until(pilot, lambda: "Sessions" in screen_text(app) and MARKUP_TITLE[:10] in screen_text(app))
        for _ in range(3):
            await pilot.press("down")
            await pilot.pause()
            assert_clean(app)
        await pilot.press("escape")
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: "Recent sessions" in screen_text(app))
        assert_clean(app)
        for ch in "deploy":
            await pilot.press(ch)
        await wait_until(pilot, lambda: "matches" in screen_text(app), timeout=15)
        for _ in range(6):
            await pilot.press("down")
            await pilot.pause()
            assert_clean(app)
        assert SHOWN_ESC in screen_text(app)
    close_app(app)


async def test_model_text_reply_tool_call_prompt_and_auto_title_are_literal(
        hostile_home: Path, title_llm: LoopbackLLM) -> None:
    reply = "Here you go:\n\n" + "\n\n".join(VALUES)
    staged = HOSTILE["spaced click"] + " " + HOSTILE["capital link"]
    # the write must be staged, not refused: a retrained learned layer that blocks it fails here, not in a 30 s wait
    assert not scan(staged), f"the threat scanner now refuses the staged text: {scan(staged)}"
    calls = [ToolCallSpec("memory", json.dumps({"action": "add", "target": "user", "content": staged}), id="c1"),
             ToolCallSpec(HOSTILE["click"], json.dumps({"q": HOSTILE["osc title"]}), id="c2")]
    title_llm.push(Reply(text=reply, tool_calls=calls, chunk_chars=7), Reply(text="done " + HOSTILE["csi wipe"]))
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        app.main.prompt.text = "hello"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.query(ApprovalPrompt))
        prompt = app.main.query_one(ApprovalPrompt)
        assert visible(staged) in shown(prompt.query_one(".approval-summary"))
        assert_clean(app)
        await pilot.press("escape")  # decide later: staged, with a notification quoting it
        await wait_until(pilot, lambda: not app.busy)
        await wait_until(pilot, lambda: app.agent.title is not None, timeout=15)
        assert_clean(app)
        toasts = " ".join(str(t.render()) for t in app.screen.query("Toast"))
        assert "waiting for approval" in toasts and visible(staged) in toasts
        for block in app.main.chat.query(ToolBlock):
            block.collapsed = False
        await pilot.pause()
        assert_clean(app)
        text = screen_text(app)
        assert "unknown tool" in text and "[@click=app.slash(" in text
        assert app.main.approvals.count == len(VALUES) + 2
        app.refresh_status()
        await pilot.pause()
        assert HOSTILE["link"] in shown(app.main.status)
        assert_clean(app)
    close_app(app)


async def test_an_over_limit_memory_file_loads_up_to_the_limit_with_a_warning(hostile_home: Path) -> None:
    memories = hostile_home / "memories"
    (memories / "MEMORY.md").write_text("\n§\n".join(f"note {i} {HOSTILE['osc title']}" for i in range(400)),  # 8× its limit
                                        encoding="utf-8")
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        warning = app.main.query_one("#memory-memory .memory-warning")
        assert warning.display and "over its 2,200-char limit" in shown(warning)
        assert "left out of the prompt" in shown(app.main.query_one("#memory-memory .memory-entries"))
        assert len(app.agent.system_prompt) < 10_000
        assert_clean(app)
    close_app(app)


def test_memory_store_still_holds_the_exact_bytes(hostile_home: Path) -> None:
    """Showing literally never rewrites: the stored entries are the hostile strings themselves."""
    store = MemoryStore(hostile_home / "memories")
    assert store.entries("memory") + store.entries("user") == [v.strip() for v in VALUES]


async def test_a_markdown_link_in_a_reply_shows_its_address_and_is_no_hyperlink(
        hostile_home: Path, title_llm: LoopbackLLM) -> None:
    """Rich would draw ``[text](url)`` as an OSC 8 hyperlink whose target the text need not
    match; the chat shows the address beside the text instead."""
    title_llm.push(Reply(text="Before.\n\n" + HOSTILE["markdown link"] + "\n\nAfter.", chunk_chars=5))
    app = make_app(hostile_home)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        app.main.prompt.text = "a link please"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.busy and "After." in screen_text(app))
        output, lines = terminal_frame(app)
        assert "\x1b]8;" not in output
        assert [s.text for line in lines for s in line if s.style is not None and s.style.link] == []
        assert "https://evil.example/x" in screen_text(app) and "the docs" in screen_text(app)
        assert_clean(app)
    close_app(app)


def test_leaks_sees_the_corpus_escapes_and_ignores_the_renderers_own() -> None:
    """The check itself: the renderer's SGR and cursor moves are not leaks; every escape of the
    corpus is, even where it looks like the renderer's own (a CSI), and so is a lone CR."""
    ours = "\x1b[1;1H\x1b[38;2;10;20;30;48;2;1;2;3mtext\x1b[0m\n\x1b[2;1H\x1b[1mmore\x1b[0m\r\n"
    assert leaks(ours) == []
    assert leaks(ours + HOSTILE["csi wipe"]) == ["'\\x1b[2J'", "'\\x1b[H'"]
    assert leaks(ours + HOSTILE["csi sentinel"]) == ["'\\x1b[7777;1H'", "'\\x1b[7777m'"]
    assert leaks("a\rb") == ["'\\r'"] and leaks("a\r\nb") == [] and leaks(LONE_CR, terminal=False) == ["'\\r'"]
    for name, value in HOSTILE.items():  # each item holding a control is seen raw, and not once shown
        assert bool(leaks(value)) == (visible(value) != value), name
        assert leaks(visible(value)) == [] and leaks(visible(value), terminal=False) == [], name
