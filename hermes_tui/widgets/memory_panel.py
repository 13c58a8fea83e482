"""The live memory panel: MEMORY and USER PROFILE with the system prompt's usage header.

Live because memory changes outside this widget (the model's tool, ``/memory``, another
process): it polls the files' mtimes twice a second and re-reads only when one moved, and
anyone may call ``reload()`` at once after a write they know about.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from engine.memory import MemoryStore, Usage
from engine.memory.store import HEADERS, PromptView, build_prompt_view
from hermes_tui.widgets.literal import literal

BAR_WIDTH = 40
POLL_SECONDS = 0.5


def usage_level(pct: int) -> str:
    """CSS class for the bar: warning above 80 %, error at 100 %."""
    if pct >= 100:
        return "-error"
    return "-warning" if pct > 80 else "-ok"


def usage_bar(chars: int, limit: int, width: int = BAR_WIDTH) -> str:
    filled = min(width, round(width * chars / limit)) if limit else width
    return "█" * filled + "░" * (width - filled)


def _prompt_tag(index: int, entry: str, prompt: Sequence[str], in_snapshot: Callable[[str], bool],
                reasons: Sequence[str] = ()) -> str:
    """Why an entry is not (yet) in the system prompt the model sees; "" when it is."""
    if index >= len(prompt):
        return "↳ left out of the prompt: the file is over its limit"
    if prompt[index] != entry:
        reason = reasons[index] if index < len(reasons) else ""
        return f"↳ blocked from the prompt: {reason}" if reason else "↳ blocked from the prompt"
    return "" if in_snapshot(entry) else "↳ from next session"


class MemorySection(Vertical):
    """One memory file: header exactly as in the system prompt, a usage bar, then the entries."""

    def __init__(self, target: str) -> None:
        super().__init__(classes="memory-section", id=f"memory-{target}")
        self.target = target
        self.entries: list[str] = []
        self.header = HEADERS[target]

    def compose(self) -> ComposeResult:
        yield Static(HEADERS[self.target], classes="memory-header")
        yield Static("", classes="memory-bar")
        yield Static("", classes="memory-warning")
        with VerticalScroll(classes="memory-scroll"):
            yield Static("", classes="memory-entries")

    def show(self, entries: Sequence[str], usage: Usage, in_snapshot: Callable[[str], bool],
             view: PromptView | None = None) -> None:
        """``view``: what of the file a new session's prompt carries (an over-limit hand edit
        leaves entries out, a poisoned or oversized one is blocked); its warning is shown."""
        self.entries = list(entries)
        warning = view.warning if view is not None else None
        notice = self.query_one(".memory-warning", Static)
        notice.update(literal(f"⚠ {warning}") if warning else "")
        notice.display = bool(warning)
        prompt = view.entries if view is not None else tuple(entries)
        reasons = view.reasons if view is not None else ()
        self.header = f"{HEADERS[self.target]} [{usage.text}]"
        self.query_one(".memory-header", Static).update(self.header)
        bar = self.query_one(".memory-bar", Static)
        bar.update(usage_bar(usage.chars, usage.limit))
        for level in ("-ok", "-warning", "-error"):
            bar.set_class(level == usage_level(usage.pct), level)
        lines = []
        for index, entry in enumerate(entries):
            line = Content.assemble("• ", literal(entry.replace("\n", "\n  ")))
            tag = _prompt_tag(index, entry, prompt, in_snapshot, reasons)
            if tag:
                line = Content.assemble(line, "\n  ", (tag, "italic $text-accent"))
            lines.append(line)
        body = Content("\n").join(lines) if lines else Content.styled("(empty)", "dim")
        self.query_one(".memory-entries", Static).update(body)


class MemoryPanel(Vertical):
    """Both memory sections, kept in step with the files on disk."""

    BORDER_TITLE = "Memory"

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
        if self._stat() != self._mtimes:
            self.reload()

    def reload(self) -> None:
        self._mtimes = self._stat()
        for section in self.query(MemorySection):
            target = section.target
            entries = self.store.entries(target)
            view = build_prompt_view(target, entries, self.store.limits[target])
            section.show(entries, Usage.of(entries, self.store.limits[target]), self.in_snapshot, view)
