"""Screens are restyled on resume only when the stylesheet changed (``hermes_tui/screens/
styled_once.py``): a theme switched while the chat was covered, or while a kept browser was
closed, must show on it exactly as a start in that theme shows it."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from hermes_tui.app import HermesApp
from hermes_tui.screens.main import MainScreen
from hermes_tui.screens.sessions import SessionsScreen
from hermes_tui.themes import apply_theme
from hermes_tui.widgets.transcript_preview import TranscriptPreview
from tests.tui.helpers import SIZE, close_app, make_app, ready, wait_until


def _looks(screen: Screen) -> list[tuple[str, object, object, object]]:
    """Every widget of ``screen`` with its colours and its parts' (component classes') styles."""
    return [(repr(w), w.styles.background, w.styles.color,
             tuple(w.get_component_rich_style(name) for name in sorted(w.COMPONENT_CLASSES)))
            for w in screen.walk_children(Widget, with_self=True)]


async def _open_browser(app: HermesApp, pilot: Pilot) -> Screen:
    await pilot.press("f7")
    await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
    await wait_until(pilot, lambda: app.screen.query_one(TranscriptPreview).loaded)
    await pilot.pause()
    return app.screen


async def _close_browser(app: HermesApp, pilot: Pilot) -> None:
    await pilot.press("escape")
    await wait_until(pilot, lambda: isinstance(app.screen, MainScreen) and app.focused is app.main.prompt)
    await pilot.pause()


async def test_a_theme_switched_under_a_browser_or_while_it_was_closed_shows_when_it_is_back(upstream_home: Path) -> None:
    started_light = make_app(upstream_home)
    assert apply_theme(started_light, "hermes-light") is None
    async with started_light.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat_light = _looks(started_light.main)
        for _ in range(2):  # a kept browser shown again looks as it did the first time
            browser_light = _looks(await _open_browser(started_light, pilot))
            await _close_browser(started_light, pilot)
    close_app(started_light)

    app = make_app(upstream_home)
    assert apply_theme(app, "hermes-dark") is None
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat_dark = _looks(app.main)
        await _open_browser(app, pilot)
        assert apply_theme(app, "hermes-light") is None  # the chat is covered by the browser
        await _close_browser(app, pilot)
        assert _looks(app.main) == chat_light != chat_dark

        assert apply_theme(app, "hermes-dark") is None
        browser_dark = _looks(await _open_browser(app, pilot))
        await _close_browser(app, pilot)
        assert apply_theme(app, "hermes-light") is None  # the kept browser is closed
        assert _looks(await _open_browser(app, pilot)) == browser_light != browser_dark
    close_app(app)


def _layout_styles(screen: Screen) -> dict[str, tuple[object, ...]]:
    """Each identified widget of ``screen`` with the rules that size and frame it."""
    return {w.id: (w.styles.width, w.styles.min_width, w.styles.max_width, w.styles.border_left,
                   w.styles.background)
            for w in screen.walk_children(Widget) if w.id}


async def _open_search(app: HermesApp, pilot: Pilot) -> Screen:
    await app.slash_search("")
    await wait_until(pilot, lambda: type(app.screen).__name__ == "SearchScreen"
                     and app.screen.shown_query is not None)
    return app.screen


async def test_a_browser_s_stylesheet_styles_only_its_own_screen(upstream_home: Path) -> None:
    """Both browsers and the chat use ids such as ``side`` and ``preview``: opening one screen
    must not restyle another, so a screen looks the same whatever was opened before it."""
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat_before = _layout_styles(app.main)
        search_first = _layout_styles(await _open_search(app, pilot))
        await _close_browser(app, pilot)
        assert _layout_styles(app.main) == chat_before
        await _open_browser(app, pilot)
        await _close_browser(app, pilot)
        assert _layout_styles(app.main) == chat_before
    close_app(app)

    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _open_browser(app, pilot)
        await _close_browser(app, pilot)
        assert _layout_styles(await _open_search(app, pilot)) == search_first
    close_app(app)
    assert search_first["side"][1:3] == (None, None)  # the chat panel's width limits are its own


def _screen_classes() -> list[type[Screen]]:
    import importlib
    import pkgutil

    import hermes_tui.screens as package

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    found, todo = [], [Screen]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("hermes_tui."):
                found.append(sub)
    return found


def test_every_screen_s_stylesheet_is_read_with_the_app() -> None:
    """A stylesheet a screen reads at its first push makes Textual parse all of them again and
    restyle the whole app: a third of a browser's first open. The app reads them at start."""
    import hermes_tui.app as app_module

    read_at_start = {(Path(app_module.__file__).parent / p).resolve() for p in HermesApp.CSS_PATH}
    screens = _screen_classes()
    assert any(s.CSS_PATH for s in screens)
    for screen in screens:
        paths = [screen.CSS_PATH] if isinstance(screen.CSS_PATH, str) else list(screen.CSS_PATH or ())
        module_dir = Path(sys.modules[screen.__module__].__file__ or "").parent
        for path in paths:
            assert (module_dir / path).resolve() in read_at_start, f"{screen.__name__}: {path} is not in HermesApp.CSS_PATH"


async def test_a_browser_s_first_open_parses_no_stylesheet_again(upstream_home: Path, monkeypatch) -> None:
    from textual.css.stylesheet import Stylesheet

    reparsed: list[int] = []
    original = Stylesheet.reparse
    monkeypatch.setattr(Stylesheet, "reparse", lambda self: (reparsed.append(1), original(self))[1])
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        at_start = len(reparsed)
        await _open_browser(app, pilot)
        await _close_browser(app, pilot)
        await _open_search(app, pilot)
        assert len(reparsed) == at_start
    close_app(app)
