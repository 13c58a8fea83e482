"""The one way widgets show untrusted text: as ``Content``/``Text``, never parsed as markup.

Escaping markup is not a boundary (Rich's and Textual's ``escape`` leave tags that start with a
space or a capital letter, so ``[ @click=app.slash('/memory approve all')]`` survives it and
becomes a live action link). Text built here is data from the first character to the last: it
is never handed to a markup parser, and its control characters are made visible
(``hermes_tui.untrusted.visible``). Our own styling is applied around it, as spans.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from hermes_tui.untrusted import visible, visible_line


def literal(text: str | None, style: str = "") -> Content:
    """Untrusted text as ``Content``, shown exactly as written (line breaks kept)."""
    return Content.styled(visible(text or ""), style)


def literal_line(text: str | None, style: str = "") -> Content:
    """Untrusted text on one line (titles, list rows): newlines and tabs become spaces."""
    return Content.styled(visible_line(text or ""), style)


def literal_text(text: str | None, style: str = "") -> Text:
    """Untrusted text as a Rich ``Text``, for Rich renderables (tree labels, option rows)."""
    return Text(visible(text or ""), style=style)


def report(title: str | Content, lines: list[Content]) -> Content:
    """A block of app output: a bold heading, a blank line, then ``lines`` (data already literal).

    A ``str`` title is ours and plain; a title holding data arrives as ``literal`` content.
    """
    heading = (title if isinstance(title, Content) else Content(title)).stylize("bold")
    body = Content("\n").join(lines) if lines else Content.styled("none", "dim")
    return Content.assemble(heading, "\n\n", body)
