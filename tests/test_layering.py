"""The engine must stay UI-free: no module under engine/ imports Textual."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_engine_never_imports_textual() -> None:
    offenders = [str(p) for p in ENGINE.rglob("*.py") if {"textual", "hermes_tui"} & _imported_roots(p)]
    assert offenders == []


def test_engine_has_modules_to_check() -> None:
    assert len(list(ENGINE.rglob("*.py"))) > 3


def test_readme_test_command_is_what_ci_runs() -> None:
    root = ENGINE.parent
    ci_line = [l for l in (root / ".ci/run").read_text().splitlines() if "pytest" in l][0]
    assert ci_line.strip() in (root / "README.md").read_text()
