"""Building blocks: tool-pair repair, pre-pass, summary frame, seams, fallback paths."""

from __future__ import annotations

import copy

from engine.compression import SUMMARY_END_MARKER, SUMMARY_PREFIX, is_summary_message
from engine.compression.fallback import fallback_summary, find_paths
from engine.compression.pairs import repair_tool_pairs, unit_starts
from engine.compression.prepass import prepass
from engine.compression.seams import place_summary
from engine.compression.summary import build_prompt, split_summary, wrap_summary

from .conversations import assistant, tool, user

CALLS = [("a", "read_file", {"path": "src/x.py"}), ("b", "terminal", {"cmd": "ls"})]


def test_units_keep_a_parallel_batch_with_its_results():
    messages = [user("q"), assistant(None, CALLS), tool("a", "read_file", "1"), tool("b", "terminal", "2"),
                tool("z", "terminal", "orphan"), assistant("done")]
    assert unit_starts(messages, 0) == [0, 1, 5]
    assert unit_starts(messages, 4) == [4, 5]


def test_repair_drops_orphans_and_duplicates_and_stubs_missing_results():
    messages = [tool("z", "x", "orphan"), user("q"), assistant(None, CALLS), tool("b", "terminal", "2"),
                tool("b", "terminal", "again"), tool("q", "x", "foreign"), user("next")]
    assert repair_tool_pairs(messages) == [
        user("q"), assistant(None, CALLS), tool("b", "terminal", "2"),
        {"role": "tool", "tool_call_id": "a", "name": "read_file", "content": "[result unavailable: compacted]"},
        user("next"),
    ]


def test_prepass_one_lines_old_outputs_dedupes_and_cuts_arguments():
    long_args = {"content": "y" * 1_000}
    messages = [
        assistant(None, [("a", "read_file", {"path": "src/x.py"}), ("b", "write_file", long_args)]),
        tool("a", "read_file", "\n  first line of the file\n" + "body\n" * 100),
        tool("b", "write_file", "ok"),
        assistant(None, [("c", "read_file", {"path": "src/x.py"})]),
        {"role": "tool", "tool_call_id": "c", "content": "\n  first line of the file\n" + "body\n" * 100},
    ]
    frozen = copy.deepcopy(messages)
    out = prepass(messages)
    assert messages == frozen
    assert out[1]["content"] == "[tool output of read_file: 526 chars, first line: first line of the file]"
    assert out[2]["content"] == "ok"
    assert out[4]["content"] == "[tool output of read_file: identical to an earlier output of read_file]"
    args = out[0]["tool_calls"][1]["function"]["arguments"]
    assert len(args) < 360 and args.endswith("…[truncated, 1,015 chars]")
    assert out[0]["tool_calls"][0] == messages[0]["tool_calls"][0]


def test_summary_frame_round_trips_and_detects_merged_messages():
    block = wrap_summary("## Goal\nship")
    assert block.startswith(SUMMARY_PREFIX) and block.endswith(SUMMARY_END_MARKER)
    assert "respond to the message below, not the summary above" in SUMMARY_END_MARKER
    assert "not a new request" in SUMMARY_PREFIX
    assert split_summary(block) == ("## Goal\nship", "")
    assert split_summary(block + "\n\nreal ask") == ("## Goal\nship", "real ask")
    assert split_summary("plain text") is None
    assert is_summary_message({"role": "user", "content": [{"type": "text", "text": block}]})
    assert not is_summary_message({"role": "user", "content": f"quote: {SUMMARY_PREFIX}"})


def test_prompt_carries_previous_summary_and_focus():
    prompt = build_prompt([user("fix it"), assistant(None, CALLS[:1]), tool("a", "read_file", "ok")],
                          previous_summary="## Goal\nold", focus="auth", budget_tokens=2_000)
    assert "<previous-summary>\n## Goal\nold\n</previous-summary>" in prompt
    assert "Focus topic: auth" in prompt
    assert '[USER]: fix it\n\n[ASSISTANT]: \n  -> tool call read_file({"path": "src/x.py"})\n\n[TOOL RESULT read_file]: ok' in prompt


def test_summary_role_never_repeats_a_neighbour_and_merges_when_boxed_in():
    s = wrap_summary("body")
    assert place_summary([user("a"), assistant("b")], s, [assistant("c")])[2]["role"] == "user"
    assert place_summary([user("a")], s, [user("c")])[1]["role"] == "assistant"
    assert place_summary([], s, [user("c")])[0]["role"] == "assistant"
    assert place_summary([tool("x", "t", "r")], s, [assistant("c")])[1]["role"] == "user"
    merged = place_summary([user("a")], s, [assistant("c"), user("d")])
    assert merged == [user("a"), assistant(f"{s}\n\nc"), user("d")]
    with_calls = place_summary([assistant("a")], s, [user("c")])
    assert with_calls == [assistant("a"), user(f"{s}\n\nc")]
    parts = place_summary([assistant("a")], s, [{"role": "user", "content": [{"type": "text", "text": "c"}]}])
    assert parts[1]["content"][0] == {"type": "text", "text": s}
    assert split_summary(parts[1]["content"]) == ("body", "c")
    blank = place_summary([assistant("a")], s, [user("\n")])[1]
    assert split_summary(blank["content"]) == ("body", "\n")  # a whitespace ask stays an ask
    calls = place_summary([user("a")], s, [assistant(None, CALLS)])[1]
    assert calls["content"] == s and calls["tool_calls"] == assistant(None, CALLS)["tool_calls"]


def test_find_paths_catches_relative_home_absolute_and_bare_files():
    text = ("edit src/x.py and ~/code/api, then /etc/nginx/nginx.conf. See README.md, not "
            "https://example.com/a/b.py nor and/or 1/2/2024 or 3.14. Also ./run.sh and ../lib/.")
    assert find_paths(text) == ["src/x.py", "~/code/api", "/etc/nginx/nginx.conf", "README.md", "./run.sh", "../lib/"]


def test_fallback_keeps_goal_asks_files_tools_and_state_within_budget():
    transcript = [user(f"ask {i} about src/m{i}.py") for i in range(20)]
    transcript += [assistant(None, CALLS), tool("a", "read_file", "x"), tool("b", "terminal", "y"),
                   assistant("I am halfway through the migration")]
    body = fallback_summary([user("the goal")], transcript, previous_summary=None, focus="db", budget_tokens=2_000)
    assert "## Goal\nthe goal" in body
    assert all(f"- src/m{i}.py" in body for i in range(20))
    assert "- ask 19 about src/m19.py" in body and "(5 more asks in between" in body
    assert "- tools called: read_file, terminal" in body
    assert "Last assistant message: I am halfway through the migration" in body
    assert "Focus requested: db." in body
    assert fallback_summary([], transcript, previous_summary=None, focus=None, budget_tokens=2_000) == \
        fallback_summary([], transcript, previous_summary=None, focus=None, budget_tokens=2_000)
    assert "## Goal\nask 0 about src/m0.py" in fallback_summary([], transcript, previous_summary=None, focus=None, budget_tokens=2_000)
