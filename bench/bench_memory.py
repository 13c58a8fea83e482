"""Memory bench: threat-scanner throughput, adversarial scaling, corpus block / false-positive rates.

Ratios are measured within one run (best of N repeats), so they hold across machines:
* scanner time on 1 MB of mixed text vs one ``re.search`` for an absent literal (and MB/s);
* scanner time on 1 MB vs 100 kB of adversarial input (must stay ≤ 12×: linear, not quadratic);
* the labelled corpus: share of attacks blocked, share of benign entries flagged.

Run: ``.venv/bin/python -m bench.bench_memory`` (about a minute). The report is printed and appended
to the bench's history, ``bench/results/memory.md``; ``bench/RESULTS.md`` is updated by hand.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import time
from pathlib import Path

from bench.record import append_run
from bench.timing import best_of
from engine.security import scan

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT / "tests" / "data" / "threat_corpus" / "corpus.jsonl"
REPEATS = 3


def fill(parts: list[str], size: int) -> str:
    text, n = [], 0
    while n < size:
        for part in parts:
            text.append(part)
            n += len(part)
    return "".join(text)[:size]


def mixed_text(size: int, benign: list[str]) -> str:
    """Memory-like entries interleaved with the project's own code and docs (context-file-like)."""
    sources = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "engine").rglob("*.py"))]
    # Prose as well as code, all from this repo: the README and the scanner package's docstring
    # (the bench once read a design note from outside the checkout).
    sources += [(ROOT / "README.md").read_text(encoding="utf-8"), sys.modules["engine.security"].__doc__ or ""]
    parts = []
    for i, src in enumerate(sources):
        parts.append(src)
        parts.append("\n§\n".join(benign[i % len(benign):] + benign[: i % len(benign)]) + "\n")
    return fill(parts, size)


def adversarial_text(size: int) -> str:
    """Long space runs, ``sk-`` repeats, nested tags and dense trigger words: backtracking bait."""
    unit = (" " * 2000 + "sk-" * 300 + "<!--<div <span " * 60 + "<!--" * 100 + "ignore the " * 50
            + "curl -d " * 50 + "send the key to " * 30 + "忽略之前" * 40 + "$" * 200 + "\n")
    return fill([unit], size)


def corpus_figures() -> dict[str, object]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    out: dict[str, object] = {}
    for lang in ("en", "zh", None):
        subset = [r for r in rows if lang is None or r["lang"] == lang]
        attacks = [r for r in subset if r["label"] == "attack"]
        benign = [r for r in subset if r["label"] == "benign"]
        blocked = sum(1 for r in attacks if scan(r["text"]))
        flagged = sum(1 for r in benign if scan(r["text"]))
        out[lang or "all"] = (blocked, len(attacks), flagged, len(benign))
    return out


def main() -> None:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    benign = [r["text"] for r in rows if r["label"] == "benign"]
    mb = 1_000_000

    mixed = mixed_text(mb, benign)
    literal = re.compile("zq9xj-not-there")
    t_scan = best_of(lambda: scan(mixed), REPEATS)
    t_lit = best_of(lambda: literal.search(mixed), 10)

    adv_small, adv_big = adversarial_text(100_000), adversarial_text(mb)
    t_small = best_of(lambda: scan(adv_small), 20)  # minima estimate the unloaded time of each size
    t_big = best_of(lambda: scan(adv_big), 5)

    figures = corpus_figures()
    lines = [
        "# Memory bench (bench/bench_memory.py)",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: 2 cores, {platform.machine()}; "
        f"python {platform.python_version()}",
        f"- best of {REPEATS} runs (adversarial: 20 × 100 kB, 5 × 1 MB); load average at the end {os.getloadavg()[0]:.1f} "
        "(the machine is shared: absolute times vary, the in-run ratios are the figures to compare)",
        "",
        "| measure | value |",
        "|---|---|",
        f"| scanner, 1 MB mixed text | {t_scan * 1000:.0f} ms ({1 / t_scan:.2f} MB/s) |",
        f"| one `re.search` for an absent literal, same 1 MB | {t_lit * 1000:.2f} ms |",
        f"| ratio scanner / single re.search | {t_scan / t_lit:.0f}× |",
        f"| scanner, 100 kB adversarial | {t_small * 1000:.1f} ms |",
        f"| scanner, 1 MB adversarial | {t_big * 1000:.1f} ms ({1 / t_big:.2f} MB/s) |",
        f"| ratio 1 MB / 100 kB adversarial (limit 12×) | {t_big / t_small:.1f}× |",
    ]
    for key, (blocked, attacks, flagged, benign_n) in figures.items():
        lines.append(f"| corpus {key}: attacks blocked | {blocked}/{attacks} = {blocked / attacks:.1%} |")
        lines.append(f"| corpus {key}: benign flagged (false positives) | {flagged}/{benign_n} = {flagged / benign_n:.1%} |")
    report = "\n".join(lines) + "\n"
    print(report)
    append_run("memory", report)


if __name__ == "__main__":
    main()
