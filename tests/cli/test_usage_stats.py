"""``sessions stats``: token, cache and cost totals per session and per week, beside the old keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import clock
from engine.pricing import DEFAULT_PRICES, PRICES_AS_OF, Pricer
from engine.store import SessionDB
from hermes_tui.cli import main
from tests.conftest import FIXED_NOW

WEEK = 7 * 86400
OLD_KEYS = {"sessions", "messages", "by_source", "db_bytes", "oldest", "newest"}


def seed(home: Path) -> None:
    """Three weeks ago a Sonnet session at Anthropic; this week one on a local server, one of an
    unpriced model, and one with no calls at all (it is left out)."""
    with SessionDB.open_home(home) as db:
        clock.set_clock(lambda: FIXED_NOW - 3 * WEEK)
        sonnet = db.create_session(model="claude-sonnet-4-5", title="Sonnet work")
        db.add_usage(sonnet, input_tokens=10_000, output_tokens=500, cache_read_tokens=8_000,
                     cache_write_tokens=1_000, api_calls=2, billing_provider="anthropic")
        clock.set_clock(lambda: FIXED_NOW)
        local = db.create_session(model="gpt-4o", title="Local")
        db.add_usage(local, input_tokens=4_000, output_tokens=100, cache_read_tokens=3_000, api_calls=1,
                     billing_provider="openai", billing_base_url="http://127.0.0.1:11434/v1")
        odd = db.create_session(model="llama3.1:8b", title="Unpriced")
        db.add_usage(odd, input_tokens=1_000, output_tokens=10, api_calls=1, billing_provider="openai",
                     billing_base_url="https://llm.example.com/v1")
        db.create_session(title="Nothing said")


def run(home: Path, *args: str) -> int:
    return main(["--home", str(home), *args])


@pytest.mark.usefixtures("fixed_clock")
def test_stats_json_keeps_its_keys_and_adds_usage_per_session_and_week(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    seed(tmp_path)
    assert run(tmp_path, "sessions", "stats", "--json") == 0
    stats = json.loads(capsys.readouterr().out)
    assert OLD_KEYS <= set(stats) and stats["sessions"] == 4
    sonnet_cost = Pricer("claude-sonnet-4-5", DEFAULT_PRICES["claude-sonnet-4-5"]).cost(10_000, 500, 8_000, 1_000)
    assert sonnet_cost is not None
    usage = stats["usage"]
    assert usage["sessions"] == 3 and usage["api_calls"] == 4 and usage["unpriced_sessions"] == 1
    assert usage["input_tokens"] == 15_000 and usage["cache_read_tokens"] == 11_000
    assert usage["cached_share"] == round(11_000 / 15_000, 4) and usage["prices_as_of"] == PRICES_AS_OF
    assert usage["estimated_cost_usd"] == pytest.approx(sonnet_cost.usd)  # the local server cost nothing
    assert usage["saved_usd"] == pytest.approx(sonnet_cost.saved_usd)
    by_id = {s["title"]: s for s in stats["usage_by_session"]}
    assert set(by_id) == {"Sonnet work", "Local", "Unpriced"}
    assert by_id["Local"]["priced_as"] == "local server" and by_id["Local"]["estimated_cost_usd"] == 0
    assert by_id["Unpriced"]["estimated_cost_usd"] is None and by_id["Unpriced"]["priced_as"] is None
    assert by_id["Sonnet work"]["cached_share"] == 0.8
    weeks = stats["usage_by_week"]
    assert [w["week"] for w in weeks] == ["2026-W46", "2026-W49"]
    assert [w["sessions"] for w in weeks] == [1, 2] and weeks[1]["estimated_cost_usd"] == 0


@pytest.mark.usefixtures("fixed_clock")
def test_stats_human_output_shows_weeks_and_recent_sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(tmp_path)
    assert run(tmp_path, "sessions", "stats") == 0
    out = capsys.readouterr().out
    assert f"as of {PRICES_AS_OF}" in out and "1 session(s) of models with no price" in out
    assert "4 of 4 calls are not in the request log" in out  # seeded on the tally only, as upstream writes
    assert "\n2026-W46 " in out and "\n2026-W49 " in out
    lines = out.splitlines()
    recent = lines[next(i for i, line in enumerate(lines) if line.startswith("Session (3 most recent)")) + 2:]
    names = [line.split()[0] for line in recent[:3]]
    assert set(names) == {"Unpriced", "Local", "Sonnet"} and names[-1] == "Sonnet"  # newest first
    assert any("80%" in line and "$" in line for line in recent if line.startswith("Sonnet"))


def test_stats_with_no_calls_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with SessionDB.open_home(tmp_path) as db:
        db.create_session(title="quiet")
    assert run(tmp_path, "sessions", "stats") == 0
    assert "no model calls recorded yet" in capsys.readouterr().out


def test_stats_with_a_malformed_price_table_exits_2_naming_the_key(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    seed(tmp_path)
    (tmp_path / "config.yaml").write_text("pricing:\n  models:\n    gpt-4o: {input: free}\n", encoding="utf-8")
    assert run(tmp_path, "sessions", "stats") == 2
    err = capsys.readouterr().err
    assert "pricing.models.gpt-4o.input is 'free'" in err and err.count("\n") == 1


@pytest.mark.usefixtures("fixed_clock")
def test_stats_use_the_request_log_where_it_holds_the_calls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A session whose model changed: each recorded call is priced by its own model; the keys
    stay, ``recorded_calls`` is added."""
    from engine.pricing import PriceTable
    from engine.providers import ChatRequest, TokenUsage
    from engine.usage import Billing, UsageMeter

    table = PriceTable.from_settings({}, True)
    request = ChatRequest(system="s", messages=[{"role": "user", "content": "hi"}])
    with SessionDB.open_home(tmp_path) as db:
        sid = db.create_session(model="claude-sonnet-4-5", title="Switched")
        for model in ("claude-sonnet-4-5", "claude-opus-4-1"):
            billing = Billing("anthropic", None, table.pricer(model, None), model, table)
            UsageMeter(db, 8000, billing).record(sid, TokenUsage(10_000, 100, 5_000), request, recall=False)
    assert run(tmp_path, "sessions", "stats", "--json") == 0
    stats = json.loads(capsys.readouterr().out)
    expected = sum(table.pricer(m, None).cost(10_000, 100, 5_000, 0).usd  # type: ignore[union-attr]
                   for m in ("claude-sonnet-4-5", "claude-opus-4-1"))
    assert OLD_KEYS <= set(stats) and stats["usage"]["recorded_calls"] == 2
    session = stats["usage_by_session"][0]
    assert session["estimated_cost_usd"] == pytest.approx(expected, abs=1e-6) and session["api_calls"] == 2
    assert session["priced_as"] == "claude-sonnet-4-5, claude-opus-4-1"
    assert stats["usage_by_week"][0]["recorded_calls"] == 2
    assert run(tmp_path, "sessions", "stats") == 0
    assert "not in the request log" not in capsys.readouterr().out
