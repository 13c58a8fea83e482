"""The cache-order layout and where a request first differs from the one before."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.prompt.prefix import cache_order, common_prefix_len, find_break
from engine.prompt.request_view import build_api_messages

TOOLS = [{"type": "function", "function": {"name": "memory", "parameters": {}}}]


def history(turns: int) -> list[dict]:
    messages: list[dict] = []
    for n in range(1, turns + 1):
        messages += [{"role": "user", "content": f"question {n}", "timestamp": float(n)},
                     {"role": "assistant", "content": f"answer {n}", "timestamp": n + 0.5}]
    return messages


def test_layout_is_tools_system_messages_and_leaves_out_what_is_not_sent() -> None:
    order = cache_order(TOOLS, "sys", [{"role": "user", "content": "hi", "timestamp": 1.0}])
    assert [p.label for p in order.parts] == ["tools", "system", "message 1 (user)"]
    assert b"timestamp" not in order.data
    assert order.last_user_start() == order.data.index(b'{"role": "user"')
    assert common_prefix_len(b"abcdef", b"abcxyz") == 3 and common_prefix_len(b"ab", b"abc") == 2


def test_a_growing_conversation_keeps_the_whole_previous_request_as_prefix() -> None:
    first = cache_order(TOOLS, "sys", history(1)[:1])
    second = cache_order(TOOLS, "sys", history(2)[:3])
    assert find_break(first, second) is None


def test_a_changed_system_prompt_is_an_unexpected_break_with_its_position() -> None:
    first = cache_order(TOOLS, "You are helpful. Today is Monday.", history(1)[:1])
    second = cache_order(TOOLS, "You are helpful. Today is Tuesday.", history(2)[:3])
    broke = find_break(first, second)
    assert broke is not None and not broke.expected
    assert broke.part == "system"
    assert first.data[broke.offset:].startswith(b"Monday") and broke.offset_in_part == len('"You are helpful. Today is ')
    assert broke.shared.endswith("Today is ") and broke.before.startswith("Monday") and broke.after.startswith("Tuesday")


def test_the_recall_fence_moving_on_is_the_expected_break_at_the_previous_user_message() -> None:
    messages = history(1)[:1]
    first = cache_order(TOOLS, "sys", build_api_messages(messages, recall="earlier: uses postgres",
                                                         current_user_index=0), recall=True)
    messages = history(2)[:3]
    second = cache_order(TOOLS, "sys", build_api_messages(messages, recall="earlier: uses terraform",
                                                          current_user_index=2), recall=True)
    broke = find_break(first, second)
    assert broke is not None and broke.expected and broke.part == "message 1 (user)"
    assert "recall" in broke.reason and broke.before.startswith("\\n\\n<memory-context>")


def test_a_rebuilt_context_is_expected_anywhere() -> None:
    first = cache_order(TOOLS, "old snapshot", history(1)[:1])
    second = cache_order(TOOLS, "new snapshot after compression", history(1)[:1])
    broke = find_break(first, second, rebuilt=True)
    assert broke is not None and broke.expected and broke.part == "system"


def test_excerpts_never_split_a_character_and_tools_are_named() -> None:
    first = cache_order([{"name": "搜索"}], "sys", history(1)[:1])
    second = cache_order([{"name": "搜寻"}], "sys", history(1)[:1])
    broke = find_break(first, second)
    assert broke is not None and broke.part == "tools" and not broke.expected
    assert broke.before.startswith("索") and broke.after.startswith("寻") and broke.shared.endswith("搜")


@given(st.binary(max_size=64), st.binary(max_size=64), st.integers(1, 9))
def test_common_prefix_len_matches_a_byte_by_byte_count(a: bytes, b: bytes, step: int) -> None:
    expected = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    assert common_prefix_len(a, b, step) == expected
    assert common_prefix_len(a, a + b, step) == len(a)
