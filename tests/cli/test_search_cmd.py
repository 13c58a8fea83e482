"""``hermes-tui search``: grouped human output with highlights, ``--json`` shape, odd queries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_tui.cli import main

pytestmark = pytest.mark.usefixtures("fixed_clock")


def run(home: Path, *args: str) -> int:
    return main(["--home", str(home), "search", *args])


def test_json_shape(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "告警", "--json") == 0
    hits = json.loads(capsys.readouterr().out)
    assert {h["lineage_root"] for h in hits} == {"20261102_083000_3fa9c1"}
    assert set(hits[0]) == {"session_id", "lineage_root", "title", "message_id", "role", "snippet", "timestamp"}
    assert all(">>>告警<<<" in h["snippet"] for h in hits)


def test_grouped_human_output(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "heredoc", "--limit", "3") == 0
    out = capsys.readouterr().out
    assert out.count("[202608") == 3  # one header per lineage
    assert "**heredoc**" in out and "3 months ago" in out


def test_multi_word_and_limit(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "challenge", "dns", "--json", "--limit", "5") == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert hit["session_id"] == "20261112_152000_e6f3a8"


@pytest.mark.parametrize("query", ['"unbalanced', "AND", "foo(", "*", "NOT", "c++", "支", "x" * 10_000])
def test_odd_queries_never_fail(upstream_home: Path, capsys: pytest.CaptureFixture[str], query: str) -> None:
    assert run(upstream_home, query, "--json") == 0
    assert isinstance(json.loads(capsys.readouterr().out), list)


def test_no_matches(upstream_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(upstream_home, "zzzznothing") == 0
    assert "No matches" in capsys.readouterr().out
