"""Handing a thread worker's result to a widget whose screen may have closed meanwhile.

A browser's reads run in thread workers; the browser can close before a read ends (escape, or
another browser opened over the chat, which closes this one). The result is then dropped
instead of being written into widgets that are being taken down.
"""

from __future__ import annotations

from typing import Any, Callable

from textual.dom import NoScreen
from textual.widget import Widget


def deliver(widget: Widget, callback: Callable[..., Any], *args: Any) -> None:
    """From a worker thread: ``callback(*args)`` on the UI thread while ``widget``'s screen is open
    (a coroutine callback is awaited there)."""

    def run() -> Any:
        try:
            screen = widget.screen
        except NoScreen:  # already taken off its screen
            return None
        return callback(*args) if screen in widget.app.screen_stack else None

    widget.app.call_from_thread(run)
