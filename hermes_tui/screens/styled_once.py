"""Screens that are styled and laid out once when they appear, not two or three times.

Textual restyles every widget of a screen each time it becomes the active one, so a theme or
stylesheet change made while it was covered shows when it comes back. When the stylesheet is the
one the screen was last styled with, that pass changes nothing: the first time a screen becomes
active its widgets were styled a moment before, as they were mounted (themes are applied before
the first screen is built), and a browser kept between opens was styled when it was last shown.
That pass was about a fifth of the app's start-up work and of every browser's open.

A screen also lays itself out again for every ``Resize`` it receives, and it receives ones for
the size it already has: the terminal's first size is sent twice, and a layout sends the screen
a ``Resize`` of its own (new) size. Three of the seven layouts of a start, each with a full
repaint, were of a screen already laid out at that size.
"""

from __future__ import annotations

from textual import events, on
from textual.screen import Screen, ScreenResultType

from hermes_tui.screens.frame_pacing import PromptFrames


class StyledOnceScreen(PromptFrames, Screen[ScreenResultType]):
    """A ``Screen`` restyled on resume only when the stylesheet changed since it was last styled
    (a theme switch parses a new one), and laid out again only when its size changes.

    Its frames come at the next free slot after a pause (``PromptFrames``). It has no breakpoint
    classes (``HORIZONTAL_BREAKPOINTS``): Textual sets those on a resize.
    """

    _styled_with: object = None  # the stylesheet's rules when this screen was last styled

    def mark_styled(self) -> None:
        """Its widgets were styled with the stylesheet as it is now, though it was not shown
        (built off screen, or restyled with the app)."""
        self._styled_with = self.app.stylesheet.rules

    @on(events.ScreenResume)
    def _keep_fresh_styles(self, event: events.ScreenResume) -> None:
        rules = self.app.stylesheet.rules  # a new list whenever the stylesheet is (re)parsed
        if self._styled_with is None or rules is self._styled_with:
            event.refresh_styles = False  # mounted with these rules, or styled with them last time
        self._styled_with = rules

    @on(events.Resize)
    def _skip_same_size_layout(self, event: events.Resize) -> None:
        if self.stack_updates and event.size == self._size:
            event.prevent_default()  # Screen's own handler would lay out the same layout again
