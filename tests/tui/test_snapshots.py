"""Snapshots of the main screen at a fixed size, with a fixed clock, UTC and no cursor blink.

Scripted usage figures keep the status bar independent of the temporary home's path length.
"""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec, Usage
from hermes_tui.widgets.approval_prompt import ApprovalPrompt
from hermes_tui.widgets.chat_messages import ToolBlock
from tests.tui.helpers import SIZE, close_app, make_app, ready, settle, steady_cursor, turn_over, wait_until, write_config

USAGE = Usage(input_tokens=12_400, output_tokens=180, cache_read_tokens=9_800, cache_write_tokens=2_600)
CODE_REPLY = (
    "Saved. Here is the retry helper:\n\n"
    "```python\n"
    "def retry(fn, attempts=3):\n"
    "    for i in range(attempts):\n"
    "        try:\n"
    "            return fn()\n"
    "        except IOError:\n"
    "            if i == attempts - 1:\n"
    "                raise\n"
    "```\n\n"
    "- bounded attempts\n- re-raises the last error\n"
)


async def test_the_cursor_is_drawn_once_blinking_stops_even_from_its_hidden_phase(home: Path) -> None:
    """Snapshots stop the blink; one taken after a slow start, when the blink had hidden the
    cursor, must still show it (it was missing from one snapshot on a loaded machine)."""
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.focused is app.main.prompt)
        prompt = app.main.prompt
        await wait_until(pilot, lambda: not prompt._cursor_visible)  # the blink's hidden half
        await pilot.pause()
        hidden = prompt.render_line(0)
        steady_cursor(prompt)
        await pilot.pause()
        shown = prompt.render_line(0)
        cursor, rest = shown.crop(0, 1), shown.crop(1)
        assert cursor.text == " " and cursor != hidden.crop(0, 1)
        assert {segment.style for segment in cursor} != {segment.style for segment in rest}
    close_app(app)


def snapshot(snap_compare, app, run_before) -> bool:
    try:
        return snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        close_app(app)


async def submit(pilot, text: str) -> None:
    pilot.app.main.prompt.text = text
    await pilot.press("enter")


def test_empty_start(snap_compare, home: Path) -> None:
    assert snapshot(snap_compare, make_app(home), ready)


def test_no_key_notice(snap_compare, keyless_home: Path) -> None:
    app = make_app(keyless_home)
    # The notice names the config file by its full path: a temporary one here, shown as a fixed one.
    app.agent.provider_problem = app.agent.provider_problem.replace(str(keyless_home), "/home/mei/.hermes")
    assert snapshot(snap_compare, app, ready)


def test_streamed_reply_with_code_and_tool_call(snap_compare, home: Path, llm: LoopbackLLM) -> None:
    call = ToolCallSpec("memory", json.dumps({"action": "add", "target": "user", "content": "Writes Python"}),
                        id="call_snap1")
    llm.push(Reply(tool_calls=[call], usage=USAGE), Reply(text=CODE_REPLY, chunk_chars=7, usage=USAGE))
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        app.agent.set_title("Retry helper")
        await submit(pilot, "I write Python. Show me a retry helper.")
        await wait_until(pilot, lambda: turn_over(app) and app.main.chat.entries[-1].text == CODE_REPLY)
        for block in app.main.chat.query(ToolBlock):  # pin the measured duration
            block.finish(block.entry.result or "", 0.05, block.entry.is_error)
        app.clear_notifications()
        await settle(pilot)

    assert snapshot(snap_compare, app, run_before)


def test_memory_panel_near_the_limit(snap_compare, home: Path) -> None:
    memories = home / "memories"
    memories.mkdir(parents=True)
    notes = [f"Service {n}: deploy with `make release-{n}`, logs in /var/log/svc{n}, owned by team {n}; "
             f"on-call rota in the wiki page ops/svc{n}." for n in range(17)]
    (memories / "MEMORY.md").write_text("\n§\n".join(notes), encoding="utf-8")  # 88 %: warning
    profile = ["Prefers short answers with code first.", "Timezone Asia/Shanghai."]
    profile += [f"Project {n} notes: uses pytest, ruff and uv; CI must stay green before merge." for n in range(17)]
    (memories / "USER.md").write_text("\n§\n".join(profile), encoding="utf-8")  # hand-edited past the limit
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        section = app.main.query_one("#memory-memory")
        with (memories / "MEMORY.md").open("a", encoding="utf-8") as handle:
            handle.write("\n§\nStaging DB is read-only on Fridays.")  # another process, mid-session
        await wait_until(pilot, lambda: "Staging DB is read-only on Fridays." in section.entries)
        section.query_one(".memory-scroll").scroll_end(animate=False)
        await pilot.pause()

    assert snapshot(snap_compare, app, run_before)


def test_approval_queue_with_replace_preview(snap_compare, upstream_home: Path) -> None:
    app = make_app(upstream_home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        await pilot.press("f3", "down")  # the second record: replace in user
        await pilot.pause()

    assert snapshot(snap_compare, app, run_before)


def test_inline_approval_prompt(snap_compare, home: Path, llm: LoopbackLLM) -> None:
    write_config(home, llm, write_approval=True)
    call = ToolCallSpec("memory", json.dumps({"action": "add", "target": "memory",
                                               "content": "CI runs on GitHub Actions; deploys need a green main"}),
                        id="call_snap2")
    llm.push(Reply(text="I'll remember that.", tool_calls=[call], usage=USAGE), Reply(text="Noted.", usage=USAGE))
    app = make_app(home)

    async def run_before(pilot) -> None:
        await ready(pilot)
        app.agent.set_title("CI notes")
        await submit(pilot, "Our CI is GitHub Actions and deploys need a green main.")
        await wait_until(pilot, lambda: app.main.query(ApprovalPrompt))
        await pilot.pause()

    assert snapshot(snap_compare, app, run_before)
