"""``hermes-tui search QUERY --summarize``: summaries from the auxiliary model, excerpts without one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from engine.store import SessionDB
from hermes_tui.cli import main
from hermes_tui.loopback_llm import LoopbackLLM, Reply


@pytest.fixture
def server() -> Iterator[LoopbackLLM]:
    with LoopbackLLM() as srv:
        yield srv


@pytest.fixture
def home(tmp_path: Path, fixed_clock: float) -> Path:
    home = tmp_path / "home"
    db = SessionDB.open_home(home)
    for title, text in [("Postgres move", "we moved payments to postgres"), ("Cache", "redis in front of postgres")]:
        sid = db.create_session(source="cli", title=title)
        db.append_messages(sid, [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}])
    db.close()
    return home


def point_at(home: Path, server: LoopbackLLM) -> None:
    (home / "config.yaml").write_text(
        f"model: {{provider: openai, name: main-model, base_url: '{server.base_url_openai}'}}\n", encoding="utf-8"
    )


def test_summarize_json_uses_the_model(home, server, capsys) -> None:
    point_at(home, server)
    server.responder = lambda req: Reply("Summary: " + req["messages"][-1]["content"].splitlines()[1])
    assert main(["--home", str(home), "search", "postgres", "--summarize", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["query"] == "postgres" and payload["sessions_found"] == 2
    assert {r["title"] for r in payload["results"]} == {"Postgres move", "Cache"}
    assert all(r["kind"] == "summary" and r["summary"].startswith("Summary: Session: ") for r in payload["results"])
    assert len(server.requests) == 2


def test_summarize_without_a_key_prints_excerpts_and_a_note(home, capsys, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["--home", str(home), "search", "payments", "--summarize"]) == 0
    captured = capsys.readouterr()
    assert "Postgres move" in captured.out and "we moved payments to postgres" in captured.out
    assert "(no summary: no auxiliary model is available; raw excerpts)" in captured.out
    assert "auxiliary.session_search is unavailable" in captured.err and "ANTHROPIC_API_KEY" in captured.err


def test_summarize_limit_caps_sessions(home, server, capsys) -> None:
    point_at(home, server)
    server.responder = lambda _req: Reply("a summary")
    assert main(["--home", str(home), "search", "postgres", "--summarize", "--limit", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sessions_found"] == 1


def test_plain_search_is_unchanged_by_the_flag_existing(home, capsys) -> None:
    assert main(["--home", str(home), "search", "postgres", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert isinstance(hits, list) and len(hits) == 2 and {"session_id", "snippet"} <= set(hits[0])
