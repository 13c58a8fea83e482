"""Context compression: summarize the middle of a long transcript, keep head and tail.

DESIGN.md "Compression" and invariants 4–6. Pure algorithm: ``engine.live_compression`` applies it to
the live session, and ``engine.live_session`` rotates the result into a continuation.
"""

from engine.compression.compressor import (
    CompressionPlan,
    CompressionResult,
    Compressor,
    Summarizer,
)
from engine.compression.pairs import STUB_RESULT
from engine.compression.settings import CompressionSettings
from engine.compression.summary import (
    SUMMARY_END_MARKER,
    SUMMARY_PREFIX,
    SUMMARY_SECTIONS,
    is_summary_message,
)
from engine.compression.trigger import should_compress
from engine.tokens import estimate_tokens

__all__ = [
    "CompressionPlan",
    "CompressionResult",
    "CompressionSettings",
    "Compressor",
    "STUB_RESULT",
    "SUMMARY_END_MARKER",
    "SUMMARY_PREFIX",
    "SUMMARY_SECTIONS",
    "Summarizer",
    "estimate_tokens",
    "is_summary_message",
    "should_compress",
]
