"""A turn in the app: it starts in one place, ends in one place, and ``busy`` shows it everywhere.

``busy`` is the main screen's reactive: the prompt dims, the status bar shows its phase ("● …") and
the footer offers "Stop reply" for exactly as long as it is set, and it is cleared by the one
end of a turn: its reply drawn to the end, or else its worker returning or raising. The agent's
work after the reply (titles, reviews, the compression check) never keeps the turn shown running.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets._footer import FooterKey

from engine.errors import NotFoundError
from hermes_tui.app import HermesApp
from hermes_tui.loopback_llm import Hold, LoopbackLLM, Reply
from hermes_tui.widgets.footer import CoalescingFooter
from tests.tui.helpers import SIZE, close_app, drawn_frames, make_app, ready, screen_text, wait_until


def count_turn_ends(app: HermesApp) -> list[None]:
    """Each end of a turn appends one item (the app's own end still runs)."""
    ends: list[None] = []
    end = app._turn_ended

    def counted() -> None:
        ends.append(None)
        end()

    app._turn_ended = counted  # type: ignore[method-assign]
    return ends


def footer_labels(app: HermesApp) -> list[str]:
    footer = app.main.query_one(CoalescingFooter)
    return [key.description for key in footer.query(FooterKey) if key.display]


def shows_busy(app: HermesApp) -> bool:
    """What a person sees of ``busy``: all three places agree, or this says which did not."""
    prompt = app.main.prompt.has_class("-busy")
    status = str(app.main.status.render()).startswith("● ")
    footer = "Stop reply" in footer_labels(app)
    assert prompt == status == footer, f"prompt {prompt}, status bar {status}, footer {footer}"
    return prompt


async def test_a_turn_ends_once_and_busy_drives_the_prompt_status_bar_and_footer(home: Path, llm: LoopbackLLM) -> None:
    hold = Hold(after_chars=10)
    llm.push(Reply(text="A reply that is held part way through.", hold=hold))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        ends = count_turn_ends(app)
        assert not app.busy and not shows_busy(app)
        app.main.prompt.text = "hello"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.busy and "Stop reply" in footer_labels(app))
        assert shows_busy(app)
        drawn = drawn_frames(app, lambda: shows_busy(app))  # each frame from here: whether it showed the turn running
        hold.release()
        await wait_until(pilot, lambda: not app.busy and "Stop reply" not in footer_labels(app))
        await wait_until(pilot, lambda: drawn and not drawn[-1])
        await pilot.pause(0.2)  # a second end, were there one, would have arrived by now
        assert ends == [None]
        assert not shows_busy(app)
        assert "Prompt" not in footer_labels(app)  # escape's other meaning is not shown either way
        # The end is one frame: the status line and the footer never disagree in a frame drawn.
        assert drawn == sorted(drawn, reverse=True)
    close_app(app)


def resume_nothing(app: HermesApp) -> None:
    """``/resume`` of a session that does not exist: the agent raises NotFoundError in the worker."""
    app.main.prompt.text = "/resume no-such-session"
    app.main.prompt.submit()


def raise_at_once(app: HermesApp) -> None:
    def fails(_emit, _cancel) -> None:
        raise NotFoundError("no-such-session: nothing to do here.")

    app._start(fails)


@pytest.mark.parametrize("start", [resume_nothing, raise_at_once])
async def test_a_worker_that_raises_still_ends_its_turn_once(home: Path, llm: LoopbackLLM, start) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        ends = count_turn_ends(app)
        start(app)
        await wait_until(pilot, lambda: ends and not app.busy)
        await pilot.pause(0.2)  # a second end, were there one, would have arrived by now
        assert ends == [None]
        assert not shows_busy(app)
        assert "no-such-session" in screen_text(app)  # the error is shown in the chat
    close_app(app)


def hold_after_turn(app: HermesApp) -> threading.Event:
    """The agent's work after each reply blocks its worker until the returned event is set."""
    release = threading.Event()
    after_turn = app.agent._after_turn

    def held(*args) -> None:
        assert release.wait(30), "the work after the reply was never released"
        after_turn(*args)

    app.agent._after_turn = held  # type: ignore[method-assign]
    return release


async def send_until_shown_finished(pilot, app: HermesApp, text: str) -> None:
    app.main.prompt.text = text
    await pilot.press("enter")
    await wait_until(pilot, lambda: not app.busy)


def stored_replies(app: HermesApp) -> list[str]:
    session_id = app.agent.session_id
    assert session_id is not None
    return [m.text for m in app.db.get_messages(session_id, offset=0, limit=100) if m.role == "assistant"]


async def test_the_turn_is_shown_finished_with_its_last_line_while_the_work_after_it_still_runs(
        home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="First part of the answer.\n\nThe very last line of the reply."))
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        ends, release = count_turn_ends(app), hold_after_turn(app)
        await send_until_shown_finished(pilot, app, "hello")
        assert app._worker_running  # the work after the reply is still held
        assert "The very last line of the reply." in screen_text(app)
        assert not shows_busy(app) and ends == [None]
        release.set()
        await wait_until(pilot, lambda: not app._worker_running)
        assert ends == [None]
        assert stored_replies(app) == ["First part of the answer.\n\nThe very last line of the reply."]
    close_app(app)


async def test_a_message_sent_while_the_work_after_a_reply_runs_waits_for_it_and_both_are_stored_once(
        home: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(text="Reply one."), Reply(text="Reply two."))
    llm.side_responder = lambda _request: Reply(text="Numbers")  # the auto-title takes no scripted step
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        ends, release = count_turn_ends(app), hold_after_turn(app)
        await send_until_shown_finished(pilot, app, "one")
        app.main.prompt.text = "two"
        await pilot.press("enter")
        assert app.busy and len(ends) == 1  # the second turn runs; the first one's worker is still held
        release.set()
        await wait_until(pilot, lambda: not app.busy and not app._worker_running)
        assert ends == [None, None]
        assert stored_replies(app) == ["Reply one.", "Reply two."]
        assert "Reply two." in screen_text(app)
    close_app(app)
