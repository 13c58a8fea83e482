"""Start-up over a config the app cannot fully use: a theme variable Textual cannot parse, a key
variable that is not set, and an upstream model section a /theme save must leave alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.loopback_llm import LoopbackLLM
from hermes_tui.themes import BUNDLED_DIR, load_themes
from tests.tui.helpers import SIZE, close_app, make_app, ready, screen_text, turn_over, wait_until


def _home(path: Path, config: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.yaml").write_text(config, encoding="utf-8")
    return path


def _theme(home: Path, text: str) -> Path:
    folder = home / "themes"
    folder.mkdir(exist_ok=True)
    path = folder / "bad-vars.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("variable", "value", "kind"),
    [
        ("footer-key-foreground", "not-a-colour", "a colour"),
        ("input-selection-background", "auto 87%", "a colour"),  # "auto" is for a foreground only
        ("block-cursor-text-style", "blinky", "a text style"),
        ("scrollbar", "$primary", "a colour"),
    ],
)
def test_a_bad_variable_is_a_warning_naming_the_file_and_the_variable(
        tmp_path: Path, variable: str, value: str, kind: str) -> None:
    bad = _theme(tmp_path, f"name: bad-vars\nprimary: '#ffffff'\nvariables:\n  {variable}: '{value}'\n")
    themes, warnings = load_themes([BUNDLED_DIR, bad.parent])
    assert "bad-vars" not in {t.name for t in themes} and len(themes) == 3
    assert warnings == [f"{bad}: variables.{variable} is {value!r}, not {kind}."]


def test_variables_textual_accepts_still_load(tmp_path: Path) -> None:
    ok = _theme(tmp_path, "name: fine-vars\nprimary: '#ffffff'\nvariables:\n  text: 'auto 87%'\n"
                          "  input-selection-background: '#5B8DEF 35%'\n  link-style: 'bold not underline'\n"
                          "  link-background: initial\n  my-own-name: anything at all\n")
    themes, warnings = load_themes([ok.parent])
    assert warnings == [] and [t.name for t in themes] == ["fine-vars"]


async def test_the_app_starts_with_the_warning_instead_of_crashing(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = _home(tmp_path / "home", f"model: {{provider: openai, name: m, base_url: '{llm.base_url_openai}'}}\n"
                                    "display: {theme: bad-vars}\n")
    bad = _theme(home, "name: bad-vars\nprimary: '#ffffff'\nvariables:\n  footer-key-foreground: not-a-colour\n")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        warning = f"{bad}: variables.footer-key-foreground is 'not-a-colour', not a colour."
        await wait_until(pilot, lambda: warning in [str(n.message) for n in app._notifications])
        assert app.theme == "hermes-dark"
    close_app(app)


async def test_an_unset_api_key_env_is_explained_and_nothing_is_sent(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = _home(tmp_path / "home", f"model: {{provider: openai, name: m, base_url: '{llm.base_url_openai}', "
                                    "api_key_env: MY_LOCAL_KEY}\n")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "MY_LOCAL_KEY, named by api_key_env, is" in screen_text(app)  # the chat's error entry
        app.main.prompt.text = "hello?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turn_over(app))
    close_app(app)
    assert llm.requests == []


async def test_theme_switch_keeps_an_upstream_model_section_as_it_is(tmp_path: Path, llm: LoopbackLLM) -> None:
    upstream = (f"model:\n  provider: custom   # my box\n  base_url: {llm.base_url_openai}\n  default: m\n"
                "  api_key: sk-inline\n")
    home = _home(tmp_path / "home", upstream)
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.main.prompt.text = "/theme hermes-light"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "hermes-light" in (home / "config.yaml").read_text(encoding="utf-8"))
    close_app(app)
    saved = (home / "config.yaml").read_text(encoding="utf-8")
    assert saved.startswith(upstream) and "theme: hermes-light" in saved
