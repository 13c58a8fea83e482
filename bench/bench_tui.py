"""TUI bench (issue 6 "Performance"): streaming lag, launch time in tmux, typing latency.

1. A 4,000-token reply with code fences and lists streamed at 1,000 tokens/s from the loopback
   server into the running app (headless ``run_test``): lag from the last token reaching the
   agent to the final line being on screen, and whether the rendered Markdown equals the reply.
2. Launch → input prompt shown in a real terminal (tmux): empty home vs the store bench's
   synthetic 10,000-session home (ratio, target ≤ 1.5×).
3. Typing latency in tmux (keypress → echo) with a 500-message session open vs a new session.

Run: ``.venv/bin/python -m bench.bench_tui [--stream-only | --launch-only] [--replies N]`` (about two
minutes; ``--replies`` streams N replies per rate instead of 3).
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.synthetic_home import cached_home
from engine.events import TextDelta
from engine.store import SessionDB
from hermes_tui.loopback_llm import LoopbackLLM, Reply
from tests.tui.helpers import (
    close_app,
    make_app,
    ready,
    screen_text,
    settle,
    write_config,
)

ROOT = Path(__file__).resolve().parent.parent
HERMES = ROOT / ".venv" / "bin" / "hermes-tui"
TOKENS = 4_000
CHARS_PER_TOKEN = 4
FINAL_LINE = "End of the report: all 4,000 tokens arrived."
STREAM_RUNS = 3  # per rate, in one process: the first run also pays first-use imports (Pygments lexers)


def long_reply(tokens: int = TOKENS, final_line: str = FINAL_LINE) -> str:
    """Markdown with headings, lists and code fences, about ``tokens`` × 4 characters long,
    ending with ``final_line``."""
    parts: list[str] = []
    section = 0
    while sum(map(len, parts)) < tokens * CHARS_PER_TOKEN - 200:
        section += 1
        parts.append(f"## Step {section}\n\nWe check the service and note what changed in this step.\n\n")
        parts.append("".join(f"- item {section}.{i}: verify the config and the logs\n" for i in range(4)) + "\n")
        parts.append(f"```python\ndef step_{section}(x):\n    total = 0\n    for i in range(x):\n"
                     f"        total += i * {section}\n    return total\n```\n\n")
    return "".join(parts) + final_line + "\n"


def serve(reply_file: str, tokens_per_second: str) -> None:
    """Child process: the loopback model, so its pacing never waits on the app's GIL."""
    reply = Path(reply_file).read_text(encoding="utf-8")
    with LoopbackLLM(responder=lambda _request: Reply(text=reply, chunk_chars=CHARS_PER_TOKEN),
                     tokens_per_second=float(tokens_per_second)) as llm:
        print(llm.port, flush=True)
        sys.stdin.read()


class RemoteLLM:
    """Stands in for ``LoopbackLLM`` in ``write_config``: a server running in another process."""

    def __init__(self, reply: str, tokens_per_second: int, folder: Path) -> None:
        reply_file = folder / "reply.md"
        reply_file.write_text(reply, encoding="utf-8")
        self.process = subprocess.Popen([sys.executable, "-m", "bench.bench_tui", "--serve", str(reply_file),
                                         str(tokens_per_second)], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.base_url_openai = f"http://127.0.0.1:{int(self.process.stdout.readline())}/v1"

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


async def streaming_lag(home: Path, tokens_per_second: int = 1000) -> dict:
    reply = long_reply()
    home.mkdir(parents=True)
    llm = RemoteLLM(reply, tokens_per_second, home)
    try:
        write_config(home, llm)  # type: ignore[arg-type]
        return await _stream_into_app(home, reply)
    finally:
        llm.close()


async def _stream_into_app(home: Path, reply: str) -> dict:
    """Lag = the last token handed to the UI by the agent's worker thread → the end of the first
    frame the app hands to its terminal driver after which the final line is on screen. Frames
    are caught in ``App._display`` (what a real terminal is sent); only once the reply holds the
    final line is the whole screen rendered to check, so nothing polls while the app works."""
    app = make_app(home)
    last_delta = [0.0]
    shown_at = [0.0]
    frames = [0]
    emit, display = app._emit, app._display

    def timed_emit(event) -> None:  # the worker thread: when each token reached the UI's side
        if isinstance(event, TextDelta):
            last_delta[0] = time.perf_counter()
        emit(event)

    def timed_display(screen, update) -> None:  # the UI thread: each frame sent to the terminal
        display(screen, update)
        if update is None or shown_at[0]:
            return
        sent = time.perf_counter()
        frames[0] += 1
        reply_widget = app.main.chat.last_assistant() if app.bridge else None
        if reply_widget is not None and FINAL_LINE in reply_widget.source and FINAL_LINE in screen_text(app):
            shown_at[0] = sent

    app._emit = timed_emit  # type: ignore[method-assign]
    app._display = timed_display  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        started = time.perf_counter()
        app.main.prompt.text = "write the long report"
        await pilot.press("enter")
        deadline = time.perf_counter() + 120
        while not shown_at[0] or app.busy:  # a bare sleep: Pilot's pause would force refreshes
            assert time.perf_counter() < deadline, "the final line never reached the screen"
            await asyncio.sleep(0.01)
        widget = app.main.chat.last_assistant()
        assert widget is not None
        await settle(pilot)  # the reply is tidied up after its last frame; check the screen once settled
        result = {
            "stream_seconds": round(last_delta[0] - started, 2),
            "lag_ms": round((shown_at[0] - last_delta[0]) * 1000, 1),
            "frames": frames[0],
            "markdown_equal": widget.source == reply and widget.entry.text == reply,
            "stored_equal": app.agent.messages[-1]["content"] == reply,
            "final_line_on_screen": FINAL_LINE in screen_text(app),
            "chars": len(reply),
        }
    close_app(app)
    return result


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def wait_for_screen(session: str, needle: str, timeout: float = 20.0) -> float:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if needle in tmux("capture-pane", "-p", "-t", session):
            return time.perf_counter()
        time.sleep(0.005)
    raise TimeoutError(f"{needle!r} not shown in tmux session {session} within {timeout}s")


def launch(home: Path, session: str, *extra: str) -> float:
    """Seconds from starting ``hermes-tui`` to the footer and prompt being drawn.

    Run with Python's default bytecode cache, as a user's Python has it from the second launch
    on: this machine sets ``PYTHONDONTWRITEBYTECODE=1``, under which the project's own modules
    (an editable install, never compiled by pip) were recompiled from source on every launch.
    """
    started = time.perf_counter()
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "env", "-u", "PYTHONDONTWRITEBYTECODE",
         str(HERMES), "--home", str(home), *extra)
    return wait_for_screen(session, "palette") - started


def stop(session: str) -> None:
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def launch_times(home: Path, runs: int = 5) -> list[float]:
    """``runs`` launches; an idle session keeps the tmux server up, so its start is not timed."""
    tmux("new-session", "-d", "-s", "bench-keep", "sleep", "600")
    times = []
    try:
        for n in range(runs):
            times.append(launch(home, f"bench{n}"))
            stop(f"bench{n}")
            time.sleep(0.3)
    finally:
        stop("bench-keep")
    return times


def typing_latency(home: Path, session_args: tuple[str, ...], keys: int = 30) -> list[float]:
    """Keypress → echo in the real terminal: send one character, poll until it is drawn."""
    name = "benchtype"
    launch(home, name, *session_args)
    time.sleep(1.0)  # let start-up settle (mounting the transcript, first poll of the memory files)
    latencies = []
    typed = ""
    for n in range(keys):
        char = "abcdefghij"[n % 10]
        typed += char
        started = time.perf_counter()
        tmux("send-keys", "-t", name, "-l", char)
        latencies.append(wait_for_screen(name, typed) - started)
    stop(name)
    return latencies


def session_with_messages(home: Path, count: int = 500) -> str:
    db = SessionDB.open_home(home)
    session_id = db.create_session(source="tui", title="Long session")
    messages = []
    for n in range(count // 2):
        messages.append({"role": "user", "content": f"Question {n}: how do I configure service {n}?"})
        messages.append({"role": "assistant", "content": f"For service {n}:\n\n- edit `svc{n}.yaml`\n- restart it\n"})
    db.append_messages(session_id, messages)
    db.end_session(session_id, "user_exit")
    db.close()
    return session_id


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        replies = int(sys.argv[sys.argv.index("--replies") + 1]) if "--replies" in sys.argv else STREAM_RUNS
        for rate in () if "--launch-only" in sys.argv else (1000, 250):
            runs = [asyncio.run(streaming_lag(tmp_path / f"stream{rate}-{n}", rate)) for n in range(replies)]
            for run in runs:
                print(f"stream at {rate} tok/s: {run}")
            print(f"stream at {rate} tok/s: lag ms {[run['lag_ms'] for run in runs]}, "
                  f"median {statistics.median(run['lag_ms'] for run in runs):.1f}")
        if "--stream-only" in sys.argv:
            return

        empty = tmp_path / "empty"
        empty.mkdir()
        synthetic = cached_home()
        launch_times(empty, runs=1)  # warm the file cache and write the bytecode cache
        empty_times = launch_times(empty)
        big_times = launch_times(synthetic)
        print(f"launch empty  ms: {[round(t * 1000) for t in empty_times]}")
        print(f"launch 10k    ms: {[round(t * 1000) for t in big_times]}")
        if "--launch-only" in sys.argv:
            return

        long_home = tmp_path / "long"
        long_home.mkdir()
        session_id = session_with_messages(long_home)
        shutil.copytree(long_home, tmp_path / "long_new")
        fresh = typing_latency(tmp_path / "long_new", ())
        loaded = typing_latency(long_home, ("-r", session_id))
        print(f"typing new session  ms p50 {median_ms(fresh):.1f} max {max(fresh) * 1000:.1f}")
        print(f"typing 500 messages ms p50 {median_ms(loaded):.1f} max {max(loaded) * 1000:.1f}")

        ratio = statistics.median(big_times) / statistics.median(empty_times)
        print(f"launch ratio 10k/empty: {ratio:.2f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(*sys.argv[2:4])
    else:
        main()
