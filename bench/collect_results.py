"""Gather every benchmark's figures (``bench/results/*.md``) into ``bench/RESULTS.md``.

Each bench script writes its own section file so benches can run independently; this puts
them in one page, in a fixed order, with the machine they were measured on.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ORDER = ["store", "memory", "prefix", "scrub", "compression", "search_summarize", "redact", "tui", "tui_browse"]


def main() -> None:
    sections = {p.stem: p for p in (BENCH / "results").glob("*.md")}
    names = [n for n in ORDER if n in sections] + sorted(set(sections) - set(ORDER))
    header = (
        "# Benchmark results\n\n"
        f"Measured on {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()} "
        "(the project's CI machine class). Each section names its script and date; targets are ratios "
        "measured within one run, so they hold on a loaded machine where absolute times do not.\n"
        "Regenerate a section with `.venv/bin/python -m bench.<script>`, then this page with "
        "`.venv/bin/python -m bench.collect_results`.\n"
    )
    body = "\n".join(sections[n].read_text(encoding="utf-8").replace("\n# ", "\n## ").replace("# ", "## ", 1) for n in names)
    (BENCH / "RESULTS.md").write_text(header + "\n" + body, encoding="utf-8")


if __name__ == "__main__":
    main()
