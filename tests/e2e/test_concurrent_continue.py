"""Several ``chat -q -c`` at once on one long conversation: a linear lineage and whole turns.

Each trial's session is over the compression threshold already, so every process's turn tries
to rotate the same parent. Real processes (``python -m hermes_tui``) against one loopback
model whose replies name the message they answer; the trials run side by side.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.agent import Agent
from engine.config import load_config
from engine.events import Notice, SessionSwitched
from engine.store import LineageMoved, SessionDB
from hermes_tui.loopback_llm import LoopbackLLM, Reply

PROCESSES, TRIALS = 4, 2
WINDOW = 8000
SEED_TURNS = 24  # with WINDOW, the first request of any turn is over the 0.5 threshold
FILLER = "the migration continues with more detail. " * 12


def responder(body: dict) -> Reply:
    if not body.get("tools"):  # the summarizer's call
        return Reply(text="## Goal\nKeep the migration moving.\n## Remaining Work\nMore turns.")
    last_user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return Reply(text=f"Reply to <{last_user}>: {FILLER}")


def long_home(tmp_path: Path, llm: LoopbackLLM, name: str) -> tuple[Path, str]:
    """A home whose one session is already over the compression threshold; and that session."""
    home = tmp_path / name
    home.mkdir()
    config = {
        "model": {"provider": "openai", "name": "tiny", "base_url": llm.base_url_openai, "context_length": WINDOW},
        "compression": {"threshold": 0.5, "target_ratio": 0.3, "protect_first_n": 2, "protect_last_n": 4},
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    with SessionDB.open_home(home) as db:
        sid = db.create_session(source="cli", model="tiny", system_prompt="You are a test.", title="Migration")
        for n in range(SEED_TURNS):
            db.append_messages(sid, [{"role": "user", "content": f"seed {n}"},
                                     {"role": "assistant", "content": f"Reply to <seed {n}>: {FILLER}"}])
    return home, sid


def start(home: Path, text: str) -> tuple[subprocess.Popen, Path]:
    """``chat -c -q TEXT`` in its own process; output to a file, so no pipe can fill and stall it."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    log = home.parent / f"{text}.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-c", "-q", text],
                                stdout=out, stderr=subprocess.STDOUT, env=env)
    return proc, log


def rows_by_session(home: Path) -> dict[str, list[tuple[int, str, str]]]:
    conn = sqlite3.connect(home / "state.db")
    rows = conn.execute("SELECT session_id, id, role, content FROM messages ORDER BY id").fetchall()
    conn.close()
    out: dict[str, list[tuple[int, str, str]]] = {}
    for sid, mid, role, content in rows:
        out.setdefault(sid, []).append((mid, role, str(content)))
    return out


def sessions(home: Path) -> list[tuple[str, str | None, str | None]]:
    conn = sqlite3.connect(home / "state.db")
    rows = conn.execute("SELECT id, parent_session_id, end_reason FROM sessions").fetchall()
    conn.close()
    return rows


def split_turns(rows: list[tuple[int, str, str]]) -> list[str]:
    """Where a user row is not answered by the very next row: "<user> then <next>"."""
    problems = []
    for (_, role, content), following in zip(rows, [*rows[1:], None]):
        if role == "user" and not content.startswith("[CONTEXT"):
            if following is None or not following[2].startswith(f"Reply to <{content}>"):
                problems.append(f"{content!r} then {following[2][:30] if following else 'nothing'!r}")
    return problems


def check_trial(home: Path, results: dict[str, tuple[int, str]]) -> None:
    by_session = rows_by_session(home)
    children: dict[str, list[str]] = {}
    for sid, parent, _reason in sessions(home):
        if parent:
            children.setdefault(parent, []).append(sid)
    assert all(len(kids) == 1 for kids in children.values()), f"{home.name}: a forked lineage {children}"
    for parent, (child,) in children.items():  # nothing was added to a parent after its continuation
        assert max(r[0] for r in by_session.get(parent, [(0, "", "")])) < min(r[0] for r in by_session[child])
    for sid, rows in by_session.items():
        assert not split_turns(rows), f"{home.name}: turns interleaved in {sid}: {split_turns(rows)}"
    stored = {content for rows in by_session.values() for _, _, content in rows}
    for text, (code, output) in results.items():
        if code == 0:
            assert text in stored, f"{text}: exit 0 but its message was not stored"
        else:  # the one refusal left: its view went stale before it could write; it wrote nothing
            assert code == 1 and "by another process" in output and text not in stored, (text, code, output)


def test_concurrent_continues_keep_one_lineage_and_whole_turns(tmp_path: Path) -> None:
    with LoopbackLLM(responder=responder) as llm:
        homes = [long_home(tmp_path, llm, f"trial{t}")[0] for t in range(TRIALS)]
        texts = [(home, f"t{t}p{k}") for t, home in enumerate(homes) for k in range(PROCESSES)]
        running = {(home, text): start(home, text) for home, text in texts}
        results: dict[Path, dict[str, tuple[int, str]]] = {home: {} for home in homes}
        for (home, text), (proc, log) in running.items():
            results[home][text] = (proc.wait(timeout=120), log.read_text())
    for home in homes:
        check_trial(home, results[home])
    assert sum(code == 0 for r in results.values() for code, _ in r.values()) >= TRIALS


class Events(list):
    def __call__(self, event: Any) -> None:
        self.append(event)


def two_agents(tmp_path: Path, llm: LoopbackLLM) -> tuple[SessionDB, str, Agent, Agent]:
    """Two agents (as two processes would be) continuing the same long session."""
    home, sid = long_home(tmp_path, llm, "home")
    db = SessionDB.open_home(home)
    first, second = (Agent.start(load_config(home), db, resume=sid, source="cli", cwd=home) for _ in range(2))
    return db, sid, first, second


def test_a_rotation_of_a_parent_already_continued_is_refused_and_follows_the_tip(tmp_path: Path) -> None:
    with LoopbackLLM(responder=responder) as llm:
        db, sid, first, second = two_agents(tmp_path, llm)
        first.compress(None, Events())
        tip = first.session_id
        assert tip != sid and db.require_session(sid).end_reason == "compression"
        events = Events()
        second.compress(None, events)
        assert [s for s in db.list_sessions(limit=0) if s.parent_session_id == sid] == [db.require_session(tip)]
        assert second.session_id == tip and second.messages == db.load_transcript(tip)
        assert any(isinstance(e, SessionSwitched) and e.new_session_id == tip for e in events)
        assert any(isinstance(e, Notice) and "ended by another process" in e.message for e in events)
        second.run_turn("after following", Events())
        assert db.load_transcript(tip)[-2]["content"] == "after following"


def test_a_rotation_from_a_view_missing_anothers_turn_is_refused(tmp_path: Path) -> None:
    with LoopbackLLM(responder=responder) as llm:
        db, sid, first, second = two_agents(tmp_path, llm)
        first.compressor.settings = replace(first.compressor.settings, enabled=False)
        first.run_turn("only first knows", Events())
        events = Events()
        second.compress(None, events)
        assert second.session_id == sid and len(db.list_sessions(limit=0)) == 1  # nothing forked
        assert db.require_session(sid).ended_at is None
        assert "only first knows" in [m["content"] for m in second.messages]  # now seen, from the store
        assert any(isinstance(e, Notice) and "another process wrote" in e.message for e in events)


def test_a_turn_into_a_session_compressed_meanwhile_is_refused_with_nothing_written(tmp_path: Path) -> None:
    with LoopbackLLM(responder=responder) as llm:
        db, sid, first, second = two_agents(tmp_path, llm)
        first.compress(None, Events())
        before = {s.id: db.load_transcript(s.id) for s in db.list_sessions(limit=0)}
        with pytest.raises(LineageMoved, match="compressed into") as refusal:
            second.run_turn("stale view", Events())
        assert refusal.value.tip == first.session_id and refusal.value.exit_code == 1
        assert {s.id: db.load_transcript(s.id) for s in db.list_sessions(limit=0)} == before
        second.close()  # ending still works: the refused row is not retried
        assert db.require_session(sid).end_reason == "compression"
