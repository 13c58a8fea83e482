"""Text typed outside a screen's text box belongs in that box, in the order it was typed.

A screen that takes such text (the chat's prompt, the search query) gets every printable key from
the app *before* the key is dispatched. Dispatch is not ordered across widgets: a key sent to the
list that had focus travels through that list's queue and its parents' before a screen can move it,
while the keys typed after the focus moved go straight to the text box — so a fast burst came out
shuffled ("ye a d ys approve all"). The app's own queue is the one place every key passes in order.
"""

from __future__ import annotations

from textual import events
from textual.screen import Screen
from textual.widgets import Input, TextArea


class TakesTypedText(Screen):
    """A screen whose text box receives the printable keys typed while something else has focus."""

    def take_typed_key(self, event: events.Key) -> bool:
        """Called by the app for each key, in order; True when the key went into the text box."""
        if not event.is_printable or not event.character or isinstance(self.focused, (Input, TextArea)):
            return False
        return self.type_into_box(event)

    def type_into_box(self, event: events.Key) -> bool:
        """Put ``event.character`` into the screen's text box (and focus it); False to let the key
        be dispatched as usual, e.g. to a binding or a widget that answers it."""
        raise NotImplementedError
