"""Session search summaries: real SDK against the loopback server, and the raw-excerpt fallback."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Iterator

import pytest

from engine import clock
from engine.providers import Provider, RetryPolicy, make_provider
from engine.session_search import (
    EARLIER_MARKER,
    LATER_MARKER,
    SUMMARY_SYSTEM,
    cut_transcript,
    format_text,
    make_search_tool,
    render_message,
    session_search,
)
from engine.store import SessionDB, StoredMessage
from hermes_tui.loopback_llm import HttpError, LoopbackLLM, Reply

T0 = 1_795_000_000.0  # 2026-11-18 11:06:40 UTC


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SessionDB]:
    clock.set_clock(lambda: T0)
    store = SessionDB.open_home(tmp_path / "home")
    yield store
    store.close()
    clock.set_clock(None)


def add_session(db: SessionDB, title: str | None, texts: list[str], *, source: str = "cli", parent: str | None = None) -> str:
    sid = db.create_session(source=source, title=title, parent_session_id=parent)
    roles = ["user", "assistant"]
    db.append_messages(sid, [{"role": roles[i % 2], "content": t, "timestamp": T0 + i} for i, t in enumerate(texts)])
    return sid


def filler(n: int, start: int = 0) -> list[str]:
    return [f"filler line number {i}" for i in range(start, start + n)]


@pytest.fixture
def server() -> Iterator[LoopbackLLM]:
    with LoopbackLLM() as srv:
        yield srv


def loopback_provider(server: LoopbackLLM, attempts: int = 2) -> Provider:
    retry = RetryPolicy(max_attempts=attempts, sleep=lambda _s: None, jitter=lambda: 0.0, clock=lambda: 0.0)
    return make_provider({"provider": "openai", "name": "aux-model", "base_url": server.base_url_openai}, env={}, retry=retry)


def echo_title(request: dict) -> Reply:
    """Summarize by naming the session the request is about (so the pairing can be checked)."""
    prompt = request["messages"][-1]["content"]
    heading = prompt.splitlines()[1]
    return Reply(f"Summary of {heading}")


@pytest.fixture
def corpus(db: SessionDB) -> dict[str, str]:
    ids = {
        "pg": add_session(db, "Postgres migration", filler(4) + ["we migrate the payments database to postgres", "done: pg_dump then restore"]),
        "docker": add_session(db, "Docker setup", ["docker compose for postgres please", "here is the compose file"]),
        "hidden": add_session(db, "tool run", ["postgres tool output"], source="tool"),
        "current": add_session(db, "Current work", ["postgres again now"]),
    }
    ids["current_cont"] = add_session(db, None, ["postgres in continuation"], parent=ids["current"])
    return ids


def test_summaries_come_back_per_session_and_skip_current_and_hidden(db, corpus, server) -> None:
    server.responder = echo_title
    result = session_search(db, "postgres", provider=loopback_provider(server), current_session_id=corpus["current_cont"])
    found = {f.session_id: f for f in result.sessions}
    assert set(found) == {corpus["pg"], corpus["docker"]}
    assert found[corpus["pg"]].summary == "Summary of Session: Postgres migration (2026-11-18 11:06 UTC)"
    assert found[corpus["docker"]].summary.startswith("Summary of Session: Docker setup")
    assert all(f.kind == "summary" and f.error is None for f in result.sessions)
    bodies = [r.json for r in server.requests]
    assert len(bodies) == 2
    assert all(b["temperature"] <= 0.2 and b["messages"][0]["content"] == SUMMARY_SYSTEM for b in bodies)
    assert all("Search: postgres" in b["messages"][1]["content"] for b in bodies)
    payload = result.to_json()
    assert payload["sessions_found"] == 2 and payload["results"][0]["excerpt"] is None
    json.dumps(payload)  # the --json shape is serializable


def test_a_failing_model_falls_back_to_match_plus_minus_five_messages(db, server) -> None:
    texts = filler(15) + ["the kubernetes ingress fix"] + filler(15, start=16)
    sid = add_session(db, "Ingress", texts)
    server.responder = lambda _req: HttpError(500, "boom")
    result = session_search(db, "kubernetes", provider=loopback_provider(server), current_session_id=None)
    (finding,) = result.sessions
    assert finding.session_id == sid and finding.kind == "excerpt" and finding.summary is None
    assert "HTTP 500" in (finding.error or "")
    assert "filler line number 10" in finding.excerpt and "filler line number 20" in finding.excerpt
    assert "number 9\n" not in finding.excerpt + "\n" and "filler line number 21" not in finding.excerpt
    assert "(no summary:" in format_text(result) and "kubernetes ingress" in format_text(result)


def test_one_failure_does_not_cost_the_other_summaries(db, corpus, server) -> None:
    server.responder = lambda req: HttpError(500) if "Docker" in req["messages"][-1]["content"] else echo_title(req)
    result = session_search(db, "postgres", provider=loopback_provider(server, attempts=1), current_session_id=None)
    kinds = {f.title: f.kind for f in result.sessions}
    assert kinds["Docker setup"] == "excerpt" and kinds["Postgres migration"] == "summary"


def test_no_model_gives_excerpts_and_a_reason(db, corpus) -> None:
    result = session_search(db, "payments", provider=None, current_session_id=None)
    (finding,) = result.sessions
    assert finding.kind == "excerpt" and finding.error == "no auxiliary model is available"
    assert "payments database" in finding.excerpt


def test_summaries_run_in_parallel(db, server) -> None:
    for n in range(3):
        add_session(db, f"Redis {n}", [f"redis cache eviction case {n}", "answer"])
    barrier = threading.Barrier(3, timeout=10)

    def all_three_at_once(request: dict) -> Reply:
        barrier.wait()  # breaks (and the call fails) unless three requests are in flight together
        return echo_title(request)

    server.responder = all_three_at_once
    result = session_search(db, "redis", provider=loopback_provider(server, attempts=1), current_session_id=None)
    assert [f.kind for f in result.sessions] == ["summary"] * 3


def test_a_slow_summary_times_out_into_an_excerpt(db, server) -> None:
    add_session(db, "Slow", ["graphql schema question", "answer"])
    release = threading.Event()
    server.responder = lambda req: (release.wait(10), echo_title(req))[1]
    try:
        result = session_search(db, "graphql", provider=loopback_provider(server), current_session_id=None, timeout_s=0.2)
    finally:
        release.set()
    assert result.sessions[0].kind == "excerpt" and "timed out after 0.2s" in (result.sessions[0].error or "")


def test_lineage_is_one_result_and_sessions_are_capped(db) -> None:
    root = add_session(db, "Lineage", ["elastic search tuning"])
    add_session(db, "Lineage #2", ["more elastic search tuning"], parent=root)
    for n in range(6):
        add_session(db, f"Other {n}", [f"elastic node {n}"])
    result = session_search(db, "elastic", provider=None, current_session_id=None, limit_sessions=99)
    assert len(result.sessions) == 5
    assert len({f.lineage_root for f in result.sessions}) == 5


def test_no_match_is_a_friendly_empty_result(db, corpus) -> None:
    result = session_search(db, "zeppelin", provider=None, current_session_id=None)
    assert result.sessions == [] and format_text(result) == "No earlier sessions match 'zeppelin'."


def message(mid: int, role: str, content: str, **extra) -> StoredMessage:
    return StoredMessage(id=mid, session_id="s", role=role, content=content, timestamp=T0, **extra)


def test_cut_transcript_centres_on_the_match_with_markers() -> None:
    messages = [message(i, "user", f"m{i:03d} " + "x" * 200) for i in range(200)]
    text = cut_transcript(messages, [100], max_chars=5_000)
    assert text.startswith(EARLIER_MARKER) and text.endswith(LATER_MARKER)
    assert "m100" in text and "m000" not in text and "m199" not in text
    body = text.removeprefix(EARLIER_MARKER + "\n\n").removesuffix("\n\n" + LATER_MARKER)
    assert len(body) == 5_000
    assert abs(body.index("m100") - 2_500) < 300  # centred


def test_cut_transcript_keeps_a_short_session_whole_and_trims_tool_output() -> None:
    messages = [
        message(1, "user", "run it"),
        message(2, "assistant", "", tool_calls=[{"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{}"}}]),
        message(3, "tool", "HEAD" + "y" * 10_000 + "TAIL", tool_name="shell"),
    ]
    text = cut_transcript(messages, [1], max_chars=100_000)
    assert EARLIER_MARKER not in text and "[called shell({})]" in text
    assert "HEAD" in text and "TAIL" in text and "chars trimmed" in text and len(text) < 3_000
    assert render_message({"role": "tool", "content": "ok"}) == "[TOOL]: ok"


def test_search_tool_for_the_agent(db, corpus, server) -> None:
    server.responder = echo_title
    tool = make_search_tool(db, lambda: loopback_provider(server), lambda: corpus["current"])
    out = tool({"query": "payments", "limit": 1})
    assert out["success"] is True and out["results"][0]["title"] == "Postgres migration"
    with pytest.raises(ValueError, match="query is empty"):
        tool({"query": "  "})
