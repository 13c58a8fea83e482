"""Token accounting of the live session: totals, the last prompt's size, and the store's tally."""

from __future__ import annotations

from pathlib import Path

from engine.events import UsageUpdated
from engine.providers import TokenUsage
from engine.store import SessionDB
from engine.usage import TokenTotals, UsageMeter


def test_each_call_adds_up_is_stored_and_reported(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        session_id = db.create_session(source="cli")
        meter = UsageMeter(db, context_window=200_000)
        meter.record(session_id, TokenUsage(input_tokens=1000, output_tokens=50, cache_read_tokens=800,
                                            cache_write_tokens=100, reasoning_tokens=7))
        event = meter.record(session_id, TokenUsage(input_tokens=1200, output_tokens=30, cache_read_tokens=1000))
        assert event == UsageUpdated(prompt_tokens=1200, context_window=200_000, input_tokens=2200,
                                     output_tokens=80, cache_read_tokens=1800, cache_write_tokens=100, api_calls=2)
        assert meter.last_prompt_tokens == 1200  # the last prompt, cached parts included
        stored = db.require_session(session_id)
        assert (stored.input_tokens, stored.output_tokens, stored.cache_read_tokens, stored.cache_write_tokens,
                stored.reasoning_tokens, stored.api_call_count) == (2200, 80, 1800, 100, 7, 2)


def test_a_changed_context_forgets_its_size_and_another_session_starts_from_zero(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        session_id = db.create_session(source="cli")
        meter = UsageMeter(db, context_window=8000)
        meter.record(session_id, TokenUsage(input_tokens=500, output_tokens=5))
        meter.forget_prompt()
        assert meter.last_prompt_tokens is None and meter.totals.input_tokens == 500
        meter.reset()
        assert meter.totals == TokenTotals() and meter.last_prompt_tokens is None


def test_a_call_cut_short_keeps_the_last_prompt_size(tmp_path: Path) -> None:
    """A cancelled stream reports no usage: the context did not shrink to 0 %."""
    with SessionDB.open_home(tmp_path) as db:
        session_id = db.create_session(source="cli")
        meter = UsageMeter(db, context_window=8000)
        meter.record(session_id, TokenUsage(input_tokens=4000, output_tokens=5))
        event = meter.record(session_id, TokenUsage())
        assert meter.last_prompt_tokens == 4000 and event.prompt_tokens == 4000
