"""The session lock: `research.lock.json`, taken atomically, kept alive, fenced, and released.

The lock file (its format and flock: `lockfile.py`) says who runs the session: token,
generation, pid, host, heartbeat. While a run holds the lock, a thread keeps it alive
(`keepalive.py`). Whether a holder is alive, and whether a record is a takeover of ours,
are the rules of `lockrules.py`.

A record that is not ours is written back ("lock_repaired"), unless it is a takeover:
another research process that took the lock through the flock records the token it took
over (`took_over`) and, on this host, a proof: both tokens signed with the user's key,
which lives outside the working directory (see `userkey`). An agent that writes the JSON
has neither. A record of a later generation, or a state saved under one, is a newer run's
too. A takeover ("lock_lost") makes this run stop its agent calls at once, and
`check_owned` tells the engine to stop (exit 3).

Fencing: every write into the session passes `fenced` (through `workspace/fencing.py`):
under the flock, right before the rename, unlink or append, the lock file must still hold
our token and generation. A run that was paused (SIGSTOP, a VM stopped, a long stall) past
another run's takeover therefore writes nothing when it wakes up, not even its own
`lock_lost` event (heard in its process and said on its stderr; the log is the new
holder's).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from research.core.defaults import HEARTBEAT_INTERVAL_SECONDS
from research.core.errors import ResearchError, SessionLockedError
from research.core.hosts import failover_seconds, host_id, lock_watch_seconds
from research.workspace.keepalive import (
    FLOCK_TIMEOUT_SECONDS,
    KeepAlive,
    Keeper,
    Listener,
    own_agent_groups,
)
from research.workspace.lockfile import (
    MAX_LOCK_BYTES,
    FileFlock,
    FlockTimeout,
    FoundLock,
    LockFileError,
    LockInfo,
    SessionDirectoryGone,
    lock_failure,
    read_lock_file,
    write_lock_file,
)
from research.workspace.lockrules import (
    STALE_AFTER_SECONDS,
    WATCH_POLL_SECONDS,
    WatchFirst,
    pid_running,
    stale_reason,
    takeover_proof,
    takeover_reason,
    watch,
)

__all__ = [
    "MAX_LOCK_BYTES",
    "STALE_AFTER_SECONDS",
    "WATCH_POLL_SECONDS",
    "Acquired",
    "FLOCK_TIMEOUT_SECONDS",
    "FoundLock",
    "LockFileError",
    "LockInfo",
    "SessionDirectoryGone",
    "SessionLock",
    "own_agent_groups",
    "pid_running",
    "read_lock_file",
    "stale_reason",
    "takeover_proof",
]

_FileFlock = FileFlock  # the names tests and older callers use
_FlockTimeout = FlockTimeout

CHECK_INTERVAL_SECONDS = 1.0
"""How often the keep-alive thread reads the lock file (a takeover is noticed this fast)."""


@dataclass
class Acquired:
    """The outcome of `SessionLock.acquire`: our lock, and what it replaced and why."""

    info: LockInfo
    took_over: LockInfo | None
    reason: str | None


class SessionLock:
    """A session's lock file, guarded by an flock on a sibling file, kept alive by a thread."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        host: str | None = None,
        heartbeat_interval: float | None = None,
        check_interval: float | None = None,
        watch_seconds: float | None = None,
        generation_floor: Callable[[], int] | None = None,
    ) -> None:
        self.path = path
        self._clock = clock
        self._host = host or host_id()
        self._flock = FileFlock(path.with_name(path.name + ".lock"))
        self._floor = generation_floor or (lambda: 0)
        """The generation the session's state was last saved under."""
        bound = failover_seconds() if watch_seconds is None else 0.0
        self.watch_seconds = lock_watch_seconds(bound) if watch_seconds is None else watch_seconds
        """How long another host's unchanged heartbeat is watched before it is taken over."""
        keeper = self._keeper = Keeper(
            path, self._flock, host=self._host, clock=clock, floor=self._floor
        )
        # A watch of `watch_seconds` sees at least four refreshes of a live holder's.
        beat = min(HEARTBEAT_INTERVAL_SECONDS, self.watch_seconds / 4)
        self._keep = KeepAlive(
            keeper.check,
            lambda message: keeper.notify("warning", {"message": message}),
            heartbeat_interval=beat if heartbeat_interval is None else heartbeat_interval,
            check_interval=CHECK_INTERVAL_SECONDS if check_interval is None else check_interval,
            name=f"research-lock-{path.parent.name}",
            what=f"the session lock {path}",
        )
        keeper.on_lost = self._keep.request_stop

    @property
    def lost(self) -> threading.Event:
        """Set when another run took the lock over while we held it."""
        return self._keeper.lost

    @property
    def heartbeat_interval(self) -> float:
        return self._keep.heartbeat_interval

    @property
    def check_interval(self) -> float:
        return self._keep.check_interval

    @property
    def token(self) -> str | None:
        """Token of the lock we hold, or None."""
        return self._keeper.token

    @property
    def generation(self) -> int:
        """The fencing token of the lock we hold (or held last); 0 before the first."""
        record = self._keeper.record
        return record.generation if record is not None else self._keeper.last_generation

    @property
    def flock_path(self) -> Path:
        return self._flock.path

    @property
    def host(self) -> str:
        """The host name this lock writes (RESEARCH_HOST_ID, or the host name)."""
        return self._host

    def listen(self, listener: Listener) -> None:
        """Send the lock's events to `listener` (those that happened before it, first)."""
        self._keeper.listen(listener)

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
        self._keep.stop()
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
                except WatchFirst as first:
                    watched = watch(self.path, first.info, self.watch_seconds, self._locked)
        except FlockTimeout:
            raise SessionLockedError(
                f"session '{self.path.parent.name}' is locked: another process has held "
                f"{self._flock.path} for over {FLOCK_TIMEOUT_SECONDS:.0f} s"
            ) from None
        except OSError as exc:  # writing our record failed (a full disk, no permission)
            raise lock_failure(self.path, "lock file", exc) from None
        self._keep.start()
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
            reason = takeover_reason(
                current,
                now=now,
                host=self._host,
                force=force,
                watched=watched,
                watch_seconds=self.watch_seconds,
                locked=self._locked,
            )
            took_over, reason = current, reason or "forced"
        elif found.kind == "junk":
            reason = "unreadable lock file"
        token = secrets.token_hex(8)
        before = current.generation if current is not None else 0
        info = LockInfo(
            lock_token=token,
            generation=max(before, self._floor()) + 1,
            pid=os.getpid(),
            host=self._host,
            created=now,
            heartbeat=now,
        )
        if took_over is not None:
            old = took_over.lock_token
            info.took_over, info.proof = old, takeover_proof(old, token)
        write_lock_file(self.path, info)
        self._keeper.take(info)
        return Acquired(info=info, took_over=took_over, reason=reason)

    def ensure_not_held(self) -> None:
        """Raise SessionLockedError if a live process holds the lock; changes nothing."""
        current = self.read()
        if (
            current is not None
            and stale_reason(current, now=self._clock(), host=self._host) is None
        ):
            raise self._locked(current)

    def _locked(self, holder: LockInfo) -> SessionLockedError:
        return SessionLockedError(
            f"session '{self.path.parent.name}' is locked by {holder.describe(self._clock())}; "
            "if that process is gone, rerun with --force-resume"
        )

    def release(self) -> bool:
        """Stop keeping the lock alive and delete the lock file unless another run holds
        it now. Idempotent; never raises. Returns whether this run still held the lock."""
        self._keep.stop()
        token = self._keeper.let_go()
        if token is None or self.lost.is_set():
            return False
        try:
            self._keeper.same_directory()
            with self._flock.held(FLOCK_TIMEOUT_SECONDS):
                found = read_lock_file(self.path)
                if found.info is not None and self._keeper.newer(found.info, token, None):
                    self._keeper.lose(found.info)
                    return False
                if found.kind == "not_regular" and os.path.isdir(self.path):
                    return True  # an agent's directory: left for the user (the next run says so)
                self.path.unlink(missing_ok=True)  # ours, junk, or a link (not followed)
                return True
        except (FlockTimeout, OSError, ResearchError):
            # Leave the file: our pid is gone soon, so the next run takes it over as stale.
            return False

    # -------------------------------------------------------------- owning it

    def check_owned(self) -> None:
        """Raise SessionLockedError (exit 3) if another run took the lock over."""
        self._keeper.check_owned()

    def heartbeat(self) -> bool:
        """Refresh the heartbeat now (repairing our record if needed); False if the lock
        is not ours (never taken, released, or taken over by another run)."""
        return self._keeper.heartbeat()

    def follow_directory(self, directory: tuple[int, int]) -> None:
        """Keep the lock in the session directory made again at `directory` (device, inode)
        by the workspace guard after an agent deleted the old one (with the lock file)."""
        self._keeper.follow(directory)

    def fenced(self) -> contextlib.AbstractContextManager[None]:
        """One write into the session, made only while the lock is still ours."""
        return self._keeper.fenced()

    def check(self, refresh: bool) -> bool:
        """Read the lock file, repair our record or record a takeover; whether it is ours."""
        return self._keeper.check(refresh)
