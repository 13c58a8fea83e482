"""Prefix stability: how much of each request is a byte-identical prefix of the one before.

A scripted 30-turn session through the loopback model (real ``openai`` SDK): memory writes
mid-session, tool calls with and without provider ids, a ``chat -c`` resume in a new process
halfway, with recall off and with the ``local`` recall provider on every turn. For every request
we compare its cache-order bytes (tools, system, then each message — the order providers cache
in) with the previous request's, and check the targets of issue 4:

* system prompt and tool schemas byte-identical in 100 % of requests;
* the common prefix reaches at least the start of the previous request's last user message.

Beside them, a naive baseline built from the same transcripts: system prompt rebuilt every turn
from live memory with the recall in it, and random ids for tool calls the provider sent without.

Also: ``chat -q`` start-up wall time against the loopback model, and last byte → exit.

Run: ``.venv/bin/python -m bench.bench_prefix`` (about a minute). The report is printed and appended
to the bench's history, ``bench/results/prefix.md``; ``bench/RESULTS.md`` is updated by hand.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import yaml

from bench.record import append_run
from engine.agent import Agent
from engine.config import load_config
from engine.memory import MemoryStore
from engine.prompt.prefix import cache_order, common_prefix_len
from engine.store import SessionDB
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec

ROOT = Path(__file__).resolve().parents[1]
TURNS = 30
RESUME_TURN = 15
HISTORY_TOPICS = ["postgres migration", "terraform staging deploy", "grafana latency dashboard",
                  "rust axum router", "python decorators"]


def is_conversation(body: dict) -> bool:
    return any(t["function"]["name"] == "session_search" for t in body.get("tools") or [])


def user_turns(body: dict) -> int:
    return sum(1 for m in body["messages"] if m["role"] == "user")


def responder(body: dict) -> Any:
    """Turn n: memory write every 5th, search without id every 5th+1, two id-less calls every 7th."""
    if body["messages"][-1]["role"] == "tool":
        return Reply(text="Done — here is what I found and changed.")
    n = user_turns(body)
    if n % 5 == 2:
        args = json.dumps({"action": "add", "target": "memory", "content": f"Fact number {n}: the team deploys on Thursdays"})
        return Reply(tool_calls=[ToolCallSpec("memory", args, id=f"call_mem_{n}")])
    if n % 5 == 3:
        return Reply(tool_calls=[ToolCallSpec("session_search", json.dumps({"query": "migration"}))])
    if n % 7 == 0:
        return Reply(tool_calls=[ToolCallSpec("session_search", json.dumps({"query": "terraform"})),
                                 ToolCallSpec("session_search", json.dumps({"query": "grafana"}))])
    return Reply(text=f"Answer to turn {n}: " + "details " * 40)


def seed_history(home: Path) -> None:
    with SessionDB.open_home(home) as db:
        for i, topic in enumerate(HISTORY_TOPICS):
            sid = db.create_session(title=f"Earlier {i}")
            db.append_messages(sid, [{"role": "user", "content": f"Help with the {topic} please"},
                                     {"role": "assistant", "content": f"Notes on {topic}: step one, step two."}])
            db.end_session(sid, "user_exit")


def cache_order_bytes(body: dict, system_override: str | None = None, id_map: dict | None = None) -> bytes:
    """Tools, then system, then messages, the order a prompt cache sees (``engine.prompt.prefix``)."""
    messages = body["messages"]
    system = messages[0]["content"] if system_override is None else system_override
    rest = [rewrite_ids(m, id_map) if id_map else m for m in messages[1:]]
    return cache_order(body.get("tools", []), system, rest).data


def rewrite_ids(message: dict, id_map: dict) -> dict:
    text = json.dumps(message)
    for old, new in id_map.items():
        text = text.replace(old, new)
    return json.loads(text)


def last_user_offset(body: dict) -> int:
    """Byte offset where the last user message starts in ``cache_order_bytes`` output."""
    messages = body["messages"]
    start = cache_order(body.get("tools", []), messages[0]["content"], messages[1:]).last_user_start()
    assert start is not None, "a conversation request holds a user message"
    return start


def run_session(recall: bool, work: Path) -> tuple[list[dict], list[str]]:
    """Drive the 30 turns; return the request bodies and the live memory text at each request."""
    home = work / ("home_recall" if recall else "home_plain")
    home.mkdir(parents=True)
    seed_history(home)
    with LoopbackLLM(responder=responder) as llm:
        config = {"model": {"provider": "openai", "name": "bench-model", "base_url": llm.base_url_openai},
                  "memory": {"provider": "local" if recall else "", "memory_char_limit": 20000}}
        (home / "config.yaml").write_text(yaml.safe_dump(config))
        memory = MemoryStore.from_config(load_config(home))
        live_memory: list[str] = []
        seen = 0

        def note_memory() -> None:
            nonlocal seen
            while seen < len(llm.requests):
                live_memory.append(memory.load_snapshot().render())
                seen += 1

        def turn_events(_event: Any) -> None:
            note_memory()

        db = SessionDB.open_home(home)
        agent = Agent.start(load_config(home), db, source="cli", cwd=home)
        for turn in range(1, TURNS + 1):
            if turn == RESUME_TURN:
                agent.close()
                env = {**os.environ, "PYTHONPATH": str(ROOT)}
                subprocess.run([sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-c", "-q",
                                f"Turn {turn}: resumed in another process"], check=True, env=env,
                               capture_output=True)
                note_memory()
                agent = Agent.start(load_config(home), db, continue_title="", source="cli", cwd=home)
                continue
            agent.run_turn(f"Turn {turn}: tell me about the {HISTORY_TOPICS[turn % 5]} again", turn_events)
            note_memory()
        agent.close()
        db.close()
        # The conversation's own requests offer session_search; titles, search summaries and
        # memory reviews are separate background calls with their own prefixes.
        pairs = [(r.json, memory_text) for r, memory_text in zip(llm.requests, live_memory) if is_conversation(r.json)]
        return [body for body, _ in pairs], [memory_text for _, memory_text in pairs]


def measure(bodies: list[dict], live_memory: list[str]) -> dict[str, Any]:
    ratios, naive_ratios = [], []
    same_system = same_tools = reaches_user = 0
    previous: tuple[dict, bytes] | None = None
    previous_naive: bytes | None = None
    for body, memory_text in zip(bodies, live_memory):
        encoded = cache_order_bytes(body)
        # Naive: prompt rebuilt from live memory + recall in it; id-less calls re-randomized each request.
        recall = "".join(m["content"].split("<memory-context>", 1)[1] for m in body["messages"][1:]
                         if m["role"] == "user" and isinstance(m["content"], str) and "<memory-context>" in m["content"])
        id_map = {m_id: f"call_{uuid.uuid4().hex[:12]}" for m in body["messages"] for m_id in
                  [c["id"] for c in m.get("tool_calls") or []] if not m_id.startswith("call_mem_")}
        naive = cache_order_bytes(body, system_override=body["messages"][0]["content"] + memory_text + recall, id_map=id_map)
        if previous is not None:
            prev_body, prev_encoded = previous
            same_system += prev_body["messages"][0]["content"] == body["messages"][0]["content"]
            same_tools += json.dumps(prev_body.get("tools")) == json.dumps(body.get("tools"))
            common = common_prefix_len(prev_encoded, encoded)
            ratios.append(common / len(prev_encoded))
            reaches_user += common >= last_user_offset(prev_body)
            assert previous_naive is not None
            naive_ratios.append(common_prefix_len(previous_naive, naive) / len(previous_naive))
        previous, previous_naive = (body, encoded), naive
    pairs = len(ratios)
    return {
        "requests": len(bodies), "pairs": pairs,
        "system_identical": f"{same_system}/{pairs}", "tools_identical": f"{same_tools}/{pairs}",
        "prefix_reaches_last_user": f"{reaches_user}/{pairs}",
        "mean_ratio": statistics.mean(ratios), "min_ratio": min(ratios),
        "naive_mean_ratio": statistics.mean(naive_ratios),
    }


def user_env() -> dict[str, str]:
    """This machine's environment with Python's bytecode cache on, as a user's Python has it
    (the machine sets ``PYTHONDONTWRITEBYTECODE=1``, which recompiles the project every run)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def sdk_import_s(runs: int = 7) -> float:
    """Median wall time of a fresh Python that imports ``openai`` and exits (no teardown, like
    ``hermes-tui``): the floor under any ``chat -q`` with the OpenAI provider."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import os, openai; os._exit(0)"], check=True, env=user_env())
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def chat_startup(work: Path) -> dict[str, float]:
    """Wall time of a one-line ``chat -q`` turn in a fresh process, and last byte → exit."""
    home = work / "home_startup"
    home.mkdir()
    with LoopbackLLM(responder=lambda _b: Reply(text="ok")) as llm:
        (home / "config.yaml").write_text(yaml.safe_dump(
            {"model": {"provider": "openai", "name": "bench-model", "base_url": llm.base_url_openai}}))
        exe = str(Path(sys.executable).with_name("hermes-tui"))
        walls, tails = [], []
        for run in range(8):
            started = time.perf_counter()
            proc = subprocess.Popen([exe, "--home", str(home), "chat", "-q", "hi"], stdout=subprocess.PIPE,
                                    env=user_env())
            assert proc.stdout is not None
            proc.stdout.read(2)  # the reply's first bytes ("ok")
            last_byte = time.perf_counter()
            proc.wait()
            ended = time.perf_counter()
            if run:  # the first run writes the bytecode cache
                walls.append(ended - started)
                tails.append(ended - last_byte)
    return {"wall_median_s": statistics.median(walls), "wall_min_s": min(walls),
            "last_byte_to_exit_median_ms": statistics.median(tails) * 1000, "sdk_import_s": sdk_import_s()}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        plain = measure(*run_session(False, work))
        recall = measure(*run_session(True, work))
        startup = chat_startup(work)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    machine = f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}"
    lines = [
        "# Prefix stability and `chat -q` start-up (issue 4)", "",
        f"`bench/bench_prefix.py` — {stamp}, {machine}.", "",
        f"A {TURNS}-turn scripted session through the loopback model (OpenAI wire format, real `openai` SDK):",
        "memory writes every 5 turns, `session_search` calls without provider ids (single and parallel),",
        f"and turn {RESUME_TURN} run as `hermes-tui chat -c -q` in a separate process. Bytes compared in cache order",
        "(tools, system, messages). Ratio = common prefix with the previous request ÷ previous request length.", "",
        "| measure | recall off | recall on every turn (`local`) |", "|---|---|---|",
    ]
    for key in ("requests", "system_identical", "tools_identical", "prefix_reaches_last_user"):
        lines.append(f"| {key.replace('_', ' ')} | {plain[key]} | {recall[key]} |")
    lines.append(f"| mean prefix ratio | {plain['mean_ratio']:.3f} | {recall['mean_ratio']:.3f} |")
    lines.append(f"| min prefix ratio | {plain['min_ratio']:.3f} | {recall['min_ratio']:.3f} |")
    lines.append(f"| naive baseline mean ratio | {plain['naive_mean_ratio']:.3f} | {recall['naive_mean_ratio']:.3f} |")
    ours = startup["wall_median_s"] - startup["sdk_import_s"]
    lines += ["", "`chat -q` one-line turn in a fresh process (7 runs after a warm-up, OpenAI provider, bytecode cache on):", "",
              f"- wall time median {startup['wall_median_s']:.3f} s (min {startup['wall_min_s']:.3f} s; target < 0.7 s)",
              f"- of which starting Python and `import openai` alone (a bare `python -c`, median of 7): {startup['sdk_import_s']:.3f} s",
              f"- everything else (our imports and code, the request, the store): {ours:.3f} s",
              f"- last streamed byte → process exit, median {startup['last_byte_to_exit_median_ms']:.0f} ms", "",
              f"Reading: {'met' if startup['wall_median_s'] < 0.7 else 'not met'}. "
              f"With the real `openai` SDK the floor is its import ({startup['sdk_import_s']:.2f} s here, "
              f"{'above' if startup['sdk_import_s'] >= 0.7 else 'below'} the 0.7 s target on its own); what the project "
              f"adds on top is {ours:.2f} s. The SDK is imported only when the first request is made, the store "
              "is opened once, and the process exits without tearing down the interpreter once everything "
              "is closed and flushed (that teardown alone took 0.15–0.25 s after the last byte)."]
    text = "\n".join(lines) + "\n"
    append_run("prefix", text)
    print(text)


if __name__ == "__main__":
    main()
