"""Issue 18 §6 in the app: each of the smaller defects, one test each (the command-line ones are in
tests/cli/test_homes_and_usage.py, the sessions screen's in test_sessions_screen.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from engine import clock
from engine.memory import MemoryStore, PendingQueue
from engine.store import StoredMessage
from hermes_tui import app_launch
from hermes_tui.app import START_DEMO
from hermes_tui.loopback_llm import Hold, LoopbackLLM, Reply, Usage
from hermes_tui.widgets.approval_queue import PendingList
from hermes_tui.widgets.prompt_input import PromptHistory
from hermes_tui.widgets.transcript_preview import message_text
from tests.tui.helpers import FIXED_NOW, SIZE, close_app, make_app, ready, screen_text, turn_over, wait_until


async def send(pilot, text: str) -> None:
    pilot.app.main.prompt.text = text
    await pilot.press("enter")


def chat_texts(app) -> list[str]:
    return [entry.text or (entry.report.plain if entry.report else "") for entry in app.main.chat.entries]


async def test_the_no_key_notice_names_the_config_file_and_f9_starts_the_demo(keyless_home: Path) -> None:
    app = make_app(keyless_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        notice = next(text for text in chat_texts(app) if "ANTHROPIC_API_KEY" in text)
        assert f"model.base_url in {keyless_home / 'config.yaml'} at a local" in notice
        assert any("F9 starts the offline demo" in text for text in chat_texts(app))
        assert not app.main.query_one("#empty-hint").display  # the notice says what to do instead
        await pilot.press("f9")
    assert app.return_value == START_DEMO
    close_app(app)


def test_taking_the_demo_offer_runs_the_demo_in_place_of_the_app(monkeypatch, tmp_path: Path) -> None:
    class Ended:
        return_value, return_code = START_DEMO, 0

    demos: list[argparse.Namespace] = []
    monkeypatch.setattr(app_launch, "run_app", lambda args, ctx, **kw: Ended())
    monkeypatch.setattr(app_launch, "launch_demo", lambda args: demos.append(args) or 0)

    class Context:
        closed = False

        def close(self) -> None:
            self.closed = True

    ctx = Context()
    args = argparse.Namespace(demo=False, resume="my session", continue_title=None)
    assert app_launch.launch_app(args, ctx) == 0  # type: ignore[arg-type]
    assert ctx.closed and demos[0].resume is None  # the user's home is closed; -r meant their home


async def test_a_configured_empty_chat_shows_a_hint_until_the_first_message(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="Hello."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        hint = app.main.query_one("#empty-hint")
        await wait_until(pilot, lambda: hint.display and "Type a message and press enter" in screen_text(app))
        assert app.main.chat.entries == []  # a hint, not a chat item
        await send(pilot, "hi")
        await wait_until(pilot, lambda: not hint.display)
    close_app(app)


async def test_ctx_keeps_its_figure_after_a_cancelled_turn(home: Path, llm: LoopbackLLM) -> None:
    hold = Hold(after_chars=10)
    llm.push(Reply(text="First answer.", usage=Usage(input_tokens=12_800, output_tokens=20)),
             Reply(text="Greetings"),  # the title, made after the first exchange
             Reply(text="A long second answer " * 20, hold=hold))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        await wait_until(pilot, lambda: turn_over(app) and app.agent.title == "Greetings")
        assert app.agent.last_prompt_tokens == 12_800
        assert "ctx 10% of 128.0k" in screen_text(app)
        await send(pilot, "two")
        await wait_until(pilot, lambda: app.bridge.reply is not None and app.main.chat.entries[-1].text)
        await pilot.press("escape")
        await wait_until(pilot, lambda: turn_over(app))
        hold.release()
        assert "ctx 10% of 128.0k" in screen_text(app)
    close_app(app)


async def test_memory_commands_and_queue_decisions_report_in_the_chat(upstream_home: Path) -> None:
    app = make_app(upstream_home)
    records, _ = PendingQueue(upstream_home).list()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot)
        await send(pilot, "/memory pending")
        await wait_until(pilot, lambda: app.main.chat.entries)
        report = app.main.chat.entries[-1]
        assert report.kind == "report" and all(r.id in report.report.plain for r in records)  # literal, whole
        await send(pilot, "/memory add --target user Drinks green tea")  # the command line's spelling
        await wait_until(pilot, lambda: any(t.startswith("Memory add (user)") for t in chat_texts(app)))
        assert "Drinks green tea" in MemoryStore(upstream_home / "memories").entries("user")
        await send(pilot, f"/memory reject {records[0].id}")
        await wait_until(pilot, lambda: any(t.startswith(f"Rejected {records[0].id}") for t in chat_texts(app)))
        await pilot.press("f3", "enter")  # a key in the queue reports in the same place
        await wait_until(pilot, lambda: any(t.startswith(f"Approved {records[1].id}") for t in chat_texts(app)))
        assert not app.screen.query("Toast")
    close_app(app)


async def test_approval_ages_move_on_while_the_queue_stands_still(upstream_home: Path) -> None:
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        options = app.main.query_one(PendingList)
        first = str(options.get_option_at_index(0).prompt)
        clock.set_clock(lambda: FIXED_NOW + 7 * 86400)  # a week later, nothing on disk changed
        await wait_until(pilot, lambda: str(options.get_option_at_index(0).prompt) != first, timeout=5)
        assert "d  " in str(options.get_option_at_index(0).prompt)  # counted in days now
    close_app(app)


async def test_new_says_new_session_once(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="Hello."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await wait_until(pilot, lambda: turn_over(app) and app.agent.session_id)
        await send(pilot, "/new")
        await wait_until(pilot, lambda: "New session." in chat_texts(app))
        assert "New session new session" not in screen_text(app)
    close_app(app)


async def test_resuming_the_session_one_is_in_says_so(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="Hello."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await wait_until(pilot, lambda: turn_over(app) and app.agent.session_id)
        session_id = app.agent.session_id
        await send(pilot, f"/resume {session_id}")
        await wait_until(pilot, lambda: any(t.startswith("Already in") for t in chat_texts(app)))
        assert not any(t.startswith("Resumed") for t in chat_texts(app))
    close_app(app)


def test_prompt_history_drops_consecutive_duplicates() -> None:
    history = PromptHistory()
    for text in ("status", "status", "deploy", "status", "status"):
        history.push(text)
    assert history.items == ["status", "deploy", "status"]
    assert history.previous("") == "status" and history.previous("") == "deploy"


def test_the_preview_draws_a_reply_as_markdown_whose_links_and_markup_cannot_act() -> None:
    text = "**Done**: see [the docs](https://example.com/x) and `make test`.\n\n- one\n- two\n\n[bold red]x[/] [@click=app.quit]y[/]"
    shown = message_text(StoredMessage(id=1, session_id="s", role="assistant", content=text, timestamp=FIXED_NOW))
    console = Console(width=100, record=True, force_terminal=True, color_system="truecolor")
    console.print(shown)
    plain = console.export_text()
    assert "**" not in plain and "Done: see the docs" in plain and "• one" in plain
    assert "[bold red]x[/] [@click=app.quit]y[/]" in plain  # stored text is never markup
    segments = list(console.render(shown))
    assert not any(seg.style and (seg.style.link or seg.style.meta) for seg in segments)  # no hyperlink, no action


async def test_a_home_created_at_start_is_said_once_in_the_chat(home: Path) -> None:
    app = make_app(home)
    app.notes = (f"New Hermes home created at {home}.",)  # what the command line passes for a new home
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert chat_texts(app).count(f"New Hermes home created at {home}.") == 1
    close_app(app)
