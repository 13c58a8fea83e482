"""Command palette (ctrl+p): every slash command, and every other action the app has.

Slash commands come straight from the command table. A command that needs an argument is not
run from the palette; it is typed into the prompt (``/title `` …) so the user finishes it there.
The other actions — stop and retry, panels and the approval queue, themes — are listed by the
app as ``PaletteAction`` rows. Approval decisions keep their safety rules here too: the bulk
ones ask first (the same dialog as ctrl+a / ctrl+d), and a single write is decided in the queue
(enter / delete on its row), which the palette only opens.

Textual builds a provider itself, so it cannot be handed its dependencies: it asks the app it
runs in for what ``SlashHost`` / ``ActionHost`` offer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from hermes_tui.widgets.literal import literal_line

if TYPE_CHECKING:
    from hermes_tui.slash_commands import SlashCommand, SlashRegistry


class SlashHost(Protocol):
    """What the palette needs from the app: the command table, and two ways to use a command."""

    slash_registry: "SlashRegistry"

    def prefill_prompt(self, text: str) -> None: ...

    async def run_slash(self, text: str) -> None: ...


@dataclass(frozen=True)
class PaletteAction:
    """One palette row: ``title`` is ours unless ``literal`` (a theme's name is data)."""

    title: str
    help: str
    run: Callable[[], Any]
    literal: bool = False


class ActionHost(Protocol):
    def palette_actions(self) -> list[PaletteAction]: ...


class SlashCommandsProvider(Provider):
    """Every slash command as a palette command, searchable by name and summary."""

    @property
    def host(self) -> SlashHost:
        return cast(SlashHost, self.app)

    def _entries(self) -> list[tuple[str, str, "SlashCommand"]]:
        return [(f"/{c.name}", c.summary, c) for c in self.host.slash_registry]

    def _callback(self, command: "SlashCommand"):
        if command.args and not command.args.startswith("["):
            return partial(self.host.prefill_prompt, f"/{command.name} ")
        return partial(self.host.run_slash, f"/{command.name}")

    async def discover(self) -> Hits:
        for name, summary, command in self._entries():
            yield DiscoveryHit(name, self._callback(command), help=summary)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, summary, command in self._entries():
            score = max(matcher.match(name), matcher.match(summary) * 0.8)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._callback(command), help=summary)


class AppActionsProvider(Provider):
    """The app's actions besides the slash commands, as the app lists them right now."""

    def _actions(self) -> list[PaletteAction]:
        return cast(ActionHost, self.app).palette_actions()

    async def discover(self) -> Hits:
        for action in self._actions():
            yield DiscoveryHit(_display(action), action.run, help=action.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for action in self._actions():
            score = max(matcher.match(action.title), matcher.match(action.help) * 0.8)
            if score > 0:
                shown = _display(action) if action.literal else matcher.highlight(action.title)
                yield Hit(score, shown, action.run, help=action.help)


def _display(action: PaletteAction) -> Content:
    return literal_line(action.title) if action.literal else Content(action.title)
