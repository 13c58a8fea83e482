"""Example-based tests of the orchestration: summarizer paths, focus, updates, bad input."""

from __future__ import annotations

import copy

import pytest

from engine.compression import (
    SUMMARY_END_MARKER,
    SUMMARY_PREFIX,
    SUMMARY_SECTIONS,
    CompressionSettings,
    Compressor,
    is_summary_message,
)
from engine.compression.compressor import FRAME_TOKENS
from engine.errors import BadInputError
from engine.tokens import estimate_text_tokens

from .conversations import assistant, is_well_paired, tool, tool_turn, user

SETTINGS = CompressionSettings(context_window=40_000, protect_first_n=3, protect_last_n=4)


def long_conversation(turns: int = 30, start: int = 0) -> list[dict]:
    """``turns`` tool-using turns numbered from ``start``, then a pending user ask."""
    messages: list[dict] = []
    for t in range(start, start + turns):
        messages += tool_turn(
            f"step {t}: please edit src/mod{t}.py " + "detail " * 60,
            [[("read_file", "line\n" * 300), ("terminal", f"pytest ok {t}\n" * 40)]],
            f"done with step {t}",
            first_id=10 * t,
        )
    messages.append(user("now run the full test suite and report"))
    return messages


class Recorder:
    """A summarizer stand-in that records prompts and returns a fixed body."""

    def __init__(self, reply: str = "## Goal\nfinish the refactor\n## Relevant Files\n- src/mod0.py") -> None:
        self.prompts: list[str] = []
        self.reply = reply

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.reply


def test_model_summary_is_framed_and_placed_after_the_head():
    messages = long_conversation()
    recorder = Recorder()
    result = Compressor(SETTINGS, recorder).compress(messages, system_prompt="You are Hermes.")
    assert len(recorder.prompts) == 1
    assert result.used_fallback is False and result.error is None
    files = ", ".join(f"src/mod{i}.py" for i in range(1, 23))  # named by the user, left out by the model
    assert result.summary == (
        f"{SUMMARY_PREFIX}\n\n{recorder.reply}\n\n## Critical Context\nKept verbatim from the compacted "
        f"turns:\n- Files named earlier: {files}\n\n{SUMMARY_END_MARKER}"
    )
    # the head is the first 3 messages plus the other result of the call batch they end in
    assert result.messages[:4] == messages[:4] and messages[3]["role"] == "tool"
    assert result.messages[4] == {"role": "user", "content": result.summary}
    assert result.messages[-1] == messages[-1]
    assert result.removed_count == len(messages) - len(result.messages) + 1
    assert result.tokens_after < result.tokens_before
    assert result.tokens_after <= SETTINGS.target_tokens


def test_prompt_has_sections_turns_budget_and_preprocessed_outputs():
    recorder = Recorder()
    Compressor(SETTINGS, recorder).compress(long_conversation())
    prompt = recorder.prompts[0]
    for name in SUMMARY_SECTIONS:
        assert f"## {name}" in prompt
    assert "[USER]: step 5: please edit src/mod5.py" in prompt
    assert "[tool output of read_file: 1,500 chars, first line: line]" in prompt
    assert "line\nline" not in prompt  # old outputs were one-lined, not pasted
    assert "Target length: at most about 2,000 tokens" in prompt
    assert "Focus topic" not in prompt and "PREVIOUS SUMMARY" not in prompt


def test_focus_topic_reaches_the_summarizer_prompt():
    recorder = Recorder()
    Compressor(SETTINGS, recorder).compress(long_conversation(), focus="the database migration")
    assert "Focus topic: the database migration" in recorder.prompts[0]


@pytest.mark.parametrize(
    ("summarize", "error"),
    [
        (lambda prompt: (_ for _ in ()).throw(RuntimeError("HTTP 500: upstream overloaded\ntrace…")),
         "summarizer failed: RuntimeError: HTTP 500: upstream overloaded"),
        (lambda prompt: "   ", "summarizer returned an empty summary"),
        (lambda prompt: None, "summarizer returned NoneType, not text"),
        (lambda prompt: f"{SUMMARY_PREFIX}\n{SUMMARY_END_MARKER}", "summarizer returned an empty summary"),
        (None, None),
    ],
)
def test_failed_or_missing_summarizer_falls_back_deterministically(summarize, error):
    messages = long_conversation()
    result = Compressor(SETTINGS, summarize).compress(messages)
    assert result.used_fallback is True
    assert result.error == error
    assert result.summary.startswith(SUMMARY_PREFIX) and result.summary.endswith(SUMMARY_END_MARKER)
    assert "## Goal\nstep 0: please edit src/mod0.py" in result.summary
    assert "- src/mod7.py" in result.summary
    assert is_well_paired(result.messages)
    assert result.removed_count > 0


def test_overlong_model_summary_is_cut_to_the_budget_keeping_the_essentials():
    result = Compressor(SETTINGS, Recorder("## Goal\n" + "word " * 50_000)).compress(long_conversation())
    assert "\n[… truncated]\n\n## Critical Context\n" in result.summary
    assert "src/mod22.py\n\n" + SUMMARY_END_MARKER in result.summary
    assert estimate_text_tokens(result.summary) <= 2_000 + FRAME_TOKENS


def test_goal_outside_the_head_is_added_when_the_model_drops_it():
    s = CompressionSettings(context_window=40_000, protect_first_n=0)
    result = Compressor(s, Recorder("## Goal\nsomething vague")).compress(long_conversation())
    assert "- Goal: step 0: please edit src/mod0.py detail" in result.summary


def test_echoed_frame_is_not_doubled():
    reply = f"{SUMMARY_PREFIX}\n## Goal\nship it\n{SUMMARY_END_MARKER}"
    result = Compressor(SETTINGS, Recorder(reply)).compress(long_conversation())
    assert result.summary.count(SUMMARY_PREFIX) == 1 and result.summary.count(SUMMARY_END_MARKER) == 1


def test_second_compression_passes_the_previous_summary_and_replaces_it():
    recorder = Recorder()
    compressor = Compressor(SETTINGS, recorder)
    first = compressor.compress(long_conversation()).messages
    grown = first + [assistant("running it")] + long_conversation(30, start=100)
    recorder.reply = "## Goal\nfinish the refactor (updated)"
    second = compressor.compress(grown)
    assert "<previous-summary>\n## Goal\nfinish the refactor\n## Relevant Files\n- src/mod0.py\n\n## Critical" in recorder.prompts[1]
    assert SUMMARY_PREFIX not in recorder.prompts[1].split("</previous-summary>")[1]
    assert [i for i, m in enumerate(second.messages) if is_summary_message(m)] == [4]
    assert "(updated)" in second.summary


def test_fallback_update_carries_the_earlier_summary_goal_and_files():
    compressor = Compressor(CompressionSettings(context_window=40_000, protect_first_n=0), None)
    first = compressor.compress(long_conversation()).messages
    more = [assistant("running it")] + long_conversation(30, start=100)
    second = compressor.compress(first + more)
    summary = second.summary
    assert "## Goal\nstep 0: please edit src/mod0.py" in summary
    assert "- src/mod3.py" in summary  # named only in the first compaction's turns
    assert "> ## Goal" in summary  # earlier summary quoted, not stacked as a second message
    assert sum(is_summary_message(m) for m in second.messages) == 1


def test_nothing_to_compress_returns_the_transcript_unchanged():
    messages = [user("hi"), assistant("hello"), user("how are you")]
    result = Compressor(SETTINGS, Recorder()).compress(messages)
    assert result.messages == messages and result.messages is not messages
    assert (result.removed_count, result.summary, result.used_fallback) == (0, "", False)
    assert result.tokens_before == result.tokens_after


def test_last_user_message_is_kept_even_beyond_the_budget():
    tiny = CompressionSettings(context_window=2_000, protect_first_n=1, protect_last_n=2)
    messages = [user("goal"), assistant("ok"), user("x " * 50), assistant("ok")]
    messages += [user("big ask " * 2_000)] + tool_turn("", [[("terminal", "out " * 500)]] * 3, None)[1:]
    result = Compressor(tiny, None).compress(messages)
    assert result.messages[-7]["content"] == "big ask " * 2_000
    assert result.tokens_after > tiny.target_tokens  # not achievable, and that is accepted


def test_orphans_in_the_kept_parts_are_repaired():
    messages = [user("a"), tool("ghost", "terminal", "stray result")]  # orphan inside the head
    messages += long_conversation(10)[1:]
    messages += [assistant(None, [("call_x", "terminal", {"cmd": "ls"})]), user("and?")]  # call, no result
    result = Compressor(CompressionSettings(context_window=40_000, protect_first_n=2), None).compress(messages)
    assert is_well_paired(result.messages)
    stub = result.messages[-2]
    assert stub == {"role": "tool", "tool_call_id": "call_x", "name": "terminal", "content": "[result unavailable: compacted]"}
    assert all(m.get("tool_call_id") != "ghost" for m in result.messages)


def test_input_is_never_modified():
    messages = long_conversation()
    frozen = copy.deepcopy(messages)
    result = Compressor(SETTINGS, None).compress(messages)
    result.messages[-1]["content"] = "changed"
    assert messages == frozen


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ("not a list", "messages must be a list of chat messages, not str."),
        ([user("a"), "b"], "messages[1] is str, not a chat message mapping."),
        ([{"role": "system", "content": "x"}], "messages[0]: role 'system' is not one of user, assistant, tool (the system prompt is passed separately)."),
        ([user("a"), {"role": "tool", "content": "x"}], "messages[1]: tool result has no tool_call_id."),
        ([{"role": "user", "content": 5}], "messages[0]: content must be text, a list of parts or null."),
        ([{"role": "user", "content": "a", "tool_calls": []}], "messages[0]: only assistant messages carry tool_calls."),
        ([{"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "x"}}]}], "messages[0]: tool_calls[0] has no id."),
        ([{"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]}], "messages[0]: tool_calls[0] (c1) has no function name."),
        ([{"role": "assistant", "content": None, "tool_calls": "c1"}], "messages[0]: tool_calls must be a list, not str."),
    ],
)
def test_bad_messages_are_named_and_left_untouched(messages, error):
    frozen = copy.deepcopy(messages)
    with pytest.raises(BadInputError) as info:
        Compressor(SETTINGS, Recorder()).compress(messages)
    assert str(info.value) == error
    assert messages == frozen
