"""The generated Unicode tables: reproducible from unicodedata, and consistent with the offline table."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest

from engine.security import normalize, unicode_tables

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
import gen_unicode_tables


@pytest.mark.skipif(f"Unicode {unicodedata.unidata_version} " not in (unicode_tables.__doc__ or ""),
                    reason="the table was generated with another Unicode version than this Python's")
def test_ignorable_ranges_are_what_the_script_derives_from_unicodedata() -> None:
    assert list(unicode_tables.IGNORABLE) == gen_unicode_tables.ignorable_ranges()


def test_the_offline_table_agrees_with_the_committed_one() -> None:
    offline = gen_unicode_tables.offline_confusables()
    assert {k: unicode_tables.CONFUSABLES.get(k) for k in offline} == offline


def test_confusables_map_non_ascii_letters_to_ascii_letters() -> None:
    assert len(unicode_tables.CONFUSABLES) >= 200
    for key, letter in unicode_tables.CONFUSABLES.items():
        assert len(key) == 1 and not key.isascii() and letter.isascii() and letter.isalpha() and letter.islower()
        assert unicodedata.normalize("NFKC", key).casefold() == key  # keyed on the folded form the scanner sees


@pytest.mark.parametrize("lo_hi", unicode_tables.IGNORABLE, ids=lambda r: f"U+{r[0]:04X}-U+{r[1]:04X}")
def test_fold_removes_every_ignorable_code_point(lo_hi: tuple[int, int]) -> None:
    lo, hi = lo_hi
    for cp in {lo, (lo + hi) // 2, hi}:
        assert normalize.fold(f"ab{chr(cp)}cd") == "abcd", f"U+{cp:04X}"


def test_the_skeleton_reads_look_alikes_as_latin() -> None:
    assert normalize.skeleton(normalize.fold("Ignоre аll")) == "ignore all"  # Cyrillic о, а
    assert normalize.skeleton("plain ascii") is None
