"""Stream-end bench (issue 17): the server's last chunk → the reply's last line on screen → the
turn shown finished, in a real terminal.

    .venv/bin/python -m bench.bench_stream_end [--launches 5] [--replies 5] [--rate 1000] [--app-source DIR]

``hermes-tui`` runs in tmux at 160×50 against the loopback model in this process, which streams
a ~4,000-token Markdown reply (``bench_tui.long_reply``, 4 characters a chunk, ``--rate`` chunks
a second) ending in a line unique to the reply, and stamps when it flushed the answer's last
byte (``Recorded.finished_at``). The end-of-turn work runs as a user's would: the first turn
starts an auto-title, every second turn a background memory review (each side call answered
after ``SIDE_CALL_S``), and the compression check and usage writes run after every turn.

For each reply the pane is captured back to back (the resolution is reported): last chunk →
first capture showing the reply's last line; that capture → first capture whose status and
footer no longer say the turn runs (no ``●`` phase, no "Stop reply"). A reply whose last line
first showed in the same capture as the finished status is counted: it waited for the end of
the turn.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from bench.bench_tui import CHARS_PER_TOKEN, long_reply
from bench.record import publish
from bench.timing import percentile
from bench.tmux_poll import Poller, open_app, resolution
from hermes_tui.loopback_llm import LoopbackLLM, Recorded, Reply

PROMPT = re.compile(r"report (\d+)")
SIDE_CALL_S = 0.3  # how long a title or a memory review call takes to answer


def final_line(n: int) -> str:
    return f"End of report {n}: all 4,000 tokens arrived."


def _last_user_text(request: dict[str, Any]) -> str:
    content = (request.get("messages") or [{}])[-1].get("content")
    return content if isinstance(content, str) else ""


def respond(request: dict[str, Any]) -> Reply:
    """``report N`` from the conversation: the long reply N; any side call: a short answer, late."""
    asked = PROMPT.fullmatch(_last_user_text(request))
    if request.get("tools") and asked:
        return Reply(text=long_reply(final_line=final_line(int(asked[1]))), chunk_chars=CHARS_PER_TOKEN)
    time.sleep(SIDE_CALL_S)
    return Reply(text="Stream end bench")


def write_config(home: Path, llm: LoopbackLLM) -> None:
    home.mkdir(parents=True, exist_ok=True)
    config = {"model": {"provider": "openai", "name": "gpt-4o", "base_url": llm.base_url_openai},
              "memory": {"nudge_interval": 2}, "display": {"theme": "textual-dark"}}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def finished(screen: str) -> bool:
    """The status line and the footer no longer say a turn runs."""
    bottom = "\n".join(screen.splitlines()[-3:])
    return "●" not in bottom and "Stop reply" not in bottom


@dataclass
class ReplyTimes:
    launch: int
    index: int
    line_ms: float  # the server's last chunk → the last line on screen
    finished_ms: float  # the last line on screen → the turn shown finished
    with_end: bool  # the last line first showed together with the finished status


def request_for(llm: LoopbackLLM, n: int) -> Recorded:
    for record in llm.requests:
        if isinstance(record.json, dict) and record.json.get("tools") and _last_user_text(record.json) == f"report {n}":
            return record
    raise LookupError(f"no request for report {n}")


def one_launch(tmp: Path, llm: LoopbackLLM, launch: int, args: argparse.Namespace,
               intervals: list[float]) -> list[ReplyTimes]:
    home = tmp / f"home{launch}"
    write_config(home, llm)
    term, _ = open_app(tmp, home, source=args.app_source)
    poller = Poller(term, intervals)
    out = []
    try:
        poller.until(lambda s: "palette" in s, "the prompt")
        for index in range(args.replies):
            n = launch * 100 + index
            line = final_line(n)
            term.keys(f"report {n}", literal=True)
            term.keys("Enter")
            poller.until(lambda s: "Stop reply" in s, "the turn starting")
            shown_at, screen = poller.until(lambda s: line in s, f"the last line of report {n}")
            done_at = shown_at if finished(screen) else poller.until(finished, "the turn shown finished")[0]
            poller.pause()
            record = request_for(llm, n)
            while record.finished_at is None:
                time.sleep(0.01)
            out.append(ReplyTimes(launch, index, (shown_at - record.finished_at) * 1000, (done_at - shown_at) * 1000,
                                  done_at == shown_at))
            time.sleep(1.0)  # let the end-of-turn work (title, review) finish before the next prompt
    finally:
        term.close()
    return out


def summary(name: str, values: list[float]) -> str:
    return f"| {name} | {statistics.median(values):.0f} ms | {percentile(values, 95):.0f} ms | {max(values):.0f} ms |"


def report(times: list[ReplyTimes], intervals: list[float], args: argparse.Namespace) -> str:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    # A line on screen before the server's stamp means the stamp itself was late (the bench
    # process's server thread waited for a core): such a reply is left out, and counted.
    stamped_late = [t for t in times if t.line_ms < 0]
    times = [t for t in times if t.line_ms >= 0]
    later = [t for t in times if t.index > 0]
    lines = [
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {len(times)} replies ({args.launches} launches × "
        f"{args.replies}) at {args.rate:g} chunks/s, app from {args.app_source or 'this checkout'}, load average {load} at the end; capture interval "
        f"{resolution(intervals)}.", "",
        "| measure | median | p95 | max |", "|---|---|---|---|",
        summary("last chunk → last line", [t.line_ms for t in times]),
        summary("last chunk → last line, not a launch's first reply", [t.line_ms for t in later]),
        summary("last line → shown finished", [t.finished_ms for t in times]),
        "",
        f"Last line first shown with the finished status: {sum(t.with_end for t in times)} of {len(times)}; "
        f"left out, the server's stamp after the screen: {len(stamped_late)}.",
        "Per reply (launch.index line/finished ms): "
        + ", ".join(f"{t.launch}.{t.index} {t.line_ms:.0f}/{t.finished_ms:.0f}" for t in times),
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument("--replies", type=int, default=5, help="replies per launch")
    parser.add_argument("--rate", type=float, default=1000.0, help="chunks (tokens) per second")
    parser.add_argument("--app-source", type=Path, help="run the app from this checkout (before/after)")
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to results/")
    args = parser.parse_args()
    times: list[ReplyTimes] = []
    intervals: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, LoopbackLLM(responder=respond, tokens_per_second=args.rate) as llm:
        for launch in range(args.launches):
            times += one_launch(Path(tmp), llm, launch, args, intervals)
    text = report(times, intervals, args)
    publish("stream_end", text, record=not args.no_record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
