"""Realistic data for the demo home: lineages, a branch, English and Chinese sessions, memory, approvals.

Everything is written through the engine (SessionDB, MemoryStore, PendingQueue), so the demo
home has exactly the formats a real home has. Times are laid out backwards from ``now`` by
pinning ``engine.clock`` while each row is written, then restoring whatever clock was there.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from engine import clock
from engine.compression.summary import SUMMARY_END_MARKER, SUMMARY_PREFIX
from engine.memory import MemoryStore, PendingQueue
from engine.memory.files import serialize
from engine.memory.history import Cause
from engine.store import SessionDB

HOUR, DAY = 3600.0, 86400.0
MODEL = "hermes-demo"

MEMORY_ENTRIES = (
    "Project hermes-tui: Python 3.11, Textual 8.2; tests with pytest -q, snapshots via pytest-textual-snapshot.",
    "Staging server 10.0.1.50, SSH port 2222, key ~/.ssh/staging_ed25519; deploys go through `make deploy-staging`.",
    "The payments service moved its session store from MySQL to PostgreSQL 16 (2026-11); CI uses the postgres:16 service.",
    "Release checklist lives in docs/RELEASE.md; tag with `git tag -s vX.Y.Z`, then push tags before building wheels.",
    "Go metrics exporter: Prometheus client_golang, /metrics on :9102, histogram buckets tuned for p99 < 250 ms.",
    "The user's API in ~/code/myapi uses Axum 0.8 with SQLx (postgres feature); routes in src/routes.rs.",
    "Retry policy agreed: bounded attempts (3), exponential backoff from 200 ms with ±50 % jitter, re-raise the last error.",
    "Code review style: small PRs, one concern each; a failing test first when fixing a bug.",
    "支付服务的令牌刷新使用 7 天滑动过期窗口；refresh_token 存在 PostgreSQL 的 auth_tokens 表里。",
    "Docs are written in British English; changelog entries start with a verb in the past tense.",
    "Local LLM for experiments: Ollama at http://127.0.0.1:11434/v1 with qwen2.5-coder:7b.",
    "Monitoring: Grafana dashboards in ops/grafana/*.json; alert on p99 latency > 400 ms for 5 minutes.",
    "Branch naming: feat/<ticket>-<slug>, fix/<ticket>-<slug>; squash-merge into main, never rebase shared branches.",
    "The on-call runbook is in docs/oncall.md; pager rotation changes on Mondays at 09:00 UTC+8.",
    "数据库索引：orders(user_id, created_at DESC) 复合索引已上线，慢查询从 1.8 秒降到 40 毫秒。",
)
USER_ENTRIES = (
    "Name: Mei. Backend engineer; writes Python and Go, reads Chinese and English.",
    "Prefers concise answers with a code example first, explanations after.",
    "Works in UTC+8; usually deploys on Tuesdays and Thursdays, never on Fridays.",
)
# Where the history says entries came from: (target, index) → (actor, session title, nth reply of it).
# The first two memory entries are in the file before the history begins ("origin unknown").
PREDATING = 2
ORIGINS = {
    ("memory", 2): ("model", "迁移支付服务 #3", 0),
    ("memory", 3): ("model", "Release checklist", 1),
    ("memory", 4): ("model", "Go metrics exporter", 0),
    ("memory", 6): ("background_review", "Retry helper in Python", 1),
    ("memory", 14): ("model", "数据库索引优化", 0),
    ("user", 1): ("background_review", "Python decorators", 0),
    ("user", 2): ("model", "Release checklist", 0),
}
PENDING = (
    ({"action": "add", "target": "user", "content": "Prefers tabs in Go, four spaces in Python"}, "foreground"),
    ({"action": "add", "target": "memory", "content": "The staging database is restored nightly at 02:00 UTC"},
     "background_review"),
    ({"action": "replace", "target": "memory", "old_text": "qwen2.5-coder:7b", "content":
      "Local LLM for experiments: Ollama at http://127.0.0.1:11434/v1 with qwen2.5-coder:14b."}, "background_review"),
)


@contextmanager
def _pinned(ts: float) -> Iterator[None]:
    """Write rows as if at ``ts``; the caller's clock (real or a test's fixed one) comes back after."""
    previous = clock._now  # there is no public getter; restoring it keeps a test's pinned clock intact
    clock.set_clock(lambda: ts)
    try:
        yield
    finally:
        clock.set_clock(previous)


def _turns(*pairs: tuple[str, str]) -> list[dict]:
    out: list[dict] = []
    for user, assistant in pairs:
        out += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return out


def _handoff(summary: str) -> dict:
    return {"role": "user", "content": f"{SUMMARY_PREFIX}\n\n{summary}\n\n{SUMMARY_END_MARKER}"}


def _session(db: SessionDB, at: float, title: str, messages: list[dict], *, source: str = "tui",
             end: str | None = "user_exit", usage: tuple[int, int] = (0, 0)) -> str:
    with _pinned(at):
        sid = db.create_session(source=source, model=MODEL, title=title, system_prompt="(demo)")
    with _pinned(at + 240):
        db.append_messages(sid, messages)
        db.add_usage(sid, input_tokens=usage[0], output_tokens=usage[1], api_calls=len(messages) // 2)
    if end:
        with _pinned(at + 600):
            db.end_session(sid, end)
    return sid


def _fork(db: SessionDB, parent: str, at: float, reason: str, title: str, messages: list[dict],
          usage: tuple[int, int], end: str | None = None) -> str:
    with _pinned(at):
        child = db.fork_session(parent, end_reason=reason, messages=messages, title=title,
                                system_prompt="(demo)", model=MODEL, source="tui")
        db.add_usage(child, input_tokens=usage[0], output_tokens=usage[1], api_calls=2)
    if end:
        with _pinned(at + 900):
            db.end_session(child, end)
    return child


def seed_sessions(db: SessionDB, now: float) -> None:
    """A 3-step compression lineage (Chinese), a branch (English), and a handful of single sessions."""
    _session(db, now - 90 * DAY, "Python decorators", _turns(
        ("How do I write a decorator that keeps the wrapped function's name?",
         "Use `functools.wraps(fn)` on the inner function."),), source="cli", usage=(3_100, 240))
    _session(db, now - 40 * DAY, "Retry helper in Python", _turns(
        ("Write me a retry helper with backoff.", "Here is a bounded retry with jitter: `retry(fn, attempts=3)`."),
        ("Should it catch every exception?", "No — only transient ones such as OSError and timeouts."),
    ), usage=(8_400, 900))
    root = _session(db, now - 21 * DAY, "迁移支付服务", _turns(
        ("帮我迁移支付服务的代码，把会话存储从 MySQL 迁移到 PostgreSQL", "好的。首先检查 auth/session_store.py 中的数据库迁移逻辑。"),
        ("令牌刷新逻辑也要重写，使用滑动过期窗口", "已重写令牌刷新：refresh_token 现在使用 7 天滑动窗口。"),
        ("连接池配置呢？", "把 pool_size 调到 20，max_overflow 10，并开启 pool_pre_ping。"),
    ), end="compression", usage=(96_000, 4_200))
    second = _fork(db, root, now - 21 * DAY + 3 * HOUR, "compression", "迁移支付服务 #2", [
        _handoff("## Task snapshot\n支付服务会话存储从 MySQL 迁移到 PostgreSQL；令牌刷新已改为滑动窗口。"),
        *_turns(("迁移脚本在预发环境跑通了吗？", "跑通了：12 张表、340 万行，耗时 6 分钟，校验和一致。"),
                ("回滚方案？", "保留 MySQL 只读副本 7 天；回滚只需切回连接串。")),
    ], usage=(71_000, 3_100), end="compression")
    _fork(db, second, now - 20 * DAY, "compression", "迁移支付服务 #3", [
        _handoff("## Task snapshot\n迁移已在预发验证；回滚方案：MySQL 只读副本保留 7 天。"),
        *_turns(("把 CI 也切换到 PostgreSQL 16 服务容器", "已更新 .github/workflows/ci.yml：services.postgres 使用 postgres:16。")),
    ], usage=(24_000, 1_300))
    release = _session(db, now - 8 * DAY, "Release checklist", _turns(
        ("Why does the staging deploy of the terraform manifests fail?",
         "The api pod is in CrashLoopBackOff: the readiness probe points at port 8080 but the container listens on 8000."),
        ("Fix the probe then.", "Changed `readinessProbe.httpGet.port` to 8000 in k8s/api.yaml."),
    ), end=None, usage=(15_500, 1_100))
    _fork(db, release, now - 8 * DAY + 2 * HOUR, "branched", "Release checklist #2", _turns(
        ("Alternative: switch the probe to a TCP check instead", "A `tcpSocket` probe on 8000 works too, but it "
         "only proves the port is open, not that the app is ready."),
    ), usage=(9_800, 600))
    _session(db, now - 3 * DAY, "数据库索引优化", _turns(
        ("订单查询很慢，怎么加索引？", "在 orders(user_id, created_at DESC) 上建复合索引，查询计划从全表扫描变为索引扫描。"),
    ), source="telegram", usage=(5_200, 380))
    _session(db, now - 26 * HOUR, "Go metrics exporter", _turns(
        ("Add a Prometheus exporter to the Go service", "Registered a histogram `http_request_duration_seconds` "
         "and serve /metrics on :9102."),
    ), source="cli", usage=(6_900, 520))


Causes = dict[tuple[str, int], tuple[Cause, float]]


def _causes(db: SessionDB) -> Causes:
    """``ORIGINS`` as causes naming the real session and reply of the seeded database, with its time."""
    ids = {s.title: s.id for s in db.list_sessions(limit=0)}
    causes = {}
    for key, (actor, title, nth) in ORIGINS.items():
        reply = [m for m in db.get_messages(ids[title]) if m.role == "assistant"][nth]
        causes[key] = (Cause(actor, ids[title], reply.id), reply.timestamp)
    return causes


def seed_memory(home: Path, causes: Causes, now: float) -> None:
    """MEMORY.md near 70 % full, a short USER.md, and pending approvals (two of them ``[auto]``);
    a history of who wrote what, written when they did, some entries older than it."""
    store = MemoryStore(home / "memories")
    store.memories_dir.mkdir(parents=True, exist_ok=True)
    store.path("memory").write_text(serialize(list(MEMORY_ENTRIES[:PREDATING])), encoding="utf-8")
    for target, entries, first in (("memory", MEMORY_ENTRIES, PREDATING), ("user", USER_ENTRIES, 0)):
        for index in range(first, len(entries)):
            cause, at = causes.get((target, index), (Cause("cli"), now))
            with _pinned(at):
                store.add(target, entries[index], cause=cause)
    queue = PendingQueue(home)
    with _pinned(now):
        for payload, origin in PENDING:
            key = ("memory", 6) if origin == "background_review" else ("user", 2)
            queue.stage(payload, origin=origin, cause=causes[key][0])


def seed_home(home: Path, now: float) -> None:
    """Fill an empty ``home`` (state.db, memories, pending) with demo data ending at ``now``."""
    with SessionDB.open_home(home) as db:
        seed_sessions(db, now)
        causes = _causes(db)
    seed_memory(home, causes, now - 2 * HOUR)

