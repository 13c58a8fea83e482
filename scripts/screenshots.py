"""Regenerate ``screenshots/*.svg``: every main screen, from the demo's data, with a fixed clock.

    .venv/bin/python scripts/screenshots.py [OUT_DIR]

Each shot runs the real app headless (``App.run_test``) over a fresh demo home and its scripted
model, so the pictures show exactly what ``hermes-tui --demo`` shows. Time is pinned and random
ids are made sequential, so running it twice gives the same files.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Awaitable, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual.pilot import Pilot  # noqa: E402

from engine import clock  # noqa: E402
from engine.agent import Agent  # noqa: E402
from engine.config import load_config  # noqa: E402
from engine.store import SessionDB  # noqa: E402
from hermes_tui.app import HermesApp  # noqa: E402
from hermes_tui.demo.run import demo_home  # noqa: E402
from hermes_tui.screens.memory_history import MemoryHistoryScreen  # noqa: E402
from hermes_tui.screens.search import SearchScreen  # noqa: E402
from hermes_tui.screens.sessions import SessionsScreen  # noqa: E402
from hermes_tui.screens.usage import UsageScreen  # noqa: E402
from hermes_tui.themes import register_themes  # noqa: E402
from hermes_tui.widgets.approval_prompt import ApprovalPrompt  # noqa: E402

FIXED_NOW = 1_796_040_000.0  # 2026-11-30 12:00 UTC
SIZE = (140, 40)
OUT = Path(__file__).resolve().parents[1] / "screenshots"
Shot = Callable[[Pilot, HermesApp], Awaitable[None]]


async def wait_for(pilot: Pilot, condition: Callable[[], object], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"screenshot step did not finish: {condition}")
        await pilot.pause(0.05)


async def send(pilot: Pilot, app: HermesApp, text: str) -> None:
    app.main.prompt.text = text
    await pilot.press("enter")
    await pilot.pause(0.1)
    await wait_for(pilot, lambda: not app.busy or app.main.query(ApprovalPrompt))


async def chat(pilot: Pilot, app: HermesApp) -> None:
    app.agent.set_write_approval(False)
    await send(pilot, app, "Remember that I write Python and Go")
    await send(pilot, app, "Show me a retry helper with backoff")


async def memory_and_approvals(pilot: Pilot, app: HermesApp) -> None:
    await send(pilot, app, "remember that I deploy on Fridays")
    await wait_for(pilot, lambda: app.main.query(ApprovalPrompt))


async def _browser(pilot: Pilot, app: HermesApp, screen) -> None:
    await app.push_screen(screen)
    await pilot.pause(0.3)


async def lineage_tree(pilot: Pilot, app: HermesApp) -> None:
    screen = SessionsScreen(app.db)
    await _browser(pilot, app, screen)
    await wait_for(pilot, lambda: screen.tree.find_title("迁移支付服务 #2") is not None)
    screen.tree.move_cursor(screen.tree.find_title("迁移支付服务 #2"))
    await wait_for(pilot, lambda: screen.preview.messages)


async def search_cjk(pilot: Pilot, app: HermesApp) -> None:
    screen = SearchScreen(app.db, query="支付")
    await _browser(pilot, app, screen)
    await wait_for(pilot, lambda: screen.shown_query == "支付" and screen.query_one("#preview").focused_message)


async def memory_history(pilot: Pilot, app: HermesApp) -> None:
    """An approved staged write: where it came from (the background review's session) and its
    history, opened from the memory panel on that entry (tab, down to it, enter)."""
    staged = next(r for r in app.main.approvals.records if r.payload.get("action") == "replace")
    app.main.approvals.approve(staged.id)
    await pilot.press("tab")
    for _ in range(40):
        section = getattr(app.focused, "section", None)
        if section is not None and "qwen2.5-coder:14b" in (section.selected_entry or ""):
            break
        await pilot.press("down")
        await pilot.pause(0.05)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, MemoryHistoryScreen) and app.screen.showing is not None)
    assert "qwen2.5-coder:14b" in app.screen.showing[1]


async def prompt_cache(pilot: Pilot, app: HermesApp) -> None:
    app.agent.set_write_approval(False)
    for text in ("Show me a retry helper with backoff", "How do I run the postgres migration?", "Thanks, and a retry in Go?"):
        await send(pilot, app, text)
    app.main.prompt.text = "/usage"
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, UsageScreen) and app.screen.is_mounted)
    await wait_for(pilot, lambda: app.screen.table.row_count == 3)


async def light_theme(pilot: Pilot, app: HermesApp) -> None:
    app.theme = "hermes-light"
    await lineage_tree(pilot, app)


SHOTS: dict[str, Shot] = {
    "chat": chat,
    "memory_approvals": memory_and_approvals,
    "lineage_tree": lineage_tree,
    "search_cjk": search_cjk,
    "memory_history": memory_history,
    "light_theme": light_theme,
    "prompt_cache": prompt_cache,
}


async def take(name: str, shot: Shot, out: Path) -> Path:
    counter = itertools.count(1)
    secrets.token_hex = lambda n=4: f"{next(counter):0{2 * n}x}"  # type: ignore[assignment]
    with demo_home(tokens_per_second=None) as demo:
        config = load_config(demo.home)
        db = SessionDB.open_home(demo.home)
        # The inline approval prompt is shown as it looks once it has taken focus.
        app = HermesApp(lambda ask: Agent.start(config, db, ask_approval=ask, cwd=demo.home), db, approval_idle=0.0,
                        prebuild_browsers=False)
        try:
            async with app.run_test(size=SIZE) as pilot:
                register_themes(app, demo.home)
                app.theme = "hermes-dark"
                await wait_for(pilot, lambda: app.bridge is not None)
                app.main.prompt.cursor_blink = False
                await shot(pilot, app)
                for widget in app.screen.query("Input"):
                    widget.cursor_blink = False
                app.clear_notifications()
                await pilot.pause(0.2)
                return Path(app.save_screenshot(f"{name}.svg", str(out)))
        finally:
            app.agent.close()
            db.close()


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.mkdir(parents=True, exist_ok=True)
    os.environ["TZ"] = "UTC"
    time.tzset()
    clock.set_clock(lambda: FIXED_NOW)
    for name, shot in SHOTS.items():
        print(asyncio.run(take(name, shot, out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
