"""Pilot flows over the real Agent, the real OpenAI SDK and the loopback model server."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot

from engine.memory import MemoryStore, PendingQueue
from engine.store import SessionDB
from hermes_tui.loopback_llm import Hold, LoopbackLLM, Reply, ToolCallSpec
from hermes_tui.screens.sessions import SessionsScreen
from hermes_tui.widgets.approval_prompt import ApprovalPrompt
from hermes_tui.widgets.chat_markdown import AssistantMessage
from tests.tui.helpers import (SIZE, close_app, make_app, ready, screen_text, settle, turn_over, type_text, wait_until,
                               write_config)

REPLY = "Sure. Here is the plan:\n\n1. read the logs\n2. fix the bug\n\n```python\nprint('done')\n```\n"


def memory_call(content: str, call_id: str = "call_mem1", target: str = "user") -> ToolCallSpec:
    return ToolCallSpec("memory", json.dumps({"action": "add", "target": target, "content": content}), id=call_id)


async def send(pilot, text: str) -> None:
    """Put ``text`` in the prompt and press enter (typing key by key is tested once, below)."""
    pilot.app.main.prompt.text = text
    await pilot.press("enter")


def stored(home: Path, session_id: str) -> list[dict]:
    db = SessionDB.open_home(home)
    try:
        return db.load_transcript(session_id)
    finally:
        db.close()


async def test_send_streams_the_reply_and_stores_it(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text=REPLY, chunk_chars=5))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "plan the fix")
        await wait_until(pilot, lambda: turn_over(app) and app.agent.session_id)
        reply = app.main.chat.query(AssistantMessage).last()
        assert reply.source == REPLY
        assert "print('done')" in screen_text(app) and "plan the fix" in screen_text(app)
        assert app.main.prompt.text == ""
        session_id = app.agent.session_id
    close_app(app)
    transcript = stored(home, session_id)
    assert [(m["role"], m["content"]) for m in transcript] == [("user", "plan the fix"), ("assistant", REPLY)]


LONG_REPLY = "".join(
    f"## Step {n}\n\nWe check the service.\n\n- item {n}.1\n- item {n}.2\n\n```python\nprint({n})\n```\n\n"
    for n in range(40)
) + "End of the report."


@asynccontextmanager
async def paced_reply(tmp_path: Path, reply: str, tokens_per_second: float, prompt: str) -> AsyncIterator[Pilot]:
    """The app with ``prompt`` sent and ``reply`` streaming from a model paced like a real one."""
    with LoopbackLLM(tokens_per_second=tokens_per_second) as paced:
        home = tmp_path / "home"
        write_config(home, paced)
        paced.push(Reply(text=reply, chunk_chars=4))
        app = make_app(home)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await send(pilot, prompt)
            yield pilot
        close_app(app)


async def test_a_long_streamed_reply_ends_on_screen(tmp_path: Path) -> None:
    """While a reply streams, heights inside it change between frames; when it ends, the view
    must sit at its last line (a cached item height once cut the last lines off)."""
    async with paced_reply(tmp_path, LONG_REPLY, 3000, "write the report") as pilot:
        app = pilot.app
        await wait_until(pilot, lambda: app.agent.session_id and turn_over(app), timeout=30)
        await settle(pilot)
        assert "End of the report." in screen_text(app)
        assert app.main.chat.scroll_y == app.main.chat.max_scroll_y


async def test_a_reply_finishing_under_another_screen_still_finishes(home: Path, llm: LoopbackLLM) -> None:
    """The finished reply waits for a frame of the main screen, which may be covered meanwhile."""
    reply = "A reply that streams for a while. " * 80
    hold = Hold(after_chars=40)
    llm.push(Reply(text=reply, hold=hold))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await wait_until(pilot, lambda: app.bridge.reply is not None and app.main.chat.entries[-1].text)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert app.busy  # held: still streaming under the sessions screen
        hold.release()
        await wait_until(pilot, lambda: turn_over(app))
        assert isinstance(app.screen, SessionsScreen)
        assert app.agent.messages[-1]["content"] == reply
    close_app(app)


async def test_model_memory_write_updates_the_panel(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(tool_calls=[memory_call("Prefers green tea")]), Reply(text="Noted."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "remember I like green tea")
        section = app.main.query_one("#memory-user")
        await wait_until(pilot, lambda: "Prefers green tea" in section.entries)
        await wait_until(pilot, lambda: turn_over(app))
        text = screen_text(app)
        assert "+ Prefers green tea" in text and "+ in the prompt from next session" in text  # enters the prompt next session
        assert section.header == "USER PROFILE (who the user is) [1% — 17/1,375 chars]"
        assert "✓" in text and "memory" in text  # the tool block
    close_app(app)


async def test_a_write_by_another_process_shows_without_a_restart(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        MemoryStore(home / "memories").add("memory", "Staging server is 10.0.1.50")
        section = app.main.query_one("#memory-memory")
        await wait_until(pilot, lambda: "Staging server is 10.0.1.50" in section.entries)
    close_app(app)


async def test_approve_and_reject_from_the_queue(upstream_home: Path) -> None:
    app = make_app(upstream_home)
    queue = PendingQueue(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.main.approvals.count == 2
        assert "2 pending" in screen_text(app)
        await pilot.press("f3")
        await pilot.press("enter")  # the oldest: the [auto] add to memory
        await wait_until(pilot, lambda: app.main.approvals.count == 1)
        assert "upgraded to Kubernetes 1.31" in "\n".join(MemoryStore(upstream_home / "memories").entries("memory"))
        assert any("staging cluster was upgraded" in e for e in app.main.query_one("#memory-memory").entries)
        await pilot.press("delete")
        await wait_until(pilot, lambda: app.main.approvals.count == 0)
        assert "0 pending" in screen_text(app)
    close_app(app)
    assert queue.list() == ([], [])


async def test_unknown_pending_id_is_refused_and_nothing_changes(upstream_home: Path) -> None:
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/memory approve deadbeef")
        await wait_until(pilot, lambda: "deadbeef" in screen_text(app))
        assert "No pending memory write with id 'deadbeef'" in screen_text(app)
        assert app.main.approvals.count == 2
    close_app(app)


async def test_escape_cancels_and_keeps_what_was_shown(home: Path, llm: LoopbackLLM) -> None:
    hold = Hold(after_chars=40)  # the stream stalls here for 30 s: only the cancel can end it sooner
    llm.push(Reply(text="word " * 400, chunk_chars=5, hold=hold))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "talk a lot")
        await wait_until(pilot, lambda: len(app.main.chat.entries) > 1 and len(app.main.chat.entries[-1].text) > 20)
        await pilot.press("escape")
        await wait_until(pilot, lambda: turn_over(app), timeout=15)
        entry = app.main.chat.entries[-1]
        assert entry.cancelled and 20 <= len(entry.text) < len("word " * 400)
        assert "cancelled — kept what was shown" in screen_text(app)
        session_id = app.agent.session_id
    close_app(app)
    assistant = [m for m in stored(home, session_id) if m["role"] == "assistant"]
    assert assistant[-1]["content"] == entry.text  # the transcript records what was shown


async def test_title_command_renames_the_session_in_state_db(home: Path, llm: LoopbackLLM) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/title Release checklist")
        await wait_until(pilot, lambda: app.agent.title == "Release checklist")
        assert "Release checklist" in screen_text(app)  # the status bar
        session_id = app.agent.session_id
        await send(pilot, "/title")
        await wait_until(pilot, lambda: "/title needs a name" in screen_text(app))
    close_app(app)
    db = SessionDB.open_home(home)
    assert db.require_session(session_id).title == "Release checklist"
    db.close()


async def test_unknown_command_suggests_close_matches(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/memroy")
        await wait_until(pilot, lambda: "Unknown command /memroy" in screen_text(app))
        assert "Did you mean /memory" in screen_text(app)
    close_app(app)


async def test_inline_approval_ignores_keys_in_the_grace_period_then_allows(home: Path, llm: LoopbackLLM) -> None:
    write_config(home, llm, write_approval=True)
    llm.push(Reply(tool_calls=[memory_call("Works on the payments team")]), Reply(text="Saved it."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "I work on payments")
        await wait_until(pilot, lambda: app.main.query(ApprovalPrompt))
        prompt = app.main.query_one(ApprovalPrompt)
        prompt.grace = 3600.0  # a keystroke already in flight lands inside the grace period
        await pilot.press("1")
        await pilot.pause()
        assert not prompt.future.done()
        prompt.grace = 0.0  # the period is over
        await pilot.press("1")
        await wait_until(pilot, lambda: turn_over(app))
        assert "Works on the payments team" in MemoryStore(home / "memories").entries("user")
        assert not app.main.query(ApprovalPrompt)
        assert app.focused is app.main.prompt
    close_app(app)


async def test_inline_approval_timeout_stages_the_write(home: Path, llm: LoopbackLLM) -> None:
    write_config(home, llm, write_approval=True)
    llm.push(Reply(tool_calls=[memory_call("Uses vim keybindings")]), Reply(text="Staged."))
    app = make_app(home, approval_timeout=0.3)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "I use vim")
        await wait_until(pilot, lambda: turn_over(app))
        assert app.main.approvals.count == 1
        assert "Uses vim keybindings" in app.main.approvals.records[0].summary
        assert MemoryStore(home / "memories").entries("user") == []
    close_app(app)


async def test_user_memory_edits_apply_directly_and_refusals_change_nothing(home: Path) -> None:
    app = make_app(home)
    store = MemoryStore(home / "memories")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, '/memory add user "Prefers metric units"')
        await wait_until(pilot, lambda: "Prefers metric units" in app.main.query_one("#memory-user").entries)
        before = store.path("user").read_bytes()
        await send(pilot, f'/memory add user "{"x" * 1400}"')
        await wait_until(pilot, lambda: "would exceed the limit" in screen_text(app))
        assert store.path("user").read_bytes() == before
        await send(pilot, '/memory remove user "no such entry"')
        await wait_until(pilot, lambda: "/memory remove:" in screen_text(app))
        assert store.path("user").read_bytes() == before
    close_app(app)


async def test_no_key_still_opens_and_memory_works(keyless_home: Path) -> None:
    app = make_app(keyless_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "ANTHROPIC_API_KEY" in screen_text(app)
        await send(pilot, "hello?")
        await wait_until(pilot, lambda: turn_over(app))
        await send(pilot, "/memory add memory Project uses uv")
        await wait_until(pilot, lambda: "Project uses uv" in app.main.query_one("#memory-memory").entries)
    close_app(app)


async def test_prompt_keys_newline_history_and_completion(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        prompt = app.main.prompt
        await type_text(pilot, "one")
        await pilot.press("shift+enter")
        await type_text(pilot, "two")
        await pilot.press("ctrl+j")
        assert prompt.text == "one\ntwo\n"
        prompt.clear()
        await type_text(pilot, "/ti")
        assert "/title" in screen_text(app)  # the completion hint
        await pilot.press("tab")
        assert prompt.text == "/title "
        await type_text(pilot, "First")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.agent.title == "First")
        await pilot.press("up")
        assert prompt.text == "/title First"
        await pilot.press("down")
        assert prompt.text == ""
    close_app(app)


async def test_scrolled_up_shows_the_new_output_hint_until_back_at_the_end(home: Path, llm: LoopbackLLM) -> None:
    text = "".join(f"line {n}\n\n" for n in range(120))
    hold = Hold(after_chars=400)  # enough to scroll; the rest comes once the user has scrolled up
    llm.push(Reply(text=text, chunk_chars=8, hold=hold))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "count")
        chat = app.main.chat
        await wait_until(pilot, lambda: chat.max_scroll_y > 5)
        chat.scroll_home(animate=False)
        await wait_until(pilot, lambda: not chat.following)
        hold.release()
        hint = app.main.query_one("#new-output")
        await wait_until(pilot, lambda: hint.display)
        await wait_until(pilot, lambda: turn_over(app))
        assert chat.scroll_y == 0  # the view stayed where the user put it
        await pilot.click("#new-output")
        await wait_until(pilot, lambda: not hint.display and chat.following)
        assert chat.scroll_y == chat.max_scroll_y
    close_app(app)


def palette_offers(app, command: str) -> bool:
    """The command palette lists its search results and the highlighted one is ``command``."""
    if not isinstance(app.screen, CommandPalette):
        return False
    results = app.screen.query_one(CommandList)
    index = results.highlighted
    return index is not None and str(results.get_option_at_index(index).prompt).startswith(command)


async def test_palette_runs_slash_commands_and_prefills_ones_needing_an_argument(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+p")
        await type_text(pilot, "/usage")
        await wait_until(pilot, lambda: palette_offers(app, "/usage"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: "context: not measured yet" in screen_text(app))  # the /usage screen
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await type_text(pilot, "/title")
        await wait_until(pilot, lambda: palette_offers(app, "/title"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.prompt.text == "/title ")
    close_app(app)


async def test_theme_command_switches_and_persists_and_refuses_unknown_names(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/theme nord")
        await wait_until(pilot, lambda: app.theme == "nord")
        await send(pilot, "/theme no-such-theme")
        await wait_until(pilot, lambda: "no theme named 'no-such-theme'" in screen_text(app))
        assert app.theme == "nord"
    close_app(app)
    assert "theme: nord" in (home / "config.yaml").read_text(encoding="utf-8")


async def test_resume_at_start_shows_the_transcript_and_copy_takes_the_last_reply(home: Path) -> None:
    db = SessionDB.open_home(home)
    session_id = db.create_session(source="tui", title="Earlier work")
    db.append_messages(session_id, [{"role": "user", "content": "what port?"},
                                    {"role": "assistant", "content": "Port **8443**."}])
    db.close()
    app = make_app(home, resume="Earlier work")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        text = screen_text(app)
        assert "what port?" in text and "Port 8443." in text and "Earlier work" in text
        await send(pilot, "/copy")
        await wait_until(pilot, lambda: app.clipboard == "Port **8443**.")
    close_app(app)


def test_unknown_resume_target_fails_before_the_screen_opens(home: Path, capsys) -> None:
    from hermes_tui.cli import main

    assert main(["--home", str(home), "-r", "no-such-session"]) == 1
    assert "no-such-session" in capsys.readouterr().err
