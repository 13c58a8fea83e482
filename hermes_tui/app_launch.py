"""``hermes-tui`` with no subcommand: open the full-screen app.

Textual is imported only here, inside the function, so ``hermes-tui sessions list`` and the
other subcommands never pay for it. A bad ``-r``/``-c`` is reported before the screen opens.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from hermes_tui.event_text import side_event_line

if TYPE_CHECKING:
    from engine.events import EngineEvent
    from hermes_tui.context import CommandContext

# How long quitting waits for the session-end memory review (and a title) before leaving.
EXIT_WAIT_S = 5.0


def launch_app(args: argparse.Namespace, ctx: "CommandContext") -> int:
    if args.demo:
        return launch_demo(args)
    return run_app(args, ctx)


def launch_demo(args: argparse.Namespace) -> int:
    """``--demo``: the same app over a seeded temporary home and the scripted loopback model."""
    from hermes_tui.context import CommandContext
    from hermes_tui.demo.run import DEMO_GUIDE, demo_home

    with demo_home() as demo:
        ctx = CommandContext(home=demo.home)
        try:
            return run_app(args, ctx, welcome=DEMO_GUIDE)
        finally:
            ctx.close()  # before the temporary home is removed


def run_app(args: argparse.Namespace, ctx: "CommandContext", *, welcome: str | None = None) -> int:
    from engine.agent import Agent
    from hermes_tui.app import HermesApp

    config, db = ctx.config, ctx.db  # Agent.start runs the auto-prune

    def start_agent(ask_approval):
        return Agent.start(config, db, resume=args.resume, continue_title=args.continue_title,
                           ask_approval=ask_approval, source="tui")

    app = HermesApp(start_agent, db, welcome=welcome)
    try:
        app.run()
    finally:
        # The session-end memory review runs now; its result is reported on the terminal.
        app.agent.close(on_event=_report_on_terminal)
        app.agent.wait_for_background(EXIT_WAIT_S)
    return int(app.return_code or 0)


def _report_on_terminal(event: "EngineEvent") -> None:
    line = side_event_line(event)
    if line:
        print(line, file=sys.stderr)
