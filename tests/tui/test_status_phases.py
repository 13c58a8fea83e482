"""Feedback on long work (issue 18 §3): the status bar names the phase and how long it has run.

The words come from the engine's ``Phase`` events; the seconds tick on the UI (from the engine's
clock, pinned in tests and moved by hand here), only while a phase runs.
"""

from __future__ import annotations

from pathlib import Path

from engine import clock
from engine.events import Phase
from hermes_tui.loopback_llm import HttpError, LoopbackLLM, Reply, Silent
from hermes_tui.widgets.phase_label import phase_field, phase_text
from hermes_tui.widgets.status_bar import StatusBar
from tests.tui.helpers import FIXED_NOW, SIZE, close_app, make_app, ready, turn_over, wait_until
from tests.tui.test_flows import send

T0 = FIXED_NOW


def test_every_phase_has_words_and_its_elapsed_time() -> None:
    cases = {
        Phase("waiting", T0, attempt=1, attempts=4): "waiting for the model · 8 s",
        Phase("waiting", T0, attempt=2, attempts=4): "waiting for the model (attempt 2 of 4) · 8 s",
        Phase("streaming", T0): "streaming · 8 s",
        Phase("tool", T0, detail="memory"): "running tool memory · 8 s",
        Phase("summarizing", T0, detail="session_search"): "summarizing search results · 8 s",
        Phase("retrying", T0, attempt=2, attempts=4, wait_s=10.0): "retrying in 2 s (attempt 2 of 4)",
        Phase("compressing", T0): "compressing · 8 s",
        Phase("reviewing", T0, background=True): "reviewing memory · 8 s",
    }
    for phase, words in cases.items():
        assert phase_text(phase, T0 + 8).plain == words
    assert phase_text(Phase("compressing", T0), T0 + 75).plain == "compressing · 1 m 15 s"
    assert phase_text(None, T0).plain == "working"  # busy, before the engine said what it does


def test_the_field_shows_the_turn_first_a_background_job_alone_and_tool_names_literally() -> None:
    review = Phase("reviewing", T0, background=True)
    assert phase_field(True, Phase("streaming", T0), review, T0).plain == "● streaming · 0 s │ "
    assert phase_field(False, None, review, T0).plain == "◌ reviewing memory · 0 s │ "
    assert phase_field(False, None, None, T0).plain == ""
    hostile = phase_text(Phase("tool", T0, detail="[b]x[/b]\x1b[2J"), T0)
    assert "[b]x[/b]" in hostile.plain and "\x1b" not in hostile.plain


def status_line(app) -> str:
    return str(app.main.status.render())


async def test_waiting_for_a_silent_model_is_named_and_its_seconds_tick(home: Path, llm: LoopbackLLM,
                                                                        monkeypatch) -> None:
    now = [T0]
    clock.set_clock(lambda: now[0])
    monkeypatch.setattr("hermes_tui.widgets.status_bar.TICK_S", 0.05)
    llm.push(Silent(timeout_s=10))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.main.status._ticker is None  # idle: no timer
        await send(pilot, "hello?")
        await wait_until(pilot, lambda: status_line(app).startswith("● waiting for the model · 0 s"))
        now[0] = T0 + 8
        await wait_until(pilot, lambda: status_line(app).startswith("● waiting for the model · 8 s"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: turn_over(app))
        assert not status_line(app).startswith("●") and app.main.status._ticker is None
    close_app(app)


async def test_a_retry_counts_down_then_streaming_and_the_end_clear_the_field(home: Path, llm: LoopbackLLM,
                                                                              monkeypatch) -> None:
    now = [T0]
    clock.set_clock(lambda: now[0])
    monkeypatch.setattr("hermes_tui.widgets.status_bar.TICK_S", 0.05)
    llm.push(HttpError(503, retry_after=1.5), Reply(text="Back."))
    seen: list[str] = []
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        status = app.main.query_one(StatusBar)
        shown = status.update

        def recording(content) -> None:  # every line the status bar is given, in order
            seen.append(content.plain.split(" │ ")[0])
            shown(content)

        status.update = recording  # type: ignore[method-assign]
        await send(pilot, "hi")
        await wait_until(pilot, lambda: turn_over(app) and "Back." in (app.main.chat.last_reply_text() or ""))
    close_app(app)
    phases = [line for line in seen if line.startswith("● ")]
    assert phases[:1] == ["● working"]
    assert "● waiting for the model · 0 s" in phases
    assert "● retrying in 2 s (attempt 2 of 4)" in phases
    assert "● waiting for the model (attempt 2 of 4) · 0 s" in phases
    assert phases[-1] == "● streaming · 0 s" and not seen[-1].startswith("●")  # the end clears it
