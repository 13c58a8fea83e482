"""Command palette (ctrl+p) entries for the slash commands, straight from the same table.

A command that needs an argument is not run from the palette; it is typed into the prompt
(``/title `` …) so the user finishes it there.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from hermes_tui.app import HermesApp
    from hermes_tui.slash_commands import SlashCommand


class SlashCommandsProvider(Provider):
    """Every slash command as a palette command, searchable by name and summary."""

    def _entries(self) -> list[tuple[str, str, "SlashCommand"]]:
        app: HermesApp = self.app  # type: ignore[assignment]
        return [(f"/{c.name}", c.summary, c) for c in app.slash_registry]

    def _callback(self, command: "SlashCommand"):
        app: HermesApp = self.app  # type: ignore[assignment]
        if command.args and not command.args.startswith("["):
            return partial(app.prefill_prompt, f"/{command.name} ")
        return partial(app.run_slash, f"/{command.name}")

    async def discover(self) -> Hits:
        for name, summary, command in self._entries():
            yield DiscoveryHit(name, self._callback(command), help=summary)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, summary, command in self._entries():
            score = max(matcher.match(name), matcher.match(summary) * 0.8)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._callback(command), help=summary)
