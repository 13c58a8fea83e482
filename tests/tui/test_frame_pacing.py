"""A screen's frame after a pause comes at the next slot of the frame timer, not one later."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import _time
from textual import timer as textual_timer
from textual.app import App
from textual.content import Content
from textual.timer import Timer

from hermes_tui.screens.confirm import Confirm
from hermes_tui.screens.frame_pacing import NextSlotTimer
from hermes_tui.screens.memory_history import SessionAtMessage
from hermes_tui.screens.search import SearchScreen
from hermes_tui.screens.sessions import RenameSession, SessionsScreen
from tests.tui.helpers import SIZE, close_app, make_app, ready, wait_until


INTERVAL = 0.1


async def wait_after_a_pause(timer_class: type[Timer], monkeypatch) -> float:
    """The sleep a paused-when-ticked timer (as a screen's frame timer is) asks for before its
    next slot, just after the tick that followed an idle stretch of several intervals."""
    waits: list[float] = []
    real_sleep = _time.sleep

    async def sleep(seconds: float) -> None:  # the timer's own sleeps recorded, the app's other timers' not
        if (task := asyncio.current_task()) is not None and task.get_name() == "paced":
            waits.append(seconds)
        await real_sleep(seconds)

    monkeypatch.setattr(_time, "sleep", sleep)  # what NextSlotTimer calls
    monkeypatch.setattr(textual_timer, "sleep", sleep)  # what Textual's Timer calls
    ticks: list[int] = []
    async with App().run_test() as pilot:
        timer: Timer

        def tick() -> None:
            ticks.append(len(waits))
            timer.pause()  # as a screen pauses its frame timer on each frame

        timer = timer_class(pilot.app, INTERVAL, name="paced", callback=tick, pause=True)
        timer._start()
        timer.resume()  # a change: a frame
        await wait_until(pilot, lambda: len(ticks) == 1)
        await asyncio.sleep(3.5 * INTERVAL)  # idle
        timer.resume()  # a change after the pause: its frame comes at once
        await wait_until(pilot, lambda: len(ticks) == 2 and len(waits) > ticks[1])
        timer.stop()
    return waits[ticks[1]]  # then what a change made now would wait for


async def test_the_frame_after_the_first_one_past_a_pause_waits_for_the_next_slot_only(monkeypatch) -> None:
    assert 0 < await wait_after_a_pause(NextSlotTimer, monkeypatch) <= INTERVAL


async def test_textuals_own_timer_waits_a_slot_more(monkeypatch) -> None:
    """What ``NextSlotTimer`` is for: if Textual's timer stops doing this, it is no longer needed."""
    assert INTERVAL < await wait_after_a_pause(Timer, monkeypatch) <= 2 * INTERVAL


async def test_every_screen_of_the_app_paces_its_frames_so(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        session = app.db.get_session(app.db.create_session(source="cli", title="A title"))
        screens = [app.screen, SessionsScreen(app.db), SearchScreen(app.db), RenameSession(session),
                   SessionAtMessage(app.db, session.id, None, "A title"), Confirm(Content("Sure?"), yes="Yes", no="No")]
        for screen in screens[1:]:
            await app.push_screen(screen)
            await wait_until(pilot, lambda: app.screen is screen)
        assert all(isinstance(screen._update_timer, NextSlotTimer) for screen in screens)
    close_app(app)
