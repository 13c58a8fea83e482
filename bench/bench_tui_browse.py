"""Browse bench: session-tree open time and search keystroke-to-results time, big home vs small home.

    .venv/bin/python -m bench.bench_tui_browse [--repeat N]

Both screens run headless (``App.run_test``) over a 10,000-session / 200,000-message synthetic home
and over a 10-session / 100-message one; the figure that matters is the ratio between the two in
the same run (targets: tree ≤ 2×, search ≤ 3×). Search times include the 150 ms typing debounce,
which is the same on both homes.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable

from textual.app import App
from textual.widgets import Input

from bench.synthetic_home import build_home, cached_home
from engine.store import SessionDB
from hermes_tui.screens.search import SearchScreen
from hermes_tui.screens.sessions import SessionsScreen

SIZE = (140, 40)
QUERIES = ("deploy", "kubernetes error", "schema*", "支付服务", "迁移")


class Host(App):
    pass


async def until(app: App, condition: Callable[[], object], timeout: float = 30.0) -> float:
    """Seconds until ``condition`` holds, polling every millisecond while the app runs."""
    start = time.perf_counter()
    while not condition():
        if time.perf_counter() - start > timeout:
            raise TimeoutError(str(condition))
        await asyncio.sleep(0.001)
    return time.perf_counter() - start


async def tree_open(db: SessionDB, repeat: int) -> list[float]:
    times = []
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(repeat):
            screen = SessionsScreen(db)
            start = time.perf_counter()
            await app.push_screen(screen)
            await until(app, lambda: screen.tree.root.children)
            await pilot.pause()
            times.append(time.perf_counter() - start)
            app.pop_screen()
            await pilot.pause()
    return times


async def search_latency(db: SessionDB, repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        screen = SearchScreen(db)
        await app.push_screen(screen)
        await until(app, lambda: screen.shown_query == "")
        box = screen.query_one("#query", Input)
        for query in QUERIES:
            for _ in range(repeat):
                box.value = ""
                await until(app, lambda: screen.shown_query == "")
                start = time.perf_counter()
                box.value = query  # the last keystroke of the query
                await until(app, lambda q=query: screen.shown_query == q)
                await pilot.pause()
                out.setdefault(query, []).append(time.perf_counter() - start)
    return out


def measure(home: Path, repeat: int) -> tuple[float, dict[str, float]]:
    with SessionDB.open_home(home) as db:
        tree = statistics.median(asyncio.run(tree_open(db, repeat)))
        search = {q: statistics.median(t) for q, t in asyncio.run(search_latency(db, repeat)).items()}
    return tree, search


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big"
        shutil.copytree(cached_home(), big)
        small = build_home(Path(tmp) / "small", sessions=10, messages=100)
        big_tree, big_search = measure(big, args.repeat)
        small_tree, small_search = measure(small, args.repeat)
    print(f"tree open: big {big_tree * 1000:.0f} ms, small {small_tree * 1000:.0f} ms, "
          f"ratio {big_tree / small_tree:.2f}× (target ≤ 2×)")
    print("| query | 200k-message home | 100-message home | ratio (target ≤ 3×) |")
    print("|---|---|---|---|")
    for query in QUERIES:
        b, s = big_search[query], small_search[query]
        print(f"| `{query}` | {b * 1000:.0f} ms | {s * 1000:.0f} ms | {b / s:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
