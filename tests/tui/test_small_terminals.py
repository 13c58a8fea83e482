"""Small terminals (issue 18 §4): the side panel folds below NARROW_COLUMNS, headers and bars stay
one line at every panel width, the memory sections share the height by content, and a live
resize lays everything out again. Snapshots at 80×24 and 160×50 of the demo home and of a home
with 15 memory entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.memory import Usage
from hermes_tui.demo.run import DEMO_GUIDE, demo_home
from hermes_tui.screens.main import NARROW_COLUMNS
from hermes_tui.widgets.memory_layout import MIN_ENTRY_ROWS, fitting, header_forms, share_rows, whole_entries
from hermes_tui.widgets.memory_panel import MemorySection
from tests.tui.helpers import close_app, make_app, ready, screen_text, settle, wait_until

SMALL, LARGE = (80, 24), (160, 50)
USAGE = Usage(1_474, 2_200, 67, "67% — 1,474/2,200 chars")


def test_the_header_shortens_to_fit_and_never_wraps() -> None:
    forms = header_forms("MEMORY (your personal notes)", USAGE)
    assert forms[0] == "MEMORY (your personal notes) [67% — 1,474/2,200 chars]"
    assert fitting(forms, 60) == forms[0]
    assert fitting(forms, 30) == "MEMORY [67% — 1,474/2,200]"
    assert fitting(forms, 24) == "MEMORY 67% 1,474/2,200"
    assert fitting(forms, 12) == "MEMORY 67%"
    assert all(len(fitting(forms, width)) <= width for width in range(10, 70))


@pytest.mark.parametrize(("available", "needs", "expected"), [
    (30, (10, 8), (10, 20)),   # both fit: each shows everything
    (30, (40, 5), (25, 5)),    # the short one keeps all it needs, the long one scrolls the rest
    (30, (6, 40), (6, 24)),
    (30, (40, 40), (15, 15)),  # both long: half each
    (12, (40, 2), (10, 2)),
])
def test_sections_share_the_height_by_content(available: int, needs: tuple[int, int],
                                              expected: tuple[int, int]) -> None:
    assert share_rows(available, needs, (2, 2)) == expected


def test_a_squeezed_section_still_shows_some_entries() -> None:
    top, bottom = share_rows(10, (3, 40), (2, 2))
    assert top == 3 and bottom == 7
    top, bottom = share_rows(8, (40, 40), (3, 3))
    assert top >= 3 + MIN_ENTRY_ROWS or top == 8 - bottom


def fifteen_entries(home: Path) -> None:
    memories = home / "memories"
    memories.mkdir(parents=True)
    notes = [f"Note {n}: service svc{n} deploys with `make release-{n}`; logs in /var/log/svc{n}." for n in range(1, 16)]
    (memories / "MEMORY.md").write_text("\n§\n".join(notes), encoding="utf-8")
    (memories / "USER.md").write_text("Prefers short answers.\n§\nTimezone UTC+8.", encoding="utf-8")


def lines_of(text: str, needle: str) -> list[str]:
    return [line for line in text.splitlines() if needle in line]


async def test_the_panel_folds_when_narrow_and_comes_back_on_a_resize(home: Path) -> None:
    fifteen_entries(home)
    app = make_app(home)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        side, chat = app.main.query_one("#side"), app.main.query_one("#chat-column")
        assert not side.display and chat.size.width == SMALL[0]
        await pilot.press("f2")  # shown over the chat: the chat keeps its width
        await wait_until(pilot, lambda: side.display and side.size.width > 0)
        assert chat.size.width == SMALL[0]
        text = screen_text(app)
        assert len(lines_of(text, "MEMORY")) == 1 and "USER PROFILE [2% — 40/1,375]" in text
        await pilot.press("f2")
        await wait_until(pilot, lambda: not side.display)
        await pilot.resize_terminal(NARROW_COLUMNS + 10, 30)
        await wait_until(pilot, lambda: side.display and chat.size.width < NARROW_COLUMNS)
        await pilot.resize_terminal(*SMALL)
        await wait_until(pilot, lambda: not side.display and chat.size.width == SMALL[0])
    close_app(app)


async def test_header_and_bar_stay_one_line_at_every_panel_width(home: Path) -> None:
    fifteen_entries(home)
    app = make_app(home)
    async with app.run_test(size=LARGE) as pilot:
        await ready(pilot)
        for width in (NARROW_COLUMNS, 130, 160, 200):
            await pilot.resize_terminal(width, 40)
            await settle(pilot)
            for section in app.main.query(MemorySection):
                header = section.query_one(".memory-header")
                bar = section.query_one(".memory-bar")
                assert header.size.height == 1 and bar.size.height == 1
                assert len(str(header.render())) <= header.content_size.width
                assert len(str(bar.render())) == bar.content_size.width
            memory, user = app.main.query(MemorySection)
            assert memory.size.height > user.size.height  # 15 entries against 2: shared by content
            assert "Timezone UTC+8." in screen_text(app)  # the short profile is shown whole
    close_app(app)


def snapshot_home(snap_compare, app, size: tuple[int, int], *, side: bool = False) -> bool:
    async def run_before(pilot) -> None:
        await ready(pilot)
        if side:
            await pilot.press("f2")
        await settle(pilot)

    try:
        return snap_compare(app, terminal_size=size, run_before=run_before)
    finally:
        close_app(app)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
def test_snapshot_fifteen_entries(snap_compare, home: Path, size: tuple[int, int]) -> None:
    fifteen_entries(home)
    assert snapshot_home(snap_compare, make_app(home), size, side=size == SMALL)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
def test_snapshot_demo_home(snap_compare, demo_folder: Path, fixed_ids: None, size: tuple[int, int]) -> None:
    with demo_home(tokens_per_second=None) as demo:
        assert snapshot_home(snap_compare, make_app(demo.home, welcome=DEMO_GUIDE), size)


def test_a_scrolling_section_ends_on_a_whole_entry() -> None:
    assert whole_entries(7, [2, 3, 2, 4]) == 7
    assert whole_entries(6, [2, 3, 2, 4]) == 5  # the third entry would be cut: it waits below
    assert whole_entries(2, [3, 1]) == 2  # a first entry taller than the view is shown in part


async def test_the_chosen_entry_is_scrolled_into_view_at_80x24(home: Path) -> None:
    """Down through fifteen MEMORY entries in the panel over the chat: each chosen entry is on
    screen, whole; past the last one the choice goes on to USER PROFILE."""
    fifteen_entries(home)
    app = make_app(home)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        await pilot.press("f2", "tab")
        memory = app.main.query_one("#memory-memory", MemorySection)
        await wait_until(pilot, lambda: app.focused is memory.entry_list)
        for n in range(2, 16):
            await pilot.press("down")
            await wait_until(pilot, lambda: memory.selected == n - 1)
            await settle(pilot)
            shown = screen_text(app)
            assert f"Note {n}:" in shown and f"/var/log/svc{n}." in shown, f"entry {n} is not shown whole"
        await pilot.press("down")
        user = app.main.query_one("#memory-user", MemorySection)
        await wait_until(pilot, lambda: app.focused is user.entry_list and user.selected == 0)
        await pilot.press("up", *["up"] * 14)  # back into MEMORY at its last entry, then up to the first
        await wait_until(pilot, lambda: app.focused is memory.entry_list and memory.selected == 0)
        await settle(pilot)
        assert "Note 1:" in screen_text(app) and memory.entry_list.scroll_y == 0
    close_app(app)
