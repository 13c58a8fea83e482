"""The session browser: lineage tree on the left, the selected transcript on the right.

It is a ``Screen[str | None]``: ``enter`` dismisses with the id of the lineage *tip* to resume,
and the app resumes it in a worker; ``escape`` dismisses with ``None``. Every database read
runs in a thread worker, so a slow disk never freezes the keyboard; rename and delete ask in a
small modal first and leave state.db untouched when cancelled or refused.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Select, Static, Tree
from textual.widgets.tree import TreeNode as TreeRow
from textual.worker import get_current_worker

from engine.errors import HermesError
from engine.store import SessionDB
from engine.store.maintenance import Removal
from engine.store.models import Session, TreeNode
from hermes_tui.screens.confirm import Confirm
from hermes_tui.screens.frame_pacing import PromptFrames
from hermes_tui.screens.read_mark import read_mark
from hermes_tui.screens.styled_once import StyledOnceScreen
from hermes_tui.ui_thread import deliver
from hermes_tui.untrusted import visible_line
from hermes_tui.widgets.footer import CoalescingFooter
from hermes_tui.widgets.literal import literal_line
from hermes_tui.widgets.session_tree import PAGE_SIZE, LineageFilter, LineagePager, SessionTree
from hermes_tui.widgets.transcript_preview import TranscriptPreview

FILTER_DELAY_S = 0.15
READ_AHEAD_WAIT_S = 0.05  # how long a first open waits for its first page before building the screen


@dataclass
class PageAhead:
    """The first page of lineages, read before the screen is built.

    Read while the screen was being built, the page took 40–160 ms for ~4 ms of work on a 10,000-
    session home: every SQLite row step gives up the interpreter's lock, and the UI thread, busy
    composing and styling, holds it (headless, 160×50). Read first, it takes its ~4 ms, and the
    screen's first frame holds the tree. A read that takes longer (a slow disk) is not waited
    for: the page is shown when it comes, as a page read by the screen would be.
    """

    pager: LineagePager
    mark: tuple[object, str | None] | None
    page: "asyncio.Future[list[TreeNode]]"

    @classmethod
    async def read(cls, db: SessionDB, live_session_id: str | None) -> "PageAhead":
        """Start reading the first page in a thread; return once it is read or after ``READ_AHEAD_WAIT_S``."""
        mark = read_mark(db)
        pager = LineagePager(db, LineageFilter(), PAGE_SIZE)
        page = asyncio.ensure_future(asyncio.to_thread(pager.next_page))
        await asyncio.wait({page}, timeout=READ_AHEAD_WAIT_S)
        return cls(pager, None if mark is None else (mark, live_session_id), page)


def removal_text(plan: Removal) -> Content:
    """What a delete removes, in words, before the user confirms it (titles and ids are data)."""
    session = plan.sessions[0]
    lines = [literal_line(f"Delete “{session.title or '(untitled)'}” ({session.id})?"), Content(""),
             Content(f"• {plan.messages} messages are removed for good.")]
    if plan.repointed_children:
        parent = session.parent_session_id or "nothing (they become roots)"
        lines.append(literal_line(f"• {len(plan.repointed_children)} child session(s) are kept and re-attached to "
                                  f"{parent}: " + ", ".join(plan.repointed_children)))
    return Content("\n").join(lines)


class RenameSession(PromptFrames, ModalScreen[str | None]):
    """One line to edit the title; enter saves, escape cancels.

    A title holding control characters is shown with them visible; saving that text unchanged
    keeps the stored title as it was.
    """

    DEFAULT_CSS = """
    RenameSession { align: center middle; }
    RenameSession > Static, RenameSession > Input { width: 80; max-width: 90%; }
    RenameSession #rename-label { background: $panel; padding: 0 1; text-style: bold; }
    RenameSession #rename-problem { color: $text-error; background: $panel; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, session: Session, *, typed: str | None = None, problem: str = "") -> None:
        """``typed`` and ``problem``: a title the store refused, offered again with the reason."""
        super().__init__()
        self.session = session
        self.shown_title = visible_line(session.title or "")
        self.typed = self.shown_title if typed is None else typed
        self.problem = problem

    def compose(self) -> ComposeResult:
        yield Static(literal_line(f"Rename {self.session.id}"), id="rename-label")
        yield Input(self.typed, placeholder="new title", id="rename-input")
        if self.problem:
            yield Static(literal_line(f"Not renamed: {self.problem}"), id="rename-problem")

    @on(Input.Submitted)
    def save(self, event: Input.Submitted) -> None:
        unchanged = event.value == self.shown_title
        self.dismiss(self.session.title or "" if unchanged else event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SessionsScreen(StyledOnceScreen[str | None]):
    """Browse lineages, preview transcripts, resume, rename, delete."""

    CSS_PATH = "sessions.tcss"
    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("t", "jump_to_tip", "Jump to tip"),
        Binding("r", "rename", "Rename"),
        Binding("d", "delete", "Delete"),
        Binding("slash", "focus_filter", "Filter"),
        Binding("tab", "focus_next", "Next pane", show=False),
    ]

    def __init__(self, db: SessionDB, *, page_size: int = PAGE_SIZE, live_session_id: str | None = None,
                 ahead: PageAhead | None = None) -> None:
        """``ahead``: the first page, read before the screen was built (``PageAhead.read``)."""
        super().__init__()
        self.db = db
        self.live_session_id = live_session_id  # the chat's own session: never deleted from here
        self.page_size = page_size
        self.filter = LineageFilter()
        self.pager = LineagePager(db, self.filter, page_size)
        self._filter_timer: Timer | None = None
        self._page_in_flight: LineagePager | None = None
        self._auto_highlight: TreeRow[Session | None] | None = None  # the first lineage, highlighted as the tree opens
        # _mark() as the shown lineages were read (None until their first page is shown), and as
        # the read under way started.
        self._read_at: tuple[object, str | None] | None = None
        self._reading_at: tuple[object, str | None] | None = None
        self._ahead = ahead if ahead is not None and ahead.pager.page_size == page_size else None

    def compose(self) -> ComposeResult:
        yield Static("Sessions", id="browser-title")
        with Horizontal(id="browser-filters"):
            yield Input(placeholder="/ filter by title, id or first message", id="filter-text")
            yield Select[str]([], prompt="all sources", id="filter-source")
        with Horizontal(id="browser-body"):
            yield SessionTree(id="session-tree")
            yield TranscriptPreview(self.db, id="preview")
        yield CoalescingFooter()

    @property
    def tree(self) -> SessionTree:
        return self.query_one(SessionTree)

    @property
    def preview(self) -> TranscriptPreview:
        return self.query_one(TranscriptPreview)

    def on_mount(self) -> None:
        self.tree.auto_expand = False
        self.tree.focus()
        ahead, self._ahead = self._ahead, None
        if ahead is None:
            self.reload()
        else:
            self._take_page_ahead(ahead)
        self._load_sources()

    def reopen(self) -> None:
        """About to be shown again (the app keeps one browser): as it was left when nothing was
        written since its lineages were read (one frame, and the user's place kept); else read
        afresh, as chats went on, the old preview dropped first (showing it again would lay out
        messages about to go)."""
        self.tree.focus()
        if self._read_at is not None and self._read_at == self._mark():
            node = self.tree.cursor_node
            if node is not None and node.data is not None and not (
                    self.preview.session_id == node.data.id and self.preview.loaded):
                self._preview(node)  # its page was read while the screen was closed, and dropped
            return
        self.preview.show(None)
        self.reload()
        self._load_sources()

    def _mark(self) -> tuple[object, str | None] | None:
        """What the shown lineages depend on: the store (``read_mark``) and the chat's live session."""
        mark = read_mark(self.db)
        return None if mark is None else (mark, self.live_session_id)

    # ----- loading -------------------------------------------------------------------------

    def reload(self) -> None:
        """Start over with the current filter (new filter, or after a delete)."""
        self._read_at, self._reading_at = None, self._mark()
        self.pager = LineagePager(self.db, self.filter, self.page_size)
        self.tree.start_over()
        self._load_page()

    def _take_page_ahead(self, ahead: PageAhead) -> None:
        """Start with the page read before the screen was built, as ``reload`` would with its own."""
        self._read_at, self._reading_at = None, ahead.mark
        self.pager = self._page_in_flight = ahead.pager
        self.tree.start_over()

        def arrived(page: "asyncio.Future[list[TreeNode]]") -> None:
            if page.cancelled() or page.exception() is not None:  # read again by a worker, which reports a failure
                self._page_in_flight = None
                self._load_page()
            else:
                self._show_page(ahead.pager, page.result())

        if ahead.page.done():
            arrived(ahead.page)
        else:
            ahead.page.add_done_callback(arrived)

    def _load_page(self) -> None:
        """Read the next page unless one is already on its way (a dropped page would lose its lineages)."""
        if self._page_in_flight is not self.pager:
            self._page_in_flight = self.pager
            self._read_page(self.pager)

    @work(thread=True, group="tree-page")
    def _read_page(self, pager: LineagePager) -> None:
        worker = get_current_worker()
        page = pager.next_page(lambda: worker.is_cancelled)
        if not worker.is_cancelled:  # a kept tree takes its page closed: it opens on it, in one frame
            deliver(self, self._show_page, pager, page, kept=True)

    def _show_page(self, pager: LineagePager, page: list[TreeNode]) -> None:
        if pager is not self.pager:
            return  # a page for a filter that has since changed
        self._page_in_flight = None
        first = not self.tree.root.children
        if first:
            self._read_at = self._reading_at
        self.tree.add_lineages(page, more=not pager.exhausted)
        if first and self.tree.root.children:
            self._auto_highlight = self.tree.root.children[0]
            self.tree.move_cursor(self._auto_highlight)

    @work(thread=True, group="sources")
    def _load_sources(self) -> None:
        sources = list(self.db.stats()["by_source"])
        options = [(literal_line(s), s) for s in sources]  # a source is whatever wrote the session
        deliver(self, self._set_sources, options)

    def _set_sources(self, options: list[tuple[Content, str]]) -> None:
        self.query_one("#filter-source", Select).set_options(options)

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        if event.node.data is None:
            if event.node is self.tree.more_row:
                self._load_page()
            return
        if event.node is self._auto_highlight:  # the tree is drawn first, its preview in the frames after
            self._auto_highlight = None
            self.call_after_refresh(self._preview, event.node)
        else:
            self._preview(event.node)

    def _preview(self, node: TreeRow[Session | None]) -> None:
        session = node.data
        if session is not None and node is self.tree.cursor_node:  # not moved on since
            self.preview.show(session.id, title=session.title or session.id)

    # ----- filters -------------------------------------------------------------------------

    @on(Input.Changed, "#filter-text")
    def _text_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY_S, lambda: self._apply_filter(text=event.value))

    @on(Input.Submitted, "#filter-text")
    def _text_submitted(self) -> None:
        self.tree.focus()

    @on(Select.Changed, "#filter-source")
    def _source_changed(self, event: Select.Changed) -> None:
        source = event.value if isinstance(event.value, str) else None
        self._apply_filter(source=source)

    def _apply_filter(self, *, text: str | None = None, source: str | None | bool = False) -> None:
        new = LineageFilter(
            source=self.filter.source if source is False else source,  # type: ignore[arg-type]
            text=self.filter.text if text is None else text,
        )
        if new != self.filter:
            self.filter = new
            self.reload()

    def action_focus_filter(self) -> None:
        self.query_one("#filter-text", Input).focus()

    # ----- actions -------------------------------------------------------------------------

    def _selected(self) -> Session | None:
        session = self.tree.selected_session
        if session is None:
            self.notify("Select a session first.", severity="warning")
        return session

    def _tip(self, session: Session) -> str | None:
        try:
            return self.db.lineage_tip(session.id)
        except HermesError as exc:
            self.notify(str(exc), severity="error")
            return None

    def action_resume(self) -> None:
        session = self._selected()
        tip = self._tip(session) if session is not None else None
        if tip is not None:
            self.dismiss(tip)

    def action_jump_to_tip(self) -> None:
        session = self._selected()
        tip = self._tip(session) if session is not None else None
        if tip is not None and not self.tree.select_session(tip):
            self.notify(f"The tip {tip} is hidden by the filter.", severity="warning")

    def action_rename(self) -> None:
        session = self._selected()
        if session is not None:
            self.app.push_screen(RenameSession(session), lambda title: self._rename(session, title))

    def _rename(self, session: Session, title: str | None) -> None:
        if title is None or title == (session.title or ""):
            return
        try:
            clean = self.db.set_title(session.id, title)
        except HermesError as exc:  # asked again with the typed title kept, and why it was refused
            retry = RenameSession(session, typed=title, problem=str(exc))
            self.app.push_screen(retry, lambda again: self._rename(session, again))
            return
        node = self.tree.find(session.id)
        fresh = self.db.get_session(session.id)
        if node is not None and fresh is not None:
            node.data = fresh
            node.refresh()
        self.notify(f"Renamed to {clean!r}.")

    def action_delete(self) -> None:
        session = self._selected()
        if session is None:
            return
        if session.id == self.live_session_id:
            self.notify("This is the session open in the chat: start /new first, then delete it.",
                        severity="warning", title="Not deleted")
            return
        try:
            plan = self.db.delete_plan(session.id)
        except HermesError as exc:
            self.notify(str(exc), severity="error")
            return
        confirm = Confirm(removal_text(plan), yes="delete", no="cancel", default=False)  # enter keeps it
        self.app.push_screen(confirm, lambda yes: self._delete(session, bool(yes)))

    def _delete(self, session: Session, yes: bool) -> None:
        if not yes:
            return
        try:
            removed = self.db.delete_session(session.id)
        except HermesError as exc:
            self.notify(str(exc), severity="error", title="Not deleted")
            return
        self.notify(f"Deleted {session.id} ({removed.messages} messages).")
        self.preview.show(None)
        self.reload()

    def action_close(self) -> None:
        self.dismiss(None)
