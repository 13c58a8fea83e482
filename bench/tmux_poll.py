"""The real app in tmux, its screen captured back to back: when a condition first showed.

The TUI benches that time what a person sees (the end of a streamed reply, a long session's
first frame and scrolling) poll ``tmux capture-pane`` as fast as tmux answers. A time is the
start of the first capture that showed the condition, so it is late by at most one capture
interval; the intervals are kept so each report can state its resolution.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from bench.timing import percentile
from tests.tmux_terminal import Terminal

ROOT = Path(__file__).resolve().parent.parent
HERMES = ROOT / ".venv" / "bin" / "hermes-tui"
SIZE = (160, 50)


def app_command(home: Path, *extra: str, source: Path | None = None) -> str:
    """``hermes-tui`` over ``home`` with Python's bytecode cache on, as a user's Python has it
    (this machine sets ``PYTHONDONTWRITEBYTECODE=1``; see ``bench_tui.launch``). ``source``: run
    the app from another checkout of the project (e.g. ``git archive`` of the commit before a
    change), with this venv's packages, for a before/after in one sitting."""
    app = [f"PYTHONPATH={source}", str(HERMES.with_name("python")), "-m", "hermes_tui"] if source else [str(HERMES)]
    return " ".join(["env", "-u", "PYTHONDONTWRITEBYTECODE", *app, "--home", str(home), *extra])


@dataclass
class Poller:
    """Captures of one terminal, with the interval between consecutive capture starts."""

    term: Terminal
    intervals: list[float] = field(default_factory=list)
    _last_start: float = 0.0

    def capture(self) -> tuple[float, str]:
        start = time.monotonic()
        if self._last_start:
            self.intervals.append(start - self._last_start)
        self._last_start = start
        return start, self.term.screen()

    def until(self, condition: Callable[[str], bool], what: str, timeout: float = 60.0) -> tuple[float, str]:
        """The start time of the first capture for which ``condition`` holds, and that screen."""
        deadline = time.monotonic() + timeout
        while True:
            started, screen = self.capture()
            if condition(screen):
                return started, screen
            if started > deadline:
                raise TimeoutError(f"{what} not seen within {timeout}s; the screen:\n{screen}")

    def pause(self) -> None:
        """Stop counting intervals (the next capture starts a new run of polls)."""
        self._last_start = 0.0



def still(poller: Poller, screen: str, seconds: float, since: float | None = None) -> tuple[float, str]:
    """Capture until the screen has not changed for ``seconds``: when it last changed, and it."""
    last_change = time.monotonic() if since is None else since
    while time.monotonic() - last_change < seconds:
        at, now = poller.capture()
        if now != screen:
            last_change, screen = at, now
    return last_change, screen


def prompt_echo(poller: Poller, settle: float, letters: str = "abcdefghijklmnopqrst") -> tuple[list[float], str]:
    """The harness's own floor: each letter typed at the chat's prompt and deleted (a frame that
    redraws one character), the next key once the screen has been still for ``settle``: key →
    the screen changed. Returns the times and the screen at the end."""
    screen = poller.term.screen()
    times = []
    for char in letters:
        for key in (char, "BSpace"):
            sent = time.monotonic()
            poller.term.keys(key)
            before = screen
            changed, screen = poller.until(lambda s: s != before, "the prompt's echo", timeout=30)
            times.append(changed - sent)
            _, screen = still(poller, screen, settle)
    return times, screen


def resolution(intervals: list[float]) -> str:
    """The capture interval, as a report states it."""
    if not intervals:
        return "n/a"
    ms = [i * 1000 for i in intervals]
    return f"median {statistics.median(ms):.1f} ms, p95 {percentile(ms, 95):.1f} ms"


def open_app(tmp: Path, home: Path, *extra: str, source: Path | None = None) -> tuple[Terminal, float]:
    """The app started in a 160×50 pane; returns the terminal and when it was started."""
    started = time.monotonic()
    return Terminal(tmp, app_command(home, *extra, source=source), width=SIZE[0], height=SIZE[1]), started
