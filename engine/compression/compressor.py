"""Compression orchestration: plan the cut, summarize the middle, assemble the new transcript.

Pure: no store, provider or clock. The agent turns ``CompressionResult.messages`` into the
opening transcript of a continuation session; the summarizer is a plain callable so any model
client (or a test stub) can serve. Deterministic: the same input always gives the same output.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.compression.boundaries import head_end, tail_start
from engine.compression.fallback import fallback_summary, with_essentials
from engine.compression.pairs import Message, repair_tool_pairs
from engine.compression.prepass import prepass
from engine.compression.seams import place_summary
from engine.compression.settings import CompressionSettings
from engine.compression.summary import (
    build_prompt,
    clean_model_summary,
    split_summary,
    wrap_summary,
)
from engine.compression.validate import validate_messages
from engine.tokens import estimate_message_tokens, estimate_tokens

Summarizer = Callable[[str], str]
"""Takes the full summarization prompt, returns the model's summary text; may raise."""

# What the frame around a summary body costs, so the tail budget can reserve it.
FRAME_TOKENS = estimate_message_tokens({"role": "user", "content": wrap_summary("")})


@dataclass
class CompressionPlan:
    """The cut, before any summary: ``head + middle + tail`` is the input transcript."""

    head: list[Message]
    middle: list[Message]
    tail: list[Message]
    previous_summary: str | None  # body of an earlier summary found in the middle
    transcript: list[Message]  # the middle without that summary: the turns to summarize
    summary_budget: int  # target summary length, tokens
    tokens: int  # estimate of the whole request as it stands


@dataclass
class CompressionResult:
    """Head + summary + tail, ready to open the continuation session.

    ``summary`` is the full summary text as inserted (prefix, body, end marker), empty when there
    was nothing to compress (then ``messages`` is the input unchanged and ``removed_count`` 0).
    ``error`` is the summarizer's failure, one line, when the fallback had to stand in for it.
    """

    messages: list[Message]
    summary: str
    used_fallback: bool
    removed_count: int
    tokens_before: int
    tokens_after: int
    error: str | None


def _transcript(middle: list[Message]) -> tuple[list[Message], str | None]:
    """The middle without earlier summaries (the last one's body is returned)."""
    turns: list[Message] = []
    previous: str | None = None
    for message in middle:
        parts = split_summary(message.get("content"))
        if parts is None:
            turns.append(message)
            continue
        previous, rest = parts
        if rest or message.get("tool_calls"):
            turns.append({**message, "content": rest})
    return turns, previous


def _one_line_error(exc: BaseException) -> str:
    detail = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    return f"summarizer failed: {type(exc).__name__}" + (f": {detail}" if detail else "")


class Compressor:
    """Compacts a transcript per ``settings``, summarizing through ``summarize`` when given."""

    def __init__(self, settings: CompressionSettings, summarize: Summarizer | None) -> None:
        self.settings = settings
        self.summarize = summarize

    def plan(
        self, messages: list[Message], *, system_prompt: str = "", tools: Sequence[dict[str, Any]] = ()
    ) -> CompressionPlan:
        """Where to cut ``messages`` (validated; bad input raises ``BadInputError``)."""
        validate_messages(messages)
        counts = [estimate_message_tokens(m) for m in messages]
        start = head_end(messages, self.settings.protect_first_n)
        fixed = estimate_tokens((), tools, system_prompt) + sum(counts[:start])
        reserve = self.settings.summary_cap + FRAME_TOKENS
        budget = self.settings.target_tokens - fixed - reserve
        cut = tail_start(messages, start, counts, budget)
        middle = messages[start:cut]
        transcript, previous = _transcript(middle)
        return CompressionPlan(
            head=messages[:start],
            middle=middle,
            tail=messages[cut:],
            previous_summary=previous,
            transcript=transcript,
            summary_budget=self.settings.summary_budget(sum(counts[start:cut])),
            tokens=fixed + sum(counts[start:]),
        )

    def compress(
        self,
        messages: list[Message],
        *,
        system_prompt: str = "",
        tools: Sequence[dict[str, Any]] = (),
        focus: str | None = None,
    ) -> CompressionResult:
        """Replace the middle of ``messages`` with one summary; the input is never modified."""
        plan = self.plan(messages, system_prompt=system_prompt, tools=tools)
        if not plan.transcript:
            return CompressionResult(copy.deepcopy(messages), "", False, 0, plan.tokens, plan.tokens, None)
        turns = prepass(plan.transcript)
        body, error = self._model_summary(turns, plan, focus)
        used_fallback = body is None
        if body is None:
            body = fallback_summary(
                plan.head,
                turns,
                previous_summary=plan.previous_summary,
                focus=focus,
                budget_tokens=plan.summary_budget,
            )
        summary = wrap_summary(body)
        head = repair_tool_pairs(copy.deepcopy(plan.head))
        tail = repair_tool_pairs(copy.deepcopy(plan.tail))
        out = place_summary(head, summary, tail)
        return CompressionResult(
            messages=out,
            summary=summary,
            used_fallback=used_fallback,
            removed_count=len(plan.middle),
            tokens_before=plan.tokens,
            tokens_after=estimate_tokens(out, tools, system_prompt),
            error=error,
        )

    def _model_summary(
        self, turns: list[Message], plan: CompressionPlan, focus: str | None
    ) -> tuple[str | None, str | None]:
        """``(body, error)``: the model's cleaned summary, or ``None`` and why not."""
        if self.summarize is None:
            return None, None
        prompt = build_prompt(
            turns, previous_summary=plan.previous_summary, focus=focus, budget_tokens=plan.summary_budget
        )
        try:
            reply = self.summarize(prompt)
        except Exception as exc:  # any client failure (HTTP 500, timeout, …) falls back
            return None, _one_line_error(exc)
        if not isinstance(reply, str):
            return None, f"summarizer returned {type(reply).__name__}, not text"
        body = clean_model_summary(reply)
        if not body:
            return None, "summarizer returned an empty summary"
        guarded = with_essentials(
            body, plan.head, plan.transcript, previous_summary=plan.previous_summary, budget_tokens=plan.summary_budget
        )
        return guarded, None
