"""An agent's parts, built from the configuration once: provider, memory, recall, tools, side jobs.

Everything here is decided by ``config.yaml`` and the home before the first turn; the agent
only runs turns with what it is given. Problems that must not stop the app (no key, a broken
auxiliary section, a memory file the snapshot cannot carry) go to ``warn`` and are shown at the
next turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from engine.auto_titles import TitleMaker
from engine.auxiliary import auxiliary_provider
from engine.compression import CompressionSettings
from engine.config import Config
from engine.errors import HermesError
from engine.live_compression import LiveCompressor
from engine.live_session import LiveSession, SessionLogger
from engine.memory import ApprovalDecision, ApprovalRequest, MemoryStore, MemoryTool, MemoryWriteGate, PendingQueue
from engine.prompt.builder import PromptInputs, build_system_prompt
from engine.providers import Provider, context_window, make_provider
from engine.recall import RecallManager, make_recall_manager
from engine.review import BackgroundReviewer
from engine.security.redact import make_redactor
from engine.session_search import make_search_tool
from engine.store import SessionDB
from engine.tools import ToolBox
from engine.usage import Billing, UsageMeter

AskApproval = Callable[[ApprovalRequest], ApprovalDecision]
Warn = Callable[[str], None]
AUXILIARY_TASKS = ("compression", "session_search", "background_review", "title")


def no_key_explanation(exc: HermesError, config_file: Path) -> str:
    """What to set and where: the full path of the config file, which a new user has not seen yet."""
    return (
        f"{exc}\n"
        f"Set the key in your environment, or point model.base_url in {config_file} at a local "
        "OpenAI-compatible server (Ollama, llama.cpp, vLLM) — then restart."
    )


def open_provider(config: Config) -> tuple[Provider | None, str | None]:
    """The main model, or ``None`` and why not (the app still opens; turns explain it)."""
    try:
        return make_provider(config.section("model"), cache_ttl=config.prompt_caching.cache_ttl), None
    except HermesError as exc:
        return None, no_key_explanation(exc, config.home / "config.yaml")


@dataclass(frozen=True)
class PromptSnapshots:
    """A new session's system prompt, with memory re-read from disk (invariant 1: only new
    sessions, compression and a model change build one). A memory file the snapshot could not
    carry whole is reported through ``warn``."""

    config: Config
    memory: MemoryStore
    recall: RecallManager
    source: str
    cwd: Path
    warn: Warn

    def __call__(self) -> str:
        snapshot = self.memory.load_snapshot()
        for warning in snapshot.warnings:
            self.warn(warning)
        return build_system_prompt(
            PromptInputs(
                home=self.config.home,
                cwd=self.cwd,
                snapshot=snapshot,
                model=self.config.model.name,
                provider=self.config.model.provider,
                source=self.source,
                provider_block=self.recall.system_prompt_block(),
                memory_enabled=self.config.memory.memory_enabled,
                user_profile_enabled=self.config.memory.user_profile_enabled,
            )
        )


@dataclass(frozen=True)
class AgentParts:
    """What one agent works with; ``live`` is the session it is in."""

    memory: MemoryStore
    pending: PendingQueue
    gate: MemoryWriteGate
    recall: RecallManager
    aux: dict[str, Provider | None]  # per side job; None without a main model
    tools: ToolBox
    reviewer: BackgroundReviewer
    titles: TitleMaker
    live: LiveSession
    compressor: LiveCompressor


def billing_of(config: Config, provider: Provider | None) -> Billing:
    """Who serves the conversation's requests, and the price entry they are charged by."""
    table = config.pricing.table()
    if provider is None:
        return Billing(table=table)
    return Billing(provider.name, provider.base_url, table.pricer(provider.model, provider.base_url), provider.model,
                   table)


def build_parts(config: Config, db: SessionDB, provider: Provider | None, *, ask_approval: AskApproval | None,
                source: str, cwd: Path, warn: Warn) -> AgentParts:
    """Every part, in the order their warnings should be read."""
    memory = MemoryStore.from_config(config)
    pending = PendingQueue(config.home)
    gate = MemoryWriteGate(pending, approval_enabled=config.memory.write_approval, ask=ask_approval)
    recall = make_recall_manager(config.memory.provider, db, warn=warn)
    aux: dict[str, Provider | None] = {
        task: auxiliary_provider(config, task, provider, on_problem=warn) if provider else None
        for task in AUXILIARY_TASKS
    }
    memory_tool = MemoryTool(memory, gate)
    search = make_search_tool(db, lambda: aux["session_search"], lambda: live.session_id)
    tools = ToolBox(memory_tool, search=search)
    reviewer = BackgroundReviewer(config, memory_tool, lambda: aux["background_review"])
    window = context_window(config.section("model"))
    log = SessionLogger(config.home, config.model.name, config.model.base_url, source, tools.schemas,
                        make_redactor(config)) if config.sessions.write_json_snapshots else None
    live = LiveSession(db, model=config.model.name, source=source, cwd=cwd, recall=recall, reviewer=reviewer,
                       usage=UsageMeter(db, window, billing_of(config, provider), warn), new_prompt=PromptSnapshots(config, memory, recall, source, cwd, warn),
                       log=log, warn=warn)
    compressor = LiveCompressor(CompressionSettings.from_config(config, window), reviewer=reviewer, recall=recall,
                                summary_provider=lambda: aux["compression"])
    return AgentParts(memory=memory, pending=pending, gate=gate, recall=recall, aux=aux, tools=tools,
                      reviewer=reviewer, titles=TitleMaker(db, lambda: aux["title"]), live=live, compressor=compressor)
