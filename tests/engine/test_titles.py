"""Auto titles: made once in the background, cleaned, unique, never over a user's title, numbered in lineages."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterator

import pytest

from engine import clock
from engine.events import Notice, TitleChanged
from engine.providers import Provider, RetryPolicy, make_provider
from engine.store import SessionDB
from engine.auto_titles import TITLE_SYSTEM, TitleMaker, clean_title, first_exchange, store_unique_title
from hermes_tui.loopback_llm import HttpError, LoopbackLLM, Reply

EXCHANGE = [
    {"role": "user", "content": "How do I rotate the TLS certs on the staging ingress?"},
    {"role": "assistant", "content": "Use cert-manager: renew the Certificate resource."},
]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SessionDB]:
    clock.set_clock(lambda: 1_795_000_000.0)
    store = SessionDB.open_home(tmp_path / "home")
    yield store
    store.close()
    clock.set_clock(None)


@pytest.fixture
def server() -> Iterator[LoopbackLLM]:
    with LoopbackLLM() as srv:
        yield srv


def maker(db: SessionDB, server: LoopbackLLM) -> TitleMaker:
    provider: Provider = make_provider(
        {"provider": "openai", "name": "title-model", "base_url": server.base_url_openai}, env={},
        retry=RetryPolicy(max_attempts=1, sleep=lambda _s: None),
    )
    return TitleMaker(db, lambda: provider)


def run(titles: TitleMaker, session_id: str, messages=EXCHANGE) -> list:
    events: list = []
    thread = titles.maybe_generate_title(session_id, messages, events.append)
    assert thread is not None and thread.daemon
    assert titles.join(10)
    return events


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('"Rotating Staging TLS Certificates."', "Rotating Staging TLS Certificates"),
        ("Title: Fixing the flaky CI job\nExtra commentary", "Fixing the flaky CI job"),
        ("**迁移支付数据库到 PostgreSQL**", "迁移支付数据库到 PostgreSQL"),
        ("one two three four five six seven eight nine", "one two three four five six seven"),
        ("x" * 120, "x" * 80),
        ("  \n  ", None),
        ('""', None),
    ],
)
def test_clean_title(raw: str, expected: str | None) -> None:
    assert clean_title(raw) == expected


def test_first_exchange_needs_a_reply() -> None:
    assert first_exchange(EXCHANGE[:1]) is None
    tool_turn = [EXCHANGE[0], {"role": "assistant", "content": "", "tool_calls": []}, {"role": "tool", "content": "x"}]
    assert first_exchange(tool_turn) is None
    assert first_exchange(tool_turn + EXCHANGE[1:]) == (EXCHANGE[0]["content"], EXCHANGE[1]["content"])


def test_title_is_generated_once_in_the_background(db, server) -> None:
    server.responder = lambda _req: Reply("Rotating staging TLS certificates")
    sid = db.create_session(source="cli")
    titles = maker(db, server)
    events = run(titles, sid)
    assert events == [TitleChanged(sid, "Rotating staging TLS certificates")]
    assert db.get_session(sid).title == "Rotating staging TLS certificates"
    body = server.requests[0].json
    assert body["messages"][0]["content"] == TITLE_SYSTEM and body["temperature"] <= 0.3
    assert "rotate the TLS certs" in body["messages"][1]["content"]
    assert titles.maybe_generate_title(sid, EXCHANGE * 2, events.append) is None  # titled: no second call
    assert len(server.requests) == 1


def test_a_users_title_is_never_replaced(db, server) -> None:
    sid = db.create_session(source="cli", title="My own name")
    assert maker(db, server).maybe_generate_title(sid, EXCHANGE, lambda _e: None) is None
    assert server.requests == []


def test_user_naming_the_session_meanwhile_wins(db, server) -> None:
    sid = db.create_session(source="cli")
    asked, release = threading.Event(), threading.Event()

    def slow(_req: dict) -> Reply:
        asked.set()
        release.wait(10)
        return Reply("Generated name")

    server.responder = slow
    titles = maker(db, server)
    events: list = []
    assert titles.maybe_generate_title(sid, EXCHANGE, events.append) is not None
    assert asked.wait(10)
    db.set_title(sid, "Chosen by user")
    release.set()
    assert titles.join(10)
    assert db.get_session(sid).title == "Chosen by user" and events == []


def test_generated_titles_are_unique(db, server) -> None:
    db.create_session(source="cli", title="Database migration")
    server.responder = lambda _req: Reply("Database migration")
    sid = db.create_session(source="cli")
    run(maker(db, server), sid)
    assert db.get_session(sid).title == "Database migration (2)"
    assert store_unique_title(db, db.create_session(source="cli"), "Database migration") == "Database migration (3)"


def test_continuations_are_numbered_never_generated(db, server) -> None:
    root = db.create_session(source="cli", title="Payments")
    child = db.create_session(source="cli", parent_session_id=root)
    grandchild = db.create_session(source="cli", parent_session_id=child)
    titles = maker(db, server)
    events: list = []
    assert titles.maybe_generate_title(child, EXCHANGE, events.append) is None
    assert titles.maybe_generate_title(grandchild, EXCHANGE, events.append) is None
    assert events == [TitleChanged(child, "Payments #2"), TitleChanged(grandchild, "Payments #3")]
    assert server.requests == []


def test_a_failed_title_call_is_a_quiet_notice_and_not_retried(db, server) -> None:
    server.push(HttpError(500, "down"))
    sid = db.create_session(source="cli")
    titles = maker(db, server)
    (notice,) = run(titles, sid)
    assert isinstance(notice, Notice) and sid in notice.message and "HTTP 500" in notice.message
    assert db.get_session(sid).title is None
    assert titles.maybe_generate_title(sid, EXCHANGE, lambda _e: None) is None


def test_no_model_or_no_reply_yet_waits_for_a_later_turn(db, server) -> None:
    sid = db.create_session(source="cli")
    assert TitleMaker(db, lambda: None).maybe_generate_title(sid, EXCHANGE, lambda _e: None) is None
    titles = maker(db, server)
    assert titles.maybe_generate_title(sid, EXCHANGE[:1], lambda _e: None) is None
    server.responder = lambda _req: Reply("Later title")
    assert run(titles, sid) == [TitleChanged(sid, "Later title")]
