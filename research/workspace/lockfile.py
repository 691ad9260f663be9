"""The lock file's format: `research.lock.json`, read without following a link, and the flock
that every read-modify-write of it is made under (`FileFlock`).

The record says who runs the session (token, generation, pid, host, heartbeat). It is
only written under the flock, on the sibling file `research.lock.json.lock`, taken with
filelock and deleted again each time it is let go.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import filelock
from pydantic import BaseModel, ConfigDict, ValidationError

from research.core.errors import ResearchError, RunFailed, UsageError
from research.workspace.fencing import unfenced
from research.workspace.fsutil import atomic_write_bytes, read_descriptor, what_is

MAX_LOCK_BYTES = 64 * 1024
"""A bigger lock file is junk, not read further."""


class LockFileError(UsageError):
    """The lock file or its flock file is not a regular file, or cannot be read (exit 2)."""


class SessionDirectoryGone(LockFileError):
    """A write into the session found its directory deleted or replaced: nothing is written
    there. After an agent call the workspace guard says what the agent did instead."""


class LockInfo(BaseModel):
    """The content of `research.lock.json`."""

    # Unknown fields are ignored: a newer version may add some, and a live holder's lock
    # must never be taken for junk because of them. NaN and infinities are junk.
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, use_attribute_docstrings=True)

    lock_token: str
    """Random token of one acquisition; only its holder may refresh or release the lock."""
    generation: int = 0
    """The fencing token: each acquisition's is one more than any before it in the session
    (the lock it took over, and the generation the state was last saved under). A write
    into the session is made only while the lock file still holds our token and this."""
    pid: int
    """Process id of the holder."""
    host: str
    """Host name of the holder; the pid is only checked on the same host."""
    created: float
    """When the lock was taken (epoch seconds)."""
    heartbeat: float
    """When the holder last proved it was alive (epoch seconds)."""
    took_over: str | None = None
    """The token of the lock this one took over, if it took one over."""
    proof: str | None = None
    """Both tokens signed with the user's key: written only by a research process that
    took the lock over through the flock."""

    def describe(self, now: float) -> str:
        """One line for humans: who holds the lock, since when, last heartbeat."""
        return (
            f"pid {self.pid} on host {self.host}, started {_when(self.created)}, "
            f"last heartbeat {_age(now - self.heartbeat)} ago"
        )


def _when(epoch: float) -> str:
    try:
        return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, ValueError, OSError):  # 1e20, -1e20: no calendar date
        return f"at {epoch:g} (not a valid time)"


def _age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 2 * 3600:
        return f"{int(seconds // 60)} min"
    return f"{seconds / 3600:.1f} h"


# ------------------------------------------------------------------ reading the file

Kind = Literal["missing", "junk", "ok", "not_regular"]


@dataclass
class FoundLock:
    """What the lock file holds: nothing, junk, a record, or something that is no file."""

    kind: Kind
    info: LockInfo | None = None
    problem: str = ""
    """For "not_regular": one line saying what is there and what to do."""


def not_a_file(path: Path, what: str) -> str:
    kind = what_is(path, link_target=False)
    if kind in ("nothing", "a file"):  # changed since it was refused
        kind = "not a regular file"
    remove = "the directory" if kind == "a directory" else "it"
    left = " (not followed)" if kind == "a symbolic link" else ""
    return f"the {what} {path} is {kind}{left}, not a file; remove {remove} and run again"


_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO)


def lock_failure(path: Path, what: str, exc: OSError) -> ResearchError:
    """A full or read-only disk fails the run (exit 1); anything else is bad input (2)."""
    if exc.errno in _NO_ROOM:
        return RunFailed(f"cannot write the {what} {path}: {exc.strerror or exc}")
    return LockFileError(
        f"cannot open the {what} {path}: {exc.strerror or exc}; fix its "
        "permissions or remove it, and run again"
    )


def read_lock_file(path: Path) -> FoundLock:
    """Read the lock file without following a link or blocking on a FIFO.

    Raises LockFileError when it cannot be opened for another reason (no permission)."""
    return parse_lock(lock_file_bytes(path))


def lock_file_bytes(path: Path) -> bytes | FoundLock:
    """One read of the lock file: its bytes (at most one more than a lock may have), or
    what is there instead ("missing", "not_regular"); no link followed, no FIFO opened.

    Raises LockFileError when it cannot be opened for another reason (no permission)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return FoundLock("missing")
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.EOPNOTSUPP):
            return FoundLock("not_regular", problem=not_a_file(path, "lock file"))
        raise lock_failure(path, "lock file", exc) from None
    try:
        data = read_descriptor(fd, MAX_LOCK_BYTES)
    except OSError as exc:
        raise lock_failure(path, "lock file", exc) from None
    if data is None:
        return FoundLock("not_regular", problem=not_a_file(path, "lock file"))
    return data


def parse_lock(data: bytes | FoundLock) -> FoundLock:
    """The record in a lock file's bytes, or "junk" (too long, or not a record); what
    `lock_file_bytes` found instead of bytes is returned as it is."""
    if isinstance(data, FoundLock):
        return data
    if len(data) > MAX_LOCK_BYTES:
        return FoundLock("junk")
    try:
        return FoundLock("ok", LockInfo.model_validate_json(data))
    except ValidationError:
        return FoundLock("junk")


# ------------------------------------------------------------------ the flock


class FlockTimeout(Exception):
    """The flock was not had in time."""


_NOT_A_FILE_ERRNOS = (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EOPNOTSUPP)


class FileFlock:
    """filelock's FileLock on `path`, and `path` deleted again before it is let go.

    filelock (4.x) opens the file with O_NOFOLLOW and O_NONBLOCK, and drops a lock it won
    on a file that was deleted in the meantime and tries again; it keeps its file after a
    release. This project deletes it while its flock is still held, so that no flock file
    is left in the session between runs. Two checks of our own remain: filelock takes an
    flock on a FIFO too (refused here: the flock file must be a regular file), and the file is
    deleted only while the path still names the file we locked.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextlib.contextmanager
    def held(self, timeout: float) -> Iterator[None]:
        locked: list[os.stat_result] = []

        def check(fd: int) -> None:  # filelock calls it with the descriptor it locked
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode):
                raise LockFileError(not_a_file(self.path, "lock guard file"))
            locked.append(found)

        flock = filelock.FileLock(self.path, timeout=timeout, thread_local=False, on_acquired=check)
        try:
            flock.acquire(poll_interval=0.005)
        except filelock.Timeout:
            raise FlockTimeout from None
        except OSError as exc:
            if exc.errno in _NOT_A_FILE_ERRNOS:
                raise LockFileError(not_a_file(self.path, "lock guard file")) from None
            raise lock_failure(self.path, "lock guard file", exc) from None
        try:
            yield
        finally:
            try:
                if locked and self._names(locked[-1]):
                    self.path.unlink()
            except OSError:
                pass  # left behind: the next holder deletes it
            finally:
                flock.release()

    @contextlib.contextmanager
    def quick(self, timeout: float) -> Iterator[None]:
        """The same flock as `held`, taken with a few system calls instead of filelock's
        machinery: the fence takes it for every write into the session. Where flock is not
        supported, `held` (filelock) is used instead."""
        fd = self._quick_lock(timeout)
        if fd is None:
            with self.held(timeout):
                yield
            return
        try:
            yield
        finally:
            try:
                if self._names(os.fstat(fd)):
                    self.path.unlink()
            except OSError:
                pass  # left behind: the next holder deletes it
            finally:
                os.close(fd)  # releases the flock

    def _quick_lock(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        while True:
            try:
                fd = os.open(self.path, flags, 0o644)
            except OSError as exc:
                if exc.errno in _NOT_A_FILE_ERRNOS:
                    raise LockFileError(not_a_file(self.path, "lock guard file")) from None
                raise lock_failure(self.path, "lock guard file", exc) from None
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise LockFileError(not_a_file(self.path, "lock guard file"))
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if time.monotonic() >= deadline:
                    raise FlockTimeout from None
                time.sleep(0.005)
                continue
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
                    return None
                raise lock_failure(self.path, "lock guard file", exc) from None
            except BaseException:
                os.close(fd)
                raise
            if self._names(os.fstat(fd)):
                return fd
            os.close(fd)  # deleted by the last holder after we opened it: again

    def _names(self, mine: os.stat_result) -> bool:
        """Whether the path still names the file we locked."""
        try:
            now = os.lstat(self.path)
        except OSError:
            return False
        return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)


def lock_bytes(info: LockInfo) -> bytes:
    """The lock file's bytes for `info`, exactly as written."""
    return (info.model_dump_json(indent=2, exclude_none=True) + "\n").encode("utf-8")


def write_lock_file(path: Path, info: LockInfo) -> None:
    """Replace the lock file in one rename: a link there is replaced, never followed. Not
    fenced: it is the lock's own protocol, made under the flock."""
    with unfenced():
        atomic_write_bytes(path, lock_bytes(info))
