"""Generate ``engine/security/unicode_tables.py``: the data the threat scanner folds text with.

Two tables, both derived from Unicode data at build time so the scanner imports plain literals:

* ``IGNORABLE``: ranges of code points that render as nothing — every format character
  (General_Category Cf, from :mod:`unicodedata`) plus the rest of Default_Ignorable_Code_Point
  (Unicode's DerivedCoreProperties: Other_Default_Ignorable_Code_Point and the variation
  selectors, listed below), minus the prepended concatenation marks, which are visible.
* ``CONFUSABLES``: letters that look like an ASCII letter (Cyrillic ``о``, Greek ``ο``, Armenian
  ``օ``, Cherokee, IPA, Latin look-alikes …) mapped to that letter — the single-letter part of the
  Unicode TR#39 confusables data restricted to scripts that pass for Latin, which is what an
  attacker uses to hide ``Ignоre all previous instructions`` from a keyword match. The data comes
  from ``--confusables``: Unicode's own ``confusables.txt`` (https://www.unicode.org/Public/security/)
  or the ``confusable-homoglyphs`` package's ``confusables.json`` (generated from it; the package
  is on PyPI and needed only here, not at run time: ``pip download --no-deps
  confusable-homoglyphs==3.3.1`` and unzip it). The committed table was made from that package.

Offline, with neither file at hand, run it with ``--offline``: the confusables then come from
``HAND_CONFUSABLES`` below (written by hand from the TR#39 data for the scripts attackers use:
Cyrillic, Greek, Armenian, Cherokee and Latin look-alikes) plus the small-capital and IPA letters
that ``unicodedata`` names after the letter they copy. A full build is the union of both (TR#39
wins where they differ; a test checks they never do), so an offline rebuild folds fewer
look-alikes, never different ones.

    .venv/bin/python scripts/gen_unicode_tables.py --confusables PATH/confusables.json
    .venv/bin/python scripts/gen_unicode_tables.py --offline
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "engine" / "security" / "unicode_tables.py"

# Default_Ignorable_Code_Point beyond Cf (DerivedCoreProperties.txt, Unicode 15): Other_DI + Variation_Selector.
OTHER_IGNORABLE = [(0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
                   (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF)]
# Cf characters that are visible (prepended concatenation marks and the interlinear annotation marks).
VISIBLE_CF = {0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD,
              0x110CD, 0xFFF9, 0xFFFA, 0xFFFB}
# Scripts whose letters pass for Latin ones; a look-alike from another script (a Devanagari zero,
# a CJK stroke) is not folded.
LOOKALIKE_SCRIPTS = ("CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "LATIN", "LISU", "MODIFIER", "SMALL",
                     "GEORGIAN", "OLD ITALIC", "GOTHIC", "DESERET", "VAI", "CANADIAN", "TIFINAGH", "RUNIC")


# Look-alike → ASCII letter, by hand from TR#39 (the offline source; see the module docstring).
HAND_CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "г": "r", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ь": "b", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ү": "y",
    "ӏ": "i", "ѡ": "w", "ѵ": "v",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "h", "ι": "i", "κ": "k", "μ": "m", "ν": "v", "ο": "o", "ρ": "p",
    "σ": "c", "τ": "t", "υ": "u", "χ": "x", "ζ": "z",
    # Armenian
    "ա": "w", "գ": "q", "հ": "h", "ո": "n", "ս": "u", "օ": "o", "ց": "g", "ք": "f",
    # Latin look-alikes and IPA
    "ı": "i", "ɑ": "a", "ɡ": "g", "ɩ": "i", "ɪ": "i", "ʀ": "r", "ʏ": "y", "ᴄ": "c", "ᴏ": "o", "ᴜ": "u", "ᴠ": "v",
    "ᴡ": "w", "ᴢ": "z", "ꜱ": "s",
}


def offline_confusables() -> dict[str, str]:
    """``HAND_CONFUSABLES`` plus every letter ``unicodedata`` names a small capital of an ASCII letter."""
    table = dict(HAND_CONFUSABLES)
    for cp in range(0x80, 0x20000):
        name = unicodedata.name(chr(cp), "")
        if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name.rsplit(" ", 1)[1]) == 1:
            key = unicodedata.normalize("NFKC", chr(cp)).casefold()
            if len(key) == 1 and ord(key) >= 0x80:
                table.setdefault(key, name.rsplit(" ", 1)[1].lower())
    return dict(sorted(table.items()))


def ignorable_ranges() -> list[tuple[int, int]]:
    points = {cp for cp in range(0x110000) if unicodedata.category(chr(cp)) == "Cf" and cp not in VISIBLE_CF}
    for lo, hi in OTHER_IGNORABLE:
        points.update(range(lo, hi + 1))
    ranges: list[tuple[int, int]] = []
    for cp in sorted(points):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


def _pairs(path: Path) -> dict[str, list[str]]:
    """ASCII letter → its single-character look-alikes, from confusables.txt or confusables.json."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix == ".json":
        return {letter: [item["c"] for item in items] for letter, items in json.loads(text).items()}
    out: dict[str, list[str]] = {}
    for line in text.splitlines():  # "0430 ;\t0061 ;\tMA\t# ( а → a ) CYRILLIC SMALL LETTER A → LATIN SMALL LETTER A"
        fields = [f.strip() for f in line.split("#", 1)[0].split(";")]
        if len(fields) < 2 or not fields[0] or " " in fields[0] or " " in fields[1]:
            continue
        source, target = chr(int(fields[0], 16)), chr(int(fields[1], 16))
        out.setdefault(target, []).append(source)
    return out


def confusables(path: Path) -> dict[str, str]:
    data = _pairs(path)
    table: dict[str, str] = {}
    for letter in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ":
        for char in data.get(letter, []):
            if len(char) != 1 or ord(char) < 0x80:
                continue
            name = unicodedata.name(char, "")
            if not name.startswith(LOOKALIKE_SCRIPTS):
                continue
            # The scanner folds after NFKC and casefold, so key on that form of the look-alike.
            key = unicodedata.normalize("NFKC", char).casefold()
            if len(key) != 1 or ord(key) < 0x80:
                continue
            table.setdefault(key, letter.lower())
    return dict(sorted(table.items()))


def _literal(char: str) -> str:
    cp = ord(char)
    return f'"\\u{cp:04x}"' if cp <= 0xFFFF else f'"\\U{cp:08x}"'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--confusables", type=Path, help="Unicode's confusables.txt, or confusables.json of confusable-homoglyphs")
    source.add_argument("--offline", action="store_true", help="the hand-written table and unicodedata only")
    args = parser.parse_args()
    ranges = ignorable_ranges()
    table = offline_confusables()
    if not args.offline:  # TR#39 first; the offline letters it lacks (small capitals) are kept too
        table = dict(sorted({**table, **confusables(args.confusables)}.items()))
    origin = ("the hand-written table of scripts/gen_unicode_tables.py and unicodedata (--offline)" if args.offline
              else "TR#39 confusables (via confusable-homoglyphs 3.3.1) and the script's hand-written table"
              if args.confusables.suffix == ".json" else f"TR#39 confusables ({args.confusables.name}) and the script's hand-written table")
    lines = [
        '"""Generated by scripts/gen_unicode_tables.py — do not edit; re-run the script instead.',
        "",
        f"Unicode {unicodedata.unidata_version} (Python's unicodedata) for IGNORABLE; {origin}",
        "for CONFUSABLES. See the script for what each table holds.",
        '"""',
        "",
        "# (first, last) code points of every default-ignorable character: Cf and Default_Ignorable_Code_Point.",
        "IGNORABLE: tuple[tuple[int, int], ...] = (",
    ]
    for i in range(0, len(ranges), 4):
        lines.append("    " + " ".join(f"(0x{lo:04X}, 0x{hi:04X})," for lo, hi in ranges[i : i + 4]))
    lines += [")", "", "# Look-alike letter (after NFKC + casefold) → the ASCII letter it passes for.",
              "CONFUSABLES: dict[str, str] = {"]
    items = list(table.items())
    for i in range(0, len(items), 8):
        lines.append("    " + " ".join(f"{_literal(k)}: {json.dumps(v)}," for k, v in items[i : i + 8]))
    lines += ["}", ""]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(ranges)} ignorable ranges, {len(table)} confusables", file=sys.stderr)


if __name__ == "__main__":
    main()
