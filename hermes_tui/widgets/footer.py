"""Textual's footer, drawn with the first frame and rebuilt once per burst of binding changes.

Textual's ``Footer`` composes no keys until the first ``bindings_updated`` signal and then
recomposes all of them for every signal. Start-up sends several in a row (focus, screen resume,
resizes), each recompose costs tens of milliseconds, and the keys (``^p palette`` among them)
appeared only after the last one: about a third of a second after the first frame. Most of
those signals (and most focus moves) leave the keys shown as they were: then nothing is rebuilt.

Each key is also styled once as it is mounted, not three times: a ``FooterKey`` starts compact
and is made compact, then not compact, by its watcher and its binding to the footer's ``compact``
(two restyles of the key and its parts each: more than half the styling work of a start).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.screen import Screen


def shown_keys(screen: "Screen") -> tuple[object, ...]:
    """What the footer draws from ``screen``'s bindings: the shown ones (key, label, group,
    enabled, tooltip) and the palette key's state."""
    return tuple((key, binding.description, binding.action, binding.group, enabled, tooltip)
                 for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items()
                 if binding.show or key == screen.app.COMMAND_PALETTE_BINDING)


class CoalescingFooter(Footer):
    """A ``Footer`` whose first compose shows the keys and that schedules one recompose at a
    time, and none when the keys it would show are those it shows."""

    _recompose_scheduled = False
    _shown: tuple[object, ...] | None = None

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

    def compose(self):  # type: ignore[no-untyped-def]
        self._shown = shown_keys(self.screen) if self._bindings_ready else None
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # The palette key keeps FooterKey's own default; the others follow the footer.
                compact = widget.has_class("-command-palette") or self.compact
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget

    async def _recompose_now(self) -> None:
        # Cleared first: a change that arrives while recomposing schedules a fresh pass.
        self._recompose_scheduled = False
        if self.is_attached and shown_keys(self.screen) != self._shown:
            await self.recompose()
