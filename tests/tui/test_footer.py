"""The footer shows its keys with the first frame and follows later binding changes.

How often it recomposes is an implementation detail (the launch bench measures what it costs);
what a person sees is tested here.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from hermes_tui.widgets.footer import CoalescingFooter
from tests.tui.helpers import drawn_frames, wait_until


class FooterApp(App):
    BINDINGS = [Binding("f7", "bell", "Sessions"), Binding("f9", "later", "Later")]

    def __init__(self) -> None:
        super().__init__()
        self.keys_at_mount: list[str] = []
        self.show_later = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.show_later if action == "later" else True

    def compose(self) -> ComposeResult:
        yield Input()
        yield CoalescingFooter()

    def on_mount(self) -> None:
        self.keys_at_mount = [key.key for key in self.query_one(CoalescingFooter).query(FooterKey)]


async def test_keys_are_in_the_first_compose_before_any_bindings_signal() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "f7" in app.keys_at_mount
        assert "ctrl+p" in app.keys_at_mount  # the palette key, drawn with the first frame


async def test_a_burst_of_binding_changes_ends_with_the_keys_of_the_last() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "f9" not in app.keys_at_mount
        footer = app.query_one(CoalescingFooter)
        for show in (True, False, True):
            app.show_later = show
            app.screen.refresh_bindings()
        await wait_until(pilot, lambda: "f9" in [key.key for key in footer.query(FooterKey)])
        assert {"f7", "ctrl+p"} <= {key.key for key in footer.query(FooterKey)}


def shown_footer_keys(footer: CoalescingFooter) -> list[str]:
    return [key.key for key in footer.query(FooterKey) if key.display]


async def test_a_key_that_goes_is_hidden_in_the_same_frame_and_one_that_comes_is_composed() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        footer = app.query_one(CoalescingFooter)
        app.show_later = True
        app.screen.refresh_bindings()
        await wait_until(pilot, lambda: "f9" in shown_footer_keys(footer))
        keys = list(footer.query(FooterKey))
        frames = drawn_frames(app, lambda: shown_footer_keys(footer))
        app.show_later = False
        app.screen.refresh_bindings()
        await wait_until(pilot, lambda: frames)
        assert "f9" not in frames[0]  # gone in the first frame drawn after the change
        assert list(footer.query(FooterKey)) == keys  # hidden in place: nothing was composed again
        assert shown_footer_keys(footer) == ["f7", "ctrl+p"]
        app.show_later = True
        app.screen.refresh_bindings()
        await wait_until(pilot, lambda: "f9" in shown_footer_keys(footer))
        assert shown_footer_keys(footer) == ["f7", "f9", "ctrl+p"]


class Results(Widget, can_focus=True):
    BINDINGS = [Binding("s", "summarize", "Summarize")]

    def action_summarize(self) -> None:
        pass


class TwoKeysApp(App):
    """One action bound to two keys: ``s`` while the results have focus, ``ctrl+s`` anywhere."""

    BINDINGS = [Binding("ctrl+s", "summarize", "Summarize")]

    def compose(self) -> ComposeResult:
        yield Results()
        yield Input()
        yield CoalescingFooter()

    def action_summarize(self) -> None:
        pass


async def test_an_action_still_bound_to_another_key_is_redrawn_with_that_key() -> None:
    app = TwoKeysApp()
    async with app.run_test() as pilot:
        app.query_one(Results).focus()
        footer = app.query_one(CoalescingFooter)
        await wait_until(pilot, lambda: shown_footer_keys(footer) == ["s", "ctrl+p"])  # a key shows its action's first binding
        await pilot.pause()  # the recompose that drew it has ended
        app.query_one(Input).focus()
        await wait_until(pilot, lambda: shown_footer_keys(footer) == ["ctrl+s", "ctrl+p"])
