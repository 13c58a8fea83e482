"""A 5,000-message session: resumed, it shows its end, reaches its start, and a search hit in an
old message opens at that message — with only a window of the chat's items mounted."""

from __future__ import annotations

from pathlib import Path

from engine.store import SessionDB
from hermes_tui.screens.hit_view import HitView
from hermes_tui.screens.search import SearchScreen
from tests.tui.helpers import SIZE, close_app, make_app, ready, screen_text, shows_match, wait_until
from tests.tui.test_search_screen import search_for
from tests.tui.test_sessions_screen import ScreenHost

MESSAGES = 5_000
OLD = 30  # the message holding the search word


def text(n: int) -> str:
    return f"message {n:04d} about step {n}" + (" and the zebrafinch incident" if n == OLD else "")


def long_session(home: Path) -> str:
    with SessionDB.open_home(home) as db:
        session_id = db.create_session(title="A very long session", session_id="long-one")
        db.append_messages(session_id, [{"role": "user" if n % 2 == 0 else "assistant", "content": text(n)}
                                        for n in range(MESSAGES)])
    return session_id


async def test_a_resumed_5000_message_session_shows_its_end_and_home_reaches_its_first_message(home: Path) -> None:
    app = make_app(home, resume=long_session(home))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat = app.main.chat
        await wait_until(pilot, lambda: text(MESSAGES - 1) in screen_text(app))
        assert len(chat.entries) == MESSAGES and chat.mounted_count <= chat.window
        await pilot.press("home")  # at the empty prompt: the chat's start
        await wait_until(pilot, lambda: text(0) in screen_text(app))
        assert chat.mounted_count <= chat.window
        for _ in range(3):  # and back down: newer items are mounted as the view reaches them
            await pilot.press("pagedown")
        await wait_until(pilot, lambda: text(0) not in screen_text(app))
        await pilot.press("end")
        await wait_until(pilot, lambda: text(MESSAGES - 1) in screen_text(app))
        assert chat.mounted_count <= chat.window
    close_app(app)


async def test_a_search_hit_in_an_old_message_of_a_long_session_opens_scrolled_to_it(home: Path) -> None:
    long_session(home)
    with SessionDB.open_home(home) as db:
        app = ScreenHost(lambda: SearchScreen(db))
        async with app.run_test(size=SIZE) as pilot:
            await search_for(pilot, "zebrafinch")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, HitView) and shows_match(app.screen))
            await wait_until(pilot, lambda: "zebrafinch incident" in screen_text(app))
            assert text(0) not in screen_text(app)  # scrolled to the match, not the session's top
