"""The multi-line prompt: enter sends, shift+enter/ctrl+j break the line, up/down walk history,
tab completes slash commands, page up/down (and home/end in an empty prompt) scroll the chat. It
stays typable while a reply streams (it only looks dimmed)."""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea

from hermes_tui.messages import ChatScrollRequested, PromptSubmitted
from hermes_tui.slash_commands import SlashCommand, SlashRegistry
from hermes_tui.widgets.slash_menu import SlashMenu

NEWLINE_KEYS = ("shift+enter", "ctrl+j")
# Keys that scroll the chat from the prompt; home/end only while the prompt is empty (else they edit).
CHAT_SCROLL_KEYS = {"pageup": "page_up", "pagedown": "page_down", "home": "top", "end": "bottom"}
PROMPT_KEYS: tuple[tuple[str, str], ...] = (
    ("enter", "send"),
    ("shift+enter / ctrl+j", "new line"),
    ("↑ / ↓", "prompt history"),
    ("/", "list the commands (↑ ↓ choose, tab or enter take one, esc closes the list)"),
    ("tab", "complete a /command"),
    ("pgup / pgdn", "scroll the chat (home / end too, in an empty prompt)"),
    ("esc", "stop a streaming reply"),
)


class PromptHistory:
    """Sent prompts, newest last, browsed with a cursor that keeps the unsent draft."""

    def __init__(self, items: list[str] | None = None) -> None:
        self.items: list[str] = list(items or [])
        self._cursor = len(self.items)
        self._draft = ""

    def push(self, text: str) -> None:
        if text and (not self.items or self.items[-1] != text):
            self.items.append(text)
        self._cursor = len(self.items)
        self._draft = ""

    def previous(self, current: str) -> str | None:
        if self._cursor == 0:
            return None
        if self._cursor == len(self.items):
            self._draft = current
        self._cursor -= 1
        return self.items[self._cursor]

    def next(self) -> str | None:
        if self._cursor >= len(self.items):
            return None
        self._cursor += 1
        return self._draft if self._cursor == len(self.items) else self.items[self._cursor]


class PromptInput(TextArea):
    """TextArea with chat keys; posts ``PromptSubmitted`` and leaves deciding what to do to the screen."""

    def __init__(self, registry: SlashRegistry, *, menu: SlashMenu | None = None, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.registry = registry
        self.menu = menu  # the command list this prompt drives while it is open
        self.sent = PromptHistory()

    @property
    def completions(self) -> list[str]:
        return self.registry.complete(self.text)

    def _set_text(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)

    def complete(self) -> bool:
        """Extend the text to the longest common prefix of the matches (a lone match gets a space)."""
        matches = self.completions
        if not matches:
            return False
        if len(matches) == 1:
            self._set_text(matches[0] + " ")
            return True
        common = matches[0]
        for match in matches[1:]:
            while not match.startswith(common):
                common = common[:-1]
        if len(common) > len(self.text):
            self._set_text(common)
        return True

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.menu is not None and self.menu.is_open and self._menu_key(self.menu, key):
            self._consume(event)
        elif key == "enter":
            self._consume(event)
            self.submit()
        elif key in NEWLINE_KEYS:
            self._consume(event)
            self.insert("\n")
        elif key == "tab" and self.completions:
            self._consume(event)
            self.complete()
        elif key == "up" and self.cursor_location[0] == 0:
            self._consume(event)
            self._recall(self.sent.previous(self.text))
        elif key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            self._consume(event)
            self._recall(self.sent.next())
        elif key in ("pageup", "pagedown") or key in ("home", "end") and not self.text:
            self._consume(event)
            self.post_message(ChatScrollRequested(CHAT_SCROLL_KEYS[key]))
        else:
            await super()._on_key(event)

    def _menu_key(self, menu: SlashMenu, key: str) -> bool:
        """Keys for the open command list; False for a key that is not the list's (enter on a
        command typed in full sends it as typed)."""
        command = menu.chosen
        if key == "enter" and command is not None and self.text.strip() == f"/{command.name}":
            return False
        if key in ("up", "down"):
            menu.move(-1 if key == "up" else 1)
        elif key == "escape":
            menu.close(self.text)
        elif key in ("tab", "enter") and command is not None:
            self._set_text(f"/{command.name} " if command.args else f"/{command.name}")
            if key == "enter" and not needs_argument(command):
                self.submit()
        else:
            return False
        return True

    @staticmethod
    def _consume(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def _recall(self, text: str | None) -> None:
        if text is not None:
            self._set_text(text)

    def submit(self) -> None:
        text = self.text.strip()
        if not text:
            return
        self.sent.push(text)
        self.clear()
        self.post_message(PromptSubmitted(text))


def needs_argument(command: SlashCommand) -> bool:
    """``/title NAME`` cannot run without its word; ``/resume [ID|TITLE]`` can."""
    return bool(command.args) and not command.args.startswith("[")
