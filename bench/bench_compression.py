"""Compression benchmark (issue 5): algorithm time on 2,000 messages and task survival.

1. Time of ``Compressor.compress`` on a 2,000-message tool-heavy conversation, the model call
   excluded (the summarizer is an instant stub), next to two costs measured in the same run:
   a deep copy of the transcript and one ``estimate_tokens`` pass (the per-turn trigger check).
2. Task survival on 20 scripted conversations: the fraction whose post-compression request
   (system prompt + messages) still holds the last user ask, the goal and every file path the
   user named — on the fallback path (no model) and on a model path whose summary is plausible
   but incomplete (vague goal, one file), with and without the essentials guard.

Run: .venv/bin/python -m bench.bench_compression
"""

from __future__ import annotations

import copy
import json
import platform
import statistics
import time
from dataclasses import dataclass

from engine.compression import CompressionSettings, Compressor, estimate_tokens
from engine.tokens import content_text

SYSTEM_PROMPT = "You are Hermes, a careful coding agent.\n" * 40
PATH_STYLES = [
    "src/{}.py", "~/code/{}", "/etc/{}/config.yaml", "docs/{}.md", "./scripts/{}.sh",
    "web/src/{}.tsx", "{}_notes.txt", "../common/{}/schema.sql",
]
TOPICS = ["billing", "auth", "search", "ingest", "render", "payments", "cache", "queue", "mailer", "reports"]
CJK_ASK = "请检查这个模块的日志并修复错误，然后告诉我结果。"


def _call(cid: str, name: str, args: dict) -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def tool_turn(ask: str, n: int, turn: int, output_chars: int) -> list[dict]:
    """A user ask answered by a round of two parallel tool calls and a reply."""
    ids = (f"call_{turn}_a", f"call_{turn}_b")
    return [
        {"role": "user", "content": ask},
        {"role": "assistant", "content": None, "tool_calls": [
            _call(ids[0], "read_file", {"path": f"pkg/module_{n}.py"}),
            _call(ids[1], "terminal", {"command": f"pytest -q tests/test_{n}.py"}),
        ]},
        {"role": "tool", "tool_call_id": ids[0], "name": "read_file", "content": f"# module {n}\n" + "x = 1\n" * (output_chars // 6)},
        {"role": "tool", "tool_call_id": ids[1], "name": "terminal", "content": f"{n} passed\n" * (output_chars // 10)},
        {"role": "assistant", "content": f"Turn {turn}: module {n} read and its tests pass."},
    ]


def timing_conversation(messages: int = 2_000) -> list[dict]:
    out: list[dict] = []
    turn = 0
    while len(out) < messages:
        out += tool_turn(f"Step {turn}: look at pkg/module_{turn}.py and run its tests.", turn, turn, 2_000)
        turn += 1
    return out[: messages - 1] + [{"role": "user", "content": "Summarize what is left to do."}]


def _median_ms(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


@dataclass
class Scenario:
    goal: str
    paths: list[str]
    last_ask: str
    messages: list[dict]
    settings: CompressionSettings


def scenario(i: int) -> Scenario:
    """Scripted conversation ``i``: the goal first, paths named along the way, a final ask."""
    topic = TOPICS[i % len(TOPICS)]
    paths = [PATH_STYLES[(i + k) % len(PATH_STYLES)].format(f"{topic}{k}") for k in range(2 + i % 4)]
    goal = f"Goal: migrate the {topic} service to the new storage API without downtime (case {i})."
    messages: list[dict] = [{"role": "user", "content": goal}, {"role": "assistant", "content": "Understood, starting."}]
    turns = 30 + 5 * (i % 5)
    mention_at = {3 + 4 * k: p for k, p in enumerate(paths)}
    for t in range(turns):
        ask = f"Continue with step {t} of the {topic} migration."
        if t in mention_at:
            ask = f"Please also update {mention_at[t]} for step {t}."
        if i % 4 == 3 and t % 3 == 0:
            ask = f"{CJK_ASK} ({topic} {t})" + (f" 文件 {mention_at[t]}" if t in mention_at else "")
        messages += tool_turn(ask, t, t, 1_500 + 200 * (i % 7))
    last_ask = f"Final check for case {i}: is the {topic} migration safe to deploy tonight?"
    messages.append({"role": "user", "content": last_ask})
    settings = CompressionSettings(
        context_window=(16_000, 32_000, 128_000)[i % 3],
        protect_first_n=(0, 1, 3)[i % 3 if i % 2 else 0],
        protect_last_n=20,
    )
    return Scenario(goal, paths, last_ask, messages, settings)


def request_text(messages: list[dict]) -> str:
    parts = [SYSTEM_PROMPT]
    for m in messages:
        parts.append(content_text(m.get("content")))
        parts += [c["function"]["arguments"] for c in m.get("tool_calls") or ()]
    return "\n".join(parts)


def survives(s: Scenario, text: str) -> bool:
    return s.last_ask in text and s.goal in text and all(p in text for p in s.paths)


def vague_model(s: Scenario):
    """A plausible but incomplete summary: a paraphrased goal and only the first file."""
    reply = (
        "## Goal\nMove the service to the new storage layer.\n## Completed Actions\n- Read modules, ran tests.\n"
        f"## Relevant Files\n- {s.paths[0]}\n## Remaining Work\n- Finish the remaining steps."
    )
    return lambda prompt: reply


def without_guard(summary_text: str) -> str:
    return summary_text.split("## Critical Context\nKept verbatim")[0]


def main() -> None:
    conv = timing_conversation()
    settings = CompressionSettings(context_window=128_000)
    stub = Compressor(settings, lambda prompt: "## Goal\nkeep going")
    fallback = Compressor(settings, None)
    result = stub.compress(conv, system_prompt=SYSTEM_PROMPT)
    t_model = _median_ms(lambda: stub.compress(conv, system_prompt=SYSTEM_PROMPT))
    t_fallback = _median_ms(lambda: fallback.compress(conv, system_prompt=SYSTEM_PROMPT))
    t_copy = _median_ms(lambda: copy.deepcopy(conv))
    t_estimate = _median_ms(lambda: estimate_tokens(conv, (), SYSTEM_PROMPT))

    scenarios = [scenario(i) for i in range(20)]
    fb = model = unguarded = compressed = 0
    for s in scenarios:
        r_fb = Compressor(s.settings, None).compress(s.messages, system_prompt=SYSTEM_PROMPT)
        r_model = Compressor(s.settings, vague_model(s)).compress(s.messages, system_prompt=SYSTEM_PROMPT)
        compressed += r_fb.removed_count > 0 and r_model.removed_count > 0
        fb += survives(s, request_text(r_fb.messages))
        model += survives(s, request_text(r_model.messages))
        bare = [dict(m, content=without_guard(content_text(m.get("content")))) for m in r_model.messages]
        unguarded += survives(s, request_text(bare))

    print(f"2,000-message conversation: {result.tokens_before:,} -> {result.tokens_after:,} tokens, "
          f"{result.removed_count} messages compacted")
    print(f"compress (instant model stub): {t_model:.1f} ms   fallback summary: {t_fallback:.1f} ms")
    print(f"deepcopy of the transcript:    {t_copy:.1f} ms   estimate_tokens: {t_estimate:.1f} ms")
    print(f"ratio compress/deepcopy: {t_model / t_copy:.2f}   compress/estimate: {t_model / t_estimate:.1f}")
    print(f"task survival over {len(scenarios)} conversations ({compressed} compressed on both paths):")
    print(f"  fallback path:                       {fb}/{len(scenarios)} = {100 * fb / len(scenarios):.0f} %")
    print(f"  incomplete model summary, guarded:   {model}/{len(scenarios)} = {100 * model / len(scenarios):.0f} %")
    print(f"  incomplete model summary, unguarded: {unguarded}/{len(scenarios)} = {100 * unguarded / len(scenarios):.0f} %")
    print(f"python {platform.python_version()} on {platform.machine()}")


if __name__ == "__main__":
    main()
