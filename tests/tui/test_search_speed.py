"""Search at the speed of typing (issue 17): any query rate, the match always in view, titles and
session headings (issue 18 §5)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from rich.text import Text
from textual.widgets import Input

from engine.store import MATCH_END, MATCH_START, SearchHit, SessionDB
from hermes_tui.screens import search as search_screen
from hermes_tui.screens.hit_view import HitView
from hermes_tui.screens.search import SearchScreen, SearchTarget, fit_match, fitting
from hermes_tui.widgets.transcript_preview import PAGE, TranscriptPreview
from tests.tui.helpers import SIZE, screen_text, shows_match, wait_until
from tests.tui.test_sessions_screen import ScreenHost

FILLER = "the service restarted cleanly and the logs were quiet " * 12


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SessionDB]:
    with SessionDB.open_home(tmp_path / "home") as opened:
        root = opened.create_session(source="cli", title="Release checklist")
        opened.append_messages(root, [{"role": "user", "content": "what is left before we ship?"},
                                      {"role": "assistant", "content": FILLER + "then rotate the zebracert"}])
        child = opened.create_session(source="cli", title="Release checklist #2", parent_session_id=root)
        opened.append_messages(child, [{"role": "user", "content": f"zebracert again {n}"} for n in range(5)])
        yield opened


async def typed(pilot, text: str) -> SearchScreen:
    screen = pilot.app.screen
    screen.query_one("#query", Input).value = text
    await wait_until(pilot, lambda: screen.shown_query == text)
    return screen


async def test_the_preview_survives_any_rate_of_queries(db: SessionDB, monkeypatch) -> None:
    monkeypatch.setattr(search_screen, "DEBOUNCE_MIN_S", 0.001)
    monkeypatch.setattr(search_screen, "DEBOUNCE_MAX_S", 0.001)
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.shown_query == "")
        for _ in range(3):
            await pilot.press(*"zebracert", *["backspace"] * 9)
        await pilot.press(*"zebracert")
        screen = app.screen
        await wait_until(pilot, lambda: screen.shown_query == "zebracert" and shows_match(screen))
        preview = screen.query_one(TranscriptPreview)
        for n in range(20):  # the preview asked to switch faster than its pages are read
            preview.show(screen.hits[n % len(screen.hits)].session_id)
        await wait_until(pilot, lambda: not any(w.is_running for w in app.workers) and not preview._reading)
        shown = [m.id for m in preview.messages]
        assert len(shown) == len(set(shown)) == preview.loaded
        assert len(preview.status_lines) <= 1


def test_fit_match_keeps_the_match_in_view() -> None:
    snippet = Text("x" * 200)
    snippet.append("needle", style="bold")
    fitted = fit_match(snippet, 40)
    assert fitted.plain.startswith("…") and "needle" in fitted.plain[:40]
    assert any(fitted.plain[s.start:s.end] == "needle" for s in fitted.spans)
    short = Text.assemble(("needle", "bold"), " and more " * 30)
    assert fit_match(short, 40) is short  # the match is already in view: the row's own cut applies


def test_a_match_ending_at_the_rows_edge_is_not_cut_by_its_ellipsis() -> None:
    lead = len(search_screen.hit_line(SearchHit("s", "s", None, 1, "user", "x", 0.0, 1), 0.0, "bold", 80).plain) - 1
    words = "Why does the staging "
    snippet = f"{words}{MATCH_START}deploy{MATCH_END} of the terraform manifests fail?"
    width = lead + len(words) + len("deploy")  # the match ends in the row's last cell
    row = search_screen.hit_line(SearchHit("s", "s", None, 1, "user", snippet, 0.0, 1), 0.0, "bold", width).plain
    assert len(row) == width and "deploy" in row and row.endswith("…")


async def test_a_match_at_the_end_of_a_long_message_is_on_its_row(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=(100, 36)) as pilot:
        screen = await typed(pilot, "rotate")
        assert len(screen.hits) == 1
        row = next(line for line in screen_text(app).splitlines() if "assistant" in line)
        assert "rotate" in row and "…" in row


async def test_titles_are_searched_and_open_their_session(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await typed(pilot, "release")  # only titles hold the word
        assert not screen.hits and [s.title for s in screen.titles] == ["Release checklist #2", "Release checklist"]
        assert "Titles · 2 sessions" in screen_text(app) and "2 titles" in screen_text(app)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.result is not app.NOTHING)
    assert app.result == SearchTarget(screen.titles[0].id)


async def test_each_heading_shows_its_own_session_title_and_id(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await typed(pilot, "zebracert")
        text = screen_text(app)
        ids = {h.session_id for h in screen.hits}
        assert len(ids) == 2 and len({h.lineage_root for h in screen.hits}) == 1  # one conversation, two sessions
        for session in (db.get_session(i) for i in ids):
            heading = next(line for line in text.splitlines() if session.id in line and "match" in line)
            assert session.title in heading


async def test_a_hit_opens_in_its_session_scrolled_to_the_match_and_marked(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await typed(pilot, "rotate")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HitView) and shows_match(app.screen))
        view = app.screen
        await pilot.pause()
        preview = view.transcript
        assert "rotate" in screen_text(app)  # on screen, however long the message
        marked = [segment for line in preview.message_lines(preview.focused_message.id) for segment in line
                  if segment.text.lower() == "rotate"]
        assert marked and marked[0].style.reverse
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        assert app.result is app.NOTHING
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HitView))
        await pilot.press("c")
        await wait_until(pilot, lambda: app.result is not app.NOTHING)
    assert app.result.session_id == screen.hits[0].session_id and app.result.message_id == screen.hits[0].message_id


def test_snapshot_hit_view(snap_compare, upstream_home: Path) -> None:
    upstream = SessionDB.open_home(upstream_home)  # fixed session ids, so the title line is stable

    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: pilot.app.screen.shown_query is not None)
        pilot.app.screen.query_one("#query", Input).cursor_blink = False
        await typed(pilot, "certbot")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HitView) and shows_match(pilot.app.screen))
        await pilot.pause()

    try:
        assert snap_compare(ScreenHost(lambda: SearchScreen(upstream)), terminal_size=(100, 24), run_before=run_before)
    finally:
        upstream.close()


async def test_a_hit_deep_in_a_long_session_opens_at_the_match_and_pages_both_ways(db: SessionDB) -> None:
    """A match 2,500 messages in (past where paging from the start would reach) opens in view;
    scrolling above or below the loaded window reads the pages there, in order."""
    session = db.create_session(source="cli", title="Long run")
    ids = db.append_messages(session, [{"role": "user", "content": f"step {n}" + (" quokkafind" if n == 2500 else "")}
                                       for n in range(2600)])
    app = ScreenHost(lambda: HitView(db, session, ids[2500], title="Long run", snippet=f"{MATCH_START}quokkafind{MATCH_END}"))
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HitView) and shows_match(app.screen))
        preview = app.screen.transcript
        await wait_until(pilot, lambda: not preview._reading and "quokkafind" in screen_text(app))
        assert preview.end - preview.first < 4 * PAGE and preview.first > 2000  # a window, not 2,500 messages

        def steps() -> list[int]:
            return [int(m.content.split("step ")[1].split()[0]) for m in preview.messages]

        first = preview.first
        preview.scroll_home(animate=False)
        await wait_until(pilot, lambda: preview.first < first and not preview._reading)
        assert steps() == list(range(preview.first, preview.end))
        top = next(line for line in screen_text(app).splitlines() if "step " in line)
        assert f"step {first} " in top + " "  # the page above came in above what was being read
        preview.scroll_end(animate=False)
        end = preview.end
        await wait_until(pilot, lambda: preview.end > end and not preview._reading)
        assert steps() == list(range(preview.first, preview.end))
        assert "earlier — scroll up for more" in preview.status_lines[0]


def with_many_matches(db: SessionDB) -> SessionDB:
    """One session whose 150 messages all match ``wombat``: more rows than any view shows."""
    session = db.create_session(source="cli", title="Many matches")
    db.append_messages(session, [{"role": "user", "content": f"wombat sighting {n}"} for n in range(150)])
    return db


async def test_result_rows_are_built_only_when_drawn(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(with_many_matches(db)))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await typed(pilot, "wombat")
        await pilot.pause()
        options = [screen.results.get_option_at_index(i) for i in range(screen.results.option_count)]
        built = [o for o in options if o._build is None]
        assert len(options) == search_screen.HIT_LIMIT + 1 and 10 < len(built) <= 24
        assert "wombat sighting" in screen_text(app)


async def test_the_rows_in_view_are_drawn_by_the_query_and_the_frame_uses_them(db: SessionDB, monkeypatch) -> None:
    monkeypatch.setattr(search_screen, "RANK_PAUSE_S", 600)  # the newest-first list stays: no ranked one replaces it
    app = ScreenHost(lambda: SearchScreen(with_many_matches(db)))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await typed(pilot, "wombat")
        await pilot.pause()
        results = screen.results
        options = [results.get_option_at_index(i) for i in range(results.option_count)]
        drawn = [o for o in options if o.drawn is not None]
        assert drawn == options[: len(drawn)] and results.scrollable_content_region.height <= len(drawn) <= 24
        look = results.row_look()
        plain = next(o for i, o in enumerate(drawn) if i != results.highlighted and not o.disabled)
        assert results._get_option_render(plain, look.normal) is plain.drawn.strips  # composed, not drawn again
        highlighted = options[results.highlighted]
        style = results.get_visual_style("option-list--option", "option-list--option-highlighted")
        assert results._get_option_render(highlighted, style) is not highlighted.drawn.strips
        assert "wombat sighting 149" in screen_text(app)  # the newest hit, first


def test_drawing_ahead_stops_when_a_newer_query_came() -> None:
    from hermes_tui.widgets.result_list import LazyOption, RowLook, draw_ahead

    options = [LazyOption(lambda: Text("row"), id=f"o{n}") for n in range(5)]
    look = RowLook(console=None, wide=10, narrow=8, height=5, normal=None, disabled=None)  # never reached
    assert draw_ahead(options, look, stale=lambda: True) is options
    assert draw_ahead(options, None, stale=lambda: False) is options
    assert all(o.drawn is None and o._build is not None for o in options)


async def test_a_key_drops_the_preview_page_being_read(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await typed(pilot, "nothing matches this")
        preview = screen.query_one(TranscriptPreview)
        preview.show(db.list_sessions(limit=1)[0].id)
        preview.abandon()  # what a keystroke does while the page is read
        await wait_until(pilot, lambda: not any(w.is_running for w in app.workers))
        await pilot.pause()
        assert preview.session_id is None and not preview.messages


async def test_a_preview_left_empty_is_not_repainted_by_each_query_without_hits(db: SessionDB) -> None:
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "nothing matches this")
        preview = app.screen.query_one(TranscriptPreview)
        await wait_until(pilot, lambda: preview._cleared and not any(w.is_running for w in app.workers))
        await pilot.pause()  # the emptied preview's own mount and layout are done
        refreshed = []
        preview.refresh = lambda *a, **k: refreshed.append(a)  # type: ignore[method-assign]
        await typed(pilot, "nor this")
        assert refreshed == []


async def test_a_new_list_is_painted_in_two_frames_from_the_top(db: SessionDB) -> None:
    from hermes_tui.widgets.result_list import FIRST_SLICE_LINES

    app = ScreenHost(lambda: SearchScreen(with_many_matches(db)))
    async with app.run_test(size=SIZE) as pilot:
        screen = await typed(pilot, "wombat")
        results = screen.results
        await wait_until(pilot, lambda: results.painted)
        await pilot.pause()
        repainted: list[list] = []
        exchange = results._exchange_repaint_regions

        def record():
            regions = exchange()
            if regions:
                repainted.append(sorted(regions, key=lambda r: r.y))
            return regions

        results._exchange_repaint_regions = record  # type: ignore[method-assign]
        await typed(pilot, "wombat sighting")  # a list as long, other rows
        await wait_until(pilot, lambda: results.painted)
        await pilot.pause()
        first, second = repainted[0], repainted[1]
        assert [r.height for r in first] == [FIRST_SLICE_LINES] and first[0].y <= 1  # the top rows alone
        assert second[0].y == first[0].bottom and second[-1].bottom >= results.size.height  # then the rest
        rows = [line[: results.region.right] for line in screen_text(app).splitlines()]
        assert sum("wombat sighting " in row for row in rows) >= results.size.height - 2  # every row in view


async def test_typing_lays_out_nothing_however_the_results_change(db: SessionDB, monkeypatch) -> None:
    app = ScreenHost(lambda: SearchScreen(with_many_matches(db)))
    async with app.run_test(size=SIZE) as pilot:
        screen = await typed(pilot, "wombat")
        preview = screen.query_one(TranscriptPreview)
        await wait_until(pilot, lambda: screen.results.painted and preview.loaded and not preview._reading
                         and not any(w.is_running for w in app.workers))
        await pilot.pause()  # the preview's last page is laid out
        monkeypatch.setattr(search_screen, "PREVIEW_PAUSE_S", 600)  # typing never pauses in this test
        layouts = []
        refresh_layout = screen._refresh_layout
        screen._refresh_layout = lambda *a, **k: (layouts.append(a), refresh_layout(*a, **k))  # type: ignore
        for text in ("wombatx", "wombat", "nothing here", "", "wombat"):  # none, many, none, recent, many
            await typed(pilot, text)
            await wait_until(pilot, lambda: screen.results.painted)
        assert layouts == []


async def test_the_preview_follows_results_without_hits_once_typing_pauses(db: SessionDB, monkeypatch) -> None:
    monkeypatch.setattr(search_screen, "PREVIEW_PAUSE_S", 0.5)
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await typed(pilot, "zebracert")
        preview = screen.query_one(TranscriptPreview)
        await wait_until(pilot, lambda: preview.focused_message)
        await typed(pilot, "zebracertx")  # no hits: the list is empty at once, the preview waits
        assert preview.session_id is not None and preview.messages
        await wait_until(pilot, lambda: not preview.messages)
        assert preview.session_id is None and "No matches for 'zebracertx'" in screen_text(app)


async def test_an_abandoned_preview_reads_no_page_until_it_is_shown_again(db: SessionDB) -> None:
    long_session = db.create_session(source="cli", title="Long")
    db.append_messages(long_session, [{"role": "user", "content": f"line {n}"} for n in range(40 * PAGE)])
    app = ScreenHost(lambda: SearchScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await typed(pilot, "nothing matches this")
        preview = screen.query_one(TranscriptPreview)
        await wait_until(pilot, lambda: preview._cleared)  # the query's own preview (none) is in
        preview.show(long_session)
        await wait_until(pilot, lambda: preview.loaded and not preview._reading)
        loaded = preview.loaded
        preview.abandon()  # a key was typed: the results it belongs to are being replaced
        preview.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert not preview._reading and preview.loaded == loaded and preview.held
        preview.show(long_session)
        await wait_until(pilot, lambda: preview.loaded and not preview._reading)
        shown_again = preview.loaded
        preview.scroll_end(animate=False, immediate=True)
        await wait_until(pilot, lambda: preview.loaded > shown_again)


def test_a_narrow_status_line_drops_whole_parts_from_its_end() -> None:
    parts = ["5 matches in 2 conversations", "enter opens", "best match first"]
    assert fitting(parts, 80) == "5 matches in 2 conversations · enter opens · best match first"
    assert fitting(parts, 45) == "5 matches in 2 conversations · enter opens"
    assert fitting(parts, 10) == "5 matches in 2 conversations"  # the first part always (the line cuts it)
    assert fitting(["匹配 3 条", "enter opens"], 11) == "匹配 3 条"  # cells, not characters: 9 + 3 + 11 > 11
