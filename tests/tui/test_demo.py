"""Demo mode: the seeded home, the scripted model through the real agent, clean-up, the start screen."""

from __future__ import annotations

import json
from pathlib import Path


from engine import clock
from engine.agent import Agent
from engine.config import load_config
from engine.events import CompressionDone, EngineEvent, TextDelta
from engine.memory import MemoryStore, PendingQueue
from engine.store import SessionDB
from engine.auto_titles import TITLE_SYSTEM
from hermes_tui.demo.model import WELCOME, chat_reply, side_reply
from hermes_tui.demo.run import DEMO_GUIDE, demo_home
from hermes_tui.demo.seed import seed_home
from hermes_tui.themes import BUNDLED_DIR
from tests.tui.helpers import FIXED_NOW, SIZE, close_app, make_app, ready


def test_seed_has_lineage_branch_languages_memory_and_approvals(tmp_path: Path) -> None:
    seed_home(tmp_path, FIXED_NOW)
    assert clock.now() == FIXED_NOW  # the caller's pinned clock is back
    with SessionDB.open_home(tmp_path) as db:
        forest = db.tree()
        chain = next(n for n in forest if n.session.title == "迁移支付服务")
        assert chain.session.end_reason == "compression"
        assert chain.children[0].session.title == "迁移支付服务 #2"
        assert chain.children[0].children[0].session.title == "迁移支付服务 #3"
        release = next(n for n in forest if n.session.title == "Release checklist")
        assert release.session.end_reason == "branched" and release.children[0].session.title == "Release checklist #2"
        assert db.search("PostgreSQL") and db.search("支付") and db.search("terraform")
        assert all(s.started_at < FIXED_NOW for s in db.list_sessions(limit=0))
    store = MemoryStore(tmp_path / "memories")
    assert 60 <= store.usage("memory").pct <= 75
    records, warnings = PendingQueue(tmp_path).list()
    assert not warnings and len(records) == 3
    assert sum(r.auto for r in records) == 2 and any("[auto]" in r.line() for r in records)


def test_scripted_model_answers_each_kind_of_request() -> None:
    remember = chat_reply({"messages": [{"role": "user", "content": "remember that I deploy on Fridays"}]})
    call = remember.tool_calls[0]
    assert call.name == "memory"
    assert json.loads(call.arguments) == {"action": "add", "target": "user", "content": "I deploy on Fridays"}
    assert chat_reply({"messages": [{"role": "user", "content": "hi"}]}).text == WELCOME
    title = side_reply({"messages": [{"role": "system", "content": TITLE_SYSTEM},
                                     {"role": "user", "content": "帮我迁移支付服务"}]})
    assert title.text == "演示对话"


def test_demo_home_chats_offline_and_leaves_nothing_behind(demo_folder: Path, tmp_path: Path) -> None:
    with demo_home(tokens_per_second=None) as demo:
        config = load_config(demo.home)
        assert config.get("model.base_url") == demo.server.base_url_openai
        with SessionDB.open_home(demo.home) as db:
            agent = Agent.start(config, db, cwd=demo.home)
            events: list[EngineEvent] = []
            agent.run_turn("hello", events.append)
            assert "".join(e.text for e in events if isinstance(e, TextDelta)) == WELCOME
            before = PendingQueue(demo.home).count()
            agent.run_turn("remember that I deploy on Fridays", events.append)
            assert PendingQueue(demo.home).count() == before + 1  # write approval on: it waits
            agent.close()
            agent.wait_for_background(5)
    assert list(demo_folder.iterdir()) == []
    assert not (tmp_path / "user").exists()


def test_the_welcome_suggestions_work_as_written(demo_folder: Path) -> None:
    """What the demo model's welcome offers to try: /compress really compresses after a few
    messages, the searches find their sessions, the theme exists."""
    assert "`/compress` (after a few messages)" in WELCOME
    with demo_home(tokens_per_second=None) as demo:
        config = load_config(demo.home)
        with SessionDB.open_home(demo.home) as db:
            agent = Agent.start(config, db, cwd=demo.home)
            events: list[EngineEvent] = []
            for text in ("hello", "show me a retry helper", "how do I migrate postgres?"):
                agent.run_turn(text, events.append)
            agent.compress(None, events.append)
            done = [e for e in events if isinstance(e, CompressionDone)]
            assert done and done[0].removed_messages >= 3 and not done[0].used_fallback
            assert done[0].tokens_after < done[0].tokens_before
            assert agent.title == "Demo conversation #2"
            for query in ("postgres", "支付", '"retry helper"'):
                assert db.search(query), query
            agent.close()
            agent.wait_for_background(5)
    assert "hermes-light" in {path.stem for path in BUNDLED_DIR.glob("*.yaml")}


def test_demo_start_screen(snap_compare, demo_folder: Path, fixed_ids: None) -> None:
    with demo_home(tokens_per_second=None) as demo:
        app = make_app(demo.home, welcome=DEMO_GUIDE)
        try:
            assert snap_compare(app, terminal_size=SIZE, run_before=ready)
        finally:
            close_app(app)
