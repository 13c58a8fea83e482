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
    from engine.agent import Agent
    from engine.events import EngineEvent
    from hermes_tui.app import HermesApp
    from hermes_tui.context import CommandContext

# How long quitting waits for the session-end memory review (and a title) before leaving.
EXIT_WAIT_S = 5.0
# Quitting during a request: how long the cancelled turn gets to store what was shown.
CANCELLED_TURN_WAIT_S = 0.5
SKIPPED_REVIEW = "hermes-tui: you quit during a request, so the session-end memory review was skipped."


def launch_app(args: argparse.Namespace, ctx: "CommandContext", note: str = "") -> int:
    """The app over the user's home; ``note`` (a home just created) is shown once in its chat.
    The no-key notice offers the demo: the app then ends and the demo starts in its place."""
    from hermes_tui.app import START_DEMO

    if args.demo:
        return launch_demo(args)
    app = run_app(args, ctx, notes=(note,) if note else ())
    if app.return_value == START_DEMO:
        ctx.close()
        return launch_demo(argparse.Namespace(**{**vars(args), "resume": None, "continue_title": None}))
    return int(app.return_code or 0)


def launch_demo(args: argparse.Namespace) -> int:
    """``--demo``: the same app over a seeded temporary home and the scripted loopback model."""
    from hermes_tui.context import CommandContext
    from hermes_tui.demo.run import DEMO_GUIDE, demo_home

    with demo_home() as demo:
        ctx = CommandContext(home=demo.home)
        try:
            return int(run_app(args, ctx, welcome=DEMO_GUIDE).return_code or 0)
        finally:
            ctx.close()  # before the temporary home is removed


def run_app(args: argparse.Namespace, ctx: "CommandContext", *, welcome: str | None = None,
            notes: tuple[str, ...] = ()) -> "HermesApp":
    """Run the app to its end and return it (its ``return_code``, and ``return_value``)."""
    from engine.agent import Agent
    from hermes_tui.app import HermesApp

    config, db = ctx.config, ctx.db  # Agent.start runs the auto-prune

    def start_agent(ask_approval):
        return Agent.start(config, db, resume=args.resume, continue_title=args.continue_title,
                           ask_approval=ask_approval, source="tui")

    app = HermesApp(start_agent, db, welcome=welcome, notes=notes)
    try:
        app.run()
    finally:
        close_agent(app.agent, quit_mid_turn=app.quit_mid_turn)
    return app


def close_agent(agent: "Agent", *, quit_mid_turn: bool) -> None:
    """End the session as the screen closes.

    Normally the session-end memory review runs now (its result reported on the terminal) and
    is waited for a bounded time. Quitting during a request means the model is slow or silent
    right now, and the user asked to leave: the cancelled turn stores what was shown, the
    session ends, and no further call to that model is waited for.
    """
    if quit_mid_turn:
        agent.wait_for_turn(CANCELLED_TURN_WAIT_S)
        agent.close()
        print(SKIPPED_REVIEW, file=sys.stderr)
        return
    agent.close(on_event=_report_on_terminal)
    agent.wait_for_background(EXIT_WAIT_S)


def _report_on_terminal(event: "EngineEvent") -> None:
    line = side_event_line(event)
    if line:
        print(line, file=sys.stderr)
