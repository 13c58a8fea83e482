"""Memory provenance: where each entry came from, its history, and undo of any change.

On the left, the entries of MEMORY.md and USER.md (and, last, every change recorded); on the
right, where the highlighted entry came from — who wrote it, in which session and message —
and its history, newest first. ``o`` opens the session of the highlighted change (or of the
entry's origin) scrolled to that message; ``u`` undoes the highlighted change through the normal
write path, recorded like any other. Opening the screen first records any hand edit made since
the last write, so what it shows is the file as it is. Entries written before the history began
say "origin unknown"; nothing is guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from engine.errors import HermesError
from engine.memory import MemoryStore, PendingQueue
from engine.memory.history import ORIGIN_UNKNOWN, Cause, Change, describe_actor, short_origin, where
from engine.memory.store import HEADERS, TARGETS
from engine.memory.undo import undo_change
from engine.store import SessionDB
from hermes_tui.formatting import one_line, utc_text
from hermes_tui.screens.frame_pacing import PromptFrames
from hermes_tui.screens.styled_once import StyledOnceScreen
from hermes_tui.widgets.footer import CoalescingFooter
from hermes_tui.widgets.literal import literal, literal_line
from hermes_tui.widgets.transcript_preview import TranscriptPreview

BY_APP = Cause("app")
ALL = "all"


@dataclass(frozen=True)
class HistoryDeps:
    """What the screen works with; ``changed`` tells the main screen memory or the queue moved."""

    store: MemoryStore
    pending: PendingQueue
    db: SessionDB
    changed: Callable[[], None]


def change_row(change: Change) -> Content:
    """``id  time  action  who`` and, below, what the change did to the text."""
    head = Content.assemble(literal_line(f"{change.id}  {utc_text(change.at)}  ", "dim"),
                            literal_line(change.action, "bold"), "  ", literal_line(describe_actor(change)))
    lines = [head]
    if change.before is not None:
        lines.append(literal_line(f"- {one_line(change.before)}", "$text-error"))
    if change.after is not None:
        lines.append(literal_line(f"+ {one_line(change.after)}", "$text-success"))
    if not change.writes and change.pending_id:
        lines.append(literal_line(f"staged write {change.pending_id}", "dim"))
    return Content("\n").join(lines)


def origin_text(entry: str, origin: Change | None, session_title: str | None) -> Content:
    """The entry in full, then who wrote it and where — or that nobody knows."""
    lines = [literal(entry, "bold"), Content("")]
    if origin is None:
        lines.append(Content.styled(f"Where it came from: {ORIGIN_UNKNOWN}.", "italic $text-warning"))
        return Content("\n").join(lines)
    lines.append(Content.assemble(("Where it came from: ", "bold"), literal_line(describe_actor(origin)),
                                  (f", {utc_text(origin.at)}", "dim")))
    place = where(origin)
    if place:
        title = f" “{session_title}”" if session_title else ""
        lines.append(Content.assemble(literal_line(f"{place}{title}"), ("   o: open it there", "dim")))
    return Content("\n").join(lines)


class SessionAtMessage(PromptFrames, ModalScreen[str | None]):
    """A session's transcript scrolled to one message; ``enter`` resumes the session in the chat."""

    DEFAULT_CSS = """
    SessionAtMessage { align: center middle; }
    SessionAtMessage > #at-message { width: 90%; height: 85%; background: $surface; border: round $secondary; }
    SessionAtMessage > #at-message-hint { width: 90%; height: 1; background: $panel; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Back"), Binding("enter", "resume", "Resume in chat")]

    def __init__(self, db: SessionDB, session_id: str, message_id: int | None, title: str) -> None:
        super().__init__()
        self.db, self.session_id, self.message_id, self.title = db, session_id, message_id, title

    def compose(self) -> ComposeResult:
        yield TranscriptPreview(self.db, id="at-message")
        where_to = f"message {self.message_id} is marked" if self.message_id is not None else "no message recorded"
        yield Static(Content.styled(f"{where_to} · enter: resume this session in the chat · escape: back", "dim"),
                     id="at-message-hint")

    def on_mount(self) -> None:
        preview = self.query_one(TranscriptPreview)
        preview.show(self.session_id, focus_message_id=self.message_id, title=self.title)
        preview.focus()

    def action_resume(self) -> None:
        self.dismiss(self.session_id)


class MemoryHistoryScreen(StyledOnceScreen[str | None]):
    """Dismisses with a session id to resume (chosen in ``SessionAtMessage``), else ``None``."""

    CSS_PATH = "memory_history.tcss"
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("o", "open_session", "Open session"),
        Binding("u,ctrl+z", "undo", "Undo change"),
        Binding("tab", "app.focus_next", "Next list", show=False),
    ]

    def __init__(self, deps: HistoryDeps, *, target: str | None = None, entry: str | None = None,
                 index: int | None = None) -> None:
        """``target`` preselects a file's first entry; ``entry`` (at ``index`` of it, as the memory
        panel showed it) that entry."""
        super().__init__()
        self.deps = deps
        self.start_target = target
        self.start_entry = (entry, index) if target is not None and entry is not None else None
        self.records: list[Change] = []
        self.entries: dict[str, list[str]] = {t: [] for t in TARGETS}
        self.shown: list[Change] = []  # the changes listed on the right
        self.showing: tuple[str, str] | None = None  # the entry they belong to (None: all changes)

    def compose(self) -> ComposeResult:
        yield Static("Memory history — where each entry came from", id="history-title")
        with Horizontal(id="history-body"):
            yield OptionList(id="history-entries")
            with Vertical(id="history-side"):
                yield Static("", id="history-origin")
                yield OptionList(id="history-changes")
        yield CoalescingFooter()

    @property
    def entry_list(self) -> OptionList:
        return self.query_one("#history-entries", OptionList)

    @property
    def change_list(self) -> OptionList:
        return self.query_one("#history-changes", OptionList)

    def on_mount(self) -> None:
        self.entry_list.border_title = "Entries"
        self.change_list.border_title = "History"
        self.reload()
        self.entry_list.focus()

    # ----- reading ------------------------------------------------------------------------------

    def reload(self) -> None:
        """Record hand edits, then read the history and both files again; the highlight is kept."""
        store = self.deps.store
        warnings = store.sync_history()
        self.records, skipped = store.history.read()
        for warning in [*warnings, *skipped]:
            self.notify(warning, severity="warning", title="Memory history")
        self.entries = {target: store.entries(target) for target in TARGETS}
        options: list[Option] = []
        for target in TARGETS:
            options.append(Option(Content.styled(HEADERS[target], "bold"), disabled=True))
            options += [Option(self._entry_row(target, entry), id=f"{target}:{index}")
                        for index, entry in enumerate(self.entries[target])]
            if not self.entries[target]:
                options.append(Option(Content.styled("  (empty)", "dim"), disabled=True))
        options.append(Option(Content.styled(f"All changes ({len(self.records)})", "bold"), id=ALL))
        entry_list = self.entry_list
        highlighted = entry_list.highlighted
        entry_list.set_options(options)
        entry_list.highlighted = highlighted if highlighted is not None else self._first_entry(options)
        self._show_selected()

    def _first_entry(self, options: list[Option]) -> int:
        wanted = self.start_target
        if self.start_entry is not None and wanted is not None:
            entry, at = self.start_entry
            entries = self.entries[wanted]
            # The place the panel showed it at, else (the file moved meanwhile) the same text anywhere.
            found = at if at is not None and at < len(entries) and entries[at] == entry else (
                entries.index(entry) if entry in entries else None)
            if found is not None:
                return next(i for i, option in enumerate(options) if option.id == f"{wanted}:{found}")
        for index, option in enumerate(options):
            if option.id and (wanted is None or str(option.id).startswith(f"{wanted}:")):
                return index
        return len(options) - 1

    def _entry_row(self, target: str, entry: str) -> Content:
        origin = self.deps.store.history.origin(target, entry, self.records)
        hint = "origin unknown" if origin is None else f"{short_origin(origin)} · {utc_text(origin.at)}"
        return Content.assemble(literal_line(f"• {one_line(entry)}"), "\n", literal_line(f"  {hint}", "dim"))

    def selected_entry(self) -> tuple[str, str] | None:
        """``(target, entry)`` highlighted on the left; ``None`` for "All changes"."""
        entry_list = self.entry_list
        if entry_list.highlighted is None:
            return None
        option_id = str(entry_list.get_option_at_index(entry_list.highlighted).id)
        if option_id == ALL:
            return None
        target, _, index = option_id.partition(":")
        return target, self.entries[target][int(index)]

    def _show_selected(self) -> None:
        picked = self.showing = self.selected_entry()
        origin_box = self.query_one("#history-origin", Static)
        history = self.deps.store.history
        if picked is None:
            self.shown = sorted(self.records, key=lambda c: c.at, reverse=True)
            origin_box.update(Content.styled("Every recorded change, newest first. u: undo the highlighted one.",
                                             "italic"))
        else:
            target, entry = picked
            origin = history.origin(target, entry, self.records)
            self.shown = history.of_entry(target, entry, self.records)
            origin_box.update(origin_text(entry, origin, self._title(origin)))
        rows = [Option(change_row(c), id=c.id) for c in self.shown]
        if not rows:
            rows = [Option(Content.styled("No recorded changes.", "dim"), disabled=True)]
        self.change_list.set_options(rows)
        self.change_list.highlighted = 0 if self.shown else None

    def _title(self, change: Change | None) -> str | None:
        if change is None or change.session_id is None:
            return None
        session = self.deps.db.get_session(change.session_id)
        return session.title if session is not None else None

    @on(OptionList.OptionHighlighted, "#history-entries")
    def _entry_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_selected()

    def selected_change(self) -> Change | None:
        index = self.change_list.highlighted
        return self.shown[index] if index is not None and index < len(self.shown) else None

    # ----- acting -------------------------------------------------------------------------------

    def action_open_session(self) -> None:
        """The highlighted change's session, else the entry's origin, scrolled to its message."""
        picked = self.selected_entry()
        origin = self.deps.store.history.origin(*picked, self.records) if picked else None
        change = next((c for c in (self.selected_change(), origin) if c is not None and c.session_id), None)
        if change is None or change.session_id is None:
            self.notify("No session to open: this change was not made in a conversation.", title="Memory history")
            return
        session = self.deps.db.get_session(change.session_id)
        if session is None:
            self.notify(f"Session {change.session_id} is no longer in state.db (deleted or pruned).",
                        severity="warning", title="Memory history")
            return
        title = session.title or session.id
        self.app.push_screen(SessionAtMessage(self.deps.db, session.id, change.message_id, title),
                             self._resume_chosen)

    def _resume_chosen(self, session_id: str | None) -> None:
        if session_id:
            self.dismiss(session_id)

    def action_undo(self) -> None:
        change = self.selected_change()
        if change is None:
            self.notify("Nothing to undo: highlight a change in the history first.", title="Memory history")
            return
        try:
            undone = undo_change(change.id, self.deps.store, self.deps.pending, BY_APP)
        except HermesError as exc:
            self.notify(f"Not undone: {exc}", severity="error", title="Memory history")
            return
        self.notify(undone.message, title="Memory history")
        self.deps.changed()
        self.reload()

    def action_close(self) -> None:
        self.dismiss(None)
