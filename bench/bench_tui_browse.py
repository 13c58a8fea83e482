"""Browse bench (issue 17): search keystroke → results drawn, screen open, preview, typing at speed.

    .venv/bin/python -m bench.bench_tui_browse [--repeat N] [--launches N] [--no-record]

The real app (``HermesApp`` over the real agent and store, headless at 160×50) on a copy of the
synthetic 10,000-session / 200,000-message home, in which every 500th session is titled
"Postmortem …" (a word no message holds), and on an empty home. Times end at the first frame
handed to the terminal driver (``App._display``) that holds the result, so nothing polls the
screen while the app works:

- search, per query class: the query minus its last character is typed and its results drawn,
  then the last key is pressed; last key → first frame with that query's results (debounce
  included). Beside it, in the same run, the store's ``search`` alone and a bare
  ``SELECT rowid … MATCH … LIMIT 20``.
- typing a 10-character query at 15 keys/s, ``TYPING_RUNS`` times: the longest gap between two
  event-loop ticks in each run (how long a keystroke's echo could wait), and whether the results
  ever went back to an older query.
- screen open: ``/sessions`` and ``/search`` as the app runs them → the first frame with their
  data (the first page of lineages; the recent sessions), once the app has built them in its first
  pause in typing; the tree again after another program wrote a session (read afresh); and each
  browser's first open in a fresh app, right after start (built at the open) and after that pause.
- preview: a 500-message session highlighted in the tree → the first frame with its messages.

A query's results count as drawn at the frame that paints the last of the rows in view (the list
paints a new list in two frames); the first rows' time is reported beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from bench.record import publish
from bench.synthetic_home import cached_home
from bench.timing import percentile
from engine.store import SessionDB
from tests.tui.helpers import close_app, make_app, ready

SIZE = (160, 50)
TITLE_WORD = "postmortem"
QUERY_CLASSES: dict[str, list[str]] = {
    "rare word": [f"rareword{97 * k % 5000}" for k in range(1, 41)],
    "common word": ["deploy"],
    "phrase": ['"deploy staging"'],
    "prefix": ["schema*"],
    "CJK ≥ 3 chars": ["支付服务"],
    "CJK 1–2 chars": ["迁移"],
    "title word": [TITLE_WORD],
}
KEY_NAMES = {'"': "quotation_mark", "*": "asterisk"}
TYPED = "kubernetes"  # 10 characters, typed at 15 keys/s
TYPING_RUNS = 10
KEY_INTERVAL_S = 1 / 15


def prepare_big(folder: Path) -> Path:
    """A copy of the cached synthetic home, with titles only a title search can find."""
    home = folder / "big"
    shutil.copytree(cached_home(), home)
    conn = sqlite3.connect(home / "state.db")
    conn.execute("UPDATE sessions SET title = 'Postmortem ' || id WHERE rowid % 500 = 0")
    conn.commit()
    conn.close()
    write_config(home)
    return home


def write_config(home: Path) -> None:
    """A model nothing calls: the bench never sends a prompt."""
    home.mkdir(parents=True, exist_ok=True)
    config = {"model": {"provider": "openai", "name": "gpt-4o", "base_url": "http://127.0.0.1:9/v1"},
              "memory": {"nudge_interval": 0}, "display": {"theme": "textual-dark"}}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def long_session(home: Path, count: int = 500) -> str:
    with SessionDB.open_home(home) as db:
        session_id = db.create_session(source="cli", title="Long preview session")
        db.append_messages(session_id, [
            {"role": "user" if n % 2 == 0 else "assistant", "content": f"Message {n} about the deploy of service {n}."}
            for n in range(count)
        ])
        db.end_session(session_id, "user_exit")
    return session_id


def update_text(update) -> str:
    """The characters a frame sends to the terminal, line by line (its escape codes left out)."""
    if hasattr(update, "chops"):  # the changed spans of some lines
        lines = [update.chops[y].values() for y, _, _ in update.spans]
    else:  # a whole region
        lines = getattr(update, "strips", [])
    return "\n".join("".join(strip.text for strip in line if strip is not None) for line in lines)


class Frames:
    """Stamps the first frame sent to the driver after which ``condition`` holds (and the first
    after which ``early`` holds, when given: a result's first rows, drawn before all of them).
    ``text`` is the text of the frame being checked, for conditions on what it drew."""

    def __init__(self, app) -> None:
        self.condition: Callable[[], object] | None = None
        self.early: Callable[[], object] | None = None
        self.stamp = self.early_stamp = 0.0
        self.update = None
        display = app._display

        def timed(screen, update) -> None:
            display(screen, update)
            if update is None:
                return
            self.update = update
            if self.early is not None and not self.early_stamp and self.early():
                self.early_stamp = time.perf_counter()
            if self.condition is not None and not self.stamp and self.condition():
                self.stamp = time.perf_counter()

        app._display = timed

    def expect(self, condition: Callable[[], object], early: Callable[[], object] | None = None) -> None:
        self.condition, self.early, self.stamp, self.early_stamp = condition, early, 0.0, 0.0

    def text(self) -> str:
        return update_text(self.update)

    async def wait(self, timeout: float = 30.0) -> float:
        deadline = time.perf_counter() + timeout
        while not self.stamp:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no frame with {self.condition} within {timeout}s")
            await asyncio.sleep(0.001)
        self.condition = None
        return self.stamp


@dataclass
class LoopLag:
    """The longest gap between event-loop ticks while ``running``: what a keystroke's echo waits."""

    worst: float = 0.0
    running: bool = True
    gaps: list[float] = field(default_factory=list)

    async def watch(self) -> None:
        last = time.perf_counter()
        while self.running:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.gaps.append(now - last - 0.001)
            last = now


def search_screen(app):
    from hermes_tui.screens.search import SearchScreen

    return next(s for s in app.screen_stack if isinstance(s, SearchScreen))


async def open_search(app, pilot, frames: Frames):
    from hermes_tui.screens.search import SearchScreen

    start = time.perf_counter()
    frames.expect(lambda: isinstance(app.screen, SearchScreen) and app.screen.shown_query == "")
    await app.slash_search("")
    elapsed = await frames.wait() - start
    return search_screen(app), elapsed


async def open_sessions(app, frames: Frames) -> float:
    from hermes_tui.screens.sessions import SessionsScreen

    start = time.perf_counter()
    frames.expect(lambda: isinstance(app.screen, SessionsScreen) and app.screen.tree.root.children)
    await app.slash_sessions("")
    return await frames.wait() - start


async def close_browser(app, pilot) -> None:
    await pilot.press("escape")
    while app.screen is not app.main:
        await asyncio.sleep(0.005)
    await pilot.pause()


async def set_and_draw(screen, frames: Frames, text: str) -> None:
    from textual.widgets import Input

    box = screen.query_one("#query", Input)
    if box.value == text and drawn(screen, text):
        return  # already drawn: setting the same text changes nothing, so no frame would come
    frames.expect(lambda: drawn(screen, text))
    box.value = text
    box.cursor_position = len(text)
    await frames.wait()


def drawn(screen, query: str) -> bool:
    """The results of ``query`` listed, and every row of them in view painted."""
    return screen.shown_query == query and screen.results.painted


async def search_latency(app, pilot, frames: Frames, repeat: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per class: last key → every row in view drawn, and last key → the first rows drawn."""
    screen, _ = await open_search(app, pilot, frames)
    out: dict[str, list[float]] = {}
    first: dict[str, list[float]] = {}
    for name, queries in QUERY_CLASSES.items():
        for n in range(repeat):
            query = queries[n % len(queries)]
            await set_and_draw(screen, frames, "")
            await set_and_draw(screen, frames, query[:-1])
            frames.expect(lambda q=query: drawn(screen, q), early=lambda q=query: screen.shown_query == q)
            start = time.perf_counter()
            await pilot.press(KEY_NAMES.get(query[-1], query[-1]))
            assert screen.query_text == query, (screen.query_text, query)
            out.setdefault(name, []).append(await frames.wait() - start)
            first.setdefault(name, []).append(frames.early_stamp - start)
    await set_and_draw(screen, frames, "")
    await close_browser(app, pilot)
    return out, first


async def typing_run(app, pilot, frames: Frames) -> tuple[float, bool, list[str]]:
    """Type TYPED at 15 keys/s; the worst loop stall, and whether shown results only moved forward."""
    screen, _ = await open_search(app, pilot, frames)
    shown: list[str] = []
    show = screen._show

    def record(query, *args, **kwargs):
        shown.append(query)
        return show(query, *args, **kwargs)

    screen._show = record
    lag = LoopLag()
    watcher = asyncio.create_task(lag.watch())
    start = time.perf_counter()
    for n, char in enumerate(TYPED):  # on a clock, as a terminal delivers them: never waiting for the app
        await asyncio.sleep(max(0.0, start + n * KEY_INTERVAL_S - time.perf_counter()))
        send_key(app, char)
    frames.expect(lambda: drawn(screen, TYPED))
    await frames.wait()
    lag.running = False
    await watcher
    screen._show = show
    lengths = [len(q) for q in shown]
    forward = lengths == sorted(lengths) and all(TYPED.startswith(q) for q in shown)
    await set_and_draw(screen, frames, "")
    await close_browser(app, pilot)
    return max(lag.gaps), forward, shown


def send_key(app, char: str) -> None:
    """A letter key as the terminal driver hands it to the app. Pilot's ``press`` waits until the
    process looks idle after each key (up to 2 s when anything is running, as this bench's own
    watcher is), so it cannot type on a clock."""
    from textual import events

    event = events.Key(char, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def preview_time(app, pilot, frames: Frames, session_id: str, repeat: int) -> list[float]:
    """Highlight the long session in the tree (its lineage is the newest) → the first frame that
    sends its first message to the terminal (a frame with the message widgets mounted but not yet
    laid out does not count)."""
    times = []
    for _ in range(repeat):
        await open_sessions(app, frames)
        screen = app.screen
        tree = screen.tree
        node = next(n for n in tree.root.children if n.data is not None and n.data.id == session_id)
        other = next(n for n in tree.root.children if n.data is not None and n.data.id != session_id)
        tree.move_cursor(other)
        while not (screen.preview.session_id == other.data.id and screen.preview.loaded):
            await asyncio.sleep(0.005)  # the other session's messages replace the long one's
        await pilot.pause()
        frames.expect(lambda: "Message 0 about" in frames.text())
        start = time.perf_counter()
        tree.move_cursor(node)
        times.append(await frames.wait() - start)
        await close_browser(app, pilot)
    return times


async def prebuilt(app, pilot) -> None:
    """The app's first pause in typing has built the browsers, as it does for a user, and the
    tree's first page (read in a worker) is in: a user's pause is longer than that read."""
    deadline = time.monotonic() + 60
    while not (app.browsers_prebuilt and app.get_screen("SessionsScreen").tree.root.children):
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not build its browsers in its first pause")
        await pilot.pause(0.05)


async def first_opens(home: Path, launches: int) -> dict[str, list[float]]:
    """Each browser's first open in a fresh app: at once after start, and after the first pause."""
    out: dict[str, list[float]] = {}
    for _ in range(launches):
        for after_pause in (False, True):
            app = make_app(home, prebuild_browsers=after_pause)
            frames = Frames(app)
            when = "after the pause" if after_pause else "at once"
            async with app.run_test(size=SIZE) as pilot:
                await ready(pilot)
                if after_pause:
                    await prebuilt(app, pilot)
                out.setdefault(f"tree, first open {when}", []).append(await open_sessions(app, frames))
                await close_browser(app, pilot)
                out.setdefault(f"search, first open {when}", []).append((await open_search(app, pilot, frames))[1])
                await close_browser(app, pilot)
            close_app(app)
    return out


def write_elsewhere(home: Path, n: int) -> None:
    """A session written by another program while the tree is closed: the next open reads afresh."""
    with SessionDB.open_home(home) as other:
        sid = other.create_session(title=f"Written elsewhere {n}")
        other.append_messages(sid, [{"role": "user", "content": "a question asked in another terminal"}])


async def run_app(home: Path, repeat: int, *, search: bool, preview_session: str | None) -> dict:
    app = make_app(home, prebuild_browsers=True)
    frames = Frames(app)
    result: dict = {}
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await prebuilt(app, pilot)
        tree, tree_written, search_open = [], [], []
        for n in range(repeat):
            tree.append(await open_sessions(app, frames))
            await close_browser(app, pilot)
            search_open.append((await open_search(app, pilot, frames))[1])
            await close_browser(app, pilot)
            write_elsewhere(home, n)
            tree_written.append(await open_sessions(app, frames))
            await close_browser(app, pilot)
        result["tree open"], result["search open"] = tree, search_open
        result["tree open, a session written since"] = tree_written
        if search:
            result["search"] = await search_latency(app, pilot, frames, repeat)
            result["typing"] = [await typing_run(app, pilot, frames) for _ in range(TYPING_RUNS)]
        if preview_session:
            result["preview"] = await preview_time(app, pilot, frames, preview_session, repeat)
    close_app(app)
    return result


def store_times(home: Path, repeat: int) -> dict[str, tuple[float, float]]:
    """Per class: the store's search (the screen's limit) and a bare MATCH … LIMIT 20, medians."""
    from hermes_tui.screens.search import HIT_LIMIT

    out = {}
    with SessionDB.open_home(home) as db:
        conn = sqlite3.connect(home / "state.db")
        for name, queries in QUERY_CLASSES.items():
            table = "messages_fts_trigram" if name.startswith("CJK") else "messages_fts"
            store, bare = [], []
            for n in range(repeat):
                query = queries[n % len(queries)]
                start = time.perf_counter()
                db.search(query, limit=HIT_LIMIT)
                store.append(time.perf_counter() - start)
                start = time.perf_counter()
                conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT 20", (query,)).fetchall()
                bare.append(time.perf_counter() - start)
            out[name] = (statistics.median(store), statistics.median(bare))
        conn.close()
    return out


def ms(value: float) -> str:
    return f"{value * 1000:.0f} ms"


def report(big: dict, empty: dict, store: dict, repeat: int) -> str:
    lines = [f"`--repeat {repeat}`, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end.", "",
             "| search class | median | p95 | first rows: median | p95 | store search | bare MATCH LIMIT 20 | p95 / bare |",
             "|---|---|---|---|---|---|---|---|"]
    every_row, first_rows = big["search"]
    for name, times in every_row.items():
        s, b = store[name]
        p95, early = percentile(times, 95), first_rows[name]
        lines.append(f"| {name} | {ms(statistics.median(times))} | {ms(p95)} | {ms(statistics.median(early))} | "
                     f"{ms(percentile(early, 95))} | {s * 1000:.1f} ms | {b * 1000:.2f} ms | {p95 / max(b, 1e-6):.0f}× |")
    runs = big["typing"]
    worst = [w for w, _, _ in runs]
    backwards = [shown for _, forward, shown in runs if not forward]
    lines += ["", f"Typing `{TYPED}` at 15 keys/s, {len(runs)} runs: longest event-loop stall per run median "
              f"{ms(statistics.median(worst))}, max {ms(max(worst))} "
              f"({', '.join(f'{w * 1000:.0f}' for w in sorted(worst))} ms); results "
              + ("only moved forward in every run" if not backwards else
                 f"went back to an older query in {len(backwards)} (shown: {', '.join(backwards[0])})") + ".", "",
              "| screen | big home median | p95 | empty home median | p95 |", "|---|---|---|---|---|"]
    names = ["tree open", "tree open, a session written since", "search open",
             *(name for name in big if "first open" in name)]
    for name in names:
        b, e = big[name], empty[name]
        lines.append(f"| {name} | {ms(statistics.median(b))} | {ms(percentile(b, 95))} | "
                     f"{ms(statistics.median(e))} | {ms(percentile(e, 95))} |")
    p = big["preview"]
    lines.append(f"| preview (500 messages) | {ms(statistics.median(p))} | {ms(percentile(p, 95))} | | |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--launches", type=int, default=5, help="fresh apps for the first opens")
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to results/")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big_home = prepare_big(Path(tmp))
        preview_session = long_session(big_home)
        empty_home = Path(tmp) / "empty"
        write_config(empty_home)
        store = store_times(big_home, args.repeat)
        big = asyncio.run(run_app(big_home, args.repeat, search=True, preview_session=preview_session))
        empty = asyncio.run(run_app(empty_home, args.repeat, search=False, preview_session=None))
        for home, result in ((big_home, big), (empty_home, empty)):
            result.update(asyncio.run(first_opens(home, args.launches)))
    text = report(big, empty, store, args.repeat)
    publish("tui_browse", text, record=not args.no_record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
