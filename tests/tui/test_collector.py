"""Full collections are held while a turn streams, while the user browses and while they read
back through the chat; each reason lets go on its own, and a held collection runs in a pause
unless a turn holds it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from hermes_tui import app as app_module, collector
from hermes_tui.collector import (AFTER_TURN, BROWSING, READING, TURN, collect_held_garbage, hold_full_collections,
                                  release_full_collections)
from hermes_tui.loopback_llm import LoopbackLLM, Reply
from tests.tui.helpers import close_app, make_app, ready, turn_over, wait_until


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    normal = gc.get_threshold()
    yield normal
    release_full_collections()
    gc.set_threshold(*normal)


def full_collections_held() -> bool:
    return gc.get_threshold()[2] == collector._HELD


def test_each_reason_releases_only_its_own_hold(thresholds: tuple[int, int, int]) -> None:
    hold_full_collections(TURN)
    hold_full_collections(BROWSING)
    release_full_collections(TURN)  # the turn ended while the user browses: still held
    assert full_collections_held()
    release_full_collections(BROWSING)
    assert gc.get_threshold() == thresholds


@pytest.mark.parametrize("reason", [BROWSING, READING, AFTER_TURN])
def test_the_held_collection_runs_in_a_pause_unless_a_turn_holds_it(thresholds: tuple[int, int, int], reason: str) -> None:
    hold_full_collections(reason)
    hold_full_collections(TURN)
    for _ in range(thresholds[2] + 1):
        gc.collect(1)  # as many young collections as make a full one due
    assert not collect_held_garbage()  # a reply streams: its frames come first
    release_full_collections(TURN)
    assert collect_held_garbage()
    assert gc.get_count()[2] == 0
    assert full_collections_held() == (reason != AFTER_TURN)  # a finished turn's hold ends with its pause


async def test_a_browser_holds_full_collections_until_the_chat_is_back(home) -> None:
    app = make_app(home)
    async with app.run_test() as pilot:
        await ready(pilot)
        assert not full_collections_held()
        await pilot.press("f7")  # the session browser
        await wait_until(pilot, lambda: app.screen is not app.main)
        assert full_collections_held()
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main)
        assert not full_collections_held()
    close_app(app)


async def test_reading_back_through_the_chat_holds_full_collections_until_it_follows_again(home) -> None:
    app = make_app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        chat = app.main.chat
        for n in range(8):
            await app._info(f"Note {n}\n\n" + "line\n\n" * 4)
        await wait_until(pilot, lambda: chat.max_scroll_y > chat.size.height and chat.scroll_y == chat.max_scroll_y)
        assert not full_collections_held()
        await pilot.press("pageup")
        await wait_until(pilot, lambda: chat.scroll_y < chat.max_scroll_y)
        assert full_collections_held()
        await pilot.press("end")
        await wait_until(pilot, lambda: chat.following and chat.scroll_y == chat.max_scroll_y)
        assert not full_collections_held()
    close_app(app)


async def test_a_finished_turn_leaves_its_held_collection_to_the_next_pause(
        home, llm: LoopbackLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    llm.push(Reply(text="An answer."))
    monkeypatch.setattr(app_module, "IDLE_COLLECT_S", 600.0)  # the pause comes when this test says
    app = make_app(home)
    async with app.run_test() as pilot:
        await ready(pilot)
        app.main.prompt.text = "hello"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turn_over(app) and not app._worker_running)
        # Released at once, the due collection ran before the footer's finished keys were drawn.
        assert full_collections_held()
        collect_held_garbage()  # the user paused
        assert not full_collections_held()
    close_app(app)
