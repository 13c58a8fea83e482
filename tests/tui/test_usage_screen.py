"""``/usage``, the prompt-cache inspector: the figures the loopback server reported for each
request, a deliberately broken prefix flagged with its position, the recall break labelled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest
import yaml

from engine.prompt.prefix import PrefixBreak
from engine.providers import TokenUsage
from engine.store import SessionDB
from engine.usage import RequestRecord
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec, Usage
from hermes_tui.screens.usage import UsageScreen, break_detail
from hermes_tui.untrusted import visible_line
from tests.hostile_text import HOSTILE
from tests.tui.helpers import SIZE, close_app, make_app, ready, screen_text, settle, turn_over, wait_until, write_config


@pytest.fixture
def model() -> Iterator[LoopbackLLM]:
    """Replies "Noted." unless a test scripts its own; side calls (titles) answer apart."""
    with LoopbackLLM(responder=lambda _body: Reply(text="Noted."), side_responder=lambda _body: Reply(text="Notes")) as server:
        yield server


def make_home(tmp_path: Path, server: LoopbackLLM, **memory: object) -> Path:
    """A home on the loopback model whose side calls (titles) answer apart from the script."""
    home = tmp_path / "home"
    write_config(home, server, **memory)
    return home


def conversation(server: LoopbackLLM) -> list:
    """The conversation's requests (they offer tools), not the title's."""
    return [r for r in server.requests if isinstance(r.json, dict) and r.json.get("tools")]


async def turn(pilot, text: str) -> None:
    app = pilot.app
    calls = len(app.agent.usage.requests)
    app.main.prompt.text = text
    await pilot.press("enter")
    # 30 s: the first call imports the provider's SDK, which takes seconds on a loaded machine.
    await wait_until(pilot, lambda: turn_over(app) and len(app.agent.usage.requests) > calls, timeout=30)


async def open_usage(pilot) -> UsageScreen:
    app = pilot.app
    app.main.prompt.text = "/usage"
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen) and app.screen.table.row_count)
    return app.screen


def cells(screen: UsageScreen, row: int) -> list[str]:
    return [str(cell) for cell in screen.table.get_row_at(row)]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_each_request_shows_the_cache_figures_the_server_reported(tmp_path: Path, model: LoopbackLLM,
                                                                        wire: str) -> None:
    home = make_home(tmp_path, model)
    if wire == "anthropic":
        config = yaml.safe_load((home / "config.yaml").read_text())
        config["model"] = {"provider": "anthropic", "name": "claude-sonnet-4-6", "base_url": model.base_url_anthropic}
        (home / "config.yaml").write_text(yaml.safe_dump(config))
    written = 0 if wire == "openai" else 1_200  # OpenAI's wire has no cache-write figure
    model.push(Reply(text="First.", usage=Usage(input_tokens=2_000, output_tokens=40, cache_read_tokens=0,
                                               cache_write_tokens=written)),
             Reply(text="Second.", usage=Usage(input_tokens=2_400, output_tokens=60, cache_read_tokens=1_800,
                                                cache_write_tokens=written and 300)))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await turn(pilot, "hello")
        await turn(pilot, "and again")
        screen = await open_usage(pilot)
        first, second = cells(screen, 0), cells(screen, 1)
        assert first[:7] == ["1", "1", "2,000", "0", f"{written:,}", "0%", "40"]
        assert second[:7] == ["2", "2", "2,400", "1,800", f"{written and 300:,}", "75%", "60"]
        assert second[9] == "kept"
        text = screen_text(app)
        assert "4,400 tokens, 41% from the cache (1,800 read" in text
        assert "a local server costs nothing" in text and "$0.0000" in text  # loopback: cost 0
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main)
    close_app(app)


async def test_a_system_prompt_changed_between_requests_is_flagged_with_its_position(tmp_path: Path,
                                                                                    model: LoopbackLLM) -> None:
    app = make_app(make_home(tmp_path, model))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await turn(pilot, "hello")
        old = app.agent.live.system_prompt
        app.agent.live.system_prompt = old.replace("\n", "\nToday is Tuesday.\n", 1)  # the bug to catch
        await turn(pilot, "and again")
        screen = await open_usage(pilot)
        broke = app.agent.usage.requests[1].prefix_break
        assert broke is not None and not broke.expected and broke.part == "system"
        first_line = old.split("\n", 1)[0]
        tools_bytes = len(json.dumps(conversation(model)[0].json["tools"], ensure_ascii=False).encode())
        assert broke.offset == tools_bytes + 1 + len(('"' + first_line).encode()) + 2  # after the escaped "\n"
        assert cells(screen, 1)[9] == f"BROKEN · system @ {broke.offset:,}"
        assert screen.table.cursor_row == 1  # the inspector opens on the break
        text = screen_text(app)
        assert f"at byte {broke.offset:,} — system" in text and "NOT expected" in text
        assert "after   Today is Tuesday." in text
    close_app(app)


async def test_with_recall_on_the_break_at_the_previous_user_message_is_expected(tmp_path: Path,
                                                                                model: LoopbackLLM) -> None:
    home = make_home(tmp_path, model, provider="local")
    with SessionDB.open_home(home) as db:
        earlier = db.create_session(title="Earlier")
        db.append_messages(earlier, [{"role": "user", "content": "How do I run the postgres migration?"},
                                     {"role": "assistant", "content": "Use pg_dump then pg_restore."}])
        db.end_session(earlier, "user_exit")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await turn(pilot, "Remind me about the postgres migration")
        await turn(pilot, "And the postgres migration rollback?")
        assert "<memory-context>" in conversation(model)[-1].json["messages"][-1]["content"]
        screen = await open_usage(pilot)
        broke = app.agent.usage.requests[1].prefix_break
        assert broke is not None and broke.expected and broke.part == "message 1 (user)"
        assert cells(screen, 1)[9] == "expected · message 1 (user)"
        text = screen_text(app)
        assert "expected — recall: the fence moved" in text and "1 expected" in text
        assert "unexpected" not in text
    close_app(app)


async def test_with_no_requests_the_screen_says_so_and_refreshes_after_a_turn(tmp_path: Path, model: LoopbackLLM) -> None:
    app = make_app(make_home(tmp_path, model))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.main.prompt.text = "/usage"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen))
        assert "No requests in this session yet" in screen_text(app)
        screen = app.screen
        await pilot.press("escape")
        await turn(pilot, "hello")
        app.push_screen(screen)
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.table.row_count == 1)
    close_app(app)


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["120x36", "80x24"])
async def test_a_resumed_session_shows_its_earlier_requests_and_their_cached_share(
        tmp_path: Path, model: LoopbackLLM, size: tuple[int, int]) -> None:
    """A turn, ctrl+q, the session resumed in a new app: ``/usage`` shows that request (stored in
    state.db) with the share the server reported; the next one is numbered after it and says it
    was not compared (the earlier request's bytes are gone with the first app)."""
    home = make_home(tmp_path, model)
    model.push(Reply(text="First.", usage=Usage(input_tokens=2_000, output_tokens=40, cache_read_tokens=1_500)),
               Reply(text="Second.", usage=Usage(input_tokens=2_200, output_tokens=30, cache_read_tokens=2_000)))
    first = make_app(home)
    async with first.run_test(size=size) as pilot:
        await ready(pilot)
        await turn(pilot, "hello")
        session_id = first.agent.session_id or ""
        await pilot.press("ctrl+q")
    close_app(first)
    app = make_app(home, resume=session_id)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        screen = await open_usage(pilot)
        assert cells(screen, 0)[:7] == ["1", "1", "2,000", "1,500", "0", "75%", "40"]
        assert "1 request · prompt 2,000 tokens, 75% from the cache (1,500 read" in screen_text(app)
        await pilot.press("escape")
        await turn(pilot, "and again")
        screen = await open_usage(pilot)
        assert screen.table.row_count == 2 and cells(screen, 1)[5] == "91%" and cells(screen, 1)[9] == "not compared"
        assert "so they were not compared" in " ".join(screen_text(app).split())  # wrapped at 80 columns
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main)
    close_app(app)


def test_snapshot_of_the_inspector(snap_compare, tmp_path: Path, model: LoopbackLLM) -> None:
    """Three turns priced as gpt-4o (local servers billed, for the picture), one with a tool
    round, the last after a system prompt changed under the session; the break is highlighted."""
    home = make_home(tmp_path, model)
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["pricing"] = {"local_servers_free": False}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    search = ToolCallSpec("session_search", json.dumps({"query": "postgres"}), id="call_usage1")
    model.push(Reply(text="Hello.", usage=Usage(input_tokens=3_100, output_tokens=60, cache_read_tokens=0)),
               Reply(tool_calls=[search], usage=Usage(input_tokens=3_300, output_tokens=30, cache_read_tokens=3_000)),
               Reply(text="Found it.", usage=Usage(input_tokens=3_600, output_tokens=120, cache_read_tokens=3_200)),
               Reply(text="Sure.", usage=Usage(input_tokens=3_800, output_tokens=80, cache_read_tokens=0)))
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        app.agent.set_title("Cache check")
        await turn(pilot, "hello")
        await turn(pilot, "find the postgres notes")
        await wait_until(pilot, lambda: len(app.agent.usage.requests) == 3 and turn_over(app))
        app.agent.live.system_prompt = app.agent.live.system_prompt.replace("\n", "\nToday is Tuesday.\n", 1)
        await turn(pilot, "thanks")
        await open_usage(pilot)
        app.clear_notifications()
        await settle(pilot)

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        close_app(app)


def test_break_excerpts_are_shown_literally() -> None:
    """Excerpts are request text (the user's, the model's): markup stays text, controls show."""
    hostile = HOSTILE["spaced click"] + HOSTILE["bidi"]
    broke = PrefixBreak(offset=10, part="message 2 (assistant)", offset_in_part=3, shared=hostile, before=hostile,
                        after="[bold]x[/bold]\x9b", expected=False, reason="before the previous request's last user message")
    record = RequestRecord(2, "s", 1, TokenUsage(10, 1), None, broke)
    plain = break_detail(record).plain
    assert f"shared  {visible_line(hostile)}" in plain and "after   [bold]x[/bold]\\x9b" in plain
    assert "\u202e" not in plain and "\x9b" not in plain
