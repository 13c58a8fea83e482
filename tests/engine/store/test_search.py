"""Search: query sanitizing and routing, FTS semantics, filters, lineage roots, short CJK terms."""

from __future__ import annotations

import sqlite3

import pytest

from engine.store import SessionDB
from engine.store.query import Route, parse_query
from engine.store.search import make_snippet


@pytest.mark.parametrize(
    ("text", "route", "expression"),
    [
        ("deploy staging", Route.WORD, '"deploy" "staging"'),
        ('"exact phrase" OR other', Route.WORD, '"exact phrase" OR "other"'),
        ("python NOT java", Route.WORD, '"python" NOT "java"'),
        ("deploy*", Route.WORD, '"deploy"*'),
        ('"unbalanced', Route.WORD, '"unbalanced"'),
        ("foo( c++", Route.WORD, '"foo(" "c++"'),
        ('say "hi"" there', Route.WORD, '"say" "hi" "there"'),
        ("NOT a OR", Route.WORD, '"a"'),
        ("AND", Route.EMPTY, ""),
        ("* ++ (", Route.EMPTY, ""),
        ("迁移支付", Route.TRIGRAM, '"迁移支付"'),
        ("迁移支付 CI pipeline*", Route.TRIGRAM, '"迁移支付" "pipeline"'),
        ("支付", Route.SHORT, '"支付"'),
        ("迁 CI", Route.SHORT, '"迁" "CI"'),
    ],
)
def test_parse_and_route(text: str, route: Route, expression: str) -> None:
    parsed = parse_query(text)
    assert parsed.route is route
    assert parsed.match_expression() == expression


def test_long_paste_is_bounded() -> None:
    assert len(parse_query("word " * 5000).terms) == 64


@pytest.fixture
def corpus(db: SessionDB) -> dict[str, str]:
    a = db.create_session(session_id="a", title="Deploy")
    db.append_messages(a, [
        {"role": "user", "content": "the staging deploy fails on kubernetes"},
        {"role": "assistant", "content": "python decorators wrap functions; java has annotations"},
        {"role": "user", "content": "部署到生产环境需要审批"},
    ])
    db.end_session(a, "compression")
    b = db.create_session(session_id="b", parent_session_id=a, source="telegram")
    db.append_messages(b, [
        {"role": "user", "content": "deployment checklist for python services"},
        {"role": "assistant", "content": "生产 环境 已就绪"},
    ])
    return {"a": a, "b": b}


def test_word_semantics(db: SessionDB, corpus: dict[str, str]) -> None:
    ids = lambda q: sorted(h.message_id for h in db.search(q))  # noqa: E731
    assert ids("python") == [2, 4]
    assert ids("python NOT java") == [4]
    assert ids("deploy*") == [1, 4]
    assert ids('"staging deploy"') == [1]
    assert ids('"deploy staging"') == []
    assert ids("kubernetes OR checklist") == [1, 4]


def test_hits_carry_lineage_snippet_and_filters(db: SessionDB, corpus: dict[str, str]) -> None:
    [hit] = db.search("checklist")
    assert (hit.session_id, hit.lineage_root, hit.role, hit.title) == ("b", "a", "user", None)
    assert ">>>checklist<<<" in hit.snippet
    assert [h.message_id for h in db.search("python", source="telegram")] == [4]
    assert [h.message_id for h in db.search("python", exclude_session_ids=["b"])] == [2]
    assert [h.message_id for h in db.search("python", hide_sources=["telegram"])] == [2]
    assert len(db.search("python", limit=1)) == 1 and db.search("python", limit=0) == []


def test_cjk_routes(db: SessionDB, corpus: dict[str, str]) -> None:
    assert [h.message_id for h in db.search("生产环境")] == [3]  # trigram
    assert [h.message_id for h in db.search("生产")] == [5, 3]  # short path, newest first
    assert [h.message_id for h in db.search("审")] == [3]
    assert [h.message_id for h in db.search("生产", limit=1)] == [5]  # served by the recent window
    assert [h.message_id for h in db.search("生产 python")] == []
    assert [h.message_id for h in db.search("生产 NOT 审批")] == [5]
    assert [h.message_id for h in db.search("环境", source="telegram")] == [5]
    assert ">>>生产<<<" in db.search("生产")[0].snippet


def test_fts_tables_follow_deletes_and_updates(db: SessionDB, corpus: dict[str, str]) -> None:
    conn = sqlite3.connect(db.path)
    conn.execute("UPDATE messages SET content = 'replaced text' WHERE id = 1")
    conn.commit()
    conn.close()
    assert db.search("kubernetes") == [] and [h.message_id for h in db.search("replaced")] == [1]
    db.delete_session("b")
    assert [h.message_id for h in db.search("python")] == [2] and [h.message_id for h in db.search("生产")] == [3]


def test_make_snippet_marks_every_needle() -> None:
    text = "x" * 100 + " Alpha beta alpha " + "y" * 100
    snippet = make_snippet(text, ["alpha"])
    assert snippet.startswith("…") and snippet.endswith("…")
    assert snippet.count(">>>") == 2 and ">>>Alpha<<<" in snippet


def test_lineage_roots_of_deep_chains_and_missing_parents(db: SessionDB, corpus: dict[str, str]) -> None:
    c = db.create_session(session_id="c", parent_session_id=corpus["b"])
    db.append_messages(c, [{"role": "user", "content": "grandchild trigram 第三代会话"}])
    assert {h.lineage_root for h in db.search("grandchild")} == {"a"}  # word route, depth 2
    assert {h.lineage_root for h in db.search("第三代")} == {"a"}  # trigram route
    assert {h.lineage_root for h in db.search("第三")} == {"a"}  # short CJK route
    with sqlite3.connect(db.path) as conn:  # a dangling parent, as hand-edited or older data can have
        conn.execute("UPDATE sessions SET parent_session_id = 'gone' WHERE id = 'b'")
    assert {h.lineage_root for h in db.search("grandchild")} == {"b"}  # the walk ends at the last row
    assert {h.lineage_root for h in db.search("checklist")} == {"b"}


def test_trigram_snippets_are_cut_around_the_match(db: SessionDB) -> None:
    sid = db.create_session()
    db.append_messages(sid, [{"role": "user", "content": "前言" * 40 + "数据库迁移" + "后记" * 60}])
    [hit] = db.search("数据库迁移")
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert ">>>数据库迁移<<<" in hit.snippet and len(hit.snippet) < 120
