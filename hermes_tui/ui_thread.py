"""Handing a thread worker's result to a widget whose screen may have closed meanwhile.

A browser's reads run in thread workers; the browser can close before a read ends (escape, or
another browser opened over the chat, which closes this one). The result is then dropped
instead of being written into widgets that are being taken down; or, asked for (``kept``), kept
for a screen the app keeps installed (built off screen, or closed to be shown again), whose
widgets stay.
"""

from __future__ import annotations

from typing import Any, Callable

from textual.dom import NoScreen
from textual.widget import Widget


def deliver(widget: Widget, callback: Callable[..., Any], *args: Any, kept: bool = False) -> None:
    """From a worker thread: ``callback(*args)`` on the UI thread while ``widget``'s screen is open,
    or with ``kept`` also while it is installed and not shown (a coroutine callback is awaited there)."""

    def run() -> Any:
        try:
            screen = widget.screen
        except NoScreen:  # already taken off its screen
            return None
        app = widget.app
        shown = screen in app.screen_stack or (kept and app.is_screen_installed(screen))
        return callback(*args) if shown else None

    widget.app.call_from_thread(run)
