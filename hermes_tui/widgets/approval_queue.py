"""The approval queue: staged memory writes with id, ``[auto]``, age and summary; a preview of the
highlighted one (old → new for a replace); below them, what was decided this session.

Deciding is a deliberate act on a visible record, never a stray keystroke: ``enter`` approves
and ``delete`` rejects the highlighted record, and the bulk actions (ctrl+a, ctrl+d) ask first,
naming the count. No printable key decides anything (typing here goes to the chat prompt).
Every decision can be undone for the rest of the session (ctrl+z), through the memory history
like any other change: an approval by reverting exactly the change it made and filing the record
again, a rejection by filing it again. The count stays visible in the border title even when the
panel is collapsed.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from engine import clock
from engine.errors import HermesError, NotFoundError
from engine.memory import MemoryStore, PendingQueue, PendingRecord
from engine.memory.history import Cause
from engine.memory.undo import undo_change
from hermes_tui.messages import MemoryOutcome, PendingChanged
from hermes_tui.screens.confirm import Confirm
from hermes_tui.widgets.approval_prompt import GRACE_SECONDS
from hermes_tui.widgets.literal import literal, literal_line


AGE_TICK_SECONDS = 1.0  # how often the rows' ages are brought up to date


def age(seconds: float) -> str:
    """Compact age for a list row: ``42s``, ``5m``, ``3h``, ``2d``."""
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def row_text(record: PendingRecord, now: float) -> Content:
    auto = " [auto]" if record.auto else ""
    return literal_line(f"{record.id}{auto}  {age(now - record.created_at)}  {record.summary}")


def preview_text(record: PendingRecord, current_entries: list[str]) -> Content:
    """What approving would do; for replace, the entry it would change → the new text."""
    payload = record.payload
    target = str(payload.get("target", "?"))
    content = str(payload.get("content", ""))
    action = payload.get("action", record.action)
    if action == "replace":
        old_text = str(payload.get("old_text", ""))
        old = next((e for e in current_entries if old_text and old_text in e), old_text)
        lines = [literal_line(f"replace in {target}", "bold"), literal(f"- {old}", "$text-error"),
                 literal(f"+ {content}", "$text-success")]
    elif action == "remove":
        lines = [literal_line(f"remove from {target}", "bold"),
                 literal(f"- {payload.get('old_text', '')}", "$text-error")]
    else:
        lines = [literal_line(f"add to {target}", "bold"), literal(f"+ {content}", "$text-success")]
    return Content("\n").join(lines)


@dataclass(frozen=True)
class Decision:
    """One approve or reject made in this session, and its change in the memory history."""

    record: PendingRecord
    approved: bool
    change_id: str

    def row(self) -> Content:
        verdict = "✓ approved" if self.approved else "✗ rejected"
        return Content.assemble((verdict, "dim bold"), " ", literal_line(f"{self.record.id}  {self.record.summary}", "dim"))


class PendingList(OptionList):
    """The records; ``enter`` approves the highlighted one (the queue acts on the selection)."""

    BINDINGS = [Binding("enter", "select", "Approve")]


BY_APP = Cause("app")


class ApprovalQueue(Vertical, can_focus=False):
    """List + preview of pending writes, acting through the PendingQueue and the MemoryStore."""

    BINDINGS = [
        Binding("delete", "reject", "Reject"),
        Binding("ctrl+a", "approve_all", "Approve all…"),
        Binding("ctrl+d", "reject_all", "Reject all…"),
        Binding("ctrl+z", "undo", "Undo"),
    ]

    def __init__(self, pending: PendingQueue, store: MemoryStore, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pending = pending
        self.store = store
        self.records: list[PendingRecord] = []
        self.decided: list[Decision] = []  # newest last; undoable for the rest of the session
        self._shown_ages: list[str] = []  # the age text of each row as last drawn

    def compose(self) -> ComposeResult:
        yield PendingList(id="approval-list")
        yield Static("", id="approval-preview")

    def on_mount(self) -> None:
        self.reload()
        self.set_interval(AGE_TICK_SECONDS, self.tick_ages, name="approval-ages")

    @property
    def count(self) -> int:
        return len(self.records)

    def reload(self) -> None:
        self.records, warnings = self.pending.list()
        for warning in warnings:
            self.notify(warning, severity="warning")
        now = clock.now()
        self._shown_ages = self._ages(now)
        options = self.query_one(PendingList)
        highlighted = options.highlighted
        rows = [Option(row_text(r, now), id=f"pending:{r.id}") for r in self.records]
        rows += [Option(d.row(), id=f"decided:{i}") for i, d in reversed(list(enumerate(self.decided)))]
        options.set_options(rows)
        if rows:
            options.highlighted = min(highlighted or 0, len(rows) - 1)
        self.border_title = Content(f"Pending approvals ({self.count})")
        self.set_class(not rows, "-empty")
        self._show_preview()

    def _ages(self, now: float) -> list[str]:
        return [age(now - r.created_at) for r in self.records]

    def tick_ages(self) -> None:
        """Ages move on while the list stands still: rewrite the rows whose age text changed."""
        now = clock.now()
        ages = self._ages(now)
        options = self.query_one(PendingList)
        for record, shown, current in zip(self.records, self._shown_ages, ages):
            if shown != current:
                options.replace_option_prompt(f"pending:{record.id}", row_text(record, now))
        self._shown_ages = ages

    def _highlighted_id(self) -> str:
        options = self.query_one(PendingList)
        index = options.highlighted
        return str(options.get_option_at_index(index).id) if index is not None and options.option_count else ""

    def _selected(self) -> PendingRecord | None:
        kind, _, record_id = self._highlighted_id().partition(":")
        return next((r for r in self.records if r.id == record_id), None) if kind == "pending" else None

    def _selected_decision(self) -> Decision | None:
        kind, _, index = self._highlighted_id().partition(":")
        return self.decided[int(index)] if kind == "decided" else None

    def _show_preview(self) -> None:
        preview = self.query_one("#approval-preview", Static)
        record = self._selected()
        decision = self._selected_decision()
        if record is not None:
            target = str(record.payload.get("target", "memory"))
            preview.update(preview_text(record, self.store.entries(target)))
        elif decision is not None:
            preview.update(Content.assemble(preview_text(decision.record, []), "\n",
                                            Content.styled("ctrl+z: undo this decision", "dim")))
        else:
            preview.update(Content.styled("No writes waiting for approval.", "dim"))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_preview()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_approve()

    # ----- deciding --------------------------------------------------------------------------

    def _targets(self, record_id: str) -> list[PendingRecord]:
        """``all`` → every record; otherwise the one with that id (NotFoundError naming it)."""
        if record_id == "all":
            return list(self.records)
        for record in self.records:
            if record.id == record_id:
                return [record]
        raise NotFoundError(f"No pending memory write with id {record_id!r} (see /memory pending).")

    def _replay(self, record: PendingRecord) -> str | None:
        """Approve one record; the store's refusal text when it is refused (the record stays)."""
        try:
            result = self.pending.approve(record.id, self.store, BY_APP)
        except HermesError as exc:
            return str(exc)
        if isinstance(result, dict) and result.get("success") is False:
            return str(result.get("error", "refused"))
        self.decided.append(Decision(record, approved=True, change_id=str(result.get("change_id"))))
        return None

    def approve(self, record_id: str) -> None:
        """Approve ``record_id`` or ``all``; the outcome is said in the chat (``MemoryOutcome``)."""
        records = self._targets(record_id)
        errors = [f"{r.id}: {e}" for r in records if (e := self._replay(r))]
        if len(records) == 1 and not errors:
            message = f"Approved {records[0].id}: {records[0].summary} (ctrl+z in the queue undoes it)"
        else:
            message = "; ".join([f"Approved {len(records) - len(errors)} of {len(records)}"] + errors)
        self._finish(message, error=bool(errors))

    def reject(self, record_id: str) -> None:
        records = self._targets(record_id)
        errors = []
        for record in records:
            try:
                change_id = self.pending.reject(record.id, BY_APP)
            except HermesError as exc:
                errors.append(f"{record.id}: {exc}")
                continue
            self.decided.append(Decision(record, approved=False, change_id=change_id))
        if len(records) == 1 and record_id != "all" and not errors:
            message = f"Rejected {records[0].id}: {records[0].summary} (ctrl+z in the queue undoes it)"
        else:
            message = "; ".join([f"Rejected {len(records) - len(errors)} of {len(records)}"] + errors)
        self._finish(message, error=bool(errors))

    def confirm_all(self, approve: bool) -> None:
        """Bulk decisions are asked first, naming the count and what would be written."""
        if not self.records:
            self._say("No memory writes are waiting for approval.")
            return
        verb = "Approve" if approve else "Reject"
        count = len(self.records)
        lines = [literal_line(f"  {r.id}  {r.summary}") for r in self.records[:8]]
        if count > 8:
            lines.append(Content(f"  … and {count - 8} more"))
        question = Content.assemble((f"{verb} all {count} pending memory write{'s' if count != 1 else ''}?", "bold"),
                                    "\n\n", Content("\n").join(lines))
        confirm = Confirm(question, yes=f"{verb.lower()} all {count}", no="cancel", grace=GRACE_SECONDS)
        decide = self.approve if approve else self.reject
        self.app.push_screen(confirm, lambda yes: decide("all") if yes else None)

    def undo(self, decision: Decision) -> None:
        """Put things back as they were before ``decision`` (memory reverted, the record pending
        again), recorded in the history as an undo of its change."""
        try:
            undone = undo_change(decision.change_id, self.store, self.pending, BY_APP)
        except HermesError as exc:
            self._say(f"Not undone: {exc}", error=True)
            return
        self.decided.remove(decision)
        verb = "approval" if decision.approved else "rejection"
        self._finish(f"Undid the {verb} of {decision.record.id}: {undone.message}")

    def _say(self, message: str, *, error: bool = False) -> None:
        self.post_message(MemoryOutcome(message, "error" if error else "information"))

    def _finish(self, message: str, *, error: bool = False) -> None:
        self._say(message, error=error)
        self.reload()
        self.post_message(PendingChanged())

    # ----- keys --------------------------------------------------------------------------------

    def action_approve(self) -> None:
        record = self._selected()
        if record is not None:
            self.approve(record.id)

    def action_reject(self) -> None:
        record = self._selected()
        if record is not None:
            self.reject(record.id)

    def action_approve_all(self) -> None:
        self.confirm_all(approve=True)

    def action_reject_all(self) -> None:
        self.confirm_all(approve=False)

    def action_undo(self) -> None:
        """The highlighted decision, else the most recent one."""
        decision = self._selected_decision() or (self.decided[-1] if self.decided else None)
        if decision is None:
            self._say("Nothing to undo: no approval or rejection in this session yet.")
            return
        self.undo(decision)
