"""Token accounting for the live session: running totals, the last prompt's size, the store's
tally, and a record of every request for the prompt-cache inspector.

The last prompt's size is what compression and the status bar judge the context by, so it is
forgotten (``None``, "not measured yet") whenever the context changes under it: a new or resumed
session, a compression, a move to another process's lineage tip. Each request's record holds
the provider's figures as reported, its estimated cost, and where its bytes stopped matching the
request before (``engine.prompt.prefix``); only the previous request's bytes are kept for that,
in memory, so the first request after the session is opened is not compared with anything.

Every record is also stored, once, in the request log of ``state.db`` (``hermes_tui_requests``,
in the same transaction as the session's tally), so a resumed session shows its earlier requests
and those of the sessions it continues (``load``). A failed write is reported, never raised: the
turn goes on, and the record stays in memory for this run. The running totals are this run's.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable

from engine import clock
from engine.errors import HermesError
from engine.events import UsageUpdated
from engine.pricing import Cost, Pricer, PriceTable
from engine.prompt.prefix import CacheOrder, PrefixBreak, cache_order, find_break
from engine.providers import ChatRequest, TokenUsage
from engine.store import SessionDB
from engine.store.request_log import RequestRow


@dataclass
class TokenTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    api_calls: int = 0

    def add(self, other: "TokenTotals") -> None:
        """Count ``other``'s calls and tokens in these."""
        self.api_calls += other.api_calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens

    @property
    def cached_share(self) -> float:
        """The share of the prompts read from the provider's cache (0 to 1)."""
        return self.cache_read_tokens / self.input_tokens if self.input_tokens else 0.0


@dataclass(frozen=True)
class Billing:
    """Who serves the requests and how they are priced; stored on the session as upstream does."""

    provider: str | None = None
    base_url: str | None = None
    pricer: Pricer = field(default_factory=lambda: Pricer(None, None))
    model: str | None = None
    table: PriceTable | None = None  # prices earlier requests made with other models or servers

    def pricer_for(self, model: str | None, base_url: str | None) -> Pricer:
        """How a stored request is priced: by its own model and server."""
        if self.table is not None:
            return self.table.pricer(model or "", base_url)
        return self.pricer if (model, base_url) == (self.model, self.base_url) else Pricer(None, None)


@dataclass(frozen=True)
class RequestRecord:
    """One model call of the session, as the provider reported it."""

    number: int  # 1-based, in the order the calls were made
    session_id: str
    turn: int  # the user turn it answers (how many user messages the request held)
    usage: TokenUsage
    cost: Cost | None  # None: no price is known for the model
    prefix_break: PrefixBreak | None  # None: the previous request is a prefix of this one (or not compared)
    compared: bool = True  # False: no earlier request of the same run to compare its bytes with
    at: float | None = None
    message_id: int | None = None  # the newest stored message the request carried
    model: str | None = None
    provider: str | None = None
    base_url: str | None = None

    @property
    def cached_share(self) -> float:
        """The share of the prompt read from the provider's cache (0 to 1)."""
        usage = self.usage
        return usage.cache_read_tokens / usage.input_tokens if usage.input_tokens else 0.0

    @property
    def uncached_tokens(self) -> int:
        """Prompt tokens not read from the cache (written to it or not cached at all)."""
        return max(0, self.usage.input_tokens - self.usage.cache_read_tokens)


def _stored_break(data: dict[str, Any] | None) -> PrefixBreak | None:
    """A stored break back as it was; ``None`` for one a newer or older writer shaped otherwise."""
    if data is None:
        return None
    try:
        return PrefixBreak(**{f.name: data[f.name] for f in fields(PrefixBreak)})
    except (KeyError, TypeError):
        return None


def total_cost(records: list[RequestRecord]) -> Cost | None:
    """The sum of the records' costs; ``None`` when none of them could be priced."""
    costs = [record.cost for record in records if record.cost is not None]
    return sum(costs[1:], costs[0]) if costs else None


class UsageMeter:
    """Adds up each provider call of the live session and records it in ``state.db``."""

    def __init__(self, db: SessionDB, context_window: int, billing: Billing | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        self.db = db
        self.context_window = context_window
        self.billing = billing or Billing()
        self.warn = warn or (lambda _message: None)  # a request log write failed (shown after the turn)
        self._store_failing = False
        self.totals = TokenTotals()
        self.last_prompt_tokens: int | None = None
        self.requests: list[RequestRecord] = []
        self._last_sent: CacheOrder | None = None
        self._rebuilt = False  # the context was rebuilt since the last request: a break is meant

    def record(self, session_id: str, usage: TokenUsage, request: ChatRequest, *, recall: bool,
               message_id: int | None = None) -> UsageUpdated:
        """Count one call and store it (the session's tally and the request log, once); the event
        carries the new figures.

        ``request`` is what was sent and ``recall`` whether its current user message carried a
        recall fence: together they say where the next request may differ from this one.
        ``message_id``: the newest stored message the request carried.
        """
        totals = self.totals
        totals.input_tokens += usage.input_tokens
        totals.output_tokens += usage.output_tokens
        totals.cache_read_tokens += usage.cache_read_tokens
        totals.cache_write_tokens += usage.cache_write_tokens
        totals.api_calls += 1
        if usage.input_tokens:  # a call cut short (a cancelled turn) reports none: the last size stands
            self.last_prompt_tokens = usage.input_tokens  # the whole prompt, cached parts included
        self._store(self._remember(session_id, usage, request, recall, message_id))
        return UsageUpdated(
            prompt_tokens=self.last_prompt_tokens,
            context_window=self.context_window,
            input_tokens=totals.input_tokens,
            output_tokens=totals.output_tokens,
            cache_read_tokens=totals.cache_read_tokens,
            cache_write_tokens=totals.cache_write_tokens,
            api_calls=totals.api_calls,
        )

    def _remember(self, session_id: str, usage: TokenUsage, request: ChatRequest, recall: bool,
                  message_id: int | None) -> RequestRecord:
        sent = cache_order(request.tools, request.system, request.messages, recall=recall)
        broke = find_break(self._last_sent, sent, rebuilt=self._rebuilt) if self._last_sent else None
        billing = self.billing
        cost = billing.pricer.cost(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
                                   usage.cache_write_tokens)
        turn = sum(1 for message in request.messages if message.get("role") == "user")
        record = RequestRecord(len(self.requests) + 1, session_id, turn, usage, cost, broke,
                               compared=self._last_sent is not None, at=clock.now(), message_id=message_id,
                               model=billing.model, provider=billing.provider, base_url=billing.base_url)
        self.requests.append(record)
        self._last_sent, self._rebuilt = sent, False
        return record

    def _store(self, record: RequestRecord) -> None:
        """The record in the request log and its counts on the session, in one write.

        A failure costs neither the turn nor the in-memory record; it is said once, and again only
        after a write has worked in between (a broken disk is not a notice per tool round)."""
        usage = record.usage
        row = RequestRow(
            session_id=record.session_id, at=record.at, turn=record.turn, message_id=record.message_id,
            model=record.model, provider=record.provider, base_url=record.base_url,
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens, cache_write_tokens=usage.cache_write_tokens,
            reasoning_tokens=usage.reasoning_tokens, compared=record.compared,
            prefix_break=asdict(record.prefix_break) if record.prefix_break is not None else None)
        try:
            self.db.add_request(row, billing_provider=self.billing.provider, billing_base_url=self.billing.base_url)
        except (HermesError, sqlite3.Error, OSError) as exc:
            if not self._store_failing:
                self.warn(f"Request {record.number}'s token usage was not stored in state.db ({exc}); the turn "
                          "goes on, and this run's /usage still shows it.")
            self._store_failing = True
            return
        self._store_failing = False

    def load(self, session_id: str) -> None:
        """The requests stored for the session and the ones it continues (its ancestors, each up
        to where its child began), in place of those of the session before; the running totals
        stay this run's. Unreadable: none, said once (the session opens all the same)."""
        try:
            rows = self.db.lineage_requests(session_id)
        except (HermesError, sqlite3.Error) as exc:
            self.warn(f"Earlier requests of this session could not be read from state.db ({exc}).")
            rows = []
        self.requests = [self._from_row(number, row) for number, row in enumerate(rows, 1)]

    def _from_row(self, number: int, row: RequestRow) -> RequestRecord:
        usage = TokenUsage(row.input_tokens, row.output_tokens, row.cache_read_tokens, row.cache_write_tokens,
                           row.reasoning_tokens)
        cost = self.billing.pricer_for(row.model, row.base_url).cost(
            usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens)
        return RequestRecord(number, row.session_id, row.turn, usage, cost, _stored_break(row.prefix_break),
                             compared=row.compared, at=row.at, message_id=row.message_id, model=row.model,
                             provider=row.provider, base_url=row.base_url)

    def forget_prompt(self) -> None:
        """The context changed: its size is unknown until the next call reports it, and the next
        request's prefix is not expected to match this one's."""
        self.last_prompt_tokens = None
        self._rebuilt = True

    def reset(self) -> None:
        """Another session is live: its totals and its record of requests start from zero."""
        self.totals = TokenTotals()
        self.last_prompt_tokens = None
        self.requests = []
        self._last_sent, self._rebuilt = None, False
