"""The session lock: `research.lock.json`, taken atomically, kept alive, and released.

The lock file says who runs the session (token, pid, host, heartbeat). It is only read
and written under an `flock` on the sibling file `research.lock.json.lock`,
taken with filelock and deleted again each time the flock is let go (see `_FileFlock`).
While a run holds the lock, one background thread keeps it alive for the whole run:
every `CHECK_INTERVAL_SECONDS` it reads the lock file, every `HEARTBEAT_INTERVAL_SECONDS`
it refreshes the heartbeat.

A record that is not ours is written back ("lock_repaired"), unless it is a takeover:
another research process that took the lock through the flock records the token it took
over (`took_over`) and, on this host, a proof: both tokens signed with the user's key,
which lives outside the working directory (see `userkey`). An agent that writes the JSON
has neither. A takeover ("lock_lost") makes the thread stop this run's agent calls, and
`check_owned` tells the engine to stop (exit 3). A record naming another host cannot be
proved here (that host may keep another key): its `took_over` is enough.

Whether a lock's holder is alive: on this host, its pid tells. Another host's pid cannot
be checked and its clock may be off by any amount, so its lock is watched instead (without
the flock, so that its holder can refresh it): a heartbeat value that changes means a live
run; one that stays the same for `watch_seconds` (2/5 of the failover bound) means a dead
one, and the lock is taken over.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import logging
import os
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import filelock
from pydantic import BaseModel, ConfigDict, ValidationError

from research.core.defaults import HEARTBEAT_INTERVAL_SECONDS
from research.core.errors import ResearchError, RunFailed, SessionLockedError, UsageError
from research.core.hosts import failover_seconds, host_id, lock_watch_seconds
from research.workspace.fsutil import atomic_write_text, what_is
from research.workspace.orphans import agent_process_groups, stop_process_groups
from research.workspace.userkey import sign, user_key

log = logging.getLogger("research")

STALE_AFTER_SECONDS = 3600
FLOCK_TIMEOUT_SECONDS = 10.0
CHECK_INTERVAL_SECONDS = 1.0
"""How often the keep-alive thread reads the lock file (a takeover is noticed this fast)."""
WATCH_POLL_SECONDS = 0.2
"""How often a run watching another host's lock reads it."""
MAX_LOCK_BYTES = 64 * 1024
"""A bigger lock file is junk, not read further."""
AGENT_STOP_GRACE_SECONDS = 2.0

Listener = Callable[[str, dict[str, object]], None]
"""Receives the lock's events: ("lock_repaired" | "lock_lost" | "warning", fields)."""


class LockFileError(UsageError):
    """The lock file or its flock file is not a regular file, or cannot be read (exit 2)."""


class LockInfo(BaseModel):
    """The content of `research.lock.json`."""

    # Unknown fields are ignored: a newer version may add some, and a live holder's lock
    # must never be taken for junk because of them. NaN and infinities are junk.
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, use_attribute_docstrings=True)

    lock_token: str
    """Random token of one acquisition; only its holder may refresh or release the lock."""
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


def pid_running(pid: int) -> bool:
    """Whether a process with this pid exists on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # OverflowError: no pid is that big
        return False
    except PermissionError:
        return True
    return True


def takeover_proof(old_token: str, new_token: str) -> str:
    return sign(user_key(), "lock takeover", old_token, new_token)


def stale_reason(info: LockInfo, *, now: float, host: str) -> str | None:
    """Why the lock `info` may be taken over, or None when its holder looks alive.

    Only a lock of this host is judged at a glance: a dead pid is stale, and a live one
    is never taken for stale because of a heartbeat in the future (a clock stepped back
    leaves one); a heartbeat older than `STALE_AFTER_SECONDS` is stale. Another host's lock
    is never stale at a glance: its clock may differ from ours by any amount, so only
    watching its heartbeat change (or not) tells (`SessionLock.acquire`)."""
    if info.host != host:
        return None
    if not pid_running(info.pid):
        return f"pid {info.pid} is not running"
    age = now - info.heartbeat
    if age > STALE_AFTER_SECONDS:
        return f"heartbeat is {int(age // 60)} min old"
    return None


# ------------------------------------------------------------------ reading the file

Kind = Literal["missing", "junk", "ok", "not_regular"]


@dataclass
class FoundLock:
    """What the lock file holds: nothing, junk, a record, or something that is no file."""

    kind: Kind
    info: LockInfo | None = None
    problem: str = ""
    """For "not_regular": one line saying what is there and what to do."""


def _not_a_file(path: Path, what: str) -> str:
    kind = what_is(path, link_target=False)
    if kind in ("nothing", "a file"):  # changed since it was refused
        kind = "not a regular file"
    remove = "the directory" if kind == "a directory" else "it"
    left = " (not followed)" if kind == "a symbolic link" else ""
    return f"the {what} {path} is {kind}{left}, not a file; remove {remove} and run again"


_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO)


def _failed(path: Path, what: str, exc: OSError) -> ResearchError:
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
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return FoundLock("missing")
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.EOPNOTSUPP):
            return FoundLock("not_regular", problem=_not_a_file(path, "lock file"))
        raise _failed(path, "lock file", exc) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return FoundLock("not_regular", problem=_not_a_file(path, "lock file"))
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_LOCK_BYTES:
            chunk = os.read(fd, MAX_LOCK_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise _failed(path, "lock file", exc) from None
    finally:
        os.close(fd)
    if size > MAX_LOCK_BYTES:
        return FoundLock("junk")
    try:
        return FoundLock("ok", LockInfo.model_validate_json(b"".join(chunks)))
    except ValidationError:
        return FoundLock("junk")


# ------------------------------------------------------------------ the flock


class _FlockTimeout(Exception):
    pass


_NOT_A_FILE_ERRNOS = (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EOPNOTSUPP)


class _WatchFirst(Exception):
    """The lock is another host's: watch its heartbeat (without the flock) before judging."""

    def __init__(self, info: LockInfo) -> None:
        self.info = info


class _FileFlock:
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
                raise LockFileError(_not_a_file(self.path, "lock guard file"))
            locked.append(found)

        flock = filelock.FileLock(self.path, timeout=timeout, thread_local=False, on_acquired=check)
        try:
            flock.acquire(poll_interval=0.005)
        except filelock.Timeout:
            raise _FlockTimeout from None
        except OSError as exc:
            if exc.errno in _NOT_A_FILE_ERRNOS:
                raise LockFileError(_not_a_file(self.path, "lock guard file")) from None
            raise _failed(self.path, "lock guard file", exc) from None
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

    def _names(self, mine: os.stat_result) -> bool:
        """Whether the path still names the file we locked."""
        try:
            now = os.lstat(self.path)
        except OSError:
            return False
        return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)


# ------------------------------------------------------------------ the lock


@dataclass
class Acquired:
    """The outcome of `SessionLock.acquire`: our lock, and what it replaced and why."""

    info: LockInfo
    took_over: LockInfo | None
    reason: str | None


class SessionLock:
    """A session's lock file, read and written under an flock on a sibling file, kept alive
    by a thread."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        host: str | None = None,
        heartbeat_interval: float | None = None,
        check_interval: float | None = None,
        watch_seconds: float | None = None,
    ) -> None:
        self.path = path
        self._clock = clock
        self._host = host or host_id()
        self._flock = _FileFlock(path.with_name(path.name + ".lock"))
        bound = failover_seconds() if watch_seconds is None else 0.0
        self.watch_seconds = lock_watch_seconds(bound) if watch_seconds is None else watch_seconds
        """How long another host's unchanged heartbeat is watched before it is taken over."""
        # A watch of `watch_seconds` sees at least four refreshes of a live holder's.
        self.heartbeat_interval = (
            min(HEARTBEAT_INTERVAL_SECONDS, self.watch_seconds / 4)
            if heartbeat_interval is None
            else heartbeat_interval
        )
        self.check_interval = CHECK_INTERVAL_SECONDS if check_interval is None else check_interval
        self._token: str | None = None
        self._record: LockInfo | None = None
        self._mutex = threading.RLock()  # the keep-alive thread and the caller take turns
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listener: Listener | None = None
        self._pending: list[tuple[str, dict[str, object]]] = []
        self._warned: set[str] = set()
        self._holder: LockInfo | None = None
        self._dir: tuple[int, int] | None = None  # the session directory we locked
        self.lost = threading.Event()
        """Set when another run took the lock over while we held it."""

    @property
    def token(self) -> str | None:
        """Token of the lock we hold, or None."""
        return self._token

    @property
    def flock_path(self) -> Path:
        return self._flock.path

    @property
    def host(self) -> str:
        """The host name this lock writes (RESEARCH_HOST_ID, or the host name)."""
        return self._host

    def listen(self, listener: Listener) -> None:
        """Send the lock's events to `listener` (those that happened before it, first)."""
        with self._mutex:
            self._listener = listener
            pending, self._pending = self._pending, []
        for kind, fields in pending:
            self._deliver(kind, fields)

    def read(self) -> LockInfo | None:
        """The lock file's record; None if it is missing or junk.

        Raises LockFileError when it is a directory, link, FIFO, … or cannot be opened."""
        found = read_lock_file(self.path)
        if found.kind == "not_regular":
            raise LockFileError(found.problem)
        return found.info

    # -------------------------------------------------------------- taking and leaving

    def acquire(self, *, force: bool = False) -> Acquired:
        """Take the lock, taking over a stale or unreadable one (any one with `force`),
        and start keeping it alive."""
        self._stop_keep_alive()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LockFileError(f"cannot create {self.path.parent}: {exc.strerror}") from None
        watched: LockInfo | None = None
        try:
            while True:
                try:
                    with self._flock.held(FLOCK_TIMEOUT_SECONDS):
                        acquired = self._acquire_locked(force=force, watched=watched)
                    break
                except _WatchFirst as first:
                    watched = self._watch(first.info)
        except _FlockTimeout:
            raise SessionLockedError(
                f"session '{self.path.parent.name}' is locked: another process has held "
                f"{self._flock.path} for over {FLOCK_TIMEOUT_SECONDS:.0f} s"
            ) from None
        except OSError as exc:  # writing our record failed (a full disk, no permission)
            raise _failed(self.path, "lock file", exc) from None
        self._start_keep_alive()
        return acquired

    def _acquire_locked(self, *, force: bool, watched: LockInfo | None) -> Acquired:
        now = self._clock()
        found = read_lock_file(self.path)
        if found.kind == "not_regular":
            raise LockFileError(found.problem)
        current = found.info
        took_over: LockInfo | None = None
        reason: str | None = None
        if current is not None:
            reason = self._takeover_reason(current, now, force=force, watched=watched)
            took_over, reason = current, reason or "forced"
        elif found.kind == "junk":
            reason = "unreadable lock file"
        token = secrets.token_hex(8)
        info = LockInfo(
            lock_token=token,
            pid=os.getpid(),
            host=self._host,
            created=now,
            heartbeat=now,
        )
        if took_over is not None:
            old = took_over.lock_token
            info.took_over, info.proof = old, takeover_proof(old, token)
        self._write(info)
        directory = os.lstat(self.path.parent)
        with self._mutex:
            self._token, self._record = info.lock_token, info
            self._dir = (directory.st_dev, directory.st_ino)
            self.lost.clear()
            self._holder = None
        return Acquired(info=info, took_over=took_over, reason=reason)

    def _takeover_reason(
        self, current: LockInfo, now: float, *, force: bool, watched: LockInfo | None
    ) -> str | None:
        """Why `current` may be taken over (None: forced); SessionLockedError when it may not.

        Another host's lock is judged by watching it, never by comparing clocks: stale only
        when the very record watched for `watch_seconds` is still there, unchanged."""
        if force:
            return stale_reason(current, now=now, host=self._host)
        if current.host == self._host:
            reason = stale_reason(current, now=now, host=self._host)
            if reason is None:
                raise self._locked(current, now)
            return reason
        if watched is None:
            raise _WatchFirst(current)
        if current != watched:  # refreshed, or taken, at the last moment: alive
            raise self._locked(current, now)
        return f"the heartbeat of host {current.host} did not change in {self.watch_seconds:g} s"

    def _watch(self, info: LockInfo) -> LockInfo | None:
        """Watch another host's lock record, without holding the flock (its holder must
        be free to refresh it). Returns the record if it stayed unchanged for
        `watch_seconds`, None if it went away or became junk (judged again under the
        flock); SessionLockedError as soon as it changes: its holder is alive."""
        log.info(
            "session %r is locked by host %s: watching its heartbeat for up to %g s",
            self.path.parent.name,
            info.host,
            self.watch_seconds,
        )
        deadline = time.monotonic() + self.watch_seconds
        while True:
            found = read_lock_file(self.path)
            if found.kind == "not_regular":
                raise LockFileError(found.problem)
            if found.info is None:
                return None
            if found.info != info:
                raise self._locked(found.info, self._clock())
            left = deadline - time.monotonic()
            if left <= 0:
                return info
            time.sleep(min(WATCH_POLL_SECONDS, left))

    def ensure_not_held(self) -> None:
        """Raise SessionLockedError if a live process holds the lock; changes nothing."""
        current = self.read()
        now = self._clock()
        if current is not None and stale_reason(current, now=now, host=self._host) is None:
            raise self._locked(current, now)

    def _locked(self, holder: LockInfo, now: float) -> SessionLockedError:
        return SessionLockedError(
            f"session '{self.path.parent.name}' is locked by {holder.describe(now)}; "
            "if that process is gone, rerun with --force-resume"
        )

    def release(self) -> bool:
        """Stop keeping the lock alive and delete the lock file unless another run holds
        it now. Idempotent; never raises. Returns whether this run still held the lock."""
        self._stop_keep_alive()
        with self._mutex:
            token, self._token, self._record = self._token, None, None
        if token is None or self.lost.is_set():
            return False
        try:
            self._same_directory()
            with self._flock.held(FLOCK_TIMEOUT_SECONDS):
                found = read_lock_file(self.path)
                if found.info is not None and self._taken_over(found.info, token):
                    self._lose(found.info)
                    return False
                if found.kind == "not_regular" and os.path.isdir(self.path):
                    return True  # an agent's directory: left for the user (the next run says so)
                self.path.unlink(missing_ok=True)  # ours, junk, or a link (not followed)
                return True
        except (_FlockTimeout, OSError, ResearchError):
            # Leave the file: our pid is gone soon, so the next run takes it over as stale.
            return False

    # -------------------------------------------------------------- keeping it alive

    def check_owned(self) -> None:
        """Raise SessionLockedError (exit 3) if another run took the lock over."""
        if self._token is not None and not self.lost.is_set():
            with contextlib.suppress(Exception):  # the file may be in flux: the thread decides
                self._check(refresh=False)
        if self.lost.is_set():
            holder = self._holder
            who = holder.describe(self._clock()) if holder is not None else "another run"
            raise SessionLockedError(
                f"session '{self.path.parent.name}' was taken over by {who} while this run "
                "was going; this run stopped without saving (its last agent call is made "
                "again by the run that continues the session)"
            )

    def heartbeat(self) -> bool:
        """Refresh the heartbeat now (repairing our record if needed); False if the lock
        is not ours (never taken, released, or taken over by another run)."""
        try:
            return self._check(refresh=True)
        except _FlockTimeout:
            return self._token is not None and not self.lost.is_set()

    def _start_keep_alive(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._keep_alive, daemon=True, name=f"research-lock-{self.path.parent.name}"
        )
        self._thread.start()

    def _stop_keep_alive(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _keep_alive(self) -> None:
        """The thread: read the lock every check interval, refresh it every heartbeat
        interval, until released or lost. A failed write is retried, never fatal."""
        next_beat = time.monotonic() + self.heartbeat_interval
        while not self._stop.wait(min(self.check_interval, self.heartbeat_interval)):
            refresh = time.monotonic() >= next_beat
            try:
                if not self._check(refresh=refresh):
                    return
                if refresh:
                    next_beat = time.monotonic() + self.heartbeat_interval
            except _FlockTimeout:
                continue  # another process holds the flock: next time
            except (OSError, ResearchError) as exc:
                self._warn_once(
                    f"the session lock {self.path} could not be kept up to date: {exc}; retrying"
                )
            except Exception as exc:  # the thread must outlive any surprise
                self._warn_once(f"the session lock's keep-alive failed: {exc!r}; retrying")

    def _check(self, *, refresh: bool) -> bool:
        """Read the lock file; rewrite our record if it is due (`refresh`) or was
        tampered with; record a takeover. Returns whether the lock is still ours."""
        with self._mutex:
            if self._token is None or self.lost.is_set():
                return False
            found = self._read_quietly()
            if found.info is not None and self._taken_over(found.info, self._token):
                self._lose(found.info)
                return False
            if not refresh and found.info == self._record:
                return True
            self._same_directory()
            with self._flock.held(min(FLOCK_TIMEOUT_SECONDS, 2.0)):
                found = self._read_quietly()  # again, under the flock: it may have changed
                if found.info is not None and self._taken_over(found.info, self._token):
                    self._lose(found.info)
                    return False
                assert self._record is not None
                record = self._record
                if refresh:
                    record = record.model_copy(update={"heartbeat": self._clock()})
                repair = self._repair_kind(found)
                if repair is not None and found.kind == "not_regular" and os.path.isdir(self.path):
                    os.rmdir(self.path)  # an empty directory goes; a full one raises (warned)
                self._write(record)
                self._record = record
            if repair is not None:
                self._report_repair(repair, found)
            return True

    def _report_repair(self, repair: str, found: FoundLock) -> None:
        fields: dict[str, object] = {"repair": repair}
        if found.info is not None:
            fields.update(found_pid=found.info.pid, found_host=found.info.host)
        self._notify("lock_repaired", fields)

    def _same_directory(self) -> None:
        """Refuse to write when the session directory was deleted or replaced (by a link to
        the user's files, say): a lock is never written anywhere else."""
        try:
            now = os.lstat(self.path.parent)
            same = stat.S_ISDIR(now.st_mode) and (now.st_dev, now.st_ino) == self._dir
        except OSError:
            same = False
        if not same:
            raise LockFileError(
                f"the session directory {self.path.parent} was deleted or "
                "replaced; the lock is not written there"
            )

    def _read_quietly(self) -> FoundLock:
        try:
            return read_lock_file(self.path)
        except LockFileError as exc:  # unreadable now: rewritten like junk
            return FoundLock("not_regular", problem=str(exc))

    def _taken_over(self, found: LockInfo, token: str) -> bool:
        """Whether `found`, a record that is not ours, is another run's takeover of our lock
        (or, when it holds the token we took over, its holder's refusal of our takeover,
        which it could not check: we give way rather than take turns writing)."""
        if found.lock_token == token:
            return False
        mine = self._record
        if mine is not None and mine.took_over is not None and found.lock_token == mine.took_over:
            return True
        if found.took_over != token:
            return False
        if found.host != self._host:
            return True  # signed with that host's key, if any: not checkable here
        expected = takeover_proof(token, found.lock_token)
        return found.proof is not None and hmac.compare_digest(found.proof, expected)

    def _repair_kind(self, found: FoundLock) -> str | None:
        if found.kind == "ok":
            assert found.info is not None
            if found.info.lock_token != self._token:
                return "forged"
            return None if found.info == self._record else "changed"
        return {"missing": "deleted", "junk": "unreadable", "not_regular": "replaced"}[found.kind]

    def _lose(self, holder: LockInfo) -> None:
        """Another run holds the lock: stop, and stop our agent calls at once (they would
        write over the new holder's session)."""
        if self.lost.is_set():
            return
        self._holder = holder
        self.lost.set()
        self._stop.set()
        groups = own_agent_groups(self.path.parent)
        if groups:
            stop_process_groups(groups, grace=AGENT_STOP_GRACE_SECONDS)
        self._notify(
            "lock_lost",
            {
                "pid": holder.pid,
                "host": holder.host,
                "holder": holder.describe(self._clock()),
                "stopped_process_groups": sorted(groups),
            },
        )

    def _warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self._notify("warning", {"message": message})

    def _notify(self, kind: str, fields: dict[str, object]) -> None:
        with self._mutex:
            if self._listener is None:
                self._pending.append((kind, fields))
                return
        self._deliver(kind, fields)

    def _deliver(self, kind: str, fields: dict[str, object]) -> None:
        if self._listener is not None:
            with contextlib.suppress(Exception):  # a full disk must not end the keep-alive
                self._listener(kind, fields)

    def _write(self, info: LockInfo) -> None:
        """Replace the lock file in one rename: a link there is replaced, never followed."""
        atomic_write_text(self.path, info.model_dump_json(indent=2, exclude_none=True) + "\n")


def own_agent_groups(session_dir: Path) -> set[int]:
    """Process groups of this process's own agent calls in the session: marked as the
    session's agents, led by a child of ours (another run's agents are not ours to stop)."""
    own = set()
    me = os.getpid()
    for group in agent_process_groups(session_dir):
        try:
            fields = Path(f"/proc/{group}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1] == str(me):
            own.add(group)
    return own
