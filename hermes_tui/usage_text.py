"""Token, share and money figures as words, for ``sessions stats`` and the ``/usage`` screen.

Pure Python (no Textual), so the command line uses it without loading the UI.
"""

from __future__ import annotations

from engine.pricing import PRICES_AS_OF, Cost
from engine.usage_report import Tally, UsageReport
from hermes_tui.formatting import table

RECENT_SESSIONS = 10  # how many sessions the human output of ``sessions stats`` lists


def money(usd: float) -> str:
    """``$0.0123`` under a dollar, ``$12.34`` above; a negative saving keeps its sign."""
    sign = "-" if usd < 0 else ""
    usd = abs(usd)
    return f"{sign}${usd:,.4f}" if usd < 1 else f"{sign}${usd:,.2f}"


def share(fraction: float) -> str:
    return f"{fraction * 100:.0f}%"


def cost_text(cost: Cost | None) -> str:
    """``$0.0123 (saved $0.0456)``, or ``no price`` when the model has none in the table."""
    return "no price" if cost is None else f"{money(cost.usd)} (saved {money(cost.saved_usd)})"


def _row(label: str, tally: Tally) -> list[str]:
    cost = "—" if tally.cost is None else money(tally.cost.usd)
    saved = "—" if tally.cost is None else money(tally.cost.saved_usd)
    tokens = tally.tokens
    return [label, f"{tokens.api_calls:,}", f"{tokens.input_tokens:,}", f"{tokens.cache_read_tokens:,}",
            f"{tokens.cache_write_tokens:,}", share(tokens.cached_share), f"{tokens.output_tokens:,}", cost, saved]


HEADERS = ("", "Calls", "Input", "Cache read", "Cache write", "Cached", "Output", "Est. cost", "Saved")
WIDTHS = (28, 8, 12, 12, 12, 6, 10, 10, 10)


def print_usage(report: UsageReport) -> None:
    """The usage part of ``sessions stats``: totals, each week, the most recent sessions."""
    total = report.total
    print()
    if not total.sessions:
        print("Usage     no model calls recorded yet")
        return
    priced = f"; {total.unpriced_sessions} session(s) of models with no price" if total.unpriced_sessions else ""
    print(f"Usage     estimated from list prices as of {PRICES_AS_OF} (pricing.models in config.yaml){priced}")
    unlogged = total.tokens.api_calls - total.recorded_calls
    if unlogged > 0:
        print(f"          {unlogged:,} of {total.tokens.api_calls:,} calls are not in the request log (older, or another "
              "program's): priced by session")
    weeks = [_row(week, tally) for week, tally in report.weeks.items()]
    print(table(("Week", *HEADERS[1:]), [*weeks, _row("all", total)], WIDTHS))
    print()
    recent = report.sessions[-RECENT_SESSIONS:][::-1]
    rows = [_row(s.row.title or s.row.id, s.tally) for s in recent]
    print(table((f"Session ({len(recent)} most recent)", *HEADERS[1:]), rows, WIDTHS))
