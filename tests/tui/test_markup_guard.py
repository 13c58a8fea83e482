"""A guard on the source: text built from data never reaches a widget that parses markup.

The hostile-string tests check every screen we know of; this catches the next widget. Textual
parses a ``str`` as markup in ``Static(...)``, ``.update(...)``, ``Label``, ``Option``, tree
nodes, ``Collapsible(title=...)`` and border titles, so a string *built* there (an f-string with
values, a concatenation, ``.format``) is how stored text became live markup before. Such text
goes through ``hermes_tui.widgets.literal`` instead, and ``escape`` (not a boundary in Textual 8)
is never used.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "hermes_tui"
SINK_CALLS = {"Static", "Label", "Option", "update", "add", "add_leaf", "Collapsible", "Button"}
SINK_ATTRIBUTES = {"border_title", "border_subtitle"}


def _is_built_text(node: ast.AST) -> bool:
    """An f-string with values, a ``+`` or ``%`` of strings, or a ``.format`` call."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(value, ast.FormattedValue) for value in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _is_text(node.left) or _is_text(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "format" and _is_text(node.func.value)
    if isinstance(node, ast.IfExp):
        return _is_built_text(node.body) or _is_built_text(node.orelse)
    return False


def _is_text(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or _is_built_text(node)


def _name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def offences(source: str, filename: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module in ("rich.markup", "textual.markup"):
            if any(alias.name == "escape" for alias in node.names):
                found.append(f"{where}: imports escape (not a boundary; use hermes_tui.widgets.literal)")
        elif isinstance(node, ast.Call) and _name(node.func) in SINK_CALLS:
            if any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
                   for k in node.keywords):
                continue
            texts = node.args[:1] + [k.value for k in node.keywords if k.arg in ("title", "label", "prompt")]
            if any(_is_built_text(text) for text in texts):
                found.append(f"{where}: {_name(node.func)}() gets text built from values; use literal()")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr in SINK_ATTRIBUTES and _is_built_text(node.value):
                    found.append(f"{where}: {target.attr} is built from values; use literal_line()")
    return found


def test_no_widget_gets_markup_built_from_data() -> None:
    found = [o for path in sorted(PACKAGE.rglob("*.py")) for o in offences(path.read_text("utf-8"), str(path))]
    assert found == []


def test_the_guard_catches_what_it_is_for() -> None:
    bad = '''
from rich.markup import escape
Static(f"[b]{title}[/]")
label.update("• " + entry)
self.border_title = f"{name}"
Collapsible(body, title="{}".format(name))
'''
    assert len(offences(bad, "bad.py")) == 5
    good = '''
Static(literal(title))
Static(f"[b]{x}[/]", markup=False)
label.update("plain words")
self.border_title = literal_line(name)
'''
    assert offences(good, "good.py") == []
