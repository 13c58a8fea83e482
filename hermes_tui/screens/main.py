"""The main screen: chat in the centre, memory and approvals on the side, status and footer below.

It lays widgets out and routes the user's input; engine events reach the widgets through
``hermes_tui.event_bridge`` and commands are run by the app. It is built with what it needs
(``MainDeps``) and never reaches for the app or the agent. ``busy`` — a turn is running — is a
reactive: setting it dims the prompt, starts the status bar's phase field and puts "Stop reply" in
the footer. Below ``NARROW_COLUMNS`` the side panel folds away on its own, and F2 lays it over the
chat instead of beside it, so the chat keeps the terminal's width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import var
from textual.widgets import Static, TextArea

from engine.memory import ApprovalDecision, MemoryStore, PendingQueue
from hermes_tui.collector import BROWSING, hold_full_collections, release_full_collections
from hermes_tui.messages import ApprovalRequested, ChatScrollRequested, MemoryOutcome, PendingChanged
from hermes_tui.palette import PaletteAction
from hermes_tui.screens.styled_once import StyledOnceScreen
from hermes_tui.screens.typed_text import TakesTypedText
from hermes_tui.slash_commands import SlashRegistry
from hermes_tui.widgets.approval_prompt import ApprovalPrompt, ApprovalTiming
from hermes_tui.widgets.approval_queue import ApprovalQueue
from hermes_tui.widgets.chat_entries import Entry
from hermes_tui.widgets.chat_log import ChatLog
from hermes_tui.widgets.footer import CoalescingFooter
from hermes_tui.widgets.memory_panel import MemoryPanel
from hermes_tui.widgets.prompt_input import PromptInput
from hermes_tui.widgets.slash_menu import SlashMenu
from hermes_tui.widgets.status_bar import StatusBar

NARROW_COLUMNS = 110  # below this the chat needs every column: the side panel is folded
EMPTY_CHAT_HINT = Content.assemble(
    "Type a message and press ", ("enter", "bold"), " to send it · ", ("/help", "bold"), " lists the commands · ",
    ("F7", "bold"), " browses past sessions · ", ("ctrl+f", "bold"), " searches them")


@dataclass(frozen=True)
class MainDeps:
    """What the main screen is built with; the app supplies it."""

    memory: MemoryStore
    pending: PendingQueue
    registry: SlashRegistry  # the slash commands the prompt completes
    approval: ApprovalTiming
    last_key_at: Callable[[], float]  # time.monotonic() of the user's last key, anywhere
    on_ready: Callable[[], Awaitable[None]]  # the widgets exist: show the session
    cancel_turn: Callable[[], None]  # escape while busy


class MainScreen(TakesTypedText, StyledOnceScreen):
    """Layout plus the small amount of glue between neighbouring widgets."""

    # Its stylesheet, screens/main.tcss, is loaded by the app: a default screen gets no CSS_PATH.
    BINDINGS = [
        Binding("escape", "cancel_reply", "Stop reply"),
        Binding("escape", "go_home", "Prompt", show=False),
        Binding("f2", "toggle_side", "Memory"),
        Binding("f3", "focus_approvals", "Approvals"),
        Binding("f4", "toggle_approvals", "Fold approvals", show=False),
        Binding("f6", "memory_history", "Memory history", show=False, priority=True),  # over the prompt's f6
        Binding("end", "jump_to_end", "Latest", show=False),
        Binding("f1", "app.slash('/help')", "Help"),
    ]

    busy: var[bool] = var(False, bindings=True, init=False)

    def __init__(self, deps: MainDeps) -> None:
        super().__init__()
        self.deps = deps
        self.narrow: bool | None = None  # None until the first size is known

    def compose(self) -> ComposeResult:
        deps = self.deps
        with Horizontal(id="body"):
            with Vertical(id="chat-column"):
                yield ChatLog(id="chat")
                yield Static("new output ↓", id="new-output")
                yield Static(EMPTY_CHAT_HINT, id="empty-hint")
                yield Static("", id="completions")
                menu = SlashMenu(deps.registry, id="slash-menu")
                yield menu
                yield PromptInput(deps.registry, menu=menu, id="prompt")
            with Vertical(id="side"):
                yield MemoryPanel(deps.memory, deps.memory.memories_dir, id="memory")
                yield ApprovalQueue(deps.pending, deps.memory, id="approvals")
        yield StatusBar(id="status")
        yield CoalescingFooter()

    @property
    def chat(self) -> ChatLog:
        return self.query_one(ChatLog)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def memory_panel(self) -> MemoryPanel:
        return self.query_one(MemoryPanel)

    @property
    def approvals(self) -> ApprovalQueue:
        return self.query_one(ApprovalQueue)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    async def on_mount(self) -> None:
        self.prompt.focus()
        await self.deps.on_ready()

    def on_resize(self, event: events.Resize) -> None:
        """Crossing ``NARROW_COLUMNS`` folds or unfolds the side panel; F2 overrides it until the
        next crossing."""
        narrow = event.size.width < NARROW_COLUMNS
        if narrow == self.narrow:
            return
        self.narrow = narrow
        self.set_class(narrow, "-narrow")
        self.query_one("#side").display = not narrow

    def watch_busy(self, busy: bool) -> None:
        """While a reply streams the prompt looks dimmed, but stays typable (the footer follows
        through ``bindings=True``)."""
        self.prompt.set_class(busy, "-busy")
        self.status.set(busy=busy, phase=None)  # a new turn has no phase yet; an ended one has none

    @property
    def at_home(self) -> bool:
        return self.focused is None or self.focused is self.prompt

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape always brings you home first: from anywhere else it focuses the prompt; at the
        prompt it stops a streaming reply (and the footer says so)."""
        if action == "cancel_reply":
            return self.busy and self.at_home
        if action == "go_home":
            return not (self.busy and self.at_home)
        return True

    def action_go_home(self) -> None:
        """Escape from the chat log, the memory panel, the queue, a tool row or a button."""
        self.prompt.focus()

    def on_screen_resume(self) -> None:
        """A browser, the palette or a dialog closed: home again — except in the approval queue,
        where review goes on after a bulk dialog's answer (escape then brings you home)."""
        release_full_collections(BROWSING)
        if self.focused is not self.query_one("#approval-list"):
            self.prompt.focus()

    def on_screen_suspend(self) -> None:
        """A browser (or the palette, a dialog) covers the chat: its keystrokes and selections are not
        to wait on a full collection (``collector``)."""
        hold_full_collections(BROWSING)

    def type_into_box(self, event: events.Key) -> bool:
        """Printable text typed outside the prompt is meant for the prompt: it goes there, at its end.

        So a sentence typed while the approval queue or the chat log has focus is a message, never
        a string of commands (a capital A used to approve every pending write). Only an inline
        approval prompt's own choice keys stay with it.
        """
        focused = self.focused
        if isinstance(focused, ApprovalPrompt) and focused.answers(event.key):
            return False
        prompt = self.prompt
        prompt.move_cursor(prompt.document.end)
        prompt.insert(event.character or "")
        prompt.focus()
        return True

    def show_empty_hint(self, shown: bool) -> None:
        """What to do first, above the prompt of a chat that has nothing in it yet."""
        self.query_one("#empty-hint").display = shown

    def refresh_new_output_hint(self) -> None:
        self.query_one("#new-output").display = self.chat.unseen

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """``/`` opens the command list, which filters as the user types; after a command's name
        the one-line hint offers its sub-words."""
        menu = self.query_one(SlashMenu)
        menu.filter(self.prompt.text)
        matches = [] if menu.is_open else self.prompt.completions
        hint = self.query_one("#completions", Static)
        hint.update(Content.assemble("   ".join(matches[:8]), ("   (tab)", "dim")) if matches else Content(""))
        hint.display = bool(matches)

    def on_approval_requested(self, event: ApprovalRequested) -> None:
        for old in self.query(ApprovalPrompt):  # never two prompts: the older one is staged
            old.resolve(ApprovalDecision.STAGE)
        prompt = ApprovalPrompt(event.request, event.future, last_key_at=self.deps.last_key_at,
                                timing=self.deps.approval)
        self.query_one("#chat-column").mount(prompt, before=self.query_one("#completions"))

    def on_pending_changed(self, event: PendingChanged) -> None:
        self.memory_panel.reload()
        self.status.set(pending=self.approvals.count)

    async def on_memory_outcome(self, event: MemoryOutcome) -> None:
        """Decisions and edits are reported in the chat, like every command's result."""
        await self.chat.add(Entry("notice", text=event.text, level=event.level))

    def queue_changed(self) -> None:
        """A write was staged by someone else (the model): the queue re-reads, the count follows."""
        self.approvals.reload()
        self.status.set(pending=self.approvals.count)

    def palette_actions(self) -> list[PaletteAction]:
        """This screen's actions for the ctrl+p palette. A single write is decided in the queue
        (enter / delete on its row); the bulk decisions ask first, as ctrl+a / ctrl+d do."""
        approvals = self.approvals
        return [
            PaletteAction("Toggle the memory panel", "F2", self.action_toggle_side),
            PaletteAction("Review pending memory writes", "F3; then enter approves, delete rejects the selected one",
                          self.action_focus_approvals),
            PaletteAction("Fold or unfold the approval queue", "F4", self.action_toggle_approvals),
            PaletteAction("Approve all pending memory writes…", "asks first (ctrl+a in the queue)",
                          approvals.action_approve_all),
            PaletteAction("Reject all pending memory writes…", "asks first (ctrl+d in the queue)",
                          approvals.action_reject_all),
            PaletteAction("Undo the last approval or rejection", "ctrl+z in the queue", approvals.action_undo),
            PaletteAction("Jump to the latest output", "end", self.action_jump_to_end),
        ]

    def action_cancel_reply(self) -> None:
        """Escape at the prompt. While the model waits on an inline approval prompt that has not
        taken focus yet, escape means what that prompt says ("decide later": the write is staged
        and the turn goes on); stopping a turn blocked on it would leave it waiting for an answer."""
        waiting = self.query(ApprovalPrompt)
        if waiting:
            for prompt in waiting:
                prompt.resolve(ApprovalDecision.STAGE)
            return
        self.deps.cancel_turn()

    async def action_memory_history(self) -> None:
        """F6: the memory history, on the entry chosen in the focused memory panel if any."""
        chosen = self.memory_panel.chosen()
        if chosen is not None:
            self.post_message(chosen)
        else:
            await self.run_action("app.slash('/memory log')")

    def action_toggle_side(self) -> None:
        side = self.query_one("#side")
        side.display = not side.display

    def action_focus_approvals(self) -> None:
        self.query_one("#side").display = True
        self.approvals.remove_class("-collapsed")
        self.query_one("#approval-list").focus()

    def action_toggle_approvals(self) -> None:
        self.approvals.toggle_class("-collapsed")

    def on_click(self, event: events.Click) -> None:
        if event.widget is not None and event.widget.id == "new-output":
            self.action_jump_to_end()

    def on_chat_scroll_requested(self, event: ChatScrollRequested) -> None:
        chat = self.chat
        if event.where == "page_up":
            chat.scroll_page_up(animate=False)
        elif event.where == "page_down":
            chat.scroll_page_down(animate=False)
        elif event.where == "top":
            chat.scroll_to_start()
        if event.where == "bottom" or chat.is_vertical_scroll_end and chat.at_end:
            self.action_jump_to_end()  # back at the bottom: follow new output again

    def action_jump_to_end(self) -> None:
        self.chat.jump_to_end()
        self.refresh_new_output_hint()

