"""Theme files: the bundled three, warnings for bad files, user overrides, live switching."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.theme import Theme
from textual.widgets import Static

from hermes_tui.themes import BUNDLED_DIR, apply_theme, load_theme_file, load_themes, register_themes, theme_dirs

BUNDLED = {"hermes-dark": True, "hermes-light": False, "hermes-solarized": True}


class _Tiny(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("hello")


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bundled_themes_load_as_valid_textual_themes() -> None:
    themes, warnings = load_themes([BUNDLED_DIR])
    assert warnings == []
    assert {t.name: t.dark for t in themes} == BUNDLED
    for theme in themes:
        assert isinstance(theme, Theme)
        colours = theme.to_color_system().generate()
        assert Color.parse(colours["background"]) == Color.parse(theme.background or "")


def test_theme_dirs_put_user_files_after_bundled_ones(tmp_path: Path) -> None:
    assert theme_dirs(tmp_path) == [BUNDLED_DIR, tmp_path / "themes"]
    assert (BUNDLED_DIR / "hermes-dark.yaml").is_file()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("name: broken\nprimary: '#ffffff'\n  dark: true\n", "YAML syntax error at line 3, column 3"),
        ("primary: '#ffffff'\n", "missing name"),
        ("name: no-primary\nsecondary: '#ffffff'\n", "missing primary"),
        ("name: bad-colour\nprimary: 'not-a-colour'\n", "primary is 'not-a-colour', not a colour"),
        ("name: bad-colour\nprimary: '#fff'\nsurface: 12\n", "surface is 12, not a colour"),
        ("name: extra\nprimary: '#ffffff'\nshadow: '#000000'\n", "unknown field 'shadow'"),
        ("- name: listy\n", "must be a mapping of Theme fields, not list"),
        ("name: flag\nprimary: '#ffffff'\ndark: maybe\n", "dark is 'maybe'; expected true or false"),
        ("name: spread\nprimary: '#ffffff'\ntext_alpha: high\n", "text_alpha is 'high'; expected a number"),
        ("name: vars\nprimary: '#ffffff'\nvariables: [a, b]\n", "variables must map names to text values"),
        ("name: [x]\nprimary: '#ffffff'\n", "name is ['x']; expected text"),
    ],
)
def test_a_bad_file_is_skipped_with_a_warning_naming_it(tmp_path: Path, text: str, problem: str) -> None:
    bad = _write(tmp_path / "themes", "zz-bad.yaml", text)
    themes, warnings = load_themes([BUNDLED_DIR, tmp_path / "themes"])
    assert {t.name for t in themes} == set(BUNDLED)
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{bad}: ")
    assert problem in warnings[0]
    assert "\n" not in warnings[0]


def test_an_unreadable_file_is_a_warning_too(tmp_path: Path) -> None:
    bad = tmp_path / "themes" / "binary.yml"
    bad.parent.mkdir()
    bad.write_bytes(b"\xff\xfe\x00")
    assert load_themes([tmp_path / "themes"]) == ([], [f"{bad}: cannot be read ("
                                                      f"'utf-8' codec can't decode byte 0xff in position 0: invalid start byte)."])


def test_user_file_overrides_the_bundled_theme_by_name(tmp_path: Path) -> None:
    _write(tmp_path / "themes", "mine.yml", "name: hermes-dark\nprimary: '#FF0000'\ndark: true\n")
    themes, warnings = load_themes(theme_dirs(tmp_path))
    by_name = {t.name: t for t in themes}
    assert warnings == [] and set(by_name) == set(BUNDLED)
    assert by_name["hermes-dark"].primary == "#FF0000"


def test_missing_folders_are_not_an_error(tmp_path: Path) -> None:
    assert load_themes([tmp_path / "nope"]) == ([], [])


def test_load_theme_file_returns_the_theme() -> None:
    theme = load_theme_file(BUNDLED_DIR / "hermes-light.yaml")
    assert theme.name == "hermes-light" and theme.dark is False
    assert theme.variables["footer-key-foreground"] == theme.primary


async def test_registered_themes_switch_live_in_a_running_app(tmp_path: Path) -> None:
    app = _Tiny()
    async with app.run_test() as pilot:
        assert register_themes(app, tmp_path) == []
        assert set(BUNDLED) <= set(app.available_themes)
        for name in BUNDLED:
            assert apply_theme(app, name) is None
            await pilot.pause()
            assert app.theme == name
            expected = load_theme_file(BUNDLED_DIR / f"{name}.yaml").background
            assert app.screen.styles.background == Color.parse(expected or "")


async def test_a_bad_configured_theme_falls_back_to_the_default(tmp_path: Path) -> None:
    _write(tmp_path / "themes", "custom.yaml", "name: custom\nprimary: nonsense\n")
    app = _Tiny()
    async with app.run_test() as pilot:
        warnings = register_themes(app, tmp_path)
        assert len(warnings) == 1 and "custom.yaml" in warnings[0]
        notice = apply_theme(app, "custom")
        await pilot.pause()
        assert app.theme == "hermes-dark"
        assert notice == "Theme 'custom' is not available (unknown or a bad theme file); using 'hermes-dark'."


async def test_without_the_fallback_the_current_theme_is_kept() -> None:
    app = _Tiny()
    async with app.run_test():
        before = app.theme
        assert apply_theme(app, "nope", fallback="also-nope") == (
            f"Theme 'nope' and the fallback 'also-nope' are not available; keeping {before!r}."
        )
        assert app.theme == before
