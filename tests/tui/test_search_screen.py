"""Interactive search over a copy of the upstream home: live CJK and English results, open, summarize."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from textual.widgets import Input

from engine.session_search import SessionSearchResult
from engine.store import SessionDB
from hermes_tui.screens.hit_view import HitView
from hermes_tui.screens.search import SearchScreen, SearchTarget, order_groups
from tests.tui.helpers import SIZE, screen_text, shows_match, wait_until
from tests.tui.test_sessions_screen import ScreenHost

ROOT = "20261102_083000_3fa9c1"


@pytest.fixture
def db(upstream_home: Path) -> Iterator[SessionDB]:
    with SessionDB.open_home(upstream_home) as opened:
        yield opened


async def search_for(pilot, text: str) -> SearchScreen:
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    screen.query_one("#query", Input).value = text
    await wait_until(pilot, lambda: screen.shown_query == text)
    return screen


def snapshot_query(snap_compare, db: SessionDB, text: str) -> bool:
    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: pilot.app.screen.shown_query is not None)
        pilot.app.screen.query_one("#query", Input).cursor_blink = False
        screen = await search_for(pilot, text)
        await wait_until(pilot, lambda: shows_match(screen))
        await pilot.pause()

    return snap_compare(ScreenHost(lambda: SearchScreen(db)), terminal_size=SIZE, run_before=run_before)


def test_snapshot_cjk_results(snap_compare, db: SessionDB) -> None:
    assert snapshot_query(snap_compare, db, "规则")


def test_snapshot_english_results(snap_compare, db: SessionDB) -> None:
    assert snapshot_query(snap_compare, db, "webhook OR certbot")


async def test_cjk_search_opens_the_matched_message(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await search_for(pilot, "规则")
        assert screen.hits and all(h.lineage_root == ROOT for h in screen.hits)
        assert "整理告警规则" in screen_text(app)
        await pilot.press("enter")  # opens the highlighted match
        await wait_until(pilot, lambda: isinstance(app.screen, HitView) and shows_match(app.screen))
        assert "整理告警规则" in screen_text(app)
        await pilot.press("c")  # continue from there
        await wait_until(pilot, lambda: app.result is not app.NOTHING)
    assert isinstance(app.result, SearchTarget)
    assert app.result.session_id == screen.hits[0].session_id
    assert app.result.message_id == screen.hits[0].message_id
    assert "规则" in app.result.snippet


async def test_upstream_marker_word_and_empty_query(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await search_for(pilot, "")
        assert "Recent sessions" in screen_text(app) and "Backup script review" in screen_text(app)
        screen = await search_for(pilot, "pangolinmark")
        assert [h.session_id for h in screen.hits] == ["20261124_074500_9c4d2f"]
        screen = await search_for(pilot, "zzznothinglikethis")
        assert "No matches for 'zzznothinglikethis'" in screen_text(app)


async def test_a_query_longer_than_the_box_keeps_its_end_and_the_cursor_in_view(db: SessionDB) -> None:
    """The box scrolls sideways as the query grows past its width (it is never laid out again)."""
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.shown_query == "")
        words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar"
        await pilot.press(*words.replace(" ", "_"), "space", *"endword")
        box = app.screen.query_one("#query", Input)
        await wait_until(pilot, lambda: "endword" in screen_text(app) and box.scroll_x > 0)
        assert box.value.endswith("oscar endword") and box.cursor_position == len(box.value)
        assert "alpha_bravo" not in screen_text(app)  # the start scrolled out of the box


async def test_queries_without_hits_leave_the_preview_empty_without_rebuilding_it(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await search_for(pilot, "zzznothing")
        preview = screen.query_one("#preview")
        empty = list(preview.children)
        screen = await search_for(pilot, "zzznothingatall")
        assert "No matches for 'zzznothingatall'" in screen_text(app)
        assert list(preview.children) == empty and preview.session_id is None  # the same empty view
        screen = await search_for(pilot, "pangolinmark")  # a hit: its transcript replaces it
        await wait_until(pilot, lambda: preview.session_id == "20261124_074500_9c4d2f" and preview.loaded)


async def test_stale_queries_never_overwrite_the_latest(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.shown_query == "")
        await pilot.press(*"certbot")  # typed faster than the debounce: one search, for the whole word
        await wait_until(pilot, lambda: app.screen.shown_query == "certbot")
        await app.workers.wait_for_complete()  # every search started is done: none came back later
        await pilot.pause()
        assert app.screen.shown_query == "certbot" and app.screen.hits


async def test_toggle_orders_by_newest(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await search_for(pilot, "webhook OR certbot OR heredoc")
        best = [h.lineage_root for h in screen.hits]
        await pilot.press("ctrl+o")
        assert screen.newest_first and "newest first" in screen_text(app)
        newest = order_groups(screen.hits, True)
        stamps = [g[0].timestamp for g in newest]
        assert stamps == sorted(stamps, reverse=True)
        assert {g[0].lineage_root for g in newest} == set(best)


async def test_summarize_runs_off_the_ui_thread_and_shows_the_result(db: SessionDB) -> None:
    asked: list[str] = []

    def summarize(query: str) -> SessionSearchResult:
        asked.append(query)
        from engine.session_search import session_search

        return session_search(db, query, provider=None, current_session_id=None)

    app = ScreenHost(lambda: SearchScreen(db, summarize=summarize))
    async with app.run_test(size=SIZE) as pilot:
        await search_for(pilot, "")
        await pilot.press("ctrl+s")  # nothing typed: a notice, no summary run
        await pilot.pause()
        assert asked == []
        await search_for(pilot, "certbot")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: "raw excerpts" in screen_text(app))
    assert asked == ["certbot"]
