"""The interactive browser's read connection: stoppable queries, newest-first walks, title search."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from engine.errors import StoreError
from engine.store import SessionDB
from engine.store.reader import SearchReader


@pytest.fixture
def filled(db: SessionDB) -> SessionDB:
    for n in range(3):
        sid = db.create_session(source="cli", title=f"Release checklist {n}" if n else "Quarterly review")
        db.append_messages(sid, [{"role": "user", "content": f"deploy the api, take {n}"},
                                 {"role": "assistant", "content": f"deploy done for take {n}"}])
    return db


def test_newest_first_walks_the_index_from_the_newest_match(filled: SessionDB) -> None:
    reader = filled.reader()
    newest = reader.search("deploy", limit=10, newest_first=True)
    assert newest is not None and [h.message_id for h in newest] == sorted((h.message_id for h in newest), reverse=True)
    ranked = reader.search("deploy", limit=10)
    assert ranked is not None and {h.message_id for h in ranked} == {h.message_id for h in newest}
    assert filled.search("deploy", limit=10, newest_first=True) == newest
    reader.close()


def test_a_stopped_query_returns_none_and_changes_nothing(filled: SessionDB) -> None:
    reader = filled.reader()
    assert reader.search("deploy", limit=10, cancelled=lambda: True) is None
    assert reader.search("deploy", limit=10, deadline=time.monotonic() - 1) is None
    assert reader.titles("release", limit=5, cancelled=lambda: True) is None
    reader.interrupt()  # nothing in flight: a no-op, the next query runs
    assert reader.search("deploy", limit=10) is not None
    reader.close()


def test_interrupt_from_another_thread_ends_a_query_in_flight(filled: SessionDB) -> None:
    reader = filled.reader()
    started = threading.Event()
    calls: list[None] = []

    def stalled() -> bool:  # the progress handler: keeps the query going until it is interrupted
        calls.append(None)
        if len(calls) > 1:  # the first call is the check before the query starts
            started.set()
        return False

    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(reader._run(
        lambda c: c.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n")
        .fetchone(), None, stalled)), daemon=True)
    thread.start()
    assert started.wait(10)
    reader.interrupt()
    thread.join(10)
    assert result == [None]
    reader.close()


def test_titles_are_searched_newest_first_with_or_and_not(filled: SessionDB) -> None:
    reader = filled.reader()
    assert [s.title for s in reader.titles("release", limit=5)] == ["Release checklist 2", "Release checklist 1"]
    assert [s.title for s in reader.titles("checklist NOT 2", limit=5)] == ["Release checklist 1"]
    assert [s.title for s in reader.titles("quarterly OR 2", limit=5)] == ["Release checklist 2", "Quarterly review"]
    assert reader.titles("release", limit=1)[0].title == "Release checklist 2"
    assert reader.titles("AND", limit=5) == []
    reader.close()


def test_a_title_search_takes_the_typed_text_literally_and_folds_ascii_case(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path / "home") as db:
        for title in ("100% uptime", "100 percent", "snake_case rename", "snakeXcase", "back\\slash",
                      "Café RÉSUMÉ", "支付服务迁移"):
            db.create_session(source="cli", title=title)
        reader = db.reader()

        def found(query: str) -> list[str]:
            return sorted(s.title or "" for s in reader.titles(query, limit=10))

        assert found("100%") == ["100% uptime"]  # % and _ are not wildcards
        assert found("snake_case") == ["snake_case rename"]
        assert found("k\\s") == ["back\\slash"]
        assert found("CAFÉ") == found("café") == ["Café RÉSUMÉ"]  # the ASCII letters fold
        assert found("résumé") == []  # as SQLite's lower(): letters past ASCII keep their case
        assert found("迁移") == ["支付服务迁移"]
        assert found("snake NOT rename") == ["snakeXcase"]
        reader.close()


def test_ranks_only_where_an_order_exists() -> None:
    assert SearchReader.ranks("deploy") and SearchReader.ranks("支付服务")
    assert not SearchReader.ranks("迁移") and not SearchReader.ranks("")


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="state.db: cannot open for reading"):
        SearchReader(tmp_path / "nowhere" / "state.db")


@pytest.mark.parametrize(("query", "earlier", "expected"), [
    ("kube", "kub", True), ("deploy sta", "deploy", True), ("Kube", "kub", True),  # patterns are lowered
    ("kub", "kube", False),  # a key deleted widens the query
    ("kube OR x", "kub", False), ("kube NOT x", "kub", False), ("kube", "kub OR x", False),
    ("other", "kub", False), ("", "kub", False),
])
def test_which_queries_narrow_an_earlier_one(query: str, earlier: str, expected: bool) -> None:
    from engine.store.query import parse_query
    from engine.store.search import narrows

    assert narrows(parse_query(query), parse_query(earlier)) is expected


TITLES = ("Kubernetes upgrade", "kube-proxy notes", "Cube rendering", "kubectl cheatsheet", "Deploy staging",
          "deploy prod", "支付服务迁移", "100% uptime", "Release checklist")


def test_typing_a_title_query_key_by_key_finds_what_a_fresh_search_finds(tmp_path: Path, monkeypatch) -> None:
    import engine.store.reader as reader_module

    looked_among: list[object] = []
    title_matches = reader_module.title_matches
    monkeypatch.setattr(reader_module, "title_matches", lambda c, p, limit, among=None: (
        looked_among.append(among), title_matches(c, p, limit, among))[1])
    with SessionDB.open_home(tmp_path / "home") as db:
        for title in TITLES:
            db.create_session(source="cli", title=title)
        reader = db.reader()
        typed = ["k", "ku", "kub", "kube", "kuber", "kube", "kub", "kub OR", "kub OR cube", "d", "de", "dep",
                 "deploy", "deploy ", "deploy s", "deploy st", "支", "支付", "支付迁", "100", "100%", "release"]
        for text in typed:
            fresh = db.reader()
            assert [s.id for s in reader.titles(text, limit=5)] == [s.id for s in fresh.titles(text, limit=5)], text
            fresh.close()
        assert any(among is not None for among in looked_among)  # the narrowing did happen
        assert reader.titles("deploy s", limit=5)  # then another program writes a matching title
        db.create_session(source="cli", title="Deploy sandbox")
        assert "Deploy sandbox" in [s.title for s in reader.titles("deploy sa", limit=5)]
        reader.close()
