"""Where a request's bytes stop matching the previous request's: the prompt-cache prefix check.

Providers cache a request's byte-identical prefix, read in the order tools, system, messages. The
engine keeps that prefix stable up to the previous request's last user message (the recall fence
rides on the current user message only, so a break there is expected with recall on); anything
that differs earlier is a break worth finding. The same byte layout serves the inspector
(``engine.usage``), the loopback model's simulated cache and ``bench/bench_prefix.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from engine.providers.types import sent_message

EXCERPT_BYTES = 48  # how much of each side a break shows
CONTEXT_BYTES = 24  # how much shared text leads up to it


@dataclass(frozen=True)
class Part:
    """One piece of a request in cache order, as canonical JSON bytes."""

    label: str  # "tools", "system", "message 3 (user)"
    data: bytes
    is_user: bool = False


@dataclass(frozen=True)
class CacheOrder:
    """A request laid out the way a prompt cache reads it, with where each part starts."""

    parts: tuple[Part, ...]
    recall: bool = False  # the request carried a recall fence on its current user message

    @property
    def data(self) -> bytes:
        return b"\n".join(part.data for part in self.parts)

    def starts(self) -> list[int]:
        """Byte offset of each part in ``data``."""
        offsets, at = [], 0
        for part in self.parts:
            offsets.append(at)
            at += len(part.data) + 1
        return offsets

    def last_user_start(self) -> int | None:
        """Where the last user message begins: the prefix must reach at least this far next time."""
        starts = [start for start, part in zip(self.starts(), self.parts) if part.is_user]
        return starts[-1] if starts else None

    def part_at(self, offset: int) -> tuple[Part, int]:
        """The part holding byte ``offset`` and the offset inside it (the separator counts as the
        end of the part before it; past the end means the last part)."""
        found = (self.parts[-1], offset)
        for start, part in zip(self.starts(), self.parts):
            if offset < start:
                break
            found = (part, offset - start)
        return found


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def cache_order(tools: Sequence[Any], system: str, messages: Sequence[dict[str, Any]], *,
                recall: bool = False) -> CacheOrder:
    """Tools, then system, then each message (1-based labels), each as canonical JSON."""
    parts = [Part("tools", _json(list(tools))), Part("system", _json(system))]
    for number, message in enumerate(messages, 1):
        role = str(message.get("role", ""))
        parts.append(Part(f"message {number} ({role})", _json(sent_message(message)), is_user=role == "user"))
    return CacheOrder(tuple(parts), recall)


def common_prefix_len(a: bytes, b: bytes, step: int = 4096) -> int:
    """Length of the longest common prefix of two byte strings.

    Compared a block at a time, then byte by byte inside the first block that differs: a
    binary search over ever-longer slices copied most of a long request at every step.
    """
    end = min(len(a), len(b))
    at = 0
    while at < end and a[at:at + step] == b[at:at + step]:
        at += step
    stop = min(at + step, end)
    while at < stop and a[at] == b[at]:
        at += 1
    return min(at, end)


@dataclass(frozen=True)
class PrefixBreak:
    """Where this request first differs from the previous one, and whether the engine meant it."""

    offset: int  # byte position in cache order
    part: str  # the previous request's part holding that byte
    offset_in_part: int
    shared: str  # the bytes just before the break (the same in both)
    before: str  # the previous request from the break on
    after: str  # this request from the break on
    expected: bool
    reason: str  # why it is expected, or what the invariant says when it is not


def _char_start(data: bytes, at: int) -> int:
    """Step back to the first byte of the UTF-8 character holding ``at``."""
    while 0 < at < len(data) and data[at] & 0xC0 == 0x80:
        at -= 1
    return at


def _excerpt(data: bytes, start: int, end: int) -> str:
    """``data[start:end]`` widened or narrowed to whole UTF-8 characters."""
    return data[_char_start(data, start):_char_start(data, min(len(data), end))].decode("utf-8", errors="replace")


def find_break(previous: CacheOrder, current: CacheOrder, *, rebuilt: bool = False) -> PrefixBreak | None:
    """The first differing byte of ``current`` against ``previous``; ``None`` when ``previous`` is
    a prefix of ``current`` (the whole previous request could be read from the cache).

    A break at or after the previous request's last user message keeps the invariant (with recall
    on it is expected there: the fence moved to the new user message); ``rebuilt`` says the
    context was rebuilt on purpose (compression, another lineage tip), which breaks it anywhere.
    """
    old, new = previous.data, current.data
    offset = common_prefix_len(old, new)
    if offset == len(old):
        return None
    part, inside = previous.part_at(offset)
    boundary = previous.last_user_start()
    if rebuilt:
        expected, reason = True, "the context was rebuilt (compression or another session tip)"
    elif boundary is not None and offset >= boundary:
        expected = True
        reason = ("recall: the fence moved from the previous user message to this one" if previous.recall
                  else "after the previous request's last user message")
    else:
        expected, reason = False, "before the previous request's last user message: the cached prefix is lost"
    return PrefixBreak(
        offset=offset, part=part.label, offset_in_part=inside,
        shared=_excerpt(old, max(0, offset - CONTEXT_BYTES), offset),
        before=_excerpt(old, offset, offset + EXCERPT_BYTES), after=_excerpt(new, offset, offset + EXCERPT_BYTES),
        expected=expected, reason=reason,
    )
