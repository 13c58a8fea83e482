"""One app in a real terminal (tmux), read as text: the helper every tmux test uses.

Each terminal runs in a private tmux server (its own socket), so no other server's environment
leaks into the app, and COLUMNS/LINES left by an in-process Textual run (its headless driver sets
them) are removed, or the app would draw 80×24 in a larger pane."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TMUX = shutil.which("tmux")
PANE_ENV = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}


class Terminal:
    """A command running in a width×height tmux pane; `exited` holds its exit status and time."""

    def __init__(self, tmp: Path, command: str, width: int = 120, height: int = 36,
                 env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.socket = f"hermes-test-{uuid.uuid4().hex[:10]}"
        # Written by the shell when the command ends, then renamed into place: a reader that
        # sees the file sees its whole line (it once read the file between creation and write).
        self.exited = tmp / f"exited-{self.socket}"
        self.env = {**PANE_ENV, **(env or {})}
        self._tmux("new-session", "-d", "-s", "app", "-x", str(width), "-y", str(height),
                   *(["-c", str(cwd)] if cwd else []),
                   f"{command}; echo $? $(date +%s.%N) > {self.exited}.part && mv {self.exited}.part {self.exited}")

    def _tmux(self, *args: str) -> str:
        assert TMUX is not None
        return subprocess.run([TMUX, "-L", self.socket, *args], check=False, capture_output=True, text=True,
                              timeout=10, env=self.env).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self._tmux("send-keys", "-t", "app", *(["-l"] if literal else []), *keys)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "app")

    def wait_for(self, condition: Callable[[str], bool], what: str, timeout: float = 40.0) -> str:
        """The screen once `condition` holds; fails naming `what` and showing the screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if condition(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{what} not seen within {timeout}s; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-L", self.socket, "kill-server"], check=False, capture_output=True, timeout=10)
