"""The footer shows its keys in the first compose and rebuilds once per burst of binding changes."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from hermes_tui.widgets.footer import CoalescingFooter


class FooterApp(App):
    BINDINGS = [Binding("f7", "bell", "Sessions"), Binding("f9", "later", "Later")]

    def __init__(self) -> None:
        super().__init__()
        self.keys_at_mount: list[str] = []
        self.recomposes = 0
        self.show_later = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.show_later if action == "later" else True

    def compose(self) -> ComposeResult:
        yield Input()
        yield CoalescingFooter()

    def on_mount(self) -> None:
        footer = self.query_one(CoalescingFooter)
        self.keys_at_mount = [key.key for key in footer.query(FooterKey)]
        original = footer.recompose

        async def counted() -> None:
            self.recomposes += 1
            await original()

        footer.recompose = counted  # type: ignore[method-assign]


async def test_keys_are_in_the_first_compose_before_any_bindings_signal() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "f7" in app.keys_at_mount
        assert "ctrl+p" in app.keys_at_mount  # the palette key, drawn with the first frame


async def test_a_burst_of_binding_changes_recomposes_once() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        app.recomposes = 0
        for _ in range(5):
            app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert app.recomposes == 1
        footer = app.query_one(CoalescingFooter)
        assert [key.key for key in footer.query(FooterKey)] == app.keys_at_mount


async def test_a_change_after_the_recompose_is_shown() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "f9" not in app.keys_at_mount
        app.show_later = True
        app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        footer = app.query_one(CoalescingFooter)
        assert "f9" in [key.key for key in footer.query(FooterKey)]
