"""Keep every bench run: a report is appended to the bench's history, never written over it.

``bench/results/<name>.md`` is a bench's full history (earlier runs, before/after comparisons,
experiments rolled back), so a new run adds to it. ``bench/RESULTS.md`` is curated by hand from
the latest run and is not touched here.
"""

from __future__ import annotations

import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def append_run(name: str, report: str) -> Path:
    """Append ``report`` under a dated ``## Run of …`` heading to ``results/<name>.md``
    (created if missing) and return that file's path."""
    path = RESULTS / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with path.open("a", encoding="utf-8") as out:
        out.write(f"\n## Run of {stamp}\n\n{report}" + ("" if report.endswith("\n") else "\n"))
    return path


def publish(name: str, report: str, *, record: bool) -> None:
    """Print ``report`` and, unless ``record`` is off (``--no-record``), append it to the history."""
    print(report)
    if record:
        append_run(name, report)
