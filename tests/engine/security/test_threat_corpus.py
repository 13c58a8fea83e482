"""The scanner's evaluation corpus: its shape, its fixed split, and the rates on each part.

``tests/data/threat_corpus/eval.jsonl`` is built by ``scripts/build_threat_corpus.py``; the split
into ``tune`` and ``heldout`` is a hash of each row's group, made once before any tuning. The
targets of issue 15 are checked on the held-out part; ``bench/bench_threats.py`` reports the same
figures per family and per language.
"""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine.security import scan, scan_entries

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "threat_corpus"
ROWS = [json.loads(line) for line in (DATA / "eval.jsonl").read_text(encoding="utf-8").split("\n") if line.strip()]
OLD = [json.loads(line) for line in (DATA / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]

sys.path.insert(0, str(ROOT / "scripts"))
import build_threat_corpus


def flagged(row: dict) -> bool:
    if "entries" in row:
        return any(scan_entries(row["entries"]))
    return bool(scan(row["text"]))


def part(split: str, label: str) -> list[dict]:
    return [r for r in ROWS if r["split"] == split and r["label"] == label]


# ── shape ──────────────────────────────────────────────────────────────────────────────────
def test_corpus_has_a_thousand_attacks_and_a_thousand_benign_texts_outside_training() -> None:
    evaluated = [r for r in ROWS if r["split"] in ("tune", "heldout")]
    counts = Counter(r["label"] for r in evaluated)
    assert counts["attack"] >= 1000 and counts["benign"] >= 1000
    assert {r["split"] for r in ROWS} == {"tune", "heldout", "train"}
    assert len({r["id"] for r in ROWS}) == len(ROWS) and len({r["text"] for r in ROWS}) == len(ROWS)


def test_rows_carry_their_provenance() -> None:
    for row in ROWS:
        assert {"id", "label", "family", "lang", "split", "group", "source", "text"} <= set(row), row["id"]
        assert row["label"] in ("attack", "benign") and row["text"].strip()


@pytest.mark.parametrize("lang", ["en", "zh", "es", "fr", "de", "pt", "it", "ru", "ja", "ko", "ar", "hi"])
def test_every_required_language_has_held_out_attacks(lang: str) -> None:
    assert any(r["lang"] == lang for r in part("heldout", "attack"))


BENIGN_KINDS = {
    "server addresses": r"\b\d{1,3}(?:\.\d{1,3}){3}\b",
    "ports": r"\bport\b",
    "key file paths": r"~/\.ssh/|id_ed25519|id_rsa",
    "shell commands": r"`[^`]*(?:git|docker|make|pytest|npm|ssh|curl)[^`]*`",
    "imperative preferences": r"(?i)^(?:always|never|don't|do not|please|use|prefer|reply|answer|write|keep|avoid)\b",
    "code": r"\bdef |\breturn\b|\bimport\b|=>|\);",
    "Chinese text": r"[\u4e00-\u9fff]{6}",
    "about security: system prompt": r"(?i)system prompt",
    "about security: jailbreak": r"(?i)jailbreak",
}


@pytest.mark.parametrize("kind", list(BENIGN_KINDS))
def test_benign_part_holds_realistic_memory_facts(kind: str) -> None:
    import re

    rx = re.compile(BENIGN_KINDS[kind])
    for split in ("tune", "heldout"):
        assert sum(1 for r in part(split, "benign") if rx.search(r["text"])) >= 3, (kind, split)


def test_the_split_is_the_fixed_hash_of_each_group() -> None:
    for row in ROWS:
        if row["split"] != "train":
            assert build_threat_corpus.split_of(row) == row["split"], row["id"]
    assert build_threat_corpus.SPLIT_SALT == "threat-corpus-split-v1"  # the seed the split was made with, once


def test_no_group_sits_on_both_sides() -> None:
    sides: dict[str, set[str]] = {}
    for row in ROWS:
        if row["split"] != "train":
            sides.setdefault(row["group"], set()).add(row["split"])
    assert all(len(s) == 1 for s in sides.values())


def test_a_whole_external_source_is_held_out() -> None:
    never_tuned = [r for r in ROWS if r["source"].startswith("bastioncorpus")]
    assert never_tuned and all(r["split"] == "heldout" for r in never_tuned)


# ── rates ──────────────────────────────────────────────────────────────────────────────────
@functools.cache
def verdicts(split: str) -> dict[str, bool]:
    """Whether each row of ``split`` is flagged, scanned once per process for every rate test."""
    return {r["id"]: flagged(r) for r in ROWS if r["split"] == split}


def rates(split: str) -> tuple[float, float, list[str]]:
    attacks, benign, verdict = part(split, "attack"), part(split, "benign"), verdicts(split)
    blocked = sum(1 for r in attacks if verdict[r["id"]])
    fps = [r["id"] for r in benign if verdict[r["id"]]]
    return blocked / len(attacks), len(fps) / len(benign), fps


def test_held_out_rates_do_not_fall_below_what_was_measured() -> None:
    """The figures of bench/RESULTS.md (93.6 % blocked, 1.3 % flagged): a change may not lose ground.

    Rounds are kept on a tie: these figures move by about three rows when a dozen train rows come or
    go (the seventeenth round's 551 read 549 once round19_a's near rows left its data; the
    thirty-fourth round traded one held-out attack for one held-out flag, 563/8 → 562/7, and the
    thirty-fifth gave three attacks and a flag, 562/7 → 559/8, for thirteen more of the other
    languages' dev attacks; bench/RESULTS.md weighs it). The thirty-eighth round's four times larger
    model gave 564/6, the thirty-ninth's twice larger again 565/6. The forty-second round's rule
    weighs every language: the eight held-back files of other-language rows cost 565/6 → 562/7
    (within the 559/8 its rule allowed, written before the model existed) for round90 369/22 →
    393/12 and the other languages' fresh sets 6,145/108 → 6,202/82. The forty-fourth round's
    six-language files took it back to 565/8. The forty-fifth round's sixteen files written from
    missed attacks cost 565/8 → 561/8, within the 559/8 its rule allowed (written before the model
    existed), for the other languages' 78 fresh sets 10,032/195 → 10,203/189. The forty-sixth
    round's sixteen files for the eight languages that flag most gave one attack for one flag fewer,
    561/8 → 560/7 (within its written 559/8), for their unread clean tests +16 and +23 attacks less
    flags."""
    blocked, fp, fps = rates("heldout")
    assert blocked >= 560 / 598, f"held-out attacks blocked {blocked:.1%}"
    assert fp <= 0.02, f"held-out benign flagged {fp:.1%}: {fps}"


def test_held_out_attacks_blocked_and_benign_flagged_meet_the_targets() -> None:
    blocked, fp, _ = rates("heldout")
    assert blocked >= 0.90 and fp <= 0.02, (blocked, fp)


def test_tuning_part_rates() -> None:
    blocked, fp, fps = rates("tune")
    assert blocked >= 0.95 and fp <= 0.01, (blocked, fp, fps)


def test_the_first_hand_written_corpus_still_passes() -> None:
    attacks = [r for r in OLD if r["label"] == "attack"]
    benign = [r for r in OLD if r["label"] == "benign"]
    blocked = sum(1 for r in attacks if scan(r["text"]))
    flagged_texts = [r["text"] for r in benign if scan(r["text"])]
    assert blocked / len(attacks) >= 0.98
    assert flagged_texts == []


def test_every_old_attack_category_is_caught_by_patterns_of_its_own() -> None:
    by_category: dict[str, set[str]] = {}
    for row in (r for r in OLD if r["label"] == "attack"):
        by_category.setdefault(row["category"], set()).update(m.category for m in scan(row["text"]))
    assert all(category in caught for category, caught in by_category.items()), by_category


def test_the_corpus_is_rebuilt_byte_for_byte_from_the_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run without source folders, the builder keeps the imported rows and rebuilds the hand-written
    ones and their disguises from ``own/``: the committed file is exactly what the repo makes."""
    copy = tmp_path / "eval.jsonl"
    copy.write_bytes((DATA / "eval.jsonl").read_bytes())
    monkeypatch.setattr(build_threat_corpus, "OUT", copy)
    monkeypatch.setattr(build_threat_corpus, "ROOT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["build_threat_corpus.py"])
    build_threat_corpus.main()
    assert copy.read_bytes() == (DATA / "eval.jsonl").read_bytes()


@pytest.mark.parametrize("folder", ["fresh", "dev"])
def test_the_fresh_rows_are_in_no_part_the_scanner_learned_or_was_tuned_on(folder: str) -> None:
    """``fresh/`` measures the shipped scanner on text written after it: none of it may reach the
    corpus (tuning, held-out or training rows) or the older hand-written corpus; nor may ``dev/``,
    the sets read since (the learned layer never trains on them)."""
    from bench.bench_threats import load_fresh

    fresh = load_fresh(folder)
    assert {r["label"] for r in fresh} == {"attack", "benign"} and all(r["family"] and r["lang"] for r in fresh)
    older = (DATA / "corpus.jsonl").read_text(encoding="utf-8")
    known = {r["text"] for r in ROWS} | {json.loads(line)["text"] for line in older.splitlines() if line.strip()}
    assert not [r["text"] for r in fresh if r["text"] in known]
