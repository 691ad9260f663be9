#!/usr/bin/env python3
"""A careful agent for `--agent-cmd` (hostile_agent.py's phase work) that leaves, at its
first call, a process behind inside that call's scratch area, escaped from the supervisor
(setsid and a double fork, its output closed): its working directory is the area and it
holds the area's directory open. At its second call it lets that process write, by a
relative path and through the open directory, and waits until it has: a reused area would
take those files into the session.

ESCAPE_RECORD is a directory where it leaves child.pid (the escaped process's pid, for the
test to stop it), go (the second call's signal) and child.json (what the writes did).
"""

import json
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_opencode  # noqa: E402
import hostile_agent  # noqa: E402

WORK = Path(os.environ.get("PWD") or os.getcwd())
RECORD = Path(os.environ["ESCAPE_RECORD"])
AREA = re.compile(r"\.research/\.calls/[^/\s`]+/[^/\s`]+")
PATIENCE = 600.0
"""How long either side waits for the other at most (it never lingers after a failed test)."""


def wait_for(path: Path) -> bool:
    deadline = time.monotonic() + PATIENCE
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def attempt(write) -> str:
    try:
        write()
    except OSError as error:
        return type(error).__name__
    return "written"


def linger(area: Path) -> None:
    """The escaped process: inside the area until told to write, then writes and leaves."""
    os.chdir(area)
    held = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    (RECORD / "child.pid.tmp").write_text(str(os.getpid()))
    os.rename(RECORD / "child.pid.tmp", RECORD / "child.pid")
    if not wait_for(RECORD / "go"):
        return
    outcome = {
        "by_cwd": attempt(lambda: Path("escaped-cwd.md").write_text("ESCAPED by cwd\n")),
        "by_fd": attempt(lambda: _write_at(held, "escaped-fd.md", b"ESCAPED by fd\n")),
    }
    (RECORD / "child.json.tmp").write_text(json.dumps(outcome))
    os.rename(RECORD / "child.json.tmp", RECORD / "child.json")


def _write_at(dir_fd: int, name: str, data: bytes) -> None:
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=dir_fd)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def escape(area: Path) -> None:
    """Leave `linger` running in a new session, its parent gone, its output closed."""
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        linger(area)
    finally:
        os._exit(0)


def main() -> None:
    prompt = sys.stdin.read()
    phase = fake_opencode.phase_of(prompt)
    area = WORK / AREA.search(prompt).group(0)
    calls = RECORD / "calls"
    number = int(calls.read_text()) + 1 if calls.exists() else 1
    calls.write_text(str(number))
    if number == 2:
        (RECORD / "go").write_text("go")
        wait_for(RECORD / "child.json")
    os.environ["PWD"] = str(WORK)
    hostile_agent.phase_work(phase, prompt)
    if number == 1:
        escape(area)
        wait_for(RECORD / "child.pid")
    print(f"Did the {phase} work.", flush=True)


if __name__ == "__main__":
    main()
