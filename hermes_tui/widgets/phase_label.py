"""The status bar's phase field: what the engine is busy with, and for how long.

Built from the engine's ``Phase`` events (``engine.events``) and the engine's clock, so a long
wait is named — waiting for the model, a retry's countdown, compression — instead of one
"streaming" for everything. The tool name is the model's text: it is shown literally.
"""

from __future__ import annotations

import math

from textual.content import Content

from engine.events import Phase
from hermes_tui.widgets.literal import literal_line

LABELS = {
    "waiting": "waiting for the model",
    "streaming": "streaming",
    "compressing": "compressing",
    "summarizing": "summarizing search results",
    "reviewing": "reviewing memory",
}


def duration(seconds: float) -> str:
    """``7 s``, ``1 m 05 s``: whole seconds, so the field changes once a tick."""
    whole = int(max(0.0, seconds))
    return f"{whole} s" if whole < 60 else f"{whole // 60} m {whole % 60:02d} s"


def phase_text(phase: Phase | None, now: float) -> Content:
    """One phase as words; ``None`` (busy, nothing reported yet) is plain "working"."""
    if phase is None:
        return Content("working")
    elapsed = now - phase.started_at
    if phase.kind == "retrying":
        left = math.ceil(max(0.0, phase.wait_s - elapsed))
        return Content(f"retrying in {left} s (attempt {phase.attempt} of {phase.attempts})")
    if phase.kind == "tool":
        return Content.assemble("running tool ", literal_line(phase.detail, "bold"), f" · {duration(elapsed)}")
    label = LABELS.get(phase.kind, phase.kind)
    if phase.kind == "waiting" and phase.attempt > 1:
        label += f" (attempt {phase.attempt} of {phase.attempts})"
    return Content(f"{label} · {duration(elapsed)}")


def phase_field(busy: bool, phase: Phase | None, background: Phase | None, now: float) -> Content:
    """The field at the start of the status line, with its separator; empty when nothing runs.

    The running turn's phase wins; a background job (the memory review) shows when it runs alone.
    """
    if busy:
        return Content.assemble(("● ", "bold $accent"), phase_text(phase, now).stylize("bold $accent"), " │ ")
    if background is not None:
        return Content.assemble(("◌ ", "$text-muted"), phase_text(background, now).stylize("$text-muted"), " │ ")
    return Content("")
