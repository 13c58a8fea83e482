"""Textual's footer, drawn with the first frame and rebuilt once per burst of binding changes.

Textual's ``Footer`` composes no keys until the first ``bindings_updated`` signal and then
recomposes all of them for every signal. Start-up sends several in a row (focus, screen resume,
resizes), each recompose costs tens of milliseconds, and the keys (``^p palette`` among them)
appeared only after the last one: about a third of a second after the first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen


class CoalescingFooter(Footer):
    """A ``Footer`` whose first compose shows the keys and that schedules one recompose at a time."""

    _recompose_scheduled = False

    def __init__(self) -> None:
        super().__init__()
        # The screen's and app's bindings are known at compose time; focus changes recompose.
        self.set_reactive(Footer._bindings_ready, True)

    def bindings_changed(self, screen: "Screen") -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or self._recompose_scheduled:
            return
        if self.is_attached and screen is self.screen:
            self._recompose_scheduled = True
            self.call_after_refresh(self._recompose_now)

    async def _recompose_now(self) -> None:
        # Cleared first: a change that arrives while recomposing schedules a fresh pass.
        self._recompose_scheduled = False
        await self.recompose()
