"""Which processes still hold something inside a directory: their working directory, root
directory, an open file or a shared memory mapping there (Linux, through /proc).

Why: a scratch area an ended phase leaves is reused by the run's next phase under a new
name (engine/areas.py). The new name puts it out of reach of writes by the old path, not
of a process already inside it (an agent's that escaped its supervisor by setsid and a
double fork): relative paths from its working directory, an open file or directory, a
shared mapping all still reach the area.

How /proc is read: only the kernel's own links and tables (readlink of /proc/<pid>/cwd,
root, task/<tid>/cwd and root, fd/<n>, and the path field of /proc/<pid>/maps), compared as
strings with the directory's path as the kernel names it (`kernel_path`). Nothing is
stat'ed or opened through them, so no link an agent planted is followed and no file system
it mounted is asked anything. A process that vanishes mid-scan is passed over, and so is
this one (the orchestrator keeps no descriptor in an idle area; its own maps are the
longest to read). The answer is None ("cannot tell") when /proc is not there (not Linux),
or when a process that may be ours and started after `since` cannot be read (one that made
itself non-dumpable shows its /proc files as root's) or lives in another mount namespace
(its paths are not ours to compare). A process that started before `since` (the
directory was made) and cannot be read is passed over: it cannot descend from an agent
that worked there.

Every thread's working and root directory are read, and the open files of every thread
that does not share its process's table (kcmp(2) tells, one call a thread). Not seen (a
documented limit): a descriptor handed over a Unix socket, during the scan, from a process
not yet scanned to one already scanned.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass

PROC = "/proc"


@dataclass(frozen=True)
class Holder:
    pid: int
    holds: str
    """What it holds there, in words ("its working directory", "an open file", ...)."""


class CannotTell(Exception):
    """A process that may hold something there could not be read."""


def boot_clock() -> float:
    """Seconds since boot, the clock of a process's start time in /proc/<pid>/stat (0
    where there is no such clock: there is no /proc to compare it with either)."""
    clock = getattr(time, "CLOCK_BOOTTIME", None)
    return 0.0 if clock is None else time.clock_gettime(clock)


def kernel_path(directory: str, identity: tuple[int, int]) -> str | None:
    """The path the kernel gives `directory` (as /proc shows it) when it is still the
    directory `identity` (device, inode) names, opened with no link followed; else None."""
    only_path = getattr(os, "O_PATH", None)
    if only_path is None:
        return None  # not Linux: no /proc to compare it with
    flags = only_path | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
    try:
        fd = os.open(directory, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != identity:
            return None
        path = os.readlink(f"{PROC}/self/fd/{fd}")
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if path.endswith(" (deleted)") else path


def holders(path: str, since: float, *, proc: str = PROC) -> list[Holder] | None:
    """The processes that hold something inside the directory the kernel calls `path`;
    None when that cannot be told (see the module's docstring)."""
    own = str(os.getpid())  # the orchestrator: it keeps nothing open in an idle area
    try:
        own_namespace = os.readlink(f"{proc}/self/ns/mnt")
        pids = [name for name in os.listdir(proc) if name.isdigit() and name != own]
    except OSError:
        return None
    scan = _Scan(path, since, proc, own_namespace)
    found: list[Holder] = []
    for pid in pids:
        try:
            holds = scan.process(pid)
        except CannotTell:
            return None
        except OSError:  # gone mid-scan (or a thread of it): it holds nothing now
            continue
        if holds is not None:
            found.append(Holder(int(pid), holds))
    return found


class _Scan:
    def __init__(self, path: str, since: float, proc: str, own_namespace: str) -> None:
        self.path, self.inside = path, path + os.sep
        self.marker = self.inside.encode()
        self.since, self.proc, self.own_namespace = since, proc, own_namespace
        self.uid = os.geteuid()
        self.tick = float(os.sysconf("SC_CLK_TCK"))

    def within(self, name: str) -> bool:
        return name == self.path or name.startswith(self.inside)

    def process(self, pid: str) -> str | None:
        """What the process `pid` holds inside the directory (None: nothing)."""
        base = f"{self.proc}/{pid}"
        try:
            os.readlink(f"{base}/exe")
        except FileNotFoundError:
            return None  # a kernel thread or a zombie: no files (most of /proc in a VM)
        except PermissionError:
            pass  # another user's, or one we may not read: judged below
        if self.uid != 0 and os.stat(base).st_uid != self.uid:
            if self._started_before(base) or not self._ours(base):
                return None  # another user's, or none of our agents'
            raise CannotTell(pid)  # ours, hidden from us (non-dumpable)
        try:
            if os.readlink(f"{base}/ns/mnt") == self.own_namespace:
                return self._holds(base)
        except PermissionError:
            pass
        if self._started_before(base):
            return None  # cannot be read, but no agent of the area's started it
        raise CannotTell(pid)

    def _started_before(self, base: str) -> bool:
        with open(f"{base}/stat", "rb") as handle:  # readable for every process
            fields = handle.read().rsplit(b")", 1)[1].split()
        return int(fields[19]) / self.tick < self.since - 1 / self.tick

    def _holds(self, base: str) -> str | None:
        leader = base.rsplit("/", 1)[1]
        tasks = os.listdir(f"{base}/task")
        for tid in tasks:  # a thread can have a working directory of its own
            for link, words in (("cwd", "its working directory"), ("root", "its root directory")):
                with contextlib.suppress(FileNotFoundError):  # the thread ended
                    if self.within(os.readlink(f"{base}/task/{tid}/{link}")):
                        return words
        tables = [base] + [  # and a table of open files of its own (unshare(CLONE_FILES))
            f"{base}/task/{tid}" for tid in tasks if tid != leader and not _same_files(leader, tid)
        ]
        for table in tables:
            with contextlib.suppress(FileNotFoundError):  # the thread ended
                if self._open_within(table):
                    return "an open file"
        with open(f"{base}/maps", "rb") as handle:  # one for all its threads
            maps = handle.read()
        if self.marker in maps and any(self._shared_within(line) for line in maps.splitlines()):
            return "a shared mapping of a file"
        return None

    def _open_within(self, table: str) -> bool:
        for fd in os.listdir(f"{table}/fd"):
            with contextlib.suppress(FileNotFoundError):  # closed meanwhile
                if self.within(os.readlink(f"{table}/fd/{fd}")):
                    return True
        return False

    def _shared_within(self, line: bytes) -> bool:
        fields = line.split(None, 5)
        if len(fields) < 6 or fields[1][3:4] != b"s":
            return False  # a private mapping never writes to its file
        name = os.fsdecode(fields[5])
        return self.within(name.removesuffix(" (deleted)"))

    def _ours(self, base: str) -> bool:
        with open(f"{base}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Uid:"):
                    return str(self.uid).encode() in line.split()[1:]
        return False


KCMP_FILES = 2
_KCMP = {"x86_64": 312, "aarch64": 272, "riscv64": 272}.get(platform.machine())
"""kcmp(2)'s system call number here (None: unknown, every thread's table is read)."""
_syscall: Callable[..., int] | None = None


def _same_files(leader: str, tid: str) -> bool:
    """Whether the thread `tid` shares the table of open files of `leader`, its process's
    first thread (kcmp(2); False when that cannot be asked: its table is read then)."""
    global _syscall
    if _KCMP is None:
        return False
    if _syscall is None:
        _syscall = ctypes.CDLL(None, use_errno=True).syscall
    args = (_KCMP, int(leader), int(tid), KCMP_FILES, 0, 0)
    return _syscall(*(ctypes.c_long(arg) for arg in args)) == 0
