"""Textual's footer, drawn with the first frame and rebuilt once per burst of binding changes.

Textual's ``Footer`` composes no keys until the first ``bindings_updated`` signal and then
recomposes all of them for every signal. Start-up sends several in a row (focus, screen resume,
resizes), each recompose costs tens of milliseconds, and the keys (``^p palette`` among them)
appeared only after the last one: about a third of a second after the first frame. Most of
those signals (and most focus moves) leave the keys shown as they were: then nothing is rebuilt.

Keys that only go (a turn's end takes "esc Stop reply" away) are hidden in place, in the frame
that shows the change beside them (the status line's "finished"), rather than by a recompose a
frame later; keys that come or change are composed again. So the footer hears of a change when
it happens, not when its message queue gets to it (Textual's footer waits for the queue).

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

    def on_mount(self) -> None:
        # Immediate: Footer's own subscription (also made, by its ``on_mount``) posts its call to
        # the footer's queue, and a frame drawn before the queue reaches it showed "Stop reply"
        # beside a finished turn. That call lands on ``bindings_changed``, which does nothing.
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed_now, immediate=True)

    def bindings_changed(self, screen: "Screen") -> None:
        """Footer's deferred call: the immediate subscription has dealt with the change already."""

    def _bindings_changed_now(self, screen: "Screen") -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        # Keys that only went are hidden now even while a recompose waits for the next refresh
        # (from a change earlier in the turn): that frame would show them beside the change.
        if not self._hide_gone_keys() and not self._recompose_scheduled:
            self._recompose_scheduled = True
            # Asked from the footer's own queue: a compose binds its keys to the active node,
            # which in this call is whatever changed the bindings.
            self.call_next(self.call_after_refresh, self._recompose_now)

    def _hide_gone_keys(self) -> bool:
        """When the keys to show are the shown ones less some single (ungrouped) keys whose actions
        are no longer bound, hide those now and return True; else (keys to add or change) False."""
        if self._shown is None:
            return False
        shown = shown_keys(self.screen)
        gone = [entry for entry in self._shown if entry not in shown]
        if not gone or tuple(entry for entry in self._shown if entry in shown) != shown:
            return False  # nothing went, or something came or changed
        # A key shows one action (its first binding's): an action still bound to another key is
        # drawn again with that key.
        still_bound = {entry[2] for entry in shown}
        widgets = {(w.key, w.action): w for w in self.query(FooterKey) if not w.has_class("-grouped")}
        hidden = [widgets.get((entry[0], entry[2])) for entry in gone]
        if any(w is None or entry[3] is not None or entry[2] in still_bound for w, entry in zip(hidden, gone)):
            return False
        for widget in hidden:
            widget.display = False
        self._shown = shown
        return True

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
