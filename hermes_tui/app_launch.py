"""``hermes-tui`` with no subcommand: open the full-screen app.

Textual is imported only here, inside the function, so ``hermes-tui sessions list`` and the
other subcommands never pay for it. A bad ``-r``/``-c`` is reported before the screen opens.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_tui.context import CommandContext


def launch_app(args: argparse.Namespace, ctx: "CommandContext") -> int:
    from engine.agent import Agent
    from hermes_tui.app import HermesApp

    config, db = ctx.config, ctx.db
    db.maybe_auto_prune(config)

    def start_agent(ask_approval):
        return Agent.start(config, db, resume=args.resume, continue_title=args.continue_title,
                           ask_approval=ask_approval, source="tui")

    app = HermesApp(start_agent)
    try:
        app.run()
    finally:
        app.agent.close()
    return int(app.return_code or 0)
