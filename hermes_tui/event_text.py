"""One-line plain-text renderings of the engine's side events, for the command line.

``chat -q`` prints them while a turn runs; the app prints them after its screen has closed
(the session-end memory review reports then).
"""

from __future__ import annotations

from engine.events import EngineEvent, MemoryStaged, MemoryWritten, Notice, SessionSwitched


def side_event_line(event: EngineEvent) -> str | None:
    """The stderr line for a notice, a memory write or a compression; None for anything else."""
    if isinstance(event, Notice):
        return f"hermes-tui: {event.message}"
    if isinstance(event, MemoryStaged):
        return f"hermes-tui: memory write staged for approval ({event.pending_id}): {event.summary}"
    if isinstance(event, MemoryWritten):
        return f"hermes-tui: memory updated ({event.target}, {event.usage})"
    if isinstance(event, SessionSwitched) and event.reason == "compression":
        return f"hermes-tui: context compressed; continuing in session {event.new_session_id}"
    return None
