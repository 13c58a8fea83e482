"""A provider that stalls never traps the user: escape and quitting end the turn at once, and
the configured limits end it with a one-line error. The stalls last 30 s; every wait below is
bounded well under that, so only the fix can make them pass."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Callable

import yaml

from hermes_tui.loopback_llm import Hold, LoopbackLLM, Reply, Silent
from tests.tui.helpers import SIZE, close_app, make_app, ready, screen_text, turn_over, wait_until
from tests.tui.test_flows import send, stored


async def test_escape_while_the_provider_sends_nothing_ends_the_turn(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Silent(), Reply(text="Back again."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello?")
        await wait_until(pilot, lambda: len(llm.requests) == 1 and app.busy)
        await pilot.press("escape")
        await wait_until(pilot, lambda: turn_over(app), timeout=15)
        await send(pilot, "still there?")  # the app is usable again at once
        await wait_until(pilot, lambda: "Back again." in screen_text(app), timeout=15)
    close_app(app)


async def test_quitting_during_a_stalled_stream_keeps_what_was_shown(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="Partial answer, then " + "more " * 200, chunk_chars=5, hold=Hold(after_chars=20)))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "explain")
        await wait_until(pilot, lambda: len(app.main.chat.entries) > 1 and app.main.chat.entries[-1].text)
        session_id = app.agent.session_id or ""
        await pilot.press("ctrl+q")

    def cancelled_reply() -> bool:  # quitting cancels the turn, which stores what was shown
        last = stored(home, session_id)[-1]
        return last["role"] == "assistant" and last.get("finish_reason") == "cancelled"

    await wait_until_closed(cancelled_reply, timeout=15)
    close_app(app)
    assert stored(home, session_id)[-1]["content"].startswith("Partial answer")


async def test_a_silent_provider_ends_the_turn_with_the_limit_named(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = {"model": {"provider": "openai", "name": "gpt-4o", "base_url": llm.base_url_openai,
                        "timeouts": {"first_byte": 0.5}},
              "memory": {"nudge_interval": 0}, "display": {"theme": "textual-dark"}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    llm.push(Silent())
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello?")
        # the error is drawn just before the worker returns and the turn ends: wait for both
        await wait_until(pilot, lambda: "model.timeouts.first_byte" in screen_text(app) and turn_over(app),
                         timeout=10)
    close_app(app)


async def wait_until_closed(condition: Callable[[], bool], timeout: float) -> None:
    """``wait_until`` for after the app has closed (no pilot to pause on)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s: {condition}")
        await asyncio.sleep(0.02)
