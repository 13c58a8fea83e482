"""The things shown in the chat pane: user turns, streamed replies, tool blocks and notices.

Each is a small widget built from plain data (``Entry``) so the chat log can unmount and remount
it when it scrolls out of (and back into) the window of mounted messages. The Markdown items
live in ``chat_markdown`` and are imported on first use.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Static

from hermes_tui.messages import RetryRequested
from hermes_tui.untrusted import visible_line
from hermes_tui.widgets.chat_entries import Entry
from hermes_tui.widgets.literal import literal


class UserMessage(Static):
    """What the user sent: a plain block with an accent rule on the left."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(literal(entry.text), classes="user-message")
        self.entry = entry


def _tool_title(entry: Entry) -> Content:
    """``⚙ memory ✓ 0.12s  {"action": "add", …}``: state first so a narrow pane never hides it.

    The name and the arguments come from the model: literal, like every part of a tool block.
    """
    if entry.result is None:
        state = "…"
    else:
        seconds = entry.duration_s or 0.0
        state = f"{'✗' if entry.is_error else '✓'} {'<0.1' if seconds < 0.1 else f'{seconds:.1f}'}s"
    args = visible_line(entry.arguments)
    if len(args) > 48:
        args = args[:47] + "…"
    return Content(f"⚙ {visible_line(entry.name)} {state}  {args}")


class ToolBlock(Collapsible):
    """A tool call: name, arguments, result and duration, collapsed to one line by default."""

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self._body_widget = Static(self._body(), classes="tool-body")
        super().__init__(self._body_widget, title=_tool_title(entry), collapsed=True, classes="tool-block")
        self.set_class(entry.is_error, "-error")

    def _body(self) -> Content:
        result = Content.styled("running…", "dim") if self.entry.result is None else literal(self.entry.result)
        return Content.assemble(("arguments", "bold"), " ", literal(self.entry.arguments), "\n",
                                ("result", "bold"), "    ", result)

    def finish(self, result: str, duration_s: float, is_error: bool) -> None:
        self.entry.result, self.entry.duration_s, self.entry.is_error = result, duration_s, is_error
        self.title = _tool_title(self.entry)
        self.set_class(is_error, "-error")
        self._body_widget.update(self._body())


class NoticeMessage(Static):
    """An informational or warning line in the transcript (not sent to the model)."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(literal(entry.text), classes=f"notice -{entry.level}")
        self.entry = entry


class ReportMessage(Static):
    """App output that holds stored data (``/resume``, ``/memory pending``, ``/usage``): built
    as literal content, so a title or a staged write can never become Markdown or markup."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry.report or Content(entry.text), classes="info-message report-message")
        self.entry = entry


class ErrorNotice(Horizontal):
    """A failed turn, said plainly, with a retry button when retrying makes sense."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes="error-notice")
        self.entry = entry

    def compose(self) -> ComposeResult:
        yield Static(Content.assemble("✗ ", literal(self.entry.text)), classes="error-text")
        if self.entry.retryable:
            yield Button("Retry", variant="error", compact=True, classes="retry")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(RetryRequested())


PLAIN_WIDGETS: dict[str, type[Widget]] = {
    "user": UserMessage,
    "tool": ToolBlock,
    "notice": NoticeMessage,
    "report": ReportMessage,
    "error": ErrorNotice,
}


def widget_for(entry: Entry) -> Widget:
    """The widget showing ``entry``; the Markdown kinds (assistant, info) import their module now."""
    plain = PLAIN_WIDGETS.get(entry.kind)
    if plain is not None:
        return plain(entry)
    from hermes_tui.widgets.chat_markdown import MARKDOWN_WIDGETS

    return MARKDOWN_WIDGETS[entry.kind](entry)
