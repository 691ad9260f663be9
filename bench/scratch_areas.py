"""What making the agent calls' scratch areas costs: `python bench/scratch_areas.py [ROUNDS]`.

Runs `bench/run.py`'s `bench_overhead(1)` (mock, breadth 3, depth 2, 30 phases, in
process, source check off) ROUNDS times (default 5) and prints the CPU time of this thread
spent making each call's scratch area and its copies and moving the used one aside and
removing it (`Stage.__init__`, `Stage.fresh`, `Stage._retire`; a nested call counted
once), per phase, median over the rounds.

Until the areas stopped being reused (2026-11-27) this was bench/scratch_reuse.py, which
compared reusing an ended phase's area (after a /proc scan, or without one) with never
reusing it; see BENCHMARKS.md.
"""

from __future__ import annotations

import importlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.dirname(BENCH))

from research.engine import staging  # noqa: E402

spent = [0.0]
depth = [0]


def timed(method: Callable[..., Any]) -> Callable[..., Any]:
    def measured(*args: Any, **kwargs: Any) -> Any:
        depth[0] += 1
        start = time.thread_time()
        try:
            return method(*args, **kwargs)
        finally:
            depth[0] -= 1
            if not depth[0]:
                spent[0] += time.thread_time() - start

    return measured


def main(rounds: int) -> None:
    os.chdir(tempfile.mkdtemp(prefix="research-areas-"))
    for name in ("__init__", "fresh", "_retire"):
        setattr(staging.Stage, name, timed(getattr(staging.Stage, name)))
    run = importlib.import_module("run")
    run.VERIFY_SOURCES = False
    per_phase: list[float] = []
    for _ in range(rounds):
        spent[0] = 0.0
        result = run.bench_overhead(1)
        per_phase.append(spent[0] * 1000 / result["phases"])
    runs = ", ".join(f"{figure:.2f}" for figure in per_phase)
    print(f"never reused: {statistics.median(per_phase):.2f} ms CPU per phase ({runs})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
