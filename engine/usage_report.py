"""Token, cache and cost totals per session and per week, from what ``state.db`` holds.

``sessions stats`` shows them. A session's calls that our request log holds
(``hermes_tui_requests``) are priced by the model and server of each call and counted in the
week it was made; whatever the session's own tally (upstream's columns) holds beyond them — calls
upstream Hermes made, or ours from before the log — is priced by the session's model and the
server stored on it, in the week the session started. A part whose model has no price counts its
tokens but no cost, and says so, rather than a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from engine.pricing import PRICES_AS_OF, Cost, PriceTable
from engine.store.usage_rows import SessionUsage
from engine.usage import TokenTotals

UNDATED_WEEK = "(undated)"


@dataclass(frozen=True)
class Piece:
    """Calls of one session priced alike and dated alike."""

    model: str | None
    base_url: str | None
    at: float | None
    tokens: TokenTotals
    recorded: bool  # from the request log (else the rest of the session's own tally)


def pieces(row: SessionUsage) -> list[Piece]:
    """The session's recorded calls by model, server and day, then the rest of its tally, if any."""
    found = [Piece(group.model or row.model, group.base_url, group.at,
                   TokenTotals(group.input_tokens, group.output_tokens, group.cache_read_tokens,
                               group.cache_write_tokens, group.api_calls), True)
             for group in row.recorded]
    rest = TokenTotals(
        input_tokens=max(0, row.input_tokens - sum(p.tokens.input_tokens for p in found)),
        output_tokens=max(0, row.output_tokens - sum(p.tokens.output_tokens for p in found)),
        cache_read_tokens=max(0, row.cache_read_tokens - sum(p.tokens.cache_read_tokens for p in found)),
        cache_write_tokens=max(0, row.cache_write_tokens - sum(p.tokens.cache_write_tokens for p in found)),
        api_calls=max(0, row.api_calls - sum(p.tokens.api_calls for p in found)),
    )
    if any((rest.input_tokens, rest.output_tokens, rest.cache_read_tokens, rest.cache_write_tokens, rest.api_calls)):
        found.append(Piece(row.model, row.billing_base_url, row.started_at, rest, False))
    return found


@dataclass
class Tally:
    """Token sums over some sessions, and their estimated cost where a price was known."""

    sessions: int = 0
    tokens: TokenTotals = field(default_factory=TokenTotals)
    cost: Cost | None = None
    unpriced_sessions: int = 0  # sessions with calls of a model that has no price
    recorded_calls: int = 0  # of ``tokens.api_calls``, those the request log holds one by one

    def add_piece(self, piece: Piece, cost: Cost | None) -> None:
        """A piece of the one session this tally is about (``merge`` adds sessions together)."""
        self.sessions = 1
        self.tokens.add(piece.tokens)
        if piece.recorded:
            self.recorded_calls += piece.tokens.api_calls
        if cost is None:
            self.unpriced_sessions = 1
        else:
            self.cost = cost if self.cost is None else self.cost + cost

    def merge(self, other: "Tally") -> None:
        self.sessions += other.sessions
        self.unpriced_sessions += other.unpriced_sessions
        self.recorded_calls += other.recorded_calls
        self.tokens.add(other.tokens)
        if other.cost is not None:
            self.cost = other.cost if self.cost is None else self.cost + other.cost

    def to_json(self) -> dict[str, Any]:
        tokens = self.tokens
        return {
            "sessions": self.sessions, "api_calls": tokens.api_calls, "input_tokens": tokens.input_tokens,
            "output_tokens": tokens.output_tokens, "cache_read_tokens": tokens.cache_read_tokens,
            "cache_write_tokens": tokens.cache_write_tokens, "cached_share": round(tokens.cached_share, 4),
            "estimated_cost_usd": None if self.cost is None else round(self.cost.usd, 6),
            "saved_usd": None if self.cost is None else round(self.cost.saved_usd, 6),
            "unpriced_sessions": self.unpriced_sessions, "recorded_calls": self.recorded_calls,
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
    weeks: dict[str, Tally] = {}
    for row in rows:
        one = Tally()
        by_week: dict[str, Tally] = {}
        priced_as: list[str] = []
        for piece in pieces(row):
            pricer = table.pricer(piece.model or "", piece.base_url)
            tokens = piece.tokens
            cost = pricer.cost(tokens.input_tokens, tokens.output_tokens, tokens.cache_read_tokens,
                               tokens.cache_write_tokens)
            one.add_piece(piece, cost)
            by_week.setdefault(iso_week(piece.at), Tally()).add_piece(piece, cost)
            if pricer.priced_as is not None and pricer.priced_as not in priced_as:
                priced_as.append(pricer.priced_as)
        report.sessions.append(SessionTally(row, ", ".join(priced_as) or None, one))
        report.total.merge(one)
        for week, tally in by_week.items():
            weeks.setdefault(week, Tally()).merge(tally)
    report.weeks = dict(sorted(weeks.items(), key=lambda item: (item[0] == UNDATED_WEEK, item[0])))
    return report
