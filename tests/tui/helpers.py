"""Helpers for the app tests and the TUI bench: config for the loopback model, the real app,
polling waits and the screen as plain text."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path
from typing import Callable, TypeVar

import yaml
from rich.console import Console
from rich.segment import Segment
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import TextArea

from engine.agent import Agent
from engine.config import load_config
from engine.store import SessionDB
from hermes_tui.app import HermesApp
from hermes_tui.loopback_llm import LoopbackLLM
from tests.conftest import FIXED_NOW  # the suite's one pinned clock, re-exported for the app tests

SIZE = (120, 36)
T = TypeVar("T")


def drawn_frames(app: App, look: Callable[[], T], when: Callable[[], bool] = lambda: True) -> list[T]:
    """From now on, ``look()`` taken after each frame the app draws (hands to its driver) while
    ``when()`` holds, in order."""
    frames: list[T] = []
    display = app._display

    def recorded(screen, update) -> None:
        display(screen, update)
        if update is not None and when():
            frames.append(look())

    app._display = recorded  # type: ignore[method-assign]
    return frames


def write_config(home: Path, llm: LoopbackLLM, **memory: object) -> None:
    home.mkdir(parents=True, exist_ok=True)
    config = {
        "model": {"provider": "openai", "name": "gpt-4o", "base_url": llm.base_url_openai},
        "memory": {"nudge_interval": 0, **memory},
        "display": {"theme": "textual-dark"},
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def make_app(home: Path, *, approval_timeout: float = 120.0, approval_idle: float = 0.0,
             resume: str | None = None, welcome: str | None = None, prebuild_browsers: bool = False) -> HermesApp:
    """The real app over the real Agent and store; close with ``close_app``.

    The inline approval prompt takes focus at once (``approval_idle=0``) unless a test is about
    the wait for a pause in typing. The browsers are built when first opened, not in the first
    pause (a moment that depends on the machine's speed), unless a test is about that.
    """
    config = load_config(home)
    db = SessionDB.open_home(home)
    app = HermesApp(
        lambda ask: Agent.start(config, db, ask_approval=ask, resume=resume, cwd=home),
        db,
        approval_timeout=approval_timeout,
        approval_idle=approval_idle,
        welcome=welcome,
        prebuild_browsers=prebuild_browsers,
    )
    # A toast lives 5 s; on a loaded machine a test can take longer than that to read it.
    app.NOTIFICATION_TIMEOUT = 600
    return app


def close_app(app: HermesApp) -> None:
    app.agent.close()
    app.db.close()


async def ready(pilot: Pilot) -> None:
    """Steady state for snapshots: no cursor blink, start-up finished."""
    app = pilot.app
    assert isinstance(app, HermesApp)
    await wait_until(pilot, lambda: app.started)
    await wait_until(pilot, lambda: app.focused is app.main.prompt)  # focus lands once the first frame is up
    steady_cursor(app.main.prompt)
    await pilot.pause()


def turn_over(app: HermesApp) -> bool:
    """The last turn is shown finished and its reply closed: ``busy`` goes False in the frame
    that draws the reply's end, and the reply is closed (marked cancelled, its tail frozen) a
    frame later, so a test that reads the reply waits for both."""
    return not app.busy and (app.bridge is None or app.bridge.reply is None)


def steady_cursor(prompt: TextArea) -> None:
    """Stop the prompt's cursor blinking, drawn.

    ``TextArea`` keys its cached lines by the cursor only while it blinks, so a line cached while
    the blink had the cursor hidden is reused as the drawn-cursor line once blinking stops (a
    loaded machine reaches that half-second phase before a test gets here): drop those lines.
    """
    prompt.cursor_blink = False
    prompt.notify_style_update()
    prompt.refresh()


async def wait_until(pilot: Pilot, condition: Callable[[], object], timeout: float = 30.0) -> None:
    """Poll ``condition`` while the app runs; fail with a clear message after ``timeout`` seconds.

    The bound only matters when the condition never comes: it is generous because a turn that
    takes a second on a quiet machine has taken over ten on a heavily loaded 2-core one.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s: {condition}")
        await pilot.pause(0.02)


async def settle(pilot: Pilot, timeout: float = 3.0) -> None:
    """Wait until two renders 0.1 s apart are the same: late layout passes (a scrollbar that
    comes and goes as streamed parts are frozen) must not race a snapshot."""
    deadline = time.monotonic() + timeout
    previous = screen_text(pilot.app)
    while time.monotonic() < deadline:
        await pilot.pause(0.1)
        current = screen_text(pilot.app)
        if current == previous:
            return
        previous = current
    raise AssertionError(f"the screen kept changing for {timeout}s")


def shows_match(screen: Screen) -> bool:
    """A transcript preview on ``screen`` has drawn the matched message it was asked to focus."""
    from hermes_tui.widgets.transcript_preview import TranscriptPreview

    return any(preview.focused_message is not None for preview in screen.query(TranscriptPreview))


def screen_text(app: App) -> str:
    """What the terminal shows, as plain text (the same render a screenshot uses)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False,
                      force_terminal=True, color_system="truecolor")
    console.print(app.screen._compositor.render_update(full=True, screen_stack=[], simplify=True))
    return console.export_text()


def terminal_frame(app: App) -> tuple[str, list[list[Segment]]]:
    """The top screen as the driver would receive it: the bytes for the terminal, and the segments
    (with their styles' meta, where action links live) line by line."""
    update = app.screen._compositor.render_update(full=True, screen_stack=[])
    lines = [[segment for strip in line for segment in strip] for line in update.strips]
    return update.render_segments(app.console), lines


async def type_text(pilot: Pilot, text: str) -> None:
    """Type into the focused prompt (space as a key name, as Pilot needs)."""
    await pilot.press(*["space" if ch == " " else ch for ch in text])


def burst(app: App, *keys: str) -> None:
    """Keys as a fast typist's terminal delivers them: all queued at once, none waiting for the
    app to handle the one before (``Pilot.press`` waits for idle between keys)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def type_spaced(app: App, text: str, turns: int) -> None:
    """``text`` as keys that reach the app ``turns`` event-loop turns apart: a burst whose keys
    interleave with the app's handling of the ones before (``burst`` queues all before any runs)."""
    for character in text:
        app.post_message(events.Key("space" if character == " " else character, character))
        for _ in range(turns):
            await asyncio.sleep(0)


__all__ = ["FIXED_NOW", "SIZE", "burst", "close_app", "make_app", "ready", "screen_text", "settle", "terminal_frame",
           "type_spaced", "type_text", "wait_until", "write_config"]
