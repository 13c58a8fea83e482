"""Theme files: YAML with Textual ``Theme`` fields, loaded at start-up and registered on the app.

Bundled themes live in the checkout's top-level ``themes/`` folder; a user's own files in
``$HERMES_HOME/themes/`` override them by name. A bad file never stops the app: it is skipped
with a one-line warning naming the file and the problem, and the other themes still load.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.app import App
from textual.color import Color, ColorParseError
from textual.css.errors import StylesheetError
from textual.css.stylesheet import Stylesheet
from textual.css.tokenizer import TokenError
from textual.theme import Theme

from engine.config import read_yaml

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "themes"
DEFAULT_THEME = "hermes-dark"

_FIELDS = {f.name: f for f in dataclasses.fields(Theme)}
_COLOURS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
            "surface", "panel", "boost")
_BOOLS = ("dark", "ansi")
_NUMBERS = ("luminosity_spread", "text_alpha")
# A name is shown in /theme, the palette and config.yaml: plain words, never markup or escapes.
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.+-]{0,63}")


class ThemeFileError(ValueError):
    """One problem with one theme file; the message is the warning shown to the user."""


def theme_dirs(home: Path) -> list[Path]:
    """Bundled themes first, then ``<home>/themes`` so user files override bundled ones."""
    return [BUNDLED_DIR, home / "themes"]


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = read_yaml(path, ThemeFileError)
    except FileNotFoundError as exc:
        raise ThemeFileError(f"{path}: cannot be read ({exc}).") from exc
    if not isinstance(data, dict):
        raise ThemeFileError(f"{path}: a theme file must be a mapping of Theme fields, not {type(data).__name__}.")
    return data


def _is_colour(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        Color.parse(value)
    except ColorParseError:
        return False
    return True


def _check_fields(path: Path, data: dict[str, Any]) -> None:
    unknown = sorted(str(key) for key in data if key not in _FIELDS)
    if unknown:
        raise ThemeFileError(f"{path}: unknown field {unknown[0]!r} (Theme fields: {', '.join(_FIELDS)}).")
    for required in ("name", "primary"):
        if not data.get(required):
            raise ThemeFileError(f"{path}: missing {required}.")
    if not isinstance(data["name"], str):
        raise ThemeFileError(f"{path}: name is {data['name']!r}; expected text.")
    if not _NAME_RE.fullmatch(data["name"]):
        raise ThemeFileError(f"{path}: name {data['name']!r} must be letters, digits, spaces and - _ . + "
                             "(at most 64, starting with a letter or digit).")
    for key in _COLOURS:
        if data.get(key) is not None and not _is_colour(data[key]):
            raise ThemeFileError(f"{path}: {key} is {data[key]!r}, not a colour.")
    for key in _BOOLS:
        if key in data and not isinstance(data[key], bool):
            raise ThemeFileError(f"{path}: {key} is {data[key]!r}; expected true or false.")
    for key in _NUMBERS:
        if key in data and (isinstance(data[key], bool) or not isinstance(data[key], (int, float))):
            raise ThemeFileError(f"{path}: {key} is {data[key]!r}; expected a number.")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ThemeFileError(f"{path}: variables must map names to text values.")


@functools.lru_cache(maxsize=4096)
def _parses(prop: str, value: str) -> bool:
    """Whether Textual's CSS parser takes ``value`` (as a variable, the way themes are used) for
    ``prop``. Remembered: every app start checks the same few values, a parse each."""
    sheet = Stylesheet(variables={"value": value})
    sheet.add_source(f"Screen {{ {prop}: $value; }}")
    try:
        sheet.parse()
    except (StylesheetError, TokenError):
        return False
    return True


def _kind(default: str) -> tuple[str, tuple[str, ...]] | None:
    """What a variable holds, judged by where Textual's own value for it parses, and the
    properties a replacement must parse in (a colour may be used as a background)."""
    if _parses("background", default):
        return "a colour", ("color", "background")
    if _parses("color", default):
        return "a foreground colour", ("color",)
    if _parses("text-style", default):
        return "a text style", ("text-style",)
    return None


def _check_variables(path: Path, theme: Theme) -> None:
    """Refuse a variable value the stylesheet could not parse: Textual substitutes variables
    when it parses the app's CSS, so a bad one would stop start-up, not just this theme.

    Only Textual's own variables are checked; a name of the user's own is used by no CSS here.
    """
    defaults = dataclasses.replace(theme, variables={}).to_color_system().generate()
    for name, value in theme.variables.items():
        kind = _kind(defaults[name]) if name in defaults else None
        if kind is not None and not all(_parses(prop, value) for prop in kind[1]):
            raise ThemeFileError(f"{path}: variables.{name} is {value!r}, not {kind[0]}.")


def load_theme_file(path: Path) -> Theme:
    """One validated theme; :class:`ThemeFileError` names the file and the first problem."""
    data = _read_yaml(path)
    _check_fields(path, data)
    theme = Theme(**data)
    try:
        theme.to_color_system().generate()
    except (ColorParseError, ValueError, TypeError) as exc:
        raise ThemeFileError(f"{path}: Textual cannot build colours from it ({exc}).") from exc
    _check_variables(path, theme)
    return theme


def load_themes(dirs: Sequence[Path]) -> tuple[list[Theme], list[str]]:
    """Every theme in ``dirs`` (``*.yaml``/``*.yml``; later folders override earlier ones by name)
    and one warning per bad file. Missing folders are skipped: the user folder is optional."""
    themes: dict[str, Theme] = {}
    warnings: list[str] = []
    for folder in dirs:
        if not folder.is_dir():
            continue
        for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
            try:
                theme = load_theme_file(path)
            except ThemeFileError as exc:
                warnings.append(str(exc))
                continue
            themes[theme.name] = theme
    return sorted(themes.values(), key=lambda t: t.name), warnings


def register_themes(app: App[Any], home: Path) -> list[str]:
    """Register bundled and user themes on ``app``; returns the warnings for bad files."""
    themes, warnings = load_themes(theme_dirs(home))
    for theme in themes:
        app.register_theme(theme)
    return warnings


def apply_theme(app: App[Any], name: str, fallback: str = DEFAULT_THEME) -> str | None:
    """Switch ``app`` to ``name`` live; when it is unknown use ``fallback`` and return a warning."""
    if name in app.available_themes:
        app.theme = name
        return None
    if fallback in app.available_themes:
        app.theme = fallback
        return f"Theme {name!r} is not available (unknown or a bad theme file); using {fallback!r}."
    return f"Theme {name!r} and the fallback {fallback!r} are not available; keeping {app.theme!r}."
