"""Long-session bench (issue 17): resuming a 5,000-message session — first frame and scrolling.

    .venv/bin/python -m bench.bench_resume_long [--launches 5] [--steps 60] [--app-source DIR]

``hermes-tui -r ID`` in tmux at 160×50 over a home holding one 5,000-message session (mixed
lengths, every few replies a list or a code fence; ``synthetic_home.long_session``), beside the
same launch over a 10-message session in the same run (the app's own start-up). The pane is
captured back to back (``tmux_poll``; the resolution is reported):

- first frame: start → the first capture with the session's last message and the footer drawn;
- page up: ``PageUp`` sent at the prompt → the first capture whose text differs from the one
  before, ``--steps`` times; "one step" waits for the screen to be still for ``STEP_STILL_S``
  before the next key (the older items the chat mounts after a step included), "keys back to
  back" sends the next key as soon as the text moved (a held key at the chat's own pace), then
  ``End`` back to the bottom. The scrollbar's glyphs are left out of the comparison: older items
  mounted above the view move its thumb in a frame of their own, not the page the key asked for.
  Beside it, the same harness's floor: a character typed at the prompt (and deleted) → its echo;
- in the app itself (headless, 160×50, no terminal): ``PageUp`` pressed → the first frame handed
  to the driver with the chat scrolled (``bench_tui_browse.Frames``), ``--steps`` times with a
  50 ms pause;
- held key: ``--burst`` PageUps sent at once (a held key's auto-repeat) → the screen still for
  ``STILL_S``; steps per second is how fast the chat followed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.bench_tui_browse import Frames, write_config
from bench.synthetic_home import long_session
from bench.record import publish
from bench.timing import percentile
from bench.tmux_poll import Poller, open_app, prompt_echo, resolution, still
from engine.store import SessionDB

MESSAGES = 5_000
LAST = "the-very-last-message-of-the-session"
STILL_S = 0.4  # a screen unchanged this long: the burst of keys has been handled
STEP_STILL_S = 0.1  # between single steps: the frames after a step (older items mounted) are over
SCROLLBAR_GLYPHS = str.maketrans("▁▂▃▄▅▆▇█", " " * 8)


def text_of(screen: str) -> str:
    """The screen without the scrollbar's thumb (its ends are drawn with these block glyphs)."""
    return screen.translate(SCROLLBAR_GLYPHS)


def make_home(folder: Path, messages: int) -> tuple[Path, str]:
    home = folder / f"home{messages}"
    write_config(home)
    with SessionDB.open_home(home) as db:
        return home, long_session(db, messages, last_text=f" {LAST}")


def first_frame(tmp: Path, home: Path, session_id: str, intervals: list[float], source: Path | None) -> float:
    term, started = open_app(tmp, home, "-r", session_id, source=source)
    try:
        shown, _ = Poller(term, intervals).until(lambda s: LAST in s and "palette" in s, "the last message")
        return shown - started
    finally:
        term.close()


def scrolling(tmp: Path, home: Path, session_id: str, args: argparse.Namespace, intervals: list[float]) -> dict:
    steps, burst = args.steps, args.burst
    term, _ = open_app(tmp, home, "-r", session_id, source=args.app_source)
    poller = Poller(term, intervals)
    try:
        _, screen = poller.until(lambda s: LAST in s and "palette" in s, "the last message")
        time.sleep(1.0)  # start-up settles (the memory panel's first poll)
        echo, screen = prompt_echo(poller, STEP_STILL_S)  # the harness's floor
        single, held = [], []
        for times, settle in ((single, True), (held, False)):
            for _ in range(steps):
                poller.pause()
                sent = time.monotonic()
                term.keys("PageUp")
                before = text_of(screen)
                changed, screen = poller.until(lambda s: text_of(s) != before, "the chat scrolling up", timeout=30)
                times.append(changed - sent)
                if settle:
                    _, screen = still(poller, screen, STEP_STILL_S)
            term.keys("End")
            _, screen = poller.until(lambda s: LAST in s, "the bottom again")
            time.sleep(0.5)
            screen = term.screen()
        poller.pause()
        sent = time.monotonic()
        term.keys(*["PageUp"] * burst)
        last_change, _ = still(poller, term.screen(), STILL_S, since=sent)
        return {"steps": single, "held": held, "echo": echo, "burst_s": last_change - sent}
    finally:
        term.close()


async def headless_steps(home: Path, session_id: str, steps: int) -> list[float]:
    """PageUp → the first frame the app hands to its driver with the chat scrolled, headless."""
    from tests.tui.helpers import close_app, make_app, ready

    app = make_app(home, resume=session_id)
    frames = Frames(app)
    times = []
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        await pilot.pause(0.5)
        chat = app.main.chat
        for _ in range(steps):
            was_at = chat.scroll_y
            frames.expect(lambda: chat.scroll_y != was_at)  # the frame that shows the scroll
            pressed = time.perf_counter()
            await pilot.press("pageup")
            times.append(await frames.wait() - pressed)
            await pilot.pause(0.05)
    close_app(app)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--burst", type=int, default=30)
    parser.add_argument("--app-source", type=Path, help="run the app from this checkout (before/after)")
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to results/")
    args = parser.parse_args()
    intervals: list[float] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        big, big_id = make_home(tmp, MESSAGES)
        small, small_id = make_home(tmp, 10)
        source = args.app_source
        first_frame(tmp, small, small_id, intervals, source)  # warm the file cache and the bytecode cache
        long_times, short_times = [], []
        for _ in range(args.launches):  # alternated, so both see the same load
            long_times.append(first_frame(tmp, big, big_id, intervals, source))
            short_times.append(first_frame(tmp, small, small_id, intervals, source))
        scroll = scrolling(tmp, big, big_id, args, intervals)
        in_app = [] if args.app_source else asyncio.run(headless_steps(big, big_id, args.steps))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    steps = [t * 1000 for t in scroll["steps"]]
    rows = [("first frame, 5,000 messages", [t * 1000 for t in long_times]),
            ("first frame, 10 messages", [t * 1000 for t in short_times]),
            ("page up, one step", steps),
            ("page up, keys back to back", [t * 1000 for t in scroll["held"]]),
            ("a key's echo in the prompt (the floor)", [t * 1000 for t in scroll["echo"]])]
    if in_app:
        rows.append(("page up in the app (headless): key → next frame", [t * 1000 for t in in_app]))
    lines = [f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {args.launches} launches each, {args.steps} page-up "
             f"steps, app from {args.app_source or 'this checkout'}, load average {load} at the end; capture interval {resolution(intervals)}.", "",
             "| measure | median | p95 | max |", "|---|---|---|---|"]
    lines += [f"| {name} | {statistics.median(v):.0f} ms | {percentile(v, 95):.0f} ms | {max(v):.0f} ms |"
              for name, v in rows]
    ratio = statistics.median(long_times) / statistics.median(short_times)
    lines += ["", f"5,000 / 10 messages, first frame: {ratio:.2f}× (+{(statistics.median(long_times) - statistics.median(short_times)) * 1000:.0f} ms).",
              f"{args.burst} page-ups at once: handled in {scroll['burst_s'] * 1000:.0f} ms "
              f"({args.burst / scroll['burst_s']:.0f} steps/s).",
              "Steps (ms): " + ", ".join(f"{t:.0f}" for t in steps),
              "Back to back (ms): " + ", ".join(f"{t * 1000:.0f}" for t in scroll["held"])]
    text = "\n".join(lines) + "\n"
    publish("resume_long", text, record=not args.no_record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
