"""The session browser over a copy of the upstream home: lineage drawing, paging, resume, rename, delete."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Input

from engine.store import SessionDB
from hermes_tui.screens.confirm import Confirm
from hermes_tui.screens.sessions import RenameSession, SessionsScreen
from hermes_tui.widgets.session_tree import COMPRESSION_EDGE, BRANCH_EDGE, LineageFilter, LineagePager, SessionTree
from tests.tui.helpers import SIZE, screen_text, wait_until

ROOT, SECOND, TIP = "20261102_083000_3fa9c1", "20261102_085201_8d21e7", "20261102_091401_c07b5d"
CERT, CERT_BRANCH = "20261112_140000_b41e09", "20261112_152000_e6f3a8"


class ScreenHost(App):
    """Pushes one screen and keeps what it dismisses with (``NOTHING`` until then)."""

    NOTHING = object()

    def __init__(self, make_screen) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.result: Any = self.NOTHING

    def on_mount(self) -> None:
        self.push_screen(self.make_screen(), self._done)

    def _done(self, result: Any) -> None:
        self.result = result


@pytest.fixture
def db(upstream_home: Path) -> Iterator[SessionDB]:
    with SessionDB.open_home(upstream_home) as opened:
        yield opened


def tree_of(app: App) -> SessionTree:
    return app.screen.query_one(SessionTree)


def shown_ids(tree: SessionTree) -> list[str]:
    out, stack = [], list(tree.root.children)[::-1]
    while stack:
        node = stack.pop()
        if node.data is not None:
            out.append(node.data.id)
        stack.extend(list(node.children)[::-1])
    return out


async def press_for(pilot, key: str, modal: type) -> Screen:
    """Press ``key`` and wait for its dialog."""
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, modal))
    return pilot.app.screen


async def loaded(pilot, count: int = 1) -> SessionTree:
    tree = tree_of(pilot.app)
    await wait_until(pilot, lambda: len(shown_ids(tree)) >= count)
    return tree


def test_tree_snapshot_with_compression_lineage_and_branch(snap_compare, db: SessionDB) -> None:
    async def run_before(pilot) -> None:
        tree = await loaded(pilot, 12)
        tree.select_session(SECOND)
        await wait_until(pilot, lambda: pilot.app.screen.preview.messages)
        await pilot.pause()

    assert snap_compare(ScreenHost(lambda: SessionsScreen(db)), terminal_size=SIZE, run_before=run_before)


async def test_upstream_lineages_are_nested_and_drawn(db: SessionDB) -> None:
    app = ScreenHost(lambda: SessionsScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        tree = await loaded(pilot, 12)
        root = tree.find(ROOT)
        assert [c.data.id for c in root.children] == [SECOND]
        assert [c.data.id for c in root.children[0].children] == [TIP]
        assert [c.data.id for c in tree.find(CERT).children] == [CERT_BRANCH]
        text = screen_text(app)
        assert f"{COMPRESSION_EDGE}整理告警规则 #3" in text
        assert f"{BRANCH_EDGE}Certificate renewal #2" in text
        assert "[compression]" in text and "[branched]" in text


async def test_enter_resumes_the_tip_of_the_lineage(db: SessionDB) -> None:
    app = ScreenHost(lambda: SessionsScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        tree = await loaded(pilot, 12)
        tree.select_session(ROOT)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.result is not app.NOTHING)
    assert app.result == TIP


async def test_jump_to_tip_and_escape(db: SessionDB) -> None:
    app = ScreenHost(lambda: SessionsScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        tree = await loaded(pilot, 12)
        tree.select_session(ROOT)
        await pilot.press("t")
        assert tree.selected_session.id == TIP
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.result is not app.NOTHING)
    assert app.result is None


async def test_rename_updates_state_db_and_refuses_a_taken_title(db: SessionDB) -> None:
    app = ScreenHost(lambda: SessionsScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        tree = await loaded(pilot, 12)
        tree.select_session(TIP)
        (await press_for(pilot, "r", RenameSession)).query_one(Input).value = "Alerts to WeCom"
        await pilot.press("enter")
        await wait_until(pilot, lambda: db.require_session(TIP).title == "Alerts to WeCom")
        assert "Alerts to WeCom" in screen_text(app)

        (await press_for(pilot, "r", RenameSession)).query_one(Input).value = "Certificate renewal"  # taken
        await pilot.press("enter")
        # Refused: asked again with the typed title kept and the reason beside it.
        await wait_until(pilot, lambda: isinstance(app.screen, RenameSession) and app.screen.problem)
        dialog = app.screen
        assert dialog.query_one(Input).value == "Certificate renewal"
        assert "already used" in str(dialog.query_one("#rename-problem").render())
        dialog.query_one(Input).value = "Certificate renewal, staging"
        await pilot.press("enter")
        await wait_until(pilot, lambda: db.require_session(TIP).title == "Certificate renewal, staging")


async def test_enter_in_the_delete_dialog_keeps_the_session(db: SessionDB) -> None:
    app = ScreenHost(lambda: SessionsScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        tree = await loaded(pilot, 12)
        tree.select_session(SECOND)
        await press_for(pilot, "d", Confirm)
        assert "y: delete    n / escape / enter: cancel" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
    assert db.get_session(SECOND) is not None


async def test_rows_end_in_an_ellipsis_and_uncounted_tokens_show_a_dash(db: SessionDB) -> None:
    app = ScreenHost(lambda: SessionsScreen(db))
    async with app.run_test(size=(80, 24)) as pilot:
        tree = await loaded(pilot, 12)
        await pilot.pause()
        assert tree.virtual_size.width <= tree.scrollable_content_region.width  # nothing runs past the edge
        rows = [line for line in screen_text(app).splitlines() if "[compression]" in line]
        assert rows and all("…" in row for row in rows)
        await pilot.resize_terminal(220, 40)
        await wait_until(pilot, lambda: "tok" in screen_text(app) or "msgs · –" in screen_text(app))
        assert "msgs · –" in screen_text(app) and " 0 tok" not in screen_text(app)


async def test_delete_asks_first_and_removes_from_state_db(db: SessionDB) -> None:
    app = ScreenHost(lambda: SessionsScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        tree = await loaded(pilot, 12)
        tree.select_session(SECOND)
        await press_for(pilot, "d", Confirm)
        shown = screen_text(app)
        assert "3 messages are removed" in shown and TIP in shown
        await pilot.press("n")  # keep it
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert db.get_session(SECOND) is not None

        await press_for(pilot, "d", Confirm)
        await pilot.press("y")
        await wait_until(pilot, lambda: db.get_session(SECOND) is None)
        tree = await loaded(pilot, 11)
        assert tree.find(SECOND) is None
        assert [c.data.id for c in tree.find(ROOT).children] == [TIP]  # re-attached to the root
    assert db.require_session(TIP).parent_session_id == ROOT


async def test_filters_by_text_and_by_source(db: SessionDB) -> None:
    app = ScreenHost(lambda: SessionsScreen(db))
    async with app.run_test(size=SIZE) as pilot:
        tree = await loaded(pilot, 12)
        await pilot.press("slash", *"renewal")
        await wait_until(pilot, lambda: shown_ids(tree) == [CERT, CERT_BRANCH])
        app.screen.query_one("#filter-text", Input).value = ""
        await wait_until(pilot, lambda: len(shown_ids(tree)) == 12)
        app.screen._apply_filter(source="telegram")
        await wait_until(pilot, lambda: len(shown_ids(tree)) == 2)
        assert {db.require_session(s).source for s in shown_ids(tree)} == {"telegram"}


def test_pager_pages_whole_lineages_once(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path / "many") as many:
        parents = [many.create_session(session_id=f"s{i:03d}", title=f"Chat {i}") for i in range(25)]
        many.fork_session(parents[3], end_reason="compression", messages=[{"role": "user", "content": "x"}],
                          title="Chat 3 #2", system_prompt="", model=None, source="cli")
        pager = LineagePager(many, LineageFilter(), page_size=10)
        pages = [pager.next_page() for _ in range(3)]
        assert [len(p) for p in pages] == [10, 10, 5] and pager.exhausted
        roots = [node.session.id for page in pages for node in page]
        assert len(set(roots)) == 25 and "s003" in roots
        chat3 = next(node for page in pages for node in page if node.session.id == "s003")
        assert [c.session.title for c in chat3.children] == ["Chat 3 #2"]


async def move_to_more_row(pilot, tree: SessionTree) -> None:
    """Put the cursor on the "more" row once the tree has drawn it (a node has no line before)."""
    await wait_until(pilot, lambda: tree.more_row is not None and tree.more_row.line >= 0)
    assert tree.more_row is not None
    tree.move_cursor(tree.more_row)


async def test_the_more_row_loads_the_next_page(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path / "many") as many:
        for i in range(12):
            many.create_session(session_id=f"s{i:03d}", title=f"Chat {i}")
        app = ScreenHost(lambda: SessionsScreen(many, page_size=5))
        async with app.run_test(size=SIZE) as pilot:
            tree = await loaded(pilot, 5)
            assert len(shown_ids(tree)) == 5 and tree.more_row is not None
            await move_to_more_row(pilot, tree)
            await wait_until(pilot, lambda: len(shown_ids(tree)) == 10)
            await move_to_more_row(pilot, tree)
            await wait_until(pilot, lambda: len(shown_ids(tree)) == 12 and tree.more_row is None)


async def test_empty_home_says_so(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path / "empty") as empty:
        app = ScreenHost(lambda: SessionsScreen(empty))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: "no sessions match" in screen_text(app))
            await pilot.press("enter", "r", "d")  # nothing selected: a notice, never an error
            await pilot.pause()
            assert isinstance(app.screen, Screen) and app.result is app.NOTHING
