"""Token accounting for the live session: running totals, the last prompt's size, and the store's tally.

The last prompt's size is what compression and the status bar judge the context by, so it is
forgotten (``None``, "not measured yet") whenever the context changes under it: a new or resumed
session, a compression, a move to another process's lineage tip.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import UsageUpdated
from engine.providers import TokenUsage
from engine.store import SessionDB


@dataclass
class TokenTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    api_calls: int = 0


class UsageMeter:
    """Adds up each provider call of the live session and records it in ``state.db``."""

    def __init__(self, db: SessionDB, context_window: int) -> None:
        self.db = db
        self.context_window = context_window
        self.totals = TokenTotals()
        self.last_prompt_tokens: int | None = None

    def record(self, session_id: str, usage: TokenUsage) -> UsageUpdated:
        """Count one call and store it on the session; the event carries the new figures."""
        totals = self.totals
        totals.input_tokens += usage.input_tokens
        totals.output_tokens += usage.output_tokens
        totals.cache_read_tokens += usage.cache_read_tokens
        totals.cache_write_tokens += usage.cache_write_tokens
        totals.api_calls += 1
        if usage.input_tokens:  # a call cut short (a cancelled turn) reports none: the last size stands
            self.last_prompt_tokens = usage.input_tokens  # the whole prompt, cached parts included
        self.db.add_usage(
            session_id,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            api_calls=1,
        )
        return UsageUpdated(
            prompt_tokens=self.last_prompt_tokens,
            context_window=self.context_window,
            input_tokens=totals.input_tokens,
            output_tokens=totals.output_tokens,
            cache_read_tokens=totals.cache_read_tokens,
            cache_write_tokens=totals.cache_write_tokens,
            api_calls=totals.api_calls,
        )

    def forget_prompt(self) -> None:
        """The context changed: its size is unknown until the next call reports it."""
        self.last_prompt_tokens = None

    def reset(self) -> None:
        """Another session is live: its totals start from zero."""
        self.totals = TokenTotals()
        self.last_prompt_tokens = None
