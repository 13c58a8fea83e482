"""Finding the home and reading its ``config.yaml``: defaults under the user's values, validated.

Upstream's own forms (``model: NAME``, ``model.default``) are read as upstream reads them, in the
loaded copy only: the file is never rewritten to do so.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import yaml

from engine.config.schema import DEFAULTS, validate
from engine.config.typed import Config
from engine.errors import ConfigError


def resolve_home(cli_home: str | os.PathLike[str] | None = None) -> Path:
    """``--home DIR``, else ``$HERMES_HOME``, else ``~/.hermes`` (DESIGN.md)."""
    if cli_home:
        return Path(cli_home).expanduser()
    env = os.environ.get("HERMES_HOME")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".hermes"


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


# PyYAML's libyaml-backed loader parses the same documents ~10x faster (every start reads the
# config, and callers' own YAML files through ``read_yaml``); the pure-Python one without libyaml.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """``yaml.safe_load`` with the fastest safe loader this PyYAML has."""
    return yaml.load(text, Loader=_SAFE_LOADER)


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
        return safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise error(f"{path}: YAML syntax error{where}: {problem}.") from exc


def read_user_config(path: Path) -> dict[str, Any]:
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
        return value  # a non-mapping is reported by validate
    name = _upstream_name(path, value)
    if name is None:
        return value
    return {**value, "name": name, "provider": value.get("provider") or "auto"}


def load_config(home: Path) -> Config:
    """Read and validate ``<home>/config.yaml`` (missing file = all defaults)."""
    path = home / "config.yaml"
    user = read_user_config(path)
    # Sections explicitly set to null mean "defaults".
    user = {k: v for k, v in user.items() if not (v is None and isinstance(DEFAULTS.get(k), dict))}
    if "model" in user:
        user["model"] = _model_section(path, user["model"])
    validate(path, user)
    return Config(home=home, data=_merge(DEFAULTS, user))
