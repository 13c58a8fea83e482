"""``hermes-tui chat -q TEXT``: one full turn without the UI, the reply streamed to stdout.

Non-interactive by definition, so memory writes under approval are staged, never asked.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.errors import BadInputError, HermesError
from engine.events import EngineEvent, TextDelta, TurnDone, TurnFailed
from hermes_tui.event_text import side_event_line


# A title and an interval's memory review may still be running when the reply is done; a
# one-shot command waits this long for them at most, then exits regardless.
BACKGROUND_WAIT_S = 10.0


def register(sub: Any) -> None:
    parser = sub.add_parser("chat", help="one turn without the UI; the reply on stdout")
    parser.add_argument("-q", "--query", required=True, metavar="TEXT", help="the message to send")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--session", metavar="ID", help="continue this session (at its lineage tip)")
    where.add_argument("-c", "--continue", dest="continue_title", nargs="?", const="", default=None,
                       metavar="TITLE", help="continue the most recent lineage (by title when given)")
    parser.add_argument("--json", action="store_true", help="print {session_id, reply, usage} as JSON")
    parser.set_defaults(func=run)


class _Printer:
    """Streams text to stdout (unless --json) and notices to stderr; remembers how the turn ended."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.failure: TurnFailed | None = None
        self.done: TurnDone | None = None

    def __call__(self, event: EngineEvent) -> None:
        if isinstance(event, TextDelta) and not self.as_json:
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, TurnFailed):
            self.failure = event
        elif isinstance(event, TurnDone):
            self.done = event
        else:
            line = side_event_line(event)
            if line:
                print(line, file=sys.stderr)


def run(args: argparse.Namespace, ctx: Any) -> int:
    from engine.agent import Agent

    text = args.query
    if not text.strip():
        raise BadInputError("chat -q: the message is empty.")
    config, db = ctx.config, ctx.db
    resume = args.session
    if resume is not None:
        tip = db.resume_target(resume)
        if tip != resume and db.get_session(resume) is not None:
            print(f"hermes-tui: session {resume} has ended; continuing at the tip of its lineage, {tip}.", file=sys.stderr)
        resume = tip
    agent = Agent.start(config, db, resume=resume, continue_title=args.continue_title, source="cli")
    if agent.provider_problem:
        raise BadInputError(agent.provider_problem.splitlines()[0])
    printer = _Printer(args.json)
    try:
        agent.run_turn(text, printer)
        agent.wait_for_background(BACKGROUND_WAIT_S)
    finally:
        session_id = agent.session_id
        totals = agent.totals
        agent.close()
    if printer.failure is not None:
        if not args.json:
            sys.stdout.write("\n")
        raise HermesError(printer.failure.message)
    reply = printer.done.reply if printer.done else ""
    if args.json:
        usage = {
            "input_tokens": totals.input_tokens,
            "output_tokens": totals.output_tokens,
            "cache_read_tokens": totals.cache_read_tokens,
            "cache_write_tokens": totals.cache_write_tokens,
        }
        print(json.dumps({"session_id": session_id, "reply": reply, "usage": usage}, ensure_ascii=False))
    elif reply and not reply.endswith("\n"):
        sys.stdout.write("\n")
    return 0
