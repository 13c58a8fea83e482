"""The real app in a real terminal (tmux): escape brings focus home, text typed into the focused
approval queue lands in the prompt and decides nothing, and quitting during a 30 s request exits
within a second. Pilot tests cover the same ground in process; these prove it end to end, with the
console script, the terminal's own key bytes and the process's real exit."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.memory import MemoryStore, PendingQueue
from engine.store import SessionDB
from hermes_tui.loopback_llm import LoopbackLLM, Silent
from tests.tmux_terminal import TMUX, Terminal

HERMES = Path(sys.executable).with_name("hermes-tui")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed: these flows need a real terminal")
QUIT_WITHIN_S = 1.0  # issue 18: quitting during a request exits within 1 s


@pytest.fixture
def terminal(tmp_path: Path, home: Path) -> Iterator[Callable[[], Terminal]]:
    started: list[Terminal] = []

    def start() -> Terminal:
        term = Terminal(tmp_path, f"{HERMES} --home {home}")
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


def test_a_search_hit_opens_its_long_session_at_the_matched_message(home: Path, terminal) -> None:
    """ctrl+f, a word, enter: the hit opens in its 81-message session with the matched message in
    view (not the session's top), and enter again continues that conversation in the chat."""
    with SessionDB.open_home(home) as db:
        for n in range(3):
            session = db.create_session(title=f"Rollout talk {n}", session_id=f"rollout-{n}")
            db.append_messages(session, [
                {"role": "user" if i % 2 == 0 else "assistant",
                 "content": f"message {i} about rollout step {i * 7}"
                            + (" and the zebrafinch incident" if (n, i) == (1, 60) else "")}
                for i in range(81)])
    term = terminal()
    term.keys("C-f")
    term.wait_for(lambda s: "Recent sessions" in s, "the search screen")
    term.keys("zebrafinch", literal=True)
    term.wait_for(lambda s: "1 match in 1 conversation" in s, "the one hit")
    term.keys("Enter")
    shown = term.wait_for(lambda s: "Search hit in" in s and "zebrafinch incident" in s, "the hit in its session")
    assert "Rollout talk 1" in shown and "message 0 about" not in shown  # scrolled to the match, not the top
    term.keys("Enter")
    term.wait_for(lambda s: "Search match in" in s and "zebrafinch incident" in s and "f2 Memory" in s,
                  "the conversation continued in the chat at the match")
