"""What reusing a scratch area saves, and what asking /proc whether it is held costs:
`python bench/scratch_reuse.py [ROUNDS]`.

Runs `bench/run.py`'s `bench_overhead(1)` (mock, breadth 3, depth 2, 30 phases, in
process, source check off) ROUNDS times (default 4) under each of three policies in turn,
and prints the CPU time of this thread spent making each phase's scratch area and its
copies (`Stage.__init__` and `Stage.fresh`), per phase, median over the rounds:

- `scan`: the product (an ended phase's area is reused when /proc shows nothing holds it);
- `noscan`: reused without asking (the behaviour before the check);
- `never`: never reused (each phase makes a fresh area and writes every copy).

Then the time of one `holders` scan of this machine's processes (median of 50).
The policies are switched by replacing `engine/areas.holders` here, nothing else.
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

from research.engine import areas, staging  # noqa: E402
from research.workspace.holders import boot_clock, holders  # noqa: E402

POLICIES: dict[str, Callable[..., Any]] = {
    "scan": holders,
    "noscan": lambda path, since: [],
    "never": lambda path, since: None,
}
spent = [0.0]


def timed(method: Callable[..., Any]) -> Callable[..., Any]:
    def measured(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return method(*args, **kwargs)
        finally:
            spent[0] += time.thread_time() - start

    return measured


def main(rounds: int) -> None:
    os.chdir(tempfile.mkdtemp(prefix="research-reuse-"))
    staging.Stage.__init__ = timed(staging.Stage.__init__)  # type: ignore[method-assign]
    staging.Stage.fresh = timed(staging.Stage.fresh)  # type: ignore[method-assign]
    run = importlib.import_module("run")
    run.VERIFY_SOURCES = False
    per_phase: dict[str, list[float]] = {name: [] for name in POLICIES}
    for _ in range(rounds):
        for name, policy in POLICIES.items():
            areas.holders = policy  # type: ignore[assignment]
            spent[0] = 0.0
            result = run.bench_overhead(1)
            per_phase[name].append(spent[0] * 1000 / result["phases"])
    for name, figures in per_phase.items():
        runs = ", ".join(f"{figure:.2f}" for figure in figures)
        print(f"{name}: {statistics.median(figures):.2f} ms CPU per phase ({runs})")
    empty = tempfile.mkdtemp(prefix="research-reuse-area-")
    since, times = boot_clock(), []
    for _ in range(50):
        start = time.perf_counter()
        holders(os.path.realpath(empty), since)
        times.append((time.perf_counter() - start) * 1000)
    count = sum(name.isdigit() for name in os.listdir("/proc"))
    print(f"one holders scan: {statistics.median(times):.2f} ms ({count} processes in /proc)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
