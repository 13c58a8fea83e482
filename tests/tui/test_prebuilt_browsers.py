"""The lineage tree and the search screen are built off screen in the first pause in typing
(``HermesApp._prebuild_browsers``): a browser built that way must open exactly as one built when
first opened — same looks, same data, read at the open, a theme switched since shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

import hermes_tui.app
from engine.store import SessionDB
from hermes_tui.app import HermesApp
from hermes_tui.themes import apply_theme
from hermes_tui.widgets.transcript_preview import TranscriptPreview
from tests.tui.helpers import SIZE, close_app, make_app, ready, screen_text, wait_until
from tests.tui.test_screen_styles import _close_browser, _layout_styles, _looks, _open_browser, _open_search


@pytest.fixture(autouse=True)
def short_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hermes_tui.app, "IDLE_COLLECT_S", 0.2)  # the pause that starts the build


async def _prebuilt(app: HermesApp, pilot: Pilot) -> None:
    await ready(pilot)
    await wait_until(pilot, lambda: app.browsers_prebuilt)
    assert app.is_screen_installed("SessionsScreen") and app.is_screen_installed("SearchScreen")


async def _shown(app: HermesApp, pilot: Pilot, screen: Screen) -> tuple[object, ...]:
    await wait_until(pilot, lambda: all(p.loaded for p in screen.query(TranscriptPreview) if p.display))
    await pilot.pause()
    return _looks(screen), _layout_styles(screen), screen_text(app)


async def _both_browsers(app: HermesApp, pilot: Pilot) -> list[tuple[object, ...]]:
    shown = [await _shown(app, pilot, await _open_browser(app, pilot))]
    await _close_browser(app, pilot)
    shown.append(await _shown(app, pilot, await _open_search(app, pilot)))
    await _close_browser(app, pilot)
    return shown


async def _cold_open(home: Path, theme: str) -> list[tuple[object, ...]]:
    app = make_app(home)
    assert apply_theme(app, theme) is None
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        shown = await _both_browsers(app, pilot)
    close_app(app)
    return shown


async def _prebuilt_opens(home: Path, theme: str, *, switched_to: str | None = None,
                          times: int = 1) -> list[list[tuple[object, ...]]]:
    """Both browsers opened ``times`` in an app that built them in its first pause, in ``theme``
    (switched to ``switched_to`` after the build)."""
    app = make_app(home, prebuild_browsers=True)
    assert apply_theme(app, theme) is None
    async with app.run_test(size=SIZE) as pilot:
        await _prebuilt(app, pilot)
        if switched_to:
            assert apply_theme(app, switched_to) is None
        shown = [await _both_browsers(app, pilot) for _ in range(times)]
    close_app(app)
    return shown


async def test_browsers_built_in_a_pause_open_as_ones_built_at_the_open(upstream_home: Path) -> None:
    cold = await _cold_open(upstream_home, "hermes-dark")
    assert await _prebuilt_opens(upstream_home, "hermes-dark", times=2) == [cold, cold]  # and kept


async def test_a_theme_switched_after_the_build_shows_on_the_first_open(upstream_home: Path) -> None:
    cold_light = await _cold_open(upstream_home, "hermes-light")
    assert await _prebuilt_opens(upstream_home, "hermes-dark", switched_to="hermes-light") == [cold_light]


async def test_a_session_written_after_the_build_is_in_the_first_open(upstream_home: Path) -> None:
    app = make_app(upstream_home, prebuild_browsers=True)
    async with app.run_test(size=SIZE) as pilot:
        await _prebuilt(app, pilot)
        with SessionDB.open_home(upstream_home) as other:  # another program, after the build
            sid = other.create_session(model="gpt-4o", title="Written after the build")
            other.append_messages(sid, [{"role": "user", "content": "a question asked elsewhere"}])
        await _open_browser(app, pilot)
        await wait_until(pilot, lambda: "Written after the build" in screen_text(app))
    close_app(app)


async def test_no_build_while_a_browser_is_open(upstream_home: Path) -> None:
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _open_browser(app, pilot)
        app.prebuild_browsers, app.last_key_at = True, 0.0  # due, and the user has paused
        app._when_idle()
        await pilot.pause()
        assert not app.is_screen_installed("SearchScreen") and not app.browsers_prebuilt
        await _close_browser(app, pilot)
        app.last_key_at = 0.0
        app._when_idle()
        await wait_until(pilot, lambda: app.browsers_prebuilt)
        assert app.is_screen_installed("SearchScreen")
    close_app(app)
