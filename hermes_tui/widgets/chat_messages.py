"""The things shown in the chat pane: user turns, streamed replies, tool blocks and notices.

Each is a small widget built from plain data so the chat log can unmount and remount it when
it scrolls out of (and back into) the window of mounted messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.markdown import Markdown as RichMarkdown
from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from hermes_tui.messages import RetryRequested


@dataclass
class Entry:
    """One chat item as data: what the log remounts when older items are scrolled back into view."""

    kind: str  # user | assistant | tool | notice | info | error
    text: str = ""
    name: str = ""
    arguments: str = ""
    result: str | None = None
    duration_s: float | None = None
    is_error: bool = False
    level: str = "information"
    cancelled: bool = False
    retryable: bool = False
    call_id: str = ""


class UserMessage(Static):
    """What the user sent: a plain block with an accent rule on the left."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(escape(entry.text), classes="user-message")
        self.entry = entry


SEGMENT_CHARS = 800  # a live Markdown widget is frozen once it holds this much


def block_boundary(text: str) -> int:
    """The last place to cut Markdown without changing how it renders (after a blank line, outside
    a code fence); 0 when there is none."""
    pos = text.rfind("\n\n")
    while pos > 0:
        if text.count("```", 0, pos) % 2 == 0:
            return pos + 2
        pos = text.rfind("\n\n", 0, pos)
    return 0


class FrozenMarkdown(Static):
    """Finished Markdown as ONE widget (Rich renders it, Textual caches its height).

    Textual's ``Markdown`` makes a widget per block and every screen refresh lays all of them
    out, so a long transcript (or a long reply) would make each keystroke and each streamed
    token slower. Only the part of a reply still streaming stays a live ``Markdown``.
    """

    def __init__(self, source: str) -> None:
        super().__init__(RichMarkdown(source, code_theme="monokai"), classes="frozen-markdown")
        self.source = source


class AssistantMessage(Vertical):
    """A reply. The live tail streams through ``MarkdownStream`` (no re-render per token); every
    ``SEGMENT_CHARS`` at a block boundary, and at the end, the tail is frozen into one widget."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes="assistant-message")
        self.entry = entry
        self._stream: MarkdownStream | None = None
        self._live: Markdown | None = None
        self._live_text = ""

    def compose(self) -> ComposeResult:
        if self.entry.text:
            yield FrozenMarkdown(self.entry.text)
        yield Static("", classes="reply-status")

    def on_mount(self) -> None:
        self.refresh_status()

    @property
    def source(self) -> str:
        """The Markdown on screen: frozen segments plus the live tail."""
        frozen = "".join(w.source for w in self.query(FrozenMarkdown))
        return frozen + (self._live.source if self._live is not None else "")

    @property
    def streaming(self) -> bool:
        return self._stream is not None

    async def start_stream(self) -> None:
        """Begin a live segment; it starts empty so code fences stay in context."""
        self._live = Markdown(classes="reply")
        self._live_text = ""
        await self.mount(self._live, before=self.query_one(".reply-status"))
        self._stream = Markdown.get_stream(self._live)
        self.add_class("-streaming")

    async def write(self, fragment: str) -> None:
        self.entry.text += fragment
        if self._stream is None:
            return
        self._live_text += fragment
        cut = block_boundary(self._live_text) if len(self._live_text) >= SEGMENT_CHARS else 0
        if not cut:
            await self._stream.write(fragment)
            return
        head, tail = self._live_text[:cut], self._live_text[cut:]
        self._live_text = head
        await self._freeze()  # the head becomes one widget; the live one is dropped
        await self.start_stream()
        if tail:
            self._live_text = tail
            await self._stream.write(tail)

    async def _freeze(self) -> None:
        """Replace the live segment by its frozen form."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if self._live is not None:
            live, self._live = self._live, None
            if self._live_text:
                await self.mount(FrozenMarkdown(self._live_text), before=live)
            await live.remove()

    async def finish(self, *, cancelled: bool = False) -> None:
        """Flush and freeze the tail; a cancelled reply keeps what was shown and says so."""
        await self._freeze()
        self.remove_class("-streaming")
        self.entry.cancelled = cancelled
        self.refresh_status()

    def refresh_status(self) -> None:
        status = self.query_one(".reply-status", Static)
        status.update("[dim]⏹ cancelled — kept what was shown[/]" if self.entry.cancelled else "")
        status.display = self.entry.cancelled


def _tool_title(entry: Entry) -> str:
    """``⚙ memory ✓ 0.12s  {"action": "add", …}``: state first so a narrow pane never hides it."""
    if entry.result is None:
        state = "…"
    else:
        seconds = entry.duration_s or 0.0
        state = f"{'✗' if entry.is_error else '✓'} {'<0.1' if seconds < 0.1 else f'{seconds:.1f}'}s"
    args = " ".join(entry.arguments.split())
    if len(args) > 48:
        args = args[:47] + "…"
    return f"⚙ {entry.name} {state}  {args}"


class ToolBlock(Collapsible):
    """A tool call: name, arguments, result and duration, collapsed to one line by default."""

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self._body_widget = Static(self._body(), classes="tool-body")
        super().__init__(self._body_widget, title=_tool_title(entry), collapsed=True, classes="tool-block")
        self.set_class(entry.is_error, "-error")

    def _body(self) -> str:
        result = "[dim]running…[/]" if self.entry.result is None else escape(self.entry.result)
        return f"[b]arguments[/] {escape(self.entry.arguments)}\n[b]result[/]    {result}"

    def finish(self, result: str, duration_s: float, is_error: bool) -> None:
        self.entry.result, self.entry.duration_s, self.entry.is_error = result, duration_s, is_error
        self.title = _tool_title(self.entry)
        self.set_class(is_error, "-error")
        self._body_widget.update(self._body())


class NoticeMessage(Static):
    """An informational or warning line in the transcript (not sent to the model)."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(escape(entry.text), classes=f"notice -{entry.level}")
        self.entry = entry


class InfoMessage(Markdown):
    """App output worth formatting (``/help``, ``/usage``): Markdown, set apart from the replies."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry.text, classes="info-message")
        self.entry = entry


class ErrorNotice(Horizontal):
    """A failed turn, said plainly, with a retry button when retrying makes sense."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes="error-notice")
        self.entry = entry

    def compose(self) -> ComposeResult:
        yield Static(f"✗ {escape(self.entry.text)}", classes="error-text")
        if self.entry.retryable:
            yield Button("Retry", variant="error", compact=True, classes="retry")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(RetryRequested())


WIDGETS: dict[str, type[Widget]] = {
    "user": UserMessage,
    "assistant": AssistantMessage,
    "tool": ToolBlock,
    "notice": NoticeMessage,
    "info": InfoMessage,
    "error": ErrorNotice,
}


def widget_for(entry: Entry) -> Widget:
    return WIDGETS[entry.kind](entry)


def _text_of(content: object) -> str:
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


def entries_from_transcript(messages: list[dict]) -> list[Entry]:
    """A stored transcript as chat items: tool results folded into their call's block."""
    entries: list[Entry] = []
    calls: dict[str, Entry] = {}
    for message in messages:
        role, text = message.get("role"), _text_of(message.get("content"))
        if role == "user":
            entries.append(Entry("user", text=text))
        elif role == "assistant":
            if text:
                entries.append(Entry("assistant", text=text, cancelled=message.get("finish_reason") == "cancelled"))
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                entry = Entry("tool", name=function.get("name", ""), arguments=function.get("arguments", ""),
                              call_id=call.get("id", ""))
                calls[entry.call_id] = entry
                entries.append(entry)
        elif role == "tool" and message.get("tool_call_id") in calls:
            calls[message["tool_call_id"]].result = text
    return entries
