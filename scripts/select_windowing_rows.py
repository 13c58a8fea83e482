"""Choose the train rows that ``test_windowing_never_hides_a_match`` checks, and write
``tests/data/threat_corpus/windowing_rows.json``.

The test searches every pattern in every view of the texts it is given, at ~28 µs a character of
view. It used to take a fixed third of ``eval.jsonl``; the train rows grow each round (a third held
4.3 M characters of views and cost 120 s of CPU, 45 % of the suite), and a random sample small
enough to be cheap left out rows that are a pattern's only matches. So this script searches every
train row once and keeps, per pattern, a few of the rows it matches: up to ``MEANT`` whose match is
an attack (the windowed search must find those) and ``REPORTED`` whose match is reported speech,
each with a different matched string, shortest rows first. The test always checks the first
corpus and every evaluated (non-train) row as well; a pattern no train row matches is listed as such.

Run it after changing a pattern or rebuilding ``eval.jsonl``; the test says when the file is stale
(a pattern missing from it, or a listed row that is gone or no longer matches).

    .venv/bin/python scripts/select_windowing_rows.py
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from pathlib import Path

from engine.security import normalize, threats
from engine.security.families import PATTERNS

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "threat_corpus"
OUT = DATA / "windowing_rows.json"
MEANT = 4
REPORTED = 2

Hit = tuple[str, bool, str]  # pattern id, meant (not reported speech), matched string


def row_key(text: str) -> str:
    """A row's name in the file: stable across rebuilds that reorder ``eval.jsonl``."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def train_texts() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "eval.jsonl").read_text(encoding="utf-8").split("\n") if line.strip()]
    return [row["text"] for row in rows if row["split"] == "train"]


def hits(text: str) -> list[Hit]:
    found = []
    for _, view in normalize.views(text):
        for pattern in PATTERNS:
            if (hit := pattern.regex.search(view)) is not None:
                meant = threats._first_meant(pattern, view, 0, len(view)) is not None
                found.append((pattern.pattern_id, meant, hit.group()))
    return found


def choose(texts: list[str], found: list[list[Hit]]) -> dict[str, list[str]]:
    """Per pattern, the shortest rows with distinct matched strings, ``MEANT`` + ``REPORTED``."""
    chosen: dict[str, list[str]] = {p.pattern_id: [] for p in PATTERNS}
    seen: set[tuple[str, str]] = set()
    quota = {(p.pattern_id, meant): MEANT if meant else REPORTED for p in PATTERNS for meant in (True, False)}
    for index in sorted(range(len(texts)), key=lambda i: (len(texts[i]), row_key(texts[i]))):
        key = row_key(texts[index])
        for pattern_id, meant, matched in found[index]:
            if quota[pattern_id, meant] and (pattern_id, matched) not in seen and key not in chosen[pattern_id]:
                quota[pattern_id, meant] -= 1
                seen.add((pattern_id, matched))
                chosen[pattern_id].append(key)
    return chosen


def main() -> None:
    texts = train_texts()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        found = pool.map(hits, texts, chunksize=200)
    chosen = choose(texts, found)
    listed = {pattern_id: keys for pattern_id, keys in chosen.items() if keys}
    payload = {
        "about": "train rows test_windowing_never_hides_a_match checks, by pattern; "
                 "made by scripts/select_windowing_rows.py",
        "rows": listed,
        "matches_no_train_row": sorted(pattern_id for pattern_id, keys in chosen.items() if not keys),
    }
    OUT.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    rows = {key for keys in listed.values() for key in keys}
    print(f"{OUT.name}: {len(rows)} rows for {len(listed)} patterns; "
          f"{len(payload['matches_no_train_row'])} patterns match no train row")


if __name__ == "__main__":
    main()
