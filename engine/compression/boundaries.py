"""Where the protected head ends and the kept tail begins.

The head is the first ``protect_first_n`` messages (plus the results of a call it ends with, and
never an earlier summary, so that one gets updated rather than frozen). The tail is the longest
run of whole units (see ``pairs``) from the end that fits the token budget — so it holds at least
``protect_last_n`` messages whenever those fit — never less than one unit, and always reaching
back to the last user message (invariant 6), even past the budget.
"""

from __future__ import annotations

from itertools import accumulate

from engine.compression.pairs import Message, unit_starts
from engine.compression.summary import split_summary


def head_end(messages: list[Message], protect_first_n: int) -> int:
    """Index one past the protected head."""
    end = min(protect_first_n, len(messages))
    end = next((i for i in range(end) if split_summary(messages[i].get("content"))), end)
    while end < len(messages) and messages[end].get("role") == "tool":
        end += 1
    return end


def is_user_ask(message: Message) -> bool:
    """A real user message: not a bare summary (a summary merged into a user message counts)."""
    if message.get("role") != "user":
        return False
    parts = split_summary(message.get("content"))
    return parts is None or bool(parts[1])


def tail_start(messages: list[Message], start: int, token_counts: list[int], budget: int) -> int:
    """Index of the first tail message; ``token_counts[i]`` is message ``i``'s estimate."""
    if start >= len(messages):
        return len(messages)
    suffix = list(accumulate(reversed(token_counts)))[::-1] + [0]  # suffix[i] = tokens of [i:]
    starts = unit_starts(messages, start)
    cut = starts[-1]
    for unit in reversed(starts[:-1]):
        if suffix[unit] > budget:
            break
        cut = unit
    last_ask = next((i for i in range(len(messages) - 1, start - 1, -1) if is_user_ask(messages[i])), None)
    return cut if last_ask is None else min(cut, last_ask)
