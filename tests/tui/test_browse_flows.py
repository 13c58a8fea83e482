"""The browsers inside the full app: F7 tree and ctrl+f search land the chat on the lineage tip."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from engine import clock
from engine.errors import StoreError
from engine.store import SessionDB
from hermes_tui.loopback_llm import LoopbackLLM
from hermes_tui.screens import search as search_screen
from hermes_tui.screens import sessions as sessions_screen
from hermes_tui.screens.hit_view import HitView
from hermes_tui.screens.search import SearchScreen
from hermes_tui.screens.sessions import SessionsScreen
from hermes_tui.widgets.session_tree import LineagePager, SessionTree
from hermes_tui.widgets.transcript_preview import TranscriptPreview
from tests.tui.helpers import FIXED_NOW, SIZE, burst, close_app, drawn_frames, make_app, ready, screen_text, shows_match, turn_over, type_spaced, wait_until

ROOT = "20261102_083000_3fa9c1"
TIP = "20261102_091401_c07b5d"


async def started_with_search(app, pilot) -> SearchScreen:
    """The app started, then ``ctrl+f``: the search screen it opened."""
    await ready(pilot)
    await pilot.press("ctrl+f")
    await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
    return app.screen


async def started_with_tree(app, pilot) -> SessionTree:
    """The app started, then ``F7``: the tree, once a lineage is highlighted."""
    await ready(pilot)
    await pilot.press("f7")
    await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.tree.cursor_node
                     and app.screen.tree.cursor_node.data is not None)
    return app.screen.tree


async def back_to_chat(app, pilot) -> None:
    await pilot.press("escape")
    await wait_until(pilot, lambda: app.screen is app.main)


def another_program_writes(home: Path, title: str, text: str) -> str:
    """A session written through another connection, as another program (or terminal) would."""
    with SessionDB.open_home(home) as other:
        sid = other.create_session(model="gpt-4o", title=title)
        other.append_messages(sid, [{"role": "user", "content": text}])
    return sid


async def test_f7_tree_enter_resumes_the_tip_of_the_lineage(upstream_home: Path, llm: LoopbackLLM) -> None:
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        tree = app.screen.query_one(SessionTree)
        await wait_until(pilot, lambda: tree.find(ROOT) is not None)
        assert tree.select_session(ROOT)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.agent.session_id == TIP and turn_over(app))
        assert app.screen is app.main
        assert "把通知渠道也切到企业微信机器人" in screen_text(app)
    close_app(app)


async def test_ctrl_f_search_cjk_and_open_the_result(upstream_home: Path, llm: LoopbackLLM) -> None:
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started_with_search(app, pilot)
        await pilot.press("告", "警")
        await wait_until(pilot, lambda: screen.shown_query == "告警" and screen.results.option_count > 1)
        await pilot.press("down", "enter")  # the hit opens in its own session, the match in view
        await wait_until(pilot, lambda: isinstance(app.screen, HitView) and shows_match(app.screen))
        hit = screen.hits[0]
        assert app.screen.session_id == hit.session_id and app.screen.message_id == hit.message_id
        await pilot.press("escape")  # back to the results as they were
        await wait_until(pilot, lambda: app.screen is screen)
        assert screen.shown_query == "告警"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HitView))
        await pilot.press("c")  # continue the conversation from the lineage tip
        await wait_until(pilot, lambda: app.agent.session_id == TIP and turn_over(app))
        assert app.screen is app.main and "Search match in" in screen_text(app)
    close_app(app)


async def test_the_live_session_cannot_be_deleted_from_the_tree(upstream_home: Path, llm: LoopbackLLM) -> None:
    app = make_app(upstream_home, resume=TIP)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        tree = app.screen.query_one(SessionTree)
        await wait_until(pilot, lambda: tree.find(TIP) is not None)
        tree.select_session(TIP)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen), "no confirmation for the live session"
        assert app.db.get_session(TIP) is not None
    close_app(app)


async def test_browsers_do_not_stack_opening_one_that_is_open_switches_to_it(upstream_home: Path, llm: LoopbackLLM) -> None:
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)

        def stack() -> list[str]:
            return [type(screen).__name__ for screen in app.screen_stack]

        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        sessions = app.screen
        await pilot.press("f7")
        await pilot.pause()
        assert stack() == ["MainScreen", "SessionsScreen"] and app.screen is sessions
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        assert stack() == ["MainScreen", "SearchScreen"]
        search = app.screen
        await pilot.press("a")
        await pilot.press("ctrl+f")  # search again: the same screen, its query focused and kept
        await pilot.pause()
        assert app.screen is search and search.query_text == "a" and search.focused.id == "query"
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert stack() == ["MainScreen", "SessionsScreen"] and app.screen is sessions  # closed, kept, shown again
        await back_to_chat(app, pilot)
        assert stack() == ["MainScreen"]
    close_app(app)


async def test_a_burst_typed_after_ctrl_f_lands_in_the_query_and_enter_opens_the_hit(upstream_home: Path,
                                                                                    llm: LoopbackLLM) -> None:
    """ctrl+f, a word, down and enter typed faster than the app draws: nothing is lost and the hit
    opens, the first time and when the kept screen is opened again with its results focused."""
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for word in ("webhook", "certbot"):
            burst(app, "ctrl+f", *word, "down", "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, HitView))
            search = app.screen_stack[-2]
            assert search.query_text == word and (app.screen.session_id, app.screen.message_id) in {
                (hit.session_id, hit.message_id) for hit in search.hits}
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is search and search.focused is search.results)
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.main)
    close_app(app)


async def test_enter_that_reaches_the_results_before_the_query_ran_opens_the_first_hit(
        upstream_home: Path, llm: LoopbackLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """The burst above when ``down`` is handled before ``enter`` arrives: ``enter`` lands in the
    results while they still list recent sessions. It waits for the query's results and opens
    the first hit; it used to resume whichever recent session was highlighted."""
    # the query runs a second after its last letter: after both keys, unless the machine is so slow
    # that it runs first (then enter takes the usual path and the test still holds)
    monkeypatch.setattr(search_screen, "DEBOUNCE_MIN_S", 1.0)
    monkeypatch.setattr(search_screen, "DEBOUNCE_MAX_S", 1.0)
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        session = app.agent.session_id
        burst(app, "ctrl+f", *"webhook")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen) and app.screen.query_text == "webhook")
        search = app.screen
        await pilot.press("down")
        await wait_until(pilot, lambda: search.focused is search.results)
        await pilot.press("enter")  # the results still list recent sessions
        await wait_until(pilot, lambda: isinstance(app.screen, HitView))
        assert (app.screen.session_id, app.screen.message_id) == (search.hits[0].session_id, search.hits[0].message_id)
        assert app.agent.session_id == session
    close_app(app)


async def test_text_typed_in_the_results_refines_the_query_and_s_still_summarizes(upstream_home: Path,
                                                                                 llm: LoopbackLLM) -> None:
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+f", *"cert")
        search = app.screen
        await wait_until(pilot, lambda: search.shown_query == "cert")
        await pilot.press("down")
        await wait_until(pilot, lambda: search.focused is search.results)
        await pilot.press(*"bot")  # no binding of the results: the letters go to the query
        await wait_until(pilot, lambda: search.shown_query == "certbot" and search.focused.id == "query")
        await pilot.press("down", "s")  # s is the results' own key: it summarizes, it is not typed
        await wait_until(pilot, lambda: search.query_one("#side").current == "summaries")
        assert search.query_text == "certbot"
    close_app(app)


async def test_a_burst_typed_in_the_results_refines_the_query_in_the_order_typed(upstream_home: Path,
                                                                                 llm: LoopbackLLM) -> None:
    """As the chat's prompt: keys sent to the results while the focus moves to the query, and keys
    sent to the query after it, interleave however the event loop turns; the query reads them in order."""
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+f", *"cert")
        search = app.screen
        typed = "cert"
        for turns in range(1, 5):
            await wait_until(pilot, lambda: search.shown_query == typed)
            await pilot.press("down")
            await wait_until(pilot, lambda: search.focused is search.results)
            await type_spaced(app, " renew", turns)
            typed += " renew"
            await wait_until(pilot, lambda: len(search.query_text) == len(typed))
            assert (turns, search.query_text) == (turns, typed)
    close_app(app)


async def test_the_tree_reopens_where_it_was_left_until_something_is_written(upstream_home: Path,
                                                                           llm: LoopbackLLM) -> None:
    """Nothing written since the tree was read: it comes back as it was left, at the same row.
    A session another program wrote, or a write through the app's own store, and it is read afresh."""
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        tree = await started_with_tree(app, pilot)
        await pilot.press("down", "down")
        left_at = tree.cursor_node
        await back_to_chat(app, pilot)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert tree.cursor_node is left_at and left_at.tree is tree
        await back_to_chat(app, pilot)

        sid = another_program_writes(upstream_home, "Written while the tree was closed", "a question asked elsewhere")
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen) and tree.find(sid) is not None)
        assert tree.cursor_node is not left_at
        await back_to_chat(app, pilot)

        app.db.set_title(sid, "Renamed through the app's own store")  # as a turn or /title writes
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen)
                         and "Renamed through the app's own store" in screen_text(app))
    close_app(app)


async def test_a_preview_waiting_for_a_pause_does_not_run_once_search_is_closed(
        upstream_home: Path, llm: LoopbackLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first hit's preview waits for a pause in typing; closed before then (or quit), the
    search screen is kept but not shown, and its timer must not draw into it (on quit it ran into
    a screen being taken down: ``NoMatches``)."""
    monkeypatch.setattr(search_screen, "PREVIEW_PAUSE_S", 0.3)
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started_with_search(app, pilot)
        screen.query_one("#query").value = "certbot"
        await wait_until(pilot, lambda: screen.shown_query == "certbot" and screen._preview_timer is not None)
        await back_to_chat(app, pilot)
        await pilot.pause(0.5)  # past the preview's pause
        assert screen.query_one(TranscriptPreview).session_id is None
    close_app(app)


async def test_enter_before_the_results_list_anything_opens_the_first_hit_of_the_query(
        upstream_home: Path, llm: LoopbackLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a slow start the results can still be empty (the recent sessions not read yet) when
    ``down`` and ``enter`` arrive: nothing is highlighted, so there is nothing to select, and
    ``enter`` was lost. It waits for the typed query's results and opens the first hit."""
    monkeypatch.setattr(search_screen, "DEBOUNCE_MIN_S", 1.0)
    monkeypatch.setattr(search_screen, "DEBOUNCE_MAX_S", 1.0)
    app = make_app(upstream_home)
    recent_read = threading.Event()
    listing = app.db.list_sessions

    def slow_listing(*args, **kwargs):  # the recent sessions come after the keys
        recent_read.wait(30)
        return listing(*args, **kwargs)

    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        monkeypatch.setattr(app.db, "list_sessions", slow_listing)
        burst(app, "ctrl+f", *"webhook")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen) and app.screen.query_text == "webhook")
        search = app.screen
        await pilot.press("down")
        await wait_until(pilot, lambda: search.focused is search.results)
        assert search.results.option_count == 0
        await pilot.press("enter")
        recent_read.set()
        await wait_until(pilot, lambda: isinstance(app.screen, HitView))
        assert (app.screen.session_id, app.screen.message_id) == (search.hits[0].session_id, search.hits[0].message_id)
    close_app(app)


async def test_search_reopens_where_it_was_left_until_something_is_written(upstream_home: Path,
                                                                         llm: LoopbackLLM) -> None:
    """Final results and nothing written since: the search comes back as it was left, on the same
    result. A message another program wrote, and the query runs again and finds it."""
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        search = await started_with_search(app, pilot)
        search.query_one("#query").value = "certbot"
        await wait_until(pilot, lambda: search.shown_query == "certbot" and search.ranked and search.hits)
        await pilot.press("down")
        await wait_until(pilot, lambda: search.focused is search.results)
        await pilot.press("down")
        left_on, hits = search.results.highlighted, list(search.hits)
        await back_to_chat(app, pilot)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: app.screen is search)
        await pilot.pause()
        assert search.results.highlighted == left_on and search.hits == hits
        await back_to_chat(app, pilot)

        sid = another_program_writes(upstream_home, "Renewals", "certbot renew failed again")
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: app.screen is search and any(h.session_id == sid for h in search.hits))
    close_app(app)


async def test_a_reopened_search_reads_its_preview_once_typing_pauses(upstream_home: Path, llm: LoopbackLLM,
                                                                        monkeypatch) -> None:
    """A key typed as the search comes back is echoed before any transcript is read: the preview
    left behind by an earlier key is brought up to date only once typing pauses."""
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        search = await started_with_search(app, pilot)
        search.query_one("#query").value = "certbot"
        preview = search.query_one(TranscriptPreview)
        await wait_until(pilot, lambda: search.shown_query == "certbot" and search.ranked and preview.loaded)
        preview.abandon()  # as a key typed just before the search was closed leaves it
        await back_to_chat(app, pilot)
        monkeypatch.setattr(search_screen, "PREVIEW_PAUSE_S", 0.5)
        reads = []
        show = preview.show
        preview.show = lambda *a, **k: (reads.append(a), show(*a, **k))  # type: ignore[method-assign]
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: app.screen is search)
        await pilot.pause()
        assert reads == [] and preview.held  # not at once
        await wait_until(pilot, lambda: reads and preview.loaded and not preview.held)
        assert reads[0][0] == search.hits[0].session_id or reads[0][0] == search.titles[0].id
    close_app(app)


async def test_a_tree_reopened_a_minute_later_is_read_again(upstream_home: Path, llm: LoopbackLLM) -> None:
    """Nothing written, but its relative times ("just now", "5 minutes ago") may have moved."""
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        tree = await started_with_tree(app, pilot)
        shown = tree.cursor_node
        await back_to_chat(app, pilot)
        clock.set_clock(lambda: FIXED_NOW + 61)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen) and tree.cursor_node is not None
                         and tree.cursor_node is not shown and tree.cursor_node.data is not None)
    close_app(app)


def _tree_frames(app) -> list[bool]:
    """For each frame drawn while the tree is on screen: whether it held lineages."""
    return drawn_frames(app, lambda: bool(app.screen.tree.root.children), when=lambda: isinstance(app.screen, SessionsScreen))


async def test_the_tree_s_first_open_reads_its_first_page_before_building_and_draws_it_at_once(
        upstream_home: Path, monkeypatch) -> None:
    monkeypatch.setattr(sessions_screen, "READ_AHEAD_WAIT_S", 30.0)  # the mechanism, not the machine's speed
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        frames = _tree_frames(app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: frames and frames[-1])
        assert all(frames), frames  # no frame of an empty tree before the lineages
        assert ROOT in [n.data.id for n in app.screen.tree.root.children if n.data is not None]
    close_app(app)


async def test_a_slow_first_page_is_not_waited_for_and_shows_when_read(upstream_home: Path, monkeypatch) -> None:
    release = threading.Event()
    read = LineagePager.next_page

    def slow(self, *args, **kwargs):
        release.wait(30)
        return read(self, *args, **kwargs)

    monkeypatch.setattr(LineagePager, "next_page", slow)
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        frames = _tree_frames(app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: frames)  # the screen is drawn while the page is still being read
        assert not app.screen.tree.root.children
        release.set()
        # the lineages are drawn in a frame after the tree holds them: wait for that frame, not the nodes
        await wait_until(pilot, lambda: app.screen.tree.root.children and frames[-1])
        assert frames[0] is False and frames[-1] is True
    close_app(app)


async def test_a_first_page_that_failed_is_read_again_by_the_screen(upstream_home: Path, monkeypatch) -> None:
    read = LineagePager.next_page
    calls: list[str] = []

    def fails_once(self, *args, **kwargs):
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            raise StoreError("state.db: database error (disk I/O error).")
        return read(self, *args, **kwargs)

    monkeypatch.setattr(LineagePager, "next_page", fails_once)
    app = make_app(upstream_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.tree.root.children)
        assert len(calls) == 2
    close_app(app)
