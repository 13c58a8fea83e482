"""Session store benchmark: every figure is a ratio of two timings taken in the same run.

Run: ``.venv/bin/python -m bench.bench_store [--quick-check]`` (first run builds the synthetic
home, ~2 min; ``--quick-check``: only the integrity check a process runs before its first write).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import platform
import random
import shutil
import sqlite3
import statistics
import tempfile
from pathlib import Path
from typing import Callable

from bench.synthetic_home import cached_home
from bench.timing import median_of, percentile, run_times
from engine.store import SessionDB
from engine.store.connection import verify_intact
from hermes_tui.cli import main

REPEAT = 7


def warm_median(fn: Callable[[], object], repeat: int = REPEAT) -> float:
    """Median of ``repeat`` runs after one warm-up (page cache and statement cache warm)."""
    return median_of(fn, repeat, warm_up=True)


def timed(fn: Callable[[], object]) -> float:
    return run_times(fn, 1)[0]


def query_classes(conn: sqlite3.Connection) -> dict[str, list[tuple[str, str, str]]]:
    """(user query, bare MATCH text, bare table) per class, ≥ 50 queries in all."""
    rare = [f"rareword{97 * k}" for k in range(1, 14)]  # synthetic_home plants these a few times each
    common = ["deploy", "staging", "kubernetes", "python", "error", "fix", "test", "database", "api", "server",
              "config", "build", "release"]
    phrases = ['"deploy staging"', '"python error"', '"fix test"', '"database api"', '"server config"',
               '"build release"', '"kubernetes python"', '"staging deploy"', '"error fix"', '"test database"',
               '"api server"', '"config build"', '"release deploy"']
    cjk = ["迁移支付", "数据库配置", "部署测试", "失败原因", "修复日志", "缓存会话", "搜索索引", "查询延迟", "支付服务",
           "配置部署", "测试失败", "原因修复", "日志缓存"]
    return {
        "rare word": [(q, q, "messages_fts") for q in rare],
        "common word": [(q, q, "messages_fts") for q in common],
        "phrase": [(q, q, "messages_fts") for q in phrases],
        "CJK ≥ 3 chars": [(q, f'"{q}"', "messages_fts_trigram") for q in cjk],
    }


def bench_search(db: SessionDB, conn: sqlite3.Connection) -> list[str]:
    lines = ["| class | queries | bare p50 ms | ours p50 ms | ratio p50 | bare p95 ms | ours p95 ms | ratio p95 |",
             "|---|---|---|---|---|---|---|---|"]
    all_bare: list[float] = []
    all_ours: list[float] = []
    for name, queries in query_classes(conn).items():
        bare_t, ours_t = [], []
        for user_q, match, table in queries:
            bare_sql = f"SELECT rowid, content FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT 20"
            bare_t.append(warm_median(lambda: conn.execute(bare_sql, (match,)).fetchall()))
            ours_t.append(warm_median(lambda: db.search(user_q, limit=20)))
        all_bare += bare_t
        all_ours += ours_t
        lines.append(row(name, len(queries), bare_t, ours_t))
    lines.append(row("**all**", len(all_bare), all_bare, all_ours))
    # The same comparison query by query: the ratio of two medians can pair different queries.
    ratios = [o / b for o, b in zip(all_ours, all_bare)]
    lines += ["", f"Per query (ours ÷ bare for the same terms, {len(ratios)} queries): p50 {percentile(ratios, 50):.2f}×, "
              f"p95 {percentile(ratios, 95):.2f}×, max {max(ratios):.2f}×."]
    return lines


def row(name: str, n: int, bare: list[float], ours: list[float]) -> str:
    b50, o50, b95, o95 = percentile(bare, 50), percentile(ours, 50), percentile(bare, 95), percentile(ours, 95)
    return (f"| {name} | {n} | {b50 * 1e3:.2f} | {o50 * 1e3:.2f} | {o50 / b50:.2f}× | {b95 * 1e3:.2f} | "
            f"{o95 * 1e3:.2f} | {o95 / b95:.2f}× |")


def bench_short_cjk(db: SessionDB, conn: sqlite3.Connection) -> list[str]:
    # Upstream's fallback on its own schema (no timestamp index): a full scan, then a sort.
    scan_sql = ("SELECT m.id, m.session_id, m.content FROM messages m NOT INDEXED WHERE m.content LIKE ? "
                "ORDER BY m.timestamp DESC LIMIT 20")
    # The same query allowed to walk this project's timestamp index newest-first (stops early).
    walk_sql = scan_sql.replace(" NOT INDEXED", "")
    lines = ["| query | LIKE full scan ms | LIKE index walk ms | ours ms | ours / scan | ours / walk |",
             "|---|---|---|---|---|---|"]
    ratios = []
    for q in ["迁", "支付", "库", "延迟", "令牌", "补丁", "龙", "不存"]:
        scan = warm_median(lambda: conn.execute(scan_sql, (f"%{q}%",)).fetchall(), 3)
        walk = warm_median(lambda: conn.execute(walk_sql, (f"%{q}%",)).fetchall(), 3)
        ours = warm_median(lambda: db.search(q, limit=20))
        ratios.append(ours / scan)
        lines.append(f"| {q} | {scan * 1e3:.1f} | {walk * 1e3:.2f} | {ours * 1e3:.2f} | {ours / scan:.3f}× | "
                     f"{ours / walk:.2f}× |")
    lines.append(f"| **worst vs scan** | | | | {max(ratios):.3f}× | |")
    return lines


def bench_append_history(db: SessionDB) -> str:
    small = db.create_session(title="bench small")
    big = db.create_session(title="bench big")
    db.append_messages(small, [{"role": "user", "content": f"prior {i}"} for i in range(5)])
    for start in range(0, 5000, 500):
        db.append_messages(big, [{"role": "user", "content": f"prior {i} deploy 部署"} for i in range(start, start + 500)])
    turn = [{"role": "user", "content": "one more question about deploy 迁移"},
            {"role": "assistant", "content": "one more answer about the staging server"}]
    small_t: list[float] = []
    big_t: list[float] = []
    rng = random.Random(3)
    for _ in range(200):
        # Interleaved so drift hits both equally, in a random order per pair: a fixed order
        # aliases with a checkpoint every other append and bills every checkpoint to one side.
        pair = [(small, small_t), (big, big_t)]
        rng.shuffle(pair)
        for session, times in pair:
            times.append(timed(lambda: db.append_messages(session, turn)))
    s, b = statistics.median(small_t), statistics.median(big_t)
    return f"| append one turn | 5 prior: {s * 1e3:.3f} ms | 5,000 prior: {b * 1e3:.3f} ms | {b / s:.2f}× |"


def bench_append_tail(db: SessionDB, label: str, count: int = 20_000) -> str:
    sid = db.create_session(title=f"bench tail {label}")
    rng = random.Random(7)
    times = []
    for i in range(count):
        text = f"tail message {i} {rng.choice(['deploy', 'fix', '部署测试', 'latency'])}"
        times.append(timed(lambda: db.append_messages(sid, [{"role": "user", "content": text}])))
    p50, p999, worst = percentile(times, 50), percentile(times, 99.9), max(times)
    slow = sum(t > 10 * p50 for t in times)
    return (f"| {count:,} single appends, {label} | p50 {p50 * 1e3:.3f} ms | p99.9 {p999 * 1e3:.3f} ms "
            f"(max {worst * 1e3:.1f} ms; {slow} appends > 10× p50) | {p999 / p50:.2f}× |")


def bench_append_tails(db: SessionDB) -> list[str]:
    """The target figure, then two diagnostics: with Python's GC running, and with no checkpoint."""
    gc_on = bench_append_tail(db, "GC running")
    # Python's cyclic GC pauses every few thousand allocations (~4 ms with this heap): a pause of
    # the process, not of the store. Freezing the setup heap takes it out of the target figure.
    gc.collect()
    gc.freeze()
    frozen = bench_append_tail(db, "GC frozen (target)")
    # Diagnostic only: which part of the tail is SQLite's WAL checkpoint (its fsyncs)? The WAL
    # grows to ~2 GB here, so it is checkpointed and truncated right after.
    db._conn.execute("PRAGMA wal_autocheckpoint=0")
    unchecked = bench_append_tail(db, "GC frozen, checkpoints off (diagnostic)")
    db._conn.execute("PRAGMA wal_autocheckpoint=1000")
    db._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    gc.unfreeze()
    return [frozen, gc_on, unchecked]


def bench_list(big_home: Path, empty_home: Path) -> str:
    def run(home: Path) -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["--home", str(home), "sessions", "list", "--limit", "20"]) == 0

    empty = warm_median(lambda: run(empty_home), 15)
    big = warm_median(lambda: run(big_home), 15)
    return f"| `sessions list --limit 20` | empty: {empty * 1e3:.2f} ms | big: {big * 1e3:.2f} ms | {big / empty:.2f}× |"


def bench_quick_check(big_home: Path, empty_home: Path) -> str:
    """``PRAGMA quick_check`` before a process's first write (``verify_intact``), the file in the
    page cache as after any recent use: it reads every page, so it grows with the home."""
    def check(home: Path) -> Callable[[], None]:
        conn = sqlite3.connect(home / "state.db")
        return lambda: verify_intact(conn, home / "state.db")

    empty = warm_median(check(empty_home), 5)
    big = warm_median(check(big_home), 5)
    return (f"| first write's `quick_check` | empty: {empty * 1e3:.2f} ms | big: {big * 1e3:.0f} ms | "
            f"{big / empty:.0f}× |")


def main_bench() -> None:
    source = cached_home()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "big"
        home.mkdir()
        shutil.copyfile(source / "state.db", home / "state.db")
        empty = Path(tmp) / "empty"
        db = SessionDB.open_home(home)
        SessionDB.open_home(empty).close()
        conn = sqlite3.connect(home / "state.db")
        stats = db.stats()
        cjk = conn.execute("SELECT COUNT(*) FROM messages WHERE content GLOB '*[一-龥]*'").fetchone()[0]
        out = [
            f"Home: {stats['sessions']:,} sessions, {stats['messages']:,} messages ({cjk:,} with CJK), "
            f"{stats['db_bytes'] / 1e6:.0f} MB.",
            "",
            "### Search vs the bare FTS query (median of 7 runs per query)",
            "Bare: `SELECT rowid, content FROM <fts> WHERE <fts> MATCH ? ORDER BY rank LIMIT 20` "
            "(messages_fts; messages_fts_trigram for CJK). Ours: `SessionDB.search(q, limit=20)` — sanitizing, "
            "joins for session/title, snippet(), lineage roots, SearchHit objects.",
            "",
            *bench_search(db, conn),
            "",
            "### 1–2 character CJK vs a plain LIKE scan",
            "LIKE: `SELECT … FROM messages m WHERE m.content LIKE '%q%' ORDER BY m.timestamp DESC LIMIT 20`.",
            "",
            *bench_short_cjk(db, conn),
            "",
            "### Writes and listing",
            "",
            "| measure | A | B | ratio |",
            "|---|---|---|---|",
            bench_append_history(db),
            bench_list(home, empty),
            bench_quick_check(home, empty),
            *bench_append_tails(db),
        ]
        conn.close()
        db.close()
    print("\n".join(out))


def quick_check_only() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty"
        SessionDB.open_home(empty).close()
        print("| measure | A | B | ratio |\n|---|---|---|---|")
        print(bench_quick_check(cached_home(), empty))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick-check", action="store_true", help="only the check before a first write")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, {platform.machine()}")
    if args.quick_check:
        quick_check_only()
    else:
        main_bench()
