"""Screens are styled once as they appear (``hermes_tui/screens/first_resume.py``): the chat must
still show a theme switched while a browser covered it, exactly as a start in that theme does."""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from hermes_tui.app import HermesApp
from hermes_tui.screens.main import MainScreen
from hermes_tui.screens.sessions import SessionsScreen
from hermes_tui.themes import apply_theme
from tests.tui.helpers import SIZE, close_app, make_app, ready, wait_until


def _looks(app: HermesApp) -> list[tuple[str, object, object, object]]:
    """Every widget of the chat screen with its colours and its key/label parts' colours."""
    widgets: list[Widget] = list(app.main.walk_children(Widget, with_self=True))
    return [(repr(w), w.styles.background, w.styles.color,
             tuple(w.get_component_rich_style(name) for name in sorted(w.COMPONENT_CLASSES)))
            for w in widgets]


async def test_a_theme_switched_under_a_browser_shows_on_the_chat_when_it_closes(home: Path) -> None:
    started_light = make_app(home)
    assert apply_theme(started_light, "hermes-light") is None
    async with started_light.run_test(size=SIZE) as pilot:
        await ready(pilot)
        expected = _looks(started_light)
    close_app(started_light)

    app = make_app(home)
    assert apply_theme(app, "hermes-dark") is None
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        dark = _looks(app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert apply_theme(app, "hermes-light") is None
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen) and app.focused is app.main.prompt)
        await pilot.pause()
        assert _looks(app) == expected
        assert dark != expected
    close_app(app)
