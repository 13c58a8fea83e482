"""The demo in a real terminal (tmux) at 80×24, as a person would try it: the side panel is folded
and the chat has every column; F2 lays the panel over the chat with each header on one line.
(A live resize is tested with Pilot in tests/tui/test_small_terminals.py: under load, a tmux
resize right after a key was sometimes not seen by the app at all.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


class Terminal:
    """One tmux session running a command; the screen is read as text."""

    def __init__(self, name: str) -> None:
        self.name = name

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, condition: Callable[[str], bool], timeout: float = 40.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if condition(shown):
                return shown
            if time.monotonic() > deadline:
                size = self.tmux("display-message", "-p", "-t", self.name, "#{window_width}x#{window_height}")
                raise AssertionError(f"the terminal ({size.strip()}) never showed what was expected:\n{shown}")
            time.sleep(0.2)


@pytest.fixture
def demo_terminal(tmp_path: Path) -> Iterator[Terminal]:
    name = f"hermes-test-{uuid.uuid4().hex[:8]}"
    # A running tmux server starts the command with its own environment: what matters goes by -e.
    env = ["-e", f"TMPDIR={tmp_path}", "-e", f"HOME={tmp_path}", "-e", "TERM=xterm-256color"]
    command = f"{sys.executable} -m hermes_tui --demo"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", *env,
                    "-c", str(Path(__file__).resolve().parents[2]), command], check=True)
    try:
        yield Terminal(name)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_80_by_24_folds_the_panel_and_f2_shows_it_whole(demo_terminal: Terminal) -> None:
    shown = demo_terminal.wait_for(lambda s: "Demo mode" in s and "f2 Memory" in s)
    assert "Pending approvals" not in shown and "▏" not in shown.splitlines()[10]  # no panel beside the chat
    demo_terminal.keys("F2")
    shown = demo_terminal.wait_for(lambda s: "MEMORY [" in s)
    header = next(line for line in shown.splitlines() if "MEMORY [" in line)
    assert "1,506/2,200]" in header  # the whole header on one line
    assert "USER PROFILE [" in shown and "Pending approvals (3)" in shown
