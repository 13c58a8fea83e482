"""Compressing the live session: a last memory review, the summary, then a rotation into a continuation.

``engine.compression`` is the algorithm over a transcript; this applies it to the session the
agent is in — when the last prompt crossed the threshold after a turn, or on ``/compress`` —
and moves the result into a child session with a fresh system-prompt snapshot (DESIGN.md
"Compression"). Nothing here can fail a turn: a failed rotation leaves the conversation as it was.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

from engine import clock
from engine.compression import CompressionSettings, Compressor, should_compress
from engine.errors import HermesError
from engine.events import CompressionDone, Notice, OnEvent, Phase
from engine.live_session import LiveSession
from engine.providers import ChatRequest, Provider
from engine.recall import RecallManager
from engine.review import BackgroundReviewer

COMPRESSIONS_BEFORE_HINT = 2
SUMMARIZER_SYSTEM = (
    "You compress conversations for an assistant that will continue them. Follow the requested "
    "format exactly and keep every concrete fact: names, paths, numbers, decisions, open asks."
)


NOTHING_YET_EMPTY = "Nothing to compress yet: this session has no messages."
NOTHING_YET_KEPT = ("Nothing to compress yet: the whole conversation fits in what compression keeps (its first "
                    "messages and the recent turns, by compression.target_ratio). Keep talking, then /compress.")


def nothing_yet_over_threshold(threshold: float) -> str:
    return (f"The context is over compression.threshold ({threshold:.0%} of the window), but nothing can be "
            "summarized yet: the system prompt and the recent turns fill it. Raise compression.threshold or "
            "model.context_length in config.yaml, or shorten memory and context files. (Said once per session.)")


class LiveCompressor:
    """Decides when the live session is due and compresses it."""

    def __init__(self, settings: CompressionSettings, *, reviewer: BackgroundReviewer, recall: RecallManager,
                 summary_provider: Callable[[], Provider | None]) -> None:
        self.settings = settings
        self.reviewer = reviewer
        self.recall = recall
        self.summary_provider = summary_provider  # asked each time: the auxiliary model for compression
        self._told_over_threshold: set[str] = set()  # sessions already told an automatic compression had nothing

    def due(self, live: LiveSession, tools: list[dict]) -> bool:
        """The last prompt (or its estimate) is over the threshold."""
        return should_compress(live.usage.last_prompt_tokens, live.messages, tools, live.system_prompt, self.settings)

    def _nothing_to_compress(self, session_id: str, automatic: bool, on_event: OnEvent) -> None:
        """``/compress`` is answered every time; the automatic attempt after every turn speaks once a session."""
        if not automatic:
            on_event(Notice(NOTHING_YET_KEPT, "information"))
        elif session_id not in self._told_over_threshold:
            self._told_over_threshold.add(session_id)
            on_event(Notice(nothing_yet_over_threshold(self.settings.threshold), "warning"))

    def _summarizer(self) -> Callable[[str], str] | None:
        aux = self.summary_provider()
        if aux is None:
            return None

        def summarize(prompt: str) -> str:
            request = ChatRequest(system=SUMMARIZER_SYSTEM, messages=[{"role": "user", "content": prompt}],
                                  tools=[], max_tokens=self.settings.summary_cap, temperature=0.2)
            return aux.complete(request).text

        return summarize

    def compress(self, live: LiveSession, focus: str | None, tools: list[dict], on_event: OnEvent, *,
                 automatic: bool = False) -> None:
        """``automatic``: after a turn, because the prompt is over the threshold (else ``/compress``)."""
        if live.session_id is None:
            on_event(Notice(NOTHING_YET_EMPTY, "information"))
            return
        if not Compressor(self.settings, None).plan(live.messages, system_prompt=live.system_prompt, tools=tools).middle:
            self._nothing_to_compress(live.session_id, automatic, on_event)
            return
        on_event(Phase("compressing", clock.now()))
        self.reviewer.review_now(live.session_id, live.messages, on_event, live.last_message_id)
        self.recall.on_pre_compress(live.messages)
        result = Compressor(self.settings, self._summarizer()).compress(
            live.messages, system_prompt=live.system_prompt, tools=tools, focus=focus)
        title = live.next_lineage_title()
        try:
            rotated = live.rotate("compression", result.messages, title, live.new_prompt(), on_event)
        except (HermesError, OSError, sqlite3.Error) as exc:
            on_event(Notice(f"Compression failed ({exc}); the conversation continues uncompressed.", "error"))
            return
        if not rotated:
            return
        live.usage.forget_prompt()  # re-estimated until the next call reports real figures
        if result.error:
            on_event(Notice(f"The summary model failed ({result.error}); a structured fallback summary was used."))
        on_event(CompressionDone(result.removed_count, result.tokens_before, result.tokens_after, result.used_fallback))
        compressions = live.compression_count()
        if compressions >= COMPRESSIONS_BEFORE_HINT:
            on_event(Notice(f"This conversation has been compressed {compressions} times; details fade with each "
                            "summary. Consider /new for a fresh start (memory and search carry what matters)."))
