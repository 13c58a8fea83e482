"""The demo in a real terminal (tmux) at 80×24, as a person would try it: the side panel is folded
and the chat has every column; F2 lays the panel over the chat with each header on one line.
(A live resize is tested with Pilot in tests/tui/test_small_terminals.py: under load, a tmux
resize right after a key was sometimes not seen by the app at all.)"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tmux_terminal import TMUX, Terminal

pytestmark = pytest.mark.skipif(TMUX is None, reason="needs tmux")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def demo_terminal(tmp_path: Path) -> Iterator[Terminal]:
    env = {"TMPDIR": str(tmp_path), "HOME": str(tmp_path), "TERM": "xterm-256color"}
    term = Terminal(tmp_path, f"{sys.executable} -m hermes_tui --demo", 80, 24, env=env, cwd=ROOT)
    try:
        yield term
    finally:
        term.close()


def test_80_by_24_folds_the_panel_and_f2_shows_it_whole(demo_terminal: Terminal) -> None:
    shown = demo_terminal.wait_for(lambda s: "Demo mode" in s and "f2 Memory" in s, "the demo's first frame")
    assert "Pending approvals" not in shown and "▏" not in shown.splitlines()[10]  # no panel beside the chat
    demo_terminal.keys("F2")
    # The panel is drawn in more than one frame: wait for all of it, not for its first line.
    shown = demo_terminal.wait_for(
        lambda s: "MEMORY [" in s and "USER PROFILE [" in s and "Pending approvals (3)" in s, "the whole panel")
    header = next(line for line in shown.splitlines() if "MEMORY [" in line)
    assert "1,506/2,200]" in header  # the whole header on one line
