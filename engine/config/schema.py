"""What ``config.yaml`` may say: every key we know, its default, and the check a value must pass.

Keys we do not know are the user's business (upstream's own, a plugin's): they are never checked
and never dropped. A bad value is reported with its dotted key and the file it came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from engine.errors import ConfigError
from engine.pricing import check_price_table

DEFAULTS: dict[str, Any] = {
    "model": {
        "provider": "anthropic",
        "name": "claude-sonnet-4-6",
        "base_url": None,
        "api_key_env": None,
        "context_length": None,
        "timeouts": {"first_byte": 60.0, "idle": 60.0, "total": 900.0},  # seconds, every model call
    },
    "auxiliary": {
        "compression": {"provider": None, "name": None, "base_url": None},
        "session_search": {"provider": None, "name": None, "base_url": None},
        "background_review": {"provider": None, "name": None, "base_url": None},
        "title": {"provider": None, "name": None, "base_url": None},
    },
    "memory": {
        "memory_enabled": True,
        "user_profile_enabled": True,
        "memory_char_limit": 2200,
        "user_char_limit": 1375,
        "write_approval": False,
        "provider": "",
        "nudge_interval": 10,
    },
    "compression": {
        "enabled": True,
        "threshold": 0.50,
        "target_ratio": 0.20,
        "protect_first_n": 3,
        "protect_last_n": 20,
    },
    "sessions": {
        "auto_prune": False,
        "retention_days": 90,
        "vacuum_after_prune": True,
        "min_interval_hours": 24,
        "write_json_snapshots": False,
    },
    "prompt_caching": {"cache_ttl": "5m"},
    "display": {"theme": "hermes-dark", "memory_notifications": "on"},
    "security": {"redact_secrets": True},
    # US dollars per million tokens, over the dated defaults in engine.pricing
    "pricing": {"local_servers_free": True, "models": {}},
}

# Keys whose value must be one of a fixed set.
# (``model.provider`` is open: upstream's names are many and ``engine.providers`` judges them.)
CHOICES: dict[str, tuple[Any, ...]] = {
    "prompt_caching.cache_ttl": ("5m", "1h"),
    "display.memory_notifications": ("off", "on", "verbose"),
}

# Keys whose default is ``None`` but whose value, when set, has a known type.
OPTIONAL_TYPES: dict[str, type] = {
    "model.base_url": str,
    "model.api_key_env": str,
    "model.context_length": int,
}

# Open mappings (the user names the keys) with a check of their own.
CHECKS: dict[str, Callable[[Path, Any], None]] = {
    "pricing.models": check_price_table,
}

# Numeric keys with a valid range (inclusive).
RANGES: dict[str, tuple[float, float]] = {
    "compression.threshold": (0.05, 1.0),
    "compression.target_ratio": (0.01, 0.95),
    "compression.protect_first_n": (0, 1000),
    "compression.protect_last_n": (1, 100000),
    "memory.memory_char_limit": (1, 10_000_000),
    "memory.user_char_limit": (1, 10_000_000),
    "memory.nudge_interval": (0, 100000),
    "sessions.retention_days": (0, 100000),
    "sessions.min_interval_hours": (0, 100000),
    "model.context_length": (1024, 100_000_000),
}


def _type_name(t: type) -> str:
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(
        t, t.__name__
    )


def _check_value(path: Path, dotted: str, value: Any, default: Any) -> None:
    if dotted in CHOICES:
        if value not in CHOICES[dotted]:
            allowed = ", ".join(str(c) for c in CHOICES[dotted])
            raise ConfigError(f"{path}: {dotted} is {value!r}; expected one of {allowed}.")
        return
    expected: type | None
    if default is None:
        expected = OPTIONAL_TYPES.get(dotted)
        if value is None or expected is None:
            return
    else:
        expected = type(default)
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if expected is bool and not isinstance(value, bool):
        raise ConfigError(f"{path}: {dotted} is {value!r}; expected {_type_name(bool)}.")
    if expected is not bool and (isinstance(value, bool) or not isinstance(value, expected)):
        raise ConfigError(f"{path}: {dotted} is {value!r}; expected {_type_name(expected)}.")
    if dotted in RANGES:
        low, high = RANGES[dotted]
        if not low <= value <= high:
            raise ConfigError(f"{path}: {dotted} is {value!r}; expected a value from {low} to {high}.")


def validate(path: Path, user: dict[str, Any], defaults: dict[str, Any] = DEFAULTS, prefix: str = "") -> None:
    """Raise ``ConfigError`` for the first known key of ``user`` whose value is wrong."""
    for key, value in user.items():
        dotted = f"{prefix}{key}"
        if key not in defaults:
            continue  # unknown keys are the user's business and are kept as they are
        default = defaults[key]
        if dotted in CHECKS:
            CHECKS[dotted](path, value)
        elif isinstance(default, dict):
            if value is None or (dotted == "model" and isinstance(value, str)):
                continue  # null = defaults; ``model: NAME`` is upstream's short form
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: {dotted} must be a mapping of keys, not {value!r}.")
            validate(path, value, default, dotted + ".")
        else:
            _check_value(path, dotted, value, default)
