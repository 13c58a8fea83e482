"""The transcript preview as one widget of lines: what stays in view as it grows or is resized,
and what a page placed costs the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from engine.store import SessionDB
from hermes_tui.screens.hit_view import HitView
from hermes_tui.widgets.transcript_preview import PAGE
from tests.tui.helpers import screen_text, shows_match, wait_until
from tests.tui.test_sessions_screen import ScreenHost


@pytest.fixture
def long_run(tmp_path: Path) -> Iterator[tuple[SessionDB, str, list[int]]]:
    """A session of 200 replies, each several lines long at 80 columns."""
    with SessionDB.open_home(tmp_path / "home") as db:
        session = db.create_session(source="cli", title="Long run")
        ids = db.append_messages(session, [
            {"role": "assistant", "content": f"step {n}: " + "the deploy went out and the checks stayed green " * 4}
            for n in range(200)])
        yield db, session, ids


def top_message(app) -> str:
    """The step of the message heading the preview's view, with none of its lines scrolled past."""
    preview = app.screen.transcript
    index, scrolled_past = preview._top()
    assert scrolled_past == 0
    return preview.messages[index].content.split(":")[0]


async def test_a_narrower_terminal_keeps_the_message_at_the_top_of_the_view(long_run) -> None:
    db, session, ids = long_run
    app = ScreenHost(lambda: HitView(db, session, ids[120], title="Long run", snippet="step"))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: shows_match(app.screen) and not app.screen.transcript._reading)
        preview = app.screen.transcript
        assert top_message(app) == "step 120"
        lines_before = len(preview._layout.lines)
        await pilot.resize_terminal(70, 30)
        await wait_until(pilot, lambda: len(preview._layout.lines) > lines_before)  # wrapped anew, longer
        assert top_message(app) == "step 120" and "step 120:" in screen_text(app)


async def test_a_page_placed_below_lays_out_nothing(long_run) -> None:
    """The scrollbar is already there: the run grows without a layout of the screen."""
    db, session, ids = long_run
    app = ScreenHost(lambda: HitView(db, session, ids[0], title="Long run", snippet="step"))
    async with app.run_test(size=(100, 30)) as pilot:
        preview = app.screen.transcript
        await wait_until(pilot, lambda: preview.loaded and not preview._reading)
        await pilot.pause()
        layouts = []
        refresh_layout = app.screen._refresh_layout
        app.screen._refresh_layout = lambda *a, **k: (layouts.append(a), refresh_layout(*a, **k))  # type: ignore
        loaded = preview.loaded
        preview.scroll_end(animate=False)
        await wait_until(pilot, lambda: preview.loaded > loaded and not preview._reading)
        await pilot.pause()
        assert layouts == [] and preview.loaded >= loaded + PAGE
