"""Snapshots of the states issue 18 §2–3 added: the command list under ``/``, the focused chat
with a message selected for copying, and the status bar naming a wait for the model."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.loopback_llm import LoopbackLLM, Reply, Silent
from tests.tui.helpers import SIZE, close_app, make_app, ready, settle, turn_over, wait_until
from tests.tui.test_flows import send


def snapshot(snap_compare, app, run_before) -> bool:
    try:
        return snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        close_app(app)


def test_slash_opens_the_command_list(snap_compare, home: Path) -> None:
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("slash", "s")
        await settle(pilot)

    assert snapshot(snap_compare, app, run_before)


def test_focused_chat_with_a_message_selected(snap_compare, home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="Deploys go out on Tuesdays after the release review."),
             Reply(text="Release notes"))  # the auto-title
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        await send(pilot, "When do deploys go out?")
        await wait_until(pilot, lambda: turn_over(app) and app.agent.title)
        app.main.chat.focus()
        await pilot.press("up", "up")
        await settle(pilot)

    assert snapshot(snap_compare, app, run_before)


def test_status_bar_names_the_wait_for_the_model(snap_compare, home: Path, llm: LoopbackLLM,
                                                fixed_clock: float, fixed_ids: None) -> None:
    """Clock and ids pinned, so the elapsed time and the session id read the same on any machine."""
    llm.push(Silent(timeout_s=10))
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        await send(pilot, "hello?")
        await wait_until(pilot, lambda: llm.requests and "waiting for the model" in str(app.main.status.render()))
        await settle(pilot)

    assert snapshot(snap_compare, app, run_before)
