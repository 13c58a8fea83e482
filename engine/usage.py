"""Token accounting for the live session: running totals, the last prompt's size, the store's
tally, and a record of every request for the prompt-cache inspector.

The last prompt's size is what compression and the status bar judge the context by, so it is
forgotten (``None``, "not measured yet") whenever the context changes under it: a new or resumed
session, a compression, a move to another process's lineage tip. Each request's record holds
the provider's figures as reported, its estimated cost, and where its bytes stopped matching the
request before (``engine.prompt.prefix``); only the previous request's bytes are kept for that.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.events import UsageUpdated
from engine.pricing import Cost, Pricer
from engine.prompt.prefix import CacheOrder, PrefixBreak, cache_order, find_break
from engine.providers import ChatRequest, TokenUsage
from engine.store import SessionDB


@dataclass
class TokenTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    api_calls: int = 0

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


@dataclass(frozen=True)
class RequestRecord:
    """One model call of the session, as the provider reported it."""

    number: int  # 1-based, in the order the calls were made
    session_id: str
    turn: int  # the user turn it answers (how many user messages the request held)
    usage: TokenUsage
    cost: Cost | None  # None: no price is known for the model
    prefix_break: PrefixBreak | None  # None: the previous request is a prefix of this one

    @property
    def cached_share(self) -> float:
        """The share of the prompt read from the provider's cache (0 to 1)."""
        usage = self.usage
        return usage.cache_read_tokens / usage.input_tokens if usage.input_tokens else 0.0

    @property
    def uncached_tokens(self) -> int:
        """Prompt tokens not read from the cache (written to it or not cached at all)."""
        return max(0, self.usage.input_tokens - self.usage.cache_read_tokens)


def total_cost(records: list[RequestRecord]) -> Cost | None:
    """The sum of the records' costs; ``None`` when none of them could be priced."""
    costs = [record.cost for record in records if record.cost is not None]
    return sum(costs[1:], costs[0]) if costs else None


class UsageMeter:
    """Adds up each provider call of the live session and records it in ``state.db``."""

    def __init__(self, db: SessionDB, context_window: int, billing: Billing | None = None) -> None:
        self.db = db
        self.context_window = context_window
        self.billing = billing or Billing()
        self.totals = TokenTotals()
        self.last_prompt_tokens: int | None = None
        self.requests: list[RequestRecord] = []
        self._last_sent: CacheOrder | None = None
        self._rebuilt = False  # the context was rebuilt since the last request: a break is meant

    def record(self, session_id: str, usage: TokenUsage, request: ChatRequest, *, recall: bool) -> UsageUpdated:
        """Count one call and store it on the session; the event carries the new figures.

        ``request`` is what was sent and ``recall`` whether its current user message carried a
        recall fence: together they say where the next request may differ from this one.
        """
        totals = self.totals
        totals.input_tokens += usage.input_tokens
        totals.output_tokens += usage.output_tokens
        totals.cache_read_tokens += usage.cache_read_tokens
        totals.cache_write_tokens += usage.cache_write_tokens
        totals.api_calls += 1
        self.last_prompt_tokens = usage.input_tokens  # the whole prompt, cached parts included
        self._remember(session_id, usage, request, recall)
        self.db.add_usage(
            session_id,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            api_calls=1,
            billing_provider=self.billing.provider,
            billing_base_url=self.billing.base_url,
        )
        return UsageUpdated(
            prompt_tokens=usage.input_tokens,
            context_window=self.context_window,
            input_tokens=totals.input_tokens,
            output_tokens=totals.output_tokens,
            cache_read_tokens=totals.cache_read_tokens,
            cache_write_tokens=totals.cache_write_tokens,
            api_calls=totals.api_calls,
        )

    def _remember(self, session_id: str, usage: TokenUsage, request: ChatRequest, recall: bool) -> None:
        sent = cache_order(request.tools, request.system, request.messages, recall=recall)
        broke = find_break(self._last_sent, sent, rebuilt=self._rebuilt) if self._last_sent else None
        cost = self.billing.pricer.cost(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
                                        usage.cache_write_tokens)
        turn = sum(1 for message in request.messages if message.get("role") == "user")
        self.requests.append(RequestRecord(len(self.requests) + 1, session_id, turn, usage, cost, broke))
        self._last_sent, self._rebuilt = sent, False

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
