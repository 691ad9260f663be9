"""The agent's supervisor: its process group dies with the `research` process that started it.

`agents/process.py` starts every agent call as `python -I -S supervisor.py WATCH STATUS
GRACE -- COMMAND...` in a session of its own. This script (standard library only, so it
starts in milliseconds and never imports the package) forks once:

- the parent execs COMMAND: the agent keeps the pid, the process group, the exit code and
  the pipes `research` gave it, as if started directly. STATUS is closed on exec; if the
  exec fails, its errno is written there instead, and `research` raises what Popen would.
- the child (the watch) stays in the agent's group with nothing open but WATCH, the read
  end of a pipe whose only write end `research` holds. When `research` dies, by kill -9
  too, the kernel closes that end: the watch reads end of file, sends the whole group
  SIGTERM, and SIGKILL after GRACE seconds. When the call ends, `research` closes the pipe
  and has already stopped the group, so the same steps find nothing left to stop.

A paused `research` (SIGSTOP) keeps its end open: the agent goes on, and what it writes
lands in the call's scratch area, which the run that takes the session over discards.
"""

from __future__ import annotations

import os
import signal
import sys
import time

POLL_SECONDS = 0.05


def watch(fd: int, grace: float) -> None:
    """The watch: wait for `research` to close (or lose) its end, then stop the group."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the group's SIGTERM is for the agent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            if not os.read(fd, 64):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    group = os.getpgrp()
    try:
        os.killpg(group, signal.SIGTERM)
    except OSError:
        os._exit(0)
    deadline = time.monotonic() + grace
    leader = group  # the agent leads the group: its pid is the group's id
    while time.monotonic() < deadline and _alive(leader):
        time.sleep(POLL_SECONDS)
    try:
        os.killpg(group, signal.SIGKILL)  # this watch goes too
    except OSError:
        pass
    os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:  # a zombie leader is gone
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _detach(keep: int) -> None:
    """The watch holds nothing of the call's: not its pipes, not the status pipe."""
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.close(null)
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 16)


def main(argv: list[str]) -> None:
    watch_fd, status_fd, grace = int(argv[1]), int(argv[2]), float(argv[3])
    if argv[4] != "--" or len(argv) < 6:
        os._exit(2)
    command = argv[5:]
    if os.fork() == 0:
        _detach(watch_fd)
        watch(watch_fd, grace)
    os.close(watch_fd)
    os.set_inheritable(status_fd, False)  # closed by a successful exec: research reads EOF
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        os.write(status_fd, f"{exc.errno or 0}\n".encode())
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv)
