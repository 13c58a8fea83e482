"""The live memory panel: MEMORY and USER PROFILE with the system prompt's usage header.

Live because memory changes outside this widget (the model's tool, ``/memory``, another
process): it polls the files' mtimes twice a second and re-reads only when one moved, and
anyone may call ``reload()`` at once after a write they know about. Its layout follows its size:
each header and bar is one line at any width, and the sections share the height by content
(``memory_layout``), recomputed on every resize and reload.

Entries are chosen one at a time: with a section focused (``tab`` from the prompt), ``up`` and
``down`` move a highlight from entry to entry, across both files, and ``enter`` (or ``F6``, or a
click on an entry) opens the memory history on exactly that entry — where it came from and
every change to it. The highlight shows only while the panel has focus, like the chat's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from engine.memory import MemoryStore, Usage
from engine.memory.store import HEADERS, PromptView, build_prompt_view
from hermes_tui.messages import MemoryHistoryRequested
from hermes_tui.widgets.literal import literal
from hermes_tui.widgets.memory_layout import fitting, header_forms, share_rows, whole_entries

POLL_SECONDS = 0.5
SELECTED_STYLE = "bold $block-cursor-foreground on $block-cursor-background"  # the chosen entry, while focused
NEXT_SESSION_MARK = "+"  # the bullet of an entry the session's frozen prompt does not carry yet
NEXT_SESSION_LEGEND = f"{NEXT_SESSION_MARK} in the prompt from next session"


def usage_level(pct: int) -> str:
    """CSS class for the bar: warning above 80 %, error at 100 %."""
    if pct >= 100:
        return "-error"
    return "-warning" if pct > 80 else "-ok"


def usage_bar(chars: int, limit: int, width: int) -> str:
    filled = min(width, round(width * chars / limit)) if limit else width
    return "█" * filled + "░" * (width - filled)


def _prompt_tag(index: int, entry: str, prompt: Sequence[str], reasons: Sequence[str] = ()) -> str:
    """Why an entry is kept out of every prompt; "" when a new session's prompt carries it."""
    if index >= len(prompt):
        return "↳ left out of the prompt: the file is over its limit"
    if prompt[index] != entry:
        reason = reasons[index] if index < len(reasons) else ""
        return f"↳ blocked from the prompt: {reason}" if reason else "↳ blocked from the prompt"
    return ""


class UsageHeader(Static):
    """The header as the system prompt writes it, or the longest shorter form that fits one line."""

    forms: tuple[str, ...] = ("",)

    def show(self, forms: tuple[str, ...]) -> None:
        self.forms = forms
        self.refresh(layout=False)

    def render(self) -> str:
        return fitting(self.forms, self.content_size.width)


class UsageBar(Static):
    """The share of the limit in use, as wide as the panel."""

    chars, limit = 0, 1

    def show(self, usage: Usage) -> None:
        self.chars, self.limit = usage.chars, usage.limit
        for level in ("-ok", "-warning", "-error"):
            self.set_class(level == usage_level(usage.pct), level)
        self.refresh(layout=False)

    def render(self) -> str:
        return usage_bar(self.chars, self.limit, self.content_size.width)


class EntryList(VerticalScroll):
    """A section's entries, scrolled; the keyboard moves between entries, not lines."""

    BINDINGS = [
        Binding("up", "select_entry(-1)", "Previous entry", show=False),
        Binding("down", "select_entry(1)", "Next entry", show=False),
    ]

    def __init__(self, section: "MemorySection") -> None:
        super().__init__(classes="memory-scroll")
        self.section = section

    def action_select_entry(self, step: int) -> None:
        self.post_message(EntryStep(self.section, step))

    def watch_has_focus(self, has_focus: bool) -> None:
        """The highlight follows focus (``on_focus`` runs before ``has_focus`` is set)."""
        super().watch_has_focus(has_focus)
        self.section.paint()


class EntryStep(Message):
    """``up``/``down`` in a section: the panel moves the selection, to the other file at an end."""

    def __init__(self, section: "MemorySection", step: int) -> None:
        super().__init__()
        self.section, self.step = section, step


class MemorySection(Vertical):
    """One memory file: header exactly as in the system prompt, a usage bar, then the entries."""

    def __init__(self, target: str) -> None:
        super().__init__(classes="memory-section", id=f"memory-{target}")
        self.target = target
        self.entries: list[str] = []
        self.header = HEADERS[target]
        self.lines: list[Content] = []  # the entries as shown, one Content each (measured by the panel)
        self._heights: tuple[int, list[int]] | None = None  # (width, rows per entry) of ``lines``
        self.selected = 0  # the chosen entry (highlighted while the section has focus)

    def compose(self) -> ComposeResult:
        yield UsageHeader(classes="memory-header")
        yield UsageBar(classes="memory-bar")
        yield Static("", classes="memory-warning")
        yield Static(NEXT_SESSION_LEGEND, classes="memory-legend")
        with EntryList(self):
            yield Static("", classes="memory-entries")

    @property
    def entry_list(self) -> EntryList:
        return self.query_one(EntryList)

    @property
    def selected_entry(self) -> str | None:
        return self.entries[self.selected] if 0 <= self.selected < len(self.entries) else None

    def show(self, entries: Sequence[str], usage: Usage, in_snapshot: Callable[[str], bool],
             view: PromptView | None = None) -> None:
        """``view``: what of the file a new session's prompt carries (an over-limit hand edit
        leaves entries out, a poisoned or oversized one is blocked); its warning is shown.
        Entries the session's frozen prompt lacks are marked by their bullet, with one legend."""
        self.entries = list(entries)
        warning = view.warning if view is not None else None
        notice = self.query_one(".memory-warning", Static)
        notice.update(literal(f"⚠ {warning}") if warning else "")
        notice.display = bool(warning)
        prompt = view.entries if view is not None else tuple(entries)
        reasons = view.reasons if view is not None else ()
        forms = header_forms(HEADERS[self.target], usage)
        self.header = forms[0]
        self.query_one(UsageHeader).show(forms)
        self.query_one(UsageBar).show(usage)
        self.lines, self._heights = [], None
        marked = False
        for index, entry in enumerate(entries):
            tag = _prompt_tag(index, entry, prompt, reasons)
            later = not tag and not in_snapshot(entry)  # a new session's prompt will carry it
            marked = marked or later
            bullet = (f"{NEXT_SESSION_MARK} ", "bold $text-accent") if later else "• "
            line = Content.assemble(bullet, literal(entry.replace("\n", "\n  ")))
            if tag:
                line = Content.assemble(line, "\n  ", (tag, "italic $text-accent"))
            self.lines.append(line)
        self.query_one(".memory-legend").display = marked
        self.paint()

    def paint(self) -> None:
        """The entries, the chosen one highlighted while the section has focus."""
        lines = list(self.lines)
        if lines and self.entry_list.has_focus:
            lines[self.selected] = lines[self.selected].stylize(SELECTED_STYLE)
        body = Content("\n").join(lines) if lines else Content.styled("(empty)", "dim")
        self.query_one(".memory-entries", Static).update(body)

    def select(self, index: int) -> None:
        """Choose entry ``index`` and scroll it into view (whole, when it fits)."""
        self.selected = max(0, min(index, len(self.entries) - 1))
        self.paint()
        self.call_after_refresh(self.reveal)

    def reveal(self) -> None:
        scroll = self.entry_list
        width = self.query_one(".memory-entries").content_size.width
        if width <= 0 or not self.lines:
            return
        heights = self.entry_heights(width)
        top = sum(heights[:self.selected])
        bottom = top + heights[self.selected]
        view = scroll.scrollable_content_region.height
        if top < scroll.scroll_y or bottom - top > view:
            scroll.scroll_to(y=top, animate=False)
        elif bottom > scroll.scroll_y + view:
            scroll.scroll_to(y=bottom - view, animate=False)

    def entry_at(self, row: int) -> int | None:
        """The entry drawn on ``row`` of the entries (0 = the first line)."""
        width = self.query_one(".memory-entries").content_size.width
        if width <= 0 or not self.lines:
            return None
        at = 0
        for index, height in enumerate(self.entry_heights(width)):
            at += height
            if row < at:
                return index
        return None

    def fixed_rows(self, width: int) -> int:
        """Rows above the entries: header, bar, and the warning and legend when shown."""
        rows = 2 + int(self.query_one(".memory-legend").display)
        notice = self.query_one(".memory-warning", Static)
        if notice.display:
            rows += len(Content(str(notice.render())).wrap(max(1, width)))
        return rows

    def entry_heights(self, width: int) -> list[int]:
        """The rows each entry takes at ``width`` (blank lines between entries are not drawn).
        Remembered per width: a file of thousands of entries took a second to measure, and the
        panel asks on every resize, focus move and choice of entry."""
        if self._heights is None or self._heights[0] != width:
            self._heights = (width, [len(line.wrap(max(1, width))) for line in self.lines] or [1])
        return self._heights[1]


class MemoryPanel(Vertical):
    """Both memory sections, kept in step with the files on disk; ``enter`` on the chosen entry,
    or a click on one, opens where it came from (the memory history, on that entry)."""

    BORDER_TITLE = "Memory"
    BINDINGS = [Binding("enter", "history", "Where from")]

    def __init__(self, store: MemoryStore, memories_dir: Path, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.memories_dir = memories_dir
        self.in_snapshot: Callable[[str], bool] = lambda entry: True
        self._mtimes: tuple[float, ...] | None = None

    def compose(self) -> ComposeResult:
        for target in HEADERS:
            yield MemorySection(target)

    def on_mount(self) -> None:
        self.reload()
        self.set_interval(POLL_SECONDS, self.poll, name="memory-poll")

    def on_resize(self) -> None:
        self.share()

    def set_snapshot(self, in_snapshot: Callable[[str], bool]) -> None:
        """How to tell the session's frozen snapshot: other disk entries are "from next session"."""
        self.in_snapshot = in_snapshot
        if self.is_mounted:
            self.reload()

    def _stat(self) -> tuple[float, ...]:
        stamps = []
        for name in ("MEMORY.md", "USER.md"):
            try:
                stat = (self.memories_dir / name).stat()
                stamps += [stat.st_mtime_ns, stat.st_size]
            except OSError:
                stamps += [-1, -1]
        return tuple(stamps)

    def poll(self) -> None:
        """A file moved: record it in the history if the change was made outside the store."""
        if self._stat() != self._mtimes:
            self.store.sync_history()
            self.reload()

    def _section_of(self, widget: object) -> MemorySection | None:
        return next((s for s in self.query(MemorySection) if widget is s or s in getattr(widget, "ancestors", [])), None)

    def chosen(self) -> MemoryHistoryRequested | None:
        """What the focused section has chosen, as a request for its history; ``None`` when the
        panel does not have focus."""
        section = self._section_of(self.screen.focused)
        if section is None:
            return None
        entry = section.selected_entry
        return MemoryHistoryRequested(section.target, entry, section.selected if entry is not None else None)

    def action_history(self) -> None:
        self.post_message(self.chosen() or MemoryHistoryRequested(None))

    def on_entry_step(self, event: EntryStep) -> None:
        """Within a file, the next entry; past its end, the nearest entry of the other file."""
        event.stop()
        section, step = event.section, event.step
        if section.entries and 0 <= section.selected + step < len(section.entries):
            section.select(section.selected + step)
            return
        sections = list(self.query(MemorySection))
        neighbour = sections.index(section) + (1 if step > 0 else -1)
        if 0 <= neighbour < len(sections) and sections[neighbour].entries:
            other = sections[neighbour]
            other.select(0 if step > 0 else len(other.entries) - 1)
            other.entry_list.focus()
        elif section.entries:
            section.reveal()  # at the very first or last entry: it stays, in view

    def on_click(self, event: events.Click) -> None:
        section = self._section_of(event.widget)
        widget = event.widget
        if section is None or widget is None or not widget.has_class("memory-entries"):
            return
        offset = event.get_content_offset(widget)
        index = section.entry_at(offset.y) if offset is not None else None
        if index is None:
            self.post_message(MemoryHistoryRequested(section.target))
            return
        section.select(index)
        section.entry_list.focus()
        self.post_message(MemoryHistoryRequested(section.target, section.entries[index], index))

    def reload(self) -> None:
        self._mtimes = self._stat()
        for section in self.query(MemorySection):
            target = section.target
            entries = self.store.entries(target)
            view = build_prompt_view(target, entries, self.store.limits[target])
            section.show(entries, Usage.of(entries, self.store.limits[target]), self.in_snapshot, view)
        self.share()

    def share(self) -> None:
        """Split the height between the sections by what each holds (see ``share_rows``)."""
        width, height = self.content_size
        if width <= 0 or height <= 0:
            return  # hidden, or not laid out yet: on_resize comes back
        first, second = self.query(MemorySection)
        entry_width = width - 1  # the scroll areas keep a gutter for their scrollbar
        fixed = (first.fixed_rows(width), second.fixed_rows(width))
        heights = (first.entry_heights(entry_width), second.entry_heights(entry_width))
        needs = (fixed[0] + sum(heights[0]), fixed[1] + sum(heights[1]))
        top, bottom = share_rows(height - 1, needs, fixed)  # one blank row between the sections
        if needs[0] > top:  # MEMORY scrolls: end its view on a whole entry, the rows left go below
            top = fixed[0] + whole_entries(top - fixed[0], heights[0])
            bottom = height - 1 - top
        if needs[1] > bottom:  # and so does USER PROFILE (a blank row or two may stay at the bottom)
            bottom = fixed[1] + whole_entries(bottom - fixed[1], heights[1])
        first.styles.height, second.styles.height = top, bottom
