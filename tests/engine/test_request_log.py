"""The request log: every model call stored once in ``hermes_tui_requests`` (ours, additive), read
back when the session is resumed, used by ``sessions stats``, and never costing a turn."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from engine import clock
from engine.agent import Agent
from engine.config import load_config
from engine.errors import StoreError
from engine.events import Notice, TurnDone
from engine.pricing import PriceTable
from engine.providers import ChatRequest, TokenUsage
from engine.store import SessionDB
from engine.store.schema import REQUEST_TRIGGERS
from engine.usage import Billing, UsageMeter
from engine.usage_report import usage_report
from hermes_tui.loopback_llm import LoopbackLLM, Reply, Usage
from tests.conftest import FIXED_NOW
from tests.engine.store.db_files import digest, objects

TABLE = PriceTable.from_settings({}, True)
SONNET = Billing("anthropic", None, TABLE.pricer("claude-sonnet-4-5", None), "claude-sonnet-4-5", TABLE)
UPSTREAM_TABLES = {"sessions", "messages", "messages_fts", "messages_fts_trigram", "state_meta", "schema_version"}


def ask(system: str, *turns: str) -> ChatRequest:
    messages: list[dict] = []
    for text in turns:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    return ChatRequest(system=system, messages=messages[:-1])


def raw_rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT session_id, turn, message_id, model, provider, base_url, input_tokens, "
                            "output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, compared, at "
                            "FROM hermes_tui_requests ORDER BY id").fetchall()


@pytest.mark.usefixtures("fixed_clock")
def test_each_request_is_stored_once_with_everything_the_inspector_shows(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        sid = db.create_session(source="cli")
        meter = UsageMeter(db, 200_000, SONNET)
        meter.record(sid, TokenUsage(1000, 10, 0, 1000, 3), ask("sys", "a"), recall=False, message_id=7)
        meter.record(sid, TokenUsage(1100, 20, 1000, 100), ask("changed", "a", "b"), recall=False, message_id=9)
        rows = raw_rows(db.path)
        assert rows == [
            (sid, 1, 7, "claude-sonnet-4-5", "anthropic", None, 1000, 10, 0, 1000, 3, 0, FIXED_NOW),
            (sid, 2, 9, "claude-sonnet-4-5", "anthropic", None, 1100, 20, 1000, 100, 0, 1, FIXED_NOW),
        ]
        stored = db.require_session(sid)  # the session's own tally got the same calls, in the same write
        assert (stored.input_tokens, stored.cache_read_tokens, stored.api_call_count) == (2100, 1000, 2)
        assert meter.requests[1].prefix_break is not None and meter.requests[1].prefix_break.part == "system"
        assert not meter.requests[0].compared and meter.requests[1].compared


@pytest.mark.usefixtures("fixed_clock")
def test_the_records_survive_reopening_the_store_and_come_back_as_they_were(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        sid = db.create_session(source="cli")
        meter = UsageMeter(db, 200_000, SONNET)
        meter.record(sid, TokenUsage(1000, 10, 0, 1000), ask("sys", "a"), recall=False, message_id=1)
        meter.record(sid, TokenUsage(1200, 10, 1000, 200), ask("sys", "a", "b"), recall=False, message_id=3)
        meter.record(sid, TokenUsage(1300, 10, 0, 1300), ask("changed", "a", "b", "c"), recall=False, message_id=5)
        before = list(meter.requests)
    with SessionDB.open_home(tmp_path) as db:
        meter = UsageMeter(db, 200_000, SONNET)
        meter.load(sid)
        assert meter.requests == before  # figures, cost, the break with its excerpts, time, message
        assert meter.totals.api_calls == 0  # the running totals are this run's
        meter.record(sid, TokenUsage(1400, 10, 1300, 100), ask("changed", "a", "b", "c", "d"), recall=False)
        fourth = meter.requests[-1]
        assert (fourth.number, fourth.compared, fourth.prefix_break) == (4, False, None)  # nothing to compare with
        assert len(raw_rows(db.path)) == 4


@pytest.mark.usefixtures("fixed_clock")
def test_a_continuation_shows_its_ancestors_requests_each_up_to_where_its_child_began(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        root = db.create_session(source="cli")
        meter = UsageMeter(db, 200_000, SONNET)
        meter.record(root, TokenUsage(500, 5), ask("sys", "a"), recall=False)
        clock.set_clock(lambda: FIXED_NOW + 60)
        child = db.fork_session(root, end_reason="compression", messages=[], title=None, system_prompt="s",
                                model="m", source="cli")
        meter.record(child, TokenUsage(600, 6), ask("s", "b"), recall=False)
        clock.set_clock(lambda: FIXED_NOW + 120)
        branch = db.fork_session(child, end_reason="branched", messages=[], title=None, system_prompt="s",
                                 model="m", source="cli")
        clock.set_clock(lambda: FIXED_NOW + 180)
        db.reopen_session(child)
        meter.record(child, TokenUsage(700, 7), ask("s", "b", "c"), recall=False)  # the parent, after the branch
        meter.record(branch, TokenUsage(800, 8), ask("s", "b", "x"), recall=False)
        other = UsageMeter(db, 200_000, SONNET)
        other.load(branch)
        assert [(r.number, r.session_id, r.usage.input_tokens) for r in other.requests] == [
            (1, root, 500), (2, child, 600), (3, branch, 800)]
        other.load(child)
        assert [r.usage.input_tokens for r in other.requests] == [500, 600, 700]
        db.delete_session(branch)  # a session's records go with it
        assert [row[0] for row in raw_rows(db.path)] == [root, child, child]


def test_a_failed_write_is_said_once_and_costs_neither_the_record_nor_the_next_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warnings: list[str] = []
    with SessionDB.open_home(tmp_path) as db:
        sid = db.create_session(source="cli")
        meter = UsageMeter(db, 8000, SONNET, warnings.append)
        real = db.add_request

        def broken(*_args: Any, **_kwargs: Any) -> int:
            raise StoreError(f"{db.path}: database or disk is full.")

        monkeypatch.setattr(db, "add_request", broken)
        meter.record(sid, TokenUsage(100, 1), ask("sys", "a"), recall=False)
        meter.record(sid, TokenUsage(200, 1), ask("sys", "a", "b"), recall=False)
        assert len(warnings) == 1 and "Request 1's token usage was not stored" in warnings[0]
        assert "disk is full" in warnings[0] and len(meter.requests) == 2
        monkeypatch.setattr(db, "add_request", real)
        meter.record(sid, TokenUsage(300, 1), ask("sys", "a", "b", "c"), recall=False)
        assert [row[6] for row in raw_rows(db.path)] == [300] and len(warnings) == 1


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM(side_responder=lambda _body: Reply(text="Notes")) as server:
        yield server


def agent_home(tmp_path: Path, llm: LoopbackLLM) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    config = {"model": {"provider": "openai", "name": "gpt-4o", "base_url": llm.base_url_openai},
              "memory": {"nudge_interval": 0}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    return home


class Events(list):
    def __call__(self, event: Any) -> None:
        self.append(event)


def test_a_failing_write_does_not_cost_the_users_turn(tmp_path: Path, llm: LoopbackLLM,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    home = agent_home(tmp_path, llm)
    llm.push(Reply(text="Still here.", usage=Usage(input_tokens=900, output_tokens=5, cache_read_tokens=400)))
    with SessionDB.open_home(home) as db:
        agent = Agent.start(load_config(home), db, source="cli", cwd=home)

        def broken(*_args: Any, **_kwargs: Any) -> int:
            raise sqlite3.OperationalError("disk I/O error")

        monkeypatch.setattr(db, "add_request", broken)
        events = Events()
        agent.run_turn("hello", events)
        assert [e.reply for e in events if isinstance(e, TurnDone)] == ["Still here."]
        assert [m.role for m in db.get_messages(agent.session_id or "")] == ["user", "assistant"]
        assert any("token usage was not stored" in e.message and "disk I/O error" in e.message
                   for e in events if isinstance(e, Notice))
        assert agent.usage.requests[0].usage.cache_read_tokens == 400  # /usage still shows it this run
        agent.close(None)


def test_a_resumed_session_brings_back_its_requests_from_the_store(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = agent_home(tmp_path, llm)
    llm.push(Reply(text="One.", usage=Usage(input_tokens=1000, output_tokens=5, cache_read_tokens=0)),
             Reply(text="Two.", usage=Usage(input_tokens=1200, output_tokens=5, cache_read_tokens=900)),
             Reply(text="Three.", usage=Usage(input_tokens=1400, output_tokens=5, cache_read_tokens=1100)))
    with SessionDB.open_home(home) as db:
        agent = Agent.start(load_config(home), db, source="cli", cwd=home)
        agent.run_turn("hello", Events())
        agent.run_turn("again", Events())
        sid = agent.session_id or ""
        user_ids = [m.id for m in db.get_messages(sid) if m.role == "user"]
        agent.close(None)
    with SessionDB.open_home(home) as db:
        agent = Agent.start(load_config(home), db, resume=sid, source="cli", cwd=home)
        records = agent.usage.requests
        assert [(r.number, r.turn, r.usage.cache_read_tokens, r.message_id) for r in records] == [
            (1, 1, 0, user_ids[0]), (2, 2, 900, user_ids[1])]
        assert records[0].model == "gpt-4o" and records[0].base_url == llm.base_url_openai
        assert records[1].cost is not None and records[1].cost.usd == 0  # a local server costs nothing
        agent.run_turn("third", Events())
        assert [(r.number, r.compared) for r in agent.usage.requests][-1] == (3, False)
        agent.close(None)


def test_an_upstream_home_reads_without_the_table_and_gets_it_at_the_first_write(upstream_home: Path) -> None:
    path = upstream_home / "state.db"
    before = digest(path)
    with SessionDB.open_home(upstream_home) as db:
        newest = db.list_sessions(limit=1)[0].id
        assert db.lineage_requests(newest) == []
        meter = UsageMeter(db, 8000, SONNET)
        meter.load(newest)
        assert usage_report(db.usage_rows(), TABLE).total.recorded_calls == 0
    assert digest(path) == before and "hermes_tui_requests" not in objects(path)
    with SessionDB.open_home(upstream_home) as db:
        meter = UsageMeter(db, 8000, SONNET)
        meter.record(newest, TokenUsage(700, 7, 600), ask("sys", "a"), recall=False)
        assert [row[0] for row in raw_rows(path)] == [newest]
        assert usage_report(db.usage_rows(), TABLE).total.recorded_calls == 1
        with sqlite3.connect(path) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            version = raw.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
            raw.execute("DELETE FROM sessions WHERE id = ?", (newest,))  # as upstream's delete would
            assert raw.execute("SELECT COUNT(*) FROM hermes_tui_requests").fetchone()[0] == 0
    assert version >= 16 and UPSTREAM_TABLES | {"hermes_tui_requests", *REQUEST_TRIGGERS} <= objects(path)


def test_records_of_sessions_deleted_while_the_trigger_was_lost_are_dropped_when_it_is_rebuilt(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        gone, kept = db.create_session(session_id="gone"), db.create_session(session_id="kept")
        meter = UsageMeter(db, 8000, SONNET)
        meter.record(gone, TokenUsage(1, 1), ask("s", "a"), recall=False)
        meter.record(kept, TokenUsage(2, 1), ask("s", "a"), recall=False)
    with sqlite3.connect(tmp_path / "state.db") as raw:
        raw.execute("DROP TRIGGER hermes_tui_requests_session_delete")  # e.g. another program rebuilt the table
        raw.execute("DELETE FROM sessions WHERE id = 'gone'")
    with SessionDB.open_home(tmp_path) as db:
        db.set_title(kept, "first write")
        assert [row[0] for row in raw_rows(db.path)] == [kept]


@pytest.mark.usefixtures("fixed_clock")
def test_stats_price_and_date_each_recorded_call_and_count_the_rest_of_the_tally(tmp_path: Path) -> None:
    """Two models in one session, in two weeks; and calls upstream made (on the tally only)."""
    week = 7 * 86400
    with SessionDB.open_home(tmp_path) as db:
        clock.set_clock(lambda: FIXED_NOW - week)
        sid = db.create_session(model="claude-sonnet-4-5", title="Mixed")
        UsageMeter(db, 8000, SONNET).record(sid, TokenUsage(10_000, 100, 8_000, 1_000), ask("s", "a"), recall=False)
        clock.set_clock(lambda: FIXED_NOW)
        haiku = Billing("anthropic", None, TABLE.pricer("claude-haiku-4-5", None), "claude-haiku-4-5", TABLE)
        UsageMeter(db, 8000, haiku).record(sid, TokenUsage(4_000, 50, 3_000), ask("s", "a", "b"), recall=False)
        db.add_usage(sid, input_tokens=2_000, output_tokens=20, api_calls=1)  # upstream's own call, unrecorded
        report = usage_report(db.usage_rows(), TABLE)
    costs = [TABLE.pricer(model, None).cost(*figures) for model, figures in (
        ("claude-sonnet-4-5", (10_000, 100, 8_000, 1_000)), ("claude-haiku-4-5", (4_000, 50, 3_000, 0)),
        ("claude-sonnet-4-5", (2_000, 20, 0, 0)))]
    assert all(cost is not None for cost in costs)
    data = report.to_json()
    session = data["usage_by_session"][0]
    assert (session["api_calls"], session["recorded_calls"], session["input_tokens"]) == (3, 2, 16_000)
    assert session["estimated_cost_usd"] == pytest.approx(sum(c.usd for c in costs if c), abs=1e-6)
    assert session["priced_as"] == "claude-sonnet-4-5, claude-haiku-4-5"
    weeks = {w["week"]: w for w in data["usage_by_week"]}
    assert [w["api_calls"] for w in weeks.values()] == [2, 1]  # the rest goes with the session's start
    assert [w["sessions"] for w in weeks.values()] == [1, 1] and data["usage"]["sessions"] == 1
    assert list(weeks.values())[1]["estimated_cost_usd"] == pytest.approx(costs[1].usd, abs=1e-6)
