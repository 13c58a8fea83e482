"""Property tests over generated conversations with (parallel) tool-call batches (issue 5)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from engine.compression import (
    SUMMARY_END_MARKER,
    SUMMARY_PREFIX,
    CompressionSettings,
    Compressor,
    is_summary_message,
)
from engine.compression.boundaries import is_user_ask
from engine.compression.compressor import FRAME_TOKENS
from engine.compression.pairs import unit_starts
from engine.tokens import content_text, estimate_tokens

from .conversations import is_well_paired, reid, same_role_neighbours, tool_turn, user

WORDS = ["fix", "the", "bug", "in", "src/app.py", "~/code/api", "/etc/hosts", "修复", "测试", "日志", "ok", "\n"]
TOOLS = ["read_file", "terminal", "search", "write_file"]

text = st.builds(lambda words, rep: " ".join(words) * rep, st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), st.integers(1, 30))
batch = st.lists(st.tuples(st.sampled_from(TOOLS), text), min_size=1, max_size=3)
turn = st.tuples(text, st.lists(batch, max_size=3), text)


@st.composite
def conversations(draw: st.DrawFn) -> list[dict]:
    """Alternating turns; the last one may be a pending user ask with no reply yet."""
    messages: list[dict] = []
    for ask, batches, final in draw(st.lists(turn, min_size=1, max_size=14)):
        messages += tool_turn(ask, batches, final, first_id=len(messages))
    if draw(st.booleans()):
        messages.append(user(draw(text)))
    return messages


compression_settings = st.builds(
    CompressionSettings,
    threshold=st.just(0.5),
    target_ratio=st.floats(0.05, 0.6),
    protect_first_n=st.integers(0, 5),
    protect_last_n=st.integers(1, 30),
    context_window=st.integers(1_500, 60_000),
)


def summarizer_for(kind: str):
    def summarize(prompt: str) -> str:
        if kind == "raise":
            raise ConnectionError("HTTP 500 from the auxiliary model")
        if kind == "long":
            return "## Goal\n" + "very long summary " * 20_000
        return "## Goal\nkeep going\n## Relevant Files\n- src/app.py"

    return None if kind == "none" else summarize


PROPS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _last_ask(messages: list[dict]) -> int | None:
    return next((i for i in range(len(messages) - 1, -1, -1) if is_user_ask(messages[i])), None)


def _check_invariants(before: list[dict], s: CompressionSettings, kind: str) -> list[dict]:
    frozen = copy.deepcopy(before)
    compressor = Compressor(s, summarizer_for(kind))
    plan = compressor.plan(before)
    result = compressor.compress(before)
    out = result.messages

    assert before == frozen  # input untouched
    assert compressor.compress(before) == result  # deterministic
    assert is_well_paired(out)  # invariant 5
    assert same_role_neighbours(out) == []  # input alternates, so any clash is a seam's fault
    k = min(s.protect_first_n, len(before))
    assert out[:k] == before[:k]  # head intact

    last = _last_ask(before)
    if last is not None:  # invariant 6: the last ask is live, after any summary
        last_text = content_text(before[last]["content"])
        out_last = _last_ask(out)
        assert out_last is not None and content_text(out[out_last]["content"]).endswith(last_text)

    summaries = [i for i, m in enumerate(out) if is_summary_message(m)]
    event(f"compressed={result.removed_count > 0}")
    if result.removed_count == 0:
        assert out == before and summaries == [s_i for s_i, m in enumerate(before) if is_summary_message(m)]
        return out
    assert summaries == [len(plan.head)]  # exactly one, right after the head: never stacked
    assert result.summary.startswith(SUMMARY_PREFIX) and result.summary.endswith(SUMMARY_END_MARKER)
    assert result.used_fallback == (kind in ("raise", "none"))
    assert (result.error is not None) == (kind == "raise")

    starts = unit_starts(before, len(plan.head))
    mandatory = last if last is not None and last >= len(plan.head) else starts[-1]
    floor = estimate_tokens(plan.head) + estimate_tokens(before[mandatory:]) + s.summary_cap + FRAME_TOKENS
    event(f"budget achievable={floor <= s.target_tokens}")
    if floor <= s.target_tokens:
        assert result.tokens_after <= s.target_tokens
    assert (result.tokens_before, result.tokens_after) == (estimate_tokens(before), estimate_tokens(out))
    return out


@PROPS
@given(conversations(), compression_settings, st.sampled_from(["model", "raise", "none", "long"]))
def test_compression_keeps_the_invariants(messages, s, kind):
    _check_invariants(messages, s, kind)


@pytest.mark.slow  # ~5-7 s: two compressions per example
@PROPS
@given(conversations(), conversations(), compression_settings, st.sampled_from(["model", "raise", "none"]))
def test_second_compression_updates_the_summary_instead_of_stacking(first, more, s, kind):
    once = _check_invariants(first, s, kind)
    if once and once[-1]["role"] == "user":
        more = more[1:] if more and more[0]["role"] == "user" else more
        if more and more[0]["role"] == "user" or not more:
            return  # would not alternate; other examples cover the case
    _check_invariants(once + reid(more, "m"), s, kind)
