"""Token accounting of the live session: totals, the last prompt's size, and the store's tally."""

from __future__ import annotations

from pathlib import Path

from engine.events import UsageUpdated
from engine.providers import ChatRequest, TokenUsage
from engine.store import SessionDB
from engine.pricing import Pricer, PriceTable
from engine.usage import Billing, TokenTotals, UsageMeter, total_cost

REQUEST = ChatRequest(system="You are helpful.", messages=[{"role": "user", "content": "hi"}])


def test_each_call_adds_up_is_stored_and_reported(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        session_id = db.create_session(source="cli")
        meter = UsageMeter(db, context_window=200_000)
        meter.record(session_id, TokenUsage(input_tokens=1000, output_tokens=50, cache_read_tokens=800,
                                            cache_write_tokens=100, reasoning_tokens=7),
                     REQUEST, recall=False)
        event = meter.record(session_id, TokenUsage(input_tokens=1200, output_tokens=30, cache_read_tokens=1000),
                             REQUEST, recall=False)
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
        meter.record(session_id, TokenUsage(input_tokens=500, output_tokens=5), REQUEST, recall=False)
        meter.forget_prompt()
        assert meter.last_prompt_tokens is None and meter.totals.input_tokens == 500
        meter.reset()
        assert meter.totals == TokenTotals() and meter.last_prompt_tokens is None


def ask(system: str, *turns: str) -> ChatRequest:
    messages: list[dict] = []
    for text in turns:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    return ChatRequest(system=system, messages=messages[:-1])


def test_every_request_is_recorded_with_its_cost_share_and_prefix_break(tmp_path: Path) -> None:
    table = PriceTable.from_settings({}, True)
    billing = Billing("anthropic", None, table.pricer("claude-sonnet-4-5", None))
    with SessionDB.open_home(tmp_path) as db:
        session_id = db.create_session(source="cli")
        meter = UsageMeter(db, 200_000, billing)
        meter.record(session_id, TokenUsage(1000, 10, 0, 1000), ask("sys", "a"), recall=False)
        meter.record(session_id, TokenUsage(1100, 10, 1000, 100), ask("sys", "a", "b"), recall=False)
        meter.record(session_id, TokenUsage(1200, 10, 0, 1200), ask("changed", "a", "b", "c"), recall=False)
        first, second, third = meter.requests
        assert [r.number for r in meter.requests] == [1, 2, 3] and [r.turn for r in meter.requests] == [1, 2, 3]
        assert second.cached_share == 1000 / 1100 and second.uncached_tokens == 100
        assert first.prefix_break is None and second.prefix_break is None
        assert third.prefix_break is not None and third.prefix_break.part == "system"
        assert not third.prefix_break.expected
        assert second.cost == billing.pricer.cost(1100, 10, 1000, 100)
        assert total_cost(meter.requests) == first.cost + second.cost + third.cost
        stored = db.require_session(session_id)
        assert stored.input_tokens == 3300
        meter.forget_prompt()  # a compression: the next break is meant
        meter.record(session_id, TokenUsage(50, 5), ask("summary prompt", "c"), recall=False)
        assert meter.requests[-1].prefix_break is not None and meter.requests[-1].prefix_break.expected
        meter.reset()
        assert meter.requests == []


def test_billing_is_stored_once_and_an_unpriced_model_has_no_cost(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        session_id = db.create_session(source="cli")
        meter = UsageMeter(db, 8000, Billing("openai", "http://127.0.0.1:8/v1", Pricer(None, None)))
        meter.record(session_id, TokenUsage(10, 1), REQUEST, recall=False)
        assert meter.requests[0].cost is None and total_cost(meter.requests) is None
        row = db.usage_rows()[0]
        assert (row.billing_provider, row.billing_base_url) == ("openai", "http://127.0.0.1:8/v1")
