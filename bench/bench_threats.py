"""Threat-scanner bench (issue 15): held-out rates per family and language, entry speed, linear cost.

* The corpus ``tests/data/threat_corpus/eval.jsonl`` (``scripts/build_threat_corpus.py``): attacks
  blocked and benign texts flagged on the ``tune`` part and on the ``heldout`` part, the held-out
  part broken down by family, by language and by source (bastioncorpus is a whole source never
  tuned on), with and without the learned layer (does it earn its place?). Rows with ``entries``
  are scanned as neighbouring memory entries (``scan_entries``).
* The fresh rows of ``tests/data/threat_corpus/fresh/``, written after the scanner they measure and
  never tuned or trained on: the same rates, by family and by language; and the totals of
  ``dev/``, sets that were fresh once and have since been read and tuned on.
* Speed of a typical memory entry: every evaluated benign text of 150–250 characters, each timed
  as the best of ``ENTRY_REPEATS`` scans by this thread's CPU clock (``time.thread_time``: the
  machine is shared), reported as median and 90th percentile; the target is a median under 1 ms.
* Linear cost: 1 MB against 100 kB of adversarial input (``bench.bench_memory.adversarial_text``),
  the median ratio of paired runs (``linear_cost``), at most 12×; and the throughput on 100 kB of
  the repo's code and docs.
* ``engine.security.threats._scan`` is timed, ``normalize.views``' memory emptied first (``scan``).

Run: ``.venv/bin/python -m bench.bench_threats`` (a few minutes). The report is printed and appended
to ``bench/results/threats.md``; ``bench/RESULTS.md`` is updated by hand.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections import defaultdict
from pathlib import Path

from bench.bench_memory import adversarial_text, mixed_text
from bench.record import append_run
from bench.timing import best_of, percentile
from engine.security import scan_entries
from engine.security import normalize
from engine.security.threats import _scan


def scan(text: str) -> list:
    """The scanner without its memo of short texts nor ``normalize.views``' memory of the last few
    texts: every timed scan pays for all its work. (A repeated 100 kB scan found its chunks' views
    remembered while a 1 MB scan, of more chunks than the memory holds, did not: the linear-cost
    ratio read 12.4–12.7× with the memory and 10.3–10.5× without.)"""
    normalize._remembered_views.cache_clear()
    return _scan(text)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "threat_corpus"
ENTRY_REPEATS = 15


def load() -> list[dict]:
    return [json.loads(line) for line in (DATA / "eval.jsonl").read_text(encoding="utf-8").split("\n") if line.strip()]


def hits(row: dict) -> list:
    if "entries" in row:
        return [m for found in scan_entries(row["entries"]) for m in found]
    return scan(row["text"])


def pct(n: int, d: int) -> str:
    return f"{n}/{d} = {n / d:.1%}" if d else "–"


def corpus_section(rows: list[dict]) -> list[str]:
    results = {r["id"]: hits(r) for r in rows if r["split"] in ("tune", "heldout")}
    caught = {k: bool(v) for k, v in results.items()}
    caught_patterns = {k: any(m.category != "learned" for m in v) for k, v in results.items()}
    lines = ["| part | attacks blocked | benign flagged | attacks blocked, no learned layer | benign flagged, no learned layer |",
             "|---|---|---|---|---|"]
    for split in ("tune", "heldout"):
        attacks = [r for r in rows if r["split"] == split and r["label"] == "attack"]
        benign = [r for r in rows if r["split"] == split and r["label"] == "benign"]
        lines.append(
            f"| {split} | {pct(sum(caught[r['id']] for r in attacks), len(attacks))} "
            f"| {pct(sum(caught[r['id']] for r in benign), len(benign))} "
            f"| {pct(sum(caught_patterns[r['id']] for r in attacks), len(attacks))} "
            f"| {pct(sum(caught_patterns[r['id']] for r in benign), len(benign))} |")
    held = [r for r in rows if r["split"] == "heldout"]
    for key, title in (("family", "family"), ("lang", "language"), ("source", "source")):
        lines += breakdown(held, caught, key, f"Held-out part by {title}", title)
    return lines


def breakdown(rows: list[dict], caught: dict[str, bool], key: str, heading: str, title: str) -> list[str]:
    """Attacks blocked and benign texts flagged per value of ``key``, largest group first."""
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in rows:
        cell = table[key_of(r, key)]
        if r["label"] == "attack":
            cell[0] += caught[r["id"]]
            cell[1] += 1
        else:
            cell[2] += caught[r["id"]]
            cell[3] += 1
    out = ["", f"{heading}:", "", f"| {title} | attacks blocked | benign flagged |", "|---|---|---|"]
    for name in sorted(table, key=lambda k: (-table[k][1] - table[k][3], k)):
        a, na, b, nb = table[name]
        out.append(f"| {name} | {pct(a, na)} | {pct(b, nb)} |")
    return out


def load_fresh(folder: str = "fresh") -> list[dict]:
    """The rows of ``fresh/*.txt`` (``@ label=… family=… lang=…`` headers, one text a line): a set
    never tuned or trained on, written after the scanner it measures. ``folder="dev"``: the sets that
    were fresh once and have since been read and tuned on (reported apart, never as fresh)."""
    rows: list[dict] = []
    for path in sorted((DATA / folder).glob("*.txt")):
        fields: dict[str, str] = {}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("@ "):
                fields = dict(part.split("=", 1) for part in line[2:].split())
            elif line.strip() and not line.startswith("%%"):
                rows.append({**fields, "text": line, "id": f"{path.name}:{number}", "source": path.name})
    return rows


def fresh_section(rows: list[dict], part: str = "fresh") -> list[str]:
    results = {r["id"]: hits(r) for r in rows}
    caught = {k: bool(v) for k, v in results.items()}
    patterns = {k: any(m.category != "learned" for m in v) for k, v in results.items()}
    attacks = [r["id"] for r in rows if r["label"] == "attack"]
    benign = [r["id"] for r in rows if r["label"] == "benign"]
    lines = ["| part | attacks blocked | benign flagged | attacks blocked, no learned layer | benign flagged, no learned layer |",
             "|---|---|---|---|---|",
             f"| {part} | {pct(sum(caught[i] for i in attacks), len(attacks))} | {pct(sum(caught[i] for i in benign), len(benign))} "
             f"| {pct(sum(patterns[i] for i in attacks), len(attacks))} | {pct(sum(patterns[i] for i in benign), len(benign))} |"]
    return lines + breakdown(rows, caught, "source", "Fresh rows by set", "set") \
        + breakdown(rows, caught, "family", "Fresh rows by family", "family") \
        + breakdown(rows, caught, "lang", "Fresh rows by language", "language")


def key_of(row: dict, key: str) -> str:
    if key == "source":
        return row["source"].split(":", 1)[0]
    return row[key]


PAIRS = 15


def linear_cost() -> tuple[float, float, float]:
    """Best 100 kB and 1 MB adversarial scan times, and the median of ``PAIRS`` ratios, each of one
    1 MB run against the best of the 100 kB runs just before and after it. A ratio of two minima
    taken minutes apart moved from 9× to 14× with unchanged code on a VM whose speed drifts; a
    ratio within one pair does not see the drift."""
    adv_small, adv_big = adversarial_text(100_000), adversarial_text(1_000_000)
    scan(adv_small)
    smalls, bigs, ratios = [], [], []
    for _ in range(PAIRS):
        before = best_of(lambda: scan(adv_small), 3, clock=time.thread_time)
        bigs.append(best_of(lambda: scan(adv_big), 1, clock=time.thread_time))
        smalls.append(min(before, best_of(lambda: scan(adv_small), 3, clock=time.thread_time)))
        ratios.append(bigs[-1] / smalls[-1])
    return min(smalls), min(bigs), statistics.median(ratios)


def speed_section(rows: list[dict]) -> list[str]:
    texts = [r["text"] for r in rows if r["split"] in ("tune", "heldout") and r["label"] == "benign"
             and 150 <= len(r["text"]) <= 250]
    for text in texts:  # warm: patterns compile on first use
        scan(text)
    times = [best_of(lambda t=text: scan(t), ENTRY_REPEATS, clock=time.thread_time) for text in texts]
    typical = "Staging server is 10.0.1.50, SSH port 2222, key ~/.ssh/staging_ed25519; deploy with `make deploy ENV=staging`. Always answer in Chinese and keep replies short; the user prefers tabs."
    t_typical = best_of(lambda: scan(typical), 50, clock=time.thread_time)
    t_small, t_big, ratio = linear_cost()
    old = [json.loads(line) for line in (DATA / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    mixed = mixed_text(100_000, [r["text"] for r in old if r["label"] == "benign"])
    t_mixed = best_of(lambda: scan(mixed), 2, clock=time.thread_time)
    return [
        "| measure | value |",
        "|---|---|",
        f"| {len(texts)} benign texts of 150–250 chars: median / p90 per text | "
        f"{statistics.median(times) * 1000:.3f} ms / {percentile(times, 90) * 1000:.3f} ms |",
        f"| the {len(typical)}-char memory entry in the bench | {t_typical * 1000:.3f} ms |",
        f"| 100 kB adversarial | {t_small * 1000:.0f} ms |",
        f"| 1 MB adversarial | {t_big * 1000:.0f} ms |",
        f"| ratio 1 MB / 100 kB adversarial (limit 12×), median of {PAIRS} paired runs | {ratio:.1f}× |",
        f"| 100 kB of the repo's code and docs | {t_mixed * 1000:.0f} ms ({0.1 / t_mixed:.2f} MB/s) |",
    ]


def main() -> None:
    rows = load()
    start = time.time()
    corpus = corpus_section(rows)
    fresh_rows = load_fresh()
    fresh = fresh_section(fresh_rows)
    dev_rows = load_fresh("dev")
    dev = fresh_section(dev_rows, "dev")[:3]
    speed = speed_section(rows)
    counts = defaultdict(int)
    for r in rows:
        counts[(r["split"], r["label"])] += 1
    lines = [
        "# Threat-scanner bench (bench/bench_threats.py)",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: 2 cores, {platform.machine()}; "
        f"python {platform.python_version()}; load average at the end {os.getloadavg()[0]:.1f}; {time.time() - start:.0f} s",
        f"- corpus: tune {counts[('tune', 'attack')]} attacks / {counts[('tune', 'benign')]} benign, held-out "
        f"{counts[('heldout', 'attack')]} / {counts[('heldout', 'benign')]}, train-only (learned layer) "
        f"{counts[('train', 'attack')]} / {counts[('train', 'benign')]}",
        "",
        *corpus,
        "",
        f"Fresh rows ({len(fresh_rows)}, ``tests/data/threat_corpus/fresh/``: never tuned or trained on):",
        "",
        *fresh,
        "",
        f"Dev rows ({len(dev_rows)}, ``tests/data/threat_corpus/dev/``: fresh once, since read and tuned on):",
        "",
        *dev,
        "",
        "Speed (best of repeated runs, this thread's CPU time):",
        "",
        *speed,
    ]
    report = "\n".join(lines) + "\n"
    print(report)
    append_run("threats", report)


if __name__ == "__main__":
    main()
