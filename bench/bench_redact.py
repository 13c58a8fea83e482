"""Secret redaction throughput and linearity (issue 8).

Measures, in one run:
- MB/s of ``redact`` on 1 MB of mixed text (prose, code, JSON, logs, Chinese, a few secrets);
- for each adversarial input, the time for 1 MB divided by the time for 100 kB (linear ≈ 10;
  the target is ≤ 12).

Times are this thread's CPU time (``time.thread_time``), best of several repetitions: on a
shared machine wall time also counts the slices other processes take, which lands more often
on a 100 ms run than on a 1 ms one and inflates the ratio on its own.

Run: ``.venv/bin/python -m bench.bench_redact [--write]``. The report is printed; ``--write`` also
appends this run to the bench's history, ``bench/results/redact.md`` (``bench/RESULTS.md`` is
updated by hand).
"""

from __future__ import annotations

import platform
import sys
import time
from datetime import datetime, timezone

from bench.record import append_run
from bench.timing import best_of
from engine.security.redact import redact

MB = 1_000_000
REPEATS = 5
TARGET_RATIO = 12.0

MIXED_PIECES = (
    "The deployment finished at 14:02; the staging server is 10.0.1.50, SSH port 2222.\n",
    'def connect(host: str, password: str | None = None) -> Client:\n    return Client(host, timeout=30)\n',
    '{"role": "assistant", "content": "Here is the summary you asked for.", "tool_call_id": "call_3f78685"}\n',
    "2026-11-30T14:15:02Z INFO request GET /v1/items?page=2&sort=desc status=200 duration_ms=41\n",
    "这是一个普通的中文句子，用来检查多字节文本的速度。会话 20261130_141502_a1b2c3 已结束。\n",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b merged; task-runner and risk-free tests pass.\n",
    "export OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N\n",
)

ADVERSARIAL = {
    "sk- repeats": "sk-",
    "= run": "=",
    "eyJ repeats": "eyJ",
    "spaces": " ",
    "eyJ…. segments": "eyJabcdefgh.",
    "key=key=…": "api_key=",
    'password: "…': 'password: "',
    "?token=&…": "?token=&",
    "Bearer repeats": "Bearer ",
    "ghp_ repeats": "ghp_",
    "PEM headers": "-----BEGIN RSA PRIVATE KEY-----\n",
    "JSON keys": '{"role": "user", "content": "hi"}, ',
}


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _best(text: str, repeats: int = REPEATS) -> float:
    return best_of(lambda: redact(text), repeats, clock=time.thread_time)


def run() -> list[str]:
    mixed = _fill("".join(MIXED_PIECES), MB)
    mixed_s = _best(mixed)
    lines = [
        "# Secret redaction (engine/security/redact.py)",
        "",
        f"Measured {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} on 2 cores, "
        f"{platform.machine()}, Python {platform.python_version()}; CPU time of the thread, best of {REPEATS} runs.",
        "",
        f"- Mixed text (prose, code, JSON, logs, Chinese, ~1 secret per 1 kB), 1 MB: "
        f"**{len(mixed.encode()) / mixed_s / 1e6:.1f} MB/s** ({mixed_s * 1000:.0f} ms)",
        "",
        f"Adversarial inputs, time(1 MB) / time(100 kB) — linear is 10, target ≤ {TARGET_RATIO:g}:",
        "",
        "| input | 100 kB | 1 MB | ratio |",
        "|---|---:|---:|---:|",
    ]
    worst = 0.0
    for name, unit in ADVERSARIAL.items():
        small, large = _best(_fill(unit, MB // 10)), _best(_fill(unit, MB))
        ratio = large / small
        worst = max(worst, ratio)
        lines.append(f"| `{name}` | {small * 1000:.1f} ms | {large * 1000:.1f} ms | {ratio:.1f} |")
    lines += ["", f"Worst ratio: **{worst:.1f}** ({'within' if worst <= TARGET_RATIO else 'ABOVE'} target)."]
    return lines


def main() -> None:
    lines = run()
    print("\n".join(lines))
    if "--write" in sys.argv:
        out = append_run("redact", "\n".join(lines) + "\n")
        print(f"\nappended to {out}")


if __name__ == "__main__":
    main()
