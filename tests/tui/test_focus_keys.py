"""Focus and keys (issue 18 §2): escape brings you home from anywhere, focus is visible, the chat
scrolls from the prompt, ``/`` lists the commands, ctrl+p lists every action, any message copies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from textual.widget import Widget
from textual.widgets import Button
from textual.widgets._collapsible import CollapsibleTitle

from engine.memory import PendingQueue
from hermes_tui.app import HermesApp
from hermes_tui.loopback_llm import HttpError, Hold, LoopbackLLM, Reply, ToolCallSpec
from hermes_tui.screens.confirm import Confirm
from hermes_tui.screens.search import SearchScreen
from hermes_tui.screens.sessions import SessionsScreen
from hermes_tui.widgets.approval_queue import PendingList
from hermes_tui.widgets.chat_log import ChatLog
from hermes_tui.widgets.slash_menu import SlashMenu
from tests.tui.helpers import SIZE, close_app, make_app, ready, screen_text, turn_over, type_text, wait_until
from tests.tui.test_flows import send
from tests.tui.test_turn_lifecycle import footer_labels

SEARCH = ToolCallSpec("session_search", json.dumps({"query": "deploys"}), id="call_s1")


@pytest.fixture
def busy_home(home: Path) -> Path:
    """A staged write in the queue and an entry in memory, so every side widget can take focus."""
    PendingQueue(home).stage({"action": "add", "target": "memory", "content": "Deploys go out on Tuesdays"},
                             origin="foreground")
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text("The staging database is restored nightly", encoding="utf-8")
    return home


async def a_chat_with_a_tool_row_and_a_button(pilot, llm: LoopbackLLM) -> None:
    """A reply with a tool call (a tool row), then a failed turn (its Retry button)."""
    app = pilot.app
    llm.push(Reply(text="Looking.", tool_calls=[SEARCH]), Reply(text="Found it."), HttpError(400), HttpError(400))
    await send(pilot, "when do deploys go out?")
    await wait_until(pilot, lambda: turn_over(app) and app.main.chat.query(CollapsibleTitle))
    await send(pilot, "and the database?")
    await wait_until(pilot, lambda: turn_over(app) and app.main.chat.query(Button))


def focusable(app: HermesApp) -> list[Widget]:
    """Every widget on the main screen that can take focus, the prompt aside."""
    return [w for w in app.main.focus_chain if w is not app.main.prompt]


async def test_escape_brings_focus_home_from_every_focusable_widget(busy_home: Path, llm: LoopbackLLM) -> None:
    app = make_app(busy_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await a_chat_with_a_tool_row_and_a_button(pilot, llm)
        kinds = {type(w) for w in focusable(app)}
        assert {ChatLog, CollapsibleTitle, Button, PendingList} <= kinds and len(focusable(app)) >= 6
        for widget in focusable(app):
            widget.focus()
            await pilot.pause()
            assert app.focused is widget
            await pilot.press("escape")
            assert app.focused is app.main.prompt, f"escape from {widget!r}"
        assert PendingQueue(busy_home).count() == 1
    close_app(app)


async def test_escape_goes_home_first_while_a_reply_streams_and_stops_it_from_there(
        busy_home: Path, llm: LoopbackLLM) -> None:
    hold = Hold(after_chars=5)
    llm.push(Reply(text="A long answer, held part way.", hold=hold))
    app = make_app(busy_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "explain")
        await wait_until(pilot, lambda: app.busy and app.main.chat.entries[-1].text)
        await pilot.press("f3")
        assert isinstance(app.focused, PendingList) and "Stop reply" not in footer_labels(app)
        await pilot.press("escape")
        assert app.focused is app.main.prompt and app.busy  # home, the reply still streaming
        assert "Stop reply" in footer_labels(app)  # at home, escape's meaning is shown again
        await pilot.press("escape")
        await wait_until(pilot, lambda: turn_over(app), timeout=5)  # the second escape stopped the reply
        hold.release()
    close_app(app)


async def test_closing_a_browser_or_the_palette_brings_focus_home_and_a_dialog_back_to_the_queue(
        busy_home: Path) -> None:
    app = make_app(busy_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for keys, shown in ((("f7",), SessionsScreen), (("ctrl+f",), SearchScreen), (("ctrl+p",), CommandPalette)):
            app.main.chat.focus()
            await pilot.pause()
            await pilot.press(*keys)
            await wait_until(pilot, lambda: isinstance(app.screen, shown))
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.main)
            assert app.focused is app.main.prompt, f"after {shown.__name__}"
        await pilot.press("f3", "ctrl+a")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main)
        assert isinstance(app.focused, PendingList)  # the review goes on where it was
        await pilot.press("escape")
        assert app.focused is app.main.prompt
        assert PendingQueue(busy_home).count() == 1  # the dialog's escape decided nothing
    close_app(app)


def looks(widget: Widget) -> tuple:
    """What a person sees of a widget's state: its own styles and those of the boxes around it."""
    seen = []
    for node in [widget, *widget.ancestors_with_self[1:4]]:
        styles = node.styles
        seen.append((styles.background, styles.background_tint, styles.color, styles.text_style,
                     styles.outline_left, styles.border_top, styles.border_left))
    return tuple(seen)


async def test_focus_is_visible_on_every_focusable_widget(busy_home: Path, llm: LoopbackLLM) -> None:
    app = make_app(busy_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await a_chat_with_a_tool_row_and_a_button(pilot, llm)
        for widget in [app.main.prompt, *focusable(app)]:
            (app.main.chat if widget is app.main.prompt else app.main.prompt).focus()
            await pilot.pause()
            unfocused = looks(widget)
            widget.focus()
            await pilot.pause()
            assert looks(widget) != unfocused, f"focus on {widget!r} does not show"
    close_app(app)


async def test_page_keys_scroll_the_chat_while_the_prompt_has_focus(home: Path, llm: LoopbackLLM) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat = app.main.chat
        for n in range(12):
            await app._info(f"Note {n}\n\n" + "line\n\n" * 4)
        await wait_until(pilot, lambda: chat.max_scroll_y > 2 * chat.size.height and chat.scroll_y == chat.max_scroll_y)
        await pilot.press("pageup")
        assert app.focused is app.main.prompt and chat.scroll_y < chat.max_scroll_y and not chat.following
        await pilot.press("home")  # the prompt is empty: home is the chat's top
        await wait_until(pilot, lambda: chat.scroll_y == 0)
        await pilot.press("pagedown")
        assert 0 < chat.scroll_y < chat.max_scroll_y
        await pilot.press("end")
        await wait_until(pilot, lambda: chat.scroll_y == chat.max_scroll_y and chat.following)
        app.main.prompt.text = "draft"
        app.main.prompt.move_cursor((0, 5))
        await pilot.press("home")  # with text, home edits the line
        assert app.main.prompt.cursor_location == (0, 0) and chat.scroll_y == chat.max_scroll_y
    close_app(app)


def menu_rows(app: HermesApp) -> list[str]:
    return [c.name for c in app.main.query_one(SlashMenu).commands]


async def test_slash_in_an_empty_prompt_lists_the_commands_and_filters_as_you_type(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        menu = app.main.query_one(SlashMenu)
        assert not menu.display
        await pilot.press("slash")
        assert menu.is_open and menu_rows(app) == [c.name for c in app.slash_registry]
        assert "rename this session" in screen_text(app)  # each row says what the command does
        await type_text(pilot, "se")
        assert menu_rows(app) == ["sessions", "search"]
        await pilot.press("down", "tab")
        assert app.main.prompt.text == "/search " and not menu.is_open
        app.main.prompt.text = ""
        await type_text(pilot, "/ti")
        await pilot.press("enter")  # /title needs its NAME: it is prefilled, not run
        assert app.main.prompt.text == "/title " and not menu.is_open
        app.main.prompt.text = ""
        await type_text(pilot, "/clip")  # a word of the summary finds it
        assert menu_rows(app) == ["copy"]
        await pilot.press("escape")  # closes the list, keeps the text
        assert not menu.is_open and app.main.prompt.text == "/clip" and app.focused is app.main.prompt
        app.main.prompt.text = ""
        await type_text(pilot, "/he")
        await pilot.press("enter")  # a command that needs nothing runs
        await wait_until(pilot, lambda: "list commands and keys" in screen_text(app))
        assert app.main.prompt.text == ""
    close_app(app)


async def palette_titles(pilot, query: str) -> list[str]:
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await type_text(pilot, query)
    options = app.screen.query_one(CommandList)
    await wait_until(pilot, lambda: options.option_count > 0)
    await pilot.pause(0.2)
    return [str(options.get_option_at_index(i).prompt).split("\n")[0] for i in range(options.option_count)]


async def test_the_palette_lists_every_app_action_and_keeps_approvals_guarded(busy_home: Path) -> None:
    app = make_app(busy_home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        titles = [a.title for a in app.palette_actions()]
        for title in ("Retry the last message", "Toggle the memory panel", "Review pending memory writes",
                      "Approve all pending memory writes…", "Reject all pending memory writes…",
                      "Undo the last approval or rejection", "Theme: textual-light"):
            assert title in titles
        assert "Toggle the memory panel" in await palette_titles(pilot, "memory panel")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is app.main and not app.main.query_one("#side").display)
        assert "Approve all pending memory writes…" in await palette_titles(pilot, "approve all")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm))  # asks first, as ctrl+a does
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main)
        assert PendingQueue(busy_home).count() == 1
        await palette_titles(pilot, "theme: textual-light")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.theme == "textual-light")
    close_app(app)


async def test_any_message_in_the_chat_can_be_selected_and_copied(home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="The first answer."), HttpError(400))
    app = make_app(home)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first question")
        await wait_until(pilot, lambda: turn_over(app) and app.main.chat.last_reply_text())
        chat = app.main.chat
        chat.focus()
        await pilot.pause()
        kinds = [e.kind for e in chat.entries]
        steps = len(kinds) - 1 - kinds.index("user")
        await pilot.press("up", *["up"] * steps, "enter")  # the first up selects the newest item
        assert copied == ["first question"]
        await pilot.press("down", "f5")
        assert copied[-1] == "The first answer."
        app.main.prompt.focus()
        await pilot.press("f5")  # from the prompt: the last reply, as before
        assert copied[-1] == "The first answer."
    close_app(app)
