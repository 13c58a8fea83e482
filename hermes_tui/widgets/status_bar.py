"""One line of session facts: model · provider, title, context used, tokens, cache, approval, pending."""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from engine import clock
from engine.events import Phase
from hermes_tui.widgets.literal import literal_line
from hermes_tui.widgets.phase_label import phase_field

TICK_S = 1.0  # the phase's elapsed time is in whole seconds


@dataclass(frozen=True)
class StatusInfo:
    model_label: str = ""
    session: str = "new session"
    prompt_tokens: int | None = None  # None: not measured yet in this session
    context_window: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    write_approval: bool = False
    pending: int = 0
    busy: bool = False
    phase: Phase | None = None  # the running turn's, None until it reports one
    background: Phase | None = None  # a background job's (the memory review), None when none runs

    @property
    def ticking(self) -> bool:
        return self.busy or self.background is not None


def compact(n: int) -> str:
    """``950`` → ``950``, ``12_300`` → ``12.3k``, ``1_250_000`` → ``1.2M``."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1_000:
        return f"{n / 1_000:.1f}k"
    return str(n)


def context_pct(prompt_tokens: int | None, window: int) -> str:
    """``"12%"`` of the window, or ``"–"`` before the first call measured the prompt."""
    if prompt_tokens is None or not window:
        return "–"
    return f"{min(100, int(prompt_tokens / window * 100))}%"


def render_status(info: StatusInfo, now: float | None = None) -> Content:
    """The line as content: the model label (config) and the title (the store, or the model's
    auto-title) are data, so they are literal; only our own labels carry styles."""
    pct = context_pct(info.prompt_tokens, info.context_window)
    approval = "on" if info.write_approval else "off"
    pending = (f"{info.pending} pending", "bold $warning") if info.pending else "0 pending"
    phase = phase_field(info.busy, info.phase, info.background, clock.now() if now is None else now)
    return Content.assemble(
        phase, literal_line(info.model_label, "bold"), " │ ", literal_line(info.session),
        f" │ ctx {pct} of {compact(info.context_window)}",
        f" │ ↑{compact(info.input_tokens)} ↓{compact(info.output_tokens)}",
        f" │ cached {compact(info.cache_read_tokens)} │ approval {approval} │ ", pending,
    )


class StatusBar(Static):
    """Holds a ``StatusInfo`` and re-renders on every change, and once a second while a phase
    runs (its elapsed time); no timer runs while the app is idle."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.info = StatusInfo()
        self._ticker: Timer | None = None

    def set(self, **changes: object) -> None:
        self.info = replace(self.info, **changes)
        self._render_info()
        if self.info.ticking and self._ticker is None:
            self._ticker = self.set_interval(TICK_S, self._render_info)
        elif not self.info.ticking and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _render_info(self) -> None:
        self.update(render_status(self.info))
