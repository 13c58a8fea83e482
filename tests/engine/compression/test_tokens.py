"""The character-based token estimate (engine/tokens.py)."""

from __future__ import annotations

from engine.tokens import (
    content_text,
    estimate_message_tokens,
    estimate_text_tokens,
    estimate_tokens,
    truncate_to_tokens,
)


def test_latin_counts_four_chars_a_token_and_cjk_one():
    assert estimate_text_tokens("") == 0
    assert estimate_text_tokens("abcd") == 1
    assert estimate_text_tokens("abcde") == 2
    assert estimate_text_tokens("修复日志") == 4
    assert estimate_text_tokens("修复 bug") == 3  # 2 CJK + ceil(4 / 4)
    assert estimate_text_tokens("カタカナ한국어") == 7


def test_messages_count_content_tool_calls_and_overhead():
    plain = {"role": "user", "content": "abcd" * 10}
    assert estimate_message_tokens(plain) == 4 + 10
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "read", "arguments": '{"p":"x"}'}}]}
    assert estimate_message_tokens(call) == 4 + 4 + estimate_text_tokens('read{"p":"x"}')


def test_request_estimate_adds_system_prompt_and_tool_schemas():
    tools = [{"type": "function", "function": {"name": "memory", "parameters": {"type": "object"}}}]
    messages = [{"role": "user", "content": "hi"}]
    base = estimate_tokens(messages)
    assert estimate_tokens(messages, system_prompt="x" * 400) == base + 4 + 100
    assert estimate_tokens(messages, tools) > base + 10


def test_multimodal_content_counts_text_and_a_placeholder_for_images():
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:" + "A" * 9999}}]
    assert content_text(parts) == "look\n[image]"
    assert content_text(None) == ""


def test_truncate_fits_the_budget_and_says_so():
    text = "\n".join(f"line {i} " + "x" * 30 for i in range(200))
    cut = truncate_to_tokens(text, 100)
    assert estimate_text_tokens(cut) <= 100
    assert cut.endswith("\n[… truncated]")
    assert cut.startswith("line 0 ")
    assert truncate_to_tokens("short", 100) == "short"
    cjk = truncate_to_tokens("修" * 500, 50)
    assert estimate_text_tokens(cjk) <= 50 and cjk.startswith("修" * 30)
