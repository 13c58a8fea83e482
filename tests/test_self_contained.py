"""The repository carries everything it reads: no file may point into a ``shared`` folder beside
the checkout (team machines and CI have one, a fresh clone elsewhere does not).

Every text file is checked: the ones git tracks and the untracked ones it does not ignore
(``git ls-files -co --exclude-standard``), or, in a copy without ``.git``, every file the
``.gitignore`` does not exclude. Binary files (a NUL byte in the first 8 kB) are skipped; nothing
else is. The needles below are assembled at run time so that this file does not match itself.
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = "shared"
QUOTE = "[\"']"
NEEDLES = [
    # the parent folder's shared folder as a literal path, either slash
    re.compile(re.escape("..") + r"[/\\]+" + SHARED + r"\b"),
    # a path object built to reach it: ``<x>.parent / "<name>"``, ``<x>.parents[1] / '<name>'``
    re.compile(r"(?:\.parent|\.parents\[\s*\d+\s*\])\s*/\s*" + QUOTE + SHARED + QUOTE),
    # joined from parts: ``join(<x>, "..", "<name>")``, ``joinpath("..", "<name>")``, ``Path("..") / "<name>"``
    re.compile(QUOTE + re.escape("..") + QUOTE + r"\s*\)?\s*[,/]\s*" + QUOTE + SHARED + QUOTE),
    # os.path style: ``join(dirname(<x>), "<name>")``
    re.compile(r"dirname\([^()]*(?:\([^()]*\))?[^()]*\)\s*,\s*" + QUOTE + SHARED + QUOTE),
]


def _gitignore_patterns() -> list[str]:
    path = ROOT / ".gitignore"
    if not path.exists():
        return []
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith(("#", "!"))] + [".git/"]


def _ignored(rel: str, patterns: list[str]) -> bool:
    parts = rel.split("/")
    for pattern in patterns:
        directory = pattern.endswith("/")
        pattern = pattern.strip("/")
        if "/" in pattern:  # anchored at the root: ``bench/_data/``
            if rel == pattern or rel.startswith(pattern + "/") or fnmatch.fnmatch(rel, pattern):
                return True
            continue
        candidates = parts[:-1] if directory else parts
        if any(fnmatch.fnmatch(part, pattern) for part in candidates):
            return True
    return False


def repo_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                                capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        listed = None
    if listed is not None and (ROOT / ".git").exists():
        return [ROOT / name for name in listed.decode("utf-8", "surrogateescape").split("\0") if name]
    patterns = _gitignore_patterns()
    found = []
    for folder, dirs, files in os.walk(ROOT):
        base = Path(folder).relative_to(ROOT).as_posix()
        rel = (lambda name: name) if base == "." else (lambda name: f"{base}/{name}")
        dirs[:] = [d for d in dirs if not _ignored(rel(d) + "/x", patterns)]
        found += [Path(folder) / f for f in files if not _ignored(rel(f), patterns)]
    return found


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:8192]


def offenders(files: list[Path], root: Path = ROOT) -> list[str]:
    out = []
    for path in files:
        if not path.is_file():  # listed but deleted in the work tree
            continue
        data = path.read_bytes()
        if is_binary(data):
            continue
        text = data.decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), 1):
            if any(needle.search(line) for needle in NEEDLES):
                out.append(f"{path.relative_to(root)}:{number}: {line.strip()[:120]}")
    return out


def test_no_file_reaches_a_shared_folder_beside_the_checkout() -> None:
    files = repo_files()
    assert ROOT / "tests" / "conftest.py" in files and Path(__file__).resolve() in files
    assert offenders(files) == []


def test_the_needles_catch_the_known_shapes(tmp_path: Path) -> None:
    up = ".."
    bad = [
        f'HOME = "{up}/{SHARED}/fixtures/home"',
        f"p = ROOT.parent / '{SHARED}' / 'DESIGN.md'",
        f'FIXTURE = Path(__file__).resolve().parents[1].parent / "{SHARED}" / "fixtures"',
        f'x = Path(__file__).parents[2] / "{SHARED}"',
        f'os.path.join(os.path.dirname(ROOT), "{SHARED}", "x")',
        f'os.path.join(ROOT, "{up}", "{SHARED}")',
        f'Path("{up}") / "{SHARED}"',
        f"see {up}\\{SHARED}\\notes.txt",
    ]
    fine = [
        "the machine is shared: absolute times vary",
        f'"{up}/common/{{}}/schema.sql"',
        f'ROOT / "tests" / "fixtures" / "{SHARED}_things"',
        f"{SHARED}_prefix = True",
    ]
    for n, line in enumerate(bad + fine):
        (tmp_path / f"{n}.txt").write_text(line + "\n", encoding="utf-8")
    (tmp_path / "blob.bin").write_bytes(b"\0" + f"{up}/{SHARED}".encode())

    found = offenders(sorted(tmp_path.iterdir()), root=tmp_path)
    assert sorted(int(f.split(".")[0]) for f in found) == list(range(len(bad)))


def test_a_copy_without_git_is_walked_with_the_gitignore() -> None:
    patterns = [".venv/", "__pycache__/", "*.pyc", "bench/_data/", "snapshot_report.html"]
    assert _ignored(".venv/x", patterns) and _ignored("engine/__pycache__/a.py", patterns)
    assert _ignored("engine/a.pyc", patterns) and _ignored("bench/_data/home/state.db", patterns)
    assert _ignored("snapshot_report.html", patterns)
    assert not _ignored("bench/bench_store.py", patterns) and not _ignored("tests/conftest.py", patterns)
