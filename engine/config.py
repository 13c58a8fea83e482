"""Hermes home resolution and ``config.yaml``: defaults, validation, and key-preserving saves.

The file is the user's: unknown keys are kept, upstream's own forms (``model: NAME``,
``model.default``) are read as upstream reads them without rewriting them, a saved value touches
only its own line when it can (so comments survive), and a bad value is reported with the dotted
key at fault.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.errors import ConfigError

DEFAULTS: dict[str, Any] = {
    "model": {
        "provider": "anthropic",
        "name": "claude-sonnet-4-5",
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


def resolve_home(cli_home: str | os.PathLike[str] | None = None) -> Path:
    """``--home DIR``, else ``$HERMES_HOME``, else ``~/.hermes`` (DESIGN.md)."""
    if cli_home:
        return Path(cli_home).expanduser()
    env = os.environ.get("HERMES_HOME")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".hermes"


@dataclass
class Config:
    """The merged configuration (defaults under the user's values) of one home."""

    home: Path
    data: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(DEFAULTS))

    @property
    def path(self) -> Path:
        return self.home / "config.yaml"

    def get(self, dotted: str, default: Any = None) -> Any:
        """Value at a dotted key such as ``"memory.write_approval"``."""
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def section(self, name: str) -> dict[str, Any]:
        value = self.data.get(name)
        return value if isinstance(value, dict) else {}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


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


def _validate(path: Path, user: dict[str, Any], defaults: dict[str, Any], prefix: str = "") -> None:
    for key, value in user.items():
        dotted = f"{prefix}{key}"
        if key not in defaults:
            continue  # unknown keys are the user's business and are kept as they are
        default = defaults[key]
        if isinstance(default, dict):
            if value is None or (dotted == "model" and isinstance(value, str)):
                continue  # null = defaults; ``model: NAME`` is upstream's short form
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: {dotted} must be a mapping of keys, not {value!r}.")
            _validate(path, value, default, dotted + ".")
        else:
            _check_value(path, dotted, value, default)


def read_yaml(path: Path, error: type[Exception]) -> Any:
    """Parse one YAML file; an unreadable file or a syntax error raises ``error`` naming the file
    (and the line and column, when PyYAML knows them)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise  # the caller decides what a missing file means
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot be read ({exc}).") from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise error(f"{path}: YAML syntax error{where}: {problem}.") from exc


def _read_user_config(path: Path) -> dict[str, Any]:
    try:
        loaded = read_yaml(path, ConfigError)
    except FileNotFoundError:
        return {}
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections, not {type(loaded).__name__}.")
    return loaded


def _upstream_name(path: Path, section: dict[str, Any]) -> str | None:
    """The model name under upstream's keys: ``model.default``, else ``model.model``."""
    for key in ("default", "model"):
        value = section.get(key)
        if value in (None, ""):
            continue
        if not isinstance(value, str):
            raise ConfigError(f"{path}: model.{key} is {value!r}; expected a string.")
        return value.strip()
    return None


def _model_section(path: Path, value: Any) -> Any:
    """The ``model`` section in our keys, upstream's forms read as upstream reads them.

    Upstream names the model ``model: NAME`` or ``model.default``, and there a missing provider
    means its ``auto`` detection; a section in our keys (``name``) keeps our default provider.
    Only the loaded copy changes: the file is never rewritten for it.
    """
    if value == "":
        return {}
    if isinstance(value, str):
        return {"name": value.strip(), "provider": "auto"}
    if not isinstance(value, dict) or value.get("name"):
        return value  # a non-mapping is reported by _validate
    name = _upstream_name(path, value)
    if name is None:
        return value
    return {**value, "name": name, "provider": value.get("provider") or "auto"}


def load_config(home: Path) -> Config:
    """Read and validate ``<home>/config.yaml`` (missing file = all defaults)."""
    path = home / "config.yaml"
    user = _read_user_config(path)
    # Sections explicitly set to null mean "defaults".
    user = {k: v for k, v in user.items() if not (v is None and isinstance(DEFAULTS.get(k), dict))}
    if "model" in user:
        user["model"] = _model_section(path, user["model"])
    _validate(path, user, DEFAULTS)
    return Config(home=home, data=_merge(DEFAULTS, user))


def _yaml_scalar(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, allow_unicode=True).strip().removesuffix("...").strip()


def _edit_in_place(text: str, section: str, key: str, value: Any) -> str | None:
    """Replace ``key:`` inside a block-style top-level ``section:``; ``None`` when not possible."""
    lines = text.splitlines(keepends=True)
    section_re = re.compile(rf"^{re.escape(section)}:\s*(#.*)?$")
    start = next((i for i, line in enumerate(lines) if section_re.match(line.rstrip("\r\n"))), None)
    if start is None:
        return None
    key_re = re.compile(rf"^(\s+){re.escape(key)}:(\s*)([^#\r\n]*?)(\s*#.*)?(\r?\n)?$")
    indent = None
    end = len(lines)
    for i in range(start + 1, len(lines)):
        raw = lines[i]
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not raw[0].isspace():
            end = i
            break
        this_indent = len(raw) - len(raw.lstrip())
        if indent is None:
            indent = this_indent
        if this_indent != indent:
            continue
        match = key_re.match(raw)
        if match:
            comment = match.group(4) or ""
            newline = match.group(5) or ""
            lines[i] = f"{match.group(1)}{key}: {_yaml_scalar(value)}{comment}{newline}"
            return "".join(lines)
    # Key absent: add it at the end of the section's block.
    pad = " " * (indent or 2)
    insert_at = end
    while insert_at > start + 1 and not lines[insert_at - 1].strip():
        insert_at -= 1
    if insert_at > 0 and not lines[insert_at - 1].endswith("\n"):
        lines[insert_at - 1] += "\n"
    lines.insert(insert_at, f"{pad}{key}: {_yaml_scalar(value)}\n")
    return "".join(lines)


def set_config_value(home: Path, dotted: str, value: Any) -> None:
    """Persist one ``section.key`` value, keeping every other key and, where possible, comments.

    Validates the result first; on any error the file is left exactly as it was.
    """
    section, _, key = dotted.partition(".")
    if not key or "." in key:
        raise ConfigError(f"{home / 'config.yaml'}: {dotted} is not a section.key setting.")
    path = home / "config.yaml"
    user = _read_user_config(path)
    original = path.read_text(encoding="utf-8-sig") if path.exists() else ""
    new_user = copy.deepcopy(user)
    sect = new_user.get(section)
    if sect is None:
        sect = new_user[section] = {}
    if not isinstance(sect, dict):
        raise ConfigError(f"{path}: {section} must be a mapping of keys, not {sect!r}.")
    sect[key] = value
    _validate(path, new_user, DEFAULTS)

    text = _edit_in_place(original, section, key, value)
    if text is None and section not in user:
        sep = "" if not original or original.endswith("\n") else "\n"
        text = f"{original}{sep}{section}:\n  {key}: {_yaml_scalar(value)}\n"
    if text is None or _safe_load(text) != new_user:
        # Flow-style or unusual layout: fall back to a full dump (values kept, comments lost).
        text = yaml.safe_dump(new_user, sort_keys=False, allow_unicode=True)
    from engine.atomic import atomic_write_text

    try:
        home.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    except OSError as exc:  # a read-only home: the temp file beside config.yaml cannot be made
        raise ConfigError(f"{path}: cannot be written ({exc.strerror or exc}); it was left as it was.") from exc


def _safe_load(text: str) -> Any:
    try:
        return yaml.safe_load(text) or {}
    except yaml.YAMLError:
        return None
