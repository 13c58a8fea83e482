"""An ``Input`` whose keystrokes never lay out the whole screen.

Textual's ``Input`` sets its virtual size (the text's width, for scrolling a long value) on every
change, and a widget's virtual size is a layout reactive: each keystroke in the search box laid
out every widget of the screen again (10–20 ms a key on a 160×50 screen, the longest stall while
typing). A one-line input of a fixed size needs no layout for that: the horizontal scroll reads
the virtual size directly, and the box keeps its size whatever is typed.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class QueryInput(Input):
    """``Input`` with a repaint-only virtual size (for boxes whose width and height are fixed)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
