"""A guard on the source: text built from data never reaches a widget that parses markup.

The hostile-string tests check every screen we know of; this catches the next widget. Textual
parses a ``str`` as markup in ``Static(...)``, ``.update(...)``, ``Label``, ``Option``, tree
nodes, ``Collapsible(title=...)`` and border titles, so a string *built* there (an f-string with
values, a concatenation, ``.format``) is how stored text became live markup before. Such text
goes through ``hermes_tui.widgets.literal`` instead, and ``escape`` (not a boundary in Textual 8)
is never used.

Three more ways in are caught: ``Content.from_markup``/``Text.from_markup`` of anything but a
string literal, a ``tooltip`` (a str is parsed as markup when shown) that is neither a literal
nor built by a non-parsing constructor, and a sink handed a bare name or attribute
(``Static(entry)``, ``w.update(record.summary)``): what it holds cannot be seen here, so each
such use in the app is listed in ``OWN_VALUES`` with why it is our own text or ``Content``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "hermes_tui"
SINK_CALLS = {"Static", "Label", "Option", "update", "add", "add_leaf", "Collapsible", "Button", "set_label",
              "add_option", "replace_option_prompt"}
SINK_ATTRIBUTES = {"border_title", "border_subtitle"}
# The sinks checked for a bare name too: ``add`` and ``add_leaf`` are left out (sets and the
# memory store have an ``add`` of their own), and so is ``write`` (files, streams).
NAMED_SINKS = SINK_CALLS - {"add", "add_leaf"}
# Where a sink takes its text when it is not the first argument (the first is the option's id).
TEXT_ARGUMENT = {"replace_option_prompt": 1}
# Calls whose result is never parsed as markup: a tooltip (or a sink) given one is data-safe.
NON_PARSING = {"literal", "literal_line", "literal_text", "Content", "Text"}
# A sink given a bare name, checked by hand: (file name, the argument as written) → why it is safe.
OWN_VALUES = {
    ("main.py", "EMPTY_CHAT_HINT"): "a module constant: Content.assemble of our own words",
    ("memory_panel.py", "NEXT_SESSION_LEGEND"): "a module constant: our own legend ('+ in the prompt…')",
    ("memory_panel.py", "body"): "paint(): Content joined from lines built with literal()",
}


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


def _is_named_value(node: ast.AST) -> bool:
    """A bare name, attribute or subscript: a value whose text this scan cannot see."""
    return isinstance(node, (ast.Name, ast.Attribute, ast.Subscript))


def _is_safe_tooltip(node: ast.AST) -> bool:
    """A string literal, ``None``, or the result of a constructor that never parses markup."""
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, str)
    return isinstance(node, ast.Call) and _name(node.func) in NON_PARSING


def offences(source: str, filename: str) -> list[str]:
    found = []
    short = Path(filename).name
    for node in ast.walk(ast.parse(source, filename=filename)):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module in ("rich.markup", "textual.markup"):
            if any(alias.name == "escape" for alias in node.names):
                found.append(f"{where}: imports escape (not a boundary; use hermes_tui.widgets.literal)")
        elif isinstance(node, ast.Call) and _name(node.func) == "from_markup":
            if not node.args or not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.append(f"{where}: from_markup() of a value parses it as markup; use literal()")
        elif isinstance(node, ast.Call) and _name(node.func) in SINK_CALLS:
            if any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
                   for k in node.keywords):
                continue
            at = TEXT_ARGUMENT.get(_name(node.func), 0)
            texts = node.args[at:at + 1] + [k.value for k in node.keywords if k.arg in ("title", "label", "prompt")]
            if any(_is_built_text(text) for text in texts):
                found.append(f"{where}: {_name(node.func)}() gets text built from values; use literal()")
            elif _name(node.func) in NAMED_SINKS and any(
                    _is_named_value(text) and (short, ast.unparse(text)) not in OWN_VALUES for text in texts):
                found.append(f"{where}: {_name(node.func)}() gets a value it may parse as markup; use literal() "
                             "(or list it in OWN_VALUES with why it is ours)")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr in SINK_ATTRIBUTES and _is_built_text(node.value):
                    found.append(f"{where}: {target.attr} is built from values; use literal_line()")
                if isinstance(target, ast.Attribute) and target.attr == "tooltip" and not _is_safe_tooltip(node.value):
                    found.append(f"{where}: tooltip is set from a value (a str is parsed as markup); use literal()")
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "tooltip" and not _is_safe_tooltip(keyword.value):
                    found.append(f"{where}: tooltip= gets a value (a str is parsed as markup); use literal()")
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
Content.from_markup(entry)
Text.from_markup(f"[b]{name}[/]")
Button("ok", tooltip=record.summary)
widget.tooltip = f"{title}"
Static(entry)
status.update(record.summary)
Label(titles[0])
options.add_option(f"{name} row")
button.set_label(name)
options.replace_option_prompt("row-1", "• " + entry)
'''
    found = offences(bad, "bad.py")
    assert len(found) == 15, "\n".join(found)
    good = '''
Static(literal(title))
Static(f"[b]{x}[/]", markup=False)
Static(entry, markup=False)
label.update("plain words")
self.border_title = literal_line(name)
Content.from_markup("[b]our own words[/]")
Button("ok", tooltip="our own words")
widget.tooltip = literal_line(title)
widget.tooltip = None
seen.add(name)
tree.root.add_leaf(label, data=None)
sys.stdout.write(text)
self.query_one(Static).update(body)
options.replace_option_prompt(f"pending:{record.id}", row_text(record, now))
'''
    assert offences(good, "memory_panel.py") == []  # ``body`` there is listed in OWN_VALUES
    assert offences("self.query_one(Static).update(body)", "other.py") != []  # elsewhere it is not
