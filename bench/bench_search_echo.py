"""Search typing bench (issue 17): each keystroke's echo while typing a query fast, in a real terminal.

    .venv/bin/python -m bench.bench_search_echo [--runs 10] [--app-source DIR] [--no-record]

``hermes-tui`` in tmux at 160×50 over a copy of the synthetic 200k-message home
(``bench_tui_browse.prepare_big``); the search screen is opened (``ctrl+f``) and ``kubernetes``
is typed at 15 keys/s, ``--runs`` times (the query cleared with ``ctrl+u`` and the recent sessions
back between runs). Each key is sent on the clock, whatever the app is doing, and the pane is
captured back to back (``tmux_poll``; the resolution is reported) until the query box shows it:
key → echo. Beside it, the same harness's floor: a letter typed at the chat's prompt (and
deleted) before the search opens, key → the screen changed.
A run's last key is followed by its results; earlier keys land while earlier queries' results
are being listed, which is what the issue's "never blocks a keystroke's echo" is about.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.bench_tui_browse import KEY_INTERVAL_S, TYPED, prepare_big
from bench.record import publish
from bench.timing import percentile
from bench.tmux_poll import Poller, open_app, prompt_echo, resolution

FLOOR_SETTLE_S = 0.15  # between the floor's keys: the screen still this long


def query_line(screen: str) -> str:
    """The query box's text line (the line under the box's top edge)."""
    lines = screen.splitlines()
    return lines[2] if len(lines) > 2 else ""


def typed_shows(prefix: str):
    """Whether the query box shows ``prefix`` (and nothing after it)."""
    return lambda screen: query_line(screen).strip(" ▊▎") == prefix


def search_open(poller: Poller) -> None:
    poller.term.keys("C-f")
    try:
        poller.until(lambda s: "Recent sessions" in s, "the search screen")
    except TimeoutError:
        exited = poller.term.exited
        raise RuntimeError(f"no search screen; the app's exit: {exited.read_text() if exited.exists() else 'still running'}")


def typing_run(poller: Poller, typed: str) -> list[float]:
    """``typed`` at 15 keys/s: key → echo for each key (a late echo does not delay the next key)."""
    echoes: list[float] = []
    start = time.monotonic()
    for n in range(len(typed)):
        due = start + n * KEY_INTERVAL_S
        time.sleep(max(0.0, due - time.monotonic()))
        poller.pause()  # the wait for the key's time is not a capture interval
        sent = time.monotonic()
        poller.term.keys(typed[n], literal=True)
        shown, _ = poller.until(typed_shows(typed[: n + 1]), f"the echo of {typed[: n + 1]!r}", timeout=30)
        echoes.append(shown - sent)
    poller.until(lambda s: "matches in" in s or "No matches" in s, "the typed query's results")
    return echoes


def measure(tmp: Path, home: Path, runs: int, source: Path | None, typed: str = TYPED) -> dict:
    intervals: list[float] = []
    term, _ = open_app(tmp, home, source=source)
    poller = Poller(term, intervals)
    try:
        poller.until(lambda s: "palette" in s, "the app's first frame")
        time.sleep(1.5)  # start-up settles; the browsers are built in the first pause
        poller.pause()
        echo_floor, _ = prompt_echo(poller, FLOOR_SETTLE_S, letters="abcdefghij")
        poller.pause()
        search_open(poller)
        time.sleep(0.5)
        echoes: list[list[float]] = []
        for _ in range(runs):
            poller.pause()
            echoes.append(typing_run(poller, typed))
            time.sleep(0.6)  # the preview and the ranked list come in the pause
            poller.pause()
            term.keys("C-u")
            poller.until(lambda s: "Recent sessions" in s, "the recent sessions again")
            time.sleep(0.6)
        return {"echoes": echoes, "floor": echo_floor, "intervals": intervals}
    finally:
        term.close()


def ms(values: list[float], q: float) -> str:
    return f"{percentile([v * 1000 for v in values], q):.0f} ms"


def report(result: dict, source: Path | None, typed: str) -> str:
    every = [e for run in result["echoes"] for e in run]
    worst = [max(run) for run in result["echoes"]]
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = [f"{when}, {len(result['echoes'])} runs of `{typed}` at 15 keys/s, app from "
             f"{source or 'this checkout'}, load average {load} at the end; capture interval "
             f"{resolution(result['intervals'])}.", "",
             "| measure | median | p95 | max |", "|---|---|---|---|",
             f"| key → echo, every key | {ms(every, 50)} | {ms(every, 95)} | {ms(every, 100)} |",
             f"| key → echo, the worst of each run | {ms(worst, 50)} | {ms(worst, 95)} | {ms(worst, 100)} |",
             f"| the floor: a letter at the chat's prompt | {ms(result['floor'], 50)} | "
             f"{ms(result['floor'], 95)} | {ms(result['floor'], 100)} |", "",
             "Worst echo per run (ms): " + ", ".join(f"{w * 1000:.0f}" for w in worst) + "."]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--typed", default=TYPED, help="the query typed (kubernetes: only its last key finds results)")
    parser.add_argument("--app-source", type=Path, help="run the app from this checkout (before/after)")
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to results/")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = prepare_big(Path(tmp))
        result = measure(Path(tmp), home, args.runs, args.app_source, args.typed)
    publish("search_echo", report(result, args.app_source, args.typed), record=not args.no_record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
