"""Saving one ``section.key`` value to ``config.yaml`` without disturbing the rest of the file.

Every other key is kept (unknown ones included), and the value's own line is edited in place
when the layout allows it, so comments survive; the result is validated before anything is
written, and a failed save leaves the file exactly as it was.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

from engine.atomic import atomic_write_text
from engine.config.load import read_user_config, safe_load
from engine.config.schema import validate
from engine.errors import ConfigError


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
    user = read_user_config(path)
    original = path.read_text(encoding="utf-8-sig") if path.exists() else ""
    new_user = copy.deepcopy(user)
    sect = new_user.get(section)
    if sect is None:
        sect = new_user[section] = {}
    if not isinstance(sect, dict):
        raise ConfigError(f"{path}: {section} must be a mapping of keys, not {sect!r}.")
    sect[key] = value
    validate(path, new_user)

    text = _edit_in_place(original, section, key, value)
    if text is None and section not in user:
        sep = "" if not original or original.endswith("\n") else "\n"
        text = f"{original}{sep}{section}:\n  {key}: {_yaml_scalar(value)}\n"
    if text is None or _safe_load(text) != new_user:
        # Flow-style or unusual layout: fall back to a full dump (values kept, comments lost).
        text = yaml.safe_dump(new_user, sort_keys=False, allow_unicode=True)
    try:
        home.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    except OSError as exc:  # a read-only home: the temp file beside config.yaml cannot be made
        raise ConfigError(f"{path}: cannot be written ({exc.strerror or exc}); it was left as it was.") from exc


def _safe_load(text: str) -> Any:
    try:
        return safe_load(text) or {}
    except yaml.YAMLError:
        return None
