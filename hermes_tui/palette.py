"""Command palette (ctrl+p) entries for the slash commands, straight from the same table.

A command that needs an argument is not run from the palette; it is typed into the prompt
(``/title `` …) so the user finishes it there. Textual builds the provider itself, so it cannot
be handed its dependencies: it asks the app it runs in for the little ``SlashHost`` offers.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from hermes_tui.slash_commands import SlashCommand, SlashRegistry


class SlashHost(Protocol):
    """What the palette needs from the app: the command table, and two ways to use a command."""

    slash_registry: "SlashRegistry"

    def prefill_prompt(self, text: str) -> None: ...

    async def run_slash(self, text: str) -> None: ...


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
