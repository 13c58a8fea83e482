"""Compression settings from config.yaml, their budgets, and the trigger."""

from __future__ import annotations

import pytest

from engine.compression import CompressionSettings, should_compress
from engine.config import load_config
from engine.errors import ConfigError


def test_from_config_reads_the_compression_section(tmp_path):
    (tmp_path / "config.yaml").write_text(
        "compression:\n  threshold: 0.7\n  target_ratio: 0.3\n  protect_first_n: 1\n  protect_last_n: 6\n"
    )
    s = CompressionSettings.from_config(load_config(tmp_path), context_window=100_000)
    assert s == CompressionSettings(True, 0.7, 0.3, 1, 6, 100_000)
    assert CompressionSettings.from_config(load_config(tmp_path / "none"), 8_000) == CompressionSettings(context_window=8_000)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"threshold": 0}, "compression.threshold is 0; expected above 0 and at most 1."),
        ({"target_ratio": 1.5}, "compression.target_ratio is 1.5; expected between 0 and 1."),
        ({"protect_first_n": -1}, "compression.protect_first_n is -1; expected an integer, 0 or more."),
        ({"protect_last_n": 2.5}, "compression.protect_last_n is 2.5; expected an integer, 1 or more."),
        ({"context_window": 0}, "model.context_length is 0; expected a positive token count."),
        ({"context_window": "big"}, "model.context_length is 'big'; expected a positive token count."),
        ({"threshold": True}, "compression.threshold is True; expected above 0 and at most 1."),
        ({"enabled": "yes"}, "compression.enabled is 'yes'; expected true or false."),
    ],
)
def test_bad_values_name_their_key(kwargs, message):
    with pytest.raises(ConfigError) as info:
        CompressionSettings(**kwargs)
    assert str(info.value) == message


def test_budgets_follow_the_design_contract():
    s = CompressionSettings(context_window=128_000)
    assert (s.threshold_tokens, s.target_tokens, s.summary_cap) == (64_000, 25_600, 6_400)
    assert s.summary_budget(1_000) == 2_000  # the minimum
    assert s.summary_budget(20_000) == 4_000  # 20 %
    assert s.summary_budget(100_000) == 6_400  # 5 % of the window
    assert CompressionSettings(context_window=1_000_000).summary_budget(10**6) == 12_000
    assert CompressionSettings(context_window=8_000).summary_budget(1_000) == 400  # cap beats the minimum


def test_trigger_prefers_the_provider_count_and_estimates_otherwise():
    s = CompressionSettings(context_window=1_000)
    small = [{"role": "user", "content": "hi"}]
    big = [{"role": "user", "content": "x" * 4_000}]
    assert should_compress(501, small, [], "", s) is True
    assert should_compress(500, big, [], "", s) is False  # the provider's number wins
    assert should_compress(None, big, [], "", s) is True
    assert should_compress(None, small, [], "y" * 2_000, s) is True  # the system prompt counts
    assert should_compress(None, small, [], "", s) is False
    assert should_compress(10**6, big, [], "", CompressionSettings(enabled=False)) is False
