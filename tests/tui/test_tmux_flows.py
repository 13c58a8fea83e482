"""The real app in a real terminal (tmux): escape brings focus home, text typed into the focused
approval queue lands in the prompt and decides nothing, and quitting during a 30 s request exits
within a second. Pilot tests cover the same ground in process; these prove it end to end, with the
console script, the terminal's own key bytes and the process's real exit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from engine.memory import MemoryStore, PendingQueue
from hermes_tui.loopback_llm import LoopbackLLM, Silent

TMUX = shutil.which("tmux")
HERMES = Path(sys.executable).with_name("hermes-tui")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed: these flows need a real terminal")

# The server passes its environment to the app: a COLUMNS/LINES left by an in-process test run
# (Textual's headless driver sets them) would make the app draw 80×24 in a 120×36 pane.
PANE_ENV = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
QUIT_WITHIN_S = 1.0  # issue 18: quitting during a request exits within 1 s


class Terminal:
    """One app in a private tmux server (its own socket, so no other server's environment leaks in)."""

    def __init__(self, tmp: Path, home: Path) -> None:
        self.socket = f"hermes-test-{os.getpid()}-{tmp.name}"
        self.exited = tmp / "exited"  # the exit status and time, written by the shell when the app ends
        command = f"{HERMES} --home {home}; echo $? $(date +%s.%N) > {self.exited}"
        self._tmux("new-session", "-d", "-s", "app", "-x", "120", "-y", "36", command)

    def _tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, timeout=10,
                              env=PANE_ENV)
        return done.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self._tmux("send-keys", "-t", "app", *(["-l"] if literal else []), *keys)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "app")

    def wait_for(self, condition: Callable[[str], bool], what: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if condition(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{what} not seen within {timeout}s; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def terminal(tmp_path: Path, home: Path) -> Iterator[Callable[[], Terminal]]:
    started: list[Terminal] = []

    def start() -> Terminal:
        term = Terminal(tmp_path, home)
        started.append(term)
        term.wait_for(lambda s: "palette" in s and "approval" in s, "the app's first frame")
        return term

    yield start
    for term in started:
        term.close()


def prompt_line(screen: str) -> str:
    """The prompt's text row: the line above the prompt box's bottom border, inside its borders."""
    lines = screen.splitlines()
    bottom = max(i for i, line in enumerate(lines) if line.lstrip().startswith("╰") and i < len(lines) - 2)
    return lines[bottom - 1].split("│")[1].strip() if "│" in lines[bottom - 1] else ""


def test_escape_goes_home_and_text_typed_into_the_queue_lands_in_the_prompt(home: Path, terminal) -> None:
    queue = PendingQueue(home)
    for content in ("Deploys go out on Tuesdays", "The staging database is restored nightly"):
        queue.stage({"action": "add", "target": "memory", "content": content}, origin="foreground")
    term = terminal()
    term.keys("F3")
    term.wait_for(lambda s: "Reject all" in s, "the queue's keys in the footer (the queue has focus)")
    term.keys("Escape")
    term.wait_for(lambda s: "Reject all" not in s, "focus leaving the queue on escape")
    term.keys("F3")
    term.wait_for(lambda s: "Reject all" in s, "the queue focused again")
    sentence = "yes approve all 1 2 3 a d y"
    term.keys(sentence, literal=True)
    # the text is in the prompt, and focus with it (the queue's keys leave the footer)
    screen = term.wait_for(lambda s: prompt_line(s) == sentence and "Reject all" not in s,
                           "the typed text in the focused prompt")
    assert queue.count() == 2 and MemoryStore(home / "memories").entries("memory") == []
    assert "y / enter" not in screen  # no confirm dialog was opened either


def test_quitting_during_a_30_second_request_exits_within_a_second(home: Path, llm: LoopbackLLM, terminal) -> None:
    llm.push(Silent(timeout_s=30), Silent(timeout_s=30))  # the turn, and whatever might follow it
    term = terminal()
    term.keys("hello?", literal=True)
    term.keys("Enter")
    term.wait_for(lambda s: "waiting for the model" in s and llm.requests, "the request in flight")
    pressed = time.time()
    term.keys("C-q")
    deadline = time.monotonic() + 30
    while not term.exited.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert term.exited.exists(), f"still running 30 s after ctrl+q:\n{term.screen()}"
    status, ended = term.exited.read_text().split()
    assert status == "0"
    assert float(ended) - pressed <= QUIT_WITHIN_S, f"exit took {float(ended) - pressed:.2f} s"
    assert json.loads(llm.requests[0].body_bytes)["messages"][-1]["content"] == "hello?"
