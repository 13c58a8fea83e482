"""The learned layer's threshold rule (scripts/train_threat_model.py): which benign rows calibrate it."""

from __future__ import annotations

import pytest

from scripts import train_threat_model as trainer


@pytest.mark.parametrize(("group", "calibrates"), [
    ("own:train_wording48.txt:12", True),
    ("own:train_wording5.txt:3", True),
    ("own:train_wording49.txt:1", False),
    ("own:train_wording120.txt:7", False),
    ("own:benign_en.txt:4", True),
    ("loc:de:12", True),
    ("readme:rich", True),
])
def test_only_files_up_to_the_frozen_reference_calibrate(group: str, calibrates: bool) -> None:
    assert trainer.calibrates(group) is calibrates


def _short_benign(scores: list[float]) -> list[tuple[float, int, int]]:
    return [(p, 0, 100) for p in scores]


def test_benign_rows_outside_the_reference_never_raise_the_threshold() -> None:
    ordinary = _short_benign([0.91] * 999 + [0.95])
    hard = _short_benign([0.99] * 500)
    reference = [True] * len(ordinary) + [False] * len(hard)
    short, long = trainer.choose_thresholds(ordinary + hard, 0.001, reference)
    assert short == (0, pytest.approx(0.91, abs=1e-5))  # one flag allowed in 1,000: the 0.95 row
    assert long == (400, trainer.FLOOR)  # no long benign rows: the floor
    assert trainer.choose_thresholds(ordinary + hard, 0.001, [True] * len(reference))[0][1] > 0.99


def test_the_threshold_never_falls_below_the_floor() -> None:
    rows = _short_benign([0.1] * 100)
    assert trainer.choose_thresholds(rows, 0.004, [True] * 100)[0] == (0, trainer.FLOOR)
