"""Lineage: numbered titles, resolve by id/prefix/title, compression tip, resume target, tree."""

from __future__ import annotations

import pytest

from engine import clock
from engine.errors import NotFoundError, RefusedError
from engine.store import SessionDB


@pytest.fixture
def chain(db: SessionDB) -> list[str]:
    """root --compression--> second --compression--> tip, plus a branch off root made while it was open."""
    times = iter(float(t) for t in range(1000, 2000, 10))
    clock.set_clock(lambda: next(times))
    root = db.create_session(session_id="s_root", title="Plan")
    branch = db.create_session(session_id="s_branch", parent_session_id=root, title="Plan branch")
    db.end_session(branch, "branched")
    db.end_session(root, "compression")
    second = db.create_session(session_id="s_second", parent_session_id=root, title=db.next_lineage_title("Plan"))
    db.end_session(second, "compression")
    tip = db.create_session(session_id="s_tip", parent_session_id=second, title=db.next_lineage_title("Plan #2"))
    return [root, second, tip, branch]


def test_numbered_titles(db: SessionDB, chain: list[str]) -> None:
    assert [db.require_session(s).title for s in chain[:3]] == ["Plan", "Plan #2", "Plan #3"]
    assert db.next_lineage_title("Plan") == "Plan #4"
    assert db.next_lineage_title("Fresh") == "Fresh"
    assert db.next_lineage_title("x" * 100).endswith("x") and len(db.next_lineage_title("x" * 100)) <= 100


def test_root_tip_and_ids(db: SessionDB, chain: list[str]) -> None:
    root, second, tip, branch = chain
    assert db.lineage_root(tip) == root and db.lineage_root(root) == root
    assert db.lineage_tip(root) == tip and db.lineage_tip(second) == tip
    assert db.lineage_tip(branch) == branch  # a branch's own end is not a compression
    assert db.lineage_ids(tip) == [root, branch, second, tip]


def test_resolve(db: SessionDB, chain: list[str]) -> None:
    root, second, tip, branch = chain
    assert db.resolve(second) == second
    assert db.resolve("Plan") == tip  # the newest numbered variant
    assert db.resolve("Plan #2") == second  # asked for by name
    assert db.resolve("s_ti") == tip
    with pytest.raises(RefusedError, match="several"):
        db.resolve("s_")
    with pytest.raises(NotFoundError):
        db.resolve("Nothing")
    assert db.resume_target(root) == tip and db.resume_target("Plan branch") == branch


def test_most_recent_tip(db: SessionDB, chain: list[str]) -> None:
    assert db.most_recent_tip() == chain[2]
    assert db.most_recent_tip("Plan branch") == chain[3]
    assert db.most_recent_tip("unknown title") is None


def test_most_recent_tip_of_empty_home(db: SessionDB) -> None:
    assert db.most_recent_tip() is None


def test_tree(db: SessionDB, chain: list[str]) -> None:
    root, second, tip, branch = chain
    other = db.create_session(session_id="s_other")
    forest = db.tree()
    assert [n.session.id for n in forest] == [other, root]
    [node] = db.tree(tip)
    assert [c.session.id for c in node.children] == [branch, second]
    assert node.children[1].children[0].session.id == tip
    assert node.to_json()["children"][1]["children"][0]["id"] == tip


def test_lineages_of_many_sessions_are_their_trees_read_at_once(db: SessionDB, chain: list[str]) -> None:
    branch = db.create_session(title="a branch", parent_session_id=chain[1])
    alone = db.create_session(title="on its own")
    found = db.lineages([chain[2], alone, branch, "20990101_000000_gone00"])
    assert list(found) == [chain[2], alone, branch]  # what is gone is left out
    for sid, node in found.items():
        assert node.to_json() == db.tree(sid)[0].to_json()
    assert found[chain[2]] is found[branch]  # one lineage, one node
    assert db.lineages([]) == {}
