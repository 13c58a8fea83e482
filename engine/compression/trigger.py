"""When to compress: the last prompt crossed ``threshold`` × the context window."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.compression.settings import CompressionSettings
from engine.tokens import estimate_tokens


def should_compress(
    last_prompt_tokens: int | None,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    system_prompt: str,
    settings: CompressionSettings,
) -> bool:
    """True when compression is on and the prompt exceeds the threshold.

    ``last_prompt_tokens`` is the provider-reported prompt size of the last call in this session
    (pass ``None`` after a rotation or before the first call); without it the prompt is estimated
    from characters, tool schemas included.
    """
    if not settings.enabled:
        return False
    tokens = last_prompt_tokens
    if tokens is None:
        tokens = estimate_tokens(messages, tools, system_prompt)
    return tokens > settings.threshold_tokens
