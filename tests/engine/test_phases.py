"""The engine says what it is busy with (``Phase`` events), so a UI can name a long wait.

Each phase carries its start from the engine's clock; the order below is what the status bar
follows: waiting for the model, streaming, a tool, a retry's pause, compression.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from engine.config import load_config
from engine.events import Phase, ToolCallStarted
from engine.providers import RetryPolicy, make_provider
from hermes_tui.loopback_llm import HttpError, LoopbackLLM, Reply, ToolCallSpec
from tests.engine.test_agent import Events, llm, make_home, start  # noqa: F401 - llm is the fixture


def phases(events: Events) -> list[tuple]:
    return [(p.kind, p.detail, p.attempt, p.attempts) for p in events.of(Phase)]


def test_a_turn_with_a_tool_call_reports_each_phase(tmp_path: Path, llm: LoopbackLLM, fixed_clock: float) -> None:
    home = make_home(tmp_path, llm)
    search = json.dumps({"query": "decorators"})
    llm.push(Reply(tool_calls=[ToolCallSpec("memory", "{}", id="m"), ToolCallSpec("session_search", search, id="s")]),
             Reply(text="Found it."))
    agent, _ = start(home)
    events = Events()
    agent.run_turn("what did we say?", events)
    assert phases(events) == [
        ("waiting", "", 1, 4), ("streaming", "", 0, 0),
        ("tool", "memory", 0, 0), ("summarizing", "session_search", 0, 0),
        ("waiting", "", 1, 4), ("streaming", "", 0, 0),
    ]
    assert all(p.started_at == fixed_clock and not p.background for p in events.of(Phase))
    tool_phase = events.index(next(p for p in events.of(Phase) if p.kind == "tool"))
    assert isinstance(events[tool_phase + 1], ToolCallStarted)  # the phase comes before the call it names


def test_a_retry_says_how_long_it_waits_and_which_attempt_follows(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm)
    llm.push(HttpError(503, retry_after=3), Reply(text="Back."))
    no_wait = RetryPolicy(sleep=lambda _s: None)
    agent, _ = start(home, provider=make_provider(load_config(home).section("model"), retry=no_wait))
    events = Events()
    agent.run_turn("hi", events)
    assert phases(events) == [("waiting", "", 1, 4), ("retrying", "", 2, 4), ("waiting", "", 2, 4),
                              ("streaming", "", 0, 0)]
    assert [p.wait_s for p in events.of(Phase) if p.kind == "retrying"] == [3.0]


def test_compress_reports_its_phase(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm, compression={"protect_first_n": 1, "protect_last_n": 2},
                     memory={"memory_enabled": False, "user_profile_enabled": False})
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["model"]["context_length"] = 8_000  # a small window: four long turns leave a middle to compress
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    llm.push(*[Reply(text=f"answer {n} " + "detail " * 300) for n in range(4)])
    llm.responder = lambda _body: Reply(text="## Goal\nsummary")
    agent, _ = start(home)
    for n in range(4):
        agent.run_turn(f"question {n}", Events())
    events = Events()
    agent.compress(None, events)
    assert [p.kind for p in events.of(Phase)][:1] == ["compressing"]
