"""A fork reads to upstream as what it is: a branch carries upstream's marker, and every child
starts no earlier than its parent ended (upstream tells branches from sub-agent runs by these)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import clock
from engine.store import SessionDB

FORK = dict(messages=[{"role": "user", "content": "hi"}], title=None, system_prompt="S", model="m", source="cli")


@pytest.fixture
def db(tmp_path: Path):
    clock.set_clock(None)  # the real clock: a pinned one would hide a child starting before its parent ended
    with SessionDB.open_home(tmp_path / "home") as store:
        yield store


def test_a_branch_carries_upstreams_marker_and_starts_as_its_parent_ends(db: SessionDB) -> None:
    parent = db.create_session(source="cli")
    child = db.fork_session(parent, end_reason="branched", **FORK)
    forked, ended = db.require_session(child), db.require_session(parent)
    assert forked.model_config == {"_branched_from": parent}
    assert ended.ended_at is not None and forked.started_at >= ended.ended_at


def test_a_compression_child_has_no_branch_marker(db: SessionDB) -> None:
    parent = db.create_session(source="cli")
    child = db.fork_session(parent, end_reason="compression", **FORK)
    forked, ended = db.require_session(child), db.require_session(parent)
    assert forked.model_config is None and forked.started_at >= (ended.ended_at or 0)
