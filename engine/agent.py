"""One Agent per live session: the turn loop, and the session actions a UI or command line calls.

A turn stores the user's message the moment it exists, rebuilds the request view for every
model call (the system prompt is the session's frozen snapshot, sent byte-for-byte), runs the
tools the model calls, and reports everything through ``on_event`` so the UI and the command
line render the same turn. What the agent works with is built by ``engine.wiring``; the session
it is in, with its lifecycle and rotation, is ``engine.live_session``; token accounting is
``engine.usage``; compression is ``engine.live_compression``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

from engine import clock
from engine.config import Config, set_config_value
from engine.errors import HermesError
from engine.events import (
    EngineEvent,
    Notice,
    OnEvent,
    Phase,
    TextDelta,
    TitleChanged,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    TurnFailed,
    TurnStarted,
)
from engine.prompt.request_view import build_api_messages
from engine.providers import (
    ChatRequest,
    ChatResult,
    Provider,
    StreamAttempt,
    StreamDone,
    StreamRetry,
    StreamText,
    StreamToolCall,
    ToolCall,
)
from engine.scrub import StreamingContextScrubber, sanitize_arguments, sanitize_context
from engine.session_search import SessionSearchResult, session_search
from engine.store import Session, SessionDB
from engine.store.messages import clean_text
from engine.tokens import content_text
from engine.tools import SEARCH_TOOL
from engine.usage import TokenTotals
from engine.wiring import AgentParts, AskApproval, build_parts, open_provider

MAX_TOOL_ROUNDS = 25


class Agent:
    """The live session and everything a turn needs."""

    def __init__(self, config: Config, db: SessionDB, parts: AgentParts, *, provider: Provider | None,
                 provider_problem: str | None, warnings: list[str]) -> None:
        self.config = config
        self.db = db
        self.provider = provider
        self.provider_problem = provider_problem
        self.memory, self.pending, self.gate = parts.memory, parts.pending, parts.gate
        self.recall, self.aux, self.tools = parts.recall, parts.aux, parts.tools
        self.reviewer, self.titles = parts.reviewer, parts.titles
        self.live, self.compressor = parts.live, parts.compressor
        self.usage = parts.live.usage
        self._warnings = warnings  # shown at the next turn
        self._turn_lock = threading.Lock()

    @classmethod
    def start(
        cls,
        config: Config,
        db: SessionDB,
        *,
        resume: str | None = None,
        continue_title: str | None = None,
        provider: Provider | None = None,
        ask_approval: AskApproval | None = None,
        source: str = "tui",
        cwd: Path | None = None,
    ) -> "Agent":
        """A fresh session, or the lineage tip named by ``resume`` / ``continue_title``."""
        removal = db.maybe_auto_prune(config)
        problem = None
        if provider is None:
            provider, problem = open_provider(config)
        warnings: list[str] = []
        parts = build_parts(config, db, provider, ask_approval=ask_approval, source=source, cwd=cwd or Path.cwd(),
                            warn=warnings.append)
        agent = cls(config, db, parts, provider=provider, provider_problem=problem, warnings=warnings)
        parts.live.open(resume=resume, continue_title=continue_title)
        if removal is not None and removal.sessions:
            warnings.append(f"Auto-prune removed {len(removal.sessions)} ended session(s) older than "
                            f"{config.sessions.retention_days} days.")
        return agent

    # ----- what a UI shows ----------------------------------------------------------------

    @property
    def session_id(self) -> str | None:
        return self.live.session_id

    @property
    def title(self) -> str | None:
        return self.live.title

    @property
    def messages(self) -> list[dict]:
        return self.live.messages

    @property
    def system_prompt(self) -> str:
        return self.live.system_prompt

    @property
    def totals(self) -> TokenTotals:
        return self.usage.totals

    @property
    def last_prompt_tokens(self) -> int | None:
        return self.usage.last_prompt_tokens

    @property
    def context_window(self) -> int:
        return self.usage.context_window

    @property
    def model_label(self) -> str:
        return self.config.model.label

    @property
    def write_approval(self) -> bool:
        return self.gate.approval_enabled

    def in_snapshot(self, entry: str) -> bool:
        """Whether a memory entry is part of this session's frozen system prompt."""
        return entry in self.system_prompt

    def recent_sessions(self, limit: int) -> list[Session]:
        """The most recently active sessions, for a picker."""
        return self.db.list_sessions(limit=limit)

    def search_sessions(self, query: str) -> SessionSearchResult:
        """What the model's ``session_search`` tool would answer, for the user's own search."""
        return session_search(self.db, query, provider=self.aux["session_search"], current_session_id=self.session_id)

    def _drain_warnings(self, on_event: OnEvent) -> None:
        while self._warnings:
            on_event(Notice(self._warnings.pop(0)))

    # ----- the turn ---------------------------------------------------------------------

    def run_turn(self, text: str, on_event: OnEvent, cancel: threading.Event | None = None) -> None:
        """One user turn: store the message, then call the model until it stops calling tools.

        Lone surrogates (a non-UTF-8 argument) become U+FFFD first, as the store writes them: no
        provider can encode them, and the live transcript must match what a resume reads back.
        """
        text = clean_text(text)
        with self._turn_lock:
            session_id = self.live.ensure()
            self.live.append({"role": "user", "content": text, "timestamp": clock.now()})
            on_event(TurnStarted(session_id, text))
            self._generate(on_event, cancel)

    def retry(self, on_event: OnEvent, cancel: threading.Event | None = None) -> None:
        """Answer the last user message again after a failed turn (nothing is re-stored)."""
        with self._turn_lock:
            if not self.messages or self.messages[-1].get("role") == "assistant" and not self.messages[-1].get("tool_calls"):
                on_event(Notice("Nothing to retry: the last turn has its reply.", "information"))
                return
            self._generate(on_event, cancel)

    def _current_user_index(self) -> int | None:
        for index in range(len(self.messages) - 1, -1, -1):
            if self.messages[index].get("role") == "user":
                return index
        return None

    def _generate(self, on_event: OnEvent, cancel: threading.Event | None) -> None:
        if self.provider is None:
            on_event(TurnFailed(self.provider_problem or "No model is configured.", retryable=False))
            return
        user_index = self._current_user_index()
        user_text = content_text(self.messages[user_index].get("content")) if user_index is not None else ""
        recall = self.recall.prefetch(user_text) if self.recall.provider else ""
        self._drain_warnings(on_event)
        reply = ""
        finish: str | None = None
        for _round in range(MAX_TOOL_ROUNDS):
            request = ChatRequest(
                system=self.system_prompt,
                messages=build_api_messages(self.messages, recall=recall or None, current_user_index=user_index),
                tools=self.tools.schemas,
            )
            try:
                result = self._stream(self.provider, request, on_event, cancel)
            except HermesError as exc:
                on_event(TurnFailed(str(exc), retryable=exc.exit_code != 2))
                return
            on_event(self.usage.record(self.session_id or "", result.usage, request, recall=bool(recall),
                                       message_id=self.live.last_message_id))
            reply = sanitize_context(result.text)
            finish = result.finish_reason
            cancelled = result.finish_reason == "cancelled"
            # Recall the model copied into arguments is dropped before the call runs or is stored.
            calls = [] if cancelled else [
                replace(call, arguments=sanitize_arguments(call.arguments)) for call in result.tool_calls
            ]
            message: dict = {"role": "assistant", "content": reply, "timestamp": clock.now()}
            if calls:
                message["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in calls
                ]
            if finish:
                message["finish_reason"] = finish
            if reply or calls:
                self.live.append(message)
            call_message_id = self.live.last_message_id  # the stored row the calls are in, which memory cites
            if cancelled:
                on_event(TurnDone(reply, finish, cancelled=True))
                return
            if not calls:
                break
            for call in calls:
                if cancel is not None and cancel.is_set():
                    on_event(TurnDone(reply, "cancelled", cancelled=True))
                    return
                self._run_tool(call, on_event, call_message_id)
        else:
            on_event(Notice(f"Stopped after {MAX_TOOL_ROUNDS} tool rounds in one turn."))
        on_event(TurnDone(reply, finish))
        self._after_turn(user_text, reply, on_event)

    def _after_turn(self, user_text: str, reply: str, on_event: OnEvent) -> None:
        """Background and housekeeping work once the reply is complete; none of it can fail the turn."""
        session_id = self.session_id or ""
        self.recall.sync_turn(user_text, reply)
        self.titles.maybe_generate_title(session_id, self.messages, self._learning_titles(on_event))
        turns = sum(1 for m in self.messages if m.get("role") == "user")
        self.reviewer.maybe_review(session_id, self.messages, turns, on_event, self.live.last_message_id)
        if self.compressor.due(self.live, self.tools.schemas):
            self.compressor.compress(self.live, None, self.tools.schemas, on_event, automatic=True)
        self._drain_warnings(on_event)

    def _learning_titles(self, on_event: OnEvent) -> OnEvent:
        """``on_event`` that also keeps the live title in step with a title made in the background."""
        def forward(event: EngineEvent) -> None:
            if isinstance(event, TitleChanged) and event.session_id == self.session_id:
                self.live.title = event.title
            on_event(event)

        return forward

    @staticmethod
    def _stream(provider: Provider, request: ChatRequest, on_event: OnEvent,
                cancel: threading.Event | None) -> ChatResult:
        scrubber = StreamingContextScrubber()
        streaming = False
        for event in provider.stream(request, cancel=cancel):
            if isinstance(event, StreamAttempt):
                on_event(Phase("waiting", clock.now(), attempt=event.number, attempts=event.of))
            elif isinstance(event, StreamRetry):
                on_event(Phase("retrying", clock.now(), attempt=event.number, attempts=event.of, wait_s=event.wait_s))
            elif isinstance(event, (StreamText, StreamToolCall)) and not streaming:
                streaming = True
                on_event(Phase("streaming", clock.now()))
            if isinstance(event, StreamText):
                visible = scrubber.feed(event.text)
                if visible:
                    on_event(TextDelta(visible))
            elif isinstance(event, StreamDone):
                tail = scrubber.flush()
                if tail:
                    on_event(TextDelta(tail))
                return event.result
        raise HermesError("The provider's stream ended without a final message.")

    def _run_tool(self, call: ToolCall, on_event: OnEvent, message_id: int | None) -> None:
        kind = "summarizing" if call.name == SEARCH_TOOL else "tool"  # the search tool's time goes on summaries
        on_event(Phase(kind, clock.now(), detail=call.name))
        on_event(ToolCallStarted(call.id, call.name, call.arguments))
        started = time.perf_counter()
        outcome = self.tools.call(call.name, call.arguments, session_id=self.session_id, message_id=message_id)
        for event in outcome.events:
            on_event(event)
        on_event(ToolCallFinished(call.id, call.name, outcome.content, time.perf_counter() - started, outcome.is_error))
        self.live.append(
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": clean_text(outcome.content),
             "timestamp": clock.now()}
        )

    # ----- session actions ----------------------------------------------------------------

    def set_title(self, title: str) -> str:
        return self.live.set_title(title)

    def set_write_approval(self, on: bool) -> None:
        set_config_value(self.config.home, "memory.write_approval", on)
        self.gate.approval_enabled = on

    def compress(self, focus: str | None, on_event: OnEvent) -> None:
        """``/compress [focus]``: summarize the middle now and continue in a new session."""
        with self._turn_lock:
            self.compressor.compress(self.live, focus, self.tools.schemas, on_event)

    def branch(self, title: str | None, on_event: OnEvent) -> None:
        """``/branch [NAME]``: fork the conversation; the parent is kept as it was."""
        with self._turn_lock:
            self.live.branch(title, on_event)

    def new_session(self, on_event: OnEvent) -> None:
        with self._turn_lock:
            self.live.start_new(on_event)

    def resume(self, id_or_title: str, on_event: OnEvent) -> None:
        with self._turn_lock:
            self.live.resume(id_or_title, on_event)

    def close(self, on_event: OnEvent | None = None) -> None:
        """Flush and end the session; with ``on_event`` the session-end memory review runs too."""
        self.live.close(on_event)

    def wait_for_turn(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for a running turn to return (a cancelled one stores what was
        shown within a fraction of a second); True when none runs any more."""
        if not self._turn_lock.acquire(timeout=timeout_s):
            return False
        self._turn_lock.release()
        return True

    def wait_for_background(self, timeout_s: float) -> None:
        """Give background titles and reviews up to ``timeout_s`` in total (short-lived commands)."""
        deadline = time.monotonic() + timeout_s
        self.titles.join(max(0.0, deadline - time.monotonic()))
        self.reviewer.join(max(0.0, deadline - time.monotonic()))
