"""``hermes-tui sessions list|show|tree|rename|export|delete|prune|stats`` (DESIGN.md "The command line")."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from engine import clock
from engine.errors import RefusedError, StoreError
from engine.store import Removal, Session, TreeNode
from engine.tokens import content_text
from engine.usage_report import usage_report
from hermes_tui.context import CommandContext
from hermes_tui.formatting import one_line, relative_time, table, truncate, utc_text
from hermes_tui.usage_text import print_usage

LIST_HEADERS = ("Title", "Preview", "Last active", "ID")
LIST_WIDTHS = (32, 44, 16, 24)
UNREADABLE_TITLE = "(unreadable title)"
MAX_COUNT = 2**63 - 1  # SQLite's largest integer


def non_negative_int(text: str) -> int:
    """A count for ``--limit``: whole, not negative, and small enough for SQLite's 64-bit integers."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text!r} is too large (at most {MAX_COUNT})")
    return value


def non_negative_float(text: str) -> float:
    """A number of days: ``nan`` is not one (it compares false with everything and would prune nothing)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def title_text(session: Session, untitled: str) -> str:
    """The title as shown; one another program stored as a non-text value says so."""
    if "title" in session.unreadable:
        return UNREADABLE_TITLE
    return session.title or untitled


def time_of(session: Session, name: str) -> float | None:
    """A time field, or None (shown as "—") when its stored cell is not a time."""
    return None if name in session.unreadable else getattr(session, name)


def print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def confirm(question: str, assume_yes: bool) -> bool:
    """``-y`` proceeds; a non-interactive run without it is refused; a terminal asks y/N."""
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        raise RefusedError(f"{question.rstrip('?')} needs confirmation: add -y in a non-interactive run.")
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in ("y", "yes")


def describe_removal(plan: Removal) -> str:
    lines = [f"{len(plan.sessions)} session(s), {plan.messages} message(s):"]
    lines.extend(f"  {s.id}  {title_text(s, '—')}  (ended {utc_text(time_of(s, 'ended_at'))})"
                 for s in plan.sessions[:50])
    if len(plan.sessions) > 50:
        lines.append(f"  … and {len(plan.sessions) - 50} more")
    if plan.repointed_children:
        lines.append(f"  child session(s) re-pointed to the deleted session's parent: {', '.join(plan.repointed_children)}")
    return "\n".join(lines)


# -- handlers -----------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace, ctx: CommandContext) -> int:
    sessions = ctx.db.list_sessions(source=args.source, limit=args.limit)
    if args.json:
        print_json([s.to_json() for s in sessions])
        return 0
    if not sessions:
        print("No sessions yet.")
        return 0
    now = clock.now()
    rows = [(title_text(s, "—"), one_line(s.preview) or "—", relative_time(time_of(s, "last_active"), now), s.id)
            for s in sessions]
    print(table(LIST_HEADERS, rows, LIST_WIDTHS))
    return 0


def _message_lines(message: dict[str, Any]) -> list[str]:
    role = message["role"]
    label = f"[{role}]" if role != "tool" else f"[tool {message.get('name') or ''}]".replace(" ]", "]")
    lines = [label]
    lines.extend(f"  {line}" for line in content_text(message.get("content")).splitlines())
    for call in message.get("tool_calls") or ():
        fn = call.get("function", {}) if isinstance(call, dict) else {}
        lines.append(f"  → {fn.get('name', '?')}({truncate(one_line(str(fn.get('arguments', ''))), 200)})")
    return lines


def cmd_show(args: argparse.Namespace, ctx: CommandContext) -> int:
    db = ctx.db
    session = db.require_session(db.resolve(args.id))
    transcript = db.load_transcript(session.id)
    if args.json:
        record = session.to_json()
        record["system_prompt"] = session.system_prompt
        print_json({"session": record, "messages": transcript})
        return 0
    now = clock.now()
    is_ended = session.ended_at is not None or "ended_at" in session.unreadable
    ended = f"ended {relative_time(time_of(session, 'ended_at'), now)} ({session.end_reason})" if is_ended else "open"
    print(f"{title_text(session, '(untitled)')}  {session.id}")
    started = utc_text(time_of(session, "started_at"))
    print(f"source {session.source} · model {session.model or '—'} · started {started} · {ended}")
    print(f"{session.message_count} messages · {session.input_tokens} in / {session.output_tokens} out tokens")
    if session.parent_session_id:
        print(f"continues {session.parent_session_id}")
    for message in transcript:
        print()
        print("\n".join(_message_lines(message)))
    return 0


def _tree_lines(node: TreeNode, prefix: str = "", last: bool = True, top: bool = True) -> list[str]:
    s: Session = node.session
    branch = "" if top else ("└─ " if last else "├─ ")
    reason = f" [{s.end_reason}]" if s.end_reason else (" [open]" if s.ended_at is None else "")
    lines = [f"{prefix}{branch}{title_text(s, '(untitled)')}  {s.id}{reason}"]
    child_prefix = prefix + ("" if top else ("   " if last else "│  "))
    for i, child in enumerate(node.children):
        lines.extend(_tree_lines(child, child_prefix, i == len(node.children) - 1, top=False))
    return lines


def cmd_tree(args: argparse.Namespace, ctx: CommandContext) -> int:
    db = ctx.db
    roots = db.tree(db.resolve(args.id) if args.id else None)
    if args.json:
        print_json(roots[0].to_json() if args.id else [r.to_json() for r in roots])
        return 0
    if not roots:
        print("No sessions yet.")
    for root in roots:
        print("\n".join(_tree_lines(root)))
    return 0


def cmd_rename(args: argparse.Namespace, ctx: CommandContext) -> int:
    db = ctx.db
    session_id = db.resolve(args.id)
    stored = db.set_title(session_id, args.title)
    print(f"Renamed {session_id} to {stored!r}.")
    return 0


def _export_to_file(ctx: CommandContext, out: Path, session_id: str | None, source: str | None,
                    redact: Callable[[str], str] | None) -> int:
    """Write beside the target and rename, so a failed export leaves no half file."""
    folder = out.parent if str(out.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise StoreError(f"{out}: cannot write the export ({exc.strerror}).") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            count = ctx.db.export_jsonl(handle, session_id=session_id, source=source, redact=redact)
        os.replace(tmp, out)  # fails when OUT is a directory: nothing is left behind
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise StoreError(f"{out}: cannot write the export ({exc.strerror or exc}).") from exc
        raise
    return count


def cmd_export(args: argparse.Namespace, ctx: CommandContext) -> int:
    session_id = ctx.db.resolve(args.session_id) if args.session_id else None
    # What was said is the user's own record: exported as said unless they ask for redaction.
    redact: Callable[[str], str] | None = None
    if args.redact:
        from engine.security.redact import redact as redact_text

        redact = redact_text
    if args.out == "-":
        count = ctx.db.export_jsonl(sys.stdout, session_id=session_id, source=args.source, redact=redact)
    else:
        count = _export_to_file(ctx, Path(args.out), session_id, args.source, redact)
        print(f"Exported {count} session(s) to {args.out}.", file=sys.stderr)
    return 0


def cmd_delete(args: argparse.Namespace, ctx: CommandContext) -> int:
    db = ctx.db
    plan = db.delete_plan(args.id)
    print(f"Will delete {describe_removal(plan)}")
    if not confirm(f"Delete session {args.id}?", args.yes):
        print("Nothing deleted.")
        return 1
    db.delete_session(args.id)
    print(f"Deleted session {args.id}.")
    return 0


def cmd_prune(args: argparse.Namespace, ctx: CommandContext) -> int:
    db = ctx.db
    days = args.older_than if args.older_than is not None else float(ctx.config.sessions.retention_days)
    plan = db.prune_plan(older_than_days=days, source=args.source)
    if not plan.sessions:
        print(f"Nothing to prune: no ended session older than {days:g} days.")
        return 0
    print(f"Will prune {describe_removal(plan)}")
    if not confirm(f"Prune {len(plan.sessions)} session(s)?", args.yes):
        print("Nothing pruned.")
        return 1
    done = db.prune(older_than_days=days, source=args.source)
    print(f"Pruned {len(done.sessions)} session(s) and {done.messages} message(s).")
    return 0


def cmd_stats(args: argparse.Namespace, ctx: CommandContext) -> int:
    stats = ctx.db.stats()
    usage = usage_report(ctx.db.usage_rows(), ctx.config.pricing.table())
    if args.json:
        print_json({**stats, **usage.to_json()})
        return 0
    print(f"Sessions  {stats['sessions']}")
    print(f"Messages  {stats['messages']}")
    for source, count in stats["by_source"].items():
        print(f"  {source:<12} {count}")
    print(f"Database  {stats['db_bytes'] / 1_048_576:.1f} MiB ({ctx.db.path})")
    print(f"Oldest    {utc_text(stats['oldest'])}")
    print(f"Newest    {utc_text(stats['newest'])}")
    print_usage(usage)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("sessions", help="list, show, export and tidy stored sessions")
    sub = parser.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)

    p = sub.add_parser("list", help="sessions, most recently active first")
    p.add_argument("--source", help="only sessions from this source (cli, telegram, …)")
    p.add_argument("--limit", type=non_negative_int, default=20, help="how many (0 = all; default 20)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="a session's transcript")
    p.add_argument("id", metavar="ID", help="session id, unique id prefix, or title")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("tree", help="lineage: compression continuations and branches")
    p.add_argument("id", metavar="ID", nargs="?", help="show only the lineage holding this session")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_tree)

    p = sub.add_parser("rename", help="set a session's title")
    p.add_argument("id", metavar="ID")
    p.add_argument("title", metavar="TITLE")
    p.set_defaults(func=cmd_rename)

    p = sub.add_parser("export", help="JSONL, one session a line")
    p.add_argument("out", metavar="OUT", help="output file, or - for stdout")
    p.add_argument("--session-id", metavar="ID", help="only this session")
    p.add_argument("--source", help="only sessions from this source")
    p.add_argument("--redact", action="store_true", help="mask API keys, tokens and passwords")
    p.set_defaults(func=cmd_export, machine_output=True)

    p = sub.add_parser("delete", help="delete a session and its messages")
    p.add_argument("id", metavar="ID", help="the exact session id")
    p.add_argument("-y", "--yes", action="store_true", help="do not ask")
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser("prune", help="delete ended sessions older than N days")
    p.add_argument("--older-than", type=non_negative_float, metavar="DAYS",
                   help="age in days (default sessions.retention_days)")
    p.add_argument("--source", help="only sessions from this source")
    p.add_argument("-y", "--yes", action="store_true", help="do not ask")
    p.set_defaults(func=cmd_prune)

    p = sub.add_parser("stats", help="counts and database size")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)
