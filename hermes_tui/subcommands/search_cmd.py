"""``hermes-tui search QUERY``: matches grouped by conversation (lineage root), match highlighted."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.text import Text

from engine import clock
from engine.errors import BadInputError
from hermes_tui.context import CommandContext
from hermes_tui.formatting import group_by_lineage, relative_time, snippet_plain, snippet_text
from hermes_tui.subcommands.sessions_cmd import non_negative_int, print_json
from hermes_tui.untrusted import styled_stream, visible


def cmd_summarize(query: str, limit: int | None, ctx: CommandContext, as_json: bool) -> int:
    """Focused summaries of the top sessions; raw excerpts (and a note) when no model answers."""
    from engine.auxiliary import auxiliary_provider
    from engine.session_search import format_text, session_search

    provider = auxiliary_provider(ctx.config, "session_search", None, on_problem=lambda note: print(note, file=sys.stderr))
    result = session_search(ctx.db, query, provider=provider, current_session_id=None, limit_sessions=limit or 3)
    if as_json:
        print_json(result.to_json())
    else:
        print(format_text(result))
    return 0


def cmd_search(args: argparse.Namespace, ctx: CommandContext) -> int:
    query = " ".join(args.query)
    if not query.strip():
        raise BadInputError("search: the query is empty; give words to look for (hermes-tui search QUERY).")
    if args.summarize:
        return cmd_summarize(query, args.limit, ctx, args.json)
    hits = ctx.db.search(query, limit=20 if args.limit is None else args.limit)
    if args.json:
        print_json([h.to_json() for h in hits])
        return 0
    if not hits:
        print(f"No matches for {query!r}.")
        return 0
    now = clock.now()
    # On a terminal the matches are highlighted: Rich writes its styles below the visible writer.
    console = Console(file=styled_stream(sys.stdout), highlight=False, soft_wrap=True) if sys.stdout.isatty() else None
    for root, group in group_by_lineage(hits).items():
        print(f"{group[0].title or '(untitled)'}  [{root}]")
        for hit in group:
            lead = f"  {hit.role:<9} {relative_time(hit.known_timestamp, now):<14} {hit.session_id}  "
            if console is not None:
                console.print(Text(visible(lead)), snippet_text(hit.snippet), sep="")
            else:
                print(lead + snippet_plain(hit.snippet))
        print()
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("search", help="full-text search over every stored session")
    p.add_argument("query", metavar="QUERY", nargs="+",
                   help='words, "phrases", OR, NOT, prefix*; Chinese/Japanese/Korean text works too')
    p.add_argument("--limit", type=non_negative_int, default=None,
                   help="most matches to show (default 20); with --summarize, sessions (default 3, at most 5)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--summarize", action="store_true",
                   help="summarize the top sessions with the auxiliary model (raw excerpts if it is unavailable)")
    p.set_defaults(func=cmd_search)
