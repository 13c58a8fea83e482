"""Timing helpers every bench uses: one place for how a figure is taken from repeated runs."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def run_times(fn: Callable[[], object], runs: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Seconds each of ``runs`` calls of ``fn`` took, by ``clock`` (``time.thread_time`` counts
    only this thread's CPU, which a loaded machine disturbs less)."""
    times = []
    for _ in range(runs):
        start = clock()
        fn()
        times.append(clock() - start)
    return times


def best_of(fn: Callable[[], object], runs: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """The fastest run: the figure least disturbed by whatever else the machine did."""
    return min(run_times(fn, runs, clock))


def median_of(fn: Callable[[], object], runs: int, *, warm_up: bool = False) -> float:
    """The median run; ``warm_up`` runs ``fn`` once first (caches warm) and does not count it."""
    if warm_up:
        fn()
    return statistics.median(run_times(fn, runs))


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]
