"""The Textual app: owns the Agent, runs turns in a thread worker, and runs slash commands.

Everything the engine reports arrives as events through ``EventBridge``, which the app builds
with callbacks; the app itself starts work, ends it, dispatches commands (one ``slash_<name>``
method per row of the command table) and keeps the status bar in step. A turn starts in
``_start`` and ends in ``_turn_ended``, once, when the agent's worker returns or raises. The main
screen is the app's default screen, so the first frame drawn is the real one; a browser
(sessions, search) is shown over it, one at a time.

A turn is shown finished as soon as its reply is (the bridge's ``TurnDone`` has drawn the last
line): the work the agent does after the reply — an auto-title, a memory review, the compression
check — runs on in the worker without the status saying "streaming". A new message sent
meanwhile waits in its own worker for the agent's turn lock.
"""

from __future__ import annotations

import contextlib
from functools import partial
import threading
import time
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Callable, Sequence, TypeVar, cast

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import get_current_worker

from engine.config import set_config_value
from engine.errors import BadInputError, HermesError
from engine.events import EngineEvent, Notice, TurnFailed
from engine.memory import ApprovalDecision, ApprovalRequest
from engine.memory.history import Cause
from engine.memory.store import HEADERS
from hermes_tui.collector import (AFTER_TURN, TURN, collect_held_garbage, freeze_startup_objects,
                                  hold_full_collections, release_full_collections)
from hermes_tui.event_bridge import BridgeCallbacks, EventBridge
from hermes_tui.formatting import snippet_plain
from hermes_tui.messages import (ApprovalRequested, CopyRequested, MemoryHistoryRequested, PromptSubmitted,
                                 RetryRequested, TextArrived)
from hermes_tui.palette import AppActionsProvider, PaletteAction, SlashCommandsProvider
from hermes_tui.screens.main import MainDeps, MainScreen
from hermes_tui.screens.styled_once import StyledOnceScreen
from hermes_tui.screens.typed_text import TakesTypedText
from hermes_tui.slash_commands import SlashRegistry, parse, parse_memory_args
from hermes_tui.themes import DEFAULT_THEME, apply_theme, register_themes
from hermes_tui.untrusted import visible
from hermes_tui.widgets.approval_prompt import GRACE_SECONDS, IDLE_SECONDS, TIMEOUT_SECONDS, ApprovalTiming
from hermes_tui.widgets.chat_entries import Entry, entries_from_transcript
from hermes_tui.widgets.literal import literal_line, report
from hermes_tui.widgets.prompt_input import PROMPT_KEYS
from hermes_tui.widgets.status_bar import context_pct

if TYPE_CHECKING:
    from engine.agent import Agent
    from engine.store import SessionDB
    from hermes_tui.screens.search import SearchScreen, SearchTarget
    from hermes_tui.screens.sessions import PageAhead, SessionsScreen

AgentCall = Callable[[Callable[[EngineEvent], None], threading.Event], None]
StartAgent = Callable[[Callable[[ApprovalRequest], ApprovalDecision]], "Agent"]
BrowserT = TypeVar("BrowserT", bound=Screen)

START_DEMO = "start-demo"  # what the app returns when the no-key notice's offer of the demo is taken
# Built as Content, not Markdown: the notice is on the first frame of every keyless start, and the
# Markdown parser's import alone (~0.2 s) delayed that frame.
DEMO_OFFER = Content.assemble(("F9", "bold"), " starts the offline demo instead: a seeded temporary home and a "
                              "scripted local model (the same as ", ("hermes-tui --demo", "bold"),
                              "); your home is left as it is.")

# Commands that use the agent's session (and its database connection) and so wait for the turn.
IDLE_COLLECT_S = 1.5  # a pause in typing this long lets a held full collection run (collector)
IDLE_ONLY = frozenset({"new", "title", "resume", "compress", "branch"})


class HermesApp(App):
    """One agent, one main screen; keyboard-first (footer, ctrl+p palette, /help)."""

    TITLE = "hermes-tui"
    # The browsers' stylesheets too: a screen's own CSS_PATH, read at its first push, made Textual
    # parse every stylesheet again and restyle the whole app (a third of a browser's first open).
    CSS_PATH = ["screens/main.tcss", "widgets/chat.tcss", "widgets/side.tcss", "widgets/focus.tcss",
                "screens/sessions.tcss", "screens/search.tcss", "screens/memory_history.tcss", "screens/usage.tcss"]
    COMMANDS = App.COMMANDS | {SlashCommandsProvider, AppActionsProvider}
    BINDINGS = [
        Binding("ctrl+n", "slash('/new')", "New"),
        Binding("f5", "slash('/copy')", "Copy reply"),
        Binding("f7", "slash('/sessions')", "Sessions", priority=True),
        Binding("ctrl+f", "slash('/search')", "Search", priority=True),
        Binding("ctrl+r", "retry", "Retry", show=False),
        Binding("f9", "start_demo", "Demo"),  # only while no model is configured (check_action)
    ]

    def __init__(self, start_agent: StartAgent, db: "SessionDB", *, approval_timeout: float = TIMEOUT_SECONDS,
                 approval_grace: float = GRACE_SECONDS, approval_idle: float = IDLE_SECONDS,
                 welcome: str | None = None, notes: Sequence[str] = (), prebuild_browsers: bool = True) -> None:
        """``db`` is the home's store, which the browsers read; ``start_agent`` opens the session on it.
        ``notes``: one-line facts about the start (a home just created), shown once in the chat.
        ``prebuild_browsers``: build the browsers off screen in the first pause in typing."""
        super().__init__()
        self.approval = ApprovalTiming(grace=approval_grace, idle=approval_idle, timeout=approval_timeout)
        self.last_key_at = 0.0  # time.monotonic() of the last key the user pressed
        self.welcome = welcome  # Markdown shown above a new session (the demo's guide)
        self.notes = tuple(notes)
        self.db = db
        self.slash_registry = SlashRegistry()
        self.agent = start_agent(self.ask_approval)
        self.bridge: EventBridge | None = None
        self.started = False  # the first screen is complete: transcript, welcome, notices, hint
        self.prebuild_browsers = prebuild_browsers  # to be built off screen (_prebuild_browsers)
        self.browsers_prebuilt = False  # that was done
        self.quit_mid_turn = False  # the user quit while a turn ran: leaving must not wait on the model
        self._turn = 0  # how many turns were started: a worker that returns late ends only its own
        self._worker_running = False  # the latest turn's worker has not returned (its reply may be done)
        display = self.agent.config.display
        self.saved_theme = display.theme  # what config.yaml holds; a switch to another is saved
        # Themes are set before the first style pass: set later, every widget is styled twice.
        self._theme_problems = register_themes(self, self.agent.config.home)
        self._theme_problems.append(apply_theme(self, display.theme or DEFAULT_THEME))

    # ----- start-up ---------------------------------------------------------------------------

    @property
    def main(self) -> MainScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    @property
    def busy(self) -> bool:
        """A turn is running: the main screen's reactive, which its prompt, status bar and footer follow."""
        return self.main.busy

    def get_default_screen(self) -> MainScreen:
        return MainScreen(MainDeps(
            memory=self.agent.memory, pending=self.agent.pending, registry=self.slash_registry,
            approval=self.approval, last_key_at=lambda: self.last_key_at, on_ready=self._main_ready,
            cancel_turn=self.cancel_turn))

    def on_mount(self) -> None:
        for problem in filter(None, self._theme_problems):
            self.notify(problem, title="Themes", severity="warning")
        self.set_interval(IDLE_COLLECT_S, self._when_idle)

    def _when_idle(self) -> None:
        """Once the user has paused typing: the full collection held while browsing runs, and the
        browsers are built, once, if nothing else is going on."""
        if time.monotonic() - self.last_key_at < IDLE_COLLECT_S:
            return
        collect_held_garbage()
        if self.prebuild_browsers and self.started and not self.busy and self.screen is self.main:
            self.prebuild_browsers = False
            self.run_worker(self._prebuild_browsers(), name="prebuild browsers", exit_on_error=False)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.last_key_at = time.monotonic()  # the inline approval prompt waits for a pause
            if isinstance(self.screen, TakesTypedText) and self.screen.take_typed_key(event):
                return  # text typed outside the text box, put there in the order typed
        await super().on_event(event)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every notification is shown literally, with its control characters visible.

        Notifications quote titles, summaries of staged writes and error messages, all data; a
        markup-parsed one crashed the app on ``[link=…]`` and could carry an action link. So
        ``markup`` is ignored: ``Widget.notify`` passes ``markup=True`` whatever its caller meant.
        """
        super().notify(visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False)

    async def _main_ready(self) -> None:
        """The main screen's widgets exist: connect the engine's events to them, show the session."""
        main = self.main
        callbacks = BridgeCallbacks(
            wake=lambda: self.post_message(TextArrived()), call_on_ui=self._call_on_ui,
            set_status=main.status.set, refresh_status=self.refresh_status, session_label=self.session_label,
            show_session=self.show_transcript, memory_changed=main.memory_panel.reload,
            pending_changed=main.queue_changed, notify=self.notify, output_shown=main.refresh_new_output_hint,
            next_frame=main.wait_for_refresh, reply_finished=self._reply_finished)
        notifications = self.agent.config.display.memory_notifications
        self.bridge = EventBridge(main.chat, callbacks, memory_notifications=notifications)
        await self.show_transcript()
        if self.welcome and not self.agent.messages:
            await self._info(self.welcome)
        for note in self.notes:
            await self.main.chat.add(Entry("notice", text=note, level="information"))
        if self.agent.provider_problem:
            await self.main.chat.add(Entry("error", text=self.agent.provider_problem))
            await self._report(DEMO_OFFER)
        main.show_empty_hint(not main.chat.entries)  # a model is set up and nothing is said yet
        self.started = True
        self.call_after_refresh(freeze_startup_objects)

    async def show_transcript(self) -> None:
        """Show the live session's transcript (empty for a new session)."""
        await self.main.chat.load(entries_from_transcript(self.agent.messages))
        if self.agent.messages:
            self.main.show_empty_hint(False)
        self.main.memory_panel.set_snapshot(self.agent.in_snapshot)
        self.refresh_status()

    def session_label(self) -> str:
        return self.agent.title or self.agent.session_id or "new session"

    def refresh_status(self) -> None:
        agent = self.agent
        self.main.status.set(
            model_label=agent.model_label,
            session=self.session_label(),
            prompt_tokens=agent.last_prompt_tokens,
            context_window=agent.context_window,
            input_tokens=agent.totals.input_tokens,
            output_tokens=agent.totals.output_tokens,
            cache_read_tokens=agent.totals.cache_read_tokens,
            write_approval=agent.write_approval,
            pending=self.main.approvals.count,
        )

    # ----- turns --------------------------------------------------------------------------------

    def _call_on_ui(self, callback: Callable[..., object], *args: object) -> object:
        """From a thread: run ``callback`` on the UI thread and wait. A background job (a title,
        a review) can outlive the app: once it has stopped, nothing is delivered."""
        if not self.is_running:
            raise RuntimeError("the app has closed")
        return self.call_from_thread(callback, *args)

    def _emit(self, event: EngineEvent) -> None:
        """The agent's ``on_event``: called from its threads, delivered in order by the bridge."""
        assert self.bridge is not None
        self.bridge.emit(event)

    async def on_text_arrived(self, message: TextArrived) -> None:
        assert self.bridge is not None
        await self.bridge.drain_text()

    def _start(self, call: AgentCall) -> None:
        """Run ``call`` (a turn, or a session action that holds the agent's turn lock) in the worker."""
        # No full collections while a reply streams: one stalls frames 20-60 ms even with the
        # start-up heap frozen. They are allowed again when the worker returns.
        hold_full_collections(TURN)
        self._turn += 1
        self._worker_running = True
        self.main.busy = True
        self._run_agent(call, self._turn)

    @work(thread=True, group="turn")
    def _run_agent(self, call: AgentCall, turn: int) -> None:
        try:
            call(self._emit, get_current_worker().cancelled_event)
        except HermesError as exc:
            self._emit(TurnFailed(str(exc), retryable=False))
        finally:
            # The app has closed, or is closing: the work after a reply can outlast the screen.
            with contextlib.suppress(RuntimeError, NoMatches, CancelledError):
                self.call_from_thread(self._worker_returned, turn)

    def _reply_finished(self) -> None:
        """The bridge drew the reply's end (``TurnDone``): the turn is over for the user, though
        the agent's work after the reply still runs in the worker."""
        if self.busy:
            self._turn_ended()

    def _worker_returned(self, turn: int) -> None:
        """A turn's worker returned or raised; one older than the latest turn changes nothing."""
        if turn != self._turn:
            return
        self._worker_running = False
        hold_full_collections(AFTER_TURN)  # the turn's held collection waits for a pause (collector)
        release_full_collections(TURN)
        if self.busy:  # no reply finished it (a failure, a session action)
            self._turn_ended()
        else:
            self.refresh_status()  # what the work after the reply changed (a title, a new session)

    def _turn_ended(self) -> None:
        """The one end of a turn as shown: its reply finished, or its worker ended without one."""
        self.main.busy = False
        self.refresh_status()

    def cancel_turn(self) -> None:
        """Escape: stop the reply; the agent keeps what was shown in the transcript."""
        if self.busy:
            self.workers.cancel_group(self, "turn")

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        """Called by the agent in the worker thread; blocks until the inline prompt answers."""
        future: Future = Future()
        self.main.post_message(ApprovalRequested(request, future))
        try:
            return future.result(timeout=self.approval.timeout + 5)
        except FutureTimeout:
            return ApprovalDecision.STAGE

    async def on_prompt_submitted(self, message: PromptSubmitted) -> None:
        await self.submit(message.text)

    async def submit(self, text: str) -> None:
        self.main.show_empty_hint(False)
        if parse(text) is not None:
            await self.run_slash(text)
            return
        if self.busy:
            self.notify("A reply is still streaming: press esc to stop it, then send.", severity="warning")
            self.main.prompt.text = text
            return
        if text.startswith("//"):
            text = text[1:]
        await self.main.chat.add(Entry("user", text=text))
        self.main.chat.jump_to_end()
        self._start(lambda emit, cancel: self.agent.run_turn(text, emit, cancel))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The demo is offered only while no model is configured."""
        if action == "start_demo":
            return self.agent.provider_problem is not None
        return True

    def action_start_demo(self) -> None:
        self.exit(START_DEMO)

    def on_retry_requested(self, message: RetryRequested) -> None:
        self.action_retry()

    def action_retry(self) -> None:
        if not self.busy:
            self._start(self.agent.retry)

    def palette_actions(self) -> list[PaletteAction]:
        """Everything besides the slash commands, for the ctrl+p palette (``AppActionsProvider``)."""
        turn = (PaletteAction("Stop the reply", "esc at the prompt", self.cancel_turn) if self.busy
                else PaletteAction("Retry the last message", "ctrl+r", self.action_retry))
        themes = [PaletteAction(f"Theme: {name}", "switch theme (saved as display.theme)",
                                partial(apply_theme, self, name), literal=True)
                  for name in sorted(self.available_themes)]
        return [turn, *self.main.palette_actions(), *themes]

    # ----- slash commands ---------------------------------------------------------------------

    async def action_slash(self, text: str) -> None:
        await self.run_slash(text)

    def prefill_prompt(self, text: str) -> None:
        prompt = self.main.prompt
        prompt.text = text
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    async def run_slash(self, text: str) -> None:
        """Parse and run one command; any refusal becomes a one-line notice in the chat."""
        parsed = parse(text)
        try:
            if parsed is None:
                raise BadInputError(f"{text!r} is not a command.")
            command = self.slash_registry.resolve(parsed)
            if command.name in IDLE_ONLY and self.busy:
                raise BadInputError(f"/{command.name} waits for the reply: press esc to stop it first.")
            await getattr(self, command.action)(parsed.args)
        except HermesError as exc:
            await self.main.chat.add(Entry("notice", text=str(exc), level="error"))

    async def _info(self, markdown: str) -> None:
        """Our own Markdown (help, the demo's guide): never text that holds stored data."""
        await self.main.chat.add(Entry("info", text=markdown))

    async def _report(self, content: Content) -> None:
        """App output that holds data (titles, staged writes, theme names), already literal."""
        await self.main.chat.add(Entry("report", report=content))

    async def slash_new(self, args: str) -> None:
        self._start(lambda emit, cancel: self.agent.new_session(emit))

    async def slash_title(self, args: str) -> None:
        if not args:
            raise BadInputError("/title needs a name: /title NAME.")
        title = self.agent.set_title(args)
        self.notify(f"Session renamed to {title!r}.")
        self.refresh_status()

    async def slash_resume(self, args: str) -> None:
        if args:
            self._start(lambda emit, cancel: self.agent.resume(args, emit))
            return
        sessions = self.agent.recent_sessions(limit=10)
        rows = [literal_line(f"• {s.id}  {s.title or '(untitled)'} — {s.message_count} messages") for s in sessions]
        await self._report(report("Recent sessions (/resume ID or /resume TITLE)", rows))

    def _open_browser(self, kind: type[BrowserT]) -> BrowserT | None:
        """Browsers do not stack: what is open over the chat closes, except a ``kind`` browser,
        which comes to the top. Returns that one, or ``None`` when the caller opens a new one."""
        shown = next((s for s in self.screen_stack[1:] if isinstance(s, kind)), None)
        while self.screen is not (shown or self.main):  # another browser, a dialog, the palette
            self.pop_screen()
        return shown

    def _kept_browser(self, kind: type[BrowserT], make: Callable[[], BrowserT]) -> tuple[BrowserT, bool]:
        """The one ``kind`` browser, built on first use and kept installed: opening it again
        costs a frame, not a mount (a new screen took about half a second to build). Returns it
        and whether it was shown before (its data then wants a refresh)."""
        name = kind.__name__
        shown_before = self.is_screen_installed(name)
        if not shown_before:
            self.install_screen(make(), name)
        return cast(BrowserT, self.get_screen(name)), shown_before

    def _make_sessions(self, ahead: "PageAhead | None" = None) -> "SessionsScreen":
        from hermes_tui.screens.sessions import SessionsScreen

        return SessionsScreen(self.db, ahead=ahead)

    def _make_search(self, query: str = "") -> "SearchScreen":
        from hermes_tui.screens.search import SearchScreen

        return SearchScreen(self.db, summarize=lambda text: self.agent.search_sessions(text), query=query)

    async def _prebuild_browsers(self) -> None:
        """Build the lineage tree and the search screen off screen while the user is idle, so that
        their first open costs what a later one does. Built on first use, a browser's first open was
        ~0.9 s on a 10,000-session home against ~0.2 s for the next: its module's import, the whole
        stylesheet parsed again for its own file and for each new widget class, every widget
        composed. Both are then kept, as after a first open: ``reopen`` reads either again only when
        the store changed since it last read (and the search when its results were not final)."""
        from hermes_tui.screens.search import SearchScreen
        from hermes_tui.screens.sessions import SessionsScreen

        built: list[StyledOnceScreen] = []
        for kind, make in ((SessionsScreen, self._make_sessions), (SearchScreen, self._make_search)):
            if self.is_screen_installed(kind.__name__):
                continue  # opened already
            screen, _ = self._kept_browser(kind, make)
            _, mounted = self._get_screen(screen)  # starts it: composed and mounted, not shown
            self._load_screen_css(screen)  # as push_screen does: its stylesheet, parsed now
            await mounted
            built.append(screen)
        for screen in (self.main, *built):  # all were styled with the stylesheet as it is now
            screen.mark_styled()
        self.browsers_prebuilt = True

    async def slash_sessions(self, args: str) -> None:
        from hermes_tui.screens.sessions import PageAhead, SessionsScreen

        if self._open_browser(SessionsScreen) is None:
            ahead = None
            if not self.is_screen_installed(SessionsScreen.__name__):  # built now: its first page read first
                ahead = await PageAhead.read(self.db, self.agent.session_id)
            screen, shown_before = self._kept_browser(SessionsScreen, partial(self._make_sessions, ahead))
            screen.live_session_id = self.agent.session_id
            if shown_before:
                screen.reopen()
            self.push_screen(screen, self._resume_picked)

    async def slash_search(self, args: str) -> None:
        from hermes_tui.screens.search import SearchScreen

        shown = self._open_browser(SearchScreen)
        if shown is None:
            shown, shown_before = self._kept_browser(SearchScreen, partial(self._make_search, args))
            if shown_before:
                shown.reopen()
            await self.push_screen(shown, self._open_match)
        shown.focus_query(args)

    def _resume_picked(self, session_id: str | None, note: str = "") -> None:
        """A session chosen in the tree or in search: resume its lineage tip in the chat."""
        if not session_id:
            return
        if self.busy:
            self.notify("A reply is still streaming: press esc, then resume.", severity="warning")
            return

        def call(emit: Callable[[EngineEvent], None], cancel: threading.Event) -> None:
            self.agent.resume(session_id, emit)
            if note:
                emit(Notice(note, "information"))

        self._start(call)

    def _open_match(self, target: "SearchTarget | None") -> None:
        if target is not None:
            note = f"Search match in {target.session_id}: {snippet_plain(target.snippet, ('', ''))}" if target.snippet else ""
            self._resume_picked(target.session_id, note)

    async def slash_compress(self, args: str) -> None:
        self._start(lambda emit, cancel: self.agent.compress(args or None, emit))

    async def slash_branch(self, args: str) -> None:
        self._start(lambda emit, cancel: self.agent.branch(args or None, emit))

    async def slash_memory(self, args: str) -> None:
        command = parse_memory_args(args)
        agent, screen = self.agent, self.main
        if command.action == "show":
            lines = [Content(f"• {title} [{agent.memory.usage(target).text}]") for target, title in HEADERS.items()]
            lines.append(Content(f"• {screen.approvals.count} pending · write approval "
                                 f"{'on' if agent.write_approval else 'off'}"))
            await self._report(report("Memory", lines))
        elif command.action == "pending":
            rows = [literal_line(r.line()) for r in screen.approvals.records]
            await self._report(report("Pending memory writes (F3 to review)", rows))
        elif command.action in ("approve", "reject") and command.record_id == "all":
            screen.approvals.confirm_all(approve=command.action == "approve")
        elif command.action in ("approve", "reject"):
            getattr(screen.approvals, command.action)(command.record_id)
        elif command.action == "log":
            self.open_memory_history(command.target or None)
        elif command.action == "approval":
            agent.set_write_approval(command.enabled)
            await self.main.chat.add(Entry("notice", text=f"Memory write approval {'on' if command.enabled else 'off'}."))
            self.refresh_status()
        else:
            await self._edit_memory(command.action, command.target, command.text, command.old_text)

    async def _edit_memory(self, action: str, target: str, text: str, old_text: str) -> None:
        """The user's own edit: applied directly (their approval), through scanner and limits."""
        store, by_app = self.agent.memory, Cause("app")
        if action == "add":
            result = store.add(target, text, cause=by_app)
        elif action == "replace":
            result = store.replace(target, old_text, text, cause=by_app)
        else:
            result = store.remove(target, old_text, cause=by_app)
        if not result.get("success", False):
            raise BadInputError(f"/memory {action}: {result.get('error', 'refused')}")
        self.main.memory_panel.reload()
        await self.main.chat.add(Entry("notice", text=f"Memory {action} ({target}) — {store.usage(target).text}"))

    def open_memory_history(self, target: str | None, entry: str | None = None, index: int | None = None) -> None:
        """Where each memory entry came from, its history and undo (F6, /memory log, the panel);
        on ``entry`` (at ``index`` of ``target``) when the panel chose one."""
        from hermes_tui.screens.memory_history import HistoryDeps, MemoryHistoryScreen

        if self._open_browser(MemoryHistoryScreen) is not None:
            return
        main = self.main

        def changed() -> None:
            main.memory_panel.reload()
            main.queue_changed()

        deps = HistoryDeps(self.agent.memory, self.agent.pending, self.db, changed)
        self.push_screen(MemoryHistoryScreen(deps, target=target, entry=entry, index=index), self._resume_from_history)

    def on_memory_history_requested(self, event: MemoryHistoryRequested) -> None:
        self.open_memory_history(event.target, event.entry, event.index)

    def _resume_from_history(self, session_id: str | None) -> None:
        note = ("Opened from the memory history. The chat shows the session from its end; the message that "
                "wrote the entry is marked in the history's transcript view (o).")
        self._resume_picked(session_id, note)

    async def slash_usage(self, args: str) -> None:
        """The prompt-cache inspector over the live session's requests (``hermes_tui.screens.usage``)."""
        from hermes_tui.screens.usage import UsageScreen

        agent, meter = self.agent, self.agent.usage
        measured = "not measured yet" if agent.last_prompt_tokens is None else f"{agent.last_prompt_tokens:,}"
        context = (f"context: {measured} of {agent.context_window:,} tokens "
                   f"({context_pct(agent.last_prompt_tokens, agent.context_window)})")
        if self._open_browser(UsageScreen) is None:
            self.push_screen(UsageScreen(lambda: list(meter.requests), label=self.session_label(),
                                         priced_as=meter.billing.pricer.priced_as, context=context))

    async def slash_copy(self, args: str) -> None:
        """The message selected in the chat (up/down there), else the last reply."""
        chat = self.main.chat
        selected = chat.cursor.entry if self.focused is chat else None
        if selected is not None:
            chat.action_copy_item()
            return
        reply = chat.last_reply_text()
        if reply is None:
            raise BadInputError("/copy: there is no reply to copy yet.")
        self.on_copy_requested(CopyRequested(reply, "the last reply"))

    def on_copy_requested(self, message: CopyRequested) -> None:
        self.copy_to_clipboard(visible(message.text))  # what is on screen: never raw terminal escapes
        self.notify(f"Copied {message.what} ({len(message.text):,} characters).")

    async def slash_theme(self, args: str) -> None:
        if not args:
            names = literal_line(", ".join(sorted(self.available_themes)))
            await self._report(report(literal_line(f"Themes (current: {self.theme})"), [names]))
            return
        if args not in self.available_themes:
            raise BadInputError(f"/theme: no theme named {args!r}; /theme lists them.")
        apply_theme(self, args)  # watch_theme saves it
        self.notify(f"Theme {args!r} (saved as display.theme).")

    def watch_theme(self, name: str) -> None:
        """Any switch — ``/theme`` or the palette's "Change theme" — is remembered in display.theme."""
        agent = getattr(self, "agent", None)
        if agent is None or not self.is_running or name == self.saved_theme:
            return
        try:
            set_config_value(agent.config.home, "display.theme", name)
        except HermesError as exc:
            self.notify(str(exc), title="Theme not saved", severity="warning")
            return
        self.saved_theme = name

    async def slash_help(self, args: str) -> None:
        keys = list(PROMPT_KEYS)
        for active in self.main.active_bindings.values():  # the app's and screen's, not the editor's
            if active.binding.description and active.node in (self, self.main):
                keys.append((self.get_key_display(active.binding), active.binding.description))
        await self._info(self.slash_registry.help_text(keys))

    async def slash_quit(self, args: str) -> None:
        await self.action_quit()

    async def action_quit(self) -> None:
        """ctrl+q and /quit: the turn's worker is cancelled as the app closes (its request's
        socket is shut at once); ``quit_mid_turn`` tells the launcher not to wait on the model."""
        self.quit_mid_turn = self._worker_running
        self.exit()
