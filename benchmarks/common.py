"""Timing helpers for the benchmarks: interleaved runs, medians, ratios against a baseline."""

import statistics
import time


def per_call(fn, calls: int) -> float:
    """Seconds per call of ``fn`` averaged over ``calls`` calls."""
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def compare(candidate, baseline, calls: int, rounds: int = 15) -> tuple[float, float, float]:
    """Median seconds per call of candidate and baseline, run alternately, and their ratio.

    Alternating the two in every round means a noisy neighbour slows both alike,
    so the ratio stays meaningful on a shared machine.
    """
    cand, base = [], []
    for _ in range(rounds):
        cand.append(per_call(candidate, calls))
        base.append(per_call(baseline, calls))
    c, b = statistics.median(cand), statistics.median(base)
    return c, b, c / b
