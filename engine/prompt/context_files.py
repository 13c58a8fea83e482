"""Project context files for the *context* layer of the system prompt.

Which file: ``.hermes.md``/``HERMES.md`` from the working folder up to the git root (nearest
wins); else ``AGENTS.md``, else ``CLAUDE.md``, else ``.cursorrules`` in the working folder.
Each is stripped of YAML front matter, scanned for injection (a hit is replaced by a BLOCKED
placeholder, never loaded) and capped so one huge file cannot crowd out the conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.security.threats import describe, scan

HERMES_NAMES = (".hermes.md", "HERMES.md")
FALLBACK_NAMES = ("AGENTS.md", "CLAUDE.md", ".cursorrules")
MAX_CHARS = 20_000
HEAD_SHARE = 0.70
TAIL_SHARE = 0.20

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n.*?\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class ContextFile:
    path: Path
    text: str  # what enters the prompt: content, truncated content, or the BLOCKED placeholder
    blocked: bool = False


def _git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def find_context_file(cwd: Path) -> Path | None:
    """The one context file that applies to ``cwd``, by the precedence in the module docstring."""
    root = _git_root(cwd)
    folders = [cwd]
    if root is not None:
        folders = [cwd, *[p for p in cwd.parents if root == p or root in p.parents]]
    for folder in folders:
        for name in HERMES_NAMES:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    for name in FALLBACK_NAMES:
        candidate = cwd / name
        if candidate.is_file():
            return candidate
    return None


def strip_front_matter(text: str) -> str:
    return _FRONT_MATTER.sub("", text, count=1)


def cap_text(text: str, limit: int = MAX_CHARS) -> str:
    """Keep 70 % head and 20 % tail of an over-long text with a marker between them."""
    if len(text) <= limit:
        return text
    head = text[: int(limit * HEAD_SHARE)]
    tail = text[-int(limit * TAIL_SHARE) :]
    omitted = len(text) - len(head) - len(tail)
    return f"{head}\n\n[... {omitted:,} characters truncated ...]\n\n{tail}"


def load_context_file(path: Path) -> ContextFile:
    """Read, strip, scan and cap one file; unreadable files are reported in the placeholder."""
    try:
        raw = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        return ContextFile(path, f"[SKIPPED: {path.name} could not be read ({exc.strerror}).]", blocked=True)
    body = strip_front_matter(raw).strip()
    threats = scan(body)
    if threats:
        ids = describe(threats)
        return ContextFile(
            path, f"[BLOCKED: {path.name} contained potential prompt injection ({ids}). Content not loaded.]", True
        )
    return ContextFile(path, cap_text(body))


def context_layer(cwd: Path) -> str:
    """The context layer text for ``cwd`` ("" when no file applies)."""
    path = find_context_file(cwd)
    if path is None:
        return ""
    loaded = load_context_file(path)
    return f"# Project context ({path.name})\n\n{loaded.text}"
