"""A synthetic Hermes home for benchmarks: many sessions and messages, one message in five CJK.

Built once with executemany inside one transaction (the FTS triggers index as rows go in) and
cached under ``bench/_data/`` (git-ignored); callers copy it before writing to it.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

from engine.store import SessionDB

CACHE = Path(__file__).resolve().parent / "_data"
WORDS = (
    "deploy staging kubernetes python error fix test database api server config build release docker "
    "cache memory token session search index query latency metrics logging network proxy timeout retry "
    "schema migration commit branch merge review patch module import function class method thread async "
    "await socket request response header payload json yaml parser compiler runtime profile benchmark"
).split()
CJK_WORDS = (
    "迁移 支付 服务 数据库 配置 部署 测试 失败 原因 修复 日志 缓存 会话 搜索 索引 查询 延迟 指标 网络 代理 "
    "超时 重试 模式 提交 分支 合并 审查 补丁 模块 函数 线程 异步 请求 响应 解析 编译 运行 性能 基准 令牌"
).split()
SOURCES = ("cli", "cli", "cli", "telegram", "discord")
START = 1_790_000_000.0


def _zipf_pick(rng: random.Random, words: list[str]) -> str:
    return words[min(int(rng.paretovariate(1.2)) - 1, len(words) - 1)]


def _text(rng: random.Random, cjk: bool, serial: int) -> str:
    if cjk:
        body = "".join(_zipf_pick(rng, CJK_WORDS) for _ in range(rng.randint(6, 30)))
        return f"{body}，{_zipf_pick(rng, WORDS)} {rng.choice(CJK_WORDS)}。"
    words = [_zipf_pick(rng, WORDS) for _ in range(rng.randint(8, 60))]
    if serial % 97 == 0:
        words.append(f"rareword{serial % 5000}")  # each appears a handful of times
    return " ".join(words)


def build_home(path: Path, sessions: int = 10_000, messages: int = 200_000, seed: int = 1) -> Path:
    """Create ``path/state.db`` (replacing nothing: an existing home is returned as is)."""
    path = Path(path)
    if (path / "state.db").exists():
        return path
    tmp = path.with_name(path.name + ".building")
    shutil.rmtree(tmp, ignore_errors=True)
    rng = random.Random(seed)
    SessionDB.open_home(tmp).close()
    session_rows = []
    for i in range(sessions):
        started = START + i * 600.0
        parent = f"s{i - 1:06d}" if i % 10 == 9 else None  # every tenth is a continuation
        session_rows.append((f"s{i:06d}", rng.choice(SOURCES), f"Session {i}", "bench-model", parent, started,
                             started + 500.0, "compression" if i % 10 == 8 else "user_exit"))
    message_rows = []
    for n in range(messages):
        sess = rng.randrange(sessions)
        ts = START + sess * 600.0 + rng.uniform(0, 480)
        message_rows.append((f"s{sess:06d}", "user" if n % 2 == 0 else "assistant", _text(rng, n % 5 == 0, n), ts))
    message_rows.sort(key=lambda r: r[3])
    counts: dict[str, int] = {}
    for row in message_rows:
        counts[row[0]] = counts.get(row[0], 0) + 1
    conn = sqlite3.connect(tmp / "state.db", isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")  # a throwaway build: durability does not matter
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO sessions (id, source, title, model, parent_session_id, started_at, ended_at, end_reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", session_rows)
    conn.executemany("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)", message_rows)
    conn.executemany("UPDATE sessions SET message_count = ? WHERE id = ?", [(c, s) for s, c in counts.items()])
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    tmp.rename(path)
    return path


def _reply(rng: random.Random, serial: int) -> str:
    """An assistant message: prose, and every few a list or a code fence (what Markdown costs)."""
    text = _text(rng, False, serial)
    kind = serial % 6
    if kind == 1:
        text += "\n\n" + "".join(f"- {_zipf_pick(rng, WORDS)} {_zipf_pick(rng, WORDS)}\n" for _ in range(rng.randint(2, 6)))
    elif kind == 3:
        body = "".join(f"    step_{i} = {_zipf_pick(rng, WORDS)}({i})\n" for i in range(rng.randint(3, 12)))
        text += f"\n\n```python\ndef handler_{serial}():\n{body}```\n"
    elif kind == 5:
        text = "\n\n".join(_text(rng, False, serial + k) for k in range(rng.randint(2, 5)))  # a long one
    return text


def long_session(db: SessionDB, messages: int, seed: int = 1, last_text: str = "") -> str:
    """One session of ``messages`` alternating user/assistant messages of mixed lengths (some with
    Markdown lists and code); ``last_text`` ends the last one, so a bench can see it drawn."""
    rng = random.Random(seed)
    session_id = db.create_session(source="cli", title=f"A {messages}-message session")
    rows = [{"role": "user", "content": _text(rng, n % 10 == 0, n)} if n % 2 == 0
            else {"role": "assistant", "content": _reply(rng, n)} for n in range(messages)]
    rows[-1]["content"] += last_text
    db.append_messages(session_id, rows)
    db.end_session(session_id, "user_exit")
    return session_id


def cached_home(sessions: int = 10_000, messages: int = 200_000, seed: int = 1) -> Path:
    return build_home(CACHE / f"home_{sessions}_{messages}_{seed}", sessions, messages, seed)


if __name__ == "__main__":
    import time

    t0 = time.perf_counter()
    print(cached_home(), f"{time.perf_counter() - t0:.1f}s")
