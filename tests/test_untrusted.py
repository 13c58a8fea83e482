"""``visible``: every control character shown, nothing else changed (property tests)."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from hermes_tui.untrusted import VisibleWriter, visible, visible_line
from tests.hostile_text import leaks

any_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF))  # surrogates included


@given(any_text)
def test_nothing_a_terminal_would_obey_survives(text: str) -> None:
    shown = visible(text)
    assert leaks(shown, terminal=False) == []
    shown.encode("utf-8")  # no lone surrogate left to crash a write


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")))
def test_text_without_controls_is_returned_as_it_is(text: str) -> None:
    assert visible(text) is text


@given(any_text)
def test_newlines_and_tabs_stay_and_one_line_has_neither(text: str) -> None:
    assert visible(text).count("\n") == text.replace("\r\n", "\n").count("\n")
    assert "\n" not in visible_line(text) and "\t" not in visible_line(text)


def test_how_each_kind_of_control_is_shown() -> None:
    assert visible("a\x1b]0;x\x07b") == "a␛]0;x␇b"
    assert visible("nul\x00 del\x7f c1\x9b bidi\u202e iso\u2066") == "nul␀ del␡ c1\\x9b bidi\\u202e iso\\u2066"
    assert visible("crlf\r\nlone\rcr") == "crlf\nlone␍cr"
    assert visible("lone \ud800 surrogate") == "lone \ufffd surrogate"
    assert visible("中文 and émoji 🎉\ttab") == "中文 and émoji 🎉\ttab"


def test_the_writer_shows_controls_and_passes_the_rest() -> None:
    stream = io.StringIO()
    writer = VisibleWriter(stream)
    assert writer.write("ok\x1b[2J\n") == len("ok\x1b[2J\n")
    writer.flush()
    assert stream.getvalue() == "ok␛[2J\n" and writer.isatty() is False
