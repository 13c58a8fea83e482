"""The ``hermes-tui`` entry point: the full-screen app, or one of the subcommands.

A contract (DESIGN.md "The command line"): exit 0 done, 1 refused/not found, 2 bad usage or
environment; errors are one sentence on stderr naming the file, key or id at fault.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Sequence

from engine.config import resolve_home
from engine.errors import BadInputError, HermesError
from hermes_tui.untrusted import VisibleWriter

SUBCOMMAND_MODULES = ("sessions_cmd", "search_cmd", "memory_cmd", "chat_cmd")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hermes-tui",
        description="A full-screen terminal app for an LLM agent that remembers you.",
    )
    parser.add_argument("--home", metavar="DIR", help="Hermes home (default $HERMES_HOME or ~/.hermes)")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "-c", "--continue", dest="continue_title", nargs="?", const="", default=None, metavar="TITLE",
        help="continue the most recent lineage (by title when given) at its tip",
    )
    resume.add_argument("-r", "--resume", metavar="ID_OR_TITLE", help="resume a session (at its lineage tip)")
    parser.add_argument("--demo", action="store_true", help="run offline with seeded demo data")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(f"hermes_tui.subcommands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"hermes_tui.subcommands.{name}":
                raise
            continue  # a subcommand not built yet
        module.register(sub)
    return parser


def machine_output(args: argparse.Namespace) -> bool:
    """``--json`` and ``sessions export`` write data for programs: the exact stored text."""
    return bool(getattr(args, "json", False) or getattr(args, "machine_output", False))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    streams = sys.stdout, sys.stderr
    # Human output quotes stored text (replies, titles, entries, snippets): its control
    # characters are shown, never written to the terminal. Errors always go out that way.
    if not machine_output(args):
        sys.stdout = VisibleWriter(sys.stdout)  # type: ignore[assignment]
    sys.stderr = VisibleWriter(sys.stderr)  # type: ignore[assignment]
    try:
        return _dispatch(args)
    finally:
        sys.stdout, sys.stderr = streams


def new_home_note(args: argparse.Namespace, home: Path) -> str:
    """Only the app and ``chat`` start a home; any other command on a missing one is refused, as
    a mistyped ``--home`` would otherwise answer "No sessions yet." from a new empty home."""
    if args.demo or home.is_dir():
        return ""
    if args.command not in (None, "chat"):
        raise BadInputError(f"{home}: no Hermes home there (check --home or $HERMES_HOME); "
                            "hermes-tui or hermes-tui chat creates one.")
    return f"New Hermes home created at {home}."


def _dispatch(args: argparse.Namespace) -> int:
    from hermes_tui.context import CommandContext

    ctx = CommandContext(home=resolve_home(args.home))
    try:
        note = new_home_note(args, ctx.home)
        if not args.demo:
            ctx.check_config()
        if args.command is None:
            from hermes_tui.app_launch import launch_app

            return launch_app(args, ctx, note)
        if note:
            print(f"hermes-tui: {note}", file=sys.stderr)
        return int(args.func(args, ctx) or 0)
    except HermesError as exc:
        print(f"hermes-tui: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        ctx.close()


def run() -> None:
    """The console script: ``main`` and then an exit that skips the interpreter's teardown.

    By then every store is closed, every memory file was replaced atomically and the agent's
    remaining threads are daemons that teardown would abandon too; but tearing down the ~1,500
    modules the SDKs and Textual load takes 0.15–0.25 s, which ``chat -q`` spent after its last
    byte. Output is flushed first. Tests call ``main`` and keep the normal exit.
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):
            pass  # the reader went away, or the stream is closed: nothing left to deliver
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
