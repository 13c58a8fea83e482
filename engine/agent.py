"""One Agent per live session: the turn loop, tools, incremental persistence, and events.

The agent keeps the session's system prompt as one frozen string for its whole life (reused
byte-for-byte on resume), rebuilds the request view for every call, persists every message the
moment it exists (a crash after the user's message keeps it), and reports everything through
``on_event`` so the UI and the command line render the same turn.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from engine import clock
from engine.config import Config, set_config_value
from engine.errors import HermesError, NotFoundError
from engine.auxiliary import auxiliary_provider
from engine.compression import CompressionSettings, Compressor, should_compress
from engine.events import (
    CompressionDone,
    EngineEvent,
    Notice,
    Recap,
    SessionSwitched,
    TextDelta,
    TitleChanged,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    TurnFailed,
    TurnStarted,
    UsageUpdated,
)
from engine.memory import ApprovalDecision, ApprovalRequest, MemoryStore, MemoryTool, MemoryWriteGate, PendingQueue
from engine.prompt.builder import PromptInputs, build_system_prompt
from engine.prompt.request_view import build_api_messages
from engine.providers import ChatRequest, Provider, StreamDone, context_window, make_provider
from engine.providers import TextDelta as ProviderText
from engine.recall import MemoryManager, make_memory_manager
from engine.review import BackgroundReviewer
from engine.scrub import StreamingContextScrubber, sanitize_arguments, sanitize_context
from engine.search import make_search_tool
from engine.security.redact import make_redactor
from engine.session_log import SessionLogSnapshot, write_session_log
from engine.store import LineageMoved, SessionDB, TranscriptWriter
from engine.store.messages import clean_text
from engine.titles import TitleMaker
from engine.tokens import content_text
from engine.tools import ToolBox

OnEvent = Callable[[EngineEvent], None]
AskApproval = Callable[[ApprovalRequest], ApprovalDecision]
MAX_TOOL_ROUNDS = 25
RECAP_EXCHANGES = 3
AUXILIARY_TASKS = ("compression", "session_search", "background_review", "title")
COMPRESSIONS_BEFORE_HINT = 2
SUMMARIZER_SYSTEM = (
    "You compress conversations for an assistant that will continue them. Follow the requested "
    "format exactly and keep every concrete fact: names, paths, numbers, decisions, open asks."
)


@dataclass
class TokenTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    api_calls: int = 0


def no_key_explanation(exc: HermesError) -> str:
    return (
        f"{exc}\n"
        "Set the key in your environment, or point model.base_url in config.yaml at a local "
        "OpenAI-compatible server (Ollama, llama.cpp, vLLM) — then restart."
    )


class Agent:
    """The live session and everything a turn needs."""

    def __init__(
        self,
        config: Config,
        db: SessionDB,
        *,
        provider: Provider | None,
        provider_problem: str | None,
        ask_approval: AskApproval | None,
        source: str,
        cwd: Path,
    ) -> None:
        self.config = config
        self.db = db
        self.provider = provider
        self.provider_problem = provider_problem
        self.source = source
        self.cwd = cwd
        self.model_cfg = config.section("model")
        self.context_window = context_window(self.model_cfg)
        self.memory = MemoryStore.from_config(config)
        self.pending = PendingQueue(config.home)
        self.gate = MemoryWriteGate(self.pending, approval_enabled=bool(config.get("memory.write_approval")),
                                    ask=ask_approval)
        self._warnings: list[str] = []
        self.recall: MemoryManager = make_memory_manager(
            str(config.get("memory.provider") or ""), db, warn=self._warnings.append
        )
        self.aux: dict[str, Provider | None] = {
            task: auxiliary_provider(config, task, provider, on_problem=self._warnings.append) if provider else None
            for task in AUXILIARY_TASKS
        }
        memory_tool = MemoryTool(self.memory, self.gate)
        search = make_search_tool(db, lambda: self.aux["session_search"], lambda: self.session_id)
        self.tools = ToolBox(memory_tool, search=search)
        self.reviewer = BackgroundReviewer(config, memory_tool, lambda: self.aux["background_review"])
        self.titles = TitleMaker(db, lambda: self.aux["title"])
        self.compression = CompressionSettings.from_config(config, self.context_window)
        self.json_logs = bool(config.get("sessions.write_json_snapshots"))
        self.redactor = make_redactor(config)
        self.session_id: str | None = None
        self.title: str | None = None
        self.messages: list[dict] = []
        self.system_prompt = ""
        self.writer: TranscriptWriter | None = None
        self.totals = TokenTotals()
        self.last_prompt_tokens: int | None = None
        self._turn_lock = threading.Lock()

    # ----- construction -------------------------------------------------------------------

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
            try:
                provider = make_provider(config.section("model"), cache_ttl=str(config.get("prompt_caching.cache_ttl")))
            except HermesError as exc:
                problem = no_key_explanation(exc)
        agent = cls(config, db, provider=provider, provider_problem=problem, ask_approval=ask_approval,
                    source=source, cwd=cwd or Path.cwd())
        target = None
        if resume is not None:
            target = db.resume_target(resume)
        elif continue_title is not None:
            target = db.most_recent_tip(continue_title or None)
            if target is None and continue_title:
                raise NotFoundError(f"no session titled {continue_title!r} to continue.")
        if target is not None:
            agent._load_session(target)
        else:
            agent.system_prompt = agent._build_prompt()
        agent.recall.initialize(agent.session_id)
        if removal is not None and removal.sessions:
            agent._warnings.append(f"Auto-prune removed {len(removal.sessions)} ended session(s) older than "
                                   f"{config.get('sessions.retention_days')} days.")
        return agent

    @property
    def model_label(self) -> str:
        return f"{self.model_cfg.get('name')} · {self.model_cfg.get('provider')}"

    @property
    def write_approval(self) -> bool:
        return self.gate.approval_enabled

    def in_snapshot(self, entry: str) -> bool:
        """Whether a memory entry is part of this session's frozen system prompt."""
        return entry in self.system_prompt

    def _build_prompt(self) -> str:
        """A new snapshot: memory re-read from disk. Only new sessions, compression and model changes.

        A memory file the snapshot could not carry whole is reported at the next turn.
        """
        snapshot = self.memory.load_snapshot()
        self._warnings.extend(snapshot.warnings)
        return build_system_prompt(
            PromptInputs(
                home=self.config.home,
                cwd=self.cwd,
                snapshot=snapshot,
                model=str(self.model_cfg.get("name")),
                provider=str(self.model_cfg.get("provider")),
                source=self.source,
                provider_block=self.recall.system_prompt_block(),
                memory_enabled=bool(self.config.get("memory.memory_enabled")),
                user_profile_enabled=bool(self.config.get("memory.user_profile_enabled")),
            )
        )

    def _load_session(self, session_id: str) -> None:
        session = self.db.require_session(session_id)
        self.session_id = session.id
        self.title = session.title
        self.messages = self.db.load_transcript(session.id)
        self.writer = TranscriptWriter(self.db, session.id, flushed=len(self.messages))
        if session.ended_at is not None:
            self.db.reopen_session(session.id)
        configured = str(self.model_cfg.get("name"))
        if session.system_prompt and session.model == configured:
            self.system_prompt = session.system_prompt  # invariant 1: the stored bytes, as they are
        else:
            self.system_prompt = self._build_prompt()
            self.db.set_system_prompt(session.id, self.system_prompt)

    def _ensure_session(self) -> str:
        if self.session_id is None:
            self.session_id = self.db.create_session(
                source=self.source,
                model=str(self.model_cfg.get("name")),
                system_prompt=self.system_prompt,
                cwd=str(self.cwd),
            )
            self.writer = TranscriptWriter(self.db, self.session_id)
            self.recall.on_session_switch(None, self.session_id)
        return self.session_id

    def _flush(self) -> None:
        assert self.writer is not None
        if self.writer.flush(self.messages) and self.json_logs:
            self._write_json_log()

    def _write_json_log(self) -> None:
        """The opt-in JSON session log (secrets redacted); a failed write never fails the turn."""
        session = self.db.get_session(self.session_id or "")
        if session is None:
            return
        snapshot = SessionLogSnapshot(
            session_id=session.id, model=str(self.model_cfg.get("name")), session_start=session.started_at,
            messages=self.messages, base_url=self.model_cfg.get("base_url"), platform=self.source,
            system_prompt=self.system_prompt, tools=self.tools.schemas)
        try:
            write_session_log(self.config.home, snapshot, redactor=self.redactor)
        except HermesError as exc:
            self._warnings.append(f"JSON session log not written: {exc}")

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
            self._ensure_session()
            self.messages.append({"role": "user", "content": text, "timestamp": clock.now()})
            self._flush()
            on_event(TurnStarted(self.session_id or "", text))
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
                result = self._stream(request, on_event, cancel)
            except HermesError as exc:
                on_event(TurnFailed(str(exc), retryable=exc.exit_code != 2))
                return
            self._record_usage(result, on_event)
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
                self.messages.append(message)
                self._flush()
            if cancelled:
                on_event(TurnDone(reply, finish, cancelled=True))
                return
            if not calls:
                break
            for call in calls:
                if cancel is not None and cancel.is_set():
                    on_event(TurnDone(reply, "cancelled", cancelled=True))
                    return
                self._run_tool(call, on_event)
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
        self.reviewer.maybe_review(session_id, self.messages, turns, on_event)
        if should_compress(self.last_prompt_tokens, self.messages, self.tools.schemas, self.system_prompt, self.compression):
            self._compress(None, on_event)
        self._drain_warnings(on_event)

    def _learning_titles(self, on_event: OnEvent) -> OnEvent:
        """``on_event`` that also keeps ``self.title`` in step with a title made in the background."""
        def forward(event: EngineEvent) -> None:
            if isinstance(event, TitleChanged) and event.session_id == self.session_id:
                self.title = event.title
            on_event(event)

        return forward

    def _stream(self, request: ChatRequest, on_event: OnEvent, cancel: threading.Event | None):
        assert self.provider is not None
        scrubber = StreamingContextScrubber()
        for event in self.provider.stream(request, cancel=cancel):
            if isinstance(event, ProviderText):
                visible = scrubber.feed(event.text)
                if visible:
                    on_event(TextDelta(visible))
            elif isinstance(event, StreamDone):
                tail = scrubber.flush()
                if tail:
                    on_event(TextDelta(tail))
                return event.result
        raise HermesError("The provider's stream ended without a final message.")

    def _record_usage(self, result, on_event: OnEvent) -> None:
        usage = result.usage
        self.totals.input_tokens += usage.input_tokens
        self.totals.output_tokens += usage.output_tokens
        self.totals.cache_read_tokens += usage.cache_read_tokens
        self.totals.cache_write_tokens += usage.cache_write_tokens
        self.totals.api_calls += 1
        self.last_prompt_tokens = usage.input_tokens  # the whole prompt, cached parts included
        self.db.add_usage(
            self.session_id or "",
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            api_calls=1,
        )
        on_event(
            UsageUpdated(
                prompt_tokens=self.last_prompt_tokens,
                context_window=self.context_window,
                input_tokens=self.totals.input_tokens,
                output_tokens=self.totals.output_tokens,
                cache_read_tokens=self.totals.cache_read_tokens,
                cache_write_tokens=self.totals.cache_write_tokens,
                api_calls=self.totals.api_calls,
            )
        )

    def _run_tool(self, call, on_event: OnEvent) -> None:
        on_event(ToolCallStarted(call.id, call.name, call.arguments))
        started = time.perf_counter()
        outcome = self.tools.call(call.name, call.arguments)
        for event in outcome.events:
            on_event(event)
        on_event(ToolCallFinished(call.id, call.name, outcome.content, time.perf_counter() - started, outcome.is_error))
        self.messages.append(
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": clean_text(outcome.content),
             "timestamp": clock.now()}
        )
        self._flush()

    # ----- session actions ----------------------------------------------------------------

    def set_title(self, title: str) -> str:
        session_id = self._ensure_session()
        self.title = self.db.set_title(session_id, title)
        return self.title

    def set_write_approval(self, on: bool) -> None:
        set_config_value(self.config.home, "memory.write_approval", on)
        self.gate.approval_enabled = on

    def compress(self, focus: str | None, on_event: OnEvent) -> None:
        """``/compress [focus]``: summarize the middle now and continue in a new session."""
        with self._turn_lock:
            self._compress(focus, on_event)

    def _summarizer(self) -> Callable[[str], str] | None:
        aux = self.aux["compression"]
        if aux is None:
            return None

        def summarize(prompt: str) -> str:
            request = ChatRequest(system=SUMMARIZER_SYSTEM, messages=[{"role": "user", "content": prompt}],
                                  tools=[], max_tokens=self.compression.summary_cap, temperature=0.2)
            return aux.complete(request).text

        return summarize

    def _compress(self, focus: str | None, on_event: OnEvent) -> None:
        if self.session_id is None:
            on_event(Notice("Nothing to compress yet.", "information"))
            return
        self.reviewer.review_now(self.session_id, self.messages, on_event)
        self.recall.on_pre_compress(self.messages)
        result = Compressor(self.compression, self._summarizer()).compress(
            self.messages, system_prompt=self.system_prompt, tools=self.tools.schemas, focus=focus)
        if result.removed_count == 0:
            on_event(Notice("Nothing to compress yet: the conversation fits in its protected head and tail.", "information"))
            return
        title = self.db.next_lineage_title(self.title) if self.title else None
        try:
            rotated = self._rotate("compression", result.messages, title, self._build_prompt(), on_event)
        except (HermesError, OSError, sqlite3.Error) as exc:
            on_event(Notice(f"Compression failed ({exc}); the conversation continues uncompressed.", "error"))
            return
        if not rotated:
            return
        self.last_prompt_tokens = None  # re-estimated until the next call reports real figures
        if result.error:
            on_event(Notice(f"The summary model failed ({result.error}); a structured fallback summary was used."))
        on_event(CompressionDone(result.removed_count, result.tokens_before, result.tokens_after, result.used_fallback))
        compressions = self.db.compression_count(self.session_id or "")
        if compressions >= COMPRESSIONS_BEFORE_HINT:
            on_event(Notice(f"This conversation has been compressed {compressions} times; details fade with each "
                            "summary. Consider /new for a fresh start (memory and search carry what matters)."))

    def branch(self, title: str | None, on_event: OnEvent) -> None:
        """``/branch [NAME]``: fork the conversation; the parent is kept as it was."""
        with self._turn_lock:
            if self.session_id is None:
                on_event(Notice("Nothing to branch yet: send a message first.", "information"))
                return
            new_title = title or (self.db.next_lineage_title(self.title) if self.title else None)
            self._rotate("branched", list(self.messages), new_title, self.system_prompt, on_event)

    def _rotate(self, end_reason: str, messages: list[dict], title: str | None, system_prompt: str,
                on_event: OnEvent) -> bool:
        """Move the live context into a child session in one transaction (a crash leaves no half-lineage).

        Another process may have moved the session on since this one read it (its own rotation,
        or turns this context lacks): then nothing is forked — a second child would split the
        lineage — and the agent continues at the lineage's real tip instead (returns False). A
        compression also waits while another process waits to write a turn here: it read the
        session before this turn ended, and compressing now would refuse that turn.
        """
        old = self.session_id or ""
        self._flush()
        assert self.writer is not None
        try:
            with self.writer.turn_lock():  # no other process's turn lands between the check and the fork
                if end_reason == "compression" and self.writer.others_waiting():
                    on_event(Notice("Another process is about to continue this session; compression is left to it.",
                                    "information"))
                    return False
                new_id = self.db.fork_session(old, end_reason=end_reason, messages=messages, title=title,
                                              system_prompt=system_prompt, model=str(self.model_cfg.get("name")),
                                              source=self.source, cwd=str(self.cwd),
                                              parent_messages=self.writer.flushed)
        except LineageMoved as moved:
            self._follow_tip(moved, on_event)
            return False
        self.session_id, self.messages, self.system_prompt = new_id, [dict(m) for m in messages], system_prompt
        self.title = self.db.require_session(new_id).title
        self.writer.switch(new_id, flushed=len(messages))
        self.recall.on_session_switch(old, new_id)
        reason = "compression" if end_reason == "compression" else "branch"
        on_event(SessionSwitched(old, new_id, reason, self.title))
        return True

    def _follow_tip(self, moved: LineageMoved, on_event: OnEvent) -> None:
        """After a refused rotation: continue from the tip as stored (its transcript and prompt)."""
        old = self.session_id
        self._load_session(moved.tip)
        if moved.tip != old:
            self.recall.on_session_switch(old, moved.tip)
        self.last_prompt_tokens = None
        on_event(Notice(f"{moved} Continuing at {moved.tip} as it is stored, without compressing now."))
        on_event(SessionSwitched(old, moved.tip, "resume", self.title))

    def new_session(self, on_event: OnEvent) -> None:
        with self._turn_lock:
            old = self.session_id
            self._end("user_exit", on_event)
            self.session_id, self.title, self.messages, self.writer = None, None, [], None
            self.totals, self.last_prompt_tokens = TokenTotals(), None
            self.system_prompt = self._build_prompt()
            on_event(SessionSwitched(old, "", "new"))

    def resume(self, id_or_title: str, on_event: OnEvent) -> None:
        with self._turn_lock:
            target = self.db.resume_target(id_or_title)
            old = self.session_id
            if target != old:
                self._end("user_exit", on_event)
                self.totals, self.last_prompt_tokens = TokenTotals(), None
                self._load_session(target)
                self.recall.on_session_switch(old, target)
            on_event(SessionSwitched(old, target, "resume", self.title))
            on_event(Recap(target, self.recap()))

    def recap(self) -> tuple[tuple[str, str], ...]:
        """The last few user → assistant exchanges, for the resume notice."""
        pairs: list[tuple[str, str]] = []
        pending_user: str | None = None
        for message in self.messages:
            role, content = message.get("role"), content_text(message.get("content"))
            if role == "user":
                pending_user = content
            elif role == "assistant" and content and pending_user is not None:
                pairs.append((pending_user, content))
                pending_user = None
        return tuple(pairs[-RECAP_EXCHANGES:])

    def _end(self, reason: str, on_event: OnEvent | None) -> None:
        if self.session_id is None:
            return
        if self.writer is not None:
            self._flush()
        if on_event is not None:
            self.reviewer.review_now(self.session_id, self.messages, on_event)
        self.recall.on_session_end(self.messages)
        self.db.end_session(self.session_id, reason)

    def close(self, on_event: OnEvent | None = None) -> None:
        """Flush and end the session; with ``on_event`` the session-end memory review runs too."""
        self._end("user_exit", on_event)
        self.recall.shutdown()
        self.session_id = None

    def wait_for_background(self, timeout_s: float) -> None:
        """Give background titles and reviews up to ``timeout_s`` in total (short-lived commands)."""
        deadline = time.monotonic() + timeout_s
        self.titles.join(max(0.0, deadline - time.monotonic()))
        self.reviewer.join(max(0.0, deadline - time.monotonic()))
