#!/usr/bin/env python3
"""Round-trip a Hermes home between this project and upstream Hermes Agent, and print what differs.

    .venv/bin/python scripts/upstream_compat.py [--venv DIR]

Not part of the test run: it needs ``hermes-agent==0.19.0`` from PyPI, which it installs into a
throw-away venv (``--venv`` reuses one that has exactly that version), as
``make_upstream_fixture.py`` does. Two directions, each in a temporary home:

1. **ours writes → upstream reads.** Our agent (``engine.agent.Agent`` against the loopback model)
   and our CLI write sessions in Chinese and English, a tool call and its result, a compression
   lineage ``X`` → ``X #2`` → ``X #3``, a branch, MEMORY.md / USER.md and pending writes of both
   origins. This same file then runs in the upstream venv as a *reader* (``--upstream-read``):
   with ``HERMES_HOME`` set it imports only upstream's code — ``hermes_state.SessionDB``,
   ``tools.memory_tool``, ``tools.write_approval``, the pending listing of
   ``hermes_cli.write_approval_commands`` — and runs upstream's ``hermes sessions list|export|stats``,
   and writes what it saw as JSON. Our reading of the same home is the other side.
2. **upstream writes → ours reads.** ``make_upstream_fixture.py --drive`` writes a home with
   upstream's code (pinned clock, fixed ids); upstream's reader and ours (``SessionDB``,
   ``MemoryStore``, ``PendingQueue`` and our CLI's ``--json`` output) read it. Then ours writes
   to it (a rename, a turn, a memory add, an approval), and the file must still pass
   ``PRAGMA integrity_check``, keep every upstream table and column, and read the same in both.

Each check prints ``same``, ``expected`` (a known deliberate difference, named) or ``DIFFERS``
with the field, our value and upstream's. Exit status 1 when anything differs. Nothing is
written outside the temporary folder: not into a real home, not into this repository.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # no __pycache__ of this run lands in the repository
import make_upstream_fixture as fixture  # same folder; stdlib-only at import, so the child imports it too

MISSING = "(missing)"
FIXED_NOW = 1_796_040_000.0  # 2026-11-30 12:00 UTC, the test suite's clock: a day after the fixture's last write

# ── what each direction reads back ─────────────────────────────────────────────────────────────
SESSION_FIELDS = ("title", "source", "model", "parent_session_id", "started_at", "ended_at", "end_reason",
                  "message_count", "tool_call_count", "input_tokens", "output_tokens", "cache_read_tokens",
                  "cache_write_tokens", "reasoning_tokens", "api_call_count", "cwd", "model_config")
MESSAGE_FIELDS = ("id", "role", "content", "tool_calls", "tool_call_id", "tool_name", "finish_reason", "reasoning",
                  "timestamp")
TRANSCRIPT_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "tool_name", "finish_reason", "reasoning")
EXPORT_FIELDS = ("title", "parent_session_id", "end_reason", "message_count")

# Direction 1: what our agent says and writes (titles are set before the first turn, so no title call).
LINEAGE = "整理发布清单"
LINEAGE_TURNS = (
    ("帮我整理发布清单：先跑数据库迁移，再切流量", "好的，发布清单第一步是备份数据库，然后执行迁移脚本。"),
    ("回滚方案也写进去", "已加入回滚方案：保留旧版本镜像，出问题时十分钟内切回。"),
    ("通知值班的同事", "已在清单末尾加上通知值班同事的步骤。"),
    ("灰度比例先设成百分之十", "灰度比例已设为百分之十，观察半小时再扩大。"),
    ("监控看板的链接也附上", "已附上监控看板链接，告警阈值沿用上次发布的设置。"),
    ("最后检查一下清单", "清单完整：迁移、回滚、灰度、监控、通知。"),
)
COMPRESS_AFTER = (3, 5)  # /compress after these many turns: X → X #2 → X #3
SUMMARY_TEXT = "发布清单已整理：迁移、回滚和通知值班同事；灰度与监控待定。"
EDITOR = "Editor preferences"
EDITOR_ASK = "I moved from Vim to Helix for editing config files; please update my profile."
EDITOR_CALL_ID = "call_profile_1"
EDITOR_AFTER_TOOL = "Your profile update is staged for your approval."
BRANCH_ASK = "Alternative: keep Vim only for quick edits over SSH"
BRANCH_REPLY = "Then the profile could say Helix for projects and Vim over SSH."
CLUSTER = "Cluster upgrade"
CLUSTER_ASK = "FYI: the staging cluster was upgraded to Kubernetes 1.31 on 2026-11-27."
CLUSTER_REPLY = "Thanks, noted the upgrade."
BACKUP = "Backup script review"
BACKUP_ASK = "Review the restic backup script at ~/ops/backup.sh (tag pangolinmark)"
BACKUP_REPLY = "It never prunes old snapshots; add `restic forget --keep-daily 7 --prune` after the backup."
# Memory facts ours allows and upstream's scanner blocks (README "Deliberate differences").
KEY_PATH_FACT = "Deploy key for atlas is ~/.ssh/id_ed25519"
SECRET_READ_FACT = "cat ~/.env on atlas to see which database the staging app uses"
KNOWN_BLOCKED = {KEY_PATH_FACT: "a key's file path is allowed as a memory fact",
                 SECRET_READ_FACT: "reading a secret file without sending it is not exfiltration"}
OURS_QUERIES = ("Helix", "pangolinmark", "restic", "Kubernetes", "old_text", "发布清单", "回滚", "灰", "通知值班")
OURS_TITLES = (LINEAGE, f"{LINEAGE} #2", f"{LINEAGE} #3", EDITOR, f"{EDITOR} #2", CLUSTER, BACKUP)

# Direction 2: the fixture home's content (make_upstream_fixture.py), and what ours then writes to it.
UPSTREAM_QUERIES = ("certbot", "systemctl", "pangolinmark", "dns challenge", "heredoc", "webhook",
                    "告警", "规则", "告", "整理告警规则", "企业微信")
UPSTREAM_TITLES = (fixture.LINEAGE_TITLE, f"{fixture.LINEAGE_TITLE} #2", f"{fixture.LINEAGE_TITLE} #3",
                   fixture.CERT_TITLE, f"{fixture.CERT_TITLE} #2", "Backup script review", "Shell tip 0")
RENAMED = "负载均衡 502 排查"  # ours gives the fixture's untitled session this title
TOUCH_ASK, TOUCH_REPLY = "把告警静默时间也记到清单里", "已记下：告警静默时间为每晚 23:00 到 07:00。"
TOUCH_FACT = "Grafana dashboards for atlas live at grafana.atlas.lan"
PRUNE_DAYS = 100  # the fixture's five "Shell tip" sessions are 100–104 days old at FIXED_NOW
SCRIPTED = dict(LINEAGE_TURNS) | {BRANCH_ASK: BRANCH_REPLY, CLUSTER_ASK: CLUSTER_REPLY, BACKUP_ASK: BACKUP_REPLY,
                                  TOUCH_ASK: TOUCH_REPLY}  # what the loopback model answers to each ask

# Known deliberate differences (README "Deliberate differences from upstream"), and our additions.
LIST_REASON = "the session list shows every session, not only lineage tips"
ORDER_REASON = "the session list is most recently active first (DESIGN's command-line contract)"
SNIPPET_REASON = "search snippets are an excerpt that always shows the match (README)"
PRUNE_REASON = "prune age is counted from ended_at"
ADDITIVE_REASON = "our additive schema object"
ADDITIVE_PREFIXES = ("hermes_tui_", "idx_hermes_tui_")
ADDITIVE_PATHS = {"state.db-turns": "our per-session turn-lock folder",
                  "memories/history.jsonl": "our memory history (where each entry came from)",
                  "memories/history.jsonl.lock": "our memory history's lock file"}


# ── shapes both sides produce (stdlib only: the child uses these too) ─────────────────────────
def pick(record: dict[str, Any], names: Iterable[str], rename: dict[str, str] | None = None) -> dict[str, Any]:
    """``record`` reduced to ``names`` (absent ones as None), so both programs' rows line up key by key."""
    rename = rename or {}
    return {name: record.get(rename.get(name, name)) for name in names}


def parsed_json(value: Any) -> Any:
    """A JSON text cell as its value (model_config, tool_calls), anything else as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def session_row(record: dict[str, Any]) -> dict[str, Any]:
    row = pick(record, SESSION_FIELDS)
    row["model_config"] = parsed_json(row["model_config"])
    return row


def message_row(record: dict[str, Any]) -> dict[str, Any]:
    row = pick(record, MESSAGE_FIELDS)
    row["tool_calls"] = parsed_json(row["tool_calls"]) or None
    return row


def hit_key(session_id: str, message_id: int) -> str:
    return f"{session_id}#{message_id}"


def search_view(hits: list[dict[str, Any]]) -> dict[str, Any]:
    """Hit order (``session#message``), each hit's role, and each hit's snippet (compared on their own)."""
    keys = [hit_key(h["session_id"], h["message_id"]) for h in hits]
    return {"hits": keys, "roles": {k: h["role"] for k, h in zip(keys, hits)},
            "snippets": {k: h["snippet"] for k, h in zip(keys, hits)}}


def pending_view(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {r["id"]: pick(r, ("subsystem", "action", "summary", "origin", "created_at", "payload")) for r in records}


SESSION_ID = re.compile(r"\b\d{8}_\d{6}_[0-9a-f]{6}\b")


# ── the upstream side: runs in the venv that has hermes-agent, imports nothing of this repo ───
def upstream_read(plan_path: Path, out_path: Path) -> None:
    """Child entry point: read the home named in the plan with upstream's code, write the view as JSON."""
    plan = json.loads(plan_path.read_text(encoding="utf-8"))
    home = Path(plan["home"])
    os.environ["HERMES_HOME"] = str(home)
    from importlib.metadata import version

    assert version("hermes-agent") == fixture.UPSTREAM_VERSION, version("hermes-agent")
    from hermes_state import SessionDB

    view: dict[str, Any] = {"cli": upstream_cli_view(home)}  # first: the CLI opens the db as a user would
    db = SessionDB(db_path=home / "state.db")
    try:
        view.update(upstream_store_view(db, plan))
    finally:
        db.close()
    view.update(upstream_memory_view())
    out_path.write_text(json.dumps(view, ensure_ascii=False, indent=1), encoding="utf-8")


def upstream_store_view(db: Any, plan: dict[str, Any]) -> dict[str, Any]:
    """Sessions, messages, resume transcripts, lineage and title helpers, search and prune, via SessionDB."""
    ids = [row["id"] for row in db.search_sessions(limit=1_000_000)]
    sessions = {sid: session_row(db.get_session(sid)) for sid in ids}
    return {
        "sessions": sessions,
        "messages": {sid: [message_row(m) for m in db.get_messages(sid)] for sid in ids},
        "transcript": {sid: [pick(m, TRANSCRIPT_FIELDS) for m in db.get_messages_as_conversation(sid)] for sid in ids},
        "tree": {sid: row["parent_session_id"] for sid, row in sessions.items()},
        "lineage": {sid: {"root": db.get_conversation_root(sid), "tip": db.get_compression_tip(sid),
                          "resume": db.resolve_resume_session_id(sid)} for sid in ids},
        "titles": {t: {"resolve": db.resolve_session_by_title(t), "next": db.get_next_title_in_lineage(t)}
                   for t in plan["titles"]},
        "search": {q: search_view([dict(h, message_id=h["id"]) for h in db.search_messages(q, limit=20)])
                   for q in plan["queries"]},
        "prune": upstream_prune(db, plan["now"], plan["prune_days"]),
    }


def upstream_prune(db: Any, now: float, days: float) -> list[str]:
    """What upstream's ``sessions prune --older-than DAYS`` would delete, at the plan's clock."""
    real_time = time.time
    time.time = lambda: now  # upstream reads "now" through time.time()
    try:
        return sorted(row["id"] for row in db.list_prune_candidates(older_than_days=days))
    finally:
        time.time = real_time


def upstream_memory_view() -> dict[str, Any]:
    """Entries, usage and prompt block per target (tools.memory_tool), and the pending queue as listed."""
    from hermes_cli.write_approval_commands import handle_pending_subcommand
    from tools import write_approval
    from tools.memory_tool import load_on_disk_store

    store = load_on_disk_store()
    memory = {}
    for target in ("memory", "user"):
        usage = store._success_response(target)["usage"]  # upstream's own usage text ("11% — 262/2,200 chars")
        memory[target] = {"entries": list(store._entries_for(target)), "usage": usage,
                          "block": store.format_for_system_prompt(target) or ""}
    listing = handle_pending_subcommand("memory", ["pending"]) or ""
    return {"memory": memory, "pending": pending_view(write_approval.list_pending(write_approval.MEMORY)),
            "pending_text": pending_lines(listing)}


def pending_lines(listing: str) -> str:
    """The record lines of upstream's ``/memory pending`` text (between its header and its blank line)."""
    lines = listing.split("\n")
    if not lines or not lines[0].startswith("Pending"):
        return ""
    body = lines[1:]
    return "\n".join(body[: body.index("")] if "" in body else body)


def upstream_cli_view(home: Path) -> dict[str, Any]:
    """Upstream's own ``hermes sessions list``, ``export -`` and ``stats`` on the home."""
    hermes = str(Path(sys.executable).with_name("hermes"))

    def run(*args: str) -> str:
        done = subprocess.run([hermes, *args], capture_output=True, text=True, cwd=home, check=False)
        if done.returncode != 0:
            raise SystemExit(f"hermes {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
        return done.stdout

    listed = [m.group(0) for line in run("sessions", "list", "--limit", "100000").splitlines()
              if (m := SESSION_ID.search(line.rsplit(" ", 1)[-1]))]
    exported = [json.loads(line) for line in run("sessions", "export", "-").splitlines() if line.strip()]
    return {"list": listed, "export": {s["id"]: export_view(s, "tool_name") for s in exported},
            "stats": parse_upstream_stats(run("sessions", "stats"))}


def export_view(record: dict[str, Any], tool_name_key: str) -> dict[str, Any]:
    """One exported session: its lineage fields and its messages in replay form."""
    view = pick(record, EXPORT_FIELDS)
    view["messages"] = [dict(pick(m, TRANSCRIPT_FIELDS, {"tool_name": tool_name_key}),
                             tool_calls=parsed_json(m.get("tool_calls")) or None) for m in record["messages"]]
    return view


def parse_upstream_stats(text: str) -> dict[str, Any]:
    """``Total sessions: 12`` / ``Total messages: 29`` / ``  cli: 10 sessions`` as numbers."""
    totals = dict(re.findall(r"^Total (sessions|messages): (\d+)$", text, re.MULTILINE))
    by_source = {source: int(n) for source, n in re.findall(r"^  (\S+): (\d+) sessions?$", text, re.MULTILINE)}
    return {"sessions": int(totals.get("sessions", -1)), "messages": int(totals.get("messages", -1)),
            "by_source": by_source}


# ── running the upstream side ──────────────────────────────────────────────────────────────────
@dataclass
class Upstream:
    """The upstream venv's python and a clean environment for it (no real home, no repo on the path)."""

    python: Path
    scratch: Path

    def env(self, home: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON"))}
        user = self.scratch / "user-home"
        user.mkdir(exist_ok=True)
        env.update(HERMES_HOME=str(home), HOME=str(user), TZ="UTC", PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        return env

    def run(self, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.python), *args], env=self.env(home), cwd=self.scratch,
                              capture_output=True, text=True, check=False)

    def write_fixture_home(self, home: Path) -> None:
        """make_upstream_fixture.py's driver: the sessions, memory and pending writes, by upstream's code."""
        done = self.run(home, str(Path(fixture.__file__).resolve()), "--drive", str(home))
        if done.returncode != 0:
            raise SystemExit(f"upstream's fixture driver failed:\n{done.stderr[-3000:]}")

    def read(self, home: Path, plan: dict[str, Any]) -> dict[str, Any] | str:
        """Upstream's view of the home, or the error text when upstream could not read it."""
        plan_path, out_path = self.scratch / "plan.json", self.scratch / "upstream-view.json"
        plan_path.write_text(json.dumps(dict(plan, home=str(home)), ensure_ascii=False), encoding="utf-8")
        out_path.unlink(missing_ok=True)
        done = self.run(home, str(Path(__file__).resolve()), "--upstream-read", str(plan_path), str(out_path))
        if done.returncode != 0:
            return f"upstream's reader exited {done.returncode}: {done.stderr.strip()[-1500:]}"
        return json.loads(out_path.read_text(encoding="utf-8"))


# ── our side ───────────────────────────────────────────────────────────────────────────────────
def ours_cli(home: Path, *args: str) -> str:
    """Run our CLI in-process on ``home``; its stdout (a non-zero exit is an error of this script)."""
    from hermes_tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--home", str(home), *args])
    if code != 0:
        raise RuntimeError(f"hermes-tui {' '.join(args)} exited {code}: {err.getvalue().strip()}")
    return out.getvalue()


def ours_view(home: Path, plan: dict[str, Any]) -> dict[str, Any]:
    """Our reading of the home, in the upstream view's shape: the engine's API, then our CLI's output."""
    from engine import clock
    from engine.config import load_config
    from engine.memory import MemoryStore, PendingQueue
    from engine.store import SessionDB

    clock.set_clock(lambda: plan["now"])  # prune age and nothing else depends on it here
    try:
        with SessionDB(home / "state.db") as db:
            view = ours_store_view(db, plan)
        store = MemoryStore.from_config(load_config(home))
        snapshot = store.load_snapshot()
        view["memory"] = {t: {"entries": store.entries(t), "usage": store.usage(t).text, "block": snapshot.block(t)}
                          for t in ("memory", "user")}
        view["pending"] = pending_view([r.to_dict() for r in PendingQueue(home).list()[0]])
        view["cli"] = ours_cli_view(home, plan)
    finally:
        clock.set_clock(None)
    return view


def ours_store_view(db: Any, plan: dict[str, Any]) -> dict[str, Any]:
    """SessionDB list, rows, messages, transcripts, lineage and title helpers, search and prune plan."""
    ids = [s.id for s in db.list_sessions(limit=0)]
    sessions = {sid: session_row(vars(db.require_session(sid))) for sid in ids}
    return {
        "sessions": sessions,
        "messages": {sid: [message_row(vars(m)) for m in db.get_messages(sid)] for sid in ids},
        "transcript": {sid: [pick(m, TRANSCRIPT_FIELDS, {"tool_name": "name"}) for m in db.load_transcript(sid)]
                       for sid in ids},
        "lineage": {sid: {"root": db.lineage_root(sid), "tip": db.lineage_tip(sid), "resume": db.resume_target(sid)}
                    for sid in ids},
        "titles": {t: {"resolve": db.resolve(t), "next": db.next_lineage_title(t)} for t in plan["titles"]},
        "search": {q: search_view([h.to_json() for h in db.search(q, limit=20)]) for q in plan["queries"]},
        "prune": sorted(s.id for s in db.prune_plan(older_than_days=plan["prune_days"]).sessions),
    }


def ours_cli_view(home: Path, plan: dict[str, Any]) -> dict[str, Any]:
    """``sessions list|tree|export|stats``, ``search``, ``memory show|pending`` of our CLI, as the checks need them."""
    def as_json(*args: str) -> Any:
        return json.loads(ours_cli(home, *args))

    stats = as_json("sessions", "stats", "--json")
    exported = [json.loads(line) for line in ours_cli(home, "sessions", "export", "-").splitlines() if line.strip()]
    shown = as_json("memory", "show", "--json")
    return {
        "list": [s["id"] for s in as_json("sessions", "list", "--limit", "0", "--json")],
        "tree": dict(flatten_tree(as_json("sessions", "tree", "--json"), None)),
        "export": {s["id"]: export_view(s, "name") for s in exported},
        "stats": {"sessions": stats["sessions"], "messages": stats["messages"], "by_source": stats["by_source"]},
        "search": {q: search_view(as_json("search", q, "--json")) for q in plan["queries"]},
        "memory": {t: {"entries": shown[t]["entries"], "usage": shown[t]["usage"]} for t in ("memory", "user")},
        "pending": pending_view(as_json("memory", "pending", "--json")),
        "pending_text": ours_cli(home, "memory", "pending").rstrip("\n"),
    }


def flatten_tree(nodes: list[dict[str, Any]], parent: str | None) -> Iterable[tuple[str, str | None]]:
    for node in nodes:
        yield node["id"], parent
        yield from flatten_tree(node["children"], node["id"])


# ── direction 1: a home written by our agent and CLI ──────────────────────────────────────────
def loopback_replies(body: dict[str, Any]) -> Any:
    """The scripted model: answers by the last message (a user ask, or a tool result), or the reviewer."""
    from engine.review import REVIEW_SYSTEM
    from hermes_tui.loopback_llm import Reply, ToolCallSpec

    messages = body["messages"]
    if REVIEW_SYSTEM[:60] in str(messages[0].get("content")):
        if "Kubernetes 1.31" not in str(messages[-1].get("content")):
            return Reply(text="Nothing to save.")
        staged = {"action": "add", "target": "memory", "content": fixture.AUTO_CONTENT}
        return Reply(tool_calls=[ToolCallSpec("memory", json.dumps(staged, ensure_ascii=False), id="call_review_1")])
    last = messages[-1]
    if last["role"] == "tool":
        return Reply(text=EDITOR_AFTER_TOOL)
    asked = str(last.get("content"))
    if EDITOR_ASK in asked:
        replace = {"action": "replace", "target": "user", "old_text": fixture.REPLACE_OLD, "content": fixture.REPLACE_NEW}
        return Reply(tool_calls=[ToolCallSpec("memory", json.dumps(replace, ensure_ascii=False), id=EDITOR_CALL_ID)])
    return Reply(text=next((reply for ask, reply in SCRIPTED.items() if ask in asked), "OK."))


def side_replies(body: dict[str, Any]) -> Any:
    """Calls without tools: the compression summary (titles are never asked for here)."""
    from hermes_tui.loopback_llm import Reply

    return Reply(text=f"## Goal\n{SUMMARY_TEXT}" if "compress" in str(body["messages"][0]) else "Notes")


def loopback_config(home: Path, base_url: str) -> Any:
    """The home's config with the loopback model; compression settings that make /compress remove turns."""
    from engine.config import load_config

    config = load_config(home)
    config.data["model"].update(provider="openai", name="loopback-model", base_url=base_url, context_length=8000)
    config.data["compression"].update(threshold=1.0, target_ratio=0.05, protect_first_n=1, protect_last_n=1)
    config.data["memory"].update(nudge_interval=0)
    return config


def build_ours_home(home: Path) -> None:
    """Sessions through our agent (real turns, /compress, /branch, a session-end review), memory through our CLI."""
    from hermes_tui.loopback_llm import LoopbackLLM

    home.mkdir(parents=True)
    for target, entries in (("memory", [*fixture.MEMORY_ENTRIES, *KNOWN_BLOCKED]), ("user", fixture.USER_ENTRIES)):
        for entry in entries:
            ours_cli(home, "memory", "add", "--target", target, entry)
    ours_cli(home, "memory", "approval", "on")
    with LoopbackLLM(responder=loopback_replies, side_responder=side_replies) as llm:
        config = loopback_config(home, llm.base_url_openai)
        with_agent(home, config, lineage_session)
        with_agent(home, config, editor_session)
        with_agent(home, config, cluster_session)
        with_agent(home, config, backup_session)


def with_agent(home: Path, config: Any, script: Callable[[Any, Callable[[Any], None]], None], **start: Any) -> None:
    """One agent on the home runs ``script``; background work (reviews) is waited for before the store closes."""
    from engine.agent import Agent
    from engine.store import SessionDB

    events: list[Any] = []
    with SessionDB.open_home(home) as db:
        agent = Agent.start(config, db, source="cli", cwd=home, **start)
        script(agent, events.append)
        agent.wait_for_background(30.0)


def lineage_session(agent: Any, on_event: Callable[[Any], None]) -> None:
    agent.set_title(LINEAGE)
    for n, (ask, _reply) in enumerate(LINEAGE_TURNS, start=1):
        agent.run_turn(ask, on_event)
        if n in COMPRESS_AFTER:
            agent.compress(None, on_event)
    agent.close()


def editor_session(agent: Any, on_event: Callable[[Any], None]) -> None:
    """A memory tool call staged for approval (foreground), then /branch and a turn in the branch."""
    agent.set_title(EDITOR)
    agent.run_turn(EDITOR_ASK, on_event)
    agent.branch(None, on_event)
    agent.run_turn(BRANCH_ASK, on_event)
    agent.close()


def cluster_session(agent: Any, on_event: Callable[[Any], None]) -> None:
    """Closed with its session-end review, which stages a write with origin background_review."""
    agent.set_title(CLUSTER)
    agent.run_turn(CLUSTER_ASK, on_event)
    agent.close(on_event)


def backup_session(agent: Any, on_event: Callable[[Any], None]) -> None:
    """Left open."""
    agent.set_title(BACKUP)
    agent.run_turn(BACKUP_ASK, on_event)


# ── direction 2: ours writes to the upstream-written home ──────────────────────────────────────
def ours_touch(home: Path) -> None:
    """A rename, a turn on the lineage tip (resumed by title), a memory add and an approval, all ours."""
    from hermes_tui.loopback_llm import LoopbackLLM

    ours_cli(home, "sessions", "rename", fixture.UNTITLED_ID, RENAMED)
    with LoopbackLLM(responder=loopback_replies, side_responder=side_replies) as llm:
        config = loopback_config(home, llm.base_url_openai)

        def one_turn(agent: Any, on_event: Callable[[Any], None]) -> None:
            agent.run_turn(TOUCH_ASK, on_event)
            agent.close()

        with_agent(home, config, one_turn, resume=fixture.LINEAGE_TITLE)
    ours_cli(home, "memory", "add", "--target", "memory", TOUCH_FACT)
    ours_cli(home, "memory", "approve", fixture.AUTO_ID)


# ── comparing ──────────────────────────────────────────────────────────────────────────────────
@dataclass
class Diff:
    """One field that differs; ``reason`` names the known deliberate difference it is, if it is one."""

    path: str
    ours: Any
    upstream: Any
    reason: str | None = None


@dataclass
class Check:
    name: str
    diffs: list[Diff] = field(default_factory=list)
    note: str = ""

    @property
    def status(self) -> str:
        if any(d.reason is None for d in self.diffs):
            return "DIFFERS"
        return "expected" if self.diffs else "same"


def deep_diff(ours: Any, upstream: Any, path: str = "") -> list[Diff]:
    """Leaf-level differences of two JSON-like values; lists of unequal length differ as a whole."""
    if isinstance(ours, dict) and isinstance(upstream, dict):
        diffs: list[Diff] = []
        for key in sorted(set(ours) | set(upstream), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in upstream:
                diffs.append(Diff(sub, ours[key], MISSING))
            elif key not in ours:
                diffs.append(Diff(sub, MISSING, upstream[key]))
            else:
                diffs.extend(deep_diff(ours[key], upstream[key], sub))
        return diffs
    if isinstance(ours, list) and isinstance(upstream, list) and len(ours) == len(upstream):
        return [d for i, (a, b) in enumerate(zip(ours, upstream)) for d in deep_diff(a, b, f"{path}[{i}]")]
    return [] if ours == upstream else [Diff(path, ours, upstream)]


def check(name: str, ours: Any, upstream: Any, note: str = "") -> Check:
    return Check(name, deep_diff(ours, upstream), note)


def list_check(name: str, ours_ids: list[str], upstream_ids: list[str], sessions: dict[str, Any]) -> Check:
    """Ours lists every session; upstream hides the compression-ended members of a lineage (its tip stands
    for them). Those are expected; any other id on one side only, or another order, is a difference."""
    result = Check(name)
    hidden = {sid for sid, row in sessions.items() if row["end_reason"] == "compression"}
    for sid in ours_ids:
        if sid not in upstream_ids:
            result.diffs.append(Diff(f"list[{sid}]", "listed", "not listed", LIST_REASON if sid in hidden else None))
    for sid in upstream_ids:
        if sid not in ours_ids:
            result.diffs.append(Diff(f"list[{sid}]", "not listed", "listed"))
    common = [sid for sid in ours_ids if sid in upstream_ids]
    if common != [sid for sid in upstream_ids if sid in ours_ids]:
        result.diffs.append(Diff("list order (ids both list)", common, [s for s in upstream_ids if s in ours_ids],
                                 ORDER_REASON))
    return result


def memory_check(name: str, ours: dict[str, Any], upstream: dict[str, Any]) -> Check:
    """Upstream's prompt block carries a [BLOCKED: …] marker for the facts our scanner deliberately allows;
    that marker (and the header usage it changes) is expected, any other block difference is not."""
    result = check(name, ours, upstream)
    for diff in result.diffs:
        if diff.path.endswith(".block"):
            diff.reason = blocked_only(str(diff.ours), str(diff.upstream))
    return result


def blocked_only(ours_block: str, upstream_block: str) -> str | None:
    """The reason when the blocks differ only by upstream blocking the known facts, else None."""
    ours_lines, up_lines = ours_block.split("\n"), upstream_block.split("\n")
    if len(ours_lines) != len(up_lines):
        return None
    reasons = set()
    for mine, theirs in zip(ours_lines, up_lines):
        if mine == theirs:
            continue
        if mine in KNOWN_BLOCKED and theirs.startswith("[BLOCKED:"):
            reasons.add(KNOWN_BLOCKED[mine])
        elif not (mine.startswith(("MEMORY", "USER")) and theirs.split("[")[0] == mine.split("[")[0]):
            return None  # the header line differs only in its usage figure, which the marker changes
    return "; ".join(sorted(reasons)) or None


def prune_check(name: str, ours: list[str], upstream: list[str], sessions: dict[str, Any], cutoff: float) -> Check:
    """A session started before the cutoff that ended after it is pruned by upstream only: expected."""
    result = Check(name)
    for sid in sorted(set(ours) ^ set(upstream)):
        row = sessions.get(sid, {})
        straddles = (row.get("started_at") or 0) < cutoff <= (row.get("ended_at") or 0)
        in_ours = sid in ours
        result.diffs.append(Diff(f"prune[{sid}]", "pruned" if in_ours else "kept", "kept" if in_ours else "pruned",
                                 PRUNE_REASON if straddles and not in_ours else None))
    return result


def without_snippets(search: dict[str, Any]) -> dict[str, Any]:
    return {q: {k: v for k, v in found.items() if k != "snippets"} for q, found in search.items()}


SNIPPET_KINDS = (
    ("upstream's snippet ends in padding spaces", lambda mine, theirs: theirs.rstrip() == mine),
    ("only ours marks the match (1–2 character CJK terms)",
     lambda mine, theirs: unmarked(mine).rstrip() == theirs.rstrip() and unmarked(theirs) == theirs),
    ("another excerpt: window, '…' vs '...', newlines kept or folded", lambda mine, theirs: True),
)


def unmarked(snippet: str) -> str:
    return snippet.replace(">>>", "").replace("<<<", "")


def snippet_check(name: str, ours: dict[str, Any], upstream: dict[str, Any]) -> Check:
    """Snippets of the hits both return, grouped by how they differ: one line per kind, with its count
    and one example, so a formatting difference is reported once rather than once per hit."""
    kinds: dict[str, list[tuple[str, str, str]]] = {}
    for query, found in ours.items():
        theirs = upstream.get(query, {}).get("snippets", {})
        for key, mine in found["snippets"].items():
            if key in theirs and theirs[key] != mine:
                kind = next(label for label, fits in SNIPPET_KINDS if fits(mine, theirs[key]))
                kinds.setdefault(kind, []).append((f"{query} → {key}", mine, theirs[key]))
    result = Check(name)
    for kind, cases in kinds.items():
        where, mine, theirs = cases[0]
        shows_match = all(">>>" in ours_snippet for _, ours_snippet, _ in cases)
        result.diffs.append(Diff(f"{kind}: {len(cases)} snippet(s), e.g. {where}", mine, theirs,
                                 SNIPPET_REASON if shows_match else None))
    return result


def view_checks(ours: dict[str, Any], upstream: dict[str, Any] | str, plan: dict[str, Any]) -> list[Check]:
    """Every comparison of our reading of a home with upstream's."""
    if isinstance(upstream, str):
        return [Check("upstream reads the home", [Diff("upstream reader", "read", upstream)])]
    cli, up_cli = ours["cli"], upstream["cli"]
    up_memory_usage = {t: {k: v for k, v in m.items() if k != "block"} for t, m in upstream["memory"].items()}
    cutoff = plan["now"] - plan["prune_days"] * 86400
    return [
        check("session rows (SessionDB.get_session)", ours["sessions"], upstream["sessions"]),
        check("stored messages (get_messages)", ours["messages"], upstream["messages"]),
        check("resume transcript (load_transcript / get_messages_as_conversation)",
              ours["transcript"], upstream["transcript"]),
        check("lineage: root, compression tip, resume target", ours["lineage"], upstream["lineage"]),
        check("titles: resolve by title, next title in lineage", ours["titles"], upstream["titles"]),
        check("search hits and roles (SessionDB.search / search_messages)", without_snippets(ours["search"]),
              without_snippets(upstream["search"])),
        snippet_check("search snippets (SessionDB.search / search_messages)", ours["search"], upstream["search"]),
        check("search --json hits and roles (our CLI)", without_snippets(cli["search"]),
              without_snippets(upstream["search"])),
        snippet_check("search --json snippets (our CLI)", cli["search"], upstream["search"]),
        list_check("sessions list --json (ours) / hermes sessions list", cli["list"], up_cli["list"], ours["sessions"]),
        check("sessions tree --json (ours): parents", cli["tree"], upstream["tree"]),
        check("sessions export (ours) / hermes sessions export", cli["export"], up_cli["export"]),
        check("sessions stats --json (ours) / hermes sessions stats", cli["stats"], up_cli["stats"]),
        prune_check(f"prune candidates, older than {plan['prune_days']} days", ours["prune"], upstream["prune"],
                    ours["sessions"], cutoff),
        memory_check("memory: entries, usage, prompt block", ours["memory"], upstream["memory"]),
        check("memory show --json (our CLI)", cli["memory"], up_memory_usage),
        check("pending records (PendingQueue.list / write_approval.list_pending)", ours["pending"], upstream["pending"]),
        check("memory pending --json (our CLI)", cli["pending"], upstream["pending"]),
        check("memory pending listing lines (ours) / /memory pending (upstream)", cli["pending_text"],
              upstream["pending_text"]),
    ]


def same_write_check(ours_pending: dict[str, Any], upstream_pending: dict[str, Any]) -> Check:
    """The same two staged writes, one staged by each program: record fields other than id and time."""
    def by_write(records: dict[str, Any]) -> dict[str, Any]:
        return {f"{r['origin']} {r['action']} {r['payload'].get('target')}":
                {k: v for k, v in r.items() if k != "created_at"} for r in records.values()}

    return check("the same staged writes, staged by each (summary, payload)", by_write(ours_pending),
                 by_write(upstream_pending))


def reread_check(before: dict[str, Any], after: dict[str, Any]) -> Check:
    return check("ours reads the same after upstream opened the home", before, after,
                 note="upstream migrates our schema-16 file to its schema 22 when it opens it")


# ── file-level checks ──────────────────────────────────────────────────────────────────────────
def db_shape(path: Path) -> dict[str, Any]:
    """Tables, indexes and triggers with their columns, the schema version and the integrity check."""
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        objects = conn.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall()
        shape = {name: {"type": kind, "columns": sorted(r[1] for r in conn.execute(f"PRAGMA table_info('{name}')"))}
                 for kind, name in objects}
        version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    return {"objects": shape, "version": version, "integrity": integrity}


def schema_check(before: dict[str, Any], after: dict[str, Any]) -> Check:
    """Every upstream object and column kept, version not lowered, file intact; our additions are expected."""
    result = Check("state.db after ours wrote: integrity, version, tables and columns",
                   note=f"integrity_check {after['integrity']!r}; schema_version {before['version']} → {after['version']}")
    if after["integrity"] != "ok":
        result.diffs.append(Diff("PRAGMA integrity_check", after["integrity"], "ok"))
    if (after["version"] or 0) < (before["version"] or 0):
        result.diffs.append(Diff("schema_version", after["version"], before["version"]))
    for name, obj in before["objects"].items():
        kept = after["objects"].get(name)
        if kept is None:
            result.diffs.append(Diff(f"{obj['type']} {name}", MISSING, "present"))
        elif missing := sorted(set(obj["columns"]) - set(kept["columns"])):
            result.diffs.append(Diff(f"{name} columns", f"lacks {', '.join(missing)}", "present"))
    for name in sorted(set(after["objects"]) - set(before["objects"])):
        reason = ADDITIVE_REASON if name.startswith(ADDITIVE_PREFIXES) else None
        result.diffs.append(Diff(f"{after['objects'][name]['type']} {name}", "added", MISSING, reason))
    return result


def home_paths(home: Path) -> set[str]:
    return {str(p.relative_to(home)) for p in home.rglob("*")}


def home_files_check(before: set[str], after: set[str], consumed: dict[str, str]) -> Check:
    """Paths ours added to or removed from the upstream home: the lock folder is expected, and so is the
    removal of a pending record ours approved (``consumed``); anything else is reported."""
    result = Check("home folder after ours wrote: paths added or removed")
    for path in sorted(after - before):
        top = path.split("/")[0]
        if top in ADDITIVE_PATHS and path != top:
            continue  # inside the lock folder: reported once, as the folder
        result.diffs.append(Diff(path, "added", MISSING, ADDITIVE_PATHS.get(path) or ADDITIVE_PATHS.get(top)))
    for path in sorted(before - after):
        result.diffs.append(Diff(path, MISSING, "present", consumed.get(path)))
    return result


# ── the two directions ─────────────────────────────────────────────────────────────────────────
def ours_to_upstream(upstream: Upstream, home: Path) -> tuple[list[Check], dict[str, str], dict[str, Any]]:
    """Direction 1; also returns session labels and our pending records (for the same-write check)."""
    build_ours_home(home)
    plan = {"queries": OURS_QUERIES, "titles": OURS_TITLES, "now": time.time() + 1.0, "prune_days": 0}
    ours = ours_view(home, plan)
    require_built(ours)
    up = upstream.read(home, plan)
    checks = view_checks(ours, up, plan)
    checks.append(reread_check(ours, ours_view(home, plan)))
    return checks, labels(ours["sessions"]), ours["pending"]


def require_built(view: dict[str, Any]) -> None:
    """Stop unless our home holds what direction 1 is about: a "same" over less would prove nothing."""
    rows = view["sessions"].values()
    titles = {row["title"]: row for row in rows}
    problems = [f"no session titled {t!r}" for t in OURS_TITLES if t not in titles]
    problems += [f"{t!r} did not end with compression" for t in (LINEAGE, f"{LINEAGE} #2")
                 if titles.get(t, {}).get("end_reason") != "compression"]
    if titles.get(EDITOR, {}).get("end_reason") != "branched":
        problems.append(f"{EDITOR!r} did not end as branched")
    if not any(m["role"] == "tool" for messages in view["messages"].values() for m in messages):
        problems.append("no tool result was stored")
    if {r["origin"] for r in view["pending"].values()} != {"foreground", "background_review"}:
        problems.append(f"pending origins are {sorted(r['origin'] for r in view['pending'].values())}")
    if problems:
        raise SystemExit("direction 1's home is not as intended: " + "; ".join(problems))


def upstream_to_ours(upstream: Upstream, home: Path) -> tuple[list[Check], list[Check], dict[str, str], dict[str, Any]]:
    """Direction 2, and the checks after ours wrote to that home; also labels and upstream's pending records."""
    upstream.write_fixture_home(home)
    plan = {"queries": UPSTREAM_QUERIES, "titles": UPSTREAM_TITLES, "now": FIXED_NOW, "prune_days": PRUNE_DAYS}
    up = upstream.read(home, plan)  # upstream first: its own home, as it left it
    if isinstance(up, str):
        raise SystemExit(up)
    read_checks = view_checks(ours_view(home, plan), up, plan)
    shape, paths = db_shape(home / "state.db"), home_paths(home)
    ours_touch(home)
    after_plan = dict(plan, titles=(*UPSTREAM_TITLES, RENAMED))
    after_up = upstream.read(home, after_plan)
    approved = {f"pending/memory/{fixture.AUTO_ID}.json": "the record ours approved is used up, as upstream's approve does"}
    written = [schema_check(shape, db_shape(home / "state.db")), home_files_check(paths, home_paths(home), approved)]
    written += view_checks(ours_view(home, after_plan), after_up, after_plan)
    return read_checks, written, labels(up["sessions"]), up["pending"]


def labels(sessions: dict[str, Any]) -> dict[str, str]:
    return {sid: row["title"] or "(untitled)" for sid, row in sessions.items()}


# ── the report ─────────────────────────────────────────────────────────────────────────────────
def shown(value: Any, width: int = 160) -> str:
    text = MISSING if value == MISSING else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def print_section(title: str, checks: list[Check], names: dict[str, str]) -> None:
    print(f"\n== {title} ==")
    if names:
        print("   sessions: " + "; ".join(f"{sid} = {t}" for sid, t in names.items()))
    for item in checks:
        note = f"  ({item.note})" if item.note else ""
        print(f"  {item.status:<8}  {item.name}{note}")
        for diff in item.diffs:
            tag = f"expected: {diff.reason}" if diff.reason else "differs"
            print(f"              {diff.path} — {tag}")
            print(f"                ours:     {shown(diff.ours)}")
            print(f"                upstream: {shown(diff.upstream)}")


def summary_line(sections: list[list[Check]]) -> tuple[str, int]:
    checks = [c for section in sections for c in section]
    counts = {status: sum(c.status == status for c in checks) for status in ("same", "expected", "DIFFERS")}
    text = f"{len(checks)} checks: {counts['same']} same, {counts['expected']} expected, {counts['DIFFERS']} differ"
    return text, counts["DIFFERS"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, help=f"reuse this venv (it must have {fixture.UPSTREAM})")
    parser.add_argument("--upstream-read", nargs=2, type=Path, metavar=("PLAN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.upstream_read:
        upstream_read(*args.upstream_read)
        return 0

    with tempfile.TemporaryDirectory(prefix="hermes-compat-") as tmp:
        scratch = Path(tmp)
        os.environ["HERMES_HOME"] = str(scratch / "no-home")  # a path our code might default to: never a real one
        upstream = Upstream(fixture.upstream_python(args.venv, scratch), scratch)
        one, names_one, ours_pending = ours_to_upstream(upstream, scratch / "ours-home")
        two, written, names_two, upstream_pending = upstream_to_ours(upstream, scratch / "upstream-home")
        both = [same_write_check(ours_pending, upstream_pending)]
    print(f"Upstream round trip against {fixture.UPSTREAM} ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    print_section("1. ours writes → upstream reads", one, names_one)
    print_section("2. upstream writes → ours reads", two, names_two)
    print_section("2b. after ours wrote to upstream's home (rename, a turn, memory add, approval)", written, {})
    print_section("both writers, the same memory writes", both, {})
    text, differing = summary_line([one, two, written, both])
    print(f"\n{text}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
