"""Screens that are styled and laid out once when they appear, not two or three times.

Textual restyles every widget of a screen each time it becomes the active one, so a theme or
stylesheet change made while it was covered shows when it comes back. The first time a screen
becomes active its widgets were styled a moment before, as they were mounted, with the same
stylesheet (themes are applied before the first screen is built): that second pass was about a
fifth of the app's start-up work and of every browser's open, and changed nothing on screen.

A screen also lays itself out again for every ``Resize`` it receives, and it receives ones for
the size it already has: the terminal's first size is sent twice, and a layout sends the screen
a ``Resize`` of its own (new) size. Three of the seven layouts of a start, each with a full
repaint, were of a screen already laid out at that size.
"""

from __future__ import annotations

from textual import events, on
from textual.screen import Screen, ScreenResultType


class StyledOnceScreen(Screen[ScreenResultType]):
    """A ``Screen`` whose first resume keeps the styles its widgets were mounted with (later
    resumes restyle as Textual does), and that lays out again only when its size changes.

    It has no breakpoint classes (``HORIZONTAL_BREAKPOINTS``): Textual sets those on a resize.
    """

    _resumed_before = False

    @on(events.ScreenResume)
    def _keep_fresh_styles(self, event: events.ScreenResume) -> None:
        if not self._resumed_before:
            self._resumed_before = True
            event.refresh_styles = False

    @on(events.Resize)
    def _skip_same_size_layout(self, event: events.Resize) -> None:
        if self.stack_updates and event.size == self._size:
            event.prevent_default()  # Screen's own handler would lay out the same layout again
