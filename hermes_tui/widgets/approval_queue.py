"""The approval queue: staged memory writes with id, ``[auto]``, age and summary; a preview of the
highlighted one (old → new for a replace); ``a``/``r`` one, ``A``/``R`` all.

The count stays visible in the border title even when the panel is collapsed.
"""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from engine import clock
from engine.errors import HermesError, NotFoundError
from engine.memory import MemoryStore, PendingQueue, PendingRecord
from hermes_tui.messages import PendingChanged


def age(seconds: float) -> str:
    """Compact age for a list row: ``42s``, ``5m``, ``3h``, ``2d``."""
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def row_text(record: PendingRecord, now: float) -> str:
    auto = " [auto]" if record.auto else ""
    return f"{record.id}{auto}  {age(now - record.created_at)}  {record.summary}"


def preview_text(record: PendingRecord, current_entries: list[str]) -> str:
    """What approving would do; for replace, the entry it would change → the new text."""
    payload = record.payload
    target = payload.get("target", "?")
    content = payload.get("content", "")
    action = payload.get("action", record.action)
    if action == "replace":
        old_text = payload.get("old_text", "")
        old = next((e for e in current_entries if old_text and old_text in e), old_text)
        return f"[b]replace in {target}[/]\n[$text-error]- {escape(old)}[/]\n[$text-success]+ {escape(content)}[/]"
    if action == "remove":
        return f"[b]remove from {target}[/]\n[$text-error]- {escape(payload.get('old_text', ''))}[/]"
    return f"[b]add to {target}[/]\n[$text-success]+ {escape(content)}[/]"


class ApprovalQueue(Vertical, can_focus=False):
    """List + preview of pending writes, acting through the PendingQueue and the MemoryStore."""

    BINDINGS = [
        Binding("a", "approve", "Approve"),
        Binding("r", "reject", "Reject"),
        Binding("A", "approve_all", "Approve all"),
        Binding("R", "reject_all", "Reject all"),
    ]

    def __init__(self, pending: PendingQueue, store: MemoryStore, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pending = pending
        self.store = store
        self.records: list[PendingRecord] = []

    def compose(self) -> ComposeResult:
        yield OptionList(id="approval-list")
        yield Static("", id="approval-preview")

    def on_mount(self) -> None:
        self.reload()

    @property
    def count(self) -> int:
        return len(self.records)

    def reload(self) -> None:
        self.records, warnings = self.pending.list()
        for warning in warnings:
            self.notify(warning, severity="warning")
        now = clock.now()
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.set_options(Option(escape(row_text(r, now)), id=r.id) for r in self.records)
        if self.records:
            options.highlighted = min(highlighted or 0, len(self.records) - 1)
        self.border_title = f"Pending approvals ({self.count})"
        self.set_class(not self.records, "-empty")
        self._show_preview()

    def _selected(self) -> PendingRecord | None:
        index = self.query_one(OptionList).highlighted
        return self.records[index] if index is not None and index < len(self.records) else None

    def _show_preview(self) -> None:
        record = self._selected()
        preview = self.query_one("#approval-preview", Static)
        if record is None:
            preview.update("[dim]No writes waiting for approval.[/]")
            return
        target = record.payload.get("target", "memory")
        preview.update(preview_text(record, self.store.entries(target)))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_preview()

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
            result = self.pending.approve(record.id, self.store)
        except HermesError as exc:
            return str(exc)
        if isinstance(result, dict) and result.get("success") is False:
            return str(result.get("error", "refused"))
        return None

    def approve(self, record_id: str) -> None:
        """Approve ``record_id`` or ``all``; the outcome is a notification."""
        records = self._targets(record_id)
        errors = [f"{r.id}: {e}" for r in records if (e := self._replay(r))]
        if len(records) == 1 and not errors:
            message = f"Approved {records[0].id}: {records[0].summary}"
        else:
            message = "; ".join([f"Approved {len(records) - len(errors)} of {len(records)}"] + errors)
        self._finish(message, error=bool(errors))

    def reject(self, record_id: str) -> None:
        records = self._targets(record_id)
        for record in records:
            self.pending.reject(record.id)
        single = len(records) == 1 and record_id != "all"
        self._finish(f"Rejected {records[0].id}: {records[0].summary}" if single else f"Rejected {len(records)}")

    def _finish(self, message: str, *, error: bool = False) -> None:
        self.notify(message, severity="error" if error else "information")
        self.reload()
        self.post_message(PendingChanged())

    def _act_on_selected(self, act) -> None:
        record = self._selected()
        if record is not None:
            act(record.id)

    def action_approve(self) -> None:
        self._act_on_selected(self.approve)

    def action_reject(self) -> None:
        self._act_on_selected(self.reject)

    def action_approve_all(self) -> None:
        if self.records:
            self.approve("all")

    def action_reject_all(self) -> None:
        if self.records:
            self.reject("all")
