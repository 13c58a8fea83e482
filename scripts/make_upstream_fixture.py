#!/usr/bin/env python3
"""Build the test fixture home ``tests/fixtures/upstream_home_v22`` with upstream Hermes's own code.

    .venv/bin/python scripts/make_upstream_fixture.py [OUT_DIR] [--venv DIR]

It makes a throw-away venv, installs ``hermes-agent==0.19.0`` from PyPI into it (``--venv`` reuses
a venv that already has exactly that version), and runs this same file there as the *driver*
(``--drive HOME``). The driver imports upstream's ``hermes_state.SessionDB``,
``tools.memory_tool`` and ``tools.write_approval`` and, with ``HERMES_HOME`` pointed at a
scratch home, writes the sessions, the memory files and two staged memory writes through them.
Only ``state.db``, ``memories/MEMORY.md``, ``memories/USER.md`` and ``pending/memory/*.json``
are then copied to OUT_DIR (default ``tests/fixtures/upstream_home_v22``); upstream's lock files
and the ``config.yaml`` that switched its approval gate on stay behind.

Everything is pinned: the driver replaces ``time.time`` with a clock it sets before each call, so
every ``started_at``, ``ended_at``, message ``timestamp`` and pending ``created_at`` is a fixed
UTC time, and it replaces ``uuid.uuid4`` while staging so the pending ids are fixed. Session ids
are passed in. A re-run writes the same bytes. No field is written with SQL: end reasons, parent
links, titles and times all go through upstream's methods (``end_session``,
``create_session(parent_session_id=…)``, ``set_session_title``, ``get_next_title_in_lineage``).

The driver part uses the standard library and upstream's package only; nothing from this repo.
See ``tests/fixtures/README.md`` for what the home holds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

UPSTREAM = "hermes-agent==0.19.0"
UPSTREAM_VERSION = UPSTREAM.split("==")[1]
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "upstream_home_v22"
KEPT = ("state.db", "memories/MEMORY.md", "memories/USER.md")  # plus pending/memory/*.json

# ── the content ────────────────────────────────────────────────────────────────────────────────
MODEL = "gpt-5.1"
SYSTEM_PROMPT = "You are Hermes, a careful assistant for one person's servers and code."

# A compression lineage: 整理告警规则 → #2 → #3 (the first two end with "compression").
ROOT_ID, SECOND_ID, TIP_ID = "20261102_083000_3fa9c1", "20261102_085201_8d21e7", "20261102_091401_c07b5d"
LINEAGE_TITLE = "整理告警规则"
# A branch: Certificate renewal → Certificate renewal #2 (the parent ends with "branched").
CERT_ID, CERT_BRANCH_ID = "20261112_140000_b41e09", "20261112_152000_e6f3a8"
CERT_TITLE = "Certificate renewal"
# Five sessions about 100 days before the tests' clock, newest first; 1 and 3 came from telegram.
ARCHIVE = [
    ("20260822_091500_0c5a11", "cli", "2026-08-22 09:15:00"),
    ("20260821_091500_1d6b22", "telegram", "2026-08-21 09:15:00"),
    ("20260820_091500_2e7c33", "cli", "2026-08-20 09:15:00"),
    ("20260819_091500_3f8d44", "telegram", "2026-08-19 09:15:00"),
    ("20260818_091500_4a9e55", "cli", "2026-08-18 09:15:00"),
]
UNTITLED_ID = "20261124_074500_9c4d2f"
MARKER = "pangolinmark"
NEWEST_ID = "20261129_080000_7e2a90"

MEMORY_ENTRIES = [
    "Home server atlas runs Debian 12; SSH in as ops@atlas.lan",
    "Backups: restic to a Backblaze B2 bucket every night at 02:00 UTC",
    "Alert rules are in ~/infra/alerts; reload them with `make reload-alerts`",
    "Never restart postgres on atlas between 09:00 and 18:00 CST",
]
USER_ENTRIES = [
    "Prefers short answers with the command first",
    "Works in UTC+8; writes commit messages in English",
    "用户习惯用 Vim 编辑配置文件",
]
AUTO_ID, AUTO_AT = "5b3e8d1a", "2026-11-29 08:01:00"  # staged by the background review
AUTO_CONTENT = "The staging cluster was upgraded to Kubernetes 1.31 on 2026-11-27"
REPLACE_ID, REPLACE_AT = "c94f2e07", "2026-11-29 08:03:30"  # staged by a foreground turn
REPLACE_OLD, REPLACE_NEW = "Vim", "用户现在改用 Helix 编辑配置文件"


def utc(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc).timestamp()


# ── the driver: runs inside the venv that has upstream installed ───────────────────────────────
def drive(home: Path) -> None:
    import time
    import uuid

    class Clock:
        now = utc("2026-11-01 00:00:00")

    def at(when: str) -> None:
        Clock.now = utc(when)

    time.time = lambda: Clock.now  # every upstream write below reads the clock through time.time()
    os.environ["HERMES_HOME"] = str(home)
    home.mkdir(parents=True, exist_ok=True)

    from importlib.metadata import version

    assert version("hermes-agent") == UPSTREAM_VERSION, version("hermes-agent")
    import hermes_state
    from agent.context_compressor import _SUMMARY_END_MARKER, ContextCompressor
    from hermes_state import SessionDB
    from tools import write_approval
    from tools.memory_tool import MemoryStore, memory_tool
    from tools.skill_provenance import reset_current_write_origin, set_current_write_origin

    assert hermes_state.SCHEMA_VERSION == 22, hermes_state.SCHEMA_VERSION
    db = SessionDB(db_path=home / "state.db")

    def start(sid: str, when: str, *, title: str | None = None, source: str = "cli", parent: str | None = None,
              model_config: dict | None = None) -> None:
        at(when)
        db.create_session(sid, source, model=MODEL, system_prompt=SYSTEM_PROMPT, parent_session_id=parent,
                          model_config=model_config)
        if title:
            assert db.set_session_title(sid, title), sid

    def say(sid: str, when: str, role: str, content: str | None = None, **fields) -> None:
        at(when)
        db.append_message(sid, role, content, **fields)

    def end(sid: str, when: str, reason: str) -> None:
        at(when)
        db.end_session(sid, reason)

    # The lineage, rotated the way upstream's compression does it: end the session with
    # "compression", open a child whose parent is the old one, give it the next numbered title.
    start(ROOT_ID, "2026-11-02 08:30:00", title=LINEAGE_TITLE)
    say(ROOT_ID, "2026-11-02 08:30:00", "user", "帮我整理告警规则：磁盘告警太吵，阈值从 80% 调到 90%")
    say(ROOT_ID, "2026-11-02 08:30:08", "assistant", "好的。先看 alerts/disk.yaml 里的告警表达式，再把 for 时长改成 15 分钟。")
    say(ROOT_ID, "2026-11-02 08:31:15", "user", "值班表也要更新，周末改成两人轮换")
    say(ROOT_ID, "2026-11-02 08:31:30", "assistant", "已更新值班表：周末由两人轮换，交接时间定在周一上午。")
    end(ROOT_ID, "2026-11-02 08:52:00", "compression")
    start(SECOND_ID, "2026-11-02 08:52:01", parent=ROOT_ID, title=db.get_next_title_in_lineage(LINEAGE_TITLE))
    summary = ContextCompressor._with_summary_prefix("磁盘阈值已调到 90%，值班表已改为周末两人轮换；还没查静默配置。")
    say(SECOND_ID, "2026-11-02 08:52:01", "user", f"{summary}\n\n{_SUMMARY_END_MARKER}")
    say(SECOND_ID, "2026-11-02 08:52:30", "user", "现在看看为什么静默配置没生效")
    say(SECOND_ID, "2026-11-02 08:52:41", "assistant", "静默没生效是因为 matcher 里的标签名写成了 instance_name。")
    end(SECOND_ID, "2026-11-02 09:14:00", "compression")
    start(TIP_ID, "2026-11-02 09:14:01", parent=SECOND_ID, title=db.get_next_title_in_lineage(LINEAGE_TITLE))
    say(TIP_ID, "2026-11-02 09:14:10", "user", "把通知渠道也切到企业微信机器人")
    say(TIP_ID, "2026-11-02 09:14:25", "assistant", "通知渠道已切换：告警经 webhook 发到企业微信，并附带 runbook 链接。")

    # A session with a tool call, then a branch of it, made the way upstream's /branch makes one:
    # end the parent with "branched", open a child carrying the _branched_from marker, title it.
    # (Upstream also copies the parent's messages into the branch; here the branch holds only its
    # own turn, so each message is in one session.)
    call = {"id": "call_7c1e4b90d2a3", "type": "function",
            "function": {"name": "terminal", "arguments": json.dumps({"command": "systemctl status certbot.timer"})}}
    start(CERT_ID, "2026-11-12 14:00:00", title=CERT_TITLE)
    say(CERT_ID, "2026-11-12 14:00:00", "user",
        "Why did certbot stop renewing the certificate for the staging ingress?")
    say(CERT_ID, "2026-11-12 14:00:04", "assistant", None, tool_calls=[call], finish_reason="tool_calls")
    say(CERT_ID, "2026-11-12 14:00:06", "tool",
        "● certbot.timer - Run certbot twice daily\n     Loaded: masked (Reason: Unit certbot.timer is masked.)\n"
        "     Active: inactive (dead)",
        tool_call_id=call["id"], tool_name="terminal")
    say(CERT_ID, "2026-11-12 14:00:15", "assistant",
        "The certbot timer is masked: the last OS upgrade masked it, so the timer has not fired since.",
        finish_reason="stop")
    end(CERT_ID, "2026-11-12 15:20:00", "branched")
    start(CERT_BRANCH_ID, "2026-11-12 15:20:00", parent=CERT_ID, model_config={"_branched_from": CERT_ID},
          title=db.get_next_title_in_lineage(CERT_TITLE))
    say(CERT_BRANCH_ID, "2026-11-12 15:20:10", "user", "Alternative: switch the ACME setup to a DNS challenge instead")
    say(CERT_BRANCH_ID, "2026-11-12 15:20:22", "assistant",
        "With a TXT record at _acme-challenge the ingress no longer has to answer on port 80.")

    # Old ended sessions (for pruning); their messages are written after the newer ones above.
    for n, (sid, source, when) in enumerate(ARCHIVE):
        start(sid, when, title=f"Shell tip {n}", source=source)
        say(sid, when, "user", f"Shell question {n}: when should I quote a heredoc delimiter?")
        later = datetime.fromtimestamp(utc(when) + 3, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        say(sid, later, "assistant", f"Shell answer {n}: quote it to stop expansion inside the heredoc body.")
        end(sid, datetime.fromtimestamp(utc(when) + 12, timezone.utc).strftime("%Y-%m-%d %H:%M:%S"), "user_exit")

    # An open session without a title, holding a word found nowhere else.
    start(UNTITLED_ID, "2026-11-24 07:45:00")
    say(UNTITLED_ID, "2026-11-24 07:45:00", "user", f"Can you read the error in the attached image? {MARKER}")
    say(UNTITLED_ID, "2026-11-24 07:45:05", "assistant",
        "It is a 502 from the load balancer: the upstream health check timed out after 5 s.")

    # The newest session, open.
    start(NEWEST_ID, "2026-11-29 08:00:00", title="Backup script review")
    say(NEWEST_ID, "2026-11-29 08:00:00", "user", "Review the restic backup script at ~/ops/backup.sh")
    say(NEWEST_ID, "2026-11-29 08:00:07", "assistant",
        "It never prunes old snapshots; add `restic forget --keep-daily 7 --prune` after the backup step.")
    db.close()  # upstream's close: a TRUNCATE checkpoint of the WAL

    # Memory through upstream's memory tool, its approval gate off (no config.yaml yet).
    at("2026-11-02 08:40:00")
    store = MemoryStore()
    store.load_from_disk()
    for target, entries in (("memory", MEMORY_ENTRIES), ("user", USER_ENTRIES)):
        for entry in entries:
            result = json.loads(memory_tool(action="add", target=target, content=entry, store=store))
            assert result.get("success") and not result.get("staged"), result

    # Two staged writes: switch upstream's gate on (memory.write_approval in config.yaml) and call
    # the memory tool again, once as the background review, once as a foreground turn.
    (home / "config.yaml").write_text("memory:\n  write_approval: true\n", encoding="utf-8")
    assert write_approval.write_approval_enabled(write_approval.MEMORY)
    real_uuid4 = uuid.uuid4
    for pending_id, when, origin, arguments in (
        (AUTO_ID, AUTO_AT, "background_review", {"action": "add", "target": "memory", "content": AUTO_CONTENT}),
        (REPLACE_ID, REPLACE_AT, "foreground",
         {"action": "replace", "target": "user", "old_text": REPLACE_OLD, "content": REPLACE_NEW}),
    ):
        at(when)
        uuid.uuid4 = lambda pending_id=pending_id: uuid.UUID(pending_id + "0" * 24)
        token = set_current_write_origin(origin)
        try:
            result = json.loads(memory_tool(store=store, **arguments))
        finally:
            reset_current_write_origin(token)
            uuid.uuid4 = real_uuid4
        assert result.get("staged") and result["pending_id"] == pending_id, result
        assert write_approval.get_pending(write_approval.MEMORY, pending_id)["origin"] == origin

    for sidecar in ("state.db-wal", "state.db-shm"):
        (home / sidecar).unlink(missing_ok=True)


# ── the outer script: venv, install, run the driver, copy what a home keeps ────────────────────
def upstream_python(venv_dir: Path | None, scratch: Path) -> Path:
    if venv_dir is None:
        venv_dir = scratch / "venv"
        print(f"creating a venv in {venv_dir} and installing {UPSTREAM} …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv_dir)], check=True)
        subprocess.run([str(venv_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", UPSTREAM],
                       check=True)
    python = venv_dir / "bin" / "python"
    probe = "from importlib.metadata import version; print(version('hermes-agent'))"
    found = subprocess.run([str(python), "-c", probe], check=True, capture_output=True, text=True).stdout.strip()
    if found != UPSTREAM_VERSION:
        raise SystemExit(f"{venv_dir} has hermes-agent {found}, not {UPSTREAM_VERSION}")
    return python


def copy_out(home: Path, out: Path) -> list[Path]:
    pending = sorted((home / "pending" / "memory").glob("*.json"))
    wanted = [home / rel for rel in KEPT] + pending
    for path in wanted:
        if not path.is_file():
            raise SystemExit(f"upstream did not write {path}")
    replaceable = {"state.db", "state.db-wal", "state.db-shm", "memories", "pending"}
    others = sorted(p.name for p in out.iterdir() if p.name not in replaceable) if out.is_dir() else []
    if others:  # a real Hermes home, or some other folder: never wipe its memories
        raise SystemExit(f"{out} holds more than a fixture home ({', '.join(others)}); choose an empty folder")
    for stale in sorted(replaceable):
        target = out / stale
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    written = []
    for path in wanted:
        dest = out / path.relative_to(home)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
        written.append(dest)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", nargs="?", type=Path, default=DEFAULT_OUT, help="where the home goes")
    parser.add_argument("--venv", type=Path, help=f"reuse this venv (it must have {UPSTREAM})")
    parser.add_argument("--drive", type=Path, help=argparse.SUPPRESS)  # internal: run as the driver
    args = parser.parse_args(argv)
    if args.drive is not None:
        drive(args.drive)
        return 0

    out = args.out_dir.resolve()
    with tempfile.TemporaryDirectory(prefix="hermes-fixture-") as tmp:
        scratch = Path(tmp)
        python = upstream_python(args.venv, scratch)
        home, fake_user_home = scratch / "home", scratch / "user"
        fake_user_home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON"))}
        env.update(HERMES_HOME=str(home), HOME=str(fake_user_home), TZ="UTC", PYTHONHASHSEED="0")
        subprocess.run([str(python), str(Path(__file__).resolve()), "--drive", str(home)], check=True, env=env,
                       cwd=scratch)
        written = copy_out(home, out)
    print(f"wrote {len(written)} files, made by {UPSTREAM}, to {out}:")
    for path in written:
        print(f"  {path.relative_to(out)}  ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
