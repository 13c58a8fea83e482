"""The footer shows its keys with the first frame and follows later binding changes.

How often it recomposes is an implementation detail (the launch bench measures what it costs);
what a person sees is tested here.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from hermes_tui.widgets.footer import CoalescingFooter
from tests.tui.helpers import wait_until


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
