"""``hermes-tui memory …``: show, edit and review curated memory (DESIGN.md "The command line").

The user's own add/replace/remove is the user's approval, so it bypasses the write gate but not
the scanner or the limits. A refused write exits 1 with one line saying why (an ambiguous OLD_TEXT
names the entries it matched) and changes no memory file.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any, Iterator

from engine.config import set_config_value
from engine.errors import BadInputError, RefusedError
from engine.memory import MemoryStore, PendingQueue
from engine.memory.history import Cause, Change, describe_actor, where
from engine.memory.store import FILE_NAMES, TARGETS
from engine.memory.undo import undo_change
from hermes_tui.formatting import one_line, truncate, utc_text

from hermes_tui.context import CommandContext


SHORT_PREVIEW = 30  # chars of each entry an ambiguous match names
LOG_TEXT = 100  # cells of an entry's text a log line shows
BY_CLI = Cause("cli")
_METAVARS = {("add", "text"): "TEXT", ("replace", "old_text"): "OLD_TEXT", ("replace", "text"): "NEW_TEXT",
             ("remove", "old_text"): "OLD_TEXT"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("memory", help="show, edit and review curated memory (MEMORY.md / USER.md)")
    sub = parser.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    show = sub.add_parser("show", help="both memory blocks as they enter the system prompt")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=_show)

    edits = (
        ("add", "add an entry", ("text",), _add),
        ("replace", "replace the entry containing OLD_TEXT", ("old_text", "text"), _replace),
        ("remove", "remove the entry containing OLD_TEXT", ("old_text",), _remove),
    )
    for name, help_text, positionals, func in edits:
        # Both spellings: ``add --target user TEXT`` and ``add user TEXT`` (the app's /memory add).
        shape = " ".join(_METAVARS[(name, dest)] for dest in positionals)
        edit = sub.add_parser(name, help=help_text,
                              usage=f"%(prog)s memory|user {shape}  (or: %(prog)s --target memory|user {shape})")
        edit.add_argument("--target", choices=TARGETS, dest="target_option", help="memory or user")
        edit.add_argument("target_word", nargs="?", choices=TARGETS, metavar="memory|user")
        for dest in positionals:
            edit.add_argument(dest, metavar=_METAVARS[(name, dest)])
        edit.set_defaults(func=_with_target(func, name))

    pending = sub.add_parser("pending", help="list memory writes waiting for approval")
    pending.add_argument("--json", action="store_true")
    pending.set_defaults(func=_pending)

    approve = sub.add_parser("approve", help="apply a pending write (or all)")
    approve.add_argument("record_id", metavar="ID|all")
    approve.set_defaults(func=_approve)

    reject = sub.add_parser("reject", help="discard a pending write (or all)")
    reject.add_argument("record_id", metavar="ID|all")
    reject.set_defaults(func=_reject)

    log = sub.add_parser("log", help="the history of memory changes, newest first")
    log.add_argument("--target", choices=TARGETS)
    log.add_argument("--json", action="store_true")
    log.set_defaults(func=_log)

    undo = sub.add_parser("undo", help="undo one change of the history (see memory log)")
    undo.add_argument("change_id", metavar="CHANGE_ID")
    undo.set_defaults(func=_undo)

    approval = sub.add_parser("approval", help="turn write approval for the model's memory writes on or off")
    approval.add_argument("state", choices=("on", "off"))
    approval.set_defaults(func=_approval)


def _with_target(func: Any, action: str) -> Any:
    """``args.target`` from ``--target T`` or a leading ``T``: exactly one of them (exit 2 otherwise)."""
    def run(args: argparse.Namespace, ctx: CommandContext) -> int:
        given = [t for t in (args.target_option, args.target_word) if t]
        if not given:
            raise BadInputError(f"memory {action}: name the target first: memory {action} memory|user …")
        if len(given) == 2:
            raise BadInputError(f"memory {action}: the target is named twice (--target {given[0]} and "
                                f"{given[1]}); give it once.")
        args.target = given[0]
        return func(args, ctx)
    return run


def _store(ctx: CommandContext) -> MemoryStore:
    return MemoryStore.from_config(ctx.config)


def _queue(ctx: CommandContext) -> PendingQueue:
    return PendingQueue(ctx.home)


def _listed(queue: PendingQueue) -> list:
    records, warnings = queue.list()
    for warning in warnings:
        print(f"hermes-tui: warning: {warning}", file=sys.stderr)
    return records


def _show(args: argparse.Namespace, ctx: CommandContext) -> int:
    store = _store(ctx)
    approval = ctx.config.memory.write_approval
    if args.json:
        data: dict[str, Any] = {}
        for target in TARGETS:
            usage = store.usage(target)
            data[target] = {"entries": store.entries(target), "chars": usage.chars, "limit": usage.limit,
                            "pct": usage.pct, "usage": usage.text}
        data["write_approval"] = approval
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    snapshot = store.load_snapshot()
    for warning in snapshot.warnings:  # a file over its limit: what is shown is not all of it
        print(f"hermes-tui: warning: {warning}", file=sys.stderr)
    prompt = snapshot.render()
    print(prompt if prompt else "(memory is empty: nothing enters the system prompt)")
    count = len(_listed(_queue(ctx)))
    print(f"\n{count} pending memory write(s); write approval is {'on' if approval else 'off'}.")
    return 0


def _report(result: dict, args: argparse.Namespace) -> int:
    """Print a store result: usage on success (exit 0), the error on stderr otherwise (exit 1)."""
    if not result.get("success"):
        if result.get("matches"):
            raise RefusedError(_ambiguous(result["matches"], args.old_text, args.target))
        raise RefusedError(result.get("error", "the memory write was refused."))
    backup = f" (previous file kept as {result['backup']})" if result.get("backup") else ""
    print(f"{result['message']} {result['target']}: {result['usage']}{backup}")
    return 0


def _ambiguous(matches: list[str], old_text: str, target: str) -> str:
    """One line naming each entry OLD_TEXT matched, so the user sees what to add to it."""
    shown = ", ".join(f'"{_short(match)}"' for match in matches)
    where = f"{len(matches)} entries in {FILE_NAMES[target]}"
    return f"{where} contain {old_text.strip()!r}: {shown}; give more of the text."


def _short(preview: str) -> str:
    """The start of an entry on one line, cut at a word and marked with '…' when cut."""
    text = " ".join(preview.split())
    if len(text) <= SHORT_PREVIEW:
        return text
    cut = text[:SHORT_PREVIEW]
    return (cut[: cut.rfind(" ")] if " " in cut else cut).rstrip(" ,.;:") + "…"


def _add(args: argparse.Namespace, ctx: CommandContext) -> int:
    return _report(_store(ctx).add(args.target, args.text, cause=BY_CLI), args)


def _replace(args: argparse.Namespace, ctx: CommandContext) -> int:
    return _report(_store(ctx).replace(args.target, args.old_text, args.text, cause=BY_CLI), args)


def _remove(args: argparse.Namespace, ctx: CommandContext) -> int:
    return _report(_store(ctx).remove(args.target, args.old_text, cause=BY_CLI), args)


def _pending(args: argparse.Namespace, ctx: CommandContext) -> int:
    records = _listed(_queue(ctx))
    if args.json:
        print(json.dumps([r.to_dict() for r in records], ensure_ascii=False, indent=2))
    elif not records:
        print("No pending memory writes.")
    else:
        print("\n".join(r.line() for r in records))
    return 0


@contextlib.contextmanager
def _changing(queue: PendingQueue, decided: str) -> Iterator[None]:
    """A home that cannot be changed (read-only) is one line naming the file, not a traceback."""
    try:
        yield
    except OSError as exc:  # the record cannot be claimed, applied or deleted
        where = exc.filename or queue.folder
        raise BadInputError(f"{where}: cannot be changed ({exc.strerror or exc}), so it was not {decided}.") from exc


def _approve(args: argparse.Namespace, ctx: CommandContext) -> int:
    queue, store = _queue(ctx), _store(ctx)
    with _changing(queue, "approved"):
        if args.record_id == "all":
            _listed(queue)  # surface skipped files
            results = queue.approve_all(store, BY_CLI)
        else:
            results = [queue.approve(args.record_id, store, BY_CLI)]
    if not results:
        print("No pending memory writes.")
    failed = 0
    for result in results:
        if result.get("success"):
            print(f"Approved {result['pending_id']}: {result['message']} {result['target']}: {result['usage']}")
        else:
            failed += 1
            print(f"hermes-tui: {result['pending_id']} kept: {result.get('error')}", file=sys.stderr)
    return 1 if failed else 0


def _reject(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Delete a pending record (or all); a home that cannot be changed is one line naming the file."""
    queue = _queue(ctx)
    with _changing(queue, "rejected"):
        if args.record_id == "all":
            _listed(queue)
            print(f"Rejected {queue.reject_all(BY_CLI)} pending memory write(s).")
        else:
            queue.reject(args.record_id, BY_CLI)
            print(f"Rejected {args.record_id}.")
    return 0


def _approval(args: argparse.Namespace, ctx: CommandContext) -> int:
    enabled = args.state == "on"
    set_config_value(ctx.home, "memory.write_approval", enabled)
    print(f"Memory write approval is {args.state}" + (
        ": the model's memory writes now wait for you (hermes-tui memory pending)." if enabled else "."))
    return 0


def _log(args: argparse.Namespace, ctx: CommandContext) -> int:
    """The history, hand edits made since the last write recorded first; the JSON is oldest first."""
    store = _store(ctx)
    problems = store.sync_history()
    changes, warnings = store.history.read()
    for warning in [*problems, *warnings]:
        print(f"hermes-tui: warning: {warning}", file=sys.stderr)
    changes = sorted((c for c in changes if args.target in (None, c.target)), key=lambda c: c.at)
    if args.json:
        print(json.dumps([c.public() for c in changes], ensure_ascii=False, indent=2))
    elif not changes:
        print("No memory changes recorded yet (entries written before the history began show 'origin unknown').")
    else:
        print("\n".join(_log_lines(c) for c in reversed(changes)))
    return 0


def _log_lines(change: Change) -> str:
    """A change as ``id  time  target  action  who (where)`` and its texts, indented."""
    cause = where(change)
    head = f"{change.id}  {utc_text(change.at)}  {change.target:<6}  {change.action:<7}  {describe_actor(change)}"
    lines = [head + (f" ({cause})" if cause else "")]
    if change.before is not None:
        lines.append(f"    - {truncate(one_line(change.before), LOG_TEXT)}")
    if change.after is not None:
        lines.append(f"    + {truncate(one_line(change.after), LOG_TEXT)}")
    if not change.writes and change.pending_id:
        lines.append(f"    staged write {change.pending_id}")
    return "\n".join(lines)


def _undo(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Reverse one change through the normal write path; refused (exit 1) with why, nothing written."""
    store = _store(ctx)
    store.sync_history()
    undone = undo_change(args.change_id, store, _queue(ctx), BY_CLI)
    print(f"{undone.message} Recorded as {undone.change_id}.")
    return 0
