"""Start many research.py processes on one session at the same instant; report their exits.

Run as `python tests/race_harness.py SPEC.json` with the repository on PYTHONPATH. Every
process is a forked child of this pre-imported interpreter running `research.cli.main()`
(as the `research.py` shim does); all of them wait on one pipe and are released together,
so they reach the session lock at the same moment. The mock script must make the winner's
agent calls slow (`sleep_seconds`) and record them (`record_file`): once every other
process has exited and the winner's first call has begun, the winner is stopped with
SIGTERM, as a user would. Writes SPEC's `results` file: [{pid, exit, out}].
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

from kill_harness import become_research_py, preload

LIMIT_SECONDS = 300.0
"""A hang guard: the processes left running then are stopped (and the test fails)."""


def start_together(count: int, work: Path, args: list[str], out_dir: Path) -> list[int]:
    read_end, write_end = os.pipe()
    ready_read, ready_write = os.pipe()
    pids = []
    for index in range(count):
        pid = os.fork()
        if pid == 0:
            os.close(write_end)
            os.close(ready_read)
            os.write(ready_write, b".")  # at the line
            os.close(ready_write)
            os.read(read_end, 1)  # the starting gun: end of file when the parent closes its end
            become_research_py(work, args, out_dir / f"{index}.out")
        pids.append(pid)
    os.close(read_end)
    os.close(ready_write)
    waiting = 0
    while waiting < count:  # every child is at the line (EOF: one died there)
        got = os.read(ready_read, count)
        if not got:
            break
        waiting += len(got)
    os.close(ready_read)
    os.close(write_end)
    return pids


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    preload()
    out_dir = Path(spec["out_dir"])
    pids = start_together(spec["processes"], Path(spec["work"]), spec["args"], out_dir)
    exits: dict[int, int] = {}
    record = Path(spec["record_file"])
    deadline = time.monotonic() + LIMIT_SECONDS
    while time.monotonic() < deadline:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            exits[pid] = os.waitstatus_to_exitcode(status)
            continue
        winner_busy = record.exists() and record.read_text()
        if len(exits) == len(pids) or (len(exits) == len(pids) - 1 and winner_busy):
            break
        time.sleep(0.01)
    for pid in pids:
        if pid not in exits:
            os.kill(pid, signal.SIGTERM)
            exits[pid] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    results = [
        {"pid": pid, "exit": exits[pid], "out": str(out_dir / f"{index}.out")}
        for index, pid in enumerate(pids)
    ]
    Path(spec["results"]).write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
