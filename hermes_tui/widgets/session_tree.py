"""The lineage tree: one root per conversation, its compression continuations and branches below.

Lineages arrive in pages (``LineagePager``) so a home of 10,000 sessions opens as fast as one of
ten: the screen asks for the next page when the cursor reaches the "more" row at the bottom.
The pager is plain Python over ``SessionDB`` (it runs in a thread worker); the widget only
turns the pages into nodes and draws the labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.widgets import Tree
from textual.widgets.tree import TreeNode as UINode

from engine import clock
from engine.store import SessionDB
from engine.store.models import Session, TreeNode
from hermes_tui.formatting import relative_time
from hermes_tui.untrusted import visible_line

PAGE_SIZE = 40
TOGGLE_STYLE = Style.from_meta({"toggle": True})  # what Tree reads to expand on click
COMPRESSION_EDGE = "──compression──▶ "
BRANCH_EDGE = "╌╌branch╌╌▷ "


def edge_for(parent: Session | None) -> str:
    """How a child hangs from its parent: a compression continuation or a branch (fork)."""
    if parent is None:
        return ""
    return COMPRESSION_EDGE if parent.end_reason == "compression" else BRANCH_EDGE


def session_label(session: Session, parent: Session | None, now: float, colors: Mapping[str, str]) -> Text:
    """Title, end reason, source, started → ended, messages, tokens; one line per session.

    ``colors`` are the theme's variables (``accent``, ``secondary``…): Rich cannot read ``$accent``.
    """
    text = Text(no_wrap=True, overflow="ellipsis")
    edge = edge_for(parent)
    if edge:
        compressed = parent is not None and parent.end_reason == "compression"
        text.append(edge, style=f"bold {colors['accent']}" if compressed else f"italic {colors['secondary']}")
    text.append(visible_line(session.title or "(untitled)"), style="bold" if session.title else "dim italic")
    if session.end_reason:
        reason = visible_line(session.end_reason)
        text.append(f"  [{reason}]", style=colors["warning"] if session.end_reason == "compression" else "dim")
    text.append(f"  {visible_line(session.source)}", style=colors["primary"])
    ended = relative_time(session.ended_at, now) if session.ended_at is not None else "open"
    text.append(f"  {relative_time(session.started_at, now)} → {ended}", style="dim")
    tokens = session.input_tokens + session.output_tokens
    # Upstream does not count tokens per session in every version: none counted is unknown, not 0.
    text.append(f"  {session.message_count} msgs · " + (f"{tokens:,} tok" if tokens else "–"), style="dim")
    return text


@dataclass
class LineageFilter:
    """Which lineages to show: ``source`` narrows the listing; ``text`` must occur in a member."""

    source: str | None = None
    text: str = ""

    def keeps(self, lineage: TreeNode) -> bool:
        needle = self.text.casefold().strip()
        if not needle:
            return True
        return any(needle in haystack for haystack in _haystacks(lineage))


def _haystacks(node: TreeNode) -> Iterator[str]:
    for each in node.walk():
        s = each.session
        yield f"{s.title or ''} {s.id} {s.preview or ''}".casefold()


@dataclass
class LineagePager:
    """Whole lineages, most recently active first, a page at a time (call from a worker thread).

    It walks ``list_sessions`` (which stops reading early) and turns each session it has not yet
    placed into its lineage; a lineage is placed where its most recently active member falls.
    """

    db: SessionDB
    filter: LineageFilter = field(default_factory=LineageFilter)
    page_size: int = PAGE_SIZE
    _offset: int = 0
    _placed: set[str] = field(default_factory=set)
    exhausted: bool = False

    def next_page(self, cancelled: Callable[[], bool] = lambda: False) -> list[TreeNode]:
        page: list[TreeNode] = []
        while len(page) < self.page_size and not self.exhausted and not cancelled():
            batch = self.db.list_sessions(source=self.filter.source, limit=self.page_size, offset=self._offset)
            held = self.db.lineages([s.id for s in batch if s.id not in self._placed])
            used = 0
            for session in batch:
                if len(page) == self.page_size:
                    break
                used += 1
                if session.id in self._placed or session.id not in held:
                    continue  # placed with its lineage, or gone since it was listed
                lineage = held[session.id]
                self._placed.update(n.session.id for n in lineage.walk())
                if self.filter.keeps(lineage):
                    page.append(lineage)
            self._offset += used
            self.exhausted = len(batch) < self.page_size and used == len(batch)
        return page


class SessionTree(Tree[Session | None]):
    """A ``Tree`` of sessions; a node's ``data`` is its Session (``None`` for the "more" row)."""

    DEFAULT_CSS = "SessionTree { scrollbar-gutter: stable; }"
    BINDINGS = [Binding("enter", "screen.resume", "Resume tip")]  # a click only selects; enter resumes

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("sessions", id=id)
        self.show_root = False
        self.guide_depth = 3
        self._more: UINode[Session | None] | None = None

    def render_label(self, node: UINode[Session | None], base_style: Style, style: Style) -> Text:
        session = node.data
        if session is None:
            return Text(str(node.label), style=Style(dim=True, italic=True) + style)
        parent = node.parent.data if node.parent is not None else None
        label = session_label(session, parent, clock.now(), self.app.theme_variables)
        label.stylize(style)
        lead = cell_len(self.ICON_NODE) if node.allow_expand or node.parent is self.root else 0
        label.truncate(max(8, self._room(node) - lead), overflow="ellipsis")  # "…" at the edge, no cut
        if node.allow_expand:
            icon = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
            return Text.assemble((icon, base_style + TOGGLE_STYLE), label)
        if node.parent is self.root:  # line single sessions up with the titles of expandable lineages
            return Text.assemble(" " * lead, label)
        return label

    def _room(self, node: UINode[Session | None]) -> int:
        """Cells left for a row's label once its guides are drawn."""
        depth = 0
        while node.parent is not None and node.parent is not self.root:
            node, depth = node.parent, depth + 1
        return self.scrollable_content_region.width - depth * self.guide_depth

    def on_resize(self) -> None:
        self._invalidate()  # labels are cut to the width: measure them again

    def start_over(self) -> None:
        """Drop every node (a new filter, or after a delete) before the first page arrives again."""
        self.clear()
        self._more = None

    def add_lineages(self, lineages: list[TreeNode], more: bool) -> None:
        """Append a page of lineages (expanded: lineages are short) and the "more" row if any remain."""
        if self._more is not None:
            self._more.remove()
            self._more = None
        for lineage in lineages:
            _add(self.root, lineage)
        if more:
            self._more = self.root.add_leaf("⋯ more sessions (loading)", data=None)
        elif not self.root.children:
            self.root.add_leaf("no sessions match", data=None)

    @property
    def more_row(self) -> UINode[Session | None] | None:
        return self._more

    def find(self, session_id: str) -> UINode[Session | None] | None:
        return self._first(lambda s: s.id == session_id)

    def find_title(self, title: str) -> UINode[Session | None] | None:
        return self._first(lambda s: s.title == title)

    def _first(self, match: Callable[[Session], bool]) -> UINode[Session | None] | None:
        stack = list(self.root.children)
        while stack:
            node = stack.pop()
            if node.data is not None and match(node.data):
                return node
            stack.extend(node.children)
        return None

    def select_session(self, session_id: str) -> bool:
        node = self.find(session_id)
        if node is None:
            return False
        self.move_cursor(node)
        return True

    @property
    def selected_session(self) -> Session | None:
        node = self.cursor_node
        return node.data if node is not None else None


def _add(parent: UINode[Session | None], lineage: TreeNode) -> None:
    label = Text(lineage.session.id)  # a str label would be parsed as markup; render_label draws the row
    node = parent.add(label, data=lineage.session, expand=True, allow_expand=bool(lineage.children))
    for child in lineage.children:
        _add(node, child)

