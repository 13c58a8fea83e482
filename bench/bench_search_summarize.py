"""Benchmark: ``search --summarize`` end to end vs the bare FTS query, and summary parallelism.

The loopback fake model answers every summary request after a fixed delay (200 ms by default),
so the figures measure our overhead and whether the per-session calls overlap:
3 sessions should cost about as long as 1 (target ≤ 1.5×).

    .venv/bin/python -m bench.bench_search_summarize [--delay 0.2] [--sessions 2000] [--runs 7]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import time
from pathlib import Path

from bench.timing import median_of
from engine.providers import make_provider
from engine.session_search import session_search
from engine.store import SessionDB
from hermes_tui.cli import main
from hermes_tui.loopback_llm import LoopbackLLM, Reply

QUERY = "kubernetes ingress"
WORDS = "deploy cache tests release config docker build review schema logs metrics queue".split()


def build_home(home: Path, sessions: int, messages: int) -> None:
    """Sessions of ``messages`` turns; one in 100 mentions the query, so it matches a few dozen."""
    db = SessionDB.open_home(home)
    for s in range(sessions):
        sid = db.create_session(source="cli", title=f"Session {s}")
        batch = []
        for m in range(messages):
            words = " ".join(WORDS[(s + m + k) % len(WORDS)] for k in range(30))
            if s % 100 == 0 and m == messages // 2:
                words += f" {QUERY} fix"
            batch.append({"role": "user" if m % 2 == 0 else "assistant", "content": f"{words} #{s}.{m}"})
        db.append_messages(sid, batch)
    db.close()


def main_bench() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.2, help="fake model latency per request, seconds")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    def respond(_request: dict) -> Reply:
        time.sleep(args.delay)
        return Reply("A focused summary of the session.")

    with tempfile.TemporaryDirectory() as tmp, LoopbackLLM(responder=respond) as server:
        home = Path(tmp) / "home"
        started = time.perf_counter()
        build_home(home, args.sessions, args.messages)
        print(f"home: {args.sessions:,} sessions × {args.messages} messages built in {time.perf_counter() - started:.1f}s")
        (home / "config.yaml").write_text(
            f"model: {{provider: openai, name: bench-model, base_url: '{server.base_url_openai}'}}\n", encoding="utf-8"
        )
        db = SessionDB.open_home(home)
        # warm-up: SDK import and the first connection are not what is measured
        provider = make_provider({"provider": "openai", "name": "bench-model", "base_url": server.base_url_openai}, env={})
        session_search(db, QUERY, provider=provider, current_session_id=None, limit_sessions=1)

        fts = median_of(lambda: db.search(QUERY, limit=50), args.runs * 3)

        def cli_summarize() -> None:
            with contextlib.redirect_stdout(io.StringIO()):
                assert main(["--home", str(home), "search", QUERY, "--summarize", "--json"]) == 0

        cli = median_of(cli_summarize, args.runs)
        one = median_of(lambda: session_search(db, QUERY, provider=provider, current_session_id=None, limit_sessions=1), args.runs)
        three = median_of(lambda: session_search(db, QUERY, provider=provider, current_session_id=None, limit_sessions=3), args.runs)
        five = median_of(lambda: session_search(db, QUERY, provider=provider, current_session_id=None, limit_sessions=5), args.runs)
        no_model = median_of(lambda: session_search(db, QUERY, provider=None, current_session_id=None, limit_sessions=3), args.runs)
        db.close()

    print(f"fake model delay per request: {args.delay * 1000:.0f} ms; medians of {args.runs} runs")
    print(f"bare FTS query (db.search, limit 50):        {fts * 1000:8.2f} ms")
    print(f"search --summarize --json (3 sessions, CLI): {cli * 1000:8.2f} ms   ratio vs FTS {cli / fts:,.0f}×")
    print(f"  of which above one model delay:            {(cli - args.delay) * 1000:8.2f} ms")
    print(f"session_search, 1 session:                   {one * 1000:8.2f} ms")
    print(f"session_search, 3 sessions:                  {three * 1000:8.2f} ms   3/1 = {three / one:.2f}× (target ≤ 1.5×)")
    print(f"session_search, 5 sessions:                  {five * 1000:8.2f} ms   5/1 = {five / one:.2f}×")
    print(f"session_search, 3 sessions, no model:        {no_model * 1000:8.2f} ms   (excerpt fallback)")


if __name__ == "__main__":
    main_bench()
