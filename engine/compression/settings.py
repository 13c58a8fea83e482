"""Compression settings (``compression:`` in config.yaml) and the token budgets derived from them.

DESIGN.md "Compression budgets": compress when the last prompt exceeds ``threshold`` × window;
afterwards head + summary + tail aim at ≤ ``target_ratio`` × window; the summary gets ~20 % of the
compacted middle, at least 2,000 tokens, at most min(5 % of the window, 12,000).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from engine.config import Config
from engine.errors import ConfigError

SUMMARY_SHARE = 0.20
SUMMARY_MIN_TOKENS = 2_000
SUMMARY_MAX_TOKENS = 12_000
SUMMARY_MAX_WINDOW_SHARE = 0.05


@dataclass(frozen=True)
class CompressionSettings:
    """When to compress and how much to keep; ``context_window`` is the model's, in tokens."""

    enabled: bool = True
    threshold: float = 0.50
    target_ratio: float = 0.20
    protect_first_n: int = 3
    protect_last_n: int = 20
    context_window: int = 128_000

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"compression.enabled is {self.enabled!r}; expected true or false.")
        checks = (
            ("compression.threshold", self.threshold, (int, float), lambda v: 0.0 < v <= 1.0, "above 0 and at most 1"),
            ("compression.target_ratio", self.target_ratio, (int, float), lambda v: 0.0 < v < 1.0, "between 0 and 1"),
            ("compression.protect_first_n", self.protect_first_n, (int,), lambda v: v >= 0, "an integer, 0 or more"),
            ("compression.protect_last_n", self.protect_last_n, (int,), lambda v: v >= 1, "an integer, 1 or more"),
            ("model.context_length", self.context_window, (int,), lambda v: v >= 1, "a positive token count"),
        )
        for key, value, types, in_range, expected in checks:
            if isinstance(value, bool) or not isinstance(value, types) or not in_range(value):
                raise ConfigError(f"{key} is {value!r}; expected {expected}.")

    @classmethod
    def from_config(cls, config: Config, context_window: int) -> "CompressionSettings":
        """Settings from the ``compression`` section; a bad value raises ``ConfigError`` naming its key."""
        return cls(**asdict(config.compression), context_window=context_window)

    @property
    def threshold_tokens(self) -> int:
        """Prompt size above which the next turn compresses first."""
        return int(self.threshold * self.context_window)

    @property
    def target_tokens(self) -> int:
        """What the whole request should cost right after compression."""
        return int(self.target_ratio * self.context_window)

    @property
    def summary_cap(self) -> int:
        """The most tokens a summary may ever take: min(5 % of the window, 12,000)."""
        return min(int(SUMMARY_MAX_WINDOW_SHARE * self.context_window), SUMMARY_MAX_TOKENS)

    def summary_budget(self, middle_tokens: int) -> int:
        """Target summary length for a middle of ``middle_tokens``: 20 %, clamped (cap wins)."""
        wanted = max(math.ceil(middle_tokens * SUMMARY_SHARE), SUMMARY_MIN_TOKENS)
        return max(1, min(wanted, self.summary_cap))
