"""Overhead per phase of one checkout, for comparing two: `python bench/overhead_ab.py REPO`.

Runs REPO's own `bench/run.py` `bench_overhead(7)` (mock, breadth 3, depth 2, source check
off, in process) in a fresh temporary directory and prints its figures as one JSON line.
Alternate two checkouts (`git worktree add /tmp/before REV`) a few times each.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile


def main(repo: str) -> None:
    sys.path.insert(0, os.path.join(repo, "bench"))
    os.chdir(tempfile.mkdtemp(prefix="research-ab-"))
    run = importlib.import_module("run")  # that checkout's bench/run.py (puts REPO on sys.path)
    run.VERIFY_SOURCES = False
    result = run.bench_overhead(7)
    keys = ("median_overhead_ms", "median_overhead_cpu_ms", "best_run_overhead_ms", "phases")
    print(json.dumps({key: round(result[key], 3) for key in keys}))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(__file__)))
