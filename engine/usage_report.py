"""Token, cache and cost totals per session and per week, from what ``state.db`` holds.

``sessions stats`` shows them. Each session is priced by its model and the server it was billed
at (``engine.pricing``); a session whose model has no price counts its tokens but no cost, and
says so, rather than a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from engine.pricing import PRICES_AS_OF, Cost, PriceTable
from engine.store.usage_rows import SessionUsage
from engine.usage import TokenTotals

UNDATED_WEEK = "(undated)"


@dataclass
class Tally:
    """Token sums over some sessions, and their estimated cost where a price was known."""

    sessions: int = 0
    tokens: TokenTotals = field(default_factory=TokenTotals)
    cost: Cost | None = None
    unpriced_sessions: int = 0

    def add(self, row: SessionUsage, cost: Cost | None) -> None:
        self.sessions += 1
        tokens = self.tokens
        tokens.api_calls += row.api_calls
        tokens.input_tokens += row.input_tokens
        tokens.output_tokens += row.output_tokens
        tokens.cache_read_tokens += row.cache_read_tokens
        tokens.cache_write_tokens += row.cache_write_tokens
        if cost is None:
            self.unpriced_sessions += 1
        else:
            self.cost = cost if self.cost is None else self.cost + cost

    def to_json(self) -> dict[str, Any]:
        tokens = self.tokens
        return {
            "sessions": self.sessions, "api_calls": tokens.api_calls, "input_tokens": tokens.input_tokens,
            "output_tokens": tokens.output_tokens, "cache_read_tokens": tokens.cache_read_tokens,
            "cache_write_tokens": tokens.cache_write_tokens, "cached_share": round(tokens.cached_share, 4),
            "estimated_cost_usd": None if self.cost is None else round(self.cost.usd, 6),
            "saved_usd": None if self.cost is None else round(self.cost.saved_usd, 6),
            "unpriced_sessions": self.unpriced_sessions,
        }


@dataclass
class SessionTally:
    row: SessionUsage
    priced_as: str | None
    tally: Tally

    def to_json(self) -> dict[str, Any]:
        record = {"id": self.row.id, "title": self.row.title, "model": self.row.model,
                  "started_at": self.row.started_at, "priced_as": self.priced_as, **self.tally.to_json()}
        del record["sessions"], record["unpriced_sessions"]
        return record


@dataclass
class UsageReport:
    total: Tally = field(default_factory=Tally)
    sessions: list[SessionTally] = field(default_factory=list)  # oldest first
    weeks: dict[str, Tally] = field(default_factory=dict)  # ISO week → tally, oldest first

    def to_json(self) -> dict[str, Any]:
        """The keys ``sessions stats --json`` adds (README: "sessions stats")."""
        return {
            "usage": {**self.total.to_json(), "prices_as_of": PRICES_AS_OF},
            "usage_by_session": [s.to_json() for s in self.sessions],
            "usage_by_week": [{"week": week, **tally.to_json()} for week, tally in self.weeks.items()],
        }


def iso_week(started_at: float | None) -> str:
    """``2026-W48`` (ISO 8601 week, UTC)."""
    if started_at is None:
        return UNDATED_WEEK
    year, week, _ = datetime.fromtimestamp(started_at, tz=timezone.utc).isocalendar()
    return f"{year}-W{week:02d}"


def usage_report(rows: list[SessionUsage], table: PriceTable) -> UsageReport:
    report = UsageReport()
    for row in rows:
        pricer = table.pricer(row.model or "", row.billing_base_url)
        cost = pricer.cost(row.input_tokens, row.output_tokens, row.cache_read_tokens, row.cache_write_tokens)
        one = Tally()
        one.add(row, cost)
        report.sessions.append(SessionTally(row, pricer.priced_as, one))
        report.total.add(row, cost)
        report.weeks.setdefault(iso_week(row.started_at), Tally()).add(row, cost)
    return report
