"""Structured (multimodal) stored content in the app: text and ``[image]`` markers, never the
NUL-prefixed JSON or base64 that upstream's encoding keeps in ``state.db``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from engine.store import SessionDB, StoredMessage
from engine.store.messages import JSON_PREFIX
from hermes_tui.widgets.chat_entries import entries_from_transcript
from hermes_tui.widgets.transcript_preview import message_text
from tests.tui.helpers import FIXED_NOW, SIZE, close_app, make_app, ready, screen_text

PNG = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUg" * 10
PARTS = [{"type": "text", "text": "what is on screen?"}, {"type": "image_url", "image_url": {"url": PNG}}]
RAW_LEFTOVERS = ("\x00", "json:", "image_url", "iVBOR")


def test_chat_entries_and_preview_show_text_and_markers() -> None:
    entries = entries_from_transcript([
        {"role": "user", "content": PARTS},
        {"role": "assistant", "content": {"type": "text", "text": "A terminal."}},
    ])
    assert [(e.kind, e.text) for e in entries] == [("user", "what is on screen?\n[image]"), ("assistant", "A terminal.")]
    shown = message_text(StoredMessage(id=1, session_id="s", role="user", content=PARTS, timestamp=FIXED_NOW)).plain
    assert shown.endswith("what is on screen?\n[image]")


async def test_resuming_a_session_with_structured_rows_shows_their_text(home: Path) -> None:
    with SessionDB.open_home(home) as db:
        sid = db.create_session(source="tui", title="Screenshots")
        db.append_messages(sid, [{"role": "user", "content": PARTS},
                                 {"role": "assistant", "content": "A terminal window."}])
    with sqlite3.connect(home / "state.db") as conn:  # a row as upstream's append_message encodes it
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                     (sid, JSON_PREFIX + json.dumps([{"type": "text", "text": "and this one?"},
                                                     {"type": "input_audio", "input_audio": {"data": "UklGR"}}]),
                      FIXED_NOW))
    app = make_app(home, resume="Screenshots")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        text = screen_text(app)
        assert "what is on screen?" in text and "[image]" in text
        assert "and this one?" in text and "[audio]" in text
        assert not any(bad in text for bad in RAW_LEFTOVERS)
    close_app(app)
